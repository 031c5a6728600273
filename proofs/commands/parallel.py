"""Sweeps on several processes or on a Dask cluster, with the rows, verdicts and order of a run on
one process.

A task is a part of one proof script's run, ``script.run(sizes, seed=, timeout=)``, carried out
where the task runs (a process forked from this one, or a Dask worker, which imports the script):

  * when the sweep has at least two scripts per worker and none holds more than a worker's
    share of the sizes, a task is a whole script: it runs as on one process, and its report (rows
    and derivation) comes back as it is.  A whole script keeps every cache its claims share
    across sizes, and nothing runs twice;
  * otherwise the scripts are cut into parts, about two per worker in all, each script's share
    in proportion to its number of sizes.  The claims of one result at one size form a group
    (they share their caches); the groups are numbered in the order the script records them, and
    part k of m checks the groups numbered k mod m, answering every other record with a
    placeholder.  When the script runs at fewer sizes than it has parts, the claims themselves are
    numbered, so that a single large size still spreads.  This process then runs the script once
    more, each record answered by the verdict its part computed, so that the derivation, the
    rows and their order are those of a run on one process.

Each check is deterministic given its arguments (the witness points come from its own seeded
generator), so the verdicts do not depend on the number of processes either.
"""
from __future__ import annotations

import importlib
import multiprocessing
import signal
from collections import defaultdict, deque
from dataclasses import dataclass

from symbolic.kernel.verdict import Status, Verdict

from proofs.commands.arguments import UsageError, default_jobs  # noqa: F401 - default_jobs: where callers find it
from symbolic.report import ClaimResult, claims_run_by, run_check

_PLACEHOLDER = Verdict(Status.UNDECIDED, "planned", reason="checked in another part")


@dataclass(frozen=True)
class Task:
    position: int       # which script of the sweep
    module: str         # the script's module, imported where the task runs
    sizes: tuple
    part: int
    parts: int          # 1: the whole script


def run_scripts(plans, seed, timeout, *, jobs=1, address=None, on_done=None) -> list:
    """The reports of ``script.run(sizes, seed=, timeout=)`` for each (script, sizes) of plans,
    in ``jobs`` processes, or on the Dask scheduler at ``address``.  ``on_done(row)`` is called
    for each claim's row as its task comes back."""
    if address is not None:
        client = _dask_client(address)
        with client:
            workers = max(1, sum(client.nthreads().values()))
            return _collect(plans, seed, timeout, _tasks(plans, workers), on_done,
                            lambda tasks: _on_dask(client, tasks, seed, timeout))
    return _collect(plans, seed, timeout, _tasks(plans, jobs), on_done,
                    lambda tasks: _in_processes(tasks, seed, timeout, jobs))


def _tasks(plans, workers) -> list[Task]:
    """About two tasks per worker: a script is cut into parts in proportion to its number of
    sizes, so that when the sweep has at least two scripts per worker (and none dominates) each
    runs whole, and a script with most of the sizes spreads over the workers."""
    total = max(1, sum(len(sizes) for _, sizes in plans))
    tasks = []
    for position, (script, sizes) in enumerate(plans):
        parts = max(1, round(2 * workers * len(sizes) / total)) if len(plans) < 2 * workers or \
            len(sizes) > total / workers else 1
        tasks += [Task(position, script.__name__, tuple(sizes), part, parts) for part in range(parts)]
    return tasks


def _collect(plans, seed, timeout, tasks, on_done, execute) -> list:
    """Run the tasks, then each script's report: as it came back, or replayed from its parts."""
    reports = [None] * len(plans)
    outcomes = defaultdict(lambda: defaultdict(deque))     # position -> claim key -> outcomes
    for task, result in execute(tasks):
        if task.parts == 1:
            reports[task.position] = result
            rows = result.results
        else:
            for key, outcome in result:
                outcomes[task.position][key].append(outcome)
            rows = [ClaimResult(*key, *outcome) for key, outcome in result]
        for row in rows if on_done is not None else ():
            on_done(row)
    for position, (script, sizes) in enumerate(plans):
        if reports[position] is None:
            reports[position] = _replay(script, sizes, seed, timeout, outcomes[position])
    return reports


def _replay(script, sizes, seed, timeout, computed):
    """The script's report, each record answered by the verdict its part computed."""
    def answer(key, check):
        # a script that records differently in its parts gets its check run here
        return computed[key].popleft() if computed[key] else run_check(check)
    with claims_run_by(answer):
        return script.run(list(sizes), seed=seed, timeout=timeout)


def run_task(task: Task, seed, timeout):
    """Where a task runs: a whole script's report, or [(claim key, (verdict, seconds))] for the
    claims of its part."""
    script = importlib.import_module(task.module)
    if task.parts == 1:
        with claims_run_by(lambda key, check: run_check(check)):
            return script.run(list(task.sizes), seed=seed, timeout=timeout)
    by_claim = len(task.sizes) < task.parts
    units, checked = {}, []

    def check_if_mine(key, check):
        theorem, _, d, h, n = key
        unit = len(units) if by_claim else (theorem, d, h, n)
        number = units.setdefault(unit, len(units))
        if number % task.parts != task.part:
            return _PLACEHOLDER, 0.0
        outcome = run_check(check)
        checked.append((key, outcome))
        return outcome
    with claims_run_by(check_if_mine):
        script.run(list(task.sizes), seed=seed, timeout=timeout)
    return checked


def _run_in_worker(arguments):
    task, seed, timeout = arguments
    return task, run_task(task, seed, timeout)


def _ignore_interrupts() -> None:
    # Ctrl-C reaches the whole process group: the parent stops the pool, the workers stay quiet
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _in_processes(tasks, seed, timeout, jobs):
    """(task, result) pairs as the tasks finish, in forked processes (in this one for --jobs 1
    or where processes cannot be forked)."""
    if jobs == 1 or "fork" not in multiprocessing.get_all_start_methods():
        for task in tasks:
            yield task, run_task(task, seed, timeout)
        return
    # leaving the block (also by an exception or Ctrl-C) terminates the workers
    with multiprocessing.get_context("fork").Pool(min(jobs, len(tasks)),
                                                  initializer=_ignore_interrupts) as pool:
        yield from pool.imap_unordered(_run_in_worker, [(task, seed, timeout) for task in tasks])


def _dask_client(address):
    try:
        from dask.distributed import Client
    except ImportError:
        raise UsageError("--dask needs the optional extra: pip install 'sharp-minima-checker[dask]'") from None
    try:
        return Client(address, timeout="20s")
    except (OSError, TimeoutError, ValueError) as error:
        raise UsageError(f"cannot reach a Dask scheduler at {address}: {error}") from None


def _on_dask(client, tasks, seed, timeout):
    """(task, result) pairs as the tasks finish on the Dask cluster of client."""
    from dask.distributed import as_completed
    futures = {client.submit(run_task, task, seed, timeout, pure=False): task for task in tasks}
    for future in as_completed(futures):
        try:
            result = future.result()
        except ImportError as error:
            raise UsageError(f"a Dask worker cannot import this project ({error}): install it "
                             f"on every worker") from None
        yield futures[future], result


def coq_mapper(jobs: int, address=None):
    """How Coq's pass runs its coqc batches: in turn (``map``), in ``jobs`` threads (each batch is
    one coqc process), or on the Dask cluster at ``address`` (coqc installed on its workers)."""
    if address is not None:
        client = _dask_client(address)

        def on_dask(function, items):
            return client.gather(client.map(function, list(items), pure=False))
        return on_dask
    if jobs <= 1:
        return map

    def in_threads(function, items):
        from concurrent.futures import ThreadPoolExecutor
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            return list(pool.map(function, items))
    return in_threads
