"""Sign regions: the cells that a sign split on the arguments of ReLU (and, closed, of sign,
Heaviside and the conditions of Piecewise) cuts out.

A region is a list of constraints read as a conjunction (together with the symbols' ranges,
exactly: a non-negative symbol may be 0): an expression c stands for c > 0, and ``sp.GreaterThan(c, 0)`` for c ≥ 0 (the closed
split used over the integers, where the kink points are points of the claim).  Whether a region is empty is never taken on an oracle's word alone:

- *non-empty* needs a point, substituted exactly into every constraint (``inside``);
- *empty* needs a certificate: for linear constraints, Farkas multipliers λ ≥ 0, not all zero,
  with Σ λ_i c_i a constant ≤ 0 (verified by exact arithmetic: at a point of the region the sum
  would be positive); for non-linear constraints, Z3's non-linear real arithmetic answering
  ``unsat``, which is complete for this question and is recorded as trusted.

An oracle that fails, times out or returns a point that does not check leaves the region
*unknown*, and the caller answers UNDECIDED.  ``sign_branches`` walks the split of an expression.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import sympy as sp

from symbolic.decision.assumptions import point_in_ranges, symbol_range
from symbolic.decision.budget import check_budget, remaining
from symbolic.decision.cases import integer_valued, cases, split_atoms
from symbolic.decision.fragment import OutsideFragment
from symbolic.decision.linear import decide_linear
from symbolic.decision.witness import exact_value
from symbolic.relu import canonical_relu_form
from symbolic.errors import CheckerError

# at most this many seconds of Z3 for one region question
REGION_SECONDS = 2.0


class SplitTooLarge(CheckerError):
    """The split would examine more regions than it was allowed."""


@dataclass(frozen=True)
class RegionFact:
    """What is known of one region: empty (with how), non-empty (with a checked point), or neither."""

    empty: bool | None
    how: str
    point: dict | None = None


def sign_branches(expr: sp.Expr, symbols, settled=lambda e: False, region=None, facts=None,
                  closed=False, max_regions=None, hints=()):
    """Yield (region, reduced) for each non-empty-or-unknown region of the sign split of expr's
    innermost constructs (``symbolic.decision.cases``): on {s > 0} ReLU(s) is s, on {s < 0} it
    is 0 (``closed``: {s ≥ 0} and {s < 0}, a partition with no kink left over, and the cases of
    sign, Heaviside and Piecewise, which cover every point too).  A branch whose expression is ``settled``
    is not split further.  Regions shown empty (with a certificate) are dropped; ``facts``, a
    list, receives the RegionFact of every region examined; past ``max_regions`` of them the
    split stops with SplitTooLarge.  ``hints``, points already at hand, are tried inside each
    region before Z3 is asked (``examine``)."""
    check_budget()
    region = [] if region is None else region
    if facts is not None and max_regions is not None and len(facts) >= max_regions:
        raise SplitTooLarge(f"the sign split examined {max_regions} regions")
    atoms = split_atoms(expr, closed)
    if not atoms or settled(expr):
        yield region, expr
        return
    atom = atoms[0]
    for constraints, value in cases(atom, closed):
        branch = region + constraints
        fact = examine(branch, symbols, hints)
        if facts is not None:
            facts.append(fact)
        if fact.empty is True:
            continue
        reduced = canonical_relu_form(expr.xreplace({atom: value}))
        yield from sign_branches(reduced, symbols, settled, branch, facts, closed, max_regions, hints)


def pinned_values(region: list, symbols) -> dict:
    """Symbols the region's closed constraints pin: c ≥ 0 and −c ≥ 0 give c = 0 (each linear
    c read in its primitive form, so 4x − 13 ≥ 0 and 13/4 − x ≥ 0 meet), solved for a symbol:
    a real one with any coefficient, an integer one with coefficient ±1 (so it gets an
    integer-valued expression).  On the region each symbol equals its value, so substituting
    it is an identity there."""
    closed = [_primitive(sp.expand(c.lhs)) for c in region if _is_closed(c) and is_linear(c.lhs)]
    values = {}
    for c in closed:
        if sp.expand(-c) not in closed:
            continue
        c = sp.expand(c.xreplace(values))
        for s in sorted(c.free_symbols & set(symbols), key=sp.default_sort_key):
            coefficient = c.coeff(s)
            if s in values or coefficient == 0 or \
                    (symbol_range(s).integral and coefficient not in (1, -1)):
                continue
            values[s] = sp.expand(-(c - coefficient * s) / coefficient)
            values = {k: sp.expand(v.xreplace({s: values[s]})) for k, v in values.items()}
            break
    return values


def _primitive(c: sp.Expr) -> sp.Expr:
    """A linear c ≥ 0 as an equivalent constraint with coprime integer coefficients; where c is
    an integer at every point of the claim, also rounded: a·x + b ≥ 0 with integer a of gcd g
    is (a/g)·x + ⌊b/g⌋ ≥ 0 over the integers."""
    coefficients = c.as_coefficients_dict()
    numbers = [sp.Rational(v) for v in coefficients.values()]
    scale = sp.Rational(math.lcm(*(v.q for v in numbers)), math.gcd(*(v.p for v in numbers)))
    c = sp.expand(c * scale)
    if integer_valued(c):
        constant = c.as_coefficients_dict().get(sp.S.One, sp.S.Zero)
        g = math.gcd(*(int(v) for k, v in c.as_coefficients_dict().items() if k != sp.S.One))
        if g > 1:
            c = sp.expand((c - constant) / g + sp.floor(sp.Rational(constant, g)))
    return c


def describe(region: list) -> str:
    return " and ".join(f"{c.lhs} >= 0" if _is_closed(c) else f"{c} > 0" for c in region) \
        or "everywhere"


def _is_closed(constraint) -> bool:
    return isinstance(constraint, sp.GreaterThan)


def range_constraints(symbols) -> tuple[list, list]:
    """The symbols' sign facts as (strict, closed) linear constraints c > 0 and c ≥ 0, exactly:
    a non-negative symbol may be 0 (integer points and discontinuous sides make that point
    count); ``nonzero`` is left to Z3, which the translation tells."""
    strict, closed = [], []
    for s in symbols:
        facts = symbol_range(s)
        if facts.zero:
            closed += [s, -s]
        elif facts.lower:
            (strict if facts.lower_strict else closed).append(s)
        elif facts.upper:
            (strict if facts.upper_strict else closed).append(-s)
    return strict, closed


@functools.lru_cache(maxsize=4096)
def sign_polynomial(constraint: sp.Expr) -> sp.Expr:
    """p·q for constraint = p/q: the same sign wherever the constraint is defined."""
    if not _has_denominator(constraint):
        return sp.expand(constraint)     # q = 1: the polynomial itself
    numerator, denominator = sp.fraction(sp.together(constraint))
    return sp.expand(numerator * denominator)


def _has_denominator(expr: sp.Expr) -> bool:
    """A power with a negative exponent anywhere in expr (a division)."""
    return any(power.exp.is_negative for power in expr.atoms(sp.Pow))


def is_linear(constraint: sp.Expr) -> bool:
    """An affine form of the symbols with rational coefficients (read off the expanded terms:
    each a rational multiple of 1 or of one symbol)."""
    terms = sp.expand(constraint).as_coefficients_dict()
    return all(coefficient.is_Rational and (term is sp.S.One or term.is_Symbol)
               for term, coefficient in terms.items())


def inside(region, symbols, point) -> bool:
    """Exact check that every constraint of the region (and every sign fact) is > 0 at point."""
    if not point_in_ranges({s: point[s] for s in symbols if s in point}):
        return False
    for c in region:
        # exact rational arithmetic (None where c is undefined at the point)
        value = exact_value(c.lhs if _is_closed(c) else c, point)
        if value is None:
            return False
        if not (value.is_Rational and (value >= 0 if _is_closed(c) else value > 0)):
            return False
    return True


def _translation(exprs):
    from symbolic.decision.smt import Translation    # Z3, loaded when a region is first asked
    return Translation.for_expressions(exprs)


def solve(translation, goals, symbols, seconds: float):
    """Z3 on the region's constraints (``symbolic.decision.smt.solve``)."""
    from symbolic.decision.smt import solve as z3_solve
    return z3_solve(translation, goals, symbols, seconds)


def _seconds() -> float:
    left = remaining()
    return REGION_SECONDS if left is None else max(min(REGION_SECONDS, left), 0.001)


def examine(region: list, symbols, hints=()) -> RegionFact:
    """Decide whether the region is empty, with a checked point or a certificate: first the
    ``hints`` (points at hand, each checked exactly), then Z3."""
    check_budget()
    # a point at hand inside the region shows it non-empty with no solver asked
    for hint in hints:
        if set(symbols) <= set(hint) and inside(region, symbols, hint):
            return RegionFact(False, "a point at hand inside, checked exactly", dict(hint))
    facts_strict, facts_closed = range_constraints(symbols)
    strict = [sign_polynomial(c) for c in region + facts_strict if not _is_closed(c)]
    closed = [c.lhs for c in region if _is_closed(c)] + facts_closed
    if any(c.is_Number and c <= 0 for c in strict) or any(c.is_Number and c < 0 for c in closed):
        return RegionFact(True, "a constant constraint fails")
    strict = [c for c in strict if not c.is_Number]
    closed = [c for c in closed if not c.is_Number]
    if not strict and not closed:
        return RegionFact(False, "no constraint", {s: symbol_range(s).member() for s in symbols})
    variables = sorted(set().union(*(c.free_symbols for c in strict + closed)),
                       key=sp.default_sort_key)
    # a linear region: the project's own exact elimination, each answer checked, before Z3
    outcome = decide_linear(strict, closed, variables,
                            integral=frozenset(v for v in variables if symbol_range(v).integral))
    if outcome is not None and outcome[0] == "empty" and \
            _certifies(outcome[1], strict, closed):
        return RegionFact(True, "Farkas certificate (Fourier–Motzkin elimination), checked exactly")
    if outcome is not None and outcome[0] == "point":
        full = {s: symbol_range(s).member() for s in symbols} | outcome[1]
        if inside(region, symbols, full):
            return RegionFact(False, "a point inside (Fourier–Motzkin elimination), checked exactly",
                              full)
    try:
        translation = _translation(strict + closed)
        goals = [translation.term(c) > 0 for c in strict] + \
            [translation.term(c) >= 0 for c in closed]
        answer = solve(translation, goals, variables, _seconds())
    except OutsideFragment as why:
        return RegionFact(None, str(why))
    if answer.result == "sat":
        for point in answer.points:
            full = {s: point.get(s, symbol_range(s).member()) for s in symbols} | point
            if inside(region, symbols, full):
                return RegionFact(False, "a point inside, checked exactly", full)
        return RegionFact(None, "Z3 gave a point that is not inside the region")
    if answer.result == "unknown":
        return RegionFact(None, answer.reason)
    if all(is_linear(c) for c in strict + closed):
        # empty over the reals, so over the integers too
        if farkas_multipliers(strict, closed, variables) is not None:
            return RegionFact(True, "Farkas certificate, checked exactly")
        if not any(s.is_integer for s in variables):
            return RegionFact(None, "Z3 says the linear region is empty but no Farkas "
                                    "certificate was found")
    return RegionFact(True, "Z3 (real or integer arithmetic): unsat (trusted)")


def farkas_multipliers(strict: list, closed: list, variables) -> list | None:
    """Multipliers proving {c > 0 for c in strict, c ≥ 0 for c in closed} empty, checked exactly.

    λ ≥ 0 with Σλ = 1 and Σ λ_k c_k a constant K, where K < 0, or K ≤ 0 with some strict
    constraint's λ positive: at a point of the region Σ λ_k c_k would be ≥ 0, and > 0 in the
    second case.  None when Z3 finds no such λ or the λ it finds does not check.
    """
    import z3

    from symbolic.decision.smt import rational
    constraints = strict + closed
    # each constraint as {variable (or 1): coefficient}
    rows = [sp.expand(c).as_coefficients_dict() for c in constraints]
    lambdas = [z3.Real(f"lambda{i}") for i in range(len(constraints))]
    solver = z3.Solver()
    solver.set("timeout", max(1, int(_seconds() * 1000)))
    solver.add(*(l >= 0 for l in lambdas), z3.Sum(lambdas) == 1)
    for variable in variables:
        solver.add(z3.Sum([l * rational(sp.Rational(row.get(variable, 0))) for l, row in zip(lambdas, rows)]) == 0)
    constant = z3.Sum([l * rational(sp.Rational(row.get(sp.S.One, 0))) for l, row in zip(lambdas, rows)])
    strict_weight = z3.Sum(lambdas[:len(strict)]) if strict else z3.RealVal(0)
    solver.add(z3.Or(constant < 0, z3.And(constant <= 0, strict_weight > 0)))
    if solver.check() != z3.sat:
        return None
    model = solver.model()
    values = []
    for l in lambdas:
        v = model.eval(l, model_completion=True)
        values.append(sp.Rational(v.numerator_as_long(), v.denominator_as_long()))
    return values if _certifies(values, strict, closed) else None


def _certifies(values: list, strict: list, closed: list) -> bool:
    """The multipliers are a Farkas certificate of emptiness, checked by exact arithmetic on the
    constraints themselves: λ ≥ 0 and Σ λ_k c_k a constant K < 0, or K ≤ 0 with some strict
    constraint's λ positive."""
    combination = sp.expand(sum(v * c for v, c in zip(values, strict + closed)))
    if not (all(v >= 0 for v in values) and combination.is_Rational):
        return False
    return bool(combination < 0 or (combination <= 0 and any(v > 0 for v in values[:len(strict)])))
