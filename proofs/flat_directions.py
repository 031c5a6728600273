"""Flat directions: the orbit of T_α is a valley of the loss, so every critical point's Hessian is
singular.

Differentiating L(T_{e^s}θ) = L(θ) (Theorem 1) at s = 0 gives, with the generator G (G = +1 on W,
−1 on v; or per hidden unit j: +1 on W[:, j], −1 on v_j, 0 elsewhere), at EVERY θ off the kinks:

  1. ∇L(θ)·Gθ = 0, i.e. Σ_i W_ij ∂L/∂W_ij = v_j ∂L/∂v_j for every unit j       (exact, pattern form)
  2. differentiating 1 once more: H(θ)Gθ + Gᵀ∇L(θ) = 0                          (exact, pattern form)
  3. at a critical point ∇L = 0, so H(θ)G_jθ = 0 for every unit j                (from 2)
  4. the G_jθ have disjoint supports: those of the live units (W[:, j] ≠ 0 or v_j ≠ 0) are
     independent, so rank H ≤ n − #live units and det H = 0                      (linear algebra)
Steps 1-2 are checked exactly for MSE, the logistic loss and the generic quadratic (every 2-jet of
every smooth loss), with an mpmath.diff witness on the real ReLU loss; step 4 is checked exactly
(rank by exact inertia, det by python-flint) on random interpolating minima, of one-hidden-layer
and of deep networks (per-unit generators of every hidden layer, the rank of their span exact).
"""
from __future__ import annotations

import random
from fractions import Fraction

import flint
import sympy as sp

from symbolic import Status, Verdict
from symbolic.kernel import Fact, Relation, by_oracle, conjunction, refutation
from symbolic.networks.deep import DeepNet, exact_mse_hessian, exact_prediction, on_kink
from symbolic.decision.budget import within_budget
from symbolic.derivation import Derivation
from symbolic.networks import pattern_form
from symbolic.numerics import agreement
from symbolic.numerics.inertia import rank
from symbolic.networks.pattern_form import generator
from symbolic.checks import derivative_identity
from symbolic.numerics.real_network import random_instance
from symbolic.networks.minima import interpolating_minimum, mse_hessian_at
from symbolic.networks.polynomial import PatternNetwork

from symbolic.report import Report
from symbolic.trusted.oracles.exact import RATIONAL_COMPARISON
from symbolic.trusted.oracles.linear_algebra import EXACT_RANK
from symbolic.trusted.oracles.numerics import NUMERIC_AGREEMENT
from symbolic.trusted.oracles.networks import PATTERN_FORM

NAME = "flat_directions"
TITLE = "Flat directions: the orbit of the alpha-scale transformation is a valley, det H = 0"
SOURCE = ("Dinh, Pascanu, Bengio and Bengio, Sharp Minima Can Generalize For Deep Nets, ICML 2017, "
          "Sections 3 and 4 (the alpha-scale orbit of Definition 5 and Theorem 1), differentiated")
DEFAULT_SIZES = (3, 3, 3)
LARGEST_SIZES = (6, 6, 6)
LOSSES = ("mse", "logistic", "quadratic")
DEEP_DEPTH = 3

# a generator: the sign on a unit's incoming weights W[:, j] and on its outgoing weight v_j
THEOREM = pattern_form.GENERATOR_SIGNS
CONTROLS = {"G = +1 on W and on v": (1, 1), "G = +1 on W, 0 on v": (1, 0)}


WITNESS_ATTEMPTS = 8


def numeric_witness(d: int, h: int, n: int, loss: str, signs=THEOREM, seed: int = 0):
    """The comparisons on the real ReLU loss, for unit 1's generator G at a random instance:
    DL(θ)[W part of Gθ] against −DL(θ)[v part of Gθ] (step 1), and D²L(θ)[Gθ, u] against
    −DL(θ)[Gu] for a random u (step 2)."""
    instance = random_instance(d, h, n, random.Random(seed))
    G = generator(d, h, 0, signs)
    g_theta = [g * t for g, t in zip(G, instance.theta)]
    weight_part = [x if k < d * h else 0 for k, x in enumerate(g_theta)]
    output_part = [x if k >= d * h else 0 for k, x in enumerate(g_theta)]
    g_u = [g * x for g, x in zip(G, instance.u)]
    theta = instance.theta
    return instance, [(theta, [weight_part], theta, [output_part], -1), (theta, [g_theta, instance.u], theta, [g_u], -1)]


def generator_identities(d: int, h: int, n: int, loss: str, signs=THEOREM, seed: int = 0) -> Verdict:
    name = "theorem's G" if signs == THEOREM else next(k for k, v in CONTROLS.items() if v == signs)
    claim = f"grad L . G theta = 0 and H G theta + G grad L = 0 ({name}), {loss}, d={d}, h={h}, N={n}"
    exact = by_oracle(PATTERN_FORM, pattern_form.generator_identities(d, h, n, loss, signs))
    # a witness point where unit 1 is dead on every sample compares 0 with 0: draw another
    for attempt in range(WITNESS_ATTEMPTS):
        instance, comparisons = numeric_witness(d, h, n, loss, signs, seed + attempt)
        witness = by_oracle(NUMERIC_AGREEMENT, agreement.relu_derivatives(loss, [(instance, comparisons)]))
        if witness.details.get("informative_points") != 0:
            break
    else:
        return Verdict(Status.UNDECIDED, claim, reason=f"exact test says {'zero' if exact.proved else 'non-zero'}, "
                       f"but at {WITNESS_ATTEMPTS} witness points both sides were 0: nothing was compared")
    return derivative_identity(claim, exact, witness, witness=instance.as_witness())


# --- step 4 on random minima -----------------------------------------------------------------------

def _determinant(matrix) -> Fraction:
    size = len(matrix)
    flat = [flint.fmpq(e.numerator, e.denominator) for row in matrix for e in row]
    value = flint.fmpq_mat(size, size, flat).det()
    return Fraction(int(value.p), int(value.q))


def _kernel_claim(claim: str, hessian, generators, theta, slack: int = 0) -> Verdict:
    """H G_jθ = 0 for every generator, rank H ≤ n − rank{G_jθ} − ``slack``, det H = 0: all exact
    (``slack`` > 0 is a sharper, false bound for the negative control)."""
    size = len(theta)
    vectors = [[g * t for g, t in zip(G, theta)] for G in generators]
    vectors = [v for v in vectors if any(v)]                  # the live units
    for v in vectors:
        if any(sum(hessian[l][k] * v[k] for k in range(size)) != 0 for l in range(size)):
            return Verdict(Status.REFUTED, claim, witness={"theta": theta, "G theta": v},
                           reason="H G theta != 0 at this critical point (exact)")
    gram = [[sum(a * b for a, b in zip(v, w)) for w in vectors] for v in vectors]
    independent = rank(gram) if vectors else 0
    hessian_rank = rank(hessian)
    determinant = _determinant(hessian)
    if hessian_rank > size - independent - slack or (independent and determinant != 0):
        return Verdict(Status.REFUTED, claim, witness={"theta": theta, "rank H": hessian_rank},
                       reason=f"rank H = {hessian_rank} > n - {independent}"
                              + (f" - {slack}" if slack else "") + " (exact inertia)")
    # the kernel's statements: the live G_jθ are null vectors of H, their span and H have the
    # ranks found, the bound between them, and det H = 0
    bound = size - independent - slack
    return conjunction([
        by_oracle(EXACT_RANK, Fact("null vectors", (hessian, vectors), "H G_j theta = 0 for every live unit")),
        by_oracle(EXACT_RANK, Fact("rank", (gram, independent), "the rank of the span of the G_j theta")),
        by_oracle(EXACT_RANK, Fact("rank", (hessian, hessian_rank), "rank H")),
        by_oracle(RATIONAL_COMPARISON, Relation(sp.Integer(hessian_rank), "<=", sp.Integer(bound))),
        by_oracle(EXACT_RANK, Fact("determinant", (hessian, determinant), "det H")),
    ], label=claim, evidence=(
        f"exact: H G_j theta = 0 for {len(vectors)} live units, their span has rank {independent}, "
        f"rank H = {hessian_rank} <= n - {independent} = {size - independent}, det H = {determinant}",))


def _one_layer_instance(d: int, h: int, n: int, seed: int = 0):
    """A random interpolating minimum of the one-hidden-layer net (MSE, loss exactly 0): its
    exact Hessian and θ."""
    rng = random.Random(seed)
    net = DeepNet((d, h, 1))
    while True:
        theta = [Fraction(rng.randint(-40, 40) or 1, 8) for _ in range(d * h + h)]
        inputs = [[Fraction(rng.randint(-40, 40), 8) for _ in range(d)] for _ in range(n)]
        if not on_kink(net, theta, inputs):
            break
    targets = [exact_prediction(net, theta, x) for x in inputs]
    return mse_hessian_at(PatternNetwork(d, h, n), theta, inputs, targets), theta


def one_layer_minimum(d: int, h: int, n: int, seed: int = 0, slack: int = 0) -> Verdict:
    """H G_jθ = 0, the rank bound and det H = 0 on a random interpolating minimum."""
    hessian, theta = _one_layer_instance(d, h, n, seed)
    bound = "n - #live units" + (f" - {slack}" if slack else "")
    claim = f"random minimum: H G_j theta = 0, rank H <= {bound}, det H = 0, d={d}, h={h}, N={n}"
    return _kernel_claim(claim, hessian, [generator(d, h, j) for j in range(h)], theta, slack)


SHARP_INSTANCE = (2, 3, 12)


def bound_attained() -> Verdict:
    """The rank bound is sharp: on a minimum with enough data, rank H = n − #live units exactly,
    so the bound one lower is false there."""
    d, h, n = SHARP_INSTANCE
    claim = f"rank H = n - #live units on a random minimum, d={d}, h={h}, N={n}"
    bound, sharper = one_layer_minimum(d, h, n), one_layer_minimum(d, h, n, slack=1)
    if bound.status is Status.PROVED and sharper.status is Status.REFUTED:
        hessian, theta = _one_layer_instance(d, h, n)
        live = sum(1 for j in range(h) if any(g * t for g, t in zip(generator(d, h, j), theta)))
        found = rank(hessian)
        # rank H is what exact elimination says, and not below n − #live units: the sharper bound fails
        return conjunction([bound, by_oracle(EXACT_RANK, Fact("rank", (hessian, found), "rank H")),
                            refutation(Relation(sp.Integer(found), "<=", sp.Integer(len(theta) - live - 1)), {},
                                       label="rank H is not below n - #live units")],
                           label=claim, evidence=(*bound.evidence, f"and {sharper.reason}: rank H is not below n - #live units"))
    return Verdict(Status.UNDECIDED, claim, reason=f"this instance has a smaller rank: {sharper.describe()}")


def deep_unit_generators(net: DeepNet) -> list[list[int]]:
    """Per hidden unit of every hidden layer: +1 on its incoming weights, −1 on its outgoing ones."""
    offsets, offset = [], 0
    for W in net.weights:
        offsets.append(offset)
        offset += W.rows * W.cols
    generators = []
    for k in range(net.depth - 1):                        # hidden layer k + 1
        incoming, outgoing = net.weights[k], net.weights[k + 1]
        for j in range(incoming.cols):
            G = [0] * offset
            for i in range(incoming.rows):
                G[offsets[k] + i * incoming.cols + j] = 1
            for m in range(outgoing.cols):
                G[offsets[k + 1] + j * outgoing.cols + m] = -1
            generators.append(G)
    return generators


def deep_minimum(d: int, h: int, n: int, seed: int = 0) -> Verdict:
    net = DeepNet((d,) + (h,) * (DEEP_DEPTH - 1) + (1,))
    minimum = interpolating_minimum(net, n, random.Random(seed))
    hessian = exact_mse_hessian(net, minimum.theta, minimum.inputs, minimum.targets)
    claim = f"random deep minimum, widths {net.widths}: H G_j theta = 0, rank H <= n - rank span(G_j theta)"
    return _kernel_claim(claim, hessian, deep_unit_generators(net), minimum.theta)


def derivation_skeleton() -> Derivation:
    return Derivation(
        name=NAME, title=TITLE, source=SOURCE,
        statement=(r"For the one-hidden-layer ReLU network, at every $\theta$ off the kink set, "
                   r"$\nabla L(\theta)\cdot G\theta = 0$ and $H(\theta)G\theta + G^\top\nabla L(\theta) = 0$ "
                   r"for the generator $G$ of $T_\alpha$ and for each per-unit generator $G_j$. "
                   r"Hence at a critical point $H(\theta)G_j\theta = 0$, "
                   r"$\operatorname{rank} H \le n - \#\{\text{live units}\}$ and $\det H = 0$."),
        definitions=[
            r"$G = \operatorname{diag}(I_{dh}, -I_h)$, so that $\tfrac{d}{ds}T_{e^s}\theta|_{s=0} = G\theta$; "
            r"$G_j$: $+1$ on $W_{\cdot j}$, $-1$ on $v_j$, 0 elsewhere (the generator of the "
            r"per-unit rescaling).",
            r"Unit $j$ is live when $G_j\theta \ne 0$, i.e. $W_{\cdot j} \ne 0$ or $v_j \ne 0$.",
        ])


def run(sizes, seed=0, timeout=None) -> Report:
    derivation = derivation_skeleton()
    report = Report(derivation)

    def record(claim, size, check):
        return report.record(NAME, claim, size, lambda: within_budget(check, timeout, claim))
    identities = [record(f"grad L.G theta = 0, H G theta + G grad L = 0, {loss}", size,
                                lambda size=size, loss=loss: generator_identities(*size, loss, seed=seed))
                  for loss in LOSSES for size in sizes]
    minima = [record("random minima: H G_j theta = 0, rank bound, det H = 0", size,
                            lambda size=size: one_layer_minimum(*size, seed=seed)) for size in sizes]
    sharp = record("the rank bound is attained", SHARP_INSTANCE, bound_attained)
    deep = [record(f"random deep minima (K={DEEP_DEPTH}): rank bound", size,
                          lambda size=size: deep_minimum(*size, seed=seed)) for size in sizes]
    derivation.unchecked.append(
        r"$L(T_{e^s}\theta) = L(\theta) \Rightarrow \tfrac{d}{ds}\big|_{s=0}:\ \nabla L(\theta)\cdot G\theta = 0$: "
        r"Theorem 1 and the chain rule; checked exactly below, for $G$ and every $G_j$.")
    derivation.add(identities, r"$\sum_i W_{ij}\,\partial_{W_{ij}}L = v_j\,\partial_{v_j}L$ and $(H G_j\theta)_l + "
                   r"(G_j \nabla L)_l = 0$: exact polynomial identities on the pattern form (MSE, logistic, the generic "
                   "quadratic: every smooth loss), every unit, the layer and every entry $l$; "
                   "mpmath.diff witness on the real ReLU loss", [size for _ in LOSSES for size in sizes])
    derivation.unchecked += [
        r"$\nabla L(\theta) = 0 \Rightarrow H(\theta)G_j\theta = 0$: the line above at a critical point.",
        r"$\operatorname{rank} H \le n - \#\{j: G_j\theta \ne 0\}$ and $\det H = 0$: the $G_j\theta$ have "
        r"disjoint supports, so the non-zero ones are independent vectors of the kernel."]
    derivation.add(minima, r"on random interpolating minima (loss exactly 0), $H G_j\theta = 0$, $\operatorname{rank} H \le "
                   r"n - \#\text{live}$, $\det H = 0$, exact: the Hessian in rationals, "
                   "its rank by exact inertia, its determinant by python-flint", sizes)
    derivation.add([sharp], "the bound is sharp: exact rank $n - \\#\\text{live}$ on a random interpolating minimum with "
                   "$N = %d$ data points" % SHARP_INSTANCE[2], [SHARP_INSTANCE])
    derivation.add(deep, r"deep networks ($K = %d$): $\operatorname{rank} H \le n - \operatorname{rank}\operatorname{span}"
                   r"\{G_j\theta\}$ with one generator per hidden unit of every layer, exact on "
                   "random interpolating minima, the rank of the span by the exact inertia of the "
                   "Gram matrix" % DEEP_DEPTH, sizes)
    derivation.sizes = sizes
    derivation.notes.append(
        r"Negative controls (tests): the generators $+1$ on $W$ and on $v$, and $+1$ on $W$ with 0 on "
        r"$v$, fail the exact identity, and the real ReLU loss separates the two sides at 50 and 80 "
        r"digits.")
    return report
