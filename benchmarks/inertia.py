"""Benchmark: exact eigenvalue counts above M, the project's inertia against two exact peers.

    python benchmarks/inertia.py [--quick]

On random rational positive semidefinite matrices of rank n/2 (Gram matrices of integer vectors
divided by 7, the shape of a Hessian at an interpolating minimum), it times, in the same run, the
number of eigenvalues above M = 10:
  project    symbolic.numerics.inertia.count_above: exact symmetric elimination with 1×1/2×2 pivots
             (Sylvester's law of inertia) in python-flint rationals;
  charpoly   the project's cross-check: python-flint's characteristic polynomial and Descartes'
             rule of signs (exact for a real-rooted polynomial);
  baseline   BASELINE, what a sympy user would write: Matrix.charpoly() of H − M·I, then the sign
             changes of its coefficients; given 60 s per size;
checks that the three counts agree, and prints a table with the ratios, the core count and versions.
"""
from __future__ import annotations

import argparse
import os
import platform
import random
import sys
import time
from fractions import Fraction

import flint
import sympy as sp

from symbolic.numerics.inertia import count_above, count_above_by_characteristic_polynomial, shifted

BASELINE_BUDGET = 60.0
BOUND = 10


def random_psd(size: int, rng: random.Random) -> list[list[Fraction]]:
    """G Gᵀ / 7 for an integer size × (size/2) matrix G: rational, PSD, rank size/2."""
    columns = max(1, size // 2)
    G = [[rng.randint(-4, 4) for _ in range(columns)] for _ in range(size)]
    return [[Fraction(sum(a * b for a, b in zip(G[i], G[j])), 7) for j in range(size)] for i in range(size)]


def baseline(matrix) -> int:
    """BASELINE (plain SymPy): Matrix.charpoly of H − M·I, sign changes of the coefficients."""
    A = sp.Matrix([[sp.Rational(e.numerator, e.denominator) for e in row] for row in shifted(matrix, BOUND)])
    coefficients = [c for c in A.charpoly().all_coeffs() if c != 0]
    return sum(1 for low, high in zip(coefficients, coefficients[1:]) if (low > 0) != (high > 0))


def timed(function, *args):
    start = time.perf_counter()
    value = function(*args)
    return value, time.perf_counter() - start


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="sizes up to 40 only")
    args = parser.parse_args(argv)
    sizes = [10, 20, 40] if args.quick else [10, 20, 40, 80, 120]
    rng = random.Random(0)
    print(f"{os.cpu_count()} cores, Python {platform.python_version()}, sympy {sp.__version__}, "
          f"python-flint {flint.__version__}; eigenvalues above M = {BOUND}, seconds")
    header = ("n", "count", "project", "charpoly", "baseline", "baseline/project", "charpoly/project")
    print(" | ".join(header))
    skip_baseline = False
    for size in sizes:
        matrix = random_psd(size, rng)
        count, project = timed(count_above, matrix, BOUND)
        check, charpoly = timed(count_above_by_characteristic_polynomial, matrix, BOUND)
        if skip_baseline:
            reference, slow = None, None
        else:
            reference, slow = timed(baseline, matrix)
            skip_baseline = slow > BASELINE_BUDGET
        if check != count or (reference is not None and reference != count):
            print(f"n={size}: the counts disagree: {count}, {check}, {reference}", file=sys.stderr)
            return 1
        baseline_text = f"{slow:.3f}" if slow is not None else f"> {BASELINE_BUDGET:.0f} (skipped)"
        ratio = f"{slow / project:.1f}x" if slow is not None else "-"
        print(" | ".join((str(size), str(count), f"{project:.4f}", f"{charpoly:.4f}", baseline_text, ratio,
                          f"{charpoly / project:.2f}x")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
