"""One run on a trained model: import it, check the import against onnxruntime, build the exact twin
T_α θ for every α, prove the twin's predictions identical on the data, and measure θ and every T_α θ."""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from symbolic.trained import exact
from symbolic.trained.onnx_import import UnsupportedModel, import_network, load_model, onnxruntime_outputs
from symbolic.trained.rescaling import exact_parameters, parameter_factors, scaled, write_twin

REFERENCE_TOLERANCE = 1e-3    # relative to max(1, max |output|): float32 rounding, not a misread layer


class DataError(ValueError):
    """DATA.npz does not fit the model (shape, NaN, labels): one line, exit code 2."""


class ImportMismatch(RuntimeError):
    """The imported network does not compute what onnxruntime computes: a bug of the import."""


@dataclass
class Twin:
    alpha: Fraction
    factors: list
    parameters: list                        # exact tensors of T_α θ
    predictions_identical: bool             # f_{Tθ}(x_n) = f_θ(x_n) for every n, exactly
    onnx_model: object = None
    float_deviation: float | None = None    # max |ort(twin) − ort(original)| on the data


@dataclass
class Run:
    network: object
    model: object
    reference_deviation: float
    twins: list
    measures: dict = field(default_factory=dict)   # key -> (Value at θ, [Value at each T_α θ])


def read_data(network, x: np.ndarray, y: np.ndarray, loss: str, outputs: int) -> tuple:
    """The inputs as the model's input type and the targets, checked; bad data raises DataError."""
    x, y = np.asarray(x), np.asarray(y)
    if x.dtype.kind not in "fiu" or y.dtype.kind not in "fiu":
        raise DataError("x and y must be numeric arrays")
    if x.ndim < 1 or x.shape[1:] != tuple(network.input_shape) or x.shape[0] == 0:
        raise DataError(f"x has shape {x.shape}; the model reads (N, {', '.join(map(str, network.input_shape))})")
    if len(y) != len(x):
        raise DataError(f"x holds {len(x)} examples and y {len(y)}")
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        raise DataError("the data hold a NaN or an infinity")
    x = x.astype(network.input_dtype)
    if not np.all(np.isfinite(x)):
        raise DataError(f"x overflows {network.input_dtype}")
    if loss == "cross_entropy":
        if y.ndim != 1 or np.any(y != np.round(y)) or np.any(y < 0) or np.any(y >= outputs):
            raise DataError(f"cross_entropy needs y of shape (N,) with class labels 0..{outputs - 1}")
        return x, y.astype(np.int64)
    if y.reshape(len(y), -1).shape[1] != outputs:
        raise DataError(f"y has shape {y.shape}; the model has {outputs} outputs")
    return x, y.reshape(len(y), outputs).astype(np.float64)


def output_count(network) -> int:
    from symbolic.trained.onnx_import import output_shape
    shape = network.input_shape
    for layer in network.layers:
        shape = output_shape(layer, shape)
    if len(shape) != 1:
        raise UnsupportedModel(f"the network's output has shape {shape}; a vector per example is read")
    return shape[0]


def build_twins(path: str, x, y, alphas, group: str, loss: str, write_onnx: bool) -> Run:
    model = load_model(path)
    network = import_network(model)
    x, y = read_data(network, x, y, loss, output_count(network))
    inputs = exact.from_floats(x)
    original = exact_parameters(network)
    outputs = exact.forward(network.layers, original, inputs)
    reference = onnxruntime_outputs(model, x)
    deviation = float(np.max(np.abs(outputs.to_float() - reference))) if reference.size else 0.0
    if not deviation <= REFERENCE_TOLERANCE * max(1.0, float(np.max(np.abs(reference), initial=0))):
        raise ImportMismatch(f"the imported network differs from onnxruntime by {deviation:.3g} on the data")
    twins = []
    for alpha in alphas:
        factors = parameter_factors(network, group, alpha)
        parameters = [scaled(t, f) for t, f in zip(original, factors)]
        twin = Twin(alpha, factors, parameters,
                    exact.identical(exact.forward(network.layers, parameters, inputs), outputs))
        if write_onnx:
            twin.onnx_model = write_twin(model, network, factors)
            twin.float_deviation = float(np.max(np.abs(onnxruntime_outputs(twin.onnx_model, x) - reference),
                                                initial=0.0))
        twins.append(twin)
    run = Run(network, model, deviation, twins)
    run.x, run.y = x, y
    return run


def measure(run: Run, keys, loss: str) -> None:
    """Every measure at θ and at every T_α θ (θ' rounded to float64 for the derivatives)."""
    from symbolic.trained.autodiff import Objective
    from symbolic.trained.measures import MeasureContext
    objective = Objective(run.network, run.x, run.y, loss)
    original = exact_parameters(run.network)
    points = [MeasureContext(run.network, objective, run.network.flat_parameters(), original)]
    for twin in run.twins:
        theta = np.concatenate([t.to_float().ravel() for t in twin.parameters])
        points.append(MeasureContext(run.network, objective, theta, twin.parameters))
    for key in keys:
        values = [point.measure(key) for point in points]
        run.measures[key] = (values[0], values[1:])
    run.loss = float(objective.loss(points[0].theta))
