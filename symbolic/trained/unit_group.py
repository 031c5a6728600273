"""The group of positive unit rescalings a trained network's architecture has, read from its layers.

Every hidden unit (a dense layer's unit, a convolution's channel) may be multiplied by its own c > 0,
its incoming weights and bias times c and its outgoing weights over c, as long as every layer it passes
through commutes with c: a rectifier of any slope, a max or average pool, a batch normalisation, a
constant scale.  A skip connection a + b ties a's units to b's (one c for both); a layer that is not
positively homogeneous (Sigmoid, Tanh, GELU, SiLU, ReLU6, a constant added inside) fixes the units it
reads; the input and the output units are fixed.  The classes left are the generators T_k, one each:
the dimension of the group is their number.  The permutations of units that the layers allow (and,
around an odd activation, sign flips) are discrete symmetries besides; they are described, not
proved, here.

``read_unit_group`` decides the classes and the description the scheme 'unit transport'
(``symbolic.trusted.schemes.unit_transport``) walks; ``generator_exponents`` gives T_k's exponent of c
on every entry of θ, by the scheme's rule (a weight c^(d_j − e_i), a bias c^(d_j), a batch
normalisation's shift c^(d)).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from symbolic.trained.network import (ODD, Activation, AveragePool, Conv, Dense, Diagonal, Flatten, LeakyReLU, MaxPool,
                                      Permute, PReLU, Product, ReLU, Standardize, Sum, TrainedNetwork, View,
                                      layer_parameters, not_homogeneous)
from symbolic.trained.onnx_import import network_shapes
from symbolic.trained.rescaling import _fixed_roots, unit_slots

# the kinds of layer the scheme walks (its own words: symbolic.trusted.schemes.unit_transport), and the
# class of a fixed unit
AFFINE, DIAGONAL, RECTIFIER, MAXIMUM, LINEAR, SUM, RELABEL, OTHER = (
    "affine", "diagonal", "rectifier", "maximum", "linear", "sum", "relabel", "other")
FIXED = -1


@dataclass
class UnitGroup:
    network: TrainedNetwork
    description: tuple                  # one step per layer, as the scheme walks it
    slots: tuple                        # each value's slots
    classes: np.ndarray                 # slot -> class (FIXED: factor 1)
    members: list                       # per class: [(layer index, unit)] of the affine layers' units in it
    blocking: list = field(default_factory=list)    # the layers that are not positively homogeneous (words)
    odd: list = field(default_factory=list)         # those of them that are odd (a sign flip passes)

    @property
    def dimension(self) -> int:
        return len(self.members)

    def tied(self, k: int) -> bool:
        """Whether class k holds units of more than one layer (a skip connection tied them)."""
        return len({layer for layer, _ in self.members[k]}) > 1

    def describe(self, k: int) -> str:
        """Which units class k holds: 'Dense 3 unit 7', or 'channel 2 of Conv 1, Conv 5 (tied by skips)'."""
        by_layer: dict = {}
        for layer, unit in self.members[k]:
            by_layer.setdefault(layer, []).append(unit)
        names = [f"{type(self.network.layers[layer]).__name__} {layer + 1}" for layer in by_layer]
        units = sorted({u for us in by_layer.values() for u in us})
        word = "channel" if isinstance(self.network.layers[next(iter(by_layer))], Conv) else "unit"
        if len(by_layer) == 1:
            return f"{names[0]} {word} {units[0] + 1}" if len(units) == 1 else \
                f"{names[0]} {word}s {', '.join(str(u + 1) for u in units)}"
        return (f"{word} {', '.join(str(u + 1) for u in units)} of {', '.join(names)} "
                f"(tied by {'a skip connection' if len(by_layer) == 2 else 'skip connections'})")

    def hidden_units(self) -> int:
        return sum(layer.weight.shape[0] for layer in self.network.layers if isinstance(layer, (Dense, Conv))) \
            - _output_units(self.network)


def _output_units(network: TrainedNetwork) -> int:
    shape = network_shapes(network)[-1]
    return int(np.prod(shape))


def _step(layer, sources: tuple, shapes: list) -> tuple:
    """The scheme's description of one layer."""
    shape = shapes[sources[0]]
    if isinstance(layer, Dense):
        return (AFFINE, sources, layer.weight.shape[1], layer.weight.shape[0])
    if isinstance(layer, Conv):
        return (AFFINE, sources, layer.weight.shape[1] * layer.groups, layer.weight.shape[0])
    if isinstance(layer, Diagonal):
        return (DIAGONAL, sources)
    if isinstance(layer, (ReLU, LeakyReLU, PReLU)):
        return (RECTIFIER, sources)
    if isinstance(layer, MaxPool):
        return (MAXIMUM, sources)
    if isinstance(layer, AveragePool) or (isinstance(layer, Standardize) and not layer.at_input
                                          and not any(v != 0 for v in layer.shift.ravel())):
        return (LINEAR, sources)
    if isinstance(layer, Sum):
        return (SUM, sources, tuple(shape))
    if isinstance(layer, Flatten):
        return (RELABEL, sources, "flatten", tuple(shape), None)
    if isinstance(layer, View):
        return (RELABEL, sources, "view", tuple(shape), tuple(layer.shape))
    if isinstance(layer, Permute):
        return (RELABEL, sources, "permute", tuple(shape), tuple(layer.axes))
    words = layer.describe() if isinstance(layer, Activation) else \
        "a product of two values" if isinstance(layer, Product) else "a normalisation by constants"
    return (OTHER, sources, words)


def read_unit_group(network: TrainedNetwork) -> UnitGroup:
    """The classes of hidden units one positive factor may rescale, read from the layers (the ties of
    the skip connections, the units fixed by the input, the output and the layers that are not
    positively homogeneous)."""
    units, slots = unit_slots(network)
    shapes = network_shapes(network)
    wiring = network.wiring()
    description = tuple(_step(layer, tuple(sources), shapes) for layer, sources in zip(network.layers, wiring))
    fixed = _fixed_roots(network, units, slots)
    for step, sources, out in zip(description, wiring, slots[1:]):
        if step[0] == OTHER:
            fixed |= {units.root(int(s)) for source in sources for s in np.asarray(slots[source]).ravel().tolist()}
            fixed |= {units.root(int(s)) for s in np.asarray(out).ravel().tolist()}
    numbering: dict = {}
    roots = [units.root(s) for s in range(len(units.parent))]
    classes = np.array([FIXED if r in fixed else numbering.setdefault(r, len(numbering)) for r in roots], dtype=np.int64)
    members: list = [[] for _ in numbering]
    for k, layer in enumerate(network.layers):
        if isinstance(layer, (Dense, Conv)):
            for unit, slot in enumerate(np.asarray(slots[k + 1]).tolist()):
                if classes[slot] != FIXED:
                    members[classes[slot]].append((k, unit))
    blocking = [words for _, words in not_homogeneous(network)]
    odd = [layer.describe() for layer in network.layers if isinstance(layer, Activation) and layer.function in ODD]
    return UnitGroup(network, description, tuple(np.asarray(s) for s in slots), classes, members, blocking, odd)


def generator_exponents(group: UnitGroup, k: int) -> np.ndarray:
    """T_k's exponent of c on every entry of θ: a weight W[j, i] d_j − e_i, a bias d_j, a batch
    normalisation's scale 0 and shift d (d, e: 1 on the units of class k, 0 elsewhere)."""
    network, rows = group.network, []
    for j, (layer, sources) in enumerate(zip(network.layers, network.wiring())):
        if not layer_parameters(layer):
            continue
        read = (group.classes[np.asarray(group.slots[sources[0]])] == k).astype(np.int64)
        if isinstance(layer, Diagonal):
            rows += [np.zeros(layer.scale.size, dtype=np.int64), read.reshape(-1)]
            continue
        out = (group.classes[np.asarray(group.slots[j + 1])] == k).astype(np.int64)
        count, width = layer.weight.shape[0], layer.weight.shape[1]
        groups = getattr(layer, "groups", 1)
        # the input unit W[j, i] reads: i itself, or in a grouped convolution i of j's group
        reads = (np.arange(count)[:, None] // (count // groups)) * width + np.arange(width)[None, :]
        exponent = out[:, None] - read[reads]
        rows.append(np.broadcast_to(exponent.reshape(exponent.shape + (1,) * (layer.weight.ndim - 2)),
                                    layer.weight.shape).reshape(-1))
        if layer.bias is not None:
            rows.append(out)
    return np.concatenate(rows)
