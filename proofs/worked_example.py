"""The worked example: f(x) = b·max(0, a·x), data (1, 1), (2, 2), at a = c, b = 1/c.

For every c > 0 the network computes max(x, 0) and the training loss is 0, yet the Hessian at the
optimum and the loss after perturbing one weight blow up as c → 0 or c → ∞: sharpness belongs to
the parameterisation, not to the function.  Everything below is DERIVED for symbolic c > 0; no
closed form is typed in.

The network, its data and the derivation of the closed forms are in
``symbolic.networks.worked_example``; this script checks them.  ``python -m proofs example --c 0.1
--perturbation 0.1 --probe 2 [--plot sharpness.png]`` prints the readings at one c
(``proofs/commands/example_readings.py``; the page is in ``proofs/commands/example_page.py``).
"""
from __future__ import annotations

import random

import sympy as sp

from symbolic import Status, Verdict, check_identity
from symbolic.kernel import Equation, by_oracle, conjunction
from symbolic.checks import nonnegatives, zeros
from symbolic.derivation import Derivation
from symbolic.latex import to_latex
from symbolic.decision.regions import describe
from symbolic.networks.worked_example import M, Derived, a, b, c, delta, derive, loss, network, x
from symbolic.numerics import agreement
from symbolic.numerics.eigenpairs import eigenpairs

from symbolic.report import Report
from symbolic.trusted.oracles.exact import EXACT_ZERO
from symbolic.trusted.oracles.linear_algebra import EXACT_EIGENPAIRS
from symbolic.trusted.oracles.numerics import NUMERIC_AGREEMENT

NAME = "worked_example"
TITLE = "The worked example: the same function at every scale, an arbitrarily sharp minimum"
SOURCE = ("Dinh, Pascanu, Bengio and Bengio, ICML 2017, Section 4 (Theorem 4) on the scalar network "
          "f(x) = b max(0, a x) with data (1, 1), (2, 2)")
FIXED_SIZES = [(1, 1, 2)]
DEFAULT_SIZES = LARGEST_SIZES = (1, 1, 2)

# --- the checks -----------------------------------------------------------------------------------

def check_prediction() -> Verdict:
    return check_identity(network(c, 1 / c, x), sp.Max(x, 0), claim="f_(c,1/c)(x) = max(x, 0)")


def check_training_loss() -> Verdict:
    # the loss at (c, 1/c) as written: evaluated, it would be 0 and the statement 0 = 0
    with sp.evaluate(False):
        at_optimum = loss(c, 1 / c)
    return check_identity(at_optimum, 0, claim="L(c, 1/c) = 0")


def check_hessian(derived: Derived, seed: int = 0) -> Verdict:
    """Witness: mpmath.diff of the real loss (with max) at (c, 1/c) for random rational c, at two
    precisions, against each entry of the derived Hessian."""
    rng = random.Random(seed)
    points = []
    for _ in range(3):
        value = sp.Rational(rng.randint(1, 400), rng.randint(1, 100))
        points.append({a: value, b: 1 / value, c: value})
    real_loss = loss(a, b)                  # with the real max, as a function of (a, b)
    entries = [(real_loss, (a, b), tuple(int(k == i) + int(k == j) for k in range(2)), derived.hessian[i, j])
               for i in range(2) for j in range(i, 2)]
    return by_oracle(NUMERIC_AGREEMENT, agreement.closed_form_derivatives(entries, points),
                     label="Hessian at (c, 1/c), derived",
                     evidence=("sympy.hessian of the loss on the region a > 0",))


def check_eigenpairs(derived: Derived) -> Verdict:
    """H v = λ v exactly for every derived pair; trace and determinant agree with the eigenvalues."""
    claim = "eigenpairs, trace, determinant and spectral norm of the Hessian"
    values = [v for v, m, _ in derived.eigenpairs for _ in range(m)]
    pairs = [(value, vectors) for value, _, vectors in derived.eigenpairs]
    return conjunction([by_oracle(EXACT_EIGENPAIRS, eigenpairs(derived.hessian, pairs)),
                        zeros("trace and determinant", [Equation(sp.Add(*values, evaluate=False), derived.trace),
                                                        Equation(sp.Mul(*values, evaluate=False), derived.determinant)]),
                        nonnegatives("the spectral norm >= 0", [sp.factor(derived.spectral_norm)])],
                       label=claim, evidence=("H v = lambda v exactly for each pair",
                                              "trace = sum and det = product of eigenvalues"))


def _at(expr, point):
    """expr at the exact point, as written (sympy does not evaluate it first)."""
    with sp.evaluate(False):
        return expr.xreplace(point)


def check_perturbations(derived: Derived, seed: int = 0) -> Verdict:
    """Each branch formula equals the real loss (with max) at random exact points of its region:
    each equation, both sides as written at the point, an exact zero test of the kernel's oracle."""
    rng = random.Random(seed)
    claim = "first- and second-weight perturbation losses, every branch"
    equations = []
    for region, value in derived.first_weight_branches:
        tried = 0
        for _ in range(200):
            point = {c: sp.Rational(rng.randint(1, 99), rng.randint(1, 20)),
                     delta: sp.Rational(rng.randint(-999, 999), rng.randint(1, 20))}
            if not all(constraint.xreplace(point) > 0 for constraint in region):
                continue
            tried += 1
            with sp.evaluate(False):
                real = loss(point[c] + point[delta], 1 / point[c])
            equations.append((point, f"branch {describe(region)}", Equation(real, _at(value, point))))
        if tried == 0:
            return Verdict(Status.UNDECIDED, claim, reason=f"no point found in {describe(region)}")
    for _ in range(5):
        point = {c: sp.Rational(rng.randint(1, 99), rng.randint(1, 20)),
                 delta: sp.Rational(rng.randint(-999, 999), rng.randint(1, 20))}
        with sp.evaluate(False):
            real = loss(point[c], 1 / point[c] + point[delta])
        equations.append((point, "second-weight loss", Equation(real, _at(derived.second_weight_loss, point))))
    verdicts = []
    for point, what, equation in equations:
        verdict = by_oracle(EXACT_ZERO, equation)
        if verdict.status is not Status.PROVED:
            wrong = refuted_at(equation, point)
            return wrong if wrong is not None else Verdict(Status.UNDECIDED, claim, reason=f"{what}: {verdict.reason}")
        verdicts.append(verdict)
    return conjunction(verdicts, label=claim, evidence=(
        "sign split of max(0, (c + delta) x_i), each branch reduced exactly",
        f"each branch equals the real loss at {len(verdicts)} random exact points of its region: both sides "
        "as written at the point, their difference an exact zero"))


def refuted_at(equation, point):
    """not (real loss = branch) at the exact point, evaluated by the kernel, when it is so."""
    from symbolic.kernel import refutation
    verdict = refutation(equation, {})
    return Verdict(Status.REFUTED, "first- and second-weight perturbation losses, every branch", witness=point,
                   reason=f"the branch disagrees with the real loss: {verdict.claim}") if verdict.proved else None


def sharp_scales():
    """For every M > 0, two explicit scales with spectral norm >= M: c → ∞ and c → 0."""
    return {"large c": sp.sqrt(2 * M / 5), "small c": sp.sqrt(5 / (2 * M))}


def check_theorem4_on_example(derived: Derived) -> Verdict:
    """‖H(c_M)‖₂ − M is manifestly non-negative for both explicit scales."""
    claim = "for every M > 0: ||H(c)||_2 >= M at c = sqrt(2M/5) and at c = sqrt(5/(2M))"
    margins = {label: sp.factor(sp.cancel(derived.spectral_norm.xreplace({c: scale}) - M))
               for label, scale in sharp_scales().items()}
    return nonnegatives(claim, list(margins.values()),
                       evidence=tuple(f"{label}: ||H|| - M = {margin} >= 0" for label, margin in margins.items()))


# --- the proof script -----------------------------------------------------------------------------

def derivation_skeleton(derived: Derived) -> Derivation:
    return Derivation(
        name=NAME, title=TITLE, source=SOURCE,
        statement=(r"For $f(x) = b\max(0, a x)$, data $(1,1), (2,2)$ and "
                   r"$L = \frac12\cdot\frac1N\sum_i (f(x_i) - y_i)^2$, the parameters $(c, 1/c)$, "
                   r"$c > 0$, all compute $\max(x, 0)$ with zero loss, while "
                   r"$\|H_L(c, 1/c)\|_2 = %s \to \infty$ as $c \to 0$ or $c \to \infty$."
                   % to_latex(derived.spectral_norm)),
        definitions=[r"$(a, b) = (c, 1/c) = T_c(1, 1)$: the one-hidden-unit network with $d = h = 1$."])


def run(sizes=None, seed=0, timeout=None) -> Report:
    derived = derive()
    derivation = derivation_skeleton(derived)
    report = Report(derivation)
    size = (1, 1, 2)
    rows = {
        "prediction": report.record(NAME, "f_(c,1/c)(x) = max(x, 0) for every x", size, check_prediction),
        "loss": report.record(NAME, "training loss at (c, 1/c) is 0", size, check_training_loss),
        "hessian": report.record(NAME, "Hessian at (c, 1/c)", size, lambda: check_hessian(derived, seed)),
        "eigen": report.record(NAME, "eigenpairs, trace, det, spectral norm", size,
                               lambda: check_eigenpairs(derived)),
        "perturb": report.record(NAME, "perturbation losses (both weights, every branch)", size,
                                 lambda: check_perturbations(derived, seed)),
        "theorem4": report.record(NAME, "Theorem 4 on the example: explicit sharp c for every M", size,
                                  lambda: check_theorem4_on_example(derived)),
    }
    derivation.add([rows["prediction"]], "positive homogeneity of $\\max(0, \\cdot)$: $f_{(c, 1/c)}(x) = \\max(x, 0)$, exact for every "
                   "real $x$")
    derivation.add([rows["loss"]], "exact evaluation of the loss at the data, $L(c, 1/c) = 0$")
    derivation.add([rows["hessian"]],
                   "the Hessian: second derivatives of the loss on the open region $a > 0$ (where it is a "
                   "polynomial), then $a = c$, $b = 1/c$; mpmath.diff on the real loss agrees")
    derivation.add([rows["eigen"]],
                   r"eigenpairs checked by $H v = \lambda v$ exactly; spectral norm = largest eigenvalue")
    derivation.add([rows["perturb"]], r"$L(c + \delta, 1/c)$ and $L(c, 1/c + \delta)$: sign split of $\max(0, (c + \delta) x_i)$; the "
                   r"dead-ReLU branch included; at $\delta = -c$ both branches give the same value")
    derivation.add([rows["theorem4"]], r"Theorem 4 on the example: $\|H_L(c, 1/c)\|_2 - M \ge 0$ at $c = \sqrt{2M/5}$ and at "
                   r"$c = \sqrt{5/(2M)}$, the margin manifestly non-negative")
    derivation.sizes = [size]
    derivation.residuals.append(("Hessian, mpmath.diff of the real loss at 40 digits",
                                 rows["hessian"].residual or 0.0))
    return report
