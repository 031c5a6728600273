"""Benchmark: `rescale MODEL.onnx --group discovered` against `--group per_neuron` on the same model.

    python benchmarks/rescale_discovered.py

For each exported graph (built with onnx.helper as the exporters write it) and its data, in the same
run: the whole command with the per_neuron group (the peer: a fixed rescaling, no discovery), then
with the discovered group (the architecture read, its group discovered and proved, a random element
applied), each from an empty sympy cache and with the two exact measures, and the ratio of the two
wall times; then the discovery alone (read, discover, the generators' θ exponents), the part the
discovered group adds.  A first untimed run warms up JAX and onnxruntime.  Prints the core count, the versions and the load average at the start.
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import platform
import sys
import tempfile
import time

import numpy as np
import onnx
import sympy as sp
from onnx import helper, numpy_helper
from sympy.core.cache import clear_cache

from proofs.commands.cli import main as cli
from proofs.commands.discovered_group import discover_group
from symbolic.networks.onnx_architecture import read_architecture
from symbolic.trained.onnx_import import load_model

from onnx_discover import RNG, graph, mlp as exported_mlp      # the same exported graphs
from tables import print_table

EXAMPLES = 200


def mlp(d: int, h: int):
    return exported_mlp(d, h)[0], (d,)


def batchnorm_mlp(d: int, h: int):
    nodes = [helper.make_node("Gemm", ["x", "w1", "b1"], ["z1"], transB=1),
             helper.make_node("BatchNormalization", ["z1", "gamma", "beta", "mean", "var"], ["n1"]),
             helper.make_node("Relu", ["n1"], ["a1"]), helper.make_node("Gemm", ["a1", "w2", "b2"], ["y"], transB=1)]
    model = graph(["batch", d], nodes, [("w1", (h, d)), ("b1", (h,)), ("gamma", (h,)), ("beta", (h,)),
                                        ("mean", (h,)), ("w2", (1, h)), ("b2", (1,))], "y")
    model.graph.initializer.append(numpy_helper.from_array(RNG.uniform(0.5, 2, h).astype(np.float32), "var"))
    return model, (d,)


def cnn():
    nodes = [helper.make_node("Conv", ["x", "k", "c"], ["z"], kernel_shape=[2, 2]),
             helper.make_node("Relu", ["z"], ["a"]), helper.make_node("MaxPool", ["a"], ["p"], kernel_shape=[1, 2]),
             helper.make_node("Flatten", ["p"], ["f"]), helper.make_node("Gemm", ["f", "w", "b"], ["y"], transB=1)]
    return graph(["batch", 1, 2, 3], nodes, [("k", (2, 1, 2, 2)), ("c", (2,)), ("w", (1, 2)), ("b", (1,))], "y"), \
        (1, 2, 3)


def timed(step, *arguments):
    clear_cache()                     # each step from an empty sympy cache
    start = time.perf_counter()
    value = step(*arguments)
    return value, time.perf_counter() - start


def run(path: str, data: str, group: str) -> dict:
    with contextlib.redirect_stdout(io.StringIO()) as out:
        code = cli(["rescale", path, "--data", data, "--group", group, "--measures", "path_norm,weight_norm",
                    "--json"])
    report = json.loads(out.getvalue())
    assert code == 0 and report["predictions_identical"], report
    return report


def discovery_alone(path: str):
    """What --group discovered adds: the graph read as an architecture, its group discovered and proved."""
    return discover_group(read_architecture(load_model(path)), path, 0)


def main() -> int:
    print(f"{os.cpu_count()} cores, Python {platform.python_version()}, sympy {sp.__version__}, onnx {onnx.__version__}, "
          f"load average {os.getloadavg()[0]:.1f}; {EXAMPLES} examples, measures path_norm and weight_norm")
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for name, (exported, shape) in (("MLP 3-2-1", mlp(3, 2)), ("MLP 4-4-1", mlp(4, 4)),
                                        ("MLP 3-3-1 + BatchNorm", batchnorm_mlp(3, 3)), ("CNN 1x2x3", cnn())):
            path, data = os.path.join(folder, "model.onnx"), os.path.join(folder, "data.npz")
            onnx.save(exported, path)
            np.savez(data, x=RNG.standard_normal((EXAMPLES, *shape)).astype(np.float32), y=RNG.standard_normal(EXAMPLES))
            if not rows:
                run(path, data, "per_neuron")       # untimed: JAX's and onnxruntime's first call warm up
            _, peer = timed(run, path, data, "per_neuron")
            report, discovered = timed(run, path, data, "discovered")
            _, discovery = timed(discovery_alone, path)
            group = report["discovered"]
            rows.append((name, report["parameters"], group["dimension"],
                         "yes" if group["dimension_is_maximal"] else "no", f"{peer:.2f}", f"{discovered:.2f}",
                         f"{discovered / peer:.1f}", f"{discovery:.2f}", report["twins"][0]["element"]))
    header = ("graph", "n", "dim", "maximal", "per_neuron s", "discovered s", "ratio", "discovery s", "element (seed 0)")
    print_table(header, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
