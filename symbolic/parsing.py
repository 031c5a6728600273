"""Expressions from text, without eval.

``sympy.sympify`` and ``parse_expr`` evaluate Python code, so a string such as
``__import__('os').system('…')`` would run.  This is a small recursive-descent parser for
arithmetic on real symbols and the functions the checker knows; anything else is rejected with a
ParseError that says where.
"""
from __future__ import annotations

import re

import sympy as sp

from symbolic.relu import ReLU, leaky_relu

MAX_LENGTH = 20_000
MAX_DEPTH = 100
MAX_DIGITS = 1_000        # digits of a number literal, and the largest power of ten it may carry
MAX_ARGUMENTS = 1_000     # arguments of one max/min


def _lattice(operation):
    """max/min of many arguments, kept unevaluated: sympy's evaluation compares every pair."""
    return lambda *args: operation(*args, evaluate=False)

FUNCTIONS = {
    "relu": (1, ReLU), "ReLU": (1, ReLU),
    "max": (None, _lattice(sp.Max)), "Max": (None, _lattice(sp.Max)),
    "min": (None, _lattice(sp.Min)), "Min": (None, _lattice(sp.Min)),
    "abs": (1, sp.Abs), "Abs": (1, sp.Abs),
    "leaky_relu": (2, leaky_relu),
    "exp": (1, sp.exp), "log": (1, sp.log), "sqrt": (1, sp.sqrt),
    "tanh": (1, sp.tanh), "sin": (1, sp.sin), "cos": (1, sp.cos),
    "sigmoid": (1, lambda s: 1 / (1 + sp.exp(-s))),
    "softplus": (1, lambda s: sp.log(1 + sp.exp(s))),
}

_TOKEN = re.compile(r"\s*(?:(\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?)"
                    r"|([A-Za-z_][A-Za-z0-9_]*)|(\*\*|[-+*/^(),]))")


class ParseError(ValueError):
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


def _number(text: str, column: int) -> sp.Rational:
    """An exact rational from a decimal literal, refused when absurdly long or large."""
    mantissa, _, exponent = text.lower().partition("e")
    if len(mantissa.replace(".", "")) > MAX_DIGITS:
        raise ParseError(f"number at column {column} has more than {MAX_DIGITS} digits")
    if exponent and abs(int(exponent)) > MAX_DIGITS:
        raise ParseError(f"number at column {column} has an exponent beyond ±{MAX_DIGITS}")
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
            raise ParseError("expression nested too deeply")
        expr = self.product()
        while self.peek()[1] in ("+", "-"):
            operator = self.take()[1]
            right = self.product()
            expr = expr + right if operator == "+" else expr - right
        self.depth -= 1
        return expr

    def product(self):
        expr = self.unary()
        while self.peek()[1] in ("*", "/"):
            operator = self.take()[1]
            right = self.unary()
            if operator == "/" and right == 0:
                raise ParseError("division by zero")
            expr = expr * right if operator == "*" else expr / right
        return expr

    def unary(self):
        if self.peek()[1] in ("+", "-"):
            operator = self.take()[1]
            self.depth += 1
            if self.depth > MAX_DEPTH:
                raise ParseError("expression nested too deeply")
            operand = self.unary()
            self.depth -= 1
            return -operand if operator == "-" else operand
        return self.power()

    def power(self):
        base = self.atom()
        if self.peek()[1] in ("^", "**"):
            self.take()
            self.depth += 1
            if self.depth > MAX_DEPTH:
                raise ParseError("expression nested too deeply")
            exponent = self.unary()
            self.depth -= 1
            if exponent.is_Number and abs(exponent) > 64:
                raise ParseError("exponent too large")
            return base ** exponent
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
            raise ParseError(f"{name} takes at most {MAX_ARGUMENTS} arguments, got {len(args)}")
        return function(*args)


def parse_expression(text: str, *, positive=(), nonnegative=(), integer=(),
                     symbols: dict | None = None) -> sp.Expr:
    """Parse text into a sympy expression over real symbols; names in ``positive`` (resp.
    ``nonnegative``, ``integer``) carry that fact, and a name may be in several.  Pass one
    ``symbols`` dict to several calls so that both sides of an identity share their symbols."""
    if not isinstance(text, str):
        raise ParseError("expected a string")
    if len(text) > MAX_LENGTH:
        raise ParseError(f"expression longer than {MAX_LENGTH} characters")
    if not text.strip():
        raise ParseError("empty expression")
    table = {} if symbols is None else symbols
    facts: dict[str, dict] = {}
    for fact, names in (("positive", positive), ("nonnegative", nonnegative),
                        ("integer", integer)):
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
        raise ParseError("expression nested too deeply") from None
