"""The worked example: derived results against the closed forms (literals only here)."""
import os

import pytest
import sympy as sp

from proofs import worked_example as example
from proofs.commands import example_readings
from symbolic import Status
from symbolic.decision.zero import is_rational_zero
from symbolic.trusted.oracles.linear_algebra import EXACT_EIGENPAIRS
from symbolic.trusted.oracles.numerics import NUMERIC_AGREEMENT

c, delta, M = example.c, example.delta, example.M


@pytest.fixture(scope="module")
def derived():
    return example.derive()


def same(expr, expected):
    return is_rational_zero(sp.sympify(expr) - expected)


def test_hessian_matches_closed_form(derived):
    expected = sp.Rational(5, 2) * sp.Matrix([[c ** -2, 1], [1, c ** 2]])
    assert all(same(derived.hessian[i, j], expected[i, j]) for i in range(2) for j in range(2))


def test_eigenvalues_trace_determinant_norm(derived):
    values = sorted((v for v, _, _ in derived.eigenpairs), key=lambda v: v.subs(c, 1))
    assert values[0] == 0
    assert same(values[1], sp.Rational(5, 2) * (c ** 2 + c ** -2))
    assert same(derived.trace, sp.Rational(5, 2) * (c ** 2 + c ** -2))
    assert derived.determinant == 0
    assert same(derived.spectral_norm, 5 * (c ** 4 + 1) / (2 * c ** 2))


def test_eigenvectors_are_the_orbit_tangent_and_its_normal(derived):
    for value, _, (vector,) in derived.eigenpairs:
        if value == 0:
            # the tangent of s -> (c e^s, e^-s / c): proportional to (c, -1/c)
            assert same(vector[0] * (-1 / c) - vector[1] * c, 0)
        else:
            assert same(vector[0] * c - vector[1] / c, 0)


def test_first_weight_perturbation_has_both_branches(derived):
    branches = {tuple(region): value for region, value in derived.first_weight_branches}
    assert same(branches[(c + delta,)], 5 * delta ** 2 / (4 * c ** 2))
    assert branches[(-c - delta,)] == sp.Rational(5, 4)      # dead ReLU: f ≡ 0


def test_second_weight_perturbation(derived):
    assert same(derived.second_weight_loss, 5 * c ** 2 * delta ** 2 / 4)


def test_every_claim_of_the_script_is_proved():
    report = example.run()
    assert [r.verdict.status for r in report.results] == [Status.PROVED] * len(report.results)
    # each from the kernel, on the oracles it names
    assert all(r.verdict.rests_on["oracles"] for r in report.results)
    oracles = {o for r in report.results for o in r.verdict.rests_on["oracles"]}
    assert {"two-precision numeric agreement", "exact eigenpairs", "exact zero test"} <= oracles


def test_the_eigenpair_oracle_refuses_a_wrong_pair(derived):
    from symbolic.kernel import by_oracle
    from symbolic.numerics.eigenpairs import eigenpairs
    pairs = [(value, vectors) for value, _, vectors in derived.eigenpairs]
    assert by_oracle(EXACT_EIGENPAIRS, eigenpairs(derived.hessian, pairs)).proved
    wrong = [(value + 1, vectors) for value, vectors in pairs]
    assert not by_oracle(EXACT_EIGENPAIRS, eigenpairs(derived.hessian, wrong)).proved
    assert not by_oracle(EXACT_EIGENPAIRS, eigenpairs(derived.hessian, pairs[:1])).proved   # a missing pair
    zero = [(pairs[0][0], (sp.Matrix([0, 0]),)), pairs[1]]
    assert not by_oracle(EXACT_EIGENPAIRS, eigenpairs(derived.hessian, zero)).proved


def test_a_wrong_hessian_entry_is_not_proved_by_the_numeric_witness(derived):
    from symbolic.kernel import by_oracle
    from symbolic.numerics import agreement
    a, b = example.a, example.b
    wrong = agreement.closed_form_derivatives([(example.loss(a, b), (a, b), (1, 1), derived.hessian[0, 1] + c)],
                                              [{a: sp.Integer(2), b: sp.Rational(1, 2), c: sp.Integer(2)}])
    assert not by_oracle(NUMERIC_AGREEMENT, wrong).proved


def test_sharp_scales_reach_every_target(derived):
    for scale in example.sharp_scales().values():
        for target in (1, 10, 10 ** 6):
            value = derived.spectral_norm.subs({c: scale}).subs({M: target})
            assert value >= target


def test_cli_readings_are_exact(cli):
    result = cli("example", "--c", "0.5", "--perturbation", "0.1", "--probe", "-2")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "f(x) = 0" in out and "max(x, 0) = 0" in out
    assert "training loss at (c, 1/c): 0" in out
    assert "L(c + delta, 1/c): 1/20" in out          # 5 δ² / (4 c²) = 5/100
    assert "L(c, 1/c + delta): 1/320" in out         # 5 c² δ² / 4
    assert "[[10, 5/2" in out and "spectral norm: 85/8" in out


def test_cli_dead_relu_branch(cli):
    result = cli("example", "--c", "1", "--perturbation", "-3")
    assert "L(c + delta, 1/c): 5/4" in result.stdout


@pytest.mark.parametrize("args", [["--c", "0"], ["--c", "-1"], ["--c", "abc"], ["--probe", "1/0"],
                                  ["--perturbation", "nan"], ["--plot"]])
def test_cli_bad_values(cli, args):
    result = cli("example", *args)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_plot_is_written(cli, tmp_path):
    target = tmp_path / "sharpness.png"
    result = cli("example", "--c", "2", "--plot", str(target))
    assert result.returncode == 0, result.stderr
    with open(target, "rb") as handle:
        assert handle.read(8) == b"\x89PNG\r\n\x1a\n"
    assert os.path.getsize(target) > 10_000


def _figure(derived, c_value, perturbation, probe="3/2"):
    from fractions import Fraction
    return example_readings.sharpness_figure(Fraction(c_value), Fraction(perturbation), Fraction(probe), derived)


@pytest.mark.parametrize("c_value", ["1e-6", "1/1000", "1", "1e6", "1e40"])
def test_plot_marks_the_chosen_c_inside_its_range(derived, c_value):
    import matplotlib.pyplot as plt
    figure = _figure(derived, c_value, "0.1")
    chosen = float(sp.Rational(c_value))
    for axes in figure.axes:
        low, high = axes.get_xlim()
        assert low < chosen / 10 and chosen * 10 < high
        assert any(list(line.get_xdata()) == [chosen, chosen] for line in axes.get_lines())   # the mark
    plt.close(figure)


def example_in_process(capsys, *args):
    """``python -m proofs example ARGS`` in this interpreter: (exit code, stdout, stderr)."""
    from proofs.commands.cli import main
    code = main(["example", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_plots_at_different_c_differ(capsys, tmp_path):
    images = []
    for c_value in ("1e-6", "1e6"):
        target = tmp_path / f"plot{c_value}.png"
        assert example_in_process(capsys, "--c", c_value, "--plot", str(target))[0] == 0
        images.append(target.read_bytes())
    assert images[0] != images[1]


@pytest.mark.parametrize("perturbation", ["0", "1e-300", "-1/2", "-3"])
def test_plot_draws_only_finite_positive_values(derived, perturbation):
    import math
    import matplotlib.pyplot as plt
    figure = _figure(derived, "1", perturbation)
    top = figure.axes[0]
    curves = [line for line in top.get_lines() if len(line.get_xdata()) > 2]
    assert curves
    for line in curves:
        assert all(math.isfinite(v) and v > 0 for v in line.get_ydata())
    low, high = top.get_ylim()
    # no spike towards 1e-300: the live branch 5 δ²/(4 c²) is drawn from its closed form
    assert math.isfinite(low) and math.isfinite(high) and (low > 1e-30 or perturbation == "1e-300")
    plt.close(figure)


@pytest.mark.parametrize("perturbation, shown", [("-0.5", "L(c - 0.5, 1/c)"), ("0.1", "L(c + 0.1, 1/c)"),
                                                  ("0", "L(c, 1/c)$ = 0 for every c")])
def test_plot_labels_the_perturbation(derived, perturbation, shown):
    import matplotlib.pyplot as plt
    figure = _figure(derived, "1", perturbation)
    labels = " ".join(text.get_text() for text in figure.axes[0].get_legend().get_texts())
    assert shown in labels and "+ -" not in labels
    plt.close(figure)


def test_huge_inputs_print_decimals(capsys):
    code, out, err = example_in_process(capsys, "--c", "1e400", "--perturbation", "1e-400")
    assert code == 0, err
    assert "c = 1.00000000000000e+400" in out
    assert max(len(word) for word in out.split()) < 40       # no 800-digit fractions


def test_plot_refuses_scales_it_cannot_draw(capsys, tmp_path):
    code, _, err = example_in_process(capsys, "--c", "1e400", "--plot", str(tmp_path / "p.png"))
    assert code == 2 and "--plot draws" in err
    assert not (tmp_path / "p.png").exists()


def test_example_prints_its_data_loss_and_dead_branch(capsys):
    _, out, _ = example_in_process(capsys, "--c", "1/2", "--perturbation", "-1")
    assert "training data: (1, 1), (2, 2)" in out
    assert "loss: L(a, b) = 1/2 * 1/N * sum_i (f(x_i) - y_i)^2" in out
    first = next(line for line in out.splitlines() if "L(c + delta, 1/c)" in line)
    assert "L(c + delta, 1/c): 5/4 " in first and "(dead ReLU" in first
