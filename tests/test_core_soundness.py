"""The checking core's preconditions as checked facts: one test per class of failure once found."""
import sympy as sp
import pytest

import symbolic.decision.identity as identity
from proofs.commands import check_command
from symbolic import ReLU, Status, check_identity
from symbolic.decision.assumptions import point_in_ranges, unsupported_fact
from symbolic.decision.regions import examine, farkas_multipliers
from symbolic.decision.smt import Answer
from symbolic.decision.witness import compare_at
from symbolic.kernel import Equation, Holds
from symbolic.logic.statements import NOT_REAL_NAMES

x, y = sp.symbols("x y", real=True)
a = sp.Symbol("a", positive=True)
n = sp.Symbol("n", integer=True)


def assert_refuted_and_reverified(lhs, rhs, decide=check_identity):
    verdict = decide(lhs, rhs)
    assert verdict.status is Status.REFUTED, verdict
    point = {k: v for k, v in verdict.witness.items() if isinstance(k, sp.Symbol)}
    assert point_in_ranges(point)
    assert compare_at(lhs, rhs, point).differ
    return point


# 1. a ReLU argument that is zero only after cancellation is never split on
@pytest.mark.parametrize("other, where", [
    (ReLU(x - 10**6), lambda p: p[x] > 10**6),
    (ReLU(sp.Rational(1, 10000) - x**2), lambda p: abs(p[x]) < sp.Rational(1, 100)),
])
def test_argument_zero_after_cancellation_does_not_hide_a_far_or_thin_region(other, where):
    vanishing = ReLU((x**2 - 1) / (x - 1) - x - 1)
    point = assert_refuted_and_reverified(vanishing + other, 0)
    assert where(point)


def test_removable_singularity_is_outside_the_claim():
    assert check_identity((x**2 - 1) / (x - 1), x + 1).status is Status.PROVED


# 2. assumptions other than sign are honoured, or the answer says why not
def test_integer_symbols_are_decided_over_the_integers():
    assert check_identity(ReLU(n) * ReLU(1 - n), 0).status is Status.PROVED
    point = assert_refuted_and_reverified(ReLU(n) * ReLU(2 - n), 0)
    assert point[n] == 1


def test_parity_is_honoured():
    # relu(k − 1)·relu(3 − k) is non-zero only at k = 2 among the integers
    odd, even = sp.Symbol("k", odd=True), sp.Symbol("m", even=True)
    assert check_identity(ReLU(odd - 1) * ReLU(3 - odd), 0).status is Status.PROVED
    point = assert_refuted_and_reverified(ReLU(even - 1) * ReLU(3 - even), 0)
    assert point[even] == 2


def test_a_fact_the_checker_does_not_honour_gives_undecided():
    p = sp.Symbol("p", prime=True)
    assert unsupported_fact(p) is not None
    verdict = check_identity(ReLU(p - 2), p - 2)
    assert verdict.status is Status.UNDECIDED
    assert "prime" in verdict.reason


# 3. non-linear regions are decided, not sampled
def test_empty_non_linear_region_is_proved_and_a_thin_disk_is_refuted():
    assert check_identity(ReLU(x * y - 1) * ReLU(1 - x**2 - y**2), 0).status is Status.PROVED
    point = assert_refuted_and_reverified(ReLU(sp.Rational(1, 10000) - x**2 - y**2), 0)
    assert point[x]**2 + point[y]**2 < sp.Rational(1, 10000)


# 4. independent kinks and wide max do not blow up
def test_independent_kinks_are_decided_part_by_part():
    xs = sp.symbols("x0:12", real=True)
    verdict = check_identity(sum(ReLU(v) * ReLU(-v) for v in xs), 0)
    assert verdict.status is Status.PROVED
    assert "12 independent parts" in verdict.evidence[0]


def test_wide_max_against_its_decomposition():
    xs = sp.symbols("x0:30", real=True)
    wide = sp.Max(*xs, evaluate=False)
    rest = sp.Max(*xs[1:], evaluate=False)
    assert check_identity(wide, xs[0] + ReLU(rest - xs[0])).status is Status.PROVED
    assert_refuted_and_reverified(wide, xs[1] + ReLU(rest - xs[0]))


# 5. the region oracle: a point must check, "empty" needs a certificate
def test_empty_linear_region_comes_with_checked_farkas_multipliers():
    constraints = [x + 1, x + 3, -x - 2]        # an LP once called this set non-empty
    fact = examine(constraints, [x])
    assert fact.empty is True and "Farkas" in fact.how
    multipliers = farkas_multipliers(constraints, [], [x])
    combination = sp.expand(sum(m * c for m, c in zip(multipliers, constraints)))
    assert all(m >= 0 for m in multipliers) and combination.is_Rational and combination <= 0


def test_non_empty_region_comes_with_a_point_inside():
    fact = examine([x + 3, -x - 2, y - x], [x, y])
    assert fact.empty is False
    assert -3 < fact.point[x] < -2 and fact.point[y] > fact.point[x]


def test_products_of_opposite_linear_forms_are_proved():
    forms = [x - y, 2 * x + y - 1, x + 3 * y, 3 * x - 2 * y + 5, y - 4 * x]
    assert check_identity(sum(ReLU(s) * ReLU(-s) for s in forms), 0).status is Status.PROVED


# the second opinion: disagreement is surfaced, never hidden
def test_a_checked_point_of_the_split_refutes_whatever_a_solver_would_say(monkeypatch):
    # the witness points (here the point between the slab's two kinks) and the split run first;
    # their point is re-verified exactly, and a solver that would answer unsat is not asked (the
    # old order asked it first and reported the contradiction)
    monkeypatch.setattr(identity, "_ask", lambda *args, **kwargs: Answer("unsat"))
    verdict = check_identity(ReLU(x - 10**6) * ReLU(10**6 + 1 - x), 0)
    assert verdict.status is Status.REFUTED
    assert verdict.reason == "a point on a kink separates the two sides" or \
        any("sign split" in line for line in verdict.evidence)
    assert not any("unsat" in line for line in verdict.evidence)


def test_two_solvers_that_disagree_give_undecided_with_both_answers(monkeypatch):
    def answers(module, *args):    # Z3 says unsat, cvc5 gives the point x = 3, which separates
        if module.__name__.endswith("cvc5_smt"):
            return Answer("sat", points=({x: sp.Integer(3)},))
        return Answer("unsat")
    monkeypatch.setattr(identity, "_ask", answers)
    monkeypatch.setattr(identity, "kink_points", lambda *args: [])
    verdict = check_identity(sp.Piecewise((1, sp.Eq(x, 3)), (0, True)), 0)
    assert verdict.status is Status.UNDECIDED
    assert "the solvers disagree" in verdict.reason
    assert "Z3 says" in verdict.reason and "cvc5 gives a model" in verdict.reason


def test_a_solver_that_gives_up_never_makes_a_false_claim_proved(monkeypatch):
    monkeypatch.setattr(identity, "_ask",
                        lambda *args, **kwargs: Answer("unknown", reason="Z3: timeout"))
    verdict = check_identity(ReLU(x - 10**6) * ReLU(10**6 + 1 - x), 0)
    assert verdict.status is not Status.PROVED


def test_an_internal_error_is_undecided_and_marked(monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("broken on purpose")
    monkeypatch.setattr(identity, "independent_parts", broken)
    verdict = check_identity(ReLU(x * y - 1) * ReLU(1 - x**2 - y**2), 0)
    assert verdict.status is Status.UNDECIDED
    assert verdict.details.get("internal_error") and "broken on purpose" in verdict.reason


def test_the_check_command_exits_4_on_an_internal_error(monkeypatch, capsys):
    monkeypatch.setattr(check_command, "check_identity", lambda *args, **kwargs: identity.Verdict(
        Status.UNDECIDED, "c", reason="internal error: boom", details={"internal_error": True}))
    assert check_command.main(["x", "x"]) == 4
    assert "internal error" in capsys.readouterr().err


# 6. bad input is one line and exit 2, whatever its size
@pytest.mark.parametrize("args", [
    ("x", "1", "--timeout", "1e10"),
    ("x", "1", "--timeout", "1e300"),
    ("9" * 19000, "1"),
    ("1e999999999*x", "x"),
    ("x" + "^x" * 300, "1"),
    ("sqrt(-1)", "0"),
    ("max(" + ",".join(f"x{i}" for i in range(1500)) + ")", "x0"),
    ("relu(a*x)", "a*relu(x)", "--positive", "a,b"),
])
def test_bad_input_is_one_line_and_exit_2(cli, args):
    result = cli("check", *args, timeout=120)
    assert result.returncode == 2, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr


def test_refuted_check_prints_both_values_at_the_witness(cli):
    result = cli("check", "relu(n)*relu(2-n)", "0", "--integer", "n")
    assert result.returncode == 1
    assert "n = 1" in result.stdout and "lhs = 1, rhs = 0" in result.stdout


def test_max_of_many_arguments_is_read_quickly(cli):
    names = ",".join(f"x{i}" for i in range(160))
    result = cli("check", f"max({names})", f"max({names})", timeout=120)
    assert result.returncode == 0


# found by red-teaming the core
def test_a_non_negative_symbol_may_be_zero_in_every_region():
    m = sp.Symbol("m", integer=True, nonnegative=True)
    point = assert_refuted_and_reverified(sp.exp(m) + ReLU(1 - 2 * m), sp.exp(m))
    assert point[m] == 0
    t = sp.Symbol("t", nonnegative=True)
    assert_refuted_and_reverified(sp.exp(t) + ReLU(sp.Rational(1, 2) - sp.sign(t)), sp.exp(t))
    z = sp.Symbol("z", zero=True)
    assert_refuted_and_reverified(sp.exp(x) + ReLU(1 - 10**6 * x**2 + z), sp.exp(x))


def _procedure(lhs, rhs):
    """The exact identity test itself, below the kernel (which refuses to print such a claim)."""
    return identity.decide_equation(Equation(lhs, rhs))


def test_two_symbols_with_one_name_stay_two_variables():
    first, second = sp.Symbol("x", real=True), sp.Symbol("x", positive=True)
    gap = (first - second)**2 * ((first - second)**2 - sp.Rational(1, 10**12))
    # the procedure keeps them apart; the kernel refuses a statement that would print them as one
    assert_refuted_and_reverified(ReLU(gap), gap, decide=_procedure)
    verdict = check_identity(ReLU(gap), gap)
    assert verdict.status is Status.UNDECIDED and "would print as something it is not" in verdict.reason


def test_an_exact_test_without_independent_confirmation_is_not_proved(monkeypatch):
    monkeypatch.setattr(identity, "_ask",
                        lambda *args, **kwargs: Answer("unknown", reason="Z3: timeout"))
    # true, and the split shows it; but every point compares 0 with 0 and Z3 gives no answer
    verdict = check_identity(ReLU(x) * ReLU(-x) * y, 0)
    assert verdict.status is Status.UNDECIDED
    assert "independent confirmation" in verdict.reason


def test_high_powers_stay_within_the_budget():
    verdict = check_identity(ReLU(x)**200 + ReLU(-x)**200, x**200, timeout=20)
    assert verdict.status is Status.PROVED


def test_a_domain_that_ties_two_parts_keeps_them_together():
    g = 1 / (1 - sp.sign(x - y)**2)         # defined only where x = y
    verdict = check_identity(ReLU(x) + g, ReLU(y) + g)
    assert verdict.status is not Status.REFUTED


# 15. a second red-team pass: inexact constants, names that shadow, cancellation at every
# precision, facts of functions and complex symbols, huge witness values
def test_a_floating_point_constant_is_not_taken_as_exact():
    eps = sp.Float("1e-30")      # (x + eps)(x + 1) - x^2 - x - eps = eps x, which 53 bits round away
    verdict = check_identity((x + eps) * (x + 1), x**2 + x + eps)
    assert verdict.status is Status.UNDECIDED and "floating-point" in verdict.reason
    assert "floating-point" in check_identity(eps * x, -eps * x).reason


@pytest.mark.parametrize("name", ["e", "pi", "mpf"])
def test_a_symbol_named_like_an_mpmath_name_is_still_the_symbol(name):
    s = sp.Symbol(name, real=True)
    lhs = sp.E + ReLU(s) + ReLU(-s) + sp.Rational(1, 3) * sp.sqrt(s**2 + 1)
    rhs = (sp.exp(sp.Rational(1, 2)) + 1)**2 - 2 * sp.exp(sp.Rational(1, 2)) - 1 + sp.Abs(s) \
        + sp.sqrt(s**2 + 1) / 3
    if name in NOT_REAL_NAMES:
        # a symbol named like a constant of sympy's printer (pi) would print a claim about that
        # constant: the kernel refuses it, and the procedure still reads it as the symbol
        assert "would print as something it is not" in check_identity(lhs, rhs).reason
        assert isinstance(_procedure(lhs, rhs), Holds)
        assert_refuted_and_reverified(lhs + 1, rhs, decide=_procedure)
        return
    assert check_identity(lhs, rhs).status is Status.PROVED
    assert_refuted_and_reverified(lhs + 1, rhs)


def test_a_term_lost_at_both_precisions_is_no_separation():
    # (sqrt(a) + 2^350)(sqrt(a) - 2^350) + 2^700 = a: at 50 and at 100 digits sqrt(a) is lost alike
    big = sp.Integer(2)**350
    lhs, rhs = (sp.sqrt(a) + big) * (sp.sqrt(a) - big) + big**2, a
    assert not compare_at(lhs, rhs, {a: sp.Rational(1052, 9)}).differ
    assert check_identity(lhs, rhs).status is Status.PROVED
    assert_refuted_and_reverified(lhs + sp.Rational(1, 10**6), rhs)


def test_facts_of_a_function_or_a_complex_symbol_are_not_ignored():
    positive_f = sp.Function("f", positive=True)(x)     # f > 0 makes the claim true
    claim = positive_f**3 - positive_f**2 + positive_f + sp.Rational(1, 100)
    verdict = check_identity(ReLU(claim), claim)
    assert verdict.status is Status.UNDECIDED and "positive=True" in verdict.reason
    # also when the two sides are opposite, so that lhs + rhs holds no function at all
    assert "positive=True" in check_identity(positive_f, -positive_f).reason
    real_g = sp.Function("g", real=True)(x)
    assert check_identity(ReLU(real_g) - ReLU(-real_g), real_g).status is Status.PROVED
    z = sp.Symbol("z", complex=True)                    # |z|^2 = z^2 fails at z = i
    assert "complex" in check_identity(sp.Abs(z)**2, z**2).reason


def test_a_witness_value_of_thousands_of_digits_is_printed_by_its_size(capsys):
    assert check_command.main(["(x^64)^64", "0"]) == 1
    out = capsys.readouterr().out
    assert "digits, not shown" in out and "internal error" not in out


@pytest.mark.parametrize("tower", [sp.exp(sp.exp(sp.exp(x))), sp.tanh(sp.exp(sp.exp(sp.exp(x))))])
def test_a_tower_of_exponentials_is_refuted_without_exhausting_memory(tower):
    # at x = 100 the innermost exp is 10^43: a value mpmath would need gigabytes to go on with
    assert not compare_at(tower, tower + 1, {x: sp.Integer(100)}).defined
    assert_refuted_and_reverified(tower, tower + 1)


def test_a_bound_variable_is_outside_the_checker_not_an_internal_error():
    k = sp.Symbol("k", integer=True)
    for lhs in (sp.Sum(k, (k, 1, 3)) + k, sp.Integral(x, (x, 0, 1)) + x):
        verdict = check_identity(lhs, lhs.free_symbols.pop() + 6)
        assert verdict.status is Status.UNDECIDED and "bound variable" in verdict.reason
        assert not verdict.details.get("internal_error")


def test_the_exact_zero_test_takes_no_floating_point_constant():
    from symbolic.decision.zero import is_rational_zero
    eps = sp.Float("1e-30")
    assert sp.expand((x + eps) * (x + 1) - x**2 - x - eps) == 0      # sympy's rounding
    assert not is_rational_zero((x + eps) * (x + 1) - x**2 - x - eps)
