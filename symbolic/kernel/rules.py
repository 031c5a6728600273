"""The kernel's rules for statements about the objects they name: each computes the statement it
mints from what it checked, and returns a verdict.

- ``by_oracle(oracle, statement)``: the kernel runs a declared oracle on the statement;
- ``conjunction(premises)``: the conjunction of the premises' statements;
- ``refutation(statement, witness)``: not S, from a point where S fails, evaluated here exactly;
- ``infer(scheme, premises, ...)``: the conclusion a named inference scheme computes from its
  premises' statements, when the scheme's side conditions hold.

A PROVED verdict carries its theorem; its claim is printed from the theorem's statement, after a
label that names the result (``Verdict.label``).  REFUTED and UNDECIDED answers pass through.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Callable

import sympy as sp

from symbolic.kernel.oracles import Oracle, is_declared
from symbolic.kernel.provenance import SCHEMES, called_from, code_in
from symbolic.logic.statements import (Equation, Negation, Relation, Statement, conjunction_of, foreign_statement,
                                        misread_symbol)
from symbolic.kernel.theorem import RestsOn, _mint
from symbolic.kernel.verdict import Holds, Status, Verdict


def issued(verdict) -> bool:
    """Whether ``verdict`` is PROVED by a theorem the kernel minted (any other PROVED is forged)."""
    return isinstance(verdict, Verdict) and verdict.minted


def refuse_forged(verdict):
    """The verdict, or, for a PROVED verdict the kernel did not issue (built by hand), an UNDECIDED
    one saying so (``Verdict.refused_if_forged``): what every output path prints or passes on."""
    return verdict.refused_if_forged() if isinstance(verdict, Verdict) else verdict


def _verdict(theorem, label="", evidence=(), residual=None, details=None, reason="") -> Verdict:
    return Verdict(Status.PROVED, evidence=tuple(evidence) or theorem.evidence, residual=residual,
                   details=dict(details or {}), reason=reason, theorem=theorem, label=label)


def _undecided(label: str, statement, reason: str, **details) -> Verdict:
    claim = label or (statement.text if isinstance(statement, Statement) else str(statement))
    return Verdict(Status.UNDECIDED, claim, reason=reason, details=details)


# --- oracles -----------------------------------------------------------------------------------------

def by_oracle(oracle: Oracle, statement: Statement, *, label: str = "", evidence=(), details=None,
              **parameters) -> Verdict:
    """Run ``oracle`` (an object declared in ``symbolic/trusted/oracles/``) on ``statement``: PROVED
    (a theorem of that very statement, resting on the oracle) when it answers Holds; its REFUTED or
    UNDECIDED answer otherwise."""
    if not is_declared(oracle):
        return _undecided(label, statement, f"{oracle!r} is not an oracle declared in the trusted folder of oracles")
    name = oracle.name
    if not isinstance(statement, Statement):
        return _undecided(label, statement, "an oracle decides a statement (a term), not text")
    unreadable = _unreadable(statement)
    if unreadable:
        return _undecided(label, statement, unreadable)
    answer = oracle.decide(statement, **parameters)
    if isinstance(answer, Verdict) and answer.status is not Status.PROVED:
        # the claim as LaTeX, printed from the statement the oracle ran on (the sides as written),
        # and the symbols whose facts it was checked under
        if isinstance(statement, (Equation, Relation)):
            sides = [sp.sympify(side) for side in (statement.lhs, statement.rhs)]
            answer = dataclasses.replace(
                answer, details={"latex": statement.written_latex(), **answer.details},
                symbols=answer.symbols or tuple(sorted(sides[0].free_symbols | sides[1].free_symbols,
                                                       key=sp.default_sort_key)))
        return dataclasses.replace(answer, claim=label) if label else answer
    if not isinstance(answer, Holds):
        return _undecided(label, statement, f"the oracle '{name}' gave no answer the kernel reads")
    theorem = _mint(statement, RestsOn(oracles=(name,)), evidence=(*answer.evidence, *evidence))
    return _verdict(theorem, label, (*answer.evidence, *evidence, f"taken on the word of the oracle: {name}"),
                    answer.residual, {**answer.details, **(details or {})}, answer.reason)


def _unreadable(statement) -> str:
    """Why ``statement`` cannot be a theorem's as it is, or "": a type that is not the kernel's own
    (a subclass could print or read its parts otherwise), or a symbol whose printed name would not
    read back as that symbol."""
    foreign = foreign_statement(statement)
    if foreign is not None:
        return f"a statement is one of the kernel's own statement types, not {foreign}"
    name = misread_symbol(statement)
    if name is not None:
        return f"the symbol named '{name}' would print as something it is not: rename it"
    return ""


# --- combining theorems ------------------------------------------------------------------------------

def conjunction(premises, *, label: str = "", evidence=(), residual=None, details=None,
                instance_checked=()) -> Verdict:
    """The conjunction of the premises' statements: PROVED when every premise is PROVED by a kernel
    theorem; else the worst premise (REFUTED keeps its witness), named by ``label``.
    ``instance_checked`` names what the conjunction stands for only on these instances (a rule
    valid for every size, its validity checked at some sizes): every theorem resting on it says so."""
    premises = list(premises)
    if not premises:
        return _undecided(label, label, "no premise: a conclusion needs at least one checked premise")
    for status in (Status.REFUTED, Status.UNDECIDED):
        bad = next((p for p in premises if p.status is status), None)
        if bad is not None:
            return Verdict(status, label or bad.claim, witness=bad.witness,
                           reason=f"{bad.claim}: {bad.reason}" if label else bad.reason,
                           evidence=bad.evidence, details=dict(details or {}))
    forged = next((p for p in premises if not issued(p)), None)
    if forged is not None:
        return _undecided(label, label, f"the premise '{forged.claim}' is PROVED but was not issued by the kernel")
    if residual is None:
        residual = max((p.residual for p in premises if p.residual is not None), default=None)
    statement = conjunction_of(p.theorem.statement for p in premises)
    rests_on = RestsOn.union(p.theorem.rests_on for p in premises) | RestsOn(instance_checked=tuple(instance_checked))
    theorem = _mint(statement, rests_on, sizes=_common_sizes(premises))
    reason = "; ".join(dict.fromkeys(p.reason for p in premises if p.reason))
    return _verdict(theorem, label, tuple(evidence) or tuple(dict.fromkeys(e for p in premises for e in p.evidence)),
                    residual, details, reason)


def _common_sizes(premises) -> str:
    sizes = {p.theorem.sizes for p in premises}
    return sizes.pop() if len(sizes) == 1 else ""


def refutation(statement: Statement, witness: dict, *, label: str = "") -> Verdict:
    """not S, for an equation or relation S: both sides evaluated here, exactly, at ``witness``
    (every free symbol given an exact value: an integer, a rational or an exact algebraic number,
    never a float), are defined and S fails there."""
    if type(statement) not in (Equation, Relation):
        return _undecided(label, statement, "a refutation by a point needs an equation or a relation")
    unreadable = _unreadable(statement)
    if unreadable:
        return _undecided(label, statement, unreadable)
    written = [sp.sympify(side) for side in (statement.lhs, statement.rhs)]
    # a name given as text is the statement's symbol of that name (never text read as an expression)
    by_name = {str(s): s for side in written for s in side.free_symbols}
    point = {}
    for key, value in witness.items():
        exact = exact_number(value)
        if exact is None:
            return _undecided(label, statement, f"the value {value!r} of {key} is not an exact number (an integer, "
                              "a rational or an exact algebraic number): a rounded value refutes nothing")
        point[by_name.get(key, sp.Symbol(key)) if isinstance(key, str) else key] = exact
    sides = [side.xreplace(point) for side in written]
    if any(side.free_symbols for side in sides):
        return _undecided(label, statement, "the point leaves a symbol free")
    # the point honours every fact of its symbols: a = -1 refutes nothing about a positive a
    broken = next((s for s in sorted(set(by_name.values()), key=str) if not _honours(s, point[s])), None)
    if broken is not None:
        return _undecided(label, statement, f"the value {point[broken]} of {broken} does not honour its facts")
    # every subterm of the sides as written is defined there (sqrt(x)**2 at x = -1 is outside the claim)
    if not all(_defined_at(side, point) for side in written):
        return _undecided(label, statement, "a side is not a finite real number at the point")
    difference = sides[0] - sides[1]
    relation = "=" if isinstance(statement, Equation) else statement.relation
    fails = {"=": difference.is_zero is False, "!=": difference.is_zero is True,
             "<": difference.is_nonnegative is True, "<=": difference.is_positive is True,
             ">": difference.is_nonpositive is True, ">=": difference.is_negative is True}[relation]
    if not fails:
        return _undecided(label, statement, "the statement is not shown false at the point")
    shown_point = tuple((symbol, value) for symbol, value in point.items())
    negation = Negation(statement, shown_point)
    shown = ", ".join(f"{k} = {v}" for k, v in shown_point)
    theorem = _mint(negation, RestsOn(rules=("refutation by an exact point",)),
                    evidence=(f"counterexample, evaluated exactly: {shown}",))
    return _verdict(theorem, label)


def exact_number(value):
    """``value`` as an exact sympy number (an int, a Fraction, a sympy rational or an algebraic
    number written without floats, such as sqrt(2)), or None: a float, a Float anywhere inside,
    text, a bool, a transcendental or non-real number, or anything with a symbol."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return sp.Integer(value)
    if type(value).__name__ in ("Fraction", "fmpq", "mpq"):
        return sp.Rational(int(value.numerator), int(value.denominator))
    if type(value).__name__ in ("fmpz", "mpz"):
        return sp.Integer(int(value))
    if not isinstance(value, sp.Expr) or value.free_symbols or value.atoms(sp.Float):
        return None
    if value.is_Rational:
        return value
    # an algebraic real number written exactly (sqrt(2), 1 + 2**(1/3)): evaluated to a sign exactly
    return value if value.is_algebraic is True and value.is_real is True else None


def _honours(symbol, value) -> bool:
    """Whether the value has every fact sympy's assumptions give the symbol (positive, integer, …)."""
    return all(getattr(value, f"is_{fact}", None) is truth for fact, truth in symbol.assumptions0.items()
               if truth is not None)


def _defined_at(side, point) -> bool:
    """Whether every subterm of the side as written is a finite real number at the point."""
    return all(node.xreplace(point).is_real is True and node.xreplace(point).is_finite is True
               for node in sp.preorder_traversal(side) if isinstance(node, sp.Expr))


# --- inference schemes --------------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class Scheme:
    """A rule of inference outside the kernel's primitives: ``conclude(premises, **arguments)``
    computes the conclusion (a Statement) from the premises' verdicts, or returns the reason it
    does not apply; ``argument`` is its soundness argument, in words."""
    name: str
    conclude: Callable
    argument: str


_SCHEMES: dict[int, Scheme] = {}

def scheme(name: str, conclude: Callable, argument: str) -> Scheme:
    """Declare an inference scheme; only code in the trusted folder of schemes may be one, and
    declare it, while its module is imported."""
    if not (code_in(conclude, SCHEMES) and called_from(SCHEMES, while_importing=True)):
        raise ValueError(f"{name}: an inference scheme's code must be in {', '.join(SCHEMES)}")
    declared = Scheme(name, conclude, argument)
    _SCHEMES[id(declared)] = declared
    return declared


def infer(rule: Scheme, premises, *, label: str = "", evidence=(), details=None, sizes: str = "",
          **arguments) -> Verdict:
    """The conclusion ``rule`` computes from ``premises`` (each PROVED by a kernel theorem)."""
    if _SCHEMES.get(id(rule)) is not rule:
        return _undecided(label, label, "not an inference scheme declared to the kernel")
    premises = list(premises)
    combined = conjunction(premises, label=label) if premises else None
    if combined is not None and combined.status is not Status.PROVED:
        return combined
    conclusion = rule.conclude(premises, **arguments)
    if not isinstance(conclusion, Statement):
        return _undecided(label, label, f"{rule.name} does not apply: {conclusion}")
    rests = RestsOn(rules=(rule.name,)) | (combined.theorem.rests_on if combined is not None else RestsOn())
    theorem = _mint(conclusion, rests, sizes=sizes)
    return _verdict(theorem, label, evidence, combined.residual if combined is not None else None, details)
