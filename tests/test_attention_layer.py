"""An attention head as a layer: discovery finds W_Q ↦ W_Q A, W_K ↦ W_K A⁻ᵀ as a continuous group of
dimension k² (its diagonal as positive rescalings, the rest as shears), every generator PROVED and
maximality decided; check_symmetry proves the known maps and refutes broken ones with a witness
re-verified here; the spec reads the layer."""
import json

import pytest
import sympy as sp

from proofs.commands.cli import main
from symbolic import Attention, Dense, Model, ModelError, ReLU, Status, Symmetry, check_symmetry, discover_symmetries
from symbolic.networks.attention_head import score_algebra
from symbolic.symmetries.symmetry import prediction_invariance

t = sp.Symbol("t", real=True)
E12 = sp.Matrix([[0, 1], [0, 0]])


def head():
    """Two features, two tokens, a head of dimension 2 with one value channel, read out by v."""
    return Model((2, 2), [Attention(2, "Q", "K", "V", values=1), Dense(1, "v")])


def test_the_score_algebra_is_gl_k():
    model = head()
    basis = score_algebra(model, model.layers[0])
    assert len(basis) == 4                              # k² = 4
    for XQ, XK in basis:                                # X_Q + X_Kᵀ = 0
        assert sp.Matrix(XQ) + sp.Matrix(XK).T == sp.zeros(2, 2)


def test_discovery_finds_the_head_s_gl_2_and_proves_it_maximal():
    report = discover_symmetries(head(), discrete=False)
    # the value/readout scale, the two column scales of W_Q against W_K, and the two shears
    assert report.dimension == 5 and len(report.shears) == 2
    for generator in report.generators + report.shears:
        assert generator.status is Status.PROVED, generator.report.table()
    assert report.maximality.status is Status.PROVED, report.maximality.reason
    assert report.maximality.rests_on["oracles"][0] == "linear-symmetry Jacobian rank bound"
    assert "GL(2), dimension 4: 2 positive rescalings of its columns and 2 shears found" in report.table()
    data = report.as_json()
    assert len(data["shears"]) == 2 and data["dimension_is_maximal"]


def _reverified(model, symmetry, witness) -> bool:
    point = {s: v for s, v in witness.items() if isinstance(s, sp.Symbol)}
    gap = (model.prediction(values=symmetry.tensors()) - model.prediction()).xreplace(point)
    return abs(sp.N(gap.replace(ReLU, lambda a: sp.Max(a, 0)), 50)) > sp.Rational(1, 10 ** 20)


def test_check_symmetry_proves_gl_maps_and_refutes_broken_ones():
    model = head()
    Q, K = model["Q"], model["K"]
    A = sp.Matrix([[2, 1], [1, 1]])
    known = Symmetry(model, {"Q": Q * A, "K": K * A.inv().T})
    assert check_symmetry(model, known, sizes=(1,)).status is Status.PROVED
    shear = Symmetry(model, {"Q": Q * (sp.eye(2) + t * E12), "K": K * (sp.eye(2) - t * E12.T)})
    assert check_symmetry(model, shear, sizes=(1,)).status is Status.PROVED
    # negative controls: A on both sides (not its inverse transpose), a shear with the wrong sign
    for wrong in (Symmetry(model, {"Q": Q * A, "K": K * A}),
                  Symmetry(model, {"Q": Q * (sp.eye(2) + t * E12), "K": K * (sp.eye(2) + t * E12.T)})):
        verdict = prediction_invariance(model, wrong)
        assert verdict.status is Status.REFUTED and _reverified(model, wrong, verdict.witness)


def test_bad_heads_are_refused():
    with pytest.raises(ModelError, match="at least two tokens"):
        Model(2, [Attention(2, "Q", "K", "V")])
    with pytest.raises(ModelError, match="three names"):
        Model((2, 2), [Attention(2, "Q", "Q", "V")])


SPEC = """
inputs = [2, 2]
sizes = [1]
[[layers]]
type = "attention"
head = 2
query = "Q"
key = "K"
value = "V"
values = 1
[[layers]]
type = "dense"
units = 1
weight = "v"
[group]
real = ["t"]
[map]
Q = { entry = "Q", columns = [1, 2] }
"""


def test_the_spec_reads_an_attention_head(tmp_path, capsys):
    path = tmp_path / "spec.toml"
    path.write_text(SPEC)
    assert main(["symmetry", str(path), "--discover", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["dimension"] == 5 and data["dimension_is_maximal"]
    path.write_text(SPEC.replace("head = 2", "head = 0"))
    assert main(["symmetry", str(path)]) == 2
    assert "head must be a positive integer" in capsys.readouterr().err
