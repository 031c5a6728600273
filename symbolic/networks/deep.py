"""Deep rectified networks (Definition 3) and their layer-wise rescaling (§4.2, "many directions").

y = ReLU(… ReLU(x·θ_1) …·θ_{K−1})·θ_K, optionally with a bias per layer.  The rescaling
θ_k ↦ α_k θ_k (biases b_k ↦ (∏_{j≤k} α_j) b_k) leaves the function unchanged when ∏ α_k = 1.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property

import flint
import sympy as sp

from symbolic.networks.network import validate_sizes
from symbolic.relu import ReLU


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


# --- exact evaluation at rational points (Theorem 5, flat directions) ----------------------------

def unflatten(net: DeepNet, theta) -> tuple[list, list]:
    """Flat values in ``net.parameters()`` order as (weight matrices, bias rows) of Fractions."""
    values = iter(Fraction(t) for t in theta)
    weights = [[[next(values) for _ in range(W.cols)] for _ in range(W.rows)] for W in net.weights]
    biases = [[next(values) for _ in range(b.cols)] for b in net.biases]
    return weights, biases


def exact_layers(net: DeepNet, theta, x) -> list[list[Fraction]]:
    """The pre-activations of every layer at input x, with the real ReLU (max), exactly."""
    weights, biases = unflatten(net, theta)
    layer, rows = [Fraction(v) for v in x], []
    for k, W in enumerate(weights):
        pre = [sum(layer[i] * W[i][j] for i in range(len(layer))) + (biases[k][j] if net.bias else 0)
               for j in range(len(W[0]))]
        rows.append(pre)
        layer = [max(s, Fraction(0)) for s in pre]
    return rows


def exact_prediction(net: DeepNet, theta, x) -> Fraction:
    return exact_layers(net, theta, x)[-1][0]


def on_kink(net: DeepNet, theta, inputs) -> bool:
    """Some hidden pre-activation is exactly 0 at some data point: L may not be smooth there."""
    return any(s == 0 for x in inputs for row in exact_layers(net, theta, x)[:-1] for s in row)


def exact_mse_hessian(net: DeepNet, theta, inputs, targets) -> list[list[Fraction]]:
    """∂²L/∂θ_k∂θ_l of L = (1/N) Σ_n (f(x_n) − y_n)² at θ, exactly.

    Off the kink set the activation pattern σ of θ (read from θ's own pre-activations) is constant
    near θ and ReLU(s) = σ·s there, so L is a polynomial in θ near θ: it is built in python-flint
    with rational data and differentiated twice."""
    if on_kink(net, theta, inputs):
        raise ValueError("a hidden pre-activation is 0 on the data: L need not be twice differentiable")
    names = [str(p) for p in net.parameters()]
    ctx = flint.fmpq_mpoly_ctx.get(tuple(f"p{k}" for k in range(len(names))), "lex")
    gens = iter(ctx.gens())
    weight_gens = [[[next(gens) for _ in range(W.cols)] for _ in range(W.rows)] for W in net.weights]
    bias_gens = [[next(gens) for _ in range(b.cols)] for b in net.biases]
    loss = ctx.from_dict({})
    for x, y in zip(inputs, targets):
        pattern = exact_layers(net, theta, x)
        layer = [ctx.constant(flint.fmpq(Fraction(v).numerator, Fraction(v).denominator)) for v in x]
        for k, W in enumerate(weight_gens):
            pre = [sum((layer[i] * W[i][j] for i in range(len(layer))), ctx.from_dict({}))
                   + (bias_gens[k][j] if net.bias else 0) for j in range(len(W[0]))]
            # ReLU(s) = σ s on θ's pattern (the output layer is linear)
            layer = pre if k == net.depth - 1 else [s if pattern[k][j] > 0 else ctx.from_dict({})
                                                    for j, s in enumerate(pre)]
        y = Fraction(y)
        loss += (layer[0] - flint.fmpq(y.numerator, y.denominator)) ** 2
    point = [flint.fmpq(Fraction(t).numerator, Fraction(t).denominator) for t in theta]
    size = len(names)
    hessian = [[Fraction(0)] * size for _ in range(size)]
    for k in range(size):
        first = loss.derivative(k)
        for l in range(k, size):
            value = first.derivative(l)(*point) / len(inputs) if size else 0
            hessian[k][l] = hessian[l][k] = Fraction(int(value.p), int(value.q))
    return hessian


# --- the pattern form of a deep network, as exact polynomials -----------------------------------

@dataclass
class DeepPattern:
    """A deep network on a symbolic activation pattern (ReLU(s) = σ·s, σ an indeterminate per data
    point and hidden unit), with symbolic data, as python-flint ``fmpz_mpoly``.

    The layer scales are monomials: α_k for k < K and α_K = ᾱ_1⋯ᾱ_{K−1}, where ᾱ_k stands for
    1/α_k; zero tests reduce modulo every α_k ᾱ_k − 1 (``is_zero``).  The loss is the MSE times N,
    so that every coefficient is an integer."""

    net: DeepNet
    n: int

    def __post_init__(self):
        net, K = self.net, self.net.depth
        self.parameter_names = [str(p) for p in net.parameters()]
        data = [f"x_{m}_{i}" for m in range(self.n) for i in range(net.widths[0])]
        data += [f"y_{m}" for m in range(self.n)]
        patterns = [f"sigma_{m}_{k}_{j}" for m in range(self.n) for k in range(K - 1)
                    for j in range(net.widths[k + 1])]
        scales = [f"alpha_{k}" for k in range(K - 1)] + [f"alphabar_{k}" for k in range(K - 1)]
        self.names = self.parameter_names + data + patterns + scales
        self.context = flint.fmpz_mpoly_ctx.get(tuple(self.names), "lex")
        self.gens = dict(zip(self.names, self.context.gens()))

    def layer_scale(self, k: int):
        """α_k as a monomial (k counted from 0): α_{k} for k < K − 1, ∏ ᾱ for the last layer."""
        return self._scale(k, "alpha", "alphabar")

    def inverse_scale(self, k: int):
        """ᾱ_k = α_k⁻¹ as a monomial: ᾱ_{k} for k < K − 1, ∏ α for the last layer."""
        return self._scale(k, "alphabar", "alpha")

    def _scale(self, k: int, own: str, other: str):
        """The generator ``own``_k below the last layer; the last layer's is the product of the
        ``other`` generators (∏ α_k = 1 with ᾱ_k = α_k⁻¹)."""
        K = self.net.depth
        if k < K - 1:
            return self.gens[f"{own}_{k}"]
        product = self.context.constant(1)
        for j in range(K - 1):
            product *= self.gens[f"{other}_{j}"]
        return product

    def loss(self):
        """N·L = Σ_m (f(x_m) − y_m)² on the pattern σ."""
        g, net = self.gens, self.net
        zero = self.context.constant(0)
        parameters = iter(self.context.gens()[: len(self.parameter_names)])
        weights = [[[next(parameters) for _ in range(W.cols)] for _ in range(W.rows)] for W in net.weights]
        biases = [[next(parameters) for _ in range(b.cols)] for b in net.biases]
        total = zero
        for m in range(self.n):
            layer = [g[f"x_{m}_{i}"] for i in range(net.widths[0])]
            for k, W in enumerate(weights):
                layer = [sum((layer[i] * W[i][j] for i in range(len(layer))), zero)
                         + (biases[k][j] if net.bias else 0) for j in range(len(W[0]))]
                if k < net.depth - 1:
                    layer = [g[f"sigma_{m}_{k}_{j}"] * s for j, s in enumerate(layer)]
            total += (layer[0] - g[f"y_{m}"]) ** 2
        return total

    def is_zero(self, poly) -> bool:
        """Zero in the Laurent ring: reduce modulo α_k ᾱ_k − 1 for every k (these binomials in
        disjoint variables form a Gröbner basis, so the remainder is the normal form)."""
        for k in range(self.net.depth - 1):
            poly = poly % (self.gens[f"alpha_{k}"] * self.gens[f"alphabar_{k}"] - 1)
        return poly.is_zero()


def real_mse(net: DeepNet, inputs, targets):
    """θ ↦ (1/N) Σ_n (f_θ(x_n) − y_n)² with the real ReLU (max), for mpmath numbers: the
    independent witness, with no pattern and no symbolic derivative."""
    sizes = [W.rows * W.cols for W in net.weights] + [b.cols for b in net.biases]

    def loss(*theta):
        values = iter(theta)
        blocks = [[next(values) for _ in range(size)] for size in sizes]
        weights, biases = blocks[: net.depth], blocks[net.depth:]
        total = 0
        for x, y in zip(inputs, targets):
            layer = list(x)
            for k, W in enumerate(net.weights):
                layer = [sum(layer[i] * weights[k][i * W.cols + j] for i in range(W.rows))
                         + (biases[k][j] if net.bias else 0) for j in range(W.cols)]
                if k < net.depth - 1:
                    layer = [max(s, 0) for s in layer]
            total += (layer[0] - y) ** 2
        return total / len(inputs)
    return loss
