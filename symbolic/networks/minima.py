"""Random interpolating minima (loss exactly 0, off the kink set) of deep ReLU networks, and the exact
mean-squared-error Hessian of a one-hidden-layer network at a rational point."""
from __future__ import annotations

import random
from dataclasses import dataclass
from fractions import Fraction

from symbolic.networks.deep import DeepNet, exact_mse_hessian, exact_prediction, on_kink
from symbolic.networks.polynomial import PatternNetwork
from symbolic.numerics.inertia import inertia
from symbolic.numerics.real_network import preactivations

MAX_ATTEMPTS = 10_000


def mse_hessian_at(model: PatternNetwork, theta, inputs, targets):
    """The exact MSE Hessian (rational matrix) at θ, on θ's own activation pattern."""
    pattern = [[1 if s > 0 else 0 for s in row]
               for row in preactivations(theta, inputs, model.d, model.h, False)]
    values = {}
    for name, value in zip(model.parameter_names, theta):
        values[name] = value
    for k, row in enumerate(inputs):
        for i, value in enumerate(row):
            values[f"x_{k + 1}_{i + 1}"] = value
        values[f"y_{k + 1}"] = targets[k]
        for j, sigma in enumerate(pattern[k]):
            values[f"sigma_{k + 1}_{j + 1}"] = sigma
    values["alpha"] = values["alphabar"] = 1
    size = len(model.parameter_names)
    matrix = [[Fraction(0)] * size for _ in range(size)]
    for (k, l), entry in model.hessian.items():
        matrix[k][l] = matrix[l][k] = model.evaluate(entry, values) / model.scale
    return matrix


def layer_sizes(net: DeepNet) -> list[int]:
    return [W.rows * W.cols for W in net.weights]


@dataclass
class Minimum:
    """A random interpolating minimum: loss exactly 0 at θ, off the kink set."""

    net: DeepNet
    theta: list
    inputs: list
    targets: list
    hessian: list


def interpolating_minimum(net: DeepNet, n: int, rng: random.Random, dead_output: bool = False) -> Minimum:
    """Rational θ and inputs off the kinks, targets = f_θ(x): L(θ) = 0, a global minimum of MSE.
    ``dead_output`` puts θ_K = 0 (a minimum of the zero function): the control's instance."""
    sizes = layer_sizes(net)
    for _ in range(MAX_ATTEMPTS):
        theta = [Fraction(rng.randint(-16, 16) or 1, 8) for _ in range(sum(sizes))]
        if dead_output:
            theta[-sizes[-1]:] = [Fraction(0)] * sizes[-1]
        inputs = [[Fraction(rng.randint(-16, 16), 8) for _ in range(net.widths[0])] for _ in range(n)]
        if on_kink(net, theta, inputs):
            continue
        targets = [exact_prediction(net, theta, x) for x in inputs]
        hessian = exact_mse_hessian(net, theta, inputs, targets)
        if inertia(hessian).rank > 0:
            return Minimum(net, theta, inputs, targets, hessian)
    raise ArithmeticError(f"no minimum off the kinks with H != 0 in {MAX_ATTEMPTS} random draws")
