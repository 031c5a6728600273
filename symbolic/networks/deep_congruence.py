"""The gradient and Hessian congruence of a deep ReLU network with biases under the layer-wise map
(Appendix B), as a statement the kernel hands to the oracle 'deep pattern-form congruence':
exact on the pattern form (Laurent polynomials in the α_k, every activation pattern), with an
mpmath witness on the real network (max) at two precisions.

θ_k ↦ α_k θ_k (α_K = 1/∏_{k<K} α_k), b_k ↦ (∏_{j≤k} α_j) b_k; a ``control`` names a wrong map for the
negative controls ("unscaled hidden bias", "output bias scaled like its weight").
"""
from __future__ import annotations

import random

import mpmath
import sympy as sp

from symbolic.decision.budget import check_budget
from symbolic.kernel import Fact
from symbolic.networks.deep import DeepNet, DeepPattern, real_mse
from symbolic.numerics.real_network import hessian_residual, witness_answer
from symbolic.kernel.verdict import Holds, Status, Verdict

WITNESS_POINTS = 3
CONGRUENCE = "gradient and Hessian congruence of a deep network under the layer-wise map"


def layer_scales(depth: int) -> list:
    """α_1, …, α_{K−1} symbolic and positive, α_K = 1/∏_{k<K} α_k."""
    alphas = list(sp.symbols(f"alpha1:{depth}", positive=True))
    return alphas + [1 / sp.Mul(*alphas)]


def cumulative(scales) -> list:
    """∏_{j≤k} α_j for every k: the factor of the bias b_k."""
    return [sp.Mul(*scales[: k + 1]) for k in range(len(scales))]


def bias_factors(depth: int, scales, control: str | None = None) -> list:
    factors = cumulative(scales)
    if control == "unscaled hidden bias":
        factors[0] = sp.Integer(1)
    elif control == "output bias scaled like its weight":
        factors[-1] = scales[-1]
    return factors


def congruence(widths, n: int, control: str | None, bias: bool) -> Fact:
    """∇L(Tθ) = D ∇L(θ) and H(Tθ) = D H(θ) D at every θ off the kink set, N = n, MSE."""
    label = (control or "b_k scaled by prod_(j<=k) alpha_j") if bias else "no biases"
    return Fact(CONGRUENCE, (tuple(widths), n, control, bias),
                reading=f"grad L(T theta) = D grad L(theta) and H(T theta) = D H(theta) D, D = diag(1/factor), "
                        f"widths {tuple(widths)}, N = {n}, MSE, {label}")


def decide_deep_congruence(statement, seed: int = 0):
    """Oracle 'deep pattern-form congruence': every gradient and Hessian entry an exact identity on the
    pattern form, and the mpmath witness on the real network rounding noise at an informative point."""
    widths, n, control, bias = statement.arguments
    claim = statement.text
    net = DeepNet(tuple(widths), bias=bias)
    K = net.depth
    pattern = DeepPattern(net, n)
    # each parameter's transform factor (a monomial in α_k, ᾱ_k) and its inverse, the entry of D_α
    weight_factor = [pattern.layer_scale(k) for k in range(K)]
    weight_inverse = [pattern.inverse_scale(k) for k in range(K)]
    bias_factor, bias_inverse = [], []
    for k in range(K):
        previous = (bias_factor[-1], bias_inverse[-1]) if k else (1, 1)
        bias_factor.append(previous[0] * weight_factor[k])
        bias_inverse.append(previous[1] * weight_inverse[k])
    if control == "unscaled hidden bias":
        bias_factor[0] = bias_inverse[0] = pattern.context.constant(1)
    elif control == "output bias scaled like its weight":
        bias_factor[-1], bias_inverse[-1] = weight_factor[-1], weight_inverse[-1]
    factor = [weight_factor[k] for k, W in enumerate(net.weights) for _ in W]
    factor += [bias_factor[k] for k, b in enumerate(net.biases) for _ in b]
    inverse = [weight_inverse[k] for k, W in enumerate(net.weights) for _ in W]
    inverse += [bias_inverse[k] for k, b in enumerate(net.biases) for _ in b]
    size = len(factor)
    images = [f * g for f, g in zip(factor, pattern.context.gens()[:size])]
    images += list(pattern.context.gens()[size:])

    loss = pattern.loss()
    holds, entry = True, None
    for k in range(size):
        check_budget()
        first = loss.derivative(k)
        if not pattern.is_zero(first.compose(*images) - inverse[k] * first):
            holds, entry = False, f"gradient {pattern.parameter_names[k]}"
            break
        for l in range(k, size):
            second = first.derivative(l)
            if not pattern.is_zero(second.compose(*images) - inverse[k] * inverse[l] * second):
                holds, entry = False, f"Hessian ({pattern.parameter_names[k]}, {pattern.parameter_names[l]})"
                break
        if not holds:
            break
    # witness on the real network (max): D²L(Tθ)[u, w] against D²L(θ)[Du, Dw]
    parameters = net.parameters()
    scales = layer_scales(K)
    factors = bias_factors(K, scales, control)
    transform = {p: scales[k] for k, W in enumerate(net.weights) for p in W}
    transform.update({p: factors[k] for k, b in enumerate(net.biases) for p in b})
    rng = random.Random(seed)
    alphas = sorted(set().union(*[sp.sympify(s).free_symbols for s in scales]), key=str)
    best, informative = None, 0
    for _ in range(WITNESS_POINTS):
        check_budget()
        inputs = [[sp.Rational(rng.randint(-40, 40) or 1, 8) for _ in range(widths[0])] for _ in range(n)]
        targets = [sp.Rational(rng.randint(-40, 40) or 1, 8) for _ in range(n)]
        point = {a: sp.Rational(rng.randint(2, 30), rng.randint(31, 60)) for a in alphas}
        theta = [sp.Rational(rng.randint(-40, 40) or 1, 8) for _ in parameters]
        values = [sp.sympify(transform[p]).xreplace(point) for p in parameters]
        as_mpf = lambda r: mpmath.mpf(int(r.p)) / int(r.q)  # noqa: E731
        function = real_mse(net, [[as_mpf(v) for v in x] for x in inputs], [as_mpf(y) for y in targets])
        residual = hessian_residual(function, theta, values, [1 / f for f in values], rng)
        if residual.scale == 0:
            continue    # every path dead: both sides 0, nothing compared
        informative += 1
        if best is None or residual.key() > best[0].key():
            point.update({f"x_{m + 1}": x for m, x in enumerate(inputs)})
            point.update({f"y_{m + 1}": y for m, y in enumerate(targets)})
            best = (residual, point, theta)
        if best[0].stable:
            break
    residual, point, theta = best if best is not None else (None, {}, [])
    witness = {str(s): v for s, v in point.items()}
    witness.update({f"theta[{p}]": t for p, t in zip(parameters, theta)})
    answer = witness_answer(claim, residual, informative)
    if isinstance(answer, Holds) and holds:
        return Holds(("exact Laurent-polynomial identity on the pattern form, every gradient and Hessian entry",
                      *answer.evidence), residual=answer.residual, details=answer.details)
    if not holds and residual is not None and residual.stable:
        return Verdict(Status.REFUTED, claim, witness=witness, residual=float(residual.low), details=answer.details,
                       reason=f"the exact identity fails at entry {entry}; mpmath.diff on the real ReLU loss: a "
                              "difference stable across precisions")
    return Verdict(Status.UNDECIDED, claim, details=answer.details,
                   reason=(answer.reason if isinstance(answer, Verdict) else "the witness agrees")
                   + ("" if holds else f"; the exact identity fails at entry {entry}"))
