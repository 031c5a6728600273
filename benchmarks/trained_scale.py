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
— each in wall seconds and in CPU seconds of the process (all its threads: readable when other jobs
load the machine), with the peak resident memory, and the memory per parameter above the process's
footprint with its libraries and the data (kB/par: the peak of the whole run; twin: the peak up to
the exact twin).  Then the eigenvalue of largest modulus of the Hessian at θ two ways on the same
Hessian-vector products (float32, as the measure computes them): the project's Lanczos as the
measure runs it (its residual bound measured with a float64 product) and the power iteration
PyHessian runs (stop when the estimate's relative change is below 1e-3, at most 100 products).
Random He-initialized weights and a teacher network's targets: speed only, not training.

    python benchmarks/trained_scale.py --sizes "" --resnet18 [PATH] [--resnet18-examples 100]

adds the row of torchvision's resnet18(num_classes=10) on images 3×32×32 with class labels and the
cross-entropy loss (the export PATH, or made in the run by tests/fixtures/exports/make_exports.py when
torch is installed), its steps timed the same way.
"""
from __future__ import annotations

import argparse
import functools
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


class Clock:
    """Wall and CPU seconds (process time: every thread of the process) of each step."""

    def __init__(self):
        self.wall, self.cpu = {}, {}

    def __call__(self, step: str, work):
        wall, cpu = time.perf_counter(), time.process_time()
        result = work()
        self.wall[step], self.cpu[step] = time.perf_counter() - wall, time.process_time() - cpu
        return result


def one_size(size: float, examples: int) -> dict:
    """The timed steps for one MLP (run in its own process)."""

    from benchmarks.rescale import mlp
    from symbolic.trained.autodiff import Objective
    from symbolic.trained.experiment import read_data
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
    clock = Clock()

    def read():
        network = import_network(model)
        return network, read_data(network, x, y, "mse")
    network, (x, y) = clock("read", read)
    return timed_steps(clock, model, network, x, y, "mse", baseline)


def timed_steps(clock, model, network, x, y, loss: str, baseline: float) -> dict:
    """The steps timed for every model, once it is read: the exact twin, the measures, the audit, and
    the top eigenvalue two ways on the same float32 products; the figures of one row."""
    from fractions import Fraction

    from proofs.commands.rescale_command import audit_group, audit_verdicts
    from symbolic.trained.autodiff import Objective
    from symbolic.trained.estimates import lanczos_extreme
    from symbolic.trained.experiment import build_twins, measure
    from symbolic.trained.measures import KEYS, LANCZOS_TOLERANCE
    run = clock("twin", lambda: build_twins(model, network, x, y, [Fraction(10)], "layerwise"))
    twin_peak = peak_mb()
    assert run.twins[0].predictions_identical
    clock("measures", lambda: measure(run, KEYS, loss))
    clock("audit", lambda: audit_verdicts(list(KEYS), audit_group(network, "layerwise")))
    peak = peak_mb()
    # the top eigenvalue, two ways on the same float32 products
    objective = Objective(network, x, y, loss)
    theta = network.flat_parameters()
    hvp = lambda v: objective.hvp(theta, v, np.float32)  # noqa: E731
    hvp(np.zeros(theta.size))                                      # compile
    objective.hvp(theta, np.zeros(theta.size))
    ritz = clock("lanczos", lambda: lanczos_extreme(hvp, theta.size, np.random.default_rng(1), tolerance=LANCZOS_TOLERANCE,
                                                    residual_hvp=lambda v: objective.hvp(theta, v)))
    power, power_products = clock("power", lambda: power_iteration(hvp, theta.size, np.random.default_rng(1)))
    steps = ("read", "twin", "measures", "audit")
    return {"parameters": network.parameter_count, "examples": len(x),
            "wall": clock.wall, "cpu": clock.cpu, "total": sum(clock.wall[k] for k in steps),
            "total_cpu": sum(clock.cpu[k] for k in steps), "peak_mb": peak,
            "kb_per_parameter": (peak - baseline) * 1024 / network.parameter_count,
            "twin_kb_per_parameter": (twin_peak - baseline) * 1024 / network.parameter_count,
            "lanczos": [abs(ritz.value), ritz.residual, ritz.products], "power": [abs(power), power_products]}


def one_resnet18(path: str, examples: int) -> dict:
    """The timed steps for resnet18 on random images and labels (run in its own process)."""

    from symbolic.trained.experiment import read_data
    from symbolic.trained.onnx_import import import_network, load_model
    rng = np.random.default_rng(0)
    x = rng.standard_normal((examples, 3, 32, 32)).astype(np.float32)
    y = rng.integers(0, 10, examples)
    baseline = peak_mb()
    clock = Clock()

    def read():
        model = load_model(path)
        network = import_network(model)
        return model, network, read_data(network, x, y, "cross_entropy")
    model, network, (x, y) = clock("read", read)
    return timed_steps(clock, model, network, x, y, "cross_entropy", baseline)


def resnet18_export() -> str | None:
    """resnet18(num_classes=10) exported by the fixtures' maker (needs torch), or None."""
    import tempfile
    sys.path.insert(0, os.path.join(ROOT, "tests", "fixtures", "exports"))
    try:
        from make_exports import export_resnet18
        path = os.path.join(tempfile.mkdtemp(), "resnet18.onnx")
        export_resnet18(path)
        return path
    except ImportError:
        return None


def seconds(result: dict, step: str) -> str:
    """A step's wall and CPU seconds, as ``wall/cpu``."""
    return f"{result['wall'][step]:>5.1f}/{result['cpu'][step]:<5.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="0.1,1", help="millions of parameters, from 0.1, 1, 5")
    parser.add_argument("--examples", type=int, default=1000)
    parser.add_argument("--one", type=float, help=argparse.SUPPRESS)
    parser.add_argument("--resnet18", nargs="?", const="", metavar="PATH",
                        help="add resnet18(num_classes=10) on 3x32x32 images (its export, or made here with torch)")
    parser.add_argument("--resnet18-examples", type=int, default=100, help="the images resnet18 is run on")
    parser.add_argument("--one-resnet18", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one is not None:
        print(json.dumps(one_size(args.one, args.examples)))
        return
    if args.one_resnet18 is not None:
        print(json.dumps(one_resnet18(args.one_resnet18, args.examples)))
        return
    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"load average {os.getloadavg()[0]:.1f} at the start; each step: wall s / CPU s")
    print(f"{'params':>9} {'N':>5} {'read s':>7} {'twin s':>11} {'meas. s':>11} {'audit s':>11} {'total s':>11} "
          f"{'peak MB':>8} {'kB/par':>7} {'twin':>5} | {'λ Lanczos':>10} {'±bound':>8} {'HVPs':>5} {'s':>11} | "
          f"{'λ power':>10} {'HVPs':>5} {'s':>11} {'rel.diff':>9}")
    runs = [("--one", str(0.1 if float(s) == 0.1 else int(float(s))), args.examples)
            for s in (args.sizes.split(",") if args.sizes else [])]
    if args.resnet18 is not None:
        path = args.resnet18 or resnet18_export()
        if path is None:
            print("resnet18: not run (torch is not installed and no export was given)")
        else:
            runs.append(("--one-resnet18", path, args.resnet18_examples))
    for flag, size, examples in runs:
        result = subprocess.run([sys.executable, __file__, flag, size, "--examples", str(examples)],
                                capture_output=True, text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": ROOT})
        if result.returncode:
            print(f"{'resnet18' if flag == '--one-resnet18' else size + 'M'} failed: "
                  f"{result.stderr.strip().splitlines()[-1:]}")
            continue
        r = json.loads(result.stdout.strip().splitlines()[-1])
        wall = r["wall"]
        (lam, bound, products), (power, power_products) = r["lanczos"], r["power"]
        pair = functools.partial(seconds, r)
        print(f"{r['parameters']:>9} {r['examples']:>5} {wall['read']:>7.2f} {pair('twin'):>11} {pair('measures'):>11} "
              f"{pair('audit'):>11} {r['total']:>5.1f}/{r['total_cpu']:<5.1f} {r['peak_mb']:>8.0f} "
              f"{r['kb_per_parameter']:>7.2f} {r['twin_kb_per_parameter']:>5.2f} | {lam:>10.5g} {bound:>8.1e} "
              f"{products:>5} {pair('lanczos'):>11} | {power:>10.5g} {power_products:>5} {pair('power'):>11} "
              f"{(power - lam) / lam:>9.1e}", flush=True)
    print(f"# load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
