"""Benchmark: derivation steps, checked by the kernel, against check_identity on the same equations and
against the naive baseline a user would write, ``sympy.simplify(lhs - rhs) == 0``.

    python benchmarks/derive.py [--repeat N]

The chains are the example files of ``docs/examples/`` plus a corpus of chains of known truth built
here (true and false equation steps with kinks, removable singularities and scales, inequality
steps, every-size steps).  For each step:

  derive          the step as ``derive`` checks it (the kernel on the step's statement: the exact
                  identity test, the decided relation or one checked rewrite for every size);
  check_identity  the same equation given to check_identity directly (equation steps only);
  simplify        ``sympy.simplify(lhs - rhs) == 0`` for =, and ``simplify(rhs - lhs).is_nonnegative``
                  (resp. is_positive, …) for an inequality; a "yes" on a false step, or a "no" on a
                  true one, is a wrong answer, counted.

The table gives the steps, the time per step (median and total) of each and the ratio
derive/check_identity, then the wrong answers of each.  Figures of a run are kept in
benchmarks/results/derive.txt when ``--save`` is given.
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time

import sympy as sp

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from symbolic import check_identity  # noqa: E402
from symbolic.derivations import read_derivations  # noqa: E402
from symbolic.kernel.verdict import Status  # noqa: E402
from symbolic.logic.statements import Equation, IndexEquation  # noqa: E402

# chains of known truth: (the text, the truth of each step in order)
CORPUS = [
    ("assume a > 0\n  relu(a*x)/a\n= relu(x)\n= max(x, 0)\n", [True, True]),
    ("  relu(x)/relu(x)\n= relu(x)/x\n= 1\n", [True, False]),          # x/x is 1, but relu(x)/x is not everywhere
    ("  max(x, y) + min(x, y)\n= x + y\n= abs(x - y) + 2*min(x, y)\n", [True, True]),
    ("  relu(x) - relu(-x)\n= x\n= abs(x)\n", [True, False]),
    ("  (x^2 - 1)/(x - 1)\n= x + 1\n", [True]),
    ("assume c > 0\n  relu(c*w*x)*(v/c)\n= relu(w*x)*v\n= relu(w*x*v)\n", [True, False]),
    ("  relu(x)*relu(-x)\n= 0\n<= x^2\n", [True, True]),
    ("  abs(x*y)\n= abs(x)*abs(y)\n>= x*y\n", [True, True]),
    ("  x^2 + y^2\n>= 2*x*y\n> 2*x*y - 1\n", [True, True]),
    ("  relu(x)\n>= x\n>= abs(x)\n", [True, False]),
    ("  sqrt(x^2)\n= abs(x)\n= x\n", [True, False]),
    ("  sum(relu(2*x[i]), i, 1, d)\n= sum(2*relu(x[i]), i, 1, d)\n", [True]),
]


def _simplify_says(statement) -> bool | None:
    """The naive baseline: simplify(lhs - rhs) == 0, or the sign sympy gives the difference."""
    if isinstance(statement, IndexEquation):
        return None
    lhs, rhs = sp.sympify(statement.lhs), sp.sympify(statement.rhs)
    if isinstance(statement, Equation):
        return sp.simplify(lhs - rhs) == 0
    difference = sp.simplify(rhs - lhs)
    return {"<=": difference.is_nonnegative, "<": difference.is_positive, ">=": difference.is_nonpositive,
            ">": difference.is_negative, "!=": difference.is_nonzero}[statement.relation] is True


def _timed(function):
    start = time.process_time()
    result = function()
    return result, time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--save", action="store_true", help="write the table to benchmarks/results/derive.txt")
    args = parser.parse_args()
    chains = []
    for name in sorted(os.listdir(os.path.join(ROOT, "docs", "examples"))):
        if name.endswith(".deriv"):
            text = open(os.path.join(ROOT, "docs", "examples", name), encoding="utf-8").read()
            truth = "wrong" not in name
            chains += [(chain, None if not truth else [True] * len(chain.steps)) for chain in read_derivations(text)]
    for text, truth in CORPUS:
        chains += [(chain, truth) for chain in read_derivations(text)]
    rows, wrong = [], {"derive": 0, "check_identity": 0, "simplify": 0}
    for chain, truth in chains:
        checked = chain.check()
        for step in checked.steps:
            expected = None if truth is None else truth[step.number - 1]
            # the two run in an order rotated from step to step: neither always meets sympy's warm caches
            identity_seconds = None
            first_identity = len(rows) % 2 == 1 and isinstance(step.statement, Equation)
            if first_identity:
                verdict, identity_seconds = _timed(lambda s=step.statement: check_identity(s.lhs, s.rhs))
            _, derive_seconds = _timed(lambda chain=chain, n=step.number: _recheck(chain, n))
            if isinstance(step.statement, Equation) and not first_identity:
                verdict, identity_seconds = _timed(lambda s=step.statement: check_identity(s.lhs, s.rhs))
            if identity_seconds is not None:
                wrong["check_identity"] += _wrong(verdict.status, expected)
            naive, simplify_seconds = _timed(lambda s=step.statement: _simplify_says(s))
            if naive is not None and expected is not None and naive != expected:
                wrong["simplify"] += 1
            wrong["derive"] += _wrong(step.status, expected)
            rows.append((type(step.statement).__name__, derive_seconds, identity_seconds, simplify_seconds))
    lines = [f"derive benchmark — {platform.processor() or platform.machine()}, Python {platform.python_version()}, "
             f"{os.cpu_count()} cores; CPU seconds per step", "",
             "| steps | kind | derive median | check_identity median | derive / check_identity | simplify median |",
             "|---|---|---|---|---|---|"]
    for kind in ("Equation", "Relation", "IndexEquation"):
        found = [r for r in rows if r[0] == kind]
        if not found:
            continue
        derive = statistics.median(r[1] for r in found)
        identity = [r[2] for r in found if r[2] is not None]
        identity_median = statistics.median(identity) if identity else None
        ratio = f"{derive / identity_median:.2f}" if identity_median else "—"
        lines.append(f"| {len(found)} | {kind} | {derive:.3f} | "
                     f"{'—' if identity_median is None else f'{identity_median:.3f}'} | {ratio} | "
                     f"{statistics.median(r[3] for r in found):.3f} |")
    total = sum(r[1] for r in rows)
    lines += ["", f"{len(rows)} steps in {len(chains)} chains, {total:.2f} s of CPU for derive in all",
              "wrong answers (a false step PROVED or a true one REFUTED; for simplify, a wrong yes or no): "
              + ", ".join(f"{name} {count}" for name, count in wrong.items())]
    print("\n".join(lines))
    if args.save:
        os.makedirs(os.path.join(ROOT, "benchmarks", "results"), exist_ok=True)
        with open(os.path.join(ROOT, "benchmarks", "results", "derive.txt"), "w", encoding="utf-8") as handle:
            handle.write("\n".join(lines) + "\n")


def _recheck(chain, number: int):
    """One step alone, as derive checks it."""
    from symbolic.derivations.chain import Derivation
    expressions = chain.expressions
    step = chain.steps[number - 1]
    return Derivation(expressions[number - 1]).step(step.relation, step.expression, step.reason).check()


def _wrong(status: Status, expected) -> int:
    if expected is None:
        return 0
    return int((status is Status.PROVED and not expected) or (status is Status.REFUTED and expected))


if __name__ == "__main__":
    main()
