"""Two-precision numeric agreement: the oracle that evaluates an identity between real numbers
with mpmath at two precisions and says it holds when what is left is rounding noise.

A true identity leaves a difference that is tiny next to its sides and falls with the precision;
a real difference, however small, stays where it is (``real_network.Residual``).  The statement
carries everything that is evaluated, as exact objects, and the oracle evaluates it itself:

- ``Fact(RELU_DERIVATIVES, (loss, cases))``: for each case (an exact ``Instance`` of the one-hidden-
  layer ReLU network and its comparisons), D^k L(p)[d_1..d_k] = sign · D^m L(q)[e_1..e_m], L the
  real loss (with max) of that instance, derivatives by mpmath.diff;
- ``Fact(EXPRESSION_DERIVATIVES, (f, variables, comparisons))``: the same comparisons for a sympy
  expression f of the variables (ReLU and Max as the real max);
- ``Fact(CLOSED_FORM_DERIVATIVES, (items, points))``: for each item (f, variables, orders, g) and
  each exact point, the partial derivative of the orders of the sympy expression f (with Max, exp,
  log, …) equals the sympy expression g there;
- ``Fact(SPECTRAL_NORM_AT_LEAST, (H, M))``: the exact rational symmetric matrix H has an eigenvalue
  of absolute value at least M, up to rounding noise (mpmath.eigsy at both precisions).

What it is not: an exact proof.  A theorem resting on it says so in ``rests_on``.
"""
from __future__ import annotations

from fractions import Fraction

import mpmath
import sympy as sp

from symbolic.decision.witness import mpmath_function
from symbolic.kernel import Fact
from symbolic.numerics.real_network import (HIGH_DPS, LOW_DPS, directional_derivative, loss_function, measure, to_mpf,
                                            witness_answer)

RELU_DERIVATIVES = "derivatives of the real ReLU loss agree"
EXPRESSION_DERIVATIVES = "directional derivatives of an expression agree"
CLOSED_FORM_DERIVATIVES = "derivatives agree with their closed forms"
SPECTRAL_NORM_AT_LEAST = "spectral norm at least"

READINGS = {
    RELU_DERIVATIVES: (f"for each exact instance and comparison (p, d, q, e, s): D L(p)[d] = s D L(q)[e] "
                       f"on the real ReLU loss, mpmath.diff at {LOW_DPS} and {HIGH_DPS} digits leaving "
                       f"rounding noise only"),
    EXPRESSION_DERIVATIVES: (f"for each exact comparison (p, d, q, e, s): D f(p)[d] = s D f(q)[e], "
                             f"mpmath.diff at {LOW_DPS} and {HIGH_DPS} digits leaving rounding noise only"),
    CLOSED_FORM_DERIVATIVES: (f"at each exact point, mpmath.diff of f at {LOW_DPS} and {HIGH_DPS} digits "
                              f"equals the closed form up to rounding noise"),
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
    from symbolic.verdict import Status, Verdict
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
            if worst is None or residual.key() > worst.key():
                worst, worst_instance = residual, instance
        informative += compared
    return witness_answer(statement.text, worst, informative, "mpmath.diff on the real ReLU loss",
                          instance=worst_instance)


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
        if worst is None or residual.key() > worst.key():
            worst, worst_point = residual, dict(zip((str(v) for v in variables), q))
    return witness_answer(statement.text, worst, informative, "mpmath.diff of the expression", point=worst_point)


def _closed_forms(statement, items, points):
    worst, worst_point, informative = None, None, 0
    functions = []
    for f, variables, orders, g in items:
        g_symbols = sorted(g.free_symbols, key=sp.default_sort_key)
        functions.append((mpmath_function(variables, f), variables, orders, mpmath_function(g_symbols, g), g_symbols))
    for point in points:
        if any(not sp.sympify(v).is_Rational for v in point.values()):
            from symbolic.verdict import Status, Verdict
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
            if worst is None or residual.key() > worst.key():
                worst, worst_point = residual, point
        informative += compared
    return witness_answer(statement.text, worst, informative, "mpmath.diff against the closed form",
                          point=worst_point)


def _spectral_norm(statement, matrix, bound):
    from symbolic.verdict import Holds, Status, Verdict
    norms = []
    for dps in (LOW_DPS, HIGH_DPS):
        with mpmath.workdps(dps):
            entries = [[mpmath.mpf(int(e.p)) / int(e.q) for e in matrix.row(i)] for i in range(matrix.rows)]
            eigenvalues = mpmath.eigsy(mpmath.matrix(entries), eigvals_only=True)
            norms.append(max(abs(e) for e in eigenvalues))
    low, high = norms
    with mpmath.workdps(HIGH_DPS):
        noise = mpmath.mpf(10) ** -(LOW_DPS - 10) * (1 + high)
        target = mpmath.mpf(int(bound.p)) / int(bound.q)
        if abs(low - high) > noise:
            return Verdict(Status.UNDECIDED, statement.text, reason=(
                f"the norms at {LOW_DPS} and {HIGH_DPS} digits differ by {mpmath.nstr(abs(low - high), 5)}"))
        if high < target - noise:
            return Verdict(Status.UNDECIDED, statement.text, reason=(
                f"||H||_2 = {mpmath.nstr(high, 12)} < {bound}"), details={"norm": float(high)})
        return Holds((f"||H||_2 = {mpmath.nstr(high, 12)} >= {bound}: mpmath.eigsy at {LOW_DPS} and "
                      f"{HIGH_DPS} digits agree",), details={"norm": float(high)})
