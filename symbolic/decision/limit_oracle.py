"""The oracle 'sympy limits': a limit, or the sign of a derivative, computed by sympy.

The statements:

* ``Fact("limit", (f, x, point, value))``: f → value as x → point (point and value may be ±oo),
  by ``sympy.limit`` on the statement's expression, its answer compared with ``value`` exactly
  (the exact zero test of the difference, or identity of ±oo);
* ``Fact("derivative sign", (f, x, relation))``: ∂f/∂x  relation  0 (>, >=, <, <=) for every
  admissible value of the symbols, by ``sympy.diff`` of the statement's expression, factored,
  its sign read from sympy's assumptions on the symbols.

Both are taken on sympy's word.
"""
from __future__ import annotations

import sympy as sp

from symbolic.decision.zero import is_rational_zero

SIGNS = {">": "is_positive", ">=": "is_nonnegative", "<": "is_negative", "<=": "is_nonpositive"}


def limit_statement(f, x, point, value):
    from symbolic.kernel import Fact
    return Fact("limit", (f, x, point, value), reading=f"lim_({x} -> {point}) = {value}")


def derivative_sign_statement(f, x, relation: str):
    from symbolic.kernel import Fact
    return Fact("derivative sign", (f, x, relation), reading=f"d/d{x} {relation} 0")


def decide_by_sympy_calculus(statement):
    """Oracle 'sympy limits' (see the module docstring)."""
    from symbolic.verdict import Holds, Status, Verdict
    predicate, arguments = getattr(statement, "predicate", None), getattr(statement, "arguments", ())
    if predicate == "limit" and len(arguments) == 4:
        f, x, point, value = arguments
        found = sp.limit(f, x, point)
        infinite = value in (sp.oo, -sp.oo)
        if (found == value) if infinite else (found.is_finite is True and is_rational_zero(found - value)):
            return Holds((f"sympy.limit: {found}",), reason="on sympy's word (limit)")
        return Verdict(Status.UNDECIDED, statement.text, reason=f"sympy.limit gives {found}")
    if predicate == "derivative sign" and len(arguments) == 3 and arguments[2] in SIGNS:
        f, x, relation = arguments
        derivative = sp.factor(sp.powsimp(sp.factor(sp.diff(f, x))))
        if getattr(derivative, SIGNS[relation]) is True:
            return Holds((f"sympy.diff: {derivative}, {relation} 0 by sympy's assumptions",),
                         reason="on sympy's word (derivative sign)")
        return Verdict(Status.UNDECIDED, statement.text, reason=f"the sign of {derivative} is not settled")
    return Verdict(Status.UNDECIDED, getattr(statement, "text", str(statement)),
                   reason="sympy limits decides 'limit' and 'derivative sign' facts")
