"""Each procedure of check_identity alone (the project's sign split, Z3) is sound on its own.

The combined verdict hides a bug of one procedure behind the other; here each is run alone on
every fuzz family (a derandomized sample of each) and on the hand-written soundness corpus: a false
claim is never PROVED, a true claim never REFUTED, and every REFUTED witness separates the
original sides.
"""
import functools

import pytest
import sympy as sp

from proofs.corpora.claim_families import FAMILIES, PROJECT_SEED, family_claims, soundness_corpus_claims
from symbolic import Status, check_identity
from tests.test_fuzz_core import honours_assumptions, separates

PROCEDURES = ("split", "z3")
PER_FAMILY = 3      # claims per family: the first of its cycle (a true and a false one among them)
TIMEOUT = 3         # seconds per claim


@functools.cache
def corpus():
    claims = [c for family in FAMILIES for c in family_claims(family, PROJECT_SEED, PER_FAMILY)]
    return claims + soundness_corpus_claims()


@functools.cache
def outcomes(procedure):
    return [(claim, check_identity(claim.lhs, claim.rhs, timeout=TIMEOUT, claim=claim.name,
                                   procedure=procedure)) for claim in corpus()]


def test_the_corpus_holds_true_and_false_claims_of_every_family():
    for family in FAMILIES:
        assert {c.true for c in family_claims(family, PROJECT_SEED, PER_FAMILY)} == {True, False}


@pytest.mark.parametrize("procedure", PROCEDURES)
def test_a_false_claim_is_never_proved_by_one_procedure_alone(procedure):
    proved = [c.name for c, v in outcomes(procedure) if not c.true and v.status is Status.PROVED]
    assert not proved


@pytest.mark.parametrize("procedure", PROCEDURES)
def test_a_true_claim_is_never_refuted_by_one_procedure_alone(procedure):
    refuted = [v.describe() for c, v in outcomes(procedure) if c.true and v.status is Status.REFUTED]
    assert not refuted


@pytest.mark.parametrize("procedure", PROCEDURES)
def test_every_witness_of_one_procedure_honours_the_facts_and_separates_the_sides(procedure):
    # checked independently of the checker's own comparison (tests.test_fuzz_core)
    witnesses = [(claim, {s: sp.sympify(verdict.witness[s]) for s in claim.symbols})
                 for claim, verdict in outcomes(procedure) if verdict.status is Status.REFUTED]
    assert all(honours_assumptions(s, v) for _, point in witnesses for s, v in point.items())
    assert all(separates(claim.lhs, claim.rhs, point) for claim, point in witnesses)


@pytest.mark.parametrize("procedure", PROCEDURES)
def test_each_procedure_alone_decides_claims_of_both_kinds(procedure):
    # a procedure that answers UNDECIDED to everything would pass the tests above
    statuses = [(c.true, v.status) for c, v in outcomes(procedure)]
    assert (True, Status.PROVED) in statuses and (False, Status.REFUTED) in statuses
    proved = sum(s is Status.PROVED for _, s in statuses)
    assert proved >= sum(t for t, _ in statuses) // 2
