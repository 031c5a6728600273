"""Theorem 3 (Dinh et al. 2017, §4.2): how T_α transforms the gradient and the Hessian.

For α > 0, at every θ where L is twice differentiable, and for all directions u, w:

    DL(T_αθ)[u] = DL(θ)[T_{1/α}u],        H_L(T_αθ)[u, w] = H_L(θ)[T_{1/α}u, T_{1/α}w],

equivalently ∇L(T_αθ) = S∇L(θ) and H(T_αθ) = S H(θ) S with S = diag(α⁻¹ on W, α on v), the matrix
of T_{1/α}.  (The paper's first display prints αI in the lower block; the correct entry is α⁻¹I in
its form ∇L(θ) = ∇L(T_αθ)·diag(αI, α⁻¹I), which is the identity above.)

The proof, as checked here:

  1. Regularity transport.  ReLU(αs) = αReLU(s) and ReLU(−αs) = αReLU(−s), so s and αs have the
     same sign: T_α maps each activation region onto itself, and L, a polynomial on the open region
     of θ, is a polynomial on the region of T_αθ.  Twice differentiable at θ off the kink set
     implies the same at T_αθ.
  2. On a region, ReLU(s_nj) = σ_nj s_nj; with σ_nj as indeterminates, L, ∇L and H_L are exact
     polynomials, and each identity is an exact Laurent-polynomial identity in α: for MSE with
     symbolic data, for the logistic loss, and for a generic quadratic of the predictions (every
     2-jet of every smooth loss of N evaluations).  P(T_αθ) = α^c P(θ) holds exactly when every
     monomial of P has α-weight c, so the identity is decided by reading exponents of the
     per-sample, per-unit factors of each entry (``weight_identity``); at d, h, N ≤ 3 the
     composition test (``exact_polynomial_identity``) runs too and must agree.
  3. Any loss at all, through the abstract route: L∘T_α = L (Theorem 1), T_α is linear, and the
     chain rule for a linear map (checked on a generic 2-jet on parameter space) gives
     DL(T_αθ)[T_αu] = DL(θ)[u]; put u = T_{1/α}u'.
  4. Independent witness: the REAL loss (with max) differentiated by mpmath.diff at random rational
     points off the kinks, at 50 and 80 digits: a true identity's residual falls with precision.
     Every point has an active unit at each data point, comparisons whose two sides are both 0
     are left out, and a row says at how many informative points its witness compared something;
     with none, the claim stays UNDECIDED.

At a kink (some pre-activation exactly 0 on the data) L need not be differentiable.  Where it is
twice differentiable anyway, route 3 still applies: it needs only L∘T_α = L and the linearity of
T_α, and L∘T_{1/α} = L shows that L is twice differentiable at T_αθ exactly when it is at θ.
"""
from __future__ import annotations

import functools
import random
from fractions import Fraction
from dataclasses import dataclass

import sympy as sp

from symbolic import ReLU, Status, Verdict, check_identity
from symbolic.kernel import Equation, by_oracle, conjunction
from symbolic.checks import zeros
from symbolic.decision.budget import BudgetExhausted, check_budget, time_budget
from symbolic.derivation import CoqCitation, Derivation, add_chain
from symbolic.every_size import alpha_scale
from symbolic.networks import pattern_form
from symbolic.numerics import agreement
from symbolic.networks.pattern_form import CROSS_CHECK_SIZES, cross_checked
# the exact tests on the pattern form, by their names here too
from symbolic.networks.pattern_form import chain_rule_by_weights, chain_rule_check  # noqa: F401
from symbolic.checks import derivative_identity
from symbolic.numerics.real_network import HIGH_DPS, LOW_DPS, random_instance
from symbolic.networks.rescaling import ALPHA

from proofs import theorem1_observational_equivalence as theorem1
from symbolic.report import Report
from symbolic.trusted.oracles.numerics import NUMERIC_AGREEMENT
from symbolic.trusted.oracles.networks import PATTERN_FORM

NAME = "theorem3"
TITLE = "Theorem 3: transformation of the gradient and the Hessian under the alpha-scale transformation"
SOURCE = ("Dinh, Pascanu, Bengio and Bengio, Sharp Minima Can Generalize For Deep Nets, ICML 2017, "
          "Section 4.2, Theorem 3 and its first- and second-derivative identities")
DEFAULT_SIZES = (3, 3, 3)
LARGEST_SIZES = (16, 16, 16)

LOSSES = ("mse", "logistic", "quadratic", "any")
LOSS_LABELS = {"mse": "(i) MSE", "logistic": "(ii) logistic", "quadratic": "(iii) every smooth loss",
               "any": "(iv) any loss"}
WITNESS_POINTS = 2
SAMPLED_ENTRIES = 4


@dataclass(frozen=True)
class Variant:
    """A transformation T (factor per parameter group) and the scaling S claimed for derivatives.

    Factors are written with 'a' for α and 'abar' for 1/α.  The theorem is ``THEOREM``; the others
    are the negative controls (and one true extension: biases scaled with their layer).
    """

    name: str
    transform: dict
    scaling: dict
    bias: bool = False
    right_scaling: dict | None = None    # the Hessian's right factor, when it differs from the left

    @property
    def right(self) -> dict:
        return self.scaling if self.right_scaling is None else self.right_scaling


THEOREM = Variant("theorem", {"W": "a", "v": "abar"}, {"W": "abar", "v": "a"})
VARIANTS = {
    v.name: v for v in (
        THEOREM,
        Variant("S inverse", {"W": "a", "v": "abar"}, {"W": "a", "v": "abar"}),
        Variant("unscaled gradient", {"W": "a", "v": "abar"}, {"W": 1, "v": 1}),
        Variant("one-sided", {"W": "a", "v": "abar"}, {"W": "abar", "v": "a"},
                right_scaling={"W": 1, "v": 1}),
        Variant("swapped", {"W": "a", "v": "abar"}, {"W": "a", "v": "abar"},
                right_scaling={"W": "abar", "v": "a"}),
        Variant("v scaled by alpha", {"W": "a", "v": "a"}, {"W": "abar", "v": "a"}),
        Variant("unscaled bias", {"W": "a", "b": 1, "v": "abar"}, {"W": "abar", "b": 1, "v": "a"},
                bias=True),
        Variant("bias scaled with its layer", {"W": "a", "b": "a", "v": "abar"},
                {"W": "abar", "b": "abar", "v": "a"}, bias=True),
    )
}


# --- 2. the exact identity on the pattern form -------------------------------------------------

def weight_identity(d, h, n, loss, order, variant=THEOREM):
    """(holds, first failing entry) by reading α-weights off exponents (``pattern_form``)."""
    return pattern_form.weight_identity(d, h, n, loss, order, variant)


def exact_polynomial_identity(d, h, n, loss, order, variant=THEOREM):
    """(holds, first failing entry) by composition, the cross-check (``pattern_form``)."""
    return pattern_form.exact_polynomial_identity(d, h, n, loss, order, variant)


def sigmoid_lemmas(seed: int = 0) -> Verdict:
    """softplus'(f) = sigmoid(f) and sigmoid'(f) = sigmoid(f)(1 − sigmoid(f)): sympy's diff and an
    exact zero test with exp(f) as an indeterminate, and a numeric witness: mpmath.diff of
    softplus and sigmoid at random rational f, at two precisions."""
    f = sp.Symbol("f", real=True)
    softplus, sigmoid = sp.log(1 + sp.exp(f)), sp.exp(f) / (1 + sp.exp(f))
    claim = "softplus' = sigmoid, sigmoid' = sigmoid (1 - sigmoid)"
    exact = zeros("exact zero test with exp(f) as an indeterminate", [
        Equation(sp.diff(softplus, f), sigmoid), Equation(sp.diff(sigmoid, f), sigmoid * (1 - sigmoid))])
    rng = random.Random(seed)
    points = [{f: sp.Rational(rng.randint(-64, 64) or 1, 16)} for _ in range(WITNESS_POINTS)]
    witness = by_oracle(NUMERIC_AGREEMENT, agreement.closed_form_derivatives(
        [(softplus, (f,), (1,), sigmoid), (sigmoid, (f,), (1,), sigmoid * (1 - sigmoid))], points))
    return derivative_identity(claim, exact, witness, fails_at="a lemma")


# --- 3. the abstract route: chain rule for a linear map, on a generic 2-jet ---------------------

@functools.lru_cache(maxsize=None)
def _abstract_prerequisites(d, h, n) -> dict:
    """The steps of route (iv) that do not depend on the derivative's order, checked once a size:
    by exponent weights on the pattern form, and at the cross-check sizes through Theorem 1 too."""
    steps = {
        "L o T_alpha = L (every f(x_n) of alpha-weight 0 on the pattern form)": by_oracle(
            PATTERN_FORM, pattern_form.invariant_predictions(d, h, n)),
        "T_alpha T_(1/alpha) = id (exponents e and -e cancel)": zeros(
            "T_alpha T_(1/alpha) = id: alpha^e alpha^(-e) = 1 in every coordinate",
            [Equation(sp.Mul(ALPHA ** e, ALPHA ** -e, evaluate=False), 1) for e in (1, -1)]),
    }
    if cross_checked(d, h, n):
        steps.update({
            "L o T_alpha = L (Theorem 1, generic loss)": theorem1.loss_invariance(d, h, n, "generic"),
            "T_alpha T_(1/alpha) = id (Theorem 1)": theorem1.local_minimum_lemmas(d, h)["inverse"],
        })
    return steps


def abstract_route(d, h, n, order) -> Verdict:
    """(iv) every step of: L∘T_α = L, T_α linear and invertible, chain rule ⇒ the identity."""
    steps = [*_abstract_prerequisites(d, h, n).values(),
             by_oracle(PATTERN_FORM, pattern_form.chain_rule(d, h, order))]
    return conjunction(steps, label="every step of the abstract route")


# --- 4. the independent witness ------------------------------------------------------------------

def numeric_witness(d, h, n, loss, order, variant=THEOREM, seed=0):
    """The statement the witness checks on the real ReLU loss: both forms of the identity at
    WITNESS_POINTS random exact instances.

    At each instance, in random directions u, w (DL(T_αθ)[u] against DL(θ)[Su], H[u, w] against
    H[Su, Sw]), and entry by entry along the unit directions at the first instance
    (SAMPLED_ENTRIES random entries of the gradient or of the Hessian's upper triangle, all of
    them when there are no more).  Every instance has an active unit at each data point
    (``random_instance``); the oracle leaves out a comparison whose two sides are both 0 and
    counts an instance as informative when one of its comparisons is not."""
    rng = random.Random(seed)
    kind = {"any": "smooth"}.get(loss, loss)
    groups = _groups(d, h, variant.bias)
    size = len(groups)
    cases = []
    for point in range(WITNESS_POINTS):
        check_budget()
        instance = random_instance(d, h, n, rng, bias=variant.bias)
        unit = lambda k: [Fraction(int(m == k)) for m in range(size)]  # noqa: E731
        if order == 1:
            entries = [(k,) for k in range(size)]
            random_directions = (instance.u,)
        else:
            entries = [(k, l) for k in range(size) for l in range(k, size)]
            random_directions = (instance.u, instance.w)
        # entries at the first point; the further points check the random directions only
        sample = rng.sample(entries, min(SAMPLED_ENTRIES, len(entries))) if point == 0 else []
        pairs = [random_directions] + [tuple(unit(k) for k in entry) for entry in sample]
        transformed = [_factor_value(variant.transform[g], instance.alpha) * t for g, t in zip(groups, instance.theta)]
        comparisons = []
        for directions in pairs:
            scaled = [[_factor_value(side[g], instance.alpha) * x for g, x in zip(groups, direction)]
                      for side, direction in zip((variant.scaling, variant.right), directions)]
            comparisons.append((transformed, directions, instance.theta, scaled, 1))
        cases.append((instance, comparisons))
    return agreement.relu_derivatives(kind, cases)


def _factor_value(factor, alpha):
    """The exact number a factor of a Variant stands for, at the witness's α."""
    if factor in ("a", "abar"):
        return Fraction(alpha) if factor == "a" else 1 / Fraction(alpha)
    return Fraction(factor)


def _groups(d, h, bias):
    return ["W"] * (d * h) + (["b"] * h if bias else []) + ["v"] * h


# --- the claim: exact test and witness together --------------------------------------------------

def check(d, h, n, loss, order, variant=THEOREM, seed=0, timeout=None) -> Verdict:
    """One identity (gradient: order 1, Hessian: order 2) for one loss at one size: the exact
    test on the pattern form (or every step of the abstract route) and the numeric witness, each
    run by the kernel on its statement."""
    what = "gradient" if order == 1 else "Hessian"
    claim = f"{what} identity, {LOSS_LABELS[loss]}, {variant.name}, d={d}, h={h}, N={n}"
    try:
        with time_budget(timeout):
            if loss in ("mse", "quadratic", "logistic"):
                exact = by_oracle(PATTERN_FORM, pattern_form.derivative_law(d, h, n, loss, order, variant))
            elif variant is THEOREM:
                exact = abstract_route(d, h, n, order)
            else:
                raise ValueError("the abstract route is stated for the theorem's T_alpha only")
            witness = by_oracle(NUMERIC_AGREEMENT, numeric_witness(d, h, n, loss, order, variant, seed))
    except BudgetExhausted:
        return Verdict(Status.UNDECIDED, claim, reason=f"time budget of {timeout} s ran out")
    return derivative_identity(claim, exact, witness)


def regularity_transport() -> Verdict:
    """sign(αs) = sign(s) for α > 0: both halves of ReLU scale by the positive α."""
    s = sp.Symbol("s", real=True)
    verdicts = [check_identity(ReLU(ALPHA * s), ALPHA * ReLU(s)),
                check_identity(ReLU(-ALPHA * s), ALPHA * ReLU(-s))]
    return conjunction(verdicts, label="ReLU(+-alpha s) = alpha ReLU(+-s): the pattern at T_alpha theta "
                       "is the pattern at theta", evidence=tuple(e for v in verdicts for e in v.evidence))


# the theorems of the Coq development that re-check Theorem 3 for every size, and what each proves
COQ_THEOREMS = (("Theorem3.theorem3_gradient", "the gradient law, every coordinate, for every d, h and every functional"),
                ("Theorem3.theorem3_hessian", "the Hessian law, every pair of coordinates, for every d, h and every "
                 "functional"),
                ("Frechet.theorem3_frechet", "the statement as given: regularity at T_alpha theta and the laws of "
                 "the Frechet derivatives DL and H_L"))


def add_every_size_proof(derivation: Derivation) -> None:
    """The first section: Theorem 3 for every size, each step the kernel's theorem (the every-size
    chains, as ``proofs.all_sizes`` shows them too), then the Coq theorems that re-check it."""
    proof = derivation_skeleton()
    add_theorem3_proof(proof, *alpha_scale.theorem3_chains())
    derivation.sections.append(("The proof for every size", proof.steps))
    derivation.coq = [CoqCitation(name, proves) for name, proves in COQ_THEOREMS]


def add_theorem3_proof(derivation: Derivation, gradient_chains, hessian_chains, gradient_rows=(), hessian_rows=()) -> None:
    """Theorem 3 for every size: the gradient chain of W_ij and the Hessian chain of (W_ij, v_l) step
    by step, the other coordinates and blocks by their theorems."""
    add_chain(derivation, gradient_chains[0],
              "Theorem 3 for the coordinate $W_{ij}$, $t = \\alpha$ read from $T_\\alpha$: start from the left side")
    derivation.add([gradient_chains[1].check(), *gradient_rows],
                   "the same chain for the coordinate $v_j$, $t = \\alpha^{-1}$")
    add_chain(derivation, hessian_chains[1], "Theorem 3, Hessian block $(W_{ij}, v_l)$: start from the left side")
    for chain, block in ((hessian_chains[0], "$(W_{ij}, W_{kl})$"), (hessian_chains[3], "$(v_j, v_l)$"),
                         (hessian_chains[2], "$(v_j, W_{kl})$")):
        derivation.add([chain.check(), *hessian_rows], f"the same chain for the block {block}")


def derivation_skeleton() -> Derivation:
    return Derivation(
        name=NAME, title=TITLE, source=SOURCE,
        # the statement as the source documents give it, then exactly what is proved of it, and where
        statement=(r"\emph{As stated:} let $L$ be continuous and satisfy the local twice Fr\'echet "
                   r"differentiability condition at $\theta$. For every $\alpha > 0$, the same regularity holds at "
                   r"$T_\alpha\theta$, and for all parameter directions $u, w$: "
                   r"$DL(T_\alpha\theta)[u] = DL(\theta)[T_{\alpha^{-1}}u]$ and "
                   r"$H_L(T_\alpha\theta)[u,w] = H_L(\theta)[T_{\alpha^{-1}}u, T_{\alpha^{-1}}w]$; equivalently "
                   r"$\nabla L(T_\alpha\theta) = S\,\nabla L(\theta)$ and $H_L(T_\alpha\theta) = S\,H_L(\theta)\,S$ "
                   r"with $S = \operatorname{diag}(\alpha^{-1} I_{dh}, \alpha I_h)$."
                   r"\par\medskip\noindent\emph{What is proved here.} For every $d, h, N \ge 1$ and "
                   r"$L = \frac1N\sum_n \ell(f_\theta(x_n), y_n)$, $\ell$ twice differentiable in its first argument: "
                   r"$(\partial_a L)(T_\alpha\theta) = t_a^{-1}(\partial_a L)(\theta)$ and "
                   r"$(\partial_b\partial_a L)(T_\alpha\theta) = t_a^{-1}t_b^{-1}(\partial_b\partial_a L)(\theta)$ for "
                   r"every coordinate, by the kernel's chains for every size (the first section); for every "
                   r"$d, h$ and every functional $\ell$, the partial-derivative and the Fr\'echet forms by the Coq "
                   r"theorems named after it. At the sizes named under each step of the derivation that follows: "
                   r"every entry of the gradient and of the Hessian for four losses, by the kernel."),
        definitions=[
            r"$f_\theta(x) = \sum_{j} \operatorname{ReLU}(s_j)\, v_j$, $s_j = \sum_i x_i W_{ij}$; "
            r"$T_\alpha(W, v) = (\alpha W, \alpha^{-1} v)$, $\alpha > 0$.",
            r"Activation pattern: off the kink set ($s_{nj} \neq 0$ for every data point $n$ and unit "
            r"$j$), $\operatorname{ReLU}(s_{nj}) = \sigma_{nj} s_{nj}$ with the indicator "
            r"$\sigma_{nj} = \mathbf{1}[s_{nj} > 0] \in \{0, 1\}$, kept as an indeterminate.",
            r"Losses: (i) $L = \frac1N\sum_n (f(x_n) - y_n)^2$; (ii) $L = \frac1N\sum_n "
            r"[\log(1 + e^{f(x_n)}) - t_n f(x_n)]$; (iii) $L = \sum_n c_n f(x_n) + \frac12\sum_{n\le m} "
            r"C_{nm} f(x_n) f(x_m)$ with symbolic $c, C$ (every 2-jet of every smooth loss of $N$ "
            r"evaluations); (iv) $L = \ell(f_\theta)$ for any $\ell$.",
        ])


def run(sizes, seed=0, timeout=None) -> Report:
    derivation = derivation_skeleton()
    report = Report(derivation)
    transport = report.record(NAME, "regularity transport: pattern(T_alpha theta) = pattern(theta)",
                              (None, None, None), regularity_transport)
    sigmoid = report.record(NAME, "lemma: softplus' = sigmoid, sigmoid' = sigmoid (1 - sigmoid)",
                            (None, None, None), lambda: sigmoid_lemmas(seed))
    derivation.add([sigmoid], r"the two facts about the logistic loss that its derivatives use, "
                   r"$\tfrac{d}{df}\log(1 + e^f) = \varsigma(f)$ and $\varsigma' = \varsigma(1 - \varsigma)$; with "
                   r"$P_n = \varsigma(f(x_n))$ as an indeterminate, the logistic gradient and Hessian "
                   r"are polynomials (chain rule $dP_n = P_n(1 - P_n)\,df_n$), and $P_n$ is unchanged "
                   r"by $T_\alpha$ because $f(x_n)$ is (checked at each size)")
    derivation.add([transport], r"regularity transport: $\operatorname{ReLU}(\pm\alpha s) = \alpha\operatorname{ReLU}(\pm s)$, "
                   r"so $T_\alpha$ maps each activation region onto itself and "
                   r"$L$ is the same polynomial near $\theta$ and near $T_\alpha\theta$")
    laws = {}
    for order in (1, 2):
        what = "gradient" if order == 1 else "Hessian"
        for loss in LOSSES:
            laws[(order, loss)] = [report.record(
                NAME, f"{what}, {LOSS_LABELS[loss]}", (d, h, n),
                lambda d=d, h=h, n=n, loss=loss, order=order: check(d, h, n, loss, order, seed=seed,
                                                                    timeout=timeout))
                for d, h, n in sizes]
    for loss in ("mse", "logistic", "quadratic"):
        derivation.add(laws[(1, loss)], f"{LOSS_LABELS[loss]}: the gradient law $\\partial_k L(T_\\alpha\\theta) = S_{{kk}}\\,"
                       "\\partial_k L(\\theta)$, an exact Laurent-polynomial identity in $\\alpha$ on the "
                       "pattern form, every entry", sizes)
        derivation.add(laws[(2, loss)], f"{LOSS_LABELS[loss]}: the Hessian law $\\partial_k\\partial_l L(T_\\alpha\\theta) = "
                       "S_{kk} S_{ll}\\,\\partial_k\\partial_l L(\\theta)$, an exact Laurent-polynomial identity, "
                       "every entry $k \\le l$", sizes)
    derivation.add(laws[(1, "any")], r"(iv) any loss: Theorem 1 ($L \circ T_\alpha = L$), invertibility, and the chain rule for "
                   r"the linear map $T_\alpha$, $D(g\circ T_\alpha)(\theta)[u] = Dg(T_\alpha\theta)[T_\alpha u]$, "
                   r"checked on a generic 2-jet on parameter space", sizes)
    derivation.add(laws[(2, "any")],
                   "(iv) any loss: second-order chain rule for the linear map, generic 2-jet", sizes)
    derivation.unchecked += [
        r"$DL(T_\alpha\theta)[u] = DL(T_\alpha\theta)[T_\alpha T_{1/\alpha}u] = "
        r"D(L\circ T_\alpha)(\theta)[T_{1/\alpha}u] = DL(\theta)[T_{1/\alpha}u]$: the checked steps above; "
        r"the Hessian line is the same with two directions.",
        r"$H_L(T_\alpha\theta)[u, w] = \sum_{k,l} S_{kk} S_{ll} H_{kl}(\theta) u_k w_l "
        r"= H_L(\theta)[T_{1/\alpha} u, T_{1/\alpha} w]$: a bilinear form is fixed by its entries, and "
        r"$S$ is the matrix of $T_{1/\alpha}$. Both lines are the laws of the Coq theorem "
        r"\texttt{Frechet.theorem3\_frechet} above, proved for every size with Fr\'echet derivatives."]
    for loss in LOSSES:
        for order in (1, 2):
            values = [v.residual for v in laws[(order, loss)] if v.residual is not None]
            if values:
                derivation.residuals.append(
                    (f"{'gradient' if order == 1 else 'Hessian'}, {LOSS_LABELS[loss]}", max(values)))
    derivation.sizes = sizes
    add_every_size_proof(derivation)
    derivation.instances = theorem1.instance_rows(report)
    derivation.notes.append(
        r"At a kink (some $s_{nj} = 0$) $L$ need not be differentiable. Where it is twice "
        r"differentiable anyway, route (iv) still applies: it uses only $L\circ T_\alpha = L$ and the "
        r"linearity of $T_\alpha$, and $L = L \circ T_{1/\alpha}$ shows that $L$ is twice "
        r"differentiable at $T_\alpha\theta$ exactly when it is at $\theta$.")
    derivation.notes.append(
        r"Which exact test was used: for (i)--(iii), $P(T_\alpha\theta) = \alpha^c P(\theta)$ holds "
        r"exactly when every monomial of $P$ has $\alpha$-weight $c$ (the $W$-degree minus the "
        r"$v$-degree), so the identity is decided by reading exponents, with no composition, on the "
        r"per-sample, per-unit factors $f(x_n)$, $\partial_k f(x_n)$, $\partial_k\partial_l f(x_n)$ "
        r"of $\partial_k L = \sum_n \partial_{f_n}G\,\partial_k f_n$ and "
        r"$\partial_k\partial_l L = \sum_{n,m} \partial^2_{f_n f_m}G\,\partial_k f_n\,\partial_l f_m "
        r"+ \sum_n \partial_{f_n}G\,\partial_k\partial_l f_n$; an entry with a term of another "
        r"weight is expanded and its own monomials read.  At $d, h, N \le %d$ the composition test "
        r"(substitute $T_\alpha$ into every entry, zero test modulo $\alpha\bar\alpha - 1$) and, for "
        r"(iv), Theorem 1's check of $L \circ T_\alpha = L$ run as well and must agree."
        % max(CROSS_CHECK_SIZES))
    derivation.notes.append(
        r"The polynomial losses are stored multiplied by a positive integer ($N$ for the means, 2 for "
        r"the quadratic) so that every coefficient is an integer; an identity "
        r"$\partial L(T_\alpha\theta) = c\,\partial L(\theta)$ holds for $L$ exactly when it holds for "
        r"a positive multiple of $L$.")
    derivation.notes.append(
        r"Witness residuals are relative differences of the two sides computed by "
        r"\texttt{mpmath.diff} on the real loss (with $\max$, not the pattern form) at random "
        r"rational points off the kink set, at %d digits; they fall further at %d digits." % (LOW_DPS, HIGH_DPS))
    return report


# --- the multi-layer statement (§4.2, "many directions") ------------------------------------------

def deep_congruence(widths, n: int = 1, claimed_scaling=None, seed: int = 0) -> Verdict:
    """H(T_αθ) = D_α H(θ) D_α for a deep ReLU network, θ_k ↦ α_k θ_k with ∏ α_k = 1 and
    D_α = diag(α_k⁻¹ I): exact on the pattern form (MSE, symbolic data), mpmath witness on the real
    network.  ``claimed_scaling`` replaces D_α's factors (one per layer) for negative controls."""
    from symbolic.networks.deep import DeepNet

    net = DeepNet(tuple(widths))
    K = net.depth
    alphas = list(sp.symbols(f"alpha1:{K}", positive=True))
    scales = alphas + [1 / sp.Mul(*alphas)]
    claimed = list(claimed_scaling) if claimed_scaling is not None else [1 / s for s in scales]
    parameters = net.parameters()
    layer_of = {p: k for k, W in enumerate(net.weights) for p in W}
    inputs = [net.input(k + 1) for k in range(n)]
    targets = sp.symbols(f"y_1:{n + 1}", real=True)
    claim = f"deep congruence, widths {tuple(widths)}, N={n}"

    def pattern_activation(counter=iter(range(10 ** 6))):
        return lambda s: sp.Symbol(f"sigma_{next(counter)}") * s
    activation = pattern_activation()
    predictions = [net.prediction(x, activation=activation) for x in inputs]
    loss = sum((p - y) ** 2 for p, y in zip(predictions, targets)) / n
    transform = {p: scales[layer_of[p]] * p for p in parameters}
    gradient = [sp.diff(loss, p) for p in parameters]
    # the exact test: every Hessian entry k <= l, T composed in, against its claimed factor
    equations = []
    for k, first in enumerate(gradient):
        for l in range(k, len(parameters)):
            entry = sp.diff(first, parameters[l])
            factor = claimed[layer_of[parameters[k]]] * claimed[layer_of[parameters[l]]]
            equations.append(Equation(entry.xreplace(transform), factor * entry))
    exact = zeros("every Hessian entry, exact on the pattern form", equations)

    # witness: the real network (max, not the pattern) at random rational points, mpmath.diff of
    # D²L(Tθ)[u, w] against D²L(θ)[Du, Dw]; a point where units are dead may hide a difference, so
    # several points are compared
    rng = random.Random(seed)
    real_loss = sum((net.prediction(x) - y) ** 2 for x, y in zip(inputs, targets)) / n
    data = [s for x in inputs for s in x] + list(targets)
    symbols = [*parameters, *data, *alphas]
    comparisons = []
    for _ in range(DEEP_WITNESS_POINTS):
        check_budget()
        point = {s: sp.Rational(rng.randint(-40, 40) or 1, 8) for s in data}
        point.update({a: sp.Rational(rng.randint(2, 30), rng.randint(31, 60)) for a in alphas})
        theta = [sp.Rational(rng.randint(-40, 40) or 1, 8) for _ in parameters]
        u = [sp.Rational(rng.randint(-16, 16), 8) for _ in theta]
        w = [sp.Rational(rng.randint(-16, 16), 8) for _ in theta]
        scale = [sp.sympify(scales[layer_of[p]]).xreplace(point) for p in parameters]
        factor = [sp.sympify(claimed[layer_of[p]]).xreplace(point) for p in parameters]
        # the loss is a function of the parameters, the data and the α_k: the directions move the
        # parameters only
        fixed, still = [point[s] for s in symbols[len(parameters):]], [0] * (len(symbols) - len(parameters))
        comparisons.append(([a * t for a, t in zip(scale, theta)] + fixed, (u + still, w + still), theta + fixed,
                            ([c * x for c, x in zip(factor, u)] + still, [c * x for c, x in zip(factor, w)] + still), 1))
    witness = by_oracle(NUMERIC_AGREEMENT,
                        agreement.expression_derivatives(real_loss, symbols, comparisons))
    return derivative_identity(claim, exact, witness, fails_at="some Hessian entry")


DEEP_WITNESS_POINTS = 16
