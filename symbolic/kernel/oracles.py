"""Oracles: decision procedures outside the kernel whose word a theorem may rest on.

The kernel runs an oracle itself, on the statement it is given, and mints a theorem of exactly
that statement when the oracle answers ``Holds``; the oracle's name goes into the theorem's
``rests_on``.  No caller hands the kernel a boolean.  The table below is fixed: each oracle is a
function ``decide(statement, **parameters)`` in a named module, found by name at the call (so the
kernel imports nothing above it); it answers ``symbolic.kernel.verdict.Holds``, or a REFUTED or UNDECIDED
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
    Oracle("exact zero test", "symbolic.decision.oracles", "decide_zero",
           "lhs - rhs is 0 as a rational function (python-flint), its atoms independent indeterminates"),
    Oracle("manifest sign test", "symbolic.decision.oracles", "decide_nonnegative",
           "lhs >= 0 read from its form: a sum of products of squares, ReLUs and positive symbols"),
    Oracle("exact rational comparison", "symbolic.decision.oracles", "decide_rational_relation",
           "a relation between two expressions that evaluate to exact rationals"),
    Oracle("sympy assumptions", "symbolic.decision.oracles", "decide_by_assumptions",
           "a sign read from sympy's assumptions on the symbols (positive, negative, nonzero), on the claim as "
           "written: honoured facts only (no extended-real symbol, which may be infinite), each side a finite "
           "real number before lhs - rhs is formed"),
    Oracle("exact evaluation", "symbolic.decision.oracles", "decide_exact_evaluation",
           "an equation or relation whose sides have no free symbol, each a real number defined as written, "
           "evaluated exactly; a sign or a zero sympy cannot settle decides nothing"),
    Oracle("exact inertia", "symbolic.numerics.inertia", "decide_inertia",
           "the signs of a rational symmetric matrix's eigenvalues, by an exact LDL^T decomposition"),
    Oracle("exact linear algebra", "symbolic.numerics.inertia", "decide_rank",
           "the rank of a rational matrix, by exact elimination"),
    Oracle("exact derivative law of a model", "symbolic.networks.derivative_laws", "decide_derivative_law",
           "the gradient or Hessian law of a concrete model's map at N points off the kink set: regularity "
           "transport, an exact Laurent-polynomial identity of every entry on the pattern form, and mpmath.diff "
           "on the real loss at two precisions"),
    Oracle("log-scale Jacobian rank bound", "symbolic.networks.dimension_bounds", "decide_dimension_bound",
           "the dimension of the Lie algebra of positive diagonal rescalings leaving f unchanged is at most "
           "n - rank J, J the log-scale derivative at rational points (exact rank, or certified by arb pivots)"),
    Oracle("linear-symmetry Jacobian rank bound", "symbolic.networks.dimension_bounds", "decide_linear_dimension_bound",
           "the dimension of the Lie algebra of the linear symmetries spanned by the positive diagonal rescalings "
           "and the right multiplications of an attention head's W_Q and W_K is at most dim - rank J, J the "
           "derivative along that family at rational points (rank certified by arb pivots)"),
    Oracle("exact flat directions", "symbolic.networks.dimension_bounds", "decide_flat_directions",
           "H (G theta) = 0 and dim ker H >= rank{G theta} at a random interpolating minimum, by the exact "
           "rational Hessian"),
    Oracle("measure invariance procedure", "symbolic.measures.invariance", "decide_invariance",
           "M(T theta) = M(theta) at the group's sizes: each step of the symbolic argument an exact test, and a "
           "witness recomputed from scratch on a concrete network that compared non-zero values"),
    # certified numerics, Z3 and sympy's calculus (epsilon-sharpness, reparametrization, Theorem 2)
    Oracle("interval enclosure", "symbolic.numerics.enclosure_oracle", "decide_maximum_bound",
           "a bound on the maximum of a function over a ball or box: below by an exact point of the set, "
           "above by arb enclosures over sub-boxes covering it, at two precisions"),
    Oracle("z3 unsat", "symbolic.decision.solver_oracle", "decide_unsat",
           "a formula of real arithmetic has no solution: Z3's unsat on the exact translation, each comparison "
           "read only where its sides are defined (a denominator asserted inside its comparison, never over "
           "the whole formula)"),
    Oracle("sympy limits", "symbolic.decision.limit_oracle", "decide_by_sympy_calculus",
           "a limit by sympy.limit, two-sided at a finite point unless the statement names a side (both one-sided "
           "limits computed, existing and equal), compared exactly; a derivative's sign by sympy.diff and "
           "sympy's assumptions"),
    Oracle("two-precision agreement of a function", "symbolic.numerics.agreement_oracle", "decide_hessian_norm",
           "the spectral norm of a function's Hessian at a point, by mpmath.diff at 40 and 60 digits, within a "
           "relative tolerance of an exact value: the two norms agree to 10^-30 and clear the tolerance by "
           "10^-30, what 40 digits tell apart (a smaller tolerance is refused)"),
    # --- the derivative laws, the sharp minima and the worked example ---
    Oracle("two-precision numeric agreement", "symbolic.numerics.agreement", "decide_agreement",
           "derivatives of a real loss or expression agree to within 10^-40 (1 + |sides|), by mpmath.diff at "
           "50 and 80 digits leaving rounding noise that falls with the precision at every comparison (a "
           "smaller difference is not told apart from 0: no exact identity); a spectral norm ||H||_2 >= M by "
           "mpmath.eigsy at both precisions when it clears M by more than that, by exact inertia otherwise"),
    Oracle("pattern-form exact test", "symbolic.numerics.pattern_form", "decide_pattern_form",
           "an identity of the one-hidden-layer ReLU loss, gradient or Hessian for every activation pattern, "
           "exact on the pattern form (alpha-weights read off exponents; composition cross-check)"),
    Oracle("exact eigenpairs", "symbolic.numerics.eigenpairs", "decide_eigenpairs",
           "H v = lambda v for a symbolic matrix and each claimed pair, by exact zero tests"),
    Oracle("deep pattern-form congruence", "symbolic.networks.deep_congruence", "decide_deep_congruence",
           "the gradient and Hessian congruence of a deep ReLU network with biases under the layer-wise map: every "
           "entry an exact Laurent-polynomial identity on the pattern form, and mpmath.diff on the real network "
           "at two precisions"),
)}


def oracle(name: str) -> Oracle | None:
    return ORACLES.get(name)
