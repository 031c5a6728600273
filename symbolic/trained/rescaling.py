"""The rescaling T of a trained network and its exact twin.

Every affine layer k gets a positive factor per output unit (or channel), s_k; the layer's weights
become W_k[j, i] · s_k[j] / s_{k−1}[i] and its bias b_k[j] · s_k[j], with s_0 = 1 on the inputs
and s = 1 on the network's outputs.  A skip connection a + b keeps f unchanged only if a's and b's
units take the same factors: the groups are restricted to that, the ties read from the graph.  A Diagonal layer (a batch normalization)
passes its input's factors on: scale unchanged, shift times the factor.  ReLU, LeakyReLU, max-pooling
and flattening commute with positive factors, so the twin computes exactly the same function.

    layerwise   s_k = α for every layer but the last: α on the first layer, 1/α on the last,
                the biases of the hidden layers times α (Appendix B, ∏ α_k = 1)
    per_neuron  unit j of every hidden layer: s_k[j] = α for even j, 1/α for odd j

A group given by its generators instead (``element_factors``, for ``rescale --group discovered``):
generator k raises entry p of θ by c_k^{G_k,p}, so the element (c_1, …, c_m) multiplies θ_p by
∏_k c_k^{G_k,p}; the generators are the discovered ones, proved symmetries of the architecture.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import lcm

import numpy as np

from symbolic.trained.exact import ExactTensor, from_floats
from symbolic.trained.network import (ODD, Activation, Conv, Dense, Diagonal, Flatten, Permute, Sum, TrainedNetwork, View,
                                      not_homogeneous)
from symbolic.trained.onnx_import import UnsupportedModel
from symbolic.trained.onnx_import import network_shapes

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


def _hidden_factor(group: str, alpha: Fraction, unit: int) -> Fraction:
    if group == "layerwise":
        return alpha
    return alpha if unit % 2 == 0 else 1 / alpha


class _Units:
    """Each value's units (its channels, or its features) as slots; a skip connection a + b ties the
    slots of a and b unit by unit (their factors must agree for f to stay unchanged through the sum)."""

    def __init__(self):
        self.parent, self.unit = [], []

    def new(self, count: int) -> np.ndarray:
        start = len(self.parent)
        self.parent += list(range(start, start + count))
        self.unit += list(range(count))
        return np.arange(start, start + count)

    def root(self, slot: int) -> int:
        while self.parent[slot] != slot:
            self.parent[slot] = self.parent[self.parent[slot]]
            slot = self.parent[slot]
        return slot

    def tie(self, a: int, b: int) -> None:
        a, b = self.root(a), self.root(b)
        if a != b:
            self.parent[max(a, b)] = min(a, b)      # the earlier slot speaks for the class


def _per_channel(slots: np.ndarray, layer) -> np.ndarray:
    """The slot of each channel (axis 0) of a value whose slots are given position by position; a
    layer that mixes positions (a Conv, a batch norm) needs one slot per channel."""
    by_channel = slots.reshape(len(slots), -1)
    if np.any(by_channel != by_channel[:, :1]):
        raise UnsupportedModel(f"a {type(layer).__name__} layer reads a value whose axis 0 is not its channels "
                               "(a Transpose before it left the data channels-last)")
    return by_channel[:, 0]


def unit_slots(network: TrainedNetwork) -> tuple[_Units, list[np.ndarray]]:
    """The slots of every value's units, derived from the graph: one slot per channel (axis 0), or
    one per position after a Permute that moved the channels; the inputs share one slot (all fixed).
    A Dense or Conv layer makes new units; a Flatten spreads a channel's slot over its positions; a
    Permute moves the slots with the axes; a sum ties its two inputs; every other layer keeps its
    input's units."""
    units, shapes = _Units(), network_shapes(network)
    slots = [np.repeat(units.new(1), shapes[0][0])]
    for k, (layer, sources) in enumerate(zip(network.layers, network.wiring())):
        inputs, shape = [slots[s] for s in sources], shapes[sources[0]]
        if isinstance(layer, (Dense, Conv)):
            if isinstance(layer, Conv):
                _per_channel(inputs[0], layer)
            slots.append(units.new(layer.weight.shape[0]))
        elif isinstance(layer, Flatten):
            full = inputs[0].reshape(inputs[0].shape + (1,) * (len(shape) - inputs[0].ndim))
            slots.append(np.broadcast_to(full, shape).ravel())
        elif isinstance(layer, (Permute, View)):
            full = inputs[0].reshape(inputs[0].shape + (1,) * (len(shape) - inputs[0].ndim))
            full = np.broadcast_to(full, shape)
            moved = np.transpose(full, layer.axes) if isinstance(layer, Permute) else full.reshape(layer.shape)
            # back to one slot per channel when each channel's positions share one
            by_channel = moved.reshape(len(moved), -1)
            slots.append(by_channel[:, 0].copy() if np.all(by_channel == by_channel[:, :1]) else moved)
        elif isinstance(layer, Sum):
            a, b = (np.broadcast_to(s.reshape(s.shape + (1,) * (len(shape) - s.ndim)), shape) for s in inputs)
            for first, second in zip(a.ravel().tolist(), b.ravel().tolist()):
                units.tie(first, second)
            slots.append(inputs[0])
        else:
            if isinstance(layer, Diagonal):
                _per_channel(inputs[0], layer)
            slots.append(inputs[0])
    return units, slots


class NoPositiveRescaling(UnsupportedModel):
    """A layer that is not positively homogeneous reads hidden units: no positive rescaling of them
    leaves f unchanged (one line naming the activation)."""


def _fixed_roots(network: TrainedNetwork, units: _Units, slots: list) -> set:
    """The classes of units that hold an input or an output unit: their factor is 1."""
    return {units.root(int(s)) for s in np.concatenate([slots[0].ravel(), slots[-1].ravel()]).tolist()}


def check_positive_rescaling(network: TrainedNetwork) -> None:
    """Raise ``NoPositiveRescaling`` when a layer that is not positively homogeneous (Sigmoid, Tanh, GELU,
    SiLU, ReLU6, a constant added inside) reads hidden units: a positive factor c ≠ 1 on them changes
    its output other than by c, so no rescaling of those units leaves f unchanged.  The line names the
    layer and what does leave f unchanged: a permutation of hidden units, and for an odd activation a
    sign flip."""
    blocking = dict((id(layer), words) for layer, words in not_homogeneous(network))
    if not blocking:
        return
    units, slots = unit_slots(network)
    fixed = _fixed_roots(network, units, slots)
    for layer, sources in zip(network.layers, network.wiring()):
        if id(layer) not in blocking:
            continue
        if any(units.root(int(s)) not in fixed for source in sources for s in slots[source].ravel().tolist()):
            odd = isinstance(layer, Activation) and layer.function in ODD
            raise NoPositiveRescaling(
                f"no positive rescaling leaves this network unchanged: {blocking[id(layer)]} reads hidden units and "
                "is not positively homogeneous (φ(c·u) ≠ c·φ(u) for c > 0); what leaves f unchanged is a "
                "permutation of hidden units" + (f" and a sign flip of them ({layer.function} is odd)" if odd else "")
                + ", which rescale does not build")
    for layer in network.layers:
        if isinstance(layer, Activation) and layer.function != "Clip":
            raise NoPositiveRescaling(
                f"{layer.describe()}{' (' + layer.node + ')' if layer.node else ''} has no exact value at a rational "
                "point, and rescale proves the twin's outputs identical in exact arithmetic: an activation on the "
                "outputs is read, but not compared exactly")


def parameter_factors(network: TrainedNetwork, group: str, alpha: Fraction) -> list[Factors]:
    """For each parameter tensor, its exact factors: T θ = factors ⊙ θ.  A unit's factor is 1 if
    its class holds an input or an output unit, else the group's factor for the unit that speaks for
    the class; a weight W[j, i] takes factor(j) / factor(i), a bias factor(j)."""
    if group not in GROUPS:
        raise ValueError(f"unknown group {group!r}; choose from {', '.join(GROUPS)}")
    check_positive_rescaling(network)
    units, slots = unit_slots(network)
    fixed = _fixed_roots(network, units, slots)

    def factor(slot: int) -> Fraction:
        root = units.root(slot)
        return Fraction(1) if root in fixed else _hidden_factor(group, alpha, units.unit[root])
    return slot_factors(network, slots, factor)


def slot_factors(network: TrainedNetwork, slots: list, factor) -> list[Factors]:
    """For each parameter tensor, its exact factors when each unit (slot) takes ``factor(slot)``: a weight
    W[j, i] factor(j) / factor(i), a bias factor(j), a batch normalisation's scale 1 and shift factor."""
    factors = []
    for k, (layer, sources) in enumerate(zip(network.layers, network.wiring())):
        if not isinstance(layer, (Dense, Conv, Diagonal)):
            continue
        read = slots[sources[0]] if isinstance(layer, Dense) else _per_channel(slots[sources[0]], layer)
        incoming = [factor(int(s)) for s in read.tolist()]
        if isinstance(layer, (Dense, Conv)):
            outgoing = [factor(int(s)) for s in slots[k + 1].tolist()]
            out_table, out_codes = _unit_factors(outgoing)
            in_table, in_codes = _unit_factors(incoming)
            # the input unit W[j, i] reads: i itself, or in a grouped convolution i of j's group
            groups, count = getattr(layer, "groups", 1), layer.weight.shape[0]
            reads = (np.arange(count)[:, None] // (count // groups)) * layer.weight.shape[1] \
                + np.arange(layer.weight.shape[1])[None, :]
            # W[j, i] · outgoing[j] / incoming[read]: the code of the pair
            codes = out_codes[:, None] * len(in_table) + in_codes[reads]
            codes = np.broadcast_to(codes.reshape(codes.shape + (1,) * (layer.weight.ndim - 2)), layer.weight.shape)
            factors.append(Factors(tuple(o / i for o in out_table for i in in_table), codes))
            if layer.bias is not None:
                factors.append(Factors(tuple(out_table), out_codes))
        elif isinstance(layer, Diagonal):
            table, codes = _unit_factors(incoming)
            factors += [Factors((Fraction(1),), np.zeros(len(incoming), dtype=np.int64)), Factors(tuple(table), codes)]
    return factors


def element_factors(network: TrainedNetwork, exponents: np.ndarray, element: list) -> list[Factors]:
    """For each parameter tensor, the factors of the group element ∏_k c_k^{G_k}: ``exponents`` holds
    one row G_k per generator over θ (flat), ``element`` the c_k > 0 (Fractions)."""
    exponents = np.asarray(exponents, dtype=np.int64).reshape(len(element), network.parameter_count)
    factors, start = [], 0
    for tensor in network.parameter_tensors():
        # the entries with the same exponents take the same factor: one code per distinct column
        block = exponents[:, start:start + tensor.size].T
        patterns, codes = np.unique(block, axis=0, return_inverse=True)
        table = tuple(_power_product(element, row) for row in patterns)
        factors.append(Factors(table, codes.reshape(tensor.shape)))
        start += tensor.size
    return factors


def _power_product(element: list, powers) -> Fraction:
    product = Fraction(1)
    for c, power in zip(element, powers):
        product *= Fraction(c) ** int(power)
    return product


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


def write_twin(model, network: TrainedNetwork, factors: list[Factors], original: list[ExactTensor] | None = None,
               twin: list[ExactTensor] | None = None):
    """A copy of the ONNX model with the parameters T θ = factors ⊙ θ, each rounded to its
    initializer's type.  A batch normalization whose scale a = γ/√(var+ε) takes the factor r and
    shift c = β − a·mean the factor s: γ times r, β times s and the running mean times s/r (the
    variance unchanged), so that a becomes r·a and c becomes s·c."""
    import copy

    from onnx import numpy_helper
    out = copy.deepcopy(model)
    # a parameter is stored in an initializer, or in a Constant node's value
    stored = {t.name: t for t in out.graph.initializer}
    for node in out.graph.node:
        if node.op_type == "Constant" and node.output[0] not in stored:
            value = next((a for a in node.attribute if a.name == "value"), None)
            if value is not None:
                stored[node.output[0]] = value.t
    original = original or exact_parameters(network)
    # T θ, exactly: the twin's tensors when they are given, else made here
    supply = iter(zip(twin if twin is not None else [scaled(t, f) for t, f in zip(original, factors)], factors))

    def replace(name, values):
        old = numpy_helper.to_array(stored[name])
        new = numpy_helper.from_array(np.asarray(values).reshape(old.shape).astype(old.dtype), stored[name].name)
        stored[name].CopyFrom(new)

    def rescaled_original(name, factor):
        return scaled(from_floats(numpy_helper.to_array(stored[name])), factor).to_float()

    for layer in network.layers:
        if isinstance(layer, (Dense, Conv)):
            weight = next(supply)[0].to_float()
            replace(layer.source["weight"], weight.T if layer.source.get("transposed") else weight)
            if layer.bias is not None:
                replace(layer.source["bias"], next(supply)[0].to_float())
        elif isinstance(layer, Diagonal):
            _, scale_factor = next(supply)
            _, shift_factor = next(supply)
            for key, factor in (("gamma", scale_factor), ("beta", shift_factor),
                                ("mean", _quotient(shift_factor, scale_factor))):
                replace(layer.source[key], rescaled_original(layer.source[key], factor))
    return out


def _quotient(numerator: Factors, denominator: Factors) -> Factors:
    """Entry by entry, the factor of ``numerator`` over that of ``denominator``."""
    table, codes = _unit_factors([numerator.table[a] / denominator.table[b]
                                  for a, b in zip(numerator.codes.ravel().tolist(), denominator.codes.ravel().tolist())])
    return Factors(tuple(table), codes.reshape(numerator.codes.shape))
