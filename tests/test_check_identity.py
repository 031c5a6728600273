"""check_identity on the examples of the issue and on identities it was never tuned on."""
import pytest
import sympy as sp

from symbolic import ReLU, Status, check_identity, leaky_relu
from symbolic.decision.witness import compare_at

x, y, z, s = sp.symbols("x y z s", real=True)
a = sp.Symbol("a", positive=True)
c = sp.Symbol("c", nonnegative=True)
r = sp.Symbol("r", real=True)


def assert_refuted(lhs, rhs, **kwargs):
    verdict = check_identity(lhs, rhs, **kwargs)
    assert verdict.status is Status.REFUTED, verdict.describe()
    point = {k: v for k, v in verdict.witness.items() if isinstance(k, sp.Symbol)}
    # the witness really separates the ORIGINAL expressions
    assert compare_at(lhs, rhs, point).differ
    return verdict


def assert_proved(lhs, rhs, **kwargs):
    verdict = check_identity(lhs, rhs, **kwargs)
    assert verdict.status is Status.PROVED, verdict.describe()
    assert verdict.evidence
    return verdict


def test_homogeneity_with_positive_scale_is_proved():
    assert_proved(ReLU(a * x), a * ReLU(x))


def test_homogeneity_with_real_scale_is_refuted_by_a_negative_scale():
    verdict = assert_refuted(ReLU(r * x), r * ReLU(x))
    assert verdict.witness[r] < 0


def test_relu_difference_is_identity():
    assert_proved(ReLU(x) - ReLU(-x), x)


def test_relu_is_not_additive():
    assert_refuted(ReLU(x + y), ReLU(x) + ReLU(y))


def test_verdict_has_no_truth_value():
    verdict = check_identity(x, x)
    with pytest.raises(TypeError):
        bool(verdict)
    with pytest.raises(TypeError):
        if verdict:
            pass


@pytest.mark.parametrize("lhs, rhs", [
    (sp.Max(x, y), (x + y + sp.Abs(x - y)) / 2),
    (sp.Min(x, y), (x + y - sp.Abs(x - y)) / 2),
    (sp.Max(0, x), (x + sp.Abs(x)) / 2),
    (sp.Abs(x * y), sp.Abs(x) * sp.Abs(y)),
    (ReLU(ReLU(x)), ReLU(x)),
    (sp.Max(x, y, 0), ReLU(sp.Max(x, y))),
    (ReLU(x) * ReLU(-x), 0),
    (sp.Abs(x) ** 2, x ** 2),
    (leaky_relu(a * x, sp.Rational(1, 10)), a * leaky_relu(x, sp.Rational(1, 10))),
    (sp.Max(x, x / 5), leaky_relu(x, sp.Rational(1, 5))),
    (sp.Abs(a * x - a * y), a * sp.Abs(x - y)),
    (ReLU(x * y), ReLU(x) * ReLU(y) + ReLU(-x) * ReLU(-y)),
    (sp.Max(x, y) + sp.Min(x, y), x + y),
    (ReLU(c * x), c * ReLU(x)),
    (ReLU(x) ** 2 + ReLU(-x) ** 2, x ** 2),
    (sp.Max(sp.Max(x, y), z), sp.Max(x, sp.Max(y, z))),
])
def test_true_identities_are_proved(lhs, rhs):
    assert_proved(lhs, rhs)


@pytest.mark.parametrize("lhs, rhs", [
    (sp.Abs(x + y), sp.Abs(x) + sp.Abs(y)),
    (ReLU(x) * ReLU(y), ReLU(x * y)),
    (sp.Max(x, y), x),
    (ReLU(x - 10 ** 6), 0),                      # false only far out: found by the region LP
    (ReLU(x - 10 ** 6) * ReLU(y - 10 ** 6), 0),
    (leaky_relu(r * x, sp.Rational(1, 10)), r * leaky_relu(x, sp.Rational(1, 10))),
    (sp.tanh(a * x), a * sp.tanh(x)),
    (ReLU(x + y) + ReLU(x - y), 2 * ReLU(x)),
    (sp.Min(x, 0) + sp.Max(x, 0), sp.Abs(x)),
])
def test_false_identities_are_refuted_with_a_separating_witness(lhs, rhs):
    assert_refuted(lhs, rhs)


def test_undefined_function_of_equal_arguments_is_proved():
    ell = sp.Function("ell")
    assert_proved(ell(ReLU(2 * x), y), ell(2 * ReLU(x), y))


def test_undefined_function_of_different_arguments_is_refuted_with_a_concrete_function():
    ell = sp.Function("ell")
    verdict = check_identity(ell(ReLU(2 * x)), ell(ReLU(x)))
    assert verdict.status is Status.REFUTED
    assert ell in verdict.witness


def test_discontinuous_functions_are_decided_at_the_kink_too():
    # x·sign(x) = |x| holds everywhere, 0 included
    assert check_identity(sp.sign(x) * x, sp.Abs(x)).status is Status.PROVED
    # Heaviside(0) = 1/2 in sympy, while ReLU(sign(0)) = 0: the two differ only at the kink
    verdict = check_identity(sp.Heaviside(x), ReLU(sp.sign(x)))
    assert verdict.status is Status.REFUTED
    assert verdict.witness == {x: 0}


def test_exhausted_budget_gives_undecided_with_reason_never_a_guess():
    verdict = check_identity(ReLU(x + y), ReLU(x) + ReLU(y), timeout=1e-6)
    assert verdict.status is Status.UNDECIDED
    assert "time budget" in verdict.reason


def test_budget_large_enough_changes_nothing():
    assert check_identity(ReLU(x + y), ReLU(x) + ReLU(y), timeout=60).status is Status.REFUTED


def test_strings_are_refused():
    with pytest.raises(TypeError):
        check_identity("x", "x")


def test_rational_arguments_and_sides_undefined_on_a_region():
    # 1/ReLU(x) is undefined for x <= 0: the identity is asserted where both sides are defined
    assert_proved(ReLU(1 / x), 1 / ReLU(x))
    assert_proved(ReLU(1 / x), ReLU(x) / x ** 2)
    assert_refuted(ReLU(1 / x), 2 / ReLU(x))
    assert_refuted(ReLU((x - 1) / (x + 1)), ReLU(x - 1) / (x + 1))


def test_transcendental_arguments():
    assert_proved(ReLU(sp.exp(x) - 2) - ReLU(2 - sp.exp(x)), sp.exp(x) - 2)
    assert_refuted(ReLU(sp.sin(x)), sp.sin(x))


def test_infinite_input_is_bad_input():
    for bad in (sp.zoo * x, sp.nan, sp.oo):
        with pytest.raises(ValueError):
            check_identity(bad, x)


def test_cubic_argument():
    assert_proved(ReLU(x ** 3), x ** 2 * ReLU(x))
