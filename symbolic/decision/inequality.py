"""Deciding lhs R rhs (R one of <, <=, >, >=, !=) for every admissible value of the symbols, where
both sides as written are defined.

1. **Exact points first.**  Small points (each symbol in 0, ±1, ±2, ±1/2, within its range) and
   seeded random rationals: at each point of the domain as written both sides are evaluated
   exactly; a point where the relation fails refutes the claim, with both sides' values.
2. **Two solvers on the failure.**  The failure (lhs > rhs for ≤, …) is asked of Z3, each side read
   only where it is defined (the translation of ``symbolic.decision.solver_oracle``), and of cvc5
   (cylindrical algebraic coverings, complete for non-linear real arithmetic), the domain as
   written asserted: unsat says the relation holds there.  A model is only a hint: it refutes the
   claim only as an exact point re-verified on the sides as written.  The fragment is the solvers'
   (ReLU, max, min, abs, Piecewise, rational powers): ``symbolic.decision.fragment``.
3. **A manifest sign**, for ≤ and ≥ outside the fragment: the difference, rewritten on a copy, is
   built from non-negative pieces (``positivity``), and the domain is the sides'.

The relation holds when one solver's unsat (or the manifest sign) is confirmed independently: by
the other solver's unsat, or by the relation holding exactly at every sampled point of the domain
(at least one).  What is taken on a solver's word is said in the evidence.
"""
from __future__ import annotations

import itertools
import random

import mpmath

import sympy as sp

from symbolic.decision.budget import check_budget, remaining
from symbolic.decision.assumptions import point_in_ranges, sample_point, unsupported_fact_in
from symbolic.decision.domain import WrittenDomain, evaluated
from symbolic.decision.fragment import OutsideFragment, check_term
from symbolic.decision.positivity import is_manifestly_nonnegative
from symbolic.decision.witness import carried_out, exact_value, mp_value
from symbolic.kernel.verdict import Holds, Status, Verdict
from symbolic.logic.statements import Relation

SECONDS = 20.0
MAX_BITS = 100_000          # the largest power (in bits) evaluated exactly at a point
GRACE = 0.5               # seconds a solver's process is given past its own limit before it is stopped
RANDOM_POINTS = 12
GRID = (0, 1, -1, 2, -2, sp.Rational(1, 2), sp.Rational(-1, 2))
GRID_SYMBOLS = 3          # the grid of small numbers is tried on at most this many symbols (7³ points)

# the failure of each relation, and the relation itself, on two exact numbers
FAILURE = {"<": sp.Ge, "<=": sp.Gt, ">": sp.Le, ">=": sp.Lt, "!=": sp.Eq}
HOLDS = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
         ">=": lambda a, b: a >= b, "!=": lambda a, b: a != b}


def _undecided(statement, reason: str) -> Verdict:
    return Verdict(Status.UNDECIDED, statement.text, reason=reason)


def small_points(symbols):
    """The points of small numbers (0, ±1, ±2, ±1/2) within the symbols' ranges, for at most
    GRID_SYMBOLS symbols: where a witness is easiest to read."""
    symbols = sorted(symbols, key=sp.default_sort_key)
    if len(symbols) <= GRID_SYMBOLS:
        for values in itertools.product(GRID, repeat=len(symbols)):
            point = dict(zip(symbols, map(sp.sympify, values)))
            if point_in_ranges(point):
                yield point


def _points(symbols, seed: int):
    """Small points, then seeded random rationals, each within the symbols' ranges."""
    yield from small_points(symbols)
    symbols = sorted(symbols, key=sp.default_sort_key)
    rng = random.Random(seed)
    for scale in (1, 3, 9) * (RANDOM_POINTS // 3):
        yield sample_point(symbols, rng, scale)


def _too_large(expr, point: dict) -> bool:
    """Whether a power of the expression has, at the point, a value of more than MAX_BITS bits:
    2^(2^(20x)) at x = 2 would be computed in one step no budget can stop."""
    for node in sp.preorder_traversal(expr):
        if isinstance(node, sp.Pow) and node.free_symbols:
            base, exponent = (mp_value(part, point, 15) for part in node.args)
            if base is None or exponent is None:
                continue
            if abs(exponent) * mpmath.log(abs(base) + 2, 2) > MAX_BITS:
                return True
    return False


def sides_at(statement, point: dict) -> tuple | None:
    """Both sides' exact values at the point, where both are defined and no larger than the exact
    arithmetic can compute in a moment (None elsewhere)."""
    lhs, rhs = sp.sympify(statement.lhs), sp.sympify(statement.rhs)
    if _too_large(lhs, point) or _too_large(rhs, point) or not WrittenDomain(lhs, rhs).admits(point):
        return None
    left, right = exact_value(lhs, point), exact_value(rhs, point)
    return None if left is None or right is None else (left, right)


def _refutation(statement, point: dict, values: tuple, how: str) -> Verdict:
    return Verdict(Status.REFUTED, statement.text, witness=point,
                   reason=f"{how}: there the left side is {values[0]} and the right side {values[1]}",
                   details={"lhs_value": values[0], "rhs_value": values[1]})


def _cvc5_failure(statement, seconds: float):
    """cvc5 on the failure of the relation, the domain as written asserted: 'unsat', 'sat' with
    points, or 'unknown' with the reason."""
    from cvc5 import Kind
    from symbolic.decision import cvc5_smt
    lhs, rhs = sp.sympify(statement.lhs), sp.sympify(statement.rhs)
    domain = WrittenDomain(lhs, rhs)
    denominators = [carried_out(evaluated(d)) for d in domain.denominators]
    conditions = domain.conditions()
    kind = {"<": Kind.GEQ, "<=": Kind.GT, ">": Kind.LEQ, ">=": Kind.LT, "!=": Kind.EQUAL}[statement.relation]

    def build(encoding):
        goal = encoding.mk(kind, encoding.to_real(encoding.term(lhs)), encoding.to_real(encoding.term(rhs)))
        return [goal, *encoding.domain(denominators, conditions)]
    symbols = sorted(lhs.free_symbols | rhs.free_symbols, key=sp.default_sort_key)
    return cvc5_smt._solve(build, [lhs, rhs, *denominators, *conditions], symbols, seconds)


def _cvc5_within(statement, seconds: float):
    """``_cvc5_failure`` in a child process stopped at its time limit: cvc5's coverings do not
    always keep their own (a degree-36 polynomial ran 10 s past a limit of 0.5 s)."""
    import multiprocessing
    from symbolic.decision import cvc5_smt  # noqa: F401 - imported before the fork: the child imports nothing
    from symbolic.decision.fragment import Answer
    context = multiprocessing.get_context("fork")
    receiving, sending = context.Pipe(duplex=False)

    def child():
        try:
            sending.send(_cvc5_failure(statement, seconds))
        except Exception as error:      # the child's failure is an unknown answer, never a verdict
            sending.send(Answer("unknown", reason=f"cvc5 failed: {type(error).__name__}"))
    process = context.Process(target=child, daemon=True)
    process.start()
    sending.close()
    try:
        if receiving.poll(seconds + GRACE):
            return receiving.recv()
        return Answer("unknown", reason=f"cvc5 ran past its time limit of {seconds:g} s and was stopped")
    except (EOFError, OSError):
        return Answer("unknown", reason="cvc5's process ended without an answer")
    finally:
        if process.is_alive():
            process.kill()
        process.join()
        receiving.close()


def decide_relation(statement, *, seconds: float = SECONDS, seed: int = 0):
    """Holds, or a REFUTED verdict with an exact point, or UNDECIDED with the reason (module
    docstring)."""
    if type(statement) is not Relation:
        return _undecided(statement, "this procedure decides a relation lhs R rhs")
    lhs, rhs = sp.sympify(statement.lhs), sp.sympify(statement.rhs)
    unsupported = unsupported_fact_in(lhs, rhs)
    if unsupported:
        return _undecided(statement, unsupported)
    empty = WrittenDomain(lhs, rhs).empty_reason()
    if empty:
        return _undecided(statement, f"{empty}: the relation says nothing")
    holds = HOLDS[statement.relation]
    # 1. exact points
    compared = 0
    for point in itertools.islice(_points(lhs.free_symbols | rhs.free_symbols, seed), 200):
        check_budget()
        values = sides_at(statement, point)
        if values is None:
            continue
        if not holds(*values):
            return _refutation(statement, point, values, "the relation fails at an exact point")
        compared += 1
    # two exact numbers: the comparison just made is the whole test
    if not (lhs.free_symbols | rhs.free_symbols) and compared:
        return Holds(("both sides are exact numbers, compared exactly",),
                     details={"procedures": ["exact comparison"]})
    # 2. the two solvers on the failure
    failure = FAILURE[statement.relation](lhs, rhs, evaluate=False)
    answers = {}
    try:
        check_term(lhs), check_term(rhs)
        inside = True
    except OutsideFragment as why:
        inside, outside = False, str(why)
    if inside:
        from symbolic.decision.solver_oracle import decide_unsat, unsatisfiable   # Z3, only when it is asked
        # a solver keeps its own time limit (its call cannot be interrupted): each gets a share of
        # what is left of the caller's budget
        left = remaining()
        seconds = seconds if left is None else max(0.05, min(seconds, left / 2))
        z3_answer = decide_unsat(unsatisfiable(failure), seconds=seconds)
        if isinstance(z3_answer, Verdict) and z3_answer.status is Status.REFUTED:
            values = sides_at(statement, z3_answer.witness)
            if values is not None and not holds(*values):
                return _refutation(statement, z3_answer.witness, values, "a point of Z3's model, re-verified exactly")
        answers["Z3"] = "unsat" if isinstance(z3_answer, Holds) else "unknown"
        left = remaining()
        cvc5_answer = _cvc5_within(statement, seconds if left is None else max(0.05, min(seconds, left)))
        for point in cvc5_answer.points if cvc5_answer.result == "sat" else ():
            values = sides_at(statement, point) if point_in_ranges(point) else None
            if values is not None and not holds(*values):
                return _refutation(statement, point, values, "a point of cvc5's model, re-verified exactly")
        answers["cvc5"] = "unsat" if cvc5_answer.result == "unsat" else "unknown"
    # 3. a manifest sign of the difference, for <= and >=
    if statement.relation in ("<=", ">="):
        difference = rhs - lhs if statement.relation == "<=" else lhs - rhs
        if is_manifestly_nonnegative(carried_out(evaluated(difference))):
            answers["manifest sign"] = "unsat"
    proofs = [name for name, answer in answers.items() if answer == "unsat"]
    if proofs and compared == 0:
        # a relation on a domain with no point is vacuous: 0 < p for a p defined nowhere says nothing
        return _undecided(statement, f"{' and '.join(proofs)} found no failure, but no point of the domain as "
                          "written was found where both sides have exact values: the relation may say nothing")
    if not proofs:
        reason = "neither Z3 nor cvc5 settled the failure in time" if inside else f"outside the solvers' fragment ({outside})"
        return _undecided(statement, reason + (f"; the relation holds at the {compared} exact points tried" if compared else ""))
    evidence = [_said(name) for name in proofs]
    if len(proofs) < 2:
        evidence.append(f"holds exactly at {compared} points of the domain (small integers and random rationals)")
    elif compared:
        evidence.append(f"also holds exactly at {compared} points of the domain")
    reason = "" if len(proofs) > 1 else f"on the word of {proofs[0]}, confirmed at exact points"
    return Holds(tuple(evidence), reason=reason, details={"procedures": proofs})


def _said(name: str) -> str:
    if name == "manifest sign":
        return "the difference of the sides, rewritten on a copy, is manifestly non-negative (an exact certificate)"
    return f"{name} answers unsat for the failure of the relation on the domain as written; taken on {name}'s word"

