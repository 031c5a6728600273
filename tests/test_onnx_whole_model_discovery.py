"""symmetry MODEL.onnx --discover on whole trained models past the spec limit: the group read from the
architecture (one positive factor per class of hidden units, tied through skip connections, fixed by
the input, the output and the layers that are not positively homogeneous), every generator PROVED by
the scheme 'unit transport' (six exact laws and a walk of the layers); the 6-layer MLP of 21,450
parameters states dimension 320 and cites the every-width theorem; the ResNet block exits 0 with the
channels its skip ties named; a tanh network keeps no positive rescaling and says what survives.
Negative controls: the scheme refuses a class that breaks a skip's tie, one that scales a unit a tanh
reads, an output unit, premises that are not its laws; a generator's exponents are refuted as a twin
when they forget a bias."""
import json
import os
from fractions import Fraction

import numpy as np
import pytest

from proofs.commands.cli import main
from symbolic.kernel import infer
from symbolic.kernel.verdict import Status
from symbolic.trained import exact
from symbolic.trained.experiment import load_network
from symbolic.trained.rescaling import Factors, exact_parameters, scaled
from symbolic.trained.unit_group import generator_exponents, read_unit_group
from symbolic.symmetries.unit_transport import prove_generators, proved_laws
from symbolic.trusted.schemes.unit_transport import FIXED, UNIT_TRANSPORT

FOLDER = os.path.join(os.path.dirname(__file__), "fixtures", "exports")
LAWS = proved_laws()


def network(name):
    return load_network(os.path.join(FOLDER, name))[1]


def conclude(group, classes=None, premises=None, generator=0):
    return infer(UNIT_TRANSPORT, LAWS if premises is None else premises, label="T", description=group.description,
                 slots=group.slots, classes=group.classes if classes is None else classes, generator=generator,
                 name="m")


def test_the_laws_are_proved_by_the_exact_identity_test():
    assert all(law.status is Status.PROVED for law in LAWS) and len(LAWS) == 6


def test_the_six_layer_mlp_has_dimension_320_every_generator_proved():
    # (the command line on it, with the every-width proof of 5 hidden layers: benchmarks/onnx_discover.py)
    for name in ("mlp6_legacy.onnx", "mlp6_dynamo.onnx"):
        net = network(name)
        group = read_unit_group(net)
        verdicts = prove_generators(group, "mlp6", premises=LAWS)
        assert net.parameter_count == 21450 and group.dimension == 320 == group.hidden_units()
        assert all(v.status is Status.PROVED for v in verdicts) and not any(group.tied(k) for k in range(320))
        assert str(verdicts[319].theorem.statement) == "f_mlp6(T_320(c, theta), x) = f_mlp6(theta, x) for c > 0"


def test_past_the_spec_limit_a_dense_relu_network_cites_the_every_width_theorem(tmp_path, capsys):
    from tests.test_onnx_exporters import mlp
    import onnx
    path = str(tmp_path / "mlp.onnx")
    onnx.save(mlp("s0"), path)                          # 8 → 10 → 6 → 3: 177 parameters
    assert main(["symmetry", path, "--discover", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["parameters"] == 177 and report["dimension"] == 16 == report["hidden_units"]
    assert {g["status"] for g in report["generators"]} == {"proved"}
    assert report["generators"][0]["statement"] == "f_mlp(T_1(c, theta), x) = f_mlp(theta, x) for c > 0"
    assert report["generators"][0]["rests_on"] == ["unit transport"]
    assert report["every_width"]["applies"] and report["every_width"]["status"] == "proved"
    assert report["every_width"]["claims"]["prediction"] == "proved"
    assert report["dimension_is_maximal"] is False and "not proved" in report["maximality"]


def test_the_resnet_block_exits_0_naming_the_channels_its_skip_ties(capsys):
    for name in ("resnet_block_legacy.onnx", "resnet_block_dynamo.onnx"):
        assert main(["symmetry", os.path.join(FOLDER, name), "--discover"]) == 0
        out = capsys.readouterr().out
        assert "dimension 8" in out and "skip connections tie 4 classes" in out
        assert "channel 1 of Conv 1, Conv 5 (tied by a skip connection)" in out or "tied by" in out
        assert "for every width: no:" in out


def test_a_tanh_network_keeps_no_positive_rescaling_and_says_what_survives(capsys):
    assert main(["symmetry", os.path.join(FOLDER, "tanh_mlp_dynamo.onnx"), "--discover"]) == 0
    captured = capsys.readouterr()
    assert "dimension 0" in captured.out and "no positive rescaling leaves the network unchanged" in captured.out
    assert "sign flips of the units that Tanh reads" in captured.out and "permutations" in captured.out


def test_the_scheme_refuses_a_class_that_breaks_a_skip_tie():
    group = read_unit_group(network("resnet_block_legacy.onnx"))
    assert conclude(group).status is Status.PROVED
    k = next(k for k in range(group.dimension) if group.tied(k))
    layer, unit = group.members[k][0]                 # split the tie: the stem's channel in a class of its own
    classes = group.classes.copy()
    classes[np.asarray(group.slots[layer + 1])[unit]] = group.dimension
    # the stem's slot is the class's root: every slot of that class in that value moves with it
    verdict = conclude(group, classes, generator=group.dimension)
    assert verdict.status is Status.UNDECIDED and "same class unit by unit" in verdict.reason


def test_the_scheme_refuses_a_unit_a_tanh_reads_an_output_unit_and_other_premises():
    tanh = read_unit_group(network("tanh_mlp_legacy.onnx"))
    classes = tanh.classes.copy()
    hidden = np.asarray(tanh.slots[1])                 # the first layer's units: Tanh reads them
    classes[hidden] = 0
    verdict = conclude(tanh, classes, generator=0)
    assert verdict.status is Status.UNDECIDED and "not positively homogeneous" in verdict.reason
    mlp = read_unit_group(network("leaky_mlp_legacy.onnx"))
    classes = mlp.classes.copy()
    classes[np.asarray(mlp.slots[-1])] = 0            # an output unit in class 0
    assert "output must be fixed" in conclude(mlp, classes).reason
    assert "not the six laws" in conclude(mlp, premises=LAWS[:5]).reason
    assert "holds no unit" in conclude(mlp, generator=mlp.dimension).reason


def test_a_generator_applied_as_a_twin_keeps_the_predictions_and_without_its_bias_does_not():
    net = network("resnet_block_dynamo.onnx")
    group = read_unit_group(net)
    x = exact.from_floats(np.random.default_rng(0).standard_normal((4, 3, 8, 8)).astype(np.float32))
    original = exact_parameters(net)
    before = exact.forward(net, original, x)
    for k in range(group.dimension):
        exponents, start, twin = generator_exponents(group, k), 0, []
        assert set(np.unique(exponents)) <= {-1, 0, 1} and np.any(exponents)
        for tensor in original:
            powers = exponents[start:start + tensor.integers.size].reshape(tensor.shape)
            start += tensor.integers.size
            table = (Fraction(1, 3), Fraction(1), Fraction(3))
            twin.append(scaled(tensor, Factors(table, powers + 1)))
        assert exact.first_difference(before, exact.forward(net, twin, x)) is None
    # the negative control: the first generator's biases left at 1
    exponents, start, broken = generator_exponents(group, 0), 0, []
    flags = net.is_weight()
    for tensor in original:
        powers = np.where(flags[start:start + tensor.integers.size], exponents[start:start + tensor.integers.size], 0)
        broken.append(scaled(tensor, Factors((Fraction(1, 3), Fraction(1), Fraction(3)),
                                             powers.reshape(tensor.shape) + 1)))
        start += tensor.integers.size
    assert exact.first_difference(before, exact.forward(net, broken, x)) is not None


@pytest.mark.parametrize("name", ["keras_cnn.onnx", "conv1d_dynamo.onnx", "prelu_cnn_legacy.onnx",
                                  "cnn_maxpool_padded_dynamo.onnx", "cnn_dilated_legacy.onnx"])
def test_every_generator_of_the_other_relu_exports_is_proved(name):
    group = read_unit_group(network(name))
    verdicts = prove_generators(group, "m", premises=LAWS)
    assert group.dimension > 0 and all(v.status is Status.PROVED for v in verdicts)
    assert group.classes[np.asarray(group.slots[0]).ravel()].tolist() == [FIXED] * np.asarray(group.slots[0]).size


def test_rescale_applies_an_element_of_the_group_read_from_the_architecture(tmp_path, capsys):
    from tests.test_onnx_exporters import mlp
    import onnx
    path = str(tmp_path / "mlp.onnx")
    onnx.save(mlp("s0"), path)                          # 177 parameters: past the spec limit
    rng = np.random.default_rng(1)
    np.savez(tmp_path / "d.npz", x=rng.standard_normal((12, 8)).astype(np.float32), y=rng.standard_normal((12, 3)))
    assert main(["rescale", path, "--data", str(tmp_path / "d.npz"), "--group", "discovered",
                 "--element", "T_1=2,T_12=1/3", "--measures", "weight_norm,path_norm", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["predictions_identical"] and report["discovered"]["dimension"] == 16
    assert report["discovered"]["route"].startswith("the group read from the architecture")
    assert report["labels"] == ["g1"] and report["discovered"]["elements"][0]["applied"] == "T_1=2, T_12=1/3"
    assert report["measures"]["path_norm"]["exactly_equal"] == [True]
    assert report["measures"]["weight_norm"]["ratio"][0] != 1
    assert main(["rescale", path, "--data", str(tmp_path / "d.npz"), "--group", "discovered",
                 "--element", "T_17=2"]) == 2
    assert "no proved generator T_17" in capsys.readouterr().err
