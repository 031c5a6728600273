"""Manifest non-negativity: a syntactic certificate, sound and incomplete."""
from __future__ import annotations

import sympy as sp

from symbolic.relu import ReLU


def is_manifestly_nonnegative(expr: sp.Expr) -> bool:
    """True when expr is built from non-negative pieces by + and ×: numbers ≥ 0, symbols assumed
    non-negative, even powers, ReLU and Abs.  False means 'no certificate', not 'negative'."""
    if expr.is_Number:
        return bool(expr >= 0)
    if expr.is_Symbol:
        return bool(expr.is_nonnegative)
    if isinstance(expr, (ReLU, sp.Abs)):
        return True
    if expr.is_Pow:
        base, exponent = expr.args
        if exponent.is_integer and exponent.is_even:
            return True
        return is_manifestly_nonnegative(base) and exponent.is_real is True
    if expr.is_Add or expr.is_Mul:
        return all(is_manifestly_nonnegative(a) for a in expr.args)
    return False

