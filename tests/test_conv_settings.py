"""Normalisation and attention in a convolutional network: batch normalisation in inference form,
layer normalisation and batch normalisation over the batch after a 2-d convolution, and an attention
head read by a 1-d convolution, each with its discovered group, every generator PROVED and
maximality decided, and a map that is not a symmetry REFUTED."""
import sympy as sp

from conftest import assert_all_proved
from symbolic import (Attention, BatchNorm, BatchNormTrain, Conv1d, Conv2d, Dense, Flatten, LayerNorm, MaxPool2d, Model, ReLULayer,
                      Status, Symmetry, discover_symmetries)
from symbolic.symmetries.symmetry import prediction_invariance

c = sp.Symbol("c", positive=True)


def supports(report):
    model = report.model
    return sorted(tuple(str(p) for p, k in zip(model.parameters, g.exponents) if k) for g in report.generators)


def test_batchnorm_after_a_convolution_scales_each_channel_before_and_after():
    model = Model((1, 2, 3), [Conv2d(2, (1, 2), "K", bias="b"), BatchNorm("g", "beta"), ReLULayer(),
                              MaxPool2d((1, 2)), Flatten(), Dense(1, "v")])
    report = discover_symmetries(model, discrete=False)
    # per channel: its kernel and bias against gamma_c, and (gamma_c, beta_c) against its read-out rows; the
    # bound closes once enough points separate the bias b_c from beta_c (one constant at a point whose
    # activation pattern hardly varies)
    assert_all_proved(report, 4)
    assert ("K_{1,1}", "K_{1,2}", "b_{1}", "g_{1}") in supports(report)
    wrong = Symmetry(model, {"g": sp.diag(c, 1) * model["g"]})
    assert prediction_invariance(model, wrong).status is Status.REFUTED


def test_layernorm_after_a_convolution_absorbs_one_scale_of_the_whole_layer():
    model = Model((1, 1, 1), [Conv2d(3, 1, "K", bias="b"), LayerNorm(), ReLULayer(), Flatten(), Dense(1, "v")])
    report = discover_symmetries(model, discrete=False)
    assert_all_proved(report, 1)
    assert supports(report) == [tuple(str(p) for p in [*model["K"], *model["b"]])]
    one = sp.diag(c, 1, 1)
    assert prediction_invariance(model, Symmetry(model, {"K": one * model["K"], "b": one * model["b"]})).status \
        is Status.REFUTED


def test_batchnorm_over_the_batch_after_a_convolution_absorbs_its_channel_s_scale():
    model = Model((1, 1, 2), [Conv2d(1, 1, "K"), BatchNormTrain(), ReLULayer(), Flatten(), Dense(1, "v")])
    report = discover_symmetries(model, discrete=False)
    assert_all_proved(report, 1)
    assert supports(report) == [("K_{1}",)]
    wrong = Symmetry(model, {"v": sp.diag(c, 1) * model["v"]})
    assert prediction_invariance(model, wrong).status is Status.REFUTED


def test_an_attention_head_read_by_a_convolution_keeps_its_gl_2():
    model = Model((2, 2), [Attention(2, "Q", "K", "V", values=1), Conv1d(1, 2, "C"), Dense(1, "v")])
    report = discover_symmetries(model, discrete=False)
    # the head's GL(2) (two column scales, two shears), W_V against the read-out, the kernel against it
    assert report.dimension == 6 and len(report.shears) == 2
    for generator in report.generators + report.shears:
        assert generator.status is Status.PROVED, generator.report.table()
    assert report.maximality.status is Status.PROVED, report.maximality.reason
    assert ("C_{1}", "C_{2}", "v_{1}") in supports(report)
    wrong = Symmetry(model, {"C": c * model["C"]})
    assert prediction_invariance(model, wrong).status is Status.REFUTED
