"""Linear regions decided by Fourier–Motzkin elimination, in exact rational arithmetic.

A region of the sign split whose constraints are all linear, {c > 0 for c in strict, c ≥ 0 for c
in closed}, is empty over the reals exactly when eliminating its variables one at a time (each
pair of a lower and an upper bound on the variable combined with positive weights) leaves a
constant constraint that fails: K < 0, or K = 0 in a strict one.  The weights carried along are
then Farkas multipliers, which the caller checks on the constraints themselves.  When no
constant constraint fails, the projections are exact, so a point is found by choosing the
variables back in reverse order, each inside the bounds the chosen ones leave; the caller checks
that point exactly too.  So no answer of this module is taken on its word.

The number of constraints can square at each elimination: past MAX_ROWS the module gives no
answer and the caller asks Z3, as it would without it.  Over the integers an empty real region
is empty too; a point needs integer coordinates, and where the bounds leave no integer for a
variable the module gives no answer either.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import flint
import sympy as sp

MAX_ROWS = 64


@dataclass(frozen=True)
class _Row:
    """Σ coefficients[v]·v + constant, > 0 when strict, else ≥ 0, as the combination with
    ``weights`` of the original constraints."""

    coefficients: dict
    constant: object
    strict: bool
    weights: tuple


def linear_row(constraint: sp.Expr, variables) -> tuple[dict, object] | None:
    """constraint = Σ a_v·v + k with rational a_v and k: ({v: a_v}, k) in fmpq, or None when the
    constraint is not of that form."""
    coefficients, constant = {}, flint.fmpq(0)
    for term in sp.Add.make_args(sp.expand(constraint)):
        coefficient, factor = term.as_coeff_Mul()
        if not coefficient.is_Rational:
            return None
        value = flint.fmpq(int(coefficient.p), int(coefficient.q))
        if factor is sp.S.One:
            constant += value
        elif factor.is_Symbol and factor in variables:
            coefficients[factor] = coefficients.get(factor, flint.fmpq(0)) + value
        else:
            return None
    return {v: a for v, a in coefficients.items() if a != 0}, constant


def _combined(upper: _Row, lower: _Row, variable) -> _Row:
    """The positive combination of a row with a negative and a row with a positive coefficient
    of variable in which the variable cancels."""
    p, q = lower.coefficients[variable], -upper.coefficients[variable]
    coefficients = {}
    for v in set(upper.coefficients) | set(lower.coefficients):
        value = p * upper.coefficients.get(v, 0) + q * lower.coefficients.get(v, 0)
        if v != variable and value != 0:
            coefficients[v] = value
    return _Row(coefficients, p * upper.constant + q * lower.constant,
                upper.strict or lower.strict,
                tuple(p * a + q * b for a, b in zip(upper.weights, lower.weights)))


def _fails(row: _Row) -> bool:
    return row.constant < 0 or (row.constant == 0 and row.strict)


def decide_linear(strict: list, closed: list, variables, integral=frozenset()):
    """("empty", multipliers) or ("point", point) for the region, or None (a constraint that is
    not linear, too many rows, or no integer point chosen).  Multipliers are sympy Rationals, one
    per constraint (strict first), summing to 1; the point is {variable: sympy Rational}."""
    constraints = list(strict) + list(closed)
    rows = []
    for k, c in enumerate(constraints):
        read = linear_row(c, variables)
        if read is None:
            return None
        weights = tuple(flint.fmpq(int(i == k)) for i in range(len(constraints)))
        rows.append(_Row(read[0], read[1], k < len(strict), weights))
    # eliminate the variables one at a time, keeping each stage for the way back
    stages = []
    for variable in variables:
        stages.append((variable, rows))
        upper = [r for r in rows if r.coefficients.get(variable, 0) < 0]
        lower = [r for r in rows if r.coefficients.get(variable, 0) > 0]
        rows = [r for r in rows if variable not in r.coefficients] + \
            [_combined(u, l, variable) for u in upper for l in lower]
        if len(rows) > MAX_ROWS:
            return None
        failing = [r for r in rows if not r.coefficients and _fails(r)]
        if failing:
            total = sum(failing[0].weights, flint.fmpq(0))
            return "empty", [sp.Rational(int(w.p), int(w.q)) for w in
                             (w / total for w in failing[0].weights)]
    # no constraint fails: choose the variables back, the last eliminated first
    point = {}
    for variable, stage in reversed(stages):
        value = _choose(variable, stage, point, variable in integral)
        if value is None:
            return None
        point[variable] = value
    return "point", {v: sp.Rational(int(a.p), int(a.q)) for v, a in point.items()}


def _choose(variable, rows, point: dict, integral: bool):
    """A value of variable inside the bounds that the rows give once the variables after it take
    their chosen values: the middle of a bounded interval, one past a single bound, 0 with
    none; an integer for an integral variable (None when the bounds hold none)."""
    low = high = None    # (bound, strict)
    for row in rows:
        a = row.coefficients.get(variable, 0)
        if a == 0:
            continue
        rest = row.constant + sum((c * point[v] for v, c in row.coefficients.items()
                                   if v != variable), flint.fmpq(0))
        bound = -rest / a    # a·v + rest (>/≥) 0: v (>/≥) bound for a > 0, (</≤) for a < 0
        if a > 0 and (low is None or bound > low[0] or (bound == low[0] and row.strict)):
            low = (bound, row.strict)
        if a < 0 and (high is None or bound < high[0] or (bound == high[0] and row.strict)):
            high = (bound, row.strict)
    if integral:
        first = None if low is None else \
            int(math.floor(low[0])) + 1 if low[1] or low[0] != math.floor(low[0]) else int(low[0])
        last = None if high is None else \
            int(math.ceil(high[0])) - 1 if high[1] or high[0] != math.ceil(high[0]) else int(high[0])
        value = first if first is not None else last if last is not None else 0
        if first is not None and last is not None and first > last:
            return None
        return flint.fmpq(value)
    if low is not None and high is not None:
        if low[0] < high[0]:
            return (low[0] + high[0]) / 2
        return low[0] if low[0] == high[0] and not (low[1] or high[1]) else None
    if low is not None:
        return low[0] + 1
    if high is not None:
        return high[0] - 1
    return flint.fmpq(0)
