"""Benchmark: the rescale command's run on MLPs of growing size, time and memory, and the top Hessian
eigenvalue from Lanczos against a plain power iteration in the same run.

    python benchmarks/trained_scale.py [--sizes 0.1,1,5] [--examples 1000]

Each size runs in a fresh process (its peak memory is its own): the MLP 784 → … → 10 is written to
ONNX, then the command's steps are timed one by one —
  read      load and import the graph, check the data
  twin      onnxruntime's reference, the exact forward pass, the exact twin T_α θ (α = 10), its exact
            comparison and its ONNX copy under onnxruntime
  measures  all eight measures at θ and at T_α θ (JAX compilation included)
  audit     the audit's verdicts on the eight cells the run prints (decided in this process)
— with the peak resident memory, and the memory per parameter above the process's footprint with its
libraries and the data (kB/par: the peak of the whole run; twin: the peak up to the exact twin).  Then the eigenvalue of largest modulus of the Hessian at θ two ways on the same
Hessian-vector products: the project's Lanczos (with its residual bound) and the power iteration
PyHessian runs (stop when the estimate's relative change is below 1e-3, at most 100 products).
Random He-initialized weights and a teacher network's targets: speed only, not training.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

WIDTHS = {0.1: (784, 128, 10), 1: (784, 1000, 200, 10), 5: (784, 2000, 1500, 500, 10)}
POWER_TOLERANCE, POWER_STEPS = 1e-3, 100


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def power_iteration(hvp, n: int, rng) -> tuple[float, int]:
    """PyHessian's rule: v ← Hv/‖Hv‖, the estimate vᵀHv, stop when its relative change is below the tolerance."""
    v = rng.standard_normal(n)
    v /= np.linalg.norm(v)
    estimate = None
    for step in range(1, POWER_STEPS + 1):
        w = np.asarray(hvp(v), dtype=np.float64)
        new = float(v @ w)
        v = w / np.linalg.norm(w)
        if estimate is not None and abs(new - estimate) / (abs(estimate) + 1e-6) < POWER_TOLERANCE:
            return new, step
        estimate = new
    return estimate, POWER_STEPS


def one_size(size: float, examples: int) -> dict:
    """The timed steps for one MLP (run in its own process)."""
    from fractions import Fraction

    from benchmarks.rescale import mlp
    from proofs.commands.rescale_command import audit_group, audit_verdicts
    from symbolic.trained.autodiff import Objective
    from symbolic.trained.estimates import lanczos_extreme
    from symbolic.trained.experiment import build_twins, measure, read_data
    from symbolic.trained.measures import KEYS
    from symbolic.trained.onnx_import import import_network
    rng = np.random.default_rng(0)
    widths = WIDTHS[size]
    x = rng.standard_normal((examples, widths[0])).astype(np.float32)
    teacher = mlp(widths, rng)
    y = np.asarray(Objective(import_network(teacher), x, np.zeros((examples, widths[-1])), "mse")
                   .outputs(import_network(teacher).flat_parameters()))
    del teacher
    baseline = peak_mb()                  # the process with its libraries and the data
    model = mlp(widths, rng)
    times = {}
    start = time.perf_counter()
    network = import_network(model)
    x, y = read_data(network, x, y, "mse")
    times["read"] = time.perf_counter() - start
    start = time.perf_counter()
    run = build_twins(model, network, x, y, [Fraction(10)], "layerwise")
    times["twin"] = time.perf_counter() - start
    twin_peak = peak_mb()
    assert run.twins[0].predictions_identical
    start = time.perf_counter()
    measure(run, KEYS, "mse")
    times["measures"] = time.perf_counter() - start
    start = time.perf_counter()
    audit_verdicts(list(KEYS), audit_group(network, "layerwise"))
    times["audit"] = time.perf_counter() - start
    peak = peak_mb()
    # the top eigenvalue, two ways on the same products
    objective = Objective(network, x, y, "mse")
    theta = network.flat_parameters()
    hvp = lambda v: np.asarray(objective.hvp(theta, v))  # noqa: E731
    hvp(np.zeros(theta.size))                                      # compile
    start = time.perf_counter()
    ritz = lanczos_extreme(hvp, theta.size, np.random.default_rng(1))
    lanczos_seconds = time.perf_counter() - start
    start = time.perf_counter()
    power, power_products = power_iteration(hvp, theta.size, np.random.default_rng(1))
    power_seconds = time.perf_counter() - start
    return {"parameters": network.parameter_count, "examples": examples, "times": times,
            "total": sum(times.values()), "peak_mb": peak, "kb_per_parameter": (peak - baseline) * 1024 /
            network.parameter_count, "twin_kb_per_parameter": (twin_peak - baseline) * 1024 / network.parameter_count, "lanczos": [abs(ritz.value), ritz.residual, ritz.products, lanczos_seconds],
            "power": [abs(power), power_products, power_seconds]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="0.1,1", help="millions of parameters, from 0.1, 1, 5")
    parser.add_argument("--examples", type=int, default=1000)
    parser.add_argument("--one", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one is not None:
        print(json.dumps(one_size(args.one, args.examples)))
        return
    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    print(f"{'params':>9} {'N':>5} {'read s':>7} {'twin s':>7} {'meas. s':>8} {'audit s':>8} {'total s':>8} "
          f"{'peak MB':>8} {'kB/par':>7} {'twin':>5} | {'λ Lanczos':>10} {'±bound':>8} {'HVPs':>5} {'s':>6} | "
          f"{'λ power':>10} {'HVPs':>5} {'s':>6} {'rel.diff':>9}")
    for size in (float(s) for s in args.sizes.split(",")):
        size = 0.1 if size == 0.1 else int(size)
        result = subprocess.run([sys.executable, __file__, "--one", str(size), "--examples", str(args.examples)],
                                capture_output=True, text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": ROOT})
        if result.returncode:
            print(f"size {size}M failed: {result.stderr.strip().splitlines()[-1:]}")
            continue
        r = json.loads(result.stdout.strip().splitlines()[-1])
        t, (lam, bound, products, lanczos_s), (power, power_products, power_s) = r["times"], r["lanczos"], r["power"]
        print(f"{r['parameters']:>9} {r['examples']:>5} {t['read']:>7.2f} {t['twin']:>7.1f} {t['measures']:>8.1f} "
              f"{t['audit']:>8.2f} {r['total']:>8.1f} {r['peak_mb']:>8.0f} {r['kb_per_parameter']:>7.2f} {r['twin_kb_per_parameter']:>5.2f} | "
              f"{lam:>10.5g} {bound:>8.1e} {products:>5} {lanczos_s:>6.1f} | {power:>10.5g} {power_products:>5} "
              f"{power_s:>6.1f} {(power - lam) / lam:>9.1e}", flush=True)


if __name__ == "__main__":
    main()
