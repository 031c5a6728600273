"""``check_invariance(measure, group)``: the kernel runs the measure invariance procedure
(``symbolic.measures.invariance``, an oracle of the trusted base) on the statement that the
measure is invariant under the group, and hands back its verdict with the steps of the argument."""
from __future__ import annotations

from dataclasses import dataclass

from symbolic.kernel import Fact, by_oracle
from symbolic.latex import to_plain
from symbolic.measures.invariance import Outcome, as_group, as_measure
from symbolic.trusted.oracles.measures import INVARIANCE_PROCEDURE


@dataclass
class InvarianceOutcome(Outcome):
    """An Outcome that prints as a reader reads it: the verdict, then the steps of the argument, the
    sizes, and the refuted precondition when the group is no symmetry."""

    def __str__(self) -> str:
        lines = [str(self.verdict)]
        if self.not_applicable:
            lines.append(f"  not applicable: {self.not_applicable}")
        if self.sizes:
            lines.append(f"  at the sizes: {'; '.join(map(str, self.sizes))}")
        for number, step in enumerate(self.steps, start=1):
            how = ("checked, holds" if step.holds else "checked, fails") if step.checked else "logical glue"
            lines.append(f"  ({number}) [{how}] {to_plain(step.statement)}: {to_plain(step.reason)}")
        return "\n".join(lines)


def check_invariance(measure, group, *, seed: int = 0) -> Outcome:
    """Decide whether ``measure`` is invariant: M(Tθ) = M(θ) at *every* θ (every data set, every
    group element).

    ``measure``: a key of ``symbolic.measures.definitions.MEASURES``, a ``Measure``, or any function of a
    ``MeasurePoint`` returning a sympy expression, a ``Spectrum`` or a ``Sharpness``.
    ``group``: a key of ``symbolic.networks.symmetry_groups.GROUPS`` or a ``SymmetryGroup``.
    The group is first proved a symmetry (f∘T = f, L∘T = L); when that is refuted, the outcome is
    ``not_applicable`` with the refuted precondition and its counterexample as the reason.
    Returns an Outcome: the Verdict (PROVED / REFUTED / UNDECIDED with witness and evidence), the
    steps of the argument, and the sizes the verdict was established at.
    """
    measure, group = as_measure(measure), as_group(group)
    claim = f"{measure.key} is invariant under {group.key}"
    statement = Fact("invariant", (measure, group), reading=f"M(T theta) = M(theta) for M = {measure.key}, "
                     f"T in {group.key}, at every theta, every data set and every group element, at {group.sizes}")
    # the kernel runs the procedure itself on the statement; the steps shown are those of its run
    verdict = by_oracle(INVARIANCE_PROCEDURE, statement, label=claim, seed=seed)
    steps, not_applicable, sizes = verdict.details.pop("argument")
    return InvarianceOutcome(verdict, steps, not_applicable, sizes)
