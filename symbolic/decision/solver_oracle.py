"""The oracle 'z3 unsat': a formula of real arithmetic has no solution.

The statement is ``Fact("unsatisfiable", (formula,))``: no real values of the formula's symbols
(within their sympy ranges: a positive symbol is > 0) satisfy the sympy formula (comparisons,
equations, And, Or, Not over +, ×, integer and rational powers, ReLU, max, min, abs, sign,
Heaviside, Piecewise, floor, ceiling, Mod).

A comparison is read only where its terms are defined (``symbolic.decision.domain``): at a point
where a side divides by 0, takes a root of a negative number or a Mod by 0, the comparison is
neither true nor false, and the connectives read it as Kleene's strong three-valued logic does
(And is true when every part is, Or when one part is, Not swaps true and false).  So the domain
of a term is asserted only inside the comparison that evaluates it, never over the whole
formula: x = 0 ∨ (x = 0 ∧ 1/x² > 1) holds at x = 0.  Inside a Piecewise's branch no term may
restrict the domain (``fragment.check_term``), since it is evaluated only where its branch is.

The oracle translates the formula exactly (``symbolic.decision.smt``) and runs Z3 itself:
``unsat`` is taken on Z3's word; a model is only a hint, and the statement is REFUTED only by a
rational point within the symbols' ranges at which the formula, evaluated exactly by sympy in
the reading above, is true.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import sympy as sp
import z3

from symbolic.decision.assumptions import point_in_ranges
from symbolic.decision.domain import WrittenDomain
from symbolic.decision.fragment import check_term
from symbolic.decision.smt import OutsideFragment, Translation, solve
from symbolic.logic.statements import Fact
from symbolic.kernel.verdict import Holds, Status, Verdict

PREDICATE = "unsatisfiable"
SECONDS = 60.0

# each comparison, and the one that holds exactly where it fails (on the domain of its sides)
_COMPARISONS = {sp.Eq: (lambda a, b: a == b, lambda a, b: a != b),
                sp.Ne: (lambda a, b: a != b, lambda a, b: a == b),
                sp.Lt: (lambda a, b: a < b, lambda a, b: a >= b),
                sp.Le: (lambda a, b: a <= b, lambda a, b: a > b),
                sp.Gt: (lambda a, b: a > b, lambda a, b: a <= b),
                sp.Ge: (lambda a, b: a >= b, lambda a, b: a < b)}


def unsatisfiable(formula, reading: str = ""):
    """The statement: no real point satisfies ``formula``."""
    return Fact(PREDICATE, (formula,), reading=reading)


def satisfied_at(formula, point: dict) -> bool:
    """Exactly: does the formula hold at the rational point (every symbol given a value), each
    comparison read only where its sides are defined?"""
    return _truth(formula, {symbol: sp.sympify(value) for symbol, value in point.items()}) is True


def _truth(formula, point: dict):
    """True, False, or None (undefined) at the point: Kleene's strong three-valued reading."""
    if formula is sp.true or formula is sp.false:
        return formula is sp.true
    if isinstance(formula, sp.Not):
        inner = _truth(formula.args[0], point)
        return None if inner is None else not inner
    if isinstance(formula, (sp.And, sp.Or)):
        parts = [_truth(part, point) for part in formula.args]
        decisive = isinstance(formula, sp.Or)     # one true part decides an Or, one false part an And
        if decisive in parts:
            return decisive
        return None if None in parts else not decisive
    if isinstance(formula, tuple(_COMPARISONS)):
        return _comparison_truth(formula, point)
    return None


def _comparison_truth(comparison, point: dict):
    """The comparison at the point, or None where a side as written is undefined there."""
    if not WrittenDomain(comparison.lhs, comparison.rhs).admits(point):
        return None
    try:
        sides = [side.xreplace(point) for side in (comparison.lhs, comparison.rhs)]
        if not all(side.is_real is True for side in sides):
            return None
        value = comparison.func(*sides)
    except (TypeError, ValueError, ZeroDivisionError):
        return None
    return bool(value) if value in (sp.true, sp.false) else None


@dataclass
class _ComparisonwiseTranslation(Translation):
    """The exact translation, with the symbols' ranges kept apart from the domain constraints
    that translating a term adds (a denominator ≠ 0, a radicand ≥ 0, a Mod's divisor ≠ 0): the
    ranges hold at every point, the domain of a term only inside the comparison it stands in."""

    ranges: list = field(default_factory=list)

    def variable(self, symbol: sp.Symbol):
        if symbol not in self.variables:
            start = len(self.constraints)
            super().variable(symbol)
            # a new symbol's range: moved to the constraints of every point
            self.ranges += self.constraints[start:]
            del self.constraints[start:]
        return self.variables[symbol][0]

    def formula(self, condition, negated: bool = False):
        """The Z3 formula of a condition in negation normal form (a Not pushed to the
        comparisons, each of which then holds only on the domain of its sides)."""
        if condition is sp.true or condition is sp.false:
            return z3.BoolVal((condition is sp.true) != negated)
        if isinstance(condition, sp.Not):
            return self.formula(condition.args[0], not negated)
        if isinstance(condition, (sp.And, sp.Or)):
            parts = [self.formula(part, negated) for part in condition.args]
            return z3.And(parts) if isinstance(condition, sp.And) != negated else z3.Or(parts)
        kind = next((k for k in _COMPARISONS if isinstance(condition, k)), None)
        if kind is None:
            raise OutsideFragment(f"the condition {condition} is outside comparisons, And, Or and Not")
        return self.comparison(condition, _COMPARISONS[kind][negated])

    def comparison(self, comparison, compare):
        """compare(lhs, rhs) where both sides are defined: the domain constraints met while
        translating the sides (afresh, so none is left with an earlier comparison) join it."""
        for side in (comparison.lhs, comparison.rhs):
            check_term(side)
        self.terms.clear()
        start = len(self.constraints)
        holds = compare(*(self._real(self.term(side)) for side in (comparison.lhs, comparison.rhs)))
        domain = self.constraints[start:]
        return z3.And(*domain, holds) if domain else holds


def decide_unsat(statement, *, seconds: float = SECONDS):
    """Oracle 'z3 unsat' (see the module docstring); ``seconds`` bounds Z3's search."""
    if getattr(statement, "predicate", None) != PREDICATE or len(statement.arguments) != 1:
        return Verdict(Status.UNDECIDED, statement.text, reason=f"z3 unsat decides '{PREDICATE}' facts")
    formula = statement.arguments[0]
    if not isinstance(formula, sp.logic.boolalg.Boolean):
        return Verdict(Status.UNDECIDED, statement.text, reason="the formula is not a sympy condition")
    symbols = sorted(formula.free_symbols, key=sp.default_sort_key)
    translation = _ComparisonwiseTranslation()
    try:
        goal = translation.formula(formula)
    except OutsideFragment as why:
        return Verdict(Status.UNDECIDED, statement.text, reason=f"outside Z3's fragment: {why}")
    # the domain constraints live inside their comparisons: only the ranges hold everywhere
    translation.constraints = translation.ranges
    answer = solve(translation, [goal], symbols, seconds)
    if answer.result == "unsat":
        return Holds(("z3 (non-linear real arithmetic) answers unsat: no point satisfies the formula; "
                      "taken on z3's word",), reason="on Z3's word")
    if answer.result == "sat":
        for point in answer.points:
            if point_in_ranges(point) and satisfied_at(formula, point):
                return Verdict(Status.REFUTED, statement.text, witness=point,
                               reason="a point of the z3 model satisfies the formula, re-evaluated exactly")
        return Verdict(Status.UNDECIDED, statement.text, reason="z3 answers sat, but no rational point re-verified")
    return Verdict(Status.UNDECIDED, statement.text, reason=answer.reason or "z3: unknown")
