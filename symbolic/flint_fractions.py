"""A sympy expression read as a fraction p/q of python-flint polynomials with rational
coefficients, in one bottom-up walk: the reading the exact zero test
(``symbolic.decision.fraction_field``) and the canonical ReLU form's cancelled arguments
(``symbolic.relu``) share.
"""
from __future__ import annotations

import flint
import sympy as sp

from symbolic.errors import CheckerError


class NotRational(CheckerError):
    """A node that is neither a generator nor a sum, product or integer power of what is read."""


def polynomial_context(count: int, prefix: str = "g"):
    """The ring Q[g0, …, g(count−1)] and its constant 1."""
    context = flint.fmpq_mpoly_ctx.get(tuple(f"{prefix}{k}" for k in range(count)), "lex")
    return context, context.from_dict({(0,) * count: 1})


def read_fraction(expr: sp.Expr, generators: dict, one) -> tuple:
    """expr as (numerator, denominator) over ``generators`` ({sympy node: flint generator}), each
    generator an independent indeterminate.  Raises NotRational at any other node (a float, a
    constant such as π, a function not given as a generator) and ZeroDivisionError at a division
    by the zero polynomial."""
    cache: dict = {}

    def build(e):
        if e in generators:
            return generators[e], one
        if e in cache:
            return cache[e]
        if e.is_Rational:
            result = (one * flint.fmpq(int(e.p), int(e.q)), one)
        elif e.is_Add:
            # a sum: fractions over a common denominator (the same one kept as it is)
            num, den = build(e.args[0])
            for a in e.args[1:]:
                n2, d2 = build(a)
                if d2 == den:
                    num = num + n2
                else:
                    num, den = num * d2 + n2 * den, den * d2
            result = (num, den)
        elif e.is_Mul:
            # a product: numerators and denominators multiplied
            num, den = one, one
            for a in e.args:
                n2, d2 = build(a)
                num, den = num * n2, den * d2
            result = (num, den)
        elif e.is_Pow and e.exp.is_Integer:
            # an integer power: a negative one turns the fraction over, never a zero numerator
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
    return build(expr)


def fraction_in(expr: sp.Expr, generators: list, prefix: str = "g") -> tuple | None:
    """expr as (numerator, denominator) in Q[generators], each generator an independent
    indeterminate; None where it is no such fraction (another node, a division by the zero
    polynomial)."""
    context, one = polynomial_context(len(generators), prefix)
    try:
        numerator, denominator = read_fraction(expr, dict(zip(generators, context.gens())), one)
    except (NotRational, ZeroDivisionError):
        return None
    return None if denominator.is_zero() else (numerator, denominator)


def as_sympy(polynomial, generators: list) -> sp.Expr:
    """A polynomial of Q[generators] back as a sympy expression in the generators."""
    return sp.Add(*[sp.Rational(int(c.p), int(c.q)) * sp.Mul(*[g ** e for g, e in zip(generators, exponents) if e])
                    for exponents, c in polynomial.terms()])
