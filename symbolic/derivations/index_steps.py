"""Index-level steps of a derivation: sums over symbolic sizes, proved for every size.

The text ``sum(relu(sum(a*W[i,j]*x[i], i, 1, d)) * (v[j]/a), j, 1, h)`` is the term
Σ_{j=1}^{h} ReLU(Σ_{i=1}^{d} a W_ij x_i) v_j/a of ``symbolic.logic.terms``: ``sum(BODY, j, 1,
SIZE)`` a sum whose bound is a size symbol, ``W[i,j]`` an entry of the family W, ``relu`` ReLU;
scalars (a, 1/2, α) are sympy expressions with the facts the file assumed.

A step lhs = rhs is proved for every size by the kernel checking a chain of one rewrite: the rule
named in the step's reason first, then every axiom of the kernel (``symbolic.trusted.axioms``),
each judged on the one place the two sides differ.  When no rule takes the step, the step is
checked at small sizes (d = h = 1, then 2): a difference there refutes it, with the instance and
the point; else it stays UNDECIDED, saying to split it into single rewrites.
"""
from __future__ import annotations

import re

import sympy as sp

from symbolic.checks import identity
from symbolic.kernel.derivations import Chain, axioms, prove
from symbolic.kernel.verdict import Status, Verdict
from symbolic.logic import terms as T
from symbolic.logic.definedness import vanishing_denominator
from symbolic.logic.statements import NOT_REAL_NAMES
from symbolic.decision.domain import evaluated
from symbolic.parsing import MAX_DEPTH, MAX_LENGTH, SIZE_RULE, ParseError

_TERM_TYPES = (T.Const, T.Entry, T.Sum, T.Mul, T.Add, T.Relu)
_TOKEN = re.compile(r"\s*(?:(\d+)|([A-Za-z_][A-Za-z0-9_]*)|(\*\*|[-+*/^(),\[\]]))")
INSTANCE_SIZES = (1, 2)


def is_index_text(text: str) -> bool:
    """Whether the text is an index-level term: an entry W[i,j] or a sum(…)."""
    return "[" in text or re.search(r"\bsum\s*\(", text) is not None


def is_index_term(value) -> bool:
    return isinstance(value, _TERM_TYPES)


class _Reader:
    """Recursive descent over the index grammar; a value is a sympy scalar or a term."""

    def __init__(self, text: str, facts: dict):
        if len(text) > MAX_LENGTH:
            raise ParseError(f"expression of {len(text):,} characters: {SIZE_RULE}")
        self.depth = 0
        self.tokens, position = [], 0
        while position < len(text):
            found = _TOKEN.match(text, position)
            if found is None or found.end() == position:
                if text[position:].strip() == "":
                    break
                raise ParseError(f"unexpected {text[position:].strip()[0]!r} at column {position + 1}")
            self.tokens.append((found.group(1), found.group(2), found.group(3), found.start(0) + 1))
            position = found.end()
        self.tokens.append((None, None, None, len(text) + 1))
        self.index = 0
        self.facts = facts

    def peek(self):
        return self.tokens[self.index]

    def take(self, symbol=None):
        token = self.tokens[self.index]
        if symbol is not None and token[2] != symbol:
            shown = token[0] or token[1] or token[2] or "end of input"
            raise ParseError(f"expected {symbol!r} at column {token[3]}, found {shown!r}")
        self.index += 1
        return token

    def read(self):
        value = self.sum()
        if self.index != len(self.tokens) - 1:
            number, name, symbol, column = self.peek()
            raise ParseError(f"unexpected {symbol or name or number!r} at column {column}")
        return value

    def sum(self):
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise ParseError(f"expression nested too deeply: {SIZE_RULE}")
        parts = [self.product()]
        while self.peek()[2] in ("+", "-"):
            sign = self.take()[2]
            right = self.product()
            parts.append(right if sign == "+" else _product([sp.S.NegativeOne, right]))
        self.depth -= 1
        return parts[0] if len(parts) == 1 else _plus(parts)

    def product(self):
        factors = [self.unary()]
        while self.peek()[2] in ("*", "/"):
            operator, column = self.take()[2], self.peek()[3]
            right = self.unary()
            if operator == "/":
                if is_index_term(right):
                    raise ParseError(f"division by an index-level term at column {column}: divide by scalars only")
                if right.is_number and evaluated(right) == 0:
                    raise ParseError(f"division by zero at column {column}")
                right = sp.Pow(right, -1, evaluate=False)
            factors.append(right)
        return _product(factors)

    def unary(self):
        if self.peek()[2] == "-":
            self.take()
            return _product([sp.S.NegativeOne, self.unary()])
        base = self.atom()
        if self.peek()[2] in ("^", "**"):
            self.take()
            column = self.peek()[3]
            exponent = self.unary()
            if is_index_term(base) or is_index_term(exponent):
                raise ParseError(f"a power of an index-level term at column {column}: write the product")
            return sp.Pow(base, exponent, evaluate=False)
        return base

    def atom(self):
        number, name, symbol, column = self.take()
        if number is not None:
            return sp.Integer(number)
        if symbol == "(":
            value = self.sum()
            self.take(")")
            return value
        if name is None:
            raise ParseError(f"unexpected {symbol or 'end of input'!r} at column {column}")
        if self.peek()[2] == "[":
            self.take("[")
            indices = [self.index_name()]
            while self.peek()[2] == ",":
                self.take(",")
                indices.append(self.index_name())
            self.take("]")
            return T.Entry(name, tuple(indices))
        if self.peek()[2] == "(":
            return self.function(name, column)
        if name in NOT_REAL_NAMES:
            raise ParseError(f"{name!r} at column {column} is the name of a number: rename the symbol")
        facts = {fact: True for fact in self.facts.get(name, ())}
        return sp.Symbol(name, real=True, **facts)

    def index_name(self) -> str:
        _, name, _, column = self.take()
        if name is None:
            raise ParseError(f"an index is a name (i, j, n) at column {column}")
        if self.peek()[2] == "+":
            self.take()
            offset = self.take()[0]
            if offset is None:
                raise ParseError(f"an index offset is a number (j+1) at column {column}")
            return f"{name}+{offset}"
        return name

    def function(self, name: str, column: int):
        self.take("(")
        if name == "sum":
            body = self.sum()
            self.take(",")
            index = self.index_name()
            self.take(",")
            start = self.take()[0]
            if start != "1":
                raise ParseError(f"a sum runs from 1 (sum(TERM, j, 1, h)) at column {column}")
            self.take(",")
            size = self.take()[1]
            if size is None:
                raise ParseError(f"a sum's upper bound is a size symbol (d, h, N) at column {column}")
            self.take(")")
            return T.Sum(index, size, _term(body))
        if name in ("relu", "ReLU"):
            argument = self.sum()
            self.take(")")
            return T.Relu(_term(argument))
        raise ParseError(f"unknown function {name!r} at column {column} in an index-level term: sum and relu")


def as_index_term(value):
    """An index-level term as it is; a scalar as a constant term."""
    return value if is_index_term(value) else T.Const(value)


_term = as_index_term


def _product(factors):
    """A product as the rules read one: the scalars as one constant in front of the index-level
    factors (c·a_i, the form the sum-factor and homogeneity rules take apart)."""
    if len(factors) == 1:
        return factors[0]
    scalars = [f for f in factors if not is_index_term(f)]
    rest = [f for f in factors if is_index_term(f)]
    scalar = (scalars[0] if len(scalars) == 1 else sp.Mul(*scalars, evaluate=False)) if scalars else None
    if not rest:
        return scalar
    body = rest[0] if len(rest) == 1 else T.Mul(tuple(rest))
    return body if scalar is None else T.Mul((T.Const(scalar), body))


def _plus(parts):
    if not any(is_index_term(p) for p in parts):
        return sp.Add(*parts, evaluate=False)
    return T.Add(tuple(_term(p) for p in parts))


def parse_index_term(text: str, facts: dict):
    """The index-level term of the text (module docstring); facts {name: {"positive", …}}.  A name
    is an index or a scalar, never both: a scalar i inside Σ_i would be taken for a constant."""
    try:
        term = _term(_Reader(text, facts).read())
    except RecursionError:
        raise ParseError(f"expression nested too deeply: {SIZE_RULE}") from None
    both = sorted(_index_names(term) & {str(s) for s in T.scalar_symbols(term)})
    if both:
        raise ParseError(f"{both[0]} is used as an index and as a scalar: rename one")
    return term


def _index_names(term) -> set:
    """Every index a term binds or reads (Σ_i, W_ij, an offset j+1 read as j)."""
    found = set(term.indices) if isinstance(term, T.Entry) else set()
    if isinstance(term, T.Sum):
        found.add(term.index)
    found = {T.index_variable(i) for i in found}
    return found.union(*[_index_names(child) for child in T.children(term)]) if T.children(term) else found


def _rules_for(reason: str) -> list:
    """Every axiom of the kernel, the ones the reason names first."""
    import symbolic.trusted.axioms.index_rules  # noqa: F401 - declares the axioms of index-level terms
    found = axioms()
    named = [rule for rule in found if rule.name.lower() in reason.lower()]
    return named + [rule for rule in found if rule not in named]


def prove_for_every_size(statement, *, label: str = "", reason: str = "") -> Verdict:
    """lhs = rhs for every size, by one rewrite the kernel checks; else refuted or undecided at an
    instance (module docstring)."""
    reasons = []
    for rule in _rules_for(reason):
        try:
            if rule.applies(statement.lhs, statement.rhs) is not None:
                continue
        except (TypeError, ValueError, AttributeError, KeyError, IndexError, RecursionError):
            continue      # a rule that cannot read these terms does not take the step
        # the kernel checks the step against the rule itself, and the rule's validity
        verdict, theorem = prove(Chain(label or "index-level step", statement.lhs).then(rule, statement.rhs))
        if verdict.status is Status.PROVED:
            return verdict
        reasons.append(verdict.reason)
    return _at_instances(statement, label, reasons)


def _sizes_of(term) -> set:
    found = {term.size} if isinstance(term, T.Sum) else set()
    return found.union(*[_sizes_of(child) for child in T.children(term)]) if T.children(term) else found


def _at_instances(statement, label: str, reasons: list) -> Verdict:
    """The step at small sizes: REFUTED by an instance that differs, else UNDECIDED.  A term that
    divides by a scalar which may be 0 is not expanded: where it has no value it refutes nothing."""
    if vanishing_denominator(statement.lhs) is not None or vanishing_denominator(statement.rhs) is not None:
        return Verdict(Status.UNDECIDED, label, reason="no rule of the kernel takes the step, and a scalar of it "
                       "divides by a number that may be 0")
    sizes = sorted(_sizes_of(statement.lhs) | _sizes_of(statement.rhs))
    free = sorted(T.free_indices(statement.lhs) | T.free_indices(statement.rhs))
    held = []
    for size in INSTANCE_SIZES:
        chosen = dict.fromkeys(sizes, size)
        try:
            sides = [T.expand(side, chosen, dict.fromkeys(free, 1)) for side in (statement.lhs, statement.rhs)]
        except (TypeError, ValueError, KeyError):
            break
        if any(side.has(sp.nan, sp.zoo, sp.oo, -sp.oo) for side in sides):
            break           # a side with no value at the instance (a scalar divided by a - a): it refutes nothing
        verdict = identity(*sides, label=label)
        if verdict.status is Status.REFUTED:
            at = ", ".join(f"{name} = {size}" for name in sizes)
            return Verdict(Status.REFUTED, label, witness=verdict.witness,
                           reason=f"the step fails at the instance {at}: {verdict.reason}",
                           details={"instance": chosen})
        if verdict.status is Status.PROVED:
            held.append(str(size))
    why = "no single rule of the kernel rewrites the left side into the right"
    if reasons:
        why += f" ({reasons[0]})"
    tried = f" (it holds at the instances of size {', '.join(held)})" if held else ""
    return Verdict(Status.UNDECIDED, label, reason=why + "; split the step into single rewrites" + tried)

