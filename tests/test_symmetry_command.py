"""python -m proofs symmetry SPEC: the README's spec, exit codes, JSON and LaTeX, bad specs."""
import json
import os
import re

import pytest

from proofs.commands.cli import main

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def readme_spec() -> str:
    text = open(os.path.join(ROOT, "docs", "networks.md"), encoding="utf-8").read()
    return re.search(r"<!-- symmetry-spec -->\s*```toml\n(.*?)```", text, re.S).group(1)


def write(tmp_path, text, name="spec.toml"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_readme_spec_is_proved_in_a_fresh_interpreter(cli, tmp_path):
    result = cli("symmetry", write(tmp_path, readme_spec()))
    assert result.returncode == 0, result.stdout + result.stderr
    for claim in ("prediction", "loss", "gradient", "Hessian"):
        assert re.search(rf"^{claim} +\S+ +PROVED", result.stdout, re.M), result.stdout
    assert "overall: PROVED" in result.stdout


def test_unscaled_bias_is_refuted_with_exit_1_json_and_latex(tmp_path, capsys):
    spec = readme_spec().replace('b1 = "c_j * b1"', 'b1 = "b1"').replace("sizes = [1, 2]", "sizes = [1]")
    latex = tmp_path / "out.tex"
    assert main(["symmetry", write(tmp_path, spec), "--json", "--latex", str(latex)]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["status"] == "refuted"
    assert {row["claim"]: row["status"] for row in data["claims"]} == {
        "prediction": "refuted", "loss": "refuted", "gradient": "refuted", "Hessian": "refuted"}
    assert "b1_{1}" in data["claims"][0]["witness"] and "x_{1}" in data["claims"][0]["witness"]
    assert latex.read_text().startswith(r"\documentclass")


def test_permutation_and_residual_specs(tmp_path, capsys):
    spec = """
inputs = 2
sizes = [1]
[[layers]]
type = "residual"
[[layers.layers]]
type = "dense"
units = 2
weight = "A"
[[layers.layers]]
type = "relu"
[[layers.layers]]
type = "dense"
units = 2
weight = "B"
[[layers]]
type = "dense"
units = 1
weight = "v"
[map]
A = { entry = "A", columns = [2, 1] }
B = { entry = "B", rows = [2, 1] }
"""
    assert main(["symmetry", write(tmp_path, spec)]) == 0, capsys.readouterr().out
    assert "overall: PROVED" in capsys.readouterr().out


@pytest.mark.parametrize("edit, message", [
    (lambda s: s.replace('W1 = "c_j * W1"', 'W1 = "__import__(\'os\')"'), "map.W1: unexpected character"),
    (lambda s: s.replace('W1 = "c_j * W1"', 'W1 = "q * W1"'), "unknown name 'q'"),
    (lambda s: s.replace('W1 = "c_j * W1"', 'W9 = "W1"'), "no tensor 'W9'"),
    (lambda s: s.replace('type = "leaky_relu"', 'type = "softmax"'), "unknown layer type"),
    (lambda s: s.replace("units = 2", "units = -2"), "positive integer"),
    (lambda s: s.replace("units = 2", 'units = "2"'), "whole number"),
    (lambda s: s.replace("inputs = 2", "inputs = true"), "inputs must be"),
    (lambda s: s.replace("sizes = [1, 2]", "sizes = [9]"), "sizes must be"),
    (lambda s: s.replace('slope = "1/10"', 'slope = "exp(1)"'), "rational number"),
    (lambda s: s.replace('[group]', 'colour = 1\n[group]'), "unknown key 'colour'"),
    (lambda s: s + "\n[stuff]\n", "unknown key 'stuff'"),
    (lambda s: s.replace('W1 = "c_j * W1"', 'W1 = { entry = "W1", columns = [1, 1] }'), "permutation"),
    (lambda s: s.replace("units = 2", "units = 200"), "at most"),
    (lambda s: s.replace("units = 2", "units = 1180591620717411303424"), "at most"),
    (lambda s: s.replace("inputs = 2", "inputs = [1, 100000000]"), "at most"),
    (lambda s: "inputs = [", "not valid TOML"),
    (lambda s: s.replace('positive = ["c"]', 'positive = ["c_1"]'), "underscore"),
])
def test_bad_specs_are_one_line_and_exit_2(tmp_path, capsys, edit, message):
    assert main(["symmetry", write(tmp_path, edit(readme_spec()))]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "Traceback" not in captured.err
    assert len(captured.err.strip().splitlines()) == 1 and message in captured.err, captured.err


def test_missing_file_and_missing_argument(tmp_path, capsys):
    assert main(["symmetry", str(tmp_path / "absent.toml")]) == 2
    assert "cannot read" in capsys.readouterr().err
    assert main(["symmetry"]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1
