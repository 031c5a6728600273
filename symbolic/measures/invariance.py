"""Is a measure invariant under a symmetry group?  ``check_invariance(measure, group)``.

PROVED: M(T·θ) = M(θ) as an exact identity in the group parameters, the parameters θ and symbolic
data (x_n, y_n), on every activation pattern at once (pattern indicators σ kept symbolic), at the
group's symbolic sizes; then an independent witness: the measure recomputed from scratch on a
concrete network at a random θ and group element (its own Hessian at T·θ, not a substitution),
both values compared.  How the identity is shown depends on what the measure returns:
  an expression   the difference of the two sides is a zero rational function;
  a Spectrum      the matrix at T·θ is P M(θ) P⁻¹ with P = S or S⁻¹ (each entry exact), so both
                  have the same characteristic polynomial and every function of the eigenvalues
                  agrees;
  a Sharpness     the change of variables δ ↦ Sδ maps the feasible set at θ onto the one at T·θ
                  (t_i(Sθ) = s_i t_i(θ), exact), L(S(θ + δ)) = L(θ + δ) for the real ReLU network
                  (exact, by positive homogeneity of ReLU), and the normalizer is unchanged.
REFUTED: the group's concrete network, data, θ₀ (a global minimum) and group element, or a random
point, with both values exact (rationals, characteristic polynomials) or as rigorous arb
enclosures that do not overlap (eigenvalues, radicals, maxima).
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache

import flint
import mpmath
import sympy as sp

from symbolic.numerics.interval import ScaledSet, enclosure, maximize
from symbolic.measures.definitions import MEASURES, Measure, MeasurePoint, Sharpness, Spectrum
from symbolic.relu import ReLU
from symbolic.networks.symmetry_groups import GROUPS, SymmetryGroup, canonical
from symbolic.report import counted
from symbolic.verdict import Status, Verdict
from symbolic.decision.witness import mpmath_function
from symbolic.decision.fraction_field import is_zero_fraction

PRECISION = 200       # bits of the arb enclosures
WITNESS_TRIES = 5
AGREEMENT = 1e-40     # a witness agrees when its two enclosures overlap and are this narrow


class Kink(Exception):
    """A pre-activation is exactly 0 at the point: the Hessian is not defined there."""


@dataclass
class Step:
    """One step of a proof or a refutation: LaTeX statement, reason, and the check behind it."""

    statement: str
    reason: str
    checked: bool = True
    holds: bool = True


@dataclass
class Outcome:
    verdict: Verdict
    steps: list = field(default_factory=list)


# ------------------------------------------------------------------ the symbolic family

@lru_cache(maxsize=None)
def _symbolic(group_key: str, index: int):
    """MeasurePoint at θ (pattern form, symbolic data) of one family, and the substitution θ ↦ Sθ."""
    group = GROUPS[group_key]
    family = group.families[index]
    model = family.model
    theta = list(model.parameters)
    width = model.input_width
    X = sp.Matrix(family.batch, width, lambda n, i: sp.Symbol(f"x_{{{n + 1},{i + 1}}}", real=True))
    y = [sp.Symbol(f"y_{{{n + 1}}}", real=True) for n in range(family.batch)]

    def pattern(s, key):
        # on a fixed activation pattern ReLU(s) = σ·s, σ ∈ {0, 1} kept as an indeterminate
        return sp.Symbol("sigma_{" + ",".join(str(k + 1) for k in key) + "}") * s
    outputs = model.outputs(theta, X, pattern)
    point = _point(theta, outputs, y, model, sp.eye(len(theta)))
    substitution = {t: s * t for t, s in zip(theta, group.scaling(family))}
    return point, substitution, X, y


def _point(theta, outputs, targets, model, metric) -> MeasurePoint:
    """L = (1/2N) Σ r_n², r_n = f_θ(x_n) − y_n, differentiated through the residuals:
    ∇L = (1/N) Σ r_n ∇f_n and ∇²L = (1/N) Σ (∇f_n ∇f_nᵀ + r_n ∇²f_n)."""
    N, n = len(outputs), len(theta)
    residuals = [f - t for f, t in zip(outputs, targets)]
    loss = sp.Add(*[r ** 2 for r in residuals]) / (2 * N)
    jacobians = [sp.Matrix([sp.diff(f, t) for t in theta]) for f in outputs]
    second = [sp.Matrix(n, n, lambda i, j, g=g: sp.diff(g[i], theta[j]) if i <= j else 0)
              for g in jacobians]
    hessian = sp.Matrix(n, n, lambda i, j: sp.Add(*[
        g[i] * g[j] + r * h[min(i, j), max(i, j)] for g, h, r in zip(jacobians, second, residuals)]) / N)
    samples = [r * g for r, g in zip(residuals, jacobians)]
    gradient = sum(samples, sp.zeros(n, 1)) / N
    return MeasurePoint(list(theta), loss, gradient, hessian, metric, samples, model.weights,
                        model.layers, model.last_layer_rows, model.paths)


def _transformed(point: MeasurePoint, substitution: dict, scaling) -> MeasurePoint:
    """The MeasurePoint at Sθ: every field substituted, the metric transported (G' = S⁻¹ G S⁻¹)."""
    def at(expr):
        return canonical(sp.sympify(expr).xreplace(substitution))
    S_inverse = sp.diag(*[1 / s for s in scaling])
    return MeasurePoint([at(t) for t in point.theta], at(point.loss), point.gradient.applyfunc(at),
                        point.hessian.applyfunc(at), S_inverse * point.metric * S_inverse,
                        [g.applyfunc(at) for g in point.sample_gradients], point.weights,
                        point.layers, point.last_layer_rows, point.paths)


@lru_cache(maxsize=None)
def _transformed_symbolic(group_key: str, index: int) -> MeasurePoint:
    point, substitution, _, _ = _symbolic(group_key, index)
    group = GROUPS[group_key]
    return _transformed(point, substitution, group.scaling(group.families[index]))


def _sample_nonzero(expr: sp.Expr) -> bool:
    """True when expr is provably nonzero (arb) at one random real point, its opaque functions
    (such as R(W)) given random positive values: then no exact zero test can succeed and it is
    skipped.  Never used to prove anything."""
    rng = random.Random(0)

    def draw(positive=False):
        value = sp.Rational(rng.randint(1, 97), rng.randint(1, 97))
        return value if positive else value * rng.choice((-1, 1))
    value = expr.xreplace({s: draw(bool(s.is_positive)) for s in expr.free_symbols})
    opaque = {}
    for g in sp.preorder_traversal(value):
        if isinstance(g, sp.Function) and not isinstance(g, (ReLU, sp.Abs, sp.Max)):
            opaque.setdefault(g, draw(True))
    value = value.xreplace(opaque)
    try:
        ball = enclosure(value, 120)
    except (ValueError, ZeroDivisionError):
        return False
    return bool(ball.is_finite() and not ball.contains(0))


def _zero(expr) -> bool:
    """An exact zero test of expr (radicands brought to a normal form first)."""
    expr = sp.sympify(expr)
    if _sample_nonzero(expr):
        return False
    return is_zero_fraction(canonical(expr))


# ------------------------------------------------------------------ proofs

def _patterns_preserved(group: SymmetryGroup, index: int) -> Step:
    """Each rectifier's argument at Sθ is a positive multiple of its value at θ, so T maps every
    activation region onto itself and the pattern form holds at both points."""
    model = group.families[index].model
    point, substitution, X, _ = _symbolic(group.key, index)
    theta = list(model.parameters)
    ok = True
    for s in model.preactivations(theta, X):
        moved = canonical(s.xreplace(substitution))
        if s == 0:
            continue
        ratio = sp.cancel(moved / s)
        if ratio.free_symbols - set(group.symbols) or not ratio.is_positive or not _zero(moved - ratio * s):
            ok = False
            break
    return Step(r"s(T\theta) = m\, s(\theta),\ m > 0",
                "every rectifier argument is multiplied by a positive product of group parameters, "
                "so $T$ keeps every activation pattern", holds=ok)


def _loss_invariant(group: SymmetryGroup, index: int) -> Step:
    """L(Sθ) = L(θ) for the real ReLU network, at every θ (so also at θ + δ)."""
    family = group.families[index]
    model = family.model
    _, substitution, X, y = _symbolic(group.key, index)
    theta = list(model.parameters)
    relu = lambda s, key: ReLU(s)   # noqa: E731
    before = model.outputs(theta, X, relu)
    after = model.outputs([s * t for t, s in zip(theta, group.scaling(family))], X, relu)
    ok = all(_zero(a - b) for a, b in zip(after, before))
    return Step(r"f_{S\theta}(x_n) = f_{\theta}(x_n)",
                "the network with the real ReLU is unchanged at every $\\theta$ and every input "
                "(exact; ReLU's positive homogeneity $\\mathrm{ReLU}(cs) = c\\,\\mathrm{ReLU}(s)$ "
                "taken from Theorem 1)", holds=ok)


def _similar(scaling, M_before: sp.Matrix, M_after: sp.Matrix):
    """A diagonal P with M_after = P M_before P⁻¹ (entrywise exact), or None."""
    for name, P in (("S", sp.diag(*scaling)), ("S^{-1}", sp.diag(*[1 / s for s in scaling])),
                    ("I", sp.eye(len(scaling)))):
        if all(_zero(entry) for entry in (M_after * P - P * M_before)):
            return name
    return None


def prove(measure: Measure, group: SymmetryGroup) -> list:
    """The proof steps, each checked at every size of the group's families; the proof stands when
    every step holds (a failing size is named in its step)."""
    steps = []
    for index, family in enumerate(group.families):
        steps = _prove_family(measure, group, index)
        failed = [step for step in steps if not step.holds]
        if failed:
            failed[0].reason += f" (at {family.sizes})"
            return steps
    return steps


def _prove_family(measure: Measure, group: SymmetryGroup, index: int) -> list:
    lemmas = _lemmas(group, index)
    if not all(step.holds for step in lemmas):
        return lemmas
    return lemmas + _prove_measure(measure, group, index)


@lru_cache(maxsize=None)
def _lemma_verdicts(group_key: str, index: int) -> tuple:
    group = GROUPS[group_key]
    if group.lemmas is None:
        return ()
    return tuple((statement, reason, _zero(expr))
                 for statement, reason, expr in group.lemmas(group.families[index]))


def _lemmas(group: SymmetryGroup, index: int) -> list:
    """The facts a group's symbolic family is built on, each checked exactly."""
    return [Step(statement, reason, holds=holds)
            for statement, reason, holds in _lemma_verdicts(group.key, index)]


def _prove_measure(measure: Measure, group: SymmetryGroup, index: int) -> list:
    base, _, _, _ = _symbolic(group.key, index)
    moved = _transformed_symbolic(group.key, index)
    scaling = group.scaling(group.families[index])
    before, after = measure.evaluate(base), measure.evaluate(moved)
    if not isinstance(before, (Spectrum, Sharpness, sp.Expr, int, Fraction)):
        raise TypeError(f"the measure {measure.key!r} returned {type(before).__name__}; a measure "
                        "returns a sympy expression, a Spectrum or a Sharpness")
    if isinstance(before, Sharpness):
        steps = [Step(r"t_i(S\theta) = s_i\, t_i(\theta)",
                      "the scales of the feasible set move with the parameters, so $\\delta \\mapsto "
                      "S\\delta$ maps the set at $\\theta$ onto the set at $S\\theta$",
                      holds=all(_zero(a - s * b) for a, b, s in
                                zip(after.scales, before.scales, scaling)))]
        steps.append(_loss_invariant(group, index))
        steps.append(Step(r"L(S\theta + S\delta) = L(S(\theta + \delta)) = L(\theta + \delta)",
                          "linearity of $S$ and the previous step", checked=False))
        steps.append(Step(r"\mathrm{norm}(S\theta) = \mathrm{norm}(\theta)",
                          "the normalizer is unchanged (exact)",
                          holds=_zero(after.normalizer - before.normalizer)))
        return steps
    steps = [_patterns_preserved(group, index)]
    if not steps[0].holds:
        return steps
    if isinstance(before, Spectrum):
        name = _similar(scaling, before.matrix, after.matrix)
        steps.append(Step(r"M(S\theta) = P\, M(\theta)\, P^{-1}" + (f",\\ P = {name}" if name else ""),
                          "the matrix at $S\\theta$ is similar to the matrix at $\\theta$ "
                          "(every entry exact)", holds=name is not None))
        steps.append(Step(r"\operatorname{spec} M(S\theta) = \operatorname{spec} M(\theta)",
                          "similar matrices have the same characteristic polynomial", checked=False))
        return steps
    steps.append(Step(r"M(S\theta) - M(\theta) = 0",
                      "the difference is the zero rational function of the group parameters, "
                      "$\\theta$, the data and the pattern", holds=_zero(after - before)))
    return steps


# ------------------------------------------------------------------ concrete evaluation

def _rational(value) -> sp.Rational:
    value = Fraction(value)
    return sp.Rational(value.numerator, value.denominator)


@lru_cache(maxsize=None)
def _concrete_family(group_key: str):
    group = GROUPS[group_key]
    model = group.witness_model
    X = sp.Matrix([[_rational(x) for x in row] for row in group.instance.inputs])
    return model, X, group.instance.targets(model)


def concrete_point(group: SymmetryGroup, values, factors=None) -> MeasurePoint:
    """The MeasurePoint of the concrete network at the rational point ``values``, computed from
    scratch (its own activation pattern and derivatives); the metric is I, or transported by the
    factors of the group element that produced the point."""
    model, X, targets = _concrete_family(group.key)
    theta = list(model.parameters)
    at = {t: _rational(v) for t, v in zip(theta, values)}

    def active(s, key):
        value = s.xreplace(at)
        if value == 0:
            raise Kink(f"a pre-activation is 0 at {values}")
        return s if value > 0 else sp.S.Zero
    outputs = model.outputs(theta, X, active)
    metric = sp.eye(len(theta)) if factors is None else sp.diag(*[1 / f ** 2 for f in factors])
    symbolic = _point(theta, outputs, targets, model, metric)

    def num(expr):
        return sp.sympify(expr).xreplace(at)
    return MeasurePoint([at[t] for t in theta], num(symbolic.loss), symbolic.gradient.applyfunc(num),
                        symbolic.hessian.applyfunc(num), metric,
                        [g.applyfunc(num) for g in symbolic.sample_gradients], model.weights,
                        model.layers, model.last_layer_rows, model.paths)


@dataclass
class Value:
    """A measure's value at one concrete point: exact when possible, else an arb enclosure."""

    text: str
    exact: object = None           # a sympy Rational, or a tuple of rationals (a char. polynomial)
    ball: object = None            # flint.arb
    low: float | None = None       # bounds of a maximum
    high: float | None = None
    balls: tuple = ()              # enclosures of the characteristic polynomial's coefficients
    attained: tuple = ()           # (point, lower end of L there) behind a maximum's lower end


def _charpoly(matrix: sp.Matrix):
    """Coefficients of det(λI − M), exact (rational when the entries are)."""
    if all(entry.is_Rational for entry in matrix):
        M = flint.fmpq_mat(matrix.rows, matrix.cols,
                           [flint.fmpq(int(e.p), int(e.q)) for e in matrix])
        poly = M.charpoly()
        return [sp.Rational(int(c.p), int(c.q)) for c in reversed(poly.coeffs())] + \
            [sp.S.Zero] * (matrix.rows + 1 - len(poly.coeffs())), poly
    lam = sp.Symbol("lambda")
    return list(matrix.charpoly(lam).all_coeffs()), None


def _ball_text(ball) -> str:
    return ball.str(12, radius=True) if ball.is_finite() else "undefined"


def spectrum_value(spectrum: Spectrum) -> Value:
    coefficients, poly = _charpoly(spectrum.matrix)
    if spectrum.reduction == "spectrum":
        text = "charpoly " + str(sp.Poly(coefficients, sp.Symbol("lambda")).as_expr())
        if poly is not None:
            roots = [r.real for r, m in poly.complex_roots() for _ in range(m)]
            text += "; eigenvalues " + ", ".join(r.str(8) for r in roots)
        exact = tuple(coefficients) if all(c.is_Rational for c in coefficients) else None
        return Value(text, exact=exact, balls=tuple(enclosure(c, PRECISION) for c in coefficients))
    if spectrum.reduction == "log_pseudo_det":
        # ∏ of the nonzero eigenvalues = ± the lowest nonzero coefficient of the char. polynomial
        nonzero = [c for c in reversed(coefficients) if c != 0]
        if not nonzero:
            return Value("no nonzero eigenvalue")
        magnitude = abs(nonzero[0])
        ball = enclosure(magnitude)
        if ball > 0:
            flint.ctx.prec, old = PRECISION, flint.ctx.prec
            ball = ball.log()
            flint.ctx.prec = old
        return Value(f"log {magnitude} = {_ball_text(ball)}", exact=magnitude if magnitude.is_Rational else None,
                     ball=ball)
    if poly is None:
        return Value("spectral norm of an irrational matrix: not enclosed")
    old, flint.ctx.prec = flint.ctx.prec, PRECISION
    try:
        radii = [abs(r) for r, _ in poly.complex_roots()] or [flint.arb(0)]
        ball = radii[0]
        for r in radii[1:]:
            ball = ball.max(r)
    finally:
        flint.ctx.prec = old
    return Value(_ball_text(ball), ball=ball)


def scalar_value(value: sp.Expr) -> Value:
    value = sp.sympify(value)
    if value.is_Rational:
        return Value(str(value), exact=value, ball=enclosure(value, PRECISION))
    try:
        ball = enclosure(value, PRECISION)
    except (ValueError, ZeroDivisionError):
        return Value(f"{value} (no rigorous enclosure)")
    return Value(f"{value} = {_ball_text(ball)}", ball=ball)


def compare(a: Value, b: Value) -> str:
    """'differ', 'agree' or 'unknown', rigorously."""
    if a.low is not None:
        if a.high < b.low or b.high < a.low:
            return "differ"
        return "unknown"
    if a.exact is not None and b.exact is not None:
        return "agree" if a.exact == b.exact else "differ"
    if a.balls and b.balls:
        if len(a.balls) != len(b.balls) or any(not x.overlaps(y) for x, y in zip(a.balls, b.balls)):
            return "differ"
        narrow = all(float(x.rad()) + float(y.rad()) <= AGREEMENT * (1 + abs(float(x.mid())))
                     for x, y in zip(a.balls, b.balls))
        return "agree" if narrow else "unknown"
    if a.ball is None or b.ball is None or not (a.ball.is_finite() and b.ball.is_finite()):
        return "unknown"
    if not a.ball.overlaps(b.ball):
        return "differ"
    width = float(a.ball.rad()) + float(b.ball.rad())
    return "agree" if width <= AGREEMENT * (1 + abs(float(a.ball.mid()))) else "unknown"


def _real_loss(group: SymmetryGroup):
    model, X, targets = _concrete_family(group.key)
    theta = list(model.parameters)
    outputs = model.outputs(theta, X, lambda s, key: ReLU(s))
    return theta, sp.Add(*[(f - t) ** 2 for f, t in zip(outputs, targets)]) / (2 * len(outputs))


def _down(x: float) -> float:
    """A float at or below the arb endpoint it was rounded from (float() rounds to nearest)."""
    return math.nextafter(math.nextafter(x, -math.inf), -math.inf)


def sharpness_values(group, first: tuple, second: tuple, seed: int) -> tuple[Value, Value]:
    """Rigorous enclosures of two sharpness values, each (point, Sharpness); the search stops when
    they separate."""
    theta, loss = _real_loss(group)
    radius = group.instance.radius
    setups = []
    for point, sharpness in (first, second):
        scales = [sp.sympify(t) for t in sharpness.scales]
        region = ScaledSet([Fraction(int(v.p), int(v.q)) for v in point.theta],
                           [Fraction(int(t.p), int(t.q)) for t in scales], radius, sharpness.norm)
        centre = enclosure(sp.sympify(point.loss), PRECISION)
        factor = enclosure(sp.sympify(sharpness.normalizer), PRECISION)
        setups.append((region, centre, factor))
    bounds = [maximize(loss, theta, region, budget=1, seed=seed) for region, _, _ in setups]
    lows = [_down(float(((b.lower - c) * k).lower())) if b.lower is not None else float("-inf")
            for b, (_, c, k) in zip(bounds, setups)]
    # refine the side with the smaller lower bound until it is under the other's lower bound
    small = 0 if lows[0] <= lows[1] else 1
    region, centre, factor = setups[small]
    threshold = float((flint.arb(lows[1 - small]) / factor + centre).lower())
    bounds[small] = maximize(loss, theta, region, below=threshold * (1 - 1e-9), seed=seed)
    values = []
    for b, (_, c, k), low in zip(bounds, setups, lows):
        high = (b.upper - float(c.lower())) * float(k.upper()) if b.upper != float("inf") else float("inf")
        high = high * (1 + 1e-9) + 1e-300
        point_text = ", ".join(str(x) for x in b.argmax) if b.argmax else "-"
        values.append(Value(f"in [{low:.6g}, {high:.6g}] (radius {radius}; lower end: the value at "
                            f"({point_text}); upper end: branch and bound, {counted(b.boxes, 'box', 'boxes')})",
                            low=low, high=high, attained=(b.argmax, float(b.lower.lower()))))
    return values[0], values[1]


def value_pair(measure: Measure, group: SymmetryGroup, theta0, factors, seed: int):
    """The measure at θ₀ and at Sθ₀ on the concrete network."""
    moved = [f * _rational(t) for f, t in zip(factors, theta0)]
    first = concrete_point(group, theta0)
    second = concrete_point(group, moved, factors)
    a, b = measure.evaluate(first), measure.evaluate(second)
    if isinstance(a, Sharpness):
        return moved, sharpness_values(group, (first, a), (second, b), seed)
    if isinstance(a, Spectrum):
        return moved, (spectrum_value(a), spectrum_value(b))
    return moved, (scalar_value(a), scalar_value(b))


REVERIFY_DPS = 40


def reverified(group: SymmetryGroup, points, values) -> bool:
    """A counterexample re-verified by another route: mpmath on the real loss (with max, not a
    pattern) at REVERIFY_DPS digits.  At each point the loss, and the Hessian by mpmath.diff
    (finite differences, independent of every symbolic derivative), agree with the exact values;
    for a maximum, the loss where its lower end was attained is at least that lower end."""
    theta, loss = _real_loss(group)
    function = mpmath_function(theta, loss)
    tolerance = mpmath.mpf(10) ** -(REVERIFY_DPS // 2)
    with mpmath.workdps(REVERIFY_DPS):
        def at(values_):
            return [mpmath.mpf(int(v.p)) / int(v.q) for v in map(_rational, values_)]
        for value in values:
            if value.attained:
                argmax, lower = value.attained
                if function(*at(argmax)) < mpmath.mpf(lower) - tolerance:
                    return False
        if any(value.attained for value in values):
            return True
        for point in points:
            x = at(point.theta)
            if abs(function(*x) - _mp(point.loss)) > tolerance:
                return False
            n = len(x)
            for i in range(n):
                for j in range(i, n):
                    orders = [0] * n
                    orders[i] += 1
                    orders[j] += 1
                    numeric = mpmath.diff(function, x, orders)
                    exact = _mp(point.hessian[i, j])
                    if abs(numeric - exact) > tolerance * (1 + abs(exact)):
                        return False
    return True


def _mp(value) -> mpmath.mpf:
    return mpmath.mpf(str(sp.N(sp.sympify(value), REVERIFY_DPS + 10)))


def random_point(group: SymmetryGroup, rng: random.Random):
    """A random rational θ off the kinks and a random group element (≠ identity)."""
    size = len(group.witness_model.parameters)
    while True:
        theta = [Fraction(rng.randint(1, 24), 8) for _ in range(size)]
        element = {str(s): Fraction(rng.randint(2, 30), rng.randint(2, 30)) for s in group.witness_symbols}
        if all(v == 1 for v in element.values()):
            continue
        factors = group.witness_scaling(element)
        try:
            concrete_point(group, theta)
            concrete_point(group, [f * _rational(t) for f, t in zip(factors, theta)], factors)
        except (Kink, ZeroDivisionError):
            continue
        return theta, element


# ------------------------------------------------------------------ the verdict

def _as_measure(measure) -> Measure:
    if isinstance(measure, Measure):
        return measure
    if isinstance(measure, str):
        if measure not in MEASURES:
            raise ValueError(f"unknown measure {measure!r}; choose from {', '.join(MEASURES)}")
        return MEASURES[measure]
    if callable(measure):
        name = getattr(measure, "__name__", "measure")
        return Measure(name, name.replace("_", " "), r"M(\theta)", measure)
    raise TypeError("a measure is a key, a Measure or a function of a MeasurePoint")


def _as_group(group) -> SymmetryGroup:
    if isinstance(group, SymmetryGroup):
        return group
    if group not in GROUPS:
        raise ValueError(f"unknown group {group!r}; choose from {', '.join(GROUPS)}")
    return GROUPS[group]


def _witness(group, theta, element, moved, values, model_name) -> dict:
    model, X, targets = _concrete_family(group.key)
    def listed(values):
        return "(" + ", ".join(map(str, values)) + ")"
    return {"network": model_name, "inputs": listed(listed(row) for row in group.instance.inputs),
            "targets": listed(targets), "theta": listed(theta),
            "group_element": ", ".join(f"{k} = {v}" for k, v in element.items()),
            "T_theta": listed(moved),
            "value_at_theta": values[0].text, "value_at_T_theta": values[1].text}


def check_invariance(measure, group, *, seed: int = 0) -> Outcome:
    """Decide whether ``measure`` is invariant under ``group``.

    ``measure``: a key of ``symbolic.measures.definitions.MEASURES``, a ``Measure``, or any function of a
    ``MeasurePoint`` returning a sympy expression, a ``Spectrum`` or a ``Sharpness``.
    ``group``: a key of ``symbolic.networks.symmetry_groups.GROUPS`` or a ``SymmetryGroup``.
    Returns an Outcome: the Verdict (PROVED / REFUTED / UNDECIDED with witness and evidence) and
    the steps of the argument.
    """
    measure, group = _as_measure(measure), _as_group(group)
    claim = f"{measure.key} is invariant under {group.key}"
    model_name = group.witness_model.name
    steps = prove(measure, group)
    proved = all(step.holds for step in steps)
    rng = random.Random(seed)
    theta_w, element_w = random_point(group, rng)
    factors_w = group.witness_scaling(element_w)
    if proved:
        for _ in range(WITNESS_TRIES):      # a point where the measure is 0 compares nothing
            moved, values = value_pair(measure, group, theta_w, factors_w, seed)
            outcome = compare(*values)
            trivial = _compares_nothing(values[0])
            if isinstance(measure.evaluate(concrete_point(group, theta_w)), Sharpness):
                outcome, trivial, values = _sharpness_witness(measure, group, theta_w, factors_w, seed)
            if not trivial:
                break
            theta_w, element_w = random_point(group, rng)
            factors_w = group.witness_scaling(element_w)
        witness = _witness(group, theta_w, element_w, moved, values, model_name)
        if outcome == "agree" and not trivial:
            steps.append(Step(r"M(S\theta_w) = M(\theta_w)",
                              "independent witness: the measure recomputed from scratch on a concrete "
                              "network at a random point and group element", holds=True))
            evidence = (f"exact identity at {group.sizes} (symbolic data, every activation pattern)",
                        f"witness on {model_name}: {values[0].text} at both points")
            return Outcome(Verdict(Status.PROVED, claim, evidence=evidence,
                                   details={"witness_point": witness}), steps)
        reason = ("the witness compared nothing (both values 0)" if trivial else
                  "the exact identity holds but the witness did not confirm it")
        return Outcome(Verdict(Status.UNDECIDED, claim, reason=reason, witness=witness), steps)
    failed = next(step for step in steps if not step.holds)
    instance = group.instance
    attempts = [(list(instance.theta), instance.element), (theta_w, element_w)]
    for theta, element in attempts:
        factors = group.witness_scaling(element)
        try:
            moved, values = value_pair(measure, group, theta, factors, seed)
        except Kink:
            continue
        points = (concrete_point(group, theta), concrete_point(group, moved, factors))
        if compare(*values) == "differ" and reverified(group, points, values):
            witness = _witness(group, theta, element, moved, values, model_name)
            at_minimum = theta == list(instance.theta)
            steps.append(Step(r"M(S\theta_0) \ne M(\theta_0)",
                              "counterexample" + (" at a global minimum" if at_minimum else "")
                              + f": {values[0].text} against {values[1].text}"))
            evidence = (f"no exact proof: {failed.reason} fails",
                        "values exact" if values[0].exact is not None and values[1].exact is not None
                        else "values as rigorous arb enclosures that do not overlap",
                        f"re-verified by mpmath on the real loss at {REVERIFY_DPS} digits: the loss and "
                        "the Hessian by finite differences at both points, or the loss where each "
                        "maximum's lower end was attained")
            return Outcome(Verdict(Status.REFUTED, claim, witness=witness, evidence=evidence), steps)
    return Outcome(Verdict(Status.UNDECIDED, claim,
                           reason=f"no exact proof ({failed.reason} fails) and no separating point found"),
                   steps)


def _compares_nothing(value: Value) -> bool:
    """A value 0 (or a characteristic polynomial λⁿ) makes a witness that compared nothing."""
    if value.balls:
        return all(b.is_zero() for b in value.balls[1:])
    if value.exact is not None:
        return value.exact == 0
    return value.ball is not None and value.ball.is_zero()


def _sharpness_witness(measure, group, theta, factors, seed):
    """For a max-type measure: a feasible δ at θ (the best found) and Sδ at Sθ; Sδ is feasible
    (exact) and the objective agrees at the two points (exact or enclosures), not trivially 0."""
    theta_symbols, loss = _real_loss(group)
    first = concrete_point(group, theta)
    moved = [f * _rational(t) for f, t in zip(factors, theta)]
    second = concrete_point(group, moved, factors)
    a, b = measure.evaluate(first), measure.evaluate(second)
    regions = [ScaledSet([Fraction(int(v.p), int(v.q)) for v in p.theta],
                         [Fraction(int(sp.sympify(t).p), int(sp.sympify(t).q)) for t in s.scales],
                         group.instance.radius, s.norm) for p, s in ((first, a), (second, b))]
    best = maximize(loss, theta_symbols, regions[0], budget=1, seed=seed).argmax
    image = [Fraction(int(f.p), int(f.q)) * x for f, x in zip(factors, best)]
    feasible = regions[1].contains(image)
    values = [scalar_value(sp.sympify(loss).xreplace({t: _rational(x) for t, x in zip(theta_symbols, p)})
                           - point.loss) for p, point in ((best, first), (image, second))]
    outcome = compare(*values) if feasible else "differ"
    trivial = values[0].exact == 0
    for v, p in zip(values, (best, image)):
        v.text = f"L(theta + delta) - L(theta) = {v.text} at ({', '.join(map(str, p))})"
    return outcome, trivial, values
