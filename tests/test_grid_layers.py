"""2-d convolutions, 2-d pooling and Flatten: the forward pass, the per-channel scale group found
by discovery (every generator PROVED, maximality decided), channel permutations and flips, the
known maps proved and broken ones refuted with a re-verified witness, and the TOML spec."""
import json

import pytest
import sympy as sp

from conftest import assert_all_proved
from proofs.commands.cli import main
from symbolic import (Abs, AvgPool2d, Conv1d, Conv2d, Dense, Flatten, MaxPool2d, Model, ModelError, ReLULayer,
                      Status, Symmetry, check_symmetry, discover_symmetries, permutation_matrix, positive_scales)

def conv_net():
    """An image 1 x 2 x 3, two channels of a 1 x 2 kernel with a bias, ReLU, 1 x 2 max pooling."""
    return Model((1, 2, 3), [Conv2d(2, (1, 2), "K", bias="b"), ReLULayer(), MaxPool2d((1, 2)), Flatten(),
                             Dense(1, "v")])


def test_the_forward_pass_with_stride_and_padding_at_a_point():
    # one channel, kernel 2 x 2, stride 2, padding 1 on a 2 x 2 image: four windows, each one tap
    model = Model((1, 2, 2), [Conv2d(1, 2, "K", stride=2, padding=1), Flatten()])
    assert model.output_shape == (4, 1) and model.shapes == {"K": (1, 4)}
    x = model.input()
    K = model["K"]
    # window (0, 0) sees only input (0, 0) through tap (1, 1): K entry 4; window (1, 1) sees
    # input (1, 1) through tap (0, 0): K entry 1
    outputs = model.predictions()
    assert outputs[0] == K[0, 3] * x[0][0] and outputs[3] == K[0, 0] * x[0][3]
    assert str(x[0][1]) == "x_{1,1,2}"
    # pooling: a 2 x 2 mean of a 2 x 2 image is the mean of its four values
    mean = Model((1, 2, 2), [AvgPool2d(2), Dense(1, "v")]).prediction()
    assert sp.expand(mean - sum(sp.Symbol(f"x_{{1,{i},{j}}}", real=True) for i in (1, 2) for j in (1, 2))
                     * sp.Symbol("v_{1}", real=True) / 4) == 0


@pytest.mark.parametrize("layers, message", [
    ([Conv2d(1, 4, "K")], "larger than the input's 3"),
    ([Conv1d(1, 2, "K")], "takes a 1-d signal"),
    ([Conv2d(1, (2, 0), "K")], "at least 1"),
    ([Conv2d(1, 2, "K", padding=-1)], "padding at least 0"),
    ([MaxPool2d((2, 2, 2))], "a pair"),
])
def test_bad_2d_layers_are_refused_with_the_layer_named(layers, message):
    with pytest.raises(ModelError, match=message):
        Model((1, 3, 3), layers)
    with pytest.raises(ModelError, match="takes an image"):
        Model((1, 3), [Conv2d(1, 2, "K")])


def test_discovery_finds_one_scale_per_channel_and_the_channel_swap():
    report = discover_symmetries(conv_net())
    assert_all_proved(report, 2)
    # a channel's kernel and bias, shared over positions, up; its outgoing weights down
    assert sorted(g.exponents for g in report.generators) == [[0, 0, 1, 1, 0, 1, 0, 0, -1, -1],
                                                              [1, 1, 0, 0, 1, 0, -1, -1, 0, 0]]
    (swap,) = report.discrete
    assert swap.kind == "transposition" and swap.representative == "channels (1 2)"
    assert swap.report.status is Status.PROVED
    assert report.discrete_structure == "S_2"
    data = report.as_json()["discrete"]
    assert data["complete"] is False and "not claimed complete" in data["completeness"]
    assert report.status is Status.PROVED


def test_a_convolution_into_a_convolution_swaps_and_flips_channels():
    model = Model((1, 2, 2), [Conv2d(2, 1, "K1", bias="b1"), Abs(), Conv2d(1, 2, "K2"), Flatten()])
    report = discover_symmetries(model)
    assert_all_proved(report, 2)
    assert report.discrete_structure == "(Z_2)^2 ⋊ S_2"
    assert [d.kind for d in report.discrete] == ["transposition", "sign flip"]
    assert all(d.status is Status.PROVED for d in report.discrete)
    swap = report.discrete[0].symmetry
    # the consumer's columns move in blocks of its kernel's 4 taps
    assert list(swap.mapping["K2"]) == list(model["K2"][:, [4, 5, 6, 7, 0, 1, 2, 3]])


def _reverified(model, symmetry, witness) -> bool:
    """The two predictions differ, recomputed exactly at the witness."""
    point = {s: v for s, v in witness.items() if isinstance(s, sp.Symbol)}
    image = model.prediction(values=symmetry.tensors()).xreplace(point)
    return sp.nsimplify(image) != sp.nsimplify(model.prediction().xreplace(point))


def test_check_symmetry_proves_the_channel_scales_and_refutes_broken_maps():
    model = conv_net()
    K, b, v = model["K"], model["b"], model["v"]
    c = positive_scales("c", 2)
    C, C_out = sp.diag(*c), sp.diag(c[0], c[0], c[1], c[1])      # v's rows: two positions per channel
    assert check_symmetry(model, Symmetry(model, {"K": C * K, "b": C * b, "v": C_out.inv() * v}),
                          sizes=(1,)).status is Status.PROVED
    P = permutation_matrix([1, 0])
    Q = permutation_matrix([2, 3, 0, 1])          # v's rows: channel 1's two positions, then channel 2's
    assert check_symmetry(model, Symmetry(model, {"K": P * K, "b": P * b, "v": Q * v}),
                          sizes=(1,)).status is Status.PROVED
    # negative controls: the bias left unscaled; the channels swapped but not the outgoing weights
    for wrong in (Symmetry(model, {"K": C * K, "v": C_out.inv() * v}), Symmetry(model, {"K": P * K, "b": P * b})):
        verdict = check_symmetry(model, wrong, sizes=(1,))["prediction"]
        assert verdict.status is Status.REFUTED and _reverified(model, wrong, verdict.witness)
    # a scale per column of K (c_j) is no symmetry either
    E = sp.diag(*positive_scales("c", 2))
    wrong = Symmetry(model, {"K": K * E})
    verdict = check_symmetry(model, wrong, sizes=(1,))["prediction"]
    assert verdict.status is Status.REFUTED and _reverified(model, wrong, verdict.witness)


SPEC = """
inputs = [1, 1, 3]
sizes = [1]
[[layers]]
type = "conv2d"
channels = 2
kernel = [1, 2]
weight = "K"
bias = "b"
[[layers]]
type = "relu"
[[layers]]
type = "maxpool2d"
kernel = [1, 2]
[[layers]]
type = "flatten"
[[layers]]
type = "dense"
units = 1
weight = "v"
[group]
positive = ["c"]
[map]
K = "c_i * K"
b = "c_i * b"
v = "v / c_i"
"""


def write(tmp_path, text, name="spec.toml"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_the_spec_reads_an_image_and_its_layers(tmp_path, capsys):
    assert main(["symmetry", write(tmp_path, SPEC)]) == 0, capsys.readouterr().out
    assert main(["symmetry", write(tmp_path, SPEC.replace('b = "c_i * b"', 'b = "b"'))]) == 1
    capsys.readouterr()
    assert main(["symmetry", write(tmp_path, SPEC), "--discover", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["dimension"] == 2 and data["dimension_is_maximal"]
    assert data["discrete"]["structure"] == "S_2" and data["discrete"]["complete"] is False


@pytest.mark.parametrize("old, new, message", [
    ("inputs = [1, 1, 3]", "inputs = [1, 1, 3, 4]", "[channels, height, width]"),
    ("kernel = [1, 2]\nweight", "kernel = [1, 2, 3]\nweight", "a list of two"),
    ('type = "conv2d"', 'type = "conv1d"', "unknown key 'bias'|needs 'kernel'|takes a 1-d signal"),
    ('type = "flatten"', 'type = "flatten"\nsize = 2', "unknown key 'size'"),
])
def test_bad_image_specs_are_one_line_and_exit_2(tmp_path, capsys, old, new, message):
    text = SPEC.replace(old, new, 1)
    if new.startswith('type = "conv1d"'):
        text = text.replace("kernel = [1, 2]\nweight", "kernel = 2\nweight", 1)
    assert main(["symmetry", write(tmp_path, text)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert __import__("re").search(message, err), err


def test_all_sizes_names_the_layer_it_does_not_cover(tmp_path, capsys):
    assert main(["symmetry", write(tmp_path, SPEC), "--all-sizes"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "inputs: a signal of channels ([1, 1, 3])" in err
    vector = ('inputs = "d"\n[[layers]]\ntype = "dense"\nunits = "h"\nweight = "W"\n[[layers]]\ntype = "layernorm"\n'
              '[[layers]]\ntype = "dense"\nunits = 1\nweight = "v"\n[group]\npositive = ["c"]\n[map]\nW = "c * W"\n')
    assert main(["symmetry", write(tmp_path, vector), "--all-sizes"]) == 2
    err = capsys.readouterr().err.strip()
    assert "a layernorm layer is outside what --all-sizes covers (dense layers" in err, err


def test_the_limits_of_the_command_line_say_why(tmp_path, capsys):
    large = SPEC.replace("inputs = [1, 1, 3]", "inputs = [1, 7, 7]")          # 49 inputs
    assert main(["symmetry", write(tmp_path, large)]) == 2
    err = capsys.readouterr().err.strip()
    assert "49 inputs" in err and "at most 120 parameters and 48 inputs" in err
    assert "within about a minute on 2 cores" in err and len(err.splitlines()) == 1


def test_the_spec_reference_lists_every_layer_with_its_fields():
    from pathlib import Path

    from proofs.commands.symmetry_command import LAYERS
    text = (Path(__file__).resolve().parent.parent / "docs" / "spec_reference.md").read_text(encoding="utf-8")
    layers = text.split("## Layers", 1)[1]
    # the layers' table (the first), and the coverage table after it: each names every type
    tables = layers.split("### What `--discover` and `--all-sizes` cover", 1)
    for kind, (_, fields) in LAYERS.items():
        row = next(line for line in tables[0].splitlines() if line.startswith(f"| `{kind}` |"))
        assert all(f"`{field}`" in row for field in fields), (kind, row)
        assert f"`{kind}`" in tables[1].split("###", 1)[0], kind
