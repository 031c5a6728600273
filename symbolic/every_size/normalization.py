"""Normalized layers as index-level terms, each with its scale map, and the chains (proposed here,
checked by the kernel) that show the map leaves the prediction alone, for every d, h and N.

The pre-activation of unit j on example n is z_nj = Σ_i x_ni W_ij.  A normalization over an index
(the examples m = 1..N of unit j for batch normalization, the units l = 1..h of example n for layer
normalization) centres z by its mean μ and divides by the root of its variance σ² (plus ε):

    norm(z) = (z − (1/M) Σ z) · rsqrt((1/M) Σ (z − μ)(z − μ) [+ ε]),   rsqrt(s) = 1/√s,

defined where the radicand is positive.  The networks, one hidden layer of h normalized ReLU units:

    BN:          f_θ(x_n) = Σ_j ReLU(BN(z)_nj) v_j                    (ε = 0; W ↦ cW)
    BN, affine:  f_θ(x_n) = Σ_j ReLU(γ_j BN(z)_nj + β_j) v_j          (ε ≥ 0; γ, β ↦ cγ, cβ, v ↦ v/c)
    LN:          f_θ(x_n) = Σ_j ReLU(LN(z)_nj) v_j                    (ε = 0; W ↦ cW)

with c > 0.  W ↦ cW multiplies z, μ and the centred z by c and the variance by c²; the root takes
out c⁻¹ (the rule of a root's homogeneity), so the normalized value does not move.  The affine
scale multiplies γ BN + β by c; ReLU takes c out (homogeneity), and v/c cancels it.
"""
from __future__ import annotations

import sympy as sp

from symbolic.trusted.axioms.index_rules import ARITHMETIC, HOMOGENEITY, RECIPROCAL_ROOT, ROOT_HOMOGENEITY, SUM_FACTOR
from symbolic.kernel.derivations import Chain
from symbolic.every_size.tactics import rewrite_all, rewrite_first
from symbolic.logic.terms import Add, Const, Entry, Fn, Function, Mul, Relu, Sum, Transformation
from symbolic.every_size.networks import N, in_loss

SCALE = sp.Symbol("c", positive=True)                     # the group's c > 0
EPSILON = sp.Symbol(r"\epsilon", nonnegative=True)        # the affine network's ε ≥ 0 (any)
UNITS = sp.Symbol("h", positive=True, integer=True)       # h, the number of units, as a scalar 1/h
WEIGHT, OUTPUT = Entry("W", ("i", "j")), Entry("v", ("j",))
GAIN, SHIFT = Entry(r"\gamma", ("j",)), Entry(r"\beta", ("j",))


def pre_activation(example: str, unit: str):
    """z_{example, unit} = Σ_i x_{example, i} W_{i, unit}."""
    return Sum("i", "d", Mul((Entry("x", (example, "i")), Entry("W", ("i", unit)))))


def _normalized(value, own: str, mean_index: str, spread_index: str, size: str, count: sp.Expr, epsilon=None):
    """(z(own) − μ)·rsqrt(σ² [+ ε]) with z(a) = ``value(a)``, μ = (1/count) Σ_{mean_index} z and
    σ² = (1/count) Σ_{spread_index} (z − μ)²; each sum runs over 1..``size``."""
    def centred(a):
        return Add((value(a), Mul((Const(-1 / count), Sum(mean_index, size, value(mean_index))))))
    variance = Mul((Const(1 / count), Sum(spread_index, size, Mul((centred(spread_index), centred(spread_index))))))
    radicand = variance if epsilon is None else Add((variance, Const(epsilon)))
    return Mul((centred(own), Fn(RECIPROCAL_ROOT, (radicand,))))


def batch_normalized(epsilon=None):
    """BN(z)_nj: unit j normalized over the examples m = 1..N of the batch."""
    return _normalized(lambda m: pre_activation(m, "j"), "n", "k", "m", "N", N, epsilon)


def layer_normalized():
    """LN(z)_nj: example n normalized over the units l = 1..h of the layer."""
    return _normalized(lambda l: pre_activation("n", l), "j", "k", "l", "h", UNITS)


def _prediction(unit_input):
    return Sum("j", "h", Mul((Relu(unit_input), OUTPUT)))


def batch_norm_prediction():
    """f_θ(x_n) = Σ_j ReLU(BN(z)_nj) v_j, ε = 0."""
    return _prediction(batch_normalized())


def affine_batch_norm_prediction():
    """f_θ(x_n) = Σ_j ReLU(γ_j BN(z)_nj + β_j) v_j, any ε ≥ 0."""
    return _prediction(Add((Mul((GAIN, batch_normalized(EPSILON))), SHIFT)))


def layer_norm_prediction():
    """f_θ(x_n) = Σ_j ReLU(LN(z)_nj) v_j, ε = 0."""
    return _prediction(layer_normalized())


BATCH_NORM_LOSS = Function("L", in_loss(batch_norm_prediction()))
AFFINE_BATCH_NORM_LOSS = Function("L", in_loss(affine_batch_norm_prediction()))
LAYER_NORM_LOSS = Function("L", in_loss(layer_norm_prediction()))
# every parameter family listed, those the map leaves alone with their own entry as image
T_WEIGHT_SCALE = Transformation("T_c", ((WEIGHT, Mul((Const(SCALE), WEIGHT))), (OUTPUT, OUTPUT)))
T_AFFINE_SCALE = Transformation("T_c", ((WEIGHT, WEIGHT), (GAIN, Mul((Const(SCALE), GAIN))),
                                        (SHIFT, Mul((Const(SCALE), SHIFT))), (OUTPUT, Mul((Const(1 / SCALE), OUTPUT)))))


# --- the chains ------------------------------------------------------------------------------------

def _scaled(term, scale: sp.Expr):
    """c·A with the given scalar c: (c, A), or None."""
    if isinstance(term, Mul) and len(term.factors) == 2 and term.factors[0] == Const(scale):
        return term.factors[1]
    return None


def weight_scale_chain(prediction, claim: str) -> Chain:
    """f_{T_cθ}(x_n) = f_θ(x_n) for W ↦ cW in front of a normalization with ε = 0."""
    c, squared = SCALE, SCALE ** 2
    chain = Chain(claim, T_WEIGHT_SCALE.apply(prediction))
    # c out of each pre-activation: Σ_i x_ai (c W_ib) = c Σ_i x_ai W_ib
    while rewrite_first(chain, ARITHMETIC, lambda t: isinstance(t, Sum) and isinstance(t.body, Mul)
                        and len(t.body.factors) == 2 and _scaled(t.body.factors[1], c) is not None,
                        lambda t: Sum(t.index, t.size, Mul((Const(c), Mul((t.body.factors[0],
                                                                           _scaled(t.body.factors[1], c))))))):
        rewrite_first(chain, SUM_FACTOR, lambda t: isinstance(t, Sum) and isinstance(_scaled(t.body, c), Mul),
                      lambda t: Mul((Const(c), Sum(t.index, t.size, _scaled(t.body, c)))))
    # c out of each mean: Σ_k c z_k = c Σ_k z_k
    rewrite_all(chain, SUM_FACTOR, lambda t: isinstance(t, Sum) and _scaled(t.body, c) is not None,
                lambda t: Mul((Const(c), Sum(t.index, t.size, _scaled(t.body, c)))))
    # c out of each centred value: c z − (1/M)(c Σ z) = c (z − (1/M) Σ z)
    rewrite_all(chain, ARITHMETIC, _centred_scaled, lambda t: Mul((Const(c), Add((
        _scaled(t.terms[0], c), Mul((t.terms[1].factors[0], _scaled(t.terms[1].factors[1], c))))))))
    # c² out of each square, then out of the variance's sum: Σ_m c²(z − μ)² = c² Σ_m (z − μ)²
    rewrite_all(chain, ARITHMETIC, lambda t: isinstance(t, Mul) and len(t.factors) == 2
                and all(_scaled(f, c) is not None for f in t.factors),
                lambda t: Mul((Const(squared), Mul(tuple(_scaled(f, c) for f in t.factors)))))
    rewrite_all(chain, SUM_FACTOR, lambda t: isinstance(t, Sum) and _scaled(t.body, squared) is not None,
                lambda t: Mul((Const(squared), Sum(t.index, t.size, _scaled(t.body, squared)))))
    # (1/M)(c² S) = c² ((1/M) S), then out of the root: rsqrt(c² s) = c⁻¹ rsqrt(s)
    rewrite_all(chain, ARITHMETIC, lambda t: isinstance(t, Mul) and len(t.factors) == 2
                and isinstance(t.factors[0], Const) and _scaled(t.factors[1], squared) is not None,
                lambda t: Mul((Const(squared), Mul((t.factors[0], _scaled(t.factors[1], squared))))))
    rewrite_all(chain, ROOT_HOMOGENEITY, lambda t: isinstance(t, Fn) and t.name == RECIPROCAL_ROOT
                and _scaled(t.args[0], squared) is not None,
                lambda t: Mul((Const(1 / c), Fn(t.name, (_scaled(t.args[0], squared),)))),
                "a positive c leaves the root")
    # c (z − μ) · c⁻¹ rsqrt(σ²) = (z − μ) rsqrt(σ²)
    rewrite_all(chain, ARITHMETIC, lambda t: isinstance(t, Mul) and len(t.factors) == 2
                and _scaled(t.factors[0], c) is not None and _scaled(t.factors[1], 1 / c) is not None,
                lambda t: Mul((_scaled(t.factors[0], c), _scaled(t.factors[1], 1 / c))), "the scales cancel")
    return chain


def _centred_scaled(term) -> bool:
    """c z − (1/M)(c S): an Add whose two terms carry the scale c."""
    return (isinstance(term, Add) and len(term.terms) == 2 and _scaled(term.terms[0], SCALE) is not None
            and isinstance(term.terms[1], Mul) and len(term.terms[1].factors) == 2
            and isinstance(term.terms[1].factors[0], Const) and _scaled(term.terms[1].factors[1], SCALE) is not None)


def affine_scale_chain() -> Chain:
    """f_{T_cθ}(x_n) = f_θ(x_n) for γ, β ↦ cγ, cβ and v ↦ v/c: c out of γ BN + β, out of ReLU, and
    against v/c."""
    c = SCALE
    chain = Chain("affine scale of batch normalization: f_(T_c theta)(x) = f_theta(x), all widths",
                 T_AFFINE_SCALE.apply(affine_batch_norm_prediction()))
    normalized = batch_normalized(EPSILON)
    unit = Add((Mul((GAIN, normalized)), SHIFT))
    # (c γ_j) BN + c β_j = c (γ_j BN + β_j)
    chain.then(ARITHMETIC, Sum("j", "h", Mul((Relu(Mul((Const(c), unit))), Mul((Const(1 / c), OUTPUT))))),
               "$c$ in front of the unit's input")
    # ReLU(c s) = c ReLU(s)
    chain.then(HOMOGENEITY, Sum("j", "h", Mul((Mul((Const(c), Relu(unit))), Mul((Const(1 / c), OUTPUT))))))
    # c · c⁻¹ = 1
    chain.then(ARITHMETIC, affine_batch_norm_prediction(), "the scales cancel")
    return chain
