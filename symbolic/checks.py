"""The everyday proofs, each the kernel running a declared oracle on a statement built here:

- ``identity(lhs, rhs)`` (``check_identity``): the exact identity test on lhs = rhs, as written;
- ``relation(lhs, R, rhs)``: lhs R rhs for an order relation, decided by two solvers;
- ``zeros``, ``nonnegatives``: conjunctions of exact zero tests and manifest sign tests;
- ``derivative_identity``: a derivative identity from its exact test and its two-precision witness.

A claim whose two sides arrive as the same expression (sympy evaluated it before it reached the
checker: ``(W*c)**2*(v/c)**2`` has lost its ``c``) is still decided, but its verdict says so
(``details["as_built"]``, printed as a warning, ``trivial_as_built``); an identity's verdict also
keeps the domain as written where it restricts the symbols (``details["domain"]``).

Nothing here is trusted: the theorems state what the kernel ran the oracle on.
"""
from __future__ import annotations

import dataclasses

import sympy as sp

from symbolic.decision.domain_text import domain_text
from symbolic.kernel import by_oracle, conjunction
from symbolic.kernel.verdict import Status, Verdict
from symbolic.logic.statements import Equation, Relation
from symbolic.trusted.oracles.exact import EXACT_ZERO, MANIFEST_SIGN
from symbolic.trusted.oracles.identity import EXACT_IDENTITY, EXP_LOG_IDENTITY
from symbolic.trusted.oracles.inequalities import DECIDED_RELATION


def identity(lhs, rhs, *, label: str = "", evidence=(), **options) -> Verdict:
    """lhs = rhs for every admissible value of its symbols, by the exact identity test (options: a
    time budget, a seed, the procedure)."""
    if "claim" in options:
        label = options.pop("claim") or label
    statement = Equation(lhs, rhs)
    verdict = by_oracle(EXACT_IDENTITY, statement, label=label, evidence=evidence, **options)
    if verdict.status is Status.UNDECIDED and options.get("procedure", "all") == "all" and _exp_or_log(statement):
        # exp and log of one variable: the exp-log test decides what the identity test leaves open
        exp_log = by_oracle(EXP_LOG_IDENTITY, statement, label=label, evidence=evidence,
                            seed=options.get("seed", 0), timeout=options.get("timeout"))
        if exp_log.status is Status.PROVED:
            verdict = exp_log
    # what the verdict assumed beyond the symbols' facts, and a claim emptied before it arrived
    notes = {}
    if trivial_as_built(statement):
        notes["as_built"] = AS_BUILT if sp.sympify(statement.lhs) == sp.sympify(statement.rhs) else EVALUATED_AWAY
    domain = domain_text(statement.lhs, statement.rhs)
    if domain:
        notes["domain"] = domain
        notes["domain_latex"] = domain_text(statement.lhs, statement.rhs, latex=True)
    return dataclasses.replace(verdict, details={**verdict.details, **notes}) if notes else verdict


def _exp_or_log(statement) -> bool:
    sides = [sp.sympify(side) for side in (statement.lhs, statement.rhs)]
    return any(side.has(sp.exp, sp.log, sp.tanh) for side in sides)


# the warning a claim gets when its sides arrive as one expression
AS_BUILT = ("the two sides are the same expression as given, so the claim says nothing: did sympy evaluate "
            "the claim before it reached the checker? State it unevaluated: as text (python -m proofs check "
            "'LHS' 'RHS', or symbolic.parsing.parse_expression), with evaluate=False (sp.Mul(W*c, v/c, "
            "evaluate=False)), with check_invariance for a measure, or with a Symmetry and check_symmetry "
            "for a map of the parameters")


# the same, for sides whose difference sympy's automatic evaluation makes 0 ((a + b) + c against
# a + (b + c), y + x against x + y): typed as text, such a claim is true by sympy's arithmetic alone;
# built in Python, it may be a claim sympy emptied
EVALUATED_AWAY = ("the two sides differ only in what sympy's automatic evaluation undoes (their difference is 0 "
                  "as sympy builds it), so the claim says nothing beyond that arithmetic; if it was built in "
                  "Python, did sympy evaluate the claim before it reached the checker? State it unevaluated: "
                  + AS_BUILT.split("State it unevaluated: ", 1)[1])


def trivial_as_built(equation) -> bool:
    """The two sides of ``equation`` are one expression as given, or their difference is 0 as sympy
    builds it (before any test: no expansion, no simplification)."""
    lhs, rhs = sp.sympify(equation.lhs), sp.sympify(equation.rhs)
    if lhs == rhs:
        return True
    try:
        return sp.Add(lhs, sp.Mul(-1, rhs)) == 0
    except (TypeError, ValueError):     # a side sympy cannot subtract (a matrix, a relation)
        return False


def trivial_equations(statement) -> list:
    """The equations of ``statement`` (a conjunction is read part by part) whose sides arrive as one
    expression (``trivial_as_built``)."""
    if isinstance(statement, Equation):
        return [statement] if trivial_as_built(statement) else []
    parts = statement.parts() if hasattr(statement, "parts") else ()
    return [e for part in parts if part is not statement for e in trivial_equations(part)]


def zeros(label: str, equations, evidence=(), residual=None, details=None, instance_checked=()) -> Verdict:
    """Every equation holds by the exact zero test; an item is an Equation, a pair (lhs, rhs), or an
    expression (= 0), or any of these after a name: (name, item)."""
    named = [_named_equation(item) for item in equations]
    if not named:
        return Verdict(Status.UNDECIDED, label, reason="no equation to test: an empty test compares nothing")
    verdicts = [by_oracle(EXACT_ZERO, equation, label=name) for name, equation in named]
    verdict = conjunction(verdicts, label=label, evidence=(
        f"{len(verdicts)} exact zero test{'s' if len(verdicts) > 1 else ''}", *evidence), residual=residual,
        details=details, instance_checked=instance_checked)
    trivial = [name or equation.text for name, equation in named if trivial_as_built(equation)]
    if trivial:
        verdict = dataclasses.replace(verdict, details={**verdict.details, "as_built": (
            f"{AS_BUILT} (here: {'; '.join(str(t) for t in trivial)})")})
    return verdict


def _named_equation(item) -> tuple[str, Equation]:
    """(its name or "", the equation) of an item of ``zeros``."""
    name = ""
    if isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str):
        name, item = item
    if isinstance(item, Equation):
        return name, item
    if isinstance(item, tuple) and len(item) == 2:
        return name, Equation(*item)
    return name, Equation(sp.sympify(item), sp.S.Zero)


def nonnegatives(label: str, expressions, evidence=(), details=None) -> Verdict:
    """Every expression is >= 0, by the manifest sign test."""
    statements = [Relation(sp.sympify(e), ">=", sp.S.Zero) for e in expressions]
    if not statements:
        return Verdict(Status.UNDECIDED, label, reason="no expression to test: an empty test compares nothing")
    verdicts = [by_oracle(MANIFEST_SIGN, statement) for statement in statements]
    return conjunction(verdicts, label=label, evidence=evidence, details=details)


def derivative_identity(claim, exact: Verdict, agreement: Verdict, witness=None, fails_at=None) -> Verdict:
    """A derivative identity from two kernel verdicts: ``exact``, the exact test on its statement,
    and ``agreement``, the two-precision numeric agreement on the real loss.  PROVED (their
    conjunction) needs both; REFUTED needs the exact test to fail (its details name the failing
    entry, or ``fails_at`` names it when the exact test is a conjunction of complete exact zero
    tests) and the witness to see a difference stable across precisions."""
    details = {k: v for k, v in agreement.details.items() if k != "witness"}
    if exact.status is Status.PROVED and agreement.status is Status.PROVED:
        return conjunction([exact, agreement], label=claim, residual=agreement.residual, details=details)
    if agreement.details.get("informative_points") == 0:
        return Verdict(Status.UNDECIDED, claim, details=details, reason=(
            f"exact test says {'zero' if exact.status is Status.PROVED else 'non-zero'}, but "
            f"{agreement.reason}"))
    entry = exact.details.get("fails_at", fails_at) if exact.status is not Status.PROVED else None
    if (exact.status is Status.REFUTED or entry is not None) and agreement.details.get("stable"):
        return Verdict(Status.REFUTED, claim, witness=witness or agreement.details.get("witness"),
                       residual=agreement.residual, details=details,
                       reason=f"the exact identity fails at entry {entry}; {agreement.reason}")
    return Verdict(Status.UNDECIDED, claim, residual=agreement.residual, details=details,
                   reason=f"the evidence disagrees: exact test: {exact.reason or 'holds'}; witness: "
                          f"{agreement.reason or 'agrees'}")


def relation(lhs, relation: str, rhs, *, label: str = "", seconds: float | None = None, seed: int = 0) -> Verdict:
    """lhs R rhs (R one of <, <=, >, >=, !=) for every admissible value of its symbols where both
    sides as written are defined: the decided relation (two solvers on its failure, confirmed
    independently; a refutation only at an exact point, both sides' values given)."""
    options = {"seed": seed, **({} if seconds is None else {"seconds": seconds})}
    return by_oracle(DECIDED_RELATION, Relation(lhs, relation, rhs), label=label, **options)


# the exact identity test under the name the public API has always used
check_identity = identity
