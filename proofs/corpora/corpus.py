"""A soundness corpus: false claims that must be REFUTED with a verified witness, and true claims
that must be PROVED.  ``python -m proofs corpus`` runs it and prints the figures.

Each false claim is a variant researchers could plausibly state: a wrong scale exponent, α ≤ 0,
an activation that is not positively homogeneous, a bias left unscaled, a weight penalty, a wrong
Hessian congruence, a dropped 1/N, per-neuron scales that do not cancel, deep layer scales whose
product is not 1.
"""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from typing import Callable

import sympy as sp

from symbolic import ReLU, Status, Verdict, check_identity, leaky_relu
from symbolic.networks.deep import DeepNet, per_neuron_rescaling
from symbolic.networks.network import OneHiddenLayerNet
from symbolic.networks.rescaling import rescale

from proofs import theorem1_observational_equivalence as theorem1
from proofs.commands.arguments import Parser
from proofs import theorem3_derivative_transformation as theorem3


@dataclass(frozen=True)
class Claim:
    """A claim and whether it is true.  An identity between expressions gives its two ``sides``
    (checked by check_identity, and its witness re-checked on them); other claims give ``check``."""

    name: str
    true: bool
    sides: Callable[[], tuple] | None = None
    check: Callable[[], Verdict] | None = None

    def verdict(self) -> Verdict:
        return check_identity(*self.sides()) if self.sides is not None else self.check()


alpha = sp.Symbol("alpha", positive=True)
beta = sp.Symbol("beta", positive=True)
real_alpha = sp.Symbol("alpha", real=True)
negative_alpha = sp.Symbol("alpha", negative=True)
x, y, s, t = sp.symbols("x y s t", real=True)
lam = sp.Symbol("lambda", positive=True)
c = sp.Symbol("c", positive=True)


def _prediction_sides(d, h, W_scale, v_scale, activation=ReLU, bias_scale=None):
    """f at (W_scale·W, v_scale·v [, bias_scale·b]) against f at (W, v [, b])."""
    net = OneHiddenLayerNet(d, h)
    inputs = net.input()
    if bias_scale is None:
        lhs = net.prediction(inputs, net.W * W_scale, net.v * v_scale, activation=activation)
        rhs = net.prediction(inputs, activation=activation)
        return lhs, rhs
    b = sp.Matrix(1, h, lambda _, j: sp.Symbol(f"b_{{{j + 1}}}", real=True))
    pre = lambda W, bias: list(inputs * W + bias)  # noqa: E731
    lhs = sum(activation(p) * v_scale * net.v[j] for j, p in enumerate(pre(net.W * W_scale, b * bias_scale)))
    rhs = sum(activation(p) * net.v[j] for j, p in enumerate(pre(net.W, b)))
    return lhs, rhs


def _penalised_loss_sides(penalty):
    net = OneHiddenLayerNet(2, 2)
    inputs = [net.input(k + 1) for k in range(2)]
    targets = sp.symbols("y_1:3", real=True)

    def loss(W, v):
        mse = sum((net.prediction(xk, W, v) - yk) ** 2 for xk, yk in zip(inputs, targets)) / 2
        return mse + penalty(list(W), list(v))
    return loss(*rescale(net.W, net.v, alpha)), loss(net.W, net.v)


def _dropped_mean_sides():
    net = OneHiddenLayerNet(1, 2)
    inputs = [net.input(k + 1) for k in range(3)]
    targets = sp.symbols("y_1:4", real=True)
    errors = lambda W, v: [(net.prediction(xk, W, v) - yk) ** 2 for xk, yk in zip(inputs, targets)]  # noqa: E731
    mean_at_scaled = sum(errors(*rescale(net.W, net.v, alpha))) / 3
    return mean_at_scaled, sum(errors(net.W, net.v))


def _per_neuron_sides(out_scales, h=2, d=2):
    net = OneHiddenLayerNet(d, h)
    scales = sp.symbols(f"c_1:{h + 1}", positive=True)
    W, _ = per_neuron_rescaling(net.W, net.v, scales)
    v = sp.Matrix(h, 1, lambda j, _: net.v[j] * out_scales(scales)[j])
    return net.prediction(net.input(), W, v), net.prediction(net.input())


def _deep_sides(widths, scales, bias=False, bias_scales=None):
    net = DeepNet(tuple(widths), bias=bias)
    weights, biases = net.rescaled(scales, bias_scales)
    inputs = net.input()
    return net.prediction(inputs, weights, biases), net.prediction(inputs)


def _deep_linear_sides(scales):
    net = DeepNet((2, 2, 2, 1))
    identity = lambda z: z  # noqa: E731
    weights, _ = net.rescaled(scales)
    return (net.prediction(net.input(), weights, activation=identity),
            net.prediction(net.input(), activation=identity))


def _congruence(variant, loss="mse", order=2):
    return lambda: theorem3.check(2, 2, 2, loss, order, theorem3.VARIANTS[variant])


gelu = lambda z: z * (1 + sp.erf(z / sp.sqrt(2))) / 2                # noqa: E731
elu = lambda z: ReLU(z) + sp.exp(-ReLU(-z)) - 1                      # noqa: E731
sigmoid = lambda z: 1 / (1 + sp.exp(-z))                             # noqa: E731
softplus = lambda z: sp.log(1 + sp.exp(z))                           # noqa: E731
a1, a2, a3 = sp.symbols("alpha1:4", positive=True)

FALSE_CLAIMS = [
    # wrong scale exponents
    Claim("alpha W with alpha v", False, sides=lambda: _prediction_sides(2, 2, alpha, alpha)),
    Claim("alpha^2 on W, 1/alpha on v", False, sides=lambda: _prediction_sides(2, 2, alpha ** 2, 1 / alpha)),
    Claim("alpha on W, 1/alpha^2 on v", False, sides=lambda: _prediction_sides(2, 2, alpha, alpha ** -2)),
    Claim("alpha on W, unscaled v", False, sides=lambda: _prediction_sides(1, 2, alpha, 1)),
    Claim("ReLU(alpha s + beta) = alpha ReLU(s) + beta", False,
          sides=lambda: (ReLU(alpha * s + beta), alpha * ReLU(s) + beta)),
    # alpha <= 0 admitted
    Claim("alpha real (negative admitted)", False, sides=lambda: _prediction_sides(2, 2, real_alpha, 1 / real_alpha)),
    Claim("alpha negative", False, sides=lambda: _prediction_sides(1, 1, negative_alpha, 1 / negative_alpha)),
    Claim("ReLU(alpha s) = alpha ReLU(s), alpha real", False,
          sides=lambda: (ReLU(real_alpha * s), real_alpha * ReLU(s))),
    # activations that are not positively homogeneous
    Claim("tanh network", False, sides=lambda: _prediction_sides(2, 2, alpha, 1 / alpha, sp.tanh)),
    Claim("sigmoid network", False, sides=lambda: _prediction_sides(1, 2, alpha, 1 / alpha, sigmoid)),
    Claim("softplus network", False, sides=lambda: _prediction_sides(1, 2, alpha, 1 / alpha, softplus)),
    Claim("GELU network", False, sides=lambda: _prediction_sides(1, 1, alpha, 1 / alpha, gelu)),
    Claim("ELU network", False, sides=lambda: _prediction_sides(1, 2, alpha, 1 / alpha, elu)),
    Claim("squared activation", False, sides=lambda: _prediction_sides(2, 1, alpha, 1 / alpha, lambda z: z ** 2)),
    Claim("leaky ReLU with a real scale", False,
          sides=lambda: (leaky_relu(real_alpha * s, sp.Rational(1, 10)),
                         real_alpha * leaky_relu(s, sp.Rational(1, 10)))),
    # biases
    Claim("bias left unscaled", False, sides=lambda: _prediction_sides(2, 2, alpha, 1 / alpha, bias_scale=1)),
    Claim("bias scaled by 1/alpha", False, sides=lambda: _prediction_sides(1, 2, alpha, 1 / alpha, bias_scale=1 / alpha)),
    # weight penalties
    Claim("L2 weight penalty", False, sides=lambda: _penalised_loss_sides(
        lambda W, v: lam * sum(p ** 2 for p in W + v))),
    Claim("L1 weight penalty", False, sides=lambda: _penalised_loss_sides(
        lambda W, v: lam * sum(sp.Abs(p) for p in W + v))),
    Claim("L2 penalty on the output weights only", False, sides=lambda: _penalised_loss_sides(
        lambda W, v: lam * sum(p ** 2 for p in v))),
    # wrong Hessian congruences and gradients
    Claim("Hessian congruence with S^-1", False, check=_congruence("S inverse")),
    Claim("one-sided congruence H(T theta) = S H(theta)", False, check=_congruence("one-sided")),
    Claim("swapped congruence H(T theta) = S^-1 H(theta) S", False, check=_congruence("swapped")),
    Claim("gradient without the scaling", False, check=_congruence("unscaled gradient", order=1)),
    Claim("gradient with S^-1", False, check=_congruence("S inverse", order=1)),
    Claim("Hessian congruence, v scaled by alpha too", False, check=_congruence("v scaled by alpha")),
    Claim("Hessian congruence, bias unscaled", False, check=_congruence("unscaled bias")),
    Claim("logistic Hessian congruence with S^-1", False, check=_congruence("S inverse", loss="logistic")),
    # a dropped 1/N
    Claim("mean loss at T theta equals summed loss at theta", False, sides=_dropped_mean_sides),
    # per-neuron scales that do not cancel
    Claim("per-neuron scales crossed between units", False,
          sides=lambda: _per_neuron_sides(lambda cs: [1 / cs[1], 1 / cs[0]])),
    Claim("per-neuron scale squared on the way out", False,
          sides=lambda: _per_neuron_sides(lambda cs: [cs[0] ** -2, 1 / cs[1]])),
    # deep networks whose layer scales do not multiply to 1
    Claim("deep ReLU, scales a1, a2, 1/a1", False, sides=lambda: _deep_sides((2, 2, 2, 1), [a1, a2, 1 / a1])),
    Claim("deep ReLU, scales a1, a2, a1 a2", False, sides=lambda: _deep_sides((1, 2, 2, 1), [a1, a2, a1 * a2])),
    Claim("deep linear, scales a1, a2, a3", False, sides=lambda: _deep_linear_sides([a1, a2, a3])),
    Claim("deep Hessian congruence with a wrong D", False, check=lambda: theorem3.deep_congruence(
        (2, 2, 2, 1), claimed_scaling=[a1, a2, a1 * a2])),
    # generic ReLU algebra
    Claim("ReLU is additive", False, sides=lambda: (ReLU(x + y), ReLU(x) + ReLU(y))),
    Claim("|x + y| = |x| + |y|", False, sides=lambda: (sp.Abs(x + y), sp.Abs(x) + sp.Abs(y))),
    Claim("max(alpha x, y) = alpha max(x, y)", False,
          sides=lambda: (sp.Max(alpha * x, y), alpha * sp.Max(x, y))),
    Claim("Hessian norm of the example is scale-free", False, sides=lambda: (
        sp.Rational(5, 2) * (c ** 2 + c ** -2), 5)),
]

TRUE_CLAIMS = [
    Claim("ReLU positive homogeneity", True, sides=lambda: (ReLU(alpha * s), alpha * ReLU(s))),
    Claim("leaky ReLU homogeneity", True, sides=lambda: (
        leaky_relu(alpha * s, sp.Rational(1, 5)), alpha * leaky_relu(s, sp.Rational(1, 5)))),
    Claim("Abs homogeneity", True, sides=lambda: (sp.Abs(alpha * s), alpha * sp.Abs(s))),
    Claim("max of two units", True, sides=lambda: (sp.Max(alpha * s, alpha * t), alpha * sp.Max(s, t))),
    Claim("max of a unit at two scales", True, sides=lambda: (
        sp.Max(alpha * s, beta * s), ReLU(s) * sp.Max(alpha, beta) - ReLU(-s) * sp.Min(alpha, beta))),
    Claim("ReLU(x) - ReLU(-x) = x", True, sides=lambda: (ReLU(x) - ReLU(-x), x)),
    Claim("max via abs", True, sides=lambda: (sp.Max(x, y), (x + y + sp.Abs(x - y)) / 2)),
    Claim("min via abs", True, sides=lambda: (sp.Min(x, y), (x + y - sp.Abs(x - y)) / 2)),
    Claim("abs via ReLU", True, sides=lambda: (sp.Abs(x), ReLU(x) + ReLU(-x))),
    Claim("ReLU idempotent", True, sides=lambda: (ReLU(ReLU(x)), ReLU(x))),
    Claim("max + min = sum", True, sides=lambda: (sp.Max(x, y) + sp.Min(x, y), x + y)),
    Claim("|x||y| - xy = 2 ReLU(-xy)", True, sides=lambda: (
        sp.Abs(x) * sp.Abs(y) - x * y, 2 * ReLU(-x * y))),
    Claim("leaky ReLU minus its linear part", True, sides=lambda: (
        leaky_relu(x, sp.Rational(1, 5)) - x / 5, sp.Rational(4, 5) * ReLU(x))),
    Claim("worked example: same function", True, sides=lambda: ((1 / c) * sp.Max(0, c * x), sp.Max(x, 0))),
    Claim("one hidden layer, d=2 h=3", True, sides=lambda: _prediction_sides(2, 3, alpha, 1 / alpha)),
    Claim("leaky ReLU network", True, sides=lambda: _prediction_sides(
        2, 2, alpha, 1 / alpha, lambda z: leaky_relu(z, sp.Rational(1, 10)))),
    Claim("absolute-value network", True, sides=lambda: _prediction_sides(2, 2, alpha, 1 / alpha, sp.Abs)),
    Claim("biases scaled with their layer", True, sides=lambda: _prediction_sides(2, 2, alpha, 1 / alpha, bias_scale=alpha)),
    Claim("per-neuron rescaling, h=2", True, sides=lambda: _per_neuron_sides(lambda cs: [1 / k for k in cs])),
    Claim("per-neuron rescaling, h=3", True, sides=lambda: _per_neuron_sides(lambda cs: [1 / k for k in cs], h=3)),
    Claim("deep linear, layer scales with product 1", True,
          sides=lambda: _deep_linear_sides([a1, a2, 1 / (a1 * a2)])),
    Claim("deep ReLU, two hidden layers, product 1", True,
          sides=lambda: _deep_sides((2, 2, 2, 1), [a1, a2, 1 / (a1 * a2)])),
    Claim("deep ReLU, three hidden layers, product 1", True,
          sides=lambda: _deep_sides((1, 2, 2, 2, 1), [a1, a2, a3, 1 / (a1 * a2 * a3)])),
    Claim("deep ReLU with biases scaled cumulatively", True,
          sides=lambda: _deep_sides((2, 2, 2, 1), [a1, a2, 1 / (a1 * a2)], bias=True)),
    Claim("MSE loss invariance", True, check=lambda: theorem1.loss_invariance(2, 2, 2, "mse")),
    Claim("hinge loss invariance", True, check=lambda: theorem1.loss_invariance(2, 2, 2, "hinge")),
    Claim("absolute-error loss invariance", True, check=lambda: theorem1.loss_invariance(1, 2, 3, "absolute")),
    Claim("generic loss invariance", True, check=lambda: theorem1.loss_invariance(2, 1, 3, "generic")),
    Claim("Theorem 3 gradient, two layers", True, check=_congruence("theorem", order=1)),
    Claim("Theorem 3 Hessian congruence, two layers", True, check=_congruence("theorem")),
    Claim("Theorem 3 Hessian congruence, logistic loss", True, check=_congruence("theorem", loss="logistic")),
    Claim("Hessian congruence with biases scaled with their layer", True,
          check=_congruence("bias scaled with its layer")),
    Claim("Theorem 3 Hessian congruence, three layers", True,
          check=lambda: theorem3.deep_congruence((2, 2, 2, 1))),
    Claim("Theorem 3 Hessian congruence, two layers (deep form)", True,
          check=lambda: theorem3.deep_congruence((2, 3, 1), n=2)),
]


@dataclass
class Outcome:
    claim: Claim
    verdict: Verdict
    seconds: float

    @property
    def as_expected(self) -> bool:
        wanted = Status.PROVED if self.claim.true else Status.REFUTED
        return self.verdict.status is wanted and (self.claim.true or bool(self.verdict.witness))


def run_corpus(claims=None) -> list[Outcome]:
    outcomes = []
    for claim in claims if claims is not None else FALSE_CLAIMS + TRUE_CLAIMS:
        start = time.perf_counter()
        verdict = claim.verdict()
        outcomes.append(Outcome(claim, verdict, time.perf_counter() - start))
    return outcomes


def figures(outcomes) -> dict:
    count = lambda true, status: sum(o.claim.true is true and o.verdict.status is status  # noqa: E731
                                     for o in outcomes)
    return {
        "false claims": sum(not o.claim.true for o in outcomes),
        "false refuted": count(False, Status.REFUTED),
        "false proved": count(False, Status.PROVED),
        "false undecided": count(False, Status.UNDECIDED),
        "true claims": sum(o.claim.true for o in outcomes),
        "true proved": count(True, Status.PROVED),
        "true refuted": count(True, Status.REFUTED),
        "true undecided": count(True, Status.UNDECIDED),
    }


EXAMPLE = "python -m proofs corpus"


def main(argv: list[str]) -> int:
    Parser(prog="python -m proofs corpus",
           description="Run the soundness corpus: every false claim must come out REFUTED with a "
                       "verified witness, every true claim PROVED.  Prints one line per claim and "
                       "the figures; exit code 0 when every verdict is as expected, else 1.",
           epilog=f"example: {EXAMPLE}").parse_args(argv)
    outcomes = run_corpus()
    for outcome in outcomes:
        mark = "ok " if outcome.as_expected else "BAD"
        print(f"{mark} {'true ' if outcome.claim.true else 'false'} {outcome.verdict.status.name:<9} "
              f"{outcome.seconds:6.2f}s  {outcome.claim.name}")
    numbers = figures(outcomes)
    print()
    print(f"{len(outcomes)} claims tried: {numbers['false claims']} false "
          f"({numbers['false refuted']} refuted, {numbers['false proved']} proved, "
          f"{numbers['false undecided']} undecided), {numbers['true claims']} true "
          f"({numbers['true proved']} proved, {numbers['true refuted']} refuted, "
          f"{numbers['true undecided']} undecided)")
    return 0 if all(o.as_expected for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
