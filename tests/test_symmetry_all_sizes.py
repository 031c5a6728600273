"""The user's own network for every width: a spec with named widths proved, a broken map refuted at
a named step with a concrete counterexample, a spec outside the fragment refused in one line."""
import json

import pytest

from symbolic import Status, check_symmetry
from symbolic.every_size.spec_symmetry import OutsideFragment

ONE_HIDDEN_LAYER = {
    "inputs": "d",
    "layers": [{"type": "dense", "units": "h", "weight": "W1", "bias": "b1"}, {"type": "relu"},
               {"type": "dense", "units": 1, "weight": "W2"}],
    "group": {"positive": ["c"]},
    "map": {"W1": "c_j * W1", "b1": "c_j * b1", "W2": "W2 / c_i"},
}

NAMED = """inputs = "d"
[[layers]]
type = "dense"
units = "h1"
weight = "W1"
bias = "b1"
[[layers]]
type = "leaky_relu"
slope = "1/10"
[[layers]]
type = "dense"
units = "h2"
weight = "W2"
bias = "b2"
[[layers]]
type = "abs"
[[layers]]
type = "dense"
units = 1
weight = "W3"
[group]
positive = ["c", "e"]
[map]
W1 = "c_j * W1"
b1 = "c_j * b1"
W2 = "e_j * W2 / c_i"
b2 = "{b2}"
W3 = "W3 / e_i"
"""


def test_a_one_hidden_layer_spec_is_proved_for_every_width():
    report = check_symmetry(ONE_HIDDEN_LAYER, sizes="all")
    assert [claim for claim, _ in report.rows] == ["prediction", "loss", "gradient", "Hessian"]
    assert report.status is Status.PROVED
    assert "ReLU homogeneity" in " ".join(report["prediction"].evidence)
    assert "exact derivative law of a model" in report["Hessian"].rests_on["oracles"]


def test_an_unscaled_bias_is_refuted_at_its_step_with_a_concrete_witness(cli, tmp_path):
    spec = tmp_path / "broken.toml"
    spec.write_text(NAMED.format(b2="b2"))
    result = cli("symmetry", str(spec), "--all-sizes", "--json")
    assert result.returncode == 1, result.stderr
    rows = json.loads(result.stdout)
    assert all(row["sizes"] == "all" for row in rows)
    prediction = rows[0]
    assert prediction["status"] == "refuted" and prediction["witness"]
    assert "layer 2: the bias b2 scaled like its unit" in prediction["reason"]
    assert "h1 = 2, h2 = 2" in prediction["reason"]


@pytest.mark.parametrize("change, message", [
    ({"layers": [{"type": "tanh"}]}, "a tanh layer is outside what --all-sizes covers"),
    ({"group": {"real": ["c"]}}, "positive group parameters only"),
    ({"map": {"W1": "W1 * W1"}}, "free of W1"),
    ({"layers": [{"type": "dense", "units": "h", "weight": "W1"}]}, "outputs covers loss = \"mse\" and"),
])
def test_a_spec_outside_the_fragment_is_refused(change, message):
    with pytest.raises(OutsideFragment, match=message):
        check_symmetry({**ONE_HIDDEN_LAYER, **change}, sizes="all")


def test_outside_the_fragment_on_the_command_line_is_one_line_and_exit_2(cli, tmp_path):
    spec = tmp_path / "tanh.toml"
    spec.write_text('inputs = "d"\n[[layers]]\ntype = "tanh"\n[map]\n')
    result = cli("symmetry", str(spec), "--all-sizes")
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1


def two_outputs(units="k", loss="mse", broken=False, inputs="d", hidden="h"):
    """A ReLU net whose last dense layer has K outputs and an output bias, with the per-unit map
    (broken: the output bias scaled too, which changes every output)."""
    mapping = {"W1": "c_j * W1", "b1": "c_j * b1", "W2": "W2 / c_i"}
    if broken:
        mapping["b2"] = "c_j * b2"
    return {"inputs": inputs, "loss": loss,
            "layers": [{"type": "dense", "units": hidden, "weight": "W1", "bias": "b1"}, {"type": "relu"},
                       {"type": "dense", "units": units, "weight": "W2", "bias": "b2"}],
            "group": {"positive": ["c"]}, "map": mapping}


@pytest.mark.parametrize("units, loss", [("k", "mse"), ("k", "cross_entropy"), (2, "mse"), (2, "cross_entropy")])
def test_a_net_with_k_outputs_and_an_output_bias_is_proved_for_every_width(units, loss):
    report = check_symmetry(two_outputs(units, loss), sizes="all")
    assert report.status is Status.PROVED, report.table()
    assert "for every output o" in report["prediction"].claim
    named = "d, h, k" if units == "k" else "d, h (the widths written as numbers fixed)"
    assert all(f"for every width {named}" in v.claim for _, v in report.rows)
    # the concrete cross-check of the laws ran with the same loss, at K = 2 outputs
    assert f"{loss} loss" in " ".join(report["gradient"].evidence)
    # the prediction's instance is one identity per output: both output biases are in it
    instance = next(e for e in report["prediction"].evidence if e.startswith("instance:"))
    assert "b2_1" in instance and "b2_2" in instance
    if loss == "cross_entropy":
        # its instance at N = 2 reads the real log and exp (not two undefined functions) at one-hot labels
        instance = next(e for e in report["loss"].evidence if e.startswith("instance:"))
        assert "log(exp(" in instance and "y_1_1" not in instance


def test_a_broken_map_of_a_k_output_net_is_refuted_with_a_witness_that_holds():
    from symbolic.every_size.spec_symmetry import _expanded_sides, invariance_chain, read_network, transformation
    import sympy as sp
    spec = two_outputs("k", "cross_entropy", broken=True)
    report = check_symmetry(spec, sizes="all")
    prediction, loss = report["prediction"], report["loss"]
    assert prediction.status is Status.REFUTED and "the bias b2 scaled like its unit" in prediction.reason
    # evaluated again here: the first output at T theta and at theta differ at the witness, exactly
    network = read_network(spec)
    chain = invariance_chain(network, transformation(network))
    sides = _expanded_sides(chain, {"d": 2, "h": 2, "k": 2, "N": 1}, {"n": 1, "o": 1, "N": 1})
    values = [side.xreplace(prediction.witness) for side in sides]
    assert all(v.is_Rational for v in values) and values[0] != values[1]
    # the cross-entropy refuted at class labels, 0 or 1 for K = 2
    assert loss.status is Status.REFUTED and "at the labels" in loss.reason
    labels = [loss.witness[sp.Symbol(f"y_{m}", integer=True)] for m in (1, 2)]
    assert all(label in (0, 1) for label in labels)


def test_every_loss_of_k_outputs_is_refused_in_one_line(cli, tmp_path):
    spec = tmp_path / "any.toml"
    spec.write_text('inputs = "d"\n[[layers]]\ntype = "dense"\nunits = "k"\nweight = "W"\nbias = "b"\n'
                    '[group]\npositive = ["c"]\n[map]\nW = "W"\n')
    result = cli("symmetry", str(spec), "--all-sizes")
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1
    assert 'covers loss = "mse" and "cross_entropy"' in result.stderr
    with pytest.raises(OutsideFragment, match="needs K >= 2 outputs"):
        check_symmetry(two_outputs(1, "cross_entropy"), sizes="all")


NUMBERS = """inputs = 2
loss = "mse"
[[layers]]
type = "dense"
units = 2
weight = "W1"
bias = "b1"
[[layers]]
type = "relu"
[[layers]]
type = "dense"
units = 2
weight = "W2"
bias = "b2"
[group]
positive = ["c"]
[map]
W1 = "c_j * W1"
b1 = "c_j * b1"
W2 = "W2 / c_i"
"""


def test_a_spec_whose_widths_are_all_numbers_never_says_every_width(cli, tmp_path):
    spec = tmp_path / "numbers.toml"
    spec.write_text(NUMBERS)
    for extra in ((), ("--json",)):
        result = cli("symmetry", str(spec), "--all-sizes", *extra)
        assert result.returncode == 0, result.stdout + result.stderr
        assert "every width" not in result.stdout
        assert "at the spec's widths (inputs 2, units 2, 2) and every N" in result.stdout
    rows = json.loads(result.stdout)
    assert all(row["sizes"] == "every N" for row in rows)
    # with a width named, the claims speak of every value of that width only
    named = tmp_path / "named.toml"
    named.write_text(NUMBERS.replace("units = 2\nweight = \"W1\"", "units = \"h\"\nweight = \"W1\""))
    result = cli("symmetry", str(named), "--all-sizes")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "for every width h (the widths written as numbers fixed) and every N" in result.stdout


def test_the_help_of_all_sizes_does_not_promise_every_width(cli):
    result = cli("symmetry", "--help")
    text = " ".join(result.stdout.split())
    assert "for every value of each width written as a name" in text
    assert "prove the laws for every width" not in text


def test_one_output_with_the_mse_is_proved_for_every_width():
    report = check_symmetry(two_outputs(1, "mse"), sizes="all")
    assert report.status is Status.PROVED, report.table()
    assert "the MSE summed over the outputs" in report["loss"].claim
