"""Benchmark: `symmetry MODEL.onnx --discover` against the same architecture written as a spec.

    python benchmarks/onnx_discover.py

For each exported graph (built with onnx.helper as the exporters write it), in the same run: reading
the graph into a symmetry Model (``load_model`` and ``read_architecture``), discovery on the Model
read, discovery on the same architecture built by hand as a spec's Model (the peer, run first), each
from an empty sympy cache, and the ratio of the two discoveries (the Model read is the spec's, so
about 1); then, where the layers allow, the
every-width proof of the per-unit rescaling.  Prints the core count and the versions.
"""
from __future__ import annotations

import os
import platform
import sys
import tempfile
import time

import numpy as np
import onnx
import sympy as sp
from onnx import TensorProto, helper, numpy_helper
from sympy.core.cache import clear_cache

from symbolic import Dense, Model, ReLULayer, check_symmetry, discover_symmetries
from symbolic.networks.grid_layers import Conv2d, Flatten, MaxPool2d
from symbolic.networks.onnx_architecture import every_width_spec, read_architecture
from symbolic.trained.onnx_import import load_model

from tables import print_table

RNG = np.random.default_rng(0)


def graph(input_dims, nodes, initializers, output):
    model = helper.make_model(helper.make_graph(
        nodes, "exported", [helper.make_tensor_value_info("x", TensorProto.FLOAT, input_dims)],
        [helper.make_tensor_value_info(output, TensorProto.FLOAT, ["batch", "outputs"])],
        [numpy_helper.from_array(RNG.standard_normal(shape).astype(np.float32), name)
         for name, shape in initializers]), opset_imports=[helper.make_opsetid("", 20)])
    model.ir_version = 9
    return model


def mlp(d: int, h: int):
    nodes = [helper.make_node("Gemm", ["x", "w1", "b1"], ["z1"], transB=1), helper.make_node("Relu", ["z1"], ["a1"]),
             helper.make_node("Gemm", ["a1", "w2", "b2"], ["y"], transB=1)]
    return graph(["batch", d], nodes, [("w1", (h, d)), ("b1", (h,)), ("w2", (1, h)), ("b2", (1,))], "y"), \
        Model(d, [Dense(h, "W1", "b1"), ReLULayer(), Dense(1, "W2", "b2")])


def cnn():
    nodes = [helper.make_node("Conv", ["x", "k", "c"], ["z"], kernel_shape=[2, 2]),
             helper.make_node("Relu", ["z"], ["a"]), helper.make_node("MaxPool", ["a"], ["p"], kernel_shape=[1, 2]),
             helper.make_node("Flatten", ["p"], ["f"]), helper.make_node("Gemm", ["f", "w", "b"], ["y"], transB=1)]
    return graph(["batch", 1, 2, 3], nodes, [("k", (2, 1, 2, 2)), ("c", (2,)), ("w", (2, 2)), ("b", (2,))], "y"), \
        Model((1, 2, 3), [Conv2d(2, (2, 2), "W1", "b1"), ReLULayer(), MaxPool2d((1, 2)), Flatten(),
                          Dense(2, "W2", "b2")])


def timed(step):
    start = time.perf_counter()
    value = step()
    return value, time.perf_counter() - start


def main() -> int:
    print(f"{os.cpu_count()} cores, Python {platform.python_version()}, sympy {sp.__version__}, onnx {onnx.__version__}")
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for name, (exported, written) in (("MLP 3-2-1", mlp(3, 2)), ("MLP 4-4-1", mlp(4, 4)), ("CNN 1x2x3", cnn())):
            path = os.path.join(folder, "model.onnx")
            onnx.save(exported, path)
            architecture, read = timed(lambda path=path: read_architecture(load_model(path)))
            # each discovery from an empty sympy cache: the second would otherwise reuse the first's work
            clear_cache()
            peer, from_spec = timed(lambda model=written: discover_symmetries(model))
            clear_cache()
            found, from_onnx = timed(lambda model=architecture.model: discover_symmetries(model))
            spec, _ = every_width_spec(architecture)
            every, width_time = timed(lambda spec=spec: check_symmetry(spec, sizes="all")) if spec else (None, None)
            rows.append((name, len(architecture.model.parameters), f"{read:.2f}", found.status.name, found.dimension,
                         f"{from_onnx:.1f}", f"{from_spec:.1f}", f"{from_onnx / from_spec:.2f}",
                         "-" if every is None else f"{every.status.name} {width_time:.1f}"))
    header = ("graph", "n", "read s", "discover", "dim", "onnx s", "spec s", "ratio", "every width s")
    print_table(header, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
