"""An exact zero test for large rational expressions, in python-flint's multivariate polynomials.

The expression is read as a rational function of its symbols and of its generators (function
applications such as ReLU(s) or R(W), radicals, |·|), each generator an independent indeterminate:
the same reading as ``symbolic.decision.zero.is_rational_zero``, so True is never wrong.  It is built
bottom-up as a fraction numerator/denominator of ``fmpq_mpoly``s without expanding through sympy;
the expression is zero exactly when the final numerator is the zero polynomial (the denominators
are products of nonzero polynomials, checked nonzero on the way).
"""
from __future__ import annotations

import sympy as sp

from symbolic.flint_fractions import NotRational, fraction_in

__all__ = ["NotRational", "fraction_reading", "is_zero_fraction"]


def _generators(expr: sp.Expr, found: dict) -> None:
    if expr.is_Symbol:
        found.setdefault(expr, None)
        return
    if expr.is_Function or (expr.is_Pow and not expr.exp.is_Integer):
        found.setdefault(expr, None)
        return
    for a in expr.args:
        _generators(a, found)


def is_zero_fraction(expr: sp.Expr) -> bool:
    """True when expr is the zero rational function of its symbols and generators."""
    return fraction_reading(expr) is True


def fraction_reading(expr: sp.Expr) -> bool | None:
    """Whether expr is the zero rational function of its symbols and generators: True or False,
    or None when it cannot be read as one (a float, a constant such as π, a division by the
    zero polynomial)."""
    expr = sp.sympify(expr)
    found: dict = {}
    _generators(expr, found)
    if not found:
        return expr == 0 if expr.is_Rational else None
    fraction = fraction_in(expr, list(found))
    return None if fraction is None else fraction[0].is_zero()
