"""Measures written at index level, for every size, and the chains that carry them through a map T.

A measure built from one rule per coordinate (``symbolic.measures.definitions``) has one index-level
term for the network f_θ(x_n) = Σ_j ReLU(Σ_i x_ni W_ij) v_j, whatever d, h and N:

  Σ_i term(θ_i, ∂²L/∂θ_i²)           Σ_i Σ_j term(W_ij, (∂_{W_ij}∂_{W_ij} L)(θ)) + Σ_j term(v_j, (∂_{v_j}∂_{v_j} L)(θ))
  outer(Σ_paths ∏_e edge(θ_e))        outer(Σ_i Σ_j edge(W_ij) edge(v_j)), the paths x_i → unit j → output

``invariance_chain`` proposes the steps from M at Tθ to M at θ: Theorem 3's law for each diagonal
second derivative (a lemma made from a kernel theorem), a positive scale out of |·| (activation
homogeneity), then arithmetic on each summand.  The kernel checks every step; a measure that is
not invariant is refused at the step that fails.
"""
from __future__ import annotations

import sympy as sp

from symbolic.every_size.index_rules import ACTIVATION_HOMOGENEITY, ARITHMETIC
from symbolic.every_size.index_terms import Activation, Add, Const, Entry, Eval, Fn, Function, Mul, Sum, \
    Transformation, children, first_subterm, replace_first
from symbolic.every_size.laws import derivative_chain
from symbolic.kernel.derivations import Chain, lemma, prove
from symbolic.measures.definitions import DiagonalHessianSum, PathSum

# the parameter families of the one-hidden-layer network, each with the sums that run over it
ONE_LAYER_FAMILIES = ((Entry("W", ("i", "j")), (("i", "d"), ("j", "h"))),
                      (Entry("v", ("j",)), (("j", "h"),)))
_U, _CURVATURE = sp.Symbol("u", real=True), sp.Symbol("H", real=True)


def as_term(expr: sp.Expr, atoms: dict):
    """A sympy expression built from ``atoms`` (symbol -> index-level term) by sums, products,
    positive integer powers and |·|, as an index-level term; ValueError for anything else."""
    expr = sp.sympify(expr)
    if expr in atoms:
        return atoms[expr]
    if not expr.free_symbols & set(atoms):
        if expr.free_symbols:
            raise ValueError(f"{expr} is not built from the coordinate")
        return Const(expr)
    if expr.is_Add:
        return Add(tuple(as_term(a, atoms) for a in expr.args))
    if expr.is_Mul:
        return Mul(tuple(as_term(a, atoms) for a in expr.args))
    if expr.is_Pow and expr.exp.is_Integer and expr.exp > 0:
        return Mul((as_term(expr.base, atoms),) * int(expr.exp))
    if isinstance(expr, sp.Abs):
        return Activation("abs", None, as_term(expr.args[0], atoms))
    raise ValueError(f"no index-level form for {type(expr).__name__}")


def _sums(body, sums):
    for index, size in reversed(sums):
        body = Sum(index, size, body)
    return body


def measure_term(form, function: Function, point="theta", images=None):
    """The measure at index level, at θ (``point`` "theta") or at Tθ (``point`` T, with ``images``
    the map on the entries); None when the measure has no index-level form."""
    image = images or (lambda entry: entry)
    try:
        if isinstance(form, DiagonalHessianSum):
            rule = sp.sympify(form.term(_U, _CURVATURE))
            return Add(tuple(_sums(as_term(rule, {_U: image(entry), _CURVATURE: Eval(function, (entry, entry), point)}),
                                   sums) for entry, sums in ONE_LAYER_FAMILIES))
        if isinstance(form, PathSum):
            (W, _), (v, _) = ONE_LAYER_FAMILIES
            edge = sp.sympify(form.edge(_U))
            path = Mul((as_term(edge, {_U: image(W)}), as_term(edge, {_U: image(v)})))
            total = Sum("i", "d", Sum("j", "h", path))
            return total if form.outer is None else Fn(_outer_name(form.outer), (total,))
    except ValueError:
        return None
    return None


def _outer_name(outer) -> str:
    return r"\sqrt" if outer is sp.sqrt else getattr(outer, "__name__", "g")


def invariance_chain(form, function: Function, transformation: Transformation, invariance_rule,
                     claim: str) -> Chain | None:
    """M(Tθ) = M(θ) as a chain of proposed steps (the kernel checks them); None when the measure has
    no index-level form."""
    start = measure_term(form, function, transformation, transformation.image)
    target = measure_term(form, function)
    if start is None or target is None:
        return None
    chain = Chain(claim, start)
    # Theorem 3 for each diagonal second derivative at Tθ: a lemma made from the kernel's theorem
    for entry, _ in ONE_LAYER_FAMILIES if isinstance(form, DiagonalHessianSum) else ():
        law = derivative_chain([entry, entry], function, transformation, invariance_rule)
        _, theorem = prove(law)
        rule = lemma(theorem, f"Theorem 3 at ({entry.family}, {entry.family})",
                     r"(\partial^2_{%s} L)(T\theta) = t^{-2} (\partial^2_{%s} L)(\theta)" % (entry.family, entry.family),
                     for_all=entry.indices)
        at_T = Eval(function, (entry, entry), transformation)
        chain.then(rule, replace_first(chain.end, lambda t, at_T=at_T: t == at_T, lambda t, law=law: law.end),
                   f"for every ${', '.join(entry.indices)}$")
    # a positive scale out of each |·| (activation homogeneity)
    while (scaled := first_subterm(chain.end, _scaled_activation)) is not None:
        factor, inner = scaled.arg.factors
        chain.then(ACTIVATION_HOMOGENEITY, replace_first(chain.end, lambda t, s=scaled: t == s,
                                                         lambda t: Mul((factor, Activation(t.kind, t.slope, inner)))))
    # arithmetic on each summand: the scales cancel
    for summand in _summands(target):
        chain.then(ARITHMETIC, _with_summand(chain.end, target, summand), "the scales cancel")
    return chain


def _scaled_activation(term) -> bool:
    return (isinstance(term, Activation) and isinstance(term.arg, Mul) and len(term.arg.factors) == 2
            and isinstance(term.arg.factors[0], Const) and term.arg.factors[0].expr.is_positive is True)


def _summands(term) -> list:
    """The top-level summands of a measure's term (under its outer function, if any)."""
    inner = term.args[0] if isinstance(term, Fn) else term
    return list(children(inner)) if isinstance(inner, Add) else [inner]


def _with_summand(current, target, summand):
    """``current`` with one summand replaced by the target's."""
    if isinstance(current, Fn):
        return Fn(current.name, (_with_summand(current.args[0], target.args[0], summand),))
    if isinstance(current, Add):
        position = list(target.terms).index(summand)
        terms = list(current.terms)
        terms[position] = summand
        return Add(tuple(terms))
    return summand
