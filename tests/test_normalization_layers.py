"""Normalisation layers: batch normalisation in inference form, layer normalisation and batch
normalisation over the batch, each with and without ε: the group discovery finds (every generator
PROVED, maximality decided), the known maps proved, and broken ones (or the scale through ε > 0)
refuted with a witness re-verified here at 50 digits."""
import pytest
import sympy as sp

from conftest import assert_all_proved
from proofs.commands.cli import main
from symbolic import (ReLU, BatchNorm, BatchNormTrain, Dense, LayerNorm, Model, ModelError, ReLULayer, Status,
                      Symmetry, check_symmetry, discover_symmetries, positive_scales)
from symbolic.networks.exponent_system import absent_parameters
from symbolic.symmetries.symmetry import BATCH, prediction_invariance

TENTH = sp.Rational(1, 10)
c = sp.Symbol("c", positive=True)


def predictions(model, values=None):
    if model.batch_dependent:
        batch = [model.input(k + 1) for k in range(BATCH)]
        return [p for outputs in model.batch_predictions(batch, values) for p in outputs]
    return model.predictions(values=values)


def assert_refuted_and_reverified(model, symmetry):
    """The prediction claim is REFUTED, and its witness separates the sides at 50 digits here."""
    verdict = prediction_invariance(model, symmetry)
    assert verdict.status is Status.REFUTED, verdict.reason
    point = {s: v for s, v in verdict.witness.items() if isinstance(s, sp.Symbol)}
    gaps = [abs(sp.N((lhs.xreplace(point) - rhs.xreplace(point)).replace(ReLU, lambda a: sp.Max(a, 0)), 50))
            for lhs, rhs in zip(predictions(model, symmetry.tensors()), predictions(model))]
    assert max(gaps) > sp.Rational(1, 10 ** 20)


def test_batchnorm_in_inference_form_adds_a_scale_per_unit_before_and_after():
    model = Model(1, [Dense(2, "W", "b"), BatchNorm("g", "beta"), ReLULayer(), Dense(1, "v")])
    report = discover_symmetries(model, discrete=False)
    # per unit: (W_j, b_j) up with g_j down, and (g_j, beta_j) up with v_j down
    assert_all_proved(report, 4)
    g, beta, v = model["g"], model["beta"], model["v"]
    C = sp.diag(*positive_scales("c", 2))
    known = Symmetry(model, {"g": C * g, "beta": C * beta, "v": C.inv() * v})
    assert check_symmetry(model, known, sizes=(1,)).status is Status.PROVED
    assert_refuted_and_reverified(model, Symmetry(model, {"g": C * g, "v": C.inv() * v}))


def test_layernorm_absorbs_one_scale_of_the_layer_before_only_when_eps_is_zero():
    plain = Model(1, [Dense(3, "W", "b"), LayerNorm(), ReLULayer(), Dense(1, "v")])
    report = discover_symmetries(plain, discrete=False)
    assert_all_proved(report, 1)
    # the whole layer before, weights and biases, by one scale
    assert report.generators[0].exponents in ([1] * 6 + [0] * 3, [-1] * 6 + [0] * 3)
    W, b = plain["W"], plain["b"]
    assert check_symmetry(plain, Symmetry(plain, {"W": c * W, "b": c * b}), sizes=(1,)).status is Status.PROVED
    # a scale of one unit alone is no symmetry, even with eps = 0
    one = sp.diag(c, 1, 1)
    assert_refuted_and_reverified(plain, Symmetry(plain, {"W": W * one, "b": b * one}))
    # eps > 0: sigma^2 + eps is no multiple of sigma^2; the group is trivial, proved maximal
    smoothed = Model(1, [Dense(3, "W", "b"), LayerNorm(TENTH), ReLULayer(), Dense(1, "v")])
    report = discover_symmetries(smoothed, discrete=False)
    assert_all_proved(report, 0)
    W, b = smoothed["W"], smoothed["b"]
    assert_refuted_and_reverified(smoothed, Symmetry(smoothed, {"W": c * W, "b": c * b}))


def test_batchnorm_over_the_batch_absorbs_a_scale_per_channel_only_when_eps_is_zero():
    plain = Model(2, [Dense(2, "W"), BatchNormTrain(), ReLULayer(), Dense(1, "v")])
    assert plain.batch_dependent
    report = discover_symmetries(plain, discrete=False)
    assert_all_proved(report, 2)
    W = plain["W"]
    C = sp.diag(*positive_scales("c", 2))
    assert check_symmetry(plain, Symmetry(plain, {"W": W * C}), sizes=(2,)).status is Status.PROVED
    smoothed = Model(2, [Dense(2, "W"), BatchNormTrain(TENTH), ReLULayer(), Dense(1, "v")])
    assert_all_proved(discover_symmetries(smoothed, discrete=False), 0)
    assert_refuted_and_reverified(smoothed, Symmetry(smoothed, {"W": smoothed["W"] * sp.diag(c, 1)}))
    # a batch of one has no spread
    with pytest.raises(ValueError, match="N >= 2"):
        check_symmetry(plain, Symmetry(plain, {"W": W * C}), sizes=(1,))


def test_batchnorm_over_the_batch_after_a_bias_gives_each_bias_entry_its_own_scale():
    model = Model(2, [Dense(2, "W", bias="b"), BatchNormTrain(), ReLULayer(), Dense(1, "v")])
    report = discover_symmetries(model, discrete=False)
    assert_all_proved(report, 4)
    # each channel's weights alone, and each bias entry alone: the bias cancels from z − μ altogether
    supports = sorted(tuple(str(p) for p, k in zip(model.parameters, g.exponents) if k) for g in report.generators)
    assert supports == [("W_{1,1}", "W_{2,1}"), ("W_{1,2}", "W_{2,2}"), ("b_{1}",), ("b_{2}",)]
    assert absent_parameters(model) == [4, 5]
    # negative control: a bias entry up with its unit's read-out down is no symmetry
    b, v = model["b"], model["v"]
    assert_refuted_and_reverified(model, Symmetry(model, {"b": b * sp.diag(c, 1), "v": sp.diag(1 / c, 1) * v}))
    # with eps > 0 the bias still cancels (the centring does not see eps), the weights' scale does not
    smoothed = Model(2, [Dense(2, "W", bias="b"), BatchNormTrain(TENTH), ReLULayer(), Dense(1, "v")])
    assert absent_parameters(smoothed) == [4, 5]
    assert prediction_invariance(smoothed, Symmetry(smoothed, {"b": smoothed["b"] * sp.diag(c, 1)})).status \
        is Status.PROVED
    assert_refuted_and_reverified(smoothed, Symmetry(smoothed, {"W": smoothed["W"] * sp.diag(c, 1)}))


def test_bad_normalisation_layers_are_refused():
    for eps in (-1, sp.Symbol("e")):
        with pytest.raises(ModelError, match="eps must be a rational number >= 0"):
            Model(2, [Dense(2, "W"), LayerNorm(eps)])
    with pytest.raises(ModelError, match="at least two values"):
        Model(2, [Dense(1, "W"), LayerNorm()])


SPEC = """
inputs = 1
sizes = [1]
[[layers]]
type = "dense"
units = 3
weight = "W"
bias = "b"
[[layers]]
type = "layernorm"
[[layers]]
type = "relu"
[[layers]]
type = "dense"
units = 1
weight = "v"
[group]
positive = ["c"]
[map]
W = "c * W"
b = "c * b"
"""


def write(tmp_path, text):
    path = tmp_path / "spec.toml"
    path.write_text(text)
    return str(path)


def test_the_spec_reads_normalisation_layers(tmp_path, capsys):
    assert main(["symmetry", write(tmp_path, SPEC)]) == 0, capsys.readouterr().out
    train = SPEC.replace('type = "layernorm"', 'type = "batchnorm_train"').replace('b = "c * b"\n', "")
    assert main(["symmetry", write(tmp_path, train.replace("sizes = [1]", "sizes = [2]"))]) == 0
    capsys.readouterr()
    assert main(["symmetry", write(tmp_path, train)]) == 2
    assert "sizes must be at least 2" in capsys.readouterr().err
    affine = SPEC.replace('type = "layernorm"', 'type = "batchnorm"\nscale = "g"\nshift = "beta"')
    assert main(["symmetry", write(tmp_path, affine.replace('W = "c * W"\nb = "c * b"',
                                                            'g = "c * g"\nbeta = "c * beta"\nv = "v / c"'))]) == 0
    capsys.readouterr()
    assert main(["symmetry", write(tmp_path, SPEC.replace('type = "layernorm"',
                                                          'type = "layernorm"\neps = "-1"'))]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "eps must be a rational number >= 0" in err
