"""The measure invariance procedure: is a measure invariant under a symmetry group?  The oracle
the kernel runs for ``symbolic.symmetries.invariance.check_invariance(measure, group)``.

Invariance means M(Tθ) = M(θ) at every θ, every data set and every group element.  The group is
first proved a symmetry: f∘T = f and L∘T = L exactly on its symbolic families; when that is
refuted (batch normalization with ε > 0, weight decay) the outcome is *not applicable*, with the
refuted precondition and its re-verified counterexample as the reason.

PROVED: M(Tθ) = M(θ) as an exact identity in the group parameters, the parameters θ and symbolic
data (x_n, y_n), on every activation pattern at once (pattern indicators σ kept symbolic and
relabelled as T maps patterns onto patterns), at the group's symbolic sizes; then an independent
witness: the measure recomputed from scratch on a concrete network at a random θ and group
element (its own Hessian at Tθ, not a substitution), both values compared.  T is any linear map
(a matrix in the group parameters).  How the identity is shown depends on what the measure returns:
  an expression      the difference of the two sides is a zero rational function;
  a Spectrum         the matrix at Tθ is P M(θ) P⁻¹ with P = T, T⁻ᵀ or I (each entry exact), or, for a
                     small matrix not over the parameters, the characteristic polynomials agree;
                     with a metric B (a pencil), both matrices are congruent by T⁻¹, so det(A − λB)
                     changes by the constant det(T)⁻² only;
  a Sharpness or     T is a signed permutation of scalings with t_i(Tθ) = |T| t(θ) (exact), so the
  AverageSharpness   change of variables δ ↦ Tδ maps the ball, box or Gaussian at θ onto the one at
                     Tθ, and L(T(θ + δ)) = L(θ + δ) for the real network (exact).
REFUTED: the group's concrete network, data, θ₀ (a global minimum) and group element, a random
point, or a random network of a family (random data), with both values exact (rationals,
characteristic polynomials) or as rigorous enclosures that do not overlap (eigenvalues, radicals,
maxima with the separating upper bound re-checked by mpmath's interval arithmetic, Gaussian
expectations from ``symbolic.numerics.gaussian``).
"""
from __future__ import annotations

import dataclasses
import math
import random
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache

import flint
import mpmath
import sympy as sp

from symbolic.numerics.interval import ScaledSet, enclosure, maximize, recheck_upper
from symbolic.measures.definitions import (MEASURES, AverageSharpness, Measure, MeasurePoint, Sharpness,
                                           Spectrum)
from symbolic.numerics.gaussian import expectation_bounds
from symbolic.relu import ReLU
from symbolic.networks.symmetry_groups import GROUPS, SymmetryGroup, canonical
from symbolic.report import counted
from symbolic.kernel.verdict import Holds, Status, Verdict
from symbolic.decision.witness import mpmath_function
from symbolic.decision.fraction_field import is_zero_fraction
from symbolic.errors import CheckerError

PRECISION = 200       # bits of the arb enclosures
WITNESS_TRIES = 5
AGREEMENT = 1e-40     # a witness agrees when its two enclosures overlap and are this narrow


class Kink(CheckerError):
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
    not_applicable: str = ""       # the refuted precondition (the group is not a symmetry)
    sizes: list = field(default_factory=list)   # the sizes the verdict was established at


# ------------------------------------------------------------------ the symbolic family

def _pattern_symbol(key) -> sp.Symbol:
    return sp.Symbol("sigma_{" + ",".join(str(k + 1) for k in key) + "}")


@lru_cache(maxsize=None)
def _symbolic(group_key: str, index: int):
    """MeasurePoint at θ (pattern form, symbolic data) of one family, the substitution θ ↦ Tθ, the
    data and the rectifier arguments by activation key."""
    group = GROUPS[group_key]
    family = group.families[index]
    model = family.model
    theta = list(model.parameters)
    width = model.input_width
    X = sp.Matrix(family.batch, width, lambda n, i: sp.Symbol(f"x_{{{n + 1},{i + 1}}}", real=True))
    y = [sp.Symbol(f"y_{{{n + 1}}}", real=True) for n in range(family.batch)]
    arguments = {}

    def pattern(s, key):
        # on a fixed activation pattern the activation is σ·s (σ ∈ {0, 1} for ReLU, ±1 for |·|),
        # σ kept as an indeterminate
        arguments[key] = s
        return _pattern_symbol(key) * s
    outputs = model.outputs(theta, X, pattern)
    point = _point(theta, outputs, y, model, sp.eye(len(theta)), group.penalty)
    image = group.action(family) * sp.Matrix(theta)
    substitution = {t: image[i] for i, t in enumerate(theta)}
    return point, substitution, X, y, arguments


def _point(theta, outputs, targets, model, metric, penalty=0) -> MeasurePoint:
    """L = (1/2N) Σ r_n² + λ‖θ‖², r_n = f_θ(x_n) − y_n, differentiated through the residuals:
    ∇L = (1/N) Σ r_n ∇f_n + 2λθ and ∇²L = (1/N) Σ (∇f_n ∇f_nᵀ + r_n ∇²f_n) + 2λI."""
    N, n = len(outputs), len(theta)
    penalty = sp.Rational(Fraction(penalty).numerator, Fraction(penalty).denominator)
    residuals = [f - t for f, t in zip(outputs, targets)]
    loss = sp.Add(*[r ** 2 for r in residuals]) / (2 * N) + penalty * sp.Add(*[t ** 2 for t in theta])
    jacobians = [sp.Matrix([sp.diff(f, t) for t in theta]) for f in outputs]
    second = [sp.Matrix(n, n, lambda i, j, g=g: sp.diff(g[i], theta[j]) if i <= j else 0)
              for g in jacobians]
    hessian = sp.Matrix(n, n, lambda i, j: sp.Add(*[
        g[i] * g[j] + r * h[min(i, j), max(i, j)] for g, h, r in zip(jacobians, second, residuals)]) / N
        + (2 * penalty if i == j else 0))
    samples = [r * g for r, g in zip(residuals, jacobians)]
    gradient = sum(samples, sp.zeros(n, 1)) / N + 2 * penalty * sp.Matrix(theta)
    return MeasurePoint(list(theta), loss, gradient, hessian, metric, samples, model.weights,
                        model.layers, model.last_layer_rows, model.paths,
                        sp.Add(*[g * g.T for g in jacobians], sp.zeros(n, n)) / N, model.layer_shapes)


def inverse(T: sp.Matrix) -> sp.Matrix:
    """T⁻¹, each entry cancelled (T is diagonal, a permutation, or block-wise 2×2)."""
    if T.is_diagonal():
        return sp.diag(*[1 / T[i, i] for i in range(T.rows)])
    return T.inv(method="LU").applyfunc(sp.cancel)


def _transformed(point: MeasurePoint, substitution: dict, T: sp.Matrix) -> MeasurePoint:
    """The MeasurePoint at Tθ: every field substituted, the fixed metric transported
    (G' = T⁻ᵀ G T⁻¹); the Gauss–Newton matrix is recomputed at Tθ, not transported."""
    def at(expr):
        return canonical(sp.sympify(expr).xreplace(substitution))
    T_inverse = inverse(T)
    return MeasurePoint([at(t) for t in point.theta], at(point.loss), point.gradient.applyfunc(at),
                        point.hessian.applyfunc(at), T_inverse.T * point.metric * T_inverse,
                        [g.applyfunc(at) for g in point.sample_gradients], point.weights,
                        point.layers, point.last_layer_rows, point.paths,
                        point.gauss_newton.applyfunc(at), point.layer_shapes)


@lru_cache(maxsize=None)
def _transformed_symbolic(group_key: str, index: int) -> MeasurePoint:
    point, substitution, _, _, _ = _symbolic(group_key, index)
    correspondence = _pattern_correspondence(group_key, index)
    group = GROUPS[group_key]
    return _transformed(point, {**substitution, **(correspondence or {})},
                        group.action(group.families[index]))


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

@lru_cache(maxsize=None)
def _pattern_correspondence(group_key: str, index: int):
    """σ_k ↦ ±σ_k' for every activation key k, when each rectifier argument at Tθ is a constant
    multiple m of one argument at θ (m > 0, or m ≠ 0 for |·|): then T maps every activation
    region onto an activation region and the pattern form at Tθ is the one at θ with σ relabelled.
    None when some argument has no such partner."""
    group = GROUPS[group_key]
    model = group.families[index].model
    _, substitution, _, _, arguments = _symbolic(group_key, index)
    mapping = {}
    for key, s in arguments.items():
        moved = canonical(sp.sympify(s).xreplace(substitution))
        partner = None
        for other, t in arguments.items():
            if other[0] != key[0] or t == 0:        # the same data point only
                continue
            ratio = sp.cancel(moved / t)
            if ratio.free_symbols - set(group.symbols) or not ratio.is_nonzero:
                continue
            if not (ratio.is_positive or (model.activation == "abs" and ratio.is_negative)):
                continue
            if _zero(moved - ratio * t):
                partner = (other, 1 if ratio.is_positive else -1)
                break
        if partner is None:
            return None
        mapping[_pattern_symbol(key)] = partner[1] * _pattern_symbol(partner[0])
    return mapping


def _patterns_preserved(group: SymmetryGroup, index: int) -> Step:
    return Step(r"s_k(T\theta) = m_k\, s_{\pi(k)}(\theta)",
                "every rectifier argument at $T\\theta$ is a constant multiple ($m_k > 0$, or "
                "$m_k \\ne 0$ for $|\\cdot|$) of one at $\\theta$, so $T$ maps every activation "
                "pattern onto a pattern (relabelled)",
                holds=_pattern_correspondence(group.key, index) is not None)


@lru_cache(maxsize=None)
def _symmetry_check(group_key: str, index: int) -> tuple:
    """(f∘T = f on every input, λ‖Tθ‖² = λ‖θ‖²), each exact on the symbolic family, with the real
    activation (ReLU or |·|)."""
    group = GROUPS[group_key]
    family = group.families[index]
    model = family.model
    _, substitution, X, _, _ = _symbolic(group_key, index)
    theta = list(model.parameters)
    before = model.outputs(theta, X, model.rectify)
    after = model.outputs([substitution[t] for t in theta], X, model.rectify)
    outputs_kept = all(_zero(a - b) for a, b in zip(after, before))
    penalty_kept = group.penalty == 0 or _zero(sp.Add(*[substitution[t] ** 2 - t ** 2 for t in theta]))
    return outputs_kept, penalty_kept


def _loss_invariant(group: SymmetryGroup, index: int) -> Step:
    """L(Tθ) = L(θ) for the real network, at every θ (so also at θ + δ)."""
    outputs_kept, penalty_kept = _symmetry_check(group.key, index)
    return Step(r"f_{T\theta}(x_n) = f_{\theta}(x_n),\ L(T\theta) = L(\theta)",
                "the network with the real activation is unchanged at every $\\theta$ and every "
                "input, and so is the loss (exact; ReLU's positive homogeneity "
                "$\\mathrm{ReLU}(cs) = c\\,\\mathrm{ReLU}(s)$ taken from Theorem 1)",
                holds=outputs_kept and penalty_kept)


CHARPOLY_SIZE = 4     # matrices up to this size are compared by their characteristic polynomials


def _similar(T: sp.Matrix, M_before: sp.Matrix, M_after: sp.Matrix):
    """P ∈ {T, T⁻ᵀ, I} with M_after = P M_before P⁻¹ (entrywise exact), or, for a small matrix
    not over the parameters (a Kronecker product of Gram matrices), equal characteristic
    polynomials (each coefficient exact); None otherwise."""
    I = sp.eye(M_before.rows)
    candidates = [("I", I, I)]
    if M_before.rows == T.rows:
        T_inverse = inverse(T)
        candidates = [("T", T, T_inverse), ("T^{-\\top}", T_inverse.T, T.T)] + candidates
    for name, P, P_inverse in candidates:
        if all(_zero(entry) for entry in (M_after - P * M_before * P_inverse)):
            return name
    if M_before.rows != T.rows and M_before.rows <= CHARPOLY_SIZE and _charpolys_agree_somewhere(M_before, M_after):
        # Berkowitz's coefficients, unsimplified, each difference decided by the exact zero test
        keep = lambda e: e   # noqa: E731
        before = M_before.charpoly(simplify=keep).all_coeffs()
        after = M_after.charpoly(simplify=keep).all_coeffs()
        if all(_zero(x - y) for x, y in zip(after, before)):
            return "\\text{equal characteristic polynomials}"
    return None


def _charpolys_agree_somewhere(M_before: sp.Matrix, M_after: sp.Matrix) -> bool:
    """The two characteristic polynomials agree at one random rational point of every symbol
    (opaque functions and radicals given random positive values): when they do not, no exact
    comparison can succeed and it is skipped.  Never used to prove anything."""
    rng = random.Random(1)
    symbols = sorted(M_before.free_symbols | M_after.free_symbols, key=str)
    at = {s: sp.Rational(rng.randint(1, 97), rng.randint(1, 97)) * (1 if s.is_positive else rng.choice((-1, 1)))
          for s in symbols}
    values, opaque = [], {}
    for M in (M_before, M_after):
        M = M.xreplace(at)
        for g in sorted(set().union(*[e.atoms(sp.Function, sp.Pow) for e in M]), key=str):
            if not g.is_Rational:      # the same value for the same atom in both matrices
                opaque.setdefault(g, sp.Rational(rng.randint(1, 97), rng.randint(1, 97)))
        M = M.xreplace(opaque)
        if not all(e.is_Rational for e in M):
            return True
        values.append(_charpoly(M)[0])
    return values[0] == values[1]


def _change_of_variables(T: sp.Matrix, scales_after, scales_before, group, index) -> list:
    """The steps shared by the max-type and the average-case measures: δ ↦ Tδ carries the
    perturbations at θ onto those at Tθ, and L(Tθ + Tδ) = L(θ + δ)."""
    columns = _monomial(T)
    scales_move = columns is not None and all(
        _zero(scales_after[i] - sp.Abs(T[i, j]) * scales_before[j]) for i, j in enumerate(columns))
    return [Step(r"t_i(T\theta) = |T_{i\pi(i)}|\, t_{\pi(i)}(\theta)",
                 "$T$ is a signed permutation of scalings and the scales of the perturbation move "
                 "with the parameters, so $\\delta \\mapsto T\\delta$ permutes the ratios "
                 "$\\delta_i / t_i$ up to sign and maps the perturbations at $\\theta$ onto those at "
                 "$T\\theta$", holds=scales_move),
            _loss_invariant(group, index),
            Step(r"L(T\theta + T\delta) = L(T(\theta + \delta)) = L(\theta + \delta)",
                 "linearity of $T$ and the previous step", checked=False)]


def _monomial(T: sp.Matrix):
    """π with T[i, π(i)] the only non-zero entry of row i (π a permutation), or None."""
    columns = []
    for i in range(T.rows):
        nonzero = [j for j in range(T.cols) if T[i, j] != 0]
        if len(nonzero) != 1:
            return None
        columns.append(nonzero[0])
    return columns if len(set(columns)) == T.rows else None


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
    base = _symbolic(group.key, index)[0]
    moved = _transformed_symbolic(group.key, index)
    T = group.action(group.families[index])
    before, after = measure.evaluate(base), measure.evaluate(moved)
    if not isinstance(before, (Spectrum, Sharpness, AverageSharpness, sp.Expr, int, Fraction)):
        raise TypeError(f"the measure {measure.key!r} returned {type(before).__name__}; a measure "
                        "returns a sympy expression, a Spectrum, a Sharpness or an AverageSharpness")
    if isinstance(before, AverageSharpness):
        return _change_of_variables(T, after.scales, before.scales, group, index) + [
            Step(r"\mathbb{E}_{\delta \sim N_{T\theta}} L(T\theta + \delta) = "
                 r"\mathbb{E}_{\delta' \sim N_\theta} L(T\theta + T\delta') = "
                 r"\mathbb{E}_{\delta' \sim N_\theta} L(\theta + \delta')",
                 "the change of variables $\\delta = T\\delta'$: the standardized vector "
                 "$u_i = \\delta_i / (\\sigma t_i)$ is signed-permuted, the standard Gaussian density "
                 "depends on $\\|u\\|$ only and $|\\det|$ of a signed permutation is 1; then the "
                 "loss steps above", checked=False)]
    if isinstance(before, Sharpness):
        steps = _change_of_variables(T, after.scales, before.scales, group, index)
        steps.append(Step(r"\mathrm{norm}(T\theta) = \mathrm{norm}(\theta)",
                          "the normalizer is unchanged (exact)",
                          holds=_zero(after.normalizer - before.normalizer)))
        return steps
    steps = [_patterns_preserved(group, index)]
    if not steps[0].holds:
        return steps
    if isinstance(before, Spectrum) and before.metric is not None:
        T_inverse = inverse(T)
        congruent = all(_zero(entry) for pair in ((after.matrix, before.matrix), (after.metric, before.metric))
                        for entry in pair[0] - T_inverse.T * pair[1] * T_inverse)
        steps.append(Step(r"A(T\theta) = T^{-\top} A(\theta)\, T^{-1},\ B(T\theta) = T^{-\top} B(\theta)\, T^{-1}",
                          "both matrices of the pencil, each recomputed at $T\\theta$ (the metric is a "
                          "function of $\\theta$, not transported), are congruent to their values at "
                          "$\\theta$ by the same $T^{-1}$ (every entry exact)", holds=congruent))
        steps.append(Step(r"\det(A(T\theta) - \lambda B(T\theta)) = \det(T)^{-2} \det(A(\theta) - \lambda B(\theta))",
                          "so the generalized eigenvalues agree: where $B$ is invertible they are the "
                          "eigenvalues of $B^{-1}A$; where $B$ is singular the pencil's finite eigenvalues "
                          "agree and a singular pencil stays singular", checked=False))
        return steps
    if isinstance(before, Spectrum):
        name = _similar(T, before.matrix, after.matrix)
        steps.append(Step(r"M(T\theta) = P\, M(\theta)\, P^{-1}" + (f",\\ P = {name}" if name else ""),
                          "the matrix at $T\\theta$ is similar to the matrix at $\\theta$ "
                          "(every entry exact)", holds=name is not None))
        steps.append(Step(r"\operatorname{spec} M(S\theta) = \operatorname{spec} M(\theta)",
                          "similar matrices have the same characteristic polynomial", checked=False))
        return steps
    steps.append(Step(r"M(T\theta) - M(\theta) = 0",
                      "the difference is the zero rational function of the group parameters, "
                      "$\\theta$, the data and the pattern", holds=_zero(after - before)))
    return steps


# ------------------------------------------------------------------ concrete evaluation

def _rational(value) -> sp.Rational:
    value = Fraction(value)
    return sp.Rational(value.numerator, value.denominator)


@dataclass(frozen=True)
class Network:
    """A concrete network: a model with rational data, targets and weight decay λ."""

    model: object
    X: sp.Matrix
    targets: tuple
    penalty: Fraction = Fraction(0)


@lru_cache(maxsize=None)
def _concrete_family(group_key: str) -> Network:
    """The group's counterexample network."""
    group = GROUPS[group_key]
    model = group.witness_model
    X = sp.Matrix([[_rational(x) for x in row] for row in group.instance.inputs])
    return Network(model, X, tuple(group.instance.targets(model)), group.penalty)


def concrete_point(group: SymmetryGroup, values, T=None, network: Network | None = None) -> MeasurePoint:
    """The MeasurePoint of a concrete network (the group's counterexample network unless given) at
    the rational point ``values``, computed from scratch (its own activation pattern and
    derivatives); the fixed metric is I, or transported by the group element T that produced the
    point (G = T⁻ᵀ T⁻¹)."""
    network = network or _concrete_family(group.key)
    model = network.model
    theta = list(model.parameters)
    at = {t: _rational(v) for t, v in zip(theta, values)}

    def active(s, key):
        value = s.xreplace(at)
        if value == 0:
            raise Kink(f"a pre-activation is 0 at {values}")
        if value.has(sp.nan, sp.zoo):
            # a normalization with variance 0 (ε = 0): outside the network's domain
            raise Kink(f"a normalized value is undefined at {values}")
        return model.branch(value) * s
    outputs = model.outputs(theta, network.X, active)
    metric = sp.eye(len(theta)) if T is None else (T * T.T).inv()
    symbolic = _point(theta, outputs, list(network.targets), model, metric, network.penalty)

    def num(expr):
        return sp.sympify(expr).xreplace(at)
    return MeasurePoint([at[t] for t in theta], num(symbolic.loss), symbolic.gradient.applyfunc(num),
                        symbolic.hessian.applyfunc(num), metric,
                        [g.applyfunc(num) for g in symbolic.sample_gradients], model.weights,
                        model.layers, model.last_layer_rows, model.paths,
                        symbolic.gauss_newton.applyfunc(num), model.layer_shapes)


def _apply(T: sp.Matrix, values) -> list:
    """T·θ for a concrete T and rational θ."""
    return list(T * sp.Matrix([_rational(v) for v in values]))


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


def _pencil_polynomial(A: sp.Matrix, B: sp.Matrix):
    """Coefficients of det(A − λB) divided by its leading coefficient (highest power first): the
    generalized eigenvalues are its roots, whatever the constant det(T)⁻² that a congruence
    multiplies it by.  All zero for a singular pencil."""
    lam = sp.Symbol("lambda")
    if all(e.is_Rational for e in list(A) + list(B)):
        # det(A − λB) has degree ≤ n: exact determinants (flint) at n + 1 points, interpolated
        def fmpq_matrix(M):
            return flint.fmpq_mat(M.rows, M.cols, [flint.fmpq(int(e.p), int(e.q)) for e in M])
        points = [(k, fmpq_matrix(A - k * B).det()) for k in range(A.rows + 1)]
        determinant = sp.interpolate([(k, sp.Rational(int(d.p), int(d.q))) for k, d in points], lam)
    else:
        determinant = (A - lam * B).det(method="berkowitz")
    coefficients = sp.Poly(sp.expand(determinant), lam).all_coeffs()
    lead = next((c for c in coefficients if c != 0), None)
    if lead is None:
        return [sp.S.Zero], None
    coefficients = [sp.cancel(c / lead) for c in coefficients[coefficients.index(lead):]]
    if all(c.is_Rational for c in coefficients):
        return coefficients, flint.fmpq_poly([flint.fmpq(int(c.p), int(c.q)) for c in reversed(coefficients)])
    return coefficients, None


def _charpoly(matrix: sp.Matrix, metric: sp.Matrix | None = None):
    """Coefficients of det(λI − M), exact (rational when the entries are); with a metric B, of
    the pencil's normalized det(M − λB)."""
    if metric is not None:
        return _pencil_polynomial(matrix, metric)
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
    coefficients, poly = _charpoly(spectrum.matrix, spectrum.metric)
    if spectrum.reduction == "spectrum":
        name = "charpoly " if spectrum.metric is None else "det(A - lambda B) normalized: "
        text = name + str(sp.Poly(coefficients, sp.Symbol("lambda")).as_expr())
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
    """'differ', 'agree' or 'unknown', rigorously: 'differ' only from exact values that differ or
    enclosures that are disjoint, 'agree' only from equal exact values or overlapping enclosures
    narrower than AGREEMENT (bounds of a maximum never agree)."""
    if a.low is not None or b.low is not None:
        if a.low is None or b.low is None:
            return "unknown"    # a maximum's bounds against a value of another kind
        if a.high < b.low or b.high < a.low:
            return "differ"
        return "unknown"
    if a.exact is not None and b.exact is not None:
        return "agree" if a.exact == b.exact else "differ"
    if a.balls and b.balls:
        if not all(ball.is_finite() for ball in a.balls + b.balls):
            return "unknown"    # an infinite ball encloses no real value: it separates nothing
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


def _real_loss(group: SymmetryGroup, network: Network | None = None):
    """θ and L(θ) = (1/2N) Σ (f_θ(x_n) − y_n)² + λ‖θ‖² of a concrete network, with the real
    activation (no pattern)."""
    network = network or _concrete_family(group.key)
    model = network.model
    theta = list(model.parameters)
    outputs = getattr(model.outputs, "as_written", model.outputs)(theta, network.X, model.rectify)
    penalty = _rational(network.penalty) * sp.Add(*[t ** 2 for t in theta])
    return theta, sp.Add(*[(f - t) ** 2 for f, t in zip(outputs, network.targets)]) / (2 * len(outputs)) + penalty


def _down(x: float) -> float:
    """A float at or below the arb endpoint it was rounded from (float() rounds to nearest)."""
    return math.nextafter(math.nextafter(x, -math.inf), -math.inf)


def _fractions(values) -> list:
    return [Fraction(int(sp.sympify(v).p), int(sp.sympify(v).q)) for v in values]


def sharpness_values(group, first: tuple, second: tuple, seed: int, network=None) -> tuple[Value, Value]:
    """Rigorous enclosures of two sharpness values, each (point, Sharpness); the search stops when
    they separate.  The separating upper bound (arb's branch and bound) is re-checked by mpmath's
    interval arithmetic on a finer subdivision of the boxes it left, and the larger is kept."""
    theta, loss = _real_loss(group, network)
    radius = group.instance.radius
    setups = []
    for point, sharpness in (first, second):
        region = ScaledSet(_fractions(point.theta), _fractions(sharpness.scales), radius, sharpness.norm)
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
    rechecked = recheck_upper(loss, theta, region, bounds[small].leaves)
    values = []
    for side, (b, (_, c, k), low) in enumerate(zip(bounds, setups, lows)):
        upper = max(b.upper, rechecked) if side == small else b.upper
        high = (upper - float(c.lower())) * float(k.upper()) if upper != float("inf") else float("inf")
        high = high * (1 + 1e-9) + 1e-300
        point_text = ", ".join(str(x) for x in b.argmax) if b.argmax else "-"
        how = (f"upper end: arb branch and bound, {counted(b.boxes, 'box', 'boxes')}, re-checked by mpmath "
               f"interval arithmetic on {2 * len(b.leaves)} finer boxes" if side == small else
               f"upper end: arb branch and bound, {counted(b.boxes, 'box', 'boxes')}")
        values.append(Value(f"in [{low:.6g}, {high:.6g}] (radius {radius}; lower end: the value at "
                            f"({point_text}); {how})",
                            low=low, high=high, attained=(b.argmax, float(b.lower.lower()))))
    return values[0], values[1]


def _up(x: float) -> float:
    """A float at or above the arb endpoint it was rounded from."""
    return math.nextafter(math.nextafter(x, math.inf), math.inf)


def average_values(group, first: tuple, second: tuple, network=None) -> tuple[Value, Value]:
    """Rigorous bounds on two average-case values, each (point, AverageSharpness), σ = the group
    instance's radius: E over the Gaussian (``symbolic.numerics.gaussian``) minus L(θ)."""
    network = network or _concrete_family(group.key)
    theta, loss = _real_loss(group, network)
    sigma = _rational(group.instance.radius)
    majorant_loss, bounded = None, None
    if network.model.bounded_outputs is not None:
        outputs, bounded = network.model.bounded_outputs(theta, network.X)
        majorant_loss = sp.Add(*[(f - t) ** 2 for f, t in zip(outputs, network.targets)]) / (2 * len(outputs)) \
            + _rational(network.penalty) * sp.Add(*[t ** 2 for t in theta])
    values = []
    for point, average in (first, second):
        scales = _fractions([sigma * sp.sympify(t) for t in average.scales])
        bounds = expectation_bounds(loss, theta, _fractions(point.theta), scales,
                                    majorant_loss=majorant_loss, bounded=bounded)
        centre = enclosure(sp.sympify(point.loss), PRECISION)
        low, high = _down(float((bounds.lower - centre).lower())), _up(float((bounds.upper - centre).upper()))
        values.append(Value(f"in [{low:.6g}, {high:.6g}] (sigma {sigma}; {bounds.how})", low=low, high=high))
    return values[0], values[1]


def value_pair(measure: Measure, group: SymmetryGroup, theta0, T, seed: int, network=None):
    """The measure at θ₀ and at Tθ₀ on a concrete network (the group's unless given)."""
    moved = _apply(T, theta0)
    first = concrete_point(group, theta0, network=network)
    second = concrete_point(group, moved, T, network)
    a, b = measure.evaluate(first), measure.evaluate(second)
    if isinstance(a, Sharpness):
        return moved, sharpness_values(group, (first, a), (second, b), seed, network)
    if isinstance(a, AverageSharpness):
        return moved, average_values(group, (first, a), (second, b), network)
    if isinstance(a, Spectrum):
        return moved, (spectrum_value(a), spectrum_value(b))
    return moved, (scalar_value(a), scalar_value(b))


REVERIFY_DPS = 40


def reverified(group: SymmetryGroup, points, values, network=None) -> bool:
    """A counterexample re-verified by another route: mpmath on the real loss (with max, not a
    pattern) at REVERIFY_DPS digits.  At each point the loss, and the Hessian by mpmath.diff
    (finite differences, independent of every symbolic derivative), agree with the exact values;
    for a maximum, the loss where its lower end was attained is at least that lower end."""
    theta, loss = _real_loss(group, network)
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


def random_point(group: SymmetryGroup, rng: random.Random, network: Network | None = None, model=None):
    """A random rational θ off the kinks and a random group element (T ≠ I, invertible) on a
    concrete network (the group's unless given; ``model`` is then the network's family model)."""
    size = len((network.model if network else group.witness_model).parameters)
    acting = group.action_on(model, group.symbols).free_symbols if network else set()
    symbols = tuple(s for s in group.symbols if s in acting) if network else group.witness_symbols
    for _ in range(200):
        theta = [Fraction(rng.choice((-1, 1)) * rng.randint(1, 24), 8) if network else
                 Fraction(rng.randint(1, 24), 8) for _ in range(size)]
        element = group.random_element(rng, symbols)
        T = group.action_at(model or group.witness_model, element)
        if T == sp.eye(size) or T.det() == 0:
            continue
        try:
            concrete_point(group, theta, network=network)
            concrete_point(group, _apply(T, theta), T, network)
        except (Kink, ZeroDivisionError):
            continue
        return theta, element
    raise Kink("no random point off the kinks")


# ------------------------------------------------------------------ is the group a symmetry?

@lru_cache(maxsize=None)
def symmetry_precondition(group_key: str) -> tuple:
    """(None, steps) when f∘T = f and L∘T = L are proved at every size of the group's families
    (exact, with the real activation); else (the refuted precondition with its re-verified
    counterexample on the group's concrete network, steps)."""
    group = GROUPS[group_key]
    failed = [(family.sizes, _symmetry_check(group_key, index)) for index, family in enumerate(group.families)
              if not all(_symmetry_check(group_key, index))]
    if not failed:
        return None, (Step(r"f \circ T = f,\ L \circ T = L",
                           f"proved first, exactly, at {group.sizes}: $T$ is a symmetry"),)
    sizes, (outputs_kept, _) = failed[0]
    network = _concrete_family(group_key)
    theta0 = list(group.instance.theta)
    T = group.witness_action(group.instance.element)
    moved = _apply(T, theta0)
    theta, loss = _real_loss(group)
    model = network.model
    outputs = model.outputs(theta, network.X, model.rectify)

    def values(expressions, point):
        at = dict(zip(theta, [_rational(v) for v in point]))
        return [canonical(sp.sympify(e).xreplace(at)) for e in expressions]
    compared = list(zip(values(outputs, theta0), values(outputs, moved))) if not outputs_kept else []
    what = "f_{T\\theta_0}(x_n) \\ne f_{\\theta_0}(x_n)"
    pair = next(((n, a, b) for n, (a, b) in enumerate(compared)
                 if compare(scalar_value(a), scalar_value(b)) == "differ"), None)
    if pair is None:
        what = "L(T\\theta_0) \\ne L(\\theta_0)"
        a, b = values([loss], theta0)[0], values([loss], moved)[0]
        pair = (None, a, b) if compare(scalar_value(a), scalar_value(b)) == "differ" else None
        expressions = [loss]
    else:
        expressions = [outputs[pair[0]]]
    if pair is None or not _recheck_values(theta, expressions[0], (theta0, moved), pair[1:]):
        return (f"not shown to be a symmetry at {sizes}, and no separating point found", None), ()
    n, a, b = pair
    where = f" at x_{n + 1}" if n is not None else ""
    text = (f"{group.key} is not a symmetry: " + ("f(T theta) != f(theta)" if n is not None else
            "L(T theta) != L(theta)") + f" on {model.name}{where}: {a} at theta_0 = "
            f"({', '.join(map(str, theta0))}) and {b} at T theta_0 "
            f"({', '.join(f'{k} = {v}' for k, v in group.instance.element.items())}); "
            f"the exact check failed at {sizes}; values re-verified by mpmath at {REVERIFY_DPS} digits")
    witness = {"network": model.name, "theta": "(" + ", ".join(map(str, theta0)) + ")",
               "group_element": ", ".join(f"{k} = {v}" for k, v in group.instance.element.items()),
               "T_theta": "(" + ", ".join(map(str, moved)) + ")",
               "value_at_theta": str(a), "value_at_T_theta": str(b)}
    return (text, witness), (Step(what, "the precondition of every cell is refuted: " + text, holds=False),)


def _recheck_values(theta, expression, points, expected) -> bool:
    """Both values recomputed by mpmath from the expression at each point, and still apart."""
    function = mpmath_function(theta, expression)
    with mpmath.workdps(REVERIFY_DPS):
        got = [function(*[mpmath.mpf(int(_rational(v).p)) / int(_rational(v).q) for v in point])
               for point in points]
        tolerance = mpmath.mpf(10) ** -(REVERIFY_DPS // 2)
        close = all(abs(g - _mp(e)) <= tolerance * (1 + abs(g)) for g, e in zip(got, expected))
        return close and abs(got[0] - got[1]) > 2 * tolerance * (1 + abs(got[0]))


# ------------------------------------------------------------------ the verdict

OWN_DEFINITION = "(the caller's own definition)"


def as_measure(measure) -> Measure:
    if isinstance(measure, str):
        if measure not in MEASURES:
            raise ValueError(f"unknown measure {measure!r}; choose from {', '.join(MEASURES)}")
        return MEASURES[measure]
    if callable(measure) and not isinstance(measure, Measure):
        name = getattr(measure, "__name__", "measure")
        measure = Measure(name, name.replace("_", " "), r"M(\theta)", measure)
    if not isinstance(measure, Measure):
        raise TypeError("a measure is a key, a Measure or a function of a MeasurePoint")
    # a verdict names its measure by its key: a measure of one's own under a key of the project's
    # would print a statement about the project's measure, so it is named as one's own
    if MEASURES.get(measure.key, measure) is not measure:
        measure = dataclasses.replace(measure, key=f"{measure.key} {OWN_DEFINITION}")
    return measure


def as_group(group) -> SymmetryGroup:
    if isinstance(group, SymmetryGroup):
        if GROUPS.get(group.key, group) is not group:
            group = dataclasses.replace(group, key=f"{group.key} {OWN_DEFINITION}")
        return group
    if group not in GROUPS:
        raise ValueError(f"unknown group {group!r}; choose from {', '.join(GROUPS)}")
    return GROUPS[group]


def _listed(values) -> str:
    return "(" + ", ".join(map(str, values)) + ")"


def _witness(network: Network, theta, element, moved, values) -> dict:
    return {"network": network.model.name,
            "inputs": _listed(_listed(network.X.row(n)) for n in range(network.X.rows)),
            "targets": _listed(network.targets), "theta": _listed(theta),
            "group_element": ", ".join(f"{k} = {v}" for k, v in element.items()) or "the fixed permutation",
            "T_theta": _listed(moved),
            "value_at_theta": values[0].text, "value_at_T_theta": values[1].text}


FAMILY_TRIES = 3


def _random_networks(group: SymmetryGroup, rng: random.Random):
    """Concrete networks of the group's families: random rational data and targets (FAMILY_TRIES
    per family), for a refutation where the counterexample network's own point does not separate."""
    for family in group.families:
        model = family.concrete_model
        for _ in range(FAMILY_TRIES):
            X = sp.Matrix(family.batch, model.input_width,
                          lambda n, i: sp.Rational(rng.choice((-1, 1)) * rng.randint(1, 9), rng.randint(1, 4)))
            targets = tuple(sp.Rational(rng.randint(-9, 9), rng.randint(1, 4)) for _ in range(family.batch))
            yield family, Network(model, X, targets, group.penalty)


def decide_invariance(statement, *, seed: int = 0):
    """Oracle 'measure invariance procedure': Fact("invariant", (measure, group)) — the steps of the
    symbolic proof at the group's sizes, each an exact test, and a witness recomputed on a concrete
    network that compared something.  The statement holds the measure and the group themselves, so
    a measure or a group a user built is the one decided."""
    measure, group = statement.arguments
    outcome = _invariance_outcome(measure, group, statement.text, seed)
    outcome.verdict.details["argument"] = (outcome.steps, outcome.not_applicable, outcome.sizes)
    return outcome.verdict


def _invariance_outcome(measure, group, claim: str, seed: int) -> Outcome:
    """The procedure of ``check_invariance``: its answer (Holds, or a REFUTED/UNDECIDED verdict)
    with the steps of the argument."""
    broken, symmetry_steps = symmetry_precondition(group.key)
    if broken is not None:
        text, witness = broken
        return Outcome(Verdict(Status.UNDECIDED, claim, reason="not applicable: " + text, witness=witness),
                       list(symmetry_steps), not_applicable=text,
                       sizes=[f"{group.witness_model.name}, N={len(group.instance.inputs)}"] if witness
                       else group.size_list)
    steps = list(symmetry_steps) + prove(measure, group)
    proved = all(step.holds for step in steps)
    rng = random.Random(seed)
    network = _concrete_family(group.key)
    theta_w, element_w = random_point(group, rng)
    T_w = group.witness_action(element_w)
    if proved:
        for _ in range(WITNESS_TRIES):      # a point where the measure is 0 compares nothing
            kind = measure.evaluate(concrete_point(group, theta_w))
            if isinstance(kind, (Sharpness, AverageSharpness)):
                # the change of variables itself, at one perturbation δ and its image Tδ
                moved = _apply(T_w, theta_w)
                outcome, trivial, values = _perturbation_witness(measure, group, theta_w, T_w, seed)
            else:
                moved, values = value_pair(measure, group, theta_w, T_w, seed)
                outcome, trivial = compare(*values), _compares_nothing(values[0])
                if trivial and isinstance(kind, Spectrum) and kind.metric is not None:
                    # a singular pencil has no finite eigenvalue to compare: the congruence itself
                    outcome, trivial, values = _congruence_witness(measure, group, theta_w, T_w)
            if not trivial:
                break
            theta_w, element_w = random_point(group, rng)
            T_w = group.witness_action(element_w)
        witness = _witness(network, theta_w, element_w, moved, values)
        if outcome == "agree" and not trivial:
            steps.append(Step(r"M(T\theta_w) = M(\theta_w)",
                              "independent witness: the measure recomputed from scratch on a concrete "
                              "network at a random point and group element", holds=True))
            evidence = (f"exact identity at {group.sizes} (symbolic data, every activation pattern)",
                        f"witness on {network.model.name}: {values[0].text} at both points")
            return Outcome(Holds(evidence=evidence, details={"witness_point": witness}), steps, sizes=group.size_list)
        reason = ("the witness compared nothing (both values 0)" if trivial else
                  "the exact identity holds but the witness did not confirm it")
        return Outcome(Verdict(Status.UNDECIDED, claim, reason=reason, witness=witness), steps,
                       sizes=group.size_list)
    failed = next(step for step in steps if not step.holds)
    instance = group.instance
    average = isinstance(measure.evaluate(concrete_point(group, theta_w)), AverageSharpness)

    def attempts():
        """The counterexample network at θ₀ and at the random point, then random points of the
        families themselves: random θ, data, targets and group element (not for an expectation,
        whose enclosure grows exponentially with the parameters); drawn only when needed."""
        yield network, group.witness_model, list(instance.theta), instance.element
        yield network, group.witness_model, theta_w, element_w
        for family, random_network in ([] if average else _random_networks(group, rng)):
            try:
                theta, element = random_point(group, rng, random_network, family.concrete_model)
            except Kink:
                continue
            yield random_network, family.concrete_model, theta, element
    for index, (net, model, theta, element) in enumerate(attempts()):
        T = group.action_at(model, element)
        own = net is network
        try:
            moved, values = value_pair(measure, group, theta, T, seed, None if own else net)
        except (Kink, ValueError, ZeroDivisionError):
            continue
        points = (concrete_point(group, theta, network=net), concrete_point(group, moved, T, net))
        if compare(*values) == "differ" and reverified(group, points, values, None if own else net):
            witness = _witness(net, theta, element, moved, values)
            where = (" at a global minimum" if index == 0 and group.penalty == 0 else
                     "" if own else " on a random network of the family")
            steps.append(Step(r"M(T\theta_0) \ne M(\theta_0)",
                              "counterexample" + where + f": {values[0].text} against {values[1].text}"))
            evidence = (f"no exact proof: {failed.reason} fails",
                        "values exact" if values[0].exact is not None and values[1].exact is not None
                        else "values as rigorous arb enclosures that do not overlap",
                        f"re-verified by mpmath on the real loss at {REVERIFY_DPS} digits: the loss and "
                        "the Hessian by finite differences at both points, or the loss where each "
                        "maximum's lower end was attained")
            return Outcome(Verdict(Status.REFUTED, claim, witness=witness, evidence=evidence), steps,
                           sizes=[f"{net.model.name}, N={net.X.rows}"])
    return Outcome(Verdict(Status.UNDECIDED, claim,
                           reason=f"no exact proof ({failed.reason} fails) and no separating point found"),
                   steps, sizes=group.size_list)


def _compares_nothing(value: Value) -> bool:
    """A value 0 (or a characteristic polynomial λⁿ) makes a witness that compared nothing."""
    if value.balls:
        return all(b.is_zero() for b in value.balls[1:])
    if value.exact is not None:
        return value.exact == 0
    return value.ball is not None and value.ball.is_zero()


def _congruence_witness(measure, group, theta, T):
    """Both matrices of a pencil recomputed from scratch at θ and at Tθ on the concrete network:
    A(Tθ) = T⁻ᵀ A(θ) T⁻¹ and B(Tθ) = T⁻ᵀ B(θ) T⁻¹ exactly, A(θ) not zero."""
    moved = _apply(T, theta)
    a = measure.evaluate(concrete_point(group, theta))
    b = measure.evaluate(concrete_point(group, moved, T))
    T_inverse = T.inv()
    holds = all(x - T_inverse.T * y * T_inverse == sp.zeros(T.rows, T.rows)
                for x, y in ((b.matrix, a.matrix), (b.metric, a.metric)))
    trivial = a.matrix == sp.zeros(T.rows, T.rows)
    text = (f"the pencil is singular (det(A - lambda B) = 0 for every lambda); A and B recomputed at "
            f"T theta equal T^-T A T^-1 and T^-T B T^-1 at theta, entry by entry: {holds}")
    return ("agree" if holds else "differ"), trivial, (Value(text), Value(text))


def _perturbation_witness(measure, group, theta, T, seed):
    """For a max-type measure: a feasible δ at θ (the best found) and Tδ at Tθ; Tδ is feasible
    (exact) and the objective agrees at the two points (exact or enclosures), not trivially 0.
    For an average-case measure: δ = σ t(θ) ⊙ u at a random rational u; the standardized vectors
    at θ and Tθ have the same norm (so the same Gaussian density) and the objective agrees."""
    theta_symbols, loss = _real_loss(group)
    first = concrete_point(group, theta)
    moved = _apply(T, theta)
    second = concrete_point(group, moved, T)
    a, b = measure.evaluate(first), measure.evaluate(second)
    if isinstance(a, AverageSharpness):
        rng = random.Random(seed)
        sigma = _rational(group.instance.radius)
        u = [sp.Rational(rng.randint(-9, 9), rng.randint(1, 9)) for _ in theta]
        best = [Fraction(x) for x in _fractions([t + sigma * sp.sympify(s) * v
                                                  for t, s, v in zip(first.theta, a.scales, u)])]
        image = _fractions(_apply(T, best))

        def norm(point, average, perturbed):
            return sum(((sp.Rational(x) - c) / (sigma * sp.sympify(t))) ** 2
                       for x, c, t in zip(perturbed, point.theta, average.scales) if sp.sympify(t) != 0)
        feasible = norm(first, a, best) == norm(second, b, image)
    else:
        regions = [ScaledSet(_fractions(p.theta), _fractions(s.scales), group.instance.radius, s.norm)
                   for p, s in ((first, a), (second, b))]
        best = maximize(loss, theta_symbols, regions[0], budget=1, seed=seed).argmax
        image = _fractions(_apply(T, best))
        feasible = regions[1].contains(image)
    values = [scalar_value(sp.sympify(loss).xreplace({t: _rational(x) for t, x in zip(theta_symbols, p)})
                           - point.loss) for p, point in ((best, first), (image, second))]
    outcome = compare(*values) if feasible else "differ"
    trivial = values[0].exact == 0
    for v, p in zip(values, (best, image)):
        v.text = f"L(theta + delta) - L(theta) = {v.text} at ({', '.join(map(str, p))})"
    return outcome, trivial, values
