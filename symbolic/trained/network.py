"""The imported network: layers in the order the data flow through them, each affine layer with
float64 parameters that are dyadic rationals, so that every weight is also an exact number.  Each
layer reads earlier values (value 0 is the input, value k + 1 the output of layer k): a chain reads
the previous value, a residual ``Sum`` reads two.

Affine layers carry the parameters θ (in chain order, each layer's weight then its bias):
    Dense     y = W x + b                       W: (out, in)
    Conv      y = W ⋆ x + b  (NCHW, g groups)   W: (out, in / g, kh, kw)
    Diagonal  y_c = a_c x_c + c_c               an inference-mode BatchNormalization,
                                                a = γ/√(var+ε), c = β − a·mean (rounded to float64)
The others are positively homogeneous and carry none: ReLU, LeakyReLU (slope < 1), MaxPool, AveragePool, Flatten,
Sum (a + b, the skip connection of a residual block), Permute (the axes of each example reordered: the
Transposes a channels-last export writes around its convolutions), PReLU (a fixed slope per channel
or one for all: torch's learned slope read as a constant, never rescaled), View (each example's values
reshaped in their order: a 1-d convolution or pool read as a 2-d one of height 1).  ``Standardize`` is
x ⊙ scale + shift with fixed exact constants (not parameters): the normalisation an exporter writes at
the input, or a constant scale and shift inside the network (GELU's 1/√2, + 1 and ½).

Not positively homogeneous (no positive rescaling of the units around them leaves f unchanged):
Activation (Sigmoid, Tanh, Erf, Clip: ReLU6 is Clip(0, 6)), Product (x ⊙ y of two values: SiLU is
x ⊙ sigmoid(x), GELU x ⊙ ½(1 + erf(x/√2))), and a Standardize with a shift after the input.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class Dense:
    weight: np.ndarray
    bias: np.ndarray | None
    source: dict = field(default_factory=dict)     # ONNX initializer names, for writing the twin


@dataclass
class Conv:
    weight: np.ndarray
    bias: np.ndarray | None
    strides: tuple
    pads: tuple            # (top, left, bottom, right), as ONNX orders them
    dilations: tuple
    source: dict = field(default_factory=dict)
    groups: int = 1        # output channel j reads the input channels of its group only


@dataclass
class Diagonal:
    scale: np.ndarray
    shift: np.ndarray
    source: dict = field(default_factory=dict)


@dataclass(frozen=True)
class ReLU:
    pass


@dataclass(frozen=True)
class LeakyReLU:
    slope: float


@dataclass(frozen=True)
class MaxPool:
    kernel: tuple
    strides: tuple
    pads: tuple            # (top, left, bottom, right)


@dataclass(frozen=True)
class AveragePool:
    """The mean over each window (padding, if any, counted in the divisor); a global average pool
    is one window the size of the image."""
    kernel: tuple
    strides: tuple
    pads: tuple            # (top, left, bottom, right)


@dataclass(frozen=True)
class Flatten:
    pass


@dataclass(frozen=True)
class Sum:
    pass


@dataclass(frozen=True)
class Permute:
    """Each example's axes reordered: output axis k is input axis ``axes[k]`` (the batch stays first)."""
    axes: tuple


@dataclass
class Standardize:
    scale: np.ndarray      # Fractions, broadcast against (1, *input_shape)
    shift: np.ndarray
    at_input: bool = True  # only normalisations before it: left out when counting paths


@dataclass(frozen=True)
class PReLU:
    """x for x > 0, slope · x otherwise; ``slope`` (float64, exact) broadcast against each example."""
    slope: np.ndarray = field(compare=False)


@dataclass(frozen=True)
class View:
    """Each example's values in their order, reshaped to ``shape``."""
    shape: tuple


@dataclass(frozen=True)
class Activation:
    """An elementwise function that is not positively homogeneous: Sigmoid, Tanh, Erf, or Clip to
    [low, high] (ReLU6: Clip(0, 6)); ``node`` names the ONNX node it was read from."""
    function: str
    low: float | None = None
    high: float | None = None
    node: str = ""

    def describe(self) -> str:
        if self.function == "Clip":
            return f"Clip({self.low:g}, {self.high:g})" + (" (ReLU6)" if (self.low, self.high) == (0, 6) else "")
        return self.function


@dataclass(frozen=True)
class Product:
    """x ⊙ y of two values of one shape (a gate: SiLU's x ⊙ sigmoid(x), GELU's x ⊙ Φ(x))."""
    node: str = ""


AFFINE = (Dense, Conv, Diagonal)
ODD = ("Tanh", "Erf")        # odd functions: a sign flip of the units around them leaves f unchanged


def not_homogeneous(network: "TrainedNetwork") -> list:
    """The layers no positive rescaling passes through (each with a word on why), in order."""
    found = []
    for layer in network.layers:
        if isinstance(layer, Activation):
            found.append((layer, f"{layer.describe()}{' (' + layer.node + ')' if layer.node else ''}"
                                 + ("; GELU is x·½(1 + erf(x/√2))" if layer.function == "Erf" else "")))
        elif isinstance(layer, Product):
            found.append((layer, f"a product of two values{' (' + layer.node + ')' if layer.node else ''}, "
                                 "part of a gated activation such as SiLU or GELU"))
        elif isinstance(layer, Standardize) and not layer.at_input and any(v != 0 for v in layer.shift.ravel()):
            found.append((layer, "a constant added inside the network"))
    return found


def layer_parameters(layer) -> list[np.ndarray]:
    """The parameter tensors of one layer, in the order they appear in θ."""
    if isinstance(layer, (Dense, Conv)):
        return [layer.weight] + ([layer.bias] if layer.bias is not None else [])
    if isinstance(layer, Diagonal):
        return [layer.scale, layer.shift]
    return []


@dataclass
class TrainedNetwork:
    """Layers applied to inputs of shape (N, *input_shape); ``sources[k]`` are the values layer k
    reads (None: a chain, each layer reading the previous value); the output is the last value."""

    layers: list
    input_shape: tuple
    input_dtype: np.dtype = np.dtype(np.float32)
    sources: list | None = None
    reading: dict = field(default_factory=dict)     # what the import read, for the report

    def wiring(self) -> list[tuple]:
        return self.sources if self.sources is not None else [(k,) for k in range(len(self.layers))]

    def evaluate(self, apply, x):
        """The last value of the graph: ``apply(layer, inputs)`` computes each layer's output."""
        wiring = self.wiring()
        last_read = {s: k for k, sources in enumerate(wiring) for s in sources}
        values = {0: x}
        for k, (layer, sources) in enumerate(zip(self.layers, wiring)):
            values[k + 1] = apply(layer, [values[s] for s in sources])
            for s in set(sources):
                if last_read[s] == k:           # no later layer reads it: let it go
                    del values[s]
        return values[len(self.layers)]

    @property
    def affine_layers(self) -> list:
        return [layer for layer in self.layers if isinstance(layer, AFFINE)]

    def parameter_tensors(self) -> list[np.ndarray]:
        return [tensor for layer in self.layers for tensor in layer_parameters(layer)]

    @property
    def parameter_count(self) -> int:
        return sum(tensor.size for tensor in self.parameter_tensors())

    def flat_parameters(self) -> np.ndarray:
        return np.concatenate([tensor.ravel() for tensor in self.parameter_tensors()]).astype(np.float64)

    def unflatten(self, theta) -> list:
        """θ cut back into the shapes of the parameter tensors (works for numpy and JAX arrays)."""
        pieces, start = [], 0
        for tensor in self.parameter_tensors():
            pieces.append(theta[start:start + tensor.size].reshape(tensor.shape))
            start += tensor.size
        return pieces

    def is_weight(self) -> np.ndarray:
        """True where θ_i is a weight (of a Dense, a Conv or a Diagonal's scale), False for a bias."""
        flags = []
        for layer in self.layers:
            for position, tensor in enumerate(layer_parameters(layer)):
                flags.append(np.full(tensor.size, position == 0))
        return np.concatenate(flags)
