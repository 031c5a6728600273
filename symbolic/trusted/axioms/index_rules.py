"""Rewrite rules on index-level terms, each valid whatever the sizes, and derivations made of them.

A rule says when one term may replace another, anywhere inside a larger term.  Each rule is an
identity that holds for every value of its variables, θ included, and its side conditions speak
only of scalars free of θ (α > 0) or of indices; so a rewrite inside a sum body, inside a loss or
under ∂/∂θ_a is sound.  Each rule is an axiom of the kernel (``symbolic.kernel.derivations.axiom``)
and is itself checked (``Rule.validity``): symbolically, for every size (by induction on the bound
of a sum, or on a generic polynomial jet), and on instances by ``check_identity``; the ReLU
derivative rules hold off the kink set, where the closed forms are stated; the spectral-norm rules
by the characteristic polynomials of the Gram matrices of generic symbolic matrices, a diagonal sign
or permutation matrix on one side being orthogonal.  A ``Chain`` is a derivation t_0 = t_1 = … ;
``check`` refuses it at the first step its rule does not justify.  The tactics that propose steps
of these rules (``symbolic.every_size.tactics``) are not part of the trusted base.
"""
from __future__ import annotations

import functools
import itertools
import random
import re

import sympy as sp

from symbolic.logic.definedness import vanishing_denominator
from symbolic.logic.notation import latex as latex_of
from symbolic.logic.terms import DATA_FAMILIES, OVER_LAYERS, Activation, Add, Const, Deriv, Entry, Eval, Fn, \
    Indicator, LayerProduct, Mul, Relu, SpectralNorm, Sum, bound_indices, expand, children, constants, families, free_indices, \
    index_variable, layer_expr, layer_text, permutation_of, permuted, substitute_index, substitute_layer
from symbolic.relu import ReLU, leaky_relu
from symbolic.kernel.verdict import Status, Verdict
from symbolic.decision.witness import random_point
from symbolic.decision.zero import is_rational_zero, is_sign
from symbolic.kernel import conjunction
from symbolic.checks import check_identity, zeros
from symbolic.kernel.derivations import Rule, axiom


def _either_way(one_way):
    """A justification that accepts the rule read left to right or right to left."""
    def justify(before, after):
        forward = one_way(before, after)
        return None if forward is None or one_way(after, before) is None else forward
    return justify


# --- induction on the bound of a finite sum ------------------------------------------------------

def by_induction(build, index: sp.Symbol, bound: sp.Symbol) -> bool:
    """lhs(m) = rhs(m) for every m ≥ 0, where ``build(m)`` gives (lhs, rhs) with sums
    Σ_{index=1}^{m}.  Base: m = 0 (empty sums).  Step: Σ_1^{m+1} F = Σ_1^m F + F(m + 1) (the
    definition of a finite sum); with the sums up to m as indeterminates, the difference of the
    two sides at m + 1 minus the difference at m must vanish identically, so it is 0 whenever the
    difference at m is (the induction hypothesis)."""
    lhs, rhs = build(sp.S.Zero)
    if not is_rational_zero((lhs - rhs).doit()):
        return False
    up = bound + 1

    def peel(expr):
        return expr.replace(lambda e: isinstance(e, sp.Sum) and e.limits[0][2] == up,
                            lambda e: sp.Sum(e.function, (index, 1, bound)) + e.function.xreplace({index: up}))

    lhs_m, rhs_m = build(bound)
    lhs_next, rhs_next = build(up)
    step = peel(lhs_next - rhs_next) - (lhs_m - rhs_m)
    # the same sum gets the same indeterminate on both sides of the step
    atoms = sorted(step.atoms(sp.Sum) | step.atoms(sp.Indexed), key=sp.default_sort_key)
    step = step.xreplace({a: sp.Dummy(f"atom{k}") for k, a in enumerate(atoms)})
    return is_rational_zero(step)


# --- the rules -----------------------------------------------------------------------------------

def _sum_factor(before, after):
    """Σ_i c·a_i → c·Σ_i a_i, c free of i."""
    if not (isinstance(before, Sum) and isinstance(before.body, Mul) and len(before.body.factors) == 2):
        return "not of the form Σ_i c·a_i"
    c, rest = before.body.factors
    if before.index in free_indices(c):
        return f"the factor depends on the summation index {before.index}"
    if after != Mul((c, Sum(before.index, before.size, rest))):
        return "the result is not c·Σ_i a_i"
    return None


def _sum_factor_validity() -> Verdict:
    i, m = sp.Symbol("i", integer=True), sp.Symbol("m", integer=True, nonnegative=True)
    a, c = sp.IndexedBase("a"), sp.Symbol("c", real=True)
    ok = by_induction(lambda top: (sp.Sum(c * a[i], (i, 1, top)), c * sp.Sum(a[i], (i, 1, top))), i, m)
    if not ok:
        return Verdict(Status.UNDECIDED, "sum factor rule", reason="induction step not an exact zero")
    # the instances as written: c a_1 + ... + c a_m = c (a_1 + ... + a_m), kept unevaluated
    instances = []
    for size in (2, 3, 4):
        entries = sp.symbols(f"a1:{size + 1}", real=True)
        instances.append(check_identity(sp.Add(*[sp.Mul(c, e, evaluate=False) for e in entries], evaluate=False),
                                        sp.Mul(c, sp.Add(*entries, evaluate=False), evaluate=False)))
    return conjunction(instances, label="sum c a_i = c sum a_i, every bound m", evidence=[
        "induction on the bound m: base m = 0 and step m -> m + 1 exact zeros",
        "check_identity at m = 2, 3, 4, each side as written"])


def _homogeneity(before, after):
    """ReLU(c·s) → c·ReLU(s), c > 0."""
    if not (isinstance(before, Relu) and isinstance(before.arg, Mul) and len(before.arg.factors) == 2):
        return "not of the form ReLU(c·s)"
    c, s = before.arg.factors
    if after != Mul((c, Relu(s))):
        return "the result is not c·ReLU(s)"
    if not isinstance(c, Const) or c.expr.is_positive is not True:
        return "the factor is not known to be a positive scalar"
    return None


def relu_homogeneity_verdict(alpha: sp.Expr) -> Verdict:
    """ReLU(αs) = α·ReLU(s) for α > 0 and every real s, kink included: sign split with sympy's
    own Max (s > 0, s = 0, s < 0), and check_identity as the independent cross-check."""
    s = sp.Symbol("s", real=True)
    claim = "ReLU(alpha*s) = alpha*ReLU(s)"
    cases = {"s > 0": sp.Symbol("s_pos", positive=True), "s = 0": sp.S.Zero,
             "s < 0": sp.Symbol("s_neg", negative=True)}
    for label, value in cases.items():
        if not is_rational_zero(sp.Max(0, alpha * value) - alpha * sp.Max(0, value)):
            return Verdict(Status.UNDECIDED, claim, reason=f"sympy's Max does not settle case {label}")
    verdict = check_identity(ReLU(alpha * s), alpha * ReLU(s), claim=claim)
    return conjunction([verdict], label=claim, evidence=(
        "sign split s > 0, s = 0, s < 0 with sympy's Max: each case an exact zero", *verdict.evidence))


def _activation_homogeneity(before, after):
    """σ(c·s) → c·σ(s), c > 0, σ a leaky ReLU (any fixed slope) or the absolute value."""
    if not (isinstance(before, Activation) and isinstance(before.arg, Mul) and len(before.arg.factors) == 2):
        return "not of the form σ(c·s)"
    c, s = before.arg.factors
    if after != Mul((c, Activation(before.kind, before.slope, s))):
        return "the result is not c·σ(s)"
    if not isinstance(c, Const) or c.expr.is_positive is not True:
        return "the factor is not known to be a positive scalar"
    return None


def _activation_homogeneity_validity() -> Verdict:
    """LReLU_a(c s) = c LReLU_a(s) for every slope a (a symbol) and |c s| = c |s|, c > 0, every real
    s: the exact identity test, kinks included."""
    s, a = sp.Symbol("s", real=True), sp.Symbol("a", real=True)
    c = sp.Symbol("c", positive=True)
    leaky = check_identity(leaky_relu(c * s, a), c * leaky_relu(s, a), claim="LReLU_a(c s) = c LReLU_a(s)")
    absolute = check_identity(sp.Abs(c * s), c * sp.Abs(s), claim="|c s| = c |s|")
    return conjunction([leaky, absolute], label="positive homogeneity of the leaky ReLU (every slope) and of abs", evidence=("check_identity with a symbolic slope a and c > 0",))


def _absolute_value_of_a_sign(before, after):
    """|c·s| → |s| for a real scalar c with c² = 1."""
    if not (isinstance(before, Activation) and before.kind == "abs" and isinstance(before.arg, Mul)
            and len(before.arg.factors) == 2):
        return "not of the form |c·s|"
    c, s = before.arg.factors
    if after != Activation("abs", before.slope, s):
        return "the result is not |s|"
    if not isinstance(c, Const) or not is_sign(c.expr):
        return "the factor is not known to be a real scalar whose square is 1"
    return None


def _absolute_value_of_a_sign_validity() -> Verdict:
    """A real c with c² = 1 is 1 or −1 ((c − 1)(c + 1) = 0), and |s| = |s|, |−s| = |s| for every
    real s: the exact identity test on both."""
    s = sp.Symbol("s", real=True)
    return conjunction([check_identity(sp.Abs(c * s), sp.Abs(s)) for c in (1, -1)], label="|c s| = |s| for c = 1 and c = -1", evidence=("a real c with c^2 = 1 is 1 or -1",))


# a square root and its reciprocal, each ρ_p(s) = s^p with p = 1/2 or −1/2 (the reciprocal defined
# where s > 0): the names of their index-level functions and their exponents
SQUARE_ROOT, RECIPROCAL_ROOT = r"\sqrt", r"\operatorname{rsqrt}"
ROOT_EXPONENTS = {SQUARE_ROOT: sp.Rational(1, 2), RECIPROCAL_ROOT: sp.Rational(-1, 2)}


def _root_homogeneity(before, after):
    """ρ_p(k·s) → m·ρ_p(s) for a scalar k > 0 and m = k^p, checked as m > 0 and m² = k^(2p) exactly."""
    if not (isinstance(before, Fn) and before.name in ROOT_EXPONENTS and len(before.args) == 1
            and isinstance(before.args[0], Mul) and len(before.args[0].factors) == 2):
        return "not of the form rho(k s), rho a square root or its reciprocal"
    k, inner = before.args[0].factors
    if not (isinstance(after, Mul) and len(after.factors) == 2 and after.factors[1] == Fn(before.name, (inner,))):
        return "the result is not m rho(s)"
    m = after.factors[0]
    if not (isinstance(k, Const) and k.expr.is_positive is True):
        return "the factor is not known to be a positive scalar"
    if not isinstance(m, Const):
        return "the factor taken out is not a scalar"
    exponent = ROOT_EXPONENTS[before.name]
    # m = k^p with m > 0: m² = k for p = 1/2, m² k = 1 for p = −1/2
    residual = m.expr ** 2 - k.expr if exponent > 0 else m.expr ** 2 * k.expr - 1
    if not (m.expr.is_positive is True and is_rational_zero(sp.expand(residual))):
        return f"the factor taken out is not k^({exponent}) for k = {k.expr}"
    return None


@functools.cache
def _root_homogeneity_validity() -> Verdict:
    """ρ_p(k s) = k^p ρ_p(s) for k > 0: ρ_p(t) is the positive y with y^(1/p) = t (y² = t, or y² t = 1),
    and y = k^p ρ_p(s) is positive with y^(1/p) = k·ρ_p(s)^(1/p) = k s; both sides are defined for
    the same s (s ≥ 0, or s > 0, as k s is).  Checked on rational k = c² and s, each side evaluated
    by sympy's exact radicals and compared (no symbol for sympy to simplify), and the test of each
    use tried on a right and two wrong factors."""
    rng = random.Random(5)
    instances = []
    for _ in range(4):
        c, value = sp.Rational(rng.randint(1, 30), rng.randint(1, 30)), sp.Rational(rng.randint(1, 50), rng.randint(1, 50))
        instances.append(check_identity(sp.sqrt(c ** 2 * value), c * sp.sqrt(value), claim=f"sqrt(k s), k = {c ** 2}"))
        instances.append(check_identity(1 / sp.sqrt(c ** 2 * value), sp.sqrt(value) ** -1 / c,
                                        claim=f"1/sqrt(k s), k = {c ** 2}"))
    k, s = Const(sp.Symbol("k", positive=True)), Entry("s", ())
    tests = [_root_homogeneity(Fn(SQUARE_ROOT, (Mul((k, s)),)), Mul((Const(sp.sqrt(k.expr)), Fn(SQUARE_ROOT, (s,))))) is None,
             _root_homogeneity(Fn(RECIPROCAL_ROOT, (Mul((k, s)),)), Mul((Const(1 / sp.sqrt(k.expr)), Fn(RECIPROCAL_ROOT, (s,))))) is None,
             _root_homogeneity(Fn(SQUARE_ROOT, (Mul((k, s)),)), Mul((k, Fn(SQUARE_ROOT, (s,))))) is not None,
             _root_homogeneity(Fn(RECIPROCAL_ROOT, (Mul((Const(sp.Symbol("r", real=True)), s)),)),
                               Mul((Const(sp.S.One), Fn(RECIPROCAL_ROOT, (s,))))) is not None]
    if not all(tests):
        return Verdict(Status.UNDECIDED, "root homogeneity", reason="the test of a use misjudges a known case")
    return conjunction(instances, label="rho(k s) = k^p rho(s) for k > 0, p = 1/2 or -1/2", evidence=(
        "y = k^p rho(s) is positive and y^(1/p) = k s, so it is the positive root; both sides defined for the same s",
        "check_identity on 4 rational k = c^2 and s for each root, exact radicals on both sides",
        "the test accepts k^(1/2) and k^(-1/2), refuses k itself and a factor not known to be positive"))


def _indicator_homogeneity(before, after):
    """1[c·s > 0] → 1[s > 0], c > 0."""
    if not (isinstance(before, Indicator) and isinstance(before.arg, Mul) and len(before.arg.factors) == 2):
        return "not of the form 1[c·s > 0]"
    c, s = before.arg.factors
    if after != Indicator(s):
        return "the result is not 1[s > 0]"
    if not isinstance(c, Const) or c.expr.is_positive is not True:
        return "the factor is not known to be a positive scalar"
    return None


def _indicator_homogeneity_validity() -> Verdict:
    """Sign split with sympy's Heaviside (value 0 at 0), then exact evaluation at random
    rational points, the kink s = 0 among them."""
    c = sp.Symbol("c", positive=True)
    claim = "1[c s > 0] = 1[s > 0] for c > 0"
    # the sign split with sympy's Heaviside: each case settled exactly, before the identity is stated
    for value in (sp.Symbol("s_pos", positive=True), sp.S.Zero, sp.Symbol("s_neg", negative=True)):
        if not is_rational_zero(sp.Heaviside(c * value, 0) - sp.Heaviside(value, 0)):
            return Verdict(Status.UNDECIDED, claim, reason=f"sympy's Heaviside does not settle the case s = {value}")
    rng = random.Random(5)
    for _ in range(32):
        scale, s = sp.Rational(rng.randint(1, 99), rng.randint(1, 99)), sp.Rational(rng.randint(-9, 9), rng.randint(1, 9))
        if sp.Heaviside(scale * s, 0) != sp.Heaviside(s, 0):
            return Verdict(Status.REFUTED, claim, witness={"c": scale, "s": s})
    # the rule's instance as written, for every real s, checked by the exact identity test
    s = sp.Symbol("s", real=True)
    verdict = check_identity(sp.Heaviside(c * s, 0), sp.Heaviside(s, 0), claim=claim)
    return conjunction([verdict], label=claim, evidence=("sign split s > 0, s = 0, s < 0: each case equal",
                                                        "equal at 32 random rational points", *verdict.evidence))


def _jet(variable, degree=3, name="g"):
    """A generic polynomial of one variable: its coefficients are indeterminates, so it realises
    every jet of order < degree of every smooth function at a point."""
    return sum(sp.Symbol(f"{name}{k}", real=True) * variable ** k for k in range(degree + 1))


def _chain_rule(before, after):
    """∂/∂θ_c [g(Tθ)] → t_a (∂_a g)(Tθ) where (Tθ)_a = t_a θ_c, read from T's image of θ_a (c = a
    for a diagonal T; c is a with an index permuted, a ↦ c injective, otherwise);
    ∂/∂θ_a [g(θ)] → (∂_a g)(θ)."""
    if not (isinstance(before, Deriv) and isinstance(before.body, Eval)):
        return "not a derivative of a function evaluation"
    g, c = before.body, before.coordinate
    if g.point == "theta":
        return None if after == Eval(g.function, g.partials + (c,), g.point) else "the result is not (∂_a g)(θ)"
    if not (isinstance(after, Mul) and len(after.factors) == 2 and isinstance(after.factors[1], Eval)
            and after.factors[1].partials):
        return f"the result is not t_a (∂_a g)({g.point.name}θ)"
    scale, partial = after.factors
    a = partial.partials[-1]
    if partial != Eval(g.function, g.partials + (a,), g.point):
        return f"the result is not a derivative of the same g at {g.point.name}θ"
    found = g.point.monomial(a)
    if found is None:
        return f"{g.point.name} does not map {latex_of(a)} to a constant times a coordinate"
    if found[1] != c:
        return f"{g.point.name} does not map {latex_of(a)} to a multiple of {latex_of(c)}"
    # θ_c reaches Tθ through a's image alone: no other image of T reads an entry of its family
    others = [pattern.family for pattern in g.point.readers(c) if pattern != g.point.pattern_of(a)]
    if others:
        return (f"{g.point.name}'s image of {', '.join(others)} also reads {latex_of(c)}: θ_c is not read "
                "by one coordinate of Tθ alone")
    return None if scale == found[0] else f"the factor is not t_a read from {g.point.name}"


@functools.cache
def _chain_rule_validity() -> Verdict:
    """The one-variable chain rule, and three scaled coordinates of a quadratic."""
    # one coordinate varies, the others are constants: g(…, t·u, …) is a function ψ(t·u) of u
    u, t = sp.symbols("u t", real=True)
    psi = sp.Lambda(u, _jet(u))
    difference = sp.diff(psi(t * u), u) - t * sp.diff(psi(u), u).xreplace({u: t * u})
    function = sp.Function("psi")
    xi = sp.Symbol("xi", real=True)
    by_sympy = sp.diff(function(t * u), u) == t * sp.Subs(sp.Derivative(function(xi), xi), xi, t * u)
    if not (is_rational_zero(sp.expand(difference)) and by_sympy):
        return Verdict(Status.UNDECIDED, "chain rule", reason="one-variable chain rule not shown")
    # instance: three coordinates scaled by t1, t2, t3 and a concrete quadratic g
    rng = random.Random(3)
    p = sp.symbols("p1:4", real=True)
    w = sp.symbols("w1:4", real=True)
    scales = sp.symbols("t1:4", positive=True)
    g = sum(sp.Rational(rng.randint(-9, 9), rng.randint(1, 9)) * p[k] * p[l]
            for k in range(3) for l in range(k, 3)) + sum(rng.randint(-9, 9) * x for x in p)
    at = {p[k]: scales[k] * w[k] for k in range(3)}
    # each instance as written: the derivative of g(Tw) unevaluated against t_k (d_k g)(Tw)
    instances = [check_identity(sp.Derivative(g.xreplace(at), w[k]), scales[k] * sp.diff(g, p[k]).xreplace(at))
                 for k in range(3)]
    # the coordinates also permuted, (Tw)_k = t_k w_σ(k) with σ the cycle 1 → 2 → 3 → 1:
    # ∂/∂w_σ(k) [g(Tw)] = t_k (∂_k g)(Tw)
    cycle = (1, 2, 0)
    at = {p[k]: scales[k] * w[cycle[k]] for k in range(3)}
    instances += [check_identity(sp.Derivative(g.xreplace(at), w[cycle[k]]), scales[k] * sp.diff(g, p[k]).xreplace(at))
                  for k in range(3)]
    return conjunction(instances, label="chain rule for a coordinate scaled by a constant, and permuted", evidence=[
        "one-variable chain rule d/du psi(t u) = t psi'(t u): exact zero on a generic cubic "
        "(every 2-jet), and sympy's own diff of an undefined psi", "check_identity on three "
        "scaled coordinates of a quadratic, and on three scaled and permuted ones (an injective "
        "sigma: only the coordinate a with sigma(a) = c depends on theta_c)"])


def _constant_factor(before, after):
    """∂/∂θ_a [c·G] → c·∂/∂θ_a [G], c a scalar free of θ."""
    if not (isinstance(before, Deriv) and isinstance(before.body, Mul) and len(before.body.factors) == 2):
        return "not of the form ∂[c·G]"
    c, rest = before.body.factors
    if not isinstance(c, Const):
        return "the factor is not a scalar free of the parameters"
    return None if after == Mul((c, Deriv(before.coordinate, rest))) else "the result is not c·∂[G]"


def _constant_factor_validity() -> Verdict:
    u, c = sp.symbols("u c", real=True)
    G = _jet(u)
    if not is_rational_zero(sp.expand(sp.diff(c * G, u) - c * sp.diff(G, u))):
        return Verdict(Status.UNDECIDED, "constant factor rule", reason="not an exact zero")
    w = sp.symbols("w1:3", real=True)
    G_w = w[0] ** 2 * w[1] - 3 * w[1]
    # the instance as written: d/dw1 [c G] and c dG/dw1, both derivatives unevaluated
    instance = check_identity(sp.Derivative(sp.Mul(c, G_w, evaluate=False), w[0]),
                              sp.Mul(c, sp.Derivative(G_w, w[0]), evaluate=False))
    return conjunction([instance], label="d/du [c G(u)] = c G'(u)", evidence=["exact zero on a generic cubic G (every 1-jet)",
                                                "check_identity on a polynomial"])


# --- arithmetic: identities of the commutative field, atoms opaque ----------------------------------

def as_rational_function(term, atoms: dict) -> sp.Expr:
    """Const, Mul and Add as sympy arithmetic; every other subterm an indeterminate, one per
    distinct subterm (``atoms`` collects them)."""
    if isinstance(term, Const):
        return term.expr.replace(lambda e: isinstance(e, sp.Indexed),
                                 lambda e: atoms.setdefault(e, sp.Dummy(f"scalar{len(atoms)}", real=True,
                                                                         positive=e.is_positive,
                                                                         nonzero=e.is_nonzero,
                                                                         integer=e.is_integer)))
    if isinstance(term, Mul):
        return sp.Mul(*[as_rational_function(f, atoms) for f in term.factors])
    if isinstance(term, Add):
        return sp.Add(*[as_rational_function(t, atoms) for t in term.terms])
    return atoms.setdefault(term, sp.Dummy(f"atom{len(atoms)}", real=True))


def _arithmetic(before, after):
    atoms: dict = {}
    left, right = as_rational_function(before, atoms), as_rational_function(after, atoms)
    # every scalar of the two terms, inside their atoms too (a sum whose summand divides by a - a is
    # defined nowhere, and no identity of rational functions in it says anything)
    for scalar in [c.expr for c in constants(before) + constants(after)]:
        # a denominator as written (a/a divides by a, though it evaluates to 1), then the reduced one
        for denominator in (vanishing_denominator(scalar), sp.denom(sp.together(scalar))):
            if denominator is not None and denominator != 1 and denominator.is_nonzero is not True:
                return f"divides by {denominator}, not known to be non-zero"
    if not is_rational_zero(left - right):
        return "not an identity of rational functions"
    # independent witness: each side evaluated at a random rational point
    point = random_point(left.free_symbols | right.free_symbols, random.Random(len(atoms)))
    if left.xreplace(point) != right.xreplace(point):
        return "exact test and random evaluation disagree"
    return None


@functools.cache
def _arithmetic_validity() -> Verdict:
    """The test behind every use, tried on a true identity, a false one and a division by a
    scalar that may be 0: it must accept the first and refuse the other two."""
    a, b = Entry("a", ("i",)), Entry("b", ("i",))
    difference_of_squares = (Mul((Add((a, b)), Add((a, Mul((Const(sp.S.NegativeOne), b)))))),
                             Add((Mul((a, a)), Mul((Const(sp.S.NegativeOne), Mul((b, b)))))))
    product_for_sum = (Add((a, b)), Mul((a, b)))
    real = sp.Symbol("c", real=True)
    unsafe_division = (Mul((Const(real), Const(1 / real), a)), a)
    outcomes = [_arithmetic(*difference_of_squares) is None, _arithmetic(*product_for_sum) is not None,
                _arithmetic(*unsafe_division) is not None]
    if not all(outcomes):
        return Verdict(Status.UNDECIDED, "field arithmetic with opaque atoms",
                       reason="the arithmetic test misjudges a known case")
    a_, b_ = sp.symbols("a b", real=True)
    return zeros("field arithmetic with opaque atoms", [((a_ + b_) * (a_ - b_), a_ ** 2 - b_ ** 2)], evidence=(
        "checked at each use: exact rational-function zero test with every non-arithmetic subterm an "
        "indeterminate, only scalars known to be non-zero inverted, and a random rational evaluation",
        "the test accepts (a + b)(a - b) = a^2 - b^2 and refuses a + b = a b and c/c = 1 for a real c"))


CHAIN_RULE = axiom(Rule("chain rule", r"\partial_{\theta_{\sigma(a)}}\bigl[g(T\theta)\bigr] = "
                  r"t_a\,(\partial_a g)(T\theta)", _either_way(_chain_rule), functools.cache(_chain_rule_validity),
                  r"for $T$ with $(T\theta)_b = t_b\theta_{\sigma(b)}$, $t$ free of $\theta$ and $t, \sigma$ read "
                  r"from the definition of $T$ ($\sigma(b) = b$, or $b$ with an index $j$ replaced by $\pi_m(j)$, "
                  r"so that $\sigma$ is injective), and a function $g$ of $\theta$ differentiable at $T\theta$; "
                  r"with $T$ the identity it reads $\partial_{\theta_a}[g(\theta)] = (\partial_a g)(\theta)$"))
SUM_FACTOR = axiom(Rule("sum factor", r"\sum_{i=1}^{m} c\,a_i = c\sum_{i=1}^{m} a_i",
                  _either_way(_sum_factor), functools.cache(_sum_factor_validity),
                  r"for every bound $m$ and every $c$ free of $i$"))
HOMOGENEITY = axiom(Rule("ReLU homogeneity", r"\operatorname{ReLU}(c\,s) = c\operatorname{ReLU}(s)",
                   _either_way(_homogeneity),
                   functools.cache(lambda: relu_homogeneity_verdict(sp.Symbol("c", positive=True))),
                   r"for a scalar $c > 0$ and every real $s$ (the paper's Definition 4 and Theorem 1)"))
ACTIVATION_HOMOGENEITY = axiom(Rule(
    "activation homogeneity", r"\sigma(c\,s) = c\,\sigma(s)", _either_way(_activation_homogeneity),
    functools.cache(_activation_homogeneity_validity),
    r"for $\sigma$ a leaky ReLU of any fixed slope or the absolute value, a scalar $c > 0$ and every real $s$"))
ABSOLUTE_VALUE_OF_A_SIGN = axiom(Rule(
    "absolute value of a sign", r"|c\,s| = |s|", _either_way(_absolute_value_of_a_sign),
    functools.cache(_absolute_value_of_a_sign_validity), r"for a real scalar $c$ with $c^2 = 1$ and every real $s$"))
ROOT_HOMOGENEITY = axiom(Rule(
    "root homogeneity", r"\rho(k\,s) = k^{p}\,\rho(s)", _either_way(_root_homogeneity), _root_homogeneity_validity,
    r"for $\rho(s) = \sqrt{s}$ ($p = \tfrac12$) or $\operatorname{rsqrt}(s) = 1/\sqrt{s}$ ($p = -\tfrac12$), a "
    r"scalar $k > 0$ and every $s$ (both sides defined for the same $s$)"))
INDICATOR_HOMOGENEITY = axiom(Rule(
    "indicator homogeneity", r"\mathbf{1}[c\,s > 0] = \mathbf{1}[s > 0]", _either_way(_indicator_homogeneity),
    functools.cache(_indicator_homogeneity_validity), r"for a scalar $c > 0$ and every real $s$"))
CONSTANT_FACTOR = axiom(Rule("constant factor", r"\partial_{\theta_a}[c\,G] = "
                       r"c\,\partial_{\theta_a}[G]",
                       _either_way(_constant_factor), functools.cache(_constant_factor_validity),
                       r"for a scalar $c$ free of $\theta$ and $G$ differentiable"))
ARITHMETIC = axiom(Rule("arithmetic", r"p = q", _arithmetic, _arithmetic_validity,
                  r"for products and sums $p, q$ of scalars and other subterms (sums, ReLU, $\ell$, "
                  r"derivatives) that are equal as rational functions with those subterms as "
                  r"indeterminates; only non-zero scalars are inverted"))


# --- a finite sum in another order ------------------------------------------------------------------

def _reindexing(before, after):
    """Σ_{j=1}^{m} G(π_m(j)) → Σ_{j=1}^{m} G(j): the first summand is the second with every free j
    replaced by π_m(j), π_m a permutation of {1, …, m}, m the sum's own bound."""
    if not (isinstance(before, Sum) and isinstance(after, Sum)
            and (before.index, before.size) == (after.index, after.size)):
        return "not two sums over the same index and bound"
    j, m = before.index, before.size
    if any(j in c.indices for c in constants(after.body)):
        return f"a scalar depends on {j}"
    if substitute_index(after.body, j, permuted(m, j)) != before.body:
        return f"the summand is not the other's with {j} replaced by \\pi_{{{m}}}({j})"
    return None


@functools.cache
def _reindexing_validity() -> Verdict:
    """Every permutation of {1, …, m} for m ≤ 4 reorders the sum of m indeterminates into itself
    (finite sums commute: the axiom for every m), and the test of each use accepts a reordered sum
    and refuses a summand in which j also occurs unpermuted."""
    values = sp.symbols("F1:5", real=True)
    instances = [check_identity(sum(values[sigma[k]] for k in range(m)), sum(values[:m]),
                                claim=f"sum over pi(k), m = {m}")
                 for m in range(1, 5) for sigma in itertools.permutations(range(m)) if list(sigma) != sorted(sigma)]
    W, v = Entry("W", ("i", "j")), Entry("v", ("j",))
    moved = Entry("W", ("i", permuted("h", "j")))
    true = _reindexing(Sum("j", "h", Mul((moved, Entry("v", (permuted("h", "j"),))))), Sum("j", "h", Mul((W, v))))
    mixed = _reindexing(Sum("j", "h", Mul((moved, v))), Sum("j", "h", Mul((W, v))))
    other_bound = _reindexing(Sum("j", "d", Mul((moved, Entry("v", (permuted("h", "j"),))))), Sum("j", "d", Mul((W, v))))
    if true is not None or mixed is None or other_bound is None:
        return Verdict(Status.UNDECIDED, "reindexing", reason="the test of a use misjudges a known case")
    return conjunction(instances, label="a finite sum reordered by a permutation of its range", evidence=(
        "the commutativity and associativity of +, for every m; check_identity on every permutation of "
        "m = 2, 3, 4 indeterminates", "the test accepts sum_j W_(i,pi(j)) v_pi(j) = sum_j W_ij v_j and refuses "
        "sum_j W_(i,pi(j)) v_j and a permutation of another range"))


REINDEXING = axiom(Rule("reindexing", r"\sum_{j=1}^{m} G\bigl(\pi_m(j)\bigr) = \sum_{j=1}^{m} G(j)",
                        _either_way(_reindexing), _reindexing_validity,
                        r"for every bound $m$, $\pi_m$ a permutation of $\{1, \dots, m\}$ and every summand "
                        r"$G$ whose scalars are free of $j$"))


# --- a product over the layers ------------------------------------------------------------------------

def _layer(term, variable: str, value: sp.Expr):
    return substitute_layer(term, sp.Symbol(variable, integer=True), value)


def _last_factor(before, after):
    """∏_{p=1}^{0} X_p → 1, and ∏_{p=1}^{m} X_p → (∏_{p=1}^{m-1} X_p)·X_m for a last layer m ≥ 1: a
    positive number, or k + c with c ≥ 1 and k a layer (k ≥ 0, as every layer variable)."""
    if not isinstance(before, LayerProduct):
        return "not a product over the layers"
    last = layer_expr(before.last)
    if last == 0:
        return None if after == Const(sp.S.One) else "the empty product is not 1"
    offset, rest = last.as_coeff_Add()
    if not (offset >= 1 and (rest == 0 or rest.is_Symbol)):
        return f"the last layer {before.last} is not known to be at least 1"
    try:
        peeled = Mul((LayerProduct(before.variable, layer_text(last - 1), before.body),
                      _layer(before.body, before.variable, last)))
    except ValueError as captured:
        return str(captured)
    return None if after == peeled else "the result is not the product up to the layer before, times the last factor"


def _scalars_out_of_product(before, after):
    """∏_p (c_p X_p) → (∏_p c_p)(∏_p X_p), c_p a scalar."""
    if not (isinstance(before, LayerProduct) and isinstance(before.body, Mul) and len(before.body.factors) == 2
            and isinstance(before.body.factors[0], Const)):
        return "not a product over the layers of c_p X_p"
    scalar, rest = before.body.factors
    over = (before.variable, before.last)
    return None if after == Mul((LayerProduct(*over, scalar), LayerProduct(*over, rest))) else \
        "the result is not (prod c_p)(prod X_p)"


@functools.cache
def _layer_product_validity() -> Verdict:
    """The two rules on sympy's products (Karr's convention, so that ∏_{p=1}^{m} = ∏_{p=1}^{m-1}·X_m
    for every integer m) at m = −2, …, 4, exactly, and each rule's test on a right and a wrong use."""
    p, c, x = sp.Symbol("p", integer=True), sp.IndexedBase("c", positive=True), sp.IndexedBase("x", positive=True)
    instances = []
    for m in range(-2, 5):
        def product(f, last=m):
            return sp.Product(f, (p, 1, last)).doit()
        instances.append(check_identity(product(x[p]), product(x[p], m - 1) * x[m], claim=f"peel, m = {m}"))
        instances.append(check_identity(product(c[p] * x[p]), product(c[p]) * product(x[p]), claim=f"factor, m = {m}"))
    body = Entry(r"\theta^{(p)}", ())
    scaled = Mul((Const(sp.IndexedBase("a", positive=True)[sp.Symbol("p", integer=True)]), body))
    tests = [_last_factor(LayerProduct("p", "0", body), Const(sp.S.One)) is None,
             _last_factor(LayerProduct("p", "k+1", body), Mul((LayerProduct("p", "k", body), Entry(r"\theta^{(k+1)}", ())))) is None,
             _last_factor(LayerProduct("p", "k+1", body), Mul((LayerProduct("p", "k", body), Entry(r"\theta^{(k)}", ())))) is not None,
             _scalars_out_of_product(LayerProduct("p", "K", scaled),
                                     Mul((LayerProduct("p", "K", scaled.factors[0]), LayerProduct("p", "K", body)))) is None,
             _scalars_out_of_product(LayerProduct("p", "K", scaled), Mul((scaled.factors[0], LayerProduct("p", "K", body)))) is not None]
    if not all(tests):
        return Verdict(Status.UNDECIDED, "products over the layers", reason="the test of a use misjudges a known case")
    return conjunction(instances, label="a product over the layers: its last factor, its scalars", evidence=(
        "the definition of a finite product (Karr's convention for every integer bound) and its "
        "multiplicativity; check_identity at m = -2..4 on sympy's products",
        "the tests accept the peeled product and the scalars taken out, and refuse a wrong last factor "
        "and a scalar taken out of its product"))


LAST_FACTOR = axiom(Rule("last factor", r"\prod_{p=1}^{m} X_p = \Bigl(\prod_{p=1}^{m-1} X_p\Bigr) X_m",
                         _either_way(_last_factor), _layer_product_validity,
                         r"for $m \ge 1$, a number or a layer $k + c$ with $c \ge 1$ (the definition of a finite "
                         r"product); $\prod_{p=1}^{0} X_p = 1$"))
SCALARS_OUT_OF_PRODUCT = axiom(Rule(
    "scalars out of a product", r"\prod_{p=1}^{m} c_p X_p = \Bigl(\prod_{p=1}^{m} c_p\Bigr)\prod_{p=1}^{m} X_p",
    _either_way(_scalars_out_of_product), _layer_product_validity, r"for every $m$ and scalars $c_p$"))


# --- differentiation at index level ----------------------------------------------------------------
#
# ∂/∂θ_a of a sum, a product, a constant, a coordinate, ReLU off its kink, and the contraction of a
# Kronecker delta.  Each is a rule of its own, checked for every size where a size occurs.

def _derivative_of_sum(before, after):
    """∂_a[Σ_i F_i] → Σ_i ∂_a[F_i], i not an index of the coordinate."""
    if not (isinstance(before, Deriv) and isinstance(before.body, Sum)):
        return "not the derivative of a sum"
    total = before.body
    if total.index in {index_variable(i) for i in before.coordinate.indices}:
        return "the summation index is an index of the coordinate"
    expected = Sum(total.index, total.size, Deriv(before.coordinate, total.body))
    return None if after == expected else "the result is not the sum of the derivatives"


def _derivative_of_sum_validity() -> Verdict:
    """Induction on the bound m: base m = 0 (∂0 = 0); step: with S(u) standing for the function
    Σ_{i≤m} F_i(u) and T for Σ_{i≤m} F_i'(u), the hypothesis S' = T and linearity of the
    derivative on two terms give ∂[S + F_{m+1}] = T + F_{m+1}'."""
    u = sp.Symbol("u", real=True)
    S, F = sp.Function("S"), sp.Function("F")
    T, m = sp.Symbol("T"), sp.Symbol("m", integer=True, nonnegative=True)
    step = (sp.diff(S(u) + F(m + 1, u), u) - (T + sp.diff(F(m + 1, u), u))) - (sp.diff(S(u), u) - T)
    if not is_rational_zero(step):
        return Verdict(Status.UNDECIDED, "derivative of a sum", reason="induction step not an exact zero")
    w = sp.symbols("w1:4", real=True)
    terms = [w[0] ** 2 * w[1], 3 * w[0] * w[2], w[1] - w[0] ** 3]
    # each instance as written: the derivative of the sum against the sum of the derivatives, unevaluated
    instances = [check_identity(sp.Derivative(sp.Add(*terms[:k], evaluate=False), w[0]),
                                sp.Add(*[sp.Derivative(t, w[0]) for t in terms[:k]], evaluate=False))
                 for k in (2, 3)]
    return conjunction(instances, label="d/du sum_i F_i = sum_i dF_i/du, every bound m", evidence=[
        "induction on the bound m: base m = 0, step an exact zero with the sum up to m opaque",
        "check_identity with 2 and 3 terms, each side as written"])


def _derivative_of_add(before, after):
    """∂_a[A + B + …] → ∂_a[A] + ∂_a[B] + …"""
    if not (isinstance(before, Deriv) and isinstance(before.body, Add)):
        return "not the derivative of a sum of terms"
    expected = Add(tuple(Deriv(before.coordinate, t) for t in before.body.terms))
    return None if after == expected else "the result is not the sum of the derivatives"


def _product_rule(before, after):
    """∂_a[A_1⋯A_r] → Σ_k A_1⋯∂_a[A_k]⋯A_r."""
    if not (isinstance(before, Deriv) and isinstance(before.body, Mul) and len(before.body.factors) >= 2):
        return "not the derivative of a product"
    return None if after == product_rule(before.coordinate, before.body.factors) else "the result is not the product rule"


def product_rule(coordinate, factors) -> Add:
    """Σ_k A_1⋯∂[A_k]⋯A_r."""
    return Add(tuple(Mul(factors[:k] + (Deriv(coordinate, factors[k]),) + factors[k + 1:])
                     for k in range(len(factors))))


def _jet_rules_validity() -> Verdict:
    """Linearity and the product rule of 2, 3 and 4 factors on generic cubics (every 1-jet)."""
    u = sp.Symbol("u", real=True)
    A = [_jet(u, name=name) for name in "abcd"]
    claims = {"sum": sp.diff(A[0] + A[1], u) - sp.diff(A[0], u) - sp.diff(A[1], u)}
    for count in (2, 3, 4):
        product = sp.Mul(*A[:count])
        claims[f"product of {count}"] = sp.diff(product, u) - sp.Add(*[
            sp.Mul(*A[:k], sp.diff(A[k], u), *A[k + 1:count]) for k in range(count)])
    failing = [name for name, difference in claims.items() if not is_rational_zero(sp.expand(difference))]
    if failing:
        return Verdict(Status.UNDECIDED, "derivative rules", reason=f"{failing[0]} rule not an exact zero")
    w = sp.symbols("w1:3", real=True)
    first, second = w[0] ** 2 + w[1], w[0] - 3 * w[1]
    # the instances as written, every derivative unevaluated: linearity and the product rule
    linearity = check_identity(sp.Derivative(sp.Add(first, second, evaluate=False), w[0]),
                               sp.Add(sp.Derivative(first, w[0]), sp.Derivative(second, w[0]), evaluate=False))
    product = check_identity(sp.Derivative(sp.Mul(first, second, evaluate=False), w[0]),
                             sp.Add(sp.Mul(sp.Derivative(first, w[0]), second, evaluate=False),
                                    sp.Mul(first, sp.Derivative(second, w[0]), evaluate=False), evaluate=False))
    return conjunction([linearity, product], label="(A + B)' = A' + B', (A_1 ... A_r)' = sum_k A_1 ... A_k' ... A_r",
                       evidence=["exact zeros on generic cubics (every 1-jet), products of 2, 3 and 4 factors (more: "
                                 "the 2-factor rule repeatedly)", "check_identity on polynomials, each side as written"])


# entries known not to depend on the coordinate θ_a: the data, and the other parameter families
# (an entry of any other family, a hidden layer's output z^{(k)} say, may depend on θ)
PARAMETER_FAMILIES = frozenset({"W", "v"})


def _constant_term(before, after):
    """∂_a[c] → 0 when every entry of c is data or a parameter of another family than θ_a."""
    if not isinstance(before, Deriv):
        return "not a derivative"
    independent = DATA_FAMILIES | (PARAMETER_FAMILIES - {before.coordinate.family})
    if not families(before.body) <= independent:
        return f"the term may depend on {latex_of(before.coordinate)}"
    return None if after == Const(sp.S.Zero) else "the result is not 0"


def _coordinate(before, after):
    """∂θ_b/∂θ_a → δ_{b_1 a_1}⋯δ_{b_r a_r} for two entries of the same family."""
    if not (isinstance(before, Deriv) and isinstance(before.body, Entry)):
        return "not the derivative of an entry"
    a, b = before.coordinate, before.body
    if a.family != b.family or len(a.indices) != len(b.indices):
        return "not an entry of the coordinate's family"
    if any(permutation_of(i) is not None for i in a.indices + b.indices):
        return "a permuted index: its Kronecker delta is not one this language contracts"
    deltas = sp.Mul(*[sp.KroneckerDelta(sp.Symbol(p, integer=True), sp.Symbol(q, integer=True))
                      for p, q in zip(b.indices, a.indices)])
    return None if after == Const(deltas) else "the result is not the product of Kronecker deltas"


def _constant_and_coordinate_validity() -> Verdict:
    """∂c/∂u = 0 for c free of u, and ∂w_b/∂w_a = δ_ab on distinct coordinates."""
    w = sp.symbols("w1:4", real=True)
    c = sp.Symbol("c", real=True)
    # the instances as written: each derivative unevaluated against 0, or the value of delta_ab
    instances = [check_identity(sp.Derivative(c, w[0]), sp.S.Zero)]
    instances += [check_identity(sp.Derivative(w[b], w[a]), sp.KroneckerDelta(a, b)) for b in range(3) for a in range(3)]
    return conjunction(instances, label="d c/du = 0, d w_b/d w_a = delta_ab", evidence=(
        "the exact identity test on the derivatives of a constant and of 3 coordinates, every pair, as written",))


def _relu_derivative(before, after):
    """∂_a[ReLU(s)] → 1[s > 0]·∂_a[s], off the kink s = 0."""
    if not (isinstance(before, Deriv) and isinstance(before.body, Relu)):
        return "not the derivative of ReLU"
    s = before.body.arg
    return None if after == Mul((Indicator(s), Deriv(before.coordinate, s))) else "the result is not 1[s > 0] ∂s"


def _relu_derivative_validity() -> Verdict:
    """On {s > 0} ReLU(s(u)) = s(u), on {s < 0} it is 0: in each open region the derivative is
    1[s > 0]·s'(u), for a generic cubic s."""
    u = sp.Symbol("u", real=True)
    s = _jet(u, name="s")
    # on {s > 0} ReLU(s) = 1·s and 1[s > 0] = 1; on {s < 0} ReLU(s) = 0·s and 1[s > 0] = 0: in each
    # region the rule's instance as written, d/du [σ s(u)] = σ s'(u), the derivatives unevaluated
    regions = [check_identity(sp.Derivative(sp.Mul(sp.Integer(indicator), s, evaluate=False), u),
                              sp.Mul(sp.Integer(indicator), sp.Derivative(s, u), evaluate=False),
                              claim=f"the region where 1[s > 0] = {indicator}") for indicator in (1, 0)]
    return conjunction(regions, label="d/du ReLU(s(u)) = 1[s > 0] s'(u) off the kink", evidence=(
        "on each open sign region of s the identity holds for a generic cubic s, each side as written",))


def delta_contraction(ranges: dict) -> Rule:
    """Σ_{j=1}^{n} δ_{jl}·c·A_j → c·A_l, when the document's index l runs over 1..n
    (``ranges`` maps index names to size symbols)."""
    def one_way(before, after):
        if not (isinstance(before, Sum) and isinstance(before.body, Mul) and len(before.body.factors) == 2
                and isinstance(before.body.factors[0], Const)):
            return "not of the form Σ_j δ_jl c A_j"
        j = sp.Symbol(before.index, integer=True)
        coefficient, rest = before.body.factors
        for delta in sp.Mul.make_args(coefficient.expr):
            if isinstance(delta, sp.KroneckerDelta) and j in delta.args:
                other = next((a for a in delta.args if a != j), None)
                if other is None or not other.is_Symbol:
                    continue
                target = str(other)
                if ranges.get(target) != before.size:
                    return f"the index {target} does not run over 1..{before.size}"
                if index_variable(target) in bound_indices(rest):
                    return f"the index {target} would be captured by a sum"
                remaining = Const(coefficient.expr / delta)
                contracted = substitute_index(Mul((remaining, rest)), before.index, target)
                if after == contracted or (remaining.expr == 1 and after == substitute_index(rest, before.index, target)):
                    return None
                return "the result is not the contracted term"
        return "no Kronecker delta in the summation index"

    def target(before, after):
        """(l, m) of the step: the index the delta is contracted onto, and the bound of its sum."""
        total = before if one_way(before, after) is None else after
        j = sp.Symbol(total.index, integer=True)
        for delta in sp.Mul.make_args(total.body.factors[0].expr):
            other = next((a for a in delta.args if a != j), None) if isinstance(delta, sp.KroneckerDelta) \
                and j in delta.args else None
            if other is not None and other.is_Symbol:
                return str(other), total.size
        raise ValueError("a contraction without its delta")

    def in_scope(before, after, scope):
        """l bound above the rewritten sum runs over its binder's range: it must be 1..m there too (the
        ranges declared speak only of an l free in the whole term)."""
        index, size = target(before, after)
        if index in scope and scope[index] != size:
            return f"the index {index} is bound above by a sum over 1..{scope[index]}, not over 1..{size}"
        return None

    def assumes(before, after, scope):
        """An l free in the whole term is taken to run over 1..m: the theorem carries that range."""
        index, size = target(before, after)
        return {} if index in scope else {index: size}
    return axiom(Rule("delta contraction", r"\sum_{j=1}^{m} \delta_{jl}\,A_j = A_l", _either_way(one_way),
                      _delta_contraction_validity, r"for every bound $m$ and $1 \le l \le m$", in_scope, assumes))


@functools.cache
def _delta_contraction_validity() -> Verdict:
    """Induction on m of two statements: Σ_{j≤m} δ_jl a_j = a_l for 1 ≤ l ≤ m, and = 0 for l > m.
    The step adds δ_{m+1,l} a_{m+1}: with l = m + 1 + p (p ≥ 1) or l = m + 1 − p (p ≥ 1) the delta
    is 0, with l = m + 1 it is 1; sympy's KroneckerDelta must settle each case."""
    m = sp.Symbol("m", integer=True, nonnegative=True)
    p = sp.Symbol("p", integer=True, positive=True)
    cases = [sp.KroneckerDelta(m + 1, m + 1 + p), sp.KroneckerDelta(m + 1, m + 1 - p),
             sp.KroneckerDelta(m + 1, m + 1) - 1, sp.KroneckerDelta(1, 1) - 1]
    if not all(is_rational_zero(case) for case in cases):
        return Verdict(Status.UNDECIDED, "delta contraction", reason="sympy's KroneckerDelta does not settle a case of the step")
    a = sp.symbols("a1:5", real=True)
    # the instances as written: sum_j delta_jl a_j, the deltas unevaluated, against a_l
    instances = [check_identity(sp.Add(*[sp.Mul(sp.KroneckerDelta(j, target, evaluate=False), a[j - 1], evaluate=False)
                                         for j in range(1, top + 1)], evaluate=False), a[target - 1])
                 for top in range(2, 5) for target in range(1, top + 1)]
    return conjunction(instances, label="sum_j delta_jl a_j = a_l for 1 <= l <= m, every m", evidence=(
        "induction on m: base and the three cases of the step settled exactly",
        "every l at m = 2..4 checked by the exact identity test, each side as written"))


DERIVATIVE_OF_SUM = axiom(Rule("derivative of a sum", r"\partial_{\theta_a}\Bigl[\sum_{i=1}^{m} F_i\Bigr] = "
                         r"\sum_{i=1}^{m} \partial_{\theta_a}[F_i]", _either_way(_derivative_of_sum),
                         functools.cache(_derivative_of_sum_validity),
                         r"for every bound $m$, $i$ not an index of $\theta_a$"))
DERIVATIVE_OF_ADD = axiom(Rule("linearity of the derivative", r"\partial_{\theta_a}[A + B] = \partial_{\theta_a}[A] + \partial_{\theta_a}[B]",
                         _either_way(_derivative_of_add), functools.cache(_jet_rules_validity)))
PRODUCT_RULE = axiom(Rule("product rule", r"\partial_{\theta_a}[A\,B] = \partial_{\theta_a}[A]\,B + A\,\partial_{\theta_a}[B]",
                    _either_way(_product_rule), functools.cache(_jet_rules_validity),
                    r"and alike for any number of factors"))
CONSTANT_TERM = axiom(Rule("derivative of a constant", r"\partial_{\theta_a}[c] = 0", _either_way(_constant_term),
                     functools.cache(_constant_and_coordinate_validity),
                     r"for a term $c$ whose entries are data ($x$, $y$) or parameters of another family "
                     r"than $\theta_a$"))
COORDINATE = axiom(Rule("coordinate derivative", r"\partial_{W_{kl}}[W_{ij}] = \delta_{ik}\,\delta_{jl}",
                  _either_way(_coordinate), functools.cache(_constant_and_coordinate_validity),
                  r"and alike for every family"))
RELU_DERIVATIVE = axiom(Rule("ReLU derivative", r"\partial_{\theta_a}[\operatorname{ReLU}(s)] = \mathbf{1}[s > 0]\,\partial_{\theta_a}[s]",
                       _either_way(_relu_derivative), functools.cache(_relu_derivative_validity),
                       r"off the kink $s = 0$"))


def _sum_of_terms(before, after):
    """Σ_i (A_i + B_i + …) → Σ_i A_i + Σ_i B_i + …"""
    if not (isinstance(before, Sum) and isinstance(before.body, Add)):
        return "not a sum of a sum of terms"
    expected = Add(tuple(Sum(before.index, before.size, t) for t in before.body.terms))
    return None if after == expected else "the result is not the sum of the sums"


def _sum_of_terms_validity() -> Verdict:
    i, m = sp.Symbol("i", integer=True), sp.Symbol("m", integer=True, nonnegative=True)
    families_ = [sp.IndexedBase(name) for name in "abcd"]
    for count in (2, 3, 4):
        parts = families_[:count]
        if not by_induction(lambda top, parts=parts: (sp.Sum(sp.Add(*[p[i] for p in parts]), (i, 1, top)),
                                                      sp.Add(*[sp.Sum(p[i], (i, 1, top)) for p in parts])), i, m):
            return Verdict(Status.UNDECIDED, "sum of terms", reason=f"induction fails for {count} terms")
    a = sp.symbols("a1:4", real=True)
    b = sp.symbols("b1:4", real=True)
    # the instance as written: (a_1 + b_1) + ... against (a_1 + ...) + (b_1 + ...), kept unevaluated
    instance = check_identity(sp.Add(*[sp.Add(x, y, evaluate=False) for x, y in zip(a, b)], evaluate=False),
                              sp.Add(sp.Add(*a, evaluate=False), sp.Add(*b, evaluate=False), evaluate=False))
    return conjunction([instance], label="sum_i (a_i + b_i + ...) = sum_i a_i + sum_i b_i + ..., every bound m", evidence=[
        "induction on the bound m for 2, 3 and 4 terms (more terms: the 2-term case repeatedly)",
        "check_identity at m = 3"])


def _indicator_derivative(before, after):
    """∂_a[1[s > 0]] → 0 off the kink: the indicator is constant on each open sign region."""
    if not (isinstance(before, Deriv) and isinstance(before.body, Indicator)):
        return "not the derivative of an indicator"
    return None if after == Const(sp.S.Zero) else "the result is not 0"


def _indicator_derivative_validity() -> Verdict:
    u = sp.Symbol("u", real=True)
    # on each open sign region the indicator is the constant 0 or 1: its derivative, unevaluated, against 0
    regions = [check_identity(sp.Derivative(sp.Integer(value), u), sp.S.Zero) for value in (0, 1)]
    return conjunction(regions, label="d/du 1[s(u) > 0] = 0 off the kink", evidence=(
        "on each open sign region of s the indicator is the constant 0 or 1",))


SUM_OF_TERMS = axiom(Rule("sum of terms", r"\sum_{i=1}^{m} (A_i + B_i) = \sum_{i=1}^{m} A_i + \sum_{i=1}^{m} B_i",
                    _either_way(_sum_of_terms), functools.cache(_sum_of_terms_validity),
                    r"for every bound $m$, with any number of terms"))
INDICATOR_DERIVATIVE = axiom(Rule("indicator derivative", r"\partial_{\theta_a}\bigl[\mathbf{1}[s > 0]\bigr] = 0",
                            _either_way(_indicator_derivative), functools.cache(_indicator_derivative_validity),
                            r"off the kink $s = 0$"))


# --- two finite sums in the other order, and a sum's index renamed ------------------------------------

def _mentions(text: str, name: str) -> bool:
    """Whether the size or layer text names the index ``name`` (h_{j} names j)."""
    return re.search(r"(?<![A-Za-z0-9_\\])%s(?![A-Za-z0-9_])" % re.escape(name), text) is not None


def _ranges_of_permutations(index: str) -> list:
    """The ranges m of the permutations π_m(·) in an index, nested ones included (π_{h_{l}}(j) has h_{l})."""
    found = permutation_of(index)
    return [] if found is None else [found[0], *_ranges_of_permutations(found[1])]


def _sizes_of(term) -> list:
    """The sizes of the sums and spectral norms inside the term, the last layers of its sums and
    products over the layers, the layers of its families, and the ranges of its permuted indices (in
    entries, in the coordinates of derivatives and evaluations, and in the index symbols of scalars)."""
    own = [term.size] if isinstance(term, Sum) else [size for _, size in term.ranges] if isinstance(term, SpectralNorm) \
        else [term.last] if isinstance(term, OVER_LAYERS) else []
    entries = [term] if isinstance(term, Entry) else [term.coordinate] if isinstance(term, Deriv) \
        else list(term.partials) if isinstance(term, Eval) else []
    for entry in entries:
        own += re.findall(r"\(([^()]*)\)", entry.family) + [r for i in entry.indices for r in _ranges_of_permutations(i)]
    if isinstance(term, Const):
        own += [r for symbol in term.expr.free_symbols for r in _ranges_of_permutations(str(symbol))]
    return own + [s for c in children(term) for s in _sizes_of(c)]


def _sum_interchange(before, after):
    """Σ_{i=1}^{m} Σ_{j=1}^{n} F → Σ_{j=1}^{n} Σ_{i=1}^{m} F, i ≠ j and neither bound naming i or j."""
    if not (isinstance(before, Sum) and isinstance(before.body, Sum)):
        return "not a sum of a sum"
    outer, inner = before, before.body
    if outer.index == inner.index:
        return "the two sums bind the same index"
    if any(_mentions(size, index) for size in (outer.size, inner.size) for index in (outer.index, inner.index)):
        return "a bound depends on a summation index"
    if after != Sum(inner.index, inner.size, Sum(outer.index, outer.size, inner.body)):
        return "the result is not the two sums in the other order"
    return None


@functools.cache
def _sum_interchange_validity() -> Verdict:
    """Σ_{i≤m} Σ_{j≤n} F_ij = Σ_{j≤n} Σ_{i≤m} F_ij for every m, n: by induction on m, the step adds
    Σ_j F_{m+1,j} on the left and, inside Σ_j, F_{m+1,j} on the right, which the sum of terms takes
    out as the same Σ_j F_{m+1,j} (that rule's own validity is a premise); exactly on generic
    indeterminates F_ij for m, n ≤ 3; and the test of a use on a right and three wrong instances."""
    instances = []
    for m, n in itertools.product((1, 2, 3), repeat=2):
        F = sp.Matrix(m, n, lambda i, j: sp.Symbol(f"F{i}{j}", real=True))
        instances.append(check_identity(sum(sum(F[i, j] for j in range(n)) for i in range(m)),
                                        sum(sum(F[i, j] for i in range(m)) for j in range(n)),
                                        claim=f"interchange, m = {m}, n = {n}"))
    body = Mul((Entry("Q", ("i", "r")), Const(sp.IndexedBase("A")[sp.Symbol("r", integer=True), sp.Symbol("m", integer=True)])))
    tests = [_sum_interchange(Sum("i", "d", Sum("r", "k", body)), Sum("r", "k", Sum("i", "d", body))) is None,
             _sum_interchange(Sum("i", "d", Sum("r", "k", body)), Sum("r", "d", Sum("i", "k", body))) is not None,
             _sum_interchange(Sum("i", "d", Sum("r", "h_{i}", body)), Sum("r", "h_{i}", Sum("i", "d", body))) is not None,
             _sum_interchange(Sum("i", "d", Sum("i", "k", body)), Sum("i", "k", Sum("i", "d", body))) is not None]
    if not all(tests):
        return Verdict(Status.UNDECIDED, "interchange of finite sums", reason="the test of a use misjudges a known case")
    return conjunction([_sum_of_terms_validity(), *instances], label="sum_i sum_j F_ij = sum_j sum_i F_ij, every m and n", evidence=(
        "induction on m: the step's new terms are taken out of the sum over j by the sum of terms",
        "check_identity at every m, n <= 3 on generic indeterminates",
        "the test accepts the sums swapped with their bounds, and refuses the bounds swapped, a bound that "
        "names the other index and two sums binding one index"))


def _bound_renaming(before, after):
    """Σ_{j=1}^{m} F(j) → Σ_{l=1}^{m} F(l): every free j of the summand replaced by l, l free nowhere in
    the sum, bound nowhere inside the summand (it would be captured), and named by no size or layer."""
    if not (isinstance(before, Sum) and isinstance(after, Sum) and before.size == after.size):
        return "not two sums with the same bound"
    old, new = before.index, after.index
    if old == new:
        return "the index is not renamed"
    if new in free_indices(before):
        return f"{new} is free in the sum: renaming into it would capture it"
    if new in bound_indices(before.body):
        return f"{new} is bound inside the summand: the renamed index would be captured"
    if any(_mentions(text, name) for text in _sizes_of(before.body) for name in (old, new)):
        return "a size or a layer inside the summand names the index"
    if substitute_index(before.body, old, new) != after.body:
        return f"the summand is not the other's with {old} replaced by {new}"
    if free_indices(after) != free_indices(before):
        return "the renaming changes what the sum depends on"
    return None


@functools.cache
def _bound_renaming_validity() -> Verdict:
    """A finite sum does not depend on the name of its index (Σ_{j=1}^{m} F(j) is F(1) + … + F(m)
    whatever the letter): the renaming checked on instances at m ≤ 3 by expanding both sides, and the
    test of a use on a right instance and on the wrong ones (a free name captured, a name bound
    inside, a summand changed)."""
    j, l = "j", "l"
    body = Mul((Entry("W", ("i", j)), Entry("v", (j,))))
    renamed = Mul((Entry("W", ("i", l)), Entry("v", (l,))))
    instances = [check_identity(expand(Sum(j, "h", body), {"h": m}, {"i": 1}), expand(Sum(l, "h", renamed), {"h": m}, {"i": 1}),
                                claim=f"renaming, m = {m}") for m in (1, 2, 3)]
    captured = Mul((Entry("W", ("i", j)), Entry("v", (l,))))
    tests = [_bound_renaming(Sum(j, "h", body), Sum(l, "h", renamed)) is None,
             _bound_renaming(Sum(j, "h", captured), Sum(l, "h", substitute_index(captured, j, l))) is not None,
             _bound_renaming(Sum(j, "h", Mul((body, Sum(l, "d", Entry("x", ("n", l)))))),
                             Sum(l, "h", Mul((renamed, Sum(l, "d", Entry("x", ("n", l))))))) is not None,
             _bound_renaming(Sum(j, "h", body), Sum(l, "h", Mul((Entry("W", ("i", l)), Entry("v", (j,)))))) is not None,
             _bound_renaming(Sum(j, "h", body), Sum(l, "d", renamed)) is not None]
    if not all(tests):
        return Verdict(Status.UNDECIDED, "renaming a summation index", reason="the test of a use misjudges a known case")
    return conjunction(instances, label="sum_j F(j) = sum_l F(l), l fresh", evidence=(
        "a finite sum is F(1) + ... + F(m), whatever the name of its index: expanded exactly at m = 1, 2, 3",
        "the test accepts a fresh name and refuses a name free in the sum, a name bound in the summand, "
        "a changed summand and another bound"))


SUM_INTERCHANGE = axiom(Rule("interchange of sums", r"\sum_{i=1}^{m} \sum_{j=1}^{n} F_{ij} = \sum_{j=1}^{n} \sum_{i=1}^{m} F_{ij}",
                             _either_way(_sum_interchange), _sum_interchange_validity,
                             r"for every $m, n$, $i \ne j$ and bounds that name neither index"))
BOUND_RENAMING = axiom(Rule("renaming a summation index", r"\sum_{j=1}^{m} F(j) = \sum_{l=1}^{m} F(l)",
                            _either_way(_bound_renaming), _bound_renaming_validity,
                            r"for $l$ free nowhere in the sum and bound nowhere in its summand"))
