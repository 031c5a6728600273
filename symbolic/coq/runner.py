"""Checking certificates with coqc: many lemmas in one call, each under a time cap, and the Coq
answer attached to a kernel verdict.

Each claim gets one of three answers: "checked" (Coq accepted its lemma), "outside the fragment
(reason)" (the printer has no Coq term for it), or "refused (coqc's message)".  A PROVED verdict
that Coq refuses is a disagreement between two procedures: ``with_coq`` then returns an UNDECIDED
verdict that names both answers, never the PROVED one.
"""
from __future__ import annotations

import dataclasses
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from symbolic.coq.certificate import HEADER, certificate
from symbolic.coq.library import COQC_MISSING, coqc, timed_coqc
from symbolic.coq.printer import OutsideFragment
from symbolic.kernel import Equation
from symbolic.verdict import Status, Verdict

SECONDS_PER_CLAIM = 10.0          # Coq's Timeout on one lemma's proof
CHECKED = "checked"


@dataclass(frozen=True)
class Answer:
    """Coq's answer on one claim."""

    result: str                   # "checked", "outside the fragment (...)", "refused (...)"
    lemma: str = ""               # the Coq text, when the claim is inside the fragment

    @property
    def checked(self) -> bool:
        return self.result == CHECKED

    @property
    def refused(self) -> bool:
        return self.result.startswith("refused")


@dataclass
class Batch:
    """The answers of one certify() call, with coqc's CPU time and the wall time."""

    answers: list[Answer]
    cpu_seconds: float = 0.0
    wall_seconds: float = 0.0
    calls: int = 0


def certify(claims, seconds: float = SECONDS_PER_CLAIM) -> Batch:
    """Coq's answer on each (lhs, rhs) pair: every lemma of the fragment in one coqc call, again
    without a lemma that Coq refused (coqc stops at the first error) until all are answered."""
    answers: list[Answer | None] = [None] * len(claims)
    lemmas: dict[int, str] = {}
    for number, (lhs, rhs) in enumerate(claims):
        try:
            lemmas[number] = certificate(lhs, rhs, f"claim_{number}", seconds)
        except OutsideFragment as why:
            answers[number] = Answer(f"outside the fragment ({why})")
    batch = Batch([])
    started = time.perf_counter()
    if lemmas and coqc() is None:
        for number, lemma in lemmas.items():
            answers[number] = Answer(COQC_MISSING, lemma)
        lemmas = {}
    pending = sorted(lemmas)
    with tempfile.TemporaryDirectory(prefix="coq-certificates-") as folder:
        while pending:
            refused, message, cpu = _run(Path(folder), [(n, lemmas[n]) for n in pending],
                                         timeout=60 + seconds * len(pending))
            batch.cpu_seconds += cpu
            batch.calls += 1
            if refused is None:
                # no error: every pending lemma was accepted
                answers_done, pending = pending, []
            else:
                answers_done = [n for n in pending if n < refused]
                answers[refused] = Answer(f"refused ({message})", lemmas[refused])
                pending = [n for n in pending if n > refused]
            for n in answers_done:
                answers[n] = Answer(CHECKED, lemmas[n])
    batch.wall_seconds = time.perf_counter() - started
    batch.answers = answers
    return batch


def _run(folder: Path, lemmas: list[tuple[int, str]], timeout: float) -> tuple[int | None, str, float]:
    """One coqc call on the header and the lemmas: (the first refused claim or None, coqc's
    message, the CPU seconds coqc used)."""
    text = HEADER
    starts = []
    for number, lemma in lemmas:
        text += "\n"
        starts.append((text.count("\n") + 1, number))
        text += lemma
    (folder / "Claims.v").write_text(text)
    output, line, cpu = timed_coqc(folder, "Claims.v", timeout)
    if output is None:
        return None, "", cpu
    claimed = [number for start, number in starts if start <= line]
    # an error before the first lemma (in the header) or of no line: every pending lemma refused
    refused = claimed[-1] if claimed else lemmas[0][0]
    return refused, _message(output), cpu


def _message(output: str) -> str:
    """coqc's error in one line, without the file's location."""
    lines = [line.strip() for line in output.splitlines() if line.strip() and not line.startswith("File ")]
    return " ".join(lines)[:400] or "coqc failed without a message"


# --- a kernel verdict with Coq's answer ---------------------------------------------------------

def with_coq(verdict: Verdict, seconds: float = SECONDS_PER_CLAIM) -> Verdict:
    """The verdict with ``details["coq"]``: Coq's answer on the equation a PROVED verdict's theorem
    states (read from its statement, never passed in beside it).  A PROVED that Coq refuses becomes
    UNDECIDED, naming both answers, ``details["disagreement"]``."""
    if verdict.status is not Status.PROVED:
        return dataclasses.replace(verdict, details={**verdict.details,
                                                     "coq": f"not attempted (the verdict is {verdict.status.name})"})
    equations = [(part.lhs, part.rhs) for part in verdict.statement.parts() if isinstance(part, Equation)]
    if not equations:
        return combine(verdict, Answer("outside the fragment (the statement states no equation)"))
    answers = certify(equations, seconds).answers
    refused = [a for a in answers if a.refused]
    outside = [a for a in answers if not a.checked and not a.refused]
    answer = refused[0] if refused else outside[0] if outside else Answer("checked")
    return combine(verdict, answer)


def combine(verdict: Verdict, answer: Answer) -> Verdict:
    """A PROVED verdict and Coq's answer on its claim."""
    details = {**verdict.details, "coq": answer.result}
    if verdict.status is Status.PROVED and answer.refused:
        return Verdict(Status.UNDECIDED, verdict.claim,
                       reason=f"two procedures disagree: the kernel says PROVED, Coq {answer.result}",
                       evidence=verdict.evidence, residual=verdict.residual,
                       details={**details, "disagreement": True})
    return dataclasses.replace(verdict, details=details)
