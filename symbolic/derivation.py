"""A derivation: the steps of a proof, each with its reason and how it was established."""
from __future__ import annotations

from dataclasses import dataclass, field

from symbolic.kernel.verdict import Status, worst


def summarize_sizes(sizes) -> str:
    """(d, h, N) triples (None where a size does not apply) in a few words: ranges when the sizes
    fill a grid, else the list."""
    sizes = sorted({tuple(size) for size in sizes}, key=lambda t: tuple(-1 if v is None else v for v in t))
    if not sizes:
        return ""
    axes = []
    for label, values in zip(("d", "h", "N"), zip(*sizes)):
        present = sorted({v for v in values if v is not None})
        if present:
            axes.append((label, present))
    if not axes:
        return ""
    grid = 1
    for _, present in axes:
        grid *= len(present)
    if grid != len(sizes):
        return ", ".join("(" + ",".join("-" if v is None else str(v) for v in size) + ")"
                         for size in sizes)

    def span(values):
        contiguous = values == list(range(values[0], values[-1] + 1))
        return f"{values[0]}..{values[-1]}" if contiguous and len(values) > 2 else ",".join(map(str, values))
    text = " ".join(f"{label}={span(present)}" for label, present in axes)
    return text + (f" ({len(sizes)} cases)" if len(sizes) > 1 else "")


@dataclass
class Step:
    """One line of a derivation.

    ``statement`` is LaTeX (math mode).  ``verdicts`` holds the CAS checks behind the step; a step
    without verdicts is standard logical glue, named as such in every rendering.
    """

    statement: str
    reason: str
    verdicts: list = field(default_factory=list)
    sizes: list = field(default_factory=list)     # (d, h, N) triples the checks ran at

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
    sizes: list = field(default_factory=list)
    residuals: list = field(default_factory=list)     # (label, value) pairs
    every_size: bool = False     # proved with the sizes as symbols; ``sizes`` are the cross-check's

    def add(self, statement: str, reason: str, verdicts=(), sizes=()) -> Step:
        # a PROVED the kernel did not issue is never a step's evidence (nor printed as one)
        step = Step(statement, reason, [v.refused_if_forged() for v in verdicts], list(sizes))
        self.steps.append(step)
        return step

    @property
    def status(self) -> Status:
        verdicts = [v for step in self.steps for v in step.verdicts]
        return worst(verdicts) if verdicts else Status.UNDECIDED
