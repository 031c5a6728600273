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
