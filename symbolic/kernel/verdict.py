"""The three answers a claim can get, each with its evidence."""
from __future__ import annotations

import enum
import functools
import html
import re
from dataclasses import dataclass, field
from fractions import Fraction

import sympy as sp

from symbolic.errors import CheckerError
from symbolic.kernel.theorem import is_theorem
from symbolic.logic import statements
from symbolic.printing.verdicts import verdict_text


WITNESS_LINE = 72      # characters of a witness display line
LONG_NUMBER = 24       # a value longer than this prints as p/q with places to break


class ForgedVerdict(CheckerError, TypeError):
    """A PROVED verdict without a theorem the kernel minted."""


class Status(enum.Enum):
    PROVED = "proved"
    REFUTED = "refuted"
    UNDECIDED = "undecided"


@dataclass(frozen=True)
class Verdict:
    """The outcome of checking one claim.

    PROVED: ``theorem`` is a theorem the kernel minted; the claim is printed from its statement
    (after ``label``, a name for the result when one is given), never passed in beside it.
    The claim's text is printed when it is first read (``claim`` may be given as a function that
    prints it): printing a large sympy expression costs more than many a decision, and a verdict
    is often read for its status alone.
    REFUTED: ``witness`` maps each symbol to an exact value at which the two sides differ.
    UNDECIDED: ``reason`` says why neither could be established.
    ``symbols``: the claim's symbols with the facts they were checked under (their sympy
    assumptions), when the caller gives them; a REFUTED or UNDECIDED verdict then prints its
    claim 'for a, b > 0' as a PROVED's statement does.
    """

    status: Status
    claim: str = ""
    witness: dict | None = None
    reason: str = ""
    evidence: tuple[str, ...] = ()
    residual: float | None = None
    details: dict = field(default_factory=dict)
    theorem: object = None
    label: str = ""
    symbols: tuple = ()

    def __post_init__(self):
        if self.status is Status.PROVED:
            if not is_theorem(self.theorem):
                raise ForgedVerdict("a PROVED verdict carries a theorem the kernel minted; this one does not")
            # the claim a reader sees is the statement checked, after the result's name
            object.__setattr__(self, "claim", functools.partial(_labelled, self.label, self.theorem.statement))

    def __getstate__(self) -> dict:
        # a verdict sent to another process carries its claim printed
        return {**self.__dict__, "claim": self.claim}

    @property
    def statement(self):
        """The statement proved (PROVED only), a term of ``symbolic.logic.statements``."""
        return self.theorem.statement if self.status is Status.PROVED else None

    @property
    def facts(self) -> str:
        """What the claim's symbols were checked under, 'a, b > 0, n integer' ('' when they range
        over all the reals, or were not given)."""
        return statements.ranges_text(self.symbols)

    @property
    def rests_on(self) -> dict:
        """What a PROVED verdict rests on: {"rules", "oracles", "lemmas"}; {} otherwise."""
        return self.theorem.rests_on.as_json() if self.status is Status.PROVED else {}

    def __bool__(self):
        raise TypeError("a Verdict has no truth value: compare verdict.status with Status.PROVED")

    @property
    def proved(self) -> bool:
        return self.status is Status.PROVED

    def __str__(self) -> str:
        # the text the command line prints
        return verdict_text(self.refused_if_forged())

    @property
    def minted(self) -> bool:
        """PROVED by a theorem the kernel minted, the claim printed from its statement (a verdict
        built past the constructor's check is not)."""
        return (self.status is Status.PROVED and is_theorem(self.theorem)
                and str(self.claim).endswith(self.theorem.statement.text))

    def refused_if_forged(self) -> "Verdict":
        """This verdict, or, for a PROVED the kernel did not mint, an UNDECIDED saying so: what every
        output prints or passes on."""
        if self.status is Status.PROVED and not self.minted:
            return Verdict(Status.UNDECIDED, str(self.claim), details={"forged": True}, symbols=self.symbols,
                           reason="refused: a PROVED verdict the kernel did not issue")
        return self

    def describe(self) -> str:
        line = f"{self.status.name}: {self.claim}" if self.claim else self.status.name
        if self.claim and self.status is not Status.PROVED and self.facts:
            line += f" for {self.facts}"        # a PROVED's statement prints its own 'for …'
        if self.witness:
            line += "  witness: " + ", ".join(f"{k} = {v}" for k, v in self.witness.items())
        if self.reason:
            line += f"  ({self.reason})"
        return line

    # --- notebook display (Jupyter calls these) ---

    def claim_latex(self) -> str:
        """The claim in math: a PROVED verdict's statement as LaTeX; else ``details["latex"]`` when
        the checker stored it (the kernel prints it from the statement it ran an oracle on), else
        the claim as text, followed by what its symbols were checked under; then the domain as
        written where it restricts them (``details["domain_latex"]``)."""
        if self.status is Status.PROVED:
            return self._proved_latex() + self._domain_latex()
        # the claim, then what its symbols were checked under, as a PROVED's statement prints it
        facts = statements.ranges_text(self.symbols, latex=True)
        return self._claim_latex_as_written() + (r"\quad\text{for } " + facts if facts else "") + self._domain_latex()

    def _domain_latex(self) -> str:
        """The domain as written where it restricts the symbols, as the checker read it (x > 0 for
        relu(x)/x), or nothing."""
        domain = self.details.get("domain_latex")
        return r"\quad\text{on } %s\text{, where both sides as written are defined}" % domain if domain else ""

    def _claim_latex_as_written(self) -> str:
        # the checker's LaTeX of the claim (the kernel prints it from the statement it ran an oracle
        # on), else the claim as text
        if self.details.get("latex"):
            return self.details["latex"]
        return r"\text{%s}" % _latex_text(self.claim)

    def _proved_latex(self) -> str:
        """The name of the result in math (the checker's LaTeX, or the label as text), then the
        statement proved; a fact or a scheme's conclusion is its own reading, so the name says it."""
        statement = self.theorem.statement
        name = self.details.get("latex") or (r"\text{%s}" % _latex_text(self.label) if self.label else "")
        if isinstance(statement, (statements.Fact, statements.Conclusion)) and name:
            return name
        return f"{name}:\\quad {statement.latex}" if name else statement.latex

    def witness_items(self, breakable: bool = True) -> list[str]:
        """Each value of the witness as math, 'name = value'; a long number may break in a line
        of text (``breakable``: TeX's \\allowbreak, which a notebook's MathJax need not know)."""
        return [f"{_latex_name(k)} = {_latex_value(v, breakable)}" for k, v in (self.witness or {}).items()]

    def witness_latex(self) -> str:
        return r",\ ".join(self.witness_items(breakable=False))

    def witness_lines(self, width: int = WITNESS_LINE) -> list[str]:
        """The witness as display lines of about ``width`` characters each, so that a display
        (which TeX never breaks by itself) fits the page: items are packed greedily, a number
        longer than a line is cut into pieces, its continuations indented."""
        lines, line, used = [], [], 0
        for k, v in (self.witness or {}).items():
            name = _latex_name(k)
            pieces = _cut(_value_text(v), width - 16) if _is_long(v) else [_latex_value(v, False)]
            size = len(str(k)) + 3 + (len(pieces[0]) if _is_long(v) else len(str(v)))
            if line and used + size > width:
                lines.append(r",\ ".join(line) + ",")      # the next value follows on a new line
                line, used = [], 0
            line.append(f"{name} = {pieces[0]}")
            used += size + 2
            for piece in pieces[1:]:
                lines.append(r",\ ".join(line))            # the number goes on, indented
                line, used = [r"\quad " + piece], len(piece)
        if line:
            lines.append(r",\ ".join(line))
        return lines

    def _repr_latex_(self) -> str:
        rows = [r"\textbf{%s}:\ %s" % (self.status.name, self.claim_latex())]
        if self.witness:
            lines = self.witness_lines()
            rows += [r"\text{witness: } " + lines[0], *lines[1:]]
        return r"$$\begin{gathered} %s \end{gathered}$$" % r" \\ ".join(rows)

    def _repr_html_(self) -> str:
        colour = {Status.PROVED: "#1a7f37", Status.REFUTED: "#cf222e", Status.UNDECIDED: "#9a6700"}
        parts = [f'<b style="color:{colour[self.status]}">{self.status.name}</b> '
                 f"\\({html.escape(self.claim_latex())}\\)"]
        if self.witness:
            parts.append("<br>witness: \\(" + html.escape(self.witness_latex()) + "\\)")
        if self.reason:
            parts.append(f"<br><i>{html.escape(self.reason)}</i>")
        if self.evidence:
            parts.append("<ul>" + "".join(f"<li>{html.escape(e)}</li>" for e in self.evidence) + "</ul>")
        return "<div>" + "".join(parts) + "</div>"


def _claim(verdict: Verdict) -> str:
    """The claim's text, printed on first read."""
    text = verdict.__dict__["claim"]
    if callable(text):
        text = text()
        verdict.__dict__["claim"] = text
    return text


def _set_claim(verdict: Verdict, text) -> None:
    verdict.__dict__["claim"] = text


# a data descriptor over the dataclass field: the generated __init__ stores the claim (text, or a
# function printing it) through it, and every read prints it once
Verdict.claim = property(_claim, _set_claim, doc="the claim checked, as text")


def _labelled(label: str, statement) -> str:
    """A PROVED verdict's claim: the statement checked, after the result's name (a label that is
    the statement adds nothing)."""
    return f"{label}: {statement.text}" if label and label != statement.text else statement.text


def _is_long(value) -> bool:
    value = _exact(value)
    return isinstance(value, sp.Rational) and len(str(value)) > LONG_NUMBER


def _value_text(value) -> str:
    return str(_exact(value))


def _cut(text: str, width: int) -> list[str]:
    return [text[k:k + width] for k in range(0, len(text), width)]


def _latex_value(value, breakable: bool) -> str:
    """The value in math; a long rational as p/q (with a break allowed every LONG_NUMBER digits
    when ``breakable``)."""
    if _is_long(value):
        return (r"\allowbreak " if breakable else "").join(_cut(_value_text(value), LONG_NUMBER))
    return sp.latex(_exact(value), fold_short_frac=True)


def _exact(value):
    return sp.Rational(value.numerator, value.denominator) if isinstance(value, Fraction) else value


def _latex_name(key) -> str:
    """A symbol or a function as sympy prints it; a name such as 'u[W1_{1,2}]' or 'loss target 1'
    (the witness of a derivative law) as a direction's entry or as words."""
    if isinstance(key, (sp.Basic, sp.FunctionClass)):
        return sp.latex(key)
    text = str(key)
    entry = re.fullmatch(r"([A-Za-z]\w*)\[(.+)\]", text)
    if entry:
        return r"%s[%s]" % (entry.group(1), sp.latex(sp.Symbol(entry.group(2))))
    if " " in text:
        return r"\text{%s}" % _latex_text(text)
    return sp.latex(sp.Symbol(text))


def _latex_text(text: str) -> str:
    for special in "\\&%$#_{}~^":
        text = text.replace(special, "\\" + special if special not in "\\~^" else " ")
    return text


def worst(verdicts) -> Status:
    """REFUTED beats UNDECIDED beats PROVED: the status of a conjunction of claims."""
    statuses = {v.status for v in verdicts}
    for status in (Status.REFUTED, Status.UNDECIDED):
        if status in statuses:
            return status
    return Status.PROVED


@dataclass(frozen=True)
class Holds:
    """A procedure's answer that the statement it was given holds: not a verdict.  Only the
    kernel, which runs the procedure itself on the statement (``symbolic.kernel.oracles``), turns
    it into a theorem; ``reason`` keeps a caveat (e.g. "on Z3's word alone")."""
    evidence: tuple = ()
    reason: str = ""
    residual: float | None = None
    details: dict = field(default_factory=dict)
