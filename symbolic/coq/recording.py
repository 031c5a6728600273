"""Coq's pass over a run: every equation a PROVED row's theorem states (its statement's parts,
the premises' equations included) is recorded with the row, then re-checked by Coq in batches.

The recording reads the statements the kernel minted: it wraps ``Report.record`` for the length of
a ``with`` block in one process, to see each row as it is made; nothing else is changed.
"""
from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field

from symbolic.coq.runner import Answer, Batch, certify, combine
from symbolic.kernel import Equation
from symbolic.report import Report
from symbolic.verdict import Status

BATCH = 40                     # lemmas per coqc call


def equations_of(verdict) -> list:
    """The (lhs, rhs) of every equation a PROVED verdict's statement states."""
    if verdict.status is not Status.PROVED:
        return []
    return [(part.lhs, part.rhs) for part in verdict.statement.parts() if isinstance(part, Equation)]


@dataclass
class Recorder:
    """The proved identities of a run, and which of them each row states; ``start()`` begins
    recording in this process, ``stop()`` ends it."""

    claims: list = field(default_factory=list)           # (lhs, rhs) of each equation proved
    rows: list = field(default_factory=list)             # (row, indices into claims)
    _original: object = None

    def start(self) -> Recorder:
        original_record, recorder = Report.record, self

        def record(report, *args, **kwargs):
            verdict = original_record(report, *args, **kwargs)
            start = len(recorder.claims)
            recorder.claims += equations_of(verdict)
            recorder.rows.append((report.results[-1], list(range(start, len(recorder.claims)))))
            return verdict
        self._original = original_record
        Report.record = record
        return self

    def stop(self) -> None:
        if self._original is not None:
            Report.record = self._original
            self._original = None

    def certify_rows(self, seconds: float = 10.0) -> str:
        """Coq's pass over the recorded claims, the rows' verdicts updated; its summary line."""
        answers, batch = coq_pass(self, seconds)
        return summary(answers, batch)


@contextmanager
def recording():
    """Within the block, record every equation a PROVED row states and the row."""
    recorder = Recorder().start()
    try:
        yield recorder
    finally:
        recorder.stop()


def coq_pass(recorder: Recorder, seconds: float = 10.0) -> tuple[list[Answer], Batch]:
    """Coq's answer on each recorded claim (the same claim once), and the rows' verdicts updated:
    a PROVED row one of whose claims Coq refused becomes UNDECIDED (``combine``)."""
    unique: dict[tuple[str, str], int] = {}
    order = []
    for number, (lhs, rhs) in enumerate(recorder.claims):
        key = (str(lhs), str(rhs))
        if key not in unique:
            unique[key] = len(order)
            order.append(number)
    total = Batch([])
    for start in range(0, len(order), BATCH):
        batch = certify([recorder.claims[n] for n in order[start:start + BATCH]], seconds)
        total.answers += batch.answers
        total.cpu_seconds += batch.cpu_seconds
        total.wall_seconds += batch.wall_seconds
        total.calls += batch.calls
    answers = [total.answers[unique[(str(lhs), str(rhs))]] for lhs, rhs in recorder.claims]
    for row, indices in recorder.rows:
        if row.verdict.status is not Status.PROVED or not indices:
            continue
        mine = [answers[n] for n in indices]
        refused = [a for a in mine if a.refused]
        outside = [a for a in mine if not a.checked and not a.refused]
        if refused:
            answer = refused[0]
        elif outside:
            answer = Answer(f"{len(mine) - len(outside)} of {len(mine)} identities checked, "
                            f"the others {outside[0].result}")
        else:
            answer = Answer("checked")
        row.verdict = combine(row.verdict, answer)
    return answers, total


def summary(answers: list[Answer], batch: Batch) -> str:
    """One line: how many claims Coq checked, how many fall outside, how many it refused."""
    distinct = len(batch.answers)
    checked = sum(a.checked for a in batch.answers)
    refused = sum(a.refused for a in batch.answers)
    outside = distinct - checked - refused
    return (f"coq: {distinct} distinct identities of {len(answers)} proved: {checked} checked, {outside} "
            f"outside the fragment or not checked, {refused} refused ({batch.calls} coqc calls, "
            f"{batch.cpu_seconds:.1f} s CPU, {batch.wall_seconds:.1f} s)")
