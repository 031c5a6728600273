"""Outside procedures taken on their word: Z3's unsat, sympy's limits and derivative signs."""
from symbolic.kernel.oracles import declare
from symbolic.decision.limit_oracle import decide_by_sympy_calculus
from symbolic.decision.solver_oracle import decide_unsat

Z3_UNSAT = declare(
    "z3 unsat", decide_unsat,
    "a formula of real arithmetic has no solution: Z3's unsat on the exact translation, each comparison "
    "read only where its sides are defined (a denominator asserted inside its comparison, never over the "
    "whole formula)")
SYMPY_LIMITS = declare(
    "sympy limits", decide_by_sympy_calculus,
    "a limit by sympy.limit, two-sided at a finite point unless the statement names a side (both "
    "one-sided limits computed, existing and equal), compared exactly; a derivative's sign by sympy.diff "
    "and sympy's assumptions")
