"""Layers of images: a 2-d convolution, 2-d max and average pooling, and ``Flatten``.

An image signal has the shape (channels, height, width); as every signal it is a list of channels,
each channel's positions row by row (position (i, j) at index i·width + j).

- ``Conv2d(channels, kernel, weight, bias=None, stride=1, padding=0)``: out[o][i, j] =
  Σ_c Σ_a Σ_b K[o, c·kh·kw + a·kw + b]·in[c][i·sh + a − ph, j·sw + b − pw] (+ b[o]), a position
  outside the input (zero padding) contributing 0; the kernel (kh, kw), the stride (sh, sw) and the
  padding (ph, pw) are pairs or one number for both.  K has shape (channels, input channels·kh·kw):
  row o is output channel o's kernel, as for ``Conv1d``, so a scale per output channel multiplies
  row o (``c_i`` in a map).
- ``MaxPool2d(kernel, stride=None)``, ``AvgPool2d(kernel, stride=None)``: the maximum, or the mean,
  over each window of kh × kw positions inside the input (the stride defaults to the kernel: no
  overlap).
- ``Flatten()``: the values channel by channel, each channel row by row, as a vector (what
  ``Dense`` reads anyway; written out, it makes a vector for a layer that needs one).
"""
from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from symbolic.networks.model import Layer, ModelError, values_in


def pair(value, what: str) -> tuple[int, int]:
    """A number for both dimensions, or a pair (rows, columns), as two whole numbers."""
    values = tuple(value) if isinstance(value, (tuple, list)) else (value, value)
    if len(values) != 2 or any(isinstance(k, bool) or not isinstance(k, int) for k in values):
        raise ModelError(f"{what} is a whole number or a pair of them, got {value!r}")
    return values


def _image(layer: Layer, shape) -> tuple[int, int, int]:
    if len(shape) != 3:
        raise ModelError(f"{type(layer).__name__} takes an image (channels, height, width), got the "
                         f"shape {shape}")
    return shape


def _windows(size: int, kernel: int, stride: int, padding: int, what: str) -> int:
    """How many windows of ``kernel`` positions, ``stride`` apart, fit in ``size`` + 2·padding."""
    if size + 2 * padding < kernel:
        raise ModelError(f"the kernel's {what} {kernel} is larger than the input's {size} "
                         f"(+ 2 x padding {padding})")
    return (size + 2 * padding - kernel) // stride + 1


@dataclass(frozen=True)
class Conv2d(Layer):
    """A 2-d convolution with a stride and zero padding; weight (channels, input channels·kh·kw)."""

    channels: int
    kernel: object
    weight: str
    bias: str | None = None
    stride: object = 1
    padding: object = 0

    def _sizes(self):
        kernel, stride, padding = (pair(self.kernel, "the kernel"), pair(self.stride, "the stride"),
                                   pair(self.padding, "the padding"))
        if min(*kernel, *stride) < 1 or min(padding) < 0:
            raise ModelError(f"kernel and stride are at least 1 and padding at least 0, got kernel "
                             f"{self.kernel}, stride {self.stride}, padding {self.padding}")
        return kernel, stride, padding

    def output_shape(self, shape):
        _, height, width = _image(self, shape)
        (kh, kw), (sh, sw), (ph, pw) = self._sizes()
        return (self.channels, _windows(height, kh, sh, ph, "height"), _windows(width, kw, sw, pw, "width"))

    def parameter_shapes(self, shape):
        (kh, kw), _, _ = self._sizes()
        shapes = {self.weight: (self.channels, _image(self, shape)[0] * kh * kw)}
        if self.bias:
            shapes[self.bias] = (self.channels, 1)
        return shapes

    def forward(self, signal, params, nonlinearity, path, shape=None):
        channels, height, width = shape
        (kh, kw), (sh, sw), (ph, pw) = self._sizes()
        _, rows, columns = self.output_shape(shape)
        K = params[self.weight]
        out = []
        for o in range(self.channels):
            values = []
            for i in range(rows):
                for j in range(columns):
                    # the window's taps inside the input; a padded tap is 0 and left out
                    s = sum((K[o][(c * kh + a) * kw + b] * signal[c][(i * sh + a - ph) * width + j * sw + b - pw]
                             for c in range(channels) for a in range(kh) for b in range(kw)
                             if 0 <= i * sh + a - ph < height and 0 <= j * sw + b - pw < width), 0)
                    if self.bias:
                        s = s + params[self.bias][o][0]
                    values.append(s)
            out.append(values)
        return out

    def describe(self):
        (kh, kw), (sh, sw), (ph, pw) = self._sizes()
        return (f"Conv2d({self.channels} channels, kernel {kh}x{kw}, stride {sh}x{sw}, padding {ph}x{pw}, "
                f"{self.weight}" + (f", bias {self.bias})" if self.bias else ")"))


@dataclass(frozen=True)
class _Pool2d(Layer):
    """Windows of kh × kw positions, ``stride`` apart (the kernel by default), inside the input."""

    kernel: object
    stride: object = None

    def _sizes(self):
        kernel = pair(self.kernel, "the kernel")
        stride = kernel if self.stride is None else pair(self.stride, "the stride")
        if min(*kernel, *stride) < 1:
            raise ModelError(f"kernel and stride are at least 1, got kernel {self.kernel}, stride {self.stride}")
        return kernel, stride

    def output_shape(self, shape):
        channels, height, width = _image(self, shape)
        (kh, kw), (sh, sw) = self._sizes()
        return (channels, _windows(height, kh, sh, 0, "height"), _windows(width, kw, sw, 0, "width"))

    def windows(self, shape):
        """The positions of each window, output position by output position."""
        _, _, width = shape
        (kh, kw), (sh, sw) = self._sizes()
        _, rows, columns = self.output_shape(shape)
        return [[(i * sh + a) * width + j * sw + b for a in range(kh) for b in range(kw)]
                for i in range(rows) for j in range(columns)]

    def describe(self):
        (kh, kw), (sh, sw) = self._sizes()
        return f"{type(self).__name__}({kh}x{kw}, stride {sh}x{sw})"


@dataclass(frozen=True)
class MaxPool2d(_Pool2d):
    def forward(self, signal, params, nonlinearity, path, shape=None):
        return [[nonlinearity.maximum(self, (path, c, t), [channel[p] for p in window])
                 for t, window in enumerate(self.windows(shape))] for c, channel in enumerate(signal)]


@dataclass(frozen=True)
class AvgPool2d(_Pool2d):
    def forward(self, signal, params, nonlinearity, path, shape=None):
        (kh, kw), _ = self._sizes()
        weight = nonlinearity.constant(sp.Rational(1, kh * kw))
        return [[weight * sum((channel[p] for p in window), 0) for window in self.windows(shape)]
                for channel in signal]


@dataclass(frozen=True)
class Flatten(Layer):
    """The values channel by channel, each channel's positions in order: a vector."""

    def output_shape(self, shape):
        return (values_in(shape), 1)

    def forward(self, signal, params, nonlinearity, path, shape=None):
        return [[value] for channel in signal for value in channel]
