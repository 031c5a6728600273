"""Exact zero tests: polynomial arithmetic, never ``simplify`` or ``Expr.equals``.

Both tests are sound in one direction only, which is the direction a prover needs: when they say
zero, the expression is zero.  'Not shown zero' is not a refutation; a witness point is.
"""
from __future__ import annotations

import sympy as sp

from symbolic.decision.fraction_field import fraction_reading

_EXACT_GROUNDS = ("ZZ", "QQ")


def _exact_domain(domain) -> bool:
    if str(domain) in _EXACT_GROUNDS:
        return True
    if domain.is_PolynomialRing or domain.is_FractionField:
        return str(domain.domain) in _EXACT_GROUNDS
    return False


def is_rational_zero(expr: sp.Expr) -> bool:
    """True when expr is identically zero as a rational function.

    Symbols, function applications (exp(s), ReLU(s), ℓ(p)) and non-integer powers are all taken as
    independent indeterminates; a rational function that vanishes as a function of independent
    indeterminates vanishes at every specialisation of them, so True is never wrong.  Coefficients
    must be rational numbers (domain ZZ or QQ): an algebraic or transcendental constant could hide
    a zero that polynomial arithmetic does not see, and such an input answers False, as does one
    with a floating-point constant, whose arithmetic rounds.
    """
    expr = sp.sympify(expr)
    if expr == 0:
        return True
    if expr.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
        return False
    if expr.has(sp.Float):
        return False    # floating-point arithmetic rounds: (x + 1e-30)(x + 1) - x^2 - x - 1e-30 expands to 0
    if _nonzero_somewhere(expr):
        return False
    # one exact normal form first: numerator/denominator in python-flint's polynomials, with the
    # same reading (generators as independent indeterminates, rational coefficients only)
    reading = fraction_reading(expr)
    if reading is True:
        return True
    if reading is False and not _expansion_relates_generators(expr):
        return False    # sympy's expansion below would read the same generators: not zero
    # sympy's arithmetic where flint's reading is too literal (√x·√x is x for sympy, two
    # generators for flint): expansion is an exact rewrite: terms that cancel term by term need no common denominator
    if sp.expand(expr) == 0:
        return True
    numerator, _ = sp.fraction(sp.together(expr))
    numerator = sp.expand(numerator)
    if numerator == 0:
        return True
    if numerator.is_number:
        return False    # a constant not recognised as 0: not shown zero
    try:
        poly = sp.Poly(numerator)
    except (sp.PolynomialError, sp.polys.polyerrors.GeneratorsNeeded):
        return False
    return _exact_domain(poly.domain) and poly.is_zero


def _expansion_relates_generators(expr: sp.Expr) -> bool:
    """Could sympy's expansion equate what flint reads as independent generators?  Yes where a
    power has a non-integer exponent (√x·√x = x), where exp or log is taken (exp(x + y) =
    exp(x)·exp(y), log(a·b) = log a + log b for positive a, b), and where a function's argument
    is not in expanded form (ReLU(x(y + 1)) and ReLU(xy + x) are one generator after expansion),
    or is no expression at all (a Piecewise's pairs)."""
    for node in sp.preorder_traversal(expr):
        if node.is_Pow and not node.exp.is_Integer:
            return True
        if isinstance(node, (sp.exp, sp.log)):
            return True
        if node.is_Function and any(not isinstance(a, sp.Expr) or sp.expand(a) != a for a in node.args):
            return True
    return False


# a fixed point with pairwise different, non-integer coordinates
_PROBE = [sp.Rational(p, q) for p, q in ((2, 3), (5, 7), (-11, 13), (17, 19), (-23, 29), (31, 37),
                                         (41, 43), (-47, 53), (59, 61), (67, 71))]


def _nonzero_somewhere(expr: sp.Expr) -> bool:
    """expr is a non-zero number at a rational point: then it is not the zero function, and not
    the zero rational function either (that one vanishes at every specialisation of its
    indeterminates, the values of ReLU(s), exp(s), ... at the point among them).  A cheap way
    to say 'not shown zero' before the polynomial arithmetic; False says nothing."""
    symbols = sorted(expr.free_symbols, key=sp.default_sort_key)
    point = {s: _PROBE[i % len(_PROBE)] + i // len(_PROBE) for i, s in enumerate(symbols)}
    try:
        value = expr.xreplace(point)
    except (TypeError, ValueError, ZeroDivisionError):
        return False
    return bool(value.is_Rational and value != 0)


def laurent_is_zero(poly, alpha, alpha_inverse) -> bool:
    """Zero test in the Laurent ring Z[…][α, α⁻¹] = Z[…][α, ᾱ]/(αᾱ − 1).

    ``poly`` is a python-flint ``fmpz_mpoly`` in which ᾱ stands for 1/α.  A single polynomial is a
    Gröbner basis of the ideal it generates, so the remainder of multivariate division by αᾱ − 1
    is the normal form: it is zero exactly when poly vanishes whenever ᾱ = 1/α.
    """
    return (poly % (alpha * alpha_inverse - 1)).is_zero()


def is_sign(value: sp.Expr) -> bool:
    """True when ``value`` is known to be real with square exactly 1, so that it is 1 or −1 (as
    (−1)^e for an integer e is)."""
    value = sp.sympify(value)
    return value.is_real is True and is_rational_zero(value ** 2 - 1)

