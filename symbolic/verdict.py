"""The three answers a claim can get, each with its evidence."""
from __future__ import annotations

import enum
from dataclasses import dataclass, field


class Status(enum.Enum):
    PROVED = "proved"
    REFUTED = "refuted"
    UNDECIDED = "undecided"


@dataclass(frozen=True)
class Verdict:
    """The outcome of checking one claim.

    PROVED: an exact algebraic zero test succeeded on every case and independent evaluations agree.
    REFUTED: ``witness`` maps each symbol to an exact value at which the two sides differ.
    UNDECIDED: ``reason`` says why neither could be established.
    """

    status: Status
    claim: str = ""
    witness: dict | None = None
    reason: str = ""
    evidence: tuple[str, ...] = ()
    residual: float | None = None
    details: dict = field(default_factory=dict)

    def __bool__(self):
        raise TypeError("a Verdict has no truth value: compare verdict.status with Status.PROVED")

    @property
    def proved(self) -> bool:
        return self.status is Status.PROVED

    def describe(self) -> str:
        line = f"{self.status.name}: {self.claim}" if self.claim else self.status.name
        if self.witness:
            line += "  witness: " + ", ".join(f"{k} = {v}" for k, v in self.witness.items())
        if self.reason:
            line += f"  ({self.reason})"
        return line


def worst(verdicts) -> Status:
    """REFUTED beats UNDECIDED beats PROVED: the status of a conjunction of claims."""
    statuses = {v.status for v in verdicts}
    for status in (Status.REFUTED, Status.UNDECIDED):
        if status in statuses:
            return status
    return Status.PROVED
