"""The discrete symmetries ``discover_symmetries`` searches: relabellings of a hidden layer's units
or channels, of its maxout groups and of the pieces inside one, and sign flips.

A hidden layer is a producer (``Dense``, ``Conv1d`` or ``Conv2d``), the layers between that act on
each channel alone (activations, 1-d and 2-d pooling, ``Flatten``; at most one ``Maxout``), and a
consumer (``Dense``, ``Conv1d`` or ``Conv2d``) at the top level of the model (a maxout reading the
producer's channels: none after a ``Flatten`` that spread them over positions).  Relabelling the
producer's units (for a convolution, its output channels) by a permutation π and the consumer's
inputs alike leaves f unchanged, since every layer between commutes with a permutation of channels.
A sign flip of unit (channel) 1 negates its incoming weights and bias; it is a symmetry when the
layers between are odd (tanh, no activation, average pooling: the outgoing weights are negated too)
or become even (|·|: the outgoing weights stay).  The transposition (1 2), the cycle (1 2 … h) and
the flip of unit 1 generate (ℤ₂)^h ⋊ S_h (S_h without flips).

A maxout of p pieces takes the producer's h = g·p units in g groups of p consecutive ones.  A
permutation of the groups moves each group's p units together and the consumer's inputs by groups;
a permutation of the pieces inside one group moves the producer's units only (a max is symmetric in
its arguments), the consumer untouched.  The transposition and the cycle of the groups and of the
pieces of group 1 generate the wreath product (S_p)^g ⋊ S_g; no sign flip passes a max.
``discover_symmetries`` proves each generator.

The list is not claimed complete: a discrete symmetry of another form (one mixing layers, a flip
through a max, a relabelling of a convolution's positions, a positive rescaling outside the
identity component) is not searched, so none is excluded.
"""
from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from symbolic.networks.grid_layers import AvgPool2d, Conv2d, Flatten, MaxPool2d
from symbolic.networks.model import Abs as AbsLayer, Activation, AvgPool1d, Conv1d, Dense, LeakyReLU, Layer, \
    Maxout, MaxPool1d, Model, Tanh, values_in
from symbolic.networks.maps import Symmetry

PRODUCERS = (Dense, Conv1d, Conv2d)
CHANNEL_WISE = (Activation, MaxPool1d, MaxPool2d, AvgPool1d, AvgPool2d, Flatten)
COMPLETENESS = ("not claimed complete: per hidden layer, the permutations of its units or channels (with a "
                "maxout, of its groups and of the pieces inside a group) and the sign flip of a unit are "
                "searched; a discrete symmetry of another form (mixing layers, a flip through a max, a "
                "relabelling of positions) is not excluded")


def _flip_parity(layer: Layer, parity: str | None) -> str | None:
    """How a sign flip of the input s ↦ −s comes out of ``layer``: 'odd' (as −output), 'even' (the
    output unchanged) or None (neither), given how it came in."""
    if parity != "odd":
        return parity                      # 'even': nothing changed any more; None stays None
    if isinstance(layer, (AvgPool1d, AvgPool2d, Flatten)):
        return "odd"                       # linear
    if isinstance(layer, Tanh):
        return "odd"
    if isinstance(layer, AbsLayer):
        return "even"
    if isinstance(layer, LeakyReLU) and sp.sympify(layer.slope).is_number:
        return {1: "odd", -1: "even"}.get(sp.sympify(layer.slope))
    return None                            # ReLU, a max: neither


@dataclass
class HiddenLayer:
    first: Layer                    # the producer: its units or output channels are relabelled
    between: tuple                  # channel-wise layers
    second: Layer                   # the consumer: its inputs are relabelled alike
    position: int
    shape: tuple                    # the producer's output shape

    @property
    def units(self) -> int:
        return self.first.units if isinstance(self.first, Dense) else self.first.channels

    @property
    def pieces(self) -> int:
        """The pieces of the maxout between (1 without one): its groups are runs of that many units."""
        return next((layer.pieces for layer in self.between if isinstance(layer, Maxout)), 1)

    @property
    def groups(self) -> int:
        """The channels the consumer reads: the producer's units, or their maxout groups."""
        return self.units // self.pieces

    @property
    def activation(self) -> Activation | None:
        """The one activation between, if that is all there is."""
        if len(self.between) == 1 and isinstance(self.between[0], Activation):
            return self.between[0]
        return None

    @property
    def parity(self) -> str | None:
        """'odd', 'even' or None: what a sign flip of one unit becomes after the layers between."""
        parity = "odd"
        for layer in self.between:
            parity = _flip_parity(layer, parity)
        return parity

    @property
    def name(self) -> str:
        what = "units" if isinstance(self.first, Dense) else "channels"
        between = ", ".join(layer.describe() for layer in self.between)
        return (f"hidden layer {self.first.weight} -> {self.second.weight} "
                f"({self.units} {what}{', ' + between if between else ''})")

    @property
    def structure(self) -> str:
        if self.pieces > 1:
            pieces = f"S_{self.pieces}" if self.groups == 1 else f"(S_{self.pieces})^{self.groups}"
            return f"{pieces} ⋊ S_{self.groups}" if self.groups > 1 else pieces
        h = self.units
        permutations = f"S_{h}" if h > 1 else ""
        if self.parity is None:
            return permutations or "trivial"
        flips = "Z_2" if h == 1 else f"(Z_2)^{h}"
        return f"{flips} ⋊ {permutations}" if permutations else flips

    def consumer_block(self) -> int:
        """How many consecutive inputs of the consumer belong to one channel of the producer."""
        if isinstance(self.second, Dense):
            shape = self.shape
            for layer in self.between:
                shape = layer.output_shape(shape)
            return values_in(shape) // self.groups
        if isinstance(self.second, Conv1d):
            return self.second.kernel
        (kh, kw), _, _ = self.second._sizes()
        return kh * kw


def hidden_layers(model: Model) -> list[HiddenLayer]:
    """Producer, channel-wise layers, consumer, at the top level of the model."""
    found, layers, shape = [], model.layers, model.input_grid
    shapes = []
    for layer in layers:
        shapes.append(shape)
        shape = layer.output_shape(shape)
    for position, layer in enumerate(layers):
        if not isinstance(layer, PRODUCERS):
            continue
        end = position + 1
        while end < len(layers) and isinstance(layers[end], CHANNEL_WISE + (Maxout,)):
            end += 1
        if end < len(layers) and isinstance(layers[end], PRODUCERS) and \
                _maxout_reads_the_channels(layers[position + 1:end], shapes[position + 1:end]):
            found.append(HiddenLayer(layer, tuple(layers[position + 1:end]), layers[end], position,
                                     layer.output_shape(shapes[position])))
    return found


def _maxout_reads_the_channels(between: list, shapes: list) -> bool:
    """No maxout between, or one whose groups are runs of the producer's channels: its input has the
    producer's channels (no flatten before it has spread a channel over several values)."""
    maxouts = [shape for layer, shape in zip(between, shapes) if isinstance(layer, Maxout)]
    return not maxouts or (len(maxouts) == 1 and maxouts[0][0] == shapes[0][0])


def relabelling(model: Model, layer: HiddenLayer, permutation: list, flip: bool, name: str,
                consumer: list | None = None):
    """New unit (channel) j is old unit permutation[j], and the consumer's new input channel j its old
    channel consumer[j] (default: the same permutation, without a maxout); with ``flip``, unit 1
    changes sign (the outgoing weights too when the layers between are odd)."""
    consumer = permutation if consumer is None else consumer
    sign = [-1 if flip and j == 0 else 1 for j in range(layer.units)]
    outgoing = sign if layer.parity == "odd" else [1] * layer.groups
    mapping = {}
    # the producer: a dense layer's unit is a column (of W and b), a convolution's channel a row
    for tensor_name in (layer.first.weight, layer.first.bias):
        if not tensor_name:
            continue
        T = model[tensor_name]
        if isinstance(layer.first, Dense):
            mapping[tensor_name] = sp.Matrix(T.rows, T.cols, lambda i, j, T=T: sign[j] * T[i, permutation[j]])
        else:
            mapping[tensor_name] = sp.Matrix(T.rows, T.cols, lambda i, j, T=T: sign[i] * T[permutation[i], j])
    # the consumer: its inputs come in blocks of one channel each (rows of a dense weight, columns
    # of a convolution's)
    block = layer.consumer_block()
    V = model[layer.second.weight]
    if isinstance(layer.second, Dense):
        mapping[layer.second.weight] = sp.Matrix(V.rows, V.cols, lambda i, j: outgoing[i // block] * V[
            consumer[i // block] * block + i % block, j])
    else:
        mapping[layer.second.weight] = sp.Matrix(V.rows, V.cols, lambda i, j: outgoing[j // block] * V[
            i, consumer[j // block] * block + j % block])
    return Symmetry(model, mapping, name=name)


def discrete_kinds(model: Model, layers: list[HiddenLayer]):
    """(kind, layer name, representative, symmetry) for the generators of each layer's group."""
    for index, layer in enumerate(layers):
        if layer.pieces > 1:
            yield from _maxout_kinds(model, layer, index)
            continue
        h = layer.units
        what = "units" if isinstance(layer.first, Dense) else "channels"
        identity = list(range(h))
        if h >= 2:
            swap = [1, 0] + identity[2:]
            yield "transposition", layer.name, f"{what} (1 2)", relabelling(
                model, layer, swap, False, f"P_{index + 1}")
        if h >= 3:
            cycle = identity[1:] + [0]
            yield "cycle", layer.name, f"{what} (1 2 ... {h})", relabelling(
                model, layer, cycle, False, f"C_{index + 1}")
        if layer.parity is not None:
            moved = "incoming, bias and outgoing" if layer.parity == "odd" else "incoming and bias"
            yield "sign flip", layer.name, f"{what[:-1]} 1 ({layer.parity} activation: {moved})", relabelling(
                model, layer, identity, True, f"F_{index + 1}")


def _maxout_kinds(model: Model, layer: HiddenLayer, index: int):
    """The generators of (S_p)^g ⋊ S_g: the groups swapped and cycled, each group's p units moving
    together and the consumer's inputs by groups; the pieces of group 1 swapped and cycled, the
    consumer untouched."""
    g, p = layer.groups, layer.pieces

    def moving_groups(order: list) -> list:
        return [order[j // p] * p + j % p for j in range(g * p)]

    def moving_pieces(order: list) -> list:
        return order + list(range(p, g * p))
    identity = list(range(g))
    if g >= 2:
        swap = [1, 0] + identity[2:]
        yield "transposition", layer.name, f"maxout groups (1 2), {p} pieces each", relabelling(
            model, layer, moving_groups(swap), False, f"P_{index + 1}", consumer=swap)
    if g >= 3:
        cycle = identity[1:] + [0]
        yield "cycle", layer.name, f"maxout groups (1 2 ... {g})", relabelling(
            model, layer, moving_groups(cycle), False, f"C_{index + 1}", consumer=cycle)
    pieces = list(range(p))
    yield "transposition", layer.name, "pieces (1 2) of maxout group 1", relabelling(
        model, layer, moving_pieces([1, 0] + pieces[2:]), False, f"Q_{index + 1}", consumer=identity)
    if p >= 3:
        yield "cycle", layer.name, f"pieces (1 2 ... {p}) of maxout group 1", relabelling(
            model, layer, moving_pieces(pieces[1:] + [0]), False, f"R_{index + 1}", consumer=identity)
