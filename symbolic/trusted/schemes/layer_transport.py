"""The prediction claim f_{Tθ}(x) = f_θ(x) proved layer by layer, for a map that rescales every
parameter by a positive monomial in the group parameters (θ_p ↦ m_p·θ_p).

A claim with many kinks (a 2 × 2 max-pooling of two channels of four positions has 28 on its two
sides) is more than the exact identity test rewrites; its layers are not.  With s_k(θ) the signal
after layer k (s_0 = x) and L_k(z; θ) layer k as a function of its input z:

1. The factors.  A forward pass on factors proposes, for every value of every signal, the positive
   monomial d_{k,i} with s_k(Tθ)_i = d_{k,i}·s_k(θ)_i: a parameter carries m_p, an input 1; a
   product multiplies factors, a sum and a max ask their terms for one factor, a positively
   homogeneous activation keeps it.  The proposal is only a proposal: step 2 checks it.
2. One claim per layer and output entry, on fresh real symbols z for the layer's input (named
   apart from every symbol of the model and the map, so none is a parameter or a slope):
   L_k(D_{k−1} z; Tθ)_i = d_{k,i}·L_k(z; θ)_i for every real z, θ and positive group parameters,
   decided by the kernel's exact identity test (a convolution's entry has no kink, a ReLU's two,
   a max of four candidates six).
3. The composition, the inference scheme 'layer-by-layer transport' (``LAYER_BY_LAYER``, declared
   here and computed by ``conclusion``: this module is part of the kernel's trusted base; the
   claims are proved and composed by ``symbolic.symmetries.layer_transport``): D_0 = 1 (the input is not
   mapped) and, by induction on k, s_k(Tθ) = L_k(s_{k−1}(Tθ); Tθ) = L_k(D_{k−1}s_{k−1}(θ); Tθ) =
   D_k·L_k(s_{k−1}(θ); θ) = D_k·s_k(θ), the claim of step 2 at z = s_{k−1}(θ); every side is
   defined at every point (sums, products, ReLU, positive group parameters in denominators), so
   the claim for every real z holds at that z.  The scheme checks that each substitution is one
   (the layer's expression on z, with z replaced by the signal, is structurally the layer's
   output), and that the last factors are 1: then f_{Tθ}(x) = f_θ(x), the equation as written.
"""
from __future__ import annotations

import random

import sympy as sp

from symbolic.decision.witness import compare_at, exact_value
from symbolic.errors import CheckerError
from symbolic.kernel import Equation, scheme
from symbolic.networks.grid_layers import AvgPool2d, Conv2d, Flatten, MaxPool2d
from symbolic.networks.model import (Abs, AvgPool1d, Conv1d, Dense, LeakyReLU, MaxPool1d, Maxout, Nonlinearity,
                                     RealFunctions, ReLU)
from symbolic.networks.normalization import BatchNorm
from symbolic.relu import ReLU as relu_function

# layers whose output is a sum, product, ReLU or max of their inputs and parameters: defined at every
# point, and a positive factor passes through each
COVERED = (Dense, Conv1d, Conv2d, ReLU, LeakyReLU, Abs, Maxout, MaxPool1d, MaxPool2d, AvgPool1d, AvgPool2d,
           Flatten, BatchNorm)
HOMOGENEOUS = (ReLU, LeakyReLU, Abs)
WITNESS_POINTS = 2


class _Mismatch(CheckerError):
    """Two terms of a sum (or candidates of a max) carry different factors: no D_k."""


class Factor:
    """A value of the forward pass seen through its factor d: the value at Tθ is d times the value at θ."""

    def __init__(self, d):
        self.d = d

    def __mul__(self, other):
        return Factor(self.d * other.d) if isinstance(other, Factor) else self

    __rmul__ = __mul__

    def __add__(self, other):
        # a constant term is not rescaled, so a sum with one keeps factor 1 only
        d = other.d if isinstance(other, Factor) else (self.d if other == 0 else sp.S.One)
        if d != self.d:
            raise _Mismatch
        return self

    __radd__ = __add__


class _Factors(Nonlinearity):
    """How each nonlinearity passes a factor on: a homogeneous activation keeps it, a max needs one."""

    def unit(self, layer, site, s):
        if not isinstance(layer, HOMOGENEOUS):
            raise _Mismatch
        return s

    def maximum(self, layer, site, candidates):
        if any(c.d != candidates[0].d for c in candidates):
            raise _Mismatch
        return candidates[0]


def _scales(symmetry) -> dict | None:
    """{name: rows of m_p} when T rescales each parameter by a positive monomial, else None."""
    form = symmetry.monomial_form()
    if form is None or any(q != p or factor.is_positive is not True for p, (factor, q) in enumerate(form)):
        return None
    factors, index = {}, 0
    for name, (rows, columns) in symmetry.model.shapes.items():
        factors[name] = [[Factor(form[index + i * columns + j][0]) for j in range(columns)] for i in range(rows)]
        index += rows * columns
    return factors


def signal_factors(model, symmetry) -> list | None:
    """D_0, D_1, …, D_n: the factor of every value of every signal (channels of positions), or None
    when T rescales no signal by a positive factor per value."""
    if model.batch_dependent or not all(isinstance(layer, COVERED) for layer in model.layers):
        return None
    params = _scales(symmetry)
    if params is None:
        return None
    signal = [[Factor(sp.S.One) for _ in channel] for channel in model.input()]
    shape, factors = model.input_grid, [[[v.d for v in channel] for channel in signal]]
    try:
        for k, layer in enumerate(model.layers):
            signal = layer.forward(signal, params, _Factors(), (k,), shape)
            shape = layer.output_shape(shape)
            factors.append([[v.d for v in channel] for channel in signal])
    except _Mismatch:
        return None
    return factors


def fresh_prefix(model, symmetry) -> str:
    """The name of the fresh inputs: z, or zz, zzz, … when a symbol of the model or the map (a
    parameter named z1, a slope named z2_{1,1}) starts like it, so that no fresh input is one of them."""
    # the symbols a layer's expression can hold besides its input: parameters, the map's group
    # parameters, leaky slopes (the inputs x are never named like z)
    slopes = [sp.sympify(layer.slope) for layer in model.layers if isinstance(layer, LeakyReLU)]
    images = [v for m in symmetry.tensors().values() for v in m]
    used = [str(s) for s in set(model.parameters).union(*(sp.sympify(e).free_symbols for e in (*slopes, *images)))]
    prefix = "z"
    while any(name.startswith(prefix) for name in used):
        prefix += "z"
    return prefix


def _fresh_input(prefix: str, k: int, factors) -> list:
    """Layer k's input as fresh real symbols z^(k)_{c,t} (``prefix`` for z)."""
    return [[sp.Symbol(f"{prefix}{k}_{{{c + 1},{t + 1}}}", real=True) for t in range(len(channel))]
            for c, channel in enumerate(factors)]


def _shapes(model) -> list:
    shapes = [model.input_grid]
    for layer in model.layers:
        shapes.append(layer.output_shape(shapes[-1]))
    return shapes


def _on_fresh_inputs(model, symmetry, factors):
    """For each layer k: (k, the layer, its input shape, the fresh input z, D_{k−1} z,
    L_k(z; θ), L_k(D_{k−1} z; Tθ))."""
    images = {name: m.tolist() for name, m in symmetry.tensors().items()}
    params = {name: m.tolist() for name, m in model.tensors.items()}
    prefix = fresh_prefix(model, symmetry)
    for k, (layer, shape) in enumerate(zip(model.layers, _shapes(model))):
        z = _fresh_input(prefix, k + 1, factors[k])
        scaled = [[d * v for d, v in zip(ds, vs)] for ds, vs in zip(factors[k], z)]
        yield (k, layer, shape, z, scaled, layer.forward(z, params, RealFunctions(), (k,), shape),
               layer.forward(scaled, images, RealFunctions(), (k,), shape))


def _claims_of_layer(k, layer, original, mapped, factors) -> list[tuple[str, Equation]]:
    """(its name, L_k(D_{k−1} z; Tθ)_i = d_{k,i}·L_k(z; θ)_i) for each output entry of layer k."""
    return [(f"layer {k + 1} ({layer.describe()}), value ({c + 1}, {t + 1})", Equation(lhs, rhs if d == 1 else d * rhs))
            for c, (left, right, ds) in enumerate(zip(mapped, original, factors[k + 1]))
            for t, (lhs, rhs, d) in enumerate(zip(left, right, ds))]


def layer_claims(model, symmetry, factors) -> list[tuple[str, Equation]]:
    """Step 2: (its name, L_k(D_{k−1} z; Tθ)_i = d_{k,i}·L_k(z; θ)_i) for every layer and output entry."""
    return [claim for k, layer, _, _, _, original, mapped in _on_fresh_inputs(model, symmetry, factors)
            for claim in _claims_of_layer(k, layer, original, mapped, factors)]


def _defined_everywhere(expr) -> bool:
    """Sums, products, ReLU, whole powers, and powers of positive symbols: a real number at every point."""
    for node in sp.preorder_traversal(sp.sympify(expr)):
        if isinstance(node, sp.Pow):
            if not ((node.exp.is_Integer and node.exp > 0) or (node.base.is_Symbol and node.base.is_positive)):
                return False
        elif isinstance(node, sp.Function) and not isinstance(node, relu_function):
            return False
        elif not isinstance(node, (sp.Add, sp.Mul, sp.Pow, sp.Symbol, sp.Rational, relu_function)):
            return False
    return True


def _substituted(expr, z, values):
    return expr.xreplace({s: v for zs, vs in zip(z, values) for s, v in zip(zs, vs)})


def conclusion(premises, model, symmetry, output: int, seed: int = 0):
    """Step 3, the scheme's conclusion: f_k(Tθ)(x) = f_k(θ)(x) for output k (from 0), as the Equation
    the direct claim states, from the premises (the layer claims of ``layer_claims``, each a kernel
    theorem); or the reason it does not follow."""
    factors = signal_factors(model, symmetry)
    if factors is None:
        return "T does not rescale every value of every layer by a positive factor of its own"
    if any(d != 1 for channel in factors[0] + factors[-1] for d in channel):
        return "the input or the output is rescaled: D_0 and D_n must be 1"
    layers = list(_on_fresh_inputs(model, symmetry, factors))
    claims = [claim for k, layer, _, _, _, on_z, on_scaled in layers
              for claim in _claims_of_layer(k, layer, on_z, on_scaled, factors)]
    statements = [p.theorem.statement for p in premises]
    if len(statements) != len(claims) or not all(
            isinstance(s, Equation) and s.lhs == claim.lhs and s.rhs == claim.rhs
            for s, (_, claim) in zip(statements, claims)):
        return "the premises are not the layer claims L_k(D_(k-1) z; T theta) = D_k L_k(z; theta) of this model and map"
    if not all(_defined_everywhere(side) for _, claim in claims for side in (claim.lhs, claim.rhs)):
        return "a layer claim has a side that is not defined at every point"
    # the induction: each layer's output, at θ and at Tθ, is its expression on z with z := its input
    images = {name: m.tolist() for name, m in symmetry.tensors().items()}
    params = {name: m.tolist() for name, m in model.tensors.items()}
    at_theta, at_image = model.input(), model.input()
    for k, layer, shape, z, scaled, on_z, on_scaled in layers:
        on_z_image = layer.forward(z, images, RealFunctions(), (k,), shape)
        next_theta = layer.forward(at_theta, params, RealFunctions(), (k,), shape)
        next_image = layer.forward(at_image, images, RealFunctions(), (k,), shape)
        for c in range(len(on_z)):
            for t in range(len(on_z[c])):
                if not (_substituted(on_z[c][t], z, at_theta) == next_theta[c][t]
                        and _substituted(on_z_image[c][t], z, at_image) == next_image[c][t]
                        and _substituted(on_z_image[c][t], z, scaled) == on_scaled[c][t]):
                    return f"layer {k + 1}'s output is not its expression on z at its input (a substitution fails)"
        at_theta, at_image = next_theta, next_image
    lhs = [v for channel in at_image for v in channel][output]
    rhs = [v for channel in at_theta for v in channel][output]
    if not (_defined_everywhere(lhs) and _defined_everywhere(rhs)):
        return "the prediction is not defined at every point"
    # the independent witness: the two predictions agree exactly at random rational points, comparing non-zero values
    rng = random.Random(seed)
    symbols = sorted(lhs.free_symbols | rhs.free_symbols, key=sp.default_sort_key)
    compared = False
    for _ in range(WITNESS_POINTS):
        point = {s: sp.Rational(rng.randint(1, 99), rng.randint(1, 9)) * (1 if s.is_positive else rng.choice((-1, 1)))
                 for s in symbols}
        if compare_at(lhs, rhs, point).differ:
            return "the two predictions differ at a random rational point"
        compared = compared or exact_value(rhs, point) not in (None, 0)
    if not compared:
        return "no random point compared non-zero predictions"
    return Equation(lhs, rhs)


def kinks(expressions) -> int:
    """ReLU kinks of the expressions together (a max is written in ReLU form here)."""
    return sum(len(sp.sympify(e).atoms(relu_function)) for e in expressions)


def _composed(premises, *, model, symmetry, output, seed):
    return conclusion(premises, model, symmetry, output, seed)


LAYER_BY_LAYER = scheme("layer-by-layer transport", _composed,
                        "L_k(D_(k-1) z; T theta) = D_k L_k(z; theta) for every real z and every layer k, D_0 = D_n = 1, "
                        "every side defined at every point, give by induction on k that the signal after layer k at "
                        "T theta is D_k times the signal at theta (the claim of layer k at z = its input at theta), "
                        "so f_(T theta)(x) = f_theta(x)")
