"""LaTeX derivations: rendering, and compilation by a real TeX engine (a failure, not a skip, in CI)."""
import os
import re
import shutil
import subprocess

import pytest
import sympy as sp

from proofs.commands import registry
from symbolic.latex import escape, overfull_boxes, render, to_latex, to_plain

RESULT_WORDS = {"theorem1": "Theorem 1", "theorem3": "Theorem 3", "theorem4": "Theorem 4",
                "worked_example": "worked example", "epsilon_sharpness": "Section 4.3",
                "reparametrization": "Section 5", "theorem2": "Theorem 2", "theorem5": "Theorem 5",
                "flat_directions": "flat directions", "biases": "Appendix B",
                "all_sizes": "Theorems 1 and 3 for all sizes",
                "measures_all_sizes": "invariant under rescaling for every size"}


def require(tool):
    if shutil.which(tool) is None:
        if os.environ.get("CI"):
            pytest.fail(f"{tool} is missing on the CI machine")
        pytest.skip(f"{tool} is not installed")


def test_heaviside_is_an_indicator_not_theta():
    s = sp.Symbol("s")
    text = to_latex(sp.Heaviside(s) ** 2)
    assert r"\theta" not in text and r"\mathbf{1}" in text


def test_escape_keeps_math_and_escapes_text():
    assert escape("T_alpha & 50%") == r"T\_alpha \& 50\%"
    assert escape(r"map $T_\alpha$ > 0") == r"map $T_\alpha$ \textgreater{} 0"
    with pytest.raises(ValueError):
        escape("unbalanced $x")


@pytest.mark.parametrize("name", registry.names())
def test_every_document_names_its_source_steps_and_verdict(name):
    report = registry.load(name).run([(1, 1, 1), (2, 2, 2)] if name != "worked_example" else None)
    text = render(report.derivation)
    assert text.startswith(r"\documentclass") and text.rstrip().endswith(r"\end{document}")
    assert r"\begin{align*}" in text and "Source." in text and "PROVED" in text
    assert text.count(r"\tag{") == len(report.derivation.all_steps)
    # the same steps as the terminal prints them: no LaTeX left over
    for step in report.derivation.all_steps:
        plain = to_plain(step.reason)
        assert "\\" not in plain and "$" not in plain, plain
        assert not re.search(r"operatorname|mathrm|infty|\^\{|_\{", plain), plain


def test_every_result_compiles_to_a_pdf_that_names_it_and_its_verdict(cli, tmp_path):
    require("pdflatex")
    require("pdftotext")
    result = cli("--latex", str(tmp_path), "--max-d", "2", "--max-h", "2", "--max-n", "2")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "FAILED" not in result.stdout
    for name in registry.names():
        pdf = tmp_path / f"{name}.pdf"
        assert pdf.exists(), f"{name}.pdf was not produced"
        text = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True).stdout
        assert RESULT_WORDS[name].lower() in text.lower()
        assert "PROVED" in text
        log = (tmp_path / f"{name}.log").read_text(errors="replace")
        assert "! " not in log
        # no display or line wider than the text block
        assert overfull_boxes(log) == [], f"{name}.pdf: {overfull_boxes(log)}"


def test_unwritable_latex_folder_is_bad_input(cli, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    result = cli("worked_example", "--latex", str(blocker / "sub"))
    assert result.returncode == 2 and "Traceback" not in result.stderr
