"""Two-precision numeric agreement: the oracle that evaluates an identity between real numbers
with mpmath at two precisions and says the sides agree when what is left is rounding noise.

A true identity leaves a difference that is tiny next to its sides and falls with the precision;
a real difference stays where it is (``real_network.Residual``) -- as long as it is large enough
for the lower precision to see.  Two precisions cannot tell a difference below about
10^-(LOW_DPS - 10) of the sides from 0 (d/dx (x + 10^-200 x^2) at 1 looks like 1 at 50 and at 80
digits), so no exact identity is claimed: what the derivative facts say is that the sides agree to
within SEPARATION = 10^-40 (1 + |sides|), and every comparison must be rounding noise within it,
not only the most telling one.  The statement carries everything that is evaluated, as exact
objects, and the oracle evaluates it itself:

- ``Fact(RELU_DERIVATIVES, (loss, cases))``: for each case (an exact ``Instance`` of the one-hidden-
  layer ReLU network and its comparisons), D^k L(p)[d_1..d_k] = sign · D^m L(q)[e_1..e_m] to within
  the separation, L the real loss (with max) of that instance, derivatives by mpmath.diff;
- ``Fact(EXPRESSION_DERIVATIVES, (f, variables, comparisons))``: the same comparisons for a sympy
  expression f of the variables (ReLU and Max as the real max);
- ``Fact(CLOSED_FORM_DERIVATIVES, (items, points))``: for each item (f, variables, orders, g) and
  each exact point, the partial derivative of the orders of the sympy expression f (with Max, exp,
  log, …) equals the sympy expression g there, to within the separation;
- ``Fact(SPECTRAL_NORM_AT_LEAST, (H, M))``: the exact rational symmetric matrix H has an eigenvalue
  of absolute value at least M: by mpmath.eigsy at both precisions when the norm clears M by more
  than the separation, and by the exact inertia of H − M·I and −H − M·I when it lies within it
  (where two precisions cannot tell ‖H‖₂ = M from ‖H‖₂ slightly below M).

What it is not: an exact proof of an identity.  A theorem resting on it says so in ``rests_on``.
"""
from __future__ import annotations

from fractions import Fraction

import mpmath
import sympy as sp

from symbolic.decision.witness import mpmath_function
from symbolic.kernel import Fact
from symbolic.numerics.inertia import inertia, shifted
from symbolic.numerics.real_network import (HIGH_DPS, LOW_DPS, directional_derivative, loss_function, measure, to_mpf,
                                            witness_answer)
from symbolic.kernel.verdict import Holds, Status, Verdict

RELU_DERIVATIVES = "derivatives of the real ReLU loss agree"
EXPRESSION_DERIVATIVES = "directional derivatives of an expression agree"
CLOSED_FORM_DERIVATIVES = "derivatives agree with their closed forms"
SPECTRAL_NORM_AT_LEAST = "spectral norm at least"

# what two precisions tell apart: a difference below 10^-SEPARATION_DIGITS (1 + |sides|) at LOW_DPS
# digits is rounding noise to this oracle, never told from 0
SEPARATION_DIGITS = LOW_DPS - 10
SEPARATION = f"10^-{SEPARATION_DIGITS} (1 + |sides|)"

READINGS = {
    RELU_DERIVATIVES: (f"for each exact instance and comparison (p, d, q, e, s): D L(p)[d] = s D L(q)[e] "
                       f"to within {SEPARATION} on the real ReLU loss, mpmath.diff at {LOW_DPS} and {HIGH_DPS} "
                       f"digits leaving rounding noise only"),
    EXPRESSION_DERIVATIVES: (f"for each exact comparison (p, d, q, e, s): D f(p)[d] = s D f(q)[e] to within "
                             f"{SEPARATION}, mpmath.diff at {LOW_DPS} and {HIGH_DPS} digits leaving rounding "
                             f"noise only"),
    CLOSED_FORM_DERIVATIVES: (f"at each exact point, mpmath.diff of f at {LOW_DPS} and {HIGH_DPS} digits "
                              f"equals the closed form to within {SEPARATION}, up to rounding noise"),
    SPECTRAL_NORM_AT_LEAST: (f"max |eigenvalue of H| >= M, mpmath.eigsy at {LOW_DPS} and {HIGH_DPS} digits "
                             f"agreeing to rounding noise"),
}


def _exact(value) -> Fraction:
    """An exact rational (int, Fraction or sympy Rational) as a Fraction; anything else is refused."""
    if isinstance(value, (int, Fraction)):
        return Fraction(value)
    value = sp.sympify(value)
    if not value.is_Rational:
        raise ValueError(f"{value} is not an exact rational")
    return Fraction(int(value.p), int(value.q))


def _comparisons(comparisons) -> tuple:
    """Each comparison (p, d, q, e, s) as tuples of exact rationals: points p, q, direction lists
    d, e, a sign s."""
    vector = lambda xs: tuple(_exact(x) for x in xs)  # noqa: E731
    return tuple((vector(p), tuple(vector(x) for x in d), vector(q), tuple(vector(x) for x in e), _exact(s))
                 for p, d, q, e, s in comparisons)


def relu_derivatives(loss: str, cases) -> Fact:
    """The statement: every comparison of every case holds on the real ReLU loss ``loss``."""
    cases = tuple((instance, _comparisons(comparisons)) for instance, comparisons in cases)
    return Fact(RELU_DERIVATIVES, (loss, cases), READINGS[RELU_DERIVATIVES])


def expression_derivatives(expression, variables, comparisons) -> Fact:
    """The statement: every comparison holds for the sympy expression of the variables."""
    return Fact(EXPRESSION_DERIVATIVES, (sp.sympify(expression), tuple(variables), _comparisons(comparisons)),
                READINGS[EXPRESSION_DERIVATIVES])


def closed_form_derivatives(items, points) -> Fact:
    """The statement: ∂^orders f = g at every point, for every item (f, variables, orders, g)."""
    items = tuple((sp.sympify(f), tuple(variables), tuple(orders), sp.sympify(g)) for f, variables, orders, g in items)
    return Fact(CLOSED_FORM_DERIVATIVES, (items, tuple(dict(p) for p in points)), READINGS[CLOSED_FORM_DERIVATIVES])


def spectral_norm_at_least(matrix, bound) -> Fact:
    """The statement: ‖H‖₂ ≥ M for the exact symmetric matrix H."""
    rows = sp.Matrix([[sp.Rational(e.numerator, e.denominator) if isinstance(e, Fraction) else sp.Rational(e)
                       for e in row] for row in matrix])
    return Fact(SPECTRAL_NORM_AT_LEAST, (rows, sp.Rational(bound)), READINGS[SPECTRAL_NORM_AT_LEAST])


# --- the oracle ---------------------------------------------------------------------------------------

def decide_agreement(statement):
    """Oracle 'two-precision numeric agreement': the facts above, evaluated here."""
    predicate, arguments = getattr(statement, "predicate", None), getattr(statement, "arguments", ())
    if predicate == RELU_DERIVATIVES and len(arguments) == 2:
        return _relu_derivatives(statement, *arguments)
    if predicate == EXPRESSION_DERIVATIVES and len(arguments) == 3:
        return _expression_derivatives(statement, *arguments)
    if predicate == CLOSED_FORM_DERIVATIVES and len(arguments) == 2:
        return _closed_forms(statement, *arguments)
    if predicate == SPECTRAL_NORM_AT_LEAST and len(arguments) == 2:
        return _spectral_norm(statement, *arguments)
    return Verdict(Status.UNDECIDED, getattr(statement, "text", str(statement)),
                   reason=f"two-precision numeric agreement decides {', '.join(READINGS)}")


def _separation(scale):
    """The difference below which two precisions tell nothing apart, for sides of size ``scale``."""
    with mpmath.workdps(HIGH_DPS):
        return mpmath.mpf(10) ** -SEPARATION_DIGITS * (1 + scale)


def _agrees(residual) -> bool:
    """The residual is rounding noise that falls with the precision, within the separation."""
    return residual.noise and residual.low <= _separation(residual.scale)


def _telling(residual) -> tuple:
    """Orders residuals from the least to the most telling: any that does not agree above every
    one that does (a fact holds only when every comparison agrees), then as ``Residual.key``."""
    return (not _agrees(residual), *residual.key())


def _answer(statement, worst, informative, method, **where):
    """The answer on the most telling residual (``witness_answer``), a Holds only when that
    residual, and so every one, agrees within the separation."""
    answer = witness_answer(statement.text, worst, informative, method, **where)
    if worst is not None and not isinstance(answer, Verdict) and not _agrees(worst):
        return Verdict(Status.UNDECIDED, statement.text, residual=float(worst.low),
                       reason=f"{method}: a difference above {SEPARATION}")
    return answer


def _relu_derivatives(statement, loss, cases):
    # each comparison measured at both precisions; the most telling one speaks for the fact
    worst, worst_instance, informative = None, None, 0
    for instance, comparisons in cases:
        L = loss_function(loss, instance)
        compared = False
        for p, d, q, e, sign in comparisons:
            residual = measure(lambda dps, L=L, p=p, d=d, q=q, e=e, sign=sign: (
                directional_derivative(L, list(p), [list(x) for x in d], dps),
                to_mpf(sign) * directional_derivative(L, list(q), [list(x) for x in e], dps)))
            if residual.scale == 0:
                continue            # both sides 0: this comparison compared nothing
            compared = True
            if worst is None or _telling(residual) > _telling(worst):
                worst, worst_instance = residual, instance
        informative += compared
    return _answer(statement, worst, informative, "mpmath.diff on the real ReLU loss", instance=worst_instance)


def _expression_derivatives(statement, expression, variables, comparisons):
    function = mpmath_function(variables, expression)
    worst, worst_point, informative = None, None, 0
    for p, d, q, e, sign in comparisons:
        residual = measure(lambda dps, p=p, d=d, q=q, e=e, sign=sign: (
            directional_derivative(lambda point: function(*point), list(p), [list(x) for x in d], dps),
            to_mpf(sign) * directional_derivative(lambda point: function(*point), list(q), [list(x) for x in e], dps)))
        if residual.scale == 0:
            continue
        informative += 1
        if worst is None or _telling(residual) > _telling(worst):
            worst, worst_point = residual, dict(zip((str(v) for v in variables), q))
    return _answer(statement, worst, informative, "mpmath.diff of the expression", point=worst_point)


def _closed_forms(statement, items, points):
    worst, worst_point, informative = None, None, 0
    functions = []
    for f, variables, orders, g in items:
        g_symbols = sorted(g.free_symbols, key=sp.default_sort_key)
        functions.append((mpmath_function(variables, f), variables, orders, mpmath_function(g_symbols, g), g_symbols))
    for point in points:
        if any(not sp.sympify(v).is_Rational for v in point.values()):
            return Verdict(Status.UNDECIDED, statement.text, reason="a point is not exact rational")
        compared = False
        for f, variables, orders, g, g_symbols in functions:
            def both_sides(dps, f=f, variables=variables, orders=orders, g=g, g_symbols=g_symbols, point=point):
                value = lambda s: mpmath.mpf(int(point[s].p)) / int(point[s].q)  # noqa: E731
                at = tuple(value(s) for s in variables)
                return mpmath.diff(f, at, tuple(orders)), g(*(value(s) for s in g_symbols))
            residual = measure(both_sides)
            if residual.scale == 0:
                continue
            compared = True
            if worst is None or _telling(residual) > _telling(worst):
                worst, worst_point = residual, point
        informative += compared
    return _answer(statement, worst, informative, "mpmath.diff against the closed form", point=worst_point)


def _spectral_norm(statement, matrix, bound):
    norms = []
    for dps in (LOW_DPS, HIGH_DPS):
        with mpmath.workdps(dps):
            entries = [[mpmath.mpf(int(e.p)) / int(e.q) for e in matrix.row(i)] for i in range(matrix.rows)]
            eigenvalues = mpmath.eigsy(mpmath.matrix(entries), eigvals_only=True)
            norms.append(max(abs(e) for e in eigenvalues))
    low, high = norms
    noise = _separation(high)
    with mpmath.workdps(HIGH_DPS):
        target = mpmath.mpf(int(bound.p)) / int(bound.q)
        if abs(low - high) > noise:
            return Verdict(Status.UNDECIDED, statement.text, reason=(
                f"the norms at {LOW_DPS} and {HIGH_DPS} digits differ by {mpmath.nstr(abs(low - high), 5)}"))
        if high < target - noise:
            return Verdict(Status.UNDECIDED, statement.text, reason=(
                f"||H||_2 = {mpmath.nstr(high, 12)} < {bound}"), details={"norm": float(high)})
        if high > target + noise:
            return Holds((f"||H||_2 = {mpmath.nstr(high, 12)} >= {bound}: mpmath.eigsy at {LOW_DPS} and "
                          f"{HIGH_DPS} digits agree",), details={"norm": float(high)})
    # within the separation of M the precisions cannot tell ||H||_2 from M: the exact inertia decides
    # (||H||_2 >= M when H - M I has an eigenvalue >= 0, or -H - M I has one)
    rows = [[Fraction(int(e.p), int(e.q)) for e in matrix.row(i)] for i in range(matrix.rows)]
    negated = [[-e for e in row] for row in rows]
    reaching = [inertia(shifted(side, bound)) for side in (rows, negated)]
    shown = f"||H||_2 = {mpmath.nstr(high, 12)} within 10^-{SEPARATION_DIGITS} (1 + ||H||_2) of {bound}"
    if any(found.positive + found.zero > 0 for found in reaching):
        return Holds((f"{shown}: the exact inertia of H - M I or -H - M I has an eigenvalue >= 0, so "
                      f"||H||_2 >= {bound}",), details={"norm": float(high)})
    return Verdict(Status.UNDECIDED, statement.text, details={"norm": float(high)}, reason=(
        f"{shown}: by the exact inertia of H - M I and -H - M I every eigenvalue lies strictly between "
        f"-{bound} and {bound}"))
