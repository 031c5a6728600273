"""Independent witnesses: exact evaluation at random rational points, and mpmath at high precision.

These never decide PROVED on their own.  They confirm an exact zero test (Schwartz–Zippel style:
a non-zero rational function rarely vanishes at a random point) and they certify REFUTED: a point
where the original expressions differ, re-evaluated at 50 and 100 digits.
"""
from __future__ import annotations

import functools
import math
import operator
import random
from dataclasses import dataclass

import flint
import mpmath
import sympy as sp
from sympy.core.function import AppliedUndef

from symbolic.decision.assumptions import sample_point
from symbolic.decision.quadratic import Quadratic, as_field_point, field_of
from symbolic.errors import CheckerError
from symbolic.relu import ReLU


WITNESS_DPS = 50
CONFIRM_DPS = 100


def evaluated(expr: sp.Expr, _memo: dict | None = None) -> sp.Expr:
    """A copy of expr with every node rebuilt, so evaluated: the form the checker rewrites.

    The parser keeps a claim as written (``x/x`` stays x·x⁻¹); this copy is x/x = 1.  Shared
    sub-expressions are rebuilt once."""
    memo = {} if _memo is None else _memo
    if expr.is_Atom:
        return expr
    if expr not in memo:
        args = [evaluated(a, memo) for a in expr.args]
        # max/min stay as they are: their evaluation compares every pair of arguments, and
        # the checker rewrites them into ReLU anyway
        lattice = isinstance(expr, (sp.Max, sp.Min)) and not all(a.is_number for a in args)
        memo[expr] = expr.func(*args, evaluate=False) if lattice else expr.func(*args)
    return memo[expr]


def random_point(symbols, rng: random.Random, scale: int = 9) -> dict:
    """A random rational point honouring each symbol's sign, integrality and parity facts."""
    return sample_point(symbols, rng, scale)


def concrete_functions(exprs, rng: random.Random) -> dict:
    """A random polynomial for each undefined function, the same on both sides: quadratic, or of
    degree k + 2 where a k-th derivative of the function is taken (so that the derivative is no
    polynomial of lower degree that vanishes by construction).

    A claim about every function ℓ is refuted by one concrete ℓ, and a true claim holds for each.
    """
    applications = [expr.atoms(AppliedUndef) for expr in exprs]
    if not any(applications):
        return {}    # no undefined function (the common case: one walk of each side)
    order = {}
    for expr in exprs:
        for derivative in expr.atoms(sp.Derivative):
            for app in derivative.expr.atoms(AppliedUndef):
                order[app.func] = max(order.get(app.func, 0), int(derivative.derivative_count))
    table = {}
    for found in applications:
        for app in sorted(found, key=sp.default_sort_key):
            if app.func in table:
                continue
            args = sp.symbols(f"p0:{len(app.args)}", real=True)
            degree = 2 + min(order.get(app.func, 0), 6) if len(args) <= 2 else 2
            monomials = sorted(sp.itermonomials(args, degree), key=sp.default_sort_key)
            body = sum(sp.Rational(rng.randint(-9, 9), rng.randint(1, 9)) * m for m in monomials)
            table[app.func] = sp.Lambda(args, body)
    return table


def substitute_functions(expr: sp.Expr, table: dict) -> sp.Expr:
    """expr with each undefined function replaced by its concrete polynomial; derivatives (and
    substitutions) are then carried out, so that a point may be substituted."""
    if table:
        expr = expr.replace(lambda e: isinstance(e, AppliedUndef) and e.func in table,
                            lambda e: table[e.func](*e.args))
    return carried_out(expr)


OPERATORS = (sp.Derivative, sp.Subs)    # the unevaluated operators a point cannot be put into


@functools.lru_cache(maxsize=4096)
def carried_out(expr: sp.Expr) -> sp.Expr:
    """expr with every derivative and substitution carried out (sympy's ``doit`` of those nodes
    alone, innermost first); expr itself where it holds none.  The caller has made sure that each
    one is defined wherever its expression is (``symbolic.decision.identity``)."""
    if not expr.has(*OPERATORS):
        return expr
    return expr.replace(lambda e: isinstance(e, OPERATORS), lambda e: e.doit())


def _relu_mp(s):
    return s if s > 0 else mpmath.mpf(0)


# exp of an argument beyond the limit in absolute value is refused (the point is then undefined):
# such a value means nothing at a witness point, and a function of it makes mpmath allocate a
# mantissa as long as its exponent (exp(exp(exp(x))) or tanh(exp(exp(exp(x)))) at x = 100 took
# gigabytes).  Within the limit every value exp makes has an exponent of at most 1.5 million bits
EXP_ARGUMENT_LIMIT = mpmath.mpf(2) ** 20


def _exp_mp(s):
    if abs(mpmath.mpmathify(s)) > EXP_ARGUMENT_LIMIT:
        raise OverflowError("exp of an argument beyond 2^20 in absolute value")
    return mpmath.exp(s)


def mpmath_function(symbols, expr: sp.Expr):
    """expr as a Python function evaluated by mpmath at its working precision (ReLU as max)."""
    return _mpmath_function(tuple(symbols), sp.sympify(expr))


@functools.lru_cache(maxsize=1024)
def _mpmath_function(symbols: tuple, expr: sp.Expr):
    # one function per expression and symbols: a witness search evaluates it at many points
    # symbols renamed first: lambdify puts every symbol of expr into the function's namespace by
    # its name, where a symbol called e, pi or mpf would shadow mpmath's
    arguments = [sp.Dummy(f"x{k}") for k, _ in enumerate(symbols)]
    # rebuilt from the leaves: a constant kept unevaluated as written (ReLU(-1) inside a max)
    # is a number before the max that holds it is rebuilt
    renamed = substituted(expr, dict(zip(symbols, arguments)))
    if renamed is None:
        return None
    try:
        return sp.lambdify(arguments, renamed, modules=[{"ReLU": _relu_mp, "exp": _exp_mp}, "mpmath"])
    except Exception:  # noqa: BLE001 - whatever the printer raises (a Derivative, a Limit, zoo in
        return None    # a Piecewise's branch): a construct it cannot write has no witness value


def mp_value(expr: sp.Expr, point: dict, dps: int):
    """The value of expr at point, computed by mpmath with dps digits (None where undefined or
    not real: the checker works over the reals, so log(-1) is no value)."""
    function = mpmath_function(point, expr)
    if function is None:
        return None
    with mpmath.workdps(dps):
        args = [mpmath.mpf(int(v.p)) / int(v.q) if v.is_Rational else _mp_number(v, dps)
                for v in point.values()]
        try:
            value = function(*args)
        except (ZeroDivisionError, ValueError, TypeError, OverflowError, NameError):
            return None    # NameError: a construct with no mpmath counterpart
        if not isinstance(value, (mpmath.mpf, mpmath.mpc)):
            try:
                value = mpmath.mpmathify(value)
            except (TypeError, ValueError):
                return None    # not a number: a symbol of expr has no value at the point
        if not mpmath.isfinite(value):
            return None
        if isinstance(value, mpmath.mpc):
            if value.imag != 0:
                return None
            value = value.real
        return value


def _mp_number(value, dps: int):
    """An algebraic coordinate (√2) as an mpmath number, with guard digits."""
    if isinstance(value, sp.Basic):
        return mpmath.mpf(sp.Float(value.evalf(dps + 10), dps + 10)._mpf_)
    return mpmath.mpmathify(value)


class _NotRational(CheckerError):
    """A construct the rational evaluator does not read (sqrt, exp, a Piecewise, ...)."""


class _Undefined(CheckerError):
    """The expression has no value at the point (a division by 0, a Mod by 0)."""


_ZERO, _ONE, _HALF = flint.fmpq(0), flint.fmpq(1), flint.fmpq(1, 2)


def _heaviside(s, at_zero=_HALF):
    return _ONE if s > 0 else _ZERO if s < 0 else at_zero


def _mod(a, b):
    if b == 0:
        raise _Undefined
    return a - b * math.floor(a / b)


# the piecewise-rational constructs, read in exact rational arithmetic (python-flint's fmpq;
# sympy's conventions: Heaviside(0) is its second argument or 1/2, Mod takes the sign of the
# divisor)
_RATIONAL_FUNCTIONS = {
    ReLU: lambda s: s if s > 0 else _ZERO,
    sp.Abs: abs,
    sp.sign: lambda s: _ONE if s > 0 else -_ONE if s < 0 else _ZERO,
    sp.Heaviside: _heaviside,
    sp.Max: lambda *a: max(a), sp.Min: lambda *a: min(a),
    sp.floor: lambda s: flint.fmpq(math.floor(s)), sp.ceiling: lambda s: flint.fmpq(math.ceil(s)),
    sp.Mod: _mod,
}


def _rational(number: sp.Rational):
    return flint.fmpq(int(number.p), int(number.q))


@functools.lru_cache(maxsize=2048)
def _rational_function(expr: sp.Expr):
    """expr as a Python function of a {symbol: fmpq} dict, in exact rational arithmetic (or in a
    quadratic field, for a point of one), or None when expr holds a construct outside it."""
    def build(node):
        if node.is_Symbol:
            return lambda point: point[node]
        if node.is_Rational:
            value = _rational(node)
            return lambda point: value
        if node.is_Add or node.is_Mul:
            parts = [build(a) for a in node.args]
            combine = operator.add if node.is_Add else operator.mul
            first, rest = parts[0], parts[1:]
            return lambda point: functools.reduce(combine, (f(point) for f in rest), first(point))
        if node.is_Pow and node.exp.is_Integer:
            base, exponent = build(node.base), int(node.exp)

            def power(point):
                value = base(point)
                if value == 0 and exponent < 0:
                    raise _Undefined
                return value ** exponent
            return power
        if isinstance(node, sp.Piecewise):
            return _piecewise([(build(e), _condition(c, build)) for e, c in node.args])
        function = _RATIONAL_FUNCTIONS.get(type(node))
        if function is None:
            raise _NotRational
        parts = [build(a) for a in node.args]
        return lambda point: function(*(f(point) for f in parts))
    try:
        return build(expr)
    except _NotRational:
        return None


def _piecewise(pairs):
    """The value of the first branch whose condition holds (no other branch is evaluated);
    undefined where none holds."""
    def value(point):
        for branch, holds in pairs:
            if holds(point):
                return branch(point)
        raise _Undefined
    return value


_COMPARE = {
    sp.StrictGreaterThan: lambda d: d > 0, sp.GreaterThan: lambda d: not d < 0,
    sp.StrictLessThan: lambda d: d < 0, sp.LessThan: lambda d: not d > 0,
    sp.Equality: lambda d: not (d > 0 or d < 0), sp.Unequality: lambda d: d > 0 or d < 0,
}


def _condition(condition, build):
    """A Piecewise condition as a Python predicate of the point: comparisons of two expressions
    (by the sign of their difference), And, Or, Not, true and false."""
    if condition is sp.true or condition is sp.false:
        truth = condition is sp.true
        return lambda point: truth
    compare = _COMPARE.get(type(condition))
    if compare is not None:
        left, right = (build(a) for a in condition.args)
        return lambda point: compare(left(point) - right(point))
    parts = [_condition(a, build) for a in condition.args]
    if isinstance(condition, sp.And):
        return lambda point: all(p(point) for p in parts)
    if isinstance(condition, sp.Or):
        return lambda point: any(p(point) for p in parts)
    if isinstance(condition, sp.Not):
        return lambda point: not parts[0](point)
    raise _NotRational


def field_value(expr: sp.Expr, point: dict):
    """expr at a point of a quadratic field (one coordinate or more a + b·√d, one d, the others
    rational), in exact arithmetic (``symbolic.decision.quadratic``): a Quadratic or an
    fmpq; ``UNDEFINED`` where expr has no value there; None where expr holds a construct
    outside the piecewise-rational ones or the point is no such point."""
    d = field_of(point.values())
    function = _rational_function(expr) if d not in (None, 1) else None
    if function is None:
        return None
    try:
        return function(as_field_point(point, d))
    except (_Undefined, ZeroDivisionError):
        return UNDEFINED
    except KeyError:
        return None    # a symbol without a value at the point


UNDEFINED = object()    # the value of an expression at a point where it is undefined


def exact_value(expr: sp.Expr, point: dict):
    """expr at a rational point: an exact Rational where sympy can evaluate it, else None.  The
    arithmetic left unevaluated as written (10^-64·10^-64) is carried out exactly: in Python's
    exact fractions for the piecewise-rational constructs, else by sympy's own evaluation.  At a
    point of a quadratic field the value is computed there exactly (``field_value``): None when
    it is irrational or undefined, as sympy's evaluation gives."""
    expr = sp.sympify(expr)
    if not all(v.is_Rational for v in point.values()):
        value = field_value(expr, point)
        if value is UNDEFINED:
            return None
        if isinstance(value, Quadratic):
            value = value.a if value.b == 0 else None
        if isinstance(value, flint.fmpq):
            return sp.Rational(int(value.p), int(value.q))
    if all(v.is_Rational for v in point.values()):
        function = _rational_function(expr)
        if function is not None:
            try:
                value = function({s: _rational(v) for s, v in point.items()})
            except _Undefined:
                return None
            except KeyError:
                pass     # a symbol without a value at the point: sympy's substitution below
            else:
                return sp.Rational(int(value.p), int(value.q))
    value = substituted(expr, point)
    if value is None or value.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
        return None
    return value if value.is_Rational else None


def substituted(expr: sp.Expr, point: dict):
    """expr at point, every node rebuilt from its leaves up, so evaluated by sympy's own
    arithmetic (a constant left unevaluated as written, such as ReLU(0) inside a max, is then a
    number before the max compares it); None where sympy cannot build a value."""
    memo: dict = {}

    def build(node):
        if node in point:
            return point[node]
        if node.is_Atom or not isinstance(node, sp.Basic):
            return node
        if node not in memo:
            args = [build(a) if isinstance(a, sp.Basic) else a for a in node.args]
            if isinstance(node, (sp.Max, sp.Min)) and all(a.is_Rational for a in args):
                # numbers compared directly (sympy's Max sorts and collapses its arguments)
                memo[node] = (max if isinstance(node, sp.Max) else min)(args)
            elif isinstance(node, ReLU) and args[0].is_number and args[0].is_extended_real:
                # ReLU of a real number whose sign sympy knows (√2 − 1 included)
                positive = args[0].is_positive
                memo[node] = node.func(*args) if positive is None else \
                    (args[0] if positive else sp.S.Zero)
            else:
                memo[node] = node.func(*args)
        return memo[node]
    try:
        return build(sp.sympify(expr))
    except (ValueError, TypeError, ZeroDivisionError, AttributeError):
        return None


def algebraic_value(expr: sp.Expr, point: dict):
    """expr at a point with algebraic coordinates (√2), as an exact algebraic number built of
    rationals, radicals and roots of polynomials, or None (a function left unevaluated, a
    transcendental value, no real value)."""
    value = substituted(expr, point)
    if value is None or not value.is_number or value.has(sp.zoo, sp.nan, sp.oo, -sp.oo, sp.I):
        return None
    if any(not (a.is_Add or a.is_Mul or a.is_Pow or a.is_Rational or isinstance(a, sp.CRootOf))
           for a in sp.preorder_traversal(value) if isinstance(a, sp.Expr)):
        return None
    if any(p.is_Pow and not p.exp.is_Rational for p in value.atoms(sp.Pow)):
        return None
    return value


def exactly_zero(number: sp.Expr) -> bool | None:
    """Is the algebraic number 0?  Decided by its minimal polynomial over the rationals (the
    polynomial is X exactly when the number is 0); None when sympy cannot compute it."""
    if number.is_Rational:
        return number == 0
    try:
        return sp.minimal_polynomial(number, sp.Dummy("X")).is_Symbol
    except (NotImplementedError, ValueError, TypeError, sp.polys.polyerrors.PolynomialError):
        return None


@dataclass(frozen=True)
class Separation:
    """How two expressions compare at one point."""

    defined: bool
    differ: bool
    residual: float  # |lhs - rhs| at WITNESS_DPS digits
    exact: bool      # decided by exact rational arithmetic


def compare_at(lhs: sp.Expr, rhs: sp.Expr, point: dict) -> Separation:
    """Compare lhs and rhs at point: exactly where possible, else at 50 and 100 digits."""
    lhs, rhs = sp.sympify(lhs), sp.sympify(rhs)
    left, right = exact_value(lhs, point), exact_value(rhs, point)
    if left is not None and right is not None:
        return Separation(True, left != right, float(abs(left - right)), True)
    if any(not v.is_Rational for v in point.values()):
        # a point of a quadratic field: both sides in its exact arithmetic
        left, right = field_value(lhs, point), field_value(rhs, point)
        if left is UNDEFINED or right is UNDEFINED:
            return Separation(False, False, float("nan"), False)
        if None not in (left, right):
            return Separation(True, left != right, abs(float(left - right)), True)
        # an algebraic point: both sides as algebraic numbers, their difference tested exactly
        left, right = algebraic_value(lhs, point), algebraic_value(rhs, point)
        zero = exactly_zero(evaluated(left - right)) if None not in (left, right) else None
        if zero is not None:
            return Separation(True, not zero, float(abs(sp.N(left - right, 20))), True)
    low = [mp_value(e, point, WITNESS_DPS) for e in (lhs, rhs)]
    high = [mp_value(e, point, CONFIRM_DPS) for e in (lhs, rhs)]
    if None in low or None in high:
        return Separation(False, False, float("nan"), False)
    with mpmath.workdps(CONFIRM_DPS):
        diff_low, diff_high = abs(low[0] - low[1]), abs(high[0] - high[1])
        # a real difference is stable under a change of precision; rounding noise is not
        scale = 1 + abs(low[0]) + abs(low[1])
        differ = diff_low > mpmath.mpf(10) ** (-WITNESS_DPS // 2) * scale and \
            abs(diff_low - diff_high) < mpmath.mpf(10) ** (-WITNESS_DPS // 2) * diff_low
    # a cancellation can lose a term at both precisions alike ((√x + 2³⁵⁰)(√x − 2³⁵⁰) + 2⁷⁰⁰):
    # the difference must also be told from 0 by sympy's evaluation, which raises its working
    # precision until the result has the digits asked for, and gives up on a zero
    return Separation(True, bool(differ) and _nonzero_by_adaptive_precision(lhs - rhs, point),
                      float(diff_low), False)


def _nonzero_by_adaptive_precision(difference: sp.Expr, point: dict) -> bool:
    """The difference at the exact point is a number told apart from 0 by ``evalf(strict=True)``."""
    try:
        value = difference.xreplace(point).evalf(15, strict=True)
    except (sp.core.evalf.PrecisionExhausted, ValueError, TypeError, ZeroDivisionError, OverflowError):
        return False
    return value.is_number and value.is_extended_real is True and value != 0
