"""The network's forward pass and loss as JAX functions of the flat parameter vector θ (on the CPU):
gradients, Hessian-vector products, quadratic forms and per-example derivatives all come from JAX,
in float64, or in float32 where a measure's report allows it (the estimates and the search of the
sharpness ascent; what they report is then measured in float64 again)."""
from __future__ import annotations

import os

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

from symbolic.trained.network import (Activation, AveragePool, Conv, Dense, Diagonal, Flatten, LeakyReLU,  # noqa: E402
                                      MaxPool, Permute, PReLU, Product, ReLU, Standardize, Sum, TrainedNetwork, View)

jax.config.update("jax_enable_x64", True)

def forward_function(network: TrainedNetwork):
    """f(θ, x): the network's outputs on a batch x, θ flat."""
    def forward(theta, x):
        supply = iter(network.unflatten(theta))

        def apply(layer, inputs):
            x = inputs[0]
            if isinstance(layer, Dense):
                x = x @ next(supply).T
                if layer.bias is not None:
                    x = x + next(supply)
            elif isinstance(layer, Conv):
                pads = ((layer.pads[0], layer.pads[2]), (layer.pads[1], layer.pads[3]))
                x = jax.lax.conv_general_dilated(x, next(supply), layer.strides, pads,
                                                 rhs_dilation=layer.dilations,
                                                 dimension_numbers=("NCHW", "OIHW", "NCHW"),
                                                 feature_group_count=layer.groups)
                if layer.bias is not None:
                    x = x + next(supply)[None, :, None, None]
            elif isinstance(layer, Diagonal):
                trailing = (1,) * (x.ndim - 2)
                scale, shift = next(supply), next(supply)
                x = x * scale.reshape(-1, *trailing) + shift.reshape(-1, *trailing)
            elif isinstance(layer, Standardize):
                x = x * _floats(layer.scale).astype(x.dtype) + _floats(layer.shift).astype(x.dtype)
            elif isinstance(layer, Sum):
                x = x + inputs[1]
            elif isinstance(layer, ReLU):
                x = jnp.maximum(x, 0)
            elif isinstance(layer, LeakyReLU):
                x = jnp.maximum(x, layer.slope * x)
            elif isinstance(layer, MaxPool):
                pads = ((0, 0), (0, 0), (layer.pads[0], layer.pads[2]), (layer.pads[1], layer.pads[3]))
                x = jax.lax.reduce_window(x, -jnp.inf, jax.lax.max, (1, 1, *layer.kernel),
                                          (1, 1, *layer.strides), pads)
            elif isinstance(layer, AveragePool):
                pads = ((0, 0), (0, 0), (layer.pads[0], layer.pads[2]), (layer.pads[1], layer.pads[3]))
                x = jax.lax.reduce_window(x, 0.0, jax.lax.add, (1, 1, *layer.kernel), (1, 1, *layer.strides),
                                          pads) / (layer.kernel[0] * layer.kernel[1])
            elif isinstance(layer, Flatten):
                x = x.reshape(x.shape[0], -1)
            elif isinstance(layer, Permute):
                x = jnp.transpose(x, (0, *(axis + 1 for axis in layer.axes)))
            elif isinstance(layer, View):
                x = x.reshape(x.shape[0], *layer.shape)
            elif isinstance(layer, PReLU):
                x = jnp.where(x > 0, x, layer.slope.astype(np.float64) * x)
            elif isinstance(layer, Product):
                x = x * inputs[1]
            elif isinstance(layer, Activation):
                x = ACTIVATIONS[layer.function](x, layer)
            return x
        return network.evaluate(apply, x)
    return forward


ACTIVATIONS = {
    "Sigmoid": lambda x, layer: jax.nn.sigmoid(x),
    "Tanh": lambda x, layer: jnp.tanh(x),
    "Erf": lambda x, layer: jax.scipy.special.erf(x),
    "GELU": lambda x, layer: jax.nn.gelu(x, approximate=False),
    "Clip": lambda x, layer: jnp.clip(x, layer.low, layer.high),
}


def _floats(fractions: np.ndarray) -> np.ndarray:
    """Exact constants rounded to float64 (Fraction → float rounds correctly)."""
    return np.array([float(v) for v in fractions.ravel()], dtype=np.float64).reshape(fractions.shape)


def example_losses_function(network: TrainedNetwork, loss: str):
    """ℓ(θ, x, y): the loss of each example, ½‖f(x_n) − y_n‖² (mse) or −log softmax(f(x_n))_{y_n}."""
    forward = forward_function(network)
    if loss == "mse":
        def losses(theta, x, y):
            out = forward(theta, x)
            return 0.5 * jnp.sum((out - y.reshape(out.shape)) ** 2, axis=1)
    elif loss == "cross_entropy":
        def losses(theta, x, y):
            logits = forward(theta, x)
            log_p = jax.nn.log_softmax(logits, axis=1)
            return -jnp.take_along_axis(log_p, y.astype(jnp.int32)[:, None], axis=1)[:, 0]
    else:
        raise ValueError(f"unknown loss {loss!r}; choose mse or cross_entropy")
    return losses


BATCH = 1024        # examples per batch: the data are streamed through the network in batches of this size


class BatchFunctions:
    """The compiled functions of one batch (x, y, w), w the examples' weights 1/N (0 for padding):
    the outputs, the batch's share Σ_n w_n ℓ_n(θ) of L, with its gradient, its Hessian-vector
    product (forward over reverse), the quadratic form vᵀ∇²(share) v (forward over forward: no
    reverse pass, the cheapest second derivative along v), and the radial derivatives ⟨θ, ∇ℓ_n(θ)⟩.
    Each is compiled once per precision (XLA compilation dominates on small models)."""

    def __init__(self, network: TrainedNetwork, loss: str):
        forward = forward_function(network)
        losses = example_losses_function(network, loss)

        def share(theta, x, y, w):
            return jnp.sum(losses(theta, x, y) * w)

        def along(theta, v, x, y, w):                   # d/dt share(θ + t v) at t = 0
            return jax.jvp(lambda t: share(t, x, y, w), (theta,), (v,))[1]
        self.compiled = {
            "outputs": jax.jit(lambda theta, x, y, w: forward(theta, x)),
            "value": jax.jit(share),
            "value_and_gradient": jax.jit(jax.value_and_grad(share)),
            "hvp": jax.jit(lambda theta, v, x, y, w:
                           jax.jvp(lambda t: jax.grad(share)(t, x, y, w), (theta,), (v,))[1]),
            "quadratic_form": jax.jit(lambda theta, v, x, y, w:
                                      jax.jvp(lambda t: along(t, v, x, y, w), (theta,), (v,))[1]),
            # ⟨θ, ∇ℓ_n(θ)⟩ for every n of a batch at once: the directional derivative of the losses along θ
            "radial": jax.jit(lambda theta, x, y, w: jax.jvp(lambda t: losses(t, x, y), (theta,), (theta,))[1]),
        }

    def __call__(self, kind: str, dtype, vectors: tuple, batch: tuple):
        """One function on one batch, the vectors and the batch's floats in ``dtype``; numpy results."""
        x, y, w = batch
        y = y if y.dtype.kind in "iu" else y.astype(dtype)
        result = self.compiled[kind](*(jnp.asarray(v, dtype) for v in vectors), jnp.asarray(x, dtype),
                                     jnp.asarray(y), jnp.asarray(w, dtype))
        return jax.tree_util.tree_map(np.asarray, result)


def batches_of(x: np.ndarray, y: np.ndarray, size: int) -> list:
    """The data cut into batches of ``size`` examples, the last padded with weight-0 examples (so one
    shape is compiled); each example's weight is 1/N."""
    n = len(x)
    padding = -n % size
    weights = np.concatenate([np.full(n, 1.0 / n), np.zeros(padding)])
    x = np.concatenate([x, np.zeros((padding, *x.shape[1:]), dtype=x.dtype)])
    y = np.concatenate([y, np.zeros((padding, *y.shape[1:]), dtype=y.dtype)])
    return [(x[k:k + size], y[k:k + size], weights[k:k + size]) for k in range(0, len(x), size)]


class LocalBatches:
    """The batches in this process: each function runs on them one after the other."""

    def __init__(self, functions: BatchFunctions, batches: list):
        self.functions, self.batches = functions, batches

    def each(self, kind: str, dtype, vectors: tuple) -> list:
        return [self.functions(kind, dtype, vectors, batch) for batch in self.batches]


class Objective:
    """L(θ) = (1/N) Σ_n ℓ_n(θ) on fixed data, with its derivatives, the data streamed in batches of
    at most ``batch`` examples; every quantity is a sum (or a concatenation) over the batches, so the
    batches may live on other machines: ``shards(network, loss, x, y, batch)`` places them (e.g.
    ``symbolic.trained.sharding.on_dask(client)``), each placement with ``each(kind, dtype, vectors)``.
    ``dtype`` float32 computes a product in float32 (the estimates and the ascent's search)."""

    def __init__(self, network: TrainedNetwork, x: np.ndarray, y: np.ndarray, loss: str, batch: int = BATCH,
                 shards=None):
        x, y = np.asarray(x, dtype=np.float64), np.asarray(y)
        self.examples = n = len(x)
        self.size = network.parameter_count
        if shards is None:
            self.batches = LocalBatches(BatchFunctions(network, loss), batches_of(x, y, max(1, min(batch, n))))
        else:
            self.batches = shards(network, loss, x, y, batch)

    def _sum(self, kind, dtype, *vectors):
        parts = self.batches.each(kind, dtype, vectors)
        return jax.tree_util.tree_map(lambda *pieces: sum(pieces[1:], pieces[0]), *parts)

    def _concatenate(self, kind, *vectors):
        return np.concatenate(self.batches.each(kind, np.float64, vectors))[:self.examples]

    def value_and_gradient(self, theta, dtype=np.float64) -> tuple:
        value, gradient = self._sum("value_and_gradient", dtype, theta)
        return float(value), np.asarray(gradient, dtype=np.float64)

    def loss(self, theta) -> float:
        return float(self._sum("value", np.float64, theta))

    def gradient(self, theta) -> np.ndarray:
        return self.value_and_gradient(theta)[1]

    def hvp(self, theta, v, dtype=np.float64) -> np.ndarray:
        """∇²L(θ) v."""
        return np.asarray(self._sum("hvp", dtype, theta, v), dtype=np.float64)

    def quadratic_form(self, theta, v, dtype=np.float64) -> float:
        """vᵀ ∇²L(θ) v, without the product ∇²L(θ) v."""
        return float(self._sum("quadratic_form", dtype, theta, v))

    def radial_derivatives(self, theta) -> np.ndarray:
        return self._concatenate("radial", theta)

    def outputs(self, theta) -> np.ndarray:
        return self._concatenate("outputs", theta)
