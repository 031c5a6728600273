"""The network's forward pass and loss as JAX functions of the flat parameter vector θ (float64, on
the CPU): gradients, Hessian-vector products and per-example derivatives all come from JAX."""
from __future__ import annotations

import os

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

from symbolic.trained.network import (AveragePool, Conv, Dense, Diagonal, Flatten, LeakyReLU, MaxPool, ReLU, Standardize,  # noqa: E402
                                      Sum, TrainedNetwork)

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
                x = x * _floats(layer.scale) + _floats(layer.shift)
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
            return x
        return network.evaluate(apply, x)
    return forward


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


class Objective:
    """L(θ) = (1/N) Σ_n ℓ_n(θ) on fixed data, with its derivatives, the data streamed in batches of
    at most ``batch`` examples (the last padded with weight 0, so one shape is compiled).  Few functions
    are compiled (XLA compilation dominates on small models): the outputs, a batch's share of L with
    its gradient, its Hessian-vector product, and the radial derivatives ⟨θ, ∇ℓ_n(θ)⟩."""

    def __init__(self, network: TrainedNetwork, x: np.ndarray, y: np.ndarray, loss: str, batch: int = BATCH):
        x, y = np.asarray(x, dtype=np.float64), np.asarray(y)
        self.examples = n = len(x)
        size = max(1, min(batch, n))
        padding = -n % size
        weights = np.concatenate([np.full(n, 1.0 / n), np.zeros(padding)])
        x = np.concatenate([x, np.zeros((padding, *x.shape[1:]))])
        y = np.concatenate([y, np.zeros((padding, *y.shape[1:]), dtype=y.dtype)])
        self.batches = [(jnp.asarray(x[k:k + size]), jnp.asarray(y[k:k + size]), jnp.asarray(weights[k:k + size]))
                        for k in range(0, len(x), size)]
        forward = jax.jit(forward_function(network))
        losses = example_losses_function(network, loss)

        def share(theta, x, y, w):                      # Σ_{n in the batch} ℓ_n(θ) / N
            return jnp.sum(losses(theta, x, y) * w)
        share_and_gradient = jax.jit(jax.value_and_grad(share))
        share_hvp = jax.jit(lambda theta, v, x, y, w: jax.jvp(lambda t: jax.grad(share)(t, x, y, w), (theta,), (v,))[1])
        # ⟨θ, ∇ℓ_n(θ)⟩ for every n of a batch at once: the directional derivative of the losses along θ
        radial = jax.jit(lambda theta, x, y: jax.jvp(lambda t: losses(t, x, y), (theta,), (theta,))[1])

        def value_and_gradient(theta):
            value, gradient = 0.0, 0.0
            for batch_x, batch_y, w in self.batches:
                v, g = share_and_gradient(theta, batch_x, batch_y, w)
                value, gradient = value + v, gradient + g
            return value, gradient
        self.value_and_gradient = value_and_gradient
        self.hvp = lambda theta, v: sum(share_hvp(theta, v, bx, by, w) for bx, by, w in self.batches)
        self.radial_derivatives = lambda theta: jnp.concatenate(
            [radial(theta, bx, by) for bx, by, _ in self.batches])[:n]
        self.forward_batches = lambda theta: jnp.concatenate([forward(theta, bx) for bx, _, _ in self.batches])[:n]

    def loss(self, theta) -> float:
        return float(self.value_and_gradient(theta)[0])

    def gradient(self, theta) -> np.ndarray:
        return np.asarray(self.value_and_gradient(theta)[1])

    def outputs(self, theta) -> np.ndarray:
        return np.asarray(self.forward_batches(jnp.asarray(theta)))
