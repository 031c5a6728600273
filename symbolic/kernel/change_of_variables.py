"""The change of variables δ ↦ Tδ for a sharpness with coordinate-wise scales, for every size.

The measure is M(θ) = ν(L(θ))·(max_{δ ∈ S_θ} L(θ + δ) − L(θ)), where
S_θ = {δ : ‖(δ_a / s(θ_a))_a‖_p ≤ ρ}, p = 2 or ∞, and a coordinate with s(θ_a) = 0 is held fixed;
or M(θ) = E L(θ + δ) − L(θ) with independent δ_a ~ N(0, σ² s(θ_a)²).

For a diagonal T with positive scales, (Tθ)_a = t_a θ_a, the argument does not depend on the sizes:
  (1) L(Tθ') = L(θ') for every θ': a kernel theorem for this T and this L, at every size;
  (2) T is diagonal, hence linear: Tθ + Tδ = T(θ + δ);
  (3) s(t u) = t s(u) for every real u and every t > 0, with the rule of each family of T's
      parameters (a weight or a bias).  Then (Tδ)_a / s((Tθ)_a) = δ_a / s(θ_a), and s((Tθ)_a) = 0
      exactly where s(θ_a) = 0, so δ ↦ Tδ maps S_θ onto S_{Tθ}.  For the Gaussian,
      t_a δ_a ~ N(0, σ² (t_a s(θ_a))²) = N(0, σ² s((Tθ)_a)²), by the scaling law of the normal
      distribution, which is checked on its density;
  (4) ν is a function of the loss value alone, and L(Tθ) = L(θ).
Hence M(Tθ) = ν(L(θ))·(max_{δ ∈ S_θ} L(T(θ + δ)) − L(θ)) = M(θ), and alike for the expectation.
A parameter family that T leaves alone has t = 1, for which (3) holds trivially.
"""
from __future__ import annotations

import functools

import sympy as sp

from symbolic.every_size.index_terms import Function, Transformation
from symbolic.kernel.certificates import check_identity, conclude
from symbolic.kernel.derivations import is_theorem
from symbolic.verdict import Status, Verdict


def _undecided(claim: str, reason: str) -> Verdict:
    return Verdict(Status.UNDECIDED, claim, reason=reason)


@functools.cache
def normal_scaling_law() -> Verdict:
    """If δ ~ N(0, v²) then tδ ~ N(0, (t v)²) for t > 0: the density of tδ at y is (1/t)·p_δ(y/t)
    (the change of variables in one dimension), and (1/t)·φ_v(y/t) = φ_{t v}(y) is checked by the
    exact identity test, with its random-point witness."""
    y = sp.Symbol("y", real=True)
    t, v = sp.symbols("t v", positive=True)

    def density(point, deviation):
        return sp.exp(-point ** 2 / (2 * deviation ** 2)) / (deviation * sp.sqrt(2 * sp.pi))
    return check_identity(density(y / t, v) / t, density(y, t * v),
                          claim="the density of t*delta, delta ~ N(0, v^2), is that of N(0, (t v)^2)")


def change_of_variables(claim: str, invariance, function: Function, transformation: Transformation,
                        scale, is_weight, gaussian: bool = False, normalizer=None) -> Verdict:
    """M(Tθ) = M(θ) for every size, M the sharpness above with the scale rule ``scale(u, weight)``
    and the normalizer ``normalizer(loss)`` (None: 1); ``is_weight(family)`` says which of T's
    parameter families are weights.  PROVED only when (1)–(4) are all certified; otherwise
    UNDECIDED with the first step that failed (a refutation of M's invariance needs a concrete
    counterexample, which is not this procedure's business)."""
    # (1) the theorem is L(Tθ) = L(θ) for this very T and this very L
    if not (is_theorem(invariance) and invariance.lhs == transformation.apply(function.body)
            and invariance.rhs == function.body):
        return _undecided(claim, f"not a kernel theorem {function.name}(${transformation.name}$ theta) = "
                                 f"{function.name}(theta) for this ${transformation.name}$ and this {function.name}")
    premises, evidence = [invariance.verdict], [f"{function.name}(T theta') = {function.name}(theta') for every "
                                                f"theta' and every size: the kernel theorem '{invariance.claim}'"]
    u, t = sp.Symbol("u", real=True), sp.Symbol("t", positive=True)
    for pattern, _ in transformation.images:
        family = pattern.family
        # (2) T multiplies the family by a scalar, read from T's own definition; it must be positive
        factor = transformation.scale(pattern)
        if factor is None:
            return _undecided(claim, f"${transformation.name}$ does not map {family} to a constant times itself: "
                                     "not a diagonal map")
        if factor.expr.is_positive is not True:
            return _undecided(claim, f"the scale {factor.expr} of {family} is not known to be positive")
        # (3) the scale rule of the family is covariant: s(t u) = t s(u) for every t > 0
        weight = is_weight(family)
        if weight not in (True, False):
            return _undecided(claim, f"it is not said whether {family} is a weight or a bias")
        covariance = check_identity(sp.sympify(scale(t * u, weight)), t * sp.sympify(scale(u, weight)),
                                    claim=f"s(t u) = t s(u) on {family}")
        if covariance.status is not Status.PROVED:
            found = f" (refuted at {covariance.witness})" if covariance.witness else ""
            return _undecided(claim, f"the scales are not covariant on {family}: s(t u) = t s(u) fails for "
                                     f"s(u) = {scale(u, weight)}{found}")
        premises.append(covariance)
        evidence.append(f"{family}: scale {factor.expr} > 0 read from ${transformation.name}$ (sympy's "
                        f"assumptions), s(t u) = t s(u) for s(u) = {scale(u, weight)} (check_identity)")
    if gaussian:
        premises.append(normal_scaling_law())
        evidence.append("t delta ~ N(0, (t v)^2) for delta ~ N(0, v^2): the density checked")
    # (4) the normalizer reads the loss value only
    if normalizer is not None:
        loss = sp.Symbol("L_value", real=True)
        value = sp.sympify(normalizer(loss))
        if not value.free_symbols <= {loss}:
            return _undecided(claim, "the normalizer depends on more than the loss value")
        evidence.append(f"the normalizer {normalizer(sp.Symbol('L'))} is a function of L(theta) alone")
    evidence.append("delta -> T delta maps the perturbations at theta onto those at T theta, and "
                    "L(T theta + T delta) = L(T(theta + delta)) = L(theta + delta)")
    return conclude(claim, premises, evidence)
