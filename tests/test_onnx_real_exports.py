"""Real exports, as researchers make them (tests/fixtures/exports/make_exports.py wrote them with torch's
legacy and dynamo exporters and Keras 3's model.export; MANIFEST.json says which made each): every
ReLU, LeakyReLU and PReLU model is read and its twins' predictions are identical exactly, each layer
read as the export wrote it (a ReduceMean over the spatial axes, a 1-d convolution, a dilated one, a
padded MaxPool, a PRelu slope per channel, Keras's bias added after the Transpose back to channels-last);
every GELU, Sigmoid, tanh, SiLU and ReLU6 model is read and `rescale` says in one line, before the data
are loaded, that no positive rescaling leaves it unchanged, naming the activation; a transformer layer is
refused in one line that names attention."""
import json
import os
from fractions import Fraction

import numpy as np
import onnx
import pytest

from proofs.commands import rescale_command
from proofs.commands.cli import main
from symbolic.trained import exact
from symbolic.trained.experiment import build_twins, load_network, read_data
from symbolic.trained.network import (Activation, AveragePool, Conv, MaxPool, Permute, PReLU, Product, Standardize,
                                      View)
from symbolic.trained.rescaling import Factors, exact_parameters, parameter_factors, scaled

FOLDER = os.path.join(os.path.dirname(__file__), "fixtures", "exports")
MANIFEST = json.load(open(os.path.join(FOLDER, "MANIFEST.json")))
MADE = sorted(name for name, entry in MANIFEST.items() if "failed" not in entry)
HOMOGENEOUS = [n for n in MADE if n.split("_")[0] in ("resnet", "mlp6", "cnn", "leaky", "prelu", "conv1d", "keras")]
NOT_HOMOGENEOUS = {"gelu": "Erf", "sigmoid": "Sigmoid", "tanh": "Tanh", "silu": "Sigmoid", "relu6": "Clip(0, 6) (ReLU6)"}
RNG = np.random.default_rng(48)


def data(name, examples=12):
    shape = MANIFEST[name]["input_shape"]
    return RNG.standard_normal((examples, *shape)).astype(np.float32), RNG.integers(0, 2, examples)


def test_every_export_was_made_and_says_by_what():
    assert len(MADE) >= 27 and all("made_by" in MANIFEST[n] for n in MADE)
    assert {MANIFEST[n]["made_by"].split()[-2] for n in MADE if n.startswith("mlp6")} == {"legacy", "dynamo"}
    assert MANIFEST["keras_cnn.onnx"]["made_by"].startswith("Keras 3")


@pytest.mark.parametrize("name", HOMOGENEOUS)
def test_every_relu_leaky_and_prelu_export_is_read_with_predictions_identical(name):
    model, network = load_network(os.path.join(FOLDER, name))
    x, y = data(name)
    x, y = read_data(network, x, y, "cross_entropy")
    run = build_twins(model, network, x, y, [Fraction(10), Fraction(1, 3)], "per_neuron")
    assert run.reference_deviation < 1e-5 and run.nonzero_outputs > 0
    assert all(twin.predictions_identical and twin.float_agrees for twin in run.twins)


def kinds(name):
    return [type(layer) for layer in load_network(os.path.join(FOLDER, name))[1].layers]


def test_each_layer_is_read_as_the_export_wrote_it():
    # dynamo's ReduceMean over the spatial axes is the legacy export's GlobalAveragePool
    assert AveragePool in kinds("resnet_block_dynamo.onnx") and AveragePool in kinds("resnet_block_legacy.onnx")
    # a 1-d convolution (dilated) and a 1-d max pool: read as 2-d ones of height 1 between two views
    network = load_network(os.path.join(FOLDER, "conv1d_legacy.onnx"))[1]
    convs = [layer for layer in network.layers if isinstance(layer, Conv)]
    assert [c.weight.shape[2] for c in convs] == [1, 1] and convs[1].dilations == (1, 2)
    assert View in kinds("conv1d_dynamo.onnx") and MaxPool in kinds("conv1d_dynamo.onnx")
    # the dilation of a 2-d convolution and the padding of a max pool
    dilated = next(layer for layer in load_network(os.path.join(FOLDER, "cnn_dilated_dynamo.onnx"))[1].layers
                   if isinstance(layer, Conv))
    assert dilated.dilations == (2, 2) and dilated.pads == (2, 2, 2, 2)
    pool = next(layer for layer in load_network(os.path.join(FOLDER, "cnn_maxpool_padded_legacy.onnx"))[1].layers
                if isinstance(layer, MaxPool))
    assert pool.pads == (1, 1, 1, 1)
    # PRelu: one slope per channel, or one for all
    slopes = [layer.slope for layer in load_network(os.path.join(FOLDER, "prelu_cnn_legacy.onnx"))[1].layers
              if isinstance(layer, PReLU)]
    assert slopes[0].shape == (3, 4, 4) and len(np.unique(slopes[0][:, 0, 0])) == 3


def test_keras_bias_after_the_transpose_back_is_the_convolutions_bias():
    model, network = load_network(os.path.join(FOLDER, "keras_cnn.onnx"))
    conv = next(layer for layer in network.layers if isinstance(layer, Conv))
    assert conv.bias is not None and Permute in kinds("keras_cnn.onnx")
    assert not any(isinstance(layer, Standardize) for layer in network.layers)
    # the negative control: a twin that leaves the convolution's bias unscaled is not the same function
    x, _ = data("keras_cnn.onnx")
    factors = parameter_factors(network, "per_neuron", Fraction(10))
    position = [k for k, layer in enumerate(network.layers) if isinstance(layer, Conv)][0]
    bias_index = 1                                  # θ: the conv's weight, then its bias
    assert position == next(k for k, layer in enumerate(network.layers) if layer is conv)
    broken = list(factors)
    broken[bias_index] = Factors((Fraction(1),), np.zeros_like(factors[bias_index].codes))
    original = exact_parameters(network)
    inputs = exact.from_floats(x)
    before = exact.forward(network, original, inputs)
    assert exact.first_difference(before, exact.forward(network, [scaled(t, f) for t, f in zip(original, factors)],
                                                        inputs)) is None
    assert exact.first_difference(before, exact.forward(network, [scaled(t, f) for t, f in zip(original, broken)],
                                                        inputs)) is not None


@pytest.mark.parametrize("name", [n for n in MADE if n.split("_")[0] in NOT_HOMOGENEOUS])
def test_no_positive_rescaling_is_said_in_one_line_naming_the_activation(tmp_path, capsys, monkeypatch, name):
    _, network = load_network(os.path.join(FOLDER, name))
    assert any(isinstance(layer, (Activation, Product)) for layer in network.layers)

    def no_data(path):
        raise AssertionError("the data were loaded before the refusal")
    monkeypatch.setattr(rescale_command, "read_npz", no_data)
    assert main(["rescale", os.path.join(FOLDER, name), "--data", str(tmp_path / "absent.npz")]) == 2
    err = capsys.readouterr().err.strip()
    activation = NOT_HOMOGENEOUS[name.split("_")[0]]
    assert len(err.splitlines()) == 1 and "no positive rescaling leaves this network unchanged" in err, err
    assert f"{activation} (" in err and "not positively homogeneous" in err and "permutation of hidden units" in err
    assert ("sign flip" in err) == (activation in ("Tanh", "Erf"))


def test_the_forward_pass_of_the_activations_is_onnxruntimes():
    from symbolic.trained.autodiff import forward_function
    from symbolic.trained.onnx_import import onnxruntime_outputs
    for name in [n for n in MADE if n.split("_")[0] in NOT_HOMOGENEOUS]:
        model, network = load_network(os.path.join(FOLDER, name))
        x, _ = data(name)
        ours = np.asarray(forward_function(network)(network.flat_parameters(), x.astype(np.float64)))
        assert np.max(np.abs(ours - onnxruntime_outputs(model, x))) < 1e-5, name


def test_a_transformer_layer_is_refused_in_one_line_naming_attention(tmp_path, capsys):
    name = "transformer_dynamo.onnx"
    assert main(["rescale", os.path.join(FOLDER, name), "--data", str(tmp_path / "absent.npz")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "attention is not read" in err and "Softmax" in err


def test_the_fixtures_are_small():
    sizes = [os.path.getsize(os.path.join(FOLDER, n)) for n in MADE]
    assert max(sizes) < 120_000 and onnx.load(os.path.join(FOLDER, "mlp6_legacy.onnx")).graph.node


def test_the_report_names_the_tied_channels_the_hessian_blocks_and_the_labels_read_as_classes(tmp_path, capsys):
    x, y = data("resnet_block_legacy.onnx")
    np.savez(tmp_path / "d.npz", x=x, y=y)                 # integer labels, no --loss: read as classes
    assert main(["rescale", os.path.join(FOLDER, "resnet_block_legacy.onnx"), "--data", str(tmp_path / "d.npz"),
                 "--alpha", "10", "--alpha", "1/10", "--measures", "weight_norm", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["loss"] == "cross_entropy" and any("read as classes" in n for n in report["read"]["notes"])
    assert report["read"]["skip_ties"].startswith("the skip connections tie 4 classes of units across layers")
    up, down = report["hessian_blocks"]
    # α = 10 grows the last layer's block (its weights times 1/10), α = 1/10 the first layer's
    assert "grows on Dense 10 weight ×100" in up and "shrinks on Conv 1 weight ×0.01" in up
    assert "grows on Conv 1 weight ×100" in down and "shrinks on Dense 10 weight ×0.01" in down
