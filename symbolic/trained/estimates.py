"""Numbers about a Hessian known only through Hessian-vector products, each with what it guarantees.

    lanczos_extreme      the eigenvalue of largest modulus: a Ritz value θ and the residual
                         r = ‖H y − θ y‖ of its unit Ritz vector y, measured by one more product:
                         H has an eigenvalue within r of θ (H symmetric), so ‖H‖₂ ≥ |θ| − r
    hutchinson           E[zᵀ A z] = Tr A for Rademacher z: the mean of m probes with a
                         normal-approximation 95% confidence interval
    projected_ascent     max over a ball of L(θ + t ⊙ u) − L(θ) by projected gradient ascent: the best
                         value reached is a lower bound of the maximum
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

Z_95 = 1.959963984540054   # the two-sided 95% quantile of the standard normal


@dataclass(frozen=True)
class Ritz:
    value: float            # the Ritz value of largest modulus
    residual: float         # ‖H y − θ y‖, y its unit Ritz vector
    products: int           # Hessian-vector products spent


def lanczos_extreme(hvp, n: int, rng: np.random.Generator, max_steps: int = 50,
                    tolerance: float = 1e-6) -> Ritz:
    """Lanczos with full reorthogonalization from a random start, stopped when the estimated residual
    β_k |s_k| falls below tolerance · |θ| or after max_steps products; then one product more to
    measure the residual of the chosen Ritz pair."""
    q = rng.standard_normal(n)
    basis = [q / np.linalg.norm(q)]
    diagonal, off = [], []
    products = 0
    for step in range(min(max_steps, n)):
        w = np.asarray(hvp(basis[-1]), dtype=np.float64)
        products += 1
        diagonal.append(float(basis[-1] @ w))
        Q = np.array(basis)
        for _ in range(2):                              # full reorthogonalization, twice
            w = w - Q.T @ (Q @ w)
        beta = float(np.linalg.norm(w))
        values, vectors = np.linalg.eigh(np.diag(diagonal) + np.diag(off, 1) + np.diag(off, -1))
        top = int(np.argmax(np.abs(values)))
        if beta * abs(vectors[-1, top]) <= tolerance * abs(values[top]) or beta == 0 or step == n - 1:
            break
        off.append(beta)
        basis.append(w / beta)
    y = np.array(basis).T @ vectors[:, top]
    y /= np.linalg.norm(y)
    theta = float(values[top])
    residual = float(np.linalg.norm(np.asarray(hvp(y), dtype=np.float64) - theta * y))
    return Ritz(theta, residual, products + 1)


@dataclass(frozen=True)
class Interval:
    mean: float
    low: float
    high: float
    probes: int


def hutchinson(quadratic_form, n: int, rng: np.random.Generator, probes: int = 30) -> Interval:
    """Tr A from m Rademacher probes z: the mean of zᵀ A z ± 1.96 s/√m."""
    samples = np.array([quadratic_form(rng.choice((-1.0, 1.0), size=n)) for _ in range(probes)])
    mean, half = float(samples.mean()), Z_95 * float(samples.std(ddof=1)) / np.sqrt(probes)
    return Interval(mean, mean - half, mean + half, probes)


def projected_ascent(value_and_gradient, theta: np.ndarray, scales: np.ndarray, radius: float,
                     rng: np.random.Generator, steps: int = 20) -> float:
    """max_{‖u‖₂ ≤ radius} L(θ + scales ⊙ u) − L(θ), from below: normalized gradient steps in u,
    each projected back onto the ball, from a random point of the sphere; the best value seen.
    ``value_and_gradient(φ)`` returns L(φ) and ∇L(φ) (one call per step)."""
    base = float(value_and_gradient(theta)[0])
    u = rng.standard_normal(theta.size)
    u *= radius / np.linalg.norm(u)
    best = -np.inf
    for step in range(steps + 1):
        value, gradient = value_and_gradient(theta + scales * u)
        best = max(best, float(value) - base)
        g = scales * np.asarray(gradient)
        norm = np.linalg.norm(g)
        if step == steps or norm == 0:
            break
        u = u + 0.5 * radius * g / norm
        u *= min(1.0, radius / np.linalg.norm(u))
    return best
