import pytest

from proofs import theorem4_sharpest_direction as theorem4
from symbolic import Status


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
