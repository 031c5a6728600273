"""The max-plus normal form: a convex piecewise-linear side as the maximum of a set of affine forms.

An expression built from affine forms of the symbols (rational coefficients) by sums, rational
multiples, Max, Min, ReLU and Abs is, where the construction allows it, the maximum of a finite
set F of affine forms (a convex function) or the minimum of one (a concave function):

    ReLU(a) = max(a, 0),  Abs(a) = max(a, −a) for an affine a,
    max F + max G = max {f + g : f ∈ F, g ∈ G},   c·max F = max cF for c > 0, = min cF for c < 0,
    max(max F, max G) = max (F ∪ G),   an affine form being both the max and the min of {itself}.

A sum of a max and a min, or a Max of a min, has no such form and is not read.  Of forms with
the same linear part only the one with the largest constant (for a max; the smallest for a min)
can be attained, so the others are dropped.  Two sides whose forms are the same set, of the same
kind, are the same function at every point: an exact test, with no solver.  Sets that differ say
nothing (a redundant form may be hidden in one of them).
"""
from __future__ import annotations

from fractions import Fraction

import sympy as sp

from symbolic.errors import CheckerError
from symbolic.relu import ReLU

MAX_FORMS = 256    # a side with more forms than this is not read

_AFFINE, _MAX, _MIN = "affine", "max", "min"


class _Unreadable(CheckerError):
    """The side has no max-plus normal form."""


def normal_form(expr: sp.Expr):
    """(kind, frozenset of forms) with kind "max" or "min" (an affine side is read as "max"),
    or None where the side has no such form.  A form is a frozenset of (symbol or 1, coefficient)
    with non-zero coefficients."""
    try:
        kind, forms = _read(expr)
    except _Unreadable:
        return None
    kind = _MAX if kind == _AFFINE else kind
    return kind, frozenset(_pruned(forms, kind))


def _read(expr):
    if expr.is_Rational:
        return _AFFINE, {_form({1: Fraction(expr.p, expr.q)})}
    if expr.is_Symbol:
        return _AFFINE, {_form({expr: Fraction(1)})}
    if expr.is_Add:
        kind, forms = _AFFINE, {_form({})}
        for term in expr.args:
            term_kind, term_forms = _read(term)
            kind = _joined(kind, term_kind)
            forms = {_plus(f, g) for f in forms for g in term_forms}
            if len(forms) > MAX_FORMS:
                raise _Unreadable
        return kind, forms
    if expr.is_Mul:
        coefficient, rest = expr.as_coeff_Mul()
        if not coefficient.is_Rational or coefficient == 0 or rest.is_Mul:
            raise _Unreadable
        kind, forms = _read(rest)
        scale = Fraction(coefficient.p, coefficient.q)
        if scale < 0 and kind != _AFFINE:
            kind = _MIN if kind == _MAX else _MAX
        return kind, {_times(f, scale) for f in forms}
    if isinstance(expr, (sp.Max, sp.Min, ReLU)):
        wanted = _MIN if isinstance(expr, sp.Min) else _MAX
        arguments = list(expr.args) + ([sp.S.Zero] if isinstance(expr, ReLU) else [])
        forms = set()
        for argument in arguments:
            kind, argument_forms = _read(argument)
            if kind not in (_AFFINE, wanted):
                raise _Unreadable
            forms |= argument_forms
        if len(forms) > MAX_FORMS:
            raise _Unreadable
        return wanted, forms
    if isinstance(expr, sp.Abs):
        kind, forms = _read(expr.args[0])
        if kind != _AFFINE:
            raise _Unreadable
        (form,) = forms
        return _MAX, {form, _times(form, Fraction(-1))}
    raise _Unreadable


def _joined(kind, other):
    if kind == _AFFINE:
        return other
    if other in (_AFFINE, kind):
        return kind
    raise _Unreadable    # a max plus a min: neither convex nor concave in general


def _form(coefficients: dict) -> frozenset:
    return frozenset((k, v) for k, v in coefficients.items() if v != 0)


def _plus(f: frozenset, g: frozenset) -> frozenset:
    total = dict(f)
    for k, v in g:
        total[k] = total.get(k, 0) + v
    return _form(total)


def _times(f: frozenset, scale: Fraction) -> frozenset:
    return _form({k: v * scale for k, v in f})


def _pruned(forms, kind) -> set:
    """Of the forms with one linear part, the one that can be attained: the largest constant in
    a max, the smallest in a min."""
    best = {}
    for f in forms:
        constant = dict(f).get(1, Fraction(0))
        linear = frozenset((k, v) for k, v in f if k != 1)
        kept = best.get(linear)
        if kept is None or (constant > kept if kind == _MAX else constant < kept):
            best[linear] = constant
    return {_form(dict(linear) | {1: constant}) for linear, constant in best.items()}


def separating_points(left, right, symbols, scale: int = 1000, most: int = 8) -> list[dict]:
    """Candidate counterexamples where two normal forms of the same kind differ: for a form of
    one side that the other lacks, the point where one of its symbols stands at ±scale (the sign
    that raises the form in a max, lowers it in a min) and every other symbol at 0, where that
    form tends to be the one attained.  Only candidates: each is re-verified by the caller."""
    if left is None or right is None or left[0] != right[0]:
        return []
    upward = 1 if left[0] == _MAX else -1
    points = []
    for form in sorted(left[1] ^ right[1], key=str):
        for symbol, coefficient in sorted(((k, v) for k, v in form if k != 1), key=str)[:2]:
            value = sp.Integer(scale if coefficient * upward > 0 else -scale)
            point = {s: sp.S.Zero for s in symbols} | {symbol: value}
            if point not in points:
                points.append(point)
            if len(points) >= most:
                return points
    return points
