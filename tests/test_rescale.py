"""python -m proofs rescale: ONNX import checked against onnxruntime, the exact twin, the measures
and their kinds, the report, and bad input (one line, exit 2, nothing written)."""
import json
import os
import subprocess
import sys
from fractions import Fraction

import numpy as np
import onnx
import pytest
from onnx import helper

from proofs.commands.cli import main
from symbolic.trained import exact
from symbolic.trained.autodiff import Objective
from symbolic.trained.estimates import hutchinson, lanczos_extreme, projected_ascent
from symbolic.trained.experiment import build_twins, read_data
from symbolic.trained.measures import MeasureContext
from symbolic.trained.onnx_export import export_chain
from symbolic.trained.onnx_import import import_network, onnxruntime_outputs
from symbolic.trained.rescaling import Factors, exact_parameters, parameter_factors, scaled

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RNG = np.random.default_rng(7)


def f32(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def dense_model():
    """Flatten, Gemm, MatMul + Add, LeakyRelu, Identity: 4 inputs, 3 outputs, with biases."""
    return export_chain([("flatten",), ("gemm", f32(6, 4), f32(6)), ("relu",), ("matmul", f32(5, 6), f32(5)),
                         ("leaky_relu", 0.1), ("identity",), ("gemm", f32(3, 5), f32(3))], (4,))


def plain_model():
    """Dinh's f(x) = v·ReLU(Wx): one hidden layer, no biases."""
    return export_chain([("gemm", f32(5, 3), None), ("relu",), ("gemm", f32(1, 5), None)], (3,))


def conv_model():
    """Conv, BatchNormalization (inference), Relu, MaxPool, Reshape, Gemm: input 2×6×6, 3 classes."""
    gamma, beta = RNG.uniform(0.5, 2, 3), RNG.standard_normal(3)
    mean, var = RNG.standard_normal(3), RNG.uniform(0.5, 2, 3)
    return export_chain([("conv", f32(3, 2, 3, 3), f32(3), (1, 1), (1, 1, 1, 1)),
                         ("batchnorm", gamma, beta, mean, var, 1e-5), ("relu",),
                         ("maxpool", (2, 2), (2, 2)), ("reshape",), ("gemm", f32(3, 27), f32(3))], (2, 6, 6))


def save(tmp_path, model, x, y, name="model"):
    onnx.save(model, str(tmp_path / f"{name}.onnx"))
    np.savez(tmp_path / f"{name}.npz", x=x, y=y)
    return str(tmp_path / f"{name}.onnx"), str(tmp_path / f"{name}.npz")


def twins(model, x, y, alphas, group, loss="mse"):
    network = import_network(model)
    x, y = read_data(network, x, y, loss)
    return build_twins(model, network, x, y, alphas, group)


@pytest.mark.parametrize("make, shape", [(dense_model, (4,)), (conv_model, (2, 6, 6))])
@pytest.mark.parametrize("group", ["layerwise", "per_neuron"])
def test_the_twin_computes_exactly_the_same_outputs(make, shape, group):
    model = make()
    x = f32(12, *shape)
    run = twins(model, x, np.zeros((12, 3)), [Fraction(10), Fraction(1, 3), Fraction(4)], group)
    assert run.reference_deviation < 1e-4 and run.nonzero_outputs > 0
    assert all(t.predictions_identical for t in run.twins)
    # the twin's first and last weights did move; a power of 2 moves them without rounding in onnxruntime
    original = exact_parameters(run.network)
    assert exact.first_difference(original[0], run.twins[0].parameters[0])
    assert exact.first_difference(original[-2], run.twins[0].parameters[-2])
    assert run.twins[2].float_deviation == 0.0
    assert 0 < run.twins[0].float_deviation < 1e-3


def test_a_wrong_rescaling_is_refuted_with_a_reverified_counterexample():
    """Negative control: the last layer left uncompensated changes the outputs, and the reported
    example, recomputed alone, shows the two exact values."""
    model = dense_model()
    x = f32(10, 4)
    run = twins(model, x, np.zeros((10, 3)), [Fraction(10)], "layerwise")
    network, original = run.network, exact_parameters(run.network)
    factors = parameter_factors(network, "layerwise", Fraction(10))
    factors[-2] = Factors((Fraction(1),), np.zeros_like(factors[-2].codes))   # the last weight not divided by α
    wrong = [scaled(t, f) for t, f in zip(original, factors)]
    inputs = exact.from_floats(x)
    (example, output), before, after = exact.first_difference(
        exact.forward(network, original, inputs), exact.forward(network, wrong, inputs))
    one = exact.from_floats(x[example:example + 1])
    assert exact.forward(network, original, one).rationals()[output] == before
    assert exact.forward(network, wrong, one).rationals()[output] == after != before


def test_exact_values_of_floats_and_the_path_norm():
    values = np.array([0.1, -3.5e-7, 2.0, 0.0, 1e-300])
    assert exact.from_floats(values).rationals() == [Fraction(v) for v in values]
    assert exact.from_floats(np.array([0.0, 0.75, 0.0])).rationals() == [0, Fraction(3, 4), 0]
    # f(x) = v·ReLU(Wx): the path norm is (Σ_ij W_ji² v_j²)^½
    model = plain_model()
    run = twins(model, f32(4, 3), np.zeros((4, 1)), [Fraction(7)], "layerwise")
    W, v = (t.astype(np.float64) for t in run.network.parameter_tensors())
    square = exact.path_norm_squared(run.network, exact_parameters(run.network), (3,))
    assert square == sum(Fraction(float(W[j, i])) ** 2 * Fraction(float(v[0, j])) ** 2
                         for j in range(5) for i in range(3))


def test_lanczos_and_hutchinson_against_the_dense_hessian():
    model = dense_model()
    x, y = f32(30, 4).astype(np.float64), RNG.standard_normal((30, 3))
    run = twins(model, x, y, [Fraction(2)], "layerwise")
    objective = Objective(run.network, run.x, run.y, "mse")
    theta = run.network.flat_parameters()
    dense = np.array([np.asarray(objective.hvp(theta, e)) for e in np.eye(theta.size)])
    eigenvalues = np.linalg.eigvalsh((dense + dense.T) / 2)
    ritz = lanczos_extreme(lambda v: objective.hvp(theta, v), theta.size, np.random.default_rng(0))
    assert np.min(np.abs(eigenvalues - ritz.value)) <= ritz.residual + 1e-9      # the residual bound
    assert abs(abs(ritz.value) - np.max(np.abs(eigenvalues))) <= 1e-6 * np.max(np.abs(eigenvalues))
    interval = hutchinson(lambda z: float(z @ dense @ z), theta.size, np.random.default_rng(1), probes=200)
    assert interval.low <= np.trace(dense) <= interval.high
    assert interval.high - interval.low < abs(np.trace(dense))
    context = MeasureContext(run.network, objective, theta, exact_parameters(run.network))
    assert context.hessian_trace().value == pytest.approx(np.trace(dense), rel=1e-9)
    assert context.normalized_flatness().value == pytest.approx(float(theta ** 2 @ np.diag(dense)), rel=1e-9)


def test_projected_ascent_is_a_lower_bound_near_the_maximum():
    """On L(φ) = ½ φᵀAφ at θ = 0 the maximum over the ball of radius ρ is ½ λ_max ρ²."""
    A = np.diag([3.0, -1.0, 0.5, 2.0])
    value_and_gradient = lambda phi: (0.5 * phi @ A @ phi, A @ phi)  # noqa: E731
    best = projected_ascent(value_and_gradient, np.zeros(4), np.ones(4), 0.1, np.random.default_rng(0))
    assert 0.9 * 0.5 * 3.0 * 0.01 <= best <= 0.5 * 3.0 * 0.01 + 1e-15


def test_json_on_dinh_network_proves_the_point(tmp_path, capsys):
    model, data = save(tmp_path, plain_model(), f32(40, 3), RNG.standard_normal(40))
    twin, picture = tmp_path / "twin.onnx", tmp_path / "sweep.png"
    code = main(["rescale", model, "--data", data, "--alpha", "10", "--alpha", "1/10", "--json",
                 "--measures", "hessian_spectral_norm,weight_norm,path_norm,adaptive_sharpness,eps_sharpness",
                 "--out", str(twin), "--plot", str(picture)])
    report = json.loads(capsys.readouterr().out)
    assert code == 0 and report["predictions_identical"] is True
    assert all(twin["onnxruntime_agrees"] for twin in report["twins"]) and report["nonzero_outputs"] == 40
    assert report["parameters"] == 5 * 3 + 5 and report["audit_group"] == "layerwise"
    m = report["measures"]
    assert m["path_norm"]["kind"] == "exact" and m["path_norm"]["exactly_equal"] == [True, True]
    assert m["path_norm"]["audit"] == "invariant" and m["weight_norm"]["audit"] == "not invariant"
    assert m["weight_norm"]["ratio"][0] > 10 and m["hessian_spectral_norm"]["ratio"][0] > 5
    assert m["hessian_spectral_norm"]["kind"] == "estimate" and "error_bound" in m["hessian_spectral_norm"]["details"]
    assert m["adaptive_sharpness"]["kind"] == "lower_bound"
    # the twins' searches share their best u with θ's: equal within the float64 rounding the measure states
    sharp = m["adaptive_sharpness"]
    assert all(abs(after - sharp["original"]) <= sharp["details"]["rounding"] for after in sharp["rescaled"])
    assert abs(m["eps_sharpness"]["ratio"][0] - 1) > 0.1
    # the written twin runs under onnxruntime and gives the original's outputs
    x = np.load(data)["x"]
    assert np.allclose(onnxruntime_outputs(onnx.load(str(twin)), x), onnxruntime_outputs(onnx.load(model), x),
                       atol=1e-4)
    assert picture.read_bytes()[:4] == b"\x89PNG"


def test_table_on_a_cnn_with_per_neuron_rescaling(tmp_path, capsys):
    model, data = save(tmp_path, conv_model(), f32(20, 2, 6, 6), RNG.integers(0, 3, 20))
    code = main(["rescale", model, "--data", data, "--loss", "cross_entropy", "--group", "per_neuron",
                 "--measures", "path_norm,weight_norm"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "α=10: identical (exact)" in out and "audit (per_neuron)" in out
    assert "1 (exact)" in next(line for line in out.splitlines() if line.startswith("path_norm")) and "invariant" in out


def unsupported_model():
    node = helper.make_node("Sigmoid", ["x"], ["y"])
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, ["N", 3])],
                              [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, ["N", 3])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def branched_model():
    """A sum of tensors of two shapes (3 and 2): no skip connection."""
    weight = onnx.numpy_helper.from_array(f32(2, 3), "W")
    nodes = [helper.make_node("Relu", ["x"], ["a"]), helper.make_node("Gemm", ["x", "W"], ["b"], transB=1),
             helper.make_node("Add", ["a", "b"], ["y"])]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, ["N", 3])],
                              [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, ["N", 3])], [weight])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


@pytest.mark.parametrize("case, message", [
    ("not_onnx", "is not a valid ONNX model"),
    ("branch", "adds shapes (3,) and (2,); a skip connection adds one shape"),
    ("unsupported", "Sigmoid (Sigmoid node y) has no exact value at a rational point"),
    ("wrong_shape", "x has shape (5, 4); the model reads (N, 3)"),
    ("nan", "NaN"),
    ("negative_alpha", "--alpha must be positive"),
    ("labels", "class labels"),
    ("missing_y", "has no array 'y'"),
])
def test_bad_input_is_one_line_exit_2_and_nothing_written(tmp_path, capsys, case, message):
    model, data = save(tmp_path, plain_model(), f32(5, 3), RNG.standard_normal(5))
    arguments = ["--alpha", "10"]
    if case == "not_onnx":
        (tmp_path / "model.onnx").write_text("this is not a protobuf\n")
    elif case == "unsupported":
        onnx.save(unsupported_model(), model)
    elif case == "branch":
        onnx.save(branched_model(), model)
    elif case == "wrong_shape":
        np.savez(data, x=f32(5, 4), y=np.zeros(5))
    elif case == "nan":
        np.savez(data, x=np.array([[1.0, np.nan, 0.0]]), y=np.zeros(1))
    elif case == "negative_alpha":
        arguments = ["--alpha", "-2"]
    elif case == "labels":
        arguments += ["--loss", "cross_entropy"]
    elif case == "missing_y":
        np.savez(data, x=f32(5, 3))
    out, picture = tmp_path / "twin.onnx", tmp_path / "plot.png"
    code = main(["rescale", model, "--data", data, *arguments, "--out", str(out), "--plot", str(picture)])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    assert len(captured.err.strip().splitlines()) == 1 and message in captured.err, captured.err
    assert not out.exists() and not picture.exists()


def test_without_the_extra_the_command_says_how_to_install_it(tmp_path, capsys, monkeypatch):
    model, data = save(tmp_path, plain_model(), f32(5, 3), RNG.standard_normal(5))
    monkeypatch.setitem(sys.modules, "onnxruntime", None)     # import onnxruntime fails
    assert main(["rescale", model, "--data", data]) == 2
    assert capsys.readouterr().err.strip() == "proofs: error: the rescale command needs the onnx extra: " \
                                              "pip install -e '.[onnx]'"


def test_the_core_install_does_not_import_the_extra():
    code = "import sys, proofs.commands.cli, proofs.commands.rescale_command; " \
           "print(sorted({'jax', 'onnx', 'onnxruntime'} & set(sys.modules)))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert result.stdout.strip() == "[]", result.stderr
