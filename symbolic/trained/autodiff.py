"""The network's forward pass and loss as JAX functions of the flat parameter vector θ (float64, on
the CPU): gradients, Hessian-vector products and per-example derivatives all come from JAX."""
from __future__ import annotations

import os

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

from symbolic.trained.network import (Conv, Dense, Diagonal, Flatten, LeakyReLU, MaxPool, ReLU, Standardize,  # noqa: E402
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
                                                 dimension_numbers=("NCHW", "OIHW", "NCHW"))
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


class Objective:
    """L(θ) = (1/N) Σ_n ℓ_n(θ) on fixed data, with its derivatives.  Few functions are compiled
    (XLA compilation dominates on small models): the outputs, L with ∇L, the Hessian-vector product,
    and the radial derivatives ⟨θ, ∇ℓ_n(θ)⟩."""

    def __init__(self, network: TrainedNetwork, x: np.ndarray, y: np.ndarray, loss: str):
        self.x, self.y = jnp.asarray(x, dtype=jnp.float64), jnp.asarray(y)
        self.forward = jax.jit(forward_function(network))
        losses = example_losses_function(network, loss)

        def mean_loss(theta):
            return jnp.mean(losses(theta, self.x, self.y))
        self.value_and_gradient = jax.jit(jax.value_and_grad(mean_loss))
        self.hvp = jax.jit(lambda theta, v: jax.jvp(jax.grad(mean_loss), (theta,), (v,))[1])
        # ⟨θ, ∇ℓ_n(θ)⟩ for every n at once: the directional derivative of the losses along θ
        self.radial_derivatives = jax.jit(
            lambda theta: jax.jvp(lambda t: losses(t, self.x, self.y), (theta,), (theta,))[1])

    def loss(self, theta) -> float:
        return float(self.value_and_gradient(theta)[0])

    def gradient(self, theta) -> np.ndarray:
        return np.asarray(self.value_and_gradient(theta)[1])

    def outputs(self, theta) -> np.ndarray:
        return np.asarray(self.forward(jnp.asarray(theta), self.x))
