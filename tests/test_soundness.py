"""Soundness under attack: the corpus, random claims whose truth is known by construction, and
time budgets."""
import random

import mpmath
import pytest
import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from proofs.corpora.corpus import FALSE_CLAIMS, TRUE_CLAIMS
from symbolic import ReLU, Status, check_identity
from symbolic.decision.witness import concrete_functions, substitute_functions


def test_corpus_is_large_enough():
    assert len(FALSE_CLAIMS) >= 30 and len(TRUE_CLAIMS) >= 30


def witness_separates_at_50_digits(lhs, rhs, witness):
    """Re-evaluate the ORIGINAL expressions at the witness with sympy's own evalf at 50 digits."""
    lhs, rhs = sp.sympify(lhs), sp.sympify(rhs)
    point = {k: v for k, v in witness.items() if isinstance(k, sp.Symbol)}
    functions = {k: v for k, v in witness.items() if not isinstance(k, sp.Symbol)}
    left = sp.N(substitute_functions(lhs, functions).xreplace(point), 50)
    right = sp.N(substitute_functions(rhs, functions).xreplace(point), 50)
    return abs(left - right) > sp.Float(10) ** -30


@pytest.mark.parametrize("claim", FALSE_CLAIMS, ids=lambda c: c.name)
def test_false_claim_is_refuted_with_a_verified_witness(claim):
    verdict = claim.verdict()
    assert verdict.status is Status.REFUTED, verdict.describe()
    assert verdict.witness
    if claim.sides is not None:
        assert witness_separates_at_50_digits(*claim.sides(), verdict.witness)
    else:
        # derivative claims: the witness residual is re-evaluated at 50 and 80 digits
        low, high = verdict.details["residual_low_dps"], verdict.details["residual_high_dps"]
        assert low > 1e-6 * verdict.details["size_of_sides"] and abs(low - high) <= 1e-10 * low


@pytest.mark.parametrize("claim", TRUE_CLAIMS, ids=lambda c: c.name)
def test_true_claim_is_proved(claim):
    verdict = claim.verdict()
    assert verdict.status is Status.PROVED, verdict.describe()


# --- random claims, truth known by construction ---------------------------------------------------

X, Y, Z = sp.symbols("x y z", real=True)
A = sp.Symbol("a", positive=True)
SYMBOLS = [X, Y, Z]


def linear_forms(constant=True):
    coefficient = st.integers(-3, 3)
    offset = st.integers(-4, 4) if constant else st.just(0)
    return st.tuples(coefficient, coefficient, coefficient, offset).map(
        lambda c: c[0] * X + c[1] * Y + c[2] * Z + c[3])


def expressions(depth=2, constant=True):
    leaves = linear_forms(constant)
    if depth == 0:
        return leaves
    smaller = expressions(depth - 1, constant)
    return st.one_of(
        leaves,
        smaller.map(ReLU),
        smaller.map(sp.Abs),
        st.tuples(smaller, smaller).map(lambda p: sp.Max(*p)),
        st.tuples(smaller, smaller).map(lambda p: sp.Min(*p)),
        st.tuples(smaller, smaller).map(lambda p: p[0] + p[1]),
        st.tuples(st.integers(-3, 3), smaller).map(lambda p: p[0] * p[1]),
    )


def valid_rewrite(expr):
    """An equal expression written differently: identities that hold for every real input."""
    if expr.is_Atom:
        return expr
    args = [valid_rewrite(a) for a in expr.args]
    if isinstance(expr, ReLU):
        return (args[0] + sp.Abs(args[0])) / 2
    if isinstance(expr, sp.Abs):
        return sp.Max(args[0], -args[0])
    if isinstance(expr, sp.Max) and len(args) == 2:
        return (args[0] + args[1] + sp.Abs(args[0] - args[1])) / 2
    if isinstance(expr, sp.Min) and len(args) == 2:
        return -sp.Max(-args[0], -args[1])
    return expr.func(*args)


FAST = settings(max_examples=40, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(expressions(), linear_forms(), linear_forms(), st.integers(1, 5))
def test_a_false_random_claim_is_never_proved(expr, first, second, scale):
    # expr + k·ReLU(ℓ1)·ReLU(ℓ2) differs from expr wherever ℓ1 > 0 and ℓ2 > 0, a non-empty open
    # set unless ℓ2 is a negative multiple of ℓ1 or one of them is a non-positive constant
    gap = scale * ReLU(first) * ReLU(second)
    lhs, rhs = expr, valid_rewrite(expr) + gap
    if gap == 0 or not check_region_nonempty(first, second):
        return
    verdict = check_identity(lhs, rhs, timeout=20)
    assert verdict.status is not Status.PROVED
    if verdict.status is Status.REFUTED:
        assert witness_separates_at_50_digits(lhs, rhs, verdict.witness)


def check_region_nonempty(first, second):
    rng = random.Random(0)
    for _ in range(2000):
        point = {s: sp.Rational(rng.randint(-50, 50), rng.randint(1, 5)) for s in SYMBOLS}
        if first.xreplace(point) > 0 and second.xreplace(point) > 0:
            return True
    return False


@FAST
@given(expressions())
def test_a_true_random_claim_is_never_refuted(expr):
    verdict = check_identity(expr, valid_rewrite(expr), timeout=20)
    assert verdict.status is not Status.REFUTED, verdict.describe()


@FAST
@given(expressions(2, constant=False))
def test_random_positively_homogeneous_functions_are_proved_homogeneous(expr):
    # built from linear forms without constants by ReLU, Abs, Max, Min, sums and integer
    # multiples: positively homogeneous by construction, so f(a·x) = a·f(x) for a > 0
    scaled = expr.xreplace({s: A * s for s in SYMBOLS})
    verdict = check_identity(scaled, A * expr, timeout=30)
    assert verdict.status is Status.PROVED, verdict.describe()


@FAST
@given(expressions(2, constant=False), st.integers(1, 4))
def test_random_homogeneous_functions_with_a_constant_added_are_never_proved(expr, constant):
    # adding a constant c ≠ 0 breaks homogeneity: f(a·x) + c = a·(f(x) + c) fails at a ≠ 1
    scaled = expr.xreplace({s: A * s for s in SYMBOLS}) + constant
    verdict = check_identity(scaled, A * (expr + constant), timeout=30)
    assert verdict.status is Status.REFUTED, verdict.describe()
    assert witness_separates_at_50_digits(scaled, A * (expr + constant), verdict.witness)


def test_concrete_functions_are_shared_by_both_sides():
    ell = sp.Function("ell")
    table = concrete_functions([ell(X), ell(Y)], random.Random(0))
    assert list(table) == [ell]


def test_cli_timeout_gives_undecided_and_exit_3(cli):
    result = cli("theorem3", "--size", "3,3,3", "--timeout", "0.000001")
    assert result.returncode == 3
    assert "UNDECIDED" in result.stdout and "time budget" in result.stdout


def test_mpmath_two_precisions_tell_noise_from_difference():
    with mpmath.workdps(50):
        assert mpmath.mpf(1) / 3 * 3 - 1 == 0
