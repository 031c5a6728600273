"""The three answers a claim can get, each with its evidence."""
from __future__ import annotations

import enum
import html
from dataclasses import dataclass, field
from fractions import Fraction

import sympy as sp

from symbolic.parsing import parse_expression


class Status(enum.Enum):
    PROVED = "proved"
    REFUTED = "refuted"
    UNDECIDED = "undecided"


@dataclass(frozen=True)
class Verdict:
    """The outcome of checking one claim.

    PROVED: an exact algebraic zero test succeeded on every case and independent evaluations agree.
    REFUTED: ``witness`` maps each symbol to an exact value at which the two sides differ.
    UNDECIDED: ``reason`` says why neither could be established.
    """

    status: Status
    claim: str = ""
    witness: dict | None = None
    reason: str = ""
    evidence: tuple[str, ...] = ()
    residual: float | None = None
    details: dict = field(default_factory=dict)

    def __bool__(self):
        raise TypeError("a Verdict has no truth value: compare verdict.status with Status.PROVED")

    @property
    def proved(self) -> bool:
        return self.status is Status.PROVED

    def describe(self) -> str:
        line = f"{self.status.name}: {self.claim}" if self.claim else self.status.name
        if self.witness:
            line += "  witness: " + ", ".join(f"{k} = {v}" for k, v in self.witness.items())
        if self.reason:
            line += f"  ({self.reason})"
        return line

    # --- notebook display (Jupyter calls these) ---

    def claim_latex(self) -> str:
        """The claim in math: ``details["latex"]`` when the checker stored it, else the claim
        'lhs = rhs' read back by the project's parser (never eval), else the claim as text."""
        if self.details.get("latex"):
            return self.details["latex"]
        sides = self.claim.split(" = ")
        if len(sides) == 2:
            try:
                return " = ".join(sp.latex(parse_expression(side)) for side in sides)
            except ValueError:
                pass
        return r"\text{%s}" % _latex_text(self.claim)

    def witness_latex(self) -> str:
        return r",\ ".join(f"{_latex_name(k)} = {sp.latex(_exact(v))}"
                           for k, v in (self.witness or {}).items())

    def _repr_latex_(self) -> str:
        body = r"\textbf{%s}:\ %s" % (self.status.name, self.claim_latex())
        if self.witness:
            body += r"\\ \text{witness: } %s" % self.witness_latex()
        return r"$$\begin{gathered} %s \end{gathered}$$" % body

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


def _exact(value):
    return sp.Rational(value.numerator, value.denominator) if isinstance(value, Fraction) else value


def _latex_name(key) -> str:
    return sp.latex(key) if isinstance(key, sp.Basic) else sp.latex(sp.Symbol(str(key)))


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
