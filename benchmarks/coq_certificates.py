"""Benchmark: Coq re-checking the identities the default run proves, beside the run itself.

    python benchmarks/coq_certificates.py [RESULT ...] [--batch N] [--seconds S]
    python benchmarks/coq_certificates.py --pass [--jobs 1 2]

Every result of ``python -m proofs`` runs at its default sizes in this process while
``symbolic.coq.recording`` records each identity the decision procedure proves; then the distinct
identities of each result are printed as Coq lemmas and checked by coqc in batches.  The table
gives per result the identities proved, how many Coq checked, how many fall outside the fragment,
how many it could not check and how many it refuted, the run's own time (the peer: the kernel deciding the same claims and the
rest of the script) and Coq's CPU time in total and per checked identity.  The most common reasons
for falling outside the fragment follow.  An output is kept in benchmarks/results/.

``--pass`` times the whole Coq pass of ``python -m proofs RESULT --certify coq`` on ``all_sizes`` and
``measures_all_sizes``, with each ``--jobs`` given: the rows checked, the CPU seconds of the run and
of Coq (coqc and its solvers, as the pass reports them) per checked row, and the wall time beside
the same run without Coq (the peer), with their ratio.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import platform
import re
import resource
import subprocess
import sys
import time

from proofs.commands import cli, registry
from tables import print_table as aligned
from symbolic.coq import library
from symbolic.coq.recording import BATCH, chain_pass, recording
from symbolic.coq.runner import SECONDS_PER_CLAIM, certify


def distinct(claims: list) -> list:
    """The claims with each printed (lhs, rhs) once, in their order."""
    seen = {}
    for lhs, rhs in claims:
        seen.setdefault((str(lhs), str(rhs)), (lhs, rhs))
    return list(seen.values())


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results", nargs="*", help="results to run (default: all)")
    parser.add_argument("--batch", type=int, default=BATCH, help=f"lemmas per coqc call (default {BATCH})")
    parser.add_argument("--seconds", type=float, default=SECONDS_PER_CLAIM,
                        help=f"Coq's time cap per lemma (default {SECONDS_PER_CLAIM:g})")
    parser.add_argument("--pass", dest="whole_pass", action="store_true",
                        help="time the Coq pass of all_sizes and measures_all_sizes (--certify coq)")
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2], help="the --jobs of each timed pass")
    args = parser.parse_args(argv)
    if library.coqc() is None:
        print("coq_certificates: coqc is not installed (Debian: apt-get install coq)", file=sys.stderr)
        return 2
    if args.whole_pass:
        return pass_table(args.results or ["all_sizes", "measures_all_sizes"], args.jobs)
    defaults = cli.build_parser().parse_args([])
    rows, reasons, chain_rows = [], collections.Counter(), []
    for name in args.results or registry.names():
        script = registry.load(name)
        # the run itself, recording the identities it proves
        started, cpu = time.perf_counter(), time.process_time()
        with recording() as recorder:
            script.run(cli.sweep(script, defaults), seed=0, timeout=None)
        run_wall, run_cpu = time.perf_counter() - started, time.process_time() - cpu
        # Coq's pass over the distinct identities, batch by batch
        claims = distinct(recorder.claims)
        answers, coq_cpu, coq_wall, calls = [], 0.0, 0.0, 0
        for start in range(0, len(claims), args.batch):
            batch = certify(claims[start:start + args.batch], args.seconds)
            answers += batch.answers
            coq_cpu, coq_wall, calls = coq_cpu + batch.cpu_seconds, coq_wall + batch.wall_seconds, calls + batch.calls
        checked = sum(a.checked for a in answers)
        refuted = sum(a.refuted for a in answers)
        outside = sum(a.result.startswith("outside the fragment") for a in answers)
        reasons.update(a.result.removeprefix("outside the fragment (").split(" (")[0].split(": ")[0].rstrip(")")[:90]
                       for a in answers if a.result.startswith("outside the fragment"))
        rows.append((name, len(recorder.claims), len(claims), checked, outside,
                     len(claims) - checked - refuted - outside, refuted, run_cpu, run_wall, coq_cpu, coq_wall, calls))
        print(f"  {name}: {checked}/{len(claims)} checked", file=sys.stderr, flush=True)
        # the kernel's chains of its theorems for every size, exported and checked in one coqc call
        if recorder.chains:
            chains = chain_pass(recorder.chains)
            answers = list(chains.answers.values())
            chain_rows.append((name, len(answers), answers.count("checked"),
                               sum(a.startswith("not exported") for a in answers),
                               sum(a.startswith("not checked") for a in answers),
                               sum(a.startswith("refuted") for a in answers), chains.cpu_seconds, chains.wall_seconds))
    print_table(rows)
    if chain_rows:
        print("\nthe kernel's chains exported to Coq (symbolic.coq.chains), one coqc call per result:")
        header = ("result", "chains", "checked", "not exported", "not checked", "refuted", "coq CPU s", "coq s")
        lines = [(n, c, k, x, u, r, f"{cpu:.1f}", f"{wall:.1f}") for n, c, k, x, u, r, cpu, wall in chain_rows]
        aligned(header, lines, numbers_right=True)
    if reasons:
        print("\noutside the fragment, most common reasons:")
        for reason, count in reasons.most_common(6):
            print(f"  {count:4d}  {reason}")
    return 0


def timed_run(arguments: list[str]) -> tuple[float, float, str, str]:
    """(wall seconds, CPU seconds of the process and everything it waited for, stdout, stderr) of
    ``python -m proofs ARGUMENTS``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "proofs", *arguments], capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"coq_certificates: python -m proofs {' '.join(arguments)} exited {done.returncode}:\n"
                         f"{done.stderr[-2000:]}")
    return wall, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime), done.stdout, done.stderr


COQ_SECONDS = re.compile(r"coqc calls, ([0-9.]+) s CPU")


def pass_table(results: list[str], jobs_list: list[int]) -> int:
    """One line per result and --jobs: rows checked by Coq, CPU per checked row, wall beside the peer."""
    header = ("result", "jobs", "rows", "checked", "refuted", "run CPU s", "coq CPU s", "coq CPU s/row", "s",
              "s without coq", "ratio")
    lines = []
    for result in results:
        peer_wall, _, _, _ = timed_run([result, "--json"])
        for jobs in jobs_list:
            wall, cpu, stdout, stderr = timed_run([result, "--json", "--certify", "coq", "--jobs", str(jobs)])
            rows = json.loads(stdout)
            statuses = [row.get("coq", {}).get("status", "") for row in rows]
            checked = statuses.count("checked")
            refuted = sum(status.startswith("refuted") for status in statuses)
            coq_cpu = sum(float(found) for found in COQ_SECONDS.findall(stderr))
            lines.append((result, jobs, len(rows), checked, refuted, f"{cpu:.1f}", f"{coq_cpu:.1f}",
                          f"{coq_cpu / checked:.2f}" if checked else "-", f"{wall:.1f}", f"{peer_wall:.1f}",
                          f"{wall / peer_wall:.2f}"))
            print(f"  {result} --jobs {jobs}: {checked}/{len(rows)} rows checked, {wall:.1f} s", file=sys.stderr,
                  flush=True)
    print(f"Coq {coq_version()}: the Coq pass (--certify coq) over the every-size rows; {processor()}, "
          f"{os.cpu_count()} cores, Python {platform.python_version()}, {time.strftime('%Y-%m-%d')}, load "
          f"{os.getloadavg()[0]:.1f}")
    aligned(header, lines, numbers_right=True)
    return 0


def print_table(rows: list) -> None:
    header = ("result", "proved", "distinct", "checked", "outside", "not checked", "refuted", "run CPU s", "run s",
              "coq CPU s", "coq s", "coq ms/claim", "calls")
    total = ["total"] + [sum(row[i] for row in rows) for i in range(1, len(rows[0]))] if rows else []
    lines = []
    for row in rows + ([tuple(total)] if rows else []):
        name, proved, unique, checked, outside, unchecked, refuted, run_cpu, run_wall, coq_cpu, coq_wall, calls = row
        per_claim = f"{1000 * coq_cpu / checked:.0f}" if checked else "-"
        lines.append((name, proved, unique, checked, outside, unchecked, refuted, f"{run_cpu:.1f}", f"{run_wall:.1f}",
                      f"{coq_cpu:.1f}", f"{coq_wall:.1f}", per_claim, calls))
    print(f"Coq {coq_version()} re-checking the default run's proved identities; "
          f"{processor()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"{time.strftime('%Y-%m-%d')}")
    aligned(header, lines, numbers_right=True)
    if rows:
        inside = total[3] + total[5] + total[6]
        share = f"{100 * total[3] / inside:.1f} %" if inside else "-"
        print(f"\nchecked: {total[3]} of the {inside} distinct identities inside the fragment ({share}), "
              f"{total[5]} not checked (tactics or time), {total[6]} refuted; {total[4]} outside.  Coq's pass: "
              f"{total[9]:.1f} s CPU against {total[7]:.1f} s CPU for the run itself.")


def processor() -> str:
    """The CPU's model name (Linux), else the machine type."""
    try:
        with open("/proc/cpuinfo") as info:
            names = [line.split(":", 1)[1].strip() for line in info if line.startswith("model name")]
    except OSError:
        names = []
    return names[0] if names else platform.machine()


def coq_version() -> str:
    import subprocess
    done = subprocess.run([library.coqc(), "--version"], capture_output=True, text=True, check=False)
    words = done.stdout.split()
    return words[words.index("version") + 1] if "version" in words else "?"


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
