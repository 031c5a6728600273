"""Keras 3 channels-last CNNs as ``model.export(format="onnx")`` writes them (built node for node with
onnx.helper; Keras is not installed for the tests): an NHWC input, a Transpose to NCHW before the
convolutions, float-to-float Casts, a Transpose back to NHWC before the Flatten (a Reshape [-1, k]),
then MatMul + Add.  Read, checked against onnxruntime, the twin's predictions identical exactly, the
measures before and after; the factors follow the features through the Transposes (a twin that
ignores them is refuted), and a Transpose that moves the batch is refused."""
import json
from fractions import Fraction

import numpy as np
import onnx
import pytest
from onnx import TensorProto

from proofs.commands.cli import main
from symbolic.trained import exact
from symbolic.trained.experiment import build_twins, read_data
from symbolic.trained.network import Permute, TrainedNetwork
from symbolic.trained.onnx_import import import_network
from symbolic.trained.rescaling import exact_parameters, parameter_factors, scaled
from tests.test_onnx_exporters import Graph, f32

RNG = np.random.default_rng(37)
NHWC = (8, 8, 2)


def keras_cnn(transposes="once", batch_norm=False, batch="unk__0"):
    """Conv2D(3, 3×3) → ReLU → [BatchNormalization] → MaxPooling2D(2) → Conv2D(4, 2×2) → ReLU →
    Flatten → Dense(5) → ReLU → Dense(3) → Softmax, channels-last.  ``transposes`` "once": NHWC → NCHW
    once at the input and back before the Flatten (what the exporter's optimizer leaves); "each": around
    every convolution, as written before the optimizer cancels the pairs."""
    g = Graph([batch, *NHWC], name="keras_tensor")
    h = g.node("Cast", [g.input], to=TensorProto.FLOAT)

    def conv(h, out, width, kernel):
        if transposes == "each":
            h = g.node("Transpose", [h], perm=[0, 3, 1, 2])
        h = g.node("Conv", [h, g.init(f32(out, width, kernel, kernel)), g.init(f32(out))],
                   kernel_shape=[kernel, kernel], strides=[1, 1], dilations=[1, 1], pads=[0, 0, 0, 0])
        return g.node("Transpose", [h], perm=[0, 2, 3, 1]) if transposes == "each" else h
    if transposes == "once":
        h = g.node("Transpose", [h], perm=[0, 3, 1, 2])
    h = g.node("Relu", [conv(h, 3, 2, 3)])
    if batch_norm:                               # inference mode, on the channels (NCHW inside)
        h = g.node("BatchNormalization", [h, g.init(RNG.uniform(0.5, 2, 3).astype(np.float32)), g.init(f32(3)),
                                          g.init(f32(3)), g.init(RNG.uniform(0.5, 2, 3).astype(np.float32))])
    if transposes == "each":
        h = g.node("Transpose", [h], perm=[0, 3, 1, 2])
    h = g.node("MaxPool", [h], kernel_shape=[2, 2], strides=[2, 2])
    if transposes == "each":
        h = g.node("Transpose", [h], perm=[0, 2, 3, 1])
    h = g.node("Relu", [conv(h, 4, 3, 2)])
    if transposes == "once":
        h = g.node("Transpose", [h], perm=[0, 2, 3, 1])
    h = g.node("Reshape", [h, g.init(np.array([-1, 16], dtype=np.int64))])       # 8 → 6 → 3 → 2: 2×2×4 = 16
    for k, (out, width) in enumerate(((5, 16), (3, 5))):
        h = g.node("Cast", [g.node("MatMul", [h, g.init(f32(out, width).T.copy())])], to=TensorProto.FLOAT)
        h = g.node("Cast", [g.node("Add", [g.init(f32(out)), h])], to=TensorProto.FLOAT)
        h = g.node("Relu" if k == 0 else "Softmax", [h])
    return g.model([g.node("Identity", [h])])


def keras_run(model, group="per_neuron", n=30):
    network = import_network(model)
    x, y = read_data(network, f32(n, *NHWC, scale=1.0), RNG.integers(0, 3, n), "cross_entropy")
    return build_twins(model, network, x, y, [Fraction(5, 2)], group)


@pytest.mark.parametrize("transposes, batch_norm, batch", [("once", False, "unk__0"), ("each", False, "unk__0"),
                                                           ("once", True, 8)],
                         ids=["optimized", "a Transpose around every op", "batch norm, fixed batch"])
def test_a_channels_last_cnn_is_read_and_its_twin_is_exact(transposes, batch_norm, batch):
    model = keras_cnn(transposes, batch_norm, batch)
    run = keras_run(model)
    assert run.network.input_shape == NHWC and any(isinstance(layer, Permute) for layer in run.network.layers)
    assert run.reference_deviation < 1e-4 and run.nonzero_outputs > 0
    assert all(t.predictions_identical and t.float_agrees for t in run.twins)
    assert any(f != 1 for factors in run.twins[0].factors for f in factors.table)
    assert exact.path_norm_squared(run.network, run.original, NHWC) == \
        exact.path_norm_squared(run.network, run.twins[0].parameters, NHWC)


def test_a_twin_that_ignores_the_transpose_back_is_refuted():
    """The factors of the Dense after the Flatten, derived as if the features were in NCHW order (the
    network without its last Transpose): f changes, and the exact comparison finds an example."""
    model = keras_cnn()
    network = import_network(model)
    last = max(k for k, layer in enumerate(network.layers) if isinstance(layer, Permute))
    unpermuted = TrainedNetwork(network.layers[:last] + network.layers[last + 1:], network.input_shape)
    right = parameter_factors(network, "per_neuron", Fraction(3))
    wrong = parameter_factors(unpermuted, "per_neuron", Fraction(3))
    assert [f.codes.shape for f in wrong] == [f.codes.shape for f in right]
    original, x = exact_parameters(network), exact.from_floats(f32(20, *NHWC, scale=1.0))
    before = exact.forward(network, original, x)
    assert exact.first_difference(before, exact.forward(network, [scaled(t, f) for t, f in zip(original, right)], x)) \
        is None
    difference = exact.first_difference(before, exact.forward(network, [scaled(t, f) for t, f in
                                                                        zip(original, wrong)], x))
    assert difference is not None and difference[1] != difference[2]


def test_the_command_measures_a_keras_cnn_before_and_after(tmp_path, capsys):
    onnx.save(keras_cnn(), str(tmp_path / "keras.onnx"))
    np.savez(tmp_path / "d.npz", x=f32(30, *NHWC, scale=1.0), y=RNG.integers(0, 3, 30))
    assert main(["rescale", str(tmp_path / "keras.onnx"), "--data", str(tmp_path / "d.npz"), "--group", "per_neuron",
                 "--measures", "path_norm,weight_norm,hessian_spectral_norm", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["predictions_identical"] and report["loss"] == "cross_entropy"
    assert report["measures"]["path_norm"]["exactly_equal"] == [True]
    assert report["measures"]["weight_norm"]["exactly_equal"] == [False]
    spectral = report["measures"]["hessian_spectral_norm"]
    assert spectral["original"] > 0 and spectral["rescaled"][0] > 0 and spectral["ratio"][0] != 1


def test_a_transpose_that_moves_the_batch_is_refused(tmp_path, capsys):
    g = Graph(["unk__0", 4, 3], name="keras_tensor")
    h = g.node("Transpose", [g.input], perm=[1, 0, 2])
    model = g.model([g.gemm(g.node("Flatten", [h]), f32(2, 3))])
    onnx.save(model, str(tmp_path / "bad.onnx"))
    np.savez(tmp_path / "d.npz", x=f32(4, 4, 3), y=RNG.standard_normal((4, 2)))
    assert main(["rescale", str(tmp_path / "bad.onnx"), "--data", str(tmp_path / "d.npz")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Transpose" in err and "moves the batch axis" in err
