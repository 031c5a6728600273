"""Sweeps on several processes or on a Dask cluster, with the rows, verdicts and order of a run on
one process.

A proof script's ``run`` calls ``Report.record`` once per claim, with the claim's check.  A
parallel run goes through the scripts twice:

  1. plan: every script runs with each record answering a placeholder, which collects every
     claim's check, in order, without running it;
  2. the checks run as independent tasks, in a pool of processes (forked from this one, so that
     a task is just indices into the plan) or on a Dask cluster (each check shipped by value).
     A task holds the checks of one result at one size, which share their caches (the pattern
     form, the steps of the abstract route); when there are fewer such groups than twice the
     workers, every check is a task of its own, so that a single large size still spreads;
  3. replay: every script runs again with each record answering the verdict its task computed,
     so that the derivations, the rows and their order are those of a run on one process.

Each check is deterministic given its arguments (the witness points come from its own seeded
generator), so the verdicts do not depend on the number of processes either.
"""
from __future__ import annotations

import multiprocessing
import os
import signal
from collections import defaultdict, deque

from symbolic.verdict import Status, Verdict

from . import report as report_module
from .arguments import UsageError
from .report import ClaimResult, run_check

_PLACEHOLDER = Verdict(Status.UNDECIDED, "planned", reason="not checked yet")

# the plan of the current run: (key, check) per claim; forked workers inherit it
_plan: list = []


def default_jobs() -> int:
    """The number of cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:      # not on Linux
        return os.cpu_count() or 1


def run_scripts(plans, seed, timeout, *, jobs=1, address=None, on_done=None) -> list:
    """The reports of ``script.run(sizes, seed=, timeout=)`` for each (script, sizes) of plans,
    their checks run by ``jobs`` processes, or on the Dask scheduler at ``address``.
    ``on_done(row)`` is called as each claim's verdict comes in."""
    plan = []

    def collect_check(key, check):
        plan.append((key, check))
        return _PLACEHOLDER, 0.0
    _with_runner(collect_check, plans, seed, timeout)
    tasks = _tasks(plan, jobs)
    outcomes = [None] * len(plan)

    def keep(results):
        for index, outcome in results:
            outcomes[index] = outcome
            if on_done is not None:
                on_done(ClaimResult(*plan[index][0], *outcome))
    if address is not None:
        keep(_on_dask(plan, tasks, address))
    else:
        keep(_in_processes(plan, tasks, jobs))
    computed = defaultdict(deque)
    for (key, _), outcome in zip(plan, outcomes):
        computed[key].append(outcome)

    def replay(key, check):
        # a script that planned differently from how it replays gets its check run here
        return computed[key].popleft() if computed[key] else run_check(check)
    return _with_runner(replay, plans, seed, timeout)


def _with_runner(runner, plans, seed, timeout) -> list:
    report_module.claim_runner, hook = runner, report_module.progress_hook
    report_module.progress_hook = None
    try:
        return [script.run(sizes, seed=seed, timeout=timeout) for script, sizes in plans]
    finally:
        report_module.claim_runner, report_module.progress_hook = None, hook


def _tasks(plan, jobs) -> list[list[int]]:
    """Indices into the plan, one list per task: the checks of one result at one size together,
    unless that leaves fewer than two tasks per worker."""
    groups = defaultdict(list)
    for index, ((theorem, _, d, h, n), _) in enumerate(plan):
        groups[(theorem, d, h, n)].append(index)
    if len(groups) >= 2 * jobs:
        return list(groups.values())
    return [[index] for index in range(len(plan))]


def _run_task(indices) -> list:
    """In a forked worker: run the checks of the plan at these indices."""
    return [(index, run_check(_plan[index][1])) for index in indices]


def _run_checks(checks) -> list:
    """On a Dask worker: run these checks, in order."""
    return [run_check(check) for check in checks]


def _ignore_interrupts() -> None:
    # Ctrl-C reaches the whole process group: the parent stops the pool, the workers stay quiet
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _in_processes(plan, tasks, jobs):
    """(index, outcome) pairs as the tasks finish, in forked processes (in this one for --jobs 1
    or where processes cannot be forked)."""
    global _plan
    if jobs == 1 or len(tasks) < 2 or "fork" not in multiprocessing.get_all_start_methods():
        for index, (_, check) in enumerate(plan):
            yield index, run_check(check)
        return
    _plan = plan
    try:
        # leaving the block (also by an exception or Ctrl-C) terminates the workers
        with multiprocessing.get_context("fork").Pool(min(jobs, len(tasks)),
                                                      initializer=_ignore_interrupts) as pool:
            for results in pool.imap_unordered(_run_task, tasks):
                yield from results
    finally:
        _plan = []


def _on_dask(plan, tasks, address):
    """(index, outcome) pairs as the tasks finish on the Dask scheduler at address."""
    try:
        from dask.distributed import Client, as_completed
    except ImportError:
        raise UsageError("--dask needs the optional extra: pip install 'sharp-minima-checker[dask]'") from None
    try:
        client = Client(address, timeout="20s")
    except (OSError, TimeoutError, ValueError) as error:
        raise UsageError(f"cannot reach a Dask scheduler at {address}: {error}") from None
    with client:
        futures = {client.submit(_run_checks, [plan[index][1] for index in indices], pure=False): indices
                   for indices in tasks}
        for future in as_completed(futures):
            try:
                outcomes = future.result()
            except ImportError as error:
                raise UsageError(f"a Dask worker cannot import this project ({error}): install it "
                                 f"on every worker") from None
            yield from zip(futures[future], outcomes)
