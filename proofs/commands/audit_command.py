"""``python -m proofs audit``: which sharpness and flatness measures survive which symmetry.

    python -m proofs audit                          the matrix, measures × groups
    python -m proofs audit --json                   one JSON row per (measure, group)
    python -m proofs audit --latex DIR              one LaTeX document, compiled
    python -m proofs audit --measure path_norm --group per_neuron

Every cell is PROVED (an exact identity, then an independent witness) or REFUTED (a concrete
network, data, θ and group element with both values), UNDECIDED with a reason only where neither
could be shown.  A refuted invariance is a finding, not a failure of the audit.
Exit code: 0 every cell decided, 3 some cell undecided, 2 bad usage.
"""
from __future__ import annotations

import json
import os
import sys
import time
from dataclasses import dataclass

from symbolic.measures.invariance import Outcome, check_invariance
from symbolic.measures.definitions import MEASURES
from symbolic.networks.symmetry_groups import GROUPS
from symbolic.report import counted
from symbolic.verdict import Status

from proofs.commands.arguments import Parser, UsageError

MARKS = {Status.PROVED: "yes", Status.REFUTED: "NO", Status.UNDECIDED: "?"}


@dataclass
class Cell:
    measure: str
    group: str
    outcome: Outcome
    seconds: float

    @property
    def status(self) -> Status:
        return self.outcome.verdict.status

    def as_json(self) -> dict:
        verdict = self.outcome.verdict
        return {"measure": self.measure, "group": self.group, "status": verdict.status.value,
                "witness": dict(verdict.witness) if verdict.witness else None,
                "independent_witness": verdict.details.get("witness_point"),
                "evidence": list(verdict.evidence), "reason": verdict.reason or None,
                "steps": [{"statement": s.statement, "reason": s.reason,
                           "checked": s.checked, "holds": s.holds} for s in self.outcome.steps],
                "seconds": round(self.seconds, 3)}


def build_parser() -> Parser:
    parser = Parser(prog="python -m proofs audit",
                    description="Decide which measures are invariant under which symmetry groups.")
    parser.add_argument("--measure", action="append", metavar="KEY",
                        help=f"audit only this measure (repeatable): {', '.join(MEASURES)}")
    parser.add_argument("--group", action="append", metavar="KEY",
                        help=f"audit only this group (repeatable): {', '.join(GROUPS)}")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random witness points")
    parser.add_argument("--json", action="store_true", help="print a JSON list instead of a table")
    parser.add_argument("--latex", metavar="DIR", help="write DIR/audit.tex and compile it")
    return parser


def _chosen(names, table, what) -> list:
    if not names:
        return list(table)
    for name in names:
        if name not in table:
            raise UsageError(f"unknown {what} {name!r}; choose from {', '.join(table)}")
    return list(dict.fromkeys(names))


def run_audit(measures, groups, seed: int = 0) -> list[Cell]:
    cells = []
    for group in groups:
        for measure in measures:
            start = time.perf_counter()
            outcome = check_invariance(measure, group, seed=seed)
            cells.append(Cell(measure, group, outcome, time.perf_counter() - start))
    return cells


def print_matrix(cells, measures, groups, out=sys.stdout) -> None:
    """The matrix (yes = proved invariant, NO = refuted), then the counterexamples."""
    status = {(c.measure, c.group): c.status for c in cells}
    header = ["measure"] + groups
    rows = [[m] + [MARKS[status[(m, g)]] for g in groups] for m in measures]
    widths = [max(len(str(r[k])) for r in [header] + rows) for k in range(len(header))]
    for row in [header, ["-" * w for w in widths]] + rows:
        print("  ".join(str(x).ljust(w) for x, w in zip(row, widths)).rstrip(), file=out)
    for cell in cells:
        verdict = cell.outcome.verdict
        if cell.status is Status.REFUTED:
            w = verdict.witness
            print(f"\nNO  {cell.measure} under {cell.group}: {w['network']}, theta = {w['theta']}, "
                  f"{w['group_element']}\n    at theta:   {w['value_at_theta']}\n"
                  f"    at T theta: {w['value_at_T_theta']}", file=out)
        elif cell.status is Status.UNDECIDED:
            print(f"\n?   {cell.measure} under {cell.group}: {verdict.reason}", file=out)
    counts = {s: sum(c.status is s for c in cells) for s in Status}
    print(f"\n{counted(len(cells), 'cell')}: {counts[Status.PROVED]} proved invariant, {counts[Status.REFUTED]} "
          f"refuted, {counts[Status.UNDECIDED]} undecided ({sum(c.seconds for c in cells):.1f} s)",
          file=out)


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    measures = _chosen(args.measure, MEASURES, "measure")
    groups = _chosen(args.group, GROUPS, "group")
    if args.latex:
        try:    # a folder that cannot be written is bad usage, said before the audit runs
            os.makedirs(args.latex, exist_ok=True)
        except OSError as error:
            raise UsageError(f"cannot write into {args.latex}: {error.strerror}") from None
    cells = run_audit(measures, groups, args.seed)
    if args.json:
        print(json.dumps([c.as_json() for c in cells], indent=1))
    else:
        print_matrix(cells, measures, groups)
    if args.latex:
        from proofs.commands.audit_document import write_document
        try:
            line = write_document(cells, measures, groups, args.latex)
        except OSError as error:
            raise UsageError(f"cannot write into {args.latex}: {error.strerror}") from None
        print(line, file=sys.stderr if args.json else sys.stdout)
    return 3 if any(c.status is Status.UNDECIDED for c in cells) else 0
