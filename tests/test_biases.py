import pytest

from proofs import biases
from symbolic import Status
from symbolic.networks.deep import DeepNet
from symbolic.decision.witness import compare_at


@pytest.mark.parametrize("depth", [2, 3, 4])
def test_output_bias_keeps_its_value(depth):
    assert biases.output_bias_fixed(depth).status is Status.PROVED
    assert biases.cumulative(biases.layer_scales(depth))[-1] == 1


@pytest.mark.parametrize("widths", biases.DEEP_PREDICTION_WIDTHS)
def test_prediction_is_unchanged_with_a_bias_in_every_layer(widths):
    verdict = biases.prediction_invariance(widths)
    assert verdict.status is Status.PROVED, verdict.describe()


@pytest.mark.parametrize("widths,n", biases.DEEP_CONGRUENCE_CASES[:3])
def test_gradient_and_hessian_congruence_with_biases(widths, n):
    verdict = biases.deep_congruence(widths, n)
    assert verdict.status is Status.PROVED, verdict.describe()


@pytest.mark.parametrize("control", biases.CONTROLS)
def test_misscaled_biases_are_refuted_with_a_reverified_point(control):
    verdict = biases.prediction_invariance((2, 2, 2, 1), control=control)
    assert verdict.status is Status.REFUTED, verdict.describe()
    # re-evaluate both sides at the witness, exactly, on the real network
    net = DeepNet((2, 2, 2, 1), bias=True)
    scales = biases.layer_scales(net.depth)
    weights, bias_rows = net.rescaled(scales, biases.bias_factors(net.depth, scales, control))
    x = net.input()
    # a scale the two sides do not depend on is absent from the witness: any positive value will do
    point = {s: verdict.witness[s] for s in net.parameters() + list(x)}
    point.update({a: verdict.witness.get(a, 1) for a in scales[:-1]})
    assert compare_at(net.prediction(x, weights, bias_rows), net.prediction(x), point).differ
    congruence = biases.deep_congruence((1, 2, 2, 1), 1, control=control)
    assert congruence.status is Status.REFUTED and congruence.witness


def test_in_the_main_table(cli):
    result = cli("biases", "--size", "1,2,2")
    assert result.returncode == 0 and "PROVED" in result.stdout
