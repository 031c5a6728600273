"""``python -m proofs audit``: which sharpness and flatness measures survive which symmetry.

    python -m proofs audit                          the matrix, measures × groups
    python -m proofs audit --json                   one JSON row per (measure, group)
    python -m proofs audit --markdown               the matrix as the README's Markdown table
    python -m proofs audit --latex DIR              one LaTeX document, compiled
    python -m proofs audit --measure path_norm --group per_neuron
    python -m proofs audit --measure-module mymeasures:sharpness     (or FILE.py:FUNCTION)
    python -m proofs audit --jobs 4                 the cells in 4 processes (default: one per core)

Every group is first proved a symmetry (f∘T = f, L∘T = L); a group that is not gets cells
``not_applicable`` with the refuted precondition and its counterexample.  Every other cell is
PROVED (an exact identity at the listed sizes, then an independent witness; for every size where
the kernel's every-size proofs carry the argument, ``proofs.measures_all_sizes``) or REFUTED (a concrete
network, data, θ and group element with both values), UNDECIDED with a reason only where neither
could be shown.  A refuted invariance is a finding, not a failure of the audit.
Exit code: 0 every cell decided, 3 some cell undecided, 2 bad usage.
"""
from __future__ import annotations

import importlib
import importlib.util
import json
import math
import multiprocessing
import os
import signal
import sys
import time
from dataclasses import dataclass

from symbolic.decision.budget import BudgetExhausted, time_budget
from symbolic.measures.invariance import Outcome
from symbolic.symmetries.invariance import check_invariance
from symbolic.measures.definitions import MEASURES, Measure
from symbolic.networks.symmetry_groups import GROUPS
from symbolic.report import counted
from symbolic.kernel.verdict import Status, Verdict

from proofs.commands.arguments import Accumulate, Parser, UsageError, names, positive_int, positive_seconds
from proofs.commands.parallel import default_jobs
from proofs.measures_all_sizes import EVERY_SIZE, every_size_verdict

MARKS = {"proved": "yes[s]", "refuted": "NO", "undecided": "?", "not_applicable": "n/a"}
EVERY_SIZE_MARK = "yes"
LEGEND = ("yes proved invariant for every size (through the kernel's every-size proofs); yes[s] proved at "
          "the listed sizes (JSON \"sizes\"); NO refuted (a counterexample); n/a the group is not a "
          "symmetry (its refuted precondition); ? undecided")

# what a proved cell's argument would need to hold at every size (the every-size proofs)
EVERY_SIZE_ROUTE = {
    "map": "the group's map T as a term of the kernel's index language, with L(T theta) = L(theta) a "
           "kernel theorem for every size (the kernel defines T_alpha, the per-neuron map, the deep "
           "layer-wise map, the sign flip, the permutation of hidden units, W -> cW in front of batch or "
           "layer normalization, the affine scale of batch normalization and the attention head's "
           "W_Q -> W_Q A, W_K -> W_K A^-T, a map that mixes coordinates)",
    "change of variables": "nothing more than the kernel's change of variables once T is defined: "
                           "the scales t_i are coordinate-wise and covariant",
    "similarity": "the every-size laws of Theorem 3 for this T and a similarity or congruence of the "
                  "measure's matrix",
    "identity": "the measure written in the index language on this network (the paths of a deep network, "
                "a product over its layers, or the largest eigenvalue of a layer's Gram matrix)",
}

@dataclass
class Cell:
    measure: str
    group: str
    outcome: Outcome
    seconds: float
    every_size: Verdict | None = None      # the kernel's every-size proof, where one applies

    @property
    def for_every_size(self) -> bool:
        return self.state == "proved" and self.every_size is not None and self.every_size.status is Status.PROVED

    @property
    def sizes(self):
        """"all", or the sizes the cell was established at."""
        return "all" if self.for_every_size else list(self.outcome.sizes)

    @property
    def mark(self) -> str:
        return EVERY_SIZE_MARK if self.for_every_size else MARKS[self.state]

    @property
    def status(self) -> Status:
        return self.outcome.verdict.status

    @property
    def state(self) -> str:
        """proved, refuted, undecided, or not_applicable (the group is not a symmetry)."""
        return "not_applicable" if self.outcome.not_applicable else self.status.value

    def every_size_route(self) -> str | None:
        if self.state != "proved" or self.for_every_size:
            return None
        statements = " ".join(step.statement for step in self.outcome.steps)
        if self.group not in EVERY_SIZE:
            kind = ("change of variables" if "t_i(T" in statements else
                    "similarity" if "P^{-1}" in statements or "T^{-\\top}" in statements else "identity")
            return f"{EVERY_SIZE_ROUTE['map']}; then {EVERY_SIZE_ROUTE[kind]}"
        return EVERY_SIZE_ROUTE["identity"]

    def as_json(self) -> dict:
        verdict = self.outcome.verdict
        return {"measure": self.measure, "group": self.group, "status": self.state,
                "sizes": self.sizes, "instance_sizes": list(self.outcome.sizes),
                "every_size": None if not self.for_every_size else {
                    "networks": EVERY_SIZE[self.group].sizes, "claim": self.every_size.claim,
                    "evidence": list(self.every_size.evidence)},
                "every_size_route": self.every_size_route(),
                "witness": dict(verdict.witness) if verdict.witness else None,
                "independent_witness": verdict.details.get("witness_point"),
                "evidence": list(verdict.evidence), "reason": verdict.reason or None,
                "steps": [{"statement": s.statement, "reason": s.reason,
                           "checked": s.checked, "holds": s.holds} for s in self.outcome.steps],
                "seconds": round(self.seconds, 3)}


def build_parser() -> Parser:
    parser = Parser(prog="python -m proofs audit",
                    description="Decide which measures are invariant under which symmetry groups.")
    parser.add_argument("--measure", type=names, action=Accumulate, metavar="KEY,...",
                        help=f"audit only these measures (repeatable): {', '.join(MEASURES)}")
    parser.add_argument("--measure-module", action="append", metavar="MODULE:FUNCTION",
                        help="audit your own measure: a function of a MeasurePoint in an importable "
                             "module or a .py file (FILE.py:FUNCTION), written as in the README")
    parser.add_argument("--group", type=names, action=Accumulate, metavar="KEY,...",
                        help=f"audit only these groups (repeatable): {', '.join(GROUPS)}")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random witness points")
    parser.add_argument("--cell-seconds", type=positive_seconds, default=CELL_SECONDS, metavar="SECONDS",
                        help=f"each cell's time budget (default {CELL_SECONDS:g}): a cell past it is UNDECIDED")
    parser.add_argument("--jobs", type=positive_int, default=default_jobs(), metavar="N",
                        help="check the cells in N processes (default: the number of cores); "
                             "the cells, their verdicts and their order do not depend on N")
    parser.add_argument("--json", action="store_true", help="print a JSON list instead of a table")
    parser.add_argument("--markdown", action="store_true",
                        help="print the matrix as a Markdown table (the README's), then the counts")
    parser.add_argument("--latex", metavar="DIR", help="write DIR/audit.tex and compile it")
    return parser


def _chosen(names, table, what) -> list:
    if not names:
        return list(table)
    for name in names:
        if name not in table:
            raise UsageError(f"unknown {what} {name!r}; choose from {', '.join(table)}")
    return list(dict.fromkeys(names))


def load_measure(spec: str) -> Measure:
    """MODULE:FUNCTION or FILE.py:FUNCTION as a Measure; any failure is a UsageError."""
    where, colon, name = spec.rpartition(":")
    if not colon or not where or not name.isidentifier():
        raise UsageError(f"--measure-module takes MODULE:FUNCTION or FILE.py:FUNCTION, got {spec!r}")
    try:
        if where.endswith(".py") or os.sep in where:
            if not os.path.isfile(where):
                raise UsageError(f"no file {where!r}")
            module_spec = importlib.util.spec_from_file_location(f"user_measure_{abs(hash(where))}", where)
            module = importlib.util.module_from_spec(module_spec)
            module_spec.loader.exec_module(module)
        else:
            if os.getcwd() not in sys.path:
                sys.path.insert(0, os.getcwd())
            module = importlib.import_module(where)
    except UsageError:
        raise
    except Exception as error:       # the user's module: any failure to import it is bad input
        raise UsageError(f"cannot import {where!r}: {type(error).__name__}: {error}".splitlines()[0]) from None
    function = getattr(module, name, None)
    if function is None:
        raise UsageError(f"{where!r} has no function {name!r}")
    if isinstance(function, Measure):
        return function
    if not callable(function) or isinstance(function, type):
        raise UsageError(f"{where}:{name} is a {type(function).__name__}, not a function of a MeasurePoint")
    return Measure(name, name.replace("_", " "), r"M(\theta)", function, source=f"{where}:{name}")


# the groups, slowest audit first (their cells' total seconds on one process): a hint of the order
# in which the workers take them up, so that the last to finish is a short one; it changes no cell
SLOWEST_GROUPS_FIRST = ("layernorm", "batchnorm_affine", "attention_qk", "deep_layerwise_bias", "sign_flip",
                        "batchnorm_scale", "per_neuron", "permutation", "layerwise", "batchnorm_scale_eps",
                        "weight_decay")


def run_audit(measures, groups, seed: int = 0, jobs: int = 1) -> list[Cell]:
    """The cells, group by group and measure by measure within a group, checked in ``jobs``
    processes (in this one for ``jobs`` 1, a single cell, or where processes cannot be forked)."""
    plan = [(measure, group) for group in groups for measure in measures]
    if jobs == 1 or len(plan) < 2 or "fork" not in multiprocessing.get_all_start_methods():
        return [check_cell(measure, group, seed) for measure, group in plan]
    cells = [None] * len(plan)
    tasks = _tasks(measures, groups, jobs)
    # the workers are forked: they inherit the plan (a user's measure need not be picklable) and
    # are handed the positions of a task's cells; leaving the block (also by an exception or
    # Ctrl-C) terminates them
    with multiprocessing.get_context("fork").Pool(min(jobs, len(tasks)), initializer=_adopt_plan,
                                                  initargs=(plan, seed)) as pool:
        for checked in pool.imap_unordered(_check_planned_cells, tasks):
            for position, cell in checked:
                cells[position] = cell
    return cells


def _tasks(measures, groups, jobs) -> list[tuple[int, ...]]:
    """The positions in the plan of each task's cells.  The cells of one group share its caches
    (its symbolic networks, Hessians, symmetry proofs), so a task is a whole group when there
    are at least two groups per worker; otherwise each group is cut into parts, about two tasks
    per worker in all, a part taking every k-th measure.  The slowest groups are handed out first."""
    parts = 1 if len(groups) >= 2 * jobs else min(math.ceil(2 * jobs / len(groups)), len(measures))
    # a group missing from the hint is taken as a slow one
    order = sorted(range(len(groups)), key=lambda g: SLOWEST_GROUPS_FIRST.index(groups[g])
                   if groups[g] in SLOWEST_GROUPS_FIRST else -1)
    return [tuple(g * len(measures) + m for m in range(part, len(measures), parts))
            for g in order for part in range(parts)]


# each cell's time budget (``--cell-seconds``): past it the cell is UNDECIDED, the audit goes on
CELL_SECONDS = 300.0
_cell_seconds = CELL_SECONDS


def check_cell(measure, group, seed: int) -> Cell:
    """One cell and the seconds it took, within its time budget; a user's measure that fails is a
    UsageError."""
    start = time.perf_counter()
    try:
        with time_budget(_cell_seconds):
            outcome = check_invariance(measure, group, seed=seed)
    except BudgetExhausted:
        key = measure.key if isinstance(measure, Measure) else measure
        outcome = Outcome(Verdict(Status.UNDECIDED, f"{key} is invariant under {group}",
                                  reason=f"the cell's time budget of {_cell_seconds:g} s ran out"))
    except Exception as error:
        if isinstance(measure, Measure) and measure.source.endswith(f":{measure.key}"):
            # the user's function failed on a MeasurePoint or returned the wrong kind
            raise UsageError(f"the measure {measure.source} cannot be audited: "
                             f"{type(error).__name__}: {error}".splitlines()[0]) from None
        raise
    key = measure.key if isinstance(measure, Measure) else measure
    return Cell(key, group, outcome, time.perf_counter() - start)


# in a worker: the (measure, group) pairs of the audit, in the order of the plan, and its seed
_worker_plan: list = []
_worker_seed: int = 0


def _adopt_plan(plan, seed) -> None:
    """A worker's start: the plan its parent had when it forked (never pickled), and Ctrl-C,
    which reaches the whole process group, left to the parent, which stops the pool."""
    global _worker_plan, _worker_seed
    _worker_plan, _worker_seed = plan, seed
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _check_planned_cells(positions) -> list[tuple[int, Cell]]:
    """In a worker: the cells at these positions of the plan, each with its position."""
    return [(position, check_cell(*_worker_plan[position], _worker_seed)) for position in positions]


def attach_every_size(cells, definitions) -> None:
    """Each cell with the kernel's every-size proof where one applies (``proofs.measures_all_sizes``);
    ``definitions`` maps each measure key to its Measure.
    A proof for every size beside a concrete refutation would be a contradiction: the cell then
    says so and is undecided."""
    for cell in cells:
        cell.every_size = every_size_verdict(definitions[cell.measure], cell.group)
        if cell.every_size is not None and cell.every_size.status is Status.PROVED and cell.state == "refuted":
            cell.outcome = Outcome(Verdict(Status.UNDECIDED, cell.outcome.verdict.claim, reason=(
                "contradiction: proved for every size, yet refuted at a concrete network")), cell.outcome.steps)


def print_matrix(cells, measures, groups, out=None) -> None:
    """The matrix (yes = proved invariant, NO = refuted), then the counterexamples."""
    out = sys.stdout if out is None else out   # the stream of the moment, not the one at import
    marks = {(c.measure, c.group): c.mark for c in cells}
    header = ["measure"] + groups
    rows = [[m] + [marks[(m, g)] for g in groups] for m in measures]
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
        elif cell.state == "undecided":
            print(f"\n?   {cell.measure} under {cell.group}: {verdict.reason}", file=out)
    for group in dict.fromkeys(c.group for c in cells if c.state == "not_applicable"):
        cell = next(c for c in cells if c.group == group)
        print(f"\nn/a {group}: {cell.outcome.not_applicable}", file=out)
    counts = {s: sum(c.state == s for c in cells) for s in MARKS}
    every = sum(c.for_every_size for c in cells)
    print(f"\n{counted(len(cells), 'cell')}: {counts['proved']} proved invariant ({every} for every size), "
          f"{counts['refuted']} "
          f"refuted, {counts['not_applicable']} not applicable, {counts['undecided']} undecided "
          f"({sum(c.seconds for c in cells):.1f} s)\n{LEGEND}", file=out)


MARKDOWN = {"proved": "✓ˢ", "refuted": "✗", "undecided": "?", "not_applicable": "n/a"}
MARKDOWN_EVERY_SIZE = "✓"


def print_markdown(cells, measures, groups, out=None) -> None:
    """The matrix as Markdown: ✓ proved for every size, ✓ˢ proved at the listed sizes, ✗ refuted,
    n/a not a symmetry."""
    out = sys.stdout if out is None else out   # the stream of the moment, not the one at import
    marks = {(c.measure, c.group): MARKDOWN_EVERY_SIZE if c.for_every_size else MARKDOWN[c.state] for c in cells}
    print("| measure | " + " | ".join(groups) + " |", file=out)
    print("|---" * (len(groups) + 1) + "|", file=out)
    for m in measures:
        print(f"| {m} | " + " | ".join(marks[(m, g)] for g in groups) + " |", file=out)
    counts = {s: sum(c.state == s for c in cells) for s in MARKS}
    every = sum(c.for_every_size for c in cells)
    print(f"\n{counted(len(cells), 'cell')}: {counts['proved']} proved ({every} for every size), "
          f"{counts['refuted']} refuted, "
          f"{counts['not_applicable']} not applicable, {counts['undecided']} undecided.", file=out)


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    own = [load_measure(spec) for spec in args.measure_module or []]
    measures = _chosen(args.measure, MEASURES, "measure") if args.measure or not own else []
    groups = _chosen(args.group, GROUPS, "group")
    if args.latex:
        try:    # a folder that cannot be written is bad usage, said before the audit runs
            os.makedirs(args.latex, exist_ok=True)
        except OSError as error:
            raise UsageError(f"cannot write into {args.latex}: {error.strerror}") from None
    global _cell_seconds
    _cell_seconds = args.cell_seconds          # the workers, forked, inherit it
    cells = run_audit(measures + own, groups, args.seed, args.jobs)
    attach_every_size(cells, {**MEASURES, **{m.key: m for m in own}})
    measures = measures + [m.key for m in own]
    if args.json:
        print(json.dumps([c.as_json() for c in cells], indent=1))
    elif args.markdown:
        print_markdown(cells, measures, groups)
    else:
        print_matrix(cells, measures, groups)
    if args.latex:
        from proofs.commands.audit_document import write_document
        try:
            line = write_document(cells, measures, groups, args.latex, {m.key: m for m in own})
        except OSError as error:
            raise UsageError(f"cannot write into {args.latex}: {error.strerror}") from None
        print(line, file=sys.stderr if args.json else sys.stdout)
    return 3 if any(c.state == "undecided" for c in cells) else 0
