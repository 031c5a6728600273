"""Witness points of derivative checks are informative, and a row says how many it used."""
import json
import random
import re

import pytest

from proofs import theorem3_derivative_transformation as theorem3
from symbolic import Status
from symbolic.numerics.real_network import preactivations, witness_answer, random_instance


@pytest.mark.parametrize("d, h, n, bias", [(1, 1, 6, False), (2, 1, 4, True), (1, 2, 3, False)])
def test_every_data_point_of_a_witness_has_an_active_unit(d, h, n, bias):
    rng = random.Random(7)
    for _ in range(20):
        instance = random_instance(d, h, n, rng, bias=bias)
        rows = preactivations(instance.theta, instance.inputs, d, h, bias)
        assert all(any(s > 0 for s in row) for row in rows)


@pytest.mark.parametrize("loss", theorem3.LOSSES)
def test_narrow_networks_get_informative_witnesses(loss):
    # one hidden unit: with random data, half the points would leave it dead
    for seed in range(3):
        verdict = theorem3.check(1, 1, 3, loss, 2, seed=seed)
        assert verdict.status is Status.PROVED
        assert verdict.details["informative_points"] == theorem3.WITNESS_POINTS
        assert verdict.details["size_of_sides"] > 0


def test_a_witness_that_compared_nothing_agrees_with_nothing():
    verdict = witness_answer("claim", None, 0)
    assert verdict.status is Status.UNDECIDED and "compared nothing" in verdict.reason
    assert not any("agree" in e for e in verdict.evidence)


def test_the_sigmoid_lemmas_have_a_numeric_witness():
    verdict = theorem3.sigmoid_lemmas()
    assert verdict.status is Status.PROVED
    assert verdict.details["informative_points"] >= 1 and verdict.residual < 1e-40


def test_no_row_of_the_default_run_claims_a_vacuous_witness(cli):
    result = cli("--json")
    assert result.returncode == 0, result.stderr
    rows = json.loads(result.stdout)
    counted = 0
    for row in rows:
        text = " ".join(row["evidence"])
        if row["theorem"] == "theorem3" and (row["d"] is not None or "sigmoid" in row["claim"]):
            # every derivative row and the sigmoid lemmas say how many informative points they used
            numbers = [int(k) for k in re.findall(r"at (\d+) informative point", text)]
            assert numbers and min(numbers) >= 1, row
            counted += 1
        # no witness that agreed reports sides of size 0
        assert not re.search(r"sides of size 0\.0e\+00", text), row
    assert counted > 200
