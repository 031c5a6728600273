"""symmetry MODEL.onnx --discover: the architecture read from an exported graph (built here node for node
with onnx.helper, as the exporters write it), its group discovered and proved at the model's own widths,
the every-width proof where its layers allow; the read model computes what onnxruntime computes."""
import json

import numpy as np
import onnx
import pytest
import sympy as sp

from proofs.commands.cli import main
from symbolic.networks import grid_layers, model as layers_module
from symbolic.networks.onnx_architecture import UnsupportedArchitecture, read_architecture
from symbolic.symmetries.symmetry import Symmetry, check_symmetry
from symbolic.trained.onnx_import import onnxruntime_outputs
from symbolic.kernel.verdict import Status
from test_onnx_exporters import Graph, f32

RNG = np.random.default_rng(37)


def small_mlp():
    """torch's Linear(3, 2)-ReLU-Linear(2, 1)."""
    g = Graph(["batch", 3])
    h = g.node("Relu", [g.gemm(g.input, f32(2, 3))])
    return g.model([g.gemm(h, f32(1, 2))])


def small_cnn():
    """Conv(1 → 2, 2x2)-ReLU-MaxPool(1x2)-Flatten-Linear(2, 2)-Softmax on 1 x 2 x 3 images."""
    g = Graph(["batch", 1, 2, 3])
    h = g.node("Conv", [g.input, g.init(f32(2, 1, 2, 2)), g.init(f32(2))], kernel_shape=[2, 2])
    h = g.node("Flatten", [g.node("MaxPool", [g.node("Relu", [h])], kernel_shape=[1, 2])])
    return g.model([g.node("Softmax", [g.gemm(h, f32(2, 2))], axis=1)])


def residual_net():
    """Linear(3, 3), then x + Linear(ReLU(x)), BatchNorm folded to a Diagonal, LeakyReLU, Linear(3, 1)."""
    g = Graph(["batch", 3])
    x = g.gemm(g.input, f32(3, 3))
    h = g.node("Add", [x, g.gemm(g.node("Relu", [x]), f32(3, 3))])
    h = g.node("BatchNormalization", [h] + [g.init(np.abs(f32(3)) + 0.5) if k in (0, 3) else g.init(f32(3))
                                            for k in range(4)])
    return g.model([g.gemm(g.node("LeakyRelu", [h], alpha=0.1), f32(1, 3))])


def nested_residual_net():
    """x + (y + Linear(ReLU(y))) with y = Linear(ReLU(x)): a skip connection inside a skip connection, on
    inputs normalised by (x - 1/2) / 2."""
    g = Graph(["batch", 2])
    x = g.node("Div", [g.node("Sub", [g.input, g.init(np.float32([0.5, 0.5]))]), g.init(np.float32([2, 2]))])
    x = g.gemm(x, f32(2, 2))
    y = g.gemm(g.node("Relu", [x]), f32(2, 2))
    inner = g.node("Add", [y, g.gemm(g.node("Relu", [y]), f32(2, 2))])
    return g.model([g.gemm(g.node("Add", [x, inner]), f32(1, 2))])


def saved(tmp_path, model, name="model.onnx"):
    path = str(tmp_path / name)
    onnx.save(model, path)
    return path


def unchanged(x):
    return x


@pytest.mark.parametrize("build, normalised", [(small_mlp, unchanged), (small_cnn, unchanged), (residual_net, unchanged),
                                               (nested_residual_net, lambda x: (x - 0.5) / 2)])
def test_the_read_model_computes_what_onnxruntime_computes(build, normalised):
    """At the trained weights, on the input as the model sees it (after a normalisation left out)."""
    graph = build()
    architecture = read_architecture(graph)
    model = architecture.model
    shape = model.input_grid if len(model.input_grid) == 3 else model.input_grid[:1]
    inputs = RNG.standard_normal((3, *shape)).astype(np.float32)
    expected = onnxruntime_outputs(graph, inputs, tensor=_logits(graph))
    values = architecture.trained_values()
    for x, reference in zip(inputs, expected):
        x = normalised(x.astype(np.float64))
        signal = [[sp.Rational(float(v)) for v in channel.reshape(-1)] for channel in
                  (x if x.ndim > 1 else x.reshape(-1, 1))]
        outputs = model.predictions(signal, values)
        assert np.allclose([float(v) for v in outputs], reference, atol=1e-4), (outputs, reference)


def _logits(graph):
    """The tensor the loss reads: before a trailing Softmax."""
    last = graph.graph.node[-1]
    return last.input[0] if last.op_type == "Softmax" else graph.graph.output[0].name


def test_layers_are_read_as_the_symmetry_layers():
    cnn = read_architecture(small_cnn()).model
    assert [type(layer) for layer in cnn.layers] == [grid_layers.Conv2d, layers_module.ReLU, grid_layers.MaxPool2d,
                                                     grid_layers.Flatten, layers_module.Dense]
    assert cnn.input_grid == (1, 2, 3) and cnn.layers[0].kernel == (2, 2)
    residual = read_architecture(residual_net()).model
    assert isinstance(residual.layers[1], layers_module.Residual)
    assert [type(layer) for layer in residual.layers[1].layers] == [layers_module.ReLU, layers_module.Dense]
    assert residual.layers[3].slope == sp.Rational(float(np.float32(0.1)))       # the float32 slope, exactly
    nested = read_architecture(nested_residual_net())
    outer = nested.model.layers[1]
    assert isinstance(outer, layers_module.Residual) and isinstance(outer.layers[-1], layers_module.Residual)
    assert any("normalisation of the input is left out" in note for note in nested.notes)


def test_an_mlp_prints_its_group_proved_and_for_every_width(tmp_path, capsys):
    path = saved(tmp_path, small_mlp())
    assert main(["symmetry", path, "--discover"]) == 0
    out = capsys.readouterr().out
    generators = [line for line in out.splitlines() if line.startswith("generator")]
    assert len(generators) == 2 and all(line.endswith("PROVED") for line in generators)
    assert "dimension of the group of positive rescalings: 2 (proved maximal)" in out
    assert "for every width: the rescaling of each unit of the 1 hidden layer" in out
    assert "prediction  sizes=all  PROVED" in out and out.rstrip().endswith("overall: PROVED")
    assert main(["symmetry", path, "--discover", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["dimension"] == 2 and report["dimension_is_maximal"]
    assert all(g["status"] == "proved" for g in report["generators"])
    assert report["every_width"]["applies"] and report["every_width"]["status"] == "proved"
    assert report["every_width"]["spec"]["layers"][0]["units"] == "h1"


def test_a_classifier_of_two_outputs_is_proved_for_every_width_under_its_cross_entropy(tmp_path, capsys):
    # Linear(3, 2)-ReLU-Linear(2, 2)-Softmax: the output width a name k, the softmax read into the loss
    g = Graph(["batch", 3])
    h = g.node("Relu", [g.gemm(g.input, f32(2, 3))])
    path = saved(tmp_path, g.model([g.node("Softmax", [g.gemm(h, f32(2, 2))], axis=1)]))
    assert main(["symmetry", path, "--discover", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    every_width = report["every_width"]
    assert every_width["applies"] and every_width["status"] == "proved", every_width
    assert every_width["spec"]["layers"][-1]["units"] == "k" and every_width["spec"]["loss"] == "cross_entropy"
    # without the softmax, the same two outputs are proved under the MSE
    g = Graph(["batch", 3])
    h = g.node("Relu", [g.gemm(g.input, f32(2, 3))])
    path = saved(tmp_path, g.model([g.gemm(h, f32(2, 2))]), "logits.onnx")
    assert main(["symmetry", path, "--discover", "--json"]) == 0
    every_width = json.loads(capsys.readouterr().out)["every_width"]
    assert every_width["status"] == "proved" and every_width["spec"]["loss"] == "mse"


def test_a_cnn_prints_its_group_proved_and_names_the_layer_every_width_misses(tmp_path, capsys):
    path = saved(tmp_path, small_cnn())
    assert main(["symmetry", path, "--discover"]) == 0
    captured = capsys.readouterr()
    generators = [line for line in captured.out.splitlines() if line.startswith("generator")]
    assert len(generators) == 2 and all(line.endswith("PROVED") for line in generators)
    assert "dimension of the group of positive rescalings: 2 (proved maximal)" in captured.out
    assert "channels (1 2)" in captured.out
    assert "for every width: no: layer 1 (Conv2d(2 channels" in captured.out and "Conv node" in captured.out
    assert "Softmax is read as part of the loss" in captured.err


def test_a_broken_map_of_the_read_model_is_refuted_with_a_reverified_witness():
    model = read_architecture(small_mlp()).model
    broken = Symmetry(model, {"W1": 2 * model["W1"]})        # the output layer does not compensate
    report = check_symmetry(model, broken, sizes=(1,))
    verdict = report.verdict("prediction")
    assert verdict.status is Status.REFUTED and verdict.witness
    # re-evaluated here, exactly, on the two sides as written
    before = model.prediction().xreplace(verdict.witness)
    after = model.prediction(values=broken.mapping).xreplace(verdict.witness)
    assert before.is_Rational and after.is_Rational and before != after


def _stderr_line(capsys) -> str:
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    return err


def test_a_layer_outside_the_symmetry_layers_has_its_group_read_from_the_architecture(tmp_path, capsys):
    # a Sigmoid on hidden units: read; no positive rescaling passes it, said so (not refused)
    g = Graph(["batch", 3])
    h = g.node("Sigmoid", [g.gemm(g.input, f32(2, 3))])
    path = saved(tmp_path, g.model([g.gemm(h, f32(1, 2))]))
    assert main(["symmetry", path, "--discover"]) == 0
    captured = capsys.readouterr()
    assert "dimension 0" in captured.out and "Sigmoid" in captured.out and "Sigmoid" in captured.err
    # a dilated convolution: outside the symmetry layers, its channels' rescalings proved by the unit transport
    g = Graph(["batch", 1, 2, 3])
    h = g.node("Conv", [g.input, g.init(f32(2, 1, 2, 2))], kernel_shape=[2, 2], dilations=[1, 2])
    path = saved(tmp_path, g.model([g.gemm(g.node("Flatten", [g.node("Relu", [h])]), f32(1, 2))]), "dilated.onnx")
    assert main(["symmetry", path, "--discover"]) == 0
    captured = capsys.readouterr()
    assert "Conv node" in captured.err and "dilated" in captured.err
    assert "dimension 2" in captured.out and captured.out.count("PROVED") == 2
    # attention is still refused, in one line
    g = Graph(["batch", 3])
    h = g.node("Softmax", [g.gemm(g.input, f32(3, 3))], axis=-1)
    path = saved(tmp_path, g.model([g.gemm(h, f32(1, 3))]), "attention.onnx")
    assert main(["symmetry", path, "--discover"]) == 2
    assert "attention is not read" in _stderr_line(capsys)


def test_a_branch_that_is_no_skip_connection_names_the_node():
    g = Graph(["batch", 3])
    x = g.gemm(g.input, f32(3, 3))
    h = g.node("Add", [g.gemm(x, f32(3, 3)), g.node("Relu", [x])])     # two branches of one layer each
    with pytest.raises(UnsupportedArchitecture, match="Relu node .* only a skip connection"):
        read_architecture(g.model([g.gemm(h, f32(1, 3))]))
    g = Graph(["batch", 3])
    x = g.gemm(g.input, f32(3, 3))
    with pytest.raises(UnsupportedArchitecture, match="Add node .* not a skip connection"):
        read_architecture(g.model([g.gemm(g.node("Add", [x, x]), f32(1, 3))]))


def test_an_onnx_model_needs_discover(tmp_path, capsys):
    path = saved(tmp_path, small_mlp())
    assert main(["symmetry", path]) == 2
    assert "--discover" in _stderr_line(capsys)
    assert main(["symmetry", str(tmp_path / "missing.onnx"), "--discover"]) == 2
    assert "no such file" in _stderr_line(capsys)
