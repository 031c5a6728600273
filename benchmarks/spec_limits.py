"""Benchmark: how long `symmetry SPEC` takes as a network grows, to set the spec's limits.

    python benchmarks/spec_limits.py [--quick]

For one-hidden-layer ReLU networks with biases (input width d, h hidden units, one output:
n = d·h + 2h parameters), in the same run: ``check_symmetry`` of the per-unit map (prediction,
loss, gradient, Hessian at N = 1) and ``discover_symmetries`` (the generators found and proved,
maximality, the channel swaps); the baseline is the network at the old limit's scale (d = 4,
h = 6, 36 parameters), and each row prints its time and its ratio to the baseline, with the core
count and the versions.  The limits of ``proofs/commands/symmetry_command.py`` are set from this
table: the largest sizes decided within about a minute.
"""
from __future__ import annotations

import argparse
import os
import platform
import sys
import time

import flint
import sympy as sp

from symbolic import Dense, Model, ReLULayer, Symmetry, check_symmetry, discover_symmetries, positive_scales

SIZES = [(4, 6), (8, 6), (8, 8), (16, 6), (10, 10), (24, 4), (48, 2)]
QUICK_SIZES = [(4, 6), (8, 6)]


def network(d: int, h: int) -> Model:
    return Model(d, [Dense(h, "W", "b"), ReLULayer(), Dense(1, "v")])


def per_unit_map(model: Model, h: int) -> Symmetry:
    scale = sp.diag(*positive_scales("c", h))
    return Symmetry(model, {"W": model["W"] * scale, "b": model["b"] * scale, "v": scale.inv() * model["v"]})


def timed(step):
    start = time.perf_counter()
    value = step()
    return value, time.perf_counter() - start


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="two sizes only")
    args = parser.parse_args(argv)
    print(f"{os.cpu_count()} cores, Python {platform.python_version()}, sympy {sp.__version__}, "
          f"python-flint {flint.__version__}")
    rows, baseline = [], None
    for d, h in QUICK_SIZES if args.quick else SIZES:
        model = network(d, h)
        report, check = timed(lambda model=model, h=h: check_symmetry(model, per_unit_map(model, h), sizes=(1,)))
        found, discover = timed(lambda model=model: discover_symmetries(model))
        baseline = baseline or (check, discover)
        rows.append((f"d={d}, h={h}", len(model.parameters), d, report.status.name, f"{check:.1f}",
                     f"{check / baseline[0]:.1f}", found.status.name, f"{discover:.1f}",
                     f"{discover / baseline[1]:.1f}"))
    header = ("network", "n", "inputs", "check", "s", "ratio", "discover", "s", "ratio")
    widths = [max(len(str(x)) for x in column) for column in zip(header, *rows)]
    for line in [header, tuple("-" * w for w in widths), *rows]:
        print("  ".join(str(x).ljust(w) for x, w in zip(line, widths)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
