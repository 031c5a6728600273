"""Theorem 4 (Dinh et al. 2017, §4.2): every minimum is observationally equivalent to an
arbitrarily sharp one.

For a one-hidden-layer ReLU network, a minimum θ of L with H_L(θ) ≠ 0, and every M > 0, there is
α > 0 with ‖H_L(T_αθ)‖₂ ≥ M.  The chain, as checked here:

  1. H_L(T_αθ) = S H_L(θ) S with S = diag(α⁻¹ on W, α on v)           (Theorem 3, checked)
  2. (S H S)_kk = H_kk/α² on the W block and α² H_kk on the v block   (exact identity)
  3. At a minimum H is positive semidefinite; a non-zero PSD matrix has a diagonal entry γ > 0,
     and ‖A‖₂ ≥ A_kk for PSD A (Rayleigh quotient)                   (standard linear algebra)
  4. α = sqrt(γ/M) (γ in the W block) or α = sqrt(M/γ) (γ in the v block) gives (S H S)_kk = M
                                                                      (exact identity)
  5. Hence ‖H_L(T_αθ)‖₂ ≥ M.
Random instances at a minimum (interpolating data, loss exactly 0) confirm it with mpmath: the
Hessian recomputed at T_αθ, not through step 1, has spectral norm ≥ M.
"""
from __future__ import annotations

import random
from fractions import Fraction

import mpmath
import sympy as sp

from symbolic import Status, Verdict, check_identity
from symbolic.kernel import Fact, by_oracle, conjunction
from symbolic.checks import zeros
from symbolic.derivation import CoqCitation, Derivation
from symbolic.numerics import agreement
from symbolic.numerics.real_network import predictions, preactivations
from symbolic.networks.minima import mse_hessian_at
from symbolic.networks.polynomial import PatternNetwork

from proofs import theorem3_derivative_transformation as theorem3
from symbolic.report import Report
from symbolic.trusted.oracles.linear_algebra import EXACT_INERTIA
from symbolic.trusted.oracles.numerics import NUMERIC_AGREEMENT

NAME = "theorem4"
TITLE = "Theorem 4: every minimum is observationally equivalent to an arbitrarily sharp minimum"
SOURCE = ("Dinh, Pascanu, Bengio and Bengio, Sharp Minima Can Generalize For Deep Nets, ICML 2017, "
          "Section 4.2, Theorem 4 (sharpest direction)")
DEFAULT_SIZES = (3, 3, 3)
LARGEST_SIZES = (6, 6, 6)
TARGETS = (10, 10 ** 3, 10 ** 6)


def diagonal_of_congruence(d: int, h: int) -> Verdict:
    """(S H S)_kk = S_kk² H_kk for a generic symmetric H: H_kk/α² on W, α² H_kk on v."""
    size = d * h + h
    alpha = sp.Symbol("alpha", positive=True)
    H = sp.Matrix(size, size, lambda k, l: sp.Symbol(f"H_{min(k, l)}_{max(k, l)}", real=True))
    S = sp.diag(*([1 / alpha] * (d * h) + [alpha] * h))
    # (S H S)_kk = Σ_a Σ_b S_ka H_ab S_bk, the entry of the product as written (the product
    # multiplied out would be the right side itself, and the statement H_kk/α² = H_kk/α²)
    entry = [sp.Add(*[sp.Mul(S[k, a], H[a, b], S[b, k], evaluate=False) for a in range(size) for b in range(size)],
                    evaluate=False) for k in range(size)]
    expected = [H[k, k] / alpha ** 2 for k in range(d * h)] + [alpha ** 2 * H[k, k] for k in range(d * h, size)]
    verdicts = [check_identity(entry[k], expected[k]) for k in range(size)]
    return conjunction(verdicts, label=f"(S H S)_kk = H_kk/alpha^2 on W, alpha^2 H_kk on v, d={d}, h={h}",
                       evidence=(f"{size} diagonal entries, exact",))


def explicit_scale() -> Verdict:
    """γ/α² = M at α = sqrt(γ/M), and γα² = M at α = sqrt(M/γ)."""
    gamma, M = sp.symbols("gamma M", positive=True)
    # α² at α = sqrt(γ/M) and at α = sqrt(M/γ), as written (evaluated, each side would be M)
    w_square = sp.Pow(sp.sqrt(gamma / M), 2, evaluate=False)
    v_square = sp.Pow(sp.sqrt(M / gamma), 2, evaluate=False)
    w_block = sp.Mul(gamma, sp.Pow(w_square, -1, evaluate=False), evaluate=False)
    v_block = sp.Mul(gamma, v_square, evaluate=False)
    claim = "gamma/alpha^2 = M at alpha = sqrt(gamma/M); gamma alpha^2 = M at alpha = sqrt(M/gamma)"
    return zeros(claim, [(w_block, M), (v_block, M)])


def sharp_instance(d, h, n, rng, target) -> tuple[bool, dict]:
    """A random minimum (interpolating data: loss exactly 0, the first item), its α for the target,
    and the Hessian recomputed at T_αθ, exactly."""
    model = PatternNetwork(d, h, n)
    while True:
        theta = [Fraction(rng.randint(-40, 40) or 1, 8) for _ in range(d * h + h)]
        inputs = [[Fraction(rng.randint(-40, 40), 8) for _ in range(d)] for _ in range(n)]
        rows = preactivations(theta, inputs, d, h, False)
        if all(s != 0 for row in rows for s in row) and any(s > 0 for row in rows for s in row):
            break
    targets = predictions(theta, inputs, d, h, False)       # the data are interpolated: L(θ) = 0
    hessian = mse_hessian_at(model, theta, inputs, targets)
    size = len(theta)
    k = max(range(size), key=lambda m: hessian[m][m])
    gamma = hessian[k][k]
    if gamma <= 0:
        return False, {"reason": "H(theta) = 0 at this minimum: the theorem does not apply"}
    # α rational, rounded so that the scaled diagonal entry is at least the target
    with mpmath.workdps(50):
        if k < d * h:
            root = mpmath.sqrt(mpmath.mpf(gamma.numerator) / gamma.denominator / target)
            alpha = Fraction(int(mpmath.floor(root * 10 ** 12)), 10 ** 12) or Fraction(1, 10 ** 12)
        else:
            root = mpmath.sqrt(mpmath.mpf(target) * gamma.denominator / gamma.numerator)
            alpha = Fraction(int(mpmath.ceil(root * 10 ** 12)), 10 ** 12)
    scaled = [alpha * t for t in theta[: d * h]] + [t / alpha for t in theta[d * h:]]
    sharp = mse_hessian_at(model, scaled, inputs, targets)
    loss_at_theta = sum((p - y) ** 2 for p, y in zip(predictions(theta, inputs, d, h, False), targets))
    return loss_at_theta == 0, {"alpha": alpha, "gamma": gamma, "block": "W" if k < d * h else "v",
                                "hessian": sharp, "theta": theta}


def random_instances(d, h, n, seed=0) -> Verdict:
    """For each target M: ‖H(T_αθ)‖₂ ≥ M by the two-precision agreement of its eigenvalues, and
    H(T_αθ) positive semidefinite by its exact inertia (no eigenvalue of −H above 0)."""
    rng = random.Random(seed)
    claim = f"random minima: ||H(T_alpha theta)||_2 >= M for M in {TARGETS}, d={d}, h={h}, N={n}"
    checks = []
    for target in TARGETS:
        minimum, info = sharp_instance(d, h, n, rng, target)
        if "reason" in info:
            return Verdict(Status.UNDECIDED, claim, reason=info["reason"])
        if not minimum:
            return Verdict(Status.UNDECIDED, claim, reason="the data are not interpolated: not a minimum")
        sharp = info["hessian"]
        norm = by_oracle(NUMERIC_AGREEMENT, agreement.spectral_norm_at_least(sharp, target),
                         label=f"M={target}: alpha={float(info['alpha']):.3g} ({info['block']} block)")
        if norm.status is not Status.PROVED and "norm" in norm.details:
            return Verdict(Status.REFUTED, claim, reason=f"norm {norm.details['norm']:.10g} < {target} at "
                           f"{agreement.LOW_DPS} and {agreement.HIGH_DPS} digits",
                           witness={"alpha": info["alpha"], "theta": info["theta"]})
        negated = sp.Matrix([[-sp.Rational(e.numerator, e.denominator) for e in row] for row in sharp])
        semidefinite = by_oracle(EXACT_INERTIA, Fact("eigenvalues above", (negated, 0, 0),
                                                       "-H has no eigenvalue above 0: H is positive semidefinite"))
        checks += [norm, semidefinite]
    return conjunction(checks, label=claim)


def derivation_skeleton() -> Derivation:
    return Derivation(
        name=NAME, title=TITLE, source=SOURCE,
        statement=(r"Let $\theta$ be a minimum of $L$ for the one-hidden-layer ReLU network with "
                   r"$H_L(\theta) \neq 0$. Then for every $M > 0$ there is $\alpha > 0$ with "
                   r"$\|H_L(T_\alpha\theta)\|_2 \ge M$."),
        definitions=[r"$S = \operatorname{diag}(\alpha^{-1} I_{dh}, \alpha I_h)$; "
                     r"$\|A\|_2$ the spectral norm."])


def run(sizes, seed=0, timeout=None) -> Report:
    derivation = derivation_skeleton()
    report = Report(derivation)
    pairs = sorted({(d, h) for d, h, _ in sizes})
    congruence = [report.record(NAME, "Theorem 3: H(T_alpha theta) = S H(theta) S", size,
                                lambda size=size: theorem3.check(*size, "quadratic", 2, seed=seed,
                                                                 timeout=timeout))
                  for size in sizes]
    diagonal = [report.record(NAME, "(S H S)_kk = S_kk^2 H_kk", (d, h, None),
                              lambda d=d, h=h: diagonal_of_congruence(d, h)) for d, h in pairs]
    scale = report.record(NAME, "explicit alpha for every M", (None, None, None), explicit_scale)
    instances = [report.record(NAME, "random minima reach every M", size,
                               lambda size=size: random_instances(*size, seed=seed)) for size in sizes]
    derivation.add(congruence, r"Theorem 3, $H_L(T_\alpha\theta) = S\,H_L(\theta)\,S$ (every smooth loss, through its "
                   r"generic 2-jet)", sizes)
    derivation.add(diagonal, r"$(S H S)_{kk} = \alpha^{-2} H_{kk}$ ($W$ block) and $\alpha^{2} H_{kk}$ ($v$ block): "
                   r"exact identity for a generic symmetric $H$", [(d, h, None) for d, h in pairs])
    derivation.unchecked.append(
        r"$H_L(\theta) \succeq 0,\ H_L(\theta) \neq 0 \Rightarrow \exists k:\ \gamma = H_{kk} > 0$, and "
        r"$\|A\|_2 \ge e_k^\top A e_k = A_{kk}$ for $A \succeq 0$: the second-order condition at a minimum; a "
        r"PSD matrix with zero diagonal is zero; the Rayleigh quotient.")
    derivation.add([scale], r"the explicit scale in each block, $\alpha = \sqrt{\gamma/M}$ and $\alpha = \sqrt{M/\gamma}$: "
                   r"exact identity")
    derivation.unchecked.append(r"$\|H_L(T_\alpha\theta)\|_2 \ge (S H S)_{kk} = M$: from the lines above; with "
                                r"the line before, the conclusion of the Coq theorem "
                                r"\texttt{Frechet.theorem4\_frechet} above, proved for every size.")
    # the theorem of the Coq development that proves Theorem 4 for every size, the norm a supremum
    derivation.coq = [CoqCitation("Frechet.theorem4_frechet", "for every d, h and every functional: a non-zero "
                                  "diagonal entry of the Hessian form at theta gives, for every M > 0, an alpha > 0 "
                                  "with the norm of every Hessian form at T_alpha theta at least M")]
    derivation.add(instances, r"witness on random interpolating minima: the Hessian recomputed at $T_\alpha\theta$ "
                   r"(rational $\alpha$), spectral norm by mpmath.eigsy at 50 digits, $\|H_L(T_\alpha\theta)\|_2 "
                   r"\ge M$ for $M = 10, 10^3, 10^6$", sizes)
    derivation.sizes = sizes
    return report
