"""The graphs torch (legacy and dynamo exporters, fixed or dynamic batch), Keras 3 and skl2onnx write,
built here node for node with onnx.helper (torch is too heavy to install for the tests): each is read,
checked against onnxruntime, and its exact twin computes exactly the same outputs."""
import json
from fractions import Fraction

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from proofs.commands.cli import main
from symbolic.trained import exact
from symbolic.trained.experiment import build_twins, read_data
from symbolic.trained.network import Standardize, Sum
from symbolic.trained.onnx_import import UnsupportedModel, import_network, onnxruntime_outputs
from symbolic.trained.rescaling import parameter_factors

RNG = np.random.default_rng(36)
FIXED = 16                      # the example's batch: torch >= 2.9 fixes it without dynamic_shapes


def f32(*shape, scale=0.5):
    return (scale * RNG.standard_normal(shape)).astype(np.float32)


class Graph:
    """An ONNX graph written node by node, as an exporter writes it."""

    def __init__(self, input_dims, opset=20, name="x"):
        self.nodes, self.initializers, self.opset, self.input = [], [], opset, name
        self.input_dims, self.count = input_dims, 0

    def init(self, array, name=None):
        self.count += 1
        name = name or f"param_{self.count}"
        self.initializers.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def node(self, op, inputs, outputs=1, domain="", **attributes):
        self.count += 1
        names = [f"{op.lower()}_{self.count}_{k}" for k in range(outputs)]
        self.nodes.append(helper.make_node(op, inputs, names, name=f"/{op}_{self.count}", domain=domain, **attributes))
        return names[0] if outputs == 1 else names

    def constant(self, values, dtype=np.int64):
        return self.node("Constant", [], value=numpy_helper.from_array(np.asarray(values, dtype=dtype)))

    def gemm(self, x, weight, bias=True):
        inputs = [x, self.init(weight)] + ([self.init(f32(weight.shape[0]))] if bias else [])
        return self.node("Gemm", inputs, transB=1)

    def model(self, outputs, extra_opsets=()):
        outputs = [o if isinstance(o, onnx.ValueInfoProto) else
                   helper.make_tensor_value_info(o, TensorProto.FLOAT, ["batch", "outputs"]) for o in outputs]
        graph = helper.make_graph(self.nodes, "exported",
                                  [helper.make_tensor_value_info(self.input, TensorProto.FLOAT, self.input_dims)],
                                  outputs, self.initializers)
        opsets = [helper.make_opsetid("", self.opset)] + [helper.make_opsetid(d, v) for d, v in extra_opsets]
        model = helper.make_model(graph, opset_imports=opsets)
        model.ir_version = 9
        onnx.checker.check_model(model)
        return model


def mlp(batch, layout="gemm"):
    """torch's Linear-ReLU-Linear-ReLU-Linear, 8 → 10 → 6 → 3: Gemm with transB=1, or (legacy, no
    bias) a MatMul on the stored transpose, or (a weight layout) a Transpose node on the weight."""
    g = Graph([batch, 8])
    h = g.input
    for k, (out, width) in enumerate(((10, 8), (6, 10), (3, 6))):
        w = f32(out, width)
        if layout == "gemm":
            h = g.gemm(h, w)
        elif layout == "matmul":
            h = g.node("MatMul", [h, g.init(w.T.copy())])
        else:
            h = g.node("MatMul", [h, g.node("Transpose", [g.init(w)], perm=[1, 0])])
        if k < 2:
            h = g.node("Relu", [h])
    return g.model([h])


def legacy_cnn_view(opset=20):
    """x.view(x.size(0), -1) as the legacy exporter writes it: Shape → Gather → Unsqueeze → Concat
    (with a Constant -1) → Reshape, after Conv → Relu → MaxPool."""
    g = Graph(["batch_size", 2, 6, 6], opset=opset)
    h = g.node("Conv", [g.input, g.init(f32(3, 2, 3, 3)), g.init(f32(3))], kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    h = g.node("MaxPool", [g.node("Relu", [h])], kernel_shape=[2, 2], strides=[2, 2])
    size = g.node("Gather", [g.node("Shape", [h]), g.constant(0)], axis=0)
    if opset >= 13:
        batch = g.node("Unsqueeze", [size, g.constant([0])])
    else:
        batch = g.node("Unsqueeze", [size], axes=[0])
    shape = g.node("Concat", [batch, g.constant([-1])], axis=0)
    return g.model([g.gemm(g.node("Reshape", [h, shape]), f32(3, 27))])


def dynamo_cnn(batch):
    """dynamo's view: a constant Reshape [-1, 27], or [16, 27] with a fixed batch."""
    g = Graph([batch, 2, 6, 6])
    h = g.node("Conv", [g.input, g.init(f32(4, 2, 3, 3)), g.init(f32(4))], kernel_shape=[3, 3],
               strides=[1, 1], pads=[0, 0, 0, 0], dilations=[1, 1])
    h = g.node("Conv", [g.node("Relu", [h]), g.init(f32(3, 4, 2, 2))], kernel_shape=[2, 2], strides=[2, 2],
               dilations=[1, 2], pads=[0, 1, 0, 1])
    h = g.node("Relu", [h])
    target = g.init(np.array([batch if isinstance(batch, int) else -1, 12], dtype=np.int64))
    return g.model([g.gemm(g.node("Reshape", [h, target]), f32(3, 12))])


def average_pool_cnn():
    """nn.AvgPool2d(2), a convolution in 2 groups, nn.AdaptiveAvgPool2d(1): AveragePool, grouped Conv,
    then GlobalAveragePool → Flatten → Gemm."""
    g = Graph(["s0", 2, 6, 6])
    h = g.node("Relu", [g.node("Conv", [g.input, g.init(f32(4, 2, 3, 3)), g.init(f32(4))], kernel_shape=[3, 3],
                                pads=[1, 1, 1, 1])])
    h = g.node("AveragePool", [h], kernel_shape=[2, 2], strides=[2, 2])
    h = g.node("Relu", [g.node("Conv", [h, g.init(f32(6, 2, 3, 3)), g.init(f32(6))], kernel_shape=[3, 3], group=2)])
    return g.model([g.gemm(g.node("Flatten", [g.node("GlobalAveragePool", [h])]), f32(3, 6))])


def batchnorm_mlp(kept=True):
    """BatchNorm1d in eval mode: kept after the Gemm (legacy), or folded into it (dynamo), the node's
    metadata still naming the module."""
    g = Graph(["s0", 8])
    h = g.gemm(g.input, f32(10, 8))
    if kept:
        h = g.node("BatchNormalization", [h, g.init(RNG.uniform(0.5, 2, 10).astype(np.float32)), g.init(f32(10)),
                                          g.init(f32(10)), g.init(RNG.uniform(0.5, 2, 10).astype(np.float32))],
                   epsilon=1e-5)
    else:
        entry = g.nodes[-1].metadata_props.add()
        entry.key, entry.value = "pkg.torch.onnx.name_scopes", "['', 'bn']"
        entry = g.nodes[-1].metadata_props.add()
        entry.key, entry.value = "pkg.torch.onnx.class_hierarchy", "['Net', 'torch.nn.modules.batchnorm.BatchNorm1d']"
    return g.model([g.gemm(g.node("Relu", [h]), f32(3, 10))])


def classifier(ending="Softmax", batch="s0"):
    """A classifier whose forward ends in softmax (or log_softmax), with a Dropout left in inference."""
    g = Graph([batch, 8])
    h = g.node("Relu", [g.gemm(g.input, f32(10, 8))])
    h = g.node("Dropout", [h, g.init(np.array(0.5, dtype=np.float32)), g.init(np.array(False))])
    return g.model([g.node(ending, [g.gemm(h, f32(3, 10))], axis=1 if ending == "LogSoftmax" else -1)])


def residual_mlp():
    """h = relu(W0 x); h = relu(h + W2 relu(W1 h)) (a tensor read twice); out = W3 h."""
    g = Graph(["s0", 8])
    h = g.node("Relu", [g.gemm(g.input, f32(6, 8))])
    branch = g.gemm(g.node("Relu", [g.gemm(h, f32(5, 6))]), f32(6, 5))
    h = g.node("Relu", [g.node("Add", [h, branch])])
    return g.model([g.gemm(h, f32(3, 6))])


def residual_cnn():
    """A residual block of convolutions, then flatten (dynamo's Flatten) and a Gemm; the input
    normalised first (Sub of the mean, Div by the deviation)."""
    g = Graph(["s0", 2, 5, 5])
    x = g.node("Div", [g.node("Sub", [g.input, g.init(f32(1, 2, 1, 1))]),
                       g.init(RNG.uniform(0.5, 2, (1, 2, 1, 1)).astype(np.float32))])
    h = g.node("Relu", [g.node("Conv", [x, g.init(f32(3, 2, 3, 3)), g.init(f32(3))], kernel_shape=[3, 3],
                                pads=[1, 1, 1, 1])])
    branch = g.node("Conv", [g.node("Relu", [g.node("Conv", [h, g.init(f32(3, 3, 3, 3))], kernel_shape=[3, 3],
                                                      pads=[1, 1, 1, 1])]), g.init(f32(3, 3, 1, 1))],
                    kernel_shape=[1, 1])
    h = g.node("Flatten", [g.node("Relu", [g.node("Add", [branch, h])])], axis=1)
    return g.model([g.gemm(h, f32(3, 75))])


def keras_mlp():
    """Keras 3's export: float-to-float Casts around every op, MatMul + Add (BiasAdd, the bias first),
    Softmax and an Identity on the output."""
    g = Graph(["unk__0", 8], name="keras_tensor")
    h = g.node("Cast", [g.input], to=TensorProto.FLOAT)
    for k, (out, width) in enumerate(((10, 8), (3, 10))):
        h = g.node("Cast", [g.node("MatMul", [h, g.init(f32(out, width).T.copy())])], to=TensorProto.FLOAT)
        h = g.node("Cast", [g.node("Add", [g.init(f32(out)), h])], to=TensorProto.FLOAT)
        h = g.node("Relu" if k == 0 else "Softmax", [h])
    return g.model([g.node("Identity", [h])])


def two_outputs():
    """A torch model returning (logits, hidden features): the first is read, --output picks another."""
    g = Graph(["s0", 8])
    hidden = g.node("Relu", [g.gemm(g.input, f32(10, 8))])
    return g.model([g.gemm(hidden, f32(3, 10)), hidden])


def skl_classifier(zipmap=True):
    """skl2onnx's MLPClassifier: Cast, MatMul + Add, Softmax, then the label (ArgMax →
    ArrayFeatureExtractor → Reshape → Cast) and the probabilities (ZipMap, or an Identity)."""
    g = Graph([None, 8], opset=17, name="X")
    h = g.node("Cast", [g.input], to=TensorProto.FLOAT)
    h = g.node("Relu", [g.node("Add", [g.node("MatMul", [h, g.init(f32(8, 10))]), g.init(f32(10))])])
    probabilities = g.node("Softmax", [g.node("Add", [g.node("MatMul", [h, g.init(f32(10, 3))]), g.init(f32(3))])])
    index = g.node("ArgMax", [probabilities], axis=1)
    label = g.node("ArrayFeatureExtractor", [g.init(np.arange(3, dtype=np.int64), "classes"), index],
                   domain="ai.onnx.ml")
    label = g.node("Cast", [g.node("Reshape", [label, g.init(np.array([-1], dtype=np.int64))])], to=TensorProto.INT64)
    outputs = [helper.make_tensor_value_info(label, TensorProto.INT64, [None])]
    if zipmap:
        mapped = g.node("ZipMap", [probabilities], domain="ai.onnx.ml", classlabels_int64s=[0, 1, 2])
        outputs.append(helper.make_value_info(mapped, helper.make_sequence_type_proto(
            helper.make_map_type_proto(TensorProto.INT64, helper.make_tensor_type_proto(TensorProto.FLOAT, None)))))
    else:
        outputs.append(g.node("Identity", [probabilities]))
    return g.model(outputs, extra_opsets=[("ai.onnx.ml", 1)])


def skl_regressor():
    """skl2onnx's MLPRegressor with 3 outputs: MatMul + Add, and a trailing Reshape [-1, 1]."""
    g = Graph([None, 8], opset=17, name="X")
    h = g.node("Cast", [g.input], to=TensorProto.FLOAT)
    h = g.node("Relu", [g.node("Add", [g.node("MatMul", [h, g.init(f32(8, 10))]), g.init(f32(10))])])
    h = g.node("Add", [g.node("MatMul", [h, g.init(f32(10, 3))]), g.init(f32(3))])
    return g.model([g.node("Reshape", [h, g.init(np.array([-1, 1], dtype=np.int64))])])


# name: (model, input shape, classes: labels for cross-entropy, else 3 regression targets)
EXPORTS = {
    "dynamo MLP, fixed batch": (lambda: mlp(FIXED), (8,), False),
    "dynamo MLP, dynamic batch": (lambda: mlp("s0"), (8,), False),
    "legacy MLP without biases: MatMul": (lambda: mlp(FIXED, "matmul"), (8,), False),
    "MLP with transposed weights": (lambda: mlp("s0", "transpose"), (8,), False),
    "legacy CNN, x.view(x.size(0), -1)": (legacy_cnn_view, (2, 6, 6), True),
    "legacy CNN at opset 11": (lambda: legacy_cnn_view(11), (2, 6, 6), True),
    "dynamo CNN, fixed batch": (lambda: dynamo_cnn(FIXED), (2, 6, 6), True),
    "dynamo CNN, dynamic batch": (lambda: dynamo_cnn("s0"), (2, 6, 6), True),
    "CNN with average pools and a grouped convolution": (average_pool_cnn, (2, 6, 6), True),
    "legacy BatchNorm MLP": (batchnorm_mlp, (8,), False),
    "dynamo BatchNorm MLP, folded": (lambda: batchnorm_mlp(kept=False), (8,), False),
    "classifier ending in Softmax": (classifier, (8,), True),
    "classifier ending in LogSoftmax, fixed batch": (lambda: classifier("LogSoftmax", FIXED), (8,), True),
    "residual MLP": (residual_mlp, (8,), False),
    "residual CNN with normalised input": (residual_cnn, (2, 5, 5), True),
    "Keras 3 MLP": (keras_mlp, (8,), True),
    "two outputs": (two_outputs, (8,), True),
    "skl2onnx classifier with ZipMap": (skl_classifier, (8,), True),
    "skl2onnx classifier without ZipMap": (lambda: skl_classifier(False), (8,), True),
    "skl2onnx regressor, 3 outputs": (skl_regressor, (8,), False),
}


def data(shape, classes, n=40):
    x = f32(n, *shape, scale=1.0)
    return x, (RNG.integers(0, 3, n) if classes else RNG.standard_normal((n, 3)))


@pytest.mark.parametrize("name", list(EXPORTS))
def test_every_export_is_read_and_its_twin_is_exact(name):
    make, shape, classes = EXPORTS[name]
    model = make()
    network = import_network(model)
    x, y = read_data(network, *data(shape, classes), "cross_entropy" if classes else "mse")
    run = build_twins(model, network, x, y, [Fraction(7, 2)], "per_neuron")
    assert run.reference_deviation < 1e-4 and run.nonzero_outputs > 0
    assert all(t.predictions_identical and t.float_agrees for t in run.twins)
    # the twin moved θ: some weight's factor is not 1; the path norm stays, exactly
    assert any(f != 1 for factors in run.twins[0].factors for f in factors.table)
    assert exact.path_norm_squared(network, run.original, shape) == \
        exact.path_norm_squared(network, run.twins[0].parameters, shape)


def test_a_fixed_batch_runs_in_batches_padded_and_cut():
    model = mlp(FIXED)
    x = f32(FIXED * 2 + 5, 8, scale=1.0)
    batched = onnxruntime_outputs(model, x, FIXED)
    one_by_one = np.concatenate([onnxruntime_outputs(model, np.repeat(x[i:i + 1], FIXED, axis=0), FIXED)[:1]
                                 for i in range(len(x))])
    assert batched.shape == (len(x), 3) and np.array_equal(batched, one_by_one)
    assert import_network(model).reading["batch"] == FIXED


def test_the_reading_says_what_it_read():
    reading = import_network(skl_classifier()).reading
    assert reading["ending"] == "Softmax" and reading["notes"] == ["ZipMap's input (the probabilities)"]
    assert reading["other_outputs"][0].startswith("cast")          # the label is not read
    regressor = import_network(skl_regressor())
    assert "Reshape [-1, 1]" in regressor.reading["notes"][0]
    assert [n[:19] for n in import_network(batchnorm_mlp()).reading["batch_norms"]] == ["/BatchNormalization"]
    assert import_network(batchnorm_mlp(kept=False)).reading["batch_norm_names"] == ["/Gemm_3"]
    normalised = import_network(residual_cnn())
    assert [type(layer) for layer in normalised.layers[:2]] == [Standardize, Standardize]
    assert sum(isinstance(layer, Sum) for layer in normalised.layers) == 1


def test_the_skip_connection_ties_the_factors_of_both_branches():
    """In the residual MLP the first hidden layer and the block's last layer feed one sum: their
    units take the same factors, derived from the graph; a group that ignores the tie is refuted."""
    network = import_network(residual_mlp())
    factors = parameter_factors(network, "per_neuron", Fraction(3))
    first_bias, block_bias = factors[1], factors[5]            # W0, b0, W1, b1, W2, b2, W3, b3
    assert [first_bias.table[c] for c in first_bias.codes] == [block_bias.table[c] for c in block_bias.codes]
    x = exact.from_floats(f32(10, 8, scale=1.0))
    from symbolic.trained.rescaling import exact_parameters, scaled
    original = exact_parameters(network)
    before = exact.forward(network, original, x)
    assert exact.first_difference(before, exact.forward(network, [scaled(t, f) for t, f in
                                                                  zip(original, factors)], x)) is None
    untied = list(factors)
    untied[4], untied[5] = (parameter_factors(network, "per_neuron", Fraction(5))[k] for k in (4, 5))
    assert exact.first_difference(before, exact.forward(network, [scaled(t, f) for t, f in
                                                                  zip(original, untied)], x)) is not None


@pytest.mark.parametrize("model, message", [
    (lambda: two_outputs(), None),
])
def test_output_picks_another_output(tmp_path, capsys, model, message):
    path = str(tmp_path / "two.onnx")
    onnx.save(two_outputs(), path)
    second = onnx.load(path).graph.output[1].name
    np.savez(tmp_path / "d.npz", x=f32(12, 8, scale=1.0), y=RNG.standard_normal((12, 10)))
    assert main(["rescale", path, "--data", str(tmp_path / "d.npz"), "--output", second, "--json",
                 "--measures", "weight_norm"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["read"]["output"] == second and report["parameters"] == 10 * 8 + 10
    assert main(["rescale", path, "--data", str(tmp_path / "d.npz"), "--output", "nowhere"]) == 2
    assert "--output nowhere: not an output of the graph" in capsys.readouterr().err


def test_the_report_names_the_loss_convention_and_what_was_read(tmp_path, capsys):
    path = str(tmp_path / "skl.onnx")
    onnx.save(skl_classifier(), path)
    np.savez(tmp_path / "d.npz", x=f32(12, 8, scale=1.0), y=RNG.integers(0, 3, 12))
    assert main(["rescale", path, "--data", str(tmp_path / "d.npz"), "--measures", "path_norm"]) == 0
    out = capsys.readouterr().out
    assert "cross_entropy loss" in out and "CrossEntropyLoss()" in out and "Softmax is part of the loss" in out
    assert "ZipMap's input" in out and "--output NAME" in out and "θ holds 123 numbers" in out
    # mse: the factor against torch's MSELoss for 3 outputs; integer labels read as classes by default
    onnx.save(mlp("s0"), path)
    np.savez(tmp_path / "d.npz", x=f32(12, 8, scale=1.0), y=RNG.standard_normal((12, 3)))
    assert main(["rescale", path, "--data", str(tmp_path / "d.npz"), "--measures", "weight_norm", "--json"]) == 0
    convention = json.loads(capsys.readouterr().out)["loss_convention"]
    assert convention["torch"].startswith("3/2 × nn.MSELoss()") and "reduction='sum'" in convention["torch"]
    np.savez(tmp_path / "d.npz", x=f32(12, 8, scale=1.0), y=RNG.integers(0, 3, 12))
    assert main(["rescale", path, "--data", str(tmp_path / "d.npz"), "--measures", "weight_norm"]) == 0
    out = capsys.readouterr().out
    assert "read as classes, the loss cross_entropy" in out and "cross_entropy loss" in out
    # asked for mse, integer labels are still refused with the way out
    assert main(["rescale", path, "--data", str(tmp_path / "d.npz"), "--loss", "mse"]) == 2
    assert "use --loss cross_entropy" in capsys.readouterr().err


def unsupported(kind):
    g = Graph(["s0", 8])
    h = g.gemm(g.input, f32(6, 8))
    if kind == "sigmoid":
        h = g.node("Sigmoid", [h])
    elif kind == "across_batch":              # pairs of examples into one row
        h = g.node("Reshape", [h, g.init(np.array([-1, 12], dtype=np.int64))])
    elif kind == "narrowing_cast":
        h = g.node("Cast", [h], to=TensorProto.FLOAT16)
    elif kind == "add_inside":                # a constant added to hidden units: read, no rescaling passes it
        h = g.gemm(g.node("Relu", [g.node("Add", [h, g.init(f32(6))])]), f32(6, 6))
    elif kind == "bias_of_a_shared_product":  # x W read by the Add of a bias and by a sum: no bias to fold
        product = g.node("MatMul", [h, g.init(f32(6, 6))])
        h = g.node("Add", [g.node("Add", [product, g.init(f32(6))]), product])
        h = g.gemm(g.node("Relu", [h]), f32(6, 6))
    elif kind == "float16_weight":           # onnxruntime refuses the types; the reader does not see it
        h = g.node("Gemm", [h, g.init(f32(6, 6).astype(np.float16))], transB=1)
    return g.model([h])


@pytest.mark.parametrize("kind, message", [
    ("sigmoid", "Sigmoid (Sigmoid node /Sigmoid_4) has no exact value at a rational point"),
    ("across_batch", "Reshape node /Reshape_5 to [-1, 12] of inputs (N, 6): it moves examples across the batch"),
    ("narrowing_cast", "Cast node /Cast_4: a Cast to element type 10 rounds"),
    ("add_inside", "no positive rescaling leaves this network unchanged: a constant added inside the network"),
    ("bias_of_a_shared_product", "no positive rescaling leaves this network unchanged: a constant added inside"),
    ("float16_weight", "onnxruntime cannot load the model: "),
])
def test_what_is_not_read_is_one_line_exit_2_before_any_exact_arithmetic(tmp_path, capsys, monkeypatch, kind,
                                                                          message):
    path = str(tmp_path / "model.onnx")
    onnx.save(unsupported(kind), path)
    np.savez(tmp_path / "d.npz", x=f32(12, 8), y=RNG.standard_normal((12, 6)))

    def no_exact_arithmetic(*arguments):
        raise AssertionError("exact arithmetic before the refusal")
    monkeypatch.setattr(exact, "forward", no_exact_arithmetic)
    monkeypatch.setattr(exact, "from_floats", no_exact_arithmetic)
    assert main(["rescale", path, "--data", str(tmp_path / "d.npz")]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and message in err, err
    if kind == "float16_weight":             # onnxruntime's whole reason, not its first line cut short
        assert "Gemm" in err and len(err) > 120


def test_external_weights_as_dynamo_writes_them(tmp_path):
    path = tmp_path / "model.onnx"
    model = mlp(FIXED)
    expected = import_network(model).parameter_count
    onnx.save(model, str(path), save_as_external_data=True, all_tensors_to_one_file=True,
              location="model.onnx.data", size_threshold=0)
    from symbolic.trained.experiment import load_network
    _, network = load_network(str(path))
    assert network.parameter_count == expected == 10 * 8 + 10 + 6 * 10 + 6 + 3 * 6 + 3
    (tmp_path / "model.onnx.data").unlink()
    with pytest.raises(UnsupportedModel, match="no such file|not a valid ONNX model"):
        load_network(str(path))
