"""The oracle 'interval enclosure': a bound on the maximum of a function over a ball or a box.

The statement is ``Fact("maximum over a region", (f, variables, region, relation, bound))``: the
maximum of the sympy expression ``f`` of ``variables`` over the closed ``region`` (a term made by
``region_term``) stands in ``relation`` (>=, >, <=, <) to the exact number ``bound``.  The oracle
runs the enclosure of ``symbolic.numerics.enclosure`` itself on that statement:

* a lower bound (>=, >) holds by an exact rational point of the region, its membership tested
  exactly and f evaluated there exactly by sympy on the statement's expression;
* an upper bound (<=, <) holds by arb's outward-rounded enclosure over sub-boxes that cover the
  region, at two working precisions (``precision`` and 200 bits), both below the bound;
* the opposite, certified the same way, is a REFUTED answer; anything else UNDECIDED.

Parameters (tolerance, box budget, precision) steer the search, never what the statement says.
"""
from __future__ import annotations

from fractions import Fraction

import sympy as sp

from symbolic.numerics.enclosure import Region, enclose_maximum
from symbolic.logic.statements import Fact
from symbolic.kernel.verdict import Holds, Status, Verdict

PREDICATE = "maximum over a region"
CONFIRMING_PRECISION = 200      # bits of the second enclosure of every upper bound
LOWER, UPPER = (">=", ">"), ("<=", "<")


def _rational(value) -> sp.Rational:
    value = Fraction(value)
    return sp.Rational(value.numerator, value.denominator)


def region_term(region: Region) -> tuple:
    """The region as a term a statement can carry (and print): ("ball", center, radius, scales)
    or ("box", center, half-widths), every number an exact rational."""
    center = tuple(_rational(t) for t in region.center)
    if region.half_widths is not None:
        return ("box", center, tuple(_rational(w) for w in region.half_widths))
    return ("ball", center, _rational(region.radius), tuple(_rational(w) for w in region.scales))


def region_of(term) -> Region:
    """The Region a term of ``region_term`` names (ValueError if it names none)."""
    def fractions(values):
        return tuple(Fraction(int(sp.Rational(v).p), int(sp.Rational(v).q)) for v in values)
    if term[0] == "box" and len(term) == 3:
        return Region.box(fractions(term[1]), fractions(term[2]))
    if term[0] == "ball" and len(term) == 4:
        return Region.ball(fractions(term[1]), fractions([term[2]])[0], scales=fractions(term[3]))
    raise ValueError(f"not a region: {term}")


def maximum_statement(f, variables, region: Region, relation: str, bound):
    """The statement max_{region} f  relation  bound, with the region described for the reader."""
    return Fact(PREDICATE, (sp.sympify(f), tuple(variables), region_term(region), relation, _rational(bound)),
                reading=f"max over the {region.describe()} {relation} {bound}")


def decide_maximum_bound(statement, *, tolerance=Fraction(1, 10 ** 5), max_boxes: int = 20000,
                         precision: int = 64):
    """Oracle 'interval enclosure' (see the module docstring)."""

    def undecided(reason):
        return Verdict(Status.UNDECIDED, statement.text, reason=reason)

    if getattr(statement, "predicate", None) != PREDICATE or len(statement.arguments) != 5:
        return undecided(f"interval enclosure decides '{PREDICATE}' facts")
    f, variables, term, relation, bound = statement.arguments
    if relation not in LOWER + UPPER or not sp.sympify(bound).is_Rational:
        return undecided("a bound is an exact rational, related by >=, >, <= or <")
    bound = Fraction(int(bound.p), int(bound.q))
    try:
        region = region_of(term)
        first = enclose_maximum(f, variables, region, tolerance=tolerance, max_boxes=max_boxes, precision=precision)
    except (ValueError, ArithmeticError) as why:
        return undecided(f"no enclosure: {why}")
    # the lower end: f at an exact point of the region, evaluated again on the statement's expression
    point = first.argmax
    value = sp.sympify(f).xreplace({v: _rational(p) for v, p in zip(variables, point)})
    if not (region.contains(point) and value.is_Rational and Fraction(int(value.p), int(value.q)) == first.lower):
        return undecided(f"the enclosure's point {point} does not re-evaluate to its lower bound")
    lower = first.lower
    shown = f"exact point ({', '.join(map(str, point))}) of the region: f = {lower} (= {float(lower):.8g})"
    reaches = lower >= bound if relation == ">=" else lower > bound
    if relation in LOWER and reaches:
        return Holds((f"{shown} {relation} {bound}", f"{region.describe()}: {first.describe()}"),
                     details={"lower": lower, "upper": first.upper, "argmax": point})
    if relation in UPPER and not (lower <= bound if relation == "<=" else lower < bound):
        return Verdict(Status.REFUTED, statement.text, witness=dict(zip(map(str, variables), point)),
                       reason=f"{shown}, not {relation} {bound}")
    # the upper end, at two precisions, each search refined towards the bound while it may settle it
    def settles(upper):
        return upper <= bound if relation == "<=" else upper < bound
    uppers, descriptions = [], []
    for bits in (precision, CONFIRMING_PRECISION):
        enclosure, search = (first if bits == precision else None), Fraction(tolerance)
        for _ in range(3):
            if enclosure is None:
                try:
                    enclosure = enclose_maximum(f, variables, region, tolerance=search, max_boxes=max_boxes,
                                                precision=bits)
                except (ValueError, ArithmeticError) as why:
                    return undecided(f"no enclosure at {bits} bits: {why}")
            if settles(enclosure.upper) or enclosure.upper < bound or not enclosure.converged:
                break
            search, enclosure = (bound - enclosure.lower) / 2, None     # here lower < bound
        if enclosure is None:
            break
        uppers.append(enclosure.upper)
        descriptions.append(f"{region.describe()}: {enclosure.describe()}")
    details = {"lower": lower, "upper": uppers[0] if uppers else first.upper, "argmax": point,
               "upper at 200 bits": uppers[1] if len(uppers) == 2 else None}
    if relation in UPPER and len(uppers) == 2 and all(settles(u) for u in uppers):
        return Holds((f"certified upper bound {float(uppers[0]):.8g} {relation} {bound}, again at "
                      f"{CONFIRMING_PRECISION} bits: {float(uppers[1]):.8g}", *descriptions,
                      f"lower bound: {shown}"), details=details)
    if relation in LOWER and len(uppers) == 2 and all(u < bound for u in uppers):
        return Verdict(Status.REFUTED, statement.text, reason=f"certified: max <= {float(uppers[0]):.6g} < {bound}",
                       witness={"region": region.describe(), "certified upper bound": uppers[0],
                                f"re-verified at {CONFIRMING_PRECISION} bits": uppers[1]},
                       evidence=tuple(descriptions), details=details)
    return Verdict(Status.UNDECIDED, statement.text, details=details,
                   reason=f"bracket [{float(lower):.6g}, {float(details['upper']):.6g}] does not settle "
                          f"{relation} {bound}")
