"""check_identity: decide lhs = rhs for all admissible real values, with evidence.

The procedure, for expressions built from rational functions of real symbols, ReLU, Max, Min, Abs
(and leaky ReLU, which is made of them):

1. Look for a counterexample at random rational points honouring the symbols' assumptions.
2. Rewrite both sides into canonical ReLU form and test lhs − rhs for an exact zero.
3. If it is not zero, split on the sign of each innermost ReLU argument s: on {s > 0} the atom is
   s, on {s < 0} it is 0.  Each branch is a region cut out by strict inequalities, an open set.
   A region that linear programming shows empty is dropped.  On a non-empty open region a rational
   function that is not identically zero is non-zero somewhere, so the claim holds exactly when
   every leaf reduces to an exact zero.  The kink set {s = 0} needs no case of its own: it has
   empty interior and lhs − rhs is continuous where defined, so zero on a dense set is zero.
4. A leaf that is not zero is refuted by a point found inside its region (a linear program's
   interior point, or sampling), re-checked on the ORIGINAL expressions at 50 and 100 digits.

PROVED additionally needs the independent witness of step 1 to agree.  Anything else is UNDECIDED,
with the reason.
"""
from __future__ import annotations

import random

import sympy as sp
from sympy.core.function import AppliedUndef

from .budget import BudgetExhausted, check_budget, time_budget
from .regions import coefficients, describe, inside, interior_point, is_linear, sign_branches, \
    sign_constraints
from .relu import ReLU, canonical_relu_form, relu_atoms, to_relu_form
from .verdict import Status, Verdict
from .witness import compare_at, concrete_functions, random_point, substitute_functions
from .zero import is_rational_zero

# functions continuous wherever they are defined: the density argument of step 3 applies to them
CONTINUOUS = (sp.exp, sp.log, sp.sin, sp.cos, sp.tan, sp.tanh, sp.sinh, sp.cosh, sp.atan,
              sp.erf, sp.Abs, sp.Max, sp.Min, ReLU)

RANDOM_POINTS = 16
REGION_SAMPLES = 300


class _Undecidable(Exception):
    """The procedure cannot settle a branch; the message says why."""


def as_expression(value) -> sp.Expr:
    """Accept a sympy expression or a number; anything else is bad input."""
    if isinstance(value, str):
        raise TypeError("check_identity takes sympy expressions; parse text with "
                        "symbolic.parse_expression first")
    expr = sp.sympify(value, strict=True)
    if not isinstance(expr, sp.Expr) or isinstance(expr, sp.MatrixBase):
        raise TypeError(f"not a scalar expression: {value!r}")
    if any(s.is_real is False for s in expr.free_symbols):
        raise ValueError("every symbol must be real")
    if expr.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
        raise ValueError(f"not a finite expression: {expr}")
    return expr


def check_identity(lhs, rhs, *, timeout: float | None = None, seed: int = 0,
                   claim: str | None = None) -> Verdict:
    """Decide lhs = rhs for every admissible real value of the symbols (see module docstring)."""
    lhs, rhs = as_expression(lhs), as_expression(rhs)
    claim = claim or f"{lhs} = {rhs}"
    try:
        with time_budget(timeout):
            return _decide(lhs, rhs, claim, random.Random(seed))
    except BudgetExhausted:
        return Verdict(Status.UNDECIDED, claim, reason=f"time budget of {timeout} s ran out")


def _decide(lhs: sp.Expr, rhs: sp.Expr, claim: str, rng: random.Random) -> Verdict:
    symbols = sorted(lhs.free_symbols | rhs.free_symbols, key=sp.default_sort_key)
    functions = concrete_functions((lhs, rhs), rng)
    concrete_lhs = substitute_functions(lhs, functions)
    concrete_rhs = substitute_functions(rhs, functions)

    # 1. independent witness: random rational points honouring the assumptions
    agreeing, exact_points, residual = 0, 0, 0.0
    for trial in range(RANDOM_POINTS):
        check_budget()
        point = random_point(symbols, rng, scale=9 if trial % 2 else 99)
        separation = compare_at(concrete_lhs, concrete_rhs, point)
        if not separation.defined:
            continue
        if separation.differ:
            return _refuted(claim, point, functions, "a random point separates the two sides")
        agreeing += 1
        exact_points += separation.exact
        residual = max(residual, separation.residual)

    # 2.–3. exact zero test of the canonical ReLU form, splitting on signs where needed
    difference = canonical_relu_form(to_relu_form(lhs) - to_relu_form(rhs))
    try:
        failing = _failing_regions(difference, symbols)
    except _Undecidable as why:
        return Verdict(Status.UNDECIDED, claim, reason=str(why), residual=residual)

    if not failing:
        if agreeing == 0:
            return Verdict(Status.UNDECIDED, claim, residual=residual,
                           reason="exact test gives zero but no witness point could be evaluated")
        evidence = ("exact zero test of the canonical ReLU form on every sign region",
                    f"agrees at {agreeing} random points ({exact_points} in exact rational "
                    f"arithmetic), max residual {residual:.1e} at 50 digits")
        return Verdict(Status.PROVED, claim, evidence=evidence, residual=residual)

    # 4. a non-zero leaf: find a point of its region where the original sides differ
    for region, remainder in failing:
        point = _separating_point(region, remainder, symbols, concrete_lhs, concrete_rhs, rng)
        if point is not None:
            return _refuted(claim, point, functions, f"on the region {describe(region)} lhs - rhs "
                                                     f"reduces to {sp.factor(remainder)}")
    region, remainder = failing[0]
    return Verdict(Status.UNDECIDED, claim, residual=residual,
                   reason=f"lhs - rhs reduces to {remainder} on the region {describe(region)}, "
                          "but no point of that region was found and it could not be shown empty")


def _refuted(claim, point, functions, reason) -> Verdict:
    witness = dict(point)
    for function, body in functions.items():
        witness[function] = body
    return Verdict(Status.REFUTED, claim, witness=witness, reason=reason)


def _opaque_discontinuous(expr: sp.Expr) -> list:
    """Function applications for which the density argument is not available."""
    found = []
    for app in expr.atoms(sp.Function):
        if isinstance(app, AppliedUndef) or not isinstance(app, CONTINUOUS):
            found.append(app)
    return found


def _failing_regions(difference: sp.Expr, symbols) -> list:
    """The (region, remainder) leaves of the sign split on which difference is not an exact zero."""
    if not is_rational_zero(difference) and relu_atoms(difference):
        opaque = _opaque_discontinuous(difference)
        if opaque:
            raise _Undecidable(f"lhs - rhs is not an exact zero and contains {opaque[0]}, whose "
                               "continuity the sign split needs")
    # a remainder that is undefined (a division by an exact zero) on its whole region makes no
    # claim there: the identity is asserted wherever both sides are defined
    return [(region, remainder)
            for region, remainder in sign_branches(difference, symbols, settled=is_rational_zero)
            if not is_rational_zero(remainder) and not remainder.has(sp.zoo, sp.nan)]


def _separating_point(region, remainder, symbols, lhs, rhs, rng):
    """A point of the open region where lhs and rhs differ, or None."""
    candidates = []
    linear = [c for c in region + sign_constraints(symbols) if is_linear(c)]
    slack, centre = interior_point(linear)
    if bool(slack > 0):
        # a box around the LP's interior point small enough to stay inside every linear constraint
        radius = slack / (2 * (1 + sum(abs(c) for c in coefficients(linear))))
        centre = {s: centre.get(s, sp.S.Zero) for s in symbols}
        for _ in range(REGION_SAMPLES // 3):
            candidates.append({s: centre[s] + radius * sp.Rational(rng.randint(-1000, 1000), 1000)
                               for s in symbols})
    for trial in range(REGION_SAMPLES):
        candidates.append(random_point(symbols, rng, scale=(3, 9, 99)[trial % 3]))
    for point in candidates:
        check_budget()
        if not inside(region, symbols, point):
            continue
        if compare_at(lhs, rhs, point).differ:
            return point
    return None


