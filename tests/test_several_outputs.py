"""A network with several outputs: a two-output ReLU net with an output bias, checked, discovered and
read from a spec."""
import subprocess
import sys

import pytest
import sympy as sp

from symbolic.symmetries.discovery import discover_symmetries
from symbolic.networks.losses import loss_of_predictions
from symbolic.networks.model import Dense, Model, ModelError, ReLU
from symbolic.symmetries.symmetry import Symmetry, check_symmetry, positive_scales
from symbolic.kernel.verdict import Status

from proofs.commands.symmetry_command import LAYERS, build_model


def two_outputs(outputs=2):
    return Model(2, [Dense(2, "W", bias="b"), ReLU(), Dense(outputs, "V", bias="d")])


def per_unit_rescaling(model, broken=False):
    c = positive_scales("c", 2)
    C = sp.diag(*c)
    mapping = {"W": model["W"] * C, "b": model["b"] * C, "V": C.inv() * model["V"]}
    if broken:
        # the output bias scaled too: the first output changes
        mapping["d"] = model["d"].applyfunc(lambda e: c[0] * e)
    return Symmetry(model, mapping)


def test_the_prediction_is_a_vector_of_the_last_layer():
    model = two_outputs()
    assert model.outputs == 2
    W, b, V, d = model["W"], model["b"], model["V"], model["d"]
    x = [row[0] for row in model.input()]
    hidden = [sp.Max(sum(x[i] * W[i, j] for i in range(2)) + b[0, j], 0) for j in range(2)]
    for k, f_k in enumerate(model.predictions()):
        expected = sum(hidden[j] * V[j, k] for j in range(2)) + d[0, k]
        # exact rational values at points that reach both sides of each unit's kink
        values = [(f_k.xreplace(point), expected.xreplace(point)) for point in _points(model)]
        assert all(a.is_Rational and a == e for a, e in values)
    with pytest.raises(ModelError, match="2 outputs"):
        model.prediction()


def _points(model):
    symbols = [*model.parameters, *(s for row in model.input() for s in row)]
    return [{s: sp.Rational((7 * k + 3 * m) % 11 - 5, 1 + m % 3) for m, s in enumerate(symbols)} for k in range(4)]


@pytest.mark.parametrize("loss", ["any", "mse", "cross_entropy"])
def test_check_symmetry_proves_the_rescaling_per_unit(loss):
    model = two_outputs()
    report = check_symmetry(model, per_unit_rescaling(model), loss=loss, sizes=(1, 2))
    assert report.status is Status.PROVED, report.table()
    claims = {claim for claim, _, _ in report.rows}
    assert claims == {"prediction", "loss", "gradient", "Hessian"}
    for _, _, verdict in report.rows:
        assert verdict.rests_on
    # the prediction is one identity per output, combined
    assert "one exact identity per output, 2 outputs" in report["prediction"].evidence


def test_a_broken_rescaling_is_refuted_with_a_witness_that_holds():
    model = two_outputs()
    broken = per_unit_rescaling(model, broken=True)
    report = check_symmetry(model, broken, sizes=(1,))
    verdict = report["prediction"]
    assert verdict.status is Status.REFUTED
    # re-verified: at the witness the first output of T theta differs from that of theta (the
    # witness gives a value to every symbol of that output)
    assert "f_1(T theta)(x)" in verdict.reason
    point = {s: sp.Rational(v) for s, v in verdict.witness.items() if isinstance(s, sp.Symbol)}
    image = model.predictions(values=broken.tensors())[0].xreplace(point)
    original = model.predictions()[0].xreplace(point)
    assert image.is_Rational and original.is_Rational and image != original
    assert report.verdict("loss", 1).status is Status.REFUTED


def test_discovery_finds_one_scale_per_hidden_unit_as_for_one_output():
    two, one = discover_symmetries(two_outputs(), discrete=False), discover_symmetries(two_outputs(1), discrete=False)
    assert two.dimension == one.dimension == 2
    for report in (two, one):
        assert all(g.status is Status.PROVED for g in report.generators), report.table()
        assert report.maximality.status is Status.PROVED and report.maximality.rests_on
    model_two, model_one = two.model, one.model

    def exponents(report, model):
        by_symbol = [dict(zip(model.parameters, g.exponents)) for g in report.generators]
        return [({str(s): e[s] for s in [*model["W"], *model["b"]]},
                 [{e[s] for s in model["V"].row(j)} for j in range(2)], {e[s] for s in model["d"]})
                for e in by_symbol]
    found_two, found_one = exponents(two, model_two), exponents(one, model_one)
    # the same exponents on the hidden layer, each row of V scaled alike, the output bias never
    assert sorted(str(f[0]) for f in found_two) == sorted(str(f[0]) for f in found_one)
    for incoming, rows, bias in found_two:
        assert all(len(row) == 1 for row in rows) and bias == {0}
        assert [row.pop() for row in rows] == [-incoming["W_{1,%d}" % (j + 1)] for j in range(2)]


def test_the_spec_accepts_two_outputs_last(tmp_path):
    spec = {"inputs": 2, "layers": [{"type": "dense", "units": 2, "weight": "W", "bias": "b"},
                                    {"type": "relu"},
                                    {"type": "dense", "units": 2, "weight": "V", "bias": "d"}]}
    assert build_model(spec).outputs == 2
    path = tmp_path / "two.toml"
    path.write_text('inputs = 2\nsizes = [1]\n[[layers]]\ntype = "dense"\nunits = 2\nweight = "W"\n'
                    'bias = "b"\n[[layers]]\ntype = "relu"\n[[layers]]\ntype = "dense"\nunits = 2\n'
                    'weight = "V"\nbias = "d"\n[group]\npositive = ["c"]\n[map]\nW = "c_j * W"\n'
                    'b = "c_j * b"\nV = "V / c_i"\n')
    result = subprocess.run([sys.executable, "-m", "proofs", "symmetry", str(path)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "overall: PROVED" in result.stdout


def test_symmetry_help_lists_every_layer_type_with_its_fields():
    result = subprocess.run([sys.executable, "-m", "proofs", "symmetry", "--help"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    text = result.stdout
    lines = text.splitlines()
    for kind, (_, fields) in {**LAYERS, "residual": (None, {"layers.layers": None})}.items():
        # the type's line names each of its fields
        line = next(line for line in lines if line.split()[:1] == [kind])
        assert all(field in line for field in fields), (kind, line)
    assert 'slope ("1/100")' in text and "bias (none)" in text
    assert "docs/spec_reference.md" in text


def test_a_group_parameter_named_like_a_parameter_is_refused():
    import pytest
    import sympy as sp
    from symbolic import Dense, Model, ModelError, ReLULayer, Symmetry
    model = Model(1, [Dense(1, "W"), ReLULayer(), Dense(2, "V", bias="c")])
    clash = sp.Symbol("c_{1}", positive=True)          # the output bias c is c_{1} too, but real
    with pytest.raises(ModelError, match="has the name of a parameter"):
        Symmetry(model, {"W": model["W"] * clash, "V": model["V"] / clash})


def test_the_losses_of_a_vector_prediction_follow_their_conventions():
    # two points, two outputs: the MSE sums the squared errors over the outputs, averages over the points
    predictions, targets = [[1, 2], [3, 4]], [[0, 1], [1, 1]]
    assert loss_of_predictions("mse", predictions, targets) == sp.Rational(1 + 1 + 4 + 9, 2)
    assert loss_of_predictions("absolute", predictions, targets) == sp.Rational(1 + 1 + 2 + 3, 2)
    # the generic loss is one function of the K N predictions, point by point, output by output
    generic = loss_of_predictions("generic", predictions, [])
    assert generic.args == (1, 2, 3, 4)
    # the cross-entropy of class labels: log sum_k exp f_k - f_(y_n), classes from 0
    f = sp.symbols("f1:5", real=True)
    labelled = loss_of_predictions("cross_entropy", [[f[0], f[1]], [f[2], f[3]]], [1, 0])
    expected = (sp.log(sp.exp(f[0]) + sp.exp(f[1])) - f[1] + sp.log(sp.exp(f[2]) + sp.exp(f[3])) - f[2]) / 2
    assert sp.expand(labelled - expected) == 0
    with pytest.raises(ValueError, match="K >= 2 outputs"):
        loss_of_predictions("cross_entropy", [f[0]], [0])
    with pytest.raises(ValueError, match="from 0 to 1"):
        loss_of_predictions("cross_entropy", [[f[0], f[1]]], [2])


def test_the_mse_of_two_outputs_is_summed_over_them_in_check_symmetry():
    model = two_outputs()
    report = check_symmetry(model, per_unit_rescaling(model), loss="mse", sizes=(1,))
    verdict = report.verdict("loss", 1)
    assert verdict.status is Status.PROVED
    # the statement proved is the sum over the outputs, no factor 1/2: at V = 0, d = (1, 2), y = 0 the
    # loss is 1^2 + 2^2 (the statement's symbols have plain names, d_{1} as d_1)
    rhs = verdict.theorem.statement.rhs
    point = {s: {"d_1": 1, "d_2": 2}.get(s.name, 0) for s in rhs.free_symbols}
    assert rhs.xreplace(point) == 5
    assert "summed over 2 outputs" in verdict.claim


def test_a_broken_rescaling_is_refuted_under_the_cross_entropy_at_class_labels():
    model = two_outputs()
    broken = per_unit_rescaling(model, broken=True)
    report = check_symmetry(model, broken, loss="cross_entropy", sizes=(1, 2))
    for n in (1, 2):
        verdict = report.verdict("loss", n)
        assert verdict.status is Status.REFUTED, verdict.reason
        witness = verdict.witness
        labels = [witness[sp.Symbol(f"y_{{{k + 1}}}", integer=True)] for k in range(n)]
        assert all(label in (0, 1) for label in labels)
        # evaluated again here, at 50 digits: the labelled cross-entropy at T theta and at theta differ
        point = {s: v for s, v in witness.items() if s.name[0] in "WbVdcx"}
        # a group parameter that cancels from both sides has no value in the witness: any value will do
        point.update({c: 3 for c in broken.group if c not in point})
        inputs = [model.input(k + 1) for k in range(n)]
        sides = [loss_of_predictions("cross_entropy", model.batch_predictions(inputs, values), labels)
                 for values in (broken.tensors(), None)]
        values = [sp.N(side.xreplace(point), 50) for side in sides]
        assert all(v.is_real for v in values) and abs(values[0] - values[1]) > 1e-10
    assert report.verdict("gradient", 1).status is Status.REFUTED
    assert "label 1" in " ".join(str(k) for k in report.verdict("gradient", 1).witness)


def test_the_cross_entropy_of_one_output_is_refused(cli, tmp_path):
    with pytest.raises(ValueError, match="K >= 2 outputs"):
        model = two_outputs(1)
        check_symmetry(model, per_unit_rescaling(model), loss="cross_entropy")
    path = tmp_path / "one.toml"
    path.write_text('inputs = 1\nloss = "cross_entropy"\n[[layers]]\ntype = "dense"\nunits = 1\nweight = "W"\n'
                    '[map]\nW = "W"\n')
    result = cli("symmetry", str(path))
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1
    assert "at least 2 outputs" in result.stderr


def test_a_spec_with_the_cross_entropy_is_proved(cli, tmp_path):
    path = tmp_path / "classifier.toml"
    path.write_text('inputs = 2\nsizes = [1]\nloss = "cross_entropy"\n[[layers]]\ntype = "dense"\nunits = 2\n'
                    'weight = "W"\nbias = "b"\n[[layers]]\ntype = "relu"\n[[layers]]\ntype = "dense"\n'
                    'units = 2\nweight = "V"\nbias = "d"\n[group]\npositive = ["c"]\n[map]\nW = "c_j * W"\n'
                    'b = "c_j * b"\nV = "V / c_i"\n')
    result = cli("symmetry", str(path), "--json")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "softmax cross-entropy of 2 logits" in result.stdout


def test_the_logits_shifted_alike_keep_the_cross_entropy_and_are_never_refuted_on_it():
    # d_k -> d_k + t moves every output by t: the prediction claim is refuted, but the softmax
    # cross-entropy does not move (log sum exp(f + t) = t + log sum exp f), so its loss claim must not be
    model = two_outputs()
    t = sp.Symbol("t", real=True)
    shift = Symmetry(model, {"d": model["d"].applyfunc(lambda e: e + t)})
    report = check_symmetry(model, shift, loss="cross_entropy", sizes=(1,))
    assert report["prediction"].status is Status.REFUTED
    assert report.verdict("loss", 1).status is not Status.REFUTED
