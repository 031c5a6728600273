"""The derivative of a model's output with respect to log-scales of its parameters, at concrete
rational points, with its rank certified: the upper bound on the group of rescalings.

Let s ∈ ℝⁿ be in the Lie algebra of the positive diagonal rescalings that leave f invariant, i.e.
f(e^{λs}·θ, x) = f(θ, x) for every λ, θ and x.  At a point (θ₀, x) where f is differentiable in θ,
the derivative at λ = 0 gives Σ_p s_p·θ₀_p·∂f/∂θ_p(θ₀, x) = 0: s lies in the kernel of the
matrix J with rows (θ₀_p·∂f/∂θ_p(θ₀, x_k))_p, one per input x_k (rows from several θ₀ may be
stacked); with K outputs, one row per output f_j and input x_k (s leaves every output unchanged).
Hence dim(algebra) ≤ n − rank J.  A point on a kink is refused (f need not be differentiable
there); a degenerate point (a dead unit) only lowers the rank, which raises the bound: it stays
sound, it only proves less.

The derivative is exact forward-mode differentiation (``Jet``) of the model's own forward pass.
With piecewise-linear activations every value is rational (python-flint ``fmpq``) and the rank is
exact; tanh makes values transcendental, carried as ``arb`` balls, and the rank is certified from
below by elimination on pivots whose balls exclude 0 (their product is a non-zero minor).
"""
from __future__ import annotations

import random
from dataclasses import dataclass

import flint
import sympy as sp

from symbolic.decision.budget import check_budget
from symbolic.networks.model import Abs as AbsLayer, LeakyReLU, Model, Nonlinearity, Tanh
from symbolic.networks.model import ReLU as ReLULayer
from symbolic.errors import CheckerError

ARB_PRECISION = 256
BATCH = 3               # inputs per batch of a model that normalises over its batch


class OnKink(CheckerError):
    """A nonlinearity's input is at (or, for a ball, possibly at) its kink."""


class NoExactDerivative(CheckerError):
    """A leaky slope that is neither rational nor a symbol: no exact arithmetic for it here."""


def _certainly_positive(value) -> bool:
    return value > 0


def _certainly_nonzero(value) -> bool:
    return value > 0 or value < 0


class Jet:
    """A value and its first derivatives {parameter index: ∂value/∂(direction p)}."""

    __slots__ = ("value", "tangent")

    def __init__(self, value, tangent: dict):
        self.value, self.tangent = value, tangent

    def __add__(self, other):
        if not isinstance(other, Jet):
            return Jet(self.value + other, self.tangent)
        tangent = dict(self.tangent)
        for p, v in other.tangent.items():
            tangent[p] = tangent[p] + v if p in tangent else v
        return Jet(self.value + other.value, tangent)

    __radd__ = __add__

    def __mul__(self, other):
        if not isinstance(other, Jet):
            return Jet(self.value * other, {p: v * other for p, v in self.tangent.items()})
        tangent = {p: v * other.value for p, v in self.tangent.items()}
        for p, v in other.tangent.items():
            term = self.value * v
            tangent[p] = tangent[p] + term if p in tangent else term
        return Jet(self.value * other.value, tangent)

    __rmul__ = __mul__

    def scaled(self, factor) -> "Jet":
        return Jet(self.value * factor, {p: v * factor for p, v in self.tangent.items()})


class _Differentiable(Nonlinearity):
    """The real activations on jets; a value at a kink raises ``OnKink``."""

    def __init__(self, slopes: dict):
        self.slopes = slopes

    def unit(self, layer, site, s):
        if isinstance(layer, Tanh):
            t = flint.arb(s.value).tanh()
            return Jet(t, {p: v * (1 - t * t) for p, v in s.tangent.items()})
        if not _certainly_nonzero(s.value):
            raise OnKink
        positive = _certainly_positive(s.value)
        if isinstance(layer, ReLULayer):
            return s if positive else s.scaled(0)
        if isinstance(layer, LeakyReLU):
            slope = sp.sympify(layer.slope).xreplace(self.slopes)
            if not slope.is_Rational:
                raise NoExactDerivative(f"the slope {slope} of {layer.describe()} is not rational")
            return s if positive else s.scaled(flint.fmpq(int(slope.p), int(slope.q)))
        if isinstance(layer, AbsLayer):
            return s if positive else s.scaled(-1)
        raise TypeError(f"no derivative for {layer.describe()}")

    def maximum(self, layer, site, candidates):
        for k, candidate in enumerate(candidates):
            if all(_certainly_positive(candidate.value - other.value)
                   for m, other in enumerate(candidates) if m != k):
                return candidate
        raise OnKink

    def power(self, layer, site, value, exponent):
        # a normalisation's 1/sqrt(v), v > 0: d(v^(-1/2)) = -(1/2) v^(-3/2) dv, as arb balls
        if exponent != sp.Rational(-1, 2) or not _certainly_positive(value.value):
            raise OnKink
        root = flint.arb(value.value).rsqrt()
        return Jet(root, {p: v * root * root * root * flint.fmpq(-1, 2) for p, v in value.tangent.items()})

    def softmax(self, layer, site, scores):
        # w_i = e^{s_i} / Σ_j e^{s_j}, dw_i = w_i (ds_i − Σ_j w_j ds_j), as arb balls
        exponentials = [flint.arb(s.value).exp() for s in scores]
        total = sum(exponentials[1:], exponentials[0])
        weights = [e / total for e in exponentials]
        mean = {}
        for w, s in zip(weights, scores):
            for p, v in s.tangent.items():
                mean[p] = mean[p] + w * v if p in mean else w * v
        jets = []
        for w, s in zip(weights, scores):
            tangent = {p: w * (s.tangent.get(p, 0) - m) for p, m in mean.items()}
            jets.append(Jet(w, tangent))
        return jets

    def constant(self, value):
        value = sp.Rational(value)
        return flint.fmpq(int(value.p), int(value.q))


def _random_rational(rng: random.Random) -> flint.fmpq:
    return flint.fmpq(rng.randint(-40, 40) or 1, rng.randint(1, 8))


def symbolic_slopes(model: Model, rng: random.Random) -> dict:
    """A rational value, not 0 or ±1, for each symbolic leaky slope (an identity in the slope
    holds at this value too, so the bound stays sound)."""
    slopes = {}

    def visit(layers):
        for layer in layers:
            if isinstance(layer, LeakyReLU) and sp.sympify(layer.slope).is_Symbol:
                slopes[sp.sympify(layer.slope)] = sp.Rational(rng.choice([2, 3, 5, 7]), 11)
            visit(getattr(layer, "layers", ()))
    visit(model.layers)
    return slopes


def output_jet(model: Model, theta: list, x: list, slopes: dict, log_scale: bool) -> Jet:
    """f(θ, x) and its derivatives, for a model with one output (``output_jets`` for K > 1)."""
    return model._only(output_jets(model, theta, x, slopes, log_scale))


def output_jets(model: Model, theta: list, x: list, slopes: dict, log_scale: bool) -> list[Jet]:
    """f_k(θ, x) and its derivatives, one jet per output k: θ_p·∂f_k/∂θ_p (``log_scale``) or
    ∂f_k/∂θ_p."""
    signal = [[Jet(v, {}) for v in row] for row in x]
    return model.forward_outputs(signal, _parameter_jets(model, theta, log_scale), _Differentiable(slopes))


def batch_output_jets(model: Model, theta: list, batch: list, slopes: dict, log_scale: bool) -> list[Jet]:
    """The jets of every output of every input of a batch, for a model that normalises over it."""
    signals = [[[Jet(v, {}) for v in row] for row in x] for x in batch]
    return [jet for outputs in model.forward_batch_outputs(signals, _parameter_jets(model, theta, log_scale),
                                                             _Differentiable(slopes))
            for jet in outputs]


def _parameter_jets(model: Model, theta: list, log_scale: bool) -> dict:
    """Each parameter matrix as jets: θ_p with the derivative θ_p (``log_scale``) or 1 along p."""
    params, index = {}, 0
    for name, (rows, columns) in model.shapes.items():
        params[name] = [[Jet(theta[index + i * columns + j],
                             {index + i * columns + j: theta[index + i * columns + j] if log_scale
                              else flint.fmpq(1)}) for j in range(columns)] for i in range(rows)]
        index += rows * columns
    return params


@dataclass
class Sample:
    """A rational parameter point θ and inputs off every kink, with the derivative rows there."""

    theta: list
    inputs: list
    rows: list            # one row per input and output, n entries (fmpq, or arb with tanh)


def sample(model: Model, count: int, rng: random.Random, slopes: dict, log_scale: bool = True,
           attempts: int = 50) -> Sample:
    """A random θ (no zero entry) and random inputs, none of them on a kink, until there are at
    least ``count`` rows: an input gives one row per output (K rows with K outputs; an invariant
    s has J s = 0 for each output f_k, so every row bounds the algebra)."""
    n = len(model.parameters)
    channels, length = model.input_shape
    # a softmax of large scores saturates (its derivative below any precision): small values there
    draw = (lambda r: _random_rational(r) / 40) if any(layer.saturates for layer in model.layers) \
        else _random_rational
    previous = flint.ctx.prec
    flint.ctx.prec = ARB_PRECISION
    try:
        for _ in range(attempts):
            theta = [draw(rng) for _ in range(n)]
            inputs, rows, misses = [], [], 0
            while len(rows) < count and misses < attempts * count:
                check_budget()
                x = [[draw(rng) for _ in range(length)] for _ in range(channels)]
                try:
                    if model.batch_dependent:
                        # a layer normalises over the batch: the outputs of a batch of BATCH inputs
                        x = [x] + [[[draw(rng) for _ in range(length)] for _ in range(channels)]
                                   for _ in range(BATCH - 1)]
                        jets = batch_output_jets(model, theta, x, slopes, log_scale)
                    else:
                        jets = output_jets(model, theta, x, slopes, log_scale)
                except OnKink:
                    misses += 1
                    continue
                inputs.append(x)
                rows += [[jet.tangent.get(p, 0) for p in range(n)] for jet in jets]
            if len(rows) >= count:
                return Sample(theta, inputs, rows)
    finally:
        flint.ctx.prec = previous
    raise OnKink(f"no parameter point with {count} inputs off the kinks in {attempts} draws")


def is_exact(rows) -> bool:
    return all(not isinstance(v, flint.arb) for row in rows for v in row)


def certified_rank(rows) -> tuple[int, bool]:
    """(r, exact): the exact rank of a rational matrix, or for balls a lower bound r certified by
    r pivots whose balls exclude 0."""
    if not rows:
        return 0, True
    width = len(rows[0])
    if is_exact(rows):
        matrix = flint.fmpq_mat(len(rows), width, [flint.fmpq(v) for row in rows for v in row])
        return matrix.rank(), True
    previous = flint.ctx.prec
    flint.ctx.prec = ARB_PRECISION
    try:
        matrix = [[flint.arb(v) for v in row] for row in rows]
        rank, used_rows, used_columns = 0, set(), set()
        while True:
            check_budget()
            # the entry farthest from 0 among those certainly non-zero
            best = None
            for r, row in enumerate(matrix):
                if r in used_rows:
                    continue
                for c, value in enumerate(row):
                    if c not in used_columns and _certainly_nonzero(value):
                        size = abs(value).mid()
                        if best is None or size > best[0]:
                            best = (size, r, c)
            if best is None:
                return rank, False
            _, r, c = best
            pivot = matrix[r][c]
            for other, row in enumerate(matrix):
                if other in used_rows or other == r:
                    continue
                factor = row[c] / pivot
                matrix[other] = [a - factor * b for a, b in zip(row, matrix[r])]
            used_rows.add(r)
            used_columns.add(c)
            rank += 1
    finally:
        flint.ctx.prec = previous
