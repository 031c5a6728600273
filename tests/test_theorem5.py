import random
from fractions import Fraction

import pytest

from proofs import theorem5_many_eigenvalues as theorem5
from symbolic import Status
from symbolic.networks.deep import DeepNet
from symbolic.numerics.inertia import count_above, count_above_by_characteristic_polynomial, inertia
from symbolic.trusted.oracles.linear_algebra import EXACT_INERTIA


def test_inertia_counts_exactly_including_a_zero_diagonal():
    # [[0, 1], [1, 0]] has eigenvalues ±1; diag(3, 0, -2) is read off directly
    assert inertia([[0, 1], [1, 0]]) == inertia([[1, 0], [0, -1]])
    assert (inertia([[3, 0, 0], [0, 0, 0], [0, 0, -2]]).positive,
            inertia([[3, 0, 0], [0, 0, 0], [0, 0, -2]]).zero) == (1, 1)
    # eigenvalues 1 and 3 of [[2, 1], [1, 2]]: one above 2, none above 3, two above 1/2
    matrix = [[2, 1], [1, 2]]
    assert [count_above(matrix, m) for m in (Fraction(1, 2), 2, 3)] == [2, 1, 0]


def test_inertia_after_fraction_free_steps_and_a_two_by_two_pivot():
    from symbolic.numerics.inertia import Inertia
    # a 1×1 step, then a zero diagonal block [[0, 3], [3, 0]]: eigenvalues 2, 3, -3
    assert inertia([[2, 0, 0], [0, 0, 3], [0, 3, 0]]) == Inertia(2, 1, 0)
    # rational entries: det [[1/2, 1/3], [1/3, 1/5]] = 1/10 - 1/9 < 0
    assert inertia([[Fraction(1, 2), Fraction(1, 3)], [Fraction(1, 3), Fraction(1, 5)]]) == Inertia(1, 1, 0)
    # a rank-one Schur complement that vanishes
    assert inertia([[1, 1], [1, 1]]) == Inertia(1, 0, 1)


def test_inertia_agrees_with_the_characteristic_polynomial_on_random_matrices():
    rng = random.Random(5)
    for _ in range(40):
        n = rng.randint(1, 6)
        half = [[Fraction(rng.randint(-3, 3)) for _ in range(n)] for _ in range(n)]
        matrix = [[half[i][j] + half[j][i] for j in range(n)] for i in range(n)]
        for bound in (Fraction(-1), Fraction(0), Fraction(5, 2)):
            assert count_above(matrix, bound) == count_above_by_characteristic_polynomial(matrix, bound)


def test_inertia_rejects_a_non_symmetric_matrix():
    with pytest.raises(ValueError):
        inertia([[1, 2], [3, 4]])


@pytest.mark.parametrize("size,depth", [((2, 2, 6), 3), ((3, 2, 8), 4)])
def test_exact_count_at_the_papers_alpha(size, depth):
    verdict = theorem5.eigenvalue_count(*size, depth)
    assert verdict.status is Status.PROVED, verdict.describe()
    # the summary, one line per target, and the procedures the count rests on
    assert len(verdict.evidence) == 2 + len(theorem5.TARGETS)
    assert verdict.evidence[-1].startswith("taken on the word of the oracles: exact inertia")
    assert {"exact inertia", "exact rational comparison", "exact linear algebra"} <= set(verdict.rests_on["oracles"])
    # the statement is the exact counts: one 'eigenvalues above' fact per target, at H(T_alpha theta)
    counts = [part for part in verdict.statement.parts() if getattr(part, "predicate", "") == "eigenvalues above"]
    assert [part.arguments[1] for part in counts[:len(theorem5.TARGETS)]] == list(theorem5.TARGETS)


def test_paper_choice_multiplies_to_one():
    verdict = theorem5.product_is_one()
    assert verdict.status is Status.PROVED and verdict.rests_on["oracles"]


def test_the_inertia_oracle_refuses_a_wrong_count():
    from symbolic.kernel import Fact, by_oracle
    matrix = [[2, 1], [1, 2]]                       # eigenvalues 1 and 3
    assert by_oracle(EXACT_INERTIA, Fact("eigenvalues above", (matrix, 2, 1))).proved
    assert not by_oracle(EXACT_INERTIA, Fact("eigenvalues above", (matrix, 2, 2))).proved


def test_unbalanced_product_changes_the_loss():
    verdict = theorem5.unbalanced_product(2, 2, 6, 3)
    assert verdict.status is Status.REFUTED
    assert verdict.witness["L(theta)"] == 0 and verdict.witness["L(T_alpha theta)"] > 0


def test_one_more_eigenvalue_than_the_theorem_is_refuted_with_an_exact_count():
    verdict = theorem5.eigenvalue_count(2, 2, 4, 3, extra=1, dead_output=True)
    assert verdict.status is Status.REFUTED, verdict.describe()
    witness = verdict.witness
    assert witness["eigenvalues above M"] < witness["rank r"] - witness["min n_k"] + 1
    # re-verify: recompute the Hessian at the paper's alpha and count again, exactly
    net = DeepNet(witness["widths"])
    minimum = theorem5.interpolating_minimum(net, 4, random.Random(0), dead_output=True)
    assert minimum.theta == witness["theta"]
    found = theorem5.count_at_papers_alpha(minimum, witness["M"])
    assert found["count"] == witness["eigenvalues above M"] == found["count_charpoly"]


def test_in_the_main_table(cli):
    result = cli("theorem5", "--json")
    assert result.returncode == 0, result.stderr
    assert '"refuted"' not in result.stdout
