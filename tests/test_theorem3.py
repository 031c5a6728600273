"""Theorem 3: gradient and Hessian identities for every loss, and the negative controls."""
import pytest

from proofs import theorem3_derivative_transformation as theorem3
from symbolic import Status
from symbolic.networks.polynomial import PatternNetwork
from symbolic.trusted.oracles.numerics import NUMERIC_AGREEMENT
from symbolic.trusted.oracles.networks import PATTERN_FORM


@pytest.mark.parametrize("loss", theorem3.LOSSES)
@pytest.mark.parametrize("order", [1, 2])
def test_identity_is_proved_with_a_falling_witness_residual(loss, order):
    verdict = theorem3.check(2, 3, 2, loss, order)
    assert verdict.status is Status.PROVED, verdict.describe()
    low, high = verdict.details["residual_low_dps"], verdict.details["residual_high_dps"]
    assert low < 1e-30 and high <= max(low, 1e-70)


@pytest.mark.parametrize("size", [(1, 1, 1), (3, 1, 2), (1, 3, 3)])
def test_identity_at_other_sizes(size):
    assert theorem3.check(*size, "mse", 2).status is Status.PROVED


NEGATIVE = ["S inverse", "unscaled gradient", "v scaled by alpha", "unscaled bias"]


@pytest.mark.parametrize("variant", NEGATIVE)
@pytest.mark.parametrize("loss", ["mse", "logistic", "quadratic"])
@pytest.mark.parametrize("order", [1, 2])
def test_negative_controls_are_refuted_with_a_witness(variant, loss, order):
    verdict = theorem3.check(2, 2, 2, loss, order, theorem3.VARIANTS[variant])
    if variant == "S inverse" and order == 1 or variant == "unscaled gradient" and order == 2:
        # each control names the identity it falsifies; the other may or may not fail
        assert verdict.status is not Status.UNDECIDED
        return
    assert verdict.status is Status.REFUTED, verdict.describe()
    assert verdict.witness and "alpha" in verdict.witness
    low, high = verdict.details["residual_low_dps"], verdict.details["residual_high_dps"]
    # a real difference: a sizeable part of the sides, and unmoved by the precision
    assert low > 1e-6 * verdict.details["size_of_sides"] and abs(low - high) <= 1e-10 * low


def test_biases_scaled_with_their_layer_keep_the_identity():
    variant = theorem3.VARIANTS["bias scaled with its layer"]
    for order in (1, 2):
        assert theorem3.check(2, 2, 2, "mse", order, variant).status is Status.PROVED


def test_regularity_transport_and_sigmoid_lemmas():
    assert theorem3.regularity_transport().status is Status.PROVED
    assert theorem3.sigmoid_lemmas().status is Status.PROVED


def test_chain_rule_check_rejects_a_wrong_chain_rule():
    assert theorem3.chain_rule_check(2, 2, 2)
    assert not theorem3.chain_rule_check(2, 2, 1, claimed_inverse=True)
    assert not theorem3.chain_rule_check(2, 2, 2, claimed_inverse=True)


def test_exact_identity_names_the_failing_entry():
    holds, entry = theorem3.exact_polynomial_identity(1, 1, 1, "mse", 2, theorem3.VARIANTS["S inverse"])
    assert not holds and entry == ("W_1_1", "W_1_1")


def test_pattern_indicators_cover_every_pattern():
    # the same polynomial identity with σ specialised to 0/1 holds on each of the 2^(Nh) patterns
    model = PatternNetwork(1, 2, 1)
    assert {"sigma_1_1", "sigma_1_2"} <= set(model.names)


@pytest.mark.parametrize("size", [(0, 1, 1), (1, -1, 1), (1, 1, 0)])
def test_bad_sizes(size):
    with pytest.raises(ValueError):
        PatternNetwork(*size)


def test_time_budget_gives_undecided():
    verdict = theorem3.check(3, 3, 3, "logistic", 2, timeout=1e-6)
    assert verdict.status is Status.UNDECIDED and "time budget" in verdict.reason


def test_cli_theorem3_json(cli):
    import json
    result = cli("theorem3", "--json", "--size", "2,2,2")
    assert result.returncode == 0, result.stderr
    rows = json.loads(result.stdout)
    assert all(r["status"] == "proved" for r in rows)
    assert all(r["residual"] is not None for r in rows if r["d"] is not None)


# --- the kernel's oracles behind the rows: each PROVED rests on them, a false statement is not PROVED ---

def test_a_proved_identity_rests_on_the_exact_test_and_the_witness():
    verdict = theorem3.check(2, 2, 2, "mse", 2)
    assert verdict.status is Status.PROVED
    assert {"pattern-form exact test", "two-precision numeric agreement"} <= set(verdict.rests_on["oracles"])
    assert verdict.label.startswith("Hessian identity, (i) MSE")
    any_loss = theorem3.check(1, 1, 1, "any", 1)
    assert any_loss.status is Status.PROVED and any_loss.rests_on["oracles"]
    for verdict in (theorem3.regularity_transport(), theorem3.sigmoid_lemmas()):
        assert verdict.status is Status.PROVED and verdict.rests_on["oracles"]


def test_the_pattern_form_oracle_refuses_a_false_law():
    from symbolic.kernel import by_oracle
    from symbolic.networks import pattern_form
    variant = theorem3.VARIANTS["S inverse"]
    verdict = by_oracle(PATTERN_FORM, pattern_form.derivative_law(2, 2, 2, "mse", 2, variant))
    assert verdict.status is not Status.PROVED and verdict.details["fails_at"]
    # the chain rule and the invariance facts are decided, not read off their names
    assert by_oracle(PATTERN_FORM, pattern_form.chain_rule(2, 2, 2)).status is Status.PROVED
    assert by_oracle(PATTERN_FORM, pattern_form.invariant_predictions(2, 2, 2)).status is Status.PROVED


def test_the_numeric_agreement_refuses_a_false_comparison():
    from fractions import Fraction

    from symbolic.kernel import by_oracle
    from symbolic.numerics import agreement
    holds = theorem3.numeric_witness(1, 2, 2, "mse", 1)
    assert by_oracle(NUMERIC_AGREEMENT, holds).status is Status.PROVED
    # the same points, the right side doubled: a difference stable across precisions
    (loss, cases) = holds.arguments
    doubled = [(instance, [(p, d, q, e, 2 * s) for p, d, q, e, s in comparisons]) for instance, comparisons in cases]
    verdict = by_oracle(NUMERIC_AGREEMENT, agreement.relu_derivatives(loss, doubled))
    assert verdict.status is not Status.PROVED and verdict.details["stable"]
    # a sympy expression: d/dt t^2 at 3 is 6, not 5
    import sympy as sp
    t = sp.Symbol("t", real=True)
    right = agreement.closed_form_derivatives([(t ** 2, (t,), (1,), 2 * t)], [{t: sp.Integer(3)}])
    wrong = agreement.closed_form_derivatives([(t ** 2, (t,), (1,), 2 * t - 1)], [{t: sp.Integer(3)}])
    assert by_oracle(NUMERIC_AGREEMENT, right).status is Status.PROVED
    assert by_oracle(NUMERIC_AGREEMENT, wrong).status is not Status.PROVED
    # a comparison that compares nothing (both sides 0) agrees with nothing
    flat = agreement.expression_derivatives(t ** 0, (t,), [([Fraction(1)], [[Fraction(1)]], [Fraction(1)], [[Fraction(1)]], 1)])
    verdict = by_oracle(NUMERIC_AGREEMENT, flat)
    assert verdict.status is not Status.PROVED and verdict.details["informative_points"] == 0


def test_a_wrong_deep_congruence_is_refuted_and_the_right_one_proved():
    import sympy as sp
    right = theorem3.deep_congruence((1, 2, 1), n=1)
    assert right.status is Status.PROVED and right.rests_on["oracles"]
    a1 = sp.Symbol("alpha1", positive=True)
    wrong = theorem3.deep_congruence((1, 2, 1), n=1, claimed_scaling=[a1, 1 / a1])
    assert wrong.status is Status.REFUTED, wrong.describe()


def test_the_witness_answer_needs_noise_that_falls_with_the_precision():
    import mpmath

    from symbolic.numerics.real_network import Residual, witness_answer
    from symbolic.kernel.verdict import Holds

    def answer(low, high, informative=1):
        return witness_answer("claim", Residual(mpmath.mpf(low), mpmath.mpf(high), mpmath.mpf(1)), informative)
    assert isinstance(answer("1e-45", "1e-75"), Holds)
    assert answer("1e-45", "2e-45").status is Status.UNDECIDED           # does not fall: not noise
    stable = answer("1e-13", "1e-13")
    assert stable.status is Status.UNDECIDED and stable.details["stable"]
    assert answer("1e-45", "1e-75", informative=0).status is Status.UNDECIDED
