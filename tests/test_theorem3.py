"""Theorem 3: gradient and Hessian identities for every loss, and the negative controls."""
import pytest

from proofs import theorem3_derivative_transformation as theorem3
from symbolic import Status
from symbolic.networks.polynomial import PatternNetwork


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
