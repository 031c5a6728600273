"""Section 4.3 (Dinh et al. 2017): ε-sharpness is not a property of the function either.

Definition 2 measures a minimum θ by max_{θ' ∈ B₂(ε, θ)} (L(θ') − L(θ)) / (1 + L(θ)).  The paper's
argument, as checked here, for a one-hidden-layer ReLU network θ = (θ₁, θ₂) = (W, v) with θ₁ ≠ 0:

  1. with α = ε/‖θ₁‖₂, the point (0, α⁻¹θ₂) lies in B₂(ε, T_αθ), at distance exactly ε   (exact)
  2. at θ₁ = 0 every hidden unit is off: L(0, ·) is the loss of the constant predictor 0  (exact)
  3. L(T_αθ) = L(θ)                                                          (Theorem 1, checked)
  4. so the ε-sharpness at T_αθ, observationally equivalent to θ, is at least
     (L(0, ·) − L(θ)) / (1 + L(θ)) for every ε > 0                              (max ≥ a value)

On the worked example f(x) = b·max(0, a·x) that bound is 5/4, derived.  The contrast is certified,
not sampled: at θ = (1, 1) with ε = 1/10 the maximum over the ball is bracketed by an exact point
(below) and an arb interval enclosure over a subdivision of the ball (above), and its upper bound
lies below 5/4.  Keskar et al.'s box C_ε (half-widths ε(|θ_i| + 1)) fares no better: its corner
value at (c, 1/c) grows like c², derived and checked, and certified enclosures show it.
"""
from __future__ import annotations

import random
from fractions import Fraction

import sympy as sp

from symbolic import Status, Verdict, check_identity
from symbolic.kernel import Equation, Relation, by_oracle, conjunction
from symbolic.checks import nonnegatives, zeros
from symbolic.decision.limit_oracle import limit_statement
from symbolic.derivation import Derivation
from symbolic.numerics.enclosure import MaximumEnclosure, Region, enclose_maximum
from symbolic.numerics.enclosure_oracle import maximum_statement
from symbolic.latex import to_latex
from symbolic.networks.network import OneHiddenLayerNet
from symbolic.decision.positivity import is_manifestly_nonnegative
from symbolic.networks.rescaling import rescale

from proofs import theorem1_observational_equivalence as theorem1
from proofs.worked_example import check_training_loss
from symbolic.networks import worked_example as example
from symbolic.report import Report
from symbolic.trusted.oracles.exact import EXACT_EVALUATION, RATIONAL_COMPARISON, SYMPY_ASSUMPTIONS
from symbolic.trusted.oracles.numerics import INTERVAL_ENCLOSURE
from symbolic.trusted.oracles.solvers import SYMPY_LIMITS

NAME = "epsilon_sharpness"
TITLE = "Section 4.3: epsilon-sharpness (Definition 2, Keskar's box) is not a property of the function"
SOURCE = ("Dinh, Pascanu, Bengio and Bengio, Sharp Minima Can Generalize For Deep Nets, ICML 2017, "
          "Section 4.3 and Definition 2; Keskar et al., ICLR 2017, Metric 2.1 (full space, A = I)")
DEFAULT_SIZES = (2, 2, 2)
LARGEST_SIZES = (5, 5, 5)

EPSILON = sp.Symbol("epsilon", positive=True)
RADIUS = Fraction(1, 10)            # the small ε of the certified contrast
TOLERANCE = Fraction(1, 10 ** 5)    # gap asked of each enclosure
KESKAR_SCALES = (Fraction(1), Fraction(10))


# --- the general argument, at each size ------------------------------------------------------------

def dead_point_distance(d: int, h: int, radius: sp.Expr = EPSILON, seed: int = 0) -> Verdict:
    """Step 1: ‖(0, α⁻¹v) − T_α(W, v)‖₂² = ε² for α = ε/‖W‖₂, while the ball has radius ``radius``:
    the dead point is in B₂(radius, T_αθ) exactly when ε² ≤ radius²."""
    net = OneHiddenLayerNet(d, h)
    alpha = EPSILON / sp.sqrt(sum(w ** 2 for w in net.W))
    scaled_W, scaled_v = rescale(net.W, net.v, alpha)
    dead = [sp.S.Zero] * (d * h) + list(scaled_v)
    squared_distance = sum((p - q) ** 2 for p, q in zip(dead, list(scaled_W) + list(scaled_v)))
    claim = f"(0, v/alpha) in B_2({radius}, T_alpha theta), alpha = epsilon/||W||, d={d}, h={h}"
    exact = check_identity(squared_distance, EPSILON ** 2,
                           claim=f"||(0, v/alpha) - T_alpha theta||^2 = epsilon^2, d={d}, h={h}", seed=seed)
    if exact.status is not Status.PROVED:
        return exact
    margin = sp.factor(radius ** 2 - EPSILON ** 2)
    if margin == 0 or is_manifestly_nonnegative(margin):
        return conjunction([exact, nonnegatives(f"radius^2 - epsilon^2 = {margin} >= 0", [margin])], label=claim,
                           evidence=(*exact.evidence, f"radius^2 - distance^2 = {margin} >= 0"))
    # a point where the dead point lies outside the ball, re-evaluated exactly on the original terms
    rng = random.Random(seed)
    point = {s: sp.Rational(rng.randint(1, 9), rng.randint(1, 9)) * rng.choice((-1, 1))
             for s in net.parameters}
    point[EPSILON] = sp.Rational(rng.randint(1, 9), rng.randint(1, 9))
    distance2, bound2 = squared_distance.xreplace(point), (radius ** 2).xreplace(point)
    if distance2.is_Rational and bound2.is_Rational and distance2 > bound2:
        return Verdict(Status.REFUTED, claim, witness=point,
                       reason=f"distance^2 = {distance2} > radius^2 = {bound2}")
    return Verdict(Status.UNDECIDED, claim, reason=f"radius^2 - epsilon^2 = {margin}: no certificate")


def constant_predictor_loss(d: int, h: int, n: int, seed: int = 0) -> Verdict:
    """Step 2: L(0, v) = ℓ(0, …, 0) for a generic loss ℓ of the N predictions."""
    net = OneHiddenLayerNet(d, h)
    inputs = [net.input(k + 1) for k in range(n)]
    targets = [sp.Symbol(f"y_{{{k + 1}}}", real=True) for k in range(n)]
    zero = sp.zeros(d, h)
    v = net.v       # the output weights' symbols, made before sympy's evaluation is turned off
    # the predictions at W = 0 as written: evaluated, each would be 0 and the statement ell(0) = ell(0)
    with sp.evaluate(False):
        dead = [net.prediction(x, zero, v) for x in inputs]
    dead_loss = theorem1.loss_of_predictions("generic", dead, targets)
    constant_loss = theorem1.loss_of_predictions("generic", [sp.S.Zero] * n, targets)
    return check_identity(dead_loss, constant_loss, seed=seed,
                          claim=f"L(0, v) = ell(0, ..., 0), d={d}, h={h}, N={n}")


def ball_inside_keskar_box(d: int, h: int) -> Verdict:
    """B₂(ε, θ) ⊂ C_ε(θ): a point of the ball has |θ'_i − θ_i| ≤ ‖θ' − θ‖₂ ≤ ε, and every
    half-width ε(|θ_i| + 1) exceeds ε by ε|θ_i| ≥ 0.  So Keskar's maximum is at least
    Definition 2's, and the bound of step 4 carries over (the paper's norm-equivalence remark)."""
    theta = OneHiddenLayerNet(d, h).parameters
    margins = [sp.expand(EPSILON * (sp.Abs(t) + 1) - EPSILON) for t in theta]
    claim = f"half-widths epsilon(|theta_i| + 1) >= epsilon, d={d}, h={h}"
    return nonnegatives(claim, margins, evidence=(f"{len(margins)} margins epsilon |theta_i|, manifestly >= 0",))


# --- Definition 2 and Keskar's metric as certified brackets ----------------------------------------

def sharpness_bounds(loss: sp.Expr, variables, theta, region: Region, *, precision: int = 64):
    """(lower, upper, enclosure) of (max_region L − L(θ)) / (1 + L(θ)); L(θ) exact."""
    point = {v: sp.Rational(Fraction(t).numerator, Fraction(t).denominator) for v, t in zip(variables, theta)}
    at_theta = Fraction(str(loss.xreplace(point)))
    enclosure = enclose_maximum(loss, variables, region, tolerance=TOLERANCE, precision=precision)
    scale = 1 + at_theta
    return (enclosure.lower - at_theta) / scale, (enclosure.upper - at_theta) / scale, enclosure


def ball(theta, radius) -> Region:
    """B₂(ε, θ) of Definition 2, closed (the paper's dead point sits on its boundary)."""
    return Region.ball(theta, radius)


def keskar_box(theta, epsilon) -> Region:
    """Keskar's C_ε with A = I: half-widths ε(|θ_i| + 1)."""
    return Region.box(theta, [epsilon * (abs(Fraction(t)) + 1) for t in theta])


def _decimal(value: Fraction, digits: int, upward: bool) -> str:
    """value rounded outward to ``digits`` decimals: a printed bracket still contains the maximum."""
    scaled = value * 10 ** digits
    whole = -((-scaled.numerator) // scaled.denominator) if upward else scaled.numerator // scaled.denominator
    sign, whole = ("-" if whole < 0 else ""), abs(whole)
    return f"{sign}{whole // 10 ** digits}.{whole % 10 ** digits:0{digits}d}"


def bracket_text(low: Fraction, up: Fraction, digits: int = 6) -> str:
    return rf"[{_decimal(low, digits, False)},\ {_decimal(up, digits, True)}]"


def _describe(enclosure: MaximumEnclosure, region: Region) -> str:
    return f"{region.describe()}: {enclosure.describe()}"


def sharpness_ratio(loss: sp.Expr, variables, theta) -> sp.Expr:
    """(L − L(θ)) / (1 + L(θ)), L(θ) exact: its maximum over a set is the sharpness there."""
    point = {v: sp.Rational(Fraction(t).numerator, Fraction(t).denominator) for v, t in zip(variables, theta)}
    at_theta = loss.xreplace(point)
    return (loss - at_theta) / (1 + at_theta)


def sharpness_statement(theta, region: Region, relation: str, bound):
    """The example's sharpness at θ over ``region`` stands in ``relation`` to ``bound``: a fact
    about the maximum of the ratio over the region, for the interval enclosure to decide."""
    variables = [example.a, example.b]
    return maximum_statement(sharpness_ratio(example.loss(*variables), variables, theta), variables, region,
                             relation, bound)


def sharpness_reaches(theta, region: Region, bound) -> Verdict:
    """Does the example's ε-sharpness over ``region`` reach ``bound``?  The interval enclosure
    decides it: PROVED by an exact point of the region; REFUTED by a certified upper bound below
    it, at two precisions; else UNDECIDED."""
    bound = Fraction(bound)
    claim = f"epsilon-sharpness over the {region.describe()} >= {bound}"
    return by_oracle(INTERVAL_ENCLOSURE, sharpness_statement(theta, region, ">=", bound), label=claim,
                     tolerance=TOLERANCE)


# --- the worked example ---------------------------------------------------------------------------

def example_constant_bound() -> tuple[sp.Expr, Verdict]:
    """The bound (L(0, ·) − L(θ_c)) / (1 + L(θ_c)) on the example, derived, with its checks."""
    b, c = example.b, example.c
    dead = example.loss(0, b)
    constant = sp.Rational(1, 2) * sp.Rational(1, len(example.DATA)) * sum(y ** 2 for _, y in example.DATA)
    at_minimum = example.loss(c, 1 / c)
    bound = sp.cancel((dead - at_minimum) / (1 + at_minimum))
    checks = [check_identity(dead, constant, claim="L(0, b) = loss of the constant predictor 0"),
              check_training_loss()]
    claim = "(L(0, b) - L(c, 1/c)) / (1 + L(c, 1/c)) is a constant > 0"
    if any(v.status is not Status.PROVED for v in checks):
        # the worst check, named by this claim (a conjunction passes a failing premise on)
        return bound, conjunction(checks, label=claim)
    if bound.free_symbols or not bound.is_positive:
        return bound, Verdict(Status.UNDECIDED, claim, reason=f"the bound {bound} is not a positive constant")
    # the ratio from the two losses as computed, unevaluated, and its sign
    with sp.evaluate(False):
        ratio = (dead - at_minimum) / (1 + at_minimum)
    derived = by_oracle(EXACT_EVALUATION, Equation(ratio, bound))
    positive = by_oracle(RATIONAL_COMPARISON, Relation(bound, ">", sp.S.Zero))
    return bound, conjunction([*checks, derived, positive], label=claim, evidence=(
        "L(0, b) equals the constant predictor's loss for every b (exact)",
        f"L(c, 1/c) = 0 for every c > 0 (exact); bound = {bound} > 0"))


def certified_contrast(bound: sp.Expr, epsilon: Fraction = RADIUS) -> Verdict:
    """At θ = (1, 1) the ε-sharpness (ε = 1/10) is certified below the bound; at the observationally
    equivalent T_ε(1, 1) = (ε, 1/ε) it is certified at least the bound."""
    balanced, rescaled = (Fraction(1), Fraction(1)), (epsilon, 1 / epsilon)
    bound = Fraction(str(bound))
    below = by_oracle(INTERVAL_ENCLOSURE, sharpness_statement(balanced, ball(balanced, epsilon), "<", bound),
                      tolerance=TOLERANCE)
    above = by_oracle(INTERVAL_ENCLOSURE, sharpness_statement(rescaled, ball(rescaled, epsilon), ">=", bound),
                      tolerance=TOLERANCE)
    hessian_norm = example.derive().spectral_norm.xreplace({example.c: 1})
    proxy = hessian_norm * sp.Rational(epsilon.numerator, epsilon.denominator) ** 2 / 2
    claim = f"sharpness at (1, 1) < {bound} <= sharpness at ({epsilon}, {1 / epsilon}), epsilon = {epsilon}"
    low1, up1 = below.details.get("lower", 0), below.details.get("upper", 0)
    low2, up2 = above.details.get("lower", 0), above.details.get("upper", 0)
    evidence = (f"(1, 1): [{float(low1):.8g}, {float(up1):.8g}]", *below.evidence,
                f"({epsilon}, {1 / epsilon}): [{float(low2):.8g}, {float(up2):.8g}]", *above.evidence,
                f"quadratic proxy ||H||_2 epsilon^2 / 2 at (1, 1): {proxy} = {float(proxy):.6g}")
    return conjunction([below, above], label=claim, evidence=evidence,
                       details={"balanced": (low1, up1), "rescaled": (low2, up2), "proxy": proxy})


def keskar_corner() -> tuple[dict, Verdict]:
    """Keskar's box at θ_c = (c, 1/c): the corner value K(c, ε), its growth κc², and for every M an
    explicit c with K ≥ M."""
    c, M = example.c, example.M
    corner = (c + EPSILON * (c + 1), 1 / c + EPSILON * (1 / c + 1))
    value = sp.factor(example.loss(*corner))
    rate = sp.factor(sp.limit(value / c ** 2, c, sp.oo))
    margin = sp.expand(value - rate * c ** 2)
    scale = sp.sqrt(M / rate)
    derived = {"corner": corner, "value": value, "rate": rate, "scale": scale}
    claim = "Keskar corner value K(c, epsilon) >= kappa c^2 -> oo; K >= M at c = sqrt(M/kappa)"
    # the corner value is the real loss (with max) there: a > 0 at the corner, so max(0, a x) = a x
    real = check_identity(example.loss(*corner), value, claim="K(c, epsilon) = L(corner)")
    if real.status is not Status.PROVED:
        return derived, real
    if not rate.is_positive:
        return derived, Verdict(Status.UNDECIDED, claim, reason=f"kappa = {rate} is not shown positive")
    return derived, conjunction([
        real, by_oracle(SYMPY_LIMITS, limit_statement(value / c ** 2, c, sp.oo, rate)),
        by_oracle(SYMPY_ASSUMPTIONS, Relation(rate, ">", sp.S.Zero)),
        nonnegatives(f"K - kappa c^2 = {margin} >= 0", [margin]),
        zeros("kappa c_M^2 = M", [(rate * scale ** 2, M)])], label=claim, evidence=(
        f"K(c, epsilon) = {value}", f"kappa = lim K/c^2 = {rate}",
        "K - kappa c^2 expands to a sum of manifestly non-negative terms", "kappa (sqrt(M/kappa))^2 = M exactly"))


def keskar_certified(epsilon: Fraction = RADIUS) -> Verdict:
    """Keskar's metric (A = I, up to its factor 100) at θ_c for c = 1 and c = 10, ε = 1/10:
    certified brackets that do not overlap, separated by two decimals u < l with the metric at
    c = 1 at most u and at c = 10 at least l."""
    loss, variables = example.loss(example.a, example.b), [example.a, example.b]
    brackets, regions = [], []
    for scale in KESKAR_SCALES:
        theta = (scale, 1 / scale)
        regions.append((theta, keskar_box(theta, epsilon)))
        low, up, _ = sharpness_bounds(loss, variables, theta, regions[-1][1])
        brackets.append((low, up))
    upper, lower = Fraction(_decimal(brackets[0][1], 5, True)), Fraction(_decimal(brackets[1][0], 4, False))
    claim = f"Keskar sharpness (A = I, epsilon = {epsilon}) at (1, 1) <= {upper} < {lower} <= at (10, 1/10)"
    first = by_oracle(INTERVAL_ENCLOSURE, sharpness_statement(*regions[0], "<=", upper), tolerance=TOLERANCE)
    second = by_oracle(INTERVAL_ENCLOSURE, sharpness_statement(*regions[1], ">=", lower), tolerance=TOLERANCE)
    apart = by_oracle(RATIONAL_COMPARISON, Relation(_rational(upper), "<", _rational(lower)))
    evidence = tuple(f"c = {scale}: [{float(low):.8g}, {float(up):.8g}]; " + " ".join(verdict.evidence)
                     for scale, (low, up), verdict in zip(KESKAR_SCALES, brackets, (first, second)))
    return conjunction([first, apart, second], label=claim, evidence=evidence, details={"brackets": brackets})


def _rational(value: Fraction) -> sp.Rational:
    return sp.Rational(value.numerator, value.denominator)


# --- the proof script -----------------------------------------------------------------------------

def derivation_skeleton() -> Derivation:
    return Derivation(
        name=NAME, title=TITLE, source=SOURCE,
        statement=(r"For a one-hidden-layer ReLU network, a parameter $\theta = (\theta_1, \theta_2)$ "
                   r"with $\theta_1 \neq 0$ and every $\varepsilon > 0$, the observationally "
                   r"equivalent $T_\alpha\theta$, $\alpha = \varepsilon/\|\theta_1\|_2$, has "
                   r"$\varepsilon$-sharpness at least $(L(0, \cdot) - L(\theta))/(1 + L(\theta))$. "
                   r"On the worked example this is $5/4$ for every $\varepsilon$, while at $(1, 1)$ "
                   r"with $\varepsilon = 1/10$ it is certified far below; Keskar's box metric "
                   r"grows without bound along the same orbit."),
        definitions=[
            r"$s_\varepsilon(\theta) = \max_{\theta' \in B_2(\varepsilon, \theta)} "
            r"\frac{L(\theta') - L(\theta)}{1 + L(\theta)}$ (Definition 2), "
            r"$B_2(\varepsilon, \theta)$ the closed Euclidean ball.",
            r"Keskar's metric with $A = I$, $\phi_\varepsilon(\theta)$: the same ratio with the "
            r"maximum over the box $C_\varepsilon(\theta)$ of half-widths $\varepsilon(|\theta_i| + 1)$ "
            r"(Keskar et al. multiply it by 100; that changes no comparison here).",
            r"$T_\alpha(W, v) = (\alpha W, \alpha^{-1} v)$; $\theta_1 = W$, $\theta_2 = v$.",
            r"Worked example: $f(x) = b\max(0, a x)$, data $(1,1), (2,2)$, "
            r"$L = \frac14\sum_i (f(x_i) - y_i)^2$, minima $\theta_c = (c, 1/c)$.",
            r"Certified bracket: lower end the exact value at an exact rational point of the set; "
            r"upper end from arb interval arithmetic over a subdivision of the set's bounding box "
            r"whose kept pieces cover the set.",
        ])


def run(sizes, seed=0, timeout=None) -> Report:
    derivation = derivation_skeleton()
    report = Report(derivation)
    pairs = sorted({(d, h) for d, h, _ in sizes})
    distance = [report.record(NAME, "(0, v/alpha) in B_2(epsilon, T_alpha theta), at distance epsilon",
                              (d, h, None), lambda d=d, h=h: dead_point_distance(d, h, seed=seed))
                for d, h in pairs]
    constant = [report.record(NAME, "L(0, v) is the loss of the constant predictor 0", size,
                              lambda size=size: constant_predictor_loss(*size, seed=seed)) for size in sizes]
    invariance = [report.record(NAME, "Theorem 1: L(T_alpha theta) = L(theta)", size,
                                lambda size=size: theorem1.loss_invariance(*size, "generic", seed=seed,
                                                                           timeout=timeout))
                  for size in sizes]
    inside = [report.record(NAME, "B_2(epsilon, theta) lies in Keskar's box C_epsilon(theta)", (d, h, None),
                            lambda d=d, h=h: ball_inside_keskar_box(d, h)) for d, h in pairs]
    example_size = (1, 1, 2)
    bound, bound_verdict = example_constant_bound()
    constant_bound = report.record(NAME, "example: the bound (L(0, b) - L(theta))/(1 + L(theta))",
                                   example_size, lambda: bound_verdict)
    contrast = report.record(NAME, "example: certified brackets at (1, 1) and (eps, 1/eps)",
                             example_size, lambda: certified_contrast(bound))
    corner, corner_verdict = keskar_corner()
    keskar = report.record(NAME, "example: Keskar corner value grows like c^2", example_size,
                           lambda: corner_verdict)
    keskar_brackets = report.record(NAME, "example: certified Keskar brackets at c = 1 and c = 10",
                                    example_size, keskar_certified)

    derivation.add(distance,
                   r"the dead point: $\|(0, \alpha^{-1}\theta_2) - T_\alpha\theta\|_2 = \alpha\|\theta_1\|_2 = "
                   r"\varepsilon$, exact identity for symbolic $W$, $v$, $\varepsilon > 0$ with "
                   r"$\alpha = \varepsilon/\|W\|_2$; so the dead point lies in the closed ball", [(d, h, None) for d, h in pairs])
    derivation.add(constant, r"every hidden unit is off at $\theta_1 = 0$: $L(0, \theta_2')$ is the loss of the constant "
                   r"predictor $0$, exact for a generic loss $\ell$ of the $N$ predictions", sizes)
    derivation.add(invariance,
                   "Theorem 1 (generic loss of the predictions), $L(T_\\alpha\\theta) = L(\\theta)$", sizes)
    derivation.unchecked.append(
        r"$s_\varepsilon(T_\alpha\theta) \ge \frac{L(0, \alpha^{-1}\theta_2) - L(T_\alpha\theta)}"
        r"{1 + L(T_\alpha\theta)} = \frac{\ell(0, \dots, 0) - L(\theta)}{1 + L(\theta)}$: a maximum is at least "
        r"the value at any point of the set; the three lines above.")
    derivation.add(inside,
                   r"every half-width $\varepsilon(|\theta_i| + 1)$ is at least $\varepsilon$ "
                   r"(margins manifestly $\ge 0$), so $B_2(\varepsilon, \theta) \subset C_\varepsilon(\theta)$; a "
                   r"larger set has a larger maximum: the bound holds for Keskar's metric too", [(d, h, None) for d, h in pairs])
    derivation.add([constant_bound],
                   r"worked example: $L(0, b)$ is the constant predictor's loss, $L(\theta_c) = 0$ "
                   r"(both exact); with $\theta_\varepsilon = T_\varepsilon(1, 1)$ this gives "
                   r"$s_\varepsilon(\theta_\varepsilon) \ge %s$ for every $\varepsilon > 0$" % to_latex(bound), [example_size])
    derivation.add([contrast],
                   r"certified bracket of $s_{1/10}(1, 1)$ and of $s_{1/10}(1/10, 10)$ at $T_{1/10}(1, 1)$, an "
                   r"observationally equivalent minimum, on the ball of radius $1/10$ (lower: exact point; upper: "
                   r"arb enclosure over a subdivision): the two brackets are disjoint; the quadratic proxy "
                   r"$\|H\|_2\varepsilon^2/2$ is $%s$" % to_latex((contrast.details or {}).get("proxy", sp.nan)), [example_size])
    rate = corner["rate"]
    derivation.add([keskar], r"Keskar's box at $\theta_c$: the corner value $L\bigl(c + \varepsilon(c + 1),\ \tfrac1c + "
                   r"\varepsilon(\tfrac1c + 1)\bigr) \ge %s\, c^2$, derived; minus $\kappa c^2$ it "
                   r"expands to manifestly non-negative terms; $c = \sqrt{M/\kappa}$ reaches any $M$"
                   % to_latex(rate, symbol_names={EPSILON: r"\varepsilon"}), [example_size])
    derivation.add([keskar_brackets], r"certified brackets of Keskar's ratio (without its factor 100) on the two boxes, "
                   r"$\phi_{1/10}(1, 1) < \phi_{1/10}(10, \tfrac1{10})$", [example_size])
    derivation.notes.append(r"With an open ball the same bound holds for the supremum: the dead point "
                            r"is a limit of points of the open ball and $L$ is continuous.")
    derivation.sizes = list(sizes) + [example_size]
    return report
