"""Benchmark: how long `symmetry SPEC` takes as a network grows, to set the spec's limits.

    python benchmarks/spec_limits.py [--quick]

For one-hidden-layer ReLU networks with biases (input width d, h hidden units, one output:
n = d·h + 2h parameters), in the same run: ``check_symmetry`` of the per-unit map (prediction,
loss, gradient, Hessian at N = 1) and ``discover_symmetries`` (the generators found and proved,
maximality, the channel swaps); the baseline is the network at the old limit's scale (d = 4,
h = 6, 36 parameters), and each row prints its time and its ratio to the baseline, with the core
count and the versions.  The limits of ``proofs/commands/symmetry_command.py`` are set from this
table: the largest sizes decided within about a minute.

A second table (``--pooling`` alone) times the kinks rather than the parameters: a 2-d
convolution of two channels, ReLU, one 2 x 2 max-pooling window per channel and a dense read-out,
on 3 x 3 and 4 x 4 images (28 kinks on the two sides of the prediction claim).  In the same run:
one channel's scale, its prediction claim as written (the exact identity test, past its 24 kinks:
Z3 and cvc5, 60 s at most) against layer by layer (``symbolic.symmetries.layer_transport``), and the
whole ``discover_symmetries`` (60 s per claim) with the prediction claims as written and layer by
layer, each with its verdict and the ratio.
"""
from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from unittest import mock

import flint
import sympy as sp

from symbolic import (Conv2d, Dense, Flatten, MaxPool2d, Model, ReLULayer, Symmetry, check_symmetry,
                      discover_symmetries, positive_scales)
from symbolic.checks import identity
from symbolic.symmetries import layer_transport
from symbolic.symmetries.symmetry import prediction_invariance

from tables import print_table

SIZES = [(4, 6), (8, 6), (8, 8), (16, 6), (10, 10), (24, 4), (48, 2)]
QUICK_SIZES = [(4, 6), (8, 6)]


def network(d: int, h: int) -> Model:
    return Model(d, [Dense(h, "W", "b"), ReLULayer(), Dense(1, "v")])


def per_unit_map(model: Model, h: int) -> Symmetry:
    scale = sp.diag(*positive_scales("c", h))
    return Symmetry(model, {"W": model["W"] * scale, "b": model["b"] * scale, "v": scale.inv() * model["v"]})


def pooled_network(size: int) -> Model:
    """Two channels of a (size − 1) x (size − 1) kernel: 2 x 2 positions each, pooled to one."""
    return Model((1, size, size), [Conv2d(2, size - 1, "K", bias="b"), ReLULayer(), MaxPool2d(2), Flatten(),
                                   Dense(1, "v")])


def channel_scale(model: Model) -> Symmetry:
    one = sp.diag(sp.Symbol("c", positive=True), 1)
    return Symmetry(model, {"K": one * model["K"], "b": one * model["b"], "v": one.inv() * model["v"]})


def pooling_table() -> list[tuple]:
    rows = []
    for size in (3, 4):
        model = pooled_network(size)
        T, x = channel_scale(model), model.input()
        lhs, rhs = model.prediction(x, T.tensors()), model.prediction(x)
        written, as_written = timed(lambda lhs=lhs, rhs=rhs: identity(lhs, rhs, label="prediction", timeout=60))
        layered, by_layers = timed(lambda model=model, T=T: prediction_invariance(model, T))
        # discovery with the prediction claims as written: the layer route switched off for the run
        with mock.patch.object(layer_transport, "prediction_by_layers", lambda *args, **kwargs: None):
            old, discover_old = timed(lambda model=model: discover_symmetries(model, timeout=60))
        new, discover_new = timed(lambda model=model: discover_symmetries(model, timeout=60))
        rows.append((f"{size}x{size} image", len(model.parameters), layer_transport.kinks((lhs, rhs)),
                     f"{written.status.name} {as_written:.1f}", f"{layered.status.name} {by_layers:.2f}",
                     f"{as_written / by_layers:.0f}", f"{old.status.name} {discover_old:.1f}",
                     f"{new.status.name} {discover_new:.1f}", f"{discover_old / discover_new:.1f}"))
    return rows


def timed(step):
    start = time.perf_counter()
    value = step()
    return value, time.perf_counter() - start


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="two sizes only")
    parser.add_argument("--pooling", action="store_true", help="the table of the pooled images only")
    args = parser.parse_args(argv)
    print(f"{os.cpu_count()} cores, Python {platform.python_version()}, sympy {sp.__version__}, "
          f"python-flint {flint.__version__}")
    print_table(("network", "n", "kinks", "prediction as written, s", "layer by layer, s", "ratio",
                 "discover as written, s", "discover, s", "ratio"), pooling_table())
    if args.pooling:
        return 0
    print()
    rows, baseline = [], None
    for d, h in QUICK_SIZES if args.quick else SIZES:
        model = network(d, h)
        report, check = timed(lambda model=model, h=h: check_symmetry(model, per_unit_map(model, h), sizes=(1,)))
        found, discover = timed(lambda model=model: discover_symmetries(model))
        baseline = baseline or (check, discover)
        rows.append((f"d={d}, h={h}", len(model.parameters), d, report.status.name, f"{check:.1f}",
                     f"{check / baseline[0]:.1f}", found.status.name, f"{discover:.1f}",
                     f"{discover / baseline[1]:.1f}"))
    print_table(("network", "n", "inputs", "check", "s", "ratio", "discover", "s", "ratio"), rows)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
