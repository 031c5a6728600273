"""check_identity: decide lhs = rhs at every admissible real point where both sides are defined.

The claim.  Symbols range over the reals, cut down by the sympy facts they carry (sign, integer,
parity, rational: ``symbolic.decision.assumptions``); a symbol carrying any other fact makes the answer
UNDECIDED.  The claim is asserted on the common domain of definition of the two sides AS WRITTEN
(``symbolic.decision.domain``: no denominator vanishes, no non-integer power of a negative number,
no log of a non-positive one); the procedure works on evaluated copies, which are defined
wherever the written sides are, and every witness is checked against the written domain.  A
domain that is empty (a denominator identically 0 as in x/(x − x), a constant negative radicand,
or no point found by either solver) makes every claim hold vacuously, which is no proof: such a
claim is UNDECIDED with the reason "the domain as written is empty", and every PROVED needs a
point of the domain where the two sides were compared.

The decidable fragment (``symbolic.decision.fragment``): rational functions with rational
coefficients of the symbols, rational powers t^(p/q) (a fresh y ≥ 0 with y^q = t, on the domain
t ≥ 0), ReLU, Max, Min, Abs (leaky ReLU is made of them), and the discontinuous sign, Heaviside,
Piecewise (with or without an otherwise branch; the solvers decide them, the split does not),
floor, ceiling and Mod.  Outside it (exp, log, undefined functions ℓ, ...) only the exact zero
test and the sign split apply.  Two solvers decide it, each on its own encoding: Z3
(``symbolic.decision.smt``) and cvc5 (``symbolic.decision.cvc5_smt``), imported only when a
claim needs one.

The procedure and why each answer is sound, step by step, with the check that enforces it:

1. Input.  Both sides are finite sympy expressions over real symbols (``as_expression``); every
   symbol's facts are honoured or the answer is UNDECIDED (``unsupported_fact``), and so is it
   for a fact about an undefined function's values (``function_fact``), a floating-point
   constant (inexact: its arithmetic rounds, so no exact test may rest on it), an operator
   over a bound variable (a sum, product, integral or limit: substituting a point would reach
   the variable), a derivative of an expression that need not be differentiable where it is
   defined (of a kink, a jump or a root, where sympy's formula has a value the derivative has
   not), or a substitution into an expression not defined everywhere (``_outside_the_checker``).
   The other derivatives and substitutions are carried out in the evaluated copies and at the
   witnesses.  An infinity is accepted only as a Piecewise branch's value: that branch is
   undefined where it is taken (``WrittenDomain.admits`` refuses a point there, and a region
   of the split where it is taken asserts nothing).
2. Witness points.  First random rational points drawn from the symbols' ranges (integers of
   the right parity for integer symbols, on their lattice); then, unless steps 3 and 4 already
   settle the claim, the kinks (``symbolic.decision.kinks``: a point where an argument of sign,
   Heaviside, ReLU, Abs, max/min, a radicand or a Piecewise condition is 0, or an argument of
   floor, ceiling or Mod an integer, solved exactly for one symbol: rationals, then numbers of
   a quadratic field such as √2, compared exactly there; the roots of cubics and quartics only
   for a claim otherwise UNDECIDED, through the minimal polynomial of the difference; read from
   lhs − rhs after cancellation first, then from the sides, so that a term written on both
   sides takes none of the points the claim's own kinks need), the
   centres of quadratic arguments and points between and beyond the kinks of a line.  Both
   sides are evaluated exactly, or at 50 and 100 digits where exact evaluation is not possible,
   a difference then also told from 0 by sympy's adaptive-precision evaluation
   (``compare_at``).  A point where they differ is a
   counterexample: REFUTED, once ``point_in_ranges`` has checked that it honours every fact and
   ``WrittenDomain.admits`` that both sides as written are defined there.
3. Max-plus normal form (``symbolic.decision.max_plus``).  A side built from affine forms by
   sums, rational multiples, Max, Min, ReLU and Abs is, where the construction allows it, the
   maximum (or minimum) of a finite set of affine forms; two sides with the same set are the same
   function at every point, an exact test however many kinks they have.  Where both sides have
   such a form and the sets differ, the points where a form of one side alone tends to be attained
   are tried as witnesses.
   Canonical difference.  D = lhs − rhs with Max/Min/Abs rewritten into ReLU and every ReLU
   argument reduced (``reduced_argument``: expanded, fractions cancelled).  Each rewrite is an
   identity wherever the original is defined, so D = lhs − rhs on the claim's domain.  An
   argument that cancels to a constant is evaluated: an argument identically 0 where defined
   (``relu((x**2-1)/(x-1) - x - 1)``) is never split on.
4. Exact zero test.  If D is zero as a rational function in which the remaining ReLU atoms are
   independent indeterminates (``is_rational_zero``: one normal form in python-flint's
   polynomials first, sympy's expansion where it could relate generators), it is zero at every
   point: the claim holds.  Where a random point of step 2 already compared non-zero values,
   that is the PROVED, before any kink is solved for.
5. Independent parts.  D = c + Σ D_k(X_k) with disjoint symbol sets (``independent_parts``); D
   vanishes exactly when every D_k equals its value c_k at a reference point q_k and
   c + Σ c_k = 0.  Each part is decided on its own (steps 6–7).
6. The project's sign split, asked before any solver.  Every region starts from the domain as
   written (each radicand ≥ 0, each log's argument > 0).  For each innermost argument s, the
   closed partition {s ≥ 0},
   {s < 0} of the domain: on the first ReLU(s) is s, on the second it is 0, at EVERY point,
   kinks included, integer points included; sign and Heaviside split three ways (s > 0, s = 0,
   s < 0) and a Piecewise with an otherwise branch into its cases, each condition read into
   comparisons (``symbolic.decision.cases``: the cases of every construct cover every point).
   Floor, ceiling and Mod of integer symbols are first removed by the residue split
   (``symbolic.decision.residues``: n = L·k + r for each residue r, the rounding computed term
   by term).  So a part that reduces to an exact zero on every
   region of the partition is zero everywhere it is defined, with no density or continuity
   argument needed.  A region is entered once a point inside it is checked exactly (a point
   at hand, a kink or a random point of the domain, before Z3 is asked for one); it is
   dropped only with a certificate of emptiness
   (``regions.examine``: Farkas multipliers checked exactly, or Z3's unsat, named in the
   evidence).  A leaf whose remainder is undefined on its whole region (a denominator, of the
   remainder or of the claim as written, vanishes there) asserts nothing.  Over the integers
   the negative side of an integer-valued s is s ≤ −1, and a symbol that the region pins to one
   value (c ≥ 0 and −c ≥ 0, each linear c in its primitive form, rounded over the integers:
   2n − 11 ≥ 0 is n − 6 ≥ 0) is substituted into the remainder.  A leaf with a non-zero
   remainder is no refutation (a closed region may be thin): refutations come from re-verified
   points only.  The split is tried on parts with at most SPLIT_KINKS ReLU atoms (the parts of
   a claim too wide to rewrite whole, more than WIDE_KINKS kinks in lhs − rhs after
   cancellation, are rewritten and split one by one), stops after SPLIT_REGIONS regions
   examined, and then gives no opinion.
   A leaf whose remainder holds one square root √t is shown zero by ``radical_zero``
   (reduction modulo y² − t, a polynomial identity and a region certified empty).
7. The solvers, where the split does not settle a part or no random point confirmed it (the
   whole fragment, integer symbols included): D_k ≠ c_k, with every denominator and radicand of
   the ORIGINAL claim that involves the part's symbols asserted non-zero, resp. non-negative (a
   reduced part may be defined where the claim is not), and every symbol fact as a constraint.
   Z3 and cvc5 are asked in turn, a short slice each and then the full budget; where an unsat
   would stand alone (the split did not show the part) the other solver is asked too, and two
   solvers that disagree give UNDECIDED with both answers.  ``unsat`` is trusted and named in
   the evidence.  A model is a hint: its points (rational, or exact algebraic numbers) are
   re-verified exactly.  Parts whose symbols a denominator ties together are decided as one (the
   domain is then no product).
8. Verdicts.  PROVED needs an exact test on every part (step 4, the split of step 6, or Z3's
   unsat where the split gave no opinion) and an independent confirmation that compared
   something: Z3's unsat beside the split on every part, or a random point where a side, or a
   term of a side, is non-zero (``compares_something``); where Z3's unsat stands on every part,
   random points of the domain that found both sides equal are accepted beside it.  If the split
   and a solver contradict each other the answer is UNDECIDED with both answers.  Every PROVED
   is built by ``_holds``, and nowhere else.  REFUTED always rests
   on a point re-verified on the ORIGINAL expressions that honours every fact.  Anything else,
   including an internal error, is UNDECIDED with the reason.

Each procedure alone (``procedure=``).  "all" (the default) is the procedure above.  "split" is
the project's own argument alone: steps 1-6 without Z3 as a decider (Z3 still answers region
questions inside the split, with a Farkas certificate checked wherever the region is linear), PROVED
only with a random point that compared non-zero values beside it.  "z3" is Z3 alone on
lhs − rhs as written (steps 1, 2, 5 and 7, no rewriting, no exact zero test, no split), PROVED only
on its unsat with random points of the domain beside it.  Each is sound on its own: REFUTED still
rests on a re-verified point, and anything its own argument does not settle is UNDECIDED.
"""
from __future__ import annotations

import functools
import random
from collections import Counter
from dataclasses import dataclass, field

import sympy as sp
from sympy.concrete.expr_with_limits import ExprWithLimits
from sympy.core.function import AppliedUndef

from symbolic.decision.assumptions import function_fact, point_in_ranges, sample_point, symbol_range, unsupported_fact
from symbolic.decision.budget import BudgetExhausted, check_budget, remaining, time_budget
from symbolic.decision.components import independent_parts
from symbolic.decision.domain import WrittenDomain, evaluated
from symbolic.decision.fraction_field import fraction_reading
from symbolic.decision.fragment import DISCONTINUOUS, OutsideFragment, in_fragment
from symbolic.decision.kinks import between_kinks, critical_points, kink_points
from symbolic.decision.max_plus import normal_form, separating_points
from symbolic.decision.quadratic import field_of
from symbolic.decision.radicals import radical_zero
from symbolic.decision.residues import residue_classes
from symbolic.decision.regions import SplitTooLarge, describe, examine, inside, pinned_values, \
    sign_branches
from symbolic.relu import ReLU, canonical_relu_form, to_relu_form
from symbolic.kernel.verdict import Holds, Status, Verdict
from symbolic.decision.witness import WITNESS_DPS, algebraic_value, carried_out, compare_at, \
    concrete_functions, exact_value, exactly_zero, mp_value, substitute_functions
from symbolic.decision.zero import is_rational_zero
from symbolic.errors import CheckerError

RANDOM_POINTS = 8
SPLIT_REGIONS = 24
SPLIT_KINKS = 6
WIDE_KINKS = 24
SOLVER_SECONDS = 4.0
FIRST_SLICE = 0.25    # each solver's first turn; a solver that runs out gets SOLVER_SECONDS after
REFERENCE_TRIES = 20
NOISE = 10 ** -(WITNESS_DPS // 2)
PROCEDURES = ("all", "split", "z3")


class _Undecidable(CheckerError):
    """The procedure cannot settle the claim; the message says why."""


def _holds(evidence, reason: str = "", residual: float | None = None,
           details: dict | None = None) -> Verdict:
    """The one place this module concludes that the claim holds: every proof of ``check_identity``
    ends here, with the evidence that its exact test and its independent comparison produced.  The
    answer is no verdict: the kernel, running this procedure as its oracle 'exact identity test',
    mints the theorem."""
    return Holds(reason=reason, evidence=tuple(evidence), residual=residual, details=dict(details or {}))


# the solvers, each on its own encoding, in the order they are asked: (name, module path)
SOLVERS = (("Z3", "symbolic.decision.smt"), ("cvc5", "symbolic.decision.cvc5_smt"))


def _solver_module(path: str):
    """A solver's module, imported on first use: a claim that needs no solver loads none."""
    import importlib
    return importlib.import_module(path)


def _ask(module, left, right, denominators, region, symbols, seconds):
    """One solver's answer to "left ≠ right on the domain?" (``ask`` of its module)."""
    return module.ask(left, right, denominators, region, symbols, seconds)


def as_expression(value) -> sp.Expr:
    """Accept a sympy expression or a number; anything else is bad input."""
    if isinstance(value, str):
        raise TypeError("check_identity takes sympy expressions; parse text with "
                        "symbolic.parse_expression first")
    expr = sp.sympify(value, strict=True)
    if not isinstance(expr, sp.Expr) or isinstance(expr, sp.MatrixBase):
        raise TypeError(f"not a scalar expression: {value!r}")
    if any(s.is_real is False for s in expr.free_symbols):
        raise ValueError("every symbol must be real")
    if expr.has(*_INFINITIES) and _infinite_outside_branches(expr):
        raise ValueError(f"not a finite expression: {expr}")
    if expr.is_number and expr.is_real is False:
        raise ValueError(f"not a real number: {expr}")
    return expr


def decide_equation(statement, *, timeout: float | None = None, seed: int = 0, procedure: str = "all"):
    """Oracle 'exact identity test' (``symbolic.kernel.oracles``): decide the Equation lhs = rhs;
    ``Holds`` when it holds, a REFUTED or UNDECIDED verdict otherwise."""
    return check_identity(statement.lhs, statement.rhs, timeout=timeout, seed=seed, procedure=procedure)


def check_identity(lhs, rhs, *, timeout: float | None = None, seed: int = 0,
                   claim: str | None = None, procedure: str = "all") -> Verdict | Holds:
    """Decide lhs = rhs for every admissible real value of the symbols (see module docstring);
    ``procedure`` "split" or "z3" gives that procedure's verdict alone.

    The claim is checked as written: a point is admissible when both sides AS WRITTEN are
    defined there (no denominator vanishes, no even root or non-integer power of a negative
    number, no log of a non-positive one: ``symbolic.decision.domain``), and rewriting never
    enlarges that set.  ``relu(x)/relu(x) = relu(x)/x`` is about x > 0 only (PROVED, not refuted
    at x < 0 where the left side is 0/0); ``x/x = 2 - sign(x)**2`` is about x ≠ 0;
    ``sqrt(x*y) = sqrt(x)*sqrt(y)`` is about x, y ≥ 0 (a negative point, where i·i = −1 would
    pass for a real value, is no counterexample).  Pass sides built with ``evaluate=False``
    (as ``parse_expression`` builds them) to keep sympy from cancelling before the check.
    """
    if procedure not in PROCEDURES:
        raise ValueError(f"unknown procedure {procedure!r}: one of {', '.join(PROCEDURES)}")
    written = as_expression(lhs), as_expression(rhs)
    try:
        with time_budget(timeout):
            return _Decision(*written, claim, random.Random(seed), procedure).run()
    except BudgetExhausted:
        if timeout is None:
            raise    # an enclosing budget ran out: it is the caller's to report
        return Verdict(Status.UNDECIDED, _claim_text(claim, written),
                       reason=f"time budget of {timeout} s ran out")
    except _Undecidable as why:
        return Verdict(Status.UNDECIDED, _claim_text(claim, written), reason=str(why))
    except (RecursionError, MemoryError) as error:
        return Verdict(Status.UNDECIDED, _claim_text(claim, written),
                       reason=f"internal error: {type(error).__name__}", details={"internal_error": True})
    except Exception as error:  # noqa: BLE001 - an internal error is never a verdict
        return Verdict(Status.UNDECIDED, _claim_text(claim, written),
                       reason=f"internal error: {type(error).__name__}: {error}",
                       details={"internal_error": True})


def _claim_text(claim: str | None, written: tuple) -> str:
    """The claim as the verdict names it: the caller's name for it, else 'lhs = rhs' as written
    (printing a sympy expression costs more than many a decision: a PROVED, which carries no
    text of its own, never prints it)."""
    return claim or f"{written[0]} = {written[1]}"


@dataclass
class _Part:
    """One independent part D_k of the difference, to be shown equal to ``target``."""

    expr: sp.Expr
    target: sp.Expr
    symbols: list
    reference: dict = field(default_factory=dict)
    split: bool = True    # the project's rewriting and split are tried on it


@dataclass
class _Opinion:
    """A part's outcome: 'zero', 'nonzero' (with a point of the part's symbols), or 'unknown'."""

    outcome: str
    point: dict | None = None
    evidence: list = field(default_factory=list)
    reason: str = ""
    trusted_solver: bool = False   # the exact test is a solver's unsat alone
    solver_agrees: bool = False    # a solver's unsat stands beside a 'zero' (alone or with the split)
    model: bool = False            # a solver answered sat, with a model that did not re-verify
    timed_out: bool = False        # a solver ran out of its first, short slice


class _Decision:
    def __init__(self, lhs, rhs, claim, rng, procedure="all"):
        # an operator that binds a variable, or a derivative that may not exist where its
        # expression is defined, is outside the checker: UNDECIDED before anything is evaluated
        outside = _outside_the_checker((lhs, rhs))
        if outside:
            raise _Undecidable(outside)
        # the sides as written give the domain and re-verify witnesses; the procedure works on
        # evaluated copies (x/x is 1 there, a derivative is carried out), which are defined
        # wherever the written sides are
        self.functions = concrete_functions((lhs, rhs), rng)
        self.domain = WrittenDomain(lhs, rhs, functions=self.functions)
        self.empty = self.domain.empty_reason()
        try:
            self.lhs, self.rhs = (as_expression(carried_out(evaluated(side))) for side in (lhs, rhs))
        except ValueError as why:    # a side undefined at every point (1/(x − x) is zoo)
            self.empty = self.empty or f"the domain as written is empty: {why}"
            self.lhs, self.rhs = lhs, rhs
        except (ZeroDivisionError, TypeError) as why:    # Mod(x, 0), or a comparison with zoo
            self.empty = self.empty or f"a side as written cannot be evaluated: {why}"
            self.lhs, self.rhs = lhs, rhs
        self.named, self.written, self.rng = claim, (lhs, rhs), rng
        self.use_split, self.use_solver = procedure in ("all", "split"), procedure in ("all", "z3")
        # "z3" is Z3 alone; "all" asks cvc5 too
        self.solvers = SOLVERS if procedure == "all" else SOLVERS[:1]
        self.symbols = sorted(lhs.free_symbols | rhs.free_symbols, key=sp.default_sort_key)
        self.concrete = (substitute_functions(lhs, self.functions),
                         substitute_functions(rhs, self.functions))
        self.denominators = sorted((carried_out(evaluated(d)) for d in self.domain.denominators),
                                   key=sp.default_sort_key)
        # the domain as written as region constraints (roots, logs), without undefined functions
        self.region = [carried_out(c) for c in self.domain.conditions() if not c.has(AppliedUndef)]
        self.solver_answers: list = []
        self.deferred: list = []    # algebraic kinks outside a quadratic field, tried last
        self.domain_point_line = ""    # a solver's point of the domain, where one was asked for

    # -- verdicts ---------------------------------------------------------------------------
    @functools.cached_property
    def claim(self):
        """The claim's text as a verdict carries it: printed once, when it is first read."""
        return functools.cache(functools.partial(_claim_text, self.named, self.written))

    def refuted_at(self, point: dict, reason: str) -> Verdict | None:
        """REFUTED if the point honours every fact and separates the ORIGINAL sides."""
        full = {s: point.get(s, symbol_range(s).member()) for s in self.symbols}
        if not (point_in_ranges(full) and self.domain.admits(full)):
            return None
        separation = compare_at(*self.concrete, full)
        if not (separation.defined and separation.differ):
            return None
        witness = dict(full) | dict(self.functions)
        how = "exactly" if separation.exact else \
            "at 50 and 100 digits and by sympy's adaptive-precision evaluation"
        return Verdict(Status.REFUTED, self.claim, witness=witness, reason=reason,
                       evidence=(f"the two sides differ at the witness, re-evaluated {how} on "
                                 "the original expressions; the witness honours every symbol's "
                                 "facts and both sides as written are defined there",))

    def compares_something(self, point: dict) -> bool:
        """At a point where the sides agree: does the agreement compare non-zero values?  Yes
        when a side is non-zero there, or when a side is a sum with a non-zero term there (its
        value 0 then came out of a cancellation that the other side had to match)."""
        lhs, rhs = self.concrete
        # each expression once (a side that is no sum is its own one term)
        for expr in dict.fromkeys((lhs, rhs, *sp.Add.make_args(lhs), *sp.Add.make_args(rhs))):
            if expr.is_Rational:
                if expr != 0:
                    return True
                continue
            value = exact_value(expr, point)
            if value is None:    # at 50 digits, a value above the rounding noise
                value = mp_value(expr, point, WITNESS_DPS)
                value = value if value is not None and abs(value) > NOISE else None
            if value is not None and value != 0:
                return True
        return False

    def compare_inside_the_domain(self) -> None:
        """A point of the domain as written (every denominator non-zero, every root's radicand
        non-negative) from a solver, admissible and checked exactly, where the two sides are
        compared: the random points may all have missed a thin domain (ReLU(x)·ReLU(y) ≠ 0 is
        a quadrant).  Both solvers finding the domain empty make the claim assert nothing."""
        empty = []
        for name, module in self.solvers:
            try:
                answer = _solver_module(module).domain_point(
                    self.denominators, self.region, self.symbols, self.solver_seconds())
            except OutsideFragment:
                return
            if answer.result == "unsat":
                empty.append(name)
                continue
            for point in answer.points:
                if not (point_in_ranges(point) and self.domain.admits(point)):
                    continue
                separation = compare_at(*self.concrete, point)
                if separation.defined and not separation.differ:
                    self.agreeing += 1
                    self.informative += self.compares_something(point)
                    self.domain_point_line = (f"; a point of the domain from {name} ({point}), "
                                              "checked exactly, compares the sides")
                    return
        if len(empty) == len(self.solvers):
            raise _Undecidable(f"the domain as written is empty ({' and '.join(empty)} find no "
                               "point where both sides are defined): the claim asserts nothing")

    def require_domain_point(self) -> None:
        """A PROVED needs a point of the domain where the sides were compared: on an empty
        domain every claim holds, and that is no proof of anything."""
        if self.agreeing == 0 and (self.denominators or self.region):
            self.compare_inside_the_domain()
        if self.agreeing == 0:
            raise _Undecidable("no point of the domain as written was found where the two sides "
                               "could be compared")

    def solver_seconds(self, limit: float = SOLVER_SECONDS) -> float:
        left_time = remaining()
        return limit if left_time is None else max(min(limit, left_time), 0.01)

    def undecided(self, reason, evidence=()) -> Verdict:
        return Verdict(Status.UNDECIDED, self.claim, reason=reason, evidence=tuple(evidence))

    @property
    def witness_line(self) -> str:
        """What the witness points showed, for a verdict's evidence."""
        return (f"agrees at {self.agreeing} points (kinks and random points) of the symbols' "
                "ranges, " + ("at least one of them comparing non-zero values" if self.informative
                              else "none of them comparing non-zero values") +
                ("" if self.informative or not self.agreeing else
                 " (at every point both sides and all their terms are 0: those points compare 0 "
                 "with 0)") + self.domain_point_line)

    def try_points(self, points, reason: str) -> Verdict | None:
        """REFUTED at the first of the points that separates the sides (re-verified); else each
        admissible point where they agree is counted, and the first that compares non-zero
        values is the confirmation a PROVED needs."""
        for point in points:
            check_budget()
            if not (point_in_ranges(point) and self.domain.admits(point)):
                continue
            if all(v.is_Rational for v in point.values()):
                self.points_at_hand.append(point)
            separation = compare_at(*self.concrete, point)
            if not separation.defined:
                continue
            if separation.differ:
                verdict = self.refuted_at(point, reason)
                if verdict is not None:
                    return verdict
                continue
            self.agreeing += 1
            # one point that compares non-zero values is the confirmation needed; the others
            # are not examined for it
            self.informative = self.informative or self.compares_something(point)
        return None

    # -- the procedure ----------------------------------------------------------------------
    def run(self) -> Verdict | Holds:
        verdict = self.decide()
        if isinstance(verdict, Holds) or verdict.status is not Status.UNDECIDED:
            return verdict
        # an undecided claim: the algebraic kinks left for last, for a re-verified counterexample
        for point in self.deferred:
            check_budget()
            refutation = self.refuted_at(point, "a point on a kink separates the two sides")
            if refutation is not None:
                return refutation
        return verdict

    def decide(self) -> Verdict | Holds:
        # 1. exact constants only, and every symbol's and function's facts honoured (atoms of
        # each side: lhs + rhs could cancel the very terms that hold them)
        found = _nodes_of_kinds((self.lhs, self.rhs), (sp.Float, AppliedUndef))

        def atoms(kind):
            return sorted(found[kind], key=sp.default_sort_key)
        floats = atoms(sp.Float)
        if floats:
            return self.undecided(f"the claim holds the floating-point constant {floats[0]}, an "
                                  "inexact value: write it as an exact fraction")
        for application in atoms(AppliedUndef):
            fact = function_fact(application)
            if fact is not None:
                return self.undecided(f"the function {application.func} carries the fact {fact}, "
                                      "which the checker does not honour")
        for symbol in self.symbols:
            fact = unsupported_fact(symbol)
            if fact is not None:
                return self.undecided(f"the symbol {symbol} carries the fact {fact}, which the "
                                      "checker does not honour")
        if self.empty:
            return self.undecided(self.empty)
        # 2. witness points: random points drawn from the symbols' ranges (integers on their
        # lattice), then the kinks and the edges of the domain (an argument of sign, ReLU, Abs,
        # floor, ... or a radicand at 0 or an integer)
        base = sample_point(self.symbols, self.rng, scale=9)
        randoms = [sample_point(self.symbols, self.rng, scale=9 if trial % 2 else 99)
                   for trial in range(RANDOM_POINTS)]
        self.points_at_hand = []    # rational points of the domain: hints for the split's regions
        self.informative, self.agreeing = 0, 0
        refutation = self.try_points(randoms, "a random point separates the two sides")
        if refutation is not None:
            return refutation
        # 3. the max-plus normal form (convex or concave piecewise-linear sides, as wide as
        # they come): the same set of affine forms on both sides is the same function
        convex = normal_form(self.lhs) if self.use_split else None
        if convex is not None:
            other = normal_form(self.rhs)
            if convex == other and self.informative:
                kind, forms = convex
                return _holds([f"max-plus normal form: both sides are the "
                               f"{'maximum' if kind == 'max' else 'minimum'} of the same "
                               f"{len(forms)} affine form{'s' * (len(forms) != 1)}, at every "
                               "point where they are defined (an exact test)", self.witness_line])
            refutation = self.try_points(separating_points(convex, other, self.symbols),
                                         "a point where the sides' affine forms differ "
                                         "separates the two sides")
            if refutation is not None:
                return refutation
        outside = in_fragment([self.lhs, self.rhs])
        if self.functions:
            outside = "undefined functions are outside real arithmetic"
        density = [s for s in self.symbols if symbol_range(s).needs_density]
        # the kinks of lhs − rhs after cancellation: a term written on both sides makes no claim
        # wide (it would take the claim from the project's rewriting and split)
        kinks = _kink_count(self.lhs - self.rhs)
        wide = (kinks > WIDE_KINKS or not self.use_split) and not outside
        # the canonical difference (a claim with very many kinks goes to Z3 as it stands, and
        # so does every claim when Z3 decides alone) and 4. its exact zero test, before any kink
        # is solved for: where a random point compared non-zero values, an exact zero is the
        # proof and that point its confirmation
        rewritten = self.use_split and not wide
        self.canonical = (canonical_relu_form(to_relu_form(self.lhs)),
                          canonical_relu_form(to_relu_form(self.rhs))) if rewritten else (self.lhs, self.rhs)
        difference = self.canonical[0] - self.canonical[1]
        exactly_zero = rewritten and is_rational_zero(difference)
        if exactly_zero and self.informative and not density:
            return self.exact_zero(outside)
        # the kinks are read from lhs − rhs after cancellation first (a term written on both
        # sides is no kink of the claim, and takes none of the points), then from the sides
        read = [substitute_functions(expr, self.functions) for expr in (difference, self.lhs, self.rhs)]
        points = kink_points(read, self.symbols, base)
        # the centres of quadratic arguments (a ball's ReLU is positive near its centre alone),
        # with the kinks on the lines through each
        centres = critical_points(read, self.symbols, base)
        for centre in centres:
            points += [p for p in [centre, *kink_points(read, self.symbols, centre)]
                       if p not in points]
        # rational kinks cost what a random point costs; those of a quadratic field (√2) come
        # after them; the other algebraic ones (roots of cubics, whose exact arithmetic costs a
        # tenth of a second a point) only where the claim is not decided
        rational = [p for p in points if all(v.is_Rational for v in p.values())]
        algebraic = [p for p in points if p not in rational and field_of(p.values()) is not None]
        self.deferred = [p for p in points if p not in rational and p not in algebraic]
        # and a rational point between neighbouring kinks on each line (a thin slab's middle)
        for line in (base, *centres):
            rational += [p for p in between_kinks(points, line) if p not in rational]
        refutation = self.try_points([*rational, *algebraic], "a point on a kink separates the two sides")
        if refutation is not None:
            return refutation

        discontinuous = self.lhs.has(*DISCONTINUOUS) or self.rhs.has(*DISCONTINUOUS)
        if density and (outside or discontinuous):
            return self.undecided(f"the rational symbol {density[0]} is decided over the reals "
                                  "by density, which needs continuous sides")
        if outside and not self.use_split:
            return self.undecided(f"outside Z3's fragment: {outside}")
        note = ""
        if wide and not self.use_split:
            note = "Z3 alone: the project's rewriting and split are not used"
        elif wide:
            note = f"{kinks} kinks: the project's rewriting and split are skipped beyond {WIDE_KINKS}"
        if exactly_zero:
            return self.exact_zero(outside)
        if outside:
            return self.outside_fragment(difference, outside)
        # 5. independent parts, each decided on its own (Z3 alone asks about the claim as written
        # where sympy's own evaluation leaves no symbol in lhs − rhs)
        if not self.use_split and not difference.free_symbols:
            return self.combine(sp.S.Zero, [_Part(sp.Add(self.lhs, -self.rhs, evaluate=False),
                                                  sp.S.Zero, self.symbols)], whole=True, note=note)
        constant, parts = independent_parts(difference)
        if len(parts) > 1 and self.domain_couples(parts):
            parts = [difference - constant]
        if len(parts) == 1:
            return self.combine(constant, [_Part(parts[0], -constant, self.symbols, split=not note)],
                                whole=True, note=note)
        parts = [self.with_reference(p) for p in parts]
        for part in parts:
            # a wide claim's parts with few kinks each are rewritten and split after all
            part.split = not note or (self.use_split and _kink_count(part.expr) <= SPLIT_KINKS)
            if note and part.split:
                part.expr = canonical_relu_form(to_relu_form(part.expr))
        if note and any(p.split for p in parts):
            note += f"; its parts with at most {SPLIT_KINKS} kinks each are rewritten and split"
        return self.combine(constant, parts, whole=False, note=note)

    def domain_couples(self, parts) -> bool:
        """A denominator of the claim that involves the symbols of two parts: the domain is then
        no product of the parts' domains, and the parts cannot be decided apart."""
        for denominator in self.denominators:
            touched = [p for p in parts if p.free_symbols & denominator.free_symbols]
            if len(touched) > 1:
                return True
        return False

    def with_reference(self, expr) -> _Part:
        symbols = sorted(expr.free_symbols, key=sp.default_sort_key)
        for _ in range(REFERENCE_TRIES):
            point = sample_point(symbols, self.rng)
            value = exact_value(expr, point)
            if value is not None:
                return _Part(expr, value, symbols, point)
        raise _Undecidable(f"no point was found where the part {expr} is defined")

    def exact_zero(self, outside) -> Verdict:
        evidence = ["exact zero test: lhs − rhs in canonical ReLU form is 0 as a rational "
                    "function (ReLU atoms as independent indeterminates)", self.witness_line]
        confirmed = self.informative > 0
        # a solver only where the random points compared nothing (the canonical sides equal the
        # sides wherever these are defined)
        if not confirmed and not outside and self.use_solver:
            opinion = self.solver_opinion(_Part(self.canonical[0], self.canonical[1], self.symbols),
                                          check=self.lhs - self.rhs, target=0)
            if opinion.outcome == "nonzero":
                verdict = self.refuted_at(opinion.point, "a solver found a point where the sides differ")
                return self.undecided(
                    "the exact zero test says the sides are equal but a solver found a point where "
                    f"they differ: {opinion.point}" + (" (re-verified)" if verdict else ""), evidence)
            evidence += opinion.evidence[:1]
            confirmed = opinion.outcome == "zero"
        if not confirmed:
            return self.undecided("the exact test gives zero but no independent confirmation "
                                  "compared anything", evidence)
        self.require_domain_point()
        return _holds(evidence)

    # -- the fragment: parts, split and solver ------------------------------------------------
    def ask_solver(self, module, left, right, symbols, seconds):
        """A solver on left ≠ right, on the ORIGINAL claim's domain: every denominator of lhs
        and rhs that involves these symbols is asserted non-zero and every root's radicand
        non-negative (a reduced part may be defined where the claim is not)."""
        involved = set(symbols)
        denominators = [d for d in self.denominators if d.free_symbols & involved]
        region = [c for c in self.region if getattr(c, "lhs", c).free_symbols & involved]
        return _ask(module, left, right, denominators, region, symbols, self.solver_seconds(seconds))

    def read_answer(self, name, answer, expr, target, symbols) -> _Opinion:
        """A solver's answer as an opinion: unsat is trusted (and named), a model only counts
        once one of its points separates expr from target, exactly (rationally or as
        algebraic numbers), honours every fact and lies in the domain as written."""
        if answer.result == "unsat":
            return _Opinion("zero", evidence=[f"{name} finds the negation unsat (trusted): real "
                                              "and integer arithmetic"])
        if answer.result == "unknown":
            return _Opinion("unknown", evidence=[f"{name} gave no answer: {answer.reason}"],
                            reason=f"{name}: {answer.reason}")
        for point in answer.points:
            if not (point_in_ranges(point) and self.domain.admits(point, partial=True)):
                continue
            if _separates(expr, target, point):
                return _Opinion("nonzero", point, [f"{name} model, re-verified exactly: {point}"])
        return _Opinion("unknown", evidence=[f"{name} gave a model that did not re-verify: ignored"],
                        reason=f"{name} gave a model that did not re-verify", model=True)

    def solver_opinion(self, part: _Part, check=None, target=None, alone: bool = True) -> _Opinion:
        """The solvers on the part (step 7): Z3 first, cvc5 where Z3 does not settle it; and
        where a solver's unsat would stand ``alone`` (the split did not show the part), the
        other solver too: two solvers that disagree give no opinion but both answers."""
        if not self.use_solver:
            return _Opinion("unknown")
        check = part.expr if check is None else check
        target = part.target if target is None else target
        heard = {}
        # in turn, a short slice each first (one solver may answer at once where the other
        # runs out), then the full budget for a solver that ran out
        for seconds in (FIRST_SLICE, SOLVER_SECONDS):
            for name, module in self.solvers:
                if name in heard and not heard[name].timed_out:
                    continue
                check_budget()
                try:
                    answer = self.ask_solver(_solver_module(module), part.expr, part.target,
                                             part.symbols, seconds)
                except OutsideFragment as why:
                    heard[name] = _Opinion("unknown", evidence=[f"{name}: outside its fragment: "
                                                                f"{why}"], reason=str(why))
                    continue
                opinion = self.read_answer(name, answer, check, target, part.symbols)
                opinion.timed_out = answer.result == "unknown" and seconds < SOLVER_SECONDS
                self.solver_answers.append((name, answer.result))
                heard[name] = opinion
                if opinion.outcome == "nonzero" or (opinion.outcome == "zero" and not alone):
                    break
            # a solver settled it (the other, asked as a cross-check, within its slice): done
            if any(o.outcome != "unknown" for o in heard.values()):
                break
        heard = list(heard.items())
        zeros = [(n, o) for n, o in heard if o.outcome == "zero"]
        against = [(n, o) for n, o in heard if o.outcome == "nonzero" or o.model]
        if zeros and against:
            raise _Undecidable("the solvers disagree: " + "; ".join(
                f"{n} says {part.expr} = {part.target} (unsat)" if o.outcome == "zero" else
                f"{n} gives a model ({o.evidence[0]})" for n, o in heard))
        for outcome in ("nonzero", "zero"):
            chosen = [o for _, o in heard if o.outcome == outcome]
            if chosen:
                evidence = [line for o in chosen for line in o.evidence] + \
                    [line for _, o in heard if o.outcome == "unknown" for line in o.evidence]
                return _Opinion(outcome, chosen[0].point, evidence)
        return _Opinion("unknown", evidence=[line for _, o in heard for line in o.evidence],
                        reason="; ".join(o.reason for _, o in heard if o.reason))

    def split_opinion(self, part: _Part) -> _Opinion:
        """The project's own sign split of part.expr − part.target (step 6): 'zero' when every
        region of the closed partition is certified empty or carries an exact zero; floor,
        ceiling and Mod of integer symbols are first removed class by class (the residue split)."""
        facts, leaves, vacuous = [], 0, 0
        expr = part.expr - part.target
        kinks = len(expr.atoms(ReLU))
        if kinks > SPLIT_KINKS:
            return _Opinion("unknown", reason=f"{kinks} ReLU atoms are too many for the sign "
                                              f"split (at most {SPLIT_KINKS})")
        classes = residue_classes(expr, part.symbols)
        if classes is None:
            return _Opinion("unknown", reason="the residue split cannot remove its floor, "
                                              "ceiling or Mod")
        try:
            for substitution, reduced, symbols, constraints in classes:
                start = [c.xreplace(substitution) for c in self.region
                         if getattr(c, "lhs", c).free_symbols <= set(part.symbols)] + constraints
                if sp.false in start:
                    continue    # a residue class outside the domain as written: nothing to show
                start = [c for c in start if c is not sp.true]
                for region, remainder in sign_branches(
                        reduced, symbols, settled=_settled_branch, region=start, facts=facts,
                        closed=True, max_regions=SPLIT_REGIONS,
                        hints=() if substitution else self.points_at_hand):
                    leaves += 1
                    settled = self.leaf_settled(region, remainder, symbols, substitution)
                    vacuous += settled == "vacuous"
                    if not settled:
                        if substitution:
                            return _Opinion("unknown", reason=f"in a residue class ({substitution}) "
                                            f"the difference reduces to {remainder}")
                        return self.leaf_opinion(part, region, remainder)
        except SplitTooLarge as why:
            return _Opinion("unknown", reason=str(why))
        dropped = [f for f in facts if f.empty is True]
        trusted = sum("trusted" in f.how for f in dropped)
        residues = f"{len(classes)} residue classes, " if len(classes) > 1 or classes[0][0] else ""
        return _Opinion("zero", evidence=[
            f"sign split shows an exact zero (closed partition, kinks included): {residues}"
            f"{leaves} regions, {len(dropped)} shown empty ({len(dropped) - trusted} by a checked "
            f"certificate, {trusted} by Z3's unsat)" +
            (f", {vacuous} where a denominator as written is 0 throughout" if vacuous else "")])

    def leaf_settled(self, region, remainder, symbols, substitution=None) -> str:
        """Why a leaf of the split needs nothing more ("" where it does): its remainder is an
        exact zero or undefined on the whole region ("zero"), or a denominator as written
        vanishes on the whole region ("vacuous"), or its one square root reduces to zero there
        ("radical"); a symbol the region pins to one value (n ≥ 0 and −n ≥ 0) is substituted
        first (after the residue class's n = L·k + r)."""
        pinned = pinned_values(region, symbols)
        remainder = remainder.xreplace(pinned)
        on_region = {s: v.xreplace(pinned) for s, v in (substitution or {}).items()} | pinned
        if _vacuous_or_zero(remainder):
            return "zero"
        if self.domain.vacuous_on(region, on_region):
            return "vacuous"
        return "radical" if radical_zero(remainder, region, symbols) else ""

    def leaf_opinion(self, part: _Part, region, remainder) -> _Opinion:
        """A leaf with a non-zero remainder: 'nonzero' if a point of the region's interior
        (checked exactly) separates the part from its target, else no opinion."""
        interior = [c.lhs if isinstance(c, sp.GreaterThan) else c for c in region]
        point = examine(interior, part.symbols).point
        if point is not None and not any(symbol_range(s).integral for s in part.symbols) and \
                self.domain.admits(point, partial=True):
            value = exact_value(part.expr, point)
            if value is not None and value != part.target:
                return _Opinion("nonzero", point, [f"sign split: a region's interior point "
                                                   f"separates, checked exactly: {point}"])
        return _Opinion("unknown", reason=f"on the region {describe(region)} the difference "
                                          f"reduces to {remainder}")

    def decide_part(self, part: _Part, split: bool = True) -> _Opinion:
        """The part's opinion: the project's split first (an exact test), the solvers only where
        the split does not settle the part or nothing else confirms it; random points of the part
        as a last resort for a refutation."""
        tried = split and self.use_split
        skipped = "the sign split is skipped (too many kinks)" if self.use_split else ""
        project = self.split_opinion(part) if tried else _Opinion("unknown", reason=skipped)
        if project.outcome == "nonzero" or (project.outcome == "zero" and self.informative > 0):
            return project    # a re-verified point, or an exact zero that a comparison confirms
        solver = self.solver_opinion(part, alone=project.outcome != "zero")
        opinion = _combined(part, project, solver, split_used=self.use_split)
        if opinion.outcome != "unknown":
            return opinion
        point = self.point_where_nonzero(part)
        if point is not None:
            return _Opinion("nonzero", point, opinion.evidence)
        return opinion

    def point_where_nonzero(self, part: _Part):
        """Random points of the part's ranges where it differs from its target."""
        for _ in range(REFERENCE_TRIES):
            check_budget()
            point = sample_point(part.symbols, self.rng, scale=self.rng.choice((3, 9, 99)))
            value = exact_value(part.expr, point)
            if value is not None and value != part.target and \
                    self.domain.admits(point, partial=True):
                return point
        return None

    def combine(self, constant, parts: list[_Part], whole: bool, note: str = "") -> Verdict:
        opinions = [self.decide_part(p, split=p.split) for p in parts]
        if whole:
            evidence = list(opinions[0].evidence)
        else:
            # one line per kind of evidence, with the number of parts it covers
            kinds = Counter(line.split(":")[0] for o in opinions for line in o.evidence)
            evidence = [f"{count} of {len(parts)} parts: {kind}" for kind, count in kinds.items()]
        evidence += [note] if note else []
        for part, opinion in zip(parts, opinions):
            if opinion.outcome != "nonzero":
                continue
            # fix every other part at its reference point: D then differs between the two points
            rest = {s: v for other in parts if other is not part for s, v in other.reference.items()}
            for point in (rest | opinion.point, rest | part.reference):
                if not point or point == rest:
                    continue
                verdict = self.refuted_at(point, f"{part.expr} is not constant"
                                          if not whole else "lhs − rhs is not zero here")
                if verdict is not None:
                    return Verdict(Status.REFUTED, self.claim, witness=verdict.witness,
                                   reason=verdict.reason,
                                   evidence=verdict.evidence + tuple(evidence))
            return self.undecided("a counterexample of a part did not re-verify on the original "
                                  "expressions", evidence)
        unknown = [o for o in opinions if o.outcome != "zero"]
        if unknown:
            return self.undecided(unknown[0].reason or "undecided", evidence)
        total = constant + sum(p.target for p in parts) if not whole else sp.S.Zero
        if total != 0:
            reference = {s: v for p in parts for s, v in p.reference.items()}
            verdict = self.refuted_at(reference, f"the parts are constant but their constants "
                                                 f"add up to {total}, not 0")
            if verdict is not None:
                return verdict
            return self.undecided(f"the parts' constants add up to {total} but the reference "
                                  "point did not re-verify", evidence)
        # an independent confirmation: Z3 beside the project's split on every part, or random
        # points that compared non-zero values; where Z3's unsat stands on every part, random
        # points of the domain that evaluated both sides equal (0 with 0) are accepted beside it
        both = all(o.solver_agrees and not o.trusted_solver for o in opinions)
        solver_everywhere = all(o.solver_agrees for o in opinions)
        if not (self.informative or self.agreeing):
            self.require_domain_point()    # no random point fell inside the domain
        if not (both or self.informative > 0 or (solver_everywhere and self.agreeing > 0)):
            return self.undecided("the exact test says the claim holds, but no independent "
                                  "confirmation compared anything (no solver answered on a part "
                                  "and no random point compared non-zero values)", evidence)
        self.require_domain_point()
        if not whole:
            evidence.insert(0, f"{len(parts)} independent parts (disjoint symbols), each shown "
                               "constant; the constants add up to 0")
        evidence.append(self.witness_line)
        alone = [o for o in opinions if o.trusted_solver]
        names = [name for name, _ in SOLVERS if any(line.startswith(f"{name} finds")
                                                    for o in alone for line in o.evidence)]
        words = " and ".join(f"{name}'s" for name in names) or "a solver's"
        reason = (f"on {words} word alone for {len(alone)} of {len(parts)} part(s): the "
                  "project's own procedure did not show it") if alone else ""
        return _holds(evidence, reason=reason)

    # -- outside the fragment: exact test and split only -------------------------------------
    def outside_fragment(self, difference, why) -> Verdict:
        facts, failing, leaves = [], [], 0
        try:
            for region, remainder in sign_branches(difference, self.symbols,
                                                   settled=_settled_branch, region=list(self.region),
                                                   facts=facts, closed=True,
                                                   max_regions=SPLIT_REGIONS):
                leaves += 1
                if not self.leaf_settled(region, remainder, self.symbols):
                    failing.append(region)
        except SplitTooLarge as why:
            return self.undecided(str(why))
        unknown = [f for f in facts if f.empty is None]
        if not failing:
            if unknown:
                return self.undecided(f"a region could not be settled ({unknown[0].how})")
            if self.informative == 0:
                return self.undecided("the split gives zero but no independent witness compared "
                                      "anything")
            return _holds((
                f"exact zero test on every region of the sign split ({leaves} regions; outside "
                f"the solvers' fragment: {why})", self.witness_line))
        for region in failing:
            fact = examine(region, self.symbols)
            if fact.point is None:
                continue
            verdict = self.refuted_at(fact.point, f"on the region {describe(region)} lhs − rhs "
                                                  "is not zero")
            if verdict is not None:
                return verdict
            for _ in range(REFERENCE_TRIES * 10):
                point = sample_point(self.symbols, self.rng, scale=self.rng.choice((3, 9, 99)))
                if inside(region, self.symbols, point):
                    verdict = self.refuted_at(point, f"on the region {describe(region)} lhs − rhs "
                                                     "is not zero")
                    if verdict is not None:
                        return verdict
        return self.undecided(f"lhs − rhs was not shown to be zero on the region "
                              f"{describe(failing[0])}, and no point separating the sides was "
                              "found")


def _combined(part: _Part, project: _Opinion, solver: _Opinion, split_used: bool) -> _Opinion:
    """The split's and Z3's opinions of one part as one: a re-verified point of either refutes,
    an exact zero of either proves (Z3's alone marked as such), and a contradiction between them
    is no verdict at all."""
    evidence = project.evidence + solver.evidence
    if project.outcome == "nonzero" and solver.outcome == "zero":
        raise _Undecidable(f"a solver says {part.expr} = {part.target} ({solver.evidence[0]}) but "
                           f"the sign split found a point where it fails, checked exactly: "
                           f"{project.point}")
    for opinion in (solver, project):
        if opinion.outcome == "nonzero":
            return _Opinion("nonzero", opinion.point, evidence)
    if project.outcome == "zero":
        return _Opinion("zero", evidence=evidence, solver_agrees=solver.outcome == "zero")
    if solver.outcome == "zero":
        if split_used:
            evidence = evidence + [f"the sign split did not show it: {project.reason}"]
        return _Opinion("zero", evidence=evidence, trusted_solver=True, solver_agrees=True)
    return _Opinion("unknown", evidence=evidence,
                    reason="; ".join(r for r in (project.reason, solver.reason) if r))


def _separates(expr: sp.Expr, target: sp.Expr, point: dict) -> bool:
    """expr differs from target at point, decided exactly: in rationals, or in algebraic numbers
    (by the minimal polynomial of the difference) at an algebraic point."""
    value = exact_value(expr, point)
    if value is not None:
        return value != target
    if all(v.is_Rational for v in point.values()):
        return False
    value = algebraic_value(expr - target, point)
    return value is not None and exactly_zero(value) is False


def _settled_branch(expr: sp.Expr) -> bool:
    """The split's early stop: a branch whose expression is an exact zero is split no further.
    While a Piecewise is left in it, flint's reading alone (sympy's expansion would expand every
    branch of it, milliseconds a call, and the Piecewise is split away anyway); it is only an
    early stop: the leaves get the full exact zero test."""
    if expr.has(sp.Piecewise):
        return fraction_reading(expr) is True
    return is_rational_zero(expr)


def _vacuous_or_zero(remainder: sp.Expr) -> bool:
    """The leaf asserts nothing (a denominator vanishes on the whole region, or a Piecewise
    branch undefined at every point is taken on all of it) or is an exact 0.  An infinity still
    inside a Piecewise's branch is no such reason: that branch may be taken on part of the
    region only, and the claim asserts something on the rest."""
    if remainder.has(*_INFINITIES) and _infinite_outside_branches(remainder):
        return True
    if is_rational_zero(remainder):
        return True
    if not any(power.exp.is_negative for power in remainder.atoms(sp.Pow)):
        return False    # no division: its denominator is a non-zero constant
    _, denominator = sp.fraction(sp.together(remainder))
    return is_rational_zero(denominator)


def _nodes_of_kinds(exprs, kinds: tuple) -> dict:
    """{kind: the set of nodes of that kind} in the expressions, in one walk of each distinct
    subexpression (``expr.atoms(kind)`` once per kind walks every side again)."""
    found = {kind: set() for kind in kinds}
    seen, stack = set(), list(exprs)
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        for kind in kinds:
            if isinstance(node, kind):
                found[kind].add(node)
        stack.extend(a for a in node.args if isinstance(a, sp.Basic))
    return found


def _kink_count(expr: sp.Expr) -> int:
    """Kinks of the piecewise-linear constructs: one per ReLU or Abs, n − 1 per max/min of n."""
    return sum(len(a.args) - 1 if isinstance(a, (sp.Max, sp.Min)) else 1
               for a in expr.atoms(ReLU, sp.Abs, sp.Max, sp.Min))


# -- what the checker reads: operators, derivatives, undefined branches ---------------------------

# the operators that bind a variable (a sum, product or integral, a limit, an order term, a
# function): a point put into them would reach the bound variable
_BINDING = (ExprWithLimits, sp.Limit, sp.Order, sp.Lambda)
# the functions differentiable wherever they are defined, on an open set
_SMOOTH = (sp.exp, sp.log, sp.sin, sp.cos, sp.sinh, sp.cosh, sp.tanh, sp.atan)
_INFINITIES = (sp.zoo, sp.nan, sp.oo, -sp.oo)
# the functions defined at every real point
_EVERYWHERE = (AppliedUndef, sp.Derivative, sp.Subs, ReLU, sp.Abs, sp.Max, sp.Min, sp.sign,
               sp.Heaviside, sp.floor, sp.ceiling, sp.exp, sp.sin, sp.cos, sp.sinh, sp.cosh, sp.tanh,
               sp.atan)


def _outside_the_checker(sides) -> str | None:
    """Why the claim is outside what the checker can evaluate, or None.  A derivative is read only
    where it is defined exactly where its expression is (``_not_smooth``: no kink, jump or edge of
    the domain, where sympy's formula would give a value the derivative does not have), with
    respect to real symbols; a substitution only of an expression defined everywhere (the domain
    is read from the claim as written, and a restriction on the bound variable would not be)."""
    found = _nodes_of_kinds(sides, _BINDING + (sp.Derivative, sp.Subs))
    binding = sorted(set().union(*(found[kind] for kind in _BINDING)), key=sp.default_sort_key)
    if binding:
        return (f"{type(binding[0]).__name__} over a bound variable ({binding[0]}) is outside the "
                "checker: carry it out or write its terms out")
    for node in sorted(found[sp.Derivative], key=sp.default_sort_key):
        for variable, count in node.variable_count:
            if not (variable.is_Symbol and count.is_Integer) or symbol_range(variable).integral:
                return (f"the derivative {node} is taken with respect to {variable}, {count} "
                        "times: only derivatives in real symbols are read")
        rough = _not_smooth(node.expr, set(node.variables))
        if rough is not None:
            return (f"the derivative {node} is taken of {rough}, which need not be differentiable "
                    "where it is defined (a kink, a jump or the edge of its domain): outside the "
                    "checker")
    for node in sorted(found[sp.Subs], key=sp.default_sort_key):
        restriction = _restriction(node.expr)
        if restriction is not None:
            return (f"the substitution {node} puts a value into {restriction}, which is not "
                    "defined everywhere: outside the checker (carry it out as written)")
    return None


def _not_smooth(expr: sp.Expr, variables: set):
    """The first node of expr that need not be differentiable in ``variables`` wherever it is
    defined, or None: sums, products, integer powers, powers of a positive constant, the smooth
    functions, undefined functions (replaced by polynomials) and their derivatives are, and so
    is a node that holds none of the variables (a constant for the derivative: ReLU(x) in
    d/dy y·ReLU(x)); inside a substitution its own variables count as well (they receive a
    function of the variables)."""
    stack = [(expr, frozenset(variables))]
    while stack:
        node, moving = stack.pop()
        if node.is_Atom:
            if node in _INFINITIES:
                return node
            continue
        if not node.free_symbols & moving:
            continue
        smooth = node.is_Add or node.is_Mul or isinstance(node, sp.Tuple) or \
            (node.is_Pow and (node.exp.is_Integer or (node.base.is_number and node.base.is_positive))) or \
            isinstance(node, (AppliedUndef, sp.Derivative, sp.Subs) + _SMOOTH)
        if not smooth:
            return node
        if isinstance(node, sp.Subs):
            moving = moving | frozenset(node.variables)
        stack.extend((a, moving) for a in node.args if isinstance(a, sp.Basic))
    return None


def _restriction(expr: sp.Expr):
    """The first node of expr that is not defined at every real point, or None: everything but
    sums, products, non-negative integer powers, powers of a positive constant, the functions
    defined everywhere, undefined functions and their derivatives."""
    for node in sp.preorder_traversal(expr):
        if node.is_Atom:
            if node in _INFINITIES:
                return node
            continue
        if node.is_Add or node.is_Mul or isinstance(node, sp.Tuple):
            continue
        if node.is_Pow and ((node.exp.is_Integer and node.exp >= 0) or
                            (node.base.is_number and node.base.is_positive)):
            continue
        if isinstance(node, _EVERYWHERE):
            continue
        return node
    return None


def _infinite_outside_branches(expr: sp.Expr) -> bool:
    """expr holds an infinity or nan other than in a Piecewise's values: a side undefined at every
    point, which is bad input.  In a Piecewise's value it only makes that branch undefined
    (1/Piecewise((0, x > 0), (1, True)) is Piecewise((zoo, x > 0), (1, True)), defined at x ≤ 0)."""
    if expr in _INFINITIES:
        return True
    if isinstance(expr, sp.Piecewise):
        return any(_infinite_outside_branches(pair.cond) for pair in expr.args)
    return any(_infinite_outside_branches(a) for a in expr.args if isinstance(a, sp.Basic))
