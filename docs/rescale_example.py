"""Train an MLP and a small CNN on scikit-learn's handwritten digits (8×8 images, shipped with the
package) with JAX, write them as ONNX, and run `python -m proofs rescale` on each: the README's
table and plot come from this script.

    python docs/rescale_example.py OUT_FOLDER        (needs the onnx extra and scikit-learn)
"""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from symbolic.trained.autodiff import Objective  # noqa: E402
from symbolic.trained.onnx_export import export_chain  # noqa: E402
from symbolic.trained.onnx_import import import_network  # noqa: E402

STEPS, RATE = 400, 0.01


def digits():
    from sklearn.datasets import load_digits
    data = load_digits()
    x, y = (data.data / 16.0).astype(np.float32), data.target.astype(np.int64)
    order = np.random.default_rng(0).permutation(len(x))
    return x[order[:1500]], y[order[:1500]], x[order[1500:]], y[order[1500:]]


def train(layers, input_shape, x, y):
    """Full-batch Adam on the cross-entropy, by JAX's gradients; returns the trained ONNX model."""
    model = export_chain(layers, input_shape)
    network = import_network(model)
    objective = Objective(network, x.reshape(-1, *input_shape), y, "cross_entropy")
    theta = network.flat_parameters()
    first, second = np.zeros_like(theta), np.zeros_like(theta)
    for step in range(1, STEPS + 1):
        gradient = objective.gradient(theta)
        first = 0.9 * first + 0.1 * gradient
        second = 0.999 * second + 0.001 * gradient ** 2
        theta = theta - RATE * (first / (1 - 0.9 ** step)) / (np.sqrt(second / (1 - 0.999 ** step)) + 1e-8)
    trained, pieces = [], iter(network.unflatten(theta))
    for kind, *spec in layers:
        if kind in ("gemm", "conv"):
            spec = [next(pieces).astype(np.float32), next(pieces).astype(np.float32)] + spec[2:]
        trained.append((kind, *spec))
    return export_chain(trained, input_shape), objective.loss(theta)


def main() -> None:
    import onnx
    out = sys.argv[1] if len(sys.argv) > 1 else "rescale_example"
    os.makedirs(out, exist_ok=True)
    x, y, x_test, y_test = digits()
    rng = np.random.default_rng(1)

    def he(*shape):
        return (rng.standard_normal(shape) * np.sqrt(2 / np.prod(shape[1:]))).astype(np.float32)
    mlp = [("gemm", he(32, 64), np.zeros(32, np.float32)), ("relu",), ("gemm", he(16, 32), np.zeros(16, np.float32)),
           ("relu",), ("gemm", he(10, 16), np.zeros(10, np.float32))]
    cnn = [("conv", he(6, 1, 3, 3), np.zeros(6, np.float32), (1, 1), (1, 1, 1, 1)), ("relu",),
           ("maxpool", (2, 2), (2, 2)), ("flatten",), ("gemm", he(10, 96), np.zeros(10, np.float32))]
    for name, layers, shape in (("mlp", mlp, (64,)), ("cnn", cnn, (1, 8, 8))):
        model, loss = train(layers, shape, x, y)
        path = os.path.join(out, f"digits_{name}.onnx")
        onnx.save(model, path)
        np.savez(os.path.join(out, f"digits_{name}.npz"), x=x_test.reshape(-1, *shape), y=y_test)
        print(f"{path}: training loss {loss:.4f}", flush=True)
        for alphas in (["10"], ["1/10", "1/2", "2", "10", "100"]):
            command = [sys.executable, "-m", "proofs", "rescale", path, "--data",
                       os.path.join(out, f"digits_{name}.npz"), "--loss", "cross_entropy"]
            for alpha in alphas:
                command += ["--alpha", alpha]
            if len(alphas) > 1:
                command += ["--plot", os.path.join(out, f"digits_{name}.png"), "--json"]
            result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
            with open(os.path.join(out, f"digits_{name}_{len(alphas)}.txt"), "w") as handle:
                handle.write(result.stdout)
            print("$ " + " ".join(command[1:]) + "\n" + (result.stdout if len(alphas) == 1 else "")
                  + result.stderr, flush=True)


if __name__ == "__main__":
    main()
