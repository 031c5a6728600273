"""The oracle 'two-precision agreement of a function': a numeric quantity of a sympy function at a
point agrees with an exact value, at two working precisions.

The statement is ``Fact("Hessian spectral norm", (f, variables, point, value, tolerance))``: the
spectral norm of the Hessian of the sympy expression ``f`` at the exact ``point`` is ``value`` up
to the relative ``tolerance``.  The oracle differentiates f numerically (``mpmath.diff`` of the
statement's expression, compiled for mpmath) at 40 and at 60 digits.  What 40 digits tell apart is
a relative difference of about SEPARATION = 10^-30, no smaller: the statement holds when the two
norms agree to SEPARATION and both lie within the tolerance of the value with SEPARATION to
spare; a tolerance below SEPARATION asks for what the precisions cannot see, and is refused.
Taken on mpmath's word: a numeric agreement, not a proof of the value.
"""
from __future__ import annotations

import mpmath
import sympy as sp

from symbolic.logic.statements import Fact
from symbolic.kernel.verdict import Holds, Status, Verdict

PREDICATE = "Hessian spectral norm"
PRECISIONS = (40, 60)
# the relative difference the lower precision still tells from 0 (ten digits kept for rounding)
SEPARATION_DIGITS = PRECISIONS[0] - 10


def hessian_norm_statement(f, variables, point, value, tolerance):
    return Fact(PREDICATE, (f, tuple(variables), tuple(sp.sympify(p) for p in point), sp.sympify(value),
                            sp.sympify(tolerance)), reading=f"||Hessian at the point||_2 = {value} up to {tolerance}")


def numeric_hessian_norm(f, variables, point, digits: int):
    """The spectral norm of the Hessian of f at point, by mpmath.diff at ``digits`` digits."""
    function = sp.lambdify(list(variables), f, "mpmath")
    n = len(variables)
    with mpmath.workdps(digits):
        at = [mpmath.mpf(sp.N(p, digits + 20)) for p in point]
        hessian = mpmath.matrix(n, n)
        for i in range(n):
            for j in range(n):
                orders = tuple(int(k == i) + int(k == j) for k in range(n))
                hessian[i, j] = mpmath.diff(function, at, orders)
        return max(abs(x) for x in mpmath.eigsy(hessian, eigvals_only=True))


def decide_hessian_norm(statement):
    """Oracle 'two-precision agreement of a function' (see the module docstring)."""
    if getattr(statement, "predicate", None) != PREDICATE or len(statement.arguments) != 5:
        return Verdict(Status.UNDECIDED, statement.text, reason=f"two-precision agreement decides '{PREDICATE}' facts")
    f, variables, point, value, tolerance = statement.arguments
    if sp.sympify(f).free_symbols - set(variables) or not value.is_positive or not tolerance.is_positive:
        return Verdict(Status.UNDECIDED, statement.text, reason="f has a free parameter, or value or tolerance is not > 0")
    separation = sp.Rational(1, 10 ** SEPARATION_DIGITS)
    if tolerance < separation:
        return Verdict(Status.UNDECIDED, statement.text, reason=(
            f"a relative tolerance below 10^-{SEPARATION_DIGITS} is below what {PRECISIONS[0]} digits tell apart"))
    norms, residuals = [], []
    for digits in PRECISIONS:
        norm = numeric_hessian_norm(f, variables, point, digits)
        with mpmath.workdps(digits):
            exact = mpmath.mpf(sp.N(value, digits + 20))
            norms.append(norm)
            residuals.append(abs(norm - exact) / exact)
    worst = max(residuals)
    shown = ", ".join(f"{d} digits: {mpmath.nstr(r, 3)}" for d, r in zip(PRECISIONS, residuals))
    with mpmath.workdps(PRECISIONS[-1]):
        # the two precisions agree, and the residual clears the tolerance by what they cannot see
        unit = mpmath.mpf(10) ** -SEPARATION_DIGITS
        stable = abs(norms[0] - norms[1]) <= unit * (1 + abs(norms[1]))
        within = worst + unit <= mpmath.mpf(sp.N(tolerance, PRECISIONS[-1]))
    if not stable:
        return Verdict(Status.UNDECIDED, statement.text, reason=(
            f"the norms at {PRECISIONS[0]} and {PRECISIONS[1]} digits differ by more than 10^-{SEPARATION_DIGITS}"))
    if within:
        return Holds((f"mpmath.diff Hessian norm agrees with {value} (relative residual {shown})",),
                     reason="on mpmath's word (numeric agreement)", residual=float(worst))
    return Verdict(Status.UNDECIDED, statement.text, reason=(
        f"relative residuals {shown} do not clear {tolerance} by 10^-{SEPARATION_DIGITS}"))
