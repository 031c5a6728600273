"""Measures written at index level, for every size, and the chains that carry them through a map T.

A measure built from one rule per coordinate (``symbolic.measures.definitions``) has one index-level
term for the network f_θ(x_n) = Σ_j ReLU(Σ_i x_ni W_ij) v_j, whatever d, h and N:

  Σ_i term(θ_i, ∂²L/∂θ_i²)           Σ_i Σ_j term(W_ij, (∂_{W_ij}∂_{W_ij} L)(θ)) + Σ_j term(v_j, (∂_{v_j}∂_{v_j} L)(θ))
                                     (alike with ∂L/∂θ_i, or θ_i alone, and (1/N) Σ_n with ∂ℓ_n/∂θ_i)
  (1/N) Σ_n outer(⟨θ, ∇ℓ_n⟩)         (1/N) Σ_n outer(Σ_i Σ_j W_ij (∂_{W_ij} ℓ_n)(θ) + Σ_j v_j (∂_{v_j} ℓ_n)(θ))
  outer(Σ_paths ∏_e edge(θ_e))        outer(Σ_i Σ_j edge(W_ij) edge(v_j)), the paths x_i → unit j → output
  ∏_k ‖W_k‖_F                        sqrt(Σ_i Σ_j W_ij W_ij) sqrt(Σ_j v_j v_j)
  ∏_k ‖W_k‖₂²                        ‖(W_ij)_{i≤d, j≤h}‖₂ ‖(W_ij)‖₂ ‖(v_j)_{j≤h}‖₂ ‖(v_j)‖₂
                                     (each norm binds its indices)
  ⟨w, w⟩ Tr(H_ww), w the output layer  (Σ_j v_j v_j)(Σ_l (∂_{v_l}∂_{v_l} L)(θ)); in a deep network w = θ^{(K)}

and, on the deep network with a bias per layer, the same sums over every parameter family, those of
the hidden layers under a sum over the layers p = 1, …, K − 1; alike on two layers with biases.

``invariance_chain`` proposes the steps from M at Tθ to M at θ: Theorem 3's law for each derivative
the measure reads (a lemma made from a kernel theorem), a sum over relabelled units put back in
order (reindexing by π), a constant out of a sum (for a product of sums or a sum under a root), a
positive scale out of a root, a positive scale or a sign out of |·|, permuted rows or columns of a
matrix put back in order under its spectral norm, a positive scale out of a spectral norm or a sign
of one side dropped, then arithmetic where the terms still differ.  The kernel checks every step; a
measure that is not invariant is refused at the step that fails (a scale c_j of each column does not
leave a spectral norm).
"""
from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from symbolic.decision.zero import is_sign
from symbolic.trusted.axioms.index_rules import ABSOLUTE_VALUE_OF_A_SIGN, ACTIVATION_HOMOGENEITY, ARITHMETIC, \
    REINDEXING, ROOT_EXPONENTS, ROOT_HOMOGENEITY, SCALARS_OUT_OF_PRODUCT, SUM_FACTOR
from symbolic.every_size.tactics import monomials, rewrite_all
from symbolic.trusted.axioms.norm_rules import SPECTRAL_NORM_HOMOGENEITY, SPECTRAL_NORM_OF_A_PERMUTATION, \
    SPECTRAL_NORM_OF_A_SIGN
from symbolic.logic.terms import Activation, Add, Const, Entry, Eval, Fn, Function, LayerProduct, LayerSum, Mul, \
    SpectralNorm, Sum, Transformation, children, first_subterm, permuted, rebuild, replace_first, same_head
from symbolic.logic.notation import latex
from symbolic.every_size.laws import derivative_chain
from symbolic.every_size.networks import HIDDEN_BIAS, HIDDEN_WEIGHT, N, OUTPUT_BIAS, OUTPUT_WEIGHT
from symbolic.every_size.paths import for_edge
from symbolic.kernel.derivations import Chain, lemma, prove
from symbolic.measures.definitions import CoordinateSum, LayerNormProduct, OutputNormTrace, PathSum, RelativeFlatness, \
    SampleCoordinateSum, SampleDirectionalSum, SpectralNormProduct

# the parameter families of the one-hidden-layer network, each with the sums that run over it
ONE_LAYER_FAMILIES = ((Entry("W", ("i", "j")), (("i", "d"), ("j", "h"))),
                      (Entry("v", ("j",)), (("j", "h"),)))
# of the deep network with a bias per layer (``symbolic.every_size.networks.DeepNetwork``): the hidden
# layers p = 1, …, K − 1 (a sum over the layers) and the output layer K
HIDDEN_LAYERS = ("p", "K-1")
DEEP_BIAS_FAMILIES = ((Entry(r"\theta^{(p)}", ("i", "j")), (("i", "h_{p-1}"), ("j", "h_{p}"))),
                      (Entry(r"\theta^{(K)}", ("i",)), (("i", "h_{K-1}"),)),
                      (Entry("b^{(p)}", ("j",)), (("j", "h_{p}"),)),
                      (Entry("b^{(K)}", ()), ()))


@dataclass(frozen=True)
class IndexNetwork:
    """What a measure's index-level term needs of a network with one output unit: its parameter
    families with their sums (a family whose name holds the layer p runs over the hidden layers too),
    the weights of its output layer with their sum, its input-to-output paths (each kind of path:
    its edges and the sums over their indices; a bias starts a path of its own) and its weight
    matrices with their sums, where those can be written (not at every depth)."""
    families: tuple
    output: tuple
    paths: tuple | None = None
    layers: tuple | None = None
    layered_paths: bool = False      # the paths of the deep network, summed layer by layer (``paths``)


ONE_LAYER = IndexNetwork(ONE_LAYER_FAMILIES, ONE_LAYER_FAMILIES[1],
                         paths=(((Entry("W", ("i", "j")), Entry("v", ("j",))), (("i", "d"), ("j", "h"))),),
                         layers=ONE_LAYER_FAMILIES)
DEEP_WITH_BIASES = IndexNetwork(DEEP_BIAS_FAMILIES, DEEP_BIAS_FAMILIES[1], layers=DEEP_BIAS_FAMILIES[:2],
                                layered_paths=True)
# two layers with biases (``symbolic.every_size.networks.absolute_value_prediction``)
TWO_LAYER_FAMILIES = ((HIDDEN_WEIGHT, (("i", "h_{0}"), ("j", "h_{1}"))), (OUTPUT_WEIGHT, (("j", "h_{1}"),)),
                      (HIDDEN_BIAS, (("j", "h_{1}"),)), (OUTPUT_BIAS, ()))
TWO_LAYERS_WITH_BIASES = IndexNetwork(
    TWO_LAYER_FAMILIES, TWO_LAYER_FAMILIES[1],
    paths=(((HIDDEN_WEIGHT, OUTPUT_WEIGHT), (("i", "h_{0}"), ("j", "h_{1}"))),    # x_i → unit j → output
           ((HIDDEN_BIAS, OUTPUT_WEIGHT), (("j", "h_{1}"),)),                       # b_j → unit j → output
           ((OUTPUT_BIAS,), ())),                                                   # the output bias
    layers=TWO_LAYER_FAMILIES[:2])
# one layer of normalized units (``symbolic.every_size.normalization``): W_ij and v_j, and with an
# affine normalization the gain γ_j and shift β_j of each unit
NORMALIZED_LAYER = IndexNetwork(ONE_LAYER_FAMILIES, ONE_LAYER_FAMILIES[1])
AFFINE_NORMALIZED_LAYER = IndexNetwork(ONE_LAYER_FAMILIES + ((Entry(r"\gamma", ("j",)), (("j", "h"),)),
                                                            (Entry(r"\beta", ("j",)), (("j", "h"),))),
                                       ONE_LAYER_FAMILIES[1])
# one attention head's score (``symbolic.every_size.attention``): its query and key matrices Q, K
# (d × k) and its read-out weight v, the output layer
ATTENTION_FAMILIES = ((Entry("Q", ("i", "m")), (("i", "d"), ("m", "k"))),
                      (Entry("K", ("l", "m")), (("l", "d"), ("m", "k"))),
                      (Entry("v", ()), ()))
ATTENTION_HEAD = IndexNetwork(ATTENTION_FAMILIES, ATTENTION_FAMILIES[2])
_U, _DERIVATIVE = sp.Symbol("u", real=True), sp.Symbol("D", real=True)


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


def _sums(body, entry, sums):
    """Σ over the family's indices, and over the hidden layers when its name holds the layer p."""
    return _over_hidden_layers(_index_sums(body, sums), entry, LayerSum)


def _index_sums(body, sums):
    """Σ over the family's own indices, innermost last."""
    for index, size in reversed(sums):
        body = Sum(index, size, body)
    return body


def _over_hidden_layers(body, entry, over_layers):
    """``over_layers`` (a sum or a product) of the body over the hidden layers p = 1, …, K − 1 when the
    family's name holds the layer p; the body itself otherwise."""
    variable, last = HIDDEN_LAYERS
    return over_layers(variable, last, body) if "(%s)" % variable in entry.family else body


def measure_term(form, function: Function, point="theta", images=None, network: IndexNetwork = ONE_LAYER):
    """The measure at index level, at θ (``point`` "theta") or at Tθ (``point`` T, with ``images``
    the map on the entries); ``function`` is L, or the loss ℓ_n of one example for a measure that
    reads the examples' gradients.  None when the measure has no index-level form on ``network``."""
    image = images or (lambda entry: entry)
    if isinstance(form, (RelativeFlatness, OutputNormTrace)):
        # one output unit: ⟨w, w⟩ Tr(H_ww) = (Σ_i w_i w_i)(Σ_l (∂_{w_l}∂_{w_l} L)(θ));
        # the unsquared variant takes the root of ⟨w, w⟩
        w, sums = network.output
        if sums:
            ((index, size),) = sums
            w_l = Entry(w.family, ("l",))
            gram = Sum(index, size, Mul((image(w), image(w))))
            trace = Sum("l", size, Eval(function, (w_l, w_l), point))
        else:        # one output weight w: ⟨w, w⟩ = w w and Tr(H_ww) = (∂_w∂_w L)(θ)
            gram, trace = Mul((image(w), image(w))), Eval(function, (w, w), point)
        return Mul((gram if isinstance(form, RelativeFlatness) else Fn(r"\sqrt", (gram,)), trace))
    try:
        if isinstance(form, CoordinateSum):
            rule = sp.sympify(form.term(_U, _DERIVATIVE))

            def read(entry):     # what the rule reads of coordinate a: θ_a, and ∂_a L or ∂²_a L
                return {_U: image(entry)} if form.order == 0 else \
                    {_U: image(entry), _DERIVATIVE: Eval(function, (entry,) * form.order, point)}
            return Add(tuple(_sums(as_term(rule, read(entry)), entry, sums) for entry, sums in network.families))
        if isinstance(form, SampleCoordinateSum):
            rule = sp.sympify(form.term(_U, _DERIVATIVE))
            total = Add(tuple(_sums(as_term(rule, {_U: image(entry), _DERIVATIVE: Eval(function, (entry,), point)}),
                                    entry, sums) for entry, sums in network.families))
            return Mul((Const(1 / N), Sum("n", "N", total)))
        if isinstance(form, SampleDirectionalSum):
            along = Add(tuple(_sums(Mul((image(entry), Eval(function, (entry,), point))), entry, sums)
                              for entry, sums in network.families))
            return Mul((Const(1 / N), Sum("n", "N", as_term(sp.sympify(form.outer(_U)), {_U: along}))))
        if isinstance(form, PathSum) and network.layered_paths:
            paths = for_edge(form.edge)
            if paths is None or point not in ("theta", paths.T):
                return None
            total = paths.total(point != "theta")
            return total if form.outer is None else Fn(_outer_name(form.outer), (total,))
        if isinstance(form, PathSum) and network.paths is not None:
            edge = sp.sympify(form.edge(_U))
            total = _added([_sums(_multiplied([as_term(edge, {_U: image(e)}) for e in edges]), edges[0], sums)
                            for edges, sums in network.paths])
            return total if form.outer is None else Fn(_outer_name(form.outer), (total,))
        if isinstance(form, LayerNormProduct) and network.layers is not None:
            # one root per layer: the hidden layers' roots under a product over the layers
            return _multiplied([_over_hidden_layers(Fn(r"\sqrt", (_index_sums(Mul((image(w), image(w))), sums),)), w,
                                                    LayerProduct) for w, sums in network.layers])
        if isinstance(form, SpectralNormProduct) and network.layers is not None:
            # ‖W_k‖₂² as ‖W_k‖₂ ‖W_k‖₂, one flat product, so that the scales of all layers meet in it;
            # a deep network's hidden layers under a product over the layers
            squares = [_over_hidden_layers(Mul((SpectralNorm(image(w), *sums),) * 2), w, LayerProduct)
                       for w, sums in network.layers]
            return _multiplied([factor for square in squares
                                for factor in (square.factors if isinstance(square, Mul) else (square,))])
    except ValueError:
        return None
    return None


def _added(terms: list):
    return terms[0] if len(terms) == 1 else Add(tuple(terms))


def _multiplied(factors: list):
    return factors[0] if len(factors) == 1 else Mul(tuple(factors))


def _outer_name(outer) -> str:
    return r"\sqrt" if outer is sp.sqrt else getattr(outer, "__name__", "g")


def invariance_chain(form, function: Function, transformation: Transformation, invariance_rule,
                     claim: str, network: IndexNetwork = ONE_LAYER, scalar_rules=()) -> Chain | None:
    """M(Tθ) = M(θ) as a chain of proposed steps (the kernel checks them); ``invariance_rule`` is
    function(Tθ) = function(θ) as a lemma; ``scalar_rules`` are (rule, scalar term, its value) that
    the map's own definitions give (∏_{p≤K-1} α_p = P_{K-1}, say).  None when the measure has no
    index-level form."""
    start = measure_term(form, function, transformation, transformation.image, network)
    target = measure_term(form, function, network=network)
    if start is None or target is None:
        return None
    chain = Chain(claim, start)
    # Theorem 3 at each derivative the measure reads at Tθ: a lemma made from the kernel's theorem
    for at_T in _evaluations(start, transformation):
        partials = at_T.partials
        indices = tuple(dict.fromkeys(i for e in partials for i in e.indices))
        law = derivative_chain(list(partials), function, transformation, invariance_rule)
        rule = lemma(prove(law)[1], f"Theorem 3 at {', '.join(e.family for e in partials)}",
                     r"(%s %s)(T\theta) = %s\,(%s %s)(\theta)" % (
                         "".join(r"\partial_{%s}" % latex(e) for e in partials), function.name,
                         latex(law.end.factors[0]),
                         "".join(r"\partial_{%s}" % latex(e) for e in law.end.factors[1].partials),
                         function.name), for_all=indices)
        rewrite_all(chain, rule, lambda t, at_T=at_T: t == at_T, lambda t, law=law: law.end,
                    f"for every ${', '.join(indices)}$")
    # a sum over relabelled coordinates: its summands in the order of π (reindexing)
    while (total := first_subterm(chain.end, _relabelled_sum)) is not None:
        chain.then(REINDEXING, replace_first(chain.end, lambda t, old=total: t == old, _in_order),
                   f"the summands in the order of $\\pi_{{{total.size}}}$")
    # a product of sums, or a sum under a root: each sum's constant factor out of it (it must not
    # depend on the sum's index)
    if isinstance(form, (RelativeFlatness, OutputNormTrace, LayerNormProduct)):
        _factor_out_of_sums(chain)
    # a positive scale out of a square root
    rewrite_all(chain, ROOT_HOMOGENEITY, _scaled_root, lambda t: Mul((
        Const(t.args[0].factors[0].expr ** ROOT_EXPONENTS[t.name]), Fn(t.name, (t.args[0].factors[1],)))))
    # a positive scale out of each |·| (activation homogeneity)
    # and a sign out of |·| (its square is 1)
    while (scaled := first_subterm(chain.end, _scaled_activation)) is not None:
        factor, inner = scaled.arg.factors
        if factor.expr.is_positive is True:
            chain.then(ACTIVATION_HOMOGENEITY, replace_first(chain.end, lambda t, s=scaled: t == s,
                                                             lambda t: Mul((factor, Activation(t.kind, t.slope, inner)))))
        else:
            chain.then(ABSOLUTE_VALUE_OF_A_SIGN, replace_first(chain.end, lambda t, s=scaled: t == s,
                                                               lambda t: Activation(t.kind, t.slope, inner)))
    # a matrix whose rows or columns are permuted: put back in order under its spectral norm
    while (norm := first_subterm(chain.end, _relabelled_norm)) is not None:
        index, size = next(r for r in norm.ranges if _holds_index(norm.body, permuted(r[1], r[0])))
        chain.then(SPECTRAL_NORM_OF_A_PERMUTATION, replace_first(
            chain.end, lambda t, old=norm: t == old,
            lambda t: SpectralNorm(_unpermuted(t.body, index, size), t.rows, t.columns)),
            f"the ${index}$ in the order of $\\pi_{{{size}}}$")
    # a positive scale out of a spectral norm (it must not depend on the norm's indices), a sign of
    # one side dropped
    while (norm := first_subterm(chain.end, _scaled_norm)) is not None:
        factor, inner = norm.body.factors
        plain = SpectralNorm(inner, norm.rows, norm.columns)
        if factor.expr.is_positive is True:
            chain.then(SPECTRAL_NORM_HOMOGENEITY, replace_first(chain.end, lambda t, old=norm: t == old,
                                                                lambda t: Mul((factor, plain))))
        else:
            chain.then(SPECTRAL_NORM_OF_A_SIGN, replace_first(chain.end, lambda t, old=norm: t == old, lambda t: plain))
    # the scales out of a product over the layers (a body with several, each in front of the rest
    # first), then the values the map's definitions give them
    rewrite_all(chain, ARITHMETIC, _scattered_scales, _scales_in_front, "the scales in front")
    if rewrite_all(chain, SCALARS_OUT_OF_PRODUCT, _scaled_product, lambda t: Mul((
            LayerProduct(t.variable, t.last, t.body.factors[0]), LayerProduct(t.variable, t.last, t.body.factors[1])))):
        for rule, scalar, value in scalar_rules:
            rewrite_all(chain, rule, lambda t, scalar=scalar: t == scalar, lambda t, value=value: value)
    # arithmetic where the terms still differ, innermost first: the scales cancel
    for path in _arithmetic_positions(chain.end, target):
        chain.then(ARITHMETIC, _replace_at(chain.end, path, _at(target, path)), "the scales cancel")
    return chain


def _relabelled_sum(term) -> bool:
    """Σ_{j=1}^{m} G with π_m(j) in G."""
    return isinstance(term, Sum) and _holds_index(term.body, permuted(term.size, term.index))


def _holds_index(term, index: str) -> bool:
    entries = [term] if isinstance(term, Entry) else list(term.partials) if isinstance(term, Eval) else []
    return any(index in e.indices for e in entries) or any(_holds_index(c, index) for c in children(term))


def _in_order(total: Sum) -> Sum:
    """Σ_j G(π(j)) proposed as Σ_j G(j) (the rule checks it)."""
    return Sum(total.index, total.size, _unpermuted(total.body, total.index, total.size))


def _unpermuted(term, index: str, size: str):
    """Each π_m(j) in an entry replaced by j, m = ``size`` and j = ``index``."""
    moved = permuted(size, index)
    if isinstance(term, Entry):
        return Entry(term.family, tuple(index if i == moved else i for i in term.indices))
    if isinstance(term, Eval):
        return Eval(term.function, tuple(_unpermuted(p, index, size) for p in term.partials), term.point)
    return rebuild(term, tuple(_unpermuted(c, index, size) for c in children(term)))


def _relabelled_norm(term) -> bool:
    """‖(A_ab)‖₂ with π_m(b) in A, m the range of b (or alike for a)."""
    return isinstance(term, SpectralNorm) and any(_holds_index(term.body, permuted(size, index))
                                                  for index, size in term.ranges)


def _scaled_norm(term) -> bool:
    """‖(c A_ab)‖₂ with c > 0 or a sign."""
    if not (isinstance(term, SpectralNorm) and isinstance(term.body, Mul) and len(term.body.factors) == 2
            and isinstance(term.body.factors[0], Const)):
        return False
    c = term.body.factors[0].expr
    return c.is_positive is True or is_sign(c)


def _evaluations(term, point) -> list:
    """The derivatives of a function evaluated at ``point`` in the term, each once, in order."""
    found = [term] if isinstance(term, Eval) and term.point == point else []
    return list(dict.fromkeys(found + [e for c in children(term) for e in _evaluations(c, point)]))


def _factor_out_of_sums(chain: Chain) -> None:
    """Each sum whose summand is a constant times the rest: the summand written so (arithmetic),
    then the constant out of the sum (sum factor, refused when it depends on the sum's index)."""
    def scaled(t):
        return isinstance(t, Sum) and _constant_and_rest(t.body) is not None
    while (total := first_subterm(chain.end, scaled)) is not None:
        body = _constant_and_rest(total.body)
        if body != total.body:
            chain.then(ARITHMETIC, replace_first(chain.end, lambda t, old=total: t == old,
                                                 lambda t: Sum(t.index, t.size, body)), "the constants in front")
        factor, rest = body.factors
        chain.then(SUM_FACTOR, replace_first(chain.end, lambda t, old=Sum(total.index, total.size, body): t == old,
                                             lambda t: Mul((factor, Sum(t.index, t.size, rest)))))


def _constant_and_rest(term):
    """c·A_1⋯A_r for a single monomial whose constant c is not 1, or None."""
    written = monomials(term)
    if isinstance(written, Mul) and len(written.factors) == 2 and isinstance(written.factors[0], Const) \
            and written.factors[0].expr != 1:
        return written
    return None


def _scaled_product(term) -> bool:
    """∏_p (c_p X_p) over the layers, c_p a scalar."""
    return (isinstance(term, LayerProduct) and isinstance(term.body, Mul) and len(term.body.factors) == 2
            and isinstance(term.body.factors[0], Const))


def _scattered_scales(term) -> bool:
    """∏_p X_p whose body is a product holding scalars c_p that are not one in front of the rest."""
    return (isinstance(term, LayerProduct) and isinstance(term.body, Mul) and not _scaled_product(term)
            and any(isinstance(f, Const) for f in _flat_factors(term.body)))


def _scales_in_front(term: LayerProduct) -> LayerProduct:
    """The body (c_1 X)(c_2 Y)⋯ proposed as c_1 (c_2 (⋯ (X Y ⋯))), one scalar in front at each level
    (arithmetic checks it), so that each leaves the product in its turn."""
    factors = _flat_factors(term.body)
    body = _multiplied([f for f in factors if not isinstance(f, Const)] or [Const(sp.S.One)])
    for scalar in reversed([f for f in factors if isinstance(f, Const)]):
        body = Mul((scalar, body))
    return LayerProduct(term.variable, term.last, body)


def _flat_factors(term) -> list:
    """The factors of a product of products, in order."""
    return [f for factor in term.factors for f in _flat_factors(factor)] if isinstance(term, Mul) else [term]


def _scaled_root(term) -> bool:
    """ρ(k·s) with k > 0, ρ a square root or its reciprocal."""
    return (isinstance(term, Fn) and term.name in ROOT_EXPONENTS and len(term.args) == 1
            and isinstance(term.args[0], Mul) and len(term.args[0].factors) == 2
            and isinstance(term.args[0].factors[0], Const) and term.args[0].factors[0].expr.is_positive is True)


def _scaled_activation(term) -> bool:
    """σ(c·s) with c > 0, or |c·s| with c a sign."""
    if not (isinstance(term, Activation) and isinstance(term.arg, Mul) and len(term.arg.factors) == 2
            and isinstance(term.arg.factors[0], Const)):
        return False
    c = term.arg.factors[0].expr
    return c.is_positive is True or (term.kind == "abs" and is_sign(c))


def _arithmetic_positions(current, target, path=()) -> list:
    """Where arithmetic must turn ``current`` into ``target``, innermost first: inside sums and
    functions, position by position; a product or a sum of terms whose factors differ in kind
    (α·W against W) as a whole, so that its scales may cancel."""
    if current == target:
        return []
    if not same_head(current, target):
        return [path]
    inner = [p for k, (c, t) in enumerate(zip(children(current), children(target)))
             for p in _arithmetic_positions(c, t, path + (k,))]
    if isinstance(current, (Mul, Add)) and any(len(p) == len(path) + 1 for p in inner):
        return [p for p in inner if len(p) > len(path) + 1] + [path]
    return inner


def _at(term, path):
    for k in path:
        term = children(term)[k]
    return term


def _replace_at(term, path, new):
    if not path:
        return new
    kids = list(children(term))
    kids[path[0]] = _replace_at(kids[path[0]], path[1:], new)
    return rebuild(term, tuple(kids))


# --- the Gauss–Newton matrix, entry by entry -----------------------------------------------------------

def gauss_newton_entry(prediction: Function, a: Entry, b: Entry, point):
    """G_ab = (1/N) Σ_n (∂_a f_n)(∂_b f_n) at θ or at Tθ, f_n = ``prediction`` on example n."""
    return Mul((Const(1 / N), Sum("n", "N", Mul((Eval(prediction, (a,), point), Eval(prediction, (b,), point))))))


def gauss_newton_chain(prediction: Function, transformation: Transformation, invariance_rule, a: Entry,
                       b: Entry) -> Chain:
    """G_ab(Tθ) = t_a⁻¹ t_b⁻¹ G_{σ(a)σ(b)}(θ): Theorem 3's gradient law of f_n at a and at b (lemmas made from
    the kernel's theorems), the two scales multiplied, out of Σ_n (they do not depend on n), and in
    front of the 1/N."""
    chain = Chain(f"Gauss-Newton law at ({a.family}, {b.family})", gauss_newton_entry(prediction, a, b, transformation))
    laws = [derivative_chain([entry], prediction, transformation, invariance_rule) for entry in (a, b)]
    inverses = [law.end.factors[0] for law in laws]
    for entry, law in zip((a, b), laws):
        rule = lemma(prove(law)[1], f"Theorem 3 for f_n at {entry.family}",
                     r"(\partial_{%s} f_n)(T\theta) = %s\,(\partial_{%s} f_n)(\theta)" % (
                         latex(entry), latex(law.end.factors[0]), latex(law.end.factors[1].partials[0])),
                     for_all=entry.indices)
        at_T = Eval(prediction, (entry,), transformation)
        chain.then(rule, replace_first(chain.end, lambda t, at_T=at_T: t == at_T, lambda t, law=law: law.end))
    (_, at_a), (_, at_b) = (law.end.factors for law in laws)
    product = Mul((at_a, at_b))
    factor = Const(inverses[0].expr * inverses[1].expr)
    chain.then(ARITHMETIC, Mul((Const(1 / N), Sum("n", "N", Mul((factor, product))))), "the two scales multiplied")
    chain.then(SUM_FACTOR, Mul((Const(1 / N), Mul((factor, Sum("n", "N", product))))), "free of $n$")
    chain.then(ARITHMETIC, Mul((factor, gauss_newton_entry(prediction, at_a.partials[0], at_b.partials[0], "theta"))),
               "in front of $1/N$")
    return chain
