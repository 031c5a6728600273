"""``python -m proofs audit --jobs N``: the cells checked in N processes are those of one process,
in the same order, with the same verdicts; a user's measure works (and fails) as on one process."""
import json
import os
import pickle

from symbolic.measures.invariance import Outcome
from symbolic.networks.symmetry_groups import GROUPS
from symbolic.kernel.verdict import Status, Verdict

SMALL_AUDIT = ("audit", "--measure", "path_norm", "--measure", "adaptive_sharpness", "--group", "layerwise",
               "--group", "per_neuron", "--group", "permutation", "--json")


def _without_seconds(rows):
    return [{key: value for key, value in row.items() if key != "seconds"} for row in rows]


def test_two_processes_give_the_json_of_one(cli):
    one, two = cli(*SMALL_AUDIT, "--jobs", "1"), cli(*SMALL_AUDIT, "--jobs", "2")
    assert one.returncode == two.returncode == 0, one.stderr + two.stderr
    rows = json.loads(one.stdout)
    assert [(r["measure"], r["group"]) for r in rows] == [
        (m, g) for g in ("layerwise", "per_neuron", "permutation") for m in ("path_norm", "adaptive_sharpness")]
    assert all(r["status"] == "proved" and r["steps"] and r["sizes"] for r in rows)
    assert _without_seconds(json.loads(two.stdout)) == _without_seconds(rows)


def test_cells_are_checked_in_the_workers_and_come_back_in_order(monkeypatch):
    """Each cell says which process checked it: none is this one, and the order is the plan's."""
    from proofs.commands import audit_command as audit

    def where_checked(measure, group, seed=0):
        return Outcome(Verdict(Status.UNDECIDED, f"{measure} under {group}", reason=str(os.getpid())))
    monkeypatch.setattr(audit, "check_invariance", where_checked)
    measures, groups = ["path_norm", "weight_norm", "hessian_trace"], ["layerwise", "per_neuron", "layernorm"]
    cells = audit.run_audit(measures, groups, jobs=2)
    assert [(c.measure, c.group) for c in cells] == [(m, g) for g in groups for m in measures]
    assert all(c.outcome.verdict.claim == f"{c.measure} under {c.group}" for c in cells)
    assert all(c.outcome.verdict.reason != str(os.getpid()) for c in cells)


def test_outcomes_pickle_whole():
    """What a worker sends back: the verdict, steps, precondition and sizes of a proved, a refuted
    and a not-applicable cell survive pickling."""
    from proofs.commands.audit_command import check_cell
    for measure, group, state in (("path_norm", "per_neuron", "proved"), ("hessian_trace", "layerwise", "refuted"),
                                  ("path_norm", "weight_decay", "not_applicable")):
        cell = check_cell(measure, group, seed=0)
        assert cell.state == state
        copy = pickle.loads(pickle.dumps(cell))
        assert copy.as_json() == cell.as_json()
        assert (copy.outcome.not_applicable, copy.outcome.sizes) == (cell.outcome.not_applicable, cell.outcome.sizes)


def test_the_scheduling_hint_names_every_group():
    from proofs.commands.audit_command import SLOWEST_GROUPS_FIRST
    assert sorted(SLOWEST_GROUPS_FIRST) == sorted(GROUPS)


def test_bad_jobs_exit_2_with_one_line(cli):
    for value in ("0", "x", "-1"):
        result = cli("audit", "--jobs", value, "--group", "layerwise")
        assert result.returncode == 2, value
        assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr, result.stderr
        assert "--jobs" in result.stderr


USER_MEASURES = """
import sympy as sp

def scale_free_gradient(p):
    return sp.Add(*[(t * g) ** 2 for t, g in zip(p.theta, p.gradient)])

def fails(p):
    raise ValueError("this measure fails\\non two lines")
"""


def test_a_users_measure_in_two_processes(cli, tmp_path):
    """The user's function is loaded from a file (not picklable by name): the forked workers
    inherit it; its failure is one line and exit 2, as on one process."""
    path = tmp_path / "mine.py"
    path.write_text(USER_MEASURES)
    good = cli("audit", "--measure-module", f"{path}:scale_free_gradient", "--group", "per_neuron",
               "--group", "layerwise", "--json", "--jobs", "2")
    assert good.returncode == 0, good.stderr
    rows = json.loads(good.stdout)
    assert [(r["measure"], r["group"], r["status"]) for r in rows] == [
        ("scale_free_gradient", "per_neuron", "proved"), ("scale_free_gradient", "layerwise", "proved")]
    for jobs in ("1", "2"):
        bad = cli("audit", "--measure-module", f"{path}:fails", "--group", "per_neuron", "--group", "layerwise",
                  "--jobs", jobs)
        assert bad.returncode == 2, (jobs, bad.stderr)
        assert bad.stderr.strip() == f"proofs: error: the measure {path}:fails cannot be audited: " \
                                     f"ValueError: this measure fails", bad.stderr
