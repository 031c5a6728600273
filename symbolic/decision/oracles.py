"""The oracles the kernel runs on a statement (``symbolic.kernel.oracles``) for the exact tests of
this package: each reads the statement, runs its test, and answers Holds or a verdict that is no
proof."""
from __future__ import annotations

import sympy as sp

from symbolic.decision.assumptions import unsupported_fact_in
from symbolic.decision.domain import WrittenDomain
from symbolic.decision.positivity import is_manifestly_nonnegative
from symbolic.decision.zero import is_rational_zero
from symbolic.kernel.verdict import Holds, Status, Verdict

# the sympy fact of lhs - rhs that each relation needs
_SIGN_FACTS = {">": "is_positive", ">=": "is_nonnegative", "<": "is_negative", "<=": "is_nonpositive",
               "!=": "is_nonzero"}


def _fact(expr, name: str):
    """sympy's answer to ``expr.<name>``: True, False, or None when it cannot tell -- or when its
    assumption system fails on the expression (it can on 0/0 written unevaluated)."""
    try:
        return getattr(expr, name)
    except (KeyError, ValueError, TypeError):
        return None


def decide_zero(statement):
    """Oracle 'exact zero test': lhs - rhs of an Equation is 0 as a rational function."""
    difference = sp.sympify(statement.lhs) - sp.sympify(statement.rhs)
    if is_rational_zero(difference):
        return Holds(("exact zero test: lhs - rhs is 0 as a rational function",))
    return Verdict(Status.UNDECIDED, statement.text, reason="lhs - rhs is not an exact zero")


def _exact_value(expr):
    # a float is no exact rational: 0.1 + 0.2 is not 0.3, and no rounding may make it one
    if isinstance(expr, float):
        return None
    value = sp.sympify(expr)
    return value if value.is_Rational else None


_COMPARE = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
            ">=": lambda a, b: a >= b, "!=": lambda a, b: a != b, "=": lambda a, b: a == b}


def decide_rational_relation(statement):
    """Oracle 'exact rational comparison': both sides of an Equation or Relation are exact
    rationals (no symbol, no float), compared exactly."""
    lhs, rhs = (_exact_value(side) for side in (statement.lhs, statement.rhs))
    relation = getattr(statement, "relation", "=")
    if lhs is None or rhs is None:
        return Verdict(Status.UNDECIDED, statement.text, reason="a side is not an exact rational")
    if _COMPARE[relation](lhs, rhs):
        return Holds((f"exact rationals compared: {lhs} {relation} {rhs}",))
    return Verdict(Status.UNDECIDED, statement.text, reason=f"exact rationals compared: not {lhs} {relation} {rhs}")


def decide_by_assumptions(statement):
    """Oracle 'sympy assumptions': lhs R rhs (R one of >, >=, <, <=, !=) read from sympy's
    assumptions on the symbols, on the claim as written: every symbol carries honoured facts
    only, each side is a finite real number as written, and only then is lhs - rhs formed (its
    cancellation, w + 1 - w = 1, is arithmetic of finite reals) and its sign read."""
    relation = getattr(statement, "relation", None)
    if relation not in _SIGN_FACTS:
        return Verdict(Status.UNDECIDED, statement.text, reason="sympy assumptions decides a relation <, <=, >, >=, !=")
    lhs, rhs = sp.sympify(statement.lhs), sp.sympify(statement.rhs)
    # only the sign, integer, parity and rationality facts: sympy mis-reads others (r irrational
    # makes r**2 irrational for it, so r**2 - 2 != 0, false at r = sqrt(2)), and an extended-real
    # symbol may be infinite
    fact = unsupported_fact_in(lhs, rhs)
    if fact is not None:
        return Verdict(Status.UNDECIDED, statement.text, reason=f"a symbol carries the fact {fact}, "
                       "which this oracle does not read")
    # each side a finite real number as written, before any cancellation
    empty = WrittenDomain(lhs, rhs).empty_reason()
    if empty is not None:
        return Verdict(Status.UNDECIDED, statement.text, reason=empty)
    if not all(_fact(side, "is_real") is True for side in (lhs, rhs)):
        return Verdict(Status.UNDECIDED, statement.text, reason="a side is not shown a finite real number as written")
    # the sign of the difference of two finite reals, as sympy's assumptions give it
    if _fact(lhs - rhs, _SIGN_FACTS[relation]) is True:
        return Holds((f"sympy's assumptions give {statement.text}",))
    return Verdict(Status.UNDECIDED, statement.text, reason="sympy's assumptions do not settle the sign")


def decide_exact_evaluation(statement):
    """Oracle 'exact evaluation': an Equation or Relation whose sides have no free symbol, each a
    real number defined as written (no division by 0, no root of a negative number), their
    difference evaluated exactly (sympy's exact arithmetic, an algebraic number's sign by its
    adaptive-precision evaluation).  What sympy cannot settle (a sign or a zero it answers None
    for) is not read as either answer."""
    lhs, rhs = sp.sympify(statement.lhs), sp.sympify(statement.rhs)
    if lhs.free_symbols or rhs.free_symbols or lhs.has(sp.Float) or rhs.has(sp.Float):
        return Verdict(Status.UNDECIDED, statement.text, reason="a side is not an exact number")
    # each side a real number as written: 1/0, 0/0 and oo are none
    if not (WrittenDomain(lhs, rhs).admits({}) and all(_fact(side, "is_real") is True for side in (lhs, rhs))):
        return Verdict(Status.UNDECIDED, statement.text, reason="a side is not a real number as written")
    relation = getattr(statement, "relation", "=")
    holds = _fact(lhs - rhs, {"=": "is_zero", **_SIGN_FACTS}[relation])
    # only a definite True proves: None is 'sympy cannot tell', never an answer
    if holds is True:
        return Holds(("both sides evaluated exactly",))
    return Verdict(Status.UNDECIDED, statement.text, reason="exact evaluation does not give the relation")


def decide_nonnegative(statement):
    """Oracle 'manifest sign test': a Relation lhs >= rhs with lhs - rhs manifestly >= 0."""
    if getattr(statement, "relation", None) != ">=":
        return Verdict(Status.UNDECIDED, statement.text, reason="the manifest sign test decides lhs >= rhs only")
    unread = unsupported_fact_in(statement.lhs, statement.rhs)
    if unread is not None:
        return Verdict(Status.UNDECIDED, statement.text, reason=f"the fact {unread} of a symbol is not one "
                       "this test reads")
    if is_manifestly_nonnegative(sp.sympify(statement.lhs) - sp.sympify(statement.rhs)):
        return Holds(("manifest sign test: lhs - rhs is a sum of non-negative terms",))
    return Verdict(Status.UNDECIDED, statement.text, reason="lhs - rhs is not manifestly >= 0")
