"""A derivation: e₀ R₁ e₁ R₂ e₂ … Rₙ eₙ, each step a theorem the kernel checked, the conclusion e₀ R eₙ
computed by the kernel's rule of transitivity from the steps' statements.

A step is proved by the kernel running an oracle on the step's statement, as written: the exact
identity test for =, the decided relation (two solvers, exact points) for <, ≤, >, ≥, ≠; an
index-level step (sums over symbolic sizes) is proved for every size by a chain of the kernel's
rewrite rules (``symbolic.derivations.index_steps``).  Every step is checked, a refuted one does
not stop the others; the reason written beside a step is printed, never trusted.  Where an
intermediate expression is defined on less than the ends are, its conditions (a denominator ≠ 0,
…) are proved as side conditions, or the chain gives no conclusion and says why.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import sympy as sp

from symbolic.checks import identity, relation
from symbolic.decision.budget import within_budget
from symbolic.decision.inequality import small_points
from symbolic.kernel import refutation, transitivity
from symbolic.kernel.transitivity import chained_relation
from symbolic.kernel.verdict import Status, Verdict
from symbolic.logic import definedness
from symbolic.logic.statements import RELATIONS as STATEMENT_RELATIONS
from symbolic.logic.statements import Equation, IndexEquation, Relation

RELATIONS = ("=", *STATEMENT_RELATIONS)      # = and the relations a Relation states
SIDE_CONDITION = {definedness.NONZERO: "!=", definedness.NONNEGATIVE: ">=", definedness.POSITIVE: ">"}


@dataclass(frozen=True)
class Step:
    """One line of a derivation: ``relation`` to ``expression``, ``reason`` as written (free text),
    ``line`` the line of the file it came from (0 for one built in Python)."""
    relation: str
    expression: object
    reason: str = ""
    line: int = 0


@dataclass(frozen=True)
class CheckedStep:
    """A step with the statement the kernel was asked about (previous expression R this one) and
    the kernel's verdict on it."""
    number: int
    step: Step
    statement: object          # None for a relation between index-level terms, which no rule proves
    verdict: Verdict
    lhs: object = None         # the expression the step starts from

    @property
    def shown(self) -> str:
        """The step as text: its statement's, or both sides' for a step with no statement."""
        if self.statement is not None:
            return self.statement.text
        from symbolic.logic.notation import latex as term_latex
        from symbolic.derivations.index_steps import as_index_term
        return f"{term_latex(as_index_term(self.lhs))} {self.step.relation} {term_latex(as_index_term(self.step.expression))}"

    @property
    def status(self) -> Status:
        return self.verdict.status


@dataclass(frozen=True)
class CheckedDerivation:
    """Every step's verdict, the side conditions' and the conclusion's (PROVED only when every step
    is, computed by the kernel from their statements)."""
    derivation: "Derivation"
    steps: tuple
    side_conditions: tuple
    conclusion: Verdict

    @property
    def status(self) -> Status:
        if self.conclusion.status is Status.PROVED:
            return Status.PROVED
        # a side condition that fails leaves the steps true and the chain without a conclusion
        refuted = any(s.status is Status.REFUTED for s in self.steps)
        return Status.REFUTED if refuted else Status.UNDECIDED

    @property
    def refuted_steps(self) -> list:
        return [s for s in self.steps if s.status is Status.REFUTED]

    @property
    def first_wrong_step(self):
        """The first step that was refuted, or None."""
        return next(iter(self.refuted_steps), None)

    def _repr_latex_(self) -> str:
        from symbolic.derivations.document import chain_display
        return "$$" + chain_display(self) + "$$"

    def __str__(self) -> str:
        from symbolic.derivations.document import chain_text
        return chain_text(self)


@dataclass
class Derivation:
    """A chain of steps from ``start``; ``name`` titles it.  Build with ``step`` and check with
    ``check``::

        d = Derivation(parse("relu(a*w*x)*(v/a)", ...))
        d.step("=", parse("a*relu(w*x)*(v/a)", ...), by="ReLU is positively homogeneous")
        result = d.check()
    """
    start: object
    steps: list = field(default_factory=list)
    name: str = ""
    line: int = 0
    assumptions: tuple = ()        # the facts as written ('a > 0', 'n integer'), for the reader

    def step(self, relation: str, expression, by: str = "", line: int = 0) -> "Derivation":
        relation = {"≤": "<=", "≥": ">=", "≠": "!=", "==": "="}.get(relation, relation)
        if relation not in RELATIONS:
            raise ValueError(f"unknown relation {relation!r}: one of {', '.join(RELATIONS)}")
        self.steps.append(Step(relation, expression, by, line))
        return self

    @property
    def expressions(self) -> list:
        return [self.start, *(s.expression for s in self.steps)]

    def relation(self) -> tuple:
        """(the relation the chain gives its ends, "") or (None, why it gives none)."""
        return chained_relation(s.relation for s in self.steps)

    def check(self, *, seconds: float | None = None, seed: int = 0) -> CheckedDerivation:
        """Ask the kernel about every step, the side conditions and the conclusion."""
        checked = []
        previous = self.start
        for number, step in enumerate(self.steps, start=1):
            statement = _statement(previous, step.relation, step.expression)
            checked.append(CheckedStep(number, step, statement, _prove(statement, number, seconds, seed, step.reason),
                                       previous))
            previous = step.expression
        label = self.name or "the chain"
        if not checked:
            return CheckedDerivation(self, (), (), Verdict(Status.UNDECIDED, label,
                                                           reason="a chain without steps proves nothing"))
        from symbolic.derivations.index_steps import is_index_term
        # an index-level chain's steps hold for every value: no expression of it restricts a domain
        sides = () if any(is_index_term(e) for e in self.expressions) else \
            tuple(_side_conditions(self.expressions, seconds, seed))
        if any(s.status is not Status.PROVED for s in checked):
            bad = [s for s in checked if s.status is not Status.PROVED]
            words = ", ".join(f"step {s.number}" + (f" (line {s.step.line})" if s.step.line else "") +
                              f" {s.status.value}" for s in bad)
            conclusion = Verdict(Status.UNDECIDED, label, reason=f"no conclusion: {words}")
        else:
            conclusion = transitivity([s.verdict for s in checked],
                                      [v for v in sides if v.status is Status.PROVED], label=label)
        return CheckedDerivation(self, tuple(checked), sides, conclusion)


def _statement(lhs, relation: str, rhs):
    """The statement of one step, its sides as written."""
    from symbolic.derivations.index_steps import as_index_term, is_index_term
    if is_index_term(lhs) or is_index_term(rhs):
        # a scalar side of an index-level step is a constant term (0, a)
        return IndexEquation(as_index_term(lhs), as_index_term(rhs)) if relation == "=" else None
    return Equation(lhs, rhs) if relation == "=" else Relation(lhs, relation, rhs)


def _prove(statement, number: int, seconds, seed: int, reason: str) -> Verdict:
    label = f"step {number}"
    if statement is None:
        return Verdict(Status.UNDECIDED, label, reason="an index-level step is an equation: for every size, "
                       "only = is proved by the rewrite rules")
    options = {} if seconds is None else {"timeout": seconds}
    if isinstance(statement, IndexEquation):
        from symbolic.derivations.index_steps import prove_for_every_size
        return within_budget(lambda: prove_for_every_size(statement, label=label, reason=reason), seconds, label)
    if isinstance(statement, Equation):
        verdict = identity(statement.lhs, statement.rhs, label=label, seed=seed, **options)
    else:
        verdict = within_budget(lambda: relation(statement.lhs, statement.relation, statement.rhs, label=label,
                                                 seconds=seconds, seed=seed), seconds, label)
    return _smallest_witness(statement, verdict) if verdict.status is Status.REFUTED else verdict


def _smallest_witness(statement, verdict: Verdict) -> Verdict:
    """A refuted step shown at a point of small numbers where one refutes it too (the kernel's
    refutation rule evaluating both sides there exactly), else at the point it was refuted at."""
    sides = [sp.sympify(statement.lhs), sp.sympify(statement.rhs)]
    for point in itertools.islice(small_points(sides[0].free_symbols | sides[1].free_symbols), 120):
        if refutation(statement, point).status is Status.PROVED:
            return Verdict(Status.REFUTED, verdict.claim, witness=point, details=verdict.details,
                           reason="the step fails at this point of small numbers, both sides evaluated exactly "
                                  "(the kernel's rule of refutation by an exact point)")
    return verdict


def _side_conditions(expressions, seconds, seed):
    """b ≠ 0 (b ≥ 0, b > 0) for each condition an intermediate expression imposes beyond the ends',
    each decided by the kernel as a relation."""
    for kind, expr in definedness.beyond(expressions[1:-1], (expressions[0], expressions[-1])):
        if kind == definedness.DEFINED:
            continue      # no relation states it: the kernel's rule refuses the chain, naming it
        statement = Relation(expr, SIDE_CONDITION[kind], sp.S.Zero)
        yield relation(statement.lhs, statement.relation, statement.rhs, label=f"side condition {statement.text}",
                       seconds=seconds, seed=seed)
