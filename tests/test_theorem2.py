import pytest
import z3

from proofs import theorem2_volume_flatness as theorem2
from symbolic import Status
from symbolic.trusted.oracles.solvers import Z3_UNSAT


@pytest.mark.parametrize("size", [(1, 1), (1, 3), (2, 2), (3, 2)])
def test_jacobian_composition_and_volume_are_exact(size):
    for check in (theorem2.linearity, theorem2.jacobian_determinant, theorem2.composition,
                  theorem2.volume_scaling):
        verdict = check(*size)
        assert verdict.status is Status.PROVED, verdict.describe()


def test_explicit_alpha_reaches_every_volume_when_the_blocks_differ():
    assert theorem2.volume_target(2, 3).status is Status.PROVED


@pytest.mark.parametrize("size", [(1, 1), (1, 2), (2, 3)])
def test_papers_boxes_are_disjoint_by_z3_and_by_the_gap(size):
    answer, model, _ = theorem2.disjointness_query(*size)
    assert answer == z3.unsat and model is None
    verdict = theorem2.disjointness(*size)
    assert verdict.status is Status.PROVED and "unsat" in verdict.evidence[0]
    assert theorem2.separation_argument().status is Status.PROVED
    assert theorem2.rational_instance(*size, seed=3).status is Status.PROVED


def test_worked_example_band_area_grows_without_bound():
    derived = theorem2.band_and_area()
    assert derived["area"].has(derived["R"])
    verdict = theorem2.worked_example_band()
    assert verdict.status is Status.PROVED, verdict.describe()


@pytest.mark.parametrize("mode", ["theta1 zero", "radius too large"])
def test_dropped_hypotheses_give_a_reverified_common_point(mode):
    verdict = theorem2.disjointness(2, 2, mode)
    assert verdict.status is Status.REFUTED, verdict.describe()
    witness = verdict.witness
    z, theta, r = witness["common point z"], witness["theta"], witness["r"]
    # the common point lies in the box about theta (exactly), and alpha is not a positive scale
    assert all(abs(c - t) <= r for c, t in zip(z, theta))
    assert witness["alpha"] <= 0
    if mode == "theta1 zero":
        assert all(t == 0 for t in theta[:4]) and any(t != 0 for t in theta[4:])
    else:
        assert r >= max(abs(t) for t in theta[:4]) > 0


def test_reverification_rejects_a_point_outside_the_box():
    from fractions import Fraction as F
    point = {"theta": [F(1), F(1)], "y": [F(1), F(1)], "z": [F(5), F(1, 5)], "r": F(1, 2), "t": F(1),
             "A": F(5)}
    assert not theorem2.reverify_common_point(1, 1, point)


def test_nonpositive_alpha_changes_the_loss():
    verdict = theorem2.nonpositive_alpha()
    assert verdict.status is Status.REFUTED and verdict.witness


def test_in_the_main_table(cli):
    result = cli("theorem2", "--size", "2,2,1", "--json")
    assert result.returncode == 0, result.stderr
    assert '"refuted"' not in result.stdout and '"proved"' in result.stdout


def test_a_tiny_budget_gives_undecided_rows_and_no_noise(cli):
    result = cli("theorem2", "--size", "2,2,1", "--timeout", "0.001")
    assert result.returncode == 3, result.stdout + result.stderr
    assert "Traceback" not in result.stderr and "Exception ignored" not in result.stderr


# --- the kernel: what each PROVED rests on, and the z3 oracle's negative controls -----------------

def test_every_proved_claim_rests_on_something_named():
    report = theorem2.run([(1, 2, 1)])
    for row in report.results:
        assert row.verdict.status is Status.PROVED, row.verdict.describe()
        assert row.verdict.rests_on and not row.verdict.theorem.rests_on.empty, row.claim
    rows = {r.claim: r.verdict for r in report.results}
    disjoint = rows["B, T_alpha^k B disjoint (z3 unsat)"]
    assert disjoint.rests_on["oracles"] == ["z3 unsat"] and disjoint.statement.predicate == "unsatisfiable"
    assert "sympy limits" in rows["worked example: band and its area -> oo"].rests_on["oracles"]


def test_a_satisfiable_formula_is_not_z3_unsat():
    import sympy as sp
    from symbolic.decision.solver_oracle import satisfied_at, unsatisfiable
    from symbolic.kernel import by_oracle
    x, y = sp.symbols("x y", real=True)
    formula = sp.And(x > 0, y > x, x * y < 1)
    verdict = by_oracle(Z3_UNSAT, unsatisfiable(formula))
    assert verdict.status is Status.REFUTED and satisfied_at(formula, verdict.witness)
    # the dropped hypothesis, asked directly: not unsat
    dropped, _ = theorem2.disjointness_formula(1, 1, "radius too large")
    assert by_oracle(Z3_UNSAT, unsatisfiable(dropped)).status is Status.REFUTED
    # a formula outside z3's fragment is undecided, even when it has no solution
    assert by_oracle(Z3_UNSAT, unsatisfiable(sp.sin(x) > 2)).status is Status.UNDECIDED
    # a non-linear unsat, on z3's word
    proved = by_oracle(Z3_UNSAT, unsatisfiable(sp.And(x ** 2 + y ** 2 < 0)))
    assert proved.status is Status.PROVED and proved.rests_on["oracles"] == ["z3 unsat"]
