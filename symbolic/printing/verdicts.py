"""A verdict as text: what ``python -m proofs check`` prints and ``print(verdict)`` shows.  It
reads the verdict it is given and imports nothing of the project, so that the kernel's verdict
(``symbolic.kernel.verdict``) prints itself with it."""
from __future__ import annotations


def assumed_lines(verdict) -> list[str]:
    """What the verdict assumed beyond its claim's symbols' facts (which its first line prints): the
    domain as written where it restricts them, and a warning when the two sides arrived as one
    expression."""
    lines = []
    if verdict.details.get("domain"):
        lines.append(f"  for {verdict.details['domain']}, where both sides as written are defined")
    if verdict.details.get("as_built"):
        lines.append(f"  warning: {verdict.details['as_built']}")
    return lines


def verdict_text(verdict, values: dict | None = None) -> str:
    """A verdict as ``python -m proofs check`` prints it: the verdict line, the domain and any warning,
    the two sides' values at a witness when given, one line per piece of evidence, Coq's answer
    when it was asked."""
    lines = [verdict.describe(), *assumed_lines(verdict)]
    if values:
        lines.append(f"  at the witness: lhs = {values['lhs']}, rhs = {values['rhs']}")
    lines += [f"  evidence: {line}" for line in verdict.evidence]
    if "coq" in verdict.details:
        lines.append(f"  coq: {verdict.details['coq']}")
    return "\n".join(lines)
