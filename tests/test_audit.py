"""The invariance audit: the cells the issue names, each re-verified here from scratch, and the
whole matrix through the command line (JSON, exit codes, one compiled LaTeX document)."""
import json
import time
import re

import sympy as sp

from symbolic.symmetries.invariance import check_invariance
from symbolic.kernel.verdict import Status

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
        assert "t_i(T\\theta)" in statements and "L(T\\theta + T\\delta)" in statements


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


def test_gauss_newton_metric_is_recomputed_not_transported():
    """The metric is G(θ) = (1/N) Σ ∇f ∇fᵀ, recomputed at Tθ: the proof is a congruence of both
    matrices of the pencil, and the witness compares the normalized det(H − λG) at both points."""
    outcome = check_invariance("metric_hessian_spectrum", "layerwise")
    assert outcome.verdict.status is Status.PROVED
    assert any("B(T" in step.statement and step.holds for step in outcome.steps)
    # re-verified by hand on the worked example at (1, 1): G = (1/4) Σ x_n² (b, a)(b, a)ᵀ = (5/4)[[1,1],[1,1]]
    G = sp.Rational(5, 4) * sp.ones(2, 2)
    lam = sp.Symbol("lambda")
    assert sp.Poly((worked_hessian({a: 1, b: 1}) - lam * G).det(), lam).degree() <= 1
    # the plain Hessian's spectrum (no metric) is refuted
    assert check_invariance("hessian_log_pseudo_det", "layerwise").verdict.status is Status.REFUTED


def test_non_symmetries_are_not_applicable_with_their_counterexample():
    """batchnorm_scale_eps moves f, weight_decay moves L: every cell says so, never a ✗."""
    eps = check_invariance("fisher_rao_norm", "batchnorm_scale_eps")
    assert eps.verdict.status is Status.UNDECIDED and "f(T theta) != f(theta)" in eps.not_applicable
    assert check_invariance("fisher_rao_norm", "batchnorm_scale").verdict.status is Status.PROVED
    decay = check_invariance("path_norm", "weight_decay")
    assert "L(T theta) != L(theta)" in decay.not_applicable
    # re-verified: λ‖θ‖² with λ = 1/100 at (1, 1) and at T(1, 1) = (1/1000, 1000), L_data = 0 at both
    lam = sp.Rational(1, 100)
    assert decay.verdict.witness["value_at_theta"] == str(lam * 2)
    assert decay.verdict.witness["value_at_T_theta"] == str(lam * (sp.Rational(1, 10 ** 6) + 10 ** 6))


def test_new_groups_are_symmetries_and_their_cells():
    for measure, group in (("path_norm", "permutation"), ("hessian_trace", "permutation"),
                           ("adaptive_sharpness", "sign_flip"), ("weight_norm", "sign_flip"),
                           ("normalized_flatness", "batchnorm_affine")):
        outcome = check_invariance(measure, group)
        assert outcome.verdict.status is Status.PROVED, (measure, group, outcome.verdict.reason)
        assert outcome.steps[0].statement.startswith(r"f \circ T = f")
        assert outcome.sizes and all(isinstance(size, str) for size in outcome.sizes)
    # element-wise adaptive sharpness fails under GL(2) (da Silva et al. 2025); the Fisher-Rao norm holds
    assert check_invariance("adaptive_sharpness", "attention_qk").verdict.status is Status.REFUTED
    assert check_invariance("fisher_rao_norm", "attention_qk").verdict.status is Status.PROVED


def test_layernorm_is_a_symmetry_weight_norms_move_and_scale_free_measures_hold():
    """W ↦ cW in front of LayerNorm (ε = 0): f does not move (proved first, with the homogeneity
    of each input's spread over the units), the path norm does, the Fisher-Rao norm does not."""
    outcome = check_invariance("fisher_rao_norm", "layernorm")
    assert outcome.verdict.status is Status.PROVED, outcome.verdict.reason
    assert outcome.steps[0].statement.startswith(r"f \circ T = f") and outcome.steps[0].holds
    assert any(step.statement.startswith("R_n(cW)^2") and step.holds for step in outcome.steps)
    assert outcome.sizes == ["d=1, h=3, N=2", "d=2, h=3, N=1"]
    assert check_invariance("adaptive_sharpness", "layernorm").verdict.status is Status.PROVED
    verdict = check_invariance("path_norm_l1", "layernorm").verdict
    assert verdict.status is Status.REFUTED
    # re-verified by hand: W₀ = (100, 100, 0, 0) has mean 50 and variance 2500, so LN(x W₀) =
    # (1, 1, −1, −1) for x > 0 and f = v₁·ReLU(1) = 10 (a minimum, L = 0); the one path through
    # the unit read out has |W₁₁ v₁| = 1000 at θ₀ and 1000/10⁵ at Tθ₀
    W0, v0, c = [100, 100, 0, 0], 10, sp.Rational(1, 100000)
    mean = sp.Rational(sum(W0), 4)
    sd = sp.sqrt(sum((w - mean) ** 2 for w in W0) / 4)
    assert [(w - mean) / sd for w in W0] == [1, 1, -1, -1]
    assert verdict.witness["targets"] == f"({v0}, {v0})"
    assert (verdict.witness["value_at_theta"], verdict.witness["value_at_T_theta"]) == \
        (str(W0[0] * v0), str(c * W0[0] * v0))


def test_layernorm_outside_its_domain_is_skipped_not_evaluated():
    """LayerNorm with ε = 0 is undefined where the units' variance is 0 (a set W ↦ cW maps onto
    itself): a concrete point there is refused like a kink, never given a value."""
    import pytest

    from symbolic.measures.invariance import Kink, concrete_point
    from symbolic.networks.symmetry_groups import GROUPS
    with pytest.raises(Kink):
        concrete_point(GROUPS["layernorm"], [1, 1, 1, 1, 10])


def test_even_powers_are_enclosed_non_negative():
    """arb's |x| keeps a ball around 0 as it is; x² is cut at 0, so sqrt(x² + y²) stays finite."""
    import flint

    from symbolic.numerics.interval import compile_arb
    x, y = sp.symbols("x y")
    box = [flint.arb(-2).union(flint.arb(-1)), flint.arb(0).union(flint.arb(1))]
    ball = compile_arb(sp.sqrt(x ** 2 + y ** 2), [x, y])(box)
    assert ball.is_finite() and ball.lower() <= 1 and ball.upper() >= sp.sqrt(5).evalf()


def test_average_sharpness_refuted_with_rigorous_values_that_contain_the_closed_form():
    """E over δ ~ N(0, σ²I) of the worked example's loss, σ = 1/10, in closed form with erf:
    L = (5/4)(ReLU(a)b − 1)², a, b independent normals; E ReLU(u) and E ReLU(u)² by Φ and φ."""
    import mpmath
    verdict = check_invariance("average_sharpness", "layerwise").verdict
    assert verdict.status is Status.REFUTED
    mpmath.mp.dps = 30
    sigma = mpmath.mpf(1) / 10

    def expected(mean_a, mean_b):
        z = mean_a / sigma
        Phi, phi = mpmath.ncdf(z), mpmath.npdf(z)
        relu1 = mean_a * Phi + sigma * phi
        relu2 = (mean_a ** 2 + sigma ** 2) * Phi + mean_a * sigma * phi
        return mpmath.mpf(5) / 4 * (relu2 * (mean_b ** 2 + sigma ** 2) - 2 * relu1 * mean_b + 1)
    for key, point in (("value_at_theta", (1, 1)), ("value_at_T_theta", (mpmath.mpf(1) / 1000, 1000))):
        low, high = _interval(verdict.witness[key])
        assert low <= expected(*map(mpmath.mpf, point)) <= high, key
    # invariant where T is a signed permutation (the Gaussian is isotropic)
    assert check_invariance("average_sharpness", "permutation").verdict.status is Status.PROVED
    assert check_invariance("adaptive_average_sharpness", "per_neuron").verdict.status is Status.PROVED


def test_maximum_upper_bound_rechecked_by_mpmath_intervals():
    """The second interval extension bounds a maximum from above, and the evidence names it."""
    from fractions import Fraction
    from symbolic.numerics.interval import ScaledSet, maximize, recheck_upper
    x, y = sp.symbols("x y")
    region = ScaledSet([Fraction(0), Fraction(0)], [Fraction(1), Fraction(1)], Fraction(1), 2)
    bounds = maximize(x * y - x ** 2, [x, y], region, budget=64)
    upper = recheck_upper(x * y - x ** 2, [x, y], region, bounds.leaves)
    true_max = (sp.sqrt(2) - 1) / 2          # max of xy − x² on the unit disc
    assert float(true_max) <= upper < 2
    verdict = check_invariance("eps_sharpness", "layerwise").verdict
    assert "re-checked by mpmath interval arithmetic" in verdict.witness["value_at_theta"] + \
        verdict.witness["value_at_T_theta"]


# ---------------------------------------------------------------- the command line

FAST_MEASURES = ("hessian_trace", "path_norm_l1", "spectral_norm_product")


def test_matrix_json_every_cell_decided_with_sizes_and_latex_compiles(cli, tmp_path):
    """Three fast measures under every group (the whole matrix is the README's command)."""
    args = [a for m in FAST_MEASURES for a in ("--measure", m)]
    result = cli("audit", "--json", "--latex", str(tmp_path), *args)
    assert result.returncode == 0, result.stderr
    rows = json.loads(result.stdout)
    from symbolic.networks.symmetry_groups import GROUPS
    assert len(rows) == len(FAST_MEASURES) * len(GROUPS) == len(FAST_MEASURES) * 11
    assert {r["status"] for r in rows} == {"proved", "refuted", "not_applicable"}
    for row in rows:
        assert {"measure", "group", "status", "witness", "evidence", "sizes"} <= set(row)
        assert row["sizes"] == "all" or (row["sizes"] and isinstance(row["sizes"], list))
        if row["status"] in ("refuted", "not_applicable"):
            assert {"theta", "group_element", "value_at_theta", "value_at_T_theta"} <= set(row["witness"])
        else:
            assert row["witness"] is None and row["independent_witness"] and row["instance_sizes"]
            # a cell proved for every size says how; the others what an every-size proof would need
            assert (row["sizes"] == "all") == (row["every_size"] is not None) != bool(row["every_size_route"])
        assert (row["status"] == "not_applicable") == (row["group"] in ("batchnorm_scale_eps", "weight_decay"))
    tex = (tmp_path / "audit.tex").read_text()
    assert r"\left(" in tex and r"\tfrac{1}{1000}" in tex       # footnotes typeset as mathematics
    assert "Bartlett et al. 2017" in tex and "n/a" in tex
    log = (tmp_path / "audit.log").read_text(errors="replace")
    assert (tmp_path / "audit.pdf").exists()
    overfull = [float(x) for x in re.findall(r"Overfull \\hbox \(([\d.]+)pt too wide", log)]
    assert all(x <= 1 for x in overfull), overfull


def test_table_and_filters(cli):
    result = cli("audit", "--measure", "path_norm", "--group", "per_neuron", "--group", "batchnorm_scale")
    assert result.returncode == 0, result.stderr
    assert re.search(r"path_norm\s+yes\s+NO", result.stdout)          # per neuron: for every size
    assert "2 cells: 1 proved invariant (1 for every size), 1 refuted, 0 not applicable, 0 undecided" in result.stdout


USER_MEASURES = """
import sympy as sp

def scale_free_gradient(p):
    return sp.Add(*[(t * g) ** 2 for t, g in zip(p.theta, p.gradient)])

not_a_function = 3

def returns_a_list(p):
    return [1, 2]
"""


def test_measure_module_audits_a_users_measure_and_rejects_bad_ones(cli, tmp_path):
    path = tmp_path / "mine.py"
    path.write_text(USER_MEASURES)
    good = cli("audit", "--measure-module", f"{path}:scale_free_gradient", "--group", "per_neuron", "--json")
    assert good.returncode == 0, good.stderr
    (row,) = json.loads(good.stdout)
    assert (row["measure"], row["status"]) == ("scale_free_gradient", "proved")
    for spec in (f"{path}:missing", f"{path}:not_a_function", f"{path}:returns_a_list", "no_such_module:f"):
        bad = cli("audit", "--measure-module", spec, "--group", "layerwise")
        assert bad.returncode == 2, spec
        assert len(bad.stderr.strip().splitlines()) == 1 and "Traceback" not in bad.stderr, bad.stderr


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
    from symbolic.kernel.verdict import Verdict

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


def test_a_cell_past_its_time_budget_is_undecided_and_the_audit_goes_on(cli, tmp_path):
    # L^10 is invariant, but its exact zero test takes minutes: the cell's budget stops it
    path = tmp_path / "slow.py"
    path.write_text("def tenth_power(p):\n    return p.loss ** 10\n")
    start = time.monotonic()
    done = cli("audit", "--measure-module", f"{path}:tenth_power", "--group", "layerwise", "--cell-seconds", "3",
               "--json", "--jobs", "1")
    (row,) = json.loads(done.stdout)
    assert row["status"] == "undecided" and "time budget of 3 s ran out" in row["reason"], row
    # 3 s for the cell, the rest loading the project and the group's proofs (a loaded machine takes longer)
    assert time.monotonic() - start < 120
