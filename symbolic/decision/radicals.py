"""An exact zero test on a sign region for an expression with one square root.

Let y = √t, so y ≥ 0 and y² = t wherever the root is defined (t ≥ 0, a condition of the domain
as written).  A rational function of y and the symbols has a numerator that, reduced modulo
y² − t, is A + B·y with A, B free of y.  It vanishes at every point of a region where the root is
defined as soon as

    A² − B²·t is the zero rational function,  and  A·B ≤ 0 on the region:

at a point, A·B ≤ 0 and A² = B²·t give A = 0 = B·√t (if A = 0), or √t = |A|/|B| with B of the
sign opposite to A, so A + B·√t = A − sign(A)·|A| = 0.  The first condition is a polynomial
identity (``is_rational_zero``); the second is the emptiness of the region cut by A·B > 0, with
a certificate (``regions.examine``: Farkas multipliers checked exactly, or a solver's unsat).
So ``sqrt(x^2 + 2x + 1) = |x + 1|`` holds on each side of its kink.
"""
from __future__ import annotations

import sympy as sp

from symbolic.decision.regions import examine
from symbolic.decision.zero import is_rational_zero


def _square_roots(expr: sp.Expr) -> list[sp.Pow]:
    return [p for p in expr.atoms(sp.Pow) if p.exp.is_Rational and p.exp.q == 2]


def radical_zero(remainder: sp.Expr, region: list, symbols) -> bool:
    """True when remainder, with one square root √t in it, is 0 wherever it is defined on the
    region (see the module docstring); False says nothing."""
    roots = _square_roots(remainder)
    bases = {p.base for p in roots}
    if len(bases) != 1:
        return False
    t = bases.pop()
    variables = sorted(remainder.free_symbols, key=sp.default_sort_key)
    if not t.is_rational_function(*variables) or _square_roots(t):
        return False
    y = sp.Dummy("y", nonnegative=True)
    replaced = remainder.xreplace({p: y ** p.exp.p for p in roots})
    if not replaced.is_rational_function(y, *variables):
        return False    # another construct (a ReLU, a function) is left: not this test's
    numerator, _ = sp.fraction(sp.together(replaced))
    reduced = sp.Poly(sp.rem(sp.expand(numerator), y ** 2 - t, y), y)
    b, a = reduced.coeff_monomial(y), reduced.coeff_monomial(1)
    if not is_rational_zero(sp.expand(a ** 2 - b ** 2 * t)):
        return False
    if is_rational_zero(sp.expand(a * b)):
        return True
    # the root must be defined on the whole region (t ≥ 0 there), and A·B > 0 nowhere in it
    defined = sp.GreaterThan(t, 0, evaluate=False) in region or t in region or \
        examine(region + [-t], symbols).empty is True
    return defined and examine(region + [sp.expand(a * b)], symbols).empty is True
