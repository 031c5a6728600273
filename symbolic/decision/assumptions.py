"""What a symbol ranges over: the reals or the integers, cut down by its sign and parity facts.

Every symbol of a claim ranges over the reals unless sympy's assumptions say more.  The facts the
checker honours are the sign facts (positive, negative, nonnegative, nonpositive, nonzero, zero),
integrality and parity (integer, even, odd), and rationality (by density; see ``Range``).  A
symbol that carries any other fact (prime, irrational, ...) is outside what the checker decides,
and ``unsupported_fact`` names the fact, so that the claim is answered UNDECIDED, never decided
about a different set.
"""
from __future__ import annotations

import functools
import random
from dataclasses import dataclass

import sympy as sp

HONOURED = ("integer", "even", "odd", "rational", "positive", "negative", "nonnegative",
            "nonpositive", "nonzero", "zero")


def unsupported_fact(symbol: sp.Symbol) -> str | None:
    """A fact the symbol carries that the honoured facts do not imply, or None.

    The symbol is rebuilt from the honoured facts it has (over the reals); any fact of the original
    that the rebuilt symbol does not share was not honoured.
    """
    facts = symbol.assumptions0
    if facts.get("real") is False:
        return "not real"
    if facts.get("complex") is True and facts.get("real") is not True:
        return "complex=True (a complex symbol, not declared real)"
    rebuilt = sp.Dummy(real=True, **{k: True for k in HONOURED if facts.get(k) is True})
    rebuilt_facts = rebuilt.assumptions0
    for key, value in sorted(facts.items(), key=lambda kv: (kv[1] is not True, kv[0])):
        if value is not None and key != "commutative" and rebuilt_facts.get(key) != value:
            return f"{key}={value}"
    return None


def unsupported_fact_in(*exprs) -> str | None:
    """The first fact (by the symbols' names) that a symbol of the expressions carries and the
    honoured facts do not imply, or None."""
    symbols = set().union(*(sp.sympify(expr).free_symbols for expr in exprs))
    return next((fact for fact in map(unsupported_fact, sorted(symbols, key=str)) if fact), None)


# what an undefined function's values may be said to be beyond real (and so finite): the checker
# takes them as any reals
_VALUE_FACTS = ("positive", "negative", "nonnegative", "nonpositive", "zero", "nonzero", "integer",
                "rational", "irrational", "even", "odd", "prime", "composite", "algebraic",
                "transcendental", "infinite", "imaginary", "extended_positive", "extended_negative",
                "extended_nonnegative", "extended_nonpositive", "extended_nonzero")


def function_fact(application: sp.Expr) -> str | None:
    """A fact about the values of an undefined function (``Function('f', positive=True)``), which
    the checker does not honour (it substitutes arbitrary real functions), or None."""
    if application.is_real is False:
        return "not real"
    for fact in _VALUE_FACTS:
        if getattr(application, f"is_{fact}") is True:
            return f"{fact}=True"
    return None


@dataclass(frozen=True)
class Range:
    """The set a symbol ranges over.

    ``integral``: the symbol is an integer (``parity`` 0 or 1 when it is even or odd).
    ``lower``/``upper``: sign bounds against 0, with ``strict`` flags; ``nonzero`` excludes 0.
    A rational (not integral) symbol is treated as real: every expression of the decidable fragment
    is continuous on an open domain, where the rationals are dense, so a claim holds at every
    rational point exactly when it holds at every real one.  ``needs_density`` records that this
    argument was used, so that the caller can check its precondition (continuity).
    """

    integral: bool
    parity: int | None
    lower: bool
    lower_strict: bool
    upper: bool
    upper_strict: bool
    nonzero: bool
    zero: bool
    needs_density: bool

    def contains(self, value) -> bool:
        """Exact membership of a sympy number."""
        value = sp.sympify(value)
        if not value.is_Rational:
            # a real symbol may take an irrational algebraic value (√2), with a sign sympy knows
            real = not (self.integral or self.needs_density) and value.is_number and \
                value.is_algebraic is True and value.is_extended_real is True and \
                value.is_zero is False
            if not real:
                return False
            return not ((self.lower and value.is_negative) or (self.upper and value.is_positive)
                        or self.zero)
        if self.zero and value != 0:
            return False
        if self.integral and not value.is_Integer:
            return False
        if self.parity is not None and int(value) % 2 != self.parity:
            return False
        if self.lower and (value < 0 or (self.lower_strict and value == 0)):
            return False
        if self.upper and (value > 0 or (self.upper_strict and value == 0)):
            return False
        return not (self.nonzero and value == 0)

    def member(self) -> sp.Integer:
        """Some member, the same every time: the first of 1, −1, 2, −2, 0 in the range."""
        return next(v for v in map(sp.Integer, (1, -1, 2, -2, 0)) if self.contains(v))

    def sample(self, rng: random.Random, scale: int = 9) -> sp.Rational:
        """A random member: an integer of the right parity, or a rational, of the right sign."""
        if self.zero:
            return sp.S.Zero
        if self.integral:
            magnitude = rng.randint(1, scale)
            if self.parity is not None and magnitude % 2 != self.parity:
                magnitude += 1
            value = sp.Integer(magnitude)
        else:
            value = sp.Rational(rng.randint(1, 97 * scale), rng.randint(1, 97))
        if self.lower:
            return value
        if self.upper:
            return -value
        return value if rng.random() < 0.5 else -value


@functools.lru_cache(maxsize=4096)
def symbol_range(symbol: sp.Symbol) -> Range:
    """The range of a symbol, read off its facts (a symbol's facts never change, and two symbols
    with different facts are different symbols, so the reading is kept)."""
    facts = symbol.assumptions0
    odd, even = facts.get("odd") is True, facts.get("even") is True
    return Range(
        integral=facts.get("integer") is True,
        parity=1 if odd else 0 if even else None,
        lower=facts.get("nonnegative") is True,
        lower_strict=facts.get("positive") is True,
        upper=facts.get("nonpositive") is True,
        upper_strict=facts.get("negative") is True,
        nonzero=facts.get("nonzero") is True,
        zero=facts.get("zero") is True,
        needs_density=facts.get("rational") is True and facts.get("integer") is not True,
    )


def point_in_ranges(point: dict) -> bool:
    """Every value of the point lies in its symbol's range."""
    return all(symbol_range(s).contains(v) for s, v in point.items())


def sample_point(symbols, rng: random.Random, scale: int = 9) -> dict:
    return {s: symbol_range(s).sample(rng, scale) for s in sorted(symbols, key=sp.default_sort_key)}
