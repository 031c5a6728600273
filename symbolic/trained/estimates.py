"""Numbers about a Hessian known only through Hessian-vector products, each with what it guarantees.

    lanczos_extreme      the eigenvalue of largest modulus: a Ritz value θ and the residual
                         r = ‖H y − θ y‖ of its unit Ritz vector y, measured by one more product:
                         H has an eigenvalue within r of θ (H symmetric), so ‖H‖₂ ≥ |θ| − r
    hutchinson           E[zᵀ A z] = Tr A for Rademacher z: the mean of m probes with a
                         normal-approximation 95% confidence interval
    projected_ascent     max over a ball of L(θ + t ⊙ u) − L(θ) by projected gradient ascent: the best
                         value reached is a lower bound of the maximum

Each may search with cheaper (float32) products and measure what it reports with exact-as-float64
ones: the residual of the Ritz pair found, the best point of the ascent, one probe of the trace (its
rounding reported beside the interval).  A bound then holds as it would with float64 products
throughout: it speaks of the vector or the point found, however it was found.
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
                    tolerance: float = 1e-6, residual_hvp=None) -> Ritz:
    """Lanczos with full reorthogonalization from a random start, stopped when the estimated residual
    β_k |s_k| falls below tolerance · |θ| or after max_steps products; then one product more
    (by ``residual_hvp``, default ``hvp``) to measure the residual of the chosen Ritz pair."""
    steps = min(max_steps, n)
    basis = np.empty((steps, n))                        # the orthonormal Lanczos vectors, row by row
    q = rng.standard_normal(n)
    basis[0] = q / np.linalg.norm(q)
    diagonal, off = [], []
    for step in range(steps):
        w = np.asarray(hvp(basis[step]), dtype=np.float64)
        diagonal.append(float(basis[step] @ w))
        Q = basis[:step + 1]
        for _ in range(2):                              # full reorthogonalization, twice
            w = w - Q.T @ (Q @ w)
        beta = float(np.linalg.norm(w))
        values, vectors = np.linalg.eigh(np.diag(diagonal) + np.diag(off, 1) + np.diag(off, -1))
        top = int(np.argmax(np.abs(values)))
        if beta * abs(vectors[-1, top]) <= tolerance * abs(values[top]) or beta == 0 or step == steps - 1:
            break
        off.append(beta)
        basis[step + 1] = w / beta
    y = basis[:step + 1].T @ vectors[:, top]
    y /= np.linalg.norm(y)
    theta = float(values[top])
    residual = float(np.linalg.norm(np.asarray((residual_hvp or hvp)(y), dtype=np.float64) - theta * y))
    return Ritz(theta, residual, step + 2)


@dataclass(frozen=True)
class Interval:
    mean: float
    low: float
    high: float
    probes: int
    rounding: float | None = None   # |q(z₁) − q_ref(z₁)| / |q_ref(z₁)| on the first probe, if checked


def hutchinson(quadratic_form, n: int, rng: np.random.Generator, probes: int = 30,
               reference_form=None) -> Interval:
    """Tr A from m Rademacher probes z: the mean of zᵀ A z ± 1.96 s/√m.  With ``reference_form``
    (the same form computed more precisely), the first probe is computed both ways and their
    relative difference reported: the rounding of the cheaper form, beside the interval's width."""
    signs = [rng.choice((-1.0, 1.0), size=n) for _ in range(probes)]
    samples = np.array([quadratic_form(z) for z in signs])
    mean, half = float(samples.mean()), Z_95 * float(samples.std(ddof=1)) / np.sqrt(probes)
    rounding = None
    if reference_form is not None:
        reference = float(reference_form(signs[0]))
        rounding = abs(float(samples[0]) - reference) / max(abs(reference), np.finfo(float).tiny)
    return Interval(mean, mean - half, mean + half, probes, rounding)


def projected_ascent(value_and_gradient, theta: np.ndarray, scales: np.ndarray, radius: float,
                     rng: np.random.Generator, steps: int = 20, value=None, base: float | None = None,
                     with_point: bool = False):
    """max_{‖u‖₂ ≤ radius} L(θ + scales ⊙ u) − L(θ), from below: normalized gradient steps in u,
    each projected back onto the ball, from a random point of the sphere; the best point seen.
    ``value_and_gradient(φ)`` returns L(φ) and ∇L(φ) (one call per step) and steers the search;
    ``value(φ)`` (default: the search's own values) measures L at θ and at the best point, so the
    bound returned is L(θ + scales ⊙ u*) − L(θ) by ``value``, however cheap the search was
    (``base``: L(θ) by ``value``, if known); ``with_point``: the bound and the best u."""
    u = rng.standard_normal(theta.size)
    u *= radius / np.linalg.norm(u)
    best, best_u = -np.inf, u
    for step in range(steps + 1):
        found, gradient = value_and_gradient(theta + scales * u)
        if float(found) > best:
            best, best_u = float(found), u
        g = scales * np.asarray(gradient)
        norm = np.linalg.norm(g)
        if step == steps or norm == 0:
            break
        u = u + 0.5 * radius * g / norm
        u *= min(1.0, radius / np.linalg.norm(u))
    measure = value or (lambda phi: value_and_gradient(phi)[0])
    bound = float(measure(theta + scales * best_u)) - float(measure(theta) if base is None else base)
    return (bound, best_u) if with_point else bound
