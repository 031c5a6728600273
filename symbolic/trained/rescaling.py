"""The rescaling T of a trained network and its exact twin.

Every affine layer k gets a positive factor per output unit (or channel), s_k; the layer's weights
become W_k[j, i] · s_k[j] / s_{k−1}[i] and its bias b_k[j] · s_k[j], with s_0 = 1 on the inputs
and s = 1 on the outputs of the last Dense/Conv layer.  A Diagonal layer (a batch normalization)
passes its input's factors on: scale unchanged, shift times the factor.  ReLU, LeakyReLU, max-pooling
and flattening commute with positive factors, so the twin computes exactly the same function.

    layerwise   s_k = α for every layer but the last: α on the first layer, 1/α on the last,
                the biases of the hidden layers times α (Appendix B, ∏ α_k = 1)
    per_neuron  unit j of every hidden layer: s_k[j] = α for even j, 1/α for odd j
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import lcm

import numpy as np

from symbolic.trained.exact import ExactTensor, from_floats
from symbolic.trained.network import Conv, Dense, Diagonal, Flatten, TrainedNetwork
from symbolic.trained.onnx_import import output_shape

GROUPS = ("layerwise", "per_neuron")


@dataclass(frozen=True)
class Factors:
    """The factors of one parameter tensor: entry e is multiplied by table[codes[e]] (a Fraction);
    few distinct factors, so the table is short and the codes are small integers."""

    table: tuple
    codes: np.ndarray


def _unit_factors(values: list) -> tuple[list, np.ndarray]:
    """The distinct factors of the units and each unit's code."""
    table = list(dict.fromkeys(values))
    index = {f: k for k, f in enumerate(table)}
    return table, np.array([index[f] for f in values], dtype=np.int64)


def _hidden_factors(group: str, alpha: Fraction, units: int) -> list:
    if group == "layerwise":
        return [alpha] * units
    return [alpha if j % 2 == 0 else 1 / alpha for j in range(units)]


def parameter_factors(network: TrainedNetwork, group: str, alpha: Fraction) -> list[Factors]:
    """For each parameter tensor, its exact factors: T θ = factors ⊙ θ.  Flatten spreads a
    channel's factor over the channel's positions."""
    if group not in GROUPS:
        raise ValueError(f"unknown group {group!r}; choose from {', '.join(GROUPS)}")
    mixing = [layer for layer in network.layers if isinstance(layer, (Dense, Conv))]
    shape = network.input_shape
    incoming = [Fraction(1)] * shape[0]
    factors = []
    for layer in network.layers:
        if isinstance(layer, (Dense, Conv)):
            units = layer.weight.shape[0]
            outgoing = [Fraction(1)] * units if layer is mixing[-1] else _hidden_factors(group, alpha, units)
            out_table, out_codes = _unit_factors(outgoing)
            in_table, in_codes = _unit_factors(incoming)
            # W[j, i] · outgoing[j] / incoming[i]: the code of the pair (j, i)
            codes = out_codes[:, None] * len(in_table) + in_codes[None, :]
            codes = np.broadcast_to(codes.reshape(codes.shape + (1,) * (layer.weight.ndim - 2)), layer.weight.shape)
            factors.append(Factors(tuple(o / i for o in out_table for i in in_table), codes))
            if layer.bias is not None:
                factors.append(Factors(tuple(out_table), out_codes))
            incoming = outgoing
        elif isinstance(layer, Diagonal):
            table, codes = _unit_factors(incoming)
            factors += [Factors((Fraction(1),), np.zeros(len(incoming), dtype=np.int64)), Factors(tuple(table), codes)]
        elif isinstance(layer, Flatten):
            incoming = [f for f in incoming for _ in range(int(np.prod(shape[1:], dtype=np.int64)))]
        shape = output_shape(layer, shape)
    return factors


def scaled(tensor: ExactTensor, factors: Factors) -> ExactTensor:
    """factors ⊙ tensor, exactly: the factors' common denominator D goes into the scale."""
    denominator = lcm(*(f.denominator for f in factors.table))
    multipliers = np.array([int(f * denominator) for f in factors.table], dtype=object)[factors.codes]
    return ExactTensor(tensor.integers * multipliers, tensor.scale / denominator)


def exact_parameters(network: TrainedNetwork) -> list[ExactTensor]:
    return [from_floats(tensor) for tensor in network.parameter_tensors()]


def exact_twin(network: TrainedNetwork, group: str, alpha: Fraction) -> list[ExactTensor]:
    """The parameter tensors of T_α θ, exactly."""
    return [scaled(tensor, factors) for tensor, factors in
            zip(exact_parameters(network), parameter_factors(network, group, alpha))]


def write_twin(model, network: TrainedNetwork, factors: list[Factors]):
    """A copy of the ONNX model with the parameters T θ = factors ⊙ θ, each rounded to its
    initializer's type.  A batch normalization's β and running mean take its shift's factor
    (γ and the variance are unchanged), so that its shift β − a·mean takes that factor too."""
    import copy

    from onnx import numpy_helper
    out = copy.deepcopy(model)
    initializers = {t.name: t for t in out.graph.initializer}
    supply = iter(zip(exact_parameters(network), factors))

    def replace(name, values):
        old = numpy_helper.to_array(initializers[name])
        new = numpy_helper.from_array(np.asarray(values).reshape(old.shape).astype(old.dtype), name)
        initializers[name].CopyFrom(new)

    def rescaled_original(name, factor):
        return scaled(from_floats(numpy_helper.to_array(initializers[name])), factor).to_float()

    for layer in network.layers:
        if isinstance(layer, (Dense, Conv)):
            weight = scaled(*next(supply)).to_float()
            replace(layer.source["weight"], weight.T if layer.source.get("transposed") else weight)
            if layer.bias is not None:
                replace(layer.source["bias"], scaled(*next(supply)).to_float())
        elif isinstance(layer, Diagonal):
            next(supply)
            _, shift_factor = next(supply)
            for key in ("beta", "mean"):
                replace(layer.source[key], rescaled_original(layer.source[key], shift_factor))
    return out
