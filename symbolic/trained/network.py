"""The imported network: a chain of layers, each affine layer with float64 parameters that are
dyadic rationals, so that every weight is also an exact number.

Affine layers carry the parameters θ (in chain order, each layer's weight then its bias):
    Dense     y = W x + b                       W: (out, in)
    Conv      y = W ⋆ x + b  (NCHW, group 1)    W: (out, in, kh, kw)
    Diagonal  y_c = a_c x_c + c_c               an inference-mode BatchNormalization,
                                                a = γ/√(var+ε), c = β − a·mean (rounded to float64)
The others are positively homogeneous and carry none: ReLU, LeakyReLU (slope < 1), MaxPool, Flatten.
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
class Flatten:
    pass


AFFINE = (Dense, Conv, Diagonal)


def layer_parameters(layer) -> list[np.ndarray]:
    """The parameter tensors of one layer, in the order they appear in θ."""
    if isinstance(layer, (Dense, Conv)):
        return [layer.weight] + ([layer.bias] if layer.bias is not None else [])
    if isinstance(layer, Diagonal):
        return [layer.scale, layer.shift]
    return []


@dataclass
class TrainedNetwork:
    """A chain of layers applied to inputs of shape (N, *input_shape)."""

    layers: list
    input_shape: tuple
    input_dtype: np.dtype = np.dtype(np.float32)

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
