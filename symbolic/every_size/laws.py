"""The laws that follow from an invariance L∘T = L, for every size: the chain rule through it.

(∂_{a_m}…∂_{a_1} L)(Tθ) = t_{a_1}⁻¹⋯t_{a_m}⁻¹ (∂_{σ(a_m)}…∂_{σ(a_1)} L)(θ) for (Tθ)_a = t_a θ_{σ(a)}
(σ(a) = a for a diagonal T, an index permuted otherwise), each t_a and σ(a) read from T's
definition, with L(Tθ) = L(θ) a kernel theorem for that same T and L.
"""
from __future__ import annotations

from symbolic.trusted.axioms.index_rules import ARITHMETIC, CHAIN_RULE, CONSTANT_FACTOR
from symbolic.kernel.derivations import Chain
from symbolic.logic.terms import Const, Deriv, Eval, Mul
from symbolic.every_size.networks import in_loss
from symbolic.kernel.derivations import evaluation_lemma


def loss_chain(prediction_chain: Chain, claim: str) -> Chain:
    """The prediction's steps inside the loss: each holds for every n, so under Σ_n and ℓ."""
    chain = prediction_chain.lifted(in_loss)
    chain.claim = claim
    return chain


def invariance_lemma(theorem, function, transformation):
    """L(Tθ) = L(θ) as a rule: from the kernel's theorem for this very T and L."""
    return evaluation_lemma(theorem, function, transformation, "L o T = L", r"L(T\theta) = L(\theta)")


def derivative_chain(coordinates, function, transformation, invariance, claimed=None) -> Chain:
    """(∂_{a_m}…∂_{a_1} L)(Tθ) = t_{a_1}⁻¹⋯t_{a_m}⁻¹ (∂_{σ(a_m)}…∂_{σ(a_1)} L)(θ), one or two
    coordinates, each t_a and σ(a) read from T's image of θ_a.

    Peel the outermost partial: t⁻¹·t·(∂_a g)(Tθ) = t⁻¹ ∂_{σ(a)}[g(Tθ)] (chain rule), recurse into
    g, replace L(Tθ) by L(θ) (Theorem 1), then pull the constants out and rebuild the partials at θ.
    ``claimed`` is the scalar the last step claims (None: the theorem's t_{a_1}⁻¹⋯t_{a_m}⁻¹)."""
    readings = [transformation.monomial(a) for a in coordinates]
    if any(found is None for found in readings):
        raise ValueError(f"{transformation.name} does not map every coordinate to a constant times a coordinate")
    scales, sources = [t for t, _ in readings], [source for _, source in readings]
    label = ", ".join(f"{a.family}_{''.join(a.indices)}" for a in coordinates)
    chain = Chain(f"derivative law at {label}", Eval(function, tuple(coordinates), transformation))

    def inward(depth):
        """The context: the peeled factors and derivatives around the depth-th evaluation."""
        def wrap(term):
            for source, t in zip(sources[depth:], scales[depth:]):
                term = Mul((Const(1 / t.expr), Deriv(source, term)))
            return term
        return wrap
    # peel partials from the outside in: (∂_a g)(Tθ) = t_a⁻¹ ∂_{σ(a)}[g(Tθ)]
    for depth in range(len(coordinates), 0, -1):
        wrap, t = inward(depth), scales[depth - 1]
        evaluation = Eval(function, tuple(coordinates[:depth]), transformation)
        chain.then(ARITHMETIC, wrap(Mul((Const(1 / t.expr), Mul((t, evaluation))))))
        chain.then(CHAIN_RULE, inward(depth - 1)(Eval(function, tuple(coordinates[:depth - 1]), transformation)))
    # Theorem 1 under all the derivatives
    chain.then(invariance, inward(0)(Eval(function, (), "theta")))
    # rebuild the partials at θ from the inside out, pulling each constant out of the next ∂
    inverses = [Const(1 / t.expr) for t in scales]
    first = Eval(function, tuple(sources[:1]), "theta")
    if len(coordinates) == 1:
        chain.then(CHAIN_RULE, Mul((inverses[0], first)))
        final = first
    else:
        both = Eval(function, tuple(sources), "theta")
        chain.then(CHAIN_RULE, Mul((inverses[1], Deriv(sources[1], Mul((inverses[0], first))))))
        chain.then(CONSTANT_FACTOR, Mul((inverses[1], Mul((inverses[0], Deriv(sources[1], first))))))
        chain.then(CHAIN_RULE, Mul((inverses[1], Mul((inverses[0], both)))))
        chain.then(ARITHMETIC, Mul((Const(inverses[0].expr * inverses[1].expr), both)))
        final = both
    if claimed is not None:
        chain.then(ARITHMETIC, Mul((Const(claimed), final)))
    return chain
