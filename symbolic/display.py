"""What a person reads: a verdict and a report as text, the same from ``print`` in Python as from
the command line.

A table fits a given width (the terminal's, or ``PLAIN_WIDTH`` when the output is not a terminal):
the columns that are short by nature keep their width and the long ones (a claim, a result's
name) are cut to the room left, with an ellipsis.  The summary line comes last.  JSON (the
command line's ``--json``) keeps every character.
"""
from __future__ import annotations

import re
import shutil
import sys

from symbolic.derivation import summarize_sizes
from symbolic.latex import to_plain
from symbolic.verdict import Status, worst

PLAIN_WIDTH = 100         # the width of a table whose reader is not a terminal
ELLIPSIS = "…"
SIZES_WIDTH = 20          # characters of a table's sizes column, at most
PROBLEMS_SHOWN = 20       # REFUTED or UNDECIDED rows described after the table, at most


def counted(number: int, noun: str, plural: str | None = None) -> str:
    """'1 box', '3 boxes': a count with its noun in the right number."""
    return f"{number} {noun if number == 1 else plural or noun + 's'}"


def output_width(stream=None) -> int:
    """The terminal's width when ``stream`` (default stdout) is one, else PLAIN_WIDTH."""
    stream = sys.stdout if stream is None else stream
    try:
        terminal = stream.isatty()
    except (AttributeError, ValueError):
        terminal = False
    return shutil.get_terminal_size((PLAIN_WIDTH, 24)).columns if terminal else PLAIN_WIDTH


def cut(text: str, width: int, middle: bool = False) -> str:
    """text, or width - 1 of its characters and an ellipsis: its beginning, or (``middle``) its
    beginning and its end, where a claim often says which case it is."""
    if len(text) <= width:
        return text
    if not middle or width < 12:
        return text[:max(width - 1, 0)] + ELLIPSIS
    tail = (width - 1) * 2 // 5
    return text[:width - 1 - tail].rstrip() + ELLIPSIS + text[len(text) - tail:]


def table(header: tuple, rows: list[tuple], width: int, flexible: tuple[int, ...],
          middle: tuple[int, ...] = ()) -> list[str]:
    """Rows under a header and a rule, columns two spaces apart, at most ``width`` characters a
    line: the columns numbered in ``flexible`` share what the others leave (the widest first
    given up), each cut with an ellipsis (in the middle for the columns in ``middle``)."""
    cells = [tuple(str(x) for x in row) for row in [header, *rows]]
    widths = [max(len(row[k]) for row in cells) for k in range(len(header))]
    room = width - 2 * (len(header) - 1) - sum(w for k, w in enumerate(widths) if k not in flexible)
    # shrink the widest flexible column until they fit, none below its header
    while sum(widths[k] for k in flexible) > max(room, 0):
        widest = max(flexible, key=lambda k: widths[k])
        if widths[widest] <= len(header[widest]):
            break
        widths[widest] -= 1
    lines = []
    for number, row in enumerate(cells):
        lines.append("  ".join(cut(x, w, k in middle).ljust(w)
                               for k, (x, w) in enumerate(zip(row, widths))).rstrip())
        if number == 0:
            lines.append("  ".join("-" * w for w in widths))
    return lines


# --- a verdict ---------------------------------------------------------------------------------------

def verdict_text(verdict, values: dict | None = None) -> str:
    """A verdict as ``python -m proofs check`` prints it: the verdict line, the two sides' values
    at a witness when given, one line per piece of evidence."""
    lines = [verdict.describe()]
    if values:
        lines.append(f"  at the witness: lhs = {values['lhs']}, rhs = {values['rhs']}")
    lines += [f"  evidence: {line}" for line in verdict.evidence]
    return "\n".join(lines)


# --- a report: the rows of proof scripts -----------------------------------------------------------------

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
    """Each derivation's steps, saying which the CAS checked and which are logical glue."""
    lines = []
    for derivation in derivations:
        lines += ["", f"{derivation.name}: derivation steps"]
        for number, step in enumerate(derivation.steps, start=1):
            how = f"checked, {step.status.name}" if step.checked else "logical glue"
            lines.append(f"  ({number}) [{how}] {to_plain(step.reason)}")
    return lines


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
