"""Theorems 1 and 3 in one hidden layer under T_α, for every size: the kernel's chains.

f_{T_αθ}(x_n) = f_θ(x_n) by four rewrites (the scale in front of each summand, out of Σ_i, out of
ReLU, the two scales cancelling), L(T_αθ) = L(θ) by the same steps inside the loss, and each
gradient coordinate and Hessian block of L at T_αθ through L∘T_α = L, the theorem just proved for
this T_α and this L."""
from __future__ import annotations

import functools

from symbolic.every_size.laws import derivative_chain, invariance_lemma, loss_chain
from symbolic.every_size.networks import LOSS_FUNCTION, T_ALPHA, T_NEURON, prediction, x
from symbolic.kernel.derivations import Chain, prove
from symbolic.logic.terms import Entry, Mul, Relu, Sum
from symbolic.trusted.axioms.index_rules import ARITHMETIC, HOMOGENEITY, SUM_FACTOR


def invariance_chain(claim, transformation) -> Chain:
    """f_{Tθ}(x_n) = f_θ(x_n) for T: W_ij ↦ a·W_ij, v_j ↦ b·v_j (a, b read from T, may depend on
    j); the last step claims a·b = 1, which the negative controls make false."""
    W, v = Entry("W", ("i", "j")), Entry("v", ("j",))
    w_scale, v_scale = transformation.scale(W), transformation.scale(v)
    inner = Sum("i", "d", Mul((x(), W)))

    def unit(activation):
        return Sum("j", "h", activation)
    chain = Chain(claim, transformation.apply(prediction()))
    # the scale is a scalar factor of each summand x_ni·(a W_ij)
    chain.then(ARITHMETIC, unit(Mul((Relu(Sum("i", "d", Mul((w_scale, Mul((x(), W)))))), Mul((v_scale, v))))),
               "the scale of $W_{ij}$ in front of each summand")
    # a does not depend on i: it leaves the inner sum
    chain.then(SUM_FACTOR, unit(Mul((Relu(Mul((w_scale, inner))), Mul((v_scale, v))))),
               "out of $\\sum_i$: it does not depend on $i$")
    # ReLU is positively homogeneous
    chain.then(HOMOGENEITY, unit(Mul((Mul((w_scale, Relu(inner))), Mul((v_scale, v))))),
               "out of ReLU: it is positive")
    # a·b = 1
    chain.then(ARITHMETIC, unit(Mul((Relu(inner), v))), "the two scales cancel")
    return chain


def theorem1_chain():
    return invariance_chain("Theorem 1: f_(T_alpha theta)(x) = f_theta(x), all d, h", T_ALPHA)


def per_neuron_chain():
    return invariance_chain("per-neuron: f(c_j W_ij, v_j / c_j)(x) = f(W, v)(x), all d, h", T_NEURON)


@functools.cache
def theorem1_prediction():
    """The kernel's theorem f_{T_αθ}(x_n) = f_θ(x_n), and its verdict."""
    return prove(theorem1_chain())


@functools.cache
def theorem1_loss():
    """The kernel's theorem L(T_αθ) = L(θ), and its verdict."""
    return prove(loss_chain(theorem1_chain(), "L(T_alpha theta) = L(theta)"))


def coordinates():
    """The coordinates of θ = (W, v) with free indices, and the pairs of the Hessian blocks."""
    W, v, W2, v2 = Entry("W", ("i", "j")), Entry("v", ("j",)), Entry("W", ("k", "l")), Entry("v", ("l",))
    return [W, v], [(W, W2), (W, v2), (v, W2), (v, v2)]


def theorem3_chains() -> tuple[list, list]:
    """Theorem 3's chains for every size: each gradient coordinate and each Hessian block, through
    L∘T_α = L, the kernel's theorem for this T_α and this L."""
    gradients, hessians = coordinates()
    invariance = invariance_lemma(theorem1_loss()[1], LOSS_FUNCTION, T_ALPHA)
    return ([derivative_chain([a], LOSS_FUNCTION, T_ALPHA, invariance) for a in gradients],
            [derivative_chain(list(pair), LOSS_FUNCTION, T_ALPHA, invariance) for pair in hessians])
