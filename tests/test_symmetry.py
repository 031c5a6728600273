"""check_symmetry: the README example, a true and a false symmetry for each layer kind, the
gradient and Hessian laws, and the report's renderings."""
import json
import os
import re
import shutil

import pytest
import sympy as sp

from symbolic import ReLU as relu, Status, leaky_relu
from symbolic.latex import compile_pdf
from symbolic.networks.model import (Abs, AvgPool1d, Conv1d, Dense, LeakyReLU, MaxPool1d, Maxout, Model,
                            ModelError, ReLU, Residual, Tanh)
from symbolic.symmetries.symmetry import Symmetry, check_symmetry, permutation_matrix, positive_scales
from symbolic.testing import assert_proved, assert_symmetry

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLAIMS = ["prediction", "loss", "gradient", "Hessian"]


def readme_block(marker: str) -> str:
    """The fenced block that follows ``<!-- marker -->`` in the README."""
    text = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    match = re.search(r"<!-- %s -->\s*```\w*\n(.*?)```" % re.escape(marker), text, re.S)
    assert match, f"README has no block marked {marker}"
    return match.group(1)


def predictions_differ_at(model, symmetry, witness) -> bool:
    """Re-evaluate the two predictions exactly at a witness."""
    point = {k: v for k, v in witness.items() if isinstance(k, sp.Symbol)}
    image = model.prediction(values=symmetry.tensors()).xreplace(point)
    return image != model.prediction().xreplace(point)


# --- the README example ---------------------------------------------------------------------

def test_readme_example_proves_all_four_claims_and_refutes_the_unscaled_bias(capsys):
    code = readme_block("symmetry-example")
    assert len(code.strip().splitlines()) <= 15
    namespace = {}
    exec(compile(code, "README.md", "exec"), namespace)
    report, refuted = namespace["report"], namespace["refuted"]
    # two hidden leaky-ReLU layers with biases, per-neuron scales: every claim at N = 1, 2
    assert [(c, n) for c, n, _ in report.rows] == [("prediction", None), ("loss", 1), ("loss", 2),
                                                   ("gradient", 1), ("gradient", 2),
                                                   ("Hessian", 1), ("Hessian", 2)]
    assert all(v.status is Status.PROVED for _, _, v in report.rows), report.table()
    assert "kink" in " ".join(report["prediction"].evidence)
    assert "mpmath.diff" in " ".join(report["Hessian"].evidence)
    # the bias of the second layer left unscaled: every claim REFUTED, the witness re-verified
    assert all(v.status is Status.REFUTED for _, _, v in refuted.rows), refuted.table()
    witness = refuted["prediction"].witness
    assert {"x_{1}", "x_{2}", "b2_{1}", "c_{1}", "e_{1}"} <= {str(k) for k in witness}
    assert predictions_differ_at(namespace["net"], namespace["wrong"], witness)
    assert refuted["gradient"].residual > 0 and "u[b2_{1}]" in refuted["gradient"].witness
    assert "overall: REFUTED" in capsys.readouterr().out


# --- each layer kind: a true symmetry and a false one ---------------------------------------------

c = positive_scales("c", 2)
C = sp.diag(*c)
R = sp.diag(*sp.symbols("r_1:3", real=True))      # scales that may be negative
alpha = sp.Symbol("alpha", positive=True)
P = permutation_matrix([1, 0])


def dense(activation=ReLU(), bias=False):
    return Model(2, [Dense(2, "W", bias="b" if bias else None), activation, Dense(1, "v")])


def conv(pool):
    return Model((1, 4), [Conv1d(2, 2, "K", bias="k"), ReLU(), pool, Dense(1, "v")])


def residual():
    return Model(2, [Residual(Dense(2, "A"), ReLU(), Dense(2, "B")), Dense(1, "v")])


def maxout():
    return Model(2, [Dense(4, "W", bias="b"), Maxout(2), Dense(1, "v")])


PAIRED = sp.diag(c[0], c[0], c[1], c[1])     # both pieces of a maxout unit scaled alike
CROSSED = sp.diag(c[0], c[1], c[1], c[0])    # pieces of one unit scaled differently

# layer kind: (model, true map, false map), maps as functions of the model's tensors
CASES = {
    "dense without bias, ReLU": (dense, lambda t: {"W": t["W"] * C, "v": C.inv() * t["v"]},
                                 lambda t: {"W": t["W"] * C, "v": C * t["v"]}),
    "dense with bias": (lambda: dense(bias=True),
                        lambda t: {"W": t["W"] * C, "b": t["b"] * C, "v": C.inv() * t["v"]},
                        lambda t: {"W": t["W"] * C, "v": C.inv() * t["v"]}),
    "permutation of hidden units": (dense, lambda t: {"W": t["W"] * P, "v": P.T * t["v"]},
                                    lambda t: {"W": t["W"] * P}),
    "leaky ReLU": (lambda: dense(LeakyReLU(sp.Rational(1, 5)), bias=True),
                   lambda t: {"W": t["W"] * C, "b": t["b"] * C, "v": C.inv() * t["v"]},
                   lambda t: {"W": t["W"] * R, "b": t["b"] * R, "v": R.inv() * t["v"]}),
    "Abs": (lambda: dense(Abs()), lambda t: {"W": t["W"] * C, "v": C.inv() * t["v"]},
            lambda t: {"W": t["W"] * R, "v": R.inv() * t["v"]}),
    "maxout": (maxout, lambda t: {"W": t["W"] * PAIRED, "b": t["b"] * PAIRED, "v": C.inv() * t["v"]},
               lambda t: {"W": t["W"] * CROSSED, "b": t["b"] * CROSSED, "v": C.inv() * t["v"]}),
    "conv1d and max pooling": (lambda: conv(MaxPool1d(3)),
                               lambda t: {"K": C * t["K"], "k": C * t["k"], "v": C.inv() * t["v"]},
                               lambda t: {"K": C * t["K"], "v": C.inv() * t["v"]}),
    "conv1d and average pooling": (lambda: conv(AvgPool1d(3)),
                                   lambda t: {"K": C * t["K"], "k": C * t["k"], "v": C.inv() * t["v"]},
                                   lambda t: {"K": R * t["K"], "k": R * t["k"], "v": R.inv() * t["v"]}),
    "residual block": (residual, lambda t: {"A": t["A"] * C, "B": C.inv() * t["B"]},
                       lambda t: {"A": t["A"] * alpha, "v": t["v"] / alpha}),
}


@pytest.mark.parametrize("kind", CASES)
def test_true_symmetry_of_each_layer_kind_is_proved(kind):
    make, true_map, _ = CASES[kind]
    model = make()
    report = assert_symmetry(model, Symmetry(model, true_map(model.tensors)), sizes=(1,))
    assert [c for c, _, _ in report.rows] == CLAIMS


@pytest.mark.parametrize("kind", CASES)
def test_false_symmetry_of_each_layer_kind_is_refuted_with_a_witness(kind):
    make, _, false_map = CASES[kind]
    model = make()
    symmetry = Symmetry(model, false_map(model.tensors))
    report = check_symmetry(model, symmetry, sizes=(1,))
    assert [v.status for _, _, v in report.rows] == [Status.REFUTED] * 4, report.table()
    assert predictions_differ_at(model, symmetry, report["prediction"].witness)
    for claim in ("gradient", "Hessian"):
        # the law fails on the real loss by a difference that does not move with the precision
        verdict = report[claim]
        assert verdict.residual > 0 and any(k.startswith("u[") for k in verdict.witness)


def test_tanh_in_place_of_relu_is_refuted_and_has_no_pattern_form():
    model = dense(Tanh())
    report = check_symmetry(model, Symmetry(model, {"W": model["W"] * C, "v": C.inv() * model["v"]}),
                            sizes=(1,))
    assert [v.status for _, _, v in report.rows] == [Status.REFUTED] * 4
    assert "no exact pattern form" in report["gradient"].reason


def test_the_homogeneity_lemmas_behind_the_layer_kinds():
    s, a = sp.symbols("s a", real=True)
    assert_proved(leaky_relu(a * s, sp.Rational(1, 5)), a * leaky_relu(s, sp.Rational(1, 5)),
                  a="positive")
    assert_proved(sp.Max(a * s, a * 2 * s), a * sp.Max(s, 2 * s), a="positive")
    assert_proved(relu(a * s) + relu(-a * s), a * sp.Abs(s), a="positive")


# --- linear maps that are not monomial, maps that are not linear ---------------------------------

def test_a_mixing_linear_map_has_no_pattern_route_and_its_laws_are_refuted_by_the_witness():
    model = dense()
    shear = sp.Matrix([[1, 1], [0, 1]])
    report = check_symmetry(model, Symmetry(model, {"W": model["W"] * shear,
                                                    "v": shear.inv() * model["v"]}), sizes=(1,))
    assert report["prediction"].status is Status.REFUTED
    # no exact route for a map that mixes parameters: only the real loss's witness, which separates
    # the sides here (the map is no symmetry), so the law is refuted, never proved
    gradient = report["gradient"]
    assert gradient.status is Status.REFUTED and "mixes parameters" in gradient.reason and gradient.witness


def test_a_map_that_is_not_linear_is_checked_for_invariance_only():
    model = dense()
    report = check_symmetry(model, Symmetry(model, {"v": model["v"] + model["v"].applyfunc(lambda e: e ** 2)}),
                            sizes=(1,))
    assert [c for c, _, _ in report.rows] == ["prediction", "loss"]
    assert report.status is Status.REFUTED


def test_mean_squared_error_and_two_data_points():
    model = dense(bias=True)
    symmetry = Symmetry(model, {"W": model["W"] * C, "b": model["b"] * C, "v": C.inv() * model["v"]})
    report = assert_symmetry(model, symmetry, loss="mse", sizes=(2,))
    assert "mean squared error" in report["Hessian"].evidence[0]


@pytest.mark.parametrize("mapping, message", [
    ({"U": sp.zeros(2, 2)}, "not a parameter"),
    ({"W": sp.zeros(1, 2)}, "shape"),
    ({"W": sp.ones(2, 2) * sp.Symbol("x_{1}", real=True)}, "input"),
    ({"W": sp.ones(2, 2) * sp.Symbol("z")}, "real"),
])
def test_bad_maps_are_model_errors(mapping, message):
    with pytest.raises(ModelError, match=message):
        Symmetry(dense(), mapping)


def test_options_are_validated_and_a_tiny_budget_gives_undecided():
    model = dense()
    symmetry = Symmetry(model, {"W": model["W"] * C, "v": C.inv() * model["v"]})
    with pytest.raises(ValueError, match="unknown loss"):
        check_symmetry(model, symmetry, loss="hinge")
    with pytest.raises(ValueError, match="sizes"):
        check_symmetry(model, symmetry, sizes=(0,))
    with pytest.raises(ValueError, match="another model"):
        check_symmetry(dense(), symmetry)
    report = check_symmetry(model, symmetry, sizes=(1,), timeout=1e-4)
    assert report.status is Status.UNDECIDED
    assert all(v.status is not Status.PROVED for _, _, v in report.rows)


# --- renderings: table, JSON, LaTeX, notebook -------------------------------------------------

@pytest.fixture(scope="module")
def reports():
    model = dense(bias=True)
    good = Symmetry(model, {"W": model["W"] * C, "b": model["b"] * C, "v": C.inv() * model["v"]})
    bad = Symmetry(model, {"W": model["W"] * C, "v": C.inv() * model["v"]})
    return check_symmetry(model, good, sizes=(1,)), check_symmetry(model, bad, sizes=(1,))


def test_table_and_json(reports):
    good, bad = reports
    assert "overall: PROVED" in good.table() and "Hessian" in str(good)
    assert "witness: " in bad.table() and "overall: REFUTED" in bad.table()
    data = json.loads(bad.to_json())
    assert data["status"] == "refuted"
    assert [row["claim"] for row in data["claims"]] == CLAIMS
    assert data["claims"][0]["witness"]["x_{1}"]


def test_notebook_display_shows_verdict_claim_in_math_and_witness(reports):
    good, bad = reports
    assert good._repr_latex_().startswith("$$") and r"M^{-T}" in good._repr_latex_()
    assert r"\textbf{REFUTED}" in bad._repr_latex_() and "witness" in bad._repr_latex_()
    page = bad._repr_html_()
    assert "<table>" in page and "REFUTED" in page and "witness" in page
    verdict = bad["prediction"]
    assert r"f_{T\theta}(x) = f_\theta(x)" in verdict._repr_latex_()
    assert r"x_{1} = " in verdict._repr_latex_()
    assert "<li>mpmath.diff" in good["Hessian"]._repr_html_()


def test_latex_derivation_compiles(reports, tmp_path):
    good, _ = reports
    text = good.latex()
    assert text.startswith(r"\documentclass") and r"\nabla L(T\theta) = M^{-T}" in text
    assert text.count(r"\tag{") == 4 and r"c_{1} > 0" in text
    if shutil.which("pdflatex") is None:
        if os.environ.get("CI"):
            pytest.fail("pdflatex is missing on the CI machine")
        pytest.skip("pdflatex is not installed")
    path = tmp_path / "symmetry.tex"
    path.write_text(text)
    ok, errors = compile_pdf(str(path))
    assert ok, errors


def test_the_papers_deep_network_and_its_layer_wise_rescaling():
    from symbolic.networks.deep import DeepNet
    paper = DeepNet((2, 2, 2, 1), bias=True)
    model = Model(2, [Dense(2, "A", bias="a"), ReLU(), Dense(2, "B", bias="b"), ReLU(),
                      Dense(1, "C", bias="c")])
    # the same function as symbolic.networks.deep's network, entry for entry
    rename = {s: t for names, tensors in ((("A", "B", "C"), paper.weights), (("a", "b", "c"), paper.biases))
              for name, tensor in zip(names, tensors) for s, t in zip(model[name], tensor)}
    rename.update(zip([r[0] for r in model.input()], paper.input()))
    assert sp.expand(model.prediction().xreplace(rename) - paper.prediction(paper.input())) == 0
    # θ_k ↦ α_k θ_k with α_3 = 1/(α_1 α_2), biases by the running product (symbolic.networks.deep's rule)
    a1, a2 = sp.symbols("alpha_1 alpha_2", positive=True)
    scales, running = [a1, a2, 1 / (a1 * a2)], [a1, a1 * a2, 1]
    true_map = {name: scale * model[name] for name, scale in zip("ABC", scales)}
    true_map.update({name: scale * model[name] for name, scale in zip("abc", running)})
    assert_symmetry(model, Symmetry(model, true_map), sizes=(1,))
    unscaled_bias = {k: v for k, v in true_map.items() if k != "b"}
    report = check_symmetry(model, Symmetry(model, unscaled_bias), sizes=(1,))
    assert report.status is Status.REFUTED and report["prediction"].witness


def test_the_exact_laws_fail_on_their_own_when_the_regions_are_transported():
    # v scaled by c instead of 1/c: every pre-activation is still a positive multiple, so the
    # pattern transports, and it is the exact polynomial identity that fails, entry named
    from symbolic.networks.activation_patterns import exact_laws, transport
    model = dense()
    wrong = Symmetry(model, {"W": model["W"] * C, "v": C * model["v"]})
    assert transport(model, wrong)[0] is not None
    laws = exact_laws(model, wrong, 1, "any")
    assert laws[1] == (False, "d/dW_{1,1}") and laws[2][0] is False
    report = check_symmetry(model, wrong, sizes=(1,))
    assert "the exact identity fails at d/dW_{1,1}" in report["gradient"].reason
    right = Symmetry(model, {"W": model["W"] * C, "v": C.inv() * model["v"]})
    assert exact_laws(model, right, 2, "mse") == {1: (True, ""), 2: (True, "")}
