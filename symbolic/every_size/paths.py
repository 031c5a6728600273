"""The paths of the deep network with a bias per layer, summed layer by layer, for every depth.

A path runs from an input x_i, or from a bias b^{(k)}_j where it starts a path of its own, through
one unit of each later layer to the output; its value is the product of edge(θ_e) over its
parameters.  The sum over the paths that reach unit j of layer k obeys

    ω^{(0)}_j = 1,    ω^{(k+1)}_j = Σ_{i=1}^{h_k} ω^{(k)}_i edge(θ^{(k+1)}_{ij}) + edge(b^{(k+1)}_j),

and the sum over all the paths is Σ_{i=1}^{h_{K-1}} ω^{(K-1)}_i edge(θ^{(K)}_i) + edge(b^{(K)}).  Both
recursions, at θ and at Tθ, are kernel definitions of fresh names (ω for edge(u) = u², ν for
edge(u) = |u|).  With edge(t u) = t^q edge(u) for t > 0, the layer-wise map gives, by induction on
k, \\tilde ω^{(k)}_j = P_k^q ω^{(k)}_j (the chains below, checked by the kernel); at the output the
hypothesis α_K = 1/P_{K-1} and P_K = P_{K-1} α_K = 1 make every scale cancel.
"""
from __future__ import annotations

import functools
import re

import sympy as sp

from symbolic.trusted.axioms.index_rules import ACTIVATION_HOMOGENEITY, ARITHMETIC, SUM_FACTOR
from symbolic.kernel.derivations import Chain
from symbolic.logic.terms import Activation, Add, Const, Entry, Mul, Sum, children, layer_text, rebuild, \
    substitute_index, substitute_layer
from symbolic.every_size.networks import A, DEEP_BIAS, DEPTH, LAYER, P, P_LAST, P_NEXT, P_START, PRODUCT_ONE
from symbolic.kernel.derivations import definitions, induction, instantiate, lemma


class DeepPaths:
    """The sums over the paths of ``DEEP_BIAS`` for one edge value, ``edge(term)`` (u² or |u|,
    homogeneous of degree ``degree`` for a positive factor), named ``name``."""

    def __init__(self, name: str, edge, degree: int):
        self.name, self.edge, self.degree, self.T = name, edge, degree, DEEP_BIAS.T
        k = LAYER
        self.start, self.next = definitions(f"{name}^(k) at theta", [
            (self.reaching(0, False), Const(sp.S.One), ("j",)), (self.reaching(k + 1, False), self.through(k, False), ("j",))])
        self.start_T, self.next_T = definitions(f"{name}^(k) at T theta", [
            (self.reaching(0, True), Const(sp.S.One), ("j",)), (self.reaching(k + 1, True), self.through(k, True), ("j",))])

    def reaching(self, k, at_T: bool, unit: str = "j") -> Entry:
        """ω^{(k)}_unit at θ, \\tilde ω^{(k)}_unit at Tθ: the sum over the paths that reach the unit."""
        return Entry((r"\tilde %s^{(%s)}" if at_T else r"%s^{(%s)}") % (self.name, layer_text(sp.sympify(k))), (unit,))

    def _edge(self, entry, at_T: bool):
        return self.edge(self.T.image(entry) if at_T else entry)

    def _incoming(self, k, weight: Entry, bias: Entry, at_T: bool, inner: str = "i"):
        """Σ_{inner} ω^{(k)}_{inner} edge(weight) + edge(bias): the paths through layer k, then one more
        edge (at Tθ: T's images and \\tilde ω)."""
        return Add((Sum(inner, "h_{%s}" % layer_text(k), Mul((self.reaching(k, at_T, inner), self._edge(weight, at_T)))),
                    self._edge(bias, at_T)))

    def through(self, k, at_T: bool, inner: str = "i"):
        """Σ_i ω^{(k)}_i edge(θ^{(k+1)}_{ij}) + edge(b^{(k+1)}_j), the sum's index named ``inner``."""
        return self._incoming(k, Entry(r"\theta^{(%s)}" % layer_text(k + 1), (inner, "j")),
                              Entry("b^{(%s)}" % layer_text(k + 1), ("j",)), at_T, inner)

    def total(self, at_T: bool):
        """Σ_i ω^{(K-1)}_i edge(θ^{(K)}_i) + edge(b^{(K)}): the sum over all the paths."""
        return self._incoming(DEPTH - 1, Entry(r"\theta^{(K)}", ("i",)), Entry("b^{(K)}", ()), at_T)

    def scale(self, k) -> Const:
        return Const(P[k] ** self.degree)

    def base_chain(self) -> Chain:
        """S(0): \\tilde ω^{(0)}_j = P_0^q ω^{(0)}_j, both 1 by definition and P_0 = 1."""
        chain = Chain(f"{self.name}^(0) at T theta", self.reaching(0, True))
        chain.then(self.start_T, Const(sp.S.One))
        chain.then(self.start, self.reaching(0, False))
        reached, one = self.reaching(0, False), Const(sp.S.One)
        chain.then(ARITHMETIC, Mul((one,) * self.degree + (reached,)))
        # 1 = P_0, once per factor
        _factor_by_factor(chain, P_START, one, Const(P[0]), self.degree, suffix=(reached,))
        return _unless_there(chain, ARITHMETIC, Mul((self.scale(0), reached)))

    def step_chain(self, hypothesis) -> Chain:
        """S(k) ⟹ S(k + 1): P_k^q from the hypothesis and α_{k+1}^q from the edge make P_{k+1}^q
        (its definition), which leaves the sum; the bias brings P_{k+1}^q itself."""
        k = LAYER
        weight, bias = Entry(r"\theta^{(k+1)}", ("i", "j")), Entry("b^{(k+1)}", ("j",))
        reached = self.reaching(k, False, "i")
        chain = Chain(f"{self.name}^(k+1) at T theta is P_(k+1)^{self.degree} times at theta", self.reaching(k + 1, True))
        chain.then(self.next_T, self.through(k, True))
        edge_T, bias_T = self._edge(weight, True), self._edge(bias, True)

        def unit(summand, bias_term):
            return Add((Sum("i", "h_{k}", summand), bias_term))
        chain.then(hypothesis, unit(Mul((Mul((self.scale(k), reached)), edge_T)), bias_T))
        # the edge's factor α_{k+1}^q out of it, then P_k α_{k+1} = P_{k+1}, q times
        if isinstance(edge_T, Activation):
            chain.then(ACTIVATION_HOMOGENEITY, unit(Mul((Mul((self.scale(k), reached)),
                                                         Mul((Const(A[k + 1]), self.edge(weight))))), bias_T))
        product, path = Const(P[k] * A[k + 1]), Mul((reached, self.edge(weight)))
        chain.then(ARITHMETIC, unit(Mul((product,) * self.degree + (path,)), bias_T))
        _factor_by_factor(chain, P_NEXT, product, Const(P[k + 1]), self.degree, suffix=(path,),
                          context=lambda factors: unit(factors, bias_T))
        _unless_there(chain, ARITHMETIC, unit(Mul((self.scale(k + 1), path)), bias_T))
        total = Sum("i", "h_{k}", path)
        chain.then(SUM_FACTOR, Add((Mul((self.scale(k + 1), total)), bias_T)))
        # the bias's P_{k+1}^q out of its edge, then out of the sum of the two
        if isinstance(bias_T, Activation):
            chain.then(ACTIVATION_HOMOGENEITY, Add((Mul((self.scale(k + 1), total)), Mul((Const(P[k + 1]), self.edge(bias))))))
        chain.then(ARITHMETIC, Mul((self.scale(k + 1), self.through(k, False))))
        return chain.then(self.next, Mul((self.scale(k + 1), self.reaching(k + 1, False))))

    @functools.cached_property
    def theorem(self):
        """\\tilde ω^{(k)}_j = P_k^q ω^{(k)}_j for every k ≥ 0: the kernel's induction."""
        return induction(f"paths to layer k at T theta: P_k^{self.degree} times at theta ({self.name}), every k >= 0",
                         self.reaching(LAYER, True), Mul((self.scale(LAYER), self.reaching(LAYER, False))), LAYER,
                         self.base_chain(), self.step_chain, ("j",))

    def total_chain(self, outer=None) -> Chain:
        """outer(Σ over the paths at Tθ) = outer(Σ over the paths at θ): the induction at K − 1, then
        α_K = 1/P_{K-1} and P_K = P_{K-1} α_K = 1."""
        def wrap(term):
            return term if outer is None else outer(term)
        last = DEPTH - 1
        instance = instantiate(self.theorem[1], last, assumption="K >= 1, the depth of a network")
        paths = lemma(instance, f"{self.name} at K-1 (induction)",
                      r"\tilde %s^{(K-1)}_{j} = P_{K-1}^{%d}\, %s^{(K-1)}_{j}" % (self.name, self.degree, self.name),
                      for_all=("j",))
        weight, bias = Entry(r"\theta^{(K)}", ("i",)), Entry("b^{(K)}", ())
        reached = self.reaching(last, False, "i")
        edge_T, bias_T = self._edge(weight, True), self._edge(bias, True)
        chain = Chain(f"the sum over the paths ({self.name}) at T theta is the sum at theta", wrap(self.total(True)))

        def at(summand, bias_term):
            return wrap(Add((Sum("i", "h_{%s}" % layer_text(last), summand), bias_term)))
        # the paths reaching layer K − 1, then α_K's factor out of the edge
        chain.then(paths, at(Mul((Mul((self.scale(last), reached)), edge_T)), bias_T))
        if isinstance(edge_T, Activation):
            chain.then(ACTIVATION_HOMOGENEITY, at(Mul((Mul((self.scale(last), reached)),
                                                       Mul((Const(A[DEPTH]), self.edge(weight))))), bias_T))
        chain.then(ARITHMETIC, at(Mul(((Const(P[last]),) * self.degree + (Const(A[DEPTH]),) * self.degree
                                       + (Mul((reached, self.edge(weight))),))), bias_T))
        # α_K = 1/P_{K-1}: the hypothesis ∏ α_k = 1, once per factor
        inverse, alpha_K, P_before = Const(1 / P[last]), Const(A[DEPTH]), (Const(P[last]),) * self.degree
        _factor_by_factor(chain, PRODUCT_ONE, alpha_K, inverse, self.degree, P_before,
                          (Mul((reached, self.edge(weight))),), lambda factors: at(factors, bias_T))
        plain = Sum("i", "h_{%s}" % layer_text(last), Mul((reached, self.edge(weight))))
        chain.then(ARITHMETIC, wrap(Add((plain, bias_T))))
        # the output bias: P_K^q out of its edge, P_K = P_{K-1} α_K (its definition) once per factor,
        # then α_K = 1/P_{K-1}
        P_K, edge_b = Const(P[DEPTH]), self.edge(bias)
        if isinstance(bias_T, Activation):
            chain.then(ACTIVATION_HOMOGENEITY, wrap(Add((plain, Mul((P_K, edge_b))))))
        else:
            chain.then(ARITHMETIC, wrap(Add((plain, Mul((P_K,) * self.degree + (edge_b,))))))
        def with_bias(factors):
            return wrap(Add((plain, factors)))
        _factor_by_factor(chain, P_LAST, P_K, Const(P[last] * A[DEPTH]), self.degree, suffix=(edge_b,), context=with_bias)
        chain.then(ARITHMETIC, with_bias(Mul(P_before + (alpha_K,) * self.degree + (edge_b,))))
        _factor_by_factor(chain, PRODUCT_ONE, alpha_K, inverse, self.degree, P_before, (edge_b,), with_bias)
        return chain.then(ARITHMETIC, wrap(self.total(False)))

    def unfolded(self, term):
        """The term with each ω^{(m)}_i at a concrete layer m replaced by its definition, down to
        ω^{(0)} = 1, so that it can be expanded at concrete sizes."""
        if isinstance(term, Entry):
            found = re.fullmatch(r"%s\^\{\((\d+)\)\}" % re.escape(self.name), term.family)
            if found is None:
                return term
            layer = int(found.group(1))
            if layer == 0:
                return Const(sp.S.One)
            # the definition at layer − 1, its sum over an index of its own (no capture)
            body = substitute_layer(self.through(LAYER, False, "i%d" % layer), LAYER, sp.Integer(layer - 1))
            return self.unfolded(substitute_index(body, "j", term.indices[0]))
        return rebuild(term, tuple(self.unfolded(child) for child in children(term)))


def _factor_by_factor(chain: Chain, rule, old: Const, new: Const, degree: int, prefix=(), suffix=(),
                      context=lambda factors: factors) -> None:
    """The ``degree`` factors ``old`` of prefix·old^q·suffix turned into ``new``, one per step (a rule
    rewrites one subterm at a time), inside ``context``."""
    for done in range(1, degree + 1):
        chain.then(rule, context(Mul(tuple(prefix) + (new,) * done + (old,) * (degree - done) + tuple(suffix))))


def _unless_there(chain: Chain, rule, term) -> Chain:
    """The step to ``term``, unless the chain is there already (a degree 1 needs no arithmetic)."""
    return chain if chain.end == term else chain.then(rule, term)


SQUARED_PATHS = DeepPaths(r"\omega", lambda u: Mul((u, u)), 2)
ABSOLUTE_PATHS = DeepPaths(r"\nu", lambda u: Activation("abs", None, u), 1)


def for_edge(edge) -> DeepPaths | None:
    """The sums over the paths for a measure's edge value (u² or |u|), None for another."""
    u = sp.Symbol("u", real=True)
    value = sp.sympify(edge(u))
    return {u ** 2: SQUARED_PATHS, sp.Abs(u): ABSOLUTE_PATHS}.get(value)
