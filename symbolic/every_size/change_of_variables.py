"""The change of variables δ ↦ Tδ for a sharpness with coordinate-wise scales, for every size.

The measure is M(θ) = ν(L(θ))·(max_{δ ∈ S_θ} L(θ + δ) − L(θ)), where
S_θ = {δ : ‖(δ_a / s(θ_a))_a‖_p ≤ ρ}, p = 2 or ∞, and a coordinate with s(θ_a) = 0 is held fixed;
or M(θ) = E L(θ + δ) − L(θ) with independent δ_a ~ N(0, σ² s(θ_a)²).

For T with (Tθ)_a = t_a θ_{σ(a)}, its scales positive or signs (t_a² = 1) and σ the identity or a
bijection of the coordinates (``symbolic.every_size.relabelling``), the argument does not depend on
the sizes:
  (1) L(Tθ') = L(θ') for every θ': a kernel theorem for this T and this L, at every size, which takes
      no free index over a range (``Theorem.ranges``);
  (2) T is linear, T = D Q (D diagonal, Q the permutation matrix of σ): Tθ + Tδ = T(θ + δ);
  (3) s(t u) = |t| s(u) for every real u, with the rule of each family of T's parameters (a weight
      or a bias): s(t u) = t s(u) for every t > 0 on a family with a positive scale, s(−u) = s(u) on
      a family with a sign.  Then (Tδ)_a / s((Tθ)_a) = ±δ_{σ(a)} / s(θ_{σ(a)}), and s((Tθ)_a) = 0
      exactly where s(θ_{σ(a)}) = 0, so δ ↦ Tδ maps S_θ onto S_{Tθ} (the ℓ2 and ℓ∞ norms see neither
      the signs nor the order of the coordinates).  For the Gaussian, t_a δ_{σ(a)} ~
      N(0, σ² (t_a s(θ_{σ(a)}))²) = N(0, σ² s((Tθ)_a)²), by the scaling law of the normal
      distribution and its symmetry, both checked on its density, and independent coordinates
      stay independent when relabelled;
  (4) ν is a function of the loss value alone, and L(Tθ) = L(θ).
Hence M(Tθ) = ν(L(θ))·(max_{δ ∈ S_θ} L(T(θ + δ)) − L(θ)) = M(θ), and alike for the expectation.
A parameter family that T leaves alone (t = 1 in its image) needs nothing in (3).
"""
from __future__ import annotations

import functools

import sympy as sp

from symbolic.decision.zero import is_sign
from symbolic.logic.terms import Function, Transformation
from symbolic.kernel import conjunction
from symbolic.checks import check_identity
from symbolic.kernel.derivations import is_index_theorem, unmapped_families
from symbolic.every_size.relabelling import not_a_relabelling, relabelled_families, relabelling_evidence
from symbolic.kernel.verdict import Status, Verdict


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


@functools.cache
def normal_symmetry() -> Verdict:
    """If δ ~ N(0, v²) then −δ ~ N(0, v²): the density is even, checked by the exact identity test."""
    y, v = sp.Symbol("y", real=True), sp.Symbol("v", positive=True)
    density = sp.exp(-y ** 2 / (2 * v ** 2)) / (v * sp.sqrt(2 * sp.pi))
    return check_identity(density.xreplace({y: -y}), density, claim="the density of N(0, v^2) is even")


def change_of_variables(claim: str, invariance, function: Function, transformation: Transformation,
                        scale, is_weight, gaussian: bool = False, normalizer=None) -> Verdict:
    """M(Tθ) = M(θ) for every size, M the sharpness above with the scale rule ``scale(u, weight)``
    and the normalizer ``normalizer(loss)`` (None: 1); ``is_weight(family)`` says which of T's
    parameter families are weights.  PROVED only when (1)–(4) are all certified; otherwise
    UNDECIDED with the first step that failed (a refutation of M's invariance needs a concrete
    counterexample, which is not this procedure's business)."""
    # (1) the theorem is L(Tθ) = L(θ) for this very T and this very L
    if not (is_index_theorem(invariance) and invariance.lhs == transformation.apply(function.body)
            and invariance.rhs == function.body and not unmapped_families(transformation, function.body)):
        return _undecided(claim, f"not a kernel theorem {function.name}(${transformation.name}$ theta) = "
                                 f"{function.name}(theta) for this ${transformation.name}$ and this {function.name}")
    # (1) for every θ' with no index left over a range: a theorem proved for some values of a free index
    # only (a delta contracted onto it) is not L∘T = L
    if invariance.ranges:
        return _undecided(claim, f"the theorem {function.name}(${transformation.name}$ theta) = {function.name}(theta) "
                                 f"holds only for some values of its indices: {dict(invariance.ranges)}")
    premises, evidence = [invariance.verdict], [f"{function.name}(T theta') = {function.name}(theta') for every "
                                                f"theta' and every size: the kernel theorem '{invariance.claim}'"]
    # (2) σ is a bijection of the coordinates L reads, each read from T's definition
    relabelling = not_a_relabelling(transformation, function)
    if relabelling is not None:
        return _undecided(claim, relabelling)
    evidence += relabelling_evidence(transformation, function)
    u, t = sp.Symbol("u", real=True), sp.Symbol("t", positive=True)
    signs = False
    for pattern, _ in transformation.images:
        family = pattern.family
        # (2) T multiplies the family by a scalar, read from T's own definition: positive, or a sign
        factor = transformation.monomial(pattern)[0]
        if factor.expr == 1:
            evidence.append(f"{family}: scale 1 under ${transformation.name}$")
            continue
        positive = factor.expr.is_positive is True
        sign = is_sign(factor.expr)
        if not (positive or sign):
            return _undecided(claim, f"the scale {factor.expr} of {family} is not known to be positive, nor a sign")
        # (3) the family's scale rule is covariant: s(t u) = t s(u) for every t > 0, or s even for a sign
        weight = is_weight(family)
        if weight not in (True, False):
            return _undecided(claim, f"it is not said whether {family} is a weight or a bias")
        moved, times, law = (t * u, t, "s(t u) = t s(u)") if positive else (-u, 1, "s(-u) = s(u)")
        # s(t u) as written: sympy would otherwise evaluate |t u| to t |u| and the test compare t|u| with itself
        with sp.evaluate(False):
            at_moved = sp.sympify(scale(moved, weight))
        covariance = check_identity(at_moved, times * sp.sympify(scale(u, weight)), claim=f"{law} on {family}")
        if covariance.status is not Status.PROVED:
            found = f" (refuted at {covariance.witness})" if covariance.witness else ""
            return _undecided(claim, f"the scales are not covariant on {family}: {law} fails for "
                                     f"s(u) = {scale(u, weight)}{found}")
        premises.append(covariance)
        signs = signs or not positive
        evidence.append(f"{family}: scale {factor.expr} read from ${transformation.name}$, "
                        + ("> 0 (sympy's assumptions)" if positive else "a sign, its square exactly 1")
                        + f"; {law} for s(u) = {scale(u, weight)} (check_identity)")
    if gaussian:
        premises += [normal_scaling_law()] + ([normal_symmetry()] if signs else [])
        evidence.append("t delta ~ N(0, (t v)^2) for delta ~ N(0, v^2) and t > 0"
                        + (", and -delta ~ N(0, v^2)" if signs else "") + ": the density checked"
                        + ("; the coordinates, independent, relabelled by sigma: the product of their "
                           "densities is the same product" if relabelled_families(transformation) else ""))
    # (4) the normalizer reads the loss value only
    if normalizer is not None:
        loss = sp.Symbol("L_value", real=True)
        value = sp.sympify(normalizer(loss))
        if not value.free_symbols <= {loss}:
            return _undecided(claim, "the normalizer depends on more than the loss value")
        evidence.append(f"the normalizer {normalizer(sp.Symbol('L'))} is a function of L(theta) alone")
    evidence.append("delta -> T delta, linear and invertible, maps the perturbations at theta onto those at T theta, and "
                    "L(T theta + T delta) = L(T(theta + delta)) = L(theta + delta)")
    return conjunction(premises, label=claim, evidence=evidence)
