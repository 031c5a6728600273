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

import flint
import mpmath
import sympy as sp

from symbolic import ReLU, Status, Verdict, check_identity
from symbolic.kernel import by_procedure
from symbolic.decision.budget import BudgetExhausted, check_budget, time_budget
from symbolic.derivation import Derivation
from symbolic.numerics.real_network import HIGH_DPS, LOW_DPS, derivative_verdict, directional_derivative, \
    hessian_residual, loss_function, measure, random_instance, to_mpf
from symbolic.networks.polynomial import EXPONENTS, PatternNetwork, WeightReader, alpha_weights
from symbolic.networks.rescaling import ALPHA
from symbolic.verdict import worst
from symbolic.decision.witness import mpmath_function
from symbolic.decision.zero import is_rational_zero

from proofs import theorem1_observational_equivalence as theorem1
from symbolic.report import Report

NAME = "theorem3"
TITLE = "Theorem 3: transformation of the gradient and the Hessian under the alpha-scale transformation"
SOURCE = ("Dinh, Pascanu, Bengio and Bengio, Sharp Minima Can Generalize For Deep Nets, ICML 2017, "
          "Section 4.2, Theorem 3 and its first- and second-derivative identities")
DEFAULT_SIZES = (3, 3, 3)
LARGEST_SIZES = (16, 16, 16)
# sizes at which the composition-based tests run too, as a cross-check of the exponent-weight test
CROSS_CHECK_SIZES = (3, 3, 3)

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


def _factor(symbolic_factor, alpha, alphabar):
    return {"a": alpha, "abar": alphabar}.get(symbolic_factor, symbolic_factor)


def _group(parameter_name: str) -> str:
    return parameter_name.split("_")[0]


# --- 2. the exact identity on the pattern form -------------------------------------------------

@functools.lru_cache(maxsize=4)
def pattern_network(d, h, n, loss="mse", bias=False) -> PatternNetwork:
    """One pattern form per size and loss, shared by the gradient and the Hessian checks."""
    return PatternNetwork(d, h, n, loss=loss, bias=bias)


def weight_identity(d, h, n, loss, order, variant=THEOREM):
    """(holds, first failing entry) by reading α-weights off exponents, with no composition.

    P(T_αθ) = α^c P(θ) exactly when every monomial of P has α-weight c (``symbolic.networks.polynomial``).
    The entries are never expanded: with L = G(f_1, …, f_N) (G the loss as a polynomial in the
    predictions, the data, the loss constants and, for the logistic loss, P_n = sigmoid(f_n)),

        ∂_k L = Σ_n ∂G/∂f_n · ∂_k f_n,
        ∂_k∂_l L = Σ_{n,m} ∂²G/∂f_n∂f_m · ∂_k f_n ∂_l f_m + Σ_n ∂G/∂f_n · ∂_k∂_l f_n.

    When every f_n has weight 0, every factor built from G has weight 0 too (data, constants and
    P_n are untouched by T_α), so each term's weight is the sum of the weights of its per-sample,
    per-unit factors ∂_k f_n and ∂_k∂_l f_n, read off their exponents; a sum of terms of weight c is
    of weight c.  Where some term's weight differs from the claimed one (or f_n is not of weight 0)
    the entry itself is formed and its monomials' weights read: an exact decision either way.
    """
    model = pattern_network(d, h, n, loss, variant.bias)
    transform = WeightReader(model.weight_exponents({g: EXPONENTS[f] for g, f in variant.transform.items()}))
    left, right = ([EXPONENTS[side[_group(p)]] for p in model.parameter_names]
                   for side in (variant.scaling, variant.right))
    names = model.parameter_names
    moved = [k for k, f in enumerate(model.predictions) if not alpha_weights(f, transform) <= {0}]
    if loss == "logistic" and moved:
        # P_n = sigmoid(f_n) is left in place by T, which is right only if f_n∘T = f_n
        return False, (f"f(x_{moved[0] + 1})",)
    invariant = not moved     # then every factor built from G has weight 0

    def entry_has_weight(poly, weight) -> bool:
        check_budget()
        return alpha_weights(poly, transform) <= {weight}

    # the weights of the per-sample, per-unit factors ∂_k f_n (all n together)
    first = [set() for _ in names]
    for block in model.prediction_derivatives:
        for k, factor in block.items():
            first[k] |= alpha_weights(factor, transform)
    if order == 1:
        for k in range(len(names)):
            if not (invariant and first[k] <= {left[k]}) and \
                    not entry_has_weight(model.gradient[k], left[k]):
                return False, (names[k],)
        return True, None
    second = {}
    for block in model.prediction_second_derivatives:
        for index, factor in block.items():
            second.setdefault(index, set()).update(alpha_weights(factor, transform))
    for k in range(len(names)):
        check_budget()
        for l in range(k, len(names)):
            claimed = left[k] + right[l]
            terms = {a + b for a in first[k] for b in first[l]} | second.get((k, l), set())
            if not (invariant and terms <= {claimed}) and \
                    not entry_has_weight(model.hessian_entry(k, l), claimed):
                return False, (names[k], names[l])
    return True, None


def exact_polynomial_identity(d, h, n, loss, order, variant=THEOREM):
    """(holds, first failing entry) by composition: every entry expanded, T_α substituted, and the
    difference zero-tested in the Laurent ring (the cross-check of ``weight_identity``)."""
    model = PatternNetwork(d, h, n, loss=loss, bias=variant.bias)
    factors = {g: _factor(f, model.alpha, model.alphabar) for g, f in variant.transform.items()}
    images = model.transform_images(factors)
    if loss == "logistic":
        # P_n = sigmoid(f_n) is left in place by T, which is right only if f_n∘T = f_n
        for k, f in enumerate(model.predictions):
            if not model.is_zero(model.at(f, images) - f):
                return False, (f"f(x_{k + 1})",)
    scaling, right = ([_factor(side[_group(p)], model.alpha, model.alphabar)
                       for p in model.parameter_names] for side in (variant.scaling, variant.right))
    if order == 1:
        entries = {(k,): g for k, g in enumerate(model.gradient)}
    else:
        entries = model.hessian
    for index, entry in entries.items():
        check_budget()
        factor = scaling[index[0]] * (right[index[1]] if len(index) == 2 else 1)
        if not model.is_zero(model.at(entry, images) - factor * entry):
            return False, tuple(model.parameter_names[k] for k in index)
    return True, None


def cross_checked(d, h, n) -> bool:
    """Whether the composition-based tests run too at this size."""
    return all(s <= limit for s, limit in zip((d, h, n), CROSS_CHECK_SIZES))


def sigmoid_lemmas(seed: int = 0) -> Verdict:
    """softplus'(f) = sigmoid(f) and sigmoid'(f) = sigmoid(f)(1 − sigmoid(f)), by sympy's diff, with
    a numeric witness: mpmath.diff of softplus and sigmoid at random rational f."""
    f = sp.Symbol("f", real=True)
    sigmoid = sp.exp(f) / (1 + sp.exp(f))
    claims = {"softplus' = sigmoid": sp.diff(sp.log(1 + sp.exp(f)), f) - sigmoid,
              "sigmoid' = sigmoid (1 - sigmoid)": sp.diff(sigmoid, f) - sigmoid * (1 - sigmoid)}
    failing = [name for name, difference in claims.items() if not is_rational_zero(difference)]
    residual, informative = sigmoid_witness(seed)
    claim = "softplus' = sigmoid, sigmoid' = sigmoid (1 - sigmoid)"
    return derivative_verdict(claim, not failing, failing[0] if failing else None, residual, informative,
                    None, "exact zero test with exp(f) as an indeterminate", "mpmath.diff of softplus "
                    "and sigmoid")


def sigmoid_witness(seed: int = 0):
    """The most telling Residual of the two lemmas at WITNESS_POINTS random rational f (each side
    a derivative by mpmath.diff against the closed form), and how many points compared something."""
    rng = random.Random(seed)
    softplus = lambda t: mpmath.log1p(mpmath.exp(t))  # noqa: E731
    sigmoid = lambda t: 1 / (1 + mpmath.exp(-t))  # noqa: E731
    worst_case, informative = None, 0
    for _ in range(WITNESS_POINTS):
        f = Fraction(rng.randint(-64, 64) or 1, 16)
        residuals = [measure(lambda dps, derivative=derivative, closed=closed: (
                         mpmath.diff(derivative, to_mpf(f)), closed(to_mpf(f))))
                     for derivative, closed in ((softplus, sigmoid),
                                                (sigmoid, lambda t: sigmoid(t) * (1 - sigmoid(t))))]
        compared = [r for r in residuals if r.scale > 0]
        informative += bool(compared)
        for residual in compared:
            if worst_case is None or residual.key() > worst_case.key():
                worst_case = residual
    return worst_case, informative


# --- 3. the abstract route: chain rule for a linear map, on a generic 2-jet ---------------------

def chain_rule_check(d: int, h: int, order: int, claimed_inverse: bool = False) -> bool:
    """∂_k(g∘T)(θ) = t_k (∂_k g)(Tθ) (order 1) and ∂_l∂_k(g∘T)(θ) = t_k t_l (∂_l∂_k g)(Tθ)
    (order 2) for T = T_α = diag(t) on the d·h + h parameters and g a generic quadratic: g's 2-jet
    at Tθ is arbitrary, so this is the chain rule for every L twice differentiable at T_αθ.
    Left side: compose, then differentiate; right side: differentiate, then compose.

    Row k only sees g_k = c_k θ_k + Σ_l C_kl θ_k θ_l (halved for l = k), the part of the generic
    quadratic that contains θ_k: the rest has no θ_k before or after the diagonal map T.  Each row
    is checked in its own small ring.  Entrywise equality is equality of the forms DL[u] and
    D²L[u, w] for all directions.  ``claimed_inverse`` puts T⁻¹ in place of T on the right side:
    a false chain rule, for the negative control.
    """
    size = d * h + h
    for k in range(size):
        check_budget()
        names = [f"t_{m}" for m in range(size)] + [f"c_{k}"] + [f"C_{k}_{l}" for l in range(size)]
        names += ["alpha", "alphabar"]
        ctx = flint.fmpq_mpoly_ctx.get(tuple(names), "lex")
        gens = ctx.gens()
        t, c, C = gens[:size], gens[size], gens[size + 1: 2 * size + 1]
        alpha, alphabar = gens[-2], gens[-1]
        half = flint.fmpq(1, 2)
        g = c * t[k] + sum((half if l == k else 1) * C[l] * t[k] * t[l] for l in range(size))
        factor = [alpha] * (d * h) + [alphabar] * h
        images = [factor[m] * t[m] for m in range(size)] + list(gens[size:])
        if claimed_inverse:
            factor = [alphabar] * (d * h) + [alpha] * h
        laurent = alpha * alphabar - 1
        left, right = g.compose(*images).derivative(k), g.derivative(k)
        if order == 1:
            if not ((left - factor[k] * right.compose(*images)) % laurent).is_zero():
                return False
            continue
        for l in range(size):
            difference = (left.derivative(l)
                          - factor[k] * factor[l] * right.derivative(l).compose(*images))
            if not (difference % laurent).is_zero():
                return False
    return True


def chain_rule_by_weights(d: int, h: int, order: int, claimed_inverse: bool = False) -> bool:
    """The identity of ``chain_rule_check`` read off exponents, with no composition.

    The monomials of the generic quadratic that entry k (order 1) or (k, l) (order 2) sees are
    c_k θ_k and C_kl θ_k θ_l; T_α multiplies a monomial m by α^{wt(m)}, and ∂_k maps the monomial
    m to a multiple of m/θ_k.  Left: ∂(g∘T) = Σ c_m α^{wt(m)} ∂m; right: t_k·(∂g)(Tθ) =
    Σ c_m α^{e_k + wt(∂m)} ∂m (t_k = α^{e_k}), so the entry holds exactly when wt(m) equals the
    claimed exponents plus wt(∂m) for each of its monomials.
    """
    size = d * h + h
    exponents = [1] * (d * h) + [-1] * h
    claimed = [-e for e in exponents] if claimed_inverse else exponents

    def weight(monomial):   # monomial: exponent per parameter index
        return sum(exponents[m] * e for m, e in monomial.items())

    def derivative(monomial, k):
        lowered = dict(monomial)
        lowered[k] -= 1
        return {m: e for m, e in lowered.items() if e}

    for k in range(size):
        check_budget()
        if order == 1:
            monomials = [{k: 1}] + [{k: 2} if l == k else {k: 1, l: 1} for l in range(size)]
            if any(weight(m) != claimed[k] + weight(derivative(m, k)) for m in monomials):
                return False
            continue
        for l in range(size):
            m = {k: 2} if l == k else {k: 1, l: 1}
            if weight(m) != claimed[k] + claimed[l] + weight(derivative(derivative(m, k), l)):
                return False
    return True


@functools.lru_cache(maxsize=None)
def _abstract_prerequisites(d, h, n) -> dict:
    """The steps of route (iv) that do not depend on the derivative's order, checked once a size:
    by exponent weights on the pattern form, and at the cross-check sizes through Theorem 1 too."""
    model = pattern_network(d, h, n)
    exponents = model.weight_exponents({"W": 1, "v": -1})
    invariant = all(alpha_weights(f, exponents) <= {0} for f in model.predictions)
    inverse = all(e + (-e) == 0 for e in exponents)
    steps = {
        "L o T_alpha = L (every f(x_n) of alpha-weight 0 on the pattern form)": _as_verdict(
            invariant, "f(x_n) o T_alpha = f(x_n): every monomial of alpha-weight 0"),
        "T_alpha T_(1/alpha) = id (exponents e and -e cancel)": _as_verdict(
            inverse, "T_alpha T_(1/alpha) = id: alpha^e alpha^(-e) = 1 in every coordinate"),
    }
    if cross_checked(d, h, n):
        steps.update({
            "L o T_alpha = L (Theorem 1, generic loss)": theorem1.loss_invariance(d, h, n, "generic"),
            "T_alpha T_(1/alpha) = id (Theorem 1)": theorem1.local_minimum_lemmas(d, h)["inverse"],
        })
    return steps


def _as_verdict(holds: bool, claim: str) -> Verdict:
    if holds:
        return by_procedure("exact rational comparison", claim, True,
                            evidence=("exact: alpha-weights read off exponents",))
    return Verdict(Status.UNDECIDED, claim, reason="a monomial of the wrong alpha-weight")


def abstract_route(d, h, n, order):
    """(iv) every step of: L∘T_α = L, T_α linear and invertible, chain rule ⇒ the identity."""
    chain_rule = chain_rule_by_weights(d, h, order) and (
        not cross_checked(d, h, n) or chain_rule_check(d, h, order))
    steps = {
        **_abstract_prerequisites(d, h, n),
        "chain rule for the linear map T_alpha": (
            by_procedure("exact rational comparison", "chain rule", True,
                         evidence=("exact Laurent identity on a generic 2-jet",))
            if chain_rule else
            Verdict(Status.UNDECIDED, "chain rule", reason="chain-rule identity not an exact zero")),
    }
    failing = [name for name, v in steps.items() if v.status is not Status.PROVED]
    return (not failing), (failing[0] if failing else None)


# --- 4. the independent witness ------------------------------------------------------------------

def numeric_witness(d, h, n, loss, order, variant=THEOREM, seed=0):
    """The most telling Residual of the identity on the real ReLU loss, its instance, and how many
    points were informative.

    At each random point both forms of the identity are compared: in random directions u, w
    (DL(T_αθ)[u] against DL(θ)[Su], H[u, w] against H[Su, Sw]), and entry by entry along the unit
    directions at the first point (SAMPLED_ENTRIES random entries of the gradient or of the
    Hessian's upper triangle, all of them when there are no more).  Every point has an active unit
    at each data point (``random_instance``); a comparison whose two sides are both 0 compared
    nothing and is left out, and a point counts as informative when one of its comparisons is not.
    """
    rng = random.Random(seed)
    kind = {"any": "smooth"}.get(loss, loss)
    groups = _groups(d, h, variant.bias)
    size = len(groups)
    worst_case, informative = (None, None), 0
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
        L = loss_function(kind, instance)
        compared = False
        for directions in pairs:
            def both_sides(dps, directions=directions):
                transformed = [_factor_value(variant.transform[g], instance.alpha) * to_mpf(t)
                               for g, t in zip(groups, instance.theta)]
                scaled = [[_factor_value(side[g], instance.alpha) * to_mpf(x)
                           for g, x in zip(groups, direction)]
                          for side, direction in zip((variant.scaling, variant.right), directions)]
                return (directional_derivative(L, transformed, list(directions), dps),
                        directional_derivative(L, instance.theta, scaled, dps))
            residual = measure(both_sides)
            if residual.scale == 0:
                continue
            compared = True
            if worst_case[0] is None or residual.key() > worst_case[0].key():
                worst_case = (residual, instance)
        informative += compared
    return worst_case + (informative,)


def _factor_value(factor, alpha):
    """The number a factor of a Variant stands for, at the witness's α."""
    return {"a": to_mpf(alpha), "abar": 1 / to_mpf(alpha)}.get(factor, factor)


def _groups(d, h, bias):
    return ["W"] * (d * h) + (["b"] * h if bias else []) + ["v"] * h


# --- the claim: exact test and witness together --------------------------------------------------

def check(d, h, n, loss, order, variant=THEOREM, seed=0, timeout=None) -> Verdict:
    """One identity (gradient: order 1, Hessian: order 2) for one loss at one size."""
    what = "gradient" if order == 1 else "Hessian"
    claim = f"{what} identity, {LOSS_LABELS[loss]}, {variant.name}, d={d}, h={h}, N={n}"
    try:
        with time_budget(timeout):
            if loss in ("mse", "quadratic", "logistic"):
                holds, entry = weight_identity(d, h, n, loss, order, variant)
                exact = ("exact: alpha-weights read off the exponents of the per-sample, per-unit "
                         "factors on the pattern form (all 2^(Nh) patterns), no composition")
                if cross_checked(d, h, n):
                    composed, composed_entry = exact_polynomial_identity(d, h, n, loss, order, variant)
                    if composed != holds:
                        return Verdict(Status.UNDECIDED, claim, reason=(
                            f"the exponent-weight test says {holds} (entry {entry}) and the "
                            f"composition test says {composed} (entry {composed_entry})"))
                    exact += "; cross-check: T_alpha composed into every entry, Laurent-ring zero test agrees"
            elif variant is THEOREM:
                holds, entry = abstract_route(d, h, n, order)
                exact = ("every step of the abstract route checked by exponent weights"
                         + ("; cross-check: Theorem 1 and the composed chain rule agree"
                            if cross_checked(d, h, n) else ""))
            else:
                raise ValueError("the abstract route is stated for the theorem's T_alpha only")
            residual, instance, informative = numeric_witness(d, h, n, loss, order, variant, seed)
    except BudgetExhausted:
        return Verdict(Status.UNDECIDED, claim, reason=f"time budget of {timeout} s ran out")
    return derivative_verdict(claim, holds, entry, residual, informative,
                    instance.as_witness() if instance is not None else None, exact)


def regularity_transport() -> Verdict:
    """sign(αs) = sign(s) for α > 0: both halves of ReLU scale by the positive α."""
    s = sp.Symbol("s", real=True)
    verdicts = [check_identity(ReLU(ALPHA * s), ALPHA * ReLU(s)),
                check_identity(ReLU(-ALPHA * s), ALPHA * ReLU(-s))]
    return Verdict(worst(verdicts), "ReLU(+-alpha s) = alpha ReLU(+-s): the pattern at T_alpha theta "
                   "is the pattern at theta", evidence=tuple(e for v in verdicts for e in v.evidence))


def derivation_skeleton() -> Derivation:
    return Derivation(
        name=NAME, title=TITLE, source=SOURCE,
        statement=(r"Let $L$ be twice differentiable at $\theta$. For every $\alpha > 0$, $L$ is twice "
                   r"differentiable at $T_\alpha\theta$, and for all directions $u, w$: "
                   r"$DL(T_\alpha\theta)[u] = DL(\theta)[T_{1/\alpha}u]$ and "
                   r"$H_L(T_\alpha\theta)[u,w] = H_L(\theta)[T_{1/\alpha}u, T_{1/\alpha}w]$; "
                   r"equivalently $\nabla L(T_\alpha\theta) = S\,\nabla L(\theta)$ and "
                   r"$H_L(T_\alpha\theta) = S\,H_L(\theta)\,S$ with "
                   r"$S = \operatorname{diag}(\alpha^{-1} I_{dh}, \alpha I_h)$."),
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
    derivation.add(r"\tfrac{d}{df}\log(1 + e^f) = \varsigma(f),\quad \varsigma'(f) = \varsigma(f)(1 - \varsigma(f)),"
                   r"\quad \varsigma(f) = \tfrac{e^f}{1 + e^f}",
                   r"the two facts about the logistic loss that its derivatives use; with "
                   r"$P_n = \varsigma(f(x_n))$ as an indeterminate, the logistic gradient and Hessian "
                   r"are polynomials (chain rule $dP_n = P_n(1 - P_n)\,df_n$), and $P_n$ is unchanged "
                   r"by $T_\alpha$ because $f(x_n)$ is (checked at each size)", [sigmoid])
    derivation.add(r"\operatorname{ReLU}(\pm\alpha s) = \alpha\operatorname{ReLU}(\pm s)"
                   r"\ \Rightarrow\ \operatorname{sign}(\alpha s) = \operatorname{sign}(s)",
                   r"regularity transport: $T_\alpha$ maps each activation region onto itself, so "
                   r"$L$ is the same polynomial near $\theta$ and near $T_\alpha\theta$", [transport])
    rows = {}
    for order in (1, 2):
        what = "gradient" if order == 1 else "Hessian"
        for loss in LOSSES:
            rows[(order, loss)] = [report.record(
                NAME, f"{what}, {LOSS_LABELS[loss]}", (d, h, n),
                lambda d=d, h=h, n=n, loss=loss, order=order: check(d, h, n, loss, order, seed=seed,
                                                                    timeout=timeout))
                for d, h, n in sizes]
    for loss in ("mse", "logistic", "quadratic"):
        label = r"\quad\text{%s}" % LOSS_LABELS[loss]
        derivation.add(r"\partial_k L(T_\alpha\theta) = S_{kk}\,\partial_k L(\theta)" + label,
                       f"{LOSS_LABELS[loss]}: exact Laurent-polynomial identity in $\\alpha$ on the "
                       "pattern form, every entry", rows[(1, loss)], sizes)
        derivation.add(r"\partial_k\partial_l L(T_\alpha\theta) = S_{kk} S_{ll}\,\partial_k\partial_l L(\theta)"
                       + label,
                       f"{LOSS_LABELS[loss]}: exact Laurent-polynomial identity, every entry $k \\le l$",
                       rows[(2, loss)], sizes)
    derivation.add(r"L \circ T_\alpha = L,\quad T_\alpha T_{1/\alpha} = \mathrm{id},\quad "
                   r"D(g\circ T_\alpha)(\theta)[u] = Dg(T_\alpha\theta)[T_\alpha u]",
                   r"(iv) any loss: Theorem 1, invertibility, and the chain rule for the linear map "
                   r"$T_\alpha$ checked on a generic 2-jet on parameter space", rows[(1, "any")], sizes)
    derivation.add(r"D^2(g\circ T_\alpha)(\theta)[u, w] = D^2 g(T_\alpha\theta)[T_\alpha u, T_\alpha w]",
                   "(iv) any loss: second-order chain rule for the linear map, generic 2-jet",
                   rows[(2, "any")], sizes)
    derivation.add(r"DL(T_\alpha\theta)[u] = DL(T_\alpha\theta)[T_\alpha T_{1/\alpha}u] = "
                   r"D(L\circ T_\alpha)(\theta)[T_{1/\alpha}u] = DL(\theta)[T_{1/\alpha}u]",
                   "the checked steps above; the Hessian line is the same with two "
                   "directions")
    derivation.add(r"H_L(T_\alpha\theta)[u, w] = \textstyle\sum_{k,l} S_{kk} S_{ll} H_{kl}(\theta) u_k w_l "
                   r"= H_L(\theta)[S u, S w] = H_L(\theta)[T_{1/\alpha} u, T_{1/\alpha} w]",
                   r"a bilinear form is fixed by its entries, and $S$ is the matrix of "
                   r"$T_{1/\alpha}$")
    for loss in LOSSES:
        for order in (1, 2):
            values = [v.residual for v in rows[(order, loss)] if v.residual is not None]
            if values:
                derivation.residuals.append(
                    (f"{'gradient' if order == 1 else 'Hessian'}, {LOSS_LABELS[loss]}", max(values)))
    derivation.sizes = sizes
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
    holds = True
    for k, first in enumerate(gradient):
        for l in range(k, len(parameters)):
            entry = sp.diff(first, parameters[l])
            factor = claimed[layer_of[parameters[k]]] * claimed[layer_of[parameters[l]]]
            if not is_rational_zero(entry.xreplace(transform) - factor * entry):
                holds = False
                break
        if not holds:
            break

    # witness: the real network (max, not the pattern) at random rational points, mpmath.diff;
    # a point where units are dead may hide a difference, so several points are tried
    rng = random.Random(seed)
    real_loss = sum((net.prediction(x) - y) ** 2 for x, y in zip(inputs, targets)) / n
    data = [s for x in inputs for s in x] + list(targets)
    best, informative = (None, None, None), 0
    for _ in range(DEEP_WITNESS_POINTS):
        check_budget()
        point = {s: sp.Rational(rng.randint(-40, 40) or 1, 8) for s in data}
        point.update({a: sp.Rational(rng.randint(2, 30), rng.randint(31, 60)) for a in alphas})
        theta = [sp.Rational(rng.randint(-40, 40) or 1, 8) for _ in parameters]
        residual = hessian_residual(mpmath_function(parameters, real_loss.xreplace(point)), theta,
                                  [sp.sympify(scales[layer_of[p]]).xreplace(point) for p in parameters],
                                  [sp.sympify(claimed[layer_of[p]]).xreplace(point) for p in parameters],
                                  rng)
        if residual.scale == 0:
            continue    # every path dead: both sides 0, nothing compared
        informative += 1
        if best[0] is None or residual.key() > best[0].key():
            best = (residual, point, theta)
        if best[0].stable:
            break
    residual, point, theta = best
    witness = None
    if point is not None:
        witness = {str(s): v for s, v in point.items()}
        witness.update({f"theta[{p}]": t for p, t in zip(parameters, theta)})
    return derivative_verdict(claim, holds, "some Hessian entry", residual, informative, witness,
                    "exact identity on the pattern form, every Hessian entry")


DEEP_WITNESS_POINTS = 16
