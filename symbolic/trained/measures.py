"""The audit's measures evaluated on a trained network at one parameter point, each saying what kind
of number it is:

    exact        computed in exact rational arithmetic (the square root of an exact rational
                 for the path norm)
    float64      a deterministic float64 computation, no sampling (e.g. a trace from n products)
    estimate     a Lanczos Ritz value with its residual bound, or Hutchinson's mean with a 95% interval
    lower_bound  the best value projected gradient ascent reached (the maximum is at least this)

The estimates and the ascent search with float32 products (half the cost of float64 on a CPU) and
measure what they report in float64: the Ritz pair's residual, the loss at the ascent's best point
and at θ, and one probe of each trace (its float32 rounding is reported, `float32_rounding`, beside
the interval, which it is far inside).  Their details say so (`products`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from symbolic.trained import exact
from symbolic.trained.estimates import hutchinson, lanczos_extreme, projected_ascent
from symbolic.trained.network import TrainedNetwork

KEYS = ("hessian_spectral_norm", "hessian_trace", "weight_norm", "path_norm", "fisher_rao_norm",
        "adaptive_sharpness", "eps_sharpness", "normalized_flatness")
DIAGONAL_LIMIT = 1000        # up to this many parameters the Hessian's diagonal is computed, n products
SHARPNESS_RADIUS = 0.05      # ε of ε-sharpness and ρ of adaptive sharpness
SEED = 0
FLOAT32 = np.float32         # the precision of the estimates' products and of the ascent's search
LANCZOS_TOLERANCE = 1e-5     # relative, of the estimated residual: float32 products' rounding lies below it
PRODUCTS = "float32 products, the reported residual measured with a float64 product"
ASCENT = "float32 gradients steer the search; the loss at θ and at the best point is float64"


@dataclass
class Value:
    value: float
    kind: str                               # exact, float64, estimate or lower_bound
    details: dict = field(default_factory=dict)
    exact: Fraction | None = None           # the exact number behind an exact value (its square for the path norm)


def _hessian_diagonal(objective, theta: np.ndarray) -> np.ndarray:
    """diag ∇²L(θ) from n Hessian-vector products on the unit vectors."""
    diagonal, unit = np.empty(theta.size), np.zeros(theta.size)
    for i in range(theta.size):
        unit[i] = 1.0
        diagonal[i] = float(objective.hvp(theta, unit)[i])
        unit[i] = 0.0
    return diagonal


class MeasureContext:
    """One parameter point θ of a network on fixed data: its measures, computed on demand."""

    def __init__(self, network: TrainedNetwork, objective, theta: np.ndarray, parameters: list):
        self.network, self.objective, self.theta = network, objective, theta
        self.parameters = parameters            # the exact parameter tensors behind θ
        self._diagonal = None
        self._loss = None
        self.best_points = {}                   # measure -> the best u its ascent found

    def diagonal(self):
        if self._diagonal is None and self.theta.size <= DIAGONAL_LIMIT:
            self._diagonal = _hessian_diagonal(self.objective, self.theta)
        return self._diagonal

    def hvp(self, v, dtype=np.float64):
        return self.objective.hvp(self.theta, v, dtype)

    def loss(self) -> float:
        """L(θ) in float64, computed once."""
        if self._loss is None:
            self._loss = self.objective.loss(self.theta)
        return self._loss

    def measure(self, key: str) -> Value:
        if key not in KEYS:
            raise ValueError(f"unknown measure {key!r}; choose from {', '.join(KEYS)}")
        return getattr(self, key)()

    def hessian_spectral_norm(self) -> Value:
        ritz = lanczos_extreme(lambda v: self.hvp(v, FLOAT32), self.theta.size, np.random.default_rng(SEED),
                               tolerance=LANCZOS_TOLERANCE, residual_hvp=self.hvp)
        return Value(abs(ritz.value), "estimate",
                     {"method": "Lanczos on Hessian-vector products", "ritz_value": ritz.value,
                      "error_bound": ritz.residual, "lower_bound": max(0.0, abs(ritz.value) - ritz.residual),
                      "hessian_vector_products": ritz.products, "products": PRODUCTS})

    def _trace(self, weights: np.ndarray, what: str) -> Value:
        """Σ_i w_i² H_ii: exactly from the diagonal if n is small, else Hutchinson with probes z ⊙ w."""
        diagonal = self.diagonal()
        if diagonal is not None:
            return Value(float(np.sum(weights ** 2 * diagonal)), "float64",
                         {"method": f"{what} from the Hessian's diagonal ({self.theta.size} products)"})
        def form(dtype):                                # z ↦ (z ⊙ w)ᵀ ∇²L(θ) (z ⊙ w), forward over forward
            return lambda z: self.objective.quadratic_form(self.theta, z * weights, dtype)
        interval = hutchinson(form(FLOAT32), self.theta.size, np.random.default_rng(SEED),
                              reference_form=form(np.float64))
        return Value(interval.mean, "estimate",
                     {"method": f"Hutchinson's estimator of {what}", "ci95": [interval.low, interval.high],
                      "error_bound": (interval.high - interval.low) / 2, "probes": interval.probes,
                      "products": "float32 quadratic forms, the first probe also in float64",
                      "float32_rounding": interval.rounding})

    def hessian_trace(self) -> Value:
        return self._trace(np.ones_like(self.theta), "the trace")

    def normalized_flatness(self) -> Value:
        return self._trace(self.theta, "Σ θ_i² H_ii")

    def weight_norm(self) -> Value:
        square = exact.sum_of_squares(self.parameters)
        return Value(float(square), "exact", {"formula": "‖θ‖₂²"}, square)

    def path_norm(self) -> Value:
        square = exact.path_norm_squared(self.network, self.parameters, self.network.input_shape)
        return Value(float(square) ** 0.5, "exact",
                     {"formula": "(Σ_paths ∏ θ_e²)^½, max-pooling counting every path through its window",
                      "square": str(square) if len(str(square)) < 80 else None}, square)

    def fisher_rao_norm(self) -> Value:
        radial = np.asarray(self.objective.radial_derivatives(self.theta))
        return Value(float(np.mean(radial ** 2)), "float64", {"formula": "(1/N) Σ_n ⟨θ, ∇ℓ_n(θ)⟩²"})

    def _sharpness(self, scales: np.ndarray, key: str) -> float:
        # float32 gradients steer the search; the values reported are float64, L(θ) computed once
        bound, self.best_points[key] = projected_ascent(
            lambda phi: self.objective.value_and_gradient(phi, FLOAT32), self.theta, scales, SHARPNESS_RADIUS,
            np.random.default_rng(SEED), value=self.objective.loss, base=self.loss(), with_point=True)
        return bound

    def adaptive_value_at(self, u: np.ndarray) -> float:
        """L(θ + |θ| ⊙ u) − L(θ) in float64: adaptive sharpness's objective at one point u of the ball."""
        return float(self.objective.loss(self.theta + np.abs(self.theta) * u)) - self.loss()

    def eps_sharpness(self) -> Value:
        value = self._sharpness(np.ones_like(self.theta), "eps_sharpness") / (1 + self.loss())
        return Value(value, "lower_bound", {"method": "projected gradient ascent, 20 steps",
                                            "radius": SHARPNESS_RADIUS, "products": ASCENT})

    def adaptive_sharpness(self) -> Value:
        return Value(self._sharpness(np.abs(self.theta), "adaptive_sharpness"), "lower_bound",
                     {"method": "projected gradient ascent in u = δ/|θ|, 20 steps", "radius": SHARPNESS_RADIUS,
                      "products": ASCENT})
