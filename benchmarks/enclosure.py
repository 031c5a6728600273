"""Benchmark: certified brackets of a maximum over a ball, best-first against uniform refinement.

    python benchmarks/enclosure.py

The function is the worked example's loss L(a, b) = ¼Σ(b·max(0, a x_i) − y_i)² on the ball of
radius 1/10 around (1, 1) (Section 4.3's contrast).  For each tolerance it times, in the same run:
  project    symbolic.numerics.enclosure.enclose_maximum: branch and bound, always splitting the kept
             sub-box with the largest upper end;
  baseline   UNIFORM refinement with the same arithmetic: halve every kept sub-box along both
             axes, level after level, until the largest upper end is within the tolerance of the
             best exact lower bound;
and prints sub-boxes enclosed, seconds, and the ratio, with the core count and versions.
"""
from __future__ import annotations

import os
import platform
import sys
import time
from fractions import Fraction

import flint

from symbolic.networks.worked_example import a, b, loss
from symbolic.numerics.enclosure import (BallArithmetic, ExactArithmetic, Region, compile_function,
                                enclose_maximum, interval, upper_end)

TOLERANCES = (Fraction(1, 10 ** 2), Fraction(1, 10 ** 3), Fraction(1, 10 ** 4), Fraction(1, 10 ** 5))
BASELINE_BUDGET = 30.0      # seconds per tolerance
REGION = Region.ball((1, 1), Fraction(1, 10))


def uniform(expr, variables, region: Region, tolerance: Fraction):
    """BASELINE: uniform refinement; returns (lower, upper, sub-boxes enclosed), or None when the
    next level would not fit in the time budget."""
    enclose = compile_function(expr, variables, BallArithmetic)
    exact = compile_function(expr, variables, ExactArithmetic)
    boxes, enclosed, start = [region.bounding_box()], 0, time.perf_counter()
    while True:
        spent = time.perf_counter() - start
        # a level costs about 4 times the previous one: stop before the budget is overrun
        if enclosed and spent * 4 > BASELINE_BUDGET:
            return None
        uppers = [upper_end(enclose([interval(low, high) for low, high in box])) for box in boxes]
        lower = max(exact(list(p)) for box in boxes for p in region.points_in(box))
        enclosed += len(boxes)
        upper = max(uppers)
        if upper - lower <= tolerance:
            return lower, upper, enclosed
        halves = []
        for box in boxes:
            pieces = [()]
            for low, high in box:
                middle = (low + high) / 2
                pieces = [p + (side,) for p in pieces for side in ((low, middle), (middle, high))]
            halves += [p for p in pieces if region.meets(p)]
        boxes = halves


def main() -> int:
    expr, variables = loss(a, b), [a, b]
    print(f"maximum of the worked example's loss over the {REGION.describe()}")
    print(f"{os.cpu_count()} cores, Python {platform.python_version()}, python-flint {flint.__version__}\n")
    header = ("tolerance", "project boxes", "project s", "baseline boxes", "baseline s", "baseline/project")
    rows = []
    for tolerance in TOLERANCES:
        start = time.perf_counter()
        result = enclose_maximum(expr, variables, REGION, tolerance=tolerance, max_boxes=10 ** 6)
        project = time.perf_counter() - start
        start = time.perf_counter()
        outcome = uniform(expr, variables, REGION, tolerance)
        baseline = time.perf_counter() - start
        label = f"1e-{len(str(tolerance.denominator)) - 1}"
        if outcome is None:
            rows.append((label, str(result.boxes), f"{project:.3f}", "-", f"> {baseline:.1f}",
                         f"> {baseline / project:.0f}x"))
            continue
        lower, upper, enclosed = outcome
        if not (result.lower <= upper and lower <= result.upper):
            print("the two brackets do not overlap: a bug", file=sys.stderr)
            return 1
        rows.append((label, str(result.boxes), f"{project:.3f}", str(enclosed), f"{baseline:.3f}",
                     f"{baseline / project:.1f}x"))
    widths = [max(len(r[k]) for r in [header, *rows]) for k in range(len(header))]
    for row in [header, tuple("-" * w for w in widths), *rows]:
        print("  ".join(cell.rjust(w) for cell, w in zip(row, widths)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
