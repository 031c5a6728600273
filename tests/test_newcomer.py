"""What a new user meets first: plain text without LaTeX debris, messages that name the layer and
the rule broken, witnesses in every rendering of a refuted claim (compiled, nothing in the
margin), undecided reasons in full, and the spec's conventions in its messages."""
import os
import re
import shutil
import subprocess

import pytest
import sympy as sp

from proofs.commands.arguments import UsageError
from proofs.commands.cli import help_epilog
from proofs.commands.symmetry_command import build_model, build_symmetry
from symbolic import Dense, Model, ModelError, ReLULayer, Status, Symmetry, Verdict, check_symmetry
from symbolic import positive_scales
from symbolic.latex import overfull_boxes, to_plain
from symbolic.symmetries.symmetry import SymmetryReport
from symbolic.report import counted


def require(tool):
    if shutil.which(tool) is None:
        if os.environ.get("CI"):
            pytest.fail(f"{tool} is missing on the CI machine")
        pytest.skip(f"{tool} is not installed")


# --- plain text ----------------------------------------------------------------------------------

@pytest.mark.parametrize("latex, plain", [
    (r"every volume $V$ is reached inside $C$, so $\operatorname{vol} C = \infty$",
     "every volume V is reached inside C, so vol C = inf"),
    (r"meets $C$ through the orbit $\{T_s\theta\}$, on which $L = L(\theta)$",
     "meets C through the orbit {T_s theta}, on which L = L(theta)"),
    (r"$D_\alpha = \operatorname{diag}(\alpha_k^{-1})$", "D_alpha = diag(alpha_k^(-1))"),
    (r"a radius below $\|\theta_1\|_\infty$", "a radius below ||theta_1||_inf"),
    (r"volume $\alpha^0 (2r)^{n_1 + n_2}$", "volume alpha^0 (2r)^(n_1 + n_2)"),
    (r"$\tfrac1N\sum_n (f(x_n) - y_n)^2$, $\frac{a+b}{2}$", "1/N sum_n (f(x_n) - y_n)^2, (a+b)/2"),
    (r"$A = \alpha^k \ge \alpha$ (a typo for $\ge$)", "A = alpha^k >= alpha (a typo for >=)"),
])
def test_plain_text_reads_latex_commands_groups_and_scripts(latex, plain):
    assert to_plain(latex) == plain


def test_top_level_help_has_no_restructuredtext_markup():
    assert "``" not in help_epilog()


def test_counts_agree_with_their_noun():
    assert [counted(1, "box", "boxes"), counted(3, "box", "boxes"), counted(1, "claim"),
            counted(0, "claim")] == ["1 box", "3 boxes", "1 claim", "0 claims"]


# --- messages ------------------------------------------------------------------------------------

def test_a_model_error_names_the_layer():
    with pytest.raises(ModelError, match=r"^layer 3 \(Dense\): Dense.units must be a positive integer"):
        Model(2, [Dense(2, "W"), ReLULayer(), Dense(0, "v")])
    with pytest.raises(ModelError, match=r"^layer 2 is not a layer"):
        Model(2, [Dense(1, "W"), "relu"])


SPEC = {"inputs": 2, "layers": [{"type": "dense", "units": 2, "weight": "W"}, {"type": "relu"},
                                {"type": "dense", "units": 1, "weight": "v"}],
        "map": {"W": "c_j * W", "v": "v / c_i"}}


@pytest.mark.parametrize("names, rule", [
    (["W"], "is already a tensor of the model"), (["c", "c"], "is declared twice"),
    (["c_1"], "has an underscore"), (["xc"], "starts with x, which the model keeps for its inputs")])
def test_a_group_parameter_name_says_which_rule_it_breaks(names, rule):
    spec = {**SPEC, "group": {"positive": names}}
    with pytest.raises(UsageError, match=f"group.positive: the name '{names[-1]}' {rule}"):
        build_symmetry(build_model(spec), spec)


def test_a_bad_permutation_says_positions_count_from_1():
    spec = {**SPEC, "group": {"positive": ["c"]}, "map": {"W": {"entry": "W", "columns": [0, 1]}}}
    with pytest.raises(UsageError, match=r"permutation of 1..2 \(positions count from 1"):
        build_symmetry(build_model(spec), spec)


# --- refuted and undecided claims ----------------------------------------------------------------

@pytest.fixture(scope="module")
def refuted():
    """A hidden layer scaled by c_j with the output weight left alone: every claim refuted."""
    net = Model(2, [Dense(2, "W"), ReLULayer(), Dense(1, "v")])
    C = sp.diag(*positive_scales("c", 2))
    return check_symmetry(net, Symmetry(net, {"W": net["W"] * C}), sizes=(1,), loss="mse")


def test_a_law_witness_names_its_loss_constants_and_the_reason_explains_them(refuted):
    law = refuted["gradient"]
    assert law.status is Status.REFUTED and "loss target 1" in law.witness
    assert "loss target n = y_n" in law.reason


def test_a_loss_witness_says_which_group_parameters_cancel():
    # W·C and C⁻¹v, but the bias-free output scaled by 2: c cancels from both sides
    net = Model(2, [Dense(2, "W"), ReLULayer(), Dense(1, "v")])
    C = sp.diag(*positive_scales("c", 2))
    loss = check_symmetry(net, Symmetry(net, {"W": net["W"] * C, "v": 2 * C.inv() * net["v"]}),
                          sizes=(1,))["loss"]
    assert loss.status is Status.REFUTED
    assert not {"c_{1}", "c_{2}"} & {str(k) for k in loss.witness}
    assert "the group parameters c_{1}, c_{2} cancel from both sides" in loss.reason


def test_undecided_reasons_are_printed_in_full_below_the_table(refuted):
    reason = "the time budget ran out " + "while the exact test was still running " * 4
    report = SymmetryReport(refuted.model, refuted.symmetry,
                            rows=[("prediction", None, Verdict(Status.UNDECIDED, "prediction", reason=reason))])
    table = report.table()
    assert "..." in table.splitlines()[2]                  # the row shortens it
    assert f"UNDECIDED prediction: {reason}" in table       # below the table it is whole


def _compile(tmp_path, name, text):
    path = tmp_path / f"{name}.tex"
    path.write_text(text, encoding="utf-8")
    subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", path.name],
                   cwd=tmp_path, capture_output=True, timeout=120)
    log = (tmp_path / f"{name}.log").read_text(errors="replace")
    pdf_text = subprocess.run(["pdftotext", str(tmp_path / f"{name}.pdf"), "-"],
                              capture_output=True, text=True).stdout
    return log, " ".join(pdf_text.split())


def _shown_values(verdict):
    """The witness's rational values as they read in a PDF (p/q, a minus sign as −)."""
    return [str(v).replace("-", "−") for v in verdict.witness.values() if sp.sympify(v).is_Rational]


def test_the_latex_document_of_a_refuted_symmetry_shows_every_witness_within_the_margins(refuted, tmp_path):
    require("pdflatex")
    require("pdftotext")
    log, text = _compile(tmp_path, "report", refuted.latex())
    assert "! " not in log and overfull_boxes(log) == []
    assert "Refuted and undecided checks" in text
    for _, _, verdict in refuted.rows:
        assert verdict.witness
        for value in _shown_values(verdict):
            assert value.replace("−", "− ") in text or value in text, value


def test_the_notebook_display_breaks_the_witness_over_lines(refuted, tmp_path):
    require("pdflatex")
    require("pdftotext")
    body = refuted._repr_latex_() + "\n\n" + refuted["loss"]._repr_latex_()
    log, text = _compile(tmp_path, "display", "\n".join([
        r"\documentclass[11pt]{article}", r"\usepackage[margin=2.2cm]{geometry}",
        r"\usepackage{amsmath,amssymb}", r"\begin{document}", body, r"\end{document}"]))
    assert "! " not in log and overfull_boxes(log) == []
    assert all(f"witness ({claim}" in text for claim, _, _ in refuted.rows)
    for value in _shown_values(refuted["prediction"]):
        assert re.sub(r"\s", "", value) in re.sub(r"\s", "", text), value


def test_long_exact_numbers_break_in_documents_and_displays(tmp_path):
    require("pdflatex")
    require("pdftotext")
    from symbolic.derivation import Derivation
    from symbolic.latex import render
    huge = sp.Rational(10 ** 150 + 1, 7)
    verdict = Verdict(Status.REFUTED, "x = 0", witness={sp.Symbol("x"): huge, "u[W1_{1,1}]": sp.Rational(1, 2)},
                      reason=f"the two sides differ: {huge} against 0", details={"latex": "x = 0"})
    derivation = Derivation(name="long", title="Long numbers", source="a test", statement="$x = 0$.",
                            definitions=["$x$ is a real number."])
    derivation.add([verdict], "a check")
    body = render(derivation).replace(r"\end{document}", verdict._repr_latex_() + "\n" + r"\end{document}")
    log, text = _compile(tmp_path, "long", body)
    assert "! " not in log and overfull_boxes(log) == []
    digits = re.sub(r"\s", "", text)
    # the number in the reason, in the witness of the document and in the display, each in full
    assert digits.count(str(huge)) == 3
