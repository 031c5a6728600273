"""The architecture of an exported ONNX model as a symmetry ``Model``.

The graph is read by the ONNX import (``symbolic.trained.onnx_import``, the one reader of ONNX graphs);
its layer list is mapped here, layer by layer, to the layers of ``symbolic.networks``, each parameter
tensor a name of its own (W1, b1, W2, ... in the order of the graph; gamma, beta for a batch
normalisation).  The trained values are not used: a symmetry is one of the architecture.

    Dense (Gemm, MatMul + Add)          dense, units = the output width
    Conv (2-d, one group, dilation 1)   conv2d, its kernel, stride and symmetric zero padding
    Diagonal (BatchNormalization)       batchnorm, its scale and shift
    ReLU, LeakyReLU                     relu, leaky_relu with the slope stored (a float32, exactly)
    MaxPool, AveragePool (no padding)   maxpool2d, avgpool2d; GlobalAveragePool a window of the image
    Flatten, Reshape to a vector        flatten (left out when the signal is already a vector)
    Sum of a skip connection            residual, its block the chain of layers the skip jumps over
    Standardize at the input            left out when every scale is non-zero (an invertible affine map
                                        of the inputs: the symmetries of the parameters are the same)
Anything else (a Transpose of the data, a grouped or dilated convolution, a padded pool, a branch
that is not a skip connection) raises ``UnsupportedArchitecture``, one line naming the ONNX node.

``Architecture.theta_exponents`` carries a discovered generator (an exponent per parameter of the
symmetry model) back onto θ of the network read, entry by entry, for ``rescale --group discovered``.

``every_width_spec`` writes the model as a spec with its widths as names and the rescaling of each
hidden unit as the map, when its layers are in what the every-size proof covers (dense layers with
ReLU or leaky ReLU after the hidden ones, one output); otherwise it says which layer is not.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
import sympy as sp

from symbolic.errors import CheckerError
from symbolic.networks import grid_layers, model as layers_module, normalization
from symbolic.networks.model import Model, ModelError
from symbolic.trained import network as trained
from symbolic.trained.onnx_import import _Reader, _name, _producers, network_shapes


class UnsupportedArchitecture(CheckerError, ValueError):
    """An ONNX graph whose layers have no symmetry layer here: one line naming the node."""


@dataclass
class Architecture:
    model: Model
    nodes: list                       # (the ONNX node's description, the layer read, the symmetry layer it became)
    notes: list = field(default_factory=list)
    network: trained.TrainedNetwork | None = None     # the import's network the layers were read from

    def theta_exponents(self, exponents: list) -> np.ndarray:
        """A generator's exponents, one per parameter of ``model``, as one integer per entry of θ of
        ``network`` (its parameter tensors in order, each flattened): the entry each symbol stands for
        found by sending θ's positions through the same layouts as the trained values."""
        index = {symbol: k for k, symbol in enumerate(self.model.parameters)}
        flat = np.zeros(self.network.parameter_count, dtype=np.int64)
        start = 0
        for layer in self.network.layers:
            tensors = trained.layer_parameters(layer)
            if not tensors:
                continue
            # each parameter tensor replaced by its entries' positions in θ
            positions = []
            for tensor in tensors:
                positions.append(np.arange(start, start + tensor.size).reshape(tensor.shape))
                start += tensor.size
            node = next(converted for _, read, converted in self.nodes if read is layer)
            for name, places in _tensors(_with_tensors(layer, positions), node).items():
                symbols = list(self.model[name])
                flat[places.reshape(-1)] = [exponents[index[s]] for s in symbols]
        return flat

    def trained_values(self) -> dict:
        """The trained parameters as the model's tensors, exact rationals (each float's own value), in
        the model's layouts: a dense weight (inputs, units), a convolution's (channels, inputs·kh·kw)."""
        values = {}
        for _, read, layer in self.nodes:
            for name, array in _tensors(read, layer).items():
                rows, columns = self.model[name].shape
                values[name] = sp.Matrix(rows, columns, [sp.Rational(float(v)) for v in array.reshape(-1)])
        return values


def _with_tensors(read, tensors: list):
    """The layer read with its parameter tensors replaced, in the order of ``layer_parameters``."""
    if isinstance(read, trained.Diagonal):
        return replace(read, scale=tensors[0], shift=tensors[1])
    return replace(read, weight=tensors[0], bias=tensors[1] if read.bias is not None else None)


def _tensors(read, layer) -> dict:
    """A layer's trained arrays by the symmetry layer's tensor names, in that layer's layout."""
    if isinstance(read, trained.Dense):
        arrays = {layer.weight: read.weight.T, layer.bias: read.bias}
    elif isinstance(read, trained.Conv):
        arrays = {layer.weight: read.weight.reshape(read.weight.shape[0], -1), layer.bias: read.bias}
    elif isinstance(read, trained.Diagonal):
        arrays = {layer.scale: read.scale, layer.shift: read.shift}
    else:
        arrays = {}
    return {name: array for name, array in arrays.items() if name}


def read_architecture(onnx_model, output: str | None = None) -> Architecture:
    """The symmetry ``Model`` of an ONNX model already checked by ``load_model``, up to the output named
    (or the one the loss needs)."""
    reader = _Reader(onnx_model, output)
    network = reader.read()
    described = _node_descriptions(onnx_model, reader.value)
    shapes = network_shapes(network)
    wiring = network.wiring()
    readers: dict = {}
    for k, sources in enumerate(wiring):
        for source in set(sources):
            readers.setdefault(source, []).append(k)
    layers, nodes, notes = [], [], []
    start = {0: 0}                    # value index -> how many symmetry layers come before it
    counts = {"dense": 0, "norm": 0}
    for k, (layer, sources) in enumerate(zip(network.layers, wiring)):
        node = described.get(k + 1, f"layer {k + 1}")
        if isinstance(layer, trained.Sum):
            layers[start[min(sources)]:] = [_residual(layers[start[min(sources)]:], sources, k, readers, node)]
        elif sources != (k,):
            raise UnsupportedArchitecture(f"{node}: it reads an earlier value than the previous layer's; only a skip "
                                          "connection (an Add closing a block) is read as a branch")
        elif isinstance(layer, trained.Standardize):
            if any(value == 0 for value in layer.scale.reshape(-1)):
                raise UnsupportedArchitecture(f"{node}: a normalisation of the input by 0 is not invertible")
            notes.append(f"{node}: the normalisation of the input is left out (an invertible affine map of the "
                         "inputs leaves the symmetries of the parameters unchanged)")
        elif isinstance(layer, trained.Flatten) and len(shapes[k]) == 1:
            pass                      # a vector flattened is the same vector
        else:
            converted = _layer(layer, node, counts)
            layers.append(converted)
            nodes.append((node, layer, converted))
        start[k + 1] = len(layers)
    if not layers:
        raise UnsupportedArchitecture("the graph has no layer with parameters on the way to its output")
    try:
        model = Model(shapes[0][0] if len(shapes[0]) == 1 else shapes[0], layers)
    except ModelError as error:
        raise UnsupportedArchitecture(f"the layers read do not fit together: {error}") from None
    if network.reading.get("ending"):
        notes.append(f"the trailing {network.reading['ending']} is read as part of the loss: the symmetries of the "
                     "logits before it are found")
    return Architecture(model, nodes, notes, network)


def _node_descriptions(onnx_model, values: dict) -> dict:
    """Value index -> the ONNX node that made it ('Gemm node /fc1/Gemm'): the first name given to it."""
    producers, described = _producers(onnx_model.graph), {}
    for tensor, index in values.items():
        if index and index not in described and tensor in producers:
            described[index] = _name(producers[tensor])
    return described


def _residual(block: list, sources: tuple, k: int, readers: dict, node: str):
    """The Sum of layer k as x + block(x): the skip's value x is read by the block's first layer and the
    Sum only, and nothing after the Sum reads a value inside the block (a skip connection inside it is
    already a residual of the block)."""
    skip, last = min(sources), max(sources)
    is_block = (last == k and skip < last and readers.get(skip) == [skip, k]
                and all(reader <= k for v in range(skip + 1, last + 1) for reader in readers.get(v, [])))
    if not is_block or not block:
        raise UnsupportedArchitecture(f"{node}: an Add of two branches that is not a skip connection around a chain "
                                      "of layers")
    return layers_module.Residual(*block)


def _layer(layer, node: str, counts: dict):
    """The symmetry layer of one layer of the import, its tensors named in the order of the graph."""
    if isinstance(layer, trained.Dense):
        counts["dense"] += 1
        n = counts["dense"]
        return layers_module.Dense(layer.weight.shape[0], f"W{n}", f"b{n}" if layer.bias is not None else None)
    if isinstance(layer, trained.Conv):
        if layer.groups != 1 or tuple(layer.dilations) != (1, 1):
            raise UnsupportedArchitecture(f"{node}: a grouped or dilated convolution is outside the symmetry layers "
                                          "(conv2d: one group, dilation 1)")
        top, left, bottom, right = layer.pads
        if (top, left) != (bottom, right):
            raise UnsupportedArchitecture(f"{node}: padding {tuple(layer.pads)} is not the same on both sides "
                                          "(conv2d pads symmetrically)")
        counts["dense"] += 1
        n = counts["dense"]
        return grid_layers.Conv2d(layer.weight.shape[0], tuple(layer.weight.shape[2:]), f"W{n}",
                                  f"b{n}" if layer.bias is not None else None, tuple(layer.strides), (top, left))
    if isinstance(layer, trained.Diagonal):
        counts["norm"] += 1
        n = counts["norm"]
        return normalization.BatchNorm(f"gamma{n}", f"beta{n}")
    if isinstance(layer, trained.ReLU):
        return layers_module.ReLU()
    if isinstance(layer, trained.LeakyReLU):
        return layers_module.LeakyReLU(sp.Rational(layer.slope))      # the float's exact value
    if isinstance(layer, (trained.MaxPool, trained.AveragePool)):
        if any(layer.pads):
            raise UnsupportedArchitecture(f"{node}: a padded pool is outside the symmetry layers (maxpool2d and "
                                          "avgpool2d take windows inside the image)")
        pool = grid_layers.MaxPool2d if isinstance(layer, trained.MaxPool) else grid_layers.AvgPool2d
        return pool(tuple(layer.kernel), tuple(layer.strides))
    if isinstance(layer, trained.Flatten):
        return grid_layers.Flatten()
    raise UnsupportedArchitecture(f"{node}: a {type(layer).__name__} of the data is outside the symmetry layers")


# --- for every width ---------------------------------------------------------------------------------

EVERY_WIDTH_LAYERS = (layers_module.Dense, layers_module.ReLU, layers_module.LeakyReLU)


def every_width_spec(architecture: Architecture) -> tuple[dict | None, str]:
    """The spec of the model with every width a name (d, h1, h2, ...; the output 1) and, as its map, the
    rescaling of each hidden unit (W_k ↦ g_k,j W_k / g_{k-1},i), with what it says; or None and the
    reason, naming the first layer outside what the every-size proof covers."""
    model, nodes = architecture.model, {id(layer): node for node, _, layer in architecture.nodes}
    covered = "dense layers with or without a bias, relu or leaky_relu after each hidden one"
    for position, layer in enumerate(model.layers, start=1):
        if not isinstance(layer, EVERY_WIDTH_LAYERS):
            where = nodes.get(id(layer), "a skip connection" if isinstance(layer, layers_module.Residual) else "")
            return None, (f"layer {position} ({layer.describe()}{', ' + where if where else ''}) is outside what the "
                          f"every-width proof covers ({covered}): the group is proved at the model's own widths only")
    dense = [layer for layer in model.layers if isinstance(layer, layers_module.Dense)]
    outputs = dense[-1].units
    if not isinstance(model.layers[0], layers_module.Dense) or isinstance(model.layers[-1], layers_module.Activation):
        return None, f"the network does not begin and end with a dense layer ({covered})"
    spec_layers, mapping, hidden = [], {}, 0
    for layer in model.layers:
        if isinstance(layer, layers_module.Dense):
            last = layer is dense[-1]
            # the output width a name too when there are several (k)
            units = (1 if outputs == 1 else "k") if last else f"h{hidden + 1}"
            spec_layers.append({"type": "dense", "units": units, "weight": layer.weight,
                                **({"bias": layer.bias} if layer.bias else {})})
            into = "" if hidden == 0 else f" / g{hidden}_i"
            if not last:
                hidden += 1
                mapping[layer.weight] = f"g{hidden}_j * {layer.weight}{into}"
                if layer.bias:
                    mapping[layer.bias] = f"g{hidden}_j * {layer.bias}"
            elif into:
                mapping[layer.weight] = f"{layer.weight}{into}"
        elif isinstance(layer, layers_module.LeakyReLU):
            spec_layers.append({"type": "leaky_relu", "slope": str(layer.slope)})
        else:
            spec_layers.append({"type": "relu"})
    if hidden == 0:
        return None, "the network has no hidden layer: no rescaling of hidden units to prove for every width"
    spec = {"inputs": "d", "layers": spec_layers, "group": {"positive": [f"g{k}" for k in range(1, hidden + 1)]},
            "map": mapping}
    if outputs != 1:
        # several outputs: the loss the every-width proof carries for them (no loss of all K outputs at
        # once): the cross-entropy of the logits a trailing softmax ends in, else the MSE
        ending = architecture.network.reading.get("ending") if architecture.network else None
        spec["loss"] = "cross_entropy" if ending in ("Softmax", "LogSoftmax") else "mse"
    widths = f"d, h1{', ...' if hidden > 1 else ''}" + ("" if outputs == 1 else ", k")
    return spec, (f"the rescaling of each unit of the {hidden} hidden layer{'s' if hidden > 1 else ''} "
                  f"(W_k -> g_k,j W_k / g_k-1,i), for every width ({widths}) and every N"
                  + ("" if outputs == 1 else f", with the {spec['loss']} loss of the k outputs"))


def every_width_spec_of(network: trained.TrainedNetwork) -> tuple[dict | None, str]:
    """``every_width_spec`` of a network read by the import, without making its parameters symbols (a whole
    trained model: the spec's widths are names, so only the layers' kinds, slopes and output count matter)."""
    layers, counts = [], {"dense": 0}
    for layer in network.layers:
        if isinstance(layer, trained.Dense):
            counts["dense"] += 1
            n = counts["dense"]
            layers.append(layers_module.Dense(layer.weight.shape[0], f"W{n}", f"b{n}" if layer.bias is not None else None))
        elif isinstance(layer, trained.ReLU):
            layers.append(layers_module.ReLU())
        elif isinstance(layer, trained.LeakyReLU):
            layers.append(layers_module.LeakyReLU(sp.Rational(layer.slope)))
        elif isinstance(layer, (trained.Flatten, trained.Standardize)) and not layers:
            continue                  # the input flattened or normalised: the same symmetries of the parameters
        else:
            return None, (f"layer {len(layers) + 1} (a {type(layer).__name__}) is outside what the every-width proof "
                          "covers (dense layers with or without a bias, relu or leaky_relu after each hidden one): the "
                          "group is proved at the model's own widths only")

    class _Layers:                    # what every_width_spec reads of an architecture: the layers, the reading
        pass
    shell = _Layers()
    shell.layers = layers
    return every_width_spec(Architecture(shell, [], [], network))
