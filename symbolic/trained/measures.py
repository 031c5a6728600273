"""The audit's measures evaluated on a trained network at one parameter point, each saying what kind
of number it is:

    exact        computed in exact rational arithmetic (the square root of an exact rational
                 for the path norm)
    float64      a deterministic float64 computation, no sampling (e.g. a trace from n products)
    estimate     a Lanczos Ritz value with its residual bound, or Hutchinson's mean with a 95% interval
    lower_bound  the best value projected gradient ascent reached (the maximum is at least this)
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

    def diagonal(self):
        if self._diagonal is None and self.theta.size <= DIAGONAL_LIMIT:
            self._diagonal = _hessian_diagonal(self.objective, self.theta)
        return self._diagonal

    def hvp(self, v):
        return self.objective.hvp(self.theta, v)

    def measure(self, key: str) -> Value:
        if key not in KEYS:
            raise ValueError(f"unknown measure {key!r}; choose from {', '.join(KEYS)}")
        return getattr(self, key)()

    def hessian_spectral_norm(self) -> Value:
        ritz = lanczos_extreme(self.hvp, self.theta.size, np.random.default_rng(SEED))
        return Value(abs(ritz.value), "estimate",
                     {"method": "Lanczos on Hessian-vector products", "ritz_value": ritz.value,
                      "error_bound": ritz.residual, "lower_bound": max(0.0, abs(ritz.value) - ritz.residual),
                      "hessian_vector_products": ritz.products})

    def _trace(self, weights: np.ndarray, what: str) -> Value:
        """Σ_i w_i² H_ii: exactly from the diagonal if n is small, else Hutchinson with probes z ⊙ w."""
        diagonal = self.diagonal()
        if diagonal is not None:
            return Value(float(np.sum(weights ** 2 * diagonal)), "float64",
                         {"method": f"{what} from the Hessian's diagonal ({self.theta.size} products)"})
        interval = hutchinson(lambda z: float((z * weights) @ self.hvp(z * weights)), self.theta.size,
                              np.random.default_rng(SEED))
        return Value(interval.mean, "estimate",
                     {"method": f"Hutchinson's estimator of {what}", "ci95": [interval.low, interval.high],
                      "error_bound": (interval.high - interval.low) / 2, "probes": interval.probes})

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

    def _sharpness(self, scales: np.ndarray) -> float:
        return projected_ascent(self.objective.value_and_gradient, self.theta, scales, SHARPNESS_RADIUS,
                                np.random.default_rng(SEED))

    def eps_sharpness(self) -> Value:
        loss = float(self.objective.loss(self.theta))
        value = self._sharpness(np.ones_like(self.theta)) / (1 + loss)
        return Value(value, "lower_bound", {"method": "projected gradient ascent, 20 steps",
                                            "radius": SHARPNESS_RADIUS})

    def adaptive_sharpness(self) -> Value:
        return Value(self._sharpness(np.abs(self.theta)), "lower_bound",
                     {"method": "projected gradient ascent in u = δ/|θ|, 20 steps", "radius": SHARPNESS_RADIUS})
