"""rescale --group discovered: the architecture's own group (as symmetry MODEL.onnx --discover finds and
proves it) applied to the trained weights; the twin's predictions equal the model's exactly, the report
names the generators and the element; a wrong element is REFUTED by the exact comparison; bad input is
one line, exit 2."""
import json
from fractions import Fraction

import numpy as np
import onnx
import pytest
import sympy as sp

from proofs.commands.cli import main
from proofs.commands.discovered_group import discover_group
from symbolic.networks.onnx_architecture import read_architecture
from symbolic.trained import exact
from symbolic.trained.experiment import read_data, twins_of
from symbolic.trained.onnx_import import onnxruntime_outputs
from symbolic.trained.rescaling import element_factors, exact_parameters, scaled
from test_onnx_discover import small_cnn, small_mlp
from test_onnx_exporters import Graph, f32

RNG = np.random.default_rng(38)


def batchnorm_mlp():
    """Linear(2, 2)-BatchNorm1d(2)-ReLU-Linear(2, 1): a batch norm's scale moves too (γ in the twin)."""
    g = Graph(["batch", 2])
    h = g.node("BatchNormalization", [g.gemm(g.input, f32(2, 2))] + [
        g.init((np.abs(f32(2)) + 0.5).astype(np.float32)) if k in (0, 3) else g.init(f32(2)) for k in range(4)])
    return g.model([g.gemm(g.node("Relu", [h]), f32(1, 2))])


def no_hidden_layer():
    g = Graph(["batch", 3])
    return g.model([g.gemm(g.input, f32(1, 3))])


def wide_mlp():
    """Linear(8, 16)-ReLU-Linear(16, 1): 161 parameters, past the spec's limit (its group read from the layers)."""
    g = Graph(["batch", 8])
    return g.model([g.gemm(g.node("Relu", [g.gemm(g.input, f32(16, 8))]), f32(1, 16))])


def tanh_mlp():
    """Linear(8, 16)-Tanh-Linear(16, 1): no positive rescaling."""
    g = Graph(["batch", 8])
    return g.model([g.gemm(g.node("Tanh", [g.gemm(g.input, f32(16, 8))]), f32(1, 16))])


def saved(tmp_path, model, x, y):
    onnx.save(model, str(tmp_path / "model.onnx"))
    np.savez(tmp_path / "data.npz", x=x, y=y)
    return str(tmp_path / "model.onnx"), str(tmp_path / "data.npz")


def mlp_data(tmp_path, build=small_mlp, inputs=3):
    return saved(tmp_path, build(), f32(12, inputs), RNG.standard_normal(12))


@pytest.mark.parametrize("build, inputs, dimension", [(small_mlp, 3, 2), (batchnorm_mlp, 2, 4)])
def test_a_random_element_keeps_the_predictions_and_is_named(tmp_path, capsys, build, inputs, dimension):
    model, data = mlp_data(tmp_path, build, inputs)
    twin = tmp_path / "twin.onnx"
    code = main(["rescale", model, "--data", data, "--group", "discovered", "--seed", "3", "--json",
                 "--measures", "path_norm,weight_norm", "--out", str(twin)])
    report = json.loads(capsys.readouterr().out)
    assert code == 0 and report["predictions_identical"] is True and report["nonzero_outputs"] == 12
    group = report["discovered"]
    assert group["dimension"] == dimension and group["dimension_is_maximal"]
    assert all(g["status"] == "proved" and g["applied"] for g in group["generators"])
    assert group["generators"][0]["support"].startswith("c on W1_{1,")
    # the element names every generator with a factor other than 1, as the twin's label says
    (element,) = group["elements"]
    names = [g["name"] for g in group["generators"]]
    assert element["label"] == "g1" and element["applied"] == report["twins"][0]["element"]
    assert [part.split("=")[0] for part in element["applied"].split(", ")] == names
    assert all(Fraction(part.split("=")[1]) != 1 for part in element["applied"].split(", "))
    assert report["audit_group"] == "per_neuron" and report["measures"]["path_norm"]["exactly_equal"] == [True]
    assert report["measures"]["weight_norm"]["exactly_equal"] == [False]
    # the twin written as ONNX: other weights, the same outputs under onnxruntime
    x = np.load(data)["x"]
    assert report["twins"][0]["onnxruntime_agrees"]
    assert np.allclose(onnxruntime_outputs(onnx.load(str(twin)), x), onnxruntime_outputs(onnx.load(model), x),
                       atol=1e-4)
    # the same seed, the same element
    main(["rescale", model, "--data", data, "--group", "discovered", "--seed", "3", "--json", "--measures", "path_norm"])
    assert json.loads(capsys.readouterr().out)["twins"][0]["element"] == element["applied"]


def test_a_cnn_with_given_elements_prints_its_group_and_each_element(tmp_path, capsys):
    model, data = saved(tmp_path, small_cnn(), f32(10, 1, 2, 3), RNG.integers(0, 2, 10))
    code = main(["rescale", model, "--data", data, "--group", "discovered", "--element", "T_1=2,T_2=1/3",
                 "--element", "T_2=4", "--measures", "path_norm,weight_norm"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "discovered group: dimension 2 (proved maximal)" in out
    assert "  T_1  c on W1_{1,1}, W1_{1,2}, W1_{1,3}, W1_{1,4}, b1_{1}, W2_{1,1}^-1, W2_{1,2}^-1  PROVED (applied)" in out
    assert "element g1: T_1=2, T_2=1/3" in out and "element g2: T_1=1, T_2=4" in out
    assert "g1: identical (exact)" in out and "g2: identical (exact)" in out and "audit (per_neuron)" in out
    path_norm = next(line for line in out.splitlines() if line.startswith("path_norm"))
    assert path_norm.count("1 (exact)") == 2


def test_the_factors_are_the_generators_map_at_the_trained_values():
    """θ_p ↦ ∏ c_k^{G_k,p} θ_p, carried onto the import's tensors, is what the proved Symmetry maps
    compute at the trained values, entry by entry (the layouts of a convolution and a dense layer)."""
    architecture = read_architecture(small_cnn())
    group = discover_group(architecture, "cnn.onnx", seed=0)
    element = [Fraction(2), Fraction(1, 3)]
    twin = [scaled(t, f) for t, f in zip(exact_parameters(architecture.network),
                                         element_factors(architecture.network, group.exponents, element))]
    values = architecture.trained_values()
    # the maps composed: T_1 at c = 2, then T_2 at c = 1/3
    expected = dict(values)
    for generator, c in zip(group.applied, element):
        mapping = generator.symmetry.mapping
        substitution = {**{s: v for name in expected for s, v in zip(architecture.model[name], expected[name])},
                        sp.Symbol("c", positive=True): sp.Rational(c.numerator, c.denominator)}
        expected = {name: mapping[name].xreplace(substitution) if name in mapping else expected[name]
                    for name in expected}
    conv, dense = architecture.network.layers[0], architecture.network.layers[-1]
    W1, b1, W2, b2 = (t.rationals() for t in twin)
    assert [sp.Rational(v.numerator, v.denominator) for v in W1] == list(expected["W1"])
    assert [sp.Rational(v.numerator, v.denominator) for v in b1] == list(expected["b1"])
    # a dense weight is (inputs, units) in the symmetry model, (units, inputs) in the import
    W2_import = np.array(W2, dtype=object).reshape(dense.weight.shape)
    assert [sp.Rational(v.numerator, v.denominator) for v in W2_import.T.reshape(-1)] == list(expected["W2"])
    assert b2 == [Fraction(float(v)) for v in dense.bias] and conv.weight.shape == (2, 1, 2, 2)
    assert expected["W1"] != values["W1"] and expected["W2"] != values["W2"]


def test_an_element_off_the_group_is_refuted_with_a_reverified_example():
    """Negative control: the generators' exponents with the next layer left undivided are no symmetry;
    the exact comparison finds an example whose two outputs, recomputed alone, differ."""
    graph = small_mlp()
    architecture = read_architecture(graph)
    network = architecture.network
    group = discover_group(architecture, "mlp.onnx", seed=0)
    wrong = group.exponents.copy()
    wrong[wrong < 0] = 0                          # W2 not divided back
    x, y = read_data(network, f32(40, 3, scale=2), RNG.standard_normal(40), "mse")
    run = twins_of(graph, network, x, y, [("wrong", element_factors(network, wrong, [Fraction(3), Fraction(3)]))])
    (twin,) = run.twins
    assert not twin.predictions_identical
    (example, output), before, after = twin.difference
    one = exact.from_floats(x[example:example + 1])
    assert exact.forward(network, run.original, one).rationals()[output] == before
    assert exact.forward(network, twin.parameters, one).rationals()[output] == after != before


@pytest.mark.parametrize("arguments, message", [
    (["--element", "T_9=2"], "--element: the discovered group has no generator T_9 (its proved generators: T_1, T_2)"),
    (["--element", "T_1=0"], "--element T_1 must be positive, got '0'"),
    (["--element", "T_1=-1/2"], "--element T_1 must be positive, got '-1/2'"),
    (["--element", "T_1"], "--element takes NAME=VALUE pairs separated by commas"),
    (["--element", "T_1=2,T_1=3"], "names T_1 twice"),
    (["--element", "T_1=x"], "--element T_1 takes a positive number"),
    (["--alpha", "10"], "--group discovered takes --element"),
    (["--plot", "PLOT"], "--group discovered has no α"),
])
def test_a_bad_element_is_one_line_exit_2(tmp_path, capsys, arguments, message):
    model, data = mlp_data(tmp_path)
    arguments = [str(tmp_path / "plot.png") if a == "PLOT" else a for a in arguments]
    out = tmp_path / "twin.onnx"
    code = main(["rescale", model, "--data", data, "--group", "discovered", *arguments, "--out", str(out)])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == "" and not out.exists()
    assert len(captured.err.strip().splitlines()) == 1 and message in captured.err, captured.err


@pytest.mark.parametrize("build, inputs, message", [
    (no_hidden_layer, 3, "the architecture has no proved positive rescaling (0 generator(s) found, none PROVED)"),
    (tanh_mlp, 8, "no positive rescaling leaves this network unchanged: Tanh (Tanh node"),
])
def test_a_group_that_cannot_be_applied_is_one_line_exit_2(tmp_path, capsys, build, inputs, message):
    model, data = mlp_data(tmp_path, build, inputs)
    assert main(["rescale", model, "--data", data, "--group", "discovered"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.strip().splitlines()) == 1 and message in captured.err, captured.err


def test_past_the_spec_limit_the_group_read_from_the_layers_is_applied(tmp_path, capsys):
    model, data = mlp_data(tmp_path, wide_mlp, 8)
    assert main(["rescale", model, "--data", data, "--group", "discovered", "--measures", "path_norm", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["predictions_identical"] and report["discovered"]["dimension"] == 16
    assert all(g["status"] == "proved" and g["applied"] for g in report["discovered"]["generators"])


def test_an_element_without_the_discovered_group_is_one_line_exit_2(tmp_path, capsys):
    model, data = mlp_data(tmp_path)
    assert main(["rescale", model, "--data", data, "--element", "T_1=2"]) == 2
    assert "--element names generators of --group discovered" in capsys.readouterr().err


def test_a_generator_not_proved_is_never_applied(tmp_path, capsys, monkeypatch):
    """The guard, with T_2's proof made UNDECIDED: the random element leaves it out, and naming it is
    one line, exit 2."""
    from symbolic.symmetries import discovery
    from symbolic.kernel.verdict import Status
    proved = discovery.Generator.status
    monkeypatch.setattr(discovery.Generator, "status", property(
        lambda g: Status.UNDECIDED if g.symmetry.name == "T_2" else proved.fget(g)))
    model, data = mlp_data(tmp_path)
    assert main(["rescale", model, "--data", data, "--group", "discovered", "--json", "--measures", "path_norm"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [(g["name"], g["applied"]) for g in report["discovered"]["generators"]] == [("T_1", True), ("T_2", False)]
    assert report["twins"][0]["element"].startswith("T_1=") and "T_2" not in report["twins"][0]["element"]
    assert report["predictions_identical"]
    assert main(["rescale", model, "--data", data, "--group", "discovered", "--element", "T_2=2"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "T_2 is UNDECIDED, not PROVED: only proved generators are applied" in err
