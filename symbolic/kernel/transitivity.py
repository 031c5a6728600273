"""The rule of transitivity: from the theorems e₀ R₁ e₁, e₁ R₂ e₂, …, eₙ₋₁ Rₙ eₙ, the theorem e₀ R eₙ.

The conclusion is computed from the steps' statements, never given:

- consecutive steps meet: the right side of a step is, as written, the left side of the next;
- the relation: = throughout gives =; = with ≤ gives ≤, and any < makes it < (likewise ≥, >);
  a chain that goes up and down (≤ with ≥) or uses ≠ proves no relation of its ends, and is refused;
- the domain: each step holds where its two sides are defined, so the chain gives e₀ R eₙ where
  every eₖ is.  The conditions an intermediate expression imposes beyond the ends'
  (``symbolic.logic.definedness``) must each be a theorem given beside the steps (b ≠ 0 for a
  denominator b, b ≥ 0 under a root); a condition with no such theorem refuses the chain, naming it.

Every step is a theorem the kernel minted about the objects it names (an Equation or a Relation),
or every step is an index-level equation for every size (``IndexEquation``, = only): the
conclusion then carries the ranges, hypotheses and definitions of its steps, each once.
"""
from __future__ import annotations

import sympy as sp

from symbolic.kernel.rules import _undecided, _verdict, issued
from symbolic.kernel.theorem import RestsOn, _mint
from symbolic.kernel.verdict import Verdict
from symbolic.logic import definedness
from symbolic.logic.statements import Equation, IndexEquation, Relation, misread_symbol

RULE = "transitivity"
_UP, _DOWN = ("<", "<="), (">", ">=")


def chained_relation(relations) -> tuple[str | None, str]:
    """The relation of the ends of a chain whose steps have ``relations`` ("=" among them), and ""
    or, when they give none, (None, the reason)."""
    relations = list(relations)
    if "!=" in relations:
        return None, "a step states ≠, which does not chain"
    up, down = [r for r in relations if r in _UP], [r for r in relations if r in _DOWN]
    if up and down:
        return None, "the chain goes up (<, <=) and down (>, >=): its ends are in no relation it proves"
    ordered = up or down
    if not ordered:
        return "=", ""
    strict = ordered[0][0]
    return (strict if any(len(r) == 1 for r in ordered) else strict + "="), ""


def _relation_of(statement) -> str | None:
    if type(statement) is Equation or type(statement) is IndexEquation:
        return "="
    if type(statement) is Relation:
        return statement.relation
    return None


def _meet(left, right) -> bool:
    """The right side of one step is the left side of the next, as written."""
    if type(left) is IndexEquation:
        return left.rhs == right.lhs
    return sp.sympify(left.rhs) == sp.sympify(right.lhs)


def _discharged(condition, side_conditions) -> bool:
    """A theorem b R 0 among the side conditions gives the condition (kind, b)."""
    kind, expr = condition
    if kind == definedness.DEFINED:
        return False
    return any(type(s) is Relation and s.relation in definedness.DISCHARGED_BY[kind]
               and sp.sympify(s.lhs) == expr and sp.sympify(s.rhs) == 0 for s in side_conditions)


def transitivity(steps, side_conditions=(), *, label: str = "") -> Verdict:
    """e₀ R eₙ from the step theorems (module docstring); ``side_conditions``: verdicts of b ≠ 0,
    b ≥ 0 or b > 0 for the conditions an intermediate expression imposes beyond the ends'."""
    steps, side_conditions = list(steps), list(side_conditions)
    if not steps:
        return _undecided(label, label, "a chain without steps proves nothing")
    for number, step in enumerate([*steps, *side_conditions], start=1):
        if not issued(step):
            which = f"step {number}" if number <= len(steps) else "a side condition"
            return _undecided(label, label, f"{which} is not PROVED by a theorem the kernel minted")
    statements = [step.theorem.statement for step in steps]
    relations = [_relation_of(s) for s in statements]
    if None in relations:
        return _undecided(label, label, "a step of a chain is an equation or a relation of two sides")
    indexed = [type(s) is IndexEquation for s in statements]
    if any(indexed) and not all(indexed):
        return _undecided(label, label, "a chain's steps are all index-level equations, or none is")
    for number in range(1, len(statements)):
        if not _meet(statements[number - 1], statements[number]):
            return _undecided(label, label, f"step {number + 1} does not start where step {number} ends")
    relation, why = chained_relation(relations)
    if relation is None:
        return _undecided(label, label, why)
    start, end = statements[0].lhs, statements[-1].rhs
    rests_on = RestsOn.union(step.theorem.rests_on for step in [*steps, *side_conditions]) | RestsOn(rules=(RULE,))
    if all(indexed):
        return _indexed_conclusion(statements, rests_on, label, len(steps))
    # the intermediate expressions are defined where the ends are and the side conditions hold
    given = [s.theorem.statement for s in side_conditions]
    missing = [c for c in definedness.beyond([s.rhs for s in statements[:-1]], (start, end))
               if not _discharged(c, given)]
    if missing:
        return _undecided(label, label, "an intermediate expression is defined only where "
                          + definedness.condition_text(missing[0]) + ", which neither end imposes and no side "
                          "condition proves: the chain gives its ends' relation only there")
    conclusion = Equation(start, end) if relation == "=" else Relation(start, relation, end)
    name = misread_symbol(conclusion)
    if name is not None:
        return _undecided(label, label, f"two of the chain's symbols print as '{name}': rename one")
    sizes = {step.theorem.sizes for step in steps}
    theorem = _mint(conclusion, rests_on, sizes=sizes.pop() if len(sizes) == 1 else "")
    return _verdict(theorem, label, (f"{len(steps)} steps, each a theorem; their relations chained",
                                     *(f"side condition: {s.text}" for s in given)))


def _indexed_conclusion(statements, rests_on, label, count) -> Verdict:
    """lhs₀ = rhsₙ for every size, with each step's ranges (one per index), hypotheses, definitions."""
    ranges: dict = {}
    for statement in statements:
        for index, size in statement.ranges:
            if ranges.setdefault(index, size) != size:
                return _undecided(label, label, f"the index {index} is taken to run over two ranges")
    carried = [tuple(dict.fromkeys(item for s in statements for item in getattr(s, kind)))
               for kind in ("hypotheses", "definitions")]
    conclusion = IndexEquation(statements[0].lhs, statements[-1].rhs, tuple(sorted(ranges.items())), *carried)
    theorem = _mint(conclusion, rests_on, sizes="all", claim=label)
    return _verdict(theorem, label, (f"{count} index-level steps, each a theorem for every size; chained",))
