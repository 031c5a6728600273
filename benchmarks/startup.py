"""Benchmark: what the first commands cost, in CPU seconds, beside the interpreter and sympy alone.

    python benchmarks/startup.py [--runs N]

Each command runs N times (default 5) in a fresh interpreter, in rotation (no command always first on
a cold disk cache); the CPU time is that of the child process (user + system, from ``wait4``), the
median of the runs.  The peers, in the same run: ``python -c pass`` (the interpreter's own start) and
``python -c "import sympy"`` (the computer algebra every verdict needs).  The table gives each
command's median CPU, that less the interpreter's start (the figure the first-hour goal bounds by
1 s), and its ratio to importing sympy alone; then the modules whose import costs most for
``--help``, read from ``python -X importtime``.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

COMMANDS = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "python -c 'import sympy'": [sys.executable, "-c", "import sympy"],
    "python -m proofs --help": [sys.executable, "-m", "proofs", "--help"],
    "python -m proofs --list": [sys.executable, "-m", "proofs", "--list"],
    "python -m proofs check 'relu(a*x)' 'a*relu(x)' --positive a":
        [sys.executable, "-m", "proofs", "check", "relu(a*x)", "a*relu(x)", "--positive", "a"],
    "python -m proofs check 'relu(x)/relu(x)' 'relu(x)/x'":
        [sys.executable, "-m", "proofs", "check", "relu(x)/relu(x)", "relu(x)/x"],
    "python -m proofs theorem1 --size 2,2,2": [sys.executable, "-m", "proofs", "theorem1", "--size", "2,2,2"],
}


def cpu_seconds(command: list[str]) -> float:
    """The CPU time (user + system) of one run of the command in a fresh process."""
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_utime + usage.ru_stime


def heaviest_imports(command: list[str], count: int = 6) -> list[tuple[str, float]]:
    """The modules with the largest cumulative import time (seconds) under ``-X importtime``."""
    result = subprocess.run([command[0], "-X", "importtime", *command[1:]], cwd=ROOT, capture_output=True,
                            text=True)
    rows = []
    for line in result.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            _, cumulative, name = (part.strip() for part in line[len("import time:"):].split("|"))
            if cumulative.isdigit():
                rows.append((name, int(cumulative) / 1e6))
    return sorted(rows, key=lambda row: -row[1])[:count]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    times = {name: [] for name in COMMANDS}
    for run in range(args.runs):
        names = list(COMMANDS)
        for name in names[run % len(names):] + names[:run % len(names)]:
            times[name].append(cpu_seconds(COMMANDS[name]))
    median = {name: statistics.median(values) for name, values in times.items()}
    interpreter, sympy_alone = median["python -c pass"], median["python -c 'import sympy'"]
    print(f"load average {os.getloadavg()[0]:.2f}; {args.runs} runs each, median CPU seconds")
    print("| command | CPU s | less the interpreter's start | / import sympy |")
    print("|---|---|---|---|")
    for name, value in median.items():
        print(f"| `{name}` | {value:.2f} | {value - interpreter:.2f} | {value / sympy_alone:.2f}× |")
    print("\nheaviest imports of --help (cumulative seconds):")
    for module, seconds in heaviest_imports(COMMANDS["python -m proofs --help"]):
        print(f"  {module:<40} {seconds:.3f}")


if __name__ == "__main__":
    main()
