"""Negative controls for the side conditions of the rewrite rules, the combinators and the rigorous
numerics: for each side condition, the step (or the call) it exists to refuse, built through the public
API, is refused, and the refusal names that condition.  Each is written so that the condition under
test is the only one the step breaks: with it removed the step would be accepted (the mutants of
``benchmarks/mutation.py`` that remove each one check this).  Where a wrong step would be true at some
values, the docstring says where it fails."""
from fractions import Fraction

import flint
import pytest
import sympy as sp

from proofs import all_sizes
from symbolic.trusted.axioms import index_rules as rules
from symbolic.trusted.axioms import norm_rules
from symbolic.every_size.change_of_variables import change_of_variables
from symbolic.logic.terms import (
    Activation,
    Add,
    Const,
    Deriv,
    Entry,
    Eval,
    Fn,
    Function,
    Indicator,
    LayerProduct,
    Mul,
    Relu,
    SpectralNorm,
    Sum,
    Transformation,
    permuted,
)
from symbolic.every_size.laws import loss_chain
from symbolic.every_size.networks import LOSS_FUNCTION, T_ALPHA, C, in_loss, prediction
from symbolic.kernel import by_oracle
from symbolic.kernel.derivations import Chain, prove
from symbolic.networks.rescaling import ALPHA
from symbolic.numerics.enclosure import Region, enclose_maximum
from symbolic.numerics.enclosure_oracle import maximum_statement
from symbolic.numerics.interval import ScaledSet, maximize
from symbolic.networks.log_scale_jacobian import certified_rank
from symbolic.kernel.verdict import Status
from symbolic.trusted.oracles.numerics import INTERVAL_ENCLOSURE

W, V, S = Entry("W", ("i", "j")), Entry("v", ("j",)), Entry("s", ())
REAL = sp.Symbol("r", real=True)              # a real scalar: its sign is unknown
J, L = sp.Symbol("j", integer=True), sp.Symbol("l", integer=True)


def const(value) -> Const:
    return Const(sp.sympify(value))


def refused(rule, before, after, words: str):
    """The one-step chain before = after by ``rule`` is refused, and the rule's own test of the step
    gives the reason ``words`` (the chain reports the first rewritten subterm's reason, which may be
    a subterm's)."""
    verdict = Chain("a step its side condition refuses", before).then(rule, after).check()
    # refused at the step, or already for a term that divides by a scalar which may be 0
    assert verdict.status is Status.UNDECIDED and ("refused" in verdict.reason or "which may be 0" in verdict.reason), \
        verdict.reason
    reason = rule.justify(before, after)
    assert reason is not None and words in reason, reason
    return verdict


def accepted(rule, before, after):
    """The positive control beside a refusal: the right step is a kernel theorem."""
    verdict = Chain("the right step", before).then(rule, after).check()
    assert verdict.status is Status.PROVED and verdict.rests_on, verdict.reason
    return verdict


# --- the rules on scalars inside terms ----------------------------------------------------------------

def test_a_factor_that_depends_on_the_summation_index_stays_in_the_sum():
    """sum_j c_j W_ij = c_j sum_j W_ij is false (the right side's c_j is another j)."""
    c_j = Const(C[J])
    refused(rules.SUM_FACTOR, Sum("j", "h", Mul((c_j, W))), Mul((c_j, Sum("j", "h", W))), "summation index j")
    accepted(rules.SUM_FACTOR, Sum("i", "d", Mul((c_j, W))), Mul((c_j, Sum("i", "d", W))))


@pytest.mark.parametrize("factor", [-2, REAL])
def test_relu_homogeneity_needs_a_positive_factor(factor):
    """ReLU(-2 s) = -2 ReLU(s) fails at s = 1 (0 against -2)."""
    refused(rules.HOMOGENEITY, Relu(Mul((const(factor), S))), Mul((const(factor), Relu(S))), "positive scalar")


@pytest.mark.parametrize("kind, slope, factor", [("leaky", sp.Rational(1, 5), -2), ("abs", None, -1),
                                                 ("abs", None, REAL), ("leaky", sp.Rational(1, 5), REAL)])
def test_activation_homogeneity_needs_a_positive_factor(kind, slope, factor):
    """|-s| = -|s| fails at s = 1; LReLU(-2 s) = -2 LReLU(s) fails at s = 1 (2/5 against -2)."""
    before = Activation(kind, slope, Mul((const(factor), S)))
    refused(rules.ACTIVATION_HOMOGENEITY, before, Mul((const(factor), Activation(kind, slope, S))), "positive scalar")


def test_activation_homogeneity_takes_out_a_positive_factor():
    for kind, slope in (("leaky", sp.Rational(1, 5)), ("abs", None)):
        accepted(rules.ACTIVATION_HOMOGENEITY, Activation(kind, slope, Mul((const(3), S))),
                 Mul((const(3), Activation(kind, slope, S))))


def test_the_absolute_value_drops_only_a_sign():
    """|s/2| = |s| fails at s = 2."""
    refused(rules.ABSOLUTE_VALUE_OF_A_SIGN, Activation("abs", None, Mul((const(sp.Rational(1, 2)), S))),
            Activation("abs", None, S), "square is 1")


def test_the_indicator_drops_only_a_positive_factor():
    """1[-s > 0] = 1[s > 0] fails at s = 1."""
    refused(rules.INDICATOR_HOMOGENEITY, Indicator(Mul((const(-1), S))), Indicator(S), "positive scalar")


def _root(name, k, m):
    return Fn(name, (Mul((const(k), S)),)), Mul((m if not isinstance(m, (int, sp.Expr)) else const(m), Fn(name, (S,))))


@pytest.mark.parametrize("name, k, m, words", [
    (rules.SQUARE_ROOT, 4, -2, "not k^(1/2)"),                  # sqrt(4 s) = -2 sqrt(s): the negative root
    (rules.SQUARE_ROOT, 4, 4, "not k^(1/2)"),                   # sqrt(4 s) = 4 sqrt(s): k itself
    (rules.RECIPROCAL_ROOT, 4, 2, "not k^(-1/2)"),              # 1/sqrt(4 s) = 2/sqrt(s): the wrong exponent
    (rules.RECIPROCAL_ROOT, 4, -sp.Rational(1, 2), "not k^(-1/2)"),
    (rules.SQUARE_ROOT, -4, 2, "positive scalar"),              # sqrt(-4 s) is not 2 sqrt(s)
    (rules.SQUARE_ROOT, 4, Entry("u", ()), "not a scalar"),
])
def test_root_homogeneity_takes_out_the_positive_root_of_a_positive_factor(name, k, m, words):
    refused(rules.ROOT_HOMOGENEITY, *_root(name, k, m), words)


def test_root_homogeneity_takes_out_k_to_the_power_p():
    accepted(rules.ROOT_HOMOGENEITY, *_root(rules.SQUARE_ROOT, 4, 2))
    accepted(rules.ROOT_HOMOGENEITY, *_root(rules.RECIPROCAL_ROOT, 4, sp.Rational(1, 2)))


def test_arithmetic_divides_only_by_a_scalar_known_to_be_non_zero():
    """r (1/r) s = s fails at r = 0, where the left side is undefined."""
    refused(rules.ARITHMETIC, Mul((Const(REAL), Const(1 / REAL), S)), S, "not known to be non-zero")
    refused(rules.ARITHMETIC, Add((S, S)), Mul((S, S)), "not an identity")


# --- the derivative rules -----------------------------------------------------------------------------

def test_the_chain_rule_takes_the_scale_read_from_the_map_and_not_its_negative():
    """d/dW_ij [g(T_alpha theta)] = alpha (d_W_ij g)(T_alpha theta): -alpha, 1/alpha, alpha^2 are refused,
    and a coordinate the map does not send to a multiple of the one differentiated."""
    before = Deriv(W, Eval(LOSS_FUNCTION, (), T_ALPHA))
    partial = Eval(LOSS_FUNCTION, (W,), T_ALPHA)
    for wrong in (-ALPHA, 1 / ALPHA, ALPHA ** 2, sp.S.One):
        refused(rules.CHAIN_RULE, before, Mul((Const(wrong), partial)), "the factor is not t_a")
    refused(rules.CHAIN_RULE, Deriv(V, Eval(LOSS_FUNCTION, (), T_ALPHA)), Mul((Const(ALPHA), partial)),
            "to a multiple of v")
    # a map of W alone: no other image reads v, and d/dv_j [g(T theta)] is (d_v_j g)(T theta), not alpha (d_W g)
    only_w = Transformation("T_W", ((W, Mul((Const(ALPHA), W))),))
    refused(rules.CHAIN_RULE, Deriv(V, Eval(LOSS_FUNCTION, (), only_w)),
            Mul((Const(ALPHA), Eval(LOSS_FUNCTION, (W,), only_w))), "to a multiple of v")
    accepted(rules.CHAIN_RULE, before, Mul((Const(ALPHA), partial)))


def test_the_constant_factor_rule_takes_out_only_a_scalar():
    """d/dW_ij [W_ij v_j] = W_ij d/dW_ij [v_j] = 0 is false (it is v_j)."""
    refused(rules.CONSTANT_FACTOR, Deriv(W, Mul((W, V))), Mul((W, Deriv(W, V))), "not a scalar")
    accepted(rules.CONSTANT_FACTOR, Deriv(W, Mul((Const(ALPHA), V))), Mul((Const(ALPHA), Deriv(W, V))))


def test_the_derivative_of_a_sum_over_the_coordinates_own_index_stays_outside():
    """d/dW_ij [sum_i W_ij] = 1, but sum_i d/dW_ij [W_ij] reads the bound i as the coordinate's: it is
    sum_i delta_ii delta_jj = d (for the first step it is a capture of the free i)."""
    refused(rules.DERIVATIVE_OF_SUM, Deriv(W, Sum("i", "d", W)), Sum("i", "d", Deriv(W, W)),
            "index of the coordinate")
    accepted(rules.DERIVATIVE_OF_SUM, Deriv(W, Sum("k", "d", W)), Sum("k", "d", Deriv(W, W)))


def test_a_term_of_the_coordinates_own_family_is_no_constant():
    refused(rules.CONSTANT_TERM, Deriv(W, Mul((W, V))), Const(sp.S.Zero), "may depend on")


def test_the_coordinate_derivative_is_a_delta_only_within_one_family():
    """du_l/dv_j = 0, not delta_lj (two families of one arity)."""
    refused(rules.COORDINATE, Deriv(V, Entry("u", ("l",))), Const(sp.KroneckerDelta(L, J)), "coordinate's family")
    accepted(rules.COORDINATE, Deriv(V, Entry("v", ("l",))), Const(sp.KroneckerDelta(L, J)))


# --- sums, products over the layers, contraction ------------------------------------------------------

def test_reindexing_refuses_a_scalar_in_the_permuted_index():
    """sum_j c_j W_(i, pi(j)) = sum_j c_j W_ij is false: the scalars are not permuted with the entries."""
    moved = permuted("h", "j")
    c_j = Const(C[J])
    refused(rules.REINDEXING, Sum("j", "h", Mul((c_j, Entry("W", ("i", moved))))), Sum("j", "h", Mul((c_j, W))),
            "a scalar depends on j")


def test_the_last_factor_of_a_product_needs_a_last_layer_of_at_least_one():
    """k may be 0: prod_(p<=0) X_p is the empty product 1, and the right side reads a layer 0 that has no factor
    (the rule's own statement is for m >= 1, or m = k + c with c >= 1)."""
    def X(p):
        return Entry(r"\theta^{(" + p + ")}", ())
    refused(rules.LAST_FACTOR, LayerProduct("p", "k", X("p")), Mul((LayerProduct("p", "k-1", X("p")), X("k"))),
            "not known to be at least 1")
    accepted(rules.LAST_FACTOR, LayerProduct("p", "k+1", X("p")), Mul((LayerProduct("p", "k", X("p")), X("k+1"))))


def test_a_delta_contracts_only_onto_an_index_of_the_sums_range_that_no_sum_captures():
    """sum_(j<=d) delta_jl v_j = v_l fails for l in d+1..h; sum_(j<=h) delta_jl sum_(l<=d) W_jl would put
    the bound l where the free one was."""
    contraction = rules.delta_contraction({"l": "h"})
    delta = Const(sp.KroneckerDelta(J, L))
    refused(contraction, Sum("j", "d", Mul((delta, V))), Entry("v", ("l",)), "does not run over 1..d")
    refused(contraction, Sum("j", "h", Mul((delta, Sum("l", "d", Entry("W", ("j", "l")))))),
            Sum("l", "d", Entry("W", ("l", "l"))), "captured")
    accepted(contraction, Sum("j", "h", Mul((delta, V))), Entry("v", ("l",)))


def test_two_sums_of_one_index_are_not_interchanged():
    """sum_(i<=d) sum_(i<=k) F_i = d sum_(i<=k) F_i, not k sum_(i<=d) F_i."""
    F = Entry("F", ("i",))
    refused(rules.SUM_INTERCHANGE, Sum("i", "d", Sum("i", "k", F)), Sum("i", "k", Sum("i", "d", F)), "same index")
    refused(rules.SUM_INTERCHANGE, Sum("i", "d", Sum("j", "h_{i}", W)), Sum("j", "h_{i}", Sum("i", "d", W)),
            "depends on a summation index")


def test_a_summation_index_is_renamed_only_into_a_fresh_name():
    """sum_j W_ij v_l renamed into l reads v_l as v_j; a size h_j or h_l inside names the index; a name bound
    inside the summand captures the renamed index."""
    refused(rules.BOUND_RENAMING, Sum("j", "h", Mul((W, Entry("v", ("l",))))),
            Sum("l", "h", Mul((Entry("W", ("i", "l")), Entry("v", ("l",))))), "free in the sum")
    refused(rules.BOUND_RENAMING, Sum("j", "h", Sum("i", "h_{j}", W)),
            Sum("l", "h", Sum("i", "h_{l}", Entry("W", ("i", "l")))), "names the index")
    # a size h_l naming the new name: renaming j into l binds the l of h_l (free before, bound after)
    refused(rules.BOUND_RENAMING, Sum("j", "h", Sum("i", "h_{l}", W)),
            Sum("l", "h", Sum("i", "h_{l}", Entry("W", ("i", "l")))), "names the index")
    # sum_j sum_l W_jl renamed into l: the inner sum would capture the outer index (h sum_l W_ll)
    refused(rules.BOUND_RENAMING, Sum("j", "h", Sum("l", "d", Entry("W", ("j", "l")))),
            Sum("l", "h", Sum("l", "d", Entry("W", ("l", "l")))), "bound inside")


# --- the spectral-norm rules ----------------------------------------------------------------------------

def _norm(body):
    return SpectralNorm(body, ("a", "d"), ("b", "h"))


def test_the_spectral_norm_rules_refuse_what_their_conditions_exclude():
    A = Entry("W", ("a", "b"))
    a_, b_ = sp.Symbol("a", integer=True), sp.Symbol("b", integer=True)
    e = sp.IndexedBase("e", integer=True)
    refused(norm_rules.SPECTRAL_NORM_HOMOGENEITY, _norm(Mul((const(-2), A))), Mul((const(-2), _norm(A))),
            "positive scalar")
    column_scale = Const(sp.IndexedBase("c", positive=True)[b_])
    refused(norm_rules.SPECTRAL_NORM_HOMOGENEITY, _norm(Mul((column_scale, A))), Mul((column_scale, _norm(A))),
            "bound index")
    refused(norm_rules.SPECTRAL_NORM_OF_A_SIGN, _norm(Mul((const(sp.Rational(1, 2)), A))), _norm(A), "square is 1")
    refused(norm_rules.SPECTRAL_NORM_OF_A_SIGN, _norm(Mul((Const((-1) ** (e[a_] + e[b_])), A))), _norm(A),
            "both bound indices")
    # a scalar of the permuted index: refused (conservatively: the test of a use renames it with the entries)
    moved = sp.Symbol(permuted("h", "b"), integer=True)
    scaled = Mul((Const(sp.IndexedBase("c", positive=True)[moved]), Entry("W", ("a", permuted("h", "b")))))
    refused(norm_rules.SPECTRAL_NORM_OF_A_PERMUTATION, _norm(scaled),
            _norm(Mul((Const(sp.IndexedBase("c", positive=True)[b_]), A))), "a scalar depends on b")
    accepted(norm_rules.SPECTRAL_NORM_HOMOGENEITY, _norm(Mul((const(2), A))), Mul((const(2), _norm(A))))
    accepted(norm_rules.SPECTRAL_NORM_OF_A_SIGN, _norm(Mul((Const((-1) ** e[b_]), A))), _norm(A))
    accepted(norm_rules.SPECTRAL_NORM_OF_A_PERMUTATION, _norm(Entry("W", ("a", permuted("h", "b")))), _norm(A))


# --- the change of variables --------------------------------------------------------------------------

def _sign_flip():
    from proofs import measures_all_sizes as every
    return every.EVERY_SIZE["sign_flip"], every._is_weight


def test_the_change_of_variables_takes_a_signs_evenness_law_at_minus_u():
    """Under a sign flip the scale rule must be even, s(-u) = s(u): s(u) = u + |u| (zero on the negative
    half line) is not, so a sign-flipped coordinate's perturbation set moves (at u = 1, s = 2; at u = -1,
    s = 0: the coordinate is held fixed at T theta but not at theta)."""
    group, is_weight = _sign_flip()
    refused = change_of_variables("M(T theta) = M(theta)", group.theorem, group.function, group.T,
                                  lambda u, weight: u + sp.Abs(u), is_weight)
    assert refused.status is Status.UNDECIDED and "s(-u) = s(u)" in refused.reason, refused.reason
    assert "not covariant" in refused.reason
    # an odd scale is refused alike; an even one is proved
    odd = change_of_variables("odd", group.theorem, group.function, group.T, lambda u, weight: u, is_weight)
    assert odd.status is Status.UNDECIDED and "s(-u) = s(u)" in odd.reason
    even = change_of_variables("even", group.theorem, group.function, group.T, lambda u, weight: sp.Abs(u),
                               is_weight)
    assert even.status is Status.PROVED and even.rests_on


def test_the_change_of_variables_refuses_a_loss_that_reads_a_family_the_map_leaves_alone():
    """L(theta) = (1/N) sum_n l(f_theta(x_n), y_n) + U, U a quantity the map neither maps nor evaluates
    at T theta (a hidden layer's output, a defined name): T_alpha applied to the term leaves U alone, so
    the kernel's theorem T_alpha(L) = L says nothing of L(T_alpha theta), which reads U at T_alpha theta."""
    U = Entry("U", ())
    chain = loss_chain(all_sizes.theorem1_chain(), "T_alpha(L) = L").lifted(lambda term: Add((term, U)))
    function = Function("L", Add((in_loss(prediction()), U)))
    verdict, theorem = prove(chain)
    assert verdict.status is Status.PROVED and theorem.lhs == T_ALPHA.apply(function.body)
    refused = change_of_variables("M(T theta) = M(theta)", theorem, function, T_ALPHA,
                                  lambda u, weight: sp.Abs(u), lambda family: True)
    assert refused.status is Status.UNDECIDED and "not a kernel theorem" in refused.reason, refused.reason
    # the same loss without U: proved
    good = change_of_variables("M(T theta) = M(theta)", all_sizes.theorem1_loss()[1], LOSS_FUNCTION, T_ALPHA,
                               lambda u, weight: sp.Abs(u), lambda family: True)
    assert good.status is Status.PROVED


# --- the rigorous numerics: a budget that runs out, a pivot ball that holds 0 --------------------------

X_, Y_ = sp.symbols("x y", real=True)
BUMP = X_ * Y_ - X_ ** 2                      # max over the ball below: about 0.3121949770


def _grid_maximum(region: Region, steps: int = 48) -> Fraction:
    """The largest exact value of BUMP at the grid points of the region's bounding box that lie in it:
    a lower bound on the maximum that no arithmetic of the enclosure computed."""
    (x0, x1), (y0, y1) = region.bounding_box()
    best = None
    for a in range(steps + 1):
        for b in range(steps + 1):
            point = (x0 + (x1 - x0) * Fraction(a, steps), y0 + (y1 - y0) * Fraction(b, steps))
            if region.contains(point):
                value = point[0] * point[1] - point[0] ** 2
                best = value if best is None or value > best else best
    return best


def test_an_enclosure_whose_box_budget_runs_out_still_bounds_the_maximum_from_above():
    """Every budget, from the first box on: the upper end reported is at or above the exact values at
    the points of the set (a budget that runs out leaves boxes that still cover the set), and the
    bracket is reported as not converged."""
    region = Region.ball((Fraction(1, 3), Fraction(-1, 2)), Fraction(1))
    floor = _grid_maximum(region)
    for budget in (1, 2, 3, 5, 8, 13, 40):
        enclosure = enclose_maximum(BUMP, [X_, Y_], region, max_boxes=budget)
        assert enclosure.upper >= floor and enclosure.lower <= floor + Fraction(1, 100), budget
        assert not enclosure.converged, budget
    scaled = ScaledSet([Fraction(1, 3), Fraction(-1, 2)], [Fraction(1), Fraction(1, 2)], Fraction(1), 2)
    floor = _grid_maximum(Region.ball((Fraction(1, 3), Fraction(-1, 2)), Fraction(1),
                                      scales=(Fraction(1), Fraction(1, 2))))
    for budget in (1, 2, 5, 13, 40):
        assert maximize(BUMP, [X_, Y_], scaled, budget=budget).upper >= floor, budget


def test_a_true_bound_is_never_refuted_when_the_box_budget_runs_out():
    """max >= (a value attained) holds; with a budget too small to settle it the answer is UNDECIDED, never
    REFUTED by an upper end the boxes left do not certify."""
    region = Region.ball((Fraction(1, 3), Fraction(-1, 2)), Fraction(1))
    attained = _grid_maximum(region)
    for budget in (1, 3, 10, 30):
        verdict = by_oracle(INTERVAL_ENCLOSURE, maximum_statement(BUMP, [X_, Y_], region, ">=", attained),
                            max_boxes=budget)
        assert verdict.status is not Status.REFUTED, (budget, verdict.reason)
    settled = by_oracle(INTERVAL_ENCLOSURE, maximum_statement(BUMP, [X_, Y_], region, ">=", attained))
    assert settled.status is Status.PROVED


def test_a_ball_that_holds_zero_is_never_a_pivot_of_the_certified_rank():
    """A ball around 1/1000 of radius 1 holds 0: it is no pivot, whatever its midpoint, at the first step
    or after an elimination; a ball that excludes 0 is."""
    around_zero = flint.arb(Fraction(1, 1000).__float__(), 1)
    assert 0 in around_zero and around_zero.mid() != 0
    assert certified_rank([[around_zero]]) == (0, False)
    assert certified_rank([[flint.arb(1), 0], [0, around_zero]]) == (1, False)
    # after eliminating with the pivot 1, the second row's entry is 1/2 + 1/1000 - 1/2 = 1/1000 +- 1
    rows = [[flint.arb(1), flint.arb(1)], [flint.arb(1) / 2, flint.arb(1) / 2 + around_zero]]
    assert certified_rank(rows) == (1, False)
    assert certified_rank([[flint.arb(1), 0], [0, flint.arb(1) / 1000]]) == (2, False)


# --- the pencil: two matrices ---------------------------------------------------------------------------

def test_a_pencil_of_one_matrix_is_refused():
    """The congruence of the pencil (H, G) needs the laws of both matrices: H's laws alone say nothing of
    G(T theta), so the generalized eigenvalues are not shown to stay."""
    from proofs import measures_all_sizes as every
    from symbolic.every_size.congruence import pencil_congruence
    layerwise = every.EVERY_SIZE["layerwise"]
    hessian = ("H", lambda a, b, point: Eval(LOSS_FUNCTION, (a, b), point),
               lambda a, b: every._hessian_law(layerwise, a, b))
    verdict = pencil_congruence("pencil of H alone", T_ALPHA, LOSS_FUNCTION, [hessian])
    assert verdict.status is Status.UNDECIDED and "two matrices" in verdict.reason
