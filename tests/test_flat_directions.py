from fractions import Fraction

import pytest

from proofs import flat_directions
from symbolic import Status
from symbolic.networks.deep import DeepNet
from symbolic.trusted.oracles.linear_algebra import EXACT_RANK
from symbolic.trusted.oracles.networks import PATTERN_FORM


@pytest.mark.parametrize("loss", flat_directions.LOSSES)
@pytest.mark.parametrize("size", [(1, 1, 1), (2, 3, 2), (3, 2, 3)])
def test_generator_identities_hold_at_every_point(size, loss):
    verdict = flat_directions.generator_identities(*size, loss)
    assert verdict.status is Status.PROVED, verdict.describe()


@pytest.mark.parametrize("name", flat_directions.CONTROLS)
def test_a_wrong_generator_is_refuted_on_the_real_loss(name):
    verdict = flat_directions.generator_identities(2, 2, 2, "mse", signs=flat_directions.CONTROLS[name])
    assert verdict.status is Status.REFUTED, verdict.describe()
    assert verdict.witness and verdict.residual > 1e-3


def test_one_generator_per_unit_with_the_layer_as_their_sum():
    per_unit = [flat_directions.generator(2, 3, j) for j in range(3)]
    layer = flat_directions.generator(2, 3, None)
    assert [sum(column) for column in zip(*per_unit)] == layer
    assert all(sum(1 for g in G if g) == 2 + 1 for G in per_unit)


@pytest.mark.parametrize("size", [(1, 2, 3), (2, 2, 6), (3, 3, 3)])
def test_random_minima_have_the_rank_bound_and_zero_determinant(size):
    for check in (flat_directions.one_layer_minimum, flat_directions.deep_minimum):
        verdict = check(*size)
        assert verdict.status is Status.PROVED, verdict.describe()


def test_deep_generators_tie_consecutive_layers():
    generators = flat_directions.deep_unit_generators(DeepNet((2, 2, 2, 1)))
    assert len(generators) == 4
    # unit 1 of the first hidden layer: +1 on W1[:, 0], -1 on row 0 of W2
    assert generators[0][:8] == [1, 0, 1, 0, -1, -1, 0, 0]


def test_a_hessian_that_misses_the_kernel_is_refuted():
    theta = [Fraction(1), Fraction(2)]
    verdict = flat_directions._kernel_claim("claim", [[Fraction(1), 0], [0, Fraction(1)]],
                                            [flat_directions.generator(1, 1, 0)], theta)
    assert verdict.status is Status.REFUTED


def test_in_the_main_table(cli):
    result = cli("flat_directions", "--size", "2,2,2")
    assert result.returncode == 0 and "PROVED" in result.stdout


def test_the_rank_bound_is_sharp_and_one_less_is_refuted():
    assert flat_directions.bound_attained().status is Status.PROVED
    verdict = flat_directions.one_layer_minimum(*flat_directions.SHARP_INSTANCE, slack=1)
    assert verdict.status is Status.REFUTED and verdict.witness["rank H"] > 0


def test_proved_rows_rest_on_the_kernel_and_name_their_oracles():
    identities = flat_directions.generator_identities(2, 2, 2, "mse")
    assert {"pattern-form exact test", "two-precision numeric agreement"} <= set(identities.rests_on["oracles"])
    minimum = flat_directions.one_layer_minimum(2, 2, 6)
    assert {"exact linear algebra", "exact rational comparison"} <= set(minimum.rests_on["oracles"])
    sharp = flat_directions.bound_attained()
    assert "refutation by an exact point" in sharp.rests_on["rules"]


def test_the_oracles_refuse_a_false_generator_law_and_false_linear_algebra():
    from symbolic.kernel import Fact, by_oracle
    from symbolic.networks import pattern_form
    wrong = by_oracle(PATTERN_FORM, pattern_form.generator_identities(2, 2, 2, "mse", (1, 1)))
    assert wrong.status is not Status.PROVED and wrong.details["fails_at"]
    identity = [[Fraction(1), Fraction(0)], [Fraction(0), Fraction(1)]]
    assert not by_oracle(EXACT_RANK, Fact("null vectors", (identity, [[1, 0]]))).proved
    assert not by_oracle(EXACT_RANK, Fact("determinant", (identity, 0))).proved
    assert not by_oracle(EXACT_RANK, Fact("rank", (identity, 1))).proved
    singular = [[Fraction(1), Fraction(1)], [Fraction(1), Fraction(1)]]
    assert by_oracle(EXACT_RANK, Fact("null vectors", (singular, [[1, -1]]))).proved
    assert by_oracle(EXACT_RANK, Fact("determinant", (singular, 0))).proved
