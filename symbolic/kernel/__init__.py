"""The kernel: the only code that mints a theorem, and so the only source of a PROVED verdict.

It stands on the ground floor (``symbolic.logic``, the language of statements) and imports nothing
above it.  A theorem's statement is a term the kernel checked; its constructor is private
(``theorem``); the rules that mint one compute its statement from what they checked (``rules`` for
statements about the objects they name, ``transitivity`` for a chain of them, ``derivations`` for
index-level statements for every size); a procedure outside the kernel enters only as an oracle declared in the trusted base
(``symbolic/trusted/oracles/``), which the kernel runs itself on the statement (``oracles``).  The
answers a claim can get are ``verdict``'s.  Everything else in the project proposes steps and
returns answers.
"""
from symbolic.kernel.oracles import Oracle, declared
from symbolic.kernel.rules import by_oracle, conjunction, infer, issued, refutation, refuse_forged, scheme
from symbolic.kernel.theorem import RestsOn, Theorem, is_theorem
from symbolic.kernel.transitivity import transitivity
from symbolic.kernel.verdict import Holds, Status, Verdict
from symbolic.logic.statements import Conclusion, Conjunction, Equation, Fact, IndexEquation, Negation, Relation

__all__ = ["Conclusion", "Conjunction", "Equation", "Fact", "Holds", "IndexEquation", "Negation", "Oracle", "Relation",
           "RestsOn", "Status", "Theorem", "Verdict", "by_oracle", "conjunction", "declared", "infer", "is_theorem",
           "issued", "refutation", "refuse_forged", "scheme", "transitivity"]
