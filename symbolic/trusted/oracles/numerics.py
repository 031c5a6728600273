"""Certified numerics: interval enclosures, two-precision agreement (each stating the separation it
can tell apart)."""
from symbolic.kernel.oracles import declare
from symbolic.numerics.agreement import decide_agreement
from symbolic.numerics.agreement_oracle import decide_hessian_norm
from symbolic.numerics.enclosure_oracle import decide_maximum_bound

INTERVAL_ENCLOSURE = declare(
    "interval enclosure", decide_maximum_bound,
    "a bound on the maximum of a function over a ball or box: below by an exact point of the set, above "
    "by arb enclosures over sub-boxes covering it, at two precisions")
FUNCTION_AGREEMENT = declare(
    "two-precision agreement of a function", decide_hessian_norm,
    "the spectral norm of a function's Hessian at a point, by mpmath.diff at 40 and 60 digits, within a "
    "relative tolerance of an exact value: the two norms agree to 10^-30 and clear the tolerance by "
    "10^-30, what 40 digits tell apart (a smaller tolerance is refused)")
NUMERIC_AGREEMENT = declare(
    "two-precision numeric agreement", decide_agreement,
    "derivatives of a real loss or expression agree to within 10^-40 (1 + |sides|), by mpmath.diff at 50 "
    "and 80 digits leaving rounding noise that falls with the precision at every comparison (a smaller "
    "difference is not told apart from 0: no exact identity); a spectral norm ||H||_2 >= M by "
    "mpmath.eigsy at both precisions when it clears M by more than that, by exact inertia otherwise")
