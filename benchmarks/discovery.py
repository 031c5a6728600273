"""Benchmark: discovering the symmetries of a network against checking the one a user writes by hand.

    python benchmarks/discovery.py [--quick]

For one-hidden-layer ReLU networks (input width d, h hidden units, biases) and a deep leaky-ReLU
network, in the same run:
  discovery  the exponent system solved (integer basis) and the maximality bound (certified rank of
             the log-scale derivative), without the proofs of the generators;
  proofs     check_symmetry of every generator found (prediction, loss, gradient, Hessian; N = 1);
  baseline   check_symmetry of the per-unit map written by hand (W ↦ W·diag(c), b ↦ b·diag(c),
             v ↦ diag(c)⁻¹v, h group parameters), what a user runs today knowing the answer;
and prints the dimension found, whether it is proved maximal, the times and the ratio
(discovery + proofs) / baseline, with the core count and the versions.
"""
from __future__ import annotations

import argparse
import os
import platform
import sys
import time

import flint
import sympy as sp

from symbolic import Dense, LeakyReLU, Model, ReLULayer, Symmetry, check_symmetry, positive_scales
from symbolic.symmetries.discovery import generator_symmetry, maximality
from symbolic.networks.exponent_system import ExponentSystem

ONE_LAYER_SIZES = [(1, 2), (2, 2), (2, 3), (3, 4), (4, 6)]
QUICK_SIZES = [(1, 2), (2, 3)]


def one_hidden_layer(d: int, h: int) -> Model:
    return Model(d, [Dense(h, "W", "b"), ReLULayer(), Dense(1, "v")])


def per_unit_map(model: Model, h: int) -> Symmetry:
    c = positive_scales("c", h)
    scale = sp.diag(*c)
    return Symmetry(model, {"W": model["W"] * scale, "b": model["b"] * scale, "v": scale.inv() * model["v"]})


def timed(step):
    start = time.perf_counter()
    value = step()
    return value, time.perf_counter() - start


def measure(name: str, model: Model, baseline: Symmetry | None) -> tuple:
    basis, system_time = timed(lambda: ExponentSystem(model).solution_basis())
    reports, proof_time = timed(lambda: [check_symmetry(model, generator_symmetry(model, G, "T"), sizes=(1,))
                                         for G in basis])
    proofs = [v for r in reports for claim, _, v in r.rows if claim in ("prediction", "loss")]
    (verdict, bound), bound_time = timed(lambda: maximality(model, basis, proofs, seed=0))
    if baseline is not None:
        base_report, base_time = timed(lambda: check_symmetry(model, baseline, sizes=(1,)))
        base_status = base_report.status.name
    else:
        base_time, base_status = None, "-"
    discovery = system_time + bound_time
    ratio = f"{(discovery + proof_time) / base_time:.1f}" if base_time else "-"
    return (name, len(model.parameters), len(basis), verdict.status.name, f"{discovery:.2f}",
            f"{proof_time:.2f}", "-" if base_time is None else f"{base_time:.2f} ({base_status})", ratio)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="two small sizes only")
    args = parser.parse_args()
    rows = []
    for d, h in QUICK_SIZES if args.quick else ONE_LAYER_SIZES:
        model = one_hidden_layer(d, h)
        rows.append(measure(f"ReLU d={d} h={h}", model, per_unit_map(model, h)))
    if not args.quick:
        deep = Model(2, [Dense(3, "W1", "b1"), LeakyReLU(sp.Rational(1, 10)), Dense(3, "W2", "b2"),
                         LeakyReLU(sp.Rational(1, 10)), Dense(1, "W3", "b3")])
        rows.append(measure("leaky 2-3-3-1, biases", deep, None))
    header = ("network", "n", "dim", "maximal", "discovery s", "proofs s", "hand-written map s",
              "(disc.+proofs)/hand")
    widths = [max(len(str(x)) for x in column) for column in zip(header, *rows)]
    for line in [header, tuple("-" * w for w in widths), *rows]:
        print("  ".join(str(x).ljust(w) for x, w in zip(line, widths)).rstrip())
    print(f"\n{os.cpu_count()} cores, Python {platform.python_version()}, sympy {sp.__version__}, "
          f"python-flint {flint.__version__}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
