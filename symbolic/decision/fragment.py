"""The solvers' fragment: which expressions Z3 and cvc5 can be told exactly, read from sympy alone.

Real arithmetic with rational constants, integer powers, rational powers t^(p/q) (a fresh y ≥ 0
with y^q = t, on the domain t ≥ 0), ReLU, Max, Min, Abs, sign, Heaviside, Piecewise (conditions
made of comparisons, And, Or, Not), floor, ceiling and Mod.  This module imports no solver: a
claim that never reaches a solver does not pay for loading one.
"""
from __future__ import annotations

from dataclasses import dataclass

import sympy as sp
from sympy.functions.elementary.piecewise import ExprCondPair

from symbolic.errors import CheckerError
from symbolic.relu import ReLU


class OutsideFragment(CheckerError):
    """The expression uses a construct that the solvers' real arithmetic does not express exactly."""


MAX_POWER = 64     # a higher power is left to the exact test: Z3 cannot be stopped while it reads it

# constructs that are not continuous: the density arguments of the sign split do not apply
DISCONTINUOUS = (sp.Heaviside, sp.sign, sp.Piecewise, sp.floor, sp.ceiling, sp.Mod)
# constructs translated over the reals only (their integer reading in Z3 differs: Z3's integer
# mod is Euclidean, sympy's Mod takes the sign of the divisor)
REAL_ONLY = (sp.Heaviside, sp.Piecewise, sp.floor, sp.ceiling)

_FUNCTIONS = (ReLU, sp.Max, sp.Min, sp.Abs, sp.sign, sp.Heaviside, sp.floor, sp.ceiling, sp.Mod)
_CONNECTIVES = (sp.And, sp.Or, sp.Not)
_COMPARISONS = (sp.Eq, sp.Ne, sp.Lt, sp.Le, sp.Gt, sp.Ge)
_STRUCTURE = (sp.Piecewise, ExprCondPair) + _COMPARISONS + _CONNECTIVES


def power_exponent(expr: sp.Pow) -> sp.Rational:
    """The exponent of a power the solvers can read: an integer, or p/q with |p|, q ≤ MAX_POWER."""
    exponent = expr.exp
    if not exponent.is_Rational:
        raise OutsideFragment(f"the power {expr} has an exponent that is not a rational number")
    if abs(exponent.p) > MAX_POWER or exponent.q > MAX_POWER:
        raise OutsideFragment(f"the power {expr} is above {MAX_POWER}")
    return exponent


def check_term(expr: sp.Basic, in_branch: bool = False) -> None:
    """Raise OutsideFragment with the reason when expr is not in the fragment.  Inside a
    Piecewise (``in_branch``) no construct may restrict the domain (a division, a root, a Mod,
    a Piecewise without an otherwise branch): the solvers' encodings assert such a restriction
    everywhere, where it holds only where its branch is taken."""
    if expr.is_Symbol or expr.is_Rational or isinstance(expr, sp.Float):
        return
    if expr in (sp.true, sp.false):
        return
    if expr.is_Pow:
        exponent = power_exponent(expr)
        if in_branch and (exponent < 0 or not exponent.is_Integer):
            raise OutsideFragment(f"the power {expr} inside a Piecewise restricts the domain "
                                  "where its branch is taken only")
    elif not (expr.is_Add or expr.is_Mul or isinstance(expr, _FUNCTIONS + _STRUCTURE)):
        raise OutsideFragment(f"{expr.func.__name__} is outside real arithmetic with ReLU, max, "
                              "min, abs, sign, Heaviside, Piecewise, floor, ceiling, Mod and "
                              "rational powers")
    if in_branch and (isinstance(expr, sp.Mod) or
                      (isinstance(expr, sp.Piecewise) and expr.args[-1].cond is not sp.true)):
        raise OutsideFragment(f"{expr} inside a Piecewise restricts the domain where its branch "
                              "is taken only")
    in_branch = in_branch or isinstance(expr, sp.Piecewise)
    for arg in expr.args:
        if isinstance(arg, sp.Basic):
            check_term(arg, in_branch)


def in_fragment(exprs) -> str | None:
    """None when every expression can be given to the solvers, else the reason it cannot."""
    try:
        for expr in exprs:
            check_term(expr)
    except OutsideFragment as why:
        return str(why)
    return None


@dataclass(frozen=True)
class Answer:
    """A solver's answer: 'sat' with candidate points, 'unsat', or 'unknown' with its reason."""

    result: str
    points: tuple = ()
    reason: str = ""
