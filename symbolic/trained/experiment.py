"""One run on a trained model: import it, check the import against onnxruntime, build the exact twin
T θ for every α (or every element of a discovered group), prove the twin's predictions identical on the data, and measure θ and every T_α θ."""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from symbolic.errors import CheckerError
from symbolic.trained import exact
from symbolic.trained.onnx_import import UnsupportedModel, import_network, load_model, onnxruntime_outputs
from symbolic.trained.rescaling import exact_parameters, parameter_factors, scaled, write_twin

EXACT_CHUNK = 200             # examples per chunk of the exact forward passes
REFERENCE_TOLERANCE = 1e-3    # relative to max(1, max |output|): float32 rounding, not a misread layer


class DataError(CheckerError, ValueError):
    """DATA.npz does not fit the model (shape, NaN, labels): one line, exit code 2."""


class ImportMismatch(CheckerError, RuntimeError):
    """The imported network does not compute what onnxruntime computes: a bug of the import."""


@dataclass
class Twin:
    element: Fraction | str                 # α, or the group element applied ('T_1=2, T_2=1/3')
    factors: list
    parameters: list                        # exact tensors of T_α θ
    difference: tuple | None                # None, or (example, output), f_θ there, f_{Tθ} there
    onnx_model: object                      # the twin as ONNX, each parameter rounded to its type
    float_deviation: float                  # max |ort(twin) − ort(original)| on the data
    float_agrees: bool                      # that deviation within the import check's tolerance

    @property
    def predictions_identical(self) -> bool:
        """f_{Tθ}(x_n) = f_θ(x_n) for every example n and output, exactly."""
        return self.difference is None


@dataclass
class Run:
    network: object
    model: object
    x: object                               # the inputs, as the model's input type
    y: object
    outputs: object                         # f_θ(x_n), exact
    reference_deviation: float              # max |f_θ(x_n) − onnxruntime's output|
    twins: list
    original: list                          # the exact tensors of θ
    measures: dict = field(default_factory=dict)   # key -> (Value at θ, [Value at each T_α θ])
    loss: float | None = None

    @property
    def nonzero_outputs(self) -> int:
        """How many of the compared outputs are not 0 (an all-zero comparison would show nothing)."""
        return int(np.count_nonzero(self.outputs.integers != 0))


def read_data(network, x: np.ndarray, y: np.ndarray, loss: str) -> tuple:
    """The inputs as the model's input type and the targets, checked; bad data raises DataError."""
    outputs = output_count(network)
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
    if network.reading.get("ending"):
        raise DataError(f"the model ends in {network.reading['ending']}: the logits before it are read with "
                        "--loss cross_entropy")
    if y.ndim == 1 and y.dtype.kind in "iu" and outputs > 1:
        raise DataError(f"y holds integer class labels and the model has {outputs} outputs: use --loss cross_entropy")
    if y.reshape(len(y), -1).shape[1] != outputs:
        raise DataError(f"y has shape {y.shape}; the model has {outputs} outputs")
    return x, y.reshape(len(y), outputs).astype(np.float64)


def output_count(network) -> int:
    from symbolic.trained.onnx_import import network_shapes
    shape = network_shapes(network)[-1]
    if len(shape) != 1:
        raise UnsupportedModel(f"the network's output has shape {shape}; a vector per example is read")
    return shape[0]


def load_network(path: str, output: str | None = None):
    """The ONNX model and the network read from it (up to the output named, or the one the loss needs)."""
    model = load_model(path)
    return model, import_network(model, output)


def reference(model, network, x) -> np.ndarray:
    """onnxruntime's values of the tensor read, on the data, in batches of a fixed batch size."""
    return onnxruntime_outputs(model, x, network.reading.get("batch"), network.reading.get("tensor"))


def build_twins(model, network, x, y, alphas, group: str) -> Run:
    """The twins T_α θ of the group (layerwise, per_neuron), one per α: see ``twins_of``."""
    return twins_of(model, network, x, y, [(alpha, parameter_factors(network, group, alpha)) for alpha in alphas])


def twins_of(model, network, x, y, elements: list) -> Run:
    """Check the import against onnxruntime on the data (checked by ``read_data``), then for every
    (element, factors) build T θ = factors ⊙ θ exactly, compare its outputs with θ's exactly, and run
    its ONNX copy under onnxruntime."""
    expected = reference(model, network, x)           # onnxruntime first: it refuses before any exact arithmetic
    original = exact_parameters(network)
    tolerance = REFERENCE_TOLERANCE * max(1.0, float(np.max(np.abs(expected), initial=0)))
    labels, factors = [e for e, _ in elements], [f for _, f in elements]
    parameters = [[scaled(t, f) for t, f in zip(original, fs)] for fs in factors]
    # the examples streamed in chunks: θ's and every T_α θ's exact outputs compared chunk by chunk
    pieces, differences = [], [None] * len(elements)
    for start in range(0, len(x), EXACT_CHUNK):
        inputs = exact.from_floats(x[start:start + EXACT_CHUNK])
        outputs = exact.forward(network, original, inputs)
        pieces.append(outputs)
        for k, twin in enumerate(parameters):
            if differences[k] is None:
                difference = exact.first_difference(outputs, exact.forward(network, twin, inputs))
                if difference is not None:
                    (example, *rest), before, after = difference
                    differences[k] = ((start + example, *rest), before, after)
    outputs = exact.concatenate(pieces)
    deviation = float(np.max(np.abs(outputs.to_float() - expected), initial=0.0))
    if not deviation <= tolerance:
        raise ImportMismatch(f"the imported network differs from onnxruntime by {deviation:.3g} on the data")
    twins = []
    for label, fs, twin, difference in zip(labels, factors, parameters, differences):
        onnx_twin = write_twin(model, network, fs, original, twin)
        float_deviation = float(np.max(np.abs(reference(onnx_twin, network, x) - expected), initial=0.0))
        twins.append(Twin(label, fs, twin, difference, onnx_twin, float_deviation, float_deviation <= tolerance))
    return Run(network, model, x, y, outputs, deviation, twins, original)


POOLED = ("the best of the searches from θ and from every twin: u = δ/|θ| is shared, since T(θ + |θ| ⊙ u) = "
          "Tθ + |Tθ| ⊙ u for a positive rescaling T, so one u gives θ and a twin one loss, up to float64 rounding")


def pooled_adaptive_sharpness(points: list, values: list) -> list:
    """Adaptive sharpness at each point as the best of every search's best u (each a point of the same
    ball at every point: a lower bound at each), so that θ and its twins are measured at one u and
    differ only by the float64 rounding of the loss there (stated as ``rounding``: twice the spread of
    L(θ) over the points, equal in exact arithmetic, plus 16 ulps of the largest loss compared)."""
    from dataclasses import replace
    candidates = [point.best_points["adaptive_sharpness"] for point in points]
    losses = [point.loss() for point in points]
    found = [max([value.value] + [point.adaptive_value_at(u) for u in candidates]) for point, value in zip(points, values)]
    largest = max(abs(v) for v in losses + [loss + f for loss, f in zip(losses, found)])
    rounding = 2 * (max(losses) - min(losses)) + 16 * np.finfo(np.float64).eps * largest
    return [replace(value, value=best, details={**value.details, "points": POOLED, "rounding": rounding})
            for value, best in zip(values, found)]


def measure(run: Run, keys, loss: str, cluster=None, batch: int | None = None) -> None:
    """Every measure at θ and at every T_α θ (θ' rounded to float64 for the derivatives), the data
    in this process or sharded over the workers of ``cluster`` (a Dask client), in batches of at most
    ``batch`` examples.  The JAX network must compute the exact network's outputs first (float64
    rounding apart)."""
    from symbolic.trained.autodiff import BATCH, Objective
    from symbolic.trained.measures import MeasureContext
    shards = None
    if cluster is not None:
        from symbolic.trained.sharding import on_dask
        shards = on_dask(cluster)
    objective = Objective(run.network, run.x, run.y, loss, batch=batch or BATCH, shards=shards)
    theta = run.network.flat_parameters()
    exact_outputs = run.outputs.to_float()
    gap = float(np.max(np.abs(objective.outputs(theta) - exact_outputs), initial=0.0))
    if not gap <= 1e-9 * max(1.0, float(np.max(np.abs(exact_outputs), initial=0.0))):
        raise ImportMismatch(f"the JAX network differs from the exact one by {gap:.3g} on the data")
    points = [MeasureContext(run.network, objective, theta, run.original)]
    for twin in run.twins:
        twin_theta = np.concatenate([t.to_float().ravel() for t in twin.parameters])
        points.append(MeasureContext(run.network, objective, twin_theta, twin.parameters))
    for key in keys:
        values = [point.measure(key) for point in points]
        if key == "adaptive_sharpness" and len(points) > 1:
            values = pooled_adaptive_sharpness(points, values)
        run.measures[key] = (values[0], values[1:])
    run.loss = objective.loss(theta)
