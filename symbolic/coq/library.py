"""The Coq development of the paper's results for every size (``coq/`` at the repository's root),
and which every-size result each of its theorems proves.

``DEVELOPMENT`` lists its theorems for every size.  ``check_library()`` compiles the development once per process with
``coqc`` into a temporary folder and asks ``Print Assumptions`` of every theorem: a theorem is
"checked" when it compiles and rests on no axiom beyond the two that Coq's real numbers rest on.

Every coqc call runs under a cap on its CPU time (``timed_coqc``), never on wall time, so that a
loaded machine gives the same answers as an idle one; ``check_items`` checks many items (lemmas,
exported chains) in one call and answers each one alone.
"""
from __future__ import annotations

import functools
import math
import os
import re
import resource
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

SOURCES = Path(__file__).resolve().parents[2] / "coq"
LIBRARY = "Sharp"                   # the development's logical name (-Q coq Sharp)
COMPILE_SECONDS = 300               # a cap on the CPU time of one file's compile, far above its few seconds
STARTUP_SECONDS = 2                 # CPU for coqc to load the reals and a header, above its half second
RETRY = 3                           # an item out of time is tried once more, alone, with RETRY times its cap
WALL_GUARD = 10                     # a call is stopped after WALL_GUARD times its CPU cap of wall time...
WALL_GRACE = 600                    # ... plus this many seconds: only a machine stalled for minutes reaches it
POLL_SECONDS = 0.1                  # how often the CPU time of a coqc call and its solvers is read

# The axioms of the standard library's reals (Reals rests on them; Print Assumptions of any lemma
# about R names them).
REALS_AXIOMS = frozenset({"ClassicalDedekindReals.sig_forall_dec",
                          "FunctionalExtensionality.functional_extensionality_dep"})
# the third axiom of the reals, which the library's sqrt rests on: Coquelicot's Euclidean norm of a
# pair is a sqrt, so the theorems of the files that need Coquelicot may rest on it as well
SQRT_AXIOM = "ClassicalDedekindReals.sig_not_dec"

_T1, _T3, _DEEP, _PRE, _PART = "Theorem1", "Theorem3", "Deep", "Prelude", "Partials"

# the theorems of the development for every size: the rules the chains cite, Theorems 1 and 3, the
# multi-layer and per-neuron laws (which rows they prove is read from the rows' own statements by
# the Coq pass, ``symbolic.coq.recording``, never from a table of claims)
DEVELOPMENT: tuple[str, ...] = (
    "Prelude.sum_factor", "Prelude.relu_pos_hom", "Prelude.step_pos_hom", "Partials.chain_rule",
    "Partials.partial_scal", "Partials.partial_sum", "Partials.partial_plus", "Partials.partial_mult",
    "Partials.partial_const", "Partials.partial_coord", "Partials.partial_relu", "Partials.partial_step",
    "Prelude.sum_plus", "Prelude.sum_delta", "Theorem1.theorem1_prediction", "Theorem1.theorem1_loss",
    "Theorem3.theorem3_gradient", "Theorem3.theorem3_differentiable", "Theorem3.theorem3_gradient_form",
    "Theorem3.theorem3_hessian", "Theorem3.theorem3_hessian_exists", "Theorem3.theorem3_hessian_form",
    "Theorem3.per_neuron_prediction", "Theorem3.per_neuron_loss", "Theorem3.per_neuron_gradient",
    "Theorem3.per_neuron_hessian", "Deep.layers_prediction0", "Deep.layers_loss0", "Deep.layers_gradient0",
    "Deep.layers_hessian0", "Deep.layers_prediction", "Deep.layers_loss", "Deep.layers_gradient",
    "Deep.layers_hessian", "Deep.per_unit_prediction0", "Deep.per_unit_loss0", "Deep.per_unit_gradient0",
    "Deep.per_unit_hessian0", "Deep.per_unit_prediction", "Deep.per_unit_loss", "Deep.per_unit_gradient",
    "Deep.per_unit_hessian",
)

# results beyond those: Theorem 1 (c), the determinant of T_alpha, a Hessian entry made large, the
# diagonal laws they all rest on
FURTHER: tuple[str, ...] = (
    f"{_T1}.theorem1_local_min", f"{_T1}.theorem1", f"{_T1}.scale_inverse",
    "Diagonal.partial_transport", "Diagonal.gradient_law", "Diagonal.differentiable_transport",
    "Diagonal.hessian_law", "Diagonal.partial_near_transport", "Diagonal.gradient_form", "Diagonal.hessian_form",
    f"{_T3}.theorem3_gradient_W", f"{_T3}.theorem3_gradient_v",
    "Theorem2_4.t_alpha_determinant", "Theorem2_4.scale_compose", "Theorem2_4.hessian_entry_W",
    "Theorem2_4.hessian_entry_v",
    f"{_PRE}.leaky_pos_hom", f"{_PRE}.relu_derivative_pos", f"{_PRE}.relu_derivative_neg",
    f"{_PRE}.step_derivative", f"{_PART}.partial_comp",
    # the rules exported chains cite beyond the prelude's (``symbolic.coq.chains``)
    "Chains.abs_pos_hom", "Chains.abs_sign", "Chains.signZ_square", "Chains.signZ_cases", "Chains.root_hom",
    "Chains.rroot_hom", "Chains.sum_reindex", "Chains.sum_swap",
    # Theorem 3 with Fréchet derivatives and Theorem 1 (c) for the Euclidean norm (Coquelicot)
    "Frechet.frechet_unique", "Frechet.regularity_transport", "Frechet.gradient_transport",
    "Frechet.hessian_transport", "Frechet.local_min_transport", "Frechet.euclidean_norm",
    "Frechet.theorem3_frechet", "Frechet.theorem1_local_min", "Frechet.hessian_scal_first",
    "Frechet.hessian_scal_second", "Frechet.basis_unit", "Frechet.theorem4_frechet",
)

# the rules that are valid for every size but that the kernel checks on instances only (their
# ``instance_checked`` entries, as the theorems resting on them list them) -> the Coq theorems that
# prove them for every order (mathcomp's matrices, over every commutative ring)
INSTANCE_RULES: dict[str, tuple[str, ...]] = {
    "det(P M P^T) = det(P)^2 det(M): generic P, M of orders 1 and 2, P = D Q at order 3":
        ("Matrices.det_congruence",),
    "A B^T = I for B = A^(-T): orders 1 to 3": ("Matrices.inverse_pair",),
    "spectral-norm rules: the Gram polynomials of generic 2x3 and 3x1 matrices":
        ("Spectral.spectral_scale", "Spectral.spectral_sign_rows", "Spectral.spectral_sign_columns",
         "Spectral.spectral_permute_rows", "Spectral.spectral_permute_columns"),
    "chain rule through a mixing: a quadratic g at d x K = 1x1, 1x2, 2x2, 1x3": ("Frechet.mixing_chain_rule",),
}
# the files those theorems are in, with the files they need (compiled alone by ``check_matrices``)
INSTANCE_FILES = ("Prelude.v", "Theorem1.v", "Frechet.v", "Chains.v", "Spectral.v", "Matrices.v")

# the files that need mathcomp (Debian: libcoq-mathcomp-algebra), compiled only where it is installed
NEEDS_MATHCOMP = ("Matrices.v",)
# the files that need Coquelicot (Debian: libcoq-coquelicot), compiled only where it is installed
NEEDS_COQUELICOT = ("Frechet.v",)

THEOREMS: tuple[str, ...] = tuple(dict.fromkeys(list(DEVELOPMENT)
                                                + list(FURTHER)
                                                + [name for names in INSTANCE_RULES.values() for name in names]))

COQC_MISSING = "not checked: coqc is not installed (Debian: apt-get install coq)"
MATHCOMP_MISSING = "not checked: mathcomp is not installed (Debian: apt-get install libcoq-mathcomp-algebra)"
COQUELICOT_MISSING = "not checked: Coquelicot is not installed (Debian: apt-get install libcoq-coquelicot)"

MARK = "@@ "                        # printed before each theorem's assumptions


def coqc() -> str | None:
    """The path of coqc, or None where Coq is not installed."""
    return shutil.which("coqc")


@functools.cache
def mathcomp() -> bool:
    """Whether coqc finds mathcomp's matrices."""
    if coqc() is None:
        return False
    with tempfile.TemporaryDirectory(prefix="coq-mathcomp-") as folder:
        (Path(folder) / "Probe.v").write_text("From mathcomp Require Import matrix.\n")
        return timed_coqc(Path(folder), "Probe.v", COMPILE_SECONDS).accepted


@functools.cache
def coquelicot() -> bool:
    """Whether coqc finds Coquelicot."""
    if coqc() is None:
        return False
    with tempfile.TemporaryDirectory(prefix="coq-coquelicot-") as folder:
        (Path(folder) / "Probe.v").write_text("From Coquelicot Require Import Coquelicot.\n")
        return timed_coqc(Path(folder), "Probe.v", COMPILE_SECONDS).accepted


def source_files() -> list[Path]:
    """The development's files in dependency order, as _CoqProject lists them."""
    listed = (SOURCES / "_CoqProject").read_text().split()
    return [SOURCES / name for name in listed if name.endswith(".v")]


def rests_on_reals_only(axioms: list[str]) -> bool:
    return set(axioms) <= REALS_AXIOMS


def _needs_mathcomp(name: str) -> bool:
    return f"{name.split('.')[0]}.v" in NEEDS_MATHCOMP


def _needs_coquelicot(name: str) -> bool:
    return f"{name.split('.')[0]}.v" in NEEDS_COQUELICOT


@functools.cache
def check_library(matrices: bool = True) -> dict[str, str]:
    """Each theorem of THEOREMS -> "checked", or why not (coqc missing, a file refused, an axiom
    beyond the reals'), compiled once per process; ``matrices=False`` leaves out the files that need
    mathcomp (slow to load), whose theorems the every-size rows do not cite."""
    theorems = [name for name in THEOREMS if matrices or not _needs_mathcomp(name)]
    if coqc() is None:
        return dict.fromkeys(theorems, COQC_MISSING)
    missing = {} if matrices and mathcomp() else dict.fromkeys(
        [name for name in theorems if _needs_mathcomp(name)], MATHCOMP_MISSING)
    if not coquelicot():
        missing.update(dict.fromkeys([name for name in theorems if _needs_coquelicot(name)], COQUELICOT_MISSING))
    with tempfile.TemporaryDirectory(prefix="coq-library-") as folder:
        failure = _compile(Path(folder), skip=() if matrices else NEEDS_MATHCOMP)
        if failure:
            return dict.fromkeys(theorems, failure)
        results = assumptions(Path(folder), [name for name in theorems if name not in missing])
    return {**results, **missing}


@functools.cache
def check_matrices() -> dict[str, str]:
    """The theorems that prove for every size the rules the kernel checks on instances (the
    spectral norm's, and the matrix rules of the files that need mathcomp) -> "checked" or why not,
    their files alone compiled."""
    theorems = [name for names in INSTANCE_RULES.values() for name in names]
    if coqc() is None:
        return dict.fromkeys(theorems, COQC_MISSING)
    missing = {} if mathcomp() else dict.fromkeys([name for name in theorems if _needs_mathcomp(name)],
                                                  MATHCOMP_MISSING)
    if not coquelicot():
        missing.update(dict.fromkeys([name for name in theorems if _needs_coquelicot(name)], COQUELICOT_MISSING))
    with tempfile.TemporaryDirectory(prefix="coq-matrices-") as folder:
        failure = _compile(Path(folder), only=INSTANCE_FILES)
        if failure:
            return dict.fromkeys(theorems, failure)
        return {**assumptions(Path(folder), [name for name in theorems if name not in missing]), **missing}


def instance_rules_proved(checked: tuple) -> dict[str, str]:
    """The rules among a theorem's ``instance_checked`` entries that the development proves for every
    order -> the evidence line naming the Coq theorems (those Coq has checked in this process)."""
    proved = {}
    for entry in checked:
        names = INSTANCE_RULES.get(entry, ())
        if names and all(check_matrices()[name] == "checked" for name in names):
            proved[entry] = f"proved for every size in Coq: {', '.join(f'{LIBRARY}.{name}' for name in names)}"
    return proved


@dataclass(frozen=True)
class Run:
    """One coqc call: whether Coq accepted the file, what it printed, the line its error names (0 if
    none), the CPU seconds it used (the solvers it called included), and which cap stopped it."""

    accepted: bool
    output: str                   # what coqc printed, its standard output then its errors
    stdout: str = ""              # its standard output alone
    line: int = 0
    cpu: float = 0.0
    stopped: str = ""             # "" when coqc ended by itself; "cpu" or "wall" when a cap stopped it

    @property
    def out_of_time(self) -> bool:
        return bool(self.stopped)


def _cap_cpu(pid: int, seconds: int) -> None:
    """The operating system stops the process after ``seconds`` of CPU time (SIGXCPU, then SIGKILL a
    second later); each solver it starts (csdp, for psatz) inherits the same cap on its own CPU."""
    try:
        resource.prlimit(pid, resource.RLIMIT_CPU, (seconds, seconds + 1))
    except ProcessLookupError:
        pass                      # it has already ended: nothing to cap


def _capped_at_start(seconds: int):
    """Where the cap cannot be set on a running process (no prlimit outside Linux), the child sets
    it on itself before it runs coqc."""
    if hasattr(resource, "prlimit"):
        return None
    return lambda: resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 1))


def group_cpu(group: int) -> float:
    """The CPU seconds of the processes of a process group (coqc and the solvers it runs), those
    they have waited for included; 0 where /proc is not there to read."""
    ticks = 0
    try:
        entries = list(os.scandir("/proc"))
    except OSError:
        return 0.0
    for entry in entries:
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as stat:
                fields = stat.read()
        except OSError:
            continue              # it ended meanwhile
        # after the command's name in parentheses: state, ppid, pgrp, ..., utime, stime, cutime, cstime
        rest = fields[fields.rindex(b")") + 2:].split()
        if int(rest[2]) == group:
            ticks += sum(int(value) for value in rest[11:15])
    return ticks / os.sysconf("SC_CLK_TCK")


def _watch(group: int, cap: int, wall: float, ended: threading.Event, stopped: list) -> None:
    """Stop the process group once its CPU time reaches ``cap``, or its wall time ``wall``."""
    started = time.monotonic()
    while not ended.wait(POLL_SECONDS):
        over = "cpu" if group_cpu(group) >= cap else "wall" if time.monotonic() - started > wall else ""
        if over:
            stopped.append(over)
            _stop(group)
            return


def _stop(group: int) -> None:
    try:
        os.killpg(group, signal.SIGKILL)
    except ProcessLookupError:
        pass                      # it has already ended


def timed_coqc(folder: Path, file: str, seconds: float, arguments: tuple = ()) -> Run:
    """One coqc call on ``file`` in ``folder`` under a cap of ``seconds`` of CPU time (rounded up to
    a whole second): CPU time, not wall time, so that the answer does not depend on the machine's
    load.  The cap counts coqc and the solvers it runs together (its own process group, read every
    POLL_SECONDS; RLIMIT_CPU stops each process at the cap besides); a call that fails after
    spending the cap is out of time.  A guard of wall time far above the cap only stops a call on a
    machine stalled for minutes."""
    cap = max(1, math.ceil(seconds))
    stopped: list = []
    ended = threading.Event()
    with tempfile.TemporaryFile("w+") as printed, tempfile.TemporaryFile("w+") as errors:
        process = subprocess.Popen([coqc(), "-q", *arguments, file], cwd=folder, stdout=printed, stderr=errors,
                                   start_new_session=True, preexec_fn=_capped_at_start(cap))
        if hasattr(resource, "prlimit"):
            _cap_cpu(process.pid, cap)
        watcher = threading.Thread(target=_watch, args=(process.pid, cap, WALL_GUARD * cap + WALL_GRACE, ended,
                                                        stopped), daemon=True)
        watcher.start()
        try:
            # wait for the end without reaping coqc, so that its group is never another's
            os.waitid(os.P_PID, process.pid, os.WEXITED | os.WNOWAIT)
        except BaseException:
            _stop(process.pid)    # interrupted: coqc's group does not outlive the wait
            raise
        finally:
            ended.set()
            watcher.join()
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
        printed.seek(0)
        errors.seek(0)
        stdout, stderr = printed.read(), errors.read()
    cpu = usage.ru_utime + usage.ru_stime
    # out of time: the group stopped at its cap, or a failure after the whole allowance was spent by
    # coqc and its solvers together (a solver stopped at its own cap makes its tactic fail)
    if not stopped and (process.returncode in (-signal.SIGXCPU, -signal.SIGKILL)
                        or (process.returncode != 0 and cpu >= cap)):
        stopped.append("cpu")
    location = re.search(r"line (\d+)", stdout + stderr) if process.returncode else None
    return Run(process.returncode == 0, stdout + stderr, stdout, int(location.group(1)) if location else 0, cpu,
               stopped[0] if stopped else "")


MARK_ITEM = "@@ item "             # printed by coqc as it reaches each item of a batch


@dataclass(frozen=True)
class Outcome:
    """Coq's answer on one item of a batch: accepted, or the line of the item (from 1 at its first
    line; 0 for the header) coqc's error names and its message, or the CPU cap it ran out of alone."""

    accepted: bool
    line: int = 0
    message: str = ""
    out_of_time: int = 0          # the last CPU cap, in seconds, that the item alone ran out of


@dataclass
class Items:
    """The outcomes of ``check_items``, with the CPU seconds and the number of its coqc calls, and
    the statements Coq printed of the theorems the items asked it to print (``printing``)."""

    outcomes: dict
    cpu_seconds: float = 0.0
    calls: int = 0
    printed: dict = field(default_factory=dict)     # theorem name -> its statement as Coq printed it


MARK_STATEMENT = "@@ statement "   # printed by coqc before the statement of a theorem it prints


def printing(name: str) -> str:
    """The Coq commands that print the statement of the theorem ``name`` (after a mark that names
    it), to be read back by ``printed_statements``: what Coq holds, never the text sent to it."""
    return f'Goal True. idtac "{MARK_STATEMENT}{name}". Abort.\nCheck {name}.\n'


def printed_statements(stdout: str) -> dict:
    """theorem name -> its statement as Coq printed it after the mark (``Check``: "name : type"),
    in one line: Coq's line breaks and indentation made single spaces."""
    found: dict = {}
    current, lines = None, []
    for line in stdout.splitlines() + [MARK_ITEM]:
        if line.startswith((MARK_STATEMENT, MARK_ITEM)):
            if current is not None and lines:
                text = " ".join(" ".join(lines).split())
                prefix = f"{current} : "
                found[current] = text[len(prefix):] if text.startswith(prefix) else text
            current = line[len(MARK_STATEMENT):].strip() if line.startswith(MARK_STATEMENT) else None
            lines = []
        elif current is not None:
            lines.append(line)
    return found


def check_items(folder: Path, header: str, items: dict, seconds: float, arguments: tuple = (),
                file: str = "Items.v") -> Items:
    """Coq's outcome on each item (key -> Coq text) after ``header``: all in one coqc call under a
    cap of ``seconds`` of CPU per item; coqc stops at the first error, whose item is answered and
    the rest checked again without it.  A call that runs out of CPU time names, by the last mark it
    printed, the item it was checking: that item is checked alone under ``seconds``, and if it runs
    out again under RETRY times that, before it is said to be out of time."""
    result = Items({})
    pending = list(items)
    while pending:
        text, starts = header, []
        for key in pending:
            text += f'\nGoal True. idtac "{MARK_ITEM}{len(starts)}". Abort.\n'
            starts.append(text.count("\n") + 1)
            text += items[key]
        (folder / file).write_text(text)
        run = timed_coqc(folder, file, STARTUP_SECONDS + seconds * len(pending), arguments)
        result.cpu_seconds += run.cpu
        result.calls += 1
        result.printed.update(printed_statements(run.stdout))
        if run.accepted:
            result.outcomes.update(dict.fromkeys(pending, Outcome(True)))
            break
        if run.out_of_time:
            # the items before the last one reached were accepted; that one is checked alone
            reached = [int(line[len(MARK_ITEM):]) for line in run.output.splitlines() if line.startswith(MARK_ITEM)]
            at = reached[-1] if reached else 0
            result.outcomes.update(dict.fromkeys(pending[:at], Outcome(True)))
            result.outcomes[pending[at]] = _alone(folder, header, items[pending[at]], seconds, arguments, file, result)
        else:
            owners = [k for k, start in enumerate(starts) if start <= run.line]
            if not owners:
                # an error in the header: no item is checked
                result.outcomes.update(dict.fromkeys(pending, Outcome(False, 0, first_error(run.output))))
                break
            at = owners[-1]
            result.outcomes.update(dict.fromkeys(pending[:at], Outcome(True)))
            result.outcomes[pending[at]] = Outcome(False, run.line - starts[at] + 1, first_error(run.output))
        pending = pending[at + 1:]
    return result


def _alone(folder: Path, header: str, item: str, seconds: float, arguments: tuple, file: str,
           result: Items) -> Outcome:
    """One item in its own coqc call: under ``seconds`` of CPU, then RETRY times that."""
    start = header.count("\n") + 2
    for cap in (seconds, RETRY * seconds):
        (folder / file).write_text(header + "\n" + item)
        run = timed_coqc(folder, file, STARTUP_SECONDS + cap, arguments)
        result.cpu_seconds += run.cpu
        result.calls += 1
        if run.accepted:
            result.printed.update(printed_statements(run.stdout))
            return Outcome(True)
        if not run.out_of_time:
            return Outcome(False, max(0, run.line - start + 1), first_error(run.output))
    return Outcome(False, out_of_time=max(1, math.ceil(STARTUP_SECONDS + RETRY * seconds)))


def first_error(output: str) -> str:
    """coqc's error in one line, without the file's location and the marks."""
    lines = [line.strip() for line in output.splitlines()
             if line.strip() and not line.startswith(("File ", MARK_ITEM))]
    # from the error on: what Coq printed before it (the statements of the items it accepted) is no error
    errors = [k for k, line in enumerate(lines) if line.startswith("Error")]
    return " ".join(lines[errors[0]:] if errors else lines)[:400] or "coqc failed without a message"


def _compile(folder: Path, only: tuple = (), skip: tuple = ()) -> str | None:
    """Copy the sources (``only`` those files, if given; never those in ``skip``) into folder and
    compile them in order; the first refusal, or None."""
    sources = [source for source in source_files() if (not only or source.name in only) and source.name not in skip
               and (source.name not in NEEDS_MATHCOMP or mathcomp())
               and (source.name not in NEEDS_COQUELICOT or coquelicot())]
    for source in sources:
        shutil.copy(source, folder / source.name)
    for source in sources:
        run = timed_coqc(folder, source.name, COMPILE_SECONDS, ("-Q", ".", LIBRARY))
        if run.out_of_time:
            return f"not checked: {source.name} out of time after {COMPILE_SECONDS} s of CPU"
        if not run.accepted:
            return f"refused: {source.name}: {_first_error(run.output)}"
    return None


def assumptions(folder: Path, names: tuple[str, ...] | list[str]) -> dict[str, str]:
    """Each theorem (Module.name, compiled in folder) -> "checked" or why not.  One Print
    Assumptions of a term that cites them all first (each call walks the reals' library, about
    half a second); only when that union holds more than the reals' axioms, one call per theorem
    says which theorem rests on what."""
    # one union for the theorems that may rest on the reals' two axioms, one for those of the files
    # that need Coquelicot (which may rest on the library's sqrt as well)
    groups = [[name for name in names if not _needs_coquelicot(name)], [name for name in names if _needs_coquelicot(name)]]
    unions = [_run_assumptions(folder, group, together=True) if group else {"everything": "checked"} for group in groups]
    if all(isinstance(union, dict) and union.get("everything") == "checked" for union in unions):
        return dict.fromkeys(names, "checked")
    results: dict[str, str] = {}
    pending = list(names)
    while pending:
        answer = _run_assumptions(folder, pending, together=False)
        if isinstance(answer, dict):
            return {**results, **answer}
        if answer.startswith("missing "):
            # a theorem absent from the development: say so, ask again about the others
            name = answer.removeprefix("missing ")
            results[name] = f"refused: {LIBRARY}.{name} is not a theorem of the development"
            pending = [other for other in pending if other != name]
        else:
            return {**results, **dict.fromkeys(pending, answer)}
    return results


def _run_assumptions(folder: Path, names: list[str], together: bool) -> dict[str, str] | str:
    """One coqc call: the parsed answers, or "missing NAME", or the refusal."""
    lines = [f"Require {LIBRARY}.{module}." for module in sorted({name.split(".")[0] for name in names})]
    if together:
        lines += ["Definition everything : unit :="] + [f"  let _ := @{LIBRARY}.{name} in" for name in names]
        lines += ["  tt.", f'Goal True. idtac "{MARK}everything". Abort.', "Print Assumptions everything."]
    else:
        for name in names:
            lines += [f'Goal True. idtac "{MARK}{name}". Abort.', f"Print Assumptions {LIBRARY}.{name}."]
    (folder / "Assumptions.v").write_text("\n".join(lines) + "\n")
    run = timed_coqc(folder, "Assumptions.v", COMPILE_SECONDS, ("-Q", ".", LIBRARY))
    if run.out_of_time:
        return f"not checked: Print Assumptions out of time after {COMPILE_SECONDS} s of CPU"
    if not run.accepted:
        missing = re.search(r"The reference (\S+) was not found", run.output)
        if missing and missing.group(1).removeprefix("@").removeprefix(f"{LIBRARY}.") in names:
            return "missing " + missing.group(1).removeprefix("@").removeprefix(f"{LIBRARY}.")
        return f"refused: {_first_error(run.output)}"
    return _parse_assumptions(run.stdout, ["everything"] if together else names,
                              sqrt=together and any(_needs_coquelicot(name) for name in names))


def _parse_assumptions(output: str, names: list[str], sqrt: bool = False) -> dict[str, str]:
    """Split coqc's output at the marks; each block lists a theorem's axioms (``sqrt``: the union of
    theorems that may rest on the library's sqrt)."""
    blocks: dict[str, list[str]] = {}
    current = None
    for line in output.splitlines():
        if line.startswith(MARK):
            current = line[len(MARK):].strip()
            blocks[current] = []
        elif current is not None and line and not line[0].isspace():
            # an axiom's name, its type after " : " on the same line or on the next ones
            blocks[current].append(line.split(" : ")[0].strip())
    results = {}
    for name in names:
        block = blocks.get(name)
        if block is None:
            results[name] = "refused: Print Assumptions printed nothing"
            continue
        headers = {"Axioms:", "Closed under the global context"}
        axioms = [line for line in block if line not in headers]
        allowed = REALS_AXIOMS | ({SQRT_AXIOM} if sqrt or _needs_coquelicot(name) else set())
        extra = sorted(set(axioms) - allowed)
        results[name] = "checked" if not extra else "rests on an axiom beyond the reals': " + ", ".join(extra)
    return results


def _first_error(text: str) -> str:
    """coqc's message in one line: the location and the error."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return " ".join(lines[:4])[:300] if lines else "coqc failed without a message"
