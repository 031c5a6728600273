"""The invariance audit: the cells the issue names, each re-verified here from scratch, and the
whole matrix through the command line (JSON, exit codes, one compiled LaTeX document)."""
import json
import re

import sympy as sp

from symbolic.measures.invariance import check_invariance
from symbolic.verdict import Status

# ---------------------------------------------------------------- the worked example, by hand
a, b = sp.symbols("a b", positive=True)
WORKED_LOSS = sp.Rational(1, 4) * ((a * b - 1) ** 2 + (2 * a * b - 2) ** 2)   # branch a > 0


def worked_hessian(point):
    return sp.hessian(WORKED_LOSS, (a, b)).subs(point)


def test_spectral_norm_refuted_under_layerwise():
    verdict = check_invariance("hessian_spectral_norm", "layerwise").verdict
    assert verdict.status is Status.REFUTED
    assert verdict.witness["theta"] == "(1, 1)" and verdict.witness["group_element"] == "alpha = 1/1000"
    # re-verified: the largest eigenvalue of the worked example's Hessian at (1,1) and (1/1000, 1000)
    lam = [max(worked_hessian({a: x, b: y}).eigenvals()) for x, y in ((1, 1), (sp.Rational(1, 1000), 1000))]
    assert lam == [5, sp.Rational(5, 2) * (sp.Rational(1, 10 ** 6) + 10 ** 6)]
    assert verdict.witness["value_at_theta"].startswith("5.0")
    assert verdict.witness["value_at_T_theta"].startswith("[2500000.0")


def test_trace_refuted_under_layerwise():
    verdict = check_invariance("hessian_trace", "layerwise").verdict
    assert verdict.status is Status.REFUTED
    at_T = worked_hessian({a: sp.Rational(1, 1000), b: 1000}).trace()
    assert (verdict.witness["value_at_theta"], verdict.witness["value_at_T_theta"]) == ("5", str(at_T))


def test_eps_sharpness_refuted_under_layerwise():
    verdict = check_invariance("eps_sharpness", "layerwise").verdict
    assert verdict.status is Status.REFUTED
    low_T, high = _interval(verdict.witness["value_at_T_theta"])[0], _interval(verdict.witness["value_at_theta"])[1]
    assert high < low_T
    # re-verified: (101/1000, 1000) lies in the ε = 1/10 ball around T(1,1) = (1/1000, 1000) and the
    # loss there is (5/4)(101 − 1)² = 12500, far above the upper bound at (1, 1)
    assert (sp.Rational(101, 1000) - sp.Rational(1, 1000)) ** 2 <= sp.Rational(1, 100)
    assert WORKED_LOSS.subs({a: sp.Rational(101, 1000), b: 1000}) == 12500 >= low_T


def _interval(text):
    low, high = re.match(r"in \[([^,]+), ([^\]]+)\]", text).groups()
    return float(low), float(high)


def test_path_norm_and_fisher_rao_proved_under_per_neuron():
    for measure in ("path_norm", "fisher_rao_norm"):
        outcome = check_invariance(measure, "per_neuron")
        assert outcome.verdict.status is Status.PROVED, measure
        assert all(step.holds for step in outcome.steps)
        assert any("witness" in e for e in outcome.verdict.evidence)


def test_adaptive_sharpness_proved_by_change_of_variables():
    for group in ("layerwise", "per_neuron", "deep_layerwise_bias", "batchnorm_scale"):
        outcome = check_invariance("adaptive_sharpness", group)
        assert outcome.verdict.status is Status.PROVED, group
        statements = " ".join(step.statement for step in outcome.steps)
        assert "t_i(S\\theta)" in statements and "L(S\\theta + S\\delta)" in statements


def test_adaptive_sharpness_with_eta_refuted():
    verdict = check_invariance("adaptive_sharpness_eta", "layerwise").verdict
    assert verdict.status is Status.REFUTED
    high = _interval(verdict.witness["value_at_theta"])[1]
    low_T = _interval(verdict.witness["value_at_T_theta"])[0]
    assert high < low_T
    # re-verified: at T(1,1) = (1/1000, 1000), δ = (11/10000, 0) is on the boundary of
    # ‖δ/(|w| + η)‖₂ ≤ ρ (ρ = 1/10, η = 1/100), and there L = (5/4)(2.1 − 1)² = 1.5125
    ratio = (sp.Rational(11, 10000) / (sp.Rational(1, 1000) + sp.Rational(1, 100))) ** 2
    assert ratio == sp.Rational(1, 100)
    assert WORKED_LOSS.subs({a: sp.Rational(21, 10000), b: 1000}) == sp.Rational(121, 80)
    assert float(sp.Rational(121, 80)) >= low_T > high


def test_transported_metric_spectrum_proved_and_plain_hessian_not():
    for group in ("layerwise", "per_neuron", "deep_layerwise_bias", "batchnorm_scale"):
        assert check_invariance("metric_hessian_spectrum", group).verdict.status is Status.PROVED, group
    # the same spectrum without transporting the metric is the plain Hessian's: refuted
    assert check_invariance("hessian_log_pseudo_det", "layerwise").verdict.status is Status.REFUTED


def test_batchnorm_eps_breaks_what_eps_zero_keeps():
    for measure in ("fisher_rao_norm", "normalized_flatness"):
        assert check_invariance(measure, "batchnorm_scale").verdict.status is Status.PROVED
        assert check_invariance(measure, "batchnorm_scale_eps").verdict.status is Status.REFUTED


# ---------------------------------------------------------------- the command line

def test_full_matrix_json_every_cell_decided_and_latex_compiles(cli, tmp_path):
    result = cli("audit", "--json", "--latex", str(tmp_path))
    assert result.returncode == 0, result.stderr
    rows = json.loads(result.stdout)
    assert len(rows) == 16 * 5
    assert {r["status"] for r in rows} <= {"proved", "refuted"}
    for row in rows:
        assert {"measure", "group", "status", "witness", "evidence"} <= set(row)
        if row["status"] == "refuted":
            assert {"theta", "group_element", "value_at_theta", "value_at_T_theta"} <= set(row["witness"])
        else:
            assert row["witness"] is None and row["independent_witness"]
    log = (tmp_path / "audit.log").read_text(errors="replace")
    assert (tmp_path / "audit.pdf").exists()
    overfull = [float(x) for x in re.findall(r"Overfull \\hbox \(([\d.]+)pt too wide", log)]
    assert all(x <= 1 for x in overfull), overfull


def test_table_and_filters(cli):
    result = cli("audit", "--measure", "path_norm", "--group", "per_neuron", "--group", "batchnorm_scale")
    assert result.returncode == 0, result.stderr
    assert re.search(r"path_norm\s+yes\s+NO", result.stdout)
    assert "2 cells: 1 proved invariant, 1 refuted, 0 undecided" in result.stdout


def test_bad_usage_exits_2_with_one_line(cli):
    for args in (["audit", "--measure", "sharpest"], ["audit", "--group", "rotation"], ["audit", "--seed", "x"],
                 ["audit", "--latex", "/proc/no-such-folder/out"]):
        result = cli(*args)
        assert result.returncode == 2
        assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr


def test_an_undecided_cell_exits_3(monkeypatch, capsys):
    """Exit 3 is kept for cells neither proved nor refuted; the reason is printed."""
    from proofs.commands import audit_command as audit
    from symbolic.measures.invariance import Outcome
    from symbolic.verdict import Verdict

    def undecided(measure, group, seed=0):
        return Outcome(Verdict(Status.UNDECIDED, f"{measure} under {group}", reason="no witness found"))
    monkeypatch.setattr(audit, "check_invariance", undecided)
    assert audit.main(["--measure", "path_norm", "--group", "layerwise"]) == 3
    assert "no witness found" in capsys.readouterr().out


def test_reverification_catches_a_wrong_hessian_or_loss():
    """The mpmath re-verification of a counterexample is not vacuous."""
    import dataclasses

    from symbolic.measures.invariance import concrete_point, reverified
    from symbolic.networks.symmetry_groups import GROUPS
    group = GROUPS["deep_layerwise_bias"]
    point = concrete_point(group, group.instance.theta)
    assert reverified(group, [point], [])
    n = len(point.theta)
    assert not reverified(group, [dataclasses.replace(point, hessian=point.hessian + sp.eye(n) / 10 ** 9)], [])
    assert not reverified(group, [dataclasses.replace(point, loss=point.loss + sp.Rational(1, 10 ** 12))], [])
