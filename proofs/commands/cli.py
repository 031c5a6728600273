"""The command line: run the proof scripts and print a verdict table.

    python -m proofs                       every result at its default sizes
    python -m proofs theorem1 --steps      one result, with its derivation steps
    python -m proofs theorem1 --json       one result, as JSON
    python -m proofs --size 8,8,8 theorem3 exactly these sizes
    python -m proofs --latex out/          one LaTeX derivation per result, compiled to PDF
    python -m proofs --list                the results
    python -m proofs check 'ReLU(a*x)' 'a*ReLU(x)' --positive a
    python -m proofs example --c 0.1 --perturbation 0.1 --probe 2
    python -m proofs symmetry spec.toml
    python -m proofs --jobs 4                 the claims in 4 processes (default: one per core)
    python -m proofs --dask tcp://host:8786   the claims on a Dask cluster
    python -m proofs --certify coq            every identity the run proves re-checked by Coq

Exit code: 0 every claim PROVED, 1 some claim REFUTED, 3 some UNDECIDED and none REFUTED,
2 bad usage or bad input, 4 an internal error of the checker, 130 interrupted (Ctrl-C: the rows
decided so far are printed), 141 the output's reader closed the pipe (as for any Unix tool).
"""
from __future__ import annotations

import argparse
import ast
import importlib
import importlib.util
import json
import os
import re
import shutil
import sys
import textwrap
import time
import types

from symbolic.kernel.verdict import Status, worst

from proofs.commands import registry
from proofs.commands.arguments import EXIT_CLOSED_PIPE, EXIT_CODES, EXIT_INTERNAL_ERROR, EXIT_INTERRUPTED, \
    EXIT_USAGE, Parser, UsageError, default_jobs, positive_int, positive_seconds, program_name, size_triple

# the display, the process pool, the report and Coq's recorder are imported where a run of the
# results needs them: a subcommand (``check``) does not pay for them

PROGRESS_AFTER = 2.0      # seconds of a run before its progress line shows (on a terminal only)

# Subcommands: the name typed after ``python -m proofs`` and the module whose main(argv) runs it.
SUBCOMMANDS = {
    "audit": "proofs.commands.audit_command",
    "check": "proofs.commands.check_command",
    "corpus": "proofs.corpora.corpus",
    "derive": "proofs.commands.derive_command",
    "example": "proofs.commands.example_command",
    "rescale": "proofs.commands.rescale_command",
    "symmetry": "proofs.commands.symmetry_command",
    "trust": "proofs.commands.trust_command",
}


def module_source(module_name: str):
    """What the help and the list read of a module (its docstring, its EXAMPLE, its TITLE), read from
    its source without importing it, so that ``--help`` and ``--list`` do not load the engine; the
    module itself where a name is not a literal there."""
    spec = importlib.util.find_spec(module_name)
    try:
        with open(spec.origin, encoding="utf-8") as source:
            tree = ast.parse(source.read())
    except (OSError, SyntaxError, TypeError):
        return importlib.import_module(module_name)
    found = {"__doc__": ast.get_docstring(tree, clean=False)}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and node.targets[0].id in ("EXAMPLE", "TITLE"):
            try:
                found[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                return importlib.import_module(module_name)
    return types.SimpleNamespace(**found)


def _docstring_examples(doc: str | None) -> list[str]:
    return [line.strip() for line in (doc or "").splitlines()
            if line[:1].isspace() and line.strip().startswith("python -m proofs")]


def _subcommand_summary(name: str, module) -> tuple[str, str]:
    """What a subcommand does (its docstring's first sentence) and an example: its module's
    EXAMPLE, else the first for it in this module's docstring or in its own, else its --help."""
    doc = (module.__doc__ or "").strip()
    summary = " ".join(doc.split("\n\n")[0].split()).split(". ")[0].rstrip(".")
    summary = re.sub(r"``([^`]*)``", r"\1", summary)       # reStructuredText literals, as text
    if summary.startswith("python -m proofs") and ": " in summary:
        summary = summary.split(": ", 1)[1]
    examples = [line for line in _docstring_examples(__doc__) + _docstring_examples(module.__doc__)
                if line.split()[3:4] == [name]]
    return summary, getattr(module, "EXAMPLE", None) or (examples or [f"python -m proofs {name} --help"])[0]


def help_epilog() -> str:
    """Subcommands with an example each, examples of running results, and the exit codes."""
    lines = ["subcommands:"]
    for name, module_name in SUBCOMMANDS.items():
        summary, example = _subcommand_summary(name, module_source(module_name))
        lines += textwrap.wrap(summary, 96, initial_indent=f"  {name:<10}", subsequent_indent=" " * 12)
        lines.append(" " * 12 + example)
    lines += ["", "running results:"]
    lines += ["  " + line for line in _docstring_examples(__doc__)
              if (line.split() + [""])[3] not in SUBCOMMANDS]
    lines += [""] + textwrap.wrap(
        "exit codes: {} every claim PROVED, {} some claim REFUTED, {} some UNDECIDED and none "
        "REFUTED, {} bad usage or bad input (one line on stderr), {} an internal error of the "
        "checker (never a verdict), {} interrupted (Ctrl-C: the rows decided so far are printed), {} the "
        "reader of the output closed the pipe".format(
            EXIT_CODES[Status.PROVED], EXIT_CODES[Status.REFUTED], EXIT_CODES[Status.UNDECIDED],
            EXIT_USAGE, EXIT_INTERNAL_ERROR, EXIT_INTERRUPTED, EXIT_CLOSED_PIPE),
        96, subsequent_indent="  ")
    return "\n".join(lines)


class _MainParser(Parser):
    """The parser of ``python -m proofs``: its help ends with the subcommands, whose modules are
    imported only when the help is asked for."""

    def format_help(self) -> str:
        self.epilog = help_epilog()
        return super().format_help()


def build_parser() -> argparse.ArgumentParser:
    parser = _MainParser(prog="python -m proofs",
                    usage="python -m proofs [RESULT ...] [options]\n       python -m proofs "
                          f"{{{','.join(SUBCOMMANDS)}}} ... (each with --help)",
                    description="Check the results of Dinh et al. (2017) symbolically.",
                    formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", nargs="*", metavar="RESULT",
                        help=f"results to run (default: all): {', '.join(registry.names())}")
    parser.add_argument("--max-d", type=positive_int, help="largest input dimension d of the sweep")
    parser.add_argument("--max-h", type=positive_int, help="largest hidden width h of the sweep")
    parser.add_argument("--max-n", type=positive_int, help="largest number of data points N")
    parser.add_argument("--size", type=size_triple, action="append", metavar="D,H,N",
                        help="run exactly this size (repeatable); overrides the sweep")
    parser.add_argument("--timeout", type=positive_seconds, metavar="SECONDS",
                        help="time budget per claim; a claim that exceeds it is UNDECIDED")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random witness points")
    parser.add_argument("--steps", action="store_true",
                        help="print each result's derivation steps (checked, or logical glue) "
                             "before the summary line; with --json, an object of the claims and the "
                             "derivations' steps")
    parser.add_argument("--json", action="store_true",
                        help="print a JSON list of every claim, nothing cut, instead of a table")
    parser.add_argument("--latex", metavar="DIR",
                        help="write one LaTeX derivation per result into DIR and compile it")
    parser.add_argument("--list", action="store_true", help="list the results and exit")
    parser.add_argument("--jobs", type=positive_int, default=default_jobs(), metavar="N",
                        help="check the claims in N processes (default: the number of cores); "
                             "the results and their order do not depend on N")
    parser.add_argument("--dask", metavar="ADDRESS",
                        help="check the claims on the Dask scheduler at ADDRESS (e.g. "
                             "tcp://host:8786; needs the 'dask' extra)")
    parser.add_argument("--certify", choices=["coq"],
                        help="re-check every identity the run proves with Coq, in this process: a refutation "
                             "makes its row UNDECIDED and the exit code 4; a claim Coq does not check keeps "
                             "its verdict")
    return parser


def sweep(script, args) -> list[tuple[int, int, int]]:
    """The sizes to run: --size exactly, else every d, h, N up to the maxima."""
    largest = script.LARGEST_SIZES
    if hasattr(script, "FIXED_SIZES"):
        # a result with a fixed size: refuse sizing options when it is named, else say they are ignored
        sizing = [option for option, value in (("--size", args.size), ("--max-d", args.max_d),
                                               ("--max-h", args.max_h), ("--max-n", args.max_n)) if value]
        fixed = " and ".join(",".join(map(str, size)) for size in script.FIXED_SIZES)
        if sizing and script.NAME in args.results:
            raise UsageError(f"{script.NAME} runs at its fixed size d,h,N = {fixed}; "
                             f"{sizing[0]} does not apply to it")
        if sizing:
            print(f"proofs: note: {script.NAME} runs at its fixed size d,h,N = {fixed}; "
                  f"{', '.join(sizing)} ignored for it", file=sys.stderr)
        return list(script.FIXED_SIZES)
    if args.size:
        sizes = list(dict.fromkeys(args.size))
    else:
        top = [m if m is not None else default for m, default in
               zip((args.max_d, args.max_h, args.max_n), script.DEFAULT_SIZES)]
        sizes = [(d, h, n) for d in range(1, top[0] + 1) for h in range(1, top[1] + 1)
                 for n in range(1, top[2] + 1)]
    for size in sizes:
        if any(s > limit for s, limit in zip(size, largest)):
            raise UsageError(f"size d,h,N = {','.join(map(str, size))} is past the time budget of "
                             f"{script.NAME} (largest: {','.join(map(str, largest))})")
    return sizes


def print_table(results, derivations=(), show_steps: bool = False, out=None) -> None:
    """The verdict table fitted to the output's width, the derivation steps when asked for, and
    the summary line last (``symbolic.display``)."""
    from symbolic import display
    out = sys.stdout if out is None else out
    print(display.results_text(results, derivations, width=display.output_width(out),
                               show_steps=show_steps), file=out)


class _Progress:
    """A one-line progress bar on stderr, shown only on a terminal and as wide as it.  The bar moves
    with every claim (in a parallel run, with the claims of each task as it comes back, so by
    whole results when tasks are whole scripts): the current result's share fills as its claims
    finish.  How many claims a
    result has is known only when it ends, so after k claims of a result run at s sizes the bar
    stands at k/(k + s) of its share, and jumps to the share's end when the result is done."""

    def __init__(self, total: int, sizes: list[int] | None = None, after: float = 0.0):
        self.total, self.done, self.claims, self.start = total, 0, 0, time.monotonic()
        self.after, self.drawn = after, False       # drawn only once a run has lasted `after` s
        self.sizes = sizes or [1] * total
        self.claims_in_result = 0
        self.enabled = sys.stderr.isatty()

    def fraction(self) -> float:
        if self.done >= self.total:
            return 1.0
        within = self.claims_in_result / (self.claims_in_result + self.sizes[self.done])
        return (self.done + within) / self.total

    def draw(self, label: str) -> None:
        from symbolic.display import counted
        if self.enabled and time.monotonic() - self.start >= self.after:
            self.drawn = True
            columns = shutil.get_terminal_size((80, 24)).columns - 1
            width = max(10, min(30, columns // 4))
            filled = int(width * self.fraction())
            line = (f"[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} results, "
                    f"{counted(self.claims, 'claim')}, {time.monotonic() - self.start:5.1f}s  {label}")
            print("\r" + line[:columns].ljust(columns), end="", file=sys.stderr, flush=True)

    def claim_done(self, row) -> None:
        self.claims += 1
        self.claims_in_result += 1
        sizes = ",".join("-" if s is None else str(s) for s in (row.d, row.h, row.n))
        self.draw(f"{row.theorem}: {row.claim} ({sizes})")

    def result_done(self, name: str) -> None:
        self.done += 1
        self.claims_in_result = 0
        self.draw(name)

    def close(self) -> None:
        if self.drawn:
            columns = shutil.get_terminal_size((80, 24)).columns - 1
            print("\r" + " " * columns + "\r", end="", file=sys.stderr, flush=True)


def run_results(args) -> int:
    from symbolic import display
    from symbolic import report as report_module
    from symbolic.coq.recording import Recorder
    from proofs.commands import parallel
    names = args.results or registry.names()
    unknown = [n for n in names if n not in registry.names()]
    if unknown:
        raise UsageError(f"unknown result {unknown[0]!r}; choose from {', '.join(registry.names())}")
    scripts = [registry.load(n) for n in names]
    plans = [(script, sweep(script, args)) for script in scripts]
    progress = _Progress(len(plans), [len(sizes) for _, sizes in plans], after=PROGRESS_AFTER)
    decided = []            # every row as it is decided: what Ctrl-C keeps

    def claim_done(row):
        decided.append(row)
        progress.claim_done(row)
    report_module.progress_hook = claim_done
    reports = []
    # Coq's pass records the identities the run proves: the claims run here, in one process
    recorder = Recorder().start() if args.certify == "coq" else None
    try:
        if (args.dask is not None or args.jobs > 1) and recorder is None:
            reports = parallel.run_scripts(plans, args.seed, args.timeout, jobs=args.jobs,
                                           address=args.dask, on_done=claim_done)
            for script, _ in plans:
                progress.result_done(script.NAME)
        else:
            for script, sizes in plans:
                reports.append(script.run(sizes, seed=args.seed, timeout=args.timeout))
                progress.result_done(script.NAME)
    except KeyboardInterrupt:
        progress.close()
        parallel_run = (args.dask is not None or args.jobs > 1) and recorder is None
        return interrupted(decided, len(plans), args, parallel_run)
    finally:
        report_module.progress_hook = None
        progress.close()
        if recorder is not None:
            recorder.stop()
    results = [row for report in reports for row in report.results]
    if recorder is not None:
        # the proof scripts ran here; Coq's batches run side by side with --jobs, or on Dask workers
        print(recorder.certify_rows(mapper=parallel.coq_mapper(args.jobs, args.dask)), file=sys.stderr)
    if args.json and args.steps:
        print(json.dumps({"claims": [r.as_json() for r in results],
                          "derivations": display.steps_json([report.derivation for report in reports])},
                         indent=1))
    elif args.json:
        print(json.dumps([r.as_json() for r in results], indent=1))
    else:
        print_table(results, [report.derivation for report in reports], show_steps=args.steps)
    if args.latex:
        from proofs.commands.latex_output import write_documents
        try:
            lines = write_documents([r.derivation for r in reports], args.latex)
        except OSError as error:
            raise UsageError(f"cannot write into {args.latex}: {error.strerror}") from None
        for line in lines:
            print(line, file=sys.stderr if args.json else sys.stdout)
    if any(r.verdict.details.get("disagreement") for r in results):
        print("proofs: the kernel and Coq disagree on a claim (its row is UNDECIDED)", file=sys.stderr)
        return EXIT_INTERNAL_ERROR
    return EXIT_CODES[worst(r.verdict for r in results)]


def interrupted(decided: list, planned: int, args, parallel_run: bool = False) -> int:
    """Ctrl-C during a run: the rows decided so far (a table, or JSON with --json), a summary that
    says the run was interrupted, and exit 130.  Nothing is claimed of the rows not run.  In a
    parallel run a task's rows come back when the task ends: those of the tasks under way are lost."""
    results = {row.theorem for row in decided}
    note = (f"interrupted (Ctrl-C): {len(decided)} claim{'s' if len(decided) != 1 else ''} decided, "
            f"from {len(results)} of the {planned} result{'s' if planned != 1 else ''} asked for; the claims "
            "not run have no verdict, and the run's status is that of an interrupted run (exit 130)")
    if parallel_run:
        note += ("; the rows of the tasks still running in other processes are lost (a task's rows come back "
                 "when it ends: --jobs 1 keeps every row decided)")
    if args.json:
        print(json.dumps([row.as_json() for row in decided], indent=1))
    elif decided:
        print_table(decided)
    print(note, file=sys.stderr if args.json else sys.stdout)
    print(f"{program_name()}: interrupted", file=sys.stderr)
    return EXIT_INTERRUPTED


def closed_pipe() -> int:
    """The reader of the output went away (``python -m proofs --list | head -3``): stop without a
    word, with the status of any Unix tool whose output pipe closed (128 + SIGPIPE).  What is left
    in stdout's buffer goes nowhere, so that Python's flush at exit cannot complain."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return EXIT_CLOSED_PIPE


def dispatch(argv: list[str]) -> int:
    """Run a subcommand, list the results, or run them: the exit code."""
    if argv and argv[0] in SUBCOMMANDS:
        return importlib.import_module(SUBCOMMANDS[argv[0]]).main(argv[1:])
    parser = build_parser()
    # the results may be named between the options: theorem1 --size 1,1,1 theorem2 runs both
    args = parser.parse_intermixed_args(argv)
    if args.list:
        others = [f"--{name.replace('_', '-')}" if name != "results" else "RESULT"
                  for name, value in vars(args).items()
                  if name != "list" and value not in (parser.get_default(name), None, [], False)]
        if others:
            raise UsageError(f"--list takes no other arguments, got {others[0]}")
        for name in registry.names():
            print(f"{name:<16} {module_source(registry.SCRIPTS[name]).TITLE}")
        return 0
    return run_results(args)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        status = dispatch(argv)
        sys.stdout.flush()          # a closed pipe shows here, not in Python's flush at exit
        return status
    except UsageError as error:
        print(f"{program_name()}: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"{program_name()}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return closed_pipe()
    except Exception as error:  # noqa: BLE001 - a bug is reported as one, never as a verdict
        print(f"{program_name()}: internal error: {type(error).__name__}: {error}", file=sys.stderr)
        return EXIT_INTERNAL_ERROR
