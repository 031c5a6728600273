"""Benchmark: `symmetry MODEL.onnx --discover` against the same architecture written as a spec.

    python benchmarks/onnx_discover.py

For each exported graph (built with onnx.helper as the exporters write it), in the same run: reading
the graph into a symmetry Model (``load_model`` and ``read_architecture``), discovery on the Model
read, discovery on the same architecture built by hand as a spec's Model (the peer, run first), each
from an empty sympy cache, and the ratio of the two discoveries (the Model read is the spec's, so
about 1); then, where the layers allow, the
every-width proof of the per-unit rescaling.  Prints the core count and the versions.

A second table: whole trained models past the spec limit (the real exports shipped in
tests/fixtures/exports, and torchvision's resnet18(num_classes=10) when torch is installed or
``--resnet18 PATH`` names its export), their group read from the architecture and every generator
proved by the unit transport: reading the graph, reading the group, proving the six laws, proving every
generator, and (a dense ReLU network) the every-width proof; the peer in the same run is the spec
path's discovery on the MLP 4-4-1 above against the unit transport on the same export (time per
generator), and the peak memory of the process.
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


FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "fixtures", "exports")


def whole_models(resnet18: str | None) -> None:
    """The group read from the architecture on whole trained models, every generator proved."""
    import resource

    from symbolic.networks.onnx_architecture import every_width_spec_of
    from symbolic.symmetries.unit_transport import prove_generators, proved_laws
    from symbolic.trained.onnx_import import import_network
    from symbolic.trained.unit_group import read_unit_group
    # the peer: the spec path's discovery and the unit transport on the MLP 4-4-1, per generator
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "model.onnx")
        onnx.save(mlp(4, 4)[0], path)
        architecture = read_architecture(load_model(path))
        clear_cache()
        found, spec_time = timed(lambda: discover_symmetries(architecture.model))
        group = read_unit_group(import_network(load_model(path)))
        verdicts, unit_time = timed(lambda: prove_generators(group, "mlp"))
    print(f"\nthe MLP 4-4-1 ({found.dimension} generators): the spec path's discovery {spec_time:.2f} s, the unit "
          f"transport {unit_time:.3f} s (laws included), {spec_time / max(unit_time, 1e-9):.0f}x; "
          f"{sum(v.proved for v in verdicts)} of {len(verdicts)} PROVED")
    models = [("6-layer MLP (legacy)", os.path.join(FIXTURES, "mlp6_legacy.onnx")),
              ("ResNet block (dynamo)", os.path.join(FIXTURES, "resnet_block_dynamo.onnx")),
              ("Keras 3 CNN", os.path.join(FIXTURES, "keras_cnn.onnx"))]
    if resnet18 is None:
        try:
            sys.path.insert(0, FIXTURES)
            from make_exports import export_resnet18
            resnet18 = os.path.join(tempfile.mkdtemp(), "resnet18.onnx")
            export_resnet18(resnet18)
        except ImportError:
            resnet18 = None
    if resnet18:
        models.append(("resnet18(num_classes=10)", resnet18))
    rows = []
    laws, law_time = timed(proved_laws)
    for name, path in models:
        network, read = timed(lambda path=path: import_network(load_model(path)))
        group, grouping = timed(lambda network=network: read_unit_group(network))
        verdicts, proving = timed(lambda group=group: prove_generators(group, "m", premises=laws))
        spec, _ = every_width_spec_of(network)
        every, width_time = timed(lambda spec=spec: check_symmetry(spec, sizes="all")) if spec else (None, None)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        rows.append((name, f"{network.parameter_count:,}", len(network.layers), f"{read:.2f}", f"{grouping:.2f}",
                     group.dimension, sum(group.tied(k) for k in range(group.dimension)),
                     f"{sum(v.proved for v in verdicts)}/{len(verdicts)}", f"{proving:.2f}",
                     "-" if every is None else f"{every['prediction'].status.name} {width_time:.1f}", f"{peak:.0f}"))
    print(f"the six laws: {law_time:.2f} s, once")
    print_table(("model", "parameters", "layers", "read s", "group s", "dim", "tied", "PROVED", "prove s",
                 "every width s", "peak MB"), rows)


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
    whole_models(sys.argv[sys.argv.index("--resnet18") + 1] if "--resnet18" in sys.argv else None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
