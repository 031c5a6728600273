"""The kernel: the only code that mints a theorem, and so the only source of a PROVED verdict.

A theorem's statement is a term the kernel checked (``statements``); its constructor is private
(``theorem``); the rules that mint one compute its statement from what they checked (``rules`` for
statements about the objects they name, ``derivations`` for index-level statements for every
size); a procedure outside the kernel enters only as an oracle that the kernel runs itself on the
statement (``oracles``).  Everything else in the project proposes steps and returns answers.
"""
from symbolic.kernel.oracles import ORACLES
from symbolic.kernel.rules import (by_oracle, conjunction, identity, infer, issued, nonnegatives, refutation,
                                   refuse_forged, scheme, zeros)
from symbolic.logic.statements import Conclusion, Conjunction, Equation, Fact, IndexEquation, Negation, Relation
from symbolic.kernel.theorem import RestsOn, Theorem, is_theorem

# the exact identity test under the name the public API has always used
check_identity = identity

__all__ = ["ORACLES", "Conclusion", "Conjunction", "Equation", "Fact", "IndexEquation", "Negation", "Relation",
           "RestsOn", "Theorem", "by_oracle", "check_identity", "conjunction", "identity", "infer", "is_theorem",
           "issued", "nonnegatives", "refutation", "refuse_forged", "scheme", "zeros"]
