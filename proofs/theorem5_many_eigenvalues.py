"""Theorem 5 (Dinh et al. 2017, §4.2, Definition 6): many eigenvalues of the Hessian at once.

For a deep rectifier network θ = (θ_1, …, θ_K), n_k = dim θ_k, a minimum θ of L with
r = rank H_L(θ), and every M > 0, there is α (α_k > 0, ∏ α_k = 1) such that at least
r − min_k n_k eigenvalues of H_L(T_αθ) exceed M.  The chain, as checked here:

  1. H_L(T_αθ) = D_α H_L(θ) D_α, D_α = diag(α_k⁻¹ I_{n_k}), when ∏ α_k = 1   (exact, pattern form)
  2. the paper's choice (k* a layer of least size): α_k = β⁻¹ (k ≠ k*), α_{k*} = β^{K−1};
     ∏ α_k = 1 exactly, and D_α² has the eigenvalue β² n − n_{k*} times   (exact identity)
  3. multiplicative Horn inequality (Klyachko 2000) for H ⪰ 0 and β ≥ 1:
     λ_i(D H D) ≥ β² λ_{i+n_{k*}}(H) ≥ β² λ_r(H) for i ≤ r − n_{k*}        (glue, named)
  4. β² > M/λ_r(H) makes those r − n_{k*} eigenvalues exceed M.
On random interpolating minima (rational data, loss exactly 0) the count is computed EXACTLY: the
Hessian is recomputed at T_αθ (not transformed), and the number of its eigenvalues above M is
the positive index of inertia of H − M·I (exact symmetric elimination), cross-checked by the sign
changes of the characteristic polynomial.  Floating-point eigenvalues are only used to propose
β, never as evidence.
"""
from __future__ import annotations

import random
from fractions import Fraction

import mpmath
import sympy as sp

from symbolic import Status, Verdict
from symbolic.kernel import Fact, Relation, by_oracle, conjunction
from symbolic.checks import zeros
from symbolic.networks.deep import DeepNet, exact_mse_hessian, exact_prediction
from symbolic.decision.budget import within_budget
from symbolic.derivation import Derivation
from symbolic.networks.minima import Minimum, interpolating_minimum, layer_sizes
from symbolic.numerics.inertia import count_above, count_above_by_characteristic_polynomial, inertia

from proofs import biases
from symbolic.report import Report, counted
from symbolic.trusted.oracles.exact import RATIONAL_COMPARISON
from symbolic.trusted.oracles.linear_algebra import EXACT_INERTIA, EXACT_RANK

NAME = "theorem5"
TITLE = "Theorem 5: many eigenvalues of the Hessian made arbitrarily large at once"
SOURCE = ("Dinh, Pascanu, Bengio and Bengio, Sharp Minima Can Generalize For Deep Nets, ICML 2017, "
          "Section 4.2, Definition 6 and Theorem 5 (many directions)")
# (d, h, N): input dimension, width of every hidden layer, data points; each at depths K = 3, 4
FIXED_SIZES = [(2, 2, 6), (2, 3, 10), (3, 2, 8)]
DEFAULT_SIZES = LARGEST_SIZES = (3, 3, 10)
DEPTHS = (3, 4)
TARGETS = (10, 10 ** 3, 10 ** 6)
CONGRUENCE_CASES = (((2, 2, 2, 1), 2), ((1, 2, 2, 2, 1), 2))


def widths(d: int, h: int, depth: int) -> tuple:
    """d inputs, depth − 1 hidden layers of width h, one output: K = depth weight layers."""
    return (d,) + (h,) * (depth - 1) + (1,)


def mse(net: DeepNet, theta, inputs, targets) -> Fraction:
    """L(θ) with the real ReLU (max), exactly."""
    return sum((exact_prediction(net, theta, x) - y) ** 2 for x, y in zip(inputs, targets)) / len(inputs)


def papers_scales(sizes: list[int], beta: Fraction) -> tuple[int, list]:
    """k* = a layer of least size (the last such); α_k = β⁻¹ for k ≠ k*, α_{k*} = β^{K−1}."""
    K = len(sizes)
    thinnest = max(k for k in range(K) if sizes[k] == min(sizes))
    return thinnest, [beta ** (K - 1) if k == thinnest else 1 / beta for k in range(K)]


def rescaled(theta, sizes, scales) -> list:
    """T_αθ: θ_k ↦ α_k θ_k."""
    factors = [scale for size, scale in zip(sizes, scales) for _ in range(size)]
    return [f * t for f, t in zip(factors, theta)]


def smallest_positive_eigenvalue_bound(hessian, rank: int) -> Fraction:
    """A rational ℓ > 0 with λ_r(H) > ℓ, certified exactly: H − ℓI keeps r positive eigenvalues
    (mpmath only proposes ℓ)."""
    with mpmath.workdps(15):
        eigenvalues = sorted(mpmath.eigsy(mpmath.matrix([[mpmath.mpf(e.numerator) / e.denominator
                                                           for e in row] for row in hessian]),
                                          eigvals_only=True), reverse=True)
        guess = eigenvalues[rank - 1] / 2
        bound = Fraction(int(mpmath.floor(guess * 10 ** 12)), 10 ** 12)
    while bound > 0 and count_above(hessian, bound) < rank:
        bound /= 2
    if bound <= 0:
        raise ArithmeticError("no certified lower bound for the smallest positive eigenvalue")
    return bound


def papers_beta(lower: Fraction, target) -> Fraction:
    """A rational β ≥ 1 with β² > M/ℓ ≥ M/λ_r(H) (step 4), checked exactly."""
    with mpmath.workdps(30):
        beta = Fraction(int(mpmath.ceil(mpmath.sqrt(mpmath.mpf(target) / (mpmath.mpf(lower.numerator)
                                                                          / lower.denominator))
                                        * 1000)) + 1, 1000)
    beta = max(beta, Fraction(1))
    if not beta ** 2 * lower > target:
        raise ArithmeticError("beta^2 > M / lambda_r was not reached")
    return beta


def count_at_papers_alpha(minimum: Minimum, target, lower: Fraction | None = None) -> dict:
    """Everything the count claim needs at one M, exactly (``lower``: a certified ℓ < λ_r(H))."""
    net, theta = minimum.net, minimum.theta
    sizes = layer_sizes(net)
    r = inertia(minimum.hessian).rank
    if lower is None:
        lower = smallest_positive_eigenvalue_bound(minimum.hessian, r)
    beta = papers_beta(lower, target)
    thinnest, scales = papers_scales(sizes, beta)
    product = Fraction(1)
    for scale in scales:
        product *= scale
    scaled = rescaled(theta, sizes, scales)
    # the Hessian recomputed at T_αθ, on T_αθ's own activation pattern
    hessian = exact_mse_hessian(net, scaled, minimum.inputs, minimum.targets)
    D = [1 / scale for size, scale in zip(sizes, scales) for _ in range(size)]
    congruent = all(hessian[i][j] == D[i] * minimum.hessian[i][j] * D[j]
                    for i in range(len(D)) for j in range(len(D)))
    count = count_above(hessian, target)
    return {"r": r, "n_min": min(sizes), "layer": thinnest + 1, "beta": beta, "lower": lower,
            "product": product, "loss": mse(net, scaled, minimum.inputs, minimum.targets),
            "congruent": congruent, "count": count,
            "count_charpoly": count_above_by_characteristic_polynomial(hessian, target),
            "horn_bound": count_above(hessian, beta ** 2 * lower), "scaled": scaled, "hessian": hessian}


def eigenvalue_count(d: int, h: int, n: int, depth: int, seed: int = 0, extra: int = 0,
                     dead_output: bool = False) -> Verdict:
    """At least r − min n_k (+ ``extra``: a false claim for the control) eigenvalues of
    H(T_αθ) exceed M, for M = 10, 10³, 10⁶, with the paper's α, on a random minimum."""
    net = DeepNet(widths(d, h, depth))
    wanted = "r - min n_k" + (f" + {extra}" if extra else "")
    claim = f"#eigenvalues of H(T_alpha theta) above M >= {wanted}, widths {net.widths}, N={n}"
    try:
        minimum = interpolating_minimum(net, n, random.Random(seed), dead_output=dead_output)
    except ArithmeticError as error:
        return Verdict(Status.UNDECIDED, claim, reason=str(error))
    if inertia(minimum.hessian).negative:
        return Verdict(Status.UNDECIDED, claim, reason="H(theta) has a negative eigenvalue: not a minimum")
    evidence, facts = [], []
    try:
        lower = smallest_positive_eigenvalue_bound(minimum.hessian, inertia(minimum.hessian).rank)
        counts = [(target, count_at_papers_alpha(minimum, target, lower)) for target in TARGETS]
    except ArithmeticError as error:
        return Verdict(Status.UNDECIDED, claim, reason=str(error))
    for target, found in counts:
        if found["product"] != 1 or found["loss"] != 0 or not found["congruent"]:
            return Verdict(Status.UNDECIDED, claim, reason=f"M={target}: the instance is not what step "
                           f"1-2 say (product {found['product']}, loss {found['loss']})")
        if found["count"] != found["count_charpoly"]:
            return Verdict(Status.UNDECIDED, claim, reason=f"M={target}: inertia says {found['count']}, "
                           f"the characteristic polynomial {found['count_charpoly']}")
        required = found["r"] - found["n_min"] + extra
        witness = {"widths": net.widths, "theta": minimum.theta, "inputs": minimum.inputs,
                   "M": target, "beta": found["beta"], "rank r": found["r"],
                   "min n_k": found["n_min"], "eigenvalues above M": found["count"]}
        if found["count"] < required:
            return Verdict(Status.REFUTED, claim, witness=witness,
                           reason=f"M={target}: exactly {counted(found['count'], 'eigenvalue')} above M (inertia of "
                                  f"H - M I and the characteristic polynomial agree), fewer than {required}")
        if found["horn_bound"] < found["r"] - found["n_min"]:
            return Verdict(Status.UNDECIDED, claim, reason=f"M={target}: the Horn bound of step 3 fails "
                                                           "on this instance")
        evidence.append(f"M={target}: beta={float(found['beta']):.4g}, r={found['r']}, "
                        f"min n_k={found['n_min']} (layer {found['layer']}), exactly {found['count']} "
                        f"eigenvalues above M (inertia and characteristic polynomial agree), "
                        f"{found['horn_bound']} above beta^2 l (step 3)")
        # the kernel's statements: H(T_αθ) has exactly that many eigenvalues above M, and that
        # many is at least r − min n_k
        facts += [by_oracle(EXACT_INERTIA, Fact("eigenvalues above", (found["hessian"], target, found["count"]),
                                                  f"H(T_alpha theta) at M={target}, the paper's alpha")),
                  by_oracle(RATIONAL_COMPARISON, Relation(sp.Integer(found["count"]), ">=",
                                                                  sp.Integer(required)))]
    # r = rank H(θ), and H(θ) positive semidefinite: exactly r eigenvalues above 0
    r = counts[0][1]["r"]
    facts += [by_oracle(EXACT_RANK, Fact("rank", (minimum.hessian, r), "r = rank H(theta)")),
              by_oracle(EXACT_INERTIA, Fact("eigenvalues above", (minimum.hessian, 0, r),
                                              "H(theta) is positive semidefinite of rank r"))]
    return conjunction(facts, label=claim, evidence=(
        "H(theta) positive semidefinite (exact inertia); loss exactly 0 at theta and T_alpha theta; "
        "Hessian recomputed at T_alpha theta equals D H D exactly", *evidence,
        "taken on the word of the oracles: exact inertia, exact rational comparison, exact linear algebra"))


def unbalanced_product(d: int, h: int, n: int, depth: int, seed: int = 0) -> Verdict:
    """Control: α with ∏ α_k = 2 ≠ 1 (the paper's α at β = 3 with α_K doubled) changes the loss."""
    net = DeepNet(widths(d, h, depth))
    claim = f"L(T_alpha theta) = L(theta) with prod alpha_k = 2, widths {net.widths}, N={n}"
    try:
        minimum = interpolating_minimum(net, n, random.Random(seed))
    except ArithmeticError as error:
        return Verdict(Status.UNDECIDED, claim, reason=str(error))
    sizes = layer_sizes(net)
    _, scales = papers_scales(sizes, Fraction(3))
    scales[-1] *= 2
    scaled = rescaled(minimum.theta, sizes, scales)
    before, after = mse(net, minimum.theta, minimum.inputs, minimum.targets), mse(
        net, scaled, minimum.inputs, minimum.targets)
    if after != before:
        return Verdict(Status.REFUTED, claim, witness={"theta": minimum.theta, "alpha": scales,
                                                        "L(theta)": before, "L(T_alpha theta)": after},
                       reason="exact rational evaluation with the real ReLU: the loss changes")
    return Verdict(Status.UNDECIDED, claim, reason="the loss did not change on this instance")


def product_is_one() -> Verdict:
    """Step 2: ∏ α_k = β^{−(K−1)}·β^{K−1} = 1 and the eigenvalue β² of D_α², for symbolic β, K."""
    beta = sp.Symbol("beta", positive=True)
    claim = "prod alpha_k = 1 and D_alpha^2 = beta^2 off layer k*, for K = 2..6"
    equations = []
    for K in range(2, 7):
        scales = [1 / beta] * (K - 1) + [beta ** (K - 1)]
        # the product and the square as written (multiplied out, sympy would make each 1 = 1, 0 = 0)
        equations += [(sp.Mul(*scales, evaluate=False), sp.S.One),
                      (sp.Pow(sp.Pow(scales[0], -1, evaluate=False), 2, evaluate=False), beta ** 2)]
    return zeros(claim, equations, evidence=("for each K = 2..6",))


def derivation_skeleton() -> Derivation:
    return Derivation(
        name=NAME, title=TITLE, source=SOURCE,
        statement=(r"Let $\theta = (\theta_k)_{k \le K}$ be a minimum of $L$ for a deep rectifier network, "
                   r"$n_k = \dim\theta_k$ and $r = \operatorname{rank} H_L(\theta)$. For every $M > 0$ "
                   r"there is $\alpha$ with $\prod_k \alpha_k = 1$ such that at least "
                   r"$r - \min_k n_k$ eigenvalues of $H_L(T_\alpha\theta)$ exceed $M$."),
        definitions=[
            r"$T_\alpha(\theta_k)_k = (\alpha_k\theta_k)_k$, $\alpha_k > 0$, $\prod_k \alpha_k = 1$; "
            r"$D_\alpha = \operatorname{diag}(\alpha_1^{-1} I_{n_1}, \dots, \alpha_K^{-1} I_{n_K})$.",
            r"$\lambda_1(A) \ge \dots \ge \lambda_n(A)$: the sorted eigenvalues (Definition 6).",
            r"$k^*$: a layer with $n_{k^*} = \min_k n_k$ (the paper takes $k^* = K$).",
        ])


def run(sizes, seed=0, timeout=None) -> Report:
    derivation = derivation_skeleton()
    report = Report(derivation)

    def record(claim, size, check):
        return report.record(NAME, claim, size, lambda: within_budget(check, timeout, claim))
    congruence = [record("H(T_alpha theta) = D H(theta) D, prod alpha_k = 1", (None, None, n),
                                lambda w=w, n=n: biases.deep_congruence(w, n, seed=seed, bias=False))
                  for w, n in CONGRUENCE_CASES]
    product = record("paper's alpha: prod = 1, D^2 = beta^2 off layer k*", (None, None, None),
                            product_is_one)
    counts = [record(f"exact count above M, depth K={depth}", size,
                            lambda size=size, depth=depth: eigenvalue_count(*size, depth, seed=seed))
              for depth in DEPTHS for size in sizes]
    derivation.add(congruence,
                   "multi-layer Theorem 3, $H_L(T_\\alpha\\theta) = D_\\alpha H_L(\\theta) D_\\alpha$: exact "
                   "Laurent-polynomial identity on the pattern form (MSE, symbolic data, symbolic $\\alpha_k$), every "
                   "gradient and Hessian entry, with an mpmath witness on the real network; widths "
                   + ", ".join(str(w) for w, _ in CONGRUENCE_CASES), [(None, None, n) for _, n in CONGRUENCE_CASES])
    derivation.add([product], r"the paper's scales $\alpha_k = \beta^{-1}$ ($k \ne k^*$), $\alpha_{k^*} = \beta^{K-1}$: "
                   r"$\prod_k \alpha_k = 1$ and $(D_\alpha^2)_{kk} = \beta^2$ off layer $k^*$, exact identity for "
                   r"symbolic $\beta$, $K = 2, \dots, 6$")
    derivation.unchecked += [
        r"$\lambda_i(D_\alpha H D_\alpha) \ge \beta^2 \lambda_{i + n_{k^*}}(H) \ge \beta^2 \lambda_r(H)$ for "
        r"$i \le r - n_{k^*}$: the multiplicative Horn inequality (Klyachko 2000) for $H \succeq 0$ at a minimum "
        r"and $\beta \ge 1$, where the $n - n_{k^*}$ largest eigenvalues of $D_\alpha^2$ equal $\beta^2$; "
        r"$D H D$ and $H D^2$ are similar (the paper prints $\le \lambda_r$, a typo for $\ge$).",
        r"$\beta^2 > M/\lambda_r(H) \Rightarrow \lambda_i(H_L(T_\alpha\theta)) > M$ for $i \le r - \min_k n_k$: "
        r"from the two lines above."]
    derivation.add(counts, r"exact count on random interpolating minima (loss exactly 0), $M = 10, 10^3, 10^6$: "
                   r"$\#\{i: \lambda_i(H_L(T_\alpha\theta)) > M\} \ge r - \min_k n_k$, the Hessian recomputed at "
                   r"$T_\alpha\theta$, the positive index of inertia of "
                   r"$H - M I$ by exact symmetric elimination, cross-checked by the sign changes of "
                   r"the characteristic polynomial; $\beta$ rational with $\beta^2 \ell > M$ for a "
                   r"certified $\ell < \lambda_r(H)$", [size for _ in DEPTHS for size in sizes])
    derivation.sizes = sizes
    derivation.notes.append(
        r"Sizes $(d, h, N)$: $d$ inputs, hidden layers of width $h$, $N$ data points, at depths "
        r"$K = %s$ (weight layers). Floating-point eigenvalues only propose $\beta$; the evidence "
        r"is the exact count." % ", ".join(map(str, DEPTHS)))
    derivation.notes.append(
        r"Negative controls (tests): scales with $\prod_k \alpha_k = 2$ make the loss of an "
        r"interpolating minimum positive (exact, real ReLU); a claim of $r - \min_k n_k + 1$ "
        r"eigenvalues is refuted by an exact count on a minimum whose output layer is zero.")
    return report
