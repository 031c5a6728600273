"""Benchmark: the audit's exact zero test against the project's ``is_rational_zero``.

    python benchmarks/invariance_zero_test.py

For every group and every scalar measure the audit proves invariant, the identity
M(Sθ) − M(θ) = 0 (symbolic data, every activation pattern) is decided twice in the same run:
  fraction_field   ``symbolic.decision.fraction_field.is_zero_fraction`` (python-flint fractions, built
                   bottom-up without sympy expansion), as the audit does;
  is_rational_zero ``symbolic.decision.zero.is_rational_zero`` (sympy expand / together / Poly), given
                   CAP seconds per identity.
It prints one row per identity with both times and their ratio, and the core count.
"""
from __future__ import annotations

import multiprocessing
import os
import platform
import time

import sympy as sp

from symbolic.decision.fraction_field import is_zero_fraction
from symbolic.measures.invariance import _symbolic, _transformed_symbolic
from symbolic.measures.definitions import MEASURES
from symbolic.networks.symmetry_groups import GROUPS, canonical
from symbolic.decision.zero import is_rational_zero

CAP = 20.0
SCALAR = ("path_norm", "layer_norm_product", "fisher_rao_norm", "normalized_flatness",
          "relative_flatness", "relative_flatness_unsquared")


def _baseline(expr, queue):
    start = time.perf_counter()
    queue.put((is_rational_zero(expr), time.perf_counter() - start))


def timed_baseline(expr):
    """is_rational_zero in a child process, stopped after CAP seconds (None, CAP)."""
    queue = multiprocessing.Queue()
    child = multiprocessing.Process(target=_baseline, args=(expr, queue))
    child.start()
    child.join(CAP)
    if child.is_alive():
        child.terminate()
        child.join()
        return None, CAP
    return queue.get()


def main() -> None:
    rows = []
    for group in GROUPS:
        base, moved = _symbolic(group, 0)[0], _transformed_symbolic(group, 0)
        for key in SCALAR:
            difference = canonical(sp.sympify(MEASURES[key].evaluate(moved) - MEASURES[key].evaluate(base)))
            start = time.perf_counter()
            ours = is_zero_fraction(difference)
            ours_time = time.perf_counter() - start
            if not ours or difference == 0:
                continue        # not an invariance of this group, or 0 already on substitution
            theirs, theirs_time = timed_baseline(difference)
            rows.append((group, key, sp.count_ops(difference), ours_time, theirs, theirs_time))
    print(f"{os.cpu_count()} cores, Python {platform.python_version()}, sympy {sp.__version__}")
    header = ("group", "measure", "ops", "fraction_field s", "is_rational_zero s", "ratio")
    lines = [(g, k, str(ops), f"{a:.4f}", (f"{b:.3f}" if r is not None else f">{CAP:.0f} (stopped)"),
              (f"{b / a:.0f}x" if a > 0 else "-") + ("" if r is not None else "+"))
             for g, k, ops, a, r, b in rows]
    widths = [max(len(x) for x in column) for column in zip(header, *lines)]
    for line in [header, tuple("-" * w for w in widths), *lines]:
        print("  ".join(x.ljust(w) for x, w in zip(line, widths)).rstrip())


if __name__ == "__main__":
    main()
