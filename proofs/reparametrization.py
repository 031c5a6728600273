"""Section 5 (Dinh et al. 2017): a reparametrization makes a minimum as flat or as sharp as one likes.

§5.1. For a bijection g and L_η = L∘g, with the source's dropped factor ∇g restored:
      ∇L_η(η) = ∇L(g(η)) ∇g(η),
      ∇²L_η(η) = ∇g(η)ᵀ ∇²L(g(η)) ∇g(η) + Σ_k ∂_kL(g(η)) ∇²g_k(η),
  and at a critical point of L only the congruence ∇gᵀ ∇²L ∇g remains.  Both sides only see the
  2-jets of g at η and of L at g(η), so generic jets (polynomials with symbolic coefficients)
  stand for every C² pair; sympy's undefined functions are avoided on purpose.
  The radial map of the paper's Figure 5, η = ψ(θ) = (‖θ − θ̂‖² + b)^a (θ − θ̂), b > 0, a > −1/2,
  is a bijection with ∇ψ(θ̂) = b^a I, so the Hessian of L_η at η = 0 is b^{−2a} ∇²L(θ̂): explicit
  b make a minimum's spectral norm below any m or above any M (on the worked example as well,
  confirmed by differentiating L∘ψ⁻¹ numerically through the inverse map itself).
  Weight normalization w = s·v/‖v‖₂ is invariant under v ↦ αv for α > 0 only (the source writes
  α ≠ 0), and ⟨v, ∇_v L⟩ = 0.
§5.2. For an invertible affine input map ξ, ∂f_ξ/∂u = (∂f/∂x)(ξ(u))·∂ξ/∂u: input-gradient norms
  depend on the input representation (refuted invariance under the data's standardization).

Sizes: d is the dimension of the space a claim lives in (parameters of g, the vector v, the
input x); h and N do not enter.
"""
from __future__ import annotations

from fractions import Fraction

import sympy as sp
from sympy.polys.rings import ring

from symbolic import Status, Verdict, check_identity
from symbolic.kernel import Equation, Relation, by_oracle, conjunction, refutation
from symbolic.checks import nonnegatives, zeros
from symbolic.decision.limit_oracle import derivative_sign_statement, limit_statement
from symbolic.numerics.agreement_oracle import hessian_norm_statement
from symbolic.derivation import Derivation
from symbolic.decision.positivity import is_manifestly_nonnegative

from symbolic.networks import worked_example as example
from symbolic.report import Report
from symbolic.trusted.oracles.exact import RATIONAL_COMPARISON, SYMPY_ASSUMPTIONS
from symbolic.trusted.oracles.numerics import FUNCTION_AGREEMENT
from symbolic.trusted.oracles.solvers import SYMPY_LIMITS

NAME = "reparametrization"
TITLE = "Section 5: reparametrizations make a minimum arbitrarily flat or sharp"
SOURCE = ("Dinh, Pascanu, Bengio and Bengio, Sharp Minima Can Generalize For Deep Nets, ICML 2017, "
          "Section 5.1 (model reparametrization, Figure 5, weight normalization) and Section 5.2 "
          "(input representation)")
DEFAULT_SIZES = (3, 1, 1)
LARGEST_SIZES = (4, 6, 6)

A_EXPONENT = sp.Symbol("a", real=True)
B_SHIFT = sp.Symbol("b", positive=True)
ALPHA = sp.Symbol("alpha", positive=True)
NEGATIVE_ALPHA = sp.Symbol("alpha", negative=True)
TARGET = sp.Symbol("M", positive=True)
GAMMA = sp.Symbol("gamma", positive=True)    # the spectral norm of ∇²L(θ̂)
RADIAL_A = 1                                 # the exponent used for the explicit b
EXAMPLE_TARGETS = (Fraction(1, 10), Fraction(10 ** 6))
AGREEMENT = sp.Rational(1, 10 ** 15)         # relative tolerance of the numeric Hessian norm


def _all(claim: str, verdicts: list, evidence: str) -> Verdict:
    """One verdict for a conjunction of component identities."""
    return conjunction(verdicts, label=claim, evidence=(f"{len(verdicts)} {evidence}", *verdicts[0].evidence),
                       residual=max((v.residual or 0.0) for v in verdicts))


def refuted_as_expected(verdict: Verdict, statements, negation: str, point: dict | None = None) -> Verdict:
    """not S, for one of the ``statements`` S whose check ``verdict`` refuted: the kernel evaluates
    S again, exactly, at the counterexample (``point``, else the symbols of the verdict's witness)."""
    if verdict.status is not Status.REFUTED:
        return Verdict(Status.UNDECIDED, negation, reason=f"'{verdict.claim}' was not refuted: {verdict.status.name}")
    if point is None:
        point = {k: v for k, v in verdict.witness.items() if isinstance(k, sp.Symbol)}
    for statement in statements:
        negated = refutation(statement, point, label=negation)
        if negated.status is Status.PROVED:
            return negated
    return Verdict(Status.UNDECIDED, negation, reason="the counterexample refutes none of the statements exactly")


# --- §5.1: the chain rule on generic 2-jets --------------------------------------------------------

class Jets:
    """Generic 2-jets in dimension n: g(η₀ + u) = p + G u + ½ (uᵀC_k u)_k and
    L(p + t) = l₀ + l·t + ½ tᵀ H t, every coefficient a symbol (C_k and H symmetric)."""

    def __init__(self, n: int):
        self.n = n
        self.u = list(sp.symbols(f"u_1:{n + 1}", real=True))
        self.p = list(sp.symbols(f"p_1:{n + 1}", real=True))
        self.G = sp.Matrix(n, n, lambda k, i: sp.Symbol(f"G_{k + 1}_{i + 1}", real=True))
        self.C = [sp.Matrix(n, n, lambda i, j: sp.Symbol(f"C_{k + 1}_{min(i, j) + 1}_{max(i, j) + 1}", real=True))
                  for k in range(n)]
        self.l0 = sp.Symbol("l_0", real=True)
        self.l = sp.Matrix(1, n, lambda _, k: sp.Symbol(f"l_{k + 1}", real=True))
        self.H = sp.Matrix(n, n, lambda k, m: sp.Symbol(f"H_{min(k, m) + 1}_{max(k, m) + 1}", real=True))

    def g(self) -> list:
        u = sp.Matrix(self.u)
        return [self.p[k] + (self.G[k, :] * u)[0] + (u.T * self.C[k] * u)[0] / 2 for k in range(self.n)]

    def composite_derivatives(self):
        """Gradient and Hessian of L∘g at u = 0, by differentiating the composed polynomial
        (composed in a polynomial ring, terms of degree > 2 in u dropped: they vanish at u = 0
        after two derivatives)."""
        t = list(sp.symbols(f"t_1:{self.n + 1}", real=True))
        outer = self.l0 + (self.l * sp.Matrix(t))[0] + (sp.Matrix(t).T * self.H * sp.Matrix(t))[0] / 2
        inner = [gk - pk for gk, pk in zip(self.g(), self.p)]
        symbols = sorted(set().union(*[e.free_symbols for e in inner]) | outer.free_symbols - set(t),
                         key=sp.default_sort_key)
        R, *gens = ring(symbols, sp.QQ)
        u_index = [symbols.index(x) for x in self.u]

        def truncate(poly):
            return R({m: c for m, c in poly.items() if sum(m[k] for k in u_index) <= 2})

        inner_r = [R(e) for e in inner]
        composed = R(0)
        for monomial, coefficient in sp.Poly(outer, *t).terms():
            term = R(coefficient)
            for k, power in enumerate(monomial):
                for _ in range(power):
                    term = truncate(term * inner_r[k])
            composed += term
        at_zero = {x: 0 for x in self.u}
        u_gens = [gens[k] for k in u_index]
        gradient = sp.Matrix(1, self.n, lambda _, i: composed.diff(u_gens[i]).as_expr().xreplace(at_zero))
        hessian = sp.Matrix(self.n, self.n, lambda i, j: composed.diff(u_gens[i]).diff(u_gens[j])
                            .as_expr().xreplace(at_zero))
        return gradient, hessian


def chain_rule_formulas(jets: Jets, second_order_term: bool = True, critical: bool = False):
    """The paper's formulas (corrected), evaluated on the jets: ∇L(g)∇g and
    ∇gᵀ∇²L∇g + Σ_k ∂_kL ∇²g_k (the sum left out on request, for the negative control)."""
    l = sp.zeros(1, jets.n) if critical else jets.l
    n, G, H = jets.n, jets.G, jets.H
    # each entry as the products and sums write it (multiplied out, sympy would make each side of
    # the check the composite's derivative itself, and the statement X = X)
    gradient = sp.ImmutableMatrix(1, n, [sp.Add(*[sp.Mul(l[k], G[k, i], evaluate=False) for k in range(n)],
                                                 evaluate=False) for i in range(n)])

    def hessian_entry(i, j):
        terms = [sp.Mul(G[p, i], H[p, q], G[q, j], evaluate=False) for p in range(n) for q in range(n)]
        if second_order_term:
            terms += [sp.Mul(l[k], jets.C[k][i, j], evaluate=False) for k in range(n)]
        return sp.Add(*terms, evaluate=False)
    hessian = sp.ImmutableMatrix(n, n, [hessian_entry(i, j) for i in range(n) for j in range(n)])
    return gradient, hessian


def chain_rule(n: int, second_order_term: bool = True, critical: bool = False, seed: int = 0) -> Verdict:
    """The §5.1 gradient and Hessian identities on generic 2-jets in dimension n; at a critical
    point (∇L(g(η)) = 0) the Hessian claim is the bare congruence."""
    jets = Jets(n)
    gradient, hessian = jets.composite_derivatives()
    if critical:
        gradient, hessian = (e.xreplace({x: 0 for x in jets.l}) for e in (gradient, hessian))
    claimed_gradient, claimed_hessian = chain_rule_formulas(jets, second_order_term, critical)
    name = ("congruence at a critical point" if critical else
            "Hessian chain rule" if second_order_term else "Hessian chain rule WITHOUT sum_k d_kL grad^2 g_k")
    claim = f"{name}, n={n}"
    verdicts = [check_identity(gradient[i], claimed_gradient[i], seed=seed,
                               claim=f"d_{i + 1} L_eta, n={n}") for i in range(n)]
    verdicts += [check_identity(hessian[i, j], claimed_hessian[i, j], seed=seed,
                                claim=f"d_{i + 1}d_{j + 1} L_eta, n={n}")
                 for i in range(n) for j in range(i, n)]
    return _all(claim, verdicts, "entries of the gradient and Hessian of L o g at eta, generic 2-jets")


# --- §5.1: the radial reparametrization of Figure 5 ------------------------------------------------

def radial_map(u: list, a=A_EXPONENT, b=B_SHIFT) -> list:
    """ψ(θ̂ + u) = (‖u‖² + b)^a u."""
    return [(sum(x ** 2 for x in u) + b) ** a * x for x in u]


def radial_bijection() -> Verdict:
    """ψ is a bijection for b > 0, a > −1/2: it maps each ray from θ̂ onto itself by the profile
    ρ(r) = (r² + b)^a r with ρ(0) = 0, ρ' > 0 and ρ → ∞."""
    r = sp.Symbol("r", nonnegative=True)
    s = sp.Symbol("s", positive=True)             # s = 1 + 2a > 0
    a_of_s = (s - 1) / 2
    profile = radial_map([r])[0]
    in_s = profile.xreplace({A_EXPONENT: a_of_s})          # the profile for a = (s - 1)/2
    slope = sp.factor(sp.diff(profile, r)).xreplace({A_EXPONENT: a_of_s})
    slope = sp.factor(sp.powsimp(slope))
    at_zero = profile.xreplace({r: 0})
    claim = "rho(r) = (r^2 + b)^a r: rho(0) = 0, rho' > 0, rho -> oo (b > 0, a > -1/2)"
    if at_zero == 0 and is_manifestly_nonnegative(slope):
        return conjunction([
            zeros("rho(0) = 0", [at_zero]), nonnegatives(f"rho'(r) = {slope} >= 0", [slope]),
            by_oracle(SYMPY_LIMITS, derivative_sign_statement(in_s, r, ">")),
            by_oracle(SYMPY_LIMITS, limit_statement(in_s, r, sp.oo, sp.oo))], label=claim, evidence=(
            f"rho'(r) = {slope} with a = (s - 1)/2, s > 0: a product of positive factors",
            "rho(0) = 0 exactly; lim rho = oo (sympy.limit)"))
    return Verdict(Status.UNDECIDED, claim, reason=f"rho' = {slope}, rho(0) = {at_zero}")


def radial_jacobian(n: int) -> tuple[sp.Expr, Verdict]:
    """∇ψ(θ̂): the Jacobian of ψ at u = 0 is a scalar multiple of I, the scalar derived."""
    u = list(sp.symbols(f"u_1:{n + 1}", real=True))
    derivatives = sp.Matrix(radial_map(u)).jacobian(u)
    scale = derivatives.xreplace({x: 0 for x in u})[0, 0]
    # each derivative at u = 0 as written (evaluated there, it would be the scale or 0 itself, and
    # the statement scale = scale)
    with sp.evaluate(False):
        at_zero = [entry.xreplace({x: sp.S.Zero for x in u}) for entry in derivatives]
    claim = f"grad psi(theta_hat) = {scale} I, n={n}"
    return scale, zeros(claim, list(zip(at_zero, scale * sp.eye(n))),
                        evidence=("sympy jacobian of psi at u = 0, exact",))


def radial_hessian(n: int, scale: sp.Expr) -> tuple[sp.Expr, Verdict]:
    """At a minimum θ̂: ∇²L_η(0) = ∇g(0)ᵀ H ∇g(0) with ∇g(0) = ∇ψ(θ̂)⁻¹ = scale⁻¹ I; the factor
    multiplying H is derived and checked against the congruence for a generic symmetric H."""
    H = Jets(n).H
    inverse = (scale * sp.eye(n)).inv()
    factor = sp.powsimp((inverse.T * H * inverse)[0, 0] / H[0, 0])
    # each entry of the congruence as the product writes it, Σ_p Σ_q (∇g)_pi H_pq (∇g)_qj (multiplied
    # out, it would be the factor times H_ij itself)
    congruence = [sp.Add(*[sp.Mul(inverse[p, i], H[p, q], inverse[q, j], evaluate=False)
                           for p in range(n) for q in range(n)], evaluate=False) for i in range(n) for j in range(n)]
    claim = f"grad^2 L_eta(0) = {factor} grad^2 L(theta_hat), n={n}"
    return factor, zeros(claim, list(zip(congruence, factor * H)),
                         evidence=("congruence by the inverse Jacobian, exact",))


def explicit_shifts(factor: sp.Expr) -> dict:
    """With a = 1: b making factor·γ equal to M/2 (below any m = M) and to 2M (above any M)."""
    factor = factor.xreplace({A_EXPONENT: RADIAL_A})
    below, above = (sp.solve(sp.Eq(factor * GAMMA, target), B_SHIFT) for target in (TARGET / 2, 2 * TARGET))
    return {"below": below[0], "above": above[0]}


def check_explicit_shifts(factor: sp.Expr) -> Verdict:
    shifts = explicit_shifts(factor)
    scaled = factor.xreplace({A_EXPONENT: RADIAL_A}) * GAMMA
    claim = "a = 1: ||grad^2 L_eta(0)||_2 = M/2 < M at b_below, = 2M > M at b_above, for every M > 0"
    margins = zeros("the margins at b_below and b_above", [
        (scaled.xreplace({B_SHIFT: shifts["below"]}), TARGET / 2), (scaled.xreplace({B_SHIFT: shifts["above"]}), 2 * TARGET)])
    positive = [by_oracle(SYMPY_ASSUMPTIONS, Relation(shift, ">", sp.S.Zero)) for shift in shifts.values()]
    return conjunction([margins, *positive], label=claim, evidence=(
        f"b_below = {shifts['below']}, b_above = {shifts['above']} (both > 0)",
        "spectral norm of b^(-2a) H is b^(-2a) ||H||_2: exact zero tests of the margins"))


def radial_inverse(eta, b):
    """g(η) − θ̂ = ψ⁻¹(η) for a = 1, in closed form: ψ(u) = (‖u‖² + b) u, so u = η/(r² + b) with
    r = ‖u‖ the real root of r³ + b r = ‖η‖, by Cardano's formula (for b > 0 both cube roots are
    of positive numbers, and r = 0 at η = 0)."""
    rho = sp.sqrt(sum(x ** 2 for x in eta))
    root = sp.sqrt(rho ** 2 / 4 + b ** 3 / 27)
    r = sp.cbrt(root + rho / 2) - sp.cbrt(root - rho / 2)
    return [x / (r ** 2 + b) for x in eta]


def example_radial(factor: sp.Expr) -> Verdict:
    """The worked example at θ̂ = (1, 1), a = 1: for m = 1/10 and M = 10⁶, b from explicit_shifts;
    the Hessian of L∘ψ⁻¹ at 0, differentiated numerically through the inverse map itself at two
    precisions, has spectral norm factor·‖H‖, on the predicted side of the target."""
    derived = example.derive()
    gamma = derived.spectral_norm.xreplace({example.c: 1})
    shifts = explicit_shifts(factor)
    eta = sp.symbols("eta_1 eta_2", real=True)
    evidence, checks = [f"||grad^2 L(1, 1)||_2 = {gamma}"], []
    claim = "worked example: ||grad^2 L_eta(0)||_2 < 1/10 and > 10^6 at explicit b (a = 1)"
    for side, target in zip(("below", "above"), EXAMPLE_TARGETS):
        target = sp.Rational(target.numerator, target.denominator)
        b_exact = shifts[side].xreplace({TARGET: target, GAMMA: gamma})
        predicted = (factor.xreplace({A_EXPONENT: RADIAL_A, B_SHIFT: b_exact}) * gamma)
        inverse = radial_inverse(list(eta), b_exact)
        pulled_back = example.loss(1 + inverse[0], 1 + inverse[1])      # L∘ψ⁻¹ with the real max
        checks.append(by_oracle(FUNCTION_AGREEMENT,
                                hessian_norm_statement(pulled_back, eta, (0, 0), predicted, AGREEMENT)))
        checks.append(by_oracle(RATIONAL_COMPARISON, Relation(predicted, "<" if side == "below" else ">",
                                                                       target)))
        evidence.append(f"{'m' if side == 'below' else 'M'} = {target}: b = {b_exact}, predicted norm "
                        f"{predicted}; " + " ".join(checks[-2].evidence[:1]))
    return conjunction(checks, label=claim, evidence=tuple(evidence))


# --- §5.1: weight normalization --------------------------------------------------------------------

def weight_normalization(v: list, s: sp.Expr) -> list:
    """w = s·v/‖v‖₂."""
    norm = sp.sqrt(sum(x ** 2 for x in v))
    return [s * x / norm for x in v]


def weight_norm_equations(k: int, alpha: sp.Expr = ALPHA) -> list:
    """w_i(s, αv) = w_i(s, v), one equation per component."""
    v = list(sp.symbols(f"v_1:{k + 1}", real=True))
    s = sp.Symbol("s", real=True)
    return [Equation(left, right) for left, right in zip(weight_normalization([alpha * x for x in v], s),
                                                         weight_normalization(v, s))]


def weight_norm_invariance(k: int, alpha: sp.Expr = ALPHA, seed: int = 0) -> Verdict:
    """w(s, αv) = w(s, v), componentwise, for the sign of α the symbol carries."""
    sign = "> 0" if alpha.is_positive else "< 0" if alpha.is_negative else "real"
    verdicts = [check_identity(e.lhs, e.rhs, seed=seed, claim=f"w_{i + 1}(s, alpha v) = w_{i + 1}(s, v), alpha {sign}")
                for i, e in enumerate(weight_norm_equations(k, alpha))]
    return _all(f"w(s, alpha v) = w(s, v) for alpha {sign}, k={k}", verdicts, "components")


def weight_norm_orthogonality(k: int, seed: int = 0) -> Verdict:
    """⟨v, ∇_v L(w(s, v))⟩ = 0 for every differentiable L: with ∇_w L = l (generic), the part of
    the derivative from the numerator v cancels the part from the normalization 1/‖v‖."""
    v = list(sp.symbols(f"v_1:{k + 1}", real=True))
    s = sp.Symbol("s", real=True)
    l = list(sp.symbols(f"l_1:{k + 1}", real=True))
    inverse_norm = 1 / sp.sqrt(sum(x ** 2 for x in v))
    # ∂_j (s v_i / ‖v‖) = s δ_ij / ‖v‖ + s v_i ∂_j(1/‖v‖)
    from_numerator = sum(l[i] * s * v[i] * inverse_norm for i in range(k))
    from_norm = sum(l[i] * s * v[i] * sum(v[j] * sp.diff(inverse_norm, v[j]) for j in range(k)) for i in range(k))
    split = check_identity(sum(v[j] * sp.diff(sum(l[i] * w for i, w in enumerate(weight_normalization(v, s))), v[j])
                               for j in range(k)), from_numerator + from_norm, seed=seed,
                           claim=f"<v, grad_v L> = numerator part + normalization part, k={k}")
    cancel = check_identity(from_numerator, -from_norm, seed=seed,
                            claim=f"numerator part = -(normalization part), k={k}")
    return _all(f"<v, grad_v L(w(s, v))> = 0, k={k}", [split, cancel], "identities")


# --- §5.2: input representation --------------------------------------------------------------------

def input_chain_rule(d: int, seed: int = 0) -> Verdict:
    """∂(f∘ξ)/∂u = (∂f/∂x)(ξ(u)) ∂ξ/∂u for an affine ξ(u) = A u + μ and a generic 2-jet f."""
    u = list(sp.symbols(f"u_1:{d + 1}", real=True))
    x = list(sp.symbols(f"x_1:{d + 1}", real=True))
    A = sp.Matrix(d, d, lambda i, j: sp.Symbol(f"A_{i + 1}_{j + 1}", real=True))
    mu = sp.Matrix(d, 1, lambda i, _: sp.Symbol(f"mu_{i + 1}", real=True))
    f0 = sp.Symbol("f_0", real=True)
    phi = sp.Matrix(1, d, lambda _, i: sp.Symbol(f"phi_{i + 1}", real=True))
    Phi = sp.Matrix(d, d, lambda i, j: sp.Symbol(f"Phi_{min(i, j) + 1}_{max(i, j) + 1}", real=True))
    X = sp.Matrix(x)
    f = f0 + (phi * X)[0] + (X.T * Phi * X)[0] / 2
    xi = A * sp.Matrix(u) + mu
    composed = f.xreplace(dict(zip(x, xi)))
    gradient_f = sp.Matrix(1, d, lambda _, i: sp.diff(f, x[i])).xreplace(dict(zip(x, xi)))
    claimed = gradient_f * A
    verdicts = [check_identity(sp.diff(composed, u[i]), claimed[i], seed=seed,
                               claim=f"d f_xi/d u_{i + 1}, d={d}") for i in range(d)]
    return _all(f"d f_xi/du = (df/dx)(xi(u)) dxi/du, d={d}", verdicts, "components")


def standardization():
    """ξ(u) = σu + μ, the inverse of the data's standardization x ↦ (x − μ)/σ, from the example's
    inputs (population mean and standard deviation)."""
    inputs = [sp.Integer(xi) for xi, _ in example.DATA]
    mean = sum(inputs) / len(inputs)
    deviation = sp.sqrt(sum((x - mean) ** 2 for x in inputs) / len(inputs))
    return mean, deviation


def input_gradient_equation(point_index: int = 0):
    """The invariance claim as a statement, |∂f_ξ/∂u(u)| = |∂f/∂x(ξ(u))| for every u, and the
    standardized training input u at which to test it."""
    mean, deviation = standardization()
    u, x = sp.symbols("u x", real=True)
    f = example.network(1, 1, x)
    xi = deviation * u + mean
    statement = Equation(sp.Abs(sp.diff(f.xreplace({x: xi}), u)), sp.Abs(sp.diff(f, x).xreplace({x: xi})))
    return statement, {u: (sp.Integer(example.DATA[point_index][0]) - mean) / deviation}


def input_gradient_invariance(point_index: int = 0) -> Verdict:
    """Claim: |∂f_ξ/∂u(u)| = |∂f/∂x(ξ(u))| for the example's predictor f = max(x, 0) (θ = (1, 1))
    and ξ the inverse standardization, at the standardized training input.  Refuted when the
    two differ; the derivatives are exact difference quotients (f is linear near the point)."""
    mean, deviation = standardization()
    u, x = sp.symbols("u x", real=True)
    f = example.network(1, 1, x)
    f_xi = f.xreplace({x: deviation * u + mean})
    data_x = sp.Integer(example.DATA[point_index][0])
    data_u = (data_x - mean) / deviation
    step = sp.Rational(1, 1000)
    # central difference quotients, exact: both points stay on the linear piece x > 0
    quotient_u = (f_xi.xreplace({u: data_u + step}) - f_xi.xreplace({u: data_u - step})) / (2 * step)
    quotient_x = (f.xreplace({x: data_x + step}) - f.xreplace({x: data_x - step})) / (2 * step)
    symbolic_u = sp.diff(f_xi, u).xreplace({u: data_u})
    symbolic_x = sp.diff(f, x).xreplace({x: data_x})
    claim = "|d f_xi/du (u)| = |df/dx (xi(u))| (input-gradient norm invariant)"
    if not (quotient_u == symbolic_u and quotient_x == symbolic_x):
        return Verdict(Status.UNDECIDED, claim, reason="difference quotients disagree with the derivatives")
    if abs(quotient_u) != abs(quotient_x):
        return Verdict(Status.REFUTED, claim, witness={"u": data_u, "x = xi(u)": data_x, "mu": mean,
                                                       "sigma": deviation},
                       reason=f"|d f_xi/du| = {abs(quotient_u)} but |df/dx| = {abs(quotient_x)} "
                              f"(exact difference quotients)")
    return by_oracle(RATIONAL_COMPARISON, Equation(abs(quotient_u), abs(quotient_x)), label=claim,
                     evidence=(f"both {abs(quotient_u)}",))


# --- the proof script -----------------------------------------------------------------------------

def derivation_skeleton() -> Derivation:
    return Derivation(
        name=NAME, title=TITLE, source=SOURCE,
        statement=(r"For a bijection $g$ and $L_\eta = L \circ g$ the gradient and Hessian follow "
                   r"the chain rule with its second-order term; at a critical point the Hessian is "
                   r"congruent by $\nabla g$. The radial map of Figure 5 scales the Hessian at a "
                   r"minimum by $b^{-2a}$, so explicit $b$ make it smaller than any $m$ or larger "
                   r"than any $M$. Weight normalization is invariant under $v \mapsto \alpha v$ for "
                   r"$\alpha > 0$ only, with $\langle v, \nabla_v L\rangle = 0$; input gradients "
                   r"change with the input representation."),
        definitions=[
            r"$\eta = \psi(\theta) = (\|\theta - \hat\theta\|_2^2 + b)^a (\theta - \hat\theta)$, "
            r"$b > 0$, $a > -1/2$; $g = \psi^{-1}$; $H = \nabla^2 L(\hat\theta)$.",
            r"Generic 2-jets: $g(\eta_0 + u) = p + G u + \frac12 (u^\top C_k u)_k$ and "
            r"$L(p + t) = l_0 + l\,t + \frac12 t^\top H t$ with symbolic coefficients.",
            r"$w = s\,v/\|v\|_2$ (weight normalization); $f_\xi = f \circ \xi$ for an affine "
            r"invertible input map $\xi(u) = A u + \mu$.",
        ])


def run(sizes, seed=0, timeout=None) -> Report:
    derivation = derivation_skeleton()
    report = Report(derivation)
    dims = sorted({d for d, _, _ in sizes})
    size = lambda n: (n, None, None)  # noqa: E731
    chain = [report.record(NAME, "Hessian chain rule with its second-order term", size(n),
                           lambda n=n: chain_rule(n, seed=seed)) for n in dims]
    congruence = [report.record(NAME, "congruence at a critical point", size(n),
                                lambda n=n: chain_rule(n, critical=True, seed=seed)) for n in dims]
    bijection = report.record(NAME, "radial map is a bijection", (None, None, None), radial_bijection)
    jacobians, factor = [], None
    for n in dims:
        scale, verdict = radial_jacobian(n)
        jacobians.append(report.record(NAME, "Jacobian of the radial map at theta_hat", size(n),
                                       lambda verdict=verdict: verdict))
    hessians = []
    for n in dims:
        factor, verdict = radial_hessian(n, scale)
        hessians.append(report.record(NAME, "Hessian of L_eta at 0 is b^(-2a) H", size(n),
                                      lambda verdict=verdict: verdict))
    shifts = report.record(NAME, "explicit b below any m, above any M", (None, None, None),
                           lambda: check_explicit_shifts(factor))
    on_example = report.record(NAME, "worked example: explicit b, Hessian recomputed numerically",
                               (1, 1, 2), lambda: example_radial(factor))
    # a normalized vector has k >= 2 coordinates (for k = 1, w = s sign(v) is piecewise constant)
    lengths = sorted({max(d, 2) for d in dims})
    positive = [report.record(NAME, "weight normalization: w(s, alpha v) = w(s, v), alpha > 0", size(k),
                              lambda k=k: weight_norm_invariance(k, seed=seed)) for k in lengths]
    orthogonal = [report.record(NAME, "weight normalization: <v, grad_v L> = 0", size(k),
                                lambda k=k: weight_norm_orthogonality(k, seed=seed)) for k in lengths]
    inputs = [report.record(NAME, "input chain rule for an affine preprocessing", size(d),
                            lambda d=d: input_chain_rule(d, seed=seed)) for d in dims]

    flip = report.record(NAME, "weight normalization: not invariant for some alpha < 0", size(2),
                         lambda: refuted_as_expected(weight_norm_invariance(2, NEGATIVE_ALPHA, seed=seed),
                                                     weight_norm_equations(2, NEGATIVE_ALPHA),
                                                     "w(s, alpha v) != w(s, v) for some alpha < 0"))
    representation = report.record(NAME, "input-gradient norm depends on the input representation", (1, 1, 2),
                                   lambda: refuted_as_expected(input_gradient_invariance(),
                                                               [input_gradient_equation()[0]],
                                                               "input-gradient norms are not invariant",
                                                               input_gradient_equation()[1]))

    sizes_of = [size(n) for n in dims]
    derivation.add(chain, r"the chain rule for a reparametrization $g$, $\nabla L_\eta = \nabla L(g)\,\nabla g$ and "
                   r"$\nabla^2 L_\eta = \nabla g^\top \nabla^2 L(g)\,\nabla g + \sum_k \partial_k L(g)\,\nabla^2 g_k$: "
                   "exact identities on generic 2-jets of $g$ and $L$ (they determine both sides: "
                   "every $C^2$ pair is covered)", sizes_of)
    derivation.add(congruence, r"the same with $l = 0$: at a critical point, $\nabla^2 L_\eta(\eta) = \nabla g^\top "
                   r"\nabla^2 L(g(\eta))\,\nabla g$", sizes_of)
    derivation.add([bijection], r"$\rho(r) = (r^2 + b)^a r$: the derived $\rho'$ is a product of positive factors for $b > 0$, "
                   r"$a > -1/2$; so $\psi$ maps each ray from $\hat\theta$ onto itself bijectively")
    derivation.add(jacobians, "Jacobian of $\\psi$ at $\\hat\\theta$, exact; $\\nabla g(0) = \\nabla\\psi(\\hat\\theta)^{-1}$ "
                   "by the inverse function theorem", sizes_of)
    derivation.add(hessians, "the congruence at the minimum $\\hat\\theta$ with $\\nabla g(0)$ above", sizes_of)
    derivation.add([shifts], r"exact margins ($a = 1$): $\|\nabla^2 L_\eta(0)\|_2$ is below any $M$ or above it")
    derivation.add([on_example], r"worked example at $\hat\theta = (1, 1)$: Hessian of $L \circ \psi^{-1}$ by "
                   r"mpmath.diff through the inverse map (at 40 and 60 digits) agrees", [(1, 1, 2)])
    derivation.add(positive, r"weight normalization, $w(s, \alpha v) = w(s, v)$ for $\alpha > 0$: exact, componentwise; for "
                   r"$\alpha < 0$ it is refuted (the source's $\alpha \ne 0$)", [size(k) for k in lengths])
    derivation.add(orthogonal, r"$\langle v, \nabla_v L(w(s, v))\rangle = 0$: the numerator's part cancels the normalization's "
                   "part, exact", [size(k) for k in lengths])
    derivation.add(inputs, r"$\partial_u f_\xi(u) = \partial_x f(\xi(u))\, A$: exact on a generic 2-jet of $f$; so "
                   r"input-gradient norms change with $A$", sizes_of)
    derivation.add([flip, representation], r"the invariance claims for $\alpha < 0$ and for input gradients under the data's "
                   r"standardization are refuted, each by a re-verified witness",
                   [size(2), (1, 1, 2)])
    derivation.sizes = sizes_of + [(1, 1, 2)]
    return report
