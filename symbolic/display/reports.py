"""A report as text: the verdict table of proof scripts' rows fitted to a width, the REFUTED and
UNDECIDED rows described, the derivation steps when asked for, and the summary line last.  JSON
(the command line's ``--json``) keeps every character."""
from __future__ import annotations

import re

from symbolic.derivation import summarize_sizes
from symbolic.display.tables import counted, cut, output_width, table
from symbolic.latex import to_plain
from symbolic.kernel.verdict import Status, worst

SIZES_WIDTH = 20          # characters of a table's sizes column, at most
PROBLEMS_SHOWN = 20       # REFUTED or UNDECIDED rows described after the table, at most


HEADER = ("result", "claim", "sizes", "verdict", "seconds")


def sizes_text(rows) -> str:
    """The sizes a claim ran at, short: 'every size' when they were symbols, '-' when it has
    none, else as ``summarize_sizes`` writes them without the count of cases."""
    if all(r.for_all_sizes for r in rows):
        return "every size"
    return re.sub(r" \(\d+ cases\)$", "", summarize_sizes([(r.d, r.h, r.n) for r in rows]) or "-")


def result_rows(results) -> list[tuple]:
    """One row per (result, claim): the sizes it ran at, its worst verdict, its total time."""
    groups: dict[tuple[str, str], list] = {}
    for row in results:
        groups.setdefault((row.theorem, row.claim), []).append(row)
    return [(theorem, claim, cut(sizes_text(rows), SIZES_WIDTH), worst(r.verdict for r in rows).name,
             f"{sum(r.seconds for r in rows):.2f}") for (theorem, claim), rows in groups.items()]


def summary(results) -> str:
    counts = {s: sum(r.verdict.status is s for r in results) for s in Status}
    return (f"{counted(len(results), 'claim')}: {counts[Status.PROVED]} proved, "
            f"{counts[Status.REFUTED]} refuted, {counts[Status.UNDECIDED]} undecided")


def problems(results) -> list[str]:
    """Each REFUTED or UNDECIDED row (the first PROBLEMS_SHOWN) with its reason and witness."""
    lines = []
    for row in [r for r in results if r.verdict.status is not Status.PROVED][:PROBLEMS_SHOWN]:
        lines += ["", f"{row.verdict.status.name} {row.theorem} {row.claim} (d={row.d}, h={row.h}, "
                      f"N={row.n}): {row.verdict.reason}"]
        if row.verdict.witness:
            lines.append("  witness: " + ", ".join(f"{k} = {v}" for k, v in row.verdict.witness.items()))
    return lines


def steps(derivations) -> list[str]:
    """Each derivation's steps: its verdict, where it was checked, its reason."""
    lines = []
    for derivation in derivations:
        lines += ["", f"{derivation.name}: derivation steps"]
        for number, step in enumerate(derivation.all_steps, start=1):
            lines.append(f"  ({number}) [checked, {step.status.name}; {step.where}] {to_plain(step.reason)}")
    return lines


def steps_json(derivations) -> list[dict]:
    """Each derivation's steps as JSON: its name and, per step, its status, the statement shown
    (printed from the theorem proved; the statement run on when not proved), where it was checked,
    and its reason."""
    return [{"result": derivation.name,
             "steps": [{"step": number, "checked": step.checked, "status": step.status.value,
                        "statement": step.statement.text if step.statement is not None else str(step.shown.claim),
                        "where": step.where, "reason": to_plain(step.reason)}
                       for number, step in enumerate(derivation.all_steps, start=1)]}
            for derivation in derivations]


def results_text(results, derivations=(), *, width: int | None = None, show_steps: bool = False) -> str:
    """The command line's default output: the table fitted to ``width`` (default: the output's),
    the problems, the derivation steps when asked for, and the summary line last."""
    width = output_width() if width is None else width
    lines = table(HEADER, result_rows(results), width, flexible=(1, 0), middle=(1,))
    lines += problems(results)
    if show_steps:
        lines += steps(derivations)
    return "\n".join(lines + ["", summary(results)])


def report_text(report, *, width: int | None = None, show_steps: bool = False) -> str:
    """One proof script's report as ``python -m proofs RESULT`` prints it."""
    return results_text(report.results, [report.derivation], width=width, show_steps=show_steps)
