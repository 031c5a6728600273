"""A map T that relabels coordinates: (Tθ)_a = t_a θ_{σ(a)}, σ a bijection of the coordinates a loss reads.

T's image of each parameter family, read from its definition (``Transformation.monomial``), is a
constant times an entry of the same family whose every index is the pattern's own or its image
π_m(·) under a permutation π_m of {1, …, m}; so σ is injective.  It is onto, a bijection of the
coordinates, when each permuted index runs over exactly {1, …, m}: in the loss L every occurrence of
the family has that index bound by a sum whose bound is m.  Then the matrix Q of σ is a permutation
matrix (QQᵀ = I, det Q = ±1), and T = D Q with D = diag(t_a).
"""
from __future__ import annotations

from symbolic.logic.terms import Function, Transformation, permutation_of, summation_bounds


def relabelled_families(transformation: Transformation) -> list[tuple[str, int, str]]:
    """(family, position, m) for each index of a pattern that T permutes by π_m."""
    found = []
    for pattern, _ in transformation.images:
        reading = transformation.monomial(pattern)
        if reading is None:
            continue
        for position, (old, new) in enumerate(zip(pattern.indices, reading[1].indices)):
            if new != old:
                found.append((pattern.family, position, permutation_of(new)[0]))
    return found


def not_a_relabelling(transformation: Transformation, function: Function) -> str | None:
    """None when every coordinate map of T is read from its definition and σ is a bijection of the
    coordinates ``function`` reads; otherwise the reason it is not shown to be."""
    for pattern, _ in transformation.images:
        if transformation.monomial(pattern) is None:
            return f"${transformation.name}$ does not map {pattern.family} to a constant times a coordinate"
    for family, position, size in relabelled_families(transformation):
        arity = len(next(pattern for pattern, _ in transformation.images if pattern.family == family).indices)
        bounds = summation_bounds(function.body, family, arity, position)
        if not bounds:
            return f"{function.name} does not read {family}, so the range of its permuted index is unknown"
        if any(bound != size for bound in bounds):
            return (f"index {position + 1} of {family} does not run over exactly 1..{size} in {function.name}: "
                    f"pi_{size} is not shown to permute its coordinates")
    return None


def relabelling_evidence(transformation: Transformation, function: Function) -> list[str]:
    """What ``not_a_relabelling`` read, one line per permuted index."""
    return [f"{family}: index {position + 1} permuted by pi_{size}, which runs over exactly 1..{size} at every "
            f"occurrence in {function.name}, so sigma is a bijection of its coordinates"
            for family, position, size in relabelled_families(transformation)]
