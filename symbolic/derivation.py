"""A derivation: the steps of a proof, each with its reason and how it was established."""
from __future__ import annotations

from dataclasses import dataclass, field

from .verdict import Status, worst


@dataclass
class Step:
    """One line of a derivation.

    ``statement`` is LaTeX (math mode).  ``verdicts`` holds the CAS checks behind the step; a step
    without verdicts is standard logical glue, named as such in every rendering.
    """

    statement: str
    reason: str
    verdicts: list = field(default_factory=list)
    sizes: str = ""

    @property
    def checked(self) -> bool:
        return bool(self.verdicts)

    @property
    def status(self) -> Status | None:
        return worst(self.verdicts) if self.verdicts else None


@dataclass
class Derivation:
    """A result of the paper as the checker establishes it."""

    name: str
    title: str
    source: str
    statement: str                      # LaTeX paragraph with inline math
    definitions: list = field(default_factory=list)   # LaTeX paragraphs
    steps: list = field(default_factory=list)
    notes: list = field(default_factory=list)         # LaTeX paragraphs
    sizes: str = ""
    residuals: list = field(default_factory=list)     # (label, value) pairs

    def add(self, statement: str, reason: str, verdicts=(), sizes: str = "") -> Step:
        step = Step(statement, reason, list(verdicts), sizes)
        self.steps.append(step)
        return step

    @property
    def status(self) -> Status:
        verdicts = [v for step in self.steps for v in step.verdicts]
        return worst(verdicts) if verdicts else Status.UNDECIDED
