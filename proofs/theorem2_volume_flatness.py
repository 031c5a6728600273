"""Theorem 2 (Dinh et al. 2017, §4.1): every minimum has infinite volume ε-flatness.

For a one-hidden-layer ReLU network and a minimum θ = (θ₁, θ₂) with θ₁ ≠ 0 and θ₂ ≠ 0, the
ε-sublevel component C(L, θ, ε) has infinite volume for every ε > 0.  The proof, as checked here:

  1. T_α is linear with Jacobian determinant α^{n₁−n₂}, and T_α∘T_β = T_{αβ}     (exact, symbolic α)
  2. L∘T_α = L (Theorem 1), so T_α maps C(L, θ, ε) into itself                 (glue, named)
  3. C is open (L continuous): a box B = B∞(r, θ) ⊂ C with 0 < r < ‖θ₁‖∞ misses {θ₁ = 0}
  4. n₁ ≠ n₂: vol T_α(B) = α^{n₁−n₂} vol B, and α = (V/vol B)^{1/(n₁−n₂)} reaches every V
  5. n₁ = n₂ (and in fact at every size): with α = 2(‖θ₁‖∞ + r)/(‖θ₁‖∞ − r) the boxes
     B, T_α B, T_α² B, … are pairwise disjoint, each of volume vol B: an inequality over the reals,
     decided by an exact argument (the gap between the projections is ‖θ₁‖∞ + r > 0) and by z3
     (unsat, named in the evidence), never by sampling
  6. the worked example (d = h = 1): the ε-sublevel band and its area (8/√5)·R·√ε → ∞
"""
from __future__ import annotations

import random
from fractions import Fraction

import mpmath
import sympy as sp
import z3

from symbolic import Status, Verdict, check_identity
from symbolic.kernel import Equation, Relation, by_oracle, conjunction
from symbolic.checks import nonnegatives
from symbolic.decision.budget import remaining, uninterrupted, within_budget
from symbolic.decision.limit_oracle import limit_statement
from symbolic.decision.smt import Translation
from symbolic.decision.solver_oracle import satisfied_at, unsatisfiable
from symbolic.derivation import CoqCitation, Derivation
from symbolic.networks.rescaling import ALPHA, rescale_vector
from symbolic.decision.zero import is_rational_zero

from proofs import theorem1_observational_equivalence as theorem1
from symbolic.networks import worked_example
from symbolic.report import Report
from symbolic.trusted.oracles.exact import EXACT_EVALUATION, RATIONAL_COMPARISON, SYMPY_ASSUMPTIONS
from symbolic.trusted.oracles.solvers import SYMPY_LIMITS, Z3_UNSAT

NAME = "theorem2"
TITLE = "Theorem 2: every minimum has infinite volume epsilon-flatness"
SOURCE = ("Dinh, Pascanu, Bengio and Bengio, Sharp Minima Can Generalize For Deep Nets, ICML 2017, "
          "Section 4.1, Theorem 2 and its proof (Definition 1, volume epsilon-flatness)")
DEFAULT_SIZES = (3, 3, 1)
LARGEST_SIZES = (6, 6, 6)
Z3_TIMEOUT_MS = 60_000

BETA = sp.Symbol("beta", positive=True)
RADIUS = sp.Symbol("r", positive=True)
SLACK = sp.Symbol("s", positive=True)       # ‖θ₁‖∞ = r + s, so that 0 < r < ‖θ₁‖∞


def _proved_all(claim: str, verdicts: list, evidence: str) -> Verdict:
    return conjunction(verdicts, label=claim, evidence=(evidence, *verdicts[0].evidence))


# --- 1. T_α is linear, det = α^{n₁−n₂}, T_α∘T_β = T_{αβ} ------------------------------------------

def jacobian_determinant(d: int, h: int) -> Verdict:
    """det D T_α = α^{n₁−n₂}, the Jacobian computed by sympy from T_α's coordinates: it is diagonal
    (checked), so its determinant is the product of its diagonal entries, stated as written
    (α·α⋯α⁻¹ = α^(n₁ − n₂): sympy's own det would have multiplied it out to α^(n₁−n₂) = α^(n₁−n₂))."""
    u = list(sp.symbols(f"u_1:{d * h + h + 1}", real=True))
    jacobian = sp.Matrix(rescale_vector(u, d, h)).jacobian(u)
    claim = f"det D T_alpha = alpha^(n1-n2), n1={d * h}, n2={h}"
    if not jacobian.is_diagonal():
        return Verdict(Status.UNDECIDED, claim, reason="the Jacobian of T_alpha is not diagonal")
    diagonal = sp.Mul(*[jacobian[k, k] for k in range(jacobian.rows)], evaluate=False)
    power = sp.Pow(ALPHA, sp.Add(d * h, -h, evaluate=False), evaluate=False)
    return check_identity(diagonal, power, claim=claim,
                          evidence=("the Jacobian is diagonal: its determinant is the product of its diagonal",))


def linearity(d: int, h: int) -> Verdict:
    """T_α u = J u with a Jacobian J that does not depend on u: T_α is linear."""
    u = list(sp.symbols(f"u_1:{d * h + h + 1}", real=True))
    image = sp.Matrix(rescale_vector(u, d, h))
    jacobian = image.jacobian(u)
    claim = f"T_alpha u = (D T_alpha) u with D T_alpha constant, d={d}, h={h}"
    if jacobian.free_symbols & set(u):
        return Verdict(Status.UNDECIDED, claim, reason="the Jacobian depends on u")
    # (D T_α) u entry by entry as written, Σ_j J_kj u_j (multiplied out it is T_α u itself)
    product = [sp.Add(*[sp.Mul(jacobian[k, j], u[j], evaluate=False) for j in range(len(u))], evaluate=False)
               for k in range(len(u))]
    return _proved_all(claim, [check_identity(a, b) for a, b in zip(image, product)],
                       "Jacobian free of u; every coordinate an exact identity")


def composition(d: int, h: int) -> Verdict:
    """T_α(T_β u) = T_{αβ} u in every coordinate."""
    u = list(sp.symbols(f"u_1:{d * h + h + 1}", real=True))
    # T_α applied to T_β u as written (multiplied out, each side would be the other)
    inner = rescale_vector(u, d, h, BETA)
    twice = ([sp.Mul(ALPHA, y, evaluate=False) for y in inner[: d * h]]
             + [sp.Mul(1 / ALPHA, y, evaluate=False) for y in inner[d * h:]])
    once = rescale_vector(u, d, h, ALPHA * BETA)
    return _proved_all(f"T_alpha T_beta = T_(alpha beta), d={d}, h={h}",
                       [check_identity(a, b) for a, b in zip(twice, once)], "every coordinate")


# --- 4. volumes ---------------------------------------------------------------------------------

def image_box_volume(d: int, h: int) -> sp.Expr:
    """vol T_α(B∞(r, θ)), from the images of each coordinate's endpoints θ_i ± r."""
    theta = list(sp.symbols(f"t_1:{d * h + h + 1}", real=True))
    lower = rescale_vector([t - RADIUS for t in theta], d, h)
    upper = rescale_vector([t + RADIUS for t in theta], d, h)
    return sp.Mul(*[hi - lo for lo, hi in zip(lower, upper)])     # T_α keeps each order (α > 0)


def volume_scaling(d: int, h: int) -> Verdict:
    n1, n2 = d * h, h
    return check_identity(image_box_volume(d, h), ALPHA ** (n1 - n2) * (2 * RADIUS) ** (n1 + n2),
                          claim=f"vol T_alpha(B) = alpha^(n1-n2) vol B, n1={n1}, n2={n2}")


def volume_target(d: int, h: int) -> Verdict:
    """n₁ ≠ n₂: α = (V/v)^{1/(n₁−n₂)} gives α^{n₁−n₂}·v = V for every V > 0."""
    n1, n2 = d * h, h
    V, v = sp.symbols("V v", positive=True)
    alpha = (V / v) ** sp.Rational(1, n1 - n2)
    claim = f"alpha = (V/v)^(1/(n1-n2)) reaches volume V, n1={n1}, n2={n2}"
    if not is_rational_zero(alpha ** (n1 - n2) * v - V):
        return Verdict(Status.UNDECIDED, claim, reason="not an exact zero")
    # α^{n₁−n₂}·v as written (multiplied out, sympy makes it V and the statement V = V)
    return check_identity(sp.Mul(sp.Pow(alpha, n1 - n2, evaluate=False), v, evaluate=False), V, claim=claim)


# --- 5. disjoint boxes ----------------------------------------------------------------------------

def papers_alpha(norm, radius):
    """α = 2(‖θ₁‖∞ + r)/(‖θ₁‖∞ − r)."""
    return 2 * (norm + radius) / (norm - radius)


def separation_argument() -> Verdict:
    """With t = ‖θ₁‖∞ = r + s (s > 0): α − 1 and α(t − r) − (t + r) are manifestly positive, so in a
    coordinate where |θ_i| = t the projections [t − r, t + r] and α^k[t − r, t + r] (k ≥ 1, α^k ≥ α)
    are separated by a gap ≥ t + r > 0."""
    t = RADIUS + SLACK
    alpha = papers_alpha(t, RADIUS)
    claims = {"alpha - 1": (alpha - 1, (t + 3 * RADIUS) / SLACK),
              "alpha (t - r) - (t + r)": (alpha * (t - RADIUS) - (t + RADIUS), t + RADIUS)}
    verdicts = []
    for label, (expression, certificate) in claims.items():
        verdicts.append(check_identity(expression, certificate, claim=f"{label} = {certificate}"))
        verdicts.append(nonnegatives(f"{certificate} >= 0", [certificate]))
    positive_gap = by_oracle(SYMPY_ASSUMPTIONS, Relation(t + RADIUS, ">", sp.S.Zero))
    return _proved_all("paper's alpha > 1 and the gap alpha(t - r) - (t + r) = t + r > 0",
                       verdicts + [positive_gap],
                       "exact identities with t = r + s, r, s > 0; certificates manifestly positive")


MODES = {"theorem": "0 < r < |theta1|_inf, A = alpha^k with k >= 1 (A >= alpha)",
         "theta1 zero": "hypothesis theta1 != 0 dropped: theta1 = 0",
         "radius too large": "box radius r >= |theta1|_inf"}


def disjointness_formula(d: int, h: int, mode: str = "theorem"):
    """The common point as a formula of real arithmetic: z in B∞(r, θ) ∩ T_A(B∞(r, θ)), z = T_A y
    with y in B∞(r, θ), A = α^k (k ≥ 1 read as A ≥ α), α the paper's.  Returns the formula and
    its variables."""
    n1, n2 = d * h, h
    size = n1 + n2
    theta = list(sp.symbols(f"theta_0:{size}", real=True))
    y = list(sp.symbols(f"y_0:{size}", real=True))        # a point of B ...
    z = list(sp.symbols(f"z_0:{size}", real=True))        # ... and its image T_A y, also in B
    r, t, alpha, A = sp.symbols("r t alpha A", real=True)
    conditions = [r > 0, sp.Eq(alpha * (t - r), 2 * (t + r)),
                  sp.Or(*[sp.Ne(theta[i], 0) for i in range(n1, size)])]          # θ₂ ≠ 0
    if mode == "theta1 zero":
        conditions += [sp.Eq(t, 0), *[sp.Eq(theta[i], 0) for i in range(n1)], sp.Eq(A, alpha)]
    else:
        # t = ‖θ₁‖∞ > 0: every |θ_i| ≤ t, one of them equal to t
        conditions += [t > 0, *[sp.And(theta[i] <= t, -theta[i] <= t) for i in range(n1)],
                       sp.Or(*[sp.Or(sp.Eq(theta[i], t), sp.Eq(theta[i], -t)) for i in range(n1)])]
        conditions += [r < t, A >= alpha] if mode == "theorem" else [r >= t, sp.Eq(A, alpha)]
    for i in range(size):
        conditions += [y[i] - theta[i] <= r, theta[i] - y[i] <= r, z[i] - theta[i] <= r, theta[i] - z[i] <= r]
        # z = T_A y: W coordinates times A, v coordinates divided by A
        conditions.append(sp.Eq(z[i], A * y[i]) if i < n1 else sp.Eq(A * z[i], y[i]))
    return sp.And(*conditions), {"theta": theta, "y": y, "z": z, "r": r, "t": t, "alpha": alpha, "A": A}


def _z3_seconds() -> float:
    left = remaining()
    return Z3_TIMEOUT_MS / 1000 if left is None else max(0.001, min(Z3_TIMEOUT_MS / 1000, left))


def disjointness_query(d: int, h: int, mode: str = "theorem"):
    """z3 on the formula of ``disjointness_formula``: the solver answer, the model (or None) and
    the z3 variables."""
    formula, variables = disjointness_formula(d, h, mode)
    translation = Translation()
    goal = translation.condition(formula)
    solver = z3.Solver()
    solver.set("timeout", max(1, int(_z3_seconds() * 1000)))
    solver.add(*translation.constraints, goal)
    with uninterrupted():
        answer = solver.check()
    model = solver.model() if answer == z3.sat else None

    def term(symbol):
        return translation.variables[symbol][0]
    return answer, model, {k: ([term(x) for x in v] if isinstance(v, list) else term(v)) for k, v in variables.items()}


def reverify_common_point(d: int, h: int, point: dict) -> bool:
    """Exactly: z and y lie in B∞(r, θ), z = T_A y, and A solves the paper's α equation."""
    n1 = d * h
    theta, y, z, r, t, A = (point[k] for k in ("theta", "y", "z", "r", "t", "A"))
    in_box = all(abs(c - th) <= r for vector in (y, z) for c, th in zip(vector, theta))
    image = all(z[i] == A * y[i] if i < n1 else A * z[i] == y[i] for i in range(len(theta)))
    norm = max((abs(x) for x in theta[:n1]), default=Fraction(0))
    return in_box and image and r > 0 and norm == t and A * (t - r) == 2 * (t + r)


def disjointness(d: int, h: int, mode: str = "theorem") -> Verdict:
    """B∞(r, θ) ∩ T_α^k B∞(r, θ) = ∅ for the paper's α: the common-point formula is unsatisfiable,
    decided by z3 on the statement; a point z3 finds is re-verified exactly."""
    claim = f"B and T_alpha^k B disjoint ({MODES[mode]}), d={d}, h={h}"
    formula, variables = disjointness_formula(d, h, mode)
    statement = unsatisfiable(formula, reading=f"no common point of B and T_A B ({MODES[mode]})")
    verdict = by_oracle(Z3_UNSAT, statement, label=claim, seconds=_z3_seconds())
    if verdict.status is not Status.REFUTED:
        return verdict
    point = {symbol: Fraction(int(value.p), int(value.q)) for symbol, value in verdict.witness.items()}
    common = {k: ([point[x] for x in v] if isinstance(v, list) else point[v]) for k, v in variables.items()}
    if satisfied_at(formula, verdict.witness) and reverify_common_point(d, h, common):
        witness = {"theta": common["theta"], "r": common["r"], "alpha": common["alpha"],
                   "common point z": common["z"], "z = T_alpha y, y": common["y"]}
        return Verdict(Status.REFUTED, claim, witness=witness,
                       reason="z3 model re-verified exactly: z lies in both boxes")
    return Verdict(Status.UNDECIDED, claim, reason="z3 model did not re-verify")


def rational_instance(d: int, h: int, seed: int = 0) -> Verdict:
    """A concrete θ, r = ‖θ₁‖∞/2: the projections of B and T_α B on a coordinate with |θ_i| = ‖θ₁‖∞
    are separated by exactly ‖θ₁‖∞ + r (exact rationals: the witness compares two intervals)."""
    rng = random.Random(seed)
    theta = [Fraction(rng.randint(-40, 40) or 1, 8) for _ in range(d * h + h)]
    norm = max(abs(x) for x in theta[: d * h])
    k = next(i for i in range(d * h) if abs(theta[i]) == norm)
    r = norm / 2
    alpha = papers_alpha(norm, r)
    box = sorted((theta[k] - r, theta[k] + r))
    image = sorted((alpha * box[0], alpha * box[1]))
    gap = max(image[0] - box[1], box[0] - image[1])
    claim = f"concrete instance: gap between the projections = |theta1|_inf + r, d={d}, h={h}"
    witness = {"theta": theta, "r": r, "alpha": alpha, "B_k": box, "T_alpha B_k": image}
    if not (gap == norm + r and gap > 0):
        return Verdict(Status.REFUTED, claim, witness=witness, reason=f"gap {gap}")
    # the statement as computed, unevaluated: the gap between [t_k - r, t_k + r] and its image
    # under the paper's alpha = 2(t + r)/(t - r), t = |theta1|_inf = |t_k|
    t_k, t, radius = (sp.Rational(q.numerator, q.denominator) for q in (theta[k], norm, r))
    with sp.evaluate(False):
        scale = 2 * (t + radius) / (t - radius)
        separation = sp.Max(scale * (t_k - radius) - (t_k + radius), (t_k - radius) - scale * (t_k + radius))
        expected = t + radius
    return conjunction([by_oracle(EXACT_EVALUATION, Equation(separation, expected)),
                        by_oracle(EXACT_EVALUATION, Relation(separation, ">", sp.S.Zero))], label=claim,
                       evidence=(f"alpha = {alpha}: gap {gap} > 0, exact",))


# --- the negative control on α ≤ 0 ---------------------------------------------------------------

def nonpositive_alpha() -> Verdict:
    """Control: α = −1 is no symmetry: L(T_α θ) ≠ L(θ), so T_α does not keep C (MSE, d = h = 1)."""
    return theorem1.loss_invariance(1, 1, 2, "mse", alpha=sp.Integer(-1))


# --- 6. the worked example ----------------------------------------------------------------------

def band_and_area() -> dict:
    """The ε-sublevel band of the worked example and its area over a ∈ [e^{−R}, e^{R}], derived."""
    a, b, eps, R, u = (sp.Symbol(n, positive=True) for n in ("a", "b", "epsilon", "R", "u"))
    branch = sp.factor(worked_example.loss(a, b))            # a > 0: every a·x_i > 0
    # L < ε ⇔ (5/4)(ab − 1)² < ε ⇔ |ab − 1| < s, s the positive root of (5/4)u² = ε
    coefficient = sp.Poly(branch.subs(b, (1 + u) / a), u).LC()
    half_width = sp.solve(sp.Eq(coefficient * u ** 2, eps), u)[0]
    # for fixed a, b ranges over ((1 − s)/a, (1 + s)/a): length 2s/a
    area = sp.integrate(2 * half_width / a, (a, sp.exp(-R), sp.exp(R)))
    return {"a": a, "b": b, "epsilon": eps, "R": R, "u": u, "branch": branch,
            "half_width": half_width, "area": sp.simplify(area), "coefficient": coefficient}


def worked_example_band() -> Verdict:
    derived = band_and_area()
    a, b, eps, R, u = (derived[k] for k in ("a", "b", "epsilon", "R", "u"))
    s, area = derived["half_width"], derived["area"]
    claim = "example: L < eps is |ab - 1| < 2 sqrt(eps/5) for a > 0; area (8/sqrt 5) R sqrt(eps) -> oo"
    nonpositive, any_b = sp.Symbol("p", nonnegative=True), sp.Symbol("b", real=True)
    dead = worked_example.loss(sp.Integer(0), any_b)          # f ≡ 0: the loss of the zero function
    if not (dead.is_number and dead > 0):
        return Verdict(Status.UNDECIDED, claim, reason=f"the loss of the zero function is {dead}")
    checks = {
        # a ≤ 0: every unit is dead and L = L(0, b) (= 5/4): for ε < L(0, b) the component stays in a > 0
        "L(-p, b) = L(0, b) for p >= 0": check_identity(worked_example.loss(-nonpositive, any_b), dead),
        # the branch is (5/4)(ab − 1)²: the loss depends on ab − 1 only, through its square
        "L = c (ab - 1)^2": check_identity(derived["branch"], derived["coefficient"] * (a * b - 1) ** 2),
        "c s^2 = eps": check_identity(derived["coefficient"] * s ** 2, eps),
        "s^2 = 4 eps / 5": check_identity(s ** 2, 4 * eps / 5),
        # area and (8/√5)R√ε are positive: equal squares give equal values
        "area^2 = (64/5) R^2 eps": check_identity(area ** 2, sp.Rational(64, 5) * R ** 2 * eps),
        # independently, by the fundamental theorem of calculus: area(0) = 0, d area/dR = 4s
        "d area / dR = 4 s": check_identity(sp.diff(area, R), 4 * s),
    }
    if area.subs(R, 0) != 0:
        return Verdict(Status.UNDECIDED, claim, reason="area(0) is not 0")
    checks["area -> oo as R -> oo"] = by_oracle(SYMPY_LIMITS, limit_statement(area, R, sp.oo, sp.oo))
    # rational points: inside the band L < ε, on the other side L ≥ ε (exact, real max)
    epsilon = Fraction(1, 5)                                   # s = 2/5
    inside = worked_example.loss(sp.Integer(3), sp.Rational(1, 3) * (1 + sp.Rational(39, 100)))
    outside = worked_example.loss(sp.Integer(3), sp.Rational(1, 3) * (1 + sp.Rational(41, 100)))
    if not (inside < sp.Rational(epsilon.numerator, epsilon.denominator) <= outside):
        return Verdict(Status.REFUTED, claim, witness={"inside": inside, "outside": outside},
                       reason="the band's edge is not where the derivation puts it")
    bound = sp.Rational(epsilon.numerator, epsilon.denominator)
    checks["L < eps just inside the band"] = by_oracle(RATIONAL_COMPARISON, Relation(inside, "<", bound))
    checks["L >= eps just outside"] = by_oracle(RATIONAL_COMPARISON, Relation(outside, ">=", bound))
    quad = mpmath.quad(lambda x: 2 * mpmath.mpf(2) / 5 / x, [mpmath.e ** -1, mpmath.e])
    closed = sp.N(area.subs({R: 1, eps: sp.Rational(1, 5)}), 30)
    if abs(quad - mpmath.mpf(str(closed))) > mpmath.mpf(10) ** -12:
        return Verdict(Status.REFUTED, claim, reason=f"area at R=1: quad {quad} != {closed}")
    return _proved_all(claim, list(checks.values()),
                       f"derived band half-width {s}, area {area}; limit oo; "
                       f"rational points at the band's edge; mpmath.quad agrees at R = 1")


def derivation_skeleton() -> Derivation:
    return Derivation(
        name=NAME, title=TITLE, source=SOURCE,
        statement=(r"Let $\theta = (\theta_1, \theta_2)$ be a minimum of $L$ for the one-hidden-layer ReLU "
                   r"network with $\theta_1 \neq 0$ and $\theta_2 \neq 0$, and $L$ continuous. Then for "
                   r"every $\varepsilon > 0$ the set $C(L, \theta, \varepsilon)$ has infinite volume."),
        definitions=[
            r"$C(L, \theta, \varepsilon)$: the largest connected set containing $\theta$ on which "
            r"$L < L(\theta) + \varepsilon$ (Definition 1); its volume is its Lebesgue measure.",
            r"$T_\alpha(\theta_1, \theta_2) = (\alpha\theta_1, \alpha^{-1}\theta_2)$, $\alpha > 0$; "
            r"$n_1 = dh$, $n_2 = h$.",
            r"$B = B_\infty(r, \theta)$, the box of half-width $r$ about $\theta$; "
            r"$t = \|\theta_1\|_\infty$.",
        ])


def run(sizes, seed=0, timeout=None) -> Report:
    derivation = derivation_skeleton()
    report = Report(derivation)

    def record(claim, size, check):
        return report.record(NAME, claim, size, lambda: within_budget(check, timeout, claim))
    pairs = sorted({(d, h) for d, h, _ in sizes})
    at = [(d, h, None) for d, h in pairs]
    determinant = [record("det D T_alpha = alpha^(n1-n2)", (d, h, None),
                                 lambda d=d, h=h: jacobian_determinant(d, h)) for d, h in pairs]
    linear = [record("T_alpha linear", (d, h, None),
                            lambda d=d, h=h: linearity(d, h)) for d, h in pairs]
    composed = [record("T_alpha T_beta = T_(alpha beta)", (d, h, None),
                              lambda d=d, h=h: composition(d, h)) for d, h in pairs]
    volume = [record("vol T_alpha(B) = alpha^(n1-n2) vol B", (d, h, None),
                            lambda d=d, h=h: volume_scaling(d, h)) for d, h in pairs]
    unequal = [(d, h) for d, h in pairs if d * h != h]
    target = [record("n1 != n2: explicit alpha for every volume V", (d, h, None),
                            lambda d=d, h=h: volume_target(d, h)) for d, h in unequal]
    gap = record("paper's alpha > 1, gap = |theta1|_inf + r > 0", (None, None, None),
                        separation_argument)
    disjoint = [record("B, T_alpha^k B disjoint (z3 unsat)", (d, h, None),
                              lambda d=d, h=h: disjointness(d, h)) for d, h in pairs]
    instance = [record("concrete instance: separated projections", (d, h, None),
                              lambda d=d, h=h: rational_instance(d, h, seed)) for d, h in pairs]
    band = record("worked example: band and its area -> oo", (1, 1, 2), worked_example_band)

    derivation.add(linear + determinant, "$T_\\alpha$ is linear (exact, each coordinate); its Jacobian $D T_\\alpha = "
                   "\\operatorname{diag}(\\alpha I_{n_1}, \\alpha^{-1} I_{n_2})$ computed by sympy, its determinant "
                   "$\\alpha^{n_1 - n_2}$ an exact identity in symbolic $\\alpha$", at + at)
    derivation.add(composed, "$T_\\alpha \\circ T_\\beta = T_{\\alpha\\beta}$: exact identity in every coordinate, "
                   "symbolic $\\alpha, \\beta > 0$", at)
    derivation.unchecked += [
        r"$L \circ T_\alpha = L \Rightarrow T_\alpha\bigl(C(L,\theta,\varepsilon)\bigr) \subseteq C(L,\theta,\varepsilon)$: "
        r"Theorem 1; $T_\alpha(C)$ is connected, lies in the sublevel set and meets $C$ through the orbit "
        r"$\{T_s\theta\}$, on which $L = L(\theta)$; $C$ is the largest such set.",
        r"$\exists r \in (0, \|\theta_1\|_\infty):\ B_\infty(r, \theta) \subseteq C$ and $B_\infty(r, \theta)$ "
        r"meets no $\{\theta'_1 = 0\}$: $L$ is continuous, so $C$ is open; a radius below "
        r"$\|\theta_1\|_\infty$ keeps one coordinate of $\theta_1$ away from 0.",
        r"$T_\alpha^j B \cap T_\alpha^k B = T_\alpha^j(B \cap T_\alpha^{k-j} B) = \emptyset$ and "
        r"$\operatorname{vol} C \ge \sum_{k \ge 0} \operatorname{vol} T_\alpha^k B = \infty$: $T_\alpha$ is a "
        r"bijection; each box has volume $(2r)^{n_1 + n_2}$ when $n_1 = n_2$, and all lie in $C$."]
    derivation.add(volume,
                   "$\\operatorname{vol} T_\\alpha(B) = \\alpha^{n_1 - n_2}\\,(2r)^{n_1 + n_2}$: exact identity; the "
                   "image box is read off the images of the two endpoints $\\theta_i \\pm r$ of every coordinate", at)
    if target:      # d·h ≠ h at some size checked
        derivation.add(target, "$n_1 \\ne n_2$: $\\alpha = (V/\\operatorname{vol} B)^{1/(n_1 - n_2)}$ gives "
                       "$\\operatorname{vol} T_\\alpha(B) = V$, an exact identity: every volume $V$ is reached inside $C$, "
                       "so $\\operatorname{vol} C = \\infty$", [(d, h, None) for d, h in unequal])
    derivation.add([gap], "the paper's $\\alpha = \\tfrac{2(t + r)}{t - r}$: exact identities with $t = r + s$, $r, s > 0$; "
                   "the right sides are manifestly positive")
    derivation.add(disjoint + instance,
                   "$B_\\infty(r, \\theta) \\cap T_\\alpha^k B_\\infty(r, \\theta) = \\emptyset$ ($k \\ge 1$): z3 "
                   "decides the statement over the reals (unsat: no common point), with $A = \\alpha^k \\ge \\alpha$ "
                   "since $\\alpha > 1$; and a rational instance's projections are separated by exactly $t + r$", at + at)
    derivation.add([band], "worked example ($d = h = 1$, $\\varepsilon < 5/4$): the band $\\{a > 0,\\ |ab - 1| < "
                   "2\\sqrt{\\varepsilon/5}\\}$ and its area $\\tfrac{8}{\\sqrt 5} R \\sqrt{\\varepsilon} \\to \\infty$ "
                   "over $a \\in [e^{-R}, e^R]$ derived by sympy, checked by exact identities, the "
                   "derivative in $R$, rational points at the edge and mpmath.quad", [(1, 1, 2)])
    derivation.sizes = [(d, h, None) for d, h in pairs] + [(1, 1, 2)]
    # the theorems of the Coq development that prove two of the steps for every size
    derivation.coq = [CoqCitation("Theorem2_4.t_alpha_determinant", "det D T_alpha = alpha^(dh) alpha^(-h), every d, h"),
                      CoqCitation("Theorem2_4.scale_compose", "T_alpha T_beta = T_(alpha beta), every d, h")]
    derivation.notes.append(
        r"Negative controls (tests): with $\theta_1 = 0$ or with $r \ge \|\theta_1\|_\infty$ the "
        r"paper's $\alpha$ is not positive and z3 finds a common point of $B$ and $T_\alpha B$, "
        r"re-verified in exact rationals; with $\alpha = -1$ the loss changes, so $T_\alpha$ no "
        r"longer keeps $C$.")
    derivation.notes.append(
        r"The disjointness is an inequality over the reals with $\theta$, $r$ and $A$ symbolic; it is "
        r"decided by z3's non-linear real arithmetic (its \emph{unsat} is taken on its word and named "
        r"in the evidence) and, independently, by the exact gap identity above. Nothing is sampled.")
    return report
