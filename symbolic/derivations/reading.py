"""Derivation files: chains a researcher writes, read without eval.

::

    # comment
    assume a > 0, b >= 0          (also: assume n integer, assume q rational, assume c < 0)
      relu(a*w*x) * (v/a)
    = a*relu(w*x) * (v/a)          by ReLU is positively homogeneous
    <= …                           by …

The first expression line opens a chain; each following line starts with a relation (=, <=, <,
>=, >, !=, also ≤, ≥, ≠) and may end in ``by REASON`` (free text, printed beside the step, never
trusted).  A blank line ends a chain; a file may hold several.  An ``assume`` line gives facts to
the symbols of every chain after it.  Expressions use the text grammar of ``check``
(``symbolic.parsing``); an expression with an index sum over a symbolic size, ``sum(TERM, j, 1,
h)``, or an indexed entry ``W[i,j]`` is an index-level term (``symbolic.derivations.index_steps``).
Anything else is a ``DerivationError`` naming the line and the column.
"""
from __future__ import annotations

import re

from symbolic.derivations.chain import Derivation
from symbolic.errors import CheckerError
from symbolic.logic.statements import misprinted_name
from symbolic.parsing import CONTRADICTIONS, ParseError, parse_expression

FACTS = {">": "positive", ">=": "nonnegative", "<": "negative", "integer": "integer", "rational": "rational"}
_RELATION = re.compile(r"\s*(<=|>=|!=|==|≤|≥|≠|<|>|=)(?!=)")
_ASSUME = re.compile(r"assume\b(.*)$")
_FACT = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*(?:\s*,\s*[A-Za-z_][A-Za-z0-9_]*)*)\s*"
                   r"(?:(>=|>|<)\s*0|(integer|rational))\s*$")
_BY = re.compile(r"\s+by\s+(.*)$")


class DerivationError(CheckerError, ValueError):
    """A file that is not a chain: the message names the line (and the column)."""


def _facts(text: str, line: int, facts: dict) -> None:
    """Read 'a > 0, b >= 0, n integer' into facts {name: {fact, …}}."""
    for part in _split_facts(text):
        found = _FACT.fullmatch(part)
        if found is None:
            raise DerivationError(f"line {line}: cannot read the assumption {part.strip()!r} "
                                  "(write: a > 0, b >= 0, c < 0, n integer, q rational)")
        names, sign, kind = found.groups()
        for name in re.split(r"\s*,\s*", names):
            given = facts.setdefault(name, set())
            given.add(FACTS[sign or kind])
            clash = next((pair for pair in CONTRADICTIONS if set(pair) <= given), None)
            if clash is not None:
                raise DerivationError(f"line {line}: {name} is assumed {' and '.join(sorted(clash))}: no value is both")


def _split_facts(text: str) -> list[str]:
    """'a, b > 0, n integer' → ['a, b > 0', 'n integer']: a part ends at its fact."""
    parts, current = [], ""
    for piece in text.split(","):
        current = f"{current},{piece}" if current else piece
        if re.search(r"(>=|>|<)\s*0\s*$|\b(integer|rational)\s*$", piece):
            parts.append(current)
            current = ""
    if current.strip():
        parts.append(current)
    return parts


def _expression(text: str, line: int, column: int, facts: dict, symbols: dict):
    """The expression as written: an index-level term when it has sums over sizes or entries."""
    from symbolic.derivations.index_steps import is_index_text, parse_index_term
    for name in re.finditer(r"\b[A-Za-z_]\w*", text):
        if misprinted_name(name.group()):
            raise DerivationError(f"line {line}, column {name.start() + column}: the name {name.group()} would "
                                  "print as an expression it is not (a__b as a power, xabs as |x|): rename it")
    try:
        if is_index_text(text):
            return parse_index_term(text, facts)
        options = {fact: [n for n, fs in facts.items() if fact in fs]
                   for fact in ("positive", "nonnegative", "negative", "integer", "rational")}
        for name in facts:
            if name not in symbols:
                parse_expression(name, symbols=symbols, **{k: v for k, v in options.items() if name in v})
        return parse_expression(text, symbols=symbols)
    except ParseError as error:
        message = str(error)
        shifted = re.sub(r"column (\d+)", lambda m: f"column {int(m.group(1)) + column - 1}", message)
        raise DerivationError(f"line {line}: {shifted}") from None


def read_derivations(text: str) -> list[Derivation]:
    """The chains of a derivation file (module docstring)."""
    chains: list[Derivation] = []
    facts: dict = {}
    symbols: dict = {}
    current = None
    # lines end at a newline only: a form feed inside a line does not split it
    for number, raw in enumerate(text.removeprefix("\ufeff").split("\n"), start=1):
        raw = raw.rstrip("\r")
        line = raw.split("#", 1)[0].rstrip()
        if not line.strip():
            current = None
            continue
        assumed = _ASSUME.match(line.strip())
        if assumed:
            if current is not None:
                raise DerivationError(f"line {number}: an assumption comes before its chain, not inside it")
            _facts(assumed.group(1), number, facts)
            for name in facts:
                symbols.pop(name, None)     # a name takes its facts from here on
            continue
        relation = _RELATION.match(line)
        if relation is None:
            if current is not None:
                raise DerivationError(f"line {number}, column 1: a step starts with a relation "
                                      "(=, <=, <, >=, >, !=); a blank line ends a chain")
            start = len(line) - len(line.lstrip()) + 1
            current = Derivation(_expression(line.strip(), number, start, facts, symbols), line=number,
                                 assumptions=_assumption_words(facts))
            chains.append(current)
            continue
        if current is None:
            raise DerivationError(f"line {number}, column {relation.start(1) + 1}: a step before any expression "
                                  "opens a chain")
        rest = line[relation.end():]
        reason = ""
        by = _BY.search(rest)
        if by:
            reason, rest = by.group(1).strip(), rest[:by.start()]
        if not rest.strip():
            raise DerivationError(f"line {number}, column {relation.end() + 1}: the relation has no expression")
        column = relation.end() + len(rest) - len(rest.lstrip()) + 1
        current.step(relation.group(1), _expression(rest.strip(), number, column, facts, symbols), reason, number)
        _check_direction(current, number)
    if not chains:
        raise DerivationError("the file holds no chain: an expression line opens one")
    for chain in chains:
        if not chain.steps:
            raise DerivationError(f"line {chain.line}: a chain needs at least one step (a line starting "
                                  "with a relation)")
    return chains


def _check_direction(chain: Derivation, line: int) -> None:
    relation, why = chain.relation()
    if relation is None:
        raise DerivationError(f"line {line}: not a chain: {why}")


def _assumption_words(facts: dict) -> tuple:
    words = {"positive": "> 0", "nonnegative": ">= 0", "negative": "< 0", "integer": "integer",
             "rational": "rational"}
    return tuple(f"{name} {words[fact]}" for name, found in sorted(facts.items()) for fact in sorted(found))
