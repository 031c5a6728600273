"""Benchmark: the project's check_identity against Z3 and cvc5 called directly, on claims of known truth.

    python benchmarks/check_identity.py [--held-out] [--quick | --per-family N] [--budget SECONDS]

The corpus is ``proofs.corpora.claim_families.claims``: every family of claims known true or false by
construction (cancellation, removable singularities, needles, far regions, non-linear boundaries,
independent kinks, wide max, integer symbols, homogeneity) plus the expression claims of the
soundness corpus; ``--held-out`` takes the held-out seed, ``--quick`` a few claims per family.

  project  check_identity(lhs, rhs, timeout=budget);
  Z3       the plain encoding a user would write (``z3_verdict`` below): ReLU, Max, Min, Abs, sign,
           Heaviside and a Piecewise with an otherwise branch as If (its conditions as Z3's
           relations), floor, ceiling and Mod through ToInt, every denominator asserted non-zero,
           the symbols' assumptions as constraints, integer symbols as Int, and lhs != rhs
           checked with solver.set("timeout", ms).
           unsat is a proof, sat a refutation (Z3's word: its model is not re-checked here),
           unknown undecided; a claim outside its fragment (exp, tanh, sqrt, ...) is undecided.
  cvc5     the same plain encoding in cvc5's own term API (``cvc5_verdict``), logic ALL, with
           tlimit-per set to the budget; its answers are read like Z3's.
A claim that runs out of the budget is counted at the budget.  Each tool's time covers all it does
with the claim as a sympy expression: the project's analysis, and the solvers' encoding of it.  The
three run claim by claim in the same process, in an order rotated from claim to claim (no tool
always runs first, on sympy's cold caches).  The table gives per family the claims each tool
decides, median and 95th-percentile times, the ratio project/Z3 and whether the goal holds there
(median at most Z3's, and every claim a solver decides decided); then every disagreement with the
known truth and the soundness figures.  Outputs of earlier runs,
claim by claim (``--verbose``), are kept in benchmarks/results/.
"""
from __future__ import annotations

import argparse
import math
import os
import platform
import statistics
import sys
import time
from dataclasses import dataclass

import cvc5
import sympy as sp
import z3
from cvc5 import Kind

from proofs.corpora.claim_families import FAMILIES, HELD_OUT_SEED, PROJECT_SEED, SOUNDNESS_CORPUS, claims
from symbolic import ReLU, Status, check_identity

DEFAULT_BUDGET = 10.0
QUICK_PER_FAMILY = 4


# --- Z3 as a user calls it ---------------------------------------------------------------------------

class OutsideFragment(Exception):
    """The expression uses something the plain encoding has no term for."""


def _z3_term(expr: sp.Expr, variables: dict, denominators: list):
    """expr as a Z3 real term; every denominator met is appended to ``denominators``."""
    if expr.is_Symbol:
        return variables[expr]
    if expr.is_Rational:
        return z3.RealVal(f"{expr.p}/{expr.q}")
    if expr is sp.true or expr is sp.false:
        return z3.BoolVal(bool(expr))
    if isinstance(expr, sp.Piecewise):
        # a Piecewise with an otherwise branch, as nested If (one without is undefined somewhere)
        if expr.args[-1].cond is not sp.true:
            raise OutsideFragment("a Piecewise without an otherwise branch")
        result = _z3_term(expr.args[-1].expr, variables, denominators)
        for value, condition in reversed(expr.args[:-1]):
            result = z3.If(_z3_term(condition, variables, denominators),
                           _z3_term(value, variables, denominators), result)
        return result
    args = [_z3_term(a, variables, denominators) for a in expr.args]
    relations = {sp.StrictGreaterThan: lambda a, b: a > b, sp.GreaterThan: lambda a, b: a >= b,
                 sp.StrictLessThan: lambda a, b: a < b, sp.LessThan: lambda a, b: a <= b,
                 sp.Equality: lambda a, b: a == b, sp.Unequality: lambda a, b: a != b}
    if type(expr) in relations:
        return relations[type(expr)](*args)
    if isinstance(expr, (sp.And, sp.Or, sp.Not)):
        return {sp.And: z3.And, sp.Or: z3.Or, sp.Not: z3.Not}[type(expr)](*args)
    if isinstance(expr, sp.sign):
        return z3.If(args[0] > 0, 1, z3.If(args[0] < 0, -1, 0))
    if isinstance(expr, sp.Heaviside):
        at_zero = args[1] if len(args) > 1 else z3.RealVal("1/2")
        return z3.If(args[0] > 0, 1, z3.If(args[0] < 0, 0, at_zero))
    if isinstance(expr, sp.floor):
        return z3.ToReal(z3.ToInt(args[0]))
    if isinstance(expr, sp.ceiling):
        return -z3.ToReal(z3.ToInt(-args[0]))
    if isinstance(expr, sp.Mod):
        denominators.append(args[1])
        return args[0] - args[1] * z3.ToReal(z3.ToInt(args[0] / args[1]))
    if expr.is_Add:
        return z3.Sum(*args)
    if expr.is_Mul:
        return z3.Product(*args)
    if expr.is_Pow and expr.exp.is_Integer:
        power = z3.Product(*[args[0]] * abs(int(expr.exp))) if expr.exp != 0 else z3.RealVal(1)
        if expr.exp > 0:
            return power
        denominators.append(power)
        return 1 / power
    if isinstance(expr, ReLU):
        return z3.If(args[0] > 0, args[0], 0)
    if isinstance(expr, sp.Abs):
        return z3.If(args[0] >= 0, args[0], -args[0])
    if isinstance(expr, (sp.Max, sp.Min)):
        pick = (lambda a, b: a >= b) if isinstance(expr, sp.Max) else (lambda a, b: a <= b)
        result = args[0]
        for other in args[1:]:
            result = z3.If(pick(result, other), result, other)
        return result
    raise OutsideFragment(f"{type(expr).__name__} has no term in real arithmetic")


def _z3_variable(symbol: sp.Symbol):
    """(term, constraints) for a symbol: Int for integers, Real otherwise; signs as constraints."""
    if symbol.is_integer:
        integer = z3.Int(symbol.name)
        term, constraints = z3.ToReal(integer), []
        if symbol.is_even:
            constraints.append(integer % 2 == 0)
        if symbol.is_odd:
            constraints.append(integer % 2 == 1)
    elif symbol.is_rational or symbol.is_irrational or symbol.is_algebraic or symbol.is_transcendental:
        raise OutsideFragment(f"{symbol} carries an assumption real arithmetic cannot state")
    else:
        term, constraints = z3.Real(symbol.name), []
    if symbol.is_positive:
        constraints.append(term > 0)
    elif symbol.is_nonnegative:
        constraints.append(term >= 0)
    if symbol.is_negative:
        constraints.append(term < 0)
    elif symbol.is_nonpositive:
        constraints.append(term <= 0)
    if symbol.is_zero is False and symbol.is_positive is not True and symbol.is_negative is not True:
        constraints.append(term != 0)
    return term, constraints


def z3_verdict(lhs: sp.Expr, rhs: sp.Expr, budget: float) -> tuple[Status, str]:
    """(status, Z3's own answer) for lhs = rhs wherever both sides are defined."""
    symbols = sorted(lhs.free_symbols | rhs.free_symbols, key=sp.default_sort_key)
    solver = z3.Solver()
    solver.set("timeout", max(1, int(budget * 1000)))
    try:
        variables = {}
        for symbol in symbols:
            variables[symbol], constraints = _z3_variable(symbol)
            solver.add(*constraints)
        denominators = []
        difference = _z3_term(lhs, variables, denominators) - _z3_term(rhs, variables, denominators)
    except OutsideFragment as why:
        return Status.UNDECIDED, f"outside the fragment: {why}"
    solver.add(*[d != 0 for d in denominators])
    solver.add(difference != 0)
    answer = solver.check()
    if answer == z3.unsat:
        return Status.PROVED, "unsat"
    if answer == z3.sat:
        return Status.REFUTED, "sat"
    return Status.UNDECIDED, f"unknown ({solver.reason_unknown()})"


# --- cvc5 as a user calls it -------------------------------------------------------------------------

def _cvc5_term(solver, expr: sp.Expr, variables: dict, denominators: list):
    """expr as a cvc5 real term; every denominator met is appended to ``denominators``."""
    if expr.is_Symbol:
        return variables[expr]
    if expr.is_Rational:
        return solver.mkReal(int(expr.p), int(expr.q))
    if expr is sp.true or expr is sp.false:
        return solver.mkBoolean(bool(expr))
    if isinstance(expr, sp.Piecewise):
        # a Piecewise with an otherwise branch, as nested ITE (one without is undefined somewhere)
        if expr.args[-1].cond is not sp.true:
            raise OutsideFragment("a Piecewise without an otherwise branch")
        result = _cvc5_term(solver, expr.args[-1].expr, variables, denominators)
        for value, condition in reversed(expr.args[:-1]):
            result = solver.mkTerm(Kind.ITE, _cvc5_term(solver, condition, variables, denominators),
                                   _cvc5_term(solver, value, variables, denominators), result)
        return result
    args = [_cvc5_term(solver, a, variables, denominators) for a in expr.args]
    zero = solver.mkReal(0)
    relations = {sp.StrictGreaterThan: Kind.GT, sp.GreaterThan: Kind.GEQ, sp.StrictLessThan: Kind.LT,
                 sp.LessThan: Kind.LEQ, sp.Equality: Kind.EQUAL, sp.Unequality: Kind.DISTINCT,
                 sp.And: Kind.AND, sp.Or: Kind.OR, sp.Not: Kind.NOT}
    if type(expr) in relations:
        return solver.mkTerm(relations[type(expr)], *args)
    if isinstance(expr, (sp.sign, sp.Heaviside)):
        one, minus = solver.mkReal(1), solver.mkReal(-1) if isinstance(expr, sp.sign) else zero
        at_zero = zero if isinstance(expr, sp.sign) else args[1] if len(args) > 1 else solver.mkReal(1, 2)
        return solver.mkTerm(Kind.ITE, solver.mkTerm(Kind.GT, args[0], zero), one, solver.mkTerm(
            Kind.ITE, solver.mkTerm(Kind.LT, args[0], zero), minus, at_zero))
    if isinstance(expr, sp.floor):
        return solver.mkTerm(Kind.TO_REAL, solver.mkTerm(Kind.TO_INTEGER, args[0]))
    if isinstance(expr, sp.ceiling):
        return solver.mkTerm(Kind.NEG, solver.mkTerm(Kind.TO_REAL, solver.mkTerm(
            Kind.TO_INTEGER, solver.mkTerm(Kind.NEG, args[0]))))
    if isinstance(expr, sp.Mod):
        denominators.append(args[1])
        quotient = solver.mkTerm(Kind.TO_REAL, solver.mkTerm(Kind.TO_INTEGER, solver.mkTerm(
            Kind.DIVISION, args[0], args[1])))
        return solver.mkTerm(Kind.SUB, args[0], solver.mkTerm(Kind.MULT, args[1], quotient))
    if expr.is_Add:
        return solver.mkTerm(Kind.ADD, *args) if len(args) > 1 else args[0]
    if expr.is_Mul:
        return solver.mkTerm(Kind.MULT, *args) if len(args) > 1 else args[0]
    if expr.is_Pow and expr.exp.is_Integer:
        k = abs(int(expr.exp))
        power = args[0] if k == 1 else solver.mkTerm(Kind.MULT, *[args[0]] * k) if k else solver.mkReal(1)
        if expr.exp > 0:
            return power
        denominators.append(power)
        return solver.mkTerm(Kind.DIVISION, solver.mkReal(1), power)
    if isinstance(expr, ReLU):
        return solver.mkTerm(Kind.ITE, solver.mkTerm(Kind.GT, args[0], zero), args[0], zero)
    if isinstance(expr, sp.Abs):
        return solver.mkTerm(Kind.ITE, solver.mkTerm(Kind.GEQ, args[0], zero), args[0],
                             solver.mkTerm(Kind.NEG, args[0]))
    if isinstance(expr, (sp.Max, sp.Min)):
        pick = Kind.GEQ if isinstance(expr, sp.Max) else Kind.LEQ
        result = args[0]
        for other in args[1:]:
            result = solver.mkTerm(Kind.ITE, solver.mkTerm(pick, result, other), result, other)
        return result
    raise OutsideFragment(f"{type(expr).__name__} has no term in real arithmetic")


def cvc5_verdict(lhs: sp.Expr, rhs: sp.Expr, budget: float) -> tuple[Status, str]:
    """(status, cvc5's own answer) for lhs = rhs wherever both sides are defined."""
    symbols = sorted(lhs.free_symbols | rhs.free_symbols, key=sp.default_sort_key)
    solver = cvc5.Solver()
    solver.setOption("tlimit-per", str(max(1, int(budget * 1000))))
    solver.setLogic("ALL")
    zero = solver.mkReal(0)
    try:
        variables = {}
        for symbol in symbols:
            if symbol.is_rational and not symbol.is_integer:
                raise OutsideFragment(f"{symbol} carries an assumption real arithmetic cannot state")
            if symbol.is_integer:
                integer = solver.mkConst(solver.getIntegerSort(), symbol.name)
                term = solver.mkTerm(Kind.TO_REAL, integer)
                for parity, fact in ((0, symbol.is_even), (1, symbol.is_odd)):
                    if fact:
                        solver.assertFormula(solver.mkTerm(Kind.EQUAL, solver.mkTerm(
                            Kind.INTS_MODULUS, integer, solver.mkInteger(2)), solver.mkInteger(parity)))
            else:
                term = solver.mkConst(solver.getRealSort(), symbol.name)
            for fact, kind in ((symbol.is_positive, Kind.GT), (symbol.is_negative, Kind.LT),
                               (symbol.is_nonnegative and not symbol.is_positive, Kind.GEQ),
                               (symbol.is_nonpositive and not symbol.is_negative, Kind.LEQ)):
                if fact:
                    solver.assertFormula(solver.mkTerm(kind, term, zero))
            if symbol.is_zero is False and symbol.is_positive is not True and symbol.is_negative is not True:
                solver.assertFormula(solver.mkTerm(Kind.DISTINCT, term, zero))
            variables[symbol] = term
        denominators = []
        left = _cvc5_term(solver, lhs, variables, denominators)
        right = _cvc5_term(solver, rhs, variables, denominators)
    except OutsideFragment as why:
        return Status.UNDECIDED, f"outside the fragment: {why}"
    for d in denominators:
        solver.assertFormula(solver.mkTerm(Kind.DISTINCT, d, zero))
    solver.assertFormula(solver.mkTerm(Kind.DISTINCT, left, right))
    answer = solver.checkSat()
    if answer.isUnsat():
        return Status.PROVED, "unsat"
    if answer.isSat():
        return Status.REFUTED, "sat"
    return Status.UNDECIDED, f"unknown ({answer.getUnknownExplanation()})"


# --- the side-by-side run ----------------------------------------------------------------------------

@dataclass
class Row:
    """One claim: each tool's status, its wall time and why."""

    claim: object
    project: Status
    project_seconds: float
    project_note: str
    z3: Status
    z3_seconds: float
    z3_note: str
    cvc5: Status
    cvc5_seconds: float
    cvc5_note: str


def run_project(claim, budget: float) -> tuple[Status, float, str]:
    start = time.perf_counter()
    try:
        verdict = check_identity(claim.lhs, claim.rhs, timeout=budget, claim=claim.name)
        status, note = verdict.status, verdict.reason
    except Exception as error:          # a crash is an undecided claim, and is reported as one
        status, note = Status.UNDECIDED, f"crashed: {type(error).__name__}: {error}"
    return status, time.perf_counter() - start, note


def run_z3(claim, budget: float) -> tuple[Status, float, str]:
    start = time.perf_counter()
    status, note = z3_verdict(claim.lhs, claim.rhs, budget)
    return status, time.perf_counter() - start, note


def run_cvc5(claim, budget: float) -> tuple[Status, float, str]:
    start = time.perf_counter()
    status, note = cvc5_verdict(claim.lhs, claim.rhs, budget)
    return status, time.perf_counter() - start, note


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


def decided(status: Status) -> bool:
    return status is not Status.UNDECIDED


def wrong(status: Status, true: bool) -> bool:
    return status is (Status.REFUTED if true else Status.PROVED)


def table(rows: list[Row], budget: float) -> list[str]:
    """Per family: counts decided, medians and 95th percentiles, and the project's median over the
    better solver's; times count at most the budget."""
    header = ("family", "claims", "proj dec", "Z3 dec", "cvc5 dec", "either", "proj med", "proj p95",
              "Z3 med", "cvc5 med", "Z3 p95", "cvc5 p95", "proj/Z3 med", "goal")
    widths = (22, 6, 8, 6, 8, 6, 8, 8, 8, 8, 8, 8, 11, 4)
    line = lambda cells: "  ".join(f"{c:<{w}}" if i == 0 else f"{c:>{w}}"  # noqa: E731
                                   for i, (c, w) in enumerate(zip(cells, widths)))
    lines = [line(header)]
    groups = {}
    for row in rows:
        groups.setdefault(row.claim.family, []).append(row)
    for family, members in list(groups.items()) + [("all", rows)]:
        ours = [min(r.project_seconds, budget) for r in members]
        z3s = [min(r.z3_seconds, budget) for r in members]
        cvc5s = [min(r.cvc5_seconds, budget) for r in members]
        lines.append(line((
            family, len(members), sum(decided(r.project) for r in members),
            sum(decided(r.z3) for r in members), sum(decided(r.cvc5) for r in members),
            sum(decided(r.z3) or decided(r.cvc5) for r in members),
            f"{statistics.median(ours):.3f}", f"{percentile(ours, 0.95):.3f}",
            f"{statistics.median(z3s):.3f}", f"{statistics.median(cvc5s):.3f}",
            f"{percentile(z3s, 0.95):.3f}", f"{percentile(cvc5s, 0.95):.3f}",
            f"{statistics.median(ours) / max(statistics.median(z3s), 1e-9):.2f}x",
            "met" if goal_met(members, budget) else "no")))
    return lines


def goal_met(rows: list[Row], budget: float) -> bool:
    """The project's median at most Z3's, and every claim that either solver decides decided."""
    ours = statistics.median([min(r.project_seconds, budget) for r in rows])
    theirs = statistics.median([min(r.z3_seconds, budget) for r in rows])
    missed = [r for r in rows if (decided(r.z3) or decided(r.cvc5)) and not decided(r.project)]
    return ours <= theirs and not missed


def disagreements(rows: list[Row]) -> list[Row]:
    """Claims the two tools answer differently, or one of them against the known truth."""
    return [r for r in rows
            if r.project is not r.z3 or r.project is not r.cvc5 or wrong(r.project, r.claim.true)
            or wrong(r.z3, r.claim.true) or wrong(r.cvc5, r.claim.true)]


def shortened(text: str, length: int = 200) -> str:
    return text if len(text) <= length else text[:length - 5] + " ..."


def describe(row: Row) -> list[str]:
    truth = "true " if row.claim.true else "false"
    lines = [f"  {truth} project {row.project.name:<9} Z3 {row.z3.name:<9} cvc5 {row.cvc5.name:<9} "
             f"{row.claim.name}: {shortened(f'{row.claim.lhs} = {row.claim.rhs}')}"]
    for tool, note in (("project", row.project_note), ("Z3", row.z3_note), ("cvc5", row.cvc5_note)):
        if note:
            lines.append(f"        {tool}: {shortened(note)}")
    return lines


def soundness(rows: list[Row], budget: float) -> list[str]:
    lines = []
    for tool, status, seconds, others in (("project", "project", "project_seconds", ("z3", "cvc5")),
                                          ("Z3", "z3", "z3_seconds", ("project",)),
                                          ("cvc5", "cvc5", "cvc5_seconds", ("project",))):
        false_proved = sum(not r.claim.true and getattr(r, status) is Status.PROVED for r in rows)
        true_refuted = sum(r.claim.true and getattr(r, status) is Status.REFUTED for r in rows)
        undecided = sum(not decided(getattr(r, status)) for r in rows)
        where_other = [r for r in rows if any(decided(getattr(r, other)) for other in others)]
        undecided_there = sum(not decided(getattr(r, status)) for r in where_other)
        out_of_time = sum(getattr(r, seconds) >= budget for r in rows)
        longest = max(getattr(r, seconds) for r in rows)
        lines.append(f"  {tool:<8} false PROVED {false_proved}, true REFUTED {true_refuted}, "
                     f"UNDECIDED {undecided} of {len(rows)} ({undecided_there} of the {len(where_other)} "
                     f"{'either solver' if tool == 'project' else 'the project'} decides, "
                     f"{100 * undecided_there / max(len(where_other), 1):.1f} %), "
                     f"ran out of the {budget:g} s budget {out_of_time}, longest wall time {longest:.1f} s")
    crashed = sum(r.project_note.startswith("crashed") for r in rows)
    lines.append(f"  project crashes (counted as UNDECIDED): {crashed}")
    return lines


def select(corpus: list, per_family: int | None) -> list:
    """The first per_family claims of each family (all of them for None)."""
    if per_family is None:
        return corpus
    seen: dict[str, int] = {}
    chosen = []
    for claim in corpus:
        seen[claim.family] = seen.get(claim.family, 0) + 1
        if seen[claim.family] <= per_family:
            chosen.append(claim)
    return chosen


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--held-out", action="store_true", help=f"the held-out corpus (seed {HELD_OUT_SEED})")
    parser.add_argument("--quick", action="store_true", help=f"{QUICK_PER_FAMILY} claims per family")
    parser.add_argument("--per-family", type=int, default=None, metavar="N",
                        help="the first N claims of each family")
    parser.add_argument("--budget", type=float, default=DEFAULT_BUDGET, help="seconds per claim and tool")
    parser.add_argument("--verbose", action="store_true", help="a line per claim as it is run")
    args = parser.parse_args(argv)
    if not 0 < args.budget < 1e6:
        parser.error("--budget must be a positive number of seconds below 1e6")
    seed = HELD_OUT_SEED if args.held_out else PROJECT_SEED
    corpus = select(claims(seed), QUICK_PER_FAMILY if args.quick else args.per_family)
    print(f"machine: {os.cpu_count()} cores (load average {os.getloadavg()[0]:.1f} at the start), "
          f"Python {platform.python_version()}, sympy {sp.__version__}, z3 {z3.get_version_string()}, "
          f"cvc5 {cvc5.__version__}, {platform.processor() or platform.machine()}")
    print(f"corpus: seed {seed} ({'held-out' if args.held_out else 'project'}), {len(corpus)} claims "
          f"({sum(c.true for c in corpus)} true, {sum(not c.true for c in corpus)} false), "
          f"families {', '.join(list(FAMILIES) + [SOUNDNESS_CORPUS])}")
    print(f"budget {args.budget:g} s per claim and tool (a claim that runs out counts at the budget); "
          "times in seconds\n")
    rows = []
    tools = (run_project, run_z3, run_cvc5)
    for number, claim in enumerate(corpus):
        # the tools in an order rotated from claim to claim: none always meets sympy's cold caches
        order = [tools[(number + k) % len(tools)] for k in range(len(tools))]
        answers = {tool: tool(claim, args.budget) for tool in order}
        row = Row(claim, *(field for tool in tools for field in answers[tool]))
        rows.append(row)
        if args.verbose:
            print(f"  {row.project.name:<9} {row.project_seconds:7.3f}  {row.z3.name:<9} {row.z3_seconds:7.3f}  "
                  f"{row.cvc5.name:<9} {row.cvc5_seconds:7.3f}  {'true ' if claim.true else 'false'} {claim.name}",
                  flush=True)
    print("\n".join(table(rows, args.budget)))
    differing = disagreements(rows)
    print(f"\ndisagreements (the tools answer differently, or one contradicts the known truth): "
          f"{len(differing)}")
    for row in differing:
        print("\n".join(describe(row)))
    print("\nsoundness:")
    print("\n".join(soundness(rows, args.budget)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
