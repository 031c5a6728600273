"""Benchmark: the project's Theorem 3 check against a plain-SymPy baseline and a flint reference.

    python benchmarks/theorem3.py [--quick]

For each size it times, in the same run:
  project    the full check of the project: gradient AND Hessian identities for MSE with symbolic
             data, all 2^(Nh) activation patterns at once (pattern indicators as indeterminates),
             exact Laurent-ring zero test, plus the mpmath witness on the real ReLU loss;
  baseline   BASELINE, a careful user's plain-SymPy script: enumerate the 2^(Nh) patterns, build the
             loss as a sympy expression, sympy.hessian, substitute T_alpha, expand each entry of
             H(T_alpha theta) - S H(theta) S (and of the gradient identity); given 60 s per size;
  reference  REFERENCE, the practical limit: only the MSE Hessian, built and zero-tested with
             python-flint's fmpz_mpoly (patterns as indeterminates, Laurent reduction).
and prints a table with the ratios, the fitted growth exponent, the core count and versions.
"""
from __future__ import annotations

import argparse
import itertools
import math
import os
import platform
import sys
import time

import flint
import mpmath
import sympy as sp

from proofs.theorem3_derivative_transformation import check
from symbolic.budget import BudgetExhausted, time_budget

BASELINE_BUDGET = 60.0


# --- BASELINE: plain SymPy, one pattern at a time ---------------------------------------------------

def baseline(d: int, h: int, n: int) -> bool:
    """BASELINE (plain SymPy): every pattern, sympy.hessian, substitute T_alpha, expand each entry."""
    alpha = sp.Symbol("alpha", positive=True)
    W = sp.Matrix(d, h, lambda i, j: sp.Symbol(f"W{i}{j}", real=True))
    v = [sp.Symbol(f"v{j}", real=True) for j in range(h)]
    X = sp.Matrix(n, d, lambda k, i: sp.Symbol(f"x{k}{i}", real=True))
    Y = [sp.Symbol(f"y{k}", real=True) for k in range(n)]
    theta = list(W) + v
    S = [1 / alpha] * (d * h) + [alpha] * h
    scaled = {p: alpha * p for p in W} | {p: p / alpha for p in v}
    for pattern in itertools.product((0, 1), repeat=n * h):
        predictions = [sum(pattern[k * h + j] * sum(X[k, i] * W[i, j] for i in range(d)) * v[j]
                           for j in range(h)) for k in range(n)]
        loss = sum((p - y) ** 2 for p, y in zip(predictions, Y)) / n
        gradient = [sp.diff(loss, p) for p in theta]
        for k, entry in enumerate(gradient):
            if sp.expand(entry.xreplace(scaled) - S[k] * entry) != 0:
                return False
        hessian = sp.hessian(loss, theta)
        for k in range(len(theta)):
            for l in range(k, len(theta)):
                if sp.expand(hessian[k, l].xreplace(scaled) - S[k] * S[l] * hessian[k, l]) != 0:
                    return False
    return True


# --- REFERENCE: python-flint fmpz_mpoly, the MSE Hessian only ---------------------------------------

def reference(d: int, h: int, n: int) -> bool:
    """REFERENCE (python-flint): build N·L, its Hessian, compose with T_alpha, reduce mod alpha·abar − 1."""
    names = ([f"W{i}_{j}" for i in range(d) for j in range(h)] + [f"v{j}" for j in range(h)]
             + [f"x{k}_{i}" for k in range(n) for i in range(d)] + [f"y{k}" for k in range(n)]
             + [f"s{k}_{j}" for k in range(n) for j in range(h)] + ["a", "abar"])
    ctx = flint.fmpz_mpoly_ctx.get(tuple(names), "lex")
    g = dict(zip(names, ctx.gens()))
    f = [sum(g[f"s{k}_{j}"] * sum(g[f"x{k}_{i}"] * g[f"W{i}_{j}"] for i in range(d)) * g[f"v{j}"]
             for j in range(h)) for k in range(n)]
    loss = sum((f[k] - g[f"y{k}"]) ** 2 for k in range(n))
    params = [names.index(f"W{i}_{j}") for i in range(d) for j in range(h)] + \
        [names.index(f"v{j}") for j in range(h)]
    a, abar = g["a"], g["abar"]
    images = [a * g[x] if x.startswith("W") else abar * g[x] if x.startswith("v") else g[x]
              for x in names]
    S = [abar] * (d * h) + [a] * h
    gradient = [loss.derivative(p) for p in params]
    for k in range(len(params)):
        for l in range(k, len(params)):
            entry = gradient[k].derivative(params[l])
            if not ((entry.compose(*images) - S[k] * S[l] * entry) % (a * abar - 1)).is_zero():
                return False
    return True


def project(d: int, h: int, n: int) -> bool:
    """The project's full check: gradient and Hessian, exact test and witness."""
    return all(check(d, h, n, "mse", order).proved for order in (1, 2))


def timed(function, *args, budget=None):
    start = time.perf_counter()
    try:
        with time_budget(budget):
            ok = function(*args)
    except BudgetExhausted:
        return None, time.perf_counter() - start
    return ok, time.perf_counter() - start


def fitted_exponent(sizes, seconds) -> float:
    """Least-squares slope of log(time) against log(size): time ~ size^k."""
    xs, ys = [math.log(s) for s in sizes], [math.log(t) for t in seconds]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="sizes up to 5 only, baseline budget 10 s")
    args = parser.parse_args(argv)
    largest = 5 if args.quick else 8
    budget = 10.0 if args.quick else BASELINE_BUDGET
    sizes = [(3, 3, 2)] + [(m, m, m) for m in range(2, largest + 1)]
    sizes = sorted(set(sizes), key=lambda s: (s[0] * s[1] * s[2], s))
    print(f"machine: {os.cpu_count()} cores, Python {platform.python_version()}, sympy {sp.__version__}, "
          f"python-flint {flint.__version__}, mpmath {mpmath.__version__}")
    print(f"baseline budget {budget:.0f} s per size; times in seconds\n")
    header = ("d", "h", "N", "2^(Nh)", "baseline", "project", "reference", "baseline/project",
              "project/reference")
    print("  ".join(f"{x:>9}" for x in header))
    diagonal, baseline_gave_up = [], False
    for d, h, n in sizes:
        ours_ok, ours = timed(project, d, h, n)
        ref_ok, ref = timed(reference, d, h, n)
        if not (ours_ok and ref_ok):
            print(f"check failed at {d},{h},{n}: project {ours_ok}, reference {ref_ok}", file=sys.stderr)
            return 1
        if baseline_gave_up:
            base_text, ratio_text = "-", "-"
        else:
            base_ok, base = timed(baseline, d, h, n, budget=budget)
            if base_ok is None:
                base_text, ratio_text = f">{budget:.0f}", f">{budget / ours:.0f}x"
                baseline_gave_up = d == h == n
            else:
                base_text, ratio_text = f"{base:.3f}", f"{base / ours:.0f}x"
        print("  ".join(f"{x:>9}" for x in (d, h, n, 2 ** (n * h), base_text, f"{ours:.3f}",
                                            f"{ref:.3f}", ratio_text, f"{ours / ref:.2f}x")), flush=True)
        if d == h == n:
            diagonal.append((d, ours))
    tail = [(m, t) for m, t in diagonal if m >= 4] or diagonal
    exponent = fitted_exponent([m for m, _ in tail], [t for _, t in tail])
    print(f"\nproject time on d = h = N = m, m = {tail[0][0]}..{tail[-1][0]}: fitted time ~ m^{exponent:.1f} "
          f"(polynomial; the pattern count 2^(m^2) grows from {2 ** (tail[0][0] ** 2)} to "
          f"{2 ** (tail[-1][0] ** 2)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
