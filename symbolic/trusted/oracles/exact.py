"""The exact tests of one statement: a zero test of a rational function, a manifest sign, a comparison
of exact rationals, a sign read from the symbols' facts, an exact evaluation."""
from symbolic.kernel.oracles import declare
from symbolic.decision.oracles import decide_by_assumptions, decide_exact_evaluation, decide_nonnegative, decide_rational_relation, decide_zero

EXACT_ZERO = declare(
    "exact zero test", decide_zero,
    "lhs - rhs is 0 as a rational function (python-flint), its atoms independent indeterminates")
MANIFEST_SIGN = declare(
    "manifest sign test", decide_nonnegative,
    "lhs >= 0 read from its form: a sum of products of squares, ReLUs and positive symbols")
RATIONAL_COMPARISON = declare(
    "exact rational comparison", decide_rational_relation,
    "a relation between two expressions that evaluate to exact rationals")
SYMPY_ASSUMPTIONS = declare(
    "sympy assumptions", decide_by_assumptions,
    "a sign read from sympy's assumptions on the symbols (positive, negative, nonzero), on the claim as "
    "written: honoured facts only (no extended-real symbol, which may be infinite), each side a finite "
    "real number before lhs - rhs is formed")
EXACT_EVALUATION = declare(
    "exact evaluation", decide_exact_evaluation,
    "an equation or relation whose sides have no free symbol, each a real number defined as written, "
    "evaluated exactly; a sign or a zero sympy cannot settle decides nothing")
