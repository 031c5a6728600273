"""Theorem 1 and Definition 5 (Dinh et al. 2017, §3): T_α changes nothing the loss can see.

For α > 0 and θ = (W, v):  f_{T_αθ} = f_θ,  L(T_αθ) = L(θ) for every loss of the prediction
function, and θ is a local minimum of L iff T_αθ is.  The proof follows the paper:

  (a) ReLU is positively homogeneous, so each hidden unit's output scales by α and its outgoing
      weight by 1/α: the prediction is unchanged at every input, kinks included;
  (b) a loss that only sees predictions is therefore unchanged;
  (c) T_α is linear, bijective with inverse T_{1/α}, and stretches lengths by at most max(α, 1/α),
      so it carries neighbourhoods of θ onto neighbourhoods of T_αθ; with L∘T_α = L the two
      points are local minima together.
"""
from __future__ import annotations

import dataclasses
import functools
import random

import sympy as sp

from symbolic import ReLU, Status, Verdict, check_identity
from symbolic.kernel import conjunction, infer
from symbolic.checks import nonnegatives
from symbolic.derivation import CoqCitation, Derivation, add_chain
from symbolic.every_size import alpha_scale
from symbolic.every_size.laws import loss_chain
from symbolic.display.reports import result_rows
from symbolic.trusted.axioms.index_rules import relu_homogeneity_verdict
from symbolic.networks.losses import LOSSES, loss_of_predictions
from symbolic.networks.network import OneHiddenLayerNet
from symbolic.networks.rescaling import ALPHA, rescale, rescale_vector
from symbolic.decision.witness import compare_at
from symbolic.trusted.schemes.functionals import EQUAL_FUNCTIONALS
from symbolic.trusted.schemes.local_minima import LOCAL_MINIMA_CARRIED

from symbolic.report import Report

NAME = "theorem1"
TITLE = ("Theorem 1 (ReLU is non-negative homogeneous) and Definition 5: observational equivalence "
         "under the alpha-scale transformation")
SOURCE = ("Dinh, Pascanu, Bengio and Bengio, Sharp Minima Can Generalize For Deep Nets, ICML 2017, "
          "Section 3, Theorem 1, Definition 5 and the paragraph after it")
DEFAULT_SIZES = (3, 3, 3)
LARGEST_SIZES = (6, 6, 6)

KINK_POINTS = 4


def positive_homogeneity(alpha: sp.Expr = ALPHA) -> Verdict:
    """Lemma (the paper's Theorem 1): ReLU(αs) = α·ReLU(s) for α > 0 and every real s."""
    return relu_homogeneity_verdict(alpha)


def _kink_points(net: OneHiddenLayerNet, x: sp.Matrix, alpha, rng: random.Random) -> list:
    """Random rational points at which some pre-activation Σ_i x_i W_ij is exactly zero."""
    points = []
    for k in range(KINK_POINTS):
        point = {s: sp.Rational(rng.randint(-99, 99) or 1, rng.randint(1, 9))
                 for s in net.parameters + list(x)}
        point[alpha] = sp.Rational(rng.randint(1, 99), rng.randint(1, 99))
        j = k % net.h
        # put x on the kink of unit j: choose x_1 so that Σ_i x_i W_ij = 0
        rest = sum(point[x[i]] * point[net.W[i, j]] for i in range(1, net.d))
        point[x[0]] = -rest / point[net.W[0, j]]
        points.append(point)
    return points


def prediction_invariance(d: int, h: int, *, activation=ReLU, alpha: sp.Expr = ALPHA,
                          seed: int = 0, timeout: float | None = None) -> Verdict:
    """(a) f_{T_αθ}(x) = f_θ(x) for symbolic x, W, v and α, at every point."""
    net = OneHiddenLayerNet(d, h)
    x = net.input()
    scaled_W, scaled_v = rescale(net.W, net.v, alpha)
    lhs = net.prediction(x, scaled_W, scaled_v, activation=activation)
    rhs = net.prediction(x, activation=activation)
    claim = f"f_(T_alpha theta)(x) = f_theta(x), d={d}, h={h}"
    verdict = check_identity(lhs, rhs, claim=claim, seed=seed, timeout=timeout)
    if verdict.status is not Status.PROVED:
        return verdict
    # extra witness on the kink set, where the pattern form says nothing
    for point in _kink_points(net, x, alpha, random.Random(seed)):
        if compare_at(lhs, rhs, point).differ:
            return Verdict(Status.REFUTED, claim, witness=point, reason="differs on a kink")
    evidence = (*verdict.evidence, f"agrees exactly at {KINK_POINTS} points on the kink set")
    return conjunction([verdict], label=claim, evidence=evidence)


def loss_invariance(d: int, h: int, n: int, loss: str, *, alpha: sp.Expr = ALPHA,
                    weight_penalty: sp.Expr = 0, seed: int = 0,
                    timeout: float | None = None) -> Verdict:
    """(b) L(T_αθ) = L(θ) for a loss of N evaluations, plus an optional penalty λ‖θ‖²."""
    net = OneHiddenLayerNet(d, h)
    inputs = [net.input(k + 1) for k in range(n)]
    targets = [sp.Symbol(f"y_{{{k + 1}}}", real=True) for k in range(n)]
    scaled_W, scaled_v = rescale(net.W, net.v, alpha)

    def loss_at(W, v):
        predictions = [net.prediction(x, W, v) for x in inputs]
        penalty = weight_penalty * sum(p ** 2 for p in list(W) + list(v))
        return loss_of_predictions(loss, predictions, targets) + penalty

    claim = f"L(T_alpha theta) = L(theta), {loss} loss, d={d}, h={h}, N={n}"
    return check_identity(loss_at(scaled_W, scaled_v), loss_at(net.W, net.v), claim=claim,
                          seed=seed, timeout=timeout)


def _all_proved(claim: str, verdicts: list) -> Verdict:
    return conjunction(verdicts, label=claim, evidence=(f"{len(verdicts)} component identities proved",), residual=max((v.residual or 0.0) for v in verdicts))


def scaled_as_written(vector: list, d: int, h: int, alpha) -> list:
    """T_α on a flattened vector, each coordinate the product of its factor and the entry as
    written (sympy does not multiply them out)."""
    return ([sp.Mul(alpha, y, evaluate=False) for y in vector[: d * h]]
            + [sp.Mul(1 / alpha, y, evaluate=False) for y in vector[d * h:]])


def local_minimum_lemmas(d: int, h: int, alpha: sp.Expr = ALPHA) -> dict[str, Verdict]:
    """(c) the checked lemmas of the local-minimum equivalence."""
    size = d * h + h
    u = list(sp.symbols(f"u_1:{size + 1}", real=True))
    w = list(sp.symbols(f"w_1:{size + 1}", real=True))
    lam, mu = sp.symbols("lambda mu", real=True)
    scale = lambda vector, a=alpha: rescale_vector(vector, d, h, a)  # noqa: E731
    lemmas = {}
    # T_α is linear
    combined = [lam * a + mu * b for a, b in zip(u, w)]
    lemmas["linear"] = _all_proved("T_alpha(lambda u + mu w) = lambda T_alpha u + mu T_alpha w", [
        check_identity(left, lam * a + mu * b)
        for left, a, b in zip(scale(combined), scale(u), scale(w))])
    # T_α is bijective, with inverse T_{1/α}
    # (the compositions as written: evaluated, T_(1/α)(T_α u) would arrive as u and say u = u)
    lemmas["inverse"] = _all_proved("T_(1/alpha) T_alpha u = u = T_alpha T_(1/alpha) u", [
        check_identity(left, right) for left, right in
        zip(scaled_as_written(scale(u), d, h, 1 / alpha) + scaled_as_written(scale(u, 1 / alpha), d, h, alpha), u + u)])
    # ‖T_α u‖² ≤ max(α², α⁻²)‖u‖², by an identity whose right side is manifestly ≥ 0
    gap = sp.Max(alpha ** 2, alpha ** -2) * sum(a ** 2 for a in u) - sum(a ** 2 for a in scale(u))
    certificate = (ReLU(alpha ** -2 - alpha ** 2) * sum(a ** 2 for a in u[: d * h])
                   + ReLU(alpha ** 2 - alpha ** -2) * sum(a ** 2 for a in u[d * h:]))
    bound = check_identity(gap, certificate, claim="max(a^2, a^-2)|u|^2 - |T_a u|^2 = certificate")
    # the certificate is >= 0 by the manifest sign test, run by the kernel: the bound holds
    lemmas["norm bound"] = conjunction([bound, nonnegatives("certificate >= 0", [certificate])],
                                       label="max(a^2, a^-2)|u|^2 - |T_a u|^2 >= 0")
    for name, lemma in lemmas.items():
        # the size is part of the lemma's name; a proved lemma keeps its theorem
        lemmas[name] = (conjunction([lemma], label=f"{lemma.label}, d={d}, h={h}") if lemma.status is Status.PROVED
                        else dataclasses.replace(lemma, claim=f"{lemma.claim}, d={d}, h={h}"))
    return lemmas


@functools.lru_cache(maxsize=None)
def _lemmas(d: int, h: int) -> dict[str, Verdict]:
    """The lemmas at one size, computed once for the three claims that report them."""
    return local_minimum_lemmas(d, h)


def functional_invariance(prediction: Verdict, d: int, h: int) -> Verdict:
    """(b) ℓ(f_{T_αθ}) = ℓ(f_θ) for every functional ℓ: the conclusion the scheme computes from (a)."""
    return infer(EQUAL_FUNCTIONALS, [prediction], inputs=tuple(OneHiddenLayerNet(d, h).input()),
                 label=f"l(f_(T_alpha theta)) = l(f_theta), d={d}, h={h}")


def local_minima(lemmas, functional: Verdict, d: int, h: int, alpha: sp.Expr = ALPHA) -> Verdict:
    """(c) θ is a local minimum of L = ℓ(f_θ) iff T_αθ is: the conclusion the scheme computes from the
    lemmas (linear, inverse, norm bound) and L∘T_α = L."""
    size = d * h + h
    u = list(sp.symbols(f"u_1:{size + 1}", real=True))
    w = list(sp.symbols(f"w_1:{size + 1}", real=True))
    net = OneHiddenLayerNet(d, h)
    return infer(LOCAL_MINIMA_CARRIED, [*lemmas, functional], image=tuple(rescale_vector(u, d, h, alpha)),
                 direction=tuple(u), other=tuple(w), coefficients=sp.symbols("lambda mu", real=True),
                 parameters=tuple(net.parameters), alpha=alpha, bound=sp.Max(alpha ** 2, alpha ** -2),
                 label=f"local minima carried by T_alpha, d={d}, h={h}")


# the theorem of the Coq development that re-checks Theorem 1 for every size, and what it proves
COQ_THEOREMS = (("Theorem1.theorem1", "(a), (b) and local minima, for every d, h, every functional and every "
                 "alpha > 0"),
                ("Frechet.theorem1_local_min", "local minima for the Euclidean norm on R^(dh+h), as the source "
                 "documents state them"))


def add_every_size_proof(derivation: Derivation) -> None:
    """The first section: Theorem 1 (a) and (b) for every size, each step the kernel's theorem (the
    every-size chain, as ``proofs.all_sizes`` shows it too), then the Coq theorems that re-check it."""
    proof = derivation_skeleton()
    add_theorem1_proof(proof, alpha_scale.theorem1_chain(),
                       loss_chain(alpha_scale.theorem1_chain(), "L(T_alpha theta) = L(theta)"))
    derivation.sections.append(("The proof for every size", proof.steps))
    derivation.coq = [CoqCitation(name, proves) for name, proves in COQ_THEOREMS]


def add_theorem1_proof(derivation: Derivation, prediction_chain, loss, rows=()) -> None:
    """Theorem 1 (a) for every d, h, step by step, then (b) for every d, h, N: the prediction's
    steps inside the loss (``rows``: the rows that cite them, with their instance checks)."""
    add_chain(derivation, prediction_chain, r"Theorem 1 (a): $f$ at $T_\alpha\theta$, by the definitions of $f$ "
              r"and of $T_\alpha$")
    derivation.add([loss.check(), *rows], "Theorem 1 (b): the same steps inside $\\frac1N\\sum_n \\ell(\\cdot, y_n)$, "
                   "checked as a chain of its own: each rule holds for every value of its variables, so for each $n$")


def instance_rows(report: Report) -> list[tuple]:
    """The instance checks as the table shows them: each claim, the sizes it ran at, its verdict."""
    return [(claim, sizes, verdict) for _, claim, sizes, verdict, _ in result_rows(report.results)]


def derivation_skeleton() -> Derivation:
    return Derivation(
        name=NAME, title=TITLE, source=SOURCE,
        # the statement as the source documents give it, then exactly what is proved of it, and where
        statement=(r"\emph{As stated:} for every network and function-based loss defined below, every "
                   r"parameter $\theta$, and every $\alpha > 0$, $f_{T_\alpha\theta} = f_\theta$, "
                   r"$L(T_\alpha\theta) = L(\theta)$, and $T_\alpha\theta$ is a local minimum of $L$ if and only if "
                   r"$\theta$ is; here $d, h \ge 1$ are the input dimension and the hidden width, and $L(\theta) = "
                   r"\ell(f_\theta)$ for any real-valued functional $\ell$ on prediction functions."
                   r"\par\medskip\noindent\emph{What is proved here.} For every $d, h \ge 1$: "
                   r"$f_{T_\alpha\theta}(x_n) = f_\theta(x_n)$ and, on finite data, $\frac1N\sum_n "
                   r"\ell(f_{T_\alpha\theta}(x_n), y_n) = \frac1N\sum_n \ell(f_\theta(x_n), y_n)$ for every $N$, "
                   r"by the kernel's chain for every size (the first section); the whole statement, local minima "
                   r"included, by the Coq theorem named after it. At the sizes named under each step of the "
                   r"derivation that follows: the same, with the functional, the norm bound and local minima "
                   r"by the kernel and two declared inference schemes."),
        definitions=[
            r"$f_\theta(x) = \sum_{j=1}^{h} \operatorname{ReLU}\bigl(\sum_{i=1}^{d} x_i W_{ij}\bigr)\, v_j$ "
            r"with $\operatorname{ReLU}(s) = \max(s, 0)$, $\theta = (W, v) \in \mathbb{R}^{d\times h}\times\mathbb{R}^h$.",
            r"$T_\alpha(W, v) = (\alpha W, \alpha^{-1} v)$ for $\alpha > 0$ (Definition 5).",
            r"$L(\theta) = \ell(f_\theta)$; for finite data, $L$ is a function of "
            r"$f_\theta(x_1), \dots, f_\theta(x_N)$ (generic $\ell$, mean squared error, "
            r"absolute error, hinge).",
            r"A direction in parameter space is $u = (U, b)$ with $U \in \mathbb{R}^{d\times h}$ and "
            r"$b \in \mathbb{R}^h$, so $T_\alpha u = (\alpha U, \alpha^{-1} b)$ and "
            r"$\|u\|^2 = \sum_{ij} U_{ij}^2 + \sum_j b_j^2$; $w$ is a second direction, $\lambda, \mu$ "
            r"are real numbers, $z$ is a point of parameter space and $\varepsilon > 0$ a radius.",
        ])


def run(sizes: list[tuple[int, int, int]], seed: int = 0, timeout: float | None = None) -> Report:
    derivation = derivation_skeleton()
    report = Report(derivation)
    pairs = sorted({(d, h) for d, h, _ in sizes})

    homogeneity = report.record(NAME, "lemma: ReLU(alpha s) = alpha ReLU(s)", (None, None, None),
                                lambda: positive_homogeneity())
    derivation.add([homogeneity], "non-negative homogeneity of ReLU (Definition 4; this is the paper's Theorem 1): sign split "
                   "$s > 0$, $s = 0$, $s < 0$ with sympy's own Max")

    prediction = [report.record(NAME, "(a) f_(T_alpha theta)(x) = f_theta(x)", (d, h, None),
                                lambda d=d, h=h: prediction_invariance(d, h, seed=seed, timeout=timeout))
                  for d, h in pairs]
    derivation.add(prediction, "(a) positive homogeneity, then an exact identity for symbolic $x$, $W$, $v$ and "
                   "$\\alpha > 0$; it holds at every point, kinks included (also evaluated exactly on "
                   "the kink set)", [(d, h, None) for d, h in pairs])
    # equal functions give equal values of any functional: L = ell(f) at T_alpha theta and at theta
    functionals = [functional_invariance(verdict, d, h) for verdict, (d, h) in zip(prediction, pairs)]
    derivation.add(functionals, "(b) the functions $x \\mapsto f_{T_\\alpha\\theta}(x)$ and $x \\mapsto f_\\theta(x)$ are equal "
                   "(the line above, every real $x$), so any functional $\\ell$ of the prediction function takes "
                   "the same value: $L(T_\\alpha\\theta) = L(\\theta)$, the scheme computing the equation from "
                   "that line's statement", [(d, h, None) for d, h in pairs])

    losses, loss_sizes = [], []
    for loss in LOSSES:
        for d, h, n in sizes:
            losses.append(report.record(
                NAME, f"(b) L(T_alpha theta) = L(theta), {loss} loss", (d, h, n),
                lambda d=d, h=h, n=n, loss=loss: loss_invariance(d, h, n, loss, seed=seed,
                                                                 timeout=timeout)))
            loss_sizes.append((d, h, n))
    derivation.add(losses,
                   "(b) on finite data: checked for a generic (undefined) loss of the predictions, "
                   "mean squared error with symbolic targets, absolute error and hinge", loss_sizes)

    lemma_rows = {"linear": [], "inverse": [], "norm bound": []}
    for d, h in pairs:
        for name in lemma_rows:
            # checked inside the claim's own check (once per size: the three share one run)
            lemma_rows[name].append(report.record(NAME, f"(c) T_alpha {name}", (d, h, None),
                                                  lambda d=d, h=h, name=name: _lemmas(d, h)[name]))
    derivation.add(lemma_rows["linear"],
                   "(c) $T_\\alpha$ is linear: exact identity in each coordinate", [(d, h, None) for d, h in pairs])
    derivation.add(lemma_rows["inverse"], "(c) $T_\\alpha$ is bijective with inverse $T_{1/\\alpha}$: exact identity in each "
                   "coordinate, the composition as written", [(d, h, None) for d, h in pairs])
    derivation.add(lemma_rows["norm bound"],
                   "(c) $\\max(\\alpha^2, \\alpha^{-2})\\|u\\|^2 - \\|T_\\alpha u\\|^2$ equals a certificate, "
                   "exactly (sign split), and the certificate is manifestly non-negative: the operator norms of "
                   "$T_\\alpha$ and $T_{1/\\alpha}$ are at most $\\max(\\alpha, 1/\\alpha)$", [(d, h, None) for d, h in pairs])
    minima = [local_minima(lemmas, functional, d, h) for lemmas, functional, (d, h) in
              zip(zip(*lemma_rows.values()), functionals, pairs)]
    derivation.add(minima, "(c) from the four theorems above (linear, inverse, norm bound, $L \\circ T_\\alpha = L$), "
                   "the scheme of local minima computes the conclusion: $T_\\alpha$ carries a neighbourhood of "
                   "$\\theta$ into one of $T_\\alpha\\theta$ and $T_{1/\\alpha}$ back, and $L$ takes the same values "
                   "at the corresponding points", [(d, h, None) for d, h in pairs])
    derivation.sizes = sizes
    add_every_size_proof(derivation)
    derivation.instances = instance_rows(report)
    for label, verdicts in (("(a) prediction, random and kink points", prediction),
                            ("(b) losses, random points", losses)):
        derivation.residuals.append((label, max(v.residual or 0.0 for v in verdicts)))
    derivation.notes.append(
        r"Every displayed line is the statement of a theorem the kernel proved, printed from it, shown at "
        r"the smallest size it was checked at; the sizes of each step are named under it. The functional's "
        r"line and the local minima's are inferences of declared schemes, whose conclusions the kernel "
        r"computes from the premises' statements.")
    return report
