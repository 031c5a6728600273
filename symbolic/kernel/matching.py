"""Instances: whether one step is an instance of an equation, under a renaming of its index
variables that the kernel computes (syntactic matching of index-level terms, scalars included)."""
from __future__ import annotations

import re

import sympy as sp

from symbolic.logic.terms import OVER_LAYERS, Const, Entry, SpectralNorm, Sum, binds, bound_indices, children, index_variable, offset_of, permutation_of, rebuild


def _is_instance(lhs, rhs, before, after, variables: set) -> bool:
    """Whether before = after is lhs = rhs (or rhs = lhs) with the index names in ``variables``
    renamed, the same renaming on both sides, in entries and in scalars alike; a variable may not
    be renamed to an index that a sum of the equation binds (it would be captured)."""
    return _instance_binding(lhs, rhs, before, after, variables) is not None


def _instance_binding(lhs, rhs, before, after, variables: set) -> dict | None:
    """The renaming under which before = after is an instance of lhs = rhs (``_is_instance``), or None."""
    # a name that is also a layer (in a family's name, a size, the range of a sum over the layers)
    # is not renamed: the renaming would not reach those places
    if any(_names_a_layer(variable, side) for variable in variables for side in (lhs, rhs)):
        return None
    for one, other in ((lhs, rhs), (rhs, lhs)):
        binding: dict = {}
        if _match(one, before, variables, binding) and _match(other, after, variables, binding):
            if not {index_variable(value) for value in binding.values()} & (bound_indices(lhs) | bound_indices(rhs)):
                return binding
    return None


def _names_a_layer(name: str, term) -> bool:
    """Whether ``name`` stands in a layer of the term: a family's name (θ^{(k)}), the size of a sum
    (h_{k}), the range or the variable of a sum or a product over the layers."""
    word = re.compile(r"(?<![A-Za-z0-9_\\])%s(?![A-Za-z0-9_])" % re.escape(name))
    return any(word.search(text) for text in _layer_texts(term))


def _layer_texts(term):
    """Every text of the term that names layers: families' layers, sizes, ranges over the layers."""
    if isinstance(term, Entry):
        yield from re.findall(r"\(([^()]*)\)", term.family)
    elif isinstance(term, Sum):
        yield term.size
    elif isinstance(term, OVER_LAYERS):
        yield from (term.last, term.variable)
    elif isinstance(term, SpectralNorm):
        yield from (size for _, size in term.ranges)
    for child in children(term):
        yield from _layer_texts(child)


def _match(pattern, term, variables: set, binding: dict) -> bool:
    """Syntactic matching; only index names in ``variables`` are variables, and not under a sum or a
    spectral norm that binds them (there the name is the binder's, matched only by itself)."""
    if isinstance(pattern, Const) and isinstance(term, Const):
        return _match_scalar(pattern.expr, term.expr, {sp.Symbol(v, integer=True) for v in variables}, binding)
    if isinstance(pattern, Entry) and isinstance(term, Entry):
        if pattern.family != term.family or len(pattern.indices) != len(term.indices):
            return False
        return all(_match_index(p, t, variables, binding) for p, t in zip(pattern.indices, term.indices))
    if type(pattern) is not type(term) or not children(pattern):
        return pattern == term
    if rebuild(pattern, tuple(children(term))) != term:
        return False
    inner = variables - binds(pattern)
    return all(_match(p, t, inner, binding) for p, t in zip(children(pattern), children(term)))


def _match_index(pattern: str, index: str, variables: set, binding: dict) -> bool:
    """An index matched: a variable binds it; π_m(j) matches π_m(l) and j+1 matches l+1, with j
    matched to l."""
    if pattern in variables:
        return binding.setdefault(pattern, index) == index
    if permutation_of(pattern) is not None:          # π_m(j) against π_m(l): the same m, j against l
        (size, inner), found = permutation_of(pattern), permutation_of(index)
        return found is not None and found[0] == size and _match_index(inner, found[1], variables, binding)
    if offset_of(pattern) is not None:               # j+k against l+k: the same k, j against l
        (base, offset), found = offset_of(pattern), offset_of(index)
        return found is not None and found[1] == offset and _match_index(base, found[0], variables, binding)
    return pattern == index


def _match_scalar(pattern: sp.Expr, term: sp.Expr, variables: set, binding: dict) -> bool:
    """A scalar (c_{k,j}) matched argument by argument: a variable index matches an index symbol,
    bound as in the entries; everything else must be equal."""
    if pattern in variables:
        return isinstance(term, sp.Symbol) and term.is_integer is True and \
            binding.setdefault(str(pattern), str(term)) == str(term)
    names = {str(v) for v in variables}
    if isinstance(pattern, sp.Symbol) and index_variable(str(pattern)) != str(pattern):
        return isinstance(term, sp.Symbol) and _match_index(str(pattern), str(term), names, binding)
    if not pattern.args:             # any other atom that is not a variable: only itself
        return pattern == term
    if not {index_variable(str(s)) for s in pattern.free_symbols} & names:
        return pattern == term
    if pattern.func != term.func or len(pattern.args) != len(term.args):
        return False
    return all(_match_scalar(p, t, variables, binding) for p, t in zip(pattern.args, term.args))
