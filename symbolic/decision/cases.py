"""The cases of a piecewise construct: on which region ReLU, sign, Heaviside and Piecewise take which value.

A construct a of the sign split has finitely many cases (constraints, value): at every point
that satisfies a case's constraints, a equals the case's value, and every point where a is
defined satisfies the constraints of some case.  Constraints read as in
``symbolic.decision.regions``: an expression c stands for c > 0, ``sp.GreaterThan(c, 0)`` for
c ≥ 0.

- ReLU(s): {s ≥ 0} with value s and {s < 0} with value 0 (the open split, for continuous
  claims only: {s > 0} and {s < 0}, the kink left out).
- sign(s): {s > 0} → 1, {s = 0} (s ≥ 0 and −s ≥ 0) → 0, {s < 0} → −1.
- Heaviside(s, h): {s > 0} → 1, {s = 0} → h, {s < 0} → 0.
- Piecewise((e_1, c_1), …, (e_n, True)): the k-th case holds where c_k holds and no earlier
  c_j does; each condition is read into a disjunction of conjunctions of comparisons (And, Or,
  Not, Eq, Ne, <, ≤, >, ≥), and each conjunction is a case with value e_k.  A Piecewise without
  an otherwise branch is not split (where no condition holds it is undefined, and a construct
  around it may still be defined there).

The discontinuous constructs are split only in the closed split, whose cases cover every point.
Over the integers (an expression integral at every point of the claim) s > 0 is s − 1 ≥ 0 and
s < 0 is −s − 1 ≥ 0, which a linear certificate can use.
"""
from __future__ import annotations

import itertools

import sympy as sp

from symbolic.relu import ReLU

MAX_CONJUNCTIONS = 16    # a condition read into more conjunctions than this is not split on

_DISCONTINUOUS_CASES = (sp.sign, sp.Heaviside, sp.Piecewise)


def negative_side(argument: sp.Expr, closed: bool):
    """The constraint of the branch where ReLU(argument) is 0: argument < 0, and over the
    integers (closed split, an argument integral at every point of the claim) argument ≤ −1,
    which a linear certificate can use: the integer sign split."""
    return positive_side(-argument, closed)


def positive_side(argument: sp.Expr, closed: bool):
    """argument > 0, and over the integers (closed split) argument − 1 ≥ 0."""
    if closed and integer_valued(argument):
        return sp.GreaterThan(sp.expand(argument - 1), 0, evaluate=False)
    return argument


def integer_valued(expr: sp.Expr) -> bool:
    """expr is an integer at every point: read off its structure (integers, integer symbols,
    floor and ceiling, by sums, products and non-negative integer powers) where that settles it,
    else sympy's own ``is_integer``.  A real symbol or a fraction anywhere in a sum or product
    answers False, the safe answer: the split's negative side is then s < 0, which holds for
    every s, integer or not."""
    if expr.is_Integer or isinstance(expr, (sp.floor, sp.ceiling)):
        return True
    if expr.is_Symbol:
        return expr.is_integer is True
    if expr.is_Add or expr.is_Mul:
        return all(integer_valued(a) for a in expr.args)
    if expr.is_Pow and expr.exp.is_Integer and expr.exp >= 0:
        return integer_valued(expr.base)
    if expr.is_Pow:
        return False    # a negative or fractional power: no integer at some point
    return expr.is_integer is True


def split_atoms(expr: sp.Expr, closed: bool) -> list:
    """The constructs of expr the split cases on, innermost first (no other construct inside
    their arguments or conditions), in a fixed order: ReLU always, and in the closed split sign,
    Heaviside and Piecewise too, where their cases can be read."""
    kinds = (ReLU, *_DISCONTINUOUS_CASES) if closed else (ReLU,)
    innermost = [a for a in expr.atoms(*kinds)
                 if not any(argument.has(*kinds) for argument in a.args) and
                 (isinstance(a, ReLU) or cases(a, closed) is not None)]
    return sorted(innermost, key=sp.default_sort_key)


def cases(atom, closed: bool) -> list[tuple[list, sp.Expr]] | None:
    """The cases (constraints, value) of one construct, or None where they cannot be read."""
    if isinstance(atom, ReLU):
        argument = atom.args[0]
        positive = sp.GreaterThan(argument, 0, evaluate=False) if closed else argument
        return [([positive], argument), ([negative_side(argument, closed)], sp.S.Zero)]
    if not closed:
        return None
    if isinstance(atom, (sp.sign, sp.Heaviside)):
        argument = atom.args[0]
        at_zero = sp.S.Zero if isinstance(atom, sp.sign) else atom.func(0, *atom.args[1:])
        if not at_zero.is_Rational:
            return None    # Heaviside(0) left undefined: no value on the case s = 0
        below = -sp.S.One if isinstance(atom, sp.sign) else sp.S.Zero
        return [([positive_side(argument, closed)], sp.S.One), (_equal(argument), at_zero),
                ([positive_side(-argument, closed)], below)]
    if isinstance(atom, sp.Piecewise):
        return _piecewise_cases(atom, closed)
    return None


def _piecewise_cases(atom: sp.Piecewise, closed: bool):
    if atom.args[-1].cond is not sp.true:
        return None
    found, none_earlier = [], [[]]    # the conjunctions where no earlier condition holds
    for value, condition in atom.args:
        holds = _disjunction(condition, closed)
        fails = _disjunction(sp.Not(condition), closed) if condition is not sp.true else []
        if holds is None or fails is None:
            return None
        here = _and(none_earlier, holds)
        none_earlier = _and(none_earlier, fails)
        if here is None or none_earlier is None:
            return None
        found += [(conjunction, value) for conjunction in here]
    return found


def _equal(argument: sp.Expr) -> list:
    return [sp.GreaterThan(argument, 0, evaluate=False),
            sp.GreaterThan(sp.expand(-argument), 0, evaluate=False)]


def _and(left, right):
    """Conjunction of two disjunctions of conjunctions, or None past MAX_CONJUNCTIONS."""
    if left is None or right is None or len(left) * len(right) > MAX_CONJUNCTIONS:
        return None
    return [a + b for a, b in itertools.product(left, right)]


def _disjunction(condition, closed: bool):
    """The condition as a list of conjunctions (lists of constraints) whose union is exactly
    where it holds; None for a condition that is not made of comparisons of real expressions
    with And, Or and Not."""
    if condition is sp.true:
        return [[]]
    if condition is sp.false:
        return []
    if isinstance(condition, sp.Not):
        inner = condition.args[0]
        if isinstance(inner, sp.Not):
            return _disjunction(inner.args[0], closed)
        if isinstance(inner, (sp.And, sp.Or)):    # De Morgan (Not of a comparison is built as
            flipped = sp.Or if isinstance(inner, sp.And) else sp.And    # the negated comparison)
            return _disjunction(flipped(*(sp.Not(a) for a in inner.args), evaluate=False), closed)
        return None
    if isinstance(condition, sp.Or):
        found = []
        for argument in condition.args:
            part = _disjunction(argument, closed)
            if part is None or len(found) + len(part) > MAX_CONJUNCTIONS:
                return None
            found += part
        return found
    if isinstance(condition, sp.And):
        found = [[]]
        for argument in condition.args:
            found = _and(found, _disjunction(argument, closed))
            if found is None:
                return None
        return found
    return _comparison(condition, closed)


def _comparison(condition, closed: bool):
    if not isinstance(condition, sp.core.relational.Relational):
        return None
    left, right = condition.args
    if not (isinstance(left, sp.Expr) and isinstance(right, sp.Expr)):
        return None
    difference = sp.expand(left - right)
    if isinstance(condition, sp.StrictGreaterThan):
        return [[positive_side(difference, closed)]]
    if isinstance(condition, sp.StrictLessThan):
        return [[positive_side(-difference, closed)]]
    if isinstance(condition, sp.GreaterThan):
        return [[sp.GreaterThan(difference, 0, evaluate=False)]]
    if isinstance(condition, sp.LessThan):
        return [[sp.GreaterThan(-difference, 0, evaluate=False)]]
    if isinstance(condition, sp.Equality):
        return [_equal(difference)]
    if isinstance(condition, sp.Unequality):
        return [[positive_side(difference, closed)], [positive_side(-difference, closed)]]
    return None
