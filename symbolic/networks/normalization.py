"""Normalisation layers: batch normalisation in inference form, layer normalisation, and batch
normalisation over the N examples of a batch.

- ``BatchNorm(scale, shift=None)``: the inference form, an affine map per channel,
  y[c][t] = γ_c·s[c][t] + β_c, with γ (``scale``) and β (``shift``) parameters of shape
  (channels, 1).  A positive scale of γ_c and β_c passes on to the next layer like a unit's scale;
  a scale of the layer before (its weights and bias) is absorbed by γ_c.
- ``LayerNorm(eps=0)``: over all values z_1, …, z_m of one example,
  LN(z)_j = (z_j − μ)/sqrt(σ² + ε), μ and σ² the mean and the variance (1/m) Σ (z_j − μ)².  With
  ε = 0, LN(c·z) = LN(z) for every c > 0: the layer before may be rescaled as a whole, by one
  scale; with ε > 0 it may not (σ² + ε is no multiple of σ²).
- ``BatchNormTrain(eps=0)``: per channel, over the N examples of the batch (and the positions of
  a signal), BN(z_n) = (z_n − μ)/sqrt(σ² + ε), μ and σ² the batch mean and variance.  The
  prediction at x_n depends on the whole batch: a model with this layer is evaluated on batches
  (``Model.batch_predictions``).  With ε = 0 each channel's incoming weights and bias may be
  rescaled on their own (BN(c·z) = BN(z) for c > 0): one scale per channel; with ε > 0 none.

The forward pass asks its ``Nonlinearity`` for one operation only, ``power(layer, site, value,
exponent)`` with exponent −1/2 (the rest is ring arithmetic): the real value, the log-scale rule
(the power multiplies the log-scale by −1/2), the derivative of a jet, and mpmath all follow.
"""
from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from symbolic.networks.model import Layer, ModelError

INVERSE_SQUARE_ROOT = sp.Rational(-1, 2)


def epsilon(value) -> sp.Rational:
    """ε as an exact rational ≥ 0."""
    eps = sp.nsimplify(sp.sympify(value), rational=True) if not isinstance(value, str) else sp.Rational(value)
    if not (eps.is_Rational and eps >= 0):
        raise ModelError(f"eps must be a rational number >= 0, got {value!r}")
    return eps


def _normalized(values, eps, nonlinearity, layer, site):
    """(z_j − μ)/sqrt(σ² + ε) for the values z_1, …, z_m, μ and σ² their mean and variance."""
    weight = nonlinearity.constant(sp.Rational(1, len(values)))
    mean = weight * sum(values, 0)
    centred = [z + nonlinearity.constant(-1) * mean for z in values]
    variance = weight * sum((d * d for d in centred), 0)
    if eps:
        variance = variance + nonlinearity.constant(eps)
    inverse = nonlinearity.power(layer, site, variance, INVERSE_SQUARE_ROOT)
    return [d * inverse for d in centred]


@dataclass(frozen=True)
class BatchNorm(Layer):
    """Inference form: y[c][t] = γ_c·s[c][t] + β_c, γ = ``scale``, β = ``shift``, shape (channels, 1)."""

    scale: str
    shift: str | None = None

    def parameter_shapes(self, shape):
        shapes = {self.scale: (shape[0], 1)}
        if self.shift:
            shapes[self.shift] = (shape[0], 1)
        return shapes

    def forward(self, signal, params, nonlinearity, path, shape=None):
        gamma = params[self.scale]
        beta = params[self.shift] if self.shift else None
        return [[gamma[c][0] * s + beta[c][0] if beta else gamma[c][0] * s for s in channel]
                for c, channel in enumerate(signal)]

    def describe(self):
        return f"BatchNorm({self.scale}" + (f", {self.shift})" if self.shift else ")")


@dataclass(frozen=True)
class LayerNorm(Layer):
    """(z_j − μ)/sqrt(σ² + ε) over all values of one example."""

    eps: object = 0

    def output_shape(self, shape):
        epsilon(self.eps)
        if shape[0] * (shape[1] if len(shape) == 2 else shape[1] * shape[2]) < 2:
            raise ModelError("LayerNorm normalises at least two values (one value is always 0 after it)")
        return shape

    def forward(self, signal, params, nonlinearity, path, shape=None):
        values = [s for channel in signal for s in channel]
        normalized = iter(_normalized(values, epsilon(self.eps), nonlinearity, self, (path, 0, 0)))
        return [[next(normalized) for _ in channel] for channel in signal]

    def describe(self):
        return f"LayerNorm(eps={epsilon(self.eps)})"


@dataclass(frozen=True)
class BatchNormTrain(Layer):
    """Per channel, over the N examples of the batch and the positions: (z − μ)/sqrt(σ² + ε)."""

    eps: object = 0
    batch = True                    # the output at one example depends on every example

    def output_shape(self, shape):
        epsilon(self.eps)
        return shape

    def forward(self, signal, params, nonlinearity, path, shape=None):
        return self.forward_batch([signal], params, nonlinearity, path, shape)[0]

    def forward_batch(self, signals, params, nonlinearity, path, shape=None):
        eps = epsilon(self.eps)
        out = [[[None] * len(channel) for channel in signal] for signal in signals]
        for c in range(len(signals[0])):
            # channel c's values over the batch, example by example, position by position
            where = [(n, t) for n, signal in enumerate(signals) for t in range(len(signal[c]))]
            normalized = _normalized([signals[n][c][t] for n, t in where], eps, nonlinearity, self, (path, c, 0))
            for (n, t), value in zip(where, normalized):
                out[n][c][t] = value
        return out

    def describe(self):
        return f"BatchNormTrain(eps={epsilon(self.eps)})"
