"""Checking certificates with coqc: many lemmas in one call, each under a cap on Coq's CPU time, and
the Coq answer attached to a kernel verdict.

Coq's answer on a claim is of one of three kinds:

  checked      Coq accepted the lemma lhs = rhs and its proof;
  refuted      the proof failed and Coq accepted a lemma that the claim is false: a point where
               its hypotheses hold and the sides as written differ (``certificate.refutation``);
  not checked  with the reason: the tactics failed, out of time after N s of CPU, the printed
               lemma does not compile (the project's own bug), outside the fragment, coqc missing.

A proof that fails refutes nothing, so only ``refuted`` is a disagreement between two procedures:
``with_coq`` then returns an UNDECIDED verdict that names both answers, never the PROVED one.  A
verdict that Coq did not check keeps its status, with Coq's reason in ``details["coq"]``.
"""
from __future__ import annotations

import dataclasses
import re
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from symbolic.coq import library
from symbolic.coq.certificate import HEADER, certificate, refutation
from symbolic.coq.library import COQC_MISSING, coqc
from symbolic.coq.printer import OutsideFragment
from symbolic.kernel import Equation
from symbolic.kernel.verdict import Status, Verdict

SECONDS_PER_CLAIM = 10.0          # the cap on Coq's CPU time for one lemma's proof (RETRY times it at most)
CHECKED = "checked"
STATEMENT_LINES = 2               # a lemma's first lines, its statement; the proof follows
SYNTAX_ERROR = re.compile(r"(Error: )?Syntax error")


@dataclass(frozen=True)
class Answer:
    """Coq's answer on one claim: ``result`` is "checked", "refuted (...)", "not checked (...)" or
    "outside the fragment (...)" (a kind of not checked)."""

    result: str
    lemma: str = ""               # the Coq text, when the claim is inside the fragment
    theorem: str = ""             # the name of the Coq lemma Coq checked
    statement: str = ""           # its statement as Coq printed it (``Check``), when Coq checked it

    @property
    def checked(self) -> bool:
        return self.result == CHECKED

    @property
    def refuted(self) -> bool:
        return self.result.startswith("refuted")

    @property
    def kind(self) -> str:
        """"checked", "refuted" or "not checked"."""
        return CHECKED if self.checked else "refuted" if self.refuted else "not checked"


@dataclass
class Batch:
    """The answers of one certify() call, with coqc's CPU time and the wall time."""

    answers: list[Answer]
    cpu_seconds: float = 0.0
    wall_seconds: float = 0.0
    calls: int = 0


def not_checked(outcome: library.Outcome) -> str:
    """Why Coq did not accept a lemma: out of time, the printed text does not compile (an error in
    the header, in the lemma's statement, or a syntax error), or the tactics failed."""
    if outcome.out_of_time:
        return f"not checked (out of time after {outcome.out_of_time} s of CPU)"
    if outcome.line <= STATEMENT_LINES or SYNTAX_ERROR.match(outcome.message):
        return f"not checked (the printed lemma does not compile: {outcome.message})"
    return f"not checked (the tactics failed: {outcome.message})"


def certify(claims, seconds: float = SECONDS_PER_CLAIM, first: int = 0) -> Batch:
    """Coq's answer on each (lhs, rhs) pair: every lemma of the fragment in one coqc call
    (``library.check_items``), then, for each lemma whose proof failed, the lemma that refutes it at
    a point the project found, if it found one.  The lemmas are named claim_{first}, claim_{first+1},
    …; each one checked carries its statement as Coq printed it."""
    answers: list[Answer | None] = [None] * len(claims)
    lemmas: dict[int, str] = {}
    for number, (lhs, rhs) in enumerate(claims):
        try:
            lemmas[number] = certificate(lhs, rhs, f"claim_{first + number}")
        except OutsideFragment as why:
            answers[number] = Answer(f"outside the fragment ({why})")
    batch = Batch([])
    started = time.perf_counter()
    if lemmas and coqc() is None:
        for number, lemma in lemmas.items():
            answers[number] = Answer(COQC_MISSING, lemma)
        lemmas = {}
    with tempfile.TemporaryDirectory(prefix="coq-certificates-") as folder:
        # each lemma followed by the commands that print its statement, read back from Coq's output
        printed = {number: lemma + library.printing(f"claim_{first + number}") for number, lemma in lemmas.items()}
        proofs = library.check_items(Path(folder), HEADER, printed, seconds, file="Claims.v") if lemmas else None
        failed = {}
        for number, outcome in (proofs.outcomes.items() if proofs else ()):
            if outcome.accepted:
                name = f"claim_{first + number}"
                answers[number] = Answer(CHECKED, lemmas[number], name, proofs.printed.get(name, ""))
            else:
                failed[number] = Answer(not_checked(outcome), lemmas[number])
        # a failed proof refutes nothing: Coq refutes a claim only by the lemma that it fails at a point
        negations = {number: found for number in failed
                     if (found := refutation(*claims[number], f"claim_{first + number}"))}
        refuted = library.check_items(Path(folder), HEADER, {number: found.lemma for number, found in negations.items()},
                                      seconds, file="Negations.v") if negations else None
        for number, answer in failed.items():
            if refuted and number in refuted.outcomes and refuted.outcomes[number].accepted:
                found = negations[number]
                answer = Answer(f"refuted (Coq proves the sides differ at {found.point})", found.lemma)
            answers[number] = answer
        for run in (proofs, refuted):
            if run:
                batch.cpu_seconds += run.cpu_seconds
                batch.calls += run.calls
    batch.wall_seconds = time.perf_counter() - started
    batch.answers = answers
    return batch


# --- a kernel verdict with Coq's answer ---------------------------------------------------------

def with_coq(verdict: Verdict, seconds: float = SECONDS_PER_CLAIM) -> Verdict:
    """The verdict with ``details["coq"]``: Coq's answer on the equation a PROVED verdict's theorem
    states (read from its statement, never passed in beside it).  A PROVED that Coq refutes becomes
    UNDECIDED, naming both answers, ``details["disagreement"]``; one that Coq did not check stays
    PROVED, with the reason."""
    if verdict.status is not Status.PROVED:
        return dataclasses.replace(verdict, details={**verdict.details,
                                                     "coq": f"not attempted (the verdict is {verdict.status.name})"})
    equations = [(part.lhs, part.rhs) for part in verdict.statement.parts() if isinstance(part, Equation)]
    if not equations:
        return combine(verdict, Answer("outside the fragment (the statement states no equation)"))
    answers = certify(equations, seconds).answers
    refuted = [a for a in answers if a.refuted]
    unchecked = [a for a in answers if not a.checked and not a.refuted]
    answer = refuted[0] if refuted else unchecked[0] if unchecked else checked_together(answers)
    return combine(verdict, answer)


def checked_together(answers: list[Answer]) -> Answer:
    """Several lemmas Coq checked, as one answer: their names, and their statements as Coq printed
    them joined by a conjunction."""
    return Answer(CHECKED, "\n".join(a.lemma for a in answers), ", ".join(a.theorem for a in answers if a.theorem),
                  " /\\ ".join(f"({a.statement})" if len(answers) > 1 else a.statement
                                for a in answers if a.statement))


def combine(verdict: Verdict, answer: Answer) -> Verdict:
    """A PROVED verdict and Coq's answer on its claim: UNDECIDED with both answers when Coq refuted
    it, else the verdict with Coq's answer in ``details["coq"]``."""
    details = {key: value for key, value in verdict.details.items() if key not in ("coq_theorem", "coq_statement")}
    details["coq"] = answer.result
    # the Coq theorem and its statement as Coq printed it, only for an answer Coq checked
    if answer.checked and answer.theorem and answer.statement:
        details.update(coq_theorem=answer.theorem, coq_statement=answer.statement)
    if verdict.status is Status.PROVED and answer.refuted:
        return Verdict(Status.UNDECIDED, verdict.claim,
                       reason=f"two procedures disagree: the kernel says PROVED, Coq {answer.result}",
                       evidence=verdict.evidence, residual=verdict.residual,
                       details={**details, "disagreement": True})
    return dataclasses.replace(verdict, details=details)
