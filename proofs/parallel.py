"""Sweeps on several processes or on a Dask cluster, with the rows, verdicts and order of a run on
one process.

A proof script's ``run`` calls ``Report.record`` once per claim, with the claim's check.  A
parallel run goes through the scripts twice:

  1. plan: every script runs with each record answering a placeholder, which collects every
     claim's check, in order, without running it;
  2. the checks run as independent tasks, in a pool of processes (forked from this one, so that
     each task is just an index into the plan) or on a Dask cluster (each check shipped by value);
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
_tasks: list = []


def default_jobs() -> int:
    """The number of cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:      # not on Linux
        return os.cpu_count() or 1


def _run_task(index: int) -> tuple:
    """In a forked worker: run the index-th check of the plan."""
    return index, run_check(_tasks[index][1])


def _ignore_interrupts() -> None:
    # Ctrl-C reaches the whole process group: the parent stops the pool, the workers stay quiet
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def run_scripts(plans, seed, timeout, *, jobs=1, address=None, on_done=None) -> list:
    """The reports of ``script.run(sizes, seed=, timeout=)`` for each (script, sizes) of plans,
    their checks run by ``jobs`` processes, or on the Dask scheduler at ``address``.
    ``on_done(row)`` is called as each claim's verdict comes in."""
    tasks = []
    _with_runner(lambda key, check: (tasks.append((key, check)), (_PLACEHOLDER, 0.0))[1],
                 plans, seed, timeout)
    if address is not None:
        outcomes = _on_dask(tasks, address, on_done)
    else:
        outcomes = _in_processes(tasks, jobs, on_done)
    computed = defaultdict(deque)
    for (key, _), outcome in zip(tasks, outcomes):
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


def _announce(on_done, key, outcome) -> None:
    if on_done is not None:
        verdict, seconds = outcome
        on_done(ClaimResult(*key, verdict, seconds))


def _in_processes(tasks, jobs, on_done) -> list:
    global _tasks
    if jobs == 1 or len(tasks) < 2 or "fork" not in multiprocessing.get_all_start_methods():
        outcomes = []
        for key, check in tasks:
            outcomes.append(run_check(check))
            _announce(on_done, key, outcomes[-1])
        return outcomes
    _tasks = tasks
    outcomes = [None] * len(tasks)
    try:
        # leaving the block (also by an exception or Ctrl-C) terminates the workers
        with multiprocessing.get_context("fork").Pool(min(jobs, len(tasks)),
                                                      initializer=_ignore_interrupts) as pool:
            for index, outcome in pool.imap_unordered(_run_task, range(len(tasks))):
                outcomes[index] = outcome
                _announce(on_done, tasks[index][0], outcome)
        return outcomes
    finally:
        _tasks = []


def _on_dask(tasks, address, on_done) -> list:
    try:
        from dask.distributed import Client, as_completed
    except ImportError:
        raise UsageError("--dask needs the optional extra: pip install 'sharp-minima-checker[dask]'") from None
    try:
        client = Client(address, timeout="20s")
    except (OSError, TimeoutError, ValueError) as error:
        raise UsageError(f"cannot reach a Dask scheduler at {address}: {error}") from None
    with client:
        futures = [client.submit(run_check, check, pure=False) for _, check in tasks]
        index = {future.key: position for position, future in enumerate(futures)}
        outcomes = [None] * len(tasks)
        for future in as_completed(futures):
            position = index[future.key]
            outcomes[position] = future.result()
            _announce(on_done, tasks[position][0], outcomes[position])
        return outcomes
