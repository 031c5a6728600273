"""The names a definition may introduce: bare names, never one a transformation maps or takes
as a parameter; what has been introduced, and what each transformation speaks of."""
from __future__ import annotations


import sympy as sp

from symbolic.logic.terms import TRANSFORMATIONS, Const, Entry, children, family_stem, index_variable


_INTRODUCED: dict = {}     # each name a definition introduced -> that definition's name


def defined_name(term) -> str | None:
    """The name a term is an instance of, when it is a bare name: a family's entry with plain,
    distinct indices (its layers blanked: z^{(k)} and z^{(0)} are one name), or a scalar that is a
    symbol or an indexed symbol (P_k); None for anything else (2a, W_{i+1}, α·x)."""
    if isinstance(term, Entry):
        plain = all(index_variable(i) == i for i in term.indices) and len(set(term.indices)) == len(term.indices)
        return family_stem(term.family) if plain else None
    if isinstance(term, Const):
        if isinstance(term.expr, sp.Symbol):
            return str(term.expr)
        if isinstance(term.expr, sp.Indexed) and isinstance(term.expr.base.label, sp.Symbol):
            return str(term.expr.base.label)
    return None


def is_defined(name: str) -> bool:
    return name in _INTRODUCED


def _names_read(term) -> set:
    """The names a term reads, blanked like ``defined_name``: family stems and scalar names, with
    the names inside scalars (the P of P_k α_{k+1})."""
    if isinstance(term, Entry):
        return {family_stem(term.family)}
    if isinstance(term, Const):
        return {str(s) for s in term.expr.free_symbols} | {str(e.base.label) for e in term.expr.atoms(sp.Indexed)}
    return set().union(*[_names_read(c) for c in children(term)]) if children(term) else set()


def transformed_names() -> set:
    """The names every transformation built so far maps or takes as a parameter."""
    return set().union(*[transformation_names(t) for t in TRANSFORMATIONS]) if TRANSFORMATIONS else set()


def transformation_names(transformation) -> set:
    """The families T maps and its parameters: the scalars of its images that are no abbreviation
    (a name T declares in ``abbreviations``, such as P_k = α_1 ⋯ α_k)."""
    mapped = {family_stem(pattern.family) for pattern, _ in transformation.images}
    scalars = set().union(*[_names_read(image) for _, image in transformation.images]) - mapped
    scalars -= {index_variable(str(v)) for v in transformation.layer_variables} | set(transformation.abbreviations)
    indices = set().union(*[{index_variable(i) for i in pattern.indices} for pattern, _ in transformation.images])
    return mapped | {name for name in scalars if name not in indices}


def defined_in(transformation) -> set:
    """The defined names a transformation maps or takes as a parameter (none for a sound one)."""
    return {name for name in transformation_names(transformation) if name in _INTRODUCED}
