"""check_identity on the claims of the issue "decide what the solvers decide, never crash on a true
claim": roots of squares, empty domains, undefined functions, roots in the fragment, witnesses on
kinks and at algebraic points, cvc5 beside Z3, and a fuzz test over the grammar."""
import contextlib
import io
import sys

import pytest
import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from proofs.commands import check_command
from symbolic import Status, check_identity
from symbolic.decision.domain import WrittenDomain
from symbolic.decision.witness import compare_at
from symbolic.parsing import ParseError, parse_expression

x = sp.Symbol("x", real=True)
n = sp.Symbol("n", integer=True)
q = sp.Symbol("q", rational=True)
ell = sp.Function("l")


def claim(lhs: str, rhs: str, **facts):
    symbols: dict = {}
    return parse_expression(lhs, symbols=symbols, **facts), parse_expression(rhs, symbols=symbols)


def verdict_of(lhs, rhs, **kwargs):
    verdict = check_identity(lhs, rhs, **kwargs)
    assert not verdict.details.get("internal_error"), verdict.reason
    return verdict


def assert_refuted_at(lhs, rhs, expected: dict | None = None):
    """REFUTED, at a witness in the domain as written where the ORIGINAL sides differ."""
    verdict = verdict_of(lhs, rhs)
    assert verdict.status is Status.REFUTED, verdict.describe()
    point = {k: v for k, v in verdict.witness.items() if isinstance(k, sp.Symbol)}
    assert WrittenDomain(lhs, rhs).admits(point)
    assert compare_at(lhs, rhs, point).differ
    if expected is not None:
        assert all(sp.simplify(point[k] - v) == 0 for k, v in expected.items()), point
    return verdict


def assert_proved(lhs, rhs, **kwargs):
    verdict = verdict_of(lhs, rhs, **kwargs)
    assert verdict.status is Status.PROVED, verdict.describe()
    return verdict


# --- 1. no internal error on a claim ---------------------------------------------------------------

@pytest.mark.parametrize("lhs, rhs", [("x/sqrt(x^2)", "sign(x)"), ("1/sqrt(x^2)", "1/abs(x)")])
def test_reciprocal_roots_of_squares_are_proved(lhs, rhs):
    verdict = assert_proved(*claim(lhs, rhs))
    # the proof names what it rests on: the exact test, the split or a solver by name
    assert any("exact zero test" in e or "sign split" in e or "unsat" in e for e in verdict.evidence)


def test_a_denominator_that_vanishes_identically_leaves_an_empty_domain():
    verdict = verdict_of(*claim("x/(x - x)", "1"))
    # every claim holds on an empty set: that is no proof of anything, so no PROVED
    assert verdict.status is Status.UNDECIDED
    assert "the domain as written is empty" in verdict.reason


def test_a_domain_empty_without_a_vanishing_denominator_is_said_to_be_empty():
    verdict = verdict_of(*claim("sqrt(-1 - x^2)", "5"))
    assert verdict.status is Status.UNDECIDED and "empty" in verdict.reason
    # the negative control: a domain with points, where the claim is false
    assert_refuted_at(*claim("sqrt(1 - x^2)", "5"))


def test_an_undefined_function_under_a_power_is_decided_through_the_api():
    assert_proved((ell(x) + 1) ** 2, ell(x) ** 2 + 2 * ell(x) + 1)
    assert verdict_of((ell(x) + 1) ** 2, ell(x) ** 2 + 1).status is Status.REFUTED
    assert verdict_of(1 / (ell(x) + 1), 1).status is Status.REFUTED


def test_a_derivative_of_an_undefined_function_is_no_crash():
    third = sp.Derivative(ell(x), (x, 3))
    assert verdict_of(third, third).status is Status.PROVED
    # false for a function of degree 3 or more: the concrete function is of degree 5 here
    assert verdict_of(third, 0).status is Status.REFUTED


@pytest.mark.parametrize("lhs, rhs, code", [
    ("x/sqrt(x^2)", "sign(x)", 0), ("1/sqrt(x^2)", "1/abs(x)", 0), ("x/(x - x)", "1", 3),
    ("sqrt(x^2 - 1) + sqrt(1 - x^2)", "x - 1", 1),
])
def test_the_command_line_exits_with_the_verdict_never_4(lhs, rhs, code):
    with contextlib.redirect_stdout(io.StringIO()):
        assert check_command.main([lhs, rhs]) == code


# --- 2. square roots and rational powers in the fragment -------------------------------------------

@pytest.mark.parametrize("lhs, rhs", [
    ("sqrt(x)*sqrt(x)", "abs(x)"),            # x >= 0 on the domain as written
    ("sqrt(x^2 + 2*x + 1)", "abs(x + 1)"),
    ("sqrt(x*y)", "sqrt(x)*sqrt(y)"),
    ("sqrt(x^2)", "abs(x)"),
])
def test_true_identities_with_roots_on_their_domain_are_proved(lhs, rhs):
    assert_proved(*claim(lhs, rhs))


@pytest.mark.parametrize("lhs, rhs", [
    ("sqrt(x)*sqrt(x)", "x + 1"),
    ("sqrt(x^2 + 2*x + 1)", "x + 1"),         # false for x < -1
    ("sqrt(x*y)", "sqrt(x)*sqrt(y) + 1"),
])
def test_their_negative_controls_are_refuted(lhs, rhs):
    assert_refuted_at(*claim(lhs, rhs))


def test_a_root_whose_domain_is_two_points_is_refuted_at_one_of_them():
    assert_refuted_at(*claim("sqrt(x^2 - 1) + sqrt(1 - x^2)", "x - 1"), {x: -1})
    # and the same claim with the other point: true at x = 1 and x = -1 alike
    assert verdict_of(*claim("sqrt(x^2 - 1) + sqrt(1 - x^2)", "0")).status is not Status.REFUTED


# --- 4. witnesses where they are -------------------------------------------------------------------

def test_a_claim_false_only_at_an_irrational_point_is_refuted_there():
    verdict = assert_refuted_at(sp.sign(x**2 - 2) ** 2, 1)
    assert verdict.witness[x] ** 2 == 2      # ±√2, an exact algebraic number
    assert verdict_of(sp.sign(x**2 + 2) ** 2, 1).status is Status.PROVED   # the control


def test_a_claim_false_only_on_the_kink_is_refuted_there():
    assert_refuted_at(*claim("exp(sign(x)^2)", "exp(1)"), {x: 0})
    assert verdict_of(*claim("exp(sign(x^2 + 1)^2)", "exp(1)")).status is not Status.REFUTED


def test_a_tiny_exact_difference_is_refuted_exactly():
    verdict = verdict_of(*claim("1", "1 + 10^-64*10^-64"))
    assert verdict.status is Status.REFUTED
    assert any("exactly" in line for line in verdict.evidence)
    assert verdict_of(*claim("1", "1 + 10^-64*10^-64 - 10^-64*10^-64")).status is Status.PROVED


def test_an_integer_identity_with_floor_is_proved_on_the_lattice():
    # by the project's residue split, n = 2k and n = 2k + 1 (Z3 alone runs out of time on it)
    verdict = assert_proved(sp.floor(n / 2) + sp.floor((n + 1) / 2), n)
    assert any("2 residue classes" in line for line in verdict.evidence)
    assert "word alone" not in verdict.reason
    # false at every odd n: sampled on the integers, refuted there
    wrong = verdict_of(sp.floor(n / 2) + sp.floor(n / 2), n)
    assert wrong.status is Status.REFUTED and wrong.witness[n] % 2 == 1


@pytest.mark.parametrize("lhs, rhs", [
    # settled by Z3 through the remainder a − b·floor(a/b) alone
    (sp.floor(n / 4) + sp.ceiling(n / 4), 2 * sp.floor(n / 4) + sp.sign(sp.Mod(n, 4))),
    # settled by Z3 through a = b·q + r alone
    (sp.Mod(n, 2) ** 2, sp.Mod(n, 2)),
])
def test_remainders_of_integers_are_proved_in_either_encoding(lhs, rhs):
    # Z3 alone (the project's residue split proves them too)
    verdict = check_identity(lhs, rhs, timeout=20, procedure="z3")
    assert verdict.status is Status.PROVED, verdict.reason
    # the negative control: the remainder of 4 is no 0/1 value
    assert check_identity(sp.Mod(n, 4) ** 2, sp.Mod(n, 4)).status is Status.REFUTED


def test_a_sign_claim_over_rational_symbols_is_refuted_at_a_rational_point():
    verdict = verdict_of(sp.sign(q) ** 2, 1)
    assert verdict.status is Status.REFUTED and verdict.witness[q] == 0


def test_a_piecewise_with_no_otherwise_branch_is_decided_on_its_domain():
    partial = sp.Piecewise((x, x > 0))          # undefined for x <= 0
    assert_proved(partial, sp.Abs(x))
    assert verdict_of(partial, -x).status is Status.REFUTED
    assert verdict_of(partial + sp.Piecewise((1, x < 0)), 1).status is Status.UNDECIDED


# --- 3. cvc5 beside Z3 -----------------------------------------------------------------------------

def test_a_verdict_on_a_solver_names_it():
    # floor of a real symbol: no residue split, the solvers decide it
    verdict = assert_proved(sp.floor(x) + sp.ceiling(-x), 0)
    assert any(line.startswith(("Z3 finds", "cvc5 finds")) for line in verdict.evidence)
    assert "word alone" in verdict.reason


def _on_the_curve(polynomial):
    """x > 0 with polynomial(x) >= 0 and <= 0: a single algebraic point."""
    return [x, sp.GreaterThan(polynomial, 0, evaluate=False),
            sp.GreaterThan(-polynomial, 0, evaluate=False)]


@pytest.mark.parametrize("module", ["smt", "cvc5_smt"])
@pytest.mark.parametrize("polynomial, root", [(x**2 - 2, sp.sqrt(2)),
                                              (x**2 - x - 1, (1 + sp.sqrt(5)) / 2)])
def test_solver_models_are_read_as_exact_algebraic_numbers(module, polynomial, root):
    import importlib
    solver = importlib.import_module(f"symbolic.decision.{module}")
    answer = solver.domain_point([], _on_the_curve(polynomial), [x], 5.0)
    assert answer.result == "sat"
    assert sp.minimal_polynomial(answer.points[0][x] - root, sp.Symbol("t")) == sp.Symbol("t")


@pytest.mark.parametrize("module", ["smt", "cvc5_smt"])
def test_each_solver_proves_and_refutes_on_its_own_encoding(module):
    import importlib
    solver = importlib.import_module(f"symbolic.decision.{module}")
    assert solver.ask(sp.sqrt(x**2 + 2 * x + 1), sp.Abs(x + 1), [], [], [x], 5.0).result == "unsat"
    assert solver.ask(sp.floor(n / 2) + sp.Mod(n, 2), sp.ceiling(n / 2), [], [], [n], 5.0).result \
        in ("unsat", "unknown")
    refuted = solver.ask(sp.Piecewise((x, x > 0)), -x, [], [], [x], 5.0)
    assert refuted.result == "sat" and refuted.points[0][x] > 0


# --- 5. lazy imports ----------------------------------------------------------------------------------

def test_a_small_claim_loads_no_solver():
    import subprocess
    code = ("import sys, sympy as sp; from symbolic import check_identity; x = sp.Symbol('x', real=True); "
            "v = check_identity(x + 1, 1 + x); print(v.status.name, 'z3' in sys.modules, 'cvc5' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["PROVED", "False", "False"]


# --- the fuzz test: no claim of the grammar gives an internal error ----------------------------------

ATOMS = st.sampled_from(["x", "y", "n", "0", "1", "2", "1/3", "-1", "10^-20"])
UNARY = st.sampled_from(["relu", "abs", "sign", "heaviside", "sqrt", "exp", "log"])
BINARY = st.sampled_from(["+", "-", "*", "/", "^"])


def _expressions():
    def extend(children):
        return st.one_of(
            st.tuples(UNARY, children).map(lambda t: f"{t[0]}({t[1]})"),
            st.tuples(children, BINARY, children).map(
                lambda t: f"({t[0]}){t[1]}({t[2]})" if t[1] != "^" else f"({t[0]})^2"),
            st.tuples(st.sampled_from(["max", "min"]), children, children).map(
                lambda t: f"{t[0]}({t[1]}, {t[2]})"),
        )
    return st.recursive(ATOMS, extend, max_leaves=6)


# The property is "no internal error", which a time-out never breaks (a claim whose budget runs
# out is UNDECIDED with that reason): so the test's verdict does not depend on how loaded the
# machine is, whatever the budget.  The budget only bounds the test's run time.
@settings(max_examples=120, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(_expressions(), _expressions())
def test_no_claim_of_the_grammar_gives_an_internal_error(lhs, rhs):
    symbols: dict = {}
    try:
        left = parse_expression(lhs, integer=["n"], symbols=symbols)
        right = parse_expression(rhs, symbols=symbols)
    except ParseError:
        return    # bad input is the parser's to report, with exit 2
    try:
        verdict = check_identity(left, right, timeout=2)
    except (TypeError, ValueError):
        return    # bad input (a non-real constant such as sqrt(-1)): exit 2 on the command line
    assert not verdict.details.get("internal_error"), f"{lhs} = {rhs}: {verdict.reason}"
    if verdict.status is Status.REFUTED:
        point = {k: v for k, v in verdict.witness.items() if isinstance(k, sp.Symbol)}
        assert WrittenDomain(left, right).admits(point)
