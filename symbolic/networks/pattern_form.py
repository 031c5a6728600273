"""The pattern-form exact test: identities of the one-hidden-layer ReLU network's loss, its
gradient and its Hessian, decided exactly on the pattern form for every activation pattern.

On an activation region ReLU(s_nj) = σ_nj s_nj; with the σ_nj as indeterminates L, ∇L and H_L are
exact polynomials (``symbolic.networks.polynomial``), so an identity that holds as a polynomial
identity holds on every region.  Three kinds of statement are decided here, by the oracle
'pattern-form exact test' that the kernel runs (``decide_pattern_form``):

- ``Fact(DERIVATIVE_LAW, (d, h, N, loss, order, T, S, S', bias))``: ∂L(Tθ) = S ∂L(θ) (order 1), or
  ∂²L(Tθ) = S ∂²L(θ) S' (order 2), entry by entry, T, S, S' given per parameter group ('a' for α,
  'abar' for 1/α): α-weights read off exponents (``weight_identity``), and at d, h, N ≤ 3 the
  composition test (``exact_polynomial_identity``) too, which must agree;
- ``Fact(INVARIANT_PREDICTIONS, (d, h, N))``: every f(x_n) has α-weight 0 under T_α, so L∘T_α = L;
- ``Fact(CHAIN_RULE, (d, h, order))``: the chain rule for the diagonal map T_α on a generic 2-jet,
  by weights, and at d, h ≤ 3 by composition too;
- ``Fact(GENERATOR_IDENTITIES, (d, h, N, loss, signs))``: ∇L·Gθ = 0 and HGθ + G∇L = 0 for the
  layer's generator G and every unit's G_j (signs on W[:, j] and on v_j).
"""
from __future__ import annotations

import functools
from types import SimpleNamespace

import flint

from symbolic.decision.budget import check_budget
from symbolic.networks.polynomial import EXPONENTS, PatternNetwork, WeightReader, alpha_weights
from symbolic.logic.statements import Fact
from symbolic.kernel.verdict import Holds, Status, Verdict

# sizes at which the composition-based tests run too, as a cross-check of the exponent-weight test
CROSS_CHECK_SIZES = (3, 3, 3)

DERIVATIVE_LAW = "alpha-scale derivative law on the pattern form"
INVARIANT_PREDICTIONS = "every prediction of alpha-weight 0 on the pattern form"
CHAIN_RULE = "chain rule for the linear map T_alpha on a generic 2-jet"
GENERATOR_IDENTITIES = "generator identities on the pattern form"

READINGS = {
    DERIVATIVE_LAW: ("for every activation pattern, each entry of the order-k derivative of L at T theta is S "
                     "(and S') times the entry at theta: exact, alpha-weights read off exponents, the "
                     "composition test agreeing at d, h, N <= 3"),
    INVARIANT_PREDICTIONS: "f(x_n) o T_alpha = f(x_n) for every n and every pattern, so L o T_alpha = L",
    CHAIN_RULE: ("the k-th derivative of g o T_alpha at theta is the k-th derivative of g at T_alpha theta "
                 "composed with T_alpha, for a generic quadratic g: exact Laurent identity"),
    GENERATOR_IDENTITIES: ("grad L . G theta = 0 and H G theta + G grad L = 0 for the layer's generator and "
                           "every unit's, as exact polynomials on the pattern form"),
}

THEOREM_SCALING = SimpleNamespace(transform={"W": "a", "v": "abar"}, scaling={"W": "abar", "v": "a"},
                                  right={"W": "abar", "v": "a"}, bias=False)


def _factor(symbolic_factor, alpha, alphabar):
    return {"a": alpha, "abar": alphabar}.get(symbolic_factor, symbolic_factor)


def _group(parameter_name: str) -> str:
    return parameter_name.split("_")[0]


def cross_checked(d, h, n) -> bool:
    """Whether the composition-based tests run too at this size."""
    return all(s <= limit for s, limit in zip((d, h, n), CROSS_CHECK_SIZES))


@functools.lru_cache(maxsize=4)
def pattern_network(d, h, n, loss="mse", bias=False) -> PatternNetwork:
    """One pattern form per size and loss, shared by the gradient and the Hessian checks."""
    return PatternNetwork(d, h, n, loss=loss, bias=bias)


def weight_identity(d, h, n, loss, order, variant=THEOREM_SCALING):
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


def exact_polynomial_identity(d, h, n, loss, order, variant=THEOREM_SCALING):
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



# a generator: the sign on a unit's incoming weights W[:, j] and on its outgoing weight v_j
GENERATOR_SIGNS = (1, -1)


def generator(d: int, h: int, unit: int | None, signs=GENERATOR_SIGNS) -> list[int]:
    """The diagonal of G: per unit j (``unit`` = j) or layer-wise (``unit`` = None)."""
    units = range(h) if unit is None else [unit]
    weights = [signs[0] if j in units else 0 for i in range(d) for j in range(h)]
    return weights + [signs[1] if j in units else 0 for j in range(h)]


def _theta_gens(model: PatternNetwork) -> list:
    return [model.gens[name] for name in model.parameter_names]


def exact_identities(d: int, h: int, n: int, loss: str, signs=GENERATOR_SIGNS) -> tuple[bool, str | None]:
    """Steps 1 and 2 for every unit and for the layer, exactly on the pattern form."""
    model = PatternNetwork(d, h, n, loss=loss)
    theta = _theta_gens(model)
    size = len(theta)
    gradient = model.gradient
    hessian = lambda k, l: model.hessian[(min(k, l), max(k, l))]  # noqa: E731
    for unit in [None, *range(h)]:
        G = generator(d, h, unit, signs)
        label = "layer" if unit is None else f"unit {unit + 1}"
        directional = sum(G[k] * theta[k] * gradient[k] for k in range(size))
        if not directional.is_zero():
            return False, f"grad L . G theta, {label}"
        for l in range(size):
            entry = sum(G[k] * theta[k] * hessian(k, l) for k in range(size)) + G[l] * gradient[l]
            if not entry.is_zero():
                return False, f"(H G theta + G grad L)_{l + 1}, {label}"
    return True, None


# --- the statements and the oracle ----------------------------------------------------------------

def derivative_law(d, h, n, loss, order, variant=THEOREM_SCALING):
    return Fact(DERIVATIVE_LAW, (d, h, n, loss, order, dict(variant.transform), dict(variant.scaling),
                                 dict(variant.right), bool(variant.bias)), READINGS[DERIVATIVE_LAW])


def invariant_predictions(d, h, n):
    return Fact(INVARIANT_PREDICTIONS, (d, h, n), READINGS[INVARIANT_PREDICTIONS])


def chain_rule(d, h, order):
    return Fact(CHAIN_RULE, (d, h, order), READINGS[CHAIN_RULE])


def generator_identities(d, h, n, loss, signs=GENERATOR_SIGNS):
    return Fact(GENERATOR_IDENTITIES, (d, h, n, loss, tuple(signs)), READINGS[GENERATOR_IDENTITIES])


def decide_pattern_form(statement):
    """Oracle 'pattern-form exact test': the facts above, each test run here on the pattern form.
    A failing identity answers UNDECIDED with the failing entry in ``details["fails_at"]``."""
    predicate, arguments = getattr(statement, "predicate", None), getattr(statement, "arguments", ())

    def fails(entry, why):
        return Verdict(Status.UNDECIDED, statement.text, reason=why, details={"fails_at": entry})
    if predicate == DERIVATIVE_LAW and len(arguments) == 9:
        d, h, n, loss, order, transform, scaling, right, bias = arguments
        variant = SimpleNamespace(transform=transform, scaling=scaling, right=right, bias=bias)
        holds, entry = weight_identity(d, h, n, loss, order, variant)
        evidence = ["exact: alpha-weights read off the exponents of the per-sample, per-unit factors on the "
                    "pattern form (all 2^(Nh) patterns), no composition"]
        if cross_checked(d, h, n):
            composed, composed_entry = exact_polynomial_identity(d, h, n, loss, order, variant)
            if composed != holds:
                return Verdict(Status.UNDECIDED, statement.text, reason=(
                    f"the exponent-weight test says {holds} (entry {entry}) and the composition test says "
                    f"{composed} (entry {composed_entry})"))
            evidence.append("cross-check: T_alpha composed into every entry, Laurent-ring zero test agrees")
        return Holds(tuple(evidence)) if holds else fails(entry, f"the identity fails at entry {entry}")
    if predicate == INVARIANT_PREDICTIONS and len(arguments) == 3:
        model = pattern_network(*arguments)
        exponents = model.weight_exponents({"W": 1, "v": -1})
        moved = [k for k, f in enumerate(model.predictions) if not alpha_weights(f, exponents) <= {0}]
        if moved:
            return fails(f"f(x_{moved[0] + 1})", f"f(x_{moved[0] + 1}) has a monomial of non-zero alpha-weight")
        return Holds(("exact: every monomial of every f(x_n) has alpha-weight 0",))
    if predicate == CHAIN_RULE and len(arguments) == 3:
        d, h, order = arguments
        if not chain_rule_by_weights(d, h, order):
            return fails("chain rule", "the chain-rule identity read off exponents fails")
        evidence = ["exact Laurent identity on a generic 2-jet, read off exponents"]
        if cross_checked(d, h, 1):
            if not chain_rule_check(d, h, order):
                return Verdict(Status.UNDECIDED, statement.text, reason="the weight test and the composed "
                               "chain rule disagree")
            evidence.append("cross-check: composed and zero-tested in the Laurent ring")
        return Holds(tuple(evidence))
    if predicate == GENERATOR_IDENTITIES and len(arguments) == 5:
        holds, entry = exact_identities(*arguments)
        if not holds:
            return fails(entry, f"the identity fails at {entry}")
        return Holds(("exact polynomial identities on the pattern form, every unit and the layer, every entry",))
    return Verdict(Status.UNDECIDED, getattr(statement, "text", str(statement)),
                   reason=f"the pattern-form exact test decides {', '.join(READINGS)}")
