"""The worked example: f(x) = b·max(0, a·x), data (1, 1), (2, 2), at a = c, b = 1/c.

For every c > 0 the network computes max(x, 0) and the training loss is 0, yet the Hessian at the
optimum and the loss after perturbing one weight blow up as c → 0 or c → ∞: sharpness belongs to
the parameterisation, not to the function.  Everything below is DERIVED for symbolic c > 0; no
closed form is typed in.

    python -m proofs example --c 0.1 --perturbation 0.1 --probe 2 [--plot sharpness.png]

prints the module's readings for one c (``readings``, ``plot``; the page is in example_page.py);
``run`` is the proof script behind ``python -m proofs``.
"""
from __future__ import annotations

import math
import random
import sys
from dataclasses import dataclass
from fractions import Fraction

import mpmath
import sympy as sp

from symbolic import Status, Verdict, check_identity
from symbolic.derivation import Derivation
from symbolic.latex import to_latex
from symbolic.positivity import is_manifestly_nonnegative
from symbolic.regions import describe, sign_branches
from symbolic.relu import canonical_relu_form, to_relu_form
from symbolic.zero import is_rational_zero

from .report import Report

NAME = "worked_example"
TITLE = "The worked example: the same function at every scale, an arbitrarily sharp minimum"
SOURCE = ("Dinh, Pascanu, Bengio and Bengio, ICML 2017, Section 4 (Theorem 4) on the scalar network "
          "f(x) = b max(0, a x) with data (1, 1), (2, 2)")
FIXED_SIZES = [(1, 1, 2)]
DEFAULT_SIZES = LARGEST_SIZES = (1, 1, 2)

DATA = ((1, 1), (2, 2))
a, b, x, delta = sp.symbols("a b x delta", real=True)
c = sp.Symbol("c", positive=True)
M = sp.Symbol("M", positive=True)
a_positive = sp.Symbol("a", positive=True)


def network(weight_a, weight_b, point):
    """f(x) = b·max(0, a·x)."""
    return weight_b * sp.Max(0, weight_a * point)


def loss(weight_a, weight_b):
    """L = ½·(1/N)·Σ (f(x_i) − y_i)²."""
    return sp.Rational(1, 2) * sp.Rational(1, len(DATA)) * sum(
        (network(weight_a, weight_b, xi) - yi) ** 2 for xi, yi in DATA)


@dataclass
class Derived:
    """What the example's derivation produces, as sympy expressions in c (and δ, M)."""

    hessian: sp.Matrix
    eigenpairs: list          # (eigenvalue, multiplicity, [eigenvectors])
    trace: sp.Expr
    determinant: sp.Expr
    spectral_norm: sp.Expr
    first_weight_branches: list   # (region, loss) for L(c + δ, 1/c)
    second_weight_loss: sp.Expr   # L(c, 1/c + δ)


def hessian_at_optimum() -> sp.Matrix:
    """H_L at (c, 1/c).  Near a = c > 0 every a·x_i > 0, so L is the polynomial obtained with a
    positive: differentiate it twice, then put a = c, b = 1/c."""
    branch = loss(a_positive, b)
    hessian = sp.hessian(branch, (a_positive, b)).xreplace({a_positive: c, b: 1 / c})
    return hessian.applyfunc(sp.factor)


def derive() -> Derived:
    hessian = hessian_at_optimum()
    eigenpairs = [(sp.factor(value), multiplicity, vectors)
                  for value, multiplicity, vectors in hessian.eigenvects()]
    eigenvalues = [value for value, _, _ in eigenpairs]
    # the spectral norm of a symmetric matrix is its largest |eigenvalue|; sympy decides the order
    spectral_norm = next(v for v in eigenvalues
                         if all((sp.Abs(v) - sp.Abs(w)).is_nonnegative for w in eigenvalues))
    perturbed = canonical_relu_form(to_relu_form(loss(c + delta, 1 / c)))
    branches = [(region, sp.factor(value)) for region, value in sign_branches(perturbed, [c, delta])]
    return Derived(hessian, eigenpairs, sp.factor(hessian.trace()), sp.factor(hessian.det()),
                   spectral_norm, branches, sp.factor(loss(c, 1 / c + delta)))


# --- the checks -----------------------------------------------------------------------------------

def check_prediction() -> Verdict:
    return check_identity(network(c, 1 / c, x), sp.Max(x, 0), claim="f_(c,1/c)(x) = max(x, 0)")


def check_training_loss() -> Verdict:
    return check_identity(loss(c, 1 / c), 0, claim="L(c, 1/c) = 0")


def _real_loss_mp(weight_a, weight_b):
    return sum((weight_b * max(0, weight_a * xi) - yi) ** 2 for xi, yi in DATA) / (2 * len(DATA))


def check_hessian(derived: Derived, seed: int = 0) -> Verdict:
    """Witness: mpmath.diff of the real loss (with max) at random rational c, 40 digits."""
    rng = random.Random(seed)
    worst = mpmath.mpf(0)
    with mpmath.workdps(40):
        for _ in range(3):
            value = sp.Rational(rng.randint(1, 400), rng.randint(1, 100))
            point = (mpmath.mpf(value.p) / value.q, mpmath.mpf(value.q) / value.p)
            for i in range(2):
                for j in range(2):
                    orders = tuple(int(k == i) + int(k == j) for k in range(2))
                    numeric = mpmath.diff(lambda p, q: _real_loss_mp(p, q), point, orders)
                    exact = derived.hessian[i, j].xreplace({c: value})
                    worst = max(worst, abs(numeric - mpmath.mpf(exact.p) / exact.q))
    claim = "Hessian at (c, 1/c), derived"
    if worst > mpmath.mpf(10) ** -25:
        return Verdict(Status.UNDECIDED, claim, reason=f"mpmath.diff disagrees by {float(worst):.2e}")
    return Verdict(Status.PROVED, claim, residual=float(worst),
                   evidence=("sympy.hessian of the loss on the region a > 0",
                             f"mpmath.diff of the real loss at 3 random c: residual {float(worst):.1e}"))


def check_eigenpairs(derived: Derived) -> Verdict:
    """H v = λ v exactly for every derived pair; trace and determinant agree with the eigenvalues."""
    claim = "eigenpairs, trace, determinant and spectral norm of the Hessian"
    for value, _, vectors in derived.eigenpairs:
        for vector in vectors:
            if vector.is_zero_matrix or not all(is_rational_zero(e) for e in derived.hessian * vector - value * vector):
                return Verdict(Status.UNDECIDED, claim, reason=f"H v = λ v fails for λ = {value}")
    values = [v for v, m, _ in derived.eigenpairs for _ in range(m)]
    if not (is_rational_zero(sum(values) - derived.trace) and
            is_rational_zero(sp.Mul(*values) - derived.determinant)):
        return Verdict(Status.UNDECIDED, claim, reason="trace or determinant disagree with eigenvalues")
    if not is_manifestly_nonnegative(sp.factor(derived.spectral_norm)):
        return Verdict(Status.UNDECIDED, claim, reason="the spectral norm is not manifestly >= 0")
    return Verdict(Status.PROVED, claim, evidence=("H v = lambda v exactly for each pair",
                                                   "trace = sum and det = product of eigenvalues"))


def check_perturbations(derived: Derived, seed: int = 0) -> Verdict:
    """Each branch formula equals the real loss (with max) at random exact points of its region."""
    rng = random.Random(seed)
    claim = "first- and second-weight perturbation losses, every branch"
    for region, value in derived.first_weight_branches:
        tried = 0
        for _ in range(200):
            point = {c: sp.Rational(rng.randint(1, 99), rng.randint(1, 20)),
                     delta: sp.Rational(rng.randint(-999, 999), rng.randint(1, 20))}
            if not all(constraint.xreplace(point) > 0 for constraint in region):
                continue
            tried += 1
            if loss(point[c] + point[delta], 1 / point[c]) != value.xreplace(point):
                return Verdict(Status.REFUTED, claim, witness=point,
                               reason=f"branch {describe(region)} disagrees with the real loss")
        if tried == 0:
            return Verdict(Status.UNDECIDED, claim, reason=f"no point found in {describe(region)}")
    for _ in range(5):
        point = {c: sp.Rational(rng.randint(1, 99), rng.randint(1, 20)),
                 delta: sp.Rational(rng.randint(-999, 999), rng.randint(1, 20))}
        if loss(point[c], 1 / point[c] + point[delta]) != derived.second_weight_loss.xreplace(point):
            return Verdict(Status.REFUTED, claim, witness=point, reason="second-weight loss disagrees")
    return Verdict(Status.PROVED, claim, evidence=(
        "sign split of max(0, (c + delta) x_i), each branch reduced exactly",
        "each branch equals the real loss at random exact points of its region"))


def sharp_scales():
    """For every M > 0, two explicit scales with spectral norm >= M: c → ∞ and c → 0."""
    return {"large c": sp.sqrt(2 * M / 5), "small c": sp.sqrt(5 / (2 * M))}


def check_theorem4_on_example(derived: Derived) -> Verdict:
    """‖H(c_M)‖₂ − M is manifestly non-negative for both explicit scales."""
    claim = "for every M > 0: ||H(c)||_2 >= M at c = sqrt(2M/5) and at c = sqrt(5/(2M))"
    evidence = []
    for label, scale in sharp_scales().items():
        margin = sp.factor(sp.cancel(derived.spectral_norm.xreplace({c: scale}) - M))
        if not is_manifestly_nonnegative(margin):
            return Verdict(Status.UNDECIDED, claim, reason=f"{label}: margin {margin} not manifestly >= 0")
        evidence.append(f"{label}: ||H|| - M = {margin} >= 0")
    return Verdict(Status.PROVED, claim, evidence=tuple(evidence))


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
    derivation.add(r"f_{(c, 1/c)}(x) = \tfrac1c\max(0, c x) = \max(x, 0)",
                   "positive homogeneity of $\\max(0, \\cdot)$, exact for every real $x$", [rows["prediction"]])
    derivation.add(r"L(c, 1/c) = 0", "exact evaluation at the data", [rows["loss"]])
    derivation.add(r"H_L(c, 1/c) = " + to_latex(derived.hessian, mat_str="pmatrix", mat_delim=""),
                   "second derivatives of the loss on the open region $a > 0$ (where it is a "
                   "polynomial), then $a = c$, $b = 1/c$; mpmath.diff on the real loss agrees",
                   [rows["hessian"]])
    eigen_text = r",\ ".join(r"\lambda = %s" % to_latex(v) for v, _, _ in derived.eigenpairs)
    derivation.add(eigen_text + r",\quad \operatorname{tr} H = %s,\quad \det H = %s"
                   % (to_latex(derived.trace), to_latex(derived.determinant)),
                   r"eigenpairs checked by $H v = \lambda v$ exactly; spectral norm = largest eigenvalue",
                   [rows["eigen"]])
    branch_text = r",\quad ".join(r"%s \text{ on } %s" % (to_latex(value), " , ".join(
        to_latex(sp.StrictGreaterThan(constraint, 0)) for constraint in region))
        for region, value in derived.first_weight_branches)
    derivation.add(r"L(c + \delta, 1/c) = " + branch_text + r";\quad L(c, 1/c + \delta) = "
                   + to_latex(derived.second_weight_loss),
                   r"sign split of $\max(0, (c + \delta) x_i)$; the dead-ReLU branch included; at "
                   r"$\delta = -c$ both branches give the same value", [rows["perturb"]])
    derivation.add(r"\|H_L(c, 1/c)\|_2 - M \ge 0 \ \text{at}\ c = \sqrt{2M/5}\ \text{and at}\ c = \sqrt{5/(2M)}",
                   "Theorem 4 on the example: the margin is manifestly non-negative", [rows["theorem4"]])
    derivation.sizes = [size]
    derivation.residuals.append(("Hessian, mpmath.diff of the real loss at 40 digits",
                                 rows["hessian"].residual or 0.0))
    return report


# --- the module's controls ------------------------------------------------------------------------

DIGITS = 15          # a rational with longer numerator or denominator is printed as a decimal


def show(value) -> str:
    """Exact when short, a 15-digit decimal when the fraction is long (e.g. c = 1e400)."""
    value = sp.Rational(value.numerator, value.denominator) if isinstance(value, Fraction) else sp.sympify(value)
    if value.is_Rational:
        if len(str(abs(value.p))) > DIGITS or len(str(value.q)) > DIGITS:
            return str(sp.N(value, DIGITS))
        return str(value) if value.q == 1 else f"{value} (= {sp.N(value, 12)})"
    return str(sp.N(value, DIGITS))


def data_and_loss() -> tuple[str, str]:
    """The training data and the loss as used, read off DATA and loss()."""
    data = ", ".join(f"({xi}, {yi})" for xi, yi in DATA)
    return data, f"L(a, b) = 1/2 * 1/N * sum_i (f(x_i) - y_i)^2 = {loss(a, b)}, N = {len(DATA)}"


def loss_of_dead_network() -> sp.Expr:
    """The loss when f ≡ 0 on the data: the value of the dead-ReLU branch."""
    return loss(0, 0)


def is_dead_branch(value: sp.Expr) -> bool:
    return is_rational_zero(value - loss_of_dead_network())


def first_weight_branch(cv, dv, derived: Derived):
    """The branch of L(c + δ, 1/c) in force at (c, δ): the open region that holds, else (on the kink
    c + δ = 0, where the loss is continuous) the first branch whose closure holds; and the region of
    the dead-ReLU branch if its closure holds there, else None."""
    point = {c: cv, delta: dv}
    for holds in (lambda e: e.xreplace(point) > 0, lambda e: e.xreplace(point) >= 0):
        chosen = [(region, value) for region, value in derived.first_weight_branches
                  if all(holds(constraint) for constraint in region)]
        if chosen:
            break
    region, value = chosen[0]
    dead = [r for r, v in derived.first_weight_branches
            if is_dead_branch(v) and all(e.xreplace(point) >= 0 for e in r)]
    return region, value, (dead[0] if dead else None)


def describe_closure(region: list) -> str:
    return " and ".join(f"{e} >= 0" for e in region)


def exact_readings(cv, dv, pv, derived: Derived) -> dict[str, sp.Expr]:
    """Every reading of the module at one (c, δ, x), exact: the network and loss are evaluated with
    max at rationals; the Hessian and its spectrum are the derived (and checked) closed forms."""
    cv, dv, pv = (sp.Rational(v.numerator, v.denominator) if isinstance(v, Fraction) else sp.sympify(v)
                  for v in (cv, dv, pv))
    hessian = derived.hessian.xreplace({c: cv})
    eigenvalues = [v.xreplace({c: cv}) for v, m, _ in derived.eigenpairs for _ in range(m)]
    values = {"prediction": network(cv, 1 / cv, pv), "relu": sp.Max(pv, 0),
              "loss_at_optimum": loss(cv, 1 / cv),
              "first_weight_loss": loss(cv + dv, 1 / cv), "second_weight_loss": loss(cv, 1 / cv + dv)}
    values.update({f"hessian_{i}{j}": hessian[i, j] for i in range(2) for j in range(2)})
    values.update({f"eigenvalue_{k}": v for k, v in enumerate(eigenvalues)})
    values.update({"trace": derived.trace.xreplace({c: cv}),
                   "spectral_norm": derived.spectral_norm.xreplace({c: cv})})
    return values


def readings(c_value: Fraction, perturbation: Fraction, probe: Fraction, derived: Derived) -> list[str]:
    """The module's readings at one c, exact where exact."""
    cv, dv, pv = (sp.Rational(v.numerator, v.denominator) for v in (c_value, perturbation, probe))
    values = exact_readings(cv, dv, pv, derived)
    region, _, dead = first_weight_branch(cv, dv, derived)
    branch = (f"dead ReLU, f = 0 on the data: {describe_closure(dead)}" if dead
              else f"branch {describe(region)}")
    data, loss_text = data_and_loss()
    return [
        f"training data: {data}",
        f"loss: {loss_text}",
        f"c = {show(cv)}, (a, b) = ({show(cv)}, {show(1 / cv)}), perturbation delta = {show(dv)}, "
        f"probe x = {show(pv)}",
        f"prediction at the probe: f(x) = {show(values['prediction'])}"
        f"   max(x, 0) = {show(values['relu'])}",
        f"training loss at (c, 1/c): {show(values['loss_at_optimum'])}",
        f"first-weight perturbation loss L(c + delta, 1/c): {show(values['first_weight_loss'])}"
        f"   ({branch})",
        f"second-weight perturbation loss L(c, 1/c + delta): {show(values['second_weight_loss'])}",
        "Hessian at (c, 1/c): [[{}, {}], [{}, {}]]".format(
            *(show(values[f"hessian_{i}{j}"]) for i in range(2) for j in range(2))),
        "eigenvalues: " + ", ".join(show(v) for k, v in values.items() if k.startswith("eigenvalue")),
        f"trace: {show(values['trace'])}",
        f"spectral norm: {show(values['spectral_norm'])}",
    ]


def log10(value: Fraction) -> float:
    """log10 of a positive rational of any size (no float overflow)."""
    return math.log10(value.numerator) - math.log10(value.denominator)


def first_weight_loss_function(derived: Derived):
    """L(c + δ, 1/c) as a float function of (c, δ), from the derived branches (no cancellation:
    the live branch is 5δ²/(4c²), not a difference of nearly equal numbers)."""
    branches = [([sp.lambdify((c, delta), e, "math") for e in region],
                 sp.lambdify((c, delta), value, "math"))
                for region, value in derived.first_weight_branches]

    def evaluate(cv: float, dv: float) -> float:
        for holds in (lambda t: t > 0, lambda t: t >= 0):
            for region, value in branches:
                if all(holds(e(cv, dv)) for e in region):
                    return float(value(cv, dv))
        raise ValueError(f"no branch holds at c = {cv}, delta = {dv}")
    return evaluate


def _plus(number: float) -> str:
    """'c + 0.1', 'c - 0.5', 'c' for a perturbation of 0 (mathtext)."""
    if number == 0:
        return "c"
    return f"c {'+' if number > 0 else '-'} {abs(number):g}"


def sharpness_figure(c_value: Fraction, perturbation: Fraction, probe: Fraction, derived: Derived):
    """Spectral norm and first-weight perturbation loss against c (log axes), the chosen c marked and
    inside the range, with the c-independent prediction at the probe for contrast."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    centre = log10(c_value)
    low, high = min(-3, math.floor(centre) - 2), max(3, math.ceil(centre) + 2)
    scales = [10 ** (low + (high - low) * k / 400) for k in range(401)]
    cv, dv, pv = float(c_value), float(perturbation), float(probe)
    norm = sp.lambdify(c, derived.spectral_norm, "math")
    first = first_weight_loss_function(derived)
    prediction = sp.lambdify((c, x), network(c, 1 / c, x), "math")

    figure, (top, bottom) = plt.subplots(2, 1, figsize=(7, 7), sharex=True,
                                         gridspec_kw={"height_ratios": [3, 1]})
    top.loglog(scales, [norm(s) for s in scales], color="C0",
               label=r"spectral norm $\|H_L(c, 1/c)\|_2$")
    top.plot([cv], [norm(cv)], "o", color="C0")
    label = rf"first-weight perturbation loss $L({_plus(dv)}, 1/c)$"
    losses = [(s, first(s, dv)) for s in scales]
    drawn = [(s, v) for s, v in losses if v > 0]        # log axes: zero is not drawn
    if drawn:
        top.loglog(*zip(*drawn), color="C1", label=label)
        if first(cv, dv) > 0:
            top.plot([cv], [first(cv, dv)], "o", color="C1")
    if len(drawn) < len(losses):       # δ = 0, or values below the floating-point range
        top.plot([], [], " ", label=label.replace("first-weight perturbation loss ", "") + (
            " = 0 for every c (not drawn on log axes)" if dv == 0
            else " not drawn where it underflows floating point"))
    top.axvline(cv, color="gray", linestyle="--", label=f"chosen c = {cv:.4g}")
    top.set_xlim(scales[0], scales[-1])
    top.set_ylabel("sharpness")
    top.set_title(r"$f(x) = b\,\max(0, a x)$ at $(a, b) = (c, 1/c)$: same function, different sharpness")
    top.grid(True, which="both", alpha=0.3)
    top.legend(fontsize="small")
    bottom.semilogx(scales, [prediction(s, pv) for s in scales], color="black",
                    label=rf"prediction $f({pv:g})$ (= max({pv:g}, 0) for every c)")
    bottom.plot([cv], [prediction(cv, pv)], "o", color="black")
    bottom.axvline(cv, color="gray", linestyle="--")
    bottom.set_xlabel("rescaling c")
    bottom.set_ylabel("prediction")
    bottom.legend(fontsize="small")
    figure.tight_layout()
    return figure


def plot(path: str, c_value: Fraction, perturbation: Fraction, probe: Fraction, derived: Derived) -> None:
    import matplotlib.pyplot as plt
    figure = sharpness_figure(c_value, perturbation, probe, derived)
    try:
        figure.savefig(path, dpi=120)
    finally:
        plt.close(figure)


if __name__ == "__main__":
    from .cli import main as cli_main
    sys.exit(cli_main(["example", *sys.argv[1:]]))
