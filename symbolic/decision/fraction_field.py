"""An exact zero test for large rational expressions, in python-flint's multivariate polynomials.

The expression is read as a rational function of its symbols and of its generators (function
applications such as ReLU(s) or R(W), radicals, |·|), each generator an independent indeterminate:
the same reading as ``symbolic.decision.zero.is_rational_zero``, so True is never wrong.  It is built
bottom-up as a fraction numerator/denominator of ``fmpq_mpoly``s without expanding through sympy;
the expression is zero exactly when the final numerator is the zero polynomial (the denominators
are products of nonzero polynomials, checked nonzero on the way).
"""
from __future__ import annotations

import flint
import sympy as sp
from symbolic.errors import CheckerError


class NotRational(CheckerError):
    """The expression has a float or another constant that is not a rational number."""


def _generators(expr: sp.Expr, found: dict) -> None:
    if expr.is_Symbol:
        found.setdefault(expr, None)
        return
    if expr.is_Function or (expr.is_Pow and not expr.exp.is_Integer):
        found.setdefault(expr, None)
        return
    for a in expr.args:
        _generators(a, found)


def is_zero_fraction(expr: sp.Expr) -> bool:
    """True when expr is the zero rational function of its symbols and generators."""
    return fraction_reading(expr) is True


def fraction_reading(expr: sp.Expr) -> bool | None:
    """Whether expr is the zero rational function of its symbols and generators: True or False,
    or None when it cannot be read as one (a float, a constant such as π, a division by the
    zero polynomial)."""
    expr = sp.sympify(expr)
    found: dict = {}
    _generators(expr, found)
    if not found:
        return expr == 0 if expr.is_Rational else None
    names = tuple(f"g{k}" for k in range(len(found)))
    context = flint.fmpq_mpoly_ctx.get(names, "lex")
    gens = dict(zip(found, context.gens()))
    one = context.from_dict({(0,) * len(names): 1})
    cache: dict = {}

    def build(e):
        if e in gens:
            return gens[e], one
        if e in cache:
            return cache[e]
        if e.is_Rational:
            result = (one * flint.fmpq(int(e.p), int(e.q)), one)
        elif e.is_Add:
            num, den = build(e.args[0])
            for a in e.args[1:]:
                n2, d2 = build(a)
                if d2 == den:
                    num = num + n2
                else:
                    num, den = num * d2 + n2 * den, den * d2
            result = (num, den)
        elif e.is_Mul:
            num, den = one, one
            for a in e.args:
                n2, d2 = build(a)
                num, den = num * n2, den * d2
            result = (num, den)
        elif e.is_Pow and e.exp.is_Integer:
            num, den = build(e.base)
            k = int(e.exp)
            if k < 0:
                if num.is_zero():
                    raise ZeroDivisionError("division by the zero polynomial")
                num, den, k = den, num, -k
            result = (num ** k, den ** k)
        else:
            raise NotRational(f"cannot read {e.func.__name__} as a rational function")
        cache[e] = result
        return result
    try:
        numerator, denominator = build(expr)
    except (NotRational, ZeroDivisionError):
        return None
    if denominator.is_zero():
        return None
    return numerator.is_zero()
