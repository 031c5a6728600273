"""Theorem 1: the claims at every small size, and the negative controls."""
import pytest
import sympy as sp

from proofs import theorem1_observational_equivalence as theorem1
from symbolic import Status
from symbolic.decision.witness import compare_at


def separating(verdict):
    return {k: v for k, v in verdict.witness.items() if isinstance(k, sp.Symbol)}


@pytest.mark.parametrize("d, h", [(1, 1), (2, 3), (3, 3)])
def test_prediction_invariance_is_proved(d, h):
    verdict = theorem1.prediction_invariance(d, h)
    assert verdict.status is Status.PROVED, verdict.describe()
    assert any("kink" in line for line in verdict.evidence)


@pytest.mark.parametrize("loss", theorem1.LOSSES)
def test_loss_invariance_is_proved(loss):
    assert theorem1.loss_invariance(2, 2, 3, loss).status is Status.PROVED


def test_homogeneity_lemma_is_proved():
    assert theorem1.positive_homogeneity().status is Status.PROVED


def test_local_minimum_lemmas_are_proved():
    lemmas = theorem1.local_minimum_lemmas(2, 3)
    assert set(lemmas) == {"linear", "inverse", "norm bound"}
    assert all(v.status is Status.PROVED for v in lemmas.values())


# negative controls: each must be REFUTED with a witness that separates the two sides

def test_tanh_in_place_of_relu_is_refuted():
    verdict = theorem1.prediction_invariance(2, 2, activation=sp.tanh)
    assert verdict.status is Status.REFUTED and verdict.witness


def test_softplus_in_place_of_relu_is_refuted():
    softplus = lambda s: sp.log(1 + sp.exp(s))  # noqa: E731
    assert theorem1.prediction_invariance(1, 2, activation=softplus).status is Status.REFUTED


def test_negative_alpha_admitted_is_refuted():
    alpha = sp.Symbol("alpha", real=True)
    verdict = theorem1.prediction_invariance(2, 2, alpha=alpha)
    assert verdict.status is Status.REFUTED
    assert verdict.witness[alpha] < 0


def test_l2_weight_penalty_is_refuted():
    lam = sp.Symbol("lambda", positive=True)
    verdict = theorem1.loss_invariance(2, 2, 2, "mse", weight_penalty=lam)
    assert verdict.status is Status.REFUTED
    assert separating(verdict)


def test_a_witness_of_a_negative_control_separates_the_original_predictions():
    from symbolic.networks.network import OneHiddenLayerNet
    from symbolic.networks.rescaling import rescale
    alpha = sp.Symbol("alpha", real=True)
    net = OneHiddenLayerNet(2, 2)
    x = net.input()
    lhs = net.prediction(x, *rescale(net.W, net.v, alpha))
    rhs = net.prediction(x)
    verdict = theorem1.prediction_invariance(2, 2, alpha=alpha)
    assert compare_at(lhs, rhs, separating(verdict)).differ


def test_unknown_loss_is_bad_input():
    with pytest.raises(ValueError):
        theorem1.loss_invariance(1, 1, 1, "nonsense")


@pytest.mark.parametrize("d, h", [(0, 1), (1, 0), (-1, 2), (1.5, 1)])
def test_bad_sizes_are_rejected(d, h):
    with pytest.raises(ValueError):
        theorem1.prediction_invariance(d, h)
