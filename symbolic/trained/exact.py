"""Exact arithmetic on the imported network: a tensor is an array of Python integers times one
rational scale, so matrix products run on flint's integer matrices and nothing is ever rounded.

Every float is a dyadic rational m·2^e, so the network's weights, its data and the rescaled twin's
weights (the weights times rational factors) are all exact tensors.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import gcd, lcm

import flint
import numpy as np

from symbolic.trained.network import (Activation, AveragePool, Conv, Dense, Diagonal, Flatten, LeakyReLU, MaxPool,
                                      Permute, PReLU, Product, ReLU, Standardize, Sum, View)


@dataclass
class ExactTensor:
    """The exact tensor ``integers · scale`` (integers: a numpy array of Python ints)."""

    integers: np.ndarray
    scale: Fraction
    _matrix: object = None          # the integers as a flint matrix, once made
    _transpose: object = None       # the transpose (of a weight), once made, with its own flint matrix

    @property
    def shape(self) -> tuple:
        return self.integers.shape

    def to_float(self) -> np.ndarray:
        """Each entry rounded to the nearest float64 (Python's int / int rounds correctly)."""
        p, q = self.scale.numerator, self.scale.denominator
        flat = [int(v) * p / q for v in self.integers.ravel()]
        return np.array(flat, dtype=np.float64).reshape(self.shape)

    def matrix(self):
        """The integers of a 2-d tensor as a flint integer matrix (kept for the next product)."""
        if self._matrix is None:
            self._matrix = flint.fmpz_mat(self.integers.tolist())
        return self._matrix

    def transposed(self) -> "ExactTensor":
        """The transpose of a 2-d tensor, kept (a weight's flint matrix is then made once per run)."""
        if self._transpose is None:
            self._transpose = ExactTensor(self.integers.T, self.scale)
        return self._transpose

    def rationals(self) -> list[Fraction]:
        return [int(v) * self.scale for v in self.integers.ravel()]


def from_rationals(values, shape) -> ExactTensor:
    """The exact tensor of a list of Fractions (their common denominator pulled out)."""
    values = [Fraction(v) for v in values]
    denominator = lcm(*(v.denominator for v in values)) if values else 1
    integers = np.array([v.numerator * (denominator // v.denominator) for v in values] or [0],
                        dtype=object)[:len(values)]
    return ExactTensor(integers.reshape(shape), Fraction(1, denominator))


def from_floats(array: np.ndarray) -> ExactTensor:
    """The exact value of a float array (each float is m·2^e with integer m)."""
    array = np.asarray(array, dtype=np.float64)
    if not np.all(np.isfinite(array)):
        raise ValueError("a NaN or an infinity has no exact value")
    mantissa, exponent = np.frexp(array)
    integers = (mantissa * 2.0 ** 53).astype(np.int64)         # exact: |mantissa| < 1 has 53 bits
    exponent = exponent.astype(np.int64) - 53
    # drop each integer's trailing zero bits (a float32 has 29 of them), keeping the numbers small
    lowest_bit = np.where(integers != 0, integers & -integers, 1)
    trailing = np.round(np.log2(lowest_bit.astype(np.float64))).astype(np.int64)
    integers, exponent = integers >> trailing, exponent + trailing
    lowest = int(exponent[integers != 0].min()) if np.any(integers != 0) else 0
    shifts = np.where(integers != 0, exponent - lowest, 0).ravel().tolist()
    exact = [int(m) << s for m, s in zip(integers.ravel().tolist(), shifts)]
    return ExactTensor(np.array(exact, dtype=object).reshape(array.shape), Fraction(2) ** lowest)


def _common(a: Fraction, b: Fraction) -> tuple[Fraction, int, int]:
    """A scale g with a = p·g and b = q·g for integers p, q (g = gcd of numerators / lcm of denominators)."""
    g = Fraction(gcd(a.numerator, b.numerator) or 1, lcm(a.denominator, b.denominator))
    return g, int(a / g), int(b / g)


def add(x: ExactTensor, y: ExactTensor) -> ExactTensor:
    """x + y with numpy broadcasting."""
    g, p, q = _common(x.scale, y.scale)
    return ExactTensor(x.integers * p + y.integers * q, g)


def matmul(x: ExactTensor, y: ExactTensor) -> ExactTensor:
    """x @ y for matrices, on flint's integer matrices."""
    if 0 in x.shape or 0 in y.shape:
        return ExactTensor(np.zeros((x.shape[0], y.shape[1]), dtype=object), x.scale * y.scale)
    product = x.matrix() * y.matrix()
    rows = [[int(v) for v in row] for row in product.tolist()]
    return ExactTensor(np.array(rows, dtype=object).reshape(x.shape[0], y.shape[1]), x.scale * y.scale)


def _patches(x: np.ndarray, kernel, strides, pads, dilations, fill) -> np.ndarray:
    """im2col: (N, C, H, W) → (N, OH, OW, C, kh, kw) windows, the border padded with ``fill``."""
    n, c, h, w = x.shape
    padded = np.full((n, c, h + pads[0] + pads[2], w + pads[1] + pads[3]), fill, dtype=object)
    padded[:, :, pads[0]:pads[0] + h, pads[1]:pads[1] + w] = x
    oh = (padded.shape[2] - dilations[0] * (kernel[0] - 1) - 1) // strides[0] + 1
    ow = (padded.shape[3] - dilations[1] * (kernel[1] - 1) - 1) // strides[1] + 1
    out = np.empty((n, oh, ow, c, kernel[0], kernel[1]), dtype=object)
    for i in range(kernel[0]):
        for j in range(kernel[1]):
            rows = slice(i * dilations[0], i * dilations[0] + strides[0] * (oh - 1) + 1, strides[0])
            cols = slice(j * dilations[1], j * dilations[1] + strides[1] * (ow - 1) + 1, strides[1])
            out[:, :, :, :, i, j] = padded[:, :, rows, cols].transpose(0, 2, 3, 1)
    return out


def conv(x: ExactTensor, weight: ExactTensor, layer: Conv) -> ExactTensor:
    if layer.groups > 1:                # each group of output channels reads its group of input channels
        inputs, outputs = x.shape[1] // layer.groups, weight.shape[0] // layer.groups
        parts = [conv(ExactTensor(x.integers[:, g * inputs:(g + 1) * inputs], x.scale),
                      ExactTensor(weight.integers[g * outputs:(g + 1) * outputs], weight.scale),
                      Conv(None, None, layer.strides, layer.pads, layer.dilations)) for g in range(layer.groups)]
        channels = concatenate([ExactTensor(p.integers.transpose(1, 0, 2, 3), p.scale) for p in parts])
        return ExactTensor(channels.integers.transpose(1, 0, 2, 3), channels.scale)
    out_channels, _, kh, kw = weight.shape
    patches = _patches(x.integers, (kh, kw), layer.strides, layer.pads, layer.dilations, 0)
    n, oh, ow = patches.shape[:3]
    columns = ExactTensor(patches.reshape(n * oh * ow, -1), x.scale)
    product = matmul(columns, ExactTensor(weight.integers.reshape(out_channels, -1).T, weight.scale))
    return ExactTensor(product.integers.reshape(n, oh, ow, out_channels).transpose(0, 3, 1, 2), product.scale)


def pool(x: ExactTensor, layer, summed: bool = False) -> ExactTensor:
    """Max pooling (padding never wins: it is below every entry), or with ``summed`` the sum over
    each window (the path-counting reading of a max-pooling layer, padding 0)."""
    fill = 0 if summed else (min(x.integers.ravel().tolist(), default=0) - 1)
    patches = _patches(x.integers, layer.kernel, layer.strides, layer.pads, (1, 1), fill)
    reduce = np.sum if summed else np.max
    return ExactTensor(reduce(patches, axis=(4, 5)).transpose(0, 3, 1, 2), x.scale)


def leaky(x: ExactTensor, slope: float) -> ExactTensor:
    """max(x, slope·x) for 0 ≤ slope < 1, exactly (the slope is the dyadic float it is)."""
    s = Fraction(slope)
    g, p, q = _common(x.scale, x.scale * s)
    negative = x.integers < 0
    return ExactTensor(np.where(negative, x.integers * q, x.integers * p), g)


def prelu(x: ExactTensor, slope: np.ndarray) -> ExactTensor:
    """x where x > 0, slope·x elsewhere, exactly (each slope the dyadic float it is)."""
    slopes = from_floats(np.broadcast_to(slope, x.shape[1:]))
    g, p, q = _common(x.scale, x.scale * slopes.scale)
    return ExactTensor(np.where(x.integers < 0, x.integers * slopes.integers[None] * q, x.integers * p), g)


def clip(x: ExactTensor, low: float, high: float) -> ExactTensor:
    """min(max(x, low), high), exactly (finite bounds are the dyadic floats they are)."""
    result = x
    for bound, below in ((low, True), (high, False)):
        if not np.isfinite(bound):
            continue
        b = Fraction(bound)
        g, p, q = _common(result.scale, b if b else Fraction(1))
        level = int(b / g) if b else 0
        scaled = result.integers * p
        result = ExactTensor(np.where(scaled < level, level, scaled) if below else
                             np.where(scaled > level, level, scaled), g)
    return result


def forward(network, parameters: list[ExactTensor], inputs: ExactTensor, path_counting: bool = False) -> ExactTensor:
    """The network's outputs on the inputs, exactly.  ``parameters`` are the layers' parameter
    tensors in θ's order.  With ``path_counting`` the rectifiers and the input's normalisation are
    left out and max-pooling sums its window: the linear network whose output counts paths (for the
    path norm)."""
    supply = iter(parameters)

    def apply(layer, inputs):
        x = inputs[0]
        if isinstance(layer, Dense):
            x = matmul(x, next(supply).transposed())
            if layer.bias is not None:
                x = add(x, next(supply))
        elif isinstance(layer, Conv):
            x = conv(x, next(supply), layer)
            if layer.bias is not None:
                bias = next(supply)
                x = add(x, ExactTensor(bias.integers.reshape(-1, 1, 1), bias.scale))
        elif isinstance(layer, Diagonal):
            scale, shift = next(supply), next(supply)
            trailing = (1,) * (x.integers.ndim - 2)
            x = ExactTensor(x.integers * scale.integers.reshape(-1, *trailing), x.scale * scale.scale)
            x = add(x, ExactTensor(shift.integers.reshape(-1, *trailing), shift.scale))
        elif isinstance(layer, Standardize) and path_counting and not layer.at_input:
            # a constant scale inside the network: each path's coefficient, squared (no shift: homogeneous)
            scale = from_rationals([v * v for v in layer.scale.ravel()], layer.scale.shape)
            x = ExactTensor(x.integers * scale.integers, x.scale * scale.scale)
        elif isinstance(layer, Standardize) and not path_counting:
            scale, shift = from_rationals(layer.scale.ravel(), layer.scale.shape), \
                from_rationals(layer.shift.ravel(), layer.shift.shape)
            x = add(ExactTensor(x.integers * scale.integers, x.scale * scale.scale), shift)
        elif isinstance(layer, PReLU) and not path_counting:
            x = prelu(x, layer.slope)
        elif isinstance(layer, View):
            x = ExactTensor(x.integers.reshape(x.shape[0], *layer.shape), x.scale)
        elif isinstance(layer, Product):
            x = ExactTensor(x.integers * inputs[1].integers, x.scale * inputs[1].scale)
        elif isinstance(layer, Activation):
            if layer.function != "Clip":
                raise ValueError(f"{layer.describe()} has no exact value at a rational point")
            x = clip(x, layer.low, layer.high)
        elif isinstance(layer, Sum):
            x = add(x, inputs[1])
        elif isinstance(layer, ReLU) and not path_counting:
            x = ExactTensor(np.where(x.integers < 0, 0, x.integers), x.scale)
        elif isinstance(layer, LeakyReLU) and not path_counting:
            x = leaky(x, layer.slope)
        elif isinstance(layer, MaxPool):
            x = pool(x, layer, summed=path_counting)
        elif isinstance(layer, AveragePool):
            # the window's sum over its size k; counting paths, each path's fixed coefficient 1/k squared
            window = layer.kernel[0] * layer.kernel[1]
            total = pool(x, layer, summed=True)
            x = ExactTensor(total.integers, total.scale / (window ** 2 if path_counting else window))
        elif isinstance(layer, Flatten):
            x = ExactTensor(x.integers.reshape(x.shape[0], -1), x.scale)
        elif isinstance(layer, Permute):
            x = ExactTensor(np.transpose(x.integers, (0, *(axis + 1 for axis in layer.axes))), x.scale)
        return x
    return network.evaluate(apply, inputs)


def concatenate(tensors: list[ExactTensor]) -> ExactTensor:
    """The tensors one after the other along the first axis, on one common scale."""
    scale = tensors[0].scale
    for t in tensors[1:]:
        scale = _common(scale, t.scale)[0]
    return ExactTensor(np.concatenate([t.integers * int(t.scale / scale) for t in tensors]), scale)


def first_difference(x: ExactTensor, y: ExactTensor):
    """None if x = y entry by entry, exactly; else the first index where they differ and the two
    exact values there."""
    if x.shape != y.shape:
        raise ValueError(f"tensors of shapes {x.shape} and {y.shape} are not compared")
    g, p, q = _common(x.scale, y.scale)
    differ = np.argwhere(x.integers * p != y.integers * q)
    if len(differ) == 0:
        return None
    index = tuple(int(i) for i in differ[0])
    return index, int(x.integers[index]) * x.scale, int(y.integers[index]) * y.scale


def sum_of_squares(tensors: list[ExactTensor]) -> Fraction:
    return sum((sum(int(v) * int(v) for v in t.integers.ravel()) * t.scale ** 2 for t in tensors), Fraction(0))


def squared(t: ExactTensor) -> ExactTensor:
    return ExactTensor(t.integers * t.integers, t.scale ** 2)


def path_norm_squared(network, parameters: list[ExactTensor], input_shape: tuple) -> Fraction:
    """Σ over input-to-output paths (a bias starting its own path) of ∏ θ_e²: the output sum of the
    linear network with squared parameters on an input of ones.  A max-pooling window counts every
    path through it (the pooling summed); an average pool's fixed coefficient 1/k enters squared; a
    Diagonal layer's scale is a weight, its shift a bias."""
    ones = ExactTensor(np.ones((1, *input_shape), dtype=np.int64).astype(object), Fraction(1))
    out = forward(network, [squared(p) for p in parameters], ones, path_counting=True)
    return sum((int(v) for v in out.integers.ravel()), 0) * out.scale
