"""Induction on a layer, and the instance of a theorem for every layer at one layer."""
from __future__ import annotations

from typing import Callable

import sympy as sp

from symbolic.logic.terms import substitute_layer
from symbolic.kernel.chains import Chain, Rule, _issue, _prove, _refused, prove
from symbolic.kernel.matching import _is_instance
from symbolic.logic.statements import Relation
from symbolic.kernel.theorem import RestsOn, Theorem, is_index_theorem
from symbolic.kernel.verdict import Status, Verdict


def induction(claim: str, lhs, rhs, variable: sp.Symbol, base: Chain, step: Callable,
              for_all: tuple = ()) -> tuple[Verdict, Theorem | None]:
    """S(k): lhs = rhs for every integer k ≥ 0, k the layer ``variable`` of the terms.  The kernel
    forms S(0), S(k + 1) itself by substitution; ``base`` must prove S(0), and ``step(hypothesis)``
    must build a chain proving S(k + 1) in which S(k) may be used: the hypothesis is a rule that
    exists only while the kernel checks this step."""
    def statement(value):
        return substitute_layer(lhs, variable, value), substitute_layer(rhs, variable, value)
    try:
        base_statement, step_statement = statement(sp.S.Zero), statement(variable + 1)
    except ValueError as captured:
        return _refused(claim, str(captured))
    if (base.start, base.end) != base_statement:
        return _refused(claim, "the base chain does not prove S(0)")
    base_verdict, base_theorem = prove(base)
    if base_verdict.status is not Status.PROVED:
        return _refused(claim, f"base case: {base_verdict.reason}")

    def justify(before, after):
        return None if _is_instance(lhs, rhs, before, after, set(for_all)) else \
            "not an instance of the induction hypothesis S(k)"
    hypothesis = Rule("induction hypothesis", "", justify,
                      lambda: Verdict(Status.UNDECIDED, "induction hypothesis",
                                      reason="holds only inside its induction step"))
    step_chain = step(hypothesis)
    if (step_chain.start, step_chain.end) != step_statement:
        return _refused(claim, "the step chain does not prove S(k + 1)")
    step_verdict, step_theorem = _prove(step_chain, (hypothesis,))
    if step_verdict.status is not Status.PROVED:
        return _refused(claim, f"induction step: {step_verdict.reason}")
    ranges = dict(base_theorem.ranges)
    if any(ranges.setdefault(index, size) != size for index, size in step_theorem.ranges):
        return _refused(claim, "the base and the step take an index to run over two ranges")
    rules = sorted(set(base_verdict.details["rules"]) | set(step_verdict.details["rules"]))
    assumed = tuple(dict.fromkeys((*base_theorem.hypotheses, *step_theorem.hypotheses)))
    used = tuple(dict.fromkeys((*base_theorem.definitions, *step_theorem.definitions)))
    rests_on = base_verdict.theorem.rests_on | step_verdict.theorem.rests_on | RestsOn(rules=("induction on a layer",))
    verdict = _issue(claim, lhs, rhs, ranges, assumed, rests_on,
                     (f"induction on {variable}: base ({len(base.steps)} steps) and step "
                      f"({len(step_chain.steps)} steps, the hypothesis used) checked", "rules used: " + ", ".join(rules)),
                     {"rules": rules}, used, proof=("induction", variable, base, step_chain, hypothesis),
                     schema=(variable, statement))
    return verdict, verdict.theorem


def instantiate(theorem: Theorem, value: sp.Expr, assumption: str = "") -> Theorem | None:
    """S(value) from an induction's theorem S(k) for every k ≥ 0: ``value`` must be an integer
    known to be ≥ 0, or ``assumption`` must say why it is (recorded in the evidence)."""
    if not is_index_theorem(theorem) or theorem.schema is None:
        return None
    value = sp.sympify(value)
    if value.is_integer is not True or value.is_negative or (value.is_nonnegative is not True and not assumption):
        return None
    try:
        lhs, rhs = theorem.schema[1](value)
    except ValueError:         # the value would be captured by a sum or a product that binds its name
        return None
    note = f"instance {theorem.schema[0]} = {value} of '{theorem.claim}'" + (f", given {assumption}" if assumption else "")
    # a value not known to be >= 0 is assumed to be: the instance holds under that hypothesis
    assumed = (*theorem.hypotheses, *((Relation(value, ">=", sp.S.Zero),) if value.is_nonnegative is not True else ()))
    rests_on = theorem.verdict.theorem.rests_on | RestsOn(rules=("instance of a theorem for every layer",))
    verdict = _issue(note, lhs, rhs, theorem.ranges, assumed, rests_on, (note, *theorem.verdict.evidence),
                     dict(theorem.verdict.details), theorem.definitions, proof=("instance", theorem, value))
    return verdict.theorem
