"""The layers of a deep network at Tθ, for every depth: the kernel's induction on the layer.

S(k): the layer k at Tθ is s^{(k)}_j times the layer k at θ, unit by unit (s^{(k)} = P_k = α_1⋯α_k
layer-wise, c^{(k)}_j per neuron), for every k ≥ 0: the base S(0) by the input's definitions, the
step S(k) ⟹ S(k + 1) through the layer's definition, the hypothesis, the scale out of the sum and
out of ReLU."""
from __future__ import annotations

import functools

import sympy as sp

from symbolic.every_size.networks import LAYER, PerNeuronDeepNetwork, x
from symbolic.kernel.derivations import Chain, induction
from symbolic.logic.terms import Add, Const, Entry, Mul, Relu, Sum
from symbolic.trusted.axioms.index_rules import ARITHMETIC, HOMOGENEITY, SUM_FACTOR


def base_chain(network) -> Chain:
    """S(0): \\tilde z^{(0)}_{nj} = s^{(0)}_j z^{(0)}_{nj}, both layers being the input and the scale
    s^{(0)}_j (P_0, or c^{(0)}_j per neuron) being 1 by definition."""
    start, _ = network.scale_definitions
    chain = Chain("layer 0", network.layer(0, True))
    chain.then(network.input_definition_T, x("j"))
    chain.then(network.input_definition, network.layer(0, False))
    chain.then(ARITHMETIC, Mul((Const(sp.S.One), network.layer(0, False))))
    chain.then(start, Mul((network.unit_scale(0, "j"), network.layer(0, False))))
    return chain


def step_chain(network, hypothesis) -> Chain:
    """S(k) ⟹ S(k + 1): \\tilde z^{(k+1)}_{nj} = ReLU(Σ_i s^{(k)}_i z^{(k)}_{ni}·t_{ij}θ_{ij} [+ s^{(k+1)}_j b_j])
    = s^{(k+1)}_j z^{(k+1)}_{nj}, t_{ij} read from T: the product s^{(k)}_i t_{ij} must be free of i
    (P_k α_{k+1} = P_{k+1} by definition; per neuron c^{(k)}_i c^{(k+1)}_j / c^{(k)}_i = c^{(k+1)}_j)."""
    k = LAYER
    theta = Entry(r"\theta^{(k+1)}", ("i", "j"))
    z_k = network.layer(k, False, "i")
    incoming, following = network.unit_scale(k, "i"), network.unit_scale(k + 1, "j")
    factor = Const(incoming.expr * network.T.scale(theta).expr)
    bias = Entry("b^{(k+1)}", ("j",))

    def unit(total, scaled_bias=None):
        return Relu(Add((total, scaled_bias)) if network.bias else total)
    scaled_bias = Mul((following, bias))
    inner = Sum("i", "h_{k}", Mul((z_k, theta)))
    chain = Chain("layer k+1 at T theta is s_(k+1) times layer k+1 at theta", network.layer(k + 1, True))
    chain.then(network.layer_definition_T, network.unit(k, True))
    chain.then(hypothesis, unit(Sum("i", "h_{k}", Mul((Mul((incoming, z_k)), network.T.image(theta)))), scaled_bias))
    chain.then(ARITHMETIC, unit(Sum("i", "h_{k}", Mul((factor, Mul((z_k, theta))))), scaled_bias))
    chain.then(SUM_FACTOR, unit(Mul((factor, inner)), scaled_bias))
    if factor != following:
        _, following_definition = network.scale_definitions
        chain.then(following_definition or ARITHMETIC, unit(Mul((following, inner)), scaled_bias))
    argument = Add((inner, bias)) if network.bias else inner
    if network.bias:
        chain.then(ARITHMETIC, Relu(Mul((following, argument))))
    chain.then(HOMOGENEITY, Mul((following, Relu(argument))))
    chain.then(network.layer_definition, Mul((following, network.layer(k + 1, False))))
    return chain


@functools.cache
def layers_theorem(network):
    """\\tilde z^{(k)}_{nj} = s^{(k)}_j z^{(k)}_{nj} for every k ≥ 0: the kernel's induction rule."""
    scale = "c^(k)_j" if isinstance(network, PerNeuronDeepNetwork) else "P_k"
    return induction(f"layer k at T theta is {scale} times layer k at theta ({network.name}, "
                     f"{'with' if network.bias else 'without'} biases), every k >= 0",
                     network.layer(LAYER, True), Mul((network.unit_scale(LAYER, "j"), network.layer(LAYER, False))),
                     LAYER, base_chain(network), lambda hypothesis: step_chain(network, hypothesis), ("n", "j"))
