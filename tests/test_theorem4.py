import pytest

from proofs import theorem4_sharpest_direction as theorem4
from symbolic import Status
from symbolic.trusted.oracles.numerics import NUMERIC_AGREEMENT


def test_chain_steps_are_proved():
    assert theorem4.diagonal_of_congruence(2, 3).status is Status.PROVED
    assert theorem4.explicit_scale().status is Status.PROVED


@pytest.mark.parametrize("size", [(1, 1, 2), (2, 2, 2), (3, 2, 3)])
def test_random_minima_become_as_sharp_as_asked(size):
    verdict = theorem4.random_instances(*size)
    assert verdict.status is Status.PROVED, verdict.describe()


def test_in_the_main_table(cli):
    result = cli("theorem4", "--size", "2,2,2")
    assert result.returncode == 0 and "PROVED" in result.stdout


def test_proved_steps_rest_on_the_kernel_and_name_their_oracles():
    for verdict in (theorem4.diagonal_of_congruence(2, 3), theorem4.explicit_scale(), theorem4.random_instances(2, 2, 2)):
        assert verdict.status is Status.PROVED and verdict.rests_on["oracles"]
    sharp = theorem4.random_instances(2, 2, 2)
    assert {"two-precision numeric agreement", "exact inertia"} <= set(sharp.rests_on["oracles"])
    assert sharp.label.startswith("random minima: ||H(T_alpha theta)||_2 >= M")


def test_the_spectral_norm_oracle_refuses_a_bound_above_the_norm():
    from symbolic.kernel import by_oracle
    from symbolic.numerics import agreement
    matrix = [[2, 1], [1, 2]]                       # eigenvalues 1 and 3
    assert by_oracle(NUMERIC_AGREEMENT, agreement.spectral_norm_at_least(matrix, 3)).proved
    verdict = by_oracle(NUMERIC_AGREEMENT, agreement.spectral_norm_at_least(matrix, 4))
    assert verdict.status is not Status.PROVED and abs(verdict.details["norm"] - 3) < 1e-12
