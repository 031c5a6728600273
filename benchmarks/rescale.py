"""Benchmark: the rescale command's numerical parts on MLPs, against dense peers in the same run.

    python benchmarks/rescale.py [--quick]

  lanczos    the Hessian's eigenvalue of largest modulus from at most 50 Hessian-vector products
             (symbolic.trained.estimates.lanczos_extreme), against the dense eigensolver
             (numpy.linalg.eigvalsh on the Hessian built from n products) at sizes where it fits;
  products   the cost of each product the measures use as a multiple of one float64 gradient
             (jitted, median of repeated calls, wall and CPU seconds) on MLPs of 0.1M and 1M
             parameters and 1,000 examples: the Hessian-vector product (forward over reverse) and
             the quadratic form vᵀHv (forward over forward), each in float64 and float32;
  command    the whole `python -m proofs rescale` on that MLP (exported to ONNX, all eight
             measures, α = 10), wall-clock seconds against the 60 s budget.
The MLPs have random (He-initialized) weights and a teacher network's targets; only speed and
accuracy are measured here, not training.
"""
from __future__ import annotations

import argparse
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from symbolic.trained.autodiff import Objective  # noqa: E402
from symbolic.trained.estimates import lanczos_extreme  # noqa: E402
from symbolic.trained.onnx_export import export_chain  # noqa: E402
from symbolic.trained.onnx_import import import_network  # noqa: E402

COMMAND_BUDGET = 60.0
MAX_PRODUCTS = 50


def mlp(widths, rng):
    """An ONNX MLP with ReLUs, He-initialized float32 weights and small biases."""
    layers = []
    for k, (fan_in, fan_out) in enumerate(zip(widths, widths[1:])):
        weight = (rng.standard_normal((fan_out, fan_in)) * np.sqrt(2 / fan_in)).astype(np.float32)
        layers.append(("gemm", weight, (0.1 * rng.standard_normal(fan_out)).astype(np.float32)))
        if k < len(widths) - 2:
            layers.append(("relu",))
    return export_chain(layers, (widths[0],))


def data(widths, examples, rng):
    """Gaussian inputs and a teacher's outputs: an MLP of the same widths with parameters N(0, 0.3²)."""
    x = rng.standard_normal((examples, widths[0])).astype(np.float32)
    teacher = Objective(import_network(mlp(widths, rng)), x, np.zeros((examples, widths[-1])), "mse")
    theta = rng.standard_normal(sum(a * b + b for a, b in zip(widths, widths[1:]))) * 0.3
    return x, np.asarray(teacher.outputs(theta))


def median_seconds(function, repeats: int) -> float:
    function()                                    # compile
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def lanczos_rows(sizes, examples, rng):
    rows = []
    for widths in sizes:
        model = mlp(widths, rng)
        network = import_network(model)
        x, y = data(widths, examples, rng)
        objective = Objective(network, x, y, "mse")
        theta = network.flat_parameters()
        hvp = lambda v: np.asarray(objective.hvp(theta, v))  # noqa: E731
        hvp(np.zeros(theta.size))
        start = time.perf_counter()
        dense = np.array([hvp(e) for e in np.eye(theta.size)])
        top = float(np.max(np.abs(np.linalg.eigvalsh((dense + dense.T) / 2))))
        dense_seconds = time.perf_counter() - start
        start = time.perf_counter()
        ritz = lanczos_extreme(hvp, theta.size, np.random.default_rng(0), max_steps=MAX_PRODUCTS - 1)
        lanczos_seconds = time.perf_counter() - start
        rows.append(("x".join(map(str, widths)), theta.size, top, abs(ritz.value),
                     abs(abs(ritz.value) - top) / top, ritz.residual, ritz.products, lanczos_seconds,
                     dense_seconds, dense_seconds / lanczos_seconds))
    return rows


def median_cpu_seconds(function, repeats: int) -> float:
    function()                                   # compile
    times = []
    for _ in range(repeats):
        start = time.process_time()
        function()
        times.append(time.process_time() - start)
    return float(np.median(times))


def product_costs(widths, examples, rng, repeats):
    """Each product's median wall and CPU seconds: (name, wall, cpu) rows, the float64 gradient first."""
    model = mlp(widths, rng)
    network = import_network(model)
    x, y = data(widths, examples, rng)
    objective = Objective(network, x, y, "mse")
    theta = network.flat_parameters()
    v = rng.standard_normal(theta.size)
    products = [("gradient float64", lambda: objective.value_and_gradient(theta)),
                ("gradient float32", lambda: objective.value_and_gradient(theta, np.float32)),
                ("HVP float64", lambda: objective.hvp(theta, v)),
                ("HVP float32", lambda: objective.hvp(theta, v, np.float32)),
                ("vᵀHv float64", lambda: objective.quadratic_form(theta, v)),
                ("vᵀHv float32", lambda: objective.quadratic_form(theta, v, np.float32))]
    rows = [(name, median_seconds(work, repeats), median_cpu_seconds(work, repeats)) for name, work in products]
    return model, x, y, theta.size, rows


def command_seconds(model, x, y):
    import onnx
    with tempfile.TemporaryDirectory() as folder:
        onnx.save(model, os.path.join(folder, "mlp.onnx"))
        np.savez(os.path.join(folder, "data.npz"), x=x, y=y)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        result = subprocess.run([sys.executable, "-m", "proofs", "rescale", os.path.join(folder, "mlp.onnx"),
                                 "--data", os.path.join(folder, "data.npz"), "--alpha", "10"],
                                cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                capture_output=True, text=True)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        raise SystemExit(f"rescale failed ({result.returncode}): {result.stderr.strip()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, result.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller dense sizes, fewer repeats")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    examples = 1000
    sizes = [(20, 30, 10), (40, 40, 10)] if args.quick else [(20, 30, 10), (40, 40, 10), (64, 48, 10)]
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, load average "
          f"{os.getloadavg()[0]:.1f}; python {platform.python_version()}")
    print(f"\nTop |eigenvalue| of the Hessian, {examples} examples: Lanczos (≤ {MAX_PRODUCTS} products) "
          "against the dense eigensolver")
    header = ("MLP", "params", "dense |λ|max", "Lanczos", "rel. error", "residual", "products",
              "Lanczos s", "dense s", "dense/Lanczos")
    rows = lanczos_rows(sizes, examples, rng)
    table([header] + [(r[0], r[1], f"{r[2]:.6g}", f"{r[3]:.6g}", f"{r[4]:.1e}", f"{r[5]:.1e}", r[6],
                       f"{r[7]:.2f}", f"{r[8]:.2f}", f"{r[9]:.1f}") for r in rows])
    for widths in ((784, 1000, 200, 10), (784, 128, 10)):
        model, x, y, n, rows = product_costs(widths, examples, rng, 3 if args.quick else 9)
        print(f"\nEach product against one float64 gradient: MLP {'x'.join(map(str, widths))}, "
              f"{n} parameters, {examples} examples (median)")
        _, gradient_wall, gradient_cpu = rows[0]
        table([("product", "wall s", "CPU s", "CPU/gradient")] +
              [(name, f"{wall:.4f}", f"{cpu:.4f}", f"{cpu / gradient_cpu:.2f}") for name, wall, cpu in rows])
    wall, cpu, out = command_seconds(model, x, y)
    print("\nThe whole `python -m proofs rescale` on that MLP (all eight measures, α = 10)")
    table([("wall s", "CPU s (all processes)", "budget s", "wall/budget"),
           (f"{wall:.1f}", f"{cpu:.1f}", f"{COMMAND_BUDGET:.0f}", f"{wall / COMMAND_BUDGET:.2f}")])
    print("\n" + out)


def table(rows) -> None:
    widths = [max(len(str(c)) for c in column) for column in zip(*rows)]
    for i, row in enumerate(rows):
        print("  ".join(str(c).rjust(w) for c, w in zip(row, widths)))
        if i == 0:
            print("  ".join("-" * w for w in widths))


if __name__ == "__main__":
    main()
