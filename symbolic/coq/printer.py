"""sympy terms as Coq terms over R: the fragment a certificate can state.

The fragment: rational numbers, π, real symbols (their sign facts become hypotheses), +, ·, integer
powers, division, exp, ReLU (``Rmax s 0``), Max, Min, Abs (``Rabs``) and undefined functions such as
a loss ℓ (Coq variables of type R -> ... -> R).  Anything else raises ``OutsideFragment`` with the
reason.  Every term is printed fully parenthesised, node by node, so that the printed text of a
term is the text of its children put together: a certificate can rewrite one subterm and know the
text of the result.

Coq's division is total (x / 0 = 0), so every denominator as written gets a premise "B <> 0";
with those premises the lemma speaks of exactly the points where both sides as written are
defined.  A square root is printed where its argument is >= 0 for every value of the symbols
(sympy's assumptions say so: a sum of squares); other square roots and non-integer powers are
refused (Coq's sqrt of a negative is 0: the claim's domain is not stated), and so are integer
symbols (the claim ranges over Z, not R).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

import sympy as sp
from sympy.core.function import AppliedUndef

from symbolic.errors import CheckerError
from symbolic.relu import ReLU

# words a symbol may not be named in Coq: keywords, and the names the certificates use
RESERVED = frozenset([
    "as", "at", "cofix", "else", "end", "exists", "exists2", "fix", "for", "forall", "fun", "if",
    "IF", "in", "let", "match", "mod", "return", "then", "using", "where", "with", "Type", "Prop",
    "Set", "SProp", "R", "Rmax", "Rmin", "Rabs", "IZR", "pow", "sqrt", "exp", "PI", "relu_hom", "relu_flip",
    "max_relu", "min_relu", "abs_relu", "nonzero", "close", "pos", "split_signs", "leaf", "guided",
    "relu_num", "opp_neg_one", "no_sign", "signs_at_point", "at_point", "Derive", "Nat", "Rlt_dec",
    "O", "S", "nat",
])
NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")
PREFIXES = ("H", "E", "R")                  # the hypotheses', the steps' and the stdlib's names


class OutsideFragment(CheckerError, ValueError):
    """The term has a construct the certificates do not state in Coq (the reason says which)."""


@dataclass
class Statement:
    """The claim lhs = rhs as the parts of a Coq lemma."""

    lhs: str
    rhs: str
    variables: list[str]                     # Coq names of the real symbols, in order
    functions: dict[str, int]                # Coq name of each undefined function -> its arity
    hypotheses: list[str] = field(default_factory=list)   # sign facts and "B <> 0" premises

    def binders(self) -> list[str]:
        """The lemma's variables and functions, in this order."""
        binders = [f"({' '.join(self.variables)} : R)"] if self.variables else []
        return binders + [f"({function} : {' -> '.join(['R'] * (arity + 1))})"
                          for function, arity in self.functions.items()]

    def lemma(self, name: str, proof: str) -> str:
        binders = self.binders() + [f"(H{number} : {fact})" for number, fact in enumerate(self.hypotheses)]
        return f"Lemma {name} {' '.join(binders)} :\n  {self.lhs} = {self.rhs}.\nProof.\n  {proof}\nQed.\n"

    def negation(self, name: str, witnesses: list[str]) -> str:
        """The lemma that the claim fails: there are values of the variables and functions (in the
        binders' order) where every hypothesis holds and the sides differ, proved at ``witnesses``."""
        differ = f"{self.lhs} <> {self.rhs}"
        body = "(" + " /\\ ".join(self.hypotheses) + ") /\\ " + differ if self.hypotheses else differ
        statement = f"exists {' '.join(self.binders())},\n  {body}" if self.binders() else body
        proof = (f"exists {', '.join(witnesses)}.\n  " if witnesses else "") + "at_point."
        return f"Lemma {name} :\n  {statement}.\nProof.\n  {proof}\nQed.\n"


class Printer:
    """Prints terms, naming symbols and functions and collecting the premises on the way."""

    def __init__(self):
        self.names: dict[sp.Basic, str] = {}
        self.arity: dict[str, int] = {}
        self.premises: list[str] = []        # "B <> 0" for each denominator, in order of appearance
        self.record_premises = True
        self.uses: set[str] = set()          # the constructs beyond the standard library's ("Derive")

    # --- names ---

    def name(self, thing: sp.Basic, text: str) -> str:
        if thing in self.names:
            return self.names[thing]
        used = set(self.names.values())
        candidate = text if NAME.match(text) and text not in RESERVED and not text.startswith(PREFIXES) else ""
        if not candidate or candidate in used:
            base = re.sub(r"[^A-Za-z0-9_]", "_", text).lstrip("_0123456789") or "s"
            base = base if not base.startswith(PREFIXES) else "s" + base
            number = 0
            while (candidate := f"{base}_{number}") in used or candidate in RESERVED:
                number += 1
        self.names[thing] = candidate
        return candidate

    def symbol(self, s: sp.Symbol) -> str:
        if s.is_real is not True:
            raise OutsideFragment(f"the symbol {s} is not known to be real")
        if s.is_integer:
            raise OutsideFragment(f"the symbol {s} ranges over the integers")
        return self.name(s, s.name)

    def facts(self) -> list[str]:
        """The sign facts of the symbols, as hypotheses."""
        facts = []
        for thing, text in self.names.items():
            if not isinstance(thing, sp.Symbol):
                continue
            if thing.is_positive:
                facts.append(f"0 < {text}")
            elif thing.is_negative:
                facts.append(f"{text} < 0")
            elif thing.is_nonnegative:
                facts.append(f"0 <= {text}")
            elif thing.is_nonpositive:
                facts.append(f"{text} <= 0")
            elif thing.is_nonzero:
                facts.append(f"{text} <> 0")
        return facts

    # --- terms ---

    def term(self, e: sp.Expr) -> str:
        if e.is_Integer:
            return str(e) if e >= 0 else f"(- {-e})"
        if e.is_Rational:
            text = f"({abs(e.p)} / {e.q})"
            return text if e > 0 else f"(- {text})"
        if e.is_Number:
            raise OutsideFragment(f"the number {e} is not rational")
        if isinstance(e, sp.Symbol):
            return self.symbol(e)
        if isinstance(e, sp.Add):
            return "(" + " + ".join(self.term(a) for a in e.args) + ")"
        if isinstance(e, sp.Mul):
            return "(" + " * ".join(self.term(a) for a in e.args) + ")"
        if isinstance(e, sp.Pow):
            return self.power(e)
        if isinstance(e, ReLU):
            return f"(Rmax {self.term(e.args[0])} 0)"
        if isinstance(e, (sp.Max, sp.Min)):
            return self.extremum("Rmax" if isinstance(e, sp.Max) else "Rmin", list(e.args))
        if isinstance(e, sp.Abs):
            return f"(Rabs {self.term(e.args[0])})"
        if isinstance(e, AppliedUndef):
            return self.application(e)
        if e is sp.pi:
            return "PI"
        if isinstance(e, sp.exp):
            return f"(exp {self.term(e.args[0])})"
        if isinstance(e, sp.Derivative):
            return self.derivative(e)
        if isinstance(e, sp.Heaviside):
            return self.heaviside(e)
        if isinstance(e, sp.KroneckerDelta):
            return self.delta(e)
        if isinstance(e, sp.NumberSymbol) or e.is_number:
            raise OutsideFragment(f"the constant {e} is not rational")
        raise OutsideFragment(f"{type(e).__name__} is outside Coq's fragment here")

    def power(self, e: sp.Pow) -> str:
        base, exponent = e.args
        if exponent == sp.S.Half and base.is_nonnegative is True:
            # a square root of what is >= 0 at every value of its symbols (a sum of squares, say):
            # Coq's total sqrt is the real square root there, so the lemma states the claim as written
            return f"(sqrt {self.term(base)})"
        if exponent == -sp.S.Half and base.is_positive is True:
            # the reciprocal of the square root of what is > 0 at every value of its symbols
            return f"(/ sqrt {self.term(base)})"
        if not exponent.is_Integer:
            kind = "a square root" if exponent in (sp.S.Half, -sp.S.Half) else "a non-integer power"
            raise OutsideFragment(f"{kind} ({e}): its domain is not stated (Coq's sqrt of a negative is 0)")
        text = self.term(base)
        if exponent >= 0:
            return f"({text} ^ {exponent})"
        if self.record_premises and not (base.is_Number and base != 0):
            premise = f"{text} <> 0"
            if premise not in self.premises:
                self.premises.append(premise)
        return f"(/ {text})" if exponent == -1 else f"(/ ({text} ^ {-exponent}))"

    def derivative(self, e: sp.Derivative) -> str:
        """d/dx of an expression, as written: Coquelicot's total ``Derive (fun x => …) x``, once for
        each variable, innermost first (d²/dy dx f is Derive in y of Derive in x)."""
        text = self.term(e.expr)
        for variable, count in e.variable_count:
            if not (isinstance(variable, sp.Symbol) and count.is_Integer and count > 0):
                raise OutsideFragment(f"the derivative {e} is not taken in real symbols")
            name = self.symbol(variable)
            for _ in range(int(count)):
                text = f"(Derive (fun {name} : R => {text}) {name})"
        self.uses.add("Derive")
        return text

    def heaviside(self, e: sp.Heaviside) -> str:
        """1[s > 0] as written: sympy's Heaviside(s, 0) is 0 at s = 0, so it is Coq's test 0 < s."""
        argument, *at_zero = e.args
        if at_zero != [sp.S.Zero]:
            raise OutsideFragment(f"{e} is outside the fragment: only the Heaviside step that is 0 at 0 is stated in Coq")
        return f"(if Rlt_dec 0 {self.term(argument)} then 1 else 0)"

    def delta(self, e: sp.KroneckerDelta) -> str:
        """The Kronecker delta of two natural numbers as written, Coq's test of their equality."""
        if not all(a.is_Integer and a >= 0 for a in e.args[:2]):
            raise OutsideFragment(f"the Kronecker delta {e} of indices that are no numbers")
        return f"(if Nat.eqb {e.args[0]} {e.args[1]} then 1 else 0)"

    def extremum(self, head: str, args: list) -> str:
        # max(a, b, c) = max(a, max(b, c)), the arguments in their order
        if len(args) == 1:
            return self.term(args[0])
        return f"({head} {self.term(args[0])} {self.extremum(head, args[1:])})"

    def application(self, e: AppliedUndef) -> str:
        function = self.name(e.func, str(e.func))
        arity = len(e.args)
        if self.arity.setdefault(function, arity) != arity:
            raise OutsideFragment(f"the function {e.func} is applied to different numbers of arguments")
        return "(" + " ".join([function] + [self.term(a) for a in e.args]) + ")"


def statement(lhs: sp.Expr, rhs: sp.Expr, printer: Printer | None = None) -> Statement:
    """lhs = rhs as a Coq lemma's parts: raises OutsideFragment for a construct outside it."""
    printer = printer or Printer()
    left, right = printer.term(sp.sympify(lhs)), printer.term(sp.sympify(rhs))
    variables = [text for thing, text in printer.names.items() if isinstance(thing, sp.Symbol)]
    return Statement(left, right, variables, dict(printer.arity), printer.facts() + printer.premises)
