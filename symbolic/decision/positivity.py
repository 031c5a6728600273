"""Manifest non-negativity: a syntactic certificate, sound and incomplete."""
from __future__ import annotations

import sympy as sp
from sympy.core.function import AppliedUndef

from symbolic.relu import ReLU


def is_manifestly_nonnegative(expr: sp.Expr) -> bool:
    """True when expr is built from non-negative pieces by + and ×: numbers ≥ 0, symbols assumed
    non-negative, even powers of real bases, ReLU of a real argument and Abs.  False means 'no
    certificate', not 'negative'."""
    if expr.is_Number:
        return expr.is_nonnegative is True and expr.is_finite is True
    if expr.is_Symbol:
        return bool(expr.is_nonnegative)
    if isinstance(expr, sp.Abs):
        return True
    if isinstance(expr, ReLU):
        return is_real_where_defined(expr.args[0])
    if expr.is_Pow:
        base, exponent = expr.args
        if exponent.is_integer and exponent.is_even:
            # the square of a real number only: (I*x)**2 and z**2 for an imaginary z are negative
            return is_real_where_defined(base)
        return is_manifestly_nonnegative(base) and exponent.is_real is True
    if expr.is_Add or expr.is_Mul:
        return all(is_manifestly_nonnegative(a) for a in expr.args)
    return False


def is_real_where_defined(expr: sp.Expr) -> bool:
    """True when expr is real at every real value of its symbols where it is defined: built from
    real numbers and symbols not declared non-real by +, ×, integer powers, non-negative bases
    raised to real powers, Abs and ReLU (a plain symbol is a real variable and an undefined
    function a real function, as everywhere in the checker).  False means 'not shown real'."""
    if expr.is_Symbol or isinstance(expr, AppliedUndef):
        return expr.is_real is not False
    if expr.is_number:
        return expr.is_real is True
    if expr.is_Add or expr.is_Mul:
        return all(is_real_where_defined(a) for a in expr.args)
    if expr.is_Pow:
        base, exponent = expr.args
        if exponent.is_integer:
            return is_real_where_defined(base)
        return is_manifestly_nonnegative(base) and exponent.is_real is True
    if isinstance(expr, sp.Abs):
        return True
    if isinstance(expr, ReLU):
        return is_real_where_defined(expr.args[0])
    return expr.is_real is True
