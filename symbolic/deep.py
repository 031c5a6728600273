"""Deep rectified networks (Definition 3) and their layer-wise rescaling (§4.2, "many directions").

y = ReLU(… ReLU(x·θ_1) …·θ_{K−1})·θ_K, optionally with a bias per layer.  The rescaling
θ_k ↦ α_k θ_k (biases b_k ↦ (∏_{j≤k} α_j) b_k) leaves the function unchanged when ∏ α_k = 1.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import sympy as sp

from .network import validate_sizes
from .relu import ReLU


@dataclass(frozen=True)
class DeepNet:
    """Layer widths (d, h_1, …, h_{K−1}, 1); real symbols θ_k[i, j] and optional biases."""

    widths: tuple
    bias: bool = False

    def __post_init__(self):
        if len(self.widths) < 2:
            raise ValueError("a network needs at least an input and an output width")
        validate_sizes(**{f"width_{k}": w for k, w in enumerate(self.widths)})

    @property
    def depth(self) -> int:
        return len(self.widths) - 1

    @cached_property
    def weights(self) -> list[sp.Matrix]:
        return [sp.Matrix(self.widths[k], self.widths[k + 1],
                          lambda i, j, k=k: sp.Symbol(f"theta{k + 1}_{{{i + 1},{j + 1}}}", real=True))
                for k in range(self.depth)]

    @cached_property
    def biases(self) -> list[sp.Matrix]:
        return [sp.Matrix(1, self.widths[k + 1],
                          lambda _, j, k=k: sp.Symbol(f"b{k + 1}_{{{j + 1}}}", real=True))
                for k in range(self.depth)] if self.bias else []

    def input(self, n: int = 1) -> sp.Matrix:
        return sp.Matrix(1, self.widths[0], lambda _, i: sp.Symbol(f"x_{{{n},{i + 1}}}", real=True))

    def parameters(self) -> list:
        return [s for W in self.weights for s in W] + [s for b in self.biases for s in b]

    def prediction(self, x: sp.Matrix, weights=None, biases=None, activation=ReLU) -> sp.Expr:
        """The network output at x; hidden layers rectified, the last layer linear."""
        weights = self.weights if weights is None else weights
        biases = (self.biases if biases is None else biases) if self.bias else [None] * self.depth
        layer = x
        for k, W in enumerate(weights):
            layer = layer * W
            if biases[k] is not None:
                layer = layer + biases[k]
            if k < self.depth - 1:
                layer = layer.applyfunc(activation)
        return layer[0, 0]

    def rescaled(self, scales, bias_scales=None):
        """(weights, biases) with θ_k ↦ scales[k]·θ_k and b_k ↦ bias_scales[k]·b_k
        (default: the cumulative product ∏_{j≤k} scales[j], which keeps the function)."""
        if bias_scales is None:
            bias_scales, running = [], 1
            for scale in scales:
                running = running * scale
                bias_scales.append(running)
        weights = [W * s for W, s in zip(self.weights, scales)]
        biases = [b * s for b, s in zip(self.biases, bias_scales)]
        return weights, biases


def per_neuron_rescaling(W: sp.Matrix, v: sp.Matrix, scales) -> tuple[sp.Matrix, sp.Matrix]:
    """One hidden layer, each unit j its own c_j > 0: W[:, j] ↦ c_j W[:, j], v_j ↦ v_j / c_j."""
    scaled_W = sp.Matrix(W.rows, W.cols, lambda i, j: scales[j] * W[i, j])
    scaled_v = sp.Matrix(v.rows, 1, lambda j, _: v[j] / scales[j])
    return scaled_W, scaled_v
