"""Expressions from text, without eval and without evaluation.

``sympy.sympify`` and ``parse_expr`` evaluate Python code, so a string such as
``__import__('os').system('…')`` would run.  This is a small recursive-descent parser for
arithmetic on real symbols and the functions the checker knows; anything else is rejected with a
ParseError that says where.

The expression is kept as written: every node is built with ``evaluate=False``, so ``x/x``
stays x·x⁻¹ (undefined at 0) and ``relu(a*x)/a`` keeps its a.  The checker rewrites a copy
(``symbolic.decision.domain.evaluated``).  A constant is bounded in size before it is built:
``((2^64)^64)^64`` is refused, naming the literal, rather than computed (``LIMITS``: the rule on
numbers and sizes).
"""
from __future__ import annotations

import math
import re

import sympy as sp

from symbolic.decision.domain import evaluated
from symbolic.relu import ReLU
from symbolic.errors import CheckerError

MAX_LENGTH = 20_000
MAX_DEPTH = 100
MAX_DIGITS = 4_000        # digits of any number, written or built (below Python's 4300-digit int ↔ str limit)
MAX_EXPONENT = 64         # |exponent| of a power of an expression with symbols
MAX_ARGUMENTS = 1_000     # arguments of one max/min
LOG10_2 = math.log10(2)

# The one rule on numbers and sizes, stated here and quoted word for word by ``check --help``, by
# the documentation and, clause by clause, by the error that refuses an expression.
NUMBER_RULE = f"every number, written or built, has at most {MAX_DIGITS:,} digits (1e300 and 10^300 alike)"
EXPONENT_RULE = f"a power of an expression with symbols has an exponent of at most {MAX_EXPONENT} in absolute value"
SIZE_RULE = (f"an expression has at most {MAX_LENGTH:,} characters, nesting depth {MAX_DEPTH} and "
             f"{MAX_ARGUMENTS:,} arguments of one max/min")
LIMITS = f"{NUMBER_RULE}; {EXPONENT_RULE}; {SIZE_RULE}."

# the facts no value has both of (x > 0 and x < 0; x >= 0 and x < 0): given together, no claim is read
CONTRADICTIONS = (("positive", "negative"), ("nonnegative", "negative"))


def _written(function):
    """function applied to its arguments as written (no evaluation on construction)."""
    return lambda *args: function(*args, evaluate=False)


def _neg(s):
    return -s if s.is_Number else sp.Mul(-1, s, evaluate=False)


def _add(*terms):
    return sp.Add(*terms, evaluate=False)


def _mul(*factors):
    return sp.Mul(*factors, evaluate=False)


def _reciprocal(s):
    return sp.Pow(s, -1, evaluate=False)


FUNCTIONS = {
    "relu": (1, _written(ReLU)), "ReLU": (1, _written(ReLU)),
    "max": (None, _written(sp.Max)), "Max": (None, _written(sp.Max)),
    "min": (None, _written(sp.Min)), "Min": (None, _written(sp.Min)),
    "abs": (1, _written(sp.Abs)), "Abs": (1, _written(sp.Abs)),
    "sign": (1, _written(sp.sign)),
    "heaviside": (1, _written(sp.Heaviside)), "Heaviside": (1, _written(sp.Heaviside)),
    # leaky_relu(s, a) = ReLU(s) − a·ReLU(−s)
    "leaky_relu": (2, lambda s, a: _add(ReLU(s, evaluate=False),
                                        _mul(-1, a, ReLU(_neg(s), evaluate=False)))),
    "exp": (1, _written(sp.exp)), "log": (1, _written(sp.log)),
    "sqrt": (1, lambda s: sp.Pow(s, sp.S.Half, evaluate=False)),
    "tanh": (1, _written(sp.tanh)), "sin": (1, _written(sp.sin)), "cos": (1, _written(sp.cos)),
    # sigmoid(s) = 1/(1 + exp(−s)), softplus(s) = log(1 + exp(s))
    "sigmoid": (1, lambda s: _reciprocal(_add(1, sp.exp(_neg(s), evaluate=False)))),
    "softplus": (1, lambda s: sp.log(_add(1, sp.exp(s, evaluate=False)), evaluate=False)),
}


def constant_digits(expr: sp.Expr) -> float:
    """About the decimal digits of the largest number that evaluating expr as written can build
    (an upper bound up to rounding: of a constant, of a coefficient), without building it."""
    return constant_bits(expr) * LOG10_2


def constant_bits(expr: sp.Expr) -> float:
    """Bits of the numbers of expr (log2 of a numerator or denominator), added over sums and
    products (common denominators and products add sizes) and multiplied by a power's exponent;
    symbols count 0."""
    if expr.is_Rational:
        return max(math.log2(abs(int(expr.p)) or 1), math.log2(int(expr.q)))
    if isinstance(expr, sp.Pow):
        base, exponent = expr.args
        if not exponent.is_number:
            return constant_bits(base) + constant_bits(exponent)
        if constant_bits(exponent) > 20:
            return float("inf")
        value = evaluated(exponent)
        size = abs(float(value)) if value.is_Rational else 1.0
        return constant_bits(base) * max(size, 1.0)
    return sum(constant_bits(a) for a in expr.args)

_TOKEN = re.compile(r"\s*(?:(\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?)"
                    r"|([A-Za-z_][A-Za-z0-9_]*)|(\*\*|[-+*/^(),]))")


class ParseError(CheckerError, ValueError):
    """Text that is not an expression the checker accepts."""


def _tokenize(text: str) -> list[tuple[str, str, int]]:
    tokens, position = [], 0
    while position < len(text):
        if text[position:].strip() == "":
            break
        match = _TOKEN.match(text, position)
        if not match:
            raise ParseError(f"unexpected character {text[position:].lstrip()[0]!r} at column "
                             f"{position + 1 + len(text[position:]) - len(text[position:].lstrip())}")
        number, name, operator = match.groups()
        kind = "number" if number else "name" if name else "op"
        tokens.append((kind, number or name or operator, match.start() + 1))
        position = match.end()
    tokens.append(("end", "", len(text) + 1))
    return tokens


def _too_many_digits(shown: str, column: int) -> ParseError:
    return ParseError(f"the number {shown} at column {column} would have more than {MAX_DIGITS:,} "
                      f"digits: {NUMBER_RULE}")


def _number(text: str, column: int) -> sp.Rational:
    """An exact rational from a decimal literal, refused (before it is built) when its numerator
    or denominator would have more than MAX_DIGITS digits."""
    mantissa, _, exponent = text.lower().partition("e")
    whole, _, fraction = mantissa.partition(".")
    written = whole + fraction
    shift = int(exponent or 0) - len(fraction) if len(exponent.lstrip("+-0")) <= 6 else None
    # the value is int(written) · 10^shift: the digits of its numerator and its denominator
    if shift is None or max(len(written), len(written.lstrip("0")) + shift, 1 - shift) > MAX_DIGITS:
        raise _too_many_digits(text if len(text) < 40 else text[:37] + "...", column)
    return sp.Rational(text)


class _Parser:
    def __init__(self, text: str, symbols: dict):
        self.tokens = _tokenize(text)
        self.index = 0
        self.symbols = symbols
        self.depth = 0

    def peek(self):
        return self.tokens[self.index]

    def take(self, value: str | None = None):
        token = self.tokens[self.index]
        if value is not None and token[1] != value:
            shown = token[1] or "end of input"
            raise ParseError(f"expected {value!r} at column {token[2]}, found {shown!r}")
        self.index += 1
        return token

    def parse(self) -> sp.Expr:
        expr = self.sum()
        kind, value, column = self.peek()
        if kind != "end":
            raise ParseError(f"unexpected {value!r} at column {column}")
        return expr

    def sum(self):
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise ParseError(f"expression nested too deeply: {SIZE_RULE}")
        column = self.peek()[2]
        terms = [self.product()]
        bits = constant_bits(terms[0])
        while self.peek()[1] in ("+", "-"):
            operator = self.take()[1]
            right = self.product()
            terms.append(right if operator == "+" else _neg(right))
            bits = self.bounded(bits + constant_bits(right), terms, column)
        self.depth -= 1
        return _add(*terms) if len(terms) > 1 else terms[0]

    def product(self):
        column = self.peek()[2]
        factors = [self.unary()]
        bits = constant_bits(factors[0])
        while self.peek()[1] in ("*", "/"):
            operator = self.take()[1]
            right = self.unary()
            if operator == "/" and right.is_number and evaluated(right) == 0:
                raise ParseError("division by zero")
            factors.append(right if operator == "*" else _reciprocal(right))
            bits = self.bounded(bits + constant_bits(right), factors, column)
        return _mul(*factors) if len(factors) > 1 else factors[0]

    @staticmethod
    def bounded(bits: float, parts: list, column: int) -> float:
        """bits, unless the numbers of the sum or product of parts would be too large to build
        (refused, naming the expression)."""
        if bits * LOG10_2 >= MAX_DIGITS - 1e-9:      # log10 ≥ MAX_DIGITS: one digit more
            text = " · ".join(str(p) for p in parts[:3]) + (" · ..." if len(parts) > 3 else "")
            raise _too_many_digits(text if len(text) < 80 else text[:77] + "...", column)
        return bits

    def unary(self):
        if self.peek()[1] in ("+", "-"):
            operator = self.take()[1]
            self.depth += 1
            if self.depth > MAX_DEPTH:
                raise ParseError(f"expression nested too deeply: {SIZE_RULE}")
            operand = self.unary()
            self.depth -= 1
            return _neg(operand) if operator == "-" else operand
        return self.power()

    def power(self):
        column = self.peek()[2]
        base = self.atom()
        if self.peek()[1] in ("^", "**"):
            self.take()
            self.depth += 1
            if self.depth > MAX_DEPTH:
                raise ParseError(f"expression nested too deeply: {SIZE_RULE}")
            exponent = self.unary()
            self.depth -= 1
            power = sp.Pow(base, exponent, evaluate=False)
            if exponent.is_number and not base.is_number:
                # a power of an expression with symbols: its exponent is bounded
                value = evaluated(exponent) if constant_digits(exponent) < 7 else None
                if value is None or (value.is_Number and abs(value) > MAX_EXPONENT):
                    shown = str(exponent) if len(str(exponent)) < 40 else str(exponent)[:37] + "..."
                    raise ParseError(f"the exponent {shown} at column {column} is too large: "
                                     f"{EXPONENT_RULE}")
            self.bounded(constant_bits(power), [power], column)
            return power
        return base

    def atom(self):
        kind, value, column = self.take()
        if kind == "number":
            return _number(value, column)
        if kind == "name":
            if self.peek()[1] == "(":
                return self.call(value, column)
            if value in FUNCTIONS:
                raise ParseError(f"function {value!r} needs arguments, at column {column}")
            if value not in self.symbols:
                self.symbols[value] = sp.Symbol(value, real=True)
            return self.symbols[value]
        if value == "(":
            expr = self.sum()
            self.take(")")
            return expr
        raise ParseError(f"unexpected {value or 'end of input'!r} at column {column}")

    def call(self, name: str, column: int):
        if name not in FUNCTIONS:
            raise ParseError(f"unknown function {name!r} at column {column}; known: "
                             f"{', '.join(sorted(set(FUNCTIONS)))}")
        arity, function = FUNCTIONS[name]
        self.take("(")
        args = [self.sum()]
        while self.peek()[1] == ",":
            self.take(",")
            args.append(self.sum())
        self.take(")")
        if arity is not None and len(args) != arity:
            raise ParseError(f"{name} takes {arity} argument(s), got {len(args)}")
        if arity is None and len(args) < 2:
            raise ParseError(f"{name} takes at least 2 arguments")
        if len(args) > MAX_ARGUMENTS:
            raise ParseError(f"{name} has {len(args)} arguments: {SIZE_RULE}")
        return function(*args)


def parse_expression(text: str, *, positive=(), nonnegative=(), integer=(), negative=(),
                     rational=(), symbols: dict | None = None) -> sp.Expr:
    """Parse text into a sympy expression over real symbols, kept as written (module docstring);
    names in ``positive`` (resp. ``nonnegative``, ``integer``, ``negative``, ``rational``) carry
    that fact, and a name may be in several.  Pass one ``symbols`` dict to several calls so that
    both sides of an identity share their symbols."""
    if not isinstance(text, str):
        raise ParseError("expected a string")
    if len(text) > MAX_LENGTH:
        raise ParseError(f"expression of {len(text):,} characters: {SIZE_RULE}")
    if not text.strip():
        raise ParseError("empty expression")
    table = {} if symbols is None else symbols
    facts: dict[str, dict] = {}
    for fact, names in (("positive", positive), ("nonnegative", nonnegative),
                        ("integer", integer), ("negative", negative), ("rational", rational)):
        for name in names:
            facts.setdefault(name, {"real": True})[fact] = True
    for name, kwargs in facts.items():
        table.setdefault(name, sp.Symbol(name, **kwargs))
    for name in table:
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) or name in FUNCTIONS:
            raise ParseError(f"{name!r} is not a usable symbol name")
    try:
        return _Parser(text, table).parse()
    except RecursionError:
        raise ParseError(f"expression nested too deeply: {SIZE_RULE}") from None

