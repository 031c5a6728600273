"""The oracle 'z3 unsat': a formula of real arithmetic has no solution.

The statement is ``Fact("unsatisfiable", (formula,))``: no real values of the formula's symbols
(within their sympy ranges: a positive symbol is > 0) satisfy the sympy formula (comparisons,
equations, And, Or, Not over +, ×, integer powers, ReLU, max, min, abs).  The oracle translates
the formula exactly (``symbolic.decision.smt``) and runs Z3 itself: ``unsat`` is taken on Z3's
word; a model is only a hint, and the statement is REFUTED only by a rational point at which
sympy evaluates the formula itself to True.
"""
from __future__ import annotations

import sympy as sp

from symbolic.decision.smt import OutsideFragment, Translation, solve

PREDICATE = "unsatisfiable"
SECONDS = 60.0


def unsatisfiable(formula, reading: str = ""):
    """The statement: no real point satisfies ``formula``."""
    from symbolic.kernel import Fact
    return Fact(PREDICATE, (formula,), reading=reading)


def satisfied_at(formula, point: dict) -> bool:
    """Exactly: does the formula hold at the rational point (every symbol given a value)?"""
    return formula.xreplace(point) is sp.true


def decide_unsat(statement, *, seconds: float = SECONDS):
    """Oracle 'z3 unsat' (see the module docstring); ``seconds`` bounds Z3's search."""
    from symbolic.verdict import Holds, Status, Verdict
    if getattr(statement, "predicate", None) != PREDICATE or len(statement.arguments) != 1:
        return Verdict(Status.UNDECIDED, statement.text, reason=f"z3 unsat decides '{PREDICATE}' facts")
    formula = statement.arguments[0]
    if not isinstance(formula, sp.logic.boolalg.Boolean):
        return Verdict(Status.UNDECIDED, statement.text, reason="the formula is not a sympy condition")
    symbols = sorted(formula.free_symbols, key=sp.default_sort_key)
    translation = Translation()
    try:
        goal = translation.condition(formula)
    except OutsideFragment as why:
        return Verdict(Status.UNDECIDED, statement.text, reason=f"outside Z3's fragment: {why}")
    answer = solve(translation, [goal], symbols, seconds)
    if answer.result == "unsat":
        return Holds(("z3 (non-linear real arithmetic) answers unsat: no point satisfies the formula; "
                      "taken on z3's word",), reason="on Z3's word")
    if answer.result == "sat":
        for point in answer.points:
            if satisfied_at(formula, point):
                return Verdict(Status.REFUTED, statement.text, witness=point,
                               reason="a point of the z3 model satisfies the formula, re-evaluated exactly")
        return Verdict(Status.UNDECIDED, statement.text, reason="z3 answers sat, but no rational point re-verified")
    return Verdict(Status.UNDECIDED, statement.text, reason=answer.reason or "z3: unknown")
