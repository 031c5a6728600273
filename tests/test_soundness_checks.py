"""One test per check of the soundness arguments, on inputs where that check alone decides.

check_identity's redundancy (random points, the sign split, Z3, re-verification) hides a broken
check from the tests that go through the whole pipeline.  Here each check is isolated: by running
one procedure alone (``procedure="split"`` or ``"z3"``), by turning the random points off, by
mocking Z3's answer, or by calling the check itself.  ``benchmarks/mutation.py`` breaks each check
in turn and runs these tests.
"""
import mpmath
import pytest
import sympy as sp
import z3

import symbolic.decision.cases as cases
import symbolic.decision.identity as identity
import symbolic.decision.regions as regions
import symbolic.decision.smt as smt
from symbolic import ReLU, Status, check_identity
from symbolic.decision.assumptions import point_in_ranges, unsupported_fact
from symbolic.decision.fraction_field import is_zero_fraction
from symbolic.decision.regions import examine, inside
from symbolic.decision.smt import Answer, Translation, rational, solve
from symbolic.decision.witness import compare_at, mp_value
from symbolic.decision.zero import is_rational_zero
from symbolic.trusted.axioms.index_rules import ARITHMETIC, CONSTANT_TERM, by_induction
from symbolic.kernel.derivations import Chain
from symbolic.logic.terms import Const, Deriv, Entry
from symbolic.checks import zeros
from symbolic.checks import derivative_identity
from symbolic.numerics.real_network import Residual, witness_answer
from symbolic.kernel.verdict import Holds, Verdict

x, y = sp.symbols("x y", real=True)
a = sp.Symbol("a", positive=True)
c = sp.Symbol("c", nonnegative=True)
b = sp.Symbol("b", negative=True)
n = sp.Symbol("n", integer=True)
odd = sp.Symbol("k", odd=True)

# ReLU(1 − |n|) over the integers: 1 at n = 0, the kink of both ReLUs, and 0 at every other integer
KINK_BUMP = ReLU(1 - ReLU(n) - ReLU(-n))
# a bump of width 1/1000 at x = 3 beside a true identity: random points agree and compare non-zero
# values, and miss the bump
NEEDLE = (ReLU(x) + ReLU(-x) + ReLU(1 - 1000 * ReLU(x - 3) - 1000 * ReLU(3 - x)), sp.Abs(x))


def status(lhs, rhs, procedure="all"):
    return check_identity(lhs, rhs, procedure=procedure).status


@pytest.fixture
def no_random_points(monkeypatch):
    """Step 2 off (random points and kinks): the claim is left to the exact procedures and
    their own witnesses."""
    monkeypatch.setattr(identity, "RANDOM_POINTS", 0)
    monkeypatch.setattr(identity, "kink_points", lambda *args: [])


@pytest.fixture
def models_only(no_random_points, monkeypatch):
    """No random search for a counterexample either: a refutation comes from a model alone."""
    monkeypatch.setattr(identity._Decision, "point_where_nonzero", lambda self, part: None)


@pytest.fixture
def z3_unknown(monkeypatch):
    """Z3 answers unknown (a time-out) to every question."""
    monkeypatch.setattr(z3.Solver, "check", lambda self, *args: z3.unknown)
    monkeypatch.setattr(z3.Solver, "reason_unknown", lambda self: "timeout (mocked)")


# --- the procedure option ------------------------------------------------------------------------

def test_an_unknown_procedure_is_bad_input():
    with pytest.raises(ValueError, match="unknown procedure"):
        check_identity(x, x, procedure="guess")


def test_each_procedure_alone_names_only_its_own_argument():
    split = check_identity(ReLU(a * x) + x, a * ReLU(x) + x, procedure="split")
    solver = check_identity(sp.Abs(x), ReLU(x) + ReLU(-x), procedure="z3")
    assert split.status is Status.PROVED and not any("Z3" in line for line in split.evidence)
    assert solver.status is Status.PROVED and any("Z3 finds the negation unsat" in line
                                                  for line in solver.evidence)
    assert not any("exact zero test" in line or "sign split" in line for line in solver.evidence)


def test_z3_alone_leaves_a_claim_outside_its_fragment_undecided():
    verdict = check_identity(sp.exp(a * x), sp.exp(a * x), procedure="z3")
    assert verdict.status is Status.UNDECIDED and "outside Z3's fragment" in verdict.reason


# --- the sign split: a closed partition, kinks included ---------------------------------------------

@pytest.mark.parametrize("procedure", ["split", "all"])
def test_a_claim_false_exactly_at_a_kink_is_not_proved(procedure):
    assert status(KINK_BUMP + ReLU(n), ReLU(n), procedure) is not Status.PROVED


def test_a_claim_false_exactly_at_a_kink_is_refuted_by_z3():
    assert status(KINK_BUMP + ReLU(n), ReLU(n), "z3") is Status.REFUTED


def test_outside_the_fragment_a_claim_false_exactly_at_a_kink_is_refuted_by_the_split():
    assert status(sp.exp(KINK_BUMP) + ReLU(n), 1 + ReLU(n), "split") is Status.REFUTED


def test_outside_the_fragment_the_split_alone_holds_the_kink(monkeypatch):
    # the kink witnesses off (the random points, which miss the kink, on): the split's own closed
    # regions must see the point where the sides differ
    monkeypatch.setattr(identity, "kink_points", lambda *args: [])
    assert status(sp.exp(KINK_BUMP) + ReLU(n), 1 + ReLU(n), "split") is Status.REFUTED


def test_a_closed_region_holds_its_kink():
    kink = [sp.GreaterThan(-c, 0, evaluate=False)]
    assert examine(kink, [c]).empty is False    # c ≥ 0 and −c ≥ 0: the point c = 0
    assert examine([-c], [c]).empty is True


def test_the_integer_side_s_le_minus_1_is_taken_for_integer_valued_arguments_only():
    # a real argument's negative side is s < 0: s <= -1 would drop the band -1 < s < 0
    assert cases.negative_side(x - 1, closed=True) == 1 - x
    assert cases.negative_side(n / 2, closed=True) == -n / 2
    assert cases.negative_side(n * x, closed=True) == -n * x
    # an integer-valued one: s <= -1, that is -s - 1 >= 0
    for argument in (n - 1, 2 * n**2 - 3 * n, sp.floor(x) + n):
        side = cases.negative_side(argument, closed=True)
        assert isinstance(side, sp.GreaterThan) and sp.expand(side.lhs + argument + 1) == 0


def test_a_linear_region_called_empty_is_dropped_only_with_a_checked_certificate(monkeypatch):
    # Fourier–Motzkin off and Z3 wrongly answering unsat: a non-empty region has no Farkas
    # multipliers, so it is not dropped
    monkeypatch.setattr(regions, "decide_linear", lambda *args, **kwargs: None)
    monkeypatch.setattr(regions, "solve", lambda *args: Answer("unsat"))
    assert examine([x - 1, 3 - x], [x]).empty is None


def test_z3s_sign_and_heaviside_at_zero_are_sympys():
    at_zero = [sp.GreaterThan(x, 0, evaluate=False), sp.GreaterThan(-x, 0, evaluate=False)]
    assert smt.ask(sp.sign(x), sp.S.Zero, [], at_zero, [x], 5).result == "unsat"
    assert smt.ask(sp.Heaviside(x), sp.S.Half, [], at_zero, [x], 5).result == "unsat"
    assert smt.ask(sp.Heaviside(x, 1), sp.S.One, [], at_zero, [x], 5).result == "unsat"
    # and away from 0 they are the signs
    assert smt.ask(sp.sign(x), sp.S.One, [], [x], [x], 5).result == "unsat"


def test_a_solver_that_answers_unknown_proves_nothing(monkeypatch):
    # the kink witnesses off, so the claim (false at x = 1/3 alone) reaches the solvers, and
    # each answers unknown
    monkeypatch.setattr(identity, "kink_points", lambda *args: [])
    monkeypatch.setattr(identity, "_ask", lambda *args: Answer("unknown", reason="mocked"))
    indicator = sp.Piecewise((1, sp.Eq(3 * x, 1)), (0, True))
    assert check_identity(indicator, sp.S.Zero).status is Status.UNDECIDED


def test_the_split_region_of_the_integer_kink_is_not_empty():
    assert examine([n, 1 - n], [n]).empty is True
    closed = [sp.GreaterThan(n, 0, evaluate=False), sp.GreaterThan(1 - n, 0, evaluate=False)]
    assert examine(closed, [n]).empty is False


# --- regions: dropped only with a certificate -----------------------------------------------------

def test_a_region_empty_but_not_linearly_so_is_proved_empty():
    disk_and_hyperbola = ReLU(1 - x**2 - y**2) * ReLU(x * y - 1) + x
    assert status(disk_and_hyperbola, x, "split") is Status.PROVED
    assert examine([1 - x**2 - y**2, x * y - 1], [x, y]).empty is True


def test_a_region_of_unknown_emptiness_is_never_dropped(monkeypatch):
    assert status(*NEEDLE, "split") is Status.REFUTED
    monkeypatch.setattr(regions, "solve", lambda *args: Answer("unknown", reason="mocked"))
    monkeypatch.setattr(regions, "decide_linear", lambda *args, **kwargs: None)
    assert examine([x - 3, 3 - x + sp.Rational(1, 1000)], [x]).empty is None
    assert status(*NEEDLE, "split") is not Status.PROVED


def test_z3s_unsat_on_a_linear_region_needs_its_farkas_certificate(monkeypatch):
    monkeypatch.setattr(regions, "solve", lambda *args: Answer("unsat"))
    assert examine([x - 1, 5 - x], [x]).empty is not True
    assert examine([x - 1, -x], [x]).empty is True     # (x − 1) + (−x) = −1: a certificate


def test_a_non_positive_symbols_bound_has_its_sign():
    assert examine([b], [b]).empty is True
    assert examine([-b], [b]).empty is False


def test_a_region_is_read_by_the_sign_of_its_fraction():
    assert examine([-1 / x], [x]).empty is False
    assert examine([1 / x, -x], [x]).empty is True


def test_a_point_on_the_boundary_is_not_inside_an_open_region():
    assert not inside([x], [x], {x: sp.S.Zero})
    assert inside([sp.GreaterThan(x, 0, evaluate=False)], [x], {x: sp.S.Zero})


@pytest.mark.parametrize("procedure", ["split", "all"])
def test_a_leaf_with_a_denominator_is_not_vacuous(no_random_points, procedure):
    assert status(ReLU(x - 3) / (x**2 + 1), 0, procedure) is Status.REFUTED


# --- the independent confirmation ------------------------------------------------------------------

@pytest.mark.parametrize("procedure", ["all", "split"])
def test_independent_parts_are_grouped_by_shared_symbols(procedure):
    # ReLU(x)² − x·ReLU(x) and the same in y: two parts of two terms each, each part zero on every
    # region of its split, no term constant on its own
    verdict = check_identity(ReLU(x)**2 + ReLU(y)**2, x * ReLU(x) + y * ReLU(y), procedure=procedure)
    assert verdict.status is Status.PROVED
    assert any("2 independent parts" in line for line in verdict.evidence)


def test_a_split_that_compared_nothing_proves_nothing():
    verdict = check_identity(ReLU(x) * ReLU(-x), 0, procedure="split")
    assert verdict.status is Status.UNDECIDED and "compared" in verdict.reason


def test_an_exact_zero_that_compared_nothing_proves_nothing():
    verdict = check_identity(ReLU(x) * ReLU(-x), ReLU(-x) * ReLU(x), procedure="split")
    assert verdict.status is Status.UNDECIDED and "compared" in verdict.reason


def test_z3_alone_needs_a_random_point_beside_it(no_random_points):
    verdict = check_identity(sp.Abs(x), ReLU(x) + ReLU(-x), procedure="z3")
    assert verdict.status is Status.UNDECIDED and "compared" in verdict.reason


@pytest.mark.parametrize("procedure", ["all", "split", "z3"])
def test_constant_parts_must_add_up_to_zero(no_random_points, procedure):
    verdict = check_identity(ReLU(x) - ReLU(-x) + ReLU(y) - ReLU(-y) + 1, x + y, procedure=procedure)
    assert verdict.status is Status.REFUTED


# --- a refutation rests on a re-verified point of the ranges -------------------------------------

def test_a_witness_must_honour_the_ranges_and_separate_the_sides():
    # at a = -1 (a is positive) the sides as written differ, 0 against -1: only the range check
    # keeps this point from refuting a true claim
    decision = identity._Decision(ReLU(a * x), a * ReLU(x), "claim", None)
    assert decision.refuted_at({a: sp.Integer(-1), x: sp.Integer(1)}, "out of range") is None
    decision = identity._Decision(ReLU(x), x, "claim", None)
    assert decision.refuted_at({x: sp.Integer(2)}, "the sides agree here") is None
    assert decision.refuted_at({x: sp.Integer(-2)}, "they differ").status is Status.REFUTED


def test_the_ranges_are_honoured_exactly():
    assert not point_in_ranges({a: sp.S.Zero})
    assert point_in_ranges({c: sp.S.Zero})
    assert not point_in_ranges({odd: sp.Integer(2)})
    assert not point_in_ranges({n: sp.Rational(1, 2)})
    assert not point_in_ranges({sp.Symbol("z", nonzero=True): sp.S.Zero})


def test_a_fact_the_checker_does_not_honour_is_named():
    prime = sp.Symbol("p", prime=True)
    assert unsupported_fact(prime) is not None
    assert status(ReLU(prime - 2), prime - 2) is Status.UNDECIDED


# --- Z3: unsat trusted, unknown never, models re-verified -----------------------------------------

def test_z3_answering_unknown_is_no_answer(z3_unknown):
    translation = Translation.for_expressions([x])
    assert solve(translation, [translation.term(x) > 0], [x], 1).result == "unknown"


@pytest.mark.parametrize("procedure", ["z3", "all"])
def test_a_claim_z3_cannot_answer_is_not_proved_on_its_word(monkeypatch, procedure):
    monkeypatch.setattr(identity, "_ask", lambda *args: Answer("unknown", reason="timeout (mocked)"))
    assert status(*NEEDLE, procedure) is not Status.PROVED


def test_a_claim_is_not_proved_when_every_z3_question_times_out(z3_unknown):
    assert status(*NEEDLE, "z3") is not Status.PROVED
    assert status(*NEEDLE, "all") is not Status.PROVED


def test_an_integer_part_with_a_division_is_not_read_in_integer_arithmetic():
    assert not Translation.for_expressions([n / (n**2 + 1)]).integers
    assert Translation.for_expressions([n**2 + 1]).integers
    # n div (n² + 1) is 0 for n ≥ 0 in integer arithmetic; n/(n² + 1) is not
    verdict = check_identity(ReLU(n / (n**2 + 1)) * ReLU(n - 1000), 0, procedure="z3")
    assert verdict.status is Status.REFUTED and verdict.witness[n] > 1000


def test_a_rational_constant_with_a_large_denominator_keeps_it():
    third = sp.Rational(10**30 + 1, 3 * 10**30)
    assert z3.simplify(rational(third) * 3 * 10**30 == 10**30 + 1) == z3.BoolVal(True)
    # products of sums keep their coefficients apart (sympy would collect 3x/10²⁰ − 3x into one)
    assert not is_zero_fraction((x * sp.Rational(3, 10**20) + y) * (x + 1) - (3 * x + y) * (x + 1))
    assert is_zero_fraction((x * sp.Rational(3, 10**20) + y) * (x + 1) - y * (x + 1)
                            - x * (x + 1) * sp.Rational(3, 10**20))


def test_a_large_denominator_is_refuted_by_z3_alone(models_only):
    assert status(x * sp.Rational(3, 10**20), 3 * x, "z3") is Status.REFUTED


@pytest.mark.parametrize("lhs, rhs", [
    (sp.sign(x) ** 2, 1),                              # false at x = 0 only: sign(0) = 0
    (sp.Heaviside(x), sp.Heaviside(x) ** 2),           # false at x = 0 only: H(0) = 1/2
])
def test_a_discontinuity_is_translated_with_its_value_at_zero(lhs, rhs):
    verdict = check_identity(lhs, rhs, procedure="z3")
    assert verdict.status is Status.REFUTED and verdict.witness[x] == 0


@pytest.mark.parametrize("lhs, rhs", [(ReLU(x), x), (sp.Abs(x), x), (sp.Max(x, y), x), (sp.Min(x, y), y)])
def test_z3_alone_refutes_a_piecewise_claim_with_its_model(models_only, lhs, rhs):
    assert status(lhs, rhs, "z3") is Status.REFUTED


def test_z3_honours_parity_and_sign_facts():
    # true for odd k only; true for b < 0 only (b + x > 0 and −x > 0 then meet nowhere)
    assert status(ReLU(odd - 1) * ReLU(3 - odd) + x, x, "z3") is Status.PROVED
    assert status(ReLU(b + x) * ReLU(-x) + y, y, "z3") is Status.PROVED


def test_z3_alone_refutes_a_claim_false_for_every_negative_b(models_only):
    assert status(ReLU(-b) + y, y, "z3") is Status.REFUTED


def test_a_z3_model_counts_only_where_it_separates_the_part():
    decision = identity._Decision(ReLU(x), x, "claim", None)
    agreeing = Answer("sat", points=({x: sp.Integer(2)},))
    separating = Answer("sat", points=({x: sp.Integer(-2)},))
    assert decision.read_answer("Z3", agreeing, ReLU(x) - x, 0, [x]).outcome == "unknown"
    assert decision.read_answer("Z3", separating, ReLU(x) - x, 0, [x]).outcome == "nonzero"


# --- the witness numerics: a difference within 1e-12 of 0 that is not 0 ---------------------------

def test_a_tiny_stable_difference_separates():
    tiny = sp.Rational(1, 10**13)
    assert compare_at(sp.sqrt(x), sp.sqrt(x) + tiny, {x: sp.Integer(2)}).differ
    assert status(sp.sqrt(a), sp.sqrt(a) + tiny) is Status.REFUTED


def test_a_cancellation_lost_at_both_precisions_is_no_difference():
    big = sp.Integer(2) ** 350
    assert not compare_at((sp.sqrt(x) + big) * (sp.sqrt(x) - big) + big**2, x, {x: sp.Integer(2)}).differ


def test_an_irrational_value_is_not_compared_by_its_form():
    assert status((sp.sqrt(a) + 1) ** 2, a + 2 * sp.sqrt(a) + 1) is not Status.REFUTED


def test_a_value_off_the_reals_is_no_value():
    assert mp_value(sp.sqrt(x), {x: sp.Integer(-4)}, 50) is None


def test_fractions_are_added_over_a_common_denominator():
    assert not is_zero_fraction(1 / (x + 1) + 1 / (x + 2) - 2 / (x + 1))
    assert is_zero_fraction(1 / (x + 1) + 1 / (x + 2) - (2 * x + 3) / ((x + 1) * (x + 2)))


def test_the_exact_zero_test_refuses_rounding():
    assert not is_rational_zero((x + sp.Float("1e-30")) * (x + 1) - x**2 - x - sp.Float("1e-30"))


def residual(low, high, scale=1):
    return Residual(mpmath.mpf(low), mpmath.mpf(high), mpmath.mpf(scale))


def derivative(holds, measured, informative=1):
    """A derivative identity from an exact test that holds (a kernel verdict) or fails at an entry,
    and the witness's answer on a measured residual."""
    exact = zeros("exact", [sp.S.Zero]) if holds else Verdict(Status.UNDECIDED, "exact", details={"fails_at": (0, 0)})
    answer = witness_answer("claim", measured, informative)
    # an agreeing witness stands as a kernel verdict with its details (the oracle's, in a proof)
    agreement = zeros("the witness agrees", [sp.S.Zero], details=answer.details) if isinstance(answer, Holds) else answer
    return derivative_identity("claim", exact, agreement).status


def test_a_derivative_difference_of_1e_13_is_real():
    stable = residual("1e-13", "1e-13")
    assert stable.stable and not stable.noise
    assert derivative(False, stable) is Status.REFUTED
    assert derivative(True, stable) is Status.UNDECIDED
    assert derivative(True, residual("1e-13", "1e-13"), informative=0) is Status.UNDECIDED


def test_rounding_noise_must_fall_with_the_precision():
    assert residual("1e-45", "1e-75").noise
    assert not residual("1e-45", "2e-45").noise
    assert isinstance(witness_answer("claim", residual("1e-45", "1e-75"), 1), Holds)
    assert derivative(True, residual("1e-45", "2e-45")) is Status.UNDECIDED
    assert derivative(True, residual("1e-45", "1e-75")) is Status.PROVED
    assert derivative(False, residual("1e-45", "1e-75")) is Status.UNDECIDED


def test_a_derivative_witness_that_compared_nothing_decides_nothing():
    assert derivative(True, residual("1e-45", "1e-75"), informative=0) is Status.UNDECIDED


# --- the every-size rules: each validity check fails where it must ---------------------------------

def test_an_induction_with_a_false_base_case_fails():
    i, m = sp.Symbol("i", integer=True), sp.Symbol("m", integer=True, nonnegative=True)
    f = sp.IndexedBase("f")
    shifted = lambda top: (sp.Sum(f[i], (i, 1, top)) + 1, sp.Sum(f[i], (i, 1, top)))  # noqa: E731
    assert not by_induction(shifted, i, m)
    # a true base case (both sums empty) and a false step
    assert not by_induction(lambda top: (sp.Sum(2 * f[i], (i, 1, top)), sp.Sum(f[i], (i, 1, top))), i, m)
    assert by_induction(lambda top: (sp.Sum(2 * f[i], (i, 1, top)), 2 * sp.Sum(f[i], (i, 1, top))), i, m)


def test_the_derivative_of_a_constant_is_not_taken_of_the_coordinates_family():
    coordinate = Entry("W", ("k", "l"))
    own, other = Deriv(coordinate, Entry("W", ("i", "j"))), Deriv(coordinate, Entry("v", ("j",)))
    assert CONSTANT_TERM.applies(own, Const(sp.S.Zero)) is not None
    assert CONSTANT_TERM.applies(other, Const(sp.S.Zero)) is None


def test_a_chain_step_needs_its_rules_validity(monkeypatch):
    from symbolic.kernel import derivations
    invalid = type(ARITHMETIC)(ARITHMETIC.name, ARITHMETIC.statement, ARITHMETIC.justify,
                               lambda: Verdict(Status.UNDECIDED, "broken rule", reason="no proof"))
    start, end = Const(a * (a + 1)), Const(a**2 + a)
    assert Chain("valid", start).then(ARITHMETIC, end).check().status is Status.PROVED
    # a rule the kernel did not make is refused before anything else
    verdict = Chain("unknown", start).then(invalid, end).check()
    assert verdict.status is Status.UNDECIDED and "neither an axiom nor a lemma" in verdict.reason
    # admitted as if it were an axiom, only the validity check stands between it and PROVED
    monkeypatch.setitem(derivations._AXIOMS, id(invalid), invalid)
    verdict = Chain("invalid", start).then(invalid, end).check()
    assert verdict.status is Status.UNDECIDED and "not valid" in verdict.reason


def test_a_region_of_unknown_emptiness_is_kept_with_or_without_points_at_hand():
    # exp is outside Z3's fragment: neither region can be examined, so neither may be dropped
    # (its remainder 2 − exp(x) is no zero); a point at hand inside one of them shows it non-empty
    expr = ReLU(sp.exp(x) - 2) - sp.exp(x) + 2
    facts = []
    branches = list(regions.sign_branches(expr, [x], closed=True, facts=facts))
    assert [remainder for _, remainder in branches] == [0, 2 - sp.exp(x)]
    assert [fact.empty for fact in facts] == [None, None]
    hinted = []
    branches = list(regions.sign_branches(expr, [x], closed=True, facts=hinted, hints=[{x: sp.S.Zero}]))
    assert len(branches) == 2 and [fact.empty for fact in hinted] == [None, False]
