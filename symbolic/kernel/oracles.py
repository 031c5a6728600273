"""Oracles: decision procedures outside the kernel whose word a theorem may rest on.

The kernel runs an oracle itself, on the statement it is given, and mints a theorem of exactly
that statement when the oracle answers ``Holds``; the oracle's name goes into the theorem's
``rests_on``.  No caller hands the kernel a boolean.  The table below is fixed: each oracle is a
function ``decide(statement, **parameters)`` in a named module, found by name at the call (so the
kernel imports nothing above it); it answers ``symbolic.verdict.Holds``, or a REFUTED or UNDECIDED
verdict.  Parameters steer the search (a seed, a budget), never the meaning of the statement.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass


@dataclass(frozen=True)
class Oracle:
    name: str
    module: str
    function: str
    decides: str

    def decide(self):
        return getattr(importlib.import_module(self.module), self.function)


ORACLES = {oracle.name: oracle for oracle in (
    Oracle("exact identity test", "symbolic.decision.identity", "decide_equation",
           "lhs = rhs for every admissible value: an exact zero test of a canonical form (sign split, "
           "pattern form), confirmed by exact evaluation at points that compared something, and Z3 where "
           "the claim lies in its fragment"),
    Oracle("exact zero test", "symbolic.decision.zero", "decide_zero",
           "lhs - rhs is 0 as a rational function (python-flint), its atoms independent indeterminates"),
    Oracle("manifest sign test", "symbolic.decision.positivity", "decide_nonnegative",
           "lhs >= 0 read from its form: a sum of products of squares, ReLUs and positive symbols"),
    Oracle("exact rational comparison", "symbolic.decision.zero", "decide_rational_relation",
           "a relation between two expressions that evaluate to exact rationals"),
    Oracle("sympy assumptions", "symbolic.decision.zero", "decide_by_assumptions",
           "a sign read from sympy's assumptions on the symbols (positive, negative, nonzero)"),
    Oracle("exact evaluation", "symbolic.decision.zero", "decide_exact_evaluation",
           "an equation or relation whose sides have no free symbol, evaluated exactly"),
    Oracle("exact inertia", "symbolic.numerics.inertia", "decide_inertia",
           "the signs of a rational symmetric matrix's eigenvalues, by an exact LDL^T decomposition"),
    Oracle("exact linear algebra", "symbolic.numerics.inertia", "decide_rank",
           "the rank of a rational matrix, by exact elimination"),
    # --- the derivative laws, the sharp minima and the worked example ---
    Oracle("two-precision numeric agreement", "symbolic.numerics.agreement", "decide_agreement",
           "an identity of real numbers (derivatives of a real loss or expression, a spectral norm bound) "
           "evaluated by mpmath at two precisions, leaving rounding noise that falls with the precision"),
    Oracle("pattern-form exact test", "symbolic.numerics.pattern_form", "decide_pattern_form",
           "an identity of the one-hidden-layer ReLU loss, gradient or Hessian for every activation pattern, "
           "exact on the pattern form (alpha-weights read off exponents; composition cross-check)"),
    Oracle("exact eigenpairs", "symbolic.numerics.eigenpairs", "decide_eigenpairs",
           "H v = lambda v for a symbolic matrix and each claimed pair, by exact zero tests"),
)}


def oracle(name: str) -> Oracle | None:
    return ORACLES.get(name)
