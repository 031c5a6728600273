"""Open sign regions: the cells that a sign split on ReLU arguments cuts out.

A region is a list of expressions c, read as the conjunction of c > 0.  Linear programming decides
whether a polyhedral region is empty and gives an interior point; for other regions a sign argument
on factors sometimes shows emptiness.  ``sign_branches`` walks the split of an expression.
"""
from __future__ import annotations

import sympy as sp
from sympy.solvers.simplex import lpmax

from .budget import check_budget
from .relu import canonical_relu_form, relu_atoms


def sign_branches(expr: sp.Expr, symbols, settled=lambda e: False, region=None):
    """Yield (region, reduced) for each non-empty-or-undecided open region of the sign split of
    expr's innermost ReLU arguments: on {s > 0} ReLU(s) is s, on {s < 0} it is 0.  A branch whose
    expression is ``settled`` is not split further.  Regions shown empty are dropped."""
    check_budget()
    region = [] if region is None else region
    atoms = relu_atoms(expr)
    if not atoms or settled(expr):
        yield region, expr
        return
    atom = atoms[0]
    argument = atom.args[0]
    for constraint, value in ((argument, argument), (-argument, sp.S.Zero)):
        branch = region + [constraint]
        if region_is_empty(branch, symbols) is True:
            continue
        reduced = canonical_relu_form(expr.xreplace({atom: value}))
        yield from sign_branches(reduced, symbols, settled, branch)


def describe(region: list) -> str:
    return " and ".join(f"{c} > 0" for c in region) or "everywhere"


def sign_constraints(symbols) -> list:
    """The open half-lines that the symbols' sign assumptions allow (closures by density)."""
    constraints = []
    for s in symbols:
        if s.is_positive or s.is_nonnegative:
            constraints.append(s)
        elif s.is_negative or s.is_nonpositive:
            constraints.append(-s)
    return constraints


def is_linear(constraint: sp.Expr) -> bool:
    variables = sorted(constraint.free_symbols, key=sp.default_sort_key)
    if not variables:
        return constraint.is_Rational
    try:
        poly = sp.Poly(constraint, *variables)
    except sp.PolynomialError:
        return False
    return poly.total_degree() <= 1 and str(poly.domain) in ("ZZ", "QQ")


def interior_point(constraints: list):
    """(slack, point) of the LP  max t  s.t.  c >= t for each linear constraint c, t <= 1.

    The open polyhedron {c > 0} is empty exactly when the optimal slack is <= 0.
    """
    if not constraints:
        return sp.S.One, {}
    slack = sp.Dummy("t")
    value, solution = lpmax(slack, [c >= slack for c in constraints] + [slack <= 1])
    variables = set().union(*(c.free_symbols for c in constraints))
    return value, {v: solution.get(v, sp.S.Zero) for v in variables}


def _sign_contradiction(constraints: list) -> bool:
    """Some constraint c > 0 factors into factors whose signs the others fix, with c <= 0."""
    known = {}
    factored = []
    for c in constraints:
        try:
            coefficient, factors = sp.factor_list(c)
        except (sp.PolynomialError, sp.polys.polyerrors.GeneratorsNeeded):
            continue
        factored.append((coefficient, factors))
        if len(factors) == 1 and factors[0][1] == 1:
            known[factors[0][0]] = sp.sign(coefficient)
    for coefficient, factors in factored:
        sign = sp.sign(coefficient)
        for factor, power in factors:
            if power % 2 == 0:
                continue
            if factor not in known:
                break
            sign *= known[factor]
        else:
            if sign < 0:
                return True
    return False


def _sign_polynomial(constraint: sp.Expr) -> sp.Expr:
    """p·q for constraint = p/q: the same sign wherever the constraint is defined."""
    numerator, denominator = sp.fraction(sp.together(constraint))
    return sp.expand(numerator * denominator)


def region_is_empty(region: list, symbols):
    """True, False, or None (unknown: some constraint is not linear and no sign argument applies)."""
    constraints = [_sign_polynomial(c) for c in region + sign_constraints(symbols)]
    linear = [c for c in constraints if is_linear(c)]
    if bool(interior_point(linear)[0] <= 0):
        return True
    if len(linear) == len(constraints):
        return False
    return True if _sign_contradiction(constraints) else None


def inside(region, symbols, point) -> bool:
    for c in region + sign_constraints(symbols):
        value = c.xreplace(point)
        if not (value.is_Rational and value > 0):
            return False
    return True


def coefficients(constraints):
    for c in constraints:
        yield from sp.Poly(c, *sorted(c.free_symbols, key=sp.default_sort_key)).coeffs() \
            if c.free_symbols else [c]
