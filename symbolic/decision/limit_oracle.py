"""The oracle 'sympy limits': a limit, or the sign of a derivative, computed by sympy.

The statements:

* ``Fact("limit", (f, x, point, value))``: f → value as x → point (point and value may be ±oo);
  at a finite point the limit is two-sided: ``sympy.limit`` is asked from each side (its default
  is the right-hand limit alone, which would give lim |x|/x = 1 at 0), both answers must be
  values (a real number or ±oo, no accumulation bounds, no unevaluated limit) and equal, and
  they are compared with ``value`` exactly (the exact zero test of the difference, or identity
  of ±oo).  At ±oo x comes from the only side there is;
* ``Fact("limit", (f, x, point, value, side))``: the one-sided limit, x → point from above
  (side "+") or from below (side "-"), at a finite point;
* ``Fact("derivative sign", (f, x, relation))``: ∂f/∂x  relation  0 (>, >=, <, <=) for every
  admissible value of the symbols, by ``sympy.diff`` of the statement's expression, factored,
  its sign read from sympy's assumptions on the symbols.

A symbol carrying a fact the checker does not honour (``symbolic.decision.assumptions``: an
extended-real symbol may be ±oo, for instance) is refused, since sympy would read it differently.
Both are taken on sympy's word.
"""
from __future__ import annotations

import sympy as sp
from sympy.calculus.accumulationbounds import AccumulationBounds

from symbolic.decision.assumptions import unsupported_fact_in
from symbolic.decision.zero import is_rational_zero
from symbolic.logic.statements import Fact
from symbolic.kernel.verdict import Holds, Status, Verdict

SIGNS = {">": "is_positive", ">=": "is_nonnegative", "<": "is_negative", "<=": "is_nonpositive"}
SIDES = {"+": "from above", "-": "from below"}
INFINITIES = (sp.oo, -sp.oo)


def limit_statement(f, x, point, value, side: str | None = None):
    """The statement lim_{x → point} f = value: two-sided at a finite point unless ``side`` ("+"
    from above, "-" from below) makes it one-sided."""
    if side is None:
        return Fact("limit", (f, x, point, value), reading=f"lim_({x} -> {point}) = {value}")
    return Fact("limit", (f, x, point, value, side), reading=f"lim_({x} -> {point}{side}) = {value}")


def derivative_sign_statement(f, x, relation: str):
    return Fact("derivative sign", (f, x, relation), reading=f"d/d{x} {relation} 0")


def _is_value(expr) -> bool:
    """±oo, or a finite real expression: what a limit that exists can be (an accumulation bound,
    an unevaluated Limit, nan or the complex infinity is no value)."""
    expr = sp.sympify(expr)
    if expr in INFINITIES:
        return True
    if expr.has(AccumulationBounds, sp.Limit, sp.nan, sp.zoo, sp.oo, -sp.oo):
        return False
    return expr.is_finite is True and expr.is_extended_real is not False


def _equal_values(a, b) -> bool:
    """Two values (``_is_value``) are equal: the same infinity, or a difference that is exactly 0."""
    if a in INFINITIES or b in INFINITIES:
        return a == b
    return is_rational_zero(a - b)


def _one_sided(f, x, point, side: str):
    """sympy.limit from one side, or None when sympy gives no value (or fails)."""
    try:
        found = sp.limit(f, x, point, dir=side)
    except (NotImplementedError, ValueError, TypeError, ArithmeticError, sp.PoleError) as why:
        return None, f"sympy.limit {SIDES[side]} fails: {why}"
    if not _is_value(found):
        return None, f"sympy.limit {SIDES[side]} gives {found}, no value"
    return found, ""


def _decide_limit(statement, f, x, point, value, side):

    def undecided(reason):
        return Verdict(Status.UNDECIDED, statement.text, reason=reason)
    if not isinstance(x, sp.Symbol) or side not in (None, *SIDES):
        return undecided("a limit is taken in a symbol, from above ('+'), below ('-') or both sides")
    fact = unsupported_fact_in(f, x, point, value)
    if fact is not None:
        return undecided(f"a symbol carries the fact {fact}, which this oracle does not read")
    if not _is_value(value):
        return undecided(f"{value} is no real number or ±oo")
    if point in INFINITIES:
        # x → ±oo comes from the one side there is; a side named against it is not that limit
        if side is not None and side != ("-" if point == sp.oo else "+"):
            return undecided(f"x -> {point} cannot come {SIDES[side]}")
        try:
            found = sp.limit(f, x, point)
        except (NotImplementedError, ValueError, TypeError, ArithmeticError, sp.PoleError) as why:
            return undecided(f"sympy.limit fails: {why}")
        if _is_value(found) and _equal_values(found, value):
            return Holds((f"sympy.limit: {found}",), reason="on sympy's word (limit)")
        return undecided(f"sympy.limit gives {found}")
    if x.is_integer or not (point.is_real is True and _is_value(point)):
        # an integer variable has no limit at a finite point, and the point must be a real number
        return undecided("a limit at a finite point is taken in a real variable at a real point")
    # each side asked separately: the limit is two-sided unless the statement names one side
    found = {}
    for asked in (side,) if side else tuple(SIDES):
        found[asked], why = _one_sided(f, x, point, asked)
        if found[asked] is None:
            return undecided(why)
    values = list(found.values())
    if not all(_equal_values(values[0], other) for other in values[1:]):
        return undecided("the one-sided limits differ: " + ", ".join(f"{SIDES[s]} {v}" for s, v in found.items()))
    if not _equal_values(values[0], value):
        return undecided(f"sympy.limit gives {values[0]}")
    shown = ", ".join(f"{SIDES[s]} {v}" for s, v in found.items())
    return Holds((f"sympy.limit {shown}",), reason="on sympy's word (limit)")


def decide_by_sympy_calculus(statement):
    """Oracle 'sympy limits' (see the module docstring)."""
    predicate, arguments = getattr(statement, "predicate", None), getattr(statement, "arguments", ())
    if predicate == "limit" and len(arguments) in (4, 5):
        f, x, point, value, *side = arguments
        return _decide_limit(statement, sp.sympify(f), x, sp.sympify(point), sp.sympify(value),
                             side[0] if side else None)
    if predicate == "derivative sign" and len(arguments) == 3 and arguments[2] in SIGNS:
        f, x, relation = arguments
        fact = unsupported_fact_in(f, x)
        if fact is not None:
            return Verdict(Status.UNDECIDED, statement.text,
                           reason=f"a symbol carries the fact {fact}, which this oracle does not read")
        derivative = sp.factor(sp.powsimp(sp.factor(sp.diff(f, x))))
        if getattr(derivative, SIGNS[relation]) is True:
            return Holds((f"sympy.diff: {derivative}, {relation} 0 by sympy's assumptions",),
                         reason="on sympy's word (derivative sign)")
        return Verdict(Status.UNDECIDED, statement.text, reason=f"the sign of {derivative} is not settled")
    return Verdict(Status.UNDECIDED, getattr(statement, "text", str(statement)),
                   reason="sympy limits decides 'limit' and 'derivative sign' facts")
