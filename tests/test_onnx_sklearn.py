"""Real scikit-learn models exported by skl2onnx (the optional extra ``[exporters]``): the classifier's
label and probabilities (with and without ZipMap) and the regressor's Reshape [-1, 1] are read, the
twins exact."""
import json
import warnings

import numpy as np
import onnx
import pytest

from proofs.commands.cli import main

skl2onnx = pytest.importorskip("skl2onnx", reason="skl2onnx is in the optional extra [exporters]")
sklearn_datasets = pytest.importorskip("sklearn.datasets", reason="scikit-learn is in the optional extra [exporters]")
from sklearn.exceptions import ConvergenceWarning  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.neural_network import MLPClassifier, MLPRegressor  # noqa: E402

from symbolic.trained.onnx_import import import_network, onnxruntime_outputs  # noqa: E402


@pytest.fixture(scope="module")
def digits():
    x, y = sklearn_datasets.load_digits(return_X_y=True)
    return (x[:120] / 16).astype(np.float32), y[:120]


def fitted(estimator, x, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return estimator.fit(x, y)


def export(estimator, x, path, **options):
    model = skl2onnx.to_onnx(estimator, x[:1], options={id(estimator): options} if options else None)
    onnx.save(model, str(path))
    return model


def rescale(tmp_path, model_path, x, y, *arguments):
    np.savez(tmp_path / "data.npz", x=x, y=y)
    return main(["rescale", str(model_path), "--data", str(tmp_path / "data.npz"), "--json", "--alpha", "5",
                 "--measures", "path_norm,weight_norm", *arguments])


@pytest.mark.parametrize("zipmap", [True, False])
def test_an_mlp_classifier_is_read_through_its_probabilities(tmp_path, capsys, digits, zipmap):
    x, y = digits
    classifier = fitted(MLPClassifier(hidden_layer_sizes=(12,), max_iter=30, random_state=0), x, y)
    model = export(classifier, x, tmp_path / "c.onnx", **({} if zipmap else {"zipmap": False}))
    network = import_network(model)
    assert network.reading["ending"] == "Softmax" and network.parameter_count == 64 * 12 + 12 + 12 * 10 + 10
    # the logits read are scikit-learn's: softmax of them is predict_proba
    logits = onnxruntime_outputs(model, x, tensor=network.reading["tensor"])
    probabilities = np.exp(logits - logits.max(axis=1, keepdims=True))
    probabilities /= probabilities.sum(axis=1, keepdims=True)
    assert np.allclose(probabilities, classifier.predict_proba(x), atol=1e-5)
    assert rescale(tmp_path, tmp_path / "c.onnx", x, y) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["predictions_identical"] and report["loss"] == "cross_entropy"
    assert report["read"]["output"] == ("output_probability" if zipmap else "probabilities")
    assert report["measures"]["path_norm"]["exactly_equal"] == [True]


@pytest.mark.parametrize("outputs", [1, 3])
def test_an_mlp_regressor_is_read_before_its_reshape(tmp_path, capsys, digits, outputs):
    x, labels = digits
    targets = np.eye(10)[labels][:, :outputs] if outputs > 1 else labels.astype(np.float64)
    regressor = fitted(MLPRegressor(hidden_layer_sizes=(12,), max_iter=30, random_state=0), x, targets)
    export(regressor, x, tmp_path / "r.onnx")
    assert rescale(tmp_path, tmp_path / "r.onnx", x, targets) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["predictions_identical"] and report["loss"] == "mse"
    assert report["loss_convention"]["torch"].startswith(f"{outputs}/2 ×" if outputs > 1 else "1/2 ×")
    assert report["onnxruntime_deviation"] < 1e-4


def test_a_linear_model_written_as_an_ml_operator_is_refused_naming_it(tmp_path, capsys, digits):
    x, y = digits
    export(fitted(LogisticRegression(max_iter=50), x, y), x, tmp_path / "l.onnx")
    assert rescale(tmp_path, tmp_path / "l.onnx", x, y) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "unsupported ONNX operator LinearClassifier" in err, err
