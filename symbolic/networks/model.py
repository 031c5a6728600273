"""A network described by its layers: the prediction as a sympy expression in named parameters.

A signal is a list of channels, each a list of positions: a plain vector of width d is d channels
of length 1, a 1-D signal with C channels and L positions is C lists of L values.  Layers:

- ``Dense(units, weight, bias=None)``: flattens its input (channel by channel) into a row x and
  returns x·W (+ b); W has shape (inputs, units), b shape (1, units).
- ``Conv1d(channels, kernel, weight, bias=None)``: out[o][t] = Σ_c Σ_τ K[o, c·kernel + τ]·in[c][t + τ]
  (+ b[o]), no padding, stride 1; K has shape (channels, in_channels·kernel), b shape (channels, 1).
- ``ReLU()``, ``LeakyReLU(slope)``, ``Abs()``, ``Tanh()``: applied to every value.
- ``Maxout(pieces)``: the maximum over groups of ``pieces`` consecutive channels.
- ``MaxPool1d(size)``, ``AvgPool1d(size)``: over windows of ``size`` positions, without overlap.
- ``Residual(*layers)``: x + block(x); the block must keep the shape.

``Model(inputs, layers)`` names one real symbol per parameter entry (``W1_{i,j}``, ``b1_{j}``) and
per input value.  The last layer's values, channel by channel, are the K outputs (``model.outputs``;
``Dense(K, ...)`` last gives K); ``model.predictions()`` is the vector f_θ(x) = (f_1, …, f_K) with
the real activations, and ``model.prediction()`` its one entry when K = 1.  The same forward
pass runs on any ring elements through a ``Nonlinearity`` object: the real functions here, the
activation-pattern form in ``symbolic.symmetries.symmetry``.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import sympy as sp

from symbolic.networks.network import validate_sizes
from symbolic.relu import ReLU as relu_function, leaky_relu
from symbolic.errors import CheckerError
from symbolic.logic.statements import FrozenMap


class ModelError(CheckerError, ValueError):
    """A layer list that does not describe a network (shapes, names, sizes)."""


# --- the nonlinear pieces, and how the forward pass asks for them --------------------------------

class Nonlinearity:
    """What a forward pass does at each nonlinear site: ``unit`` for an activation applied to one
    value, ``maximum`` for a max over candidates.  ``site`` names the place in the network (layer
    path, channel, position); the real forward pass ignores it, the pattern form does not."""

    def unit(self, layer, site, s):
        raise NotImplementedError

    def maximum(self, layer, site, candidates):
        raise NotImplementedError

    def power(self, layer, site, value, exponent):
        """value ** exponent for a normalisation (exponent −1/2: one over a standard deviation)."""
        raise NotImplementedError(f"no power for {layer.describe()} here")

    def softmax(self, layer, site, scores):
        """exp(s_i) / Σ_j exp(s_j) for an attention head's scores."""
        raise NotImplementedError(f"no softmax for {layer.describe()} here")

    def constant(self, value):
        return value


class RealFunctions(Nonlinearity):
    """The network as it is: ReLU, leaky ReLU, |·|, tanh; max in ReLU form (max(a, b) =
    b + ReLU(a − b)), so that positive factors come out of it the way they come out of ReLU."""

    def unit(self, layer, site, s):
        return layer.real(s)

    def maximum(self, layer, site, candidates):
        # a balanced tree of pairs in the network's order of the candidates (sympy's Max would sort
        # them by their printed form, so that f_θ and f_{Tθ} could pair them differently)
        values = list(candidates)
        while len(values) > 1:
            paired = [b + relu_function(a - b) for a, b in zip(values[::2], values[1::2])]
            values = paired + ([values[-1]] if len(values) % 2 else [])
        return values[0]

    def power(self, layer, site, value, exponent):
        # the base with its common factor pulled out, so that sqrt(c²·X) is c·sqrt(X) for c > 0
        # (sympy's own rule for a positive factor of a product): an identity
        return sp.Pow(sp.factor_terms(sp.expand(value)), exponent)

    def softmax(self, layer, site, scores):
        # each score expanded, so that scores equal as polynomials are one exponential (an identity;
        # no cancelling of a denominator, which could define the claim where it is not)
        exponentials = [sp.exp(sp.expand(s)) for s in scores]
        total = sp.Add(*exponentials)
        return [e / total for e in exponentials]


# --- layers -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Layer:
    """A layer maps a signal of shape (channels, length) to another; most have no parameters."""

    def output_shape(self, shape):
        return shape

    def parameter_shapes(self, shape) -> dict:
        return {}

    batch = False       # True when the output at one example depends on the others of the batch
    saturates = False   # True for a softmax: random points of moderate size saturate it

    def forward(self, signal, params, nonlinearity, path, shape=None):
        """The output signal; ``shape`` is the input's shape (a 2-D layer reads its height and
        width there, the signal holding each channel's positions row by row)."""
        raise NotImplementedError

    def forward_batch(self, signals, params, nonlinearity, path, shape=None):
        """The output signals of a batch of examples: each on its own, unless the layer mixes them."""
        return [self.forward(signal, params, nonlinearity, path, shape) for signal in signals]

    def describe(self) -> str:
        return type(self).__name__


@dataclass(frozen=True)
class Dense(Layer):
    """x ↦ x·W + b.  The weight is (inputs, units): entry (i, j) joins input i to unit j, so a
    scaling per unit multiplies column j (``c_j`` in a map)."""

    units: int
    weight: str
    bias: str | None = None

    def output_shape(self, shape):
        return (self.units, 1)

    def parameter_shapes(self, shape):
        shapes = {self.weight: (values_in(shape), self.units)}
        if self.bias:
            shapes[self.bias] = (1, self.units)
        return shapes

    def forward(self, signal, params, nonlinearity, path, shape=None):
        x = [value for channel in signal for value in channel]
        W = params[self.weight]
        out = []
        for j in range(self.units):
            s = sum((x[i] * W[i][j] for i in range(len(x))), 0)
            if self.bias:
                s = s + params[self.bias][0][j]
            out.append([s])
        return out

    def describe(self):
        return f"Dense({self.units}, {self.weight}" + (f", bias {self.bias})" if self.bias else ")")


@dataclass(frozen=True)
class Conv1d(Layer):
    """A valid 1-d convolution.  The weight is (channels, input channels × kernel), the other way
    round from Dense: row i holds output channel i's kernel, so a scaling per output channel
    multiplies row i (``c_i`` in a map, not ``c_j``)."""

    channels: int
    kernel: int
    weight: str
    bias: str | None = None

    def output_shape(self, shape):
        one_dimensional(self, shape)
        if shape[1] < self.kernel:
            raise ModelError(f"Conv1d kernel {self.kernel} is longer than its input ({shape[1]} positions)")
        return (self.channels, shape[1] - self.kernel + 1)

    def parameter_shapes(self, shape):
        shapes = {self.weight: (self.channels, shape[0] * self.kernel)}
        if self.bias:
            shapes[self.bias] = (self.channels, 1)
        return shapes

    def forward(self, signal, params, nonlinearity, path, shape=None):
        K = params[self.weight]
        length = len(signal[0]) - self.kernel + 1
        out = []
        for o in range(self.channels):
            row = []
            for t in range(length):
                s = sum((K[o][c * self.kernel + tau] * signal[c][t + tau]
                         for c in range(len(signal)) for tau in range(self.kernel)), 0)
                if self.bias:
                    s = s + params[self.bias][o][0]
                row.append(s)
            out.append(row)
        return out

    def describe(self):
        return (f"Conv1d({self.channels} channels, kernel {self.kernel}, {self.weight}"
                + (f", bias {self.bias})" if self.bias else ")"))


@dataclass(frozen=True)
class Activation(Layer):
    """An activation applied to every value of the signal."""

    def real(self, s):
        raise NotImplementedError

    def forward(self, signal, params, nonlinearity, path, shape=None):
        return [[nonlinearity.unit(self, (path, c, t), s) for t, s in enumerate(channel)]
                for c, channel in enumerate(signal)]


@dataclass(frozen=True)
class ReLU(Activation):
    def real(self, s):
        return relu_function(s)


@dataclass(frozen=True)
class LeakyReLU(Activation):
    slope: object = sp.Rational(1, 100)

    def real(self, s):
        return leaky_relu(s, sp.sympify(self.slope))

    def describe(self):
        return f"LeakyReLU({self.slope})"


@dataclass(frozen=True)
class Abs(Activation):
    def real(self, s):
        return relu_function(s) + relu_function(-s)


@dataclass(frozen=True)
class Tanh(Activation):
    def real(self, s):
        return sp.tanh(s)


@dataclass(frozen=True)
class Maxout(Layer):
    pieces: int

    def output_shape(self, shape):
        if shape[0] % self.pieces:
            raise ModelError(f"Maxout({self.pieces}) needs a multiple of {self.pieces} channels, "
                             f"got {shape[0]}")
        return (shape[0] // self.pieces, *shape[1:])

    def forward(self, signal, params, nonlinearity, path, shape=None):
        groups = range(len(signal) // self.pieces)
        return [[nonlinearity.maximum(self, (path, g, t), [signal[g * self.pieces + m][t]
                                                          for m in range(self.pieces)])
                 for t in range(len(signal[0]))] for g in groups]

    def describe(self):
        return f"Maxout({self.pieces})"


@dataclass(frozen=True)
class MaxPool1d(Layer):
    size: int

    def output_shape(self, shape):
        one_dimensional(self, shape)
        if shape[1] < self.size:
            raise ModelError(f"MaxPool1d({self.size}) is wider than its input ({shape[1]} positions)")
        return (shape[0], shape[1] // self.size)

    def forward(self, signal, params, nonlinearity, path, shape=None):
        return [[nonlinearity.maximum(self, (path, c, t), channel[t * self.size:(t + 1) * self.size])
                 for t in range(len(channel) // self.size)] for c, channel in enumerate(signal)]

    def describe(self):
        return f"MaxPool1d({self.size})"


@dataclass(frozen=True)
class AvgPool1d(Layer):
    size: int

    def output_shape(self, shape):
        one_dimensional(self, shape)
        if shape[1] < self.size:
            raise ModelError(f"AvgPool1d({self.size}) is wider than its input ({shape[1]} positions)")
        return (shape[0], shape[1] // self.size)

    def forward(self, signal, params, nonlinearity, path, shape=None):
        weight = nonlinearity.constant(sp.Rational(1, self.size))
        return [[weight * sum(channel[t * self.size:(t + 1) * self.size], 0)
                 for t in range(len(channel) // self.size)] for channel in signal]

    def describe(self):
        return f"AvgPool1d({self.size})"


class Residual(Layer):
    """x + block(x), the block a list of layers that keeps the shape."""

    def __init__(self, *layers: Layer):
        object.__setattr__(self, "layers", tuple(layers))

    def __eq__(self, other):
        return isinstance(other, Residual) and self.layers == other.layers

    def __hash__(self):
        return hash(self.layers)

    def output_shape(self, shape):
        inner = shape
        for layer in self.layers:
            inner = layer.output_shape(inner)
        if inner != shape:
            raise ModelError(f"a residual block must keep the shape {shape}, its layers give {inner}")
        return shape

    def parameter_shapes(self, shape):
        shapes = {}
        for layer in self.layers:
            _merge(shapes, layer.parameter_shapes(shape))
            shape = layer.output_shape(shape)
        return shapes

    def forward(self, signal, params, nonlinearity, path, shape=None):
        inner, inner_shape = signal, shape
        for k, layer in enumerate(self.layers):
            inner = layer.forward(inner, params, nonlinearity, path + (k,), inner_shape)
            inner_shape = None if shape is None else layer.output_shape(inner_shape)
        return [[a + b for a, b in zip(skip, branch)] for skip, branch in zip(signal, inner)]

    @property
    def batch(self):
        return any(layer.batch for layer in self.layers)

    def forward_batch(self, signals, params, nonlinearity, path, shape=None):
        inner, inner_shape = signals, shape
        for k, layer in enumerate(self.layers):
            inner = layer.forward_batch(inner, params, nonlinearity, path + (k,), inner_shape)
            inner_shape = None if shape is None else layer.output_shape(inner_shape)
        return [[[a + b for a, b in zip(skip, branch)] for skip, branch in zip(signal, result)]
                for signal, result in zip(signals, inner)]

    def describe(self):
        return "Residual(" + ", ".join(layer.describe() for layer in self.layers) + ")"


def values_in(shape) -> int:
    """The number of values of a signal of this shape: channels × positions."""
    count = 1
    for size in shape:
        count *= size
    return count


def one_dimensional(layer: Layer, shape) -> None:
    """A 1-d layer reads (channels, length); a 2-d signal needs a 2-d layer or ``Flatten``."""
    if len(shape) != 2:
        raise ModelError(f"{type(layer).__name__} takes a 1-d signal (channels, length), got the shape "
                         f"{shape}: use its 2-d form or flatten first")


def _merge(shapes: dict, new: dict) -> None:
    for name, shape in new.items():
        if name in shapes:
            raise ModelError(f"parameter name {name!r} is used by two layers")
        shapes[name] = shape


# --- the model ----------------------------------------------------------------------------------

def entry_symbol(name: str, shape: tuple, i: int, j: int, **assumptions) -> sp.Symbol:
    """W_{i,j} for a matrix; b_{j} for a row or a column (indices from 1)."""
    if shape[0] == 1:
        label = f"{j + 1}"
    elif shape[1] == 1:
        label = f"{i + 1}"
    else:
        label = f"{i + 1},{j + 1}"
    return sp.Symbol(f"{name}_{{{label}}}", **(assumptions or {"real": True}))


class Model:
    """``Model(inputs, layers)``: ``inputs`` is the input width d (a vector) or (channels, length)."""

    def __init__(self, inputs, layers):
        shape = (inputs, 1) if isinstance(inputs, int) else tuple(inputs)
        if len(shape) not in (2, 3):
            raise ModelError(f"inputs is a width, (channels, length) or (channels, height, width), "
                             f"got {inputs!r}")
        try:
            validate_sizes(**dict(zip(("channels", "length") if len(shape) == 2 else
                                      ("channels", "height", "width"), shape)))
        except ValueError as error:
            raise ModelError(str(error)) from None
        layers = tuple(layers)
        if not layers:
            raise ModelError("a model needs at least one layer")
        # the input as given (``input_grid``), and as a signal: channels of positions, an image's
        # positions row by row (``input_shape`` = (channels, positions))
        grid = shape
        shapes: dict = {}
        for position, layer in enumerate(layers, start=1):
            if not isinstance(layer, Layer):
                raise ModelError(f"layer {position} is not a layer: {layer!r}")
            # every complaint about a layer names it: its place in the list and its type
            try:
                _check_layer(layer)
                _merge(shapes, layer.parameter_shapes(shape))
                shape = layer.output_shape(shape)
            except ModelError as error:
                raise ModelError(f"layer {position} ({type(layer).__name__}): {error}") from None
        # a leaky slope written as a name is a constant of the layer, never a parameter: a map T
        # would move the parameter and not the slope, and f_(T theta) would not be f at T theta
        for position, slope in _slopes(layers):
            # read off the name (name_{i,j}), never by listing the parameters: a size may be too large
            if slope.is_Symbol and slope.name.endswith("}") and slope.name.split("_{")[0] in shapes:
                raise ModelError(f"layer {position} (LeakyReLU): the slope {slope} is named like a parameter "
                                 "of the model; a slope is a constant: name it apart")
        # the prediction is the last signal, flattened channel by channel: K values; the model is
        # immutable from here on (a theorem about it keeps the very network it was checked on)
        for name, value in (("input_grid", grid), ("input_shape", (grid[0], values_in(grid[1:]))),
                            ("layers", layers), ("shapes", FrozenMap(shapes)), ("output_shape", shape),
                            ("outputs", values_in(shape))):
            object.__setattr__(self, name, value)

    def __setattr__(self, name, value):
        raise AttributeError(f"a model cannot be changed once built (its {name!r} included)")

    __delattr__ = __setattr__

    def __repr__(self):
        return (f"Model(inputs={self.input_grid}, layers=["
                + ", ".join(layer.describe() for layer in self.layers) + "])")

    @cached_property
    def tensors(self) -> dict[str, sp.Matrix]:
        """Each named parameter as an immutable sympy Matrix of real symbols."""
        return FrozenMap({name: sp.ImmutableMatrix(*shape, lambda i, j, name=name, shape=shape:
                                                   entry_symbol(name, shape, i, j))
                          for name, shape in self.shapes.items()})

    def __getitem__(self, name: str) -> sp.Matrix:
        return self.tensors[name]

    @property
    def parameters(self) -> list[sp.Symbol]:
        """θ flattened: the tensors in the order of the layers, each row by row."""
        return [s for tensor in self.tensors.values() for s in tensor]

    def input(self, n: int | None = None) -> list[list[sp.Symbol]]:
        """The symbolic input (x_{i} or x_{c,t}; with n, the n-th data point x_{n,i})."""
        channels, length = self.input_shape
        width = self.input_grid[2] if len(self.input_grid) == 3 else None

        def name(c, t):
            # x_{c,i,j} for an image (row i, column j), x_{c,t} for a 1-d signal, x_{c} for a vector
            index = [c + 1] if length == 1 and width is None else \
                [c + 1, t + 1] if width is None else [c + 1, t // width + 1, t % width + 1]
            index = ([n] if n is not None else []) + index
            return sp.Symbol("x_{" + ",".join(map(str, index)) + "}", real=True)
        return [[name(c, t) for t in range(length)] for c in range(channels)]

    def forward_outputs(self, signal, params: dict, nonlinearity: Nonlinearity) -> list:
        """The K output values for an input signal, parameters given as nested lists per name."""
        shape = self.input_grid
        for k, layer in enumerate(self.layers):
            signal = layer.forward(signal, params, nonlinearity, (k,), shape)
            shape = layer.output_shape(shape)
        return [value for channel in signal for value in channel]

    @property
    def batch_dependent(self) -> bool:
        """A layer normalises over the batch: f at x_n depends on the other examples."""
        return any(layer.batch for layer in self.layers)

    def forward_batch_outputs(self, signals: list, params: dict, nonlinearity: Nonlinearity) -> list:
        """The K output values of each example of a batch (the same as ``forward_outputs`` example
        by example unless a layer normalises over the batch)."""
        shape = self.input_grid
        for k, layer in enumerate(self.layers):
            signals = layer.forward_batch(signals, params, nonlinearity, (k,), shape)
            shape = layer.output_shape(shape)
        return [[value for channel in signal for value in channel] for signal in signals]

    def batch_predictions(self, inputs: list, values: dict | None = None) -> list[list[sp.Expr]]:
        """[(f_1, …, f_K)(x_n)] for the batch ``inputs`` with the real activations."""
        tensors = {**self.tensors, **(values or {})}
        params = {name: tensor.tolist() for name, tensor in tensors.items()}
        return self.forward_batch_outputs(inputs, params, RealFunctions())

    def forward(self, signal, params: dict, nonlinearity: Nonlinearity):
        """The output value of a model with one output (``forward_outputs`` for K > 1)."""
        return self._only(self.forward_outputs(signal, params, nonlinearity))

    def predictions(self, x=None, values: dict | None = None) -> list[sp.Expr]:
        """(f_1, …, f_K)(x) with the real activations; ``values`` replaces tensors by matrices
        (e.g. Tθ)."""
        x = self.input() if x is None else x
        tensors = {**self.tensors, **(values or {})}
        params = {name: tensor.tolist() for name, tensor in tensors.items()}
        return self.forward_outputs(x, params, RealFunctions())

    def prediction(self, x=None, values: dict | None = None) -> sp.Expr:
        """f_θ(x) of a model with one output (``predictions`` for K > 1)."""
        return self._only(self.predictions(x, values))

    def _only(self, outputs: list):
        # a caller that knows one output only must not silently read the first of several
        if len(outputs) != 1:
            raise ModelError(f"the model has {len(outputs)} outputs; this use of it takes one "
                             "(ask for the vector of outputs)")
        return outputs[0]

    def latex(self) -> str:
        return r" \to ".join(r"\text{%s}" % layer.describe().replace("_", r"\_") for layer in self.layers)


def _slopes(layers, position=None):
    """(the place in the list, the slope) of every leaky ReLU, inside residual blocks too."""
    for index, layer in enumerate(layers, start=1):
        if isinstance(layer, LeakyReLU):
            yield position or index, sp.sympify(layer.slope)
        elif isinstance(layer, Residual):
            yield from _slopes(layer.layers, position or index)


def _check_layer(layer: Layer) -> None:
    """Sizes are positive integers and names are plain identifiers."""
    for field_name in ("units", "channels", "kernel", "pieces", "size", "head", "values"):
        # a pair (a 2-d kernel) is checked by the layer itself; an optional size may be None
        if hasattr(layer, field_name) and not isinstance(getattr(layer, field_name), (tuple, list, type(None))):
            try:
                validate_sizes(**{f"{type(layer).__name__}.{field_name}": getattr(layer, field_name)})
            except ValueError as error:
                raise ModelError(str(error)) from None
    for field_name in ("weight", "bias", "scale", "shift", "query", "key", "value"):
        if not hasattr(layer, field_name):
            continue
        name = getattr(layer, field_name)
        if name is None and field_name in ("bias", "shift"):
            continue
        if not isinstance(name, str) or not name.isidentifier() or name.startswith("x"):
            raise ModelError(f"{type(layer).__name__}.{field_name} must be a name (letters, digits, "
                             f"underscores, not starting with x), got {name!r}")
    if isinstance(layer, LeakyReLU):
        slope = sp.sympify(layer.slope)
        if not (slope.is_real and slope.is_number) and not (slope.is_Symbol and slope.is_real):
            raise ModelError(f"LeakyReLU slope must be a real number or a real symbol, got {slope}")
    if isinstance(layer, Residual):
        for inner in layer.layers:
            _check_layer(inner)
