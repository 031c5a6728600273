"""check_invariance on measures that are not in the audit's list: a user's own, in a few lines."""
import pytest
import sympy as sp

from symbolic.symmetries.invariance import check_invariance
from symbolic.measures.definitions import Sharpness, Spectrum
from symbolic.kernel.verdict import Status


def scale_free_gradient(point):
    """Σ_i (θ_i ∂L/∂θ_i)²: each term is unchanged by a diagonal rescaling that keeps L."""
    return sp.Add(*[(t * g) ** 2 for t, g in zip(point.theta, point.gradient)])


def gradient_norm(point):
    return sp.Add(*[g ** 2 for g in point.gradient])


def weighted_hessian_spectrum(point):
    """The eigenvalues of diag(θ) H diag(θ)."""
    D = sp.diag(*point.theta)
    return Spectrum(D * point.hessian * D, "spectral_norm")


def relative_box_sharpness(point):
    """max over |δ_i| ≤ ρ|θ_i| of L(θ + δ) − L(θ): adaptive sharpness with the ∞-norm."""
    return Sharpness([sp.Abs(t) for t in point.theta], "inf")


def test_user_measures_proved():
    for measure, group in ((scale_free_gradient, "per_neuron"), (weighted_hessian_spectrum, "layerwise"),
                           (relative_box_sharpness, "deep_layerwise_bias")):
        outcome = check_invariance(measure, group)
        assert outcome.verdict.status is Status.PROVED, (measure.__name__, outcome.verdict.reason)
        assert outcome.verdict.claim.startswith(measure.__name__)


def test_user_measure_refuted_away_from_the_minimum():
    """‖∇L‖² is 0 at the minimum θ₀ and at T·θ₀; the refutation comes from a random point."""
    verdict = check_invariance(gradient_norm, "layerwise").verdict
    assert verdict.status is Status.REFUTED
    assert verdict.witness["theta"] != "(1, 1)"
    assert verdict.witness["value_at_theta"] != verdict.witness["value_at_T_theta"]


def trace_over_norm(point):
    """tr H / ‖θ‖²: its exact difference under rescaling is a non-zero rational function."""
    return sp.Add(*[point.hessian[i, i] for i in range(len(point.theta))]) / sp.Add(*[t ** 2 for t in point.theta])


def test_a_nonzero_difference_is_refuted_at_a_random_point_of_the_family():
    """On the d = h = 1 counterexample network the ratio happens to be constant; the refutation
    comes from a random network of a larger family (random θ, data and group element)."""
    for group in ("layerwise", "per_neuron"):
        outcome = check_invariance(trace_over_norm, group)
        verdict = outcome.verdict
        assert verdict.status is Status.REFUTED, (group, verdict.reason)
        assert verdict.witness["network"] != "one hidden layer, d=1, h=1"
        assert verdict.witness["value_at_theta"] != verdict.witness["value_at_T_theta"]
        assert outcome.sizes == [verdict.witness["network"] + ", N=2"]


def test_a_user_lambda_with_a_closed_form():
    outcome = check_invariance(lambda p: p.theta[0] * p.theta[-1], "layerwise")
    assert outcome.verdict.status is Status.PROVED        # W_11·v_2 → αW_11·v_2/α


def test_bad_measures_and_groups():
    with pytest.raises(ValueError, match="unknown group"):
        check_invariance("path_norm", "rotation")
    with pytest.raises(ValueError, match="unknown measure"):
        check_invariance("sharpest", "layerwise")
    with pytest.raises(TypeError, match="returned list"):
        check_invariance(lambda p: [1, 2], "layerwise")
    with pytest.raises(ValueError, match="reduction"):
        check_invariance(lambda p: Spectrum(p.hessian, "median"), "layerwise")


def test_transcendental_user_measures():
    """log and exp are enclosed rigorously; a function without an enclosure stays UNDECIDED."""
    log_norm = check_invariance(lambda p: sp.log(1 + sum(t ** 2 for t in p.theta)), "layerwise").verdict
    assert log_norm.status is Status.REFUTED and log_norm.witness["value_at_theta"].startswith("log(3)")
    assert check_invariance(lambda p: sp.exp(p.theta[0] * p.theta[-1]), "layerwise").verdict.status \
        is Status.PROVED
    undecided = check_invariance(lambda p: sp.sin(p.theta[0]), "layerwise").verdict
    assert undecided.status is Status.UNDECIDED and "no separating point" in undecided.reason


def test_a_measure_is_decided_as_it_is_defined_not_by_its_name():
    # a measure named like an invariant one but defined otherwise: the statement holds the measure
    # itself, so the kernel's oracle decides this one (θ_1 alone moves under the layer-wise map)
    import dataclasses
    from symbolic.measures.definitions import MEASURES
    impostor = dataclasses.replace(MEASURES["path_norm"], evaluate=lambda point: point.theta[0] ** 2)
    assert check_invariance("path_norm", "layerwise").verdict.status is Status.PROVED
    assert check_invariance(impostor, "layerwise").verdict.status is not Status.PROVED
