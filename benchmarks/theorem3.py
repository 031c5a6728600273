"""Benchmark: the project's Theorem 3 check against a plain-SymPy baseline and a flint reference,
and whole command-line runs on one process and on every core.

    python benchmarks/theorem3.py [--quick]

Part 1, for each size, times in the same run:
  project    the full check of the project: gradient AND Hessian identities for MSE with symbolic
             data, all 2^(Nh) activation patterns at once (pattern indicators as indeterminates),
             exact test by alpha-weights read off the exponents of the per-sample, per-unit factors
             (plus the composition cross-check at d, h, N <= 3), and the mpmath witness on the real
             ReLU loss;
  baseline   BASELINE, a careful user's plain-SymPy script: enumerate the 2^(Nh) patterns, build the
             loss as a sympy expression, sympy.hessian, substitute T_alpha, expand each entry of
             H(T_alpha theta) - S H(theta) S (and of the gradient identity); given 60 s per size;
  reference  REFERENCE, the composition route with python-flint: only the MSE Hessian, built and
             zero-tested with fmpz_mpoly (patterns as indeterminates, Laurent reduction); 60 s per size.
and prints the ratios and the fitted growth exponent.
Part 2 runs ``python -m proofs`` in fresh processes: theorem3 with all four losses at 8,8,8 and at
16,16,16, and the default sweep (--repeats pairs of runs), each with --jobs 1 and --jobs <cores>:
wall time, CPU time of the process tree, peak resident memory of one process, and whether every
row is PROVED; and, before them, the machine's parallel capacity (how much more of the same work
<cores> processes get done at once than one) and the sequential start-up (the command line and
every proof script loaded in a fresh process), which give each --jobs row its bound: the least fraction of the one-process time that
any schedule can reach (Amdahl's law: with any sequential part, 2 cores never halve a run).

    python benchmarks/theorem3.py --command-line-only    part 2 alone
"""
from __future__ import annotations

import argparse
import importlib
import itertools
import json
import math
import multiprocessing
import os
import platform
import resource
import statistics
import subprocess
import sys
import time

import flint
import mpmath
import sympy as sp

from proofs.theorem3_derivative_transformation import check
from symbolic.decision.budget import BudgetExhausted, time_budget

BASELINE_BUDGET = 60.0
REFERENCE_BUDGET = 60.0
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# --- BASELINE: plain SymPy, one pattern at a time ---------------------------------------------------

def baseline(d: int, h: int, n: int) -> bool:
    """BASELINE (plain SymPy): every pattern, sympy.hessian, substitute T_alpha, expand each entry."""
    alpha = sp.Symbol("alpha", positive=True)
    W = sp.Matrix(d, h, lambda i, j: sp.Symbol(f"W{i}{j}", real=True))
    v = [sp.Symbol(f"v{j}", real=True) for j in range(h)]
    X = sp.Matrix(n, d, lambda k, i: sp.Symbol(f"x{k}{i}", real=True))
    Y = [sp.Symbol(f"y{k}", real=True) for k in range(n)]
    theta = list(W) + v
    S = [1 / alpha] * (d * h) + [alpha] * h
    scaled = {p: alpha * p for p in W} | {p: p / alpha for p in v}
    for pattern in itertools.product((0, 1), repeat=n * h):
        predictions = [sum(pattern[k * h + j] * sum(X[k, i] * W[i, j] for i in range(d)) * v[j]
                           for j in range(h)) for k in range(n)]
        loss = sum((p - y) ** 2 for p, y in zip(predictions, Y)) / n
        gradient = [sp.diff(loss, p) for p in theta]
        for k, entry in enumerate(gradient):
            if sp.expand(entry.xreplace(scaled) - S[k] * entry) != 0:
                return False
        hessian = sp.hessian(loss, theta)
        for k in range(len(theta)):
            for l in range(k, len(theta)):
                if sp.expand(hessian[k, l].xreplace(scaled) - S[k] * S[l] * hessian[k, l]) != 0:
                    return False
    return True


# --- REFERENCE: python-flint fmpz_mpoly, the MSE Hessian only ---------------------------------------

def reference(d: int, h: int, n: int) -> bool:
    """REFERENCE (python-flint): build N·L, its Hessian, compose with T_alpha, reduce mod alpha·abar − 1."""
    names = ([f"W{i}_{j}" for i in range(d) for j in range(h)] + [f"v{j}" for j in range(h)]
             + [f"x{k}_{i}" for k in range(n) for i in range(d)] + [f"y{k}" for k in range(n)]
             + [f"s{k}_{j}" for k in range(n) for j in range(h)] + ["a", "abar"])
    ctx = flint.fmpz_mpoly_ctx.get(tuple(names), "lex")
    g = dict(zip(names, ctx.gens()))
    f = [sum(g[f"s{k}_{j}"] * sum(g[f"x{k}_{i}"] * g[f"W{i}_{j}"] for i in range(d)) * g[f"v{j}"]
             for j in range(h)) for k in range(n)]
    loss = sum((f[k] - g[f"y{k}"]) ** 2 for k in range(n))
    params = [names.index(f"W{i}_{j}") for i in range(d) for j in range(h)] + \
        [names.index(f"v{j}") for j in range(h)]
    a, abar = g["a"], g["abar"]
    images = [a * g[x] if x.startswith("W") else abar * g[x] if x.startswith("v") else g[x]
              for x in names]
    S = [abar] * (d * h) + [a] * h
    gradient = [loss.derivative(p) for p in params]
    for k in range(len(params)):
        for l in range(k, len(params)):
            entry = gradient[k].derivative(params[l])
            if not ((entry.compose(*images) - S[k] * S[l] * entry) % (a * abar - 1)).is_zero():
                return False
    return True


def project(d: int, h: int, n: int) -> bool:
    """The project's full check: gradient and Hessian, exact test and witness."""
    return all(check(d, h, n, "mse", order).proved for order in (1, 2))


def timed(function, *args, budget=None):
    start = time.perf_counter()
    try:
        with time_budget(budget):
            ok = function(*args)
    except BudgetExhausted:
        return None, time.perf_counter() - start
    return ok, time.perf_counter() - start


def fitted_exponent(sizes, seconds) -> float:
    """Least-squares slope of log(time) against log(size): time ~ size^k."""
    xs, ys = [math.log(s) for s in sizes], [math.log(t) for t in seconds]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


# --- part 2: whole command-line runs in fresh processes ----------------------------------------------

# runs ``python -m proofs ARGS`` and reports the peak resident memory of it (VmHWM: ru_maxrss
# would count the benchmark process it was forked from) and of its forked workers
_MEASURED_RUN = """
import resource, runpy, sys
sys.argv = ["proofs"] + sys.argv[1:]
try:
    runpy.run_module("proofs", run_name="__main__")
finally:
    with open("/proc/self/status") as status:
        own = next(int(line.split()[1]) for line in status if line.startswith("VmHWM"))
    workers = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    print(f"peak-rss-kib {max(own, workers)}", file=sys.stderr)
"""


def command_line_run(*args):
    """(wall seconds, CPU seconds of the process tree, peak RSS of one process in MiB, all PROVED)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-c", _MEASURED_RUN, *args, "--json"], cwd=ROOT,
                            capture_output=True, text=True,
                            env={**os.environ, "PYTHONPATH": os.pathsep.join(
                                p for p in (ROOT, os.environ.get("PYTHONPATH")) if p)})
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    peak = int(result.stderr.rsplit("peak-rss-kib", 1)[1].split()[0]) / 1024
    proved = result.returncode == 0 and all(r["status"] == "proved" for r in json.loads(result.stdout))
    return wall, cpu, peak, proved


def _representative_work(_=None) -> None:
    """A piece of the default sweep, the same in every process: Theorem 4 at d, h, N <= 3."""
    from proofs import theorem4_sharpest_direction as theorem4
    sizes = [(d, h, n) for d in range(1, 4) for h in range(1, 4) for n in range(1, 4)]
    theorem4.run(sizes)


def _wall_in_processes(copies: int) -> float:
    """Wall time of ``copies`` processes forked from this one, each doing the representative work,
    at once."""
    context = multiprocessing.get_context("fork")
    start = time.perf_counter()
    workers = [context.Process(target=_representative_work) for _ in range(copies)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return time.perf_counter() - start


def parallel_capacity(cores: int, repeats: int = 3) -> float:
    """How much more work `cores` processes do than one in the same time, on this machine now:
    `cores` times the wall time of the representative work in one process, over the wall time
    of `cores` copies of it at once (median of ``repeats`` such pairs, after one discarded run).
    It is below `cores` when the processes slow each other down (shared caches and memory
    bandwidth, a virtual machine's host), and 1 on a machine whose scheduler gives this session
    one core's worth however many it shows."""
    importlib.import_module("proofs.theorem4_sharpest_direction")   # imported once, before the forks
    _wall_in_processes(1)
    return statistics.median(cores * _wall_in_processes(1) / _wall_in_processes(cores)
                             for _ in range(repeats))


# the interpreter, the command line and every proof script loaded (``--list`` reads the titles from the
# scripts' sources, so it no longer loads them)
LOAD_EVERY_SCRIPT = ("import proofs.commands.cli; from proofs.commands import registry; "
                     "[registry.load(name) for name in registry.names()]")


def sequential_start(repeats: int = 3) -> float:
    """Wall time of loading the command line and every proof script in a fresh process (interpreter,
    imports, every script loaded): the part of a run that no number of processes shortens (median)."""
    def once():
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", LOAD_EVERY_SCRIPT], cwd=ROOT, capture_output=True, check=True)
        return time.perf_counter() - start
    return statistics.median(once() for _ in range(repeats))


def command_line_table(cores: int, quick: bool, repeats: int) -> None:
    runs = [("theorem3, 4 losses, 8,8,8", ["theorem3", "--size", "8,8,8"], 1)]
    if not quick:
        runs += [("theorem3, 4 losses, 16,16,16", ["theorem3", "--size", "16,16,16"], 1),
                 ("default sweep (every result)", [], repeats)]
    capacity, start = parallel_capacity(cores), sequential_start()
    print(f"\nparallel capacity now: {cores} processes doing the same piece of the default sweep "
          f"(Theorem 4, d, h, N <= 3) at once get {capacity:.2f}x the work of one done in the same "
          f"time; sequential start-up (the command line and every script loaded) {start:.2f} s")
    print(f"python -m proofs ... --json in a fresh process, --jobs 1 against --jobs {cores} (in turn, "
          f"each pair one after the other); bound: the least wall/one any schedule can reach, "
          f"(start-up + (one - start-up) / capacity) / one:")
    header = ("run", "jobs", "wall s", "CPU s", "peak MiB", "all proved", "wall/one", "bound")
    print(f"{header[0]:<30}" + "".join(f"{x:>11}" for x in header[1:]))
    for label, args, times in runs:
        ratios, bounds = [], []
        for _ in range(times):
            one = None
            for jobs in sorted({1, cores}):
                wall, cpu, peak, proved = command_line_run(*args, "--jobs", str(jobs))
                one = wall if jobs == 1 else one
                bound = (start + (one - start) / capacity) / one if jobs != 1 else 1.0
                ratios += [wall / one] if jobs != 1 else []
                bounds += [bound] if jobs != 1 else []
                print(f"{label:<30}" + "".join(f"{x:>11}" for x in (
                    jobs, f"{wall:.2f}", f"{cpu:.2f}", f"{peak:.0f}", "yes" if proved else "NO",
                    f"{wall / one:.2f}", f"{bound:.2f}")), flush=True)
        if times > 1:
            print(f"{label}: --jobs {cores} took {statistics.median(ratios):.2f} of the one-process "
                  f"wall time (median of {times} pairs; {', '.join(f'{r:.2f}' for r in ratios)}); "
                  f"the bound: {statistics.median(bounds):.2f}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="sizes up to 5 only, baseline budget 10 s")
    parser.add_argument("--command-line-only", action="store_true", help="part 2 alone")
    parser.add_argument("--repeats", type=int, default=3,
                        help="pairs of default-sweep runs (--jobs 1, then --jobs <cores>)")
    args = parser.parse_args(argv)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"machine: {cores} cores, load average {os.getloadavg()[0]:.1f} at the start, Python {platform.python_version()}, sympy {sp.__version__}, "
          f"python-flint {flint.__version__}, mpmath {mpmath.__version__}")
    if not args.command_line_only and not sizes_table(args.quick):
        return 1
    command_line_table(cores, args.quick, args.repeats)
    return 0


def sizes_table(quick: bool) -> bool:
    """Part 1: the table of sizes and the fitted exponent; False if a check failed."""
    largest = 5 if quick else 8
    budget = 10.0 if quick else BASELINE_BUDGET
    sizes = [(3, 3, 2)] + [(m, m, m) for m in range(2, largest + 1)] + ([] if quick else [(16, 16, 16)])
    sizes = sorted(set(sizes), key=lambda s: (s[0] * s[1] * s[2], s))
    print(f"baseline budget {budget:.0f} s per size; times in seconds\n")
    header = ("d", "h", "N", "2^(Nh)", "baseline", "project", "proj. CPU", "reference", "baseline/project",
              "project/reference")
    print("  ".join(f"{x:>9}" for x in header))
    diagonal, baseline_gave_up = [], False
    for d, h, n in sizes:
        cpu_start = time.process_time()
        ours_ok, ours = timed(project, d, h, n)
        ours_cpu = time.process_time() - cpu_start
        ref_ok, ref = timed(reference, d, h, n, budget=REFERENCE_BUDGET)
        if ref_ok is None:
            ref_text, versus_text, ref_ok = f">{REFERENCE_BUDGET:.0f}", f"<{ours / REFERENCE_BUDGET:.2f}x", True
        else:
            ref_text, versus_text = f"{ref:.3f}", f"{ours / ref:.2f}x"
        if not (ours_ok and ref_ok):
            print(f"check failed at {d},{h},{n}: project {ours_ok}, reference {ref_ok}", file=sys.stderr)
            return False
        if baseline_gave_up or max(d, h, n) > 8:
            base_text, ratio_text = "-", "-"
        else:
            base_ok, base = timed(baseline, d, h, n, budget=budget)
            if base_ok is None:
                base_text, ratio_text = f">{budget:.0f}", f">{budget / ours:.0f}x"
                baseline_gave_up = d == h == n
            else:
                base_text, ratio_text = f"{base:.3f}", f"{base / ours:.0f}x"
        patterns = 2 ** (n * h) if n * h < 30 else f"2^{n * h}"
        print("  ".join(f"{x:>9}" for x in (d, h, n, patterns, base_text, f"{ours:.3f}", f"{ours_cpu:.3f}",
                                            ref_text, ratio_text, versus_text)), flush=True)
        if d == h == n:
            diagonal.append((d, ours, ours_cpu))
    tail = [row for row in diagonal if row[0] >= 4] or diagonal
    wall_exponent, cpu_exponent = (fitted_exponent([row[0] for row in tail], [row[k] for row in tail])
                                   for k in (1, 2))
    print(f"\nproject time on d = h = N = m, m = {', '.join(str(row[0]) for row in tail)}: fitted "
          f"wall time ~ m^{wall_exponent:.1f}, CPU time ~ m^{cpu_exponent:.1f} (polynomial; the "
          f"pattern count 2^(m^2) grows from 2^{tail[0][0] ** 2} to 2^{tail[-1][0] ** 2})")
    return True


if __name__ == "__main__":
    sys.exit(main())
