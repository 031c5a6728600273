"""The worked example's readings at one (c, δ, x), exact, and its plot: what ``python -m proofs
example`` prints and draws, and what the page shows (the closed forms come from
``symbolic.networks.worked_example``, checked by ``proofs/worked_example.py``)."""
from __future__ import annotations

import math
from fractions import Fraction

import sympy as sp

from symbolic.decision.regions import describe
from symbolic.decision.zero import is_rational_zero
from symbolic.networks.worked_example import DATA, Derived, a, b, c, delta, loss, network, x


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
