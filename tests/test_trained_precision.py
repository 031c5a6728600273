"""The estimates search with float32 products and report what float64 measures: the Ritz pair's
residual, the ascent's best point, one probe of each trace.  A bound then speaks of the vector or the
point found, so a search that goes wrong (a perturbed operator, a lying loss) cannot make it false."""
from fractions import Fraction

import numpy as np
import pytest

from symbolic.trained.autodiff import Objective
from symbolic.trained.estimates import hutchinson, lanczos_extreme, projected_ascent
from symbolic.trained.experiment import build_twins, read_data
from symbolic.trained.measures import MeasureContext
from symbolic.trained.onnx_export import export_chain
from symbolic.trained.onnx_import import import_network
from symbolic.trained.rescaling import exact_parameters

RNG = np.random.default_rng(11)


def f32(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def wide_run():
    """20 → 40 → 10 with biases: 1,250 parameters, above the limit where the diagonal is computed."""
    model = export_chain([("gemm", f32(40, 20), f32(40)), ("relu",), ("gemm", f32(10, 40), f32(10))], (20,))
    network = import_network(model)
    x, y = read_data(network, f32(64, 20), RNG.standard_normal((64, 10)), "mse")
    return build_twins(model, network, x, y, [Fraction(3)], "layerwise")


@pytest.fixture(scope="module")
def wide():
    run = wide_run()
    objective = Objective(run.network, run.x, run.y, "mse")
    theta = run.network.flat_parameters()
    dense = np.array([objective.hvp(theta, e) for e in np.eye(theta.size)])
    return run, objective, theta, (dense + dense.T) / 2


def test_the_quadratic_form_is_the_hessians_in_both_precisions(wide):
    _, objective, theta, dense = wide
    v = RNG.standard_normal(theta.size)
    expected = float(v @ dense @ v)
    assert objective.quadratic_form(theta, v) == pytest.approx(expected, rel=1e-10)
    assert objective.quadratic_form(theta, v, np.float32) == pytest.approx(expected, rel=1e-4)
    assert np.allclose(objective.hvp(theta, v, np.float32), dense @ v, rtol=1e-3, atol=1e-4 * np.abs(dense @ v).max())


def test_the_measures_with_float32_products_against_the_dense_hessian(wide):
    run, objective, theta, dense = wide
    eigenvalues = np.linalg.eigvalsh(dense)
    context = MeasureContext(run.network, objective, theta, exact_parameters(run.network))
    spectral = context.hessian_spectral_norm()
    ritz, bound = spectral.details["ritz_value"], spectral.details["error_bound"]
    assert np.min(np.abs(eigenvalues - ritz)) <= bound + 1e-12      # the float64 residual bound holds
    assert spectral.value == pytest.approx(np.max(np.abs(eigenvalues)), rel=1e-4)
    assert "float32" in spectral.details["products"]
    trace = context.hessian_trace()
    # the same 30 Rademacher probes with float64 products: float32 moved the mean by its rounding only
    reference = hutchinson(lambda z: float(z @ dense @ z), theta.size, np.random.default_rng(0))
    assert trace.value == pytest.approx(reference.mean, rel=1e-4)
    assert 0 <= trace.details["float32_rounding"] < 1e-4
    assert trace.details["float32_rounding"] * abs(trace.value) < trace.details["error_bound"]
    flatness = context.normalized_flatness()
    weighted = hutchinson(lambda z: float((z * theta) @ dense @ (z * theta)), theta.size, np.random.default_rng(0))
    assert flatness.value == pytest.approx(weighted.mean, rel=1e-4)


def test_a_perturbed_search_operator_cannot_make_the_residual_bound_false(wide):
    """Lanczos steered by H + E (E large, symmetric) but its residual measured with H: the Ritz value
    is off, and the bound grows to cover a true eigenvalue."""
    _, objective, theta, dense = wide
    eigenvalues = np.linalg.eigvalsh(dense)
    noise = RNG.standard_normal(dense.shape) * 0.05 * np.abs(eigenvalues).max() / np.sqrt(theta.size)
    wrong = dense + (noise + noise.T)
    ritz = lanczos_extreme(lambda v: wrong @ v, theta.size, np.random.default_rng(0), residual_hvp=lambda v: dense @ v)
    assert np.min(np.abs(eigenvalues - ritz.value)) > 1e-6 * np.abs(eigenvalues).max()   # the search was misled
    assert np.min(np.abs(eigenvalues - ritz.value)) <= ritz.residual                     # and the bound says so
    trusted = lanczos_extreme(lambda v: wrong @ v, theta.size, np.random.default_rng(0))
    assert np.min(np.abs(eigenvalues - trusted.value)) > trusted.residual                # unchecked, it would lie


def test_a_lying_search_cannot_inflate_the_ascent_bound():
    """L(φ) = ½ φᵀAφ at θ = 0, max over the ball ½ λ_max ρ² = 0.015; a search whose values are
    inflated a millionfold still returns a true value of L at a point of the ball."""
    A = np.diag([3.0, -1.0, 0.5, 2.0])
    loss = lambda phi: 0.5 * phi @ A @ phi  # noqa: E731
    lying = lambda phi: (1e6 * loss(phi) + 1e6, A @ phi)  # noqa: E731
    best = projected_ascent(lying, np.zeros(4), np.ones(4), 0.1, np.random.default_rng(0), value=loss)
    assert 0.9 * 0.015 <= best <= 0.015 + 1e-15
    unchecked = projected_ascent(lying, np.zeros(4), np.ones(4), 0.1, np.random.default_rng(0))
    assert unchecked > 0.015            # the search's own values would overstate the maximum
