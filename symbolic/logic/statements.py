"""The statements a theorem can have: terms, printed for the reader from what was checked.

A statement is data, never text: an equation of sympy expressions (for every admissible value of
its symbols, each with its sympy assumptions), a relation, an index-level equation (for every size
and every value of its free indices), a fact decided by a named oracle, a conjunction, a negation,
or the conclusion of a named inference scheme.  The text and the LaTeX a user reads are printed
from the statement; nothing is passed in beside it.
"""
from __future__ import annotations

import functools
import re
import weakref
from collections.abc import Mapping
from dataclasses import dataclass

import sympy as sp

from symbolic.logic.notation import latex as term_latex
from symbolic.logic.terms import scalar_symbols
from symbolic.logic.written import AsWritten, sendable
from symbolic.printing.sympy_latex import written_latex
from symbolic.printing.sympy_text import written_text

RELATIONS = {"<": "<", "<=": r"\le", ">": ">", ">=": r"\ge", "!=": r"\ne"}


# each statement's printing, made once: [its text, its LaTeX], kept here rather than in the
# statement, where a caller could write it, and gone with the statement
_PRINTED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


class Statement:
    """A proposition; ``text`` and ``latex`` print it."""

    @property
    def text(self) -> str:
        return self._printed(0)

    @property
    def latex(self) -> str:
        return self._printed(1)

    def _printed(self, which: int) -> str:
        # printing a large expression costs more than many a decision: each is printed once
        found = _PRINTED.setdefault(self, [None, None])
        if found[which] is None:
            found[which] = self._text() if which == 0 else self._latex()
        return found[which]

    def __str__(self) -> str:
        return self.text

    def parts(self) -> tuple:
        """The conjuncts (a statement that is no conjunction is its own single part)."""
        return (self,)


class FrozenMap(Mapping):
    """A mapping that cannot be changed once built: what a statement keeps of a caller's dict (a
    point, a map of parameters), so that no one holding it can change what was checked.  It is no
    dict, so that no method of dict reaches its items."""
    __slots__ = ("_items",)

    def __init__(self, items=()):
        object.__setattr__(self, "_items", dict(items))

    def __getitem__(self, key):
        return self._items[key]

    def __iter__(self):
        return iter(self._items)

    def __len__(self):
        return len(self._items)

    def __setattr__(self, name, value):
        raise TypeError("a mapping held by a statement or a theorem cannot be changed")

    def __hash__(self):
        return hash(frozenset(self._items.items()))

    def __repr__(self):
        return f"FrozenMap({self._items!r})"

    def __reduce__(self):
        return FrozenMap, (sendable(dict(self._items)),)

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


def frozen(value):
    """``value`` as the statement keeps it: a mutable matrix, list, dict or set copied into an
    immutable one (element by element), so that changing the caller's object afterwards cannot
    change what a theorem says was checked."""
    if isinstance(value, sp.MatrixBase) and not isinstance(value, sp.ImmutableMatrix):
        return sp.ImmutableMatrix(value)
    if isinstance(value, (tuple, list)):
        return tuple(frozen(item) for item in value)
    if isinstance(value, (dict, FrozenMap)):
        return FrozenMap({key: frozen(item) for key, item in value.items()})
    if isinstance(value, (set, frozenset)):
        return frozenset(frozen(item) for item in value)
    if type(value).__name__ == "ndarray" and hasattr(value, "setflags"):    # a numpy array
        value = value.copy()
        value.setflags(write=False)
    return value


def _freeze_fields(statement, *names) -> None:
    for name in names:
        object.__setattr__(statement, name, frozen(getattr(statement, name)))


def _expression_sides(statement) -> None:
    """The two sides as sympy expressions, kept as what was checked and printed: a number becomes
    sympy's, an object that converts itself (``_sympy_``) is replaced by what it converts to, so
    that it cannot print one thing and be checked as another; text or any other object is refused."""
    for name in ("lhs", "rhs"):
        side = getattr(statement, name)
        if not isinstance(side, sp.Basic):
            try:
                side = sp.sympify(side, strict=True)
            except sp.SympifyError:
                raise TypeError(f"a side of a statement is a sympy expression or a number, not "
                                f"{type(side).__name__}") from None
        object.__setattr__(statement, name, frozen(side))


# the names sympy prints for numbers (the imaginary unit, the infinities, NaN, π, e and the other
# named constants): a symbol so named would print a statement about those numbers, not the one checked
NOT_REAL_NAMES = frozenset({"I", "oo", "zoo", "nan", "pi", "E", "EulerGamma", "GoldenRatio", "Catalan",
                            "TribonacciConstant", "true", "false", "True", "False", "None"})

# a name that reads back as one symbol: a word (letters, digits, '_'), a LaTeX command's backslash in
# front of a word, then more words, commands, primes and subscripts or superscripts in braces or
# brackets ('W_{1,2}', 'x[k+1]', '\\theta^{(1)}_1', "v'"); an operator, a parenthesis, a space or a
# relation sign outside braces ('x+1', 'x = 0', 'x^2') would print as an expression, not the symbol
_READABLE_NAME = re.compile(r"\\?[^\W\d]\w*((\\[^\W\d]|'|\^?\{[^{}=<>!]*\}|\[[^\[\]=<>!]*\])\w*)*")


# what sympy's LaTeX printer makes of some names: a__b the power a^{b}, xabs and xmag |x|, xnorm ‖x‖,
# xavg ⟨x⟩ (a double underscore is its superscript, and these endings its modifiers)
_EXPRESSION_MARKS = (r"\left|", r"\left\|", r"\left\langle")


@functools.lru_cache(maxsize=4096)
def misprinted_name(name: str) -> bool:
    """Whether sympy's LaTeX prints a symbol of this name as an expression it is not."""
    return "__" in name or any(mark in sp.latex(sp.Symbol(name)) for mark in _EXPRESSION_MARKS)


def misread_symbol(statement) -> str | None:
    """The name of a symbol of the statement that would print as something it is not: a name
    sympy prints for a number (I, oo, pi, E, …), one that is not a word with an optional subscript
    in braces (a symbol 'x+1' prints a sum, 'x = 0' an equation, 'a__b' a power), or a name two different symbols
    of the statement share (an 'a > 0' beside an 'a' of any sign prints one symbol); None when
    every name reads as itself."""
    named: dict = {}
    for symbol in sorted(_symbols_of(statement), key=sp.default_sort_key):
        name = str(symbol)
        if name in NOT_REAL_NAMES or not _READABLE_NAME.fullmatch(name) or misprinted_name(name):
            return name
        if named.setdefault(name, symbol) != symbol:
            return name
    return None


# the statement types of the kernel: a statement is an instance of one of these, never of a
# subclass (which could print, compare or read its parts differently from what was checked)
def foreign_statement(statement) -> str | None:
    """What in ``statement`` is not one of the kernel's own statement types (a subclass included),
    or None: the statement itself, a conjunct, a negated statement, a hypothesis, a definition or
    a premise."""
    if type(statement) not in STATEMENT_TYPES:
        return type(statement).__name__
    inner = []
    if isinstance(statement, Conjunction):
        inner = statement.conjuncts
    elif isinstance(statement, Negation):
        inner = (statement.statement,)
    elif isinstance(statement, IndexEquation):
        inner = (*statement.hypotheses, *statement.definitions)
    elif isinstance(statement, Conclusion):
        inner = tuple(p for p in statement.premises if isinstance(p, Statement))
    return next((found for found in map(foreign_statement, inner) if found), None)


def _symbols_of(value) -> set:
    if isinstance(value, sp.Basic):
        return value.free_symbols
    if isinstance(value, Statement):
        parts = [getattr(value, name) for name in ("lhs", "rhs", "arguments", "statement", "witness")
                 if hasattr(value, name)]
        return _symbols_of(tuple(parts) + tuple(value.parts() if isinstance(value, Conjunction) else ()))
    if isinstance(value, Mapping):
        return _symbols_of(tuple(value) + tuple(value.values()))
    if isinstance(value, (tuple, list, set, frozenset)):
        return set().union(*[_symbols_of(item) for item in value]) if value else set()
    return set()


def _sympy_text(expr) -> str:
    # a side is printed as it is held: as written when it was kept as written, never re-sorted
    return written_text(expr)


def _sympy_latex(expr) -> str:
    return written_latex(expr)


# the facts of a symbol a statement's 'for …' prints (the first that holds of each kind): the
# printed claim says what the symbols range over, as the check read it
_SIGNS = (("positive", "> 0", "> 0"), ("negative", "< 0", "< 0"), ("zero", "= 0", "= 0"),
          ("nonnegative", ">= 0", r"\ge 0"), ("nonpositive", "<= 0", r"\le 0"), ("nonzero", "!= 0", r"\ne 0"))
_KINDS = (("even", "even", r"\text{even}"), ("odd", "odd", r"\text{odd}"),
          ("integer", "integer", r"\in \mathbb{Z}"), ("rational", "rational", r"\in \mathbb{Q}"))


def _ranges(symbols, latex: bool = False, tables=(_SIGNS, _KINDS)) -> str:
    """What the sympy facts on the symbols restrict them to, as 'a, b > 0, n integer' ('' for
    symbols that range over all the reals)."""
    groups: dict = {}
    for symbol in sorted(symbols, key=sp.default_sort_key):
        facts = symbol.assumptions0
        for table in tables:
            found = next((shown for key, *shown in table if facts.get(key) is True), None)
            if found is not None:
                groups.setdefault(found[latex], []).append(_sympy_latex(symbol) if latex else _sympy_text(symbol))
    return (r",\ " if latex else ", ").join(f"{', '.join(names)} {condition}" for condition, names in groups.items())


def ranges_text(symbols, latex: bool = False) -> str:
    """What the facts on the symbols restrict them to, 'a, b > 0, n integer' ('' when they range
    over all the reals): the words of a statement's 'for …', for a verdict that is no theorem."""
    return _ranges(symbols, latex)


def _for(sides, latex: bool = False) -> str:
    """The statement's 'for …' (its symbols' ranges), or nothing."""
    ranges = _ranges(set().union(*[sp.sympify(side).free_symbols for side in sides]), latex)
    if not ranges:
        return ""
    return r"\quad\text{for } " + ranges if latex else " for " + ranges


class _Sides(Statement):
    """Two sympy sides and a relation between them, printed with the relation's ``signs``: its
    text and its LaTeX."""

    def _text(self):
        return f"{_sympy_text(self.lhs)} {self.signs[0]} {_sympy_text(self.rhs)}" + _for((self.lhs, self.rhs))

    def _latex(self):
        return self.written_latex() + _for((self.lhs, self.rhs), latex=True)

    def written_latex(self) -> str:
        """The two sides and the relation as LaTeX, without what the symbols range over."""
        return " ".join(self.sides_latex())

    def sides_latex(self) -> tuple:
        """(the left side, the relation, the right side) as LaTeX: the pieces of a chain's display."""
        return _sympy_latex(self.lhs), self.signs[1], _sympy_latex(self.rhs)


@dataclass(frozen=True, eq=False)
class Equation(_Sides):
    """lhs = rhs for every admissible real value of the free symbols (their sympy assumptions
    included: α positive, n integer, …), the sides as written."""
    lhs: object
    rhs: object
    signs = ("=", "=")

    def __post_init__(self):
        _expression_sides(self)

    def __reduce__(self):
        # sent to another process, the sides travel as written (sympy would evaluate them again)
        return Equation, (AsWritten(self.lhs), AsWritten(self.rhs))


@dataclass(frozen=True, eq=False)
class Relation(_Sides):
    """lhs R rhs (R one of <, <=, >, >=, !=) for every admissible value of the free symbols."""
    lhs: object
    relation: str
    rhs: object

    def __post_init__(self):
        if self.relation not in RELATIONS:
            raise ValueError(f"unknown relation {self.relation!r}")
        _expression_sides(self)

    def __reduce__(self):
        return Relation, (AsWritten(self.lhs), self.relation, AsWritten(self.rhs))

    @property
    def signs(self) -> tuple:
        return self.relation, RELATIONS[self.relation]


@dataclass(frozen=True, eq=False)
class Fact(Statement):
    """``predicate(arguments)``: a property of exact objects that a named oracle decides (the rank
    of a rational matrix, an eigenvalue enclosure, …); ``arguments`` are the objects themselves,
    ``reading`` the words that say what the predicate means."""
    predicate: str
    arguments: tuple
    reading: str = ""

    def __post_init__(self):
        _freeze_fields(self, "arguments")

    def __reduce__(self):
        # sent to another process (``--jobs``), an object known by its key (a measure, a symmetry
        # group, whose functions may not pickle) travels as its key, which is how it prints
        return Fact, (self.predicate, tuple(sendable(_by_key(a)) for a in self.arguments), self.reading)

    def _text(self):
        shown = ", ".join(_argument_text(a) for a in self.arguments)
        return f"{self.predicate}({shown})" + (f": {self.reading}" if self.reading else "")

    def _latex(self):
        return r"\text{%s}" % _tex_escape(self.text)


def _by_key(argument):
    key = getattr(argument, "key", None)
    return key if isinstance(key, str) and not isinstance(argument, sp.Basic) else argument


def _argument_text(argument) -> str:
    if isinstance(argument, sp.MatrixBase):
        return "[" + "; ".join(", ".join(_sympy_text(e) for e in argument.row(i)) for i in range(argument.rows)) + "]"
    if isinstance(argument, (tuple, list)):
        return "(" + ", ".join(_argument_text(a) for a in argument) + ")"
    if isinstance(argument, Mapping):
        return "{" + ", ".join(f"{k}: {_argument_text(v)}" for k, v in argument.items()) + "}"
    if isinstance(argument, sp.Basic):
        return _sympy_text(argument)
    # an object of the project with a key (a measure, a symmetry group) prints as its key
    key = getattr(argument, "key", None)
    return str(key) if isinstance(key, str) else str(argument)


@dataclass(frozen=True, eq=False)
class IndexEquation(Statement):
    """lhs = rhs of index-level terms, for every size and every value of the free indices
    (``ranges``: a free index the proof took to run over 1..size), under ``hypotheses``, its
    defined names read with ``definitions`` (each an IndexEquation defined = meaning)."""
    lhs: object
    rhs: object
    ranges: tuple = ()
    hypotheses: tuple = ()
    definitions: tuple = ()

    def _text(self):
        return self._latex()

    def sides_latex(self) -> tuple:
        """(the left side, =, the right side) as LaTeX: the pieces of a chain's display; two
        different sides that would print alike (W·1 and W) print with every factor shown."""
        left, right = term_latex(self.lhs), term_latex(self.rhs)
        if left == right and self.lhs != self.rhs:
            left, right = term_latex(self.lhs, explicit=True), term_latex(self.rhs, explicit=True)
        return left, "=", right

    def _latex(self):
        body = " ".join(self.sides_latex())
        if self.ranges:
            body += r"\ (" + ", ".join(f"1 \\le {index} \\le {size}" for index, size in self.ranges) + ")"
        # the signs its scalars are taken to have (α > 0); its indices are integers by their nature
        signs = _ranges(scalar_symbols(self.lhs) | scalar_symbols(self.rhs), latex=True, tables=(_SIGNS,))
        if signs:
            body += r"\quad\text{for } " + signs
        if self.hypotheses:
            body = r"\text{if } " + r",\ ".join(h.latex for h in self.hypotheses) + r"\text{: } " + body
        if self.definitions:
            body += r"\ \text{where } " + r",\ ".join(d.latex.replace(" = ", " := ", 1) for d in self.definitions)
        return body


@dataclass(frozen=True, eq=False)
class Conjunction(Statement):
    """Every one of ``conjuncts`` (flattened: a conjunction of conjunctions is one conjunction)."""
    conjuncts: tuple

    def parts(self):
        return self.conjuncts

    def _text(self):
        return " and ".join(_grouped(part.text, part) for part in self.conjuncts)

    def _latex(self):
        return r"\ \wedge\ ".join(part.latex for part in self.conjuncts)


def _grouped(text: str, part: Statement) -> str:
    return f"({text})" if isinstance(part, (Conjunction, Conclusion)) else text


def conjunction_of(statements) -> Statement:
    """The conjunction of the statements, flattened; a single statement stands for itself."""
    parts = tuple(part for statement in statements for part in statement.parts())
    return parts[0] if len(parts) == 1 else Conjunction(parts)


@dataclass(frozen=True, eq=False)
class Negation(Statement):
    """not ``statement``: it fails at the exact point ``witness`` (symbol -> exact value)."""
    statement: Statement
    witness: tuple = ()

    def _text(self):
        return f"not ({self.statement.text})"

    def _latex(self):
        return r"\neg\,(%s)" % self.statement.latex


@dataclass(frozen=True, eq=False)
class Conclusion(Statement):
    """What a named inference scheme concludes from its premises; ``reading`` is the scheme's own
    printing of the conclusion, computed by the scheme from the premises' statements."""
    scheme: str
    reading: str
    premises: tuple = ()

    def _text(self):
        return self.reading

    def _latex(self):
        return r"\text{%s}" % _tex_escape(self.reading)


def _tex_escape(text: str) -> str:
    for special in "\\&%$#_{}~^":
        text = text.replace(special, "\\" + special if special not in "\\~^" else " ")
    return text


STATEMENT_TYPES = (Equation, Relation, Fact, IndexEquation, Conjunction, Negation, Conclusion)
