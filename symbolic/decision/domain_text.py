"""The domain of a claim as written, as a reader reads it: 'x > 0' for ReLU(x)/ReLU(x) = ReLU(x)/x.

A verdict holds where both sides as written are defined (``symbolic.decision.domain``): every
denominator non-zero, every even root's radicand non-negative, every log's argument positive.  A
reader who sees only the claim takes it for every value of the symbols, so a verdict prints the
domain wherever it restricts them.  This module only describes it; nothing here decides a claim:

1. the conditions as written: d ≠ 0 for each denominator d, b ≥ 0 or b > 0 for each root or log;
2. each condition the symbols' facts settle is dropped (a ≠ 0 for a declared positive a), and a
   rectifier is read through its sign: ReLU(s) ≠ 0 and ReLU(s) > 0 are s > 0, ReLU(s) ≥ 0 always
   (|s| ≠ 0 and |s| > 0 are s ≠ 0);
3. when what is left speaks of one symbol in rational functions of degree at most 4, the set it
   describes is computed
   (sympy's univariate inequalities) and printed as an interval ('x > 0', '0 < x < 1'), or, for a
   set that is no interval, as the conditions themselves; otherwise the conditions, joined by 'and'.
"""
from __future__ import annotations

import sympy as sp

from symbolic.decision.domain import WrittenDomain
from symbolic.decision.witness import evaluated
from symbolic.relu import ReLU

_UNITS = 30             # past this many conditions, the domain is named, not listed
MAX_DEGREE = 4          # the largest degree of a condition solved for its interval


# the signs as text and as LaTeX
_SIGNS = {"≠": r"\ne", "≥": r"\ge", "≤": r"\le", ">": ">", "<": "<"}


def _shown(value, latex: bool) -> str:
    return sp.latex(value) if latex else str(value)


def _sign(sign: str, latex: bool) -> str:
    return _SIGNS[sign] if latex else sign


def _condition_text(condition, latex: bool = False) -> str:
    sign = {sp.Ne: "≠", sp.StrictGreaterThan: ">", sp.GreaterThan: "≥"}[type(condition)]
    return f"{_shown(condition.lhs, latex)} {_sign(sign, latex)} {_shown(condition.rhs, latex)}"


def _through_rectifiers(condition):
    """ReLU(s) ≠ 0 and ReLU(s) > 0 read as s > 0 (for real s); ReLU(s) ≥ 0 as true; max(s, 0) alike."""
    if isinstance(condition, (sp.Ne, sp.StrictGreaterThan, sp.GreaterThan)) and condition.rhs == 0:
        side = condition.lhs
        inner = side.args[0] if isinstance(side, ReLU) else None
        if isinstance(side, sp.Max) and len(side.args) == 2 and 0 in side.args:
            inner = next(a for a in side.args if a != 0)
        if inner is not None and inner.is_extended_real:
            if isinstance(condition, sp.GreaterThan):
                return sp.true
            return sp.StrictGreaterThan(inner, 0)
        # |s| ≠ 0 and |s| > 0 read as s ≠ 0; |s| ≥ 0 as true
        if isinstance(side, sp.Abs) and side.args[0].is_extended_real:
            return sp.true if isinstance(condition, sp.GreaterThan) else sp.Ne(side.args[0], 0, evaluate=False)
    return condition


def _settled(condition) -> bool:
    """The symbols' facts make the condition true (sympy's assumptions, no search)."""
    side = condition.lhs
    if isinstance(condition, sp.Ne):
        return side.is_zero is False
    if isinstance(condition, sp.StrictGreaterThan):
        return side.is_positive is True
    return side.is_nonnegative is True


def domain_conditions(*sides) -> list:
    """The conditions of the domain as written that the symbols' facts do not settle, each
    read through its rectifiers: relations ``d ≠ 0``, ``b > 0``, ``b ≥ 0``."""
    domain = WrittenDomain(*sides)
    found = [sp.Ne(evaluated(d), 0, evaluate=False) for d in domain.denominators]
    for c in domain.conditions():
        found.append(sp.GreaterThan(c.lhs, 0, evaluate=False) if isinstance(c, sp.GreaterThan)
                     else sp.StrictGreaterThan(c, 0, evaluate=False))
    kept = []
    for condition in found:
        condition = _through_rectifiers(condition)
        if condition is sp.true or condition in kept or _settled(condition):
            continue
        if condition is sp.false:
            return [sp.false]
        kept.append(condition)
    return kept


def _one_symbol_set(conditions):
    """The set the conditions describe, when they speak of one symbol in rational functions; else None."""
    symbols = set().union(*(c.free_symbols for c in conditions))
    if len(symbols) != 1:
        return None, None
    x = symbols.pop()
    if not all(c.lhs.is_rational_function(x) for c in conditions):
        return None, None
    # past degree 4 the points print as roots of polynomials: the conditions read better as written
    if any(sp.degree(part, x) > MAX_DEGREE for c in conditions for part in sp.fraction(sp.together(c.lhs))):
        return None, None
    try:
        region = sp.Reals
        for condition in conditions:
            region = region.intersect(sp.solve_univariate_inequality(condition, x, relational=False))
    except (NotImplementedError, ValueError, TypeError, sp.PolynomialError):
        return None, None
    return x, region


def _interval_text(x, interval: sp.Interval, latex: bool = False) -> str:
    """'x > 0', 'x ≤ 1', '0 < x < 1' for an interval of the reals."""
    low = None if interval.start == -sp.oo else (interval.start, "≤" if not interval.left_open else "<")
    high = None if interval.end == sp.oo else (interval.end, "≤" if not interval.right_open else "<")
    name = _shown(x, latex)
    if low and high:
        return (f"{_shown(low[0], latex)} {_sign(low[1], latex)} {name} {_sign(high[1], latex)} "
                f"{_shown(high[0], latex)}")
    if low:
        return f"{name} {_sign('≥' if low[1] == '≤' else '>', latex)} {_shown(low[0], latex)}"
    if high:
        return f"{name} {_sign(high[1], latex)} {_shown(high[0], latex)}"
    return ""


def domain_text(*sides, latex: bool = False) -> str:
    """The domain of the sides as written where it restricts their symbols beyond their facts, as
    text ('x > 0', 'x ≠ 0 and y > 0'; with ``latex``, as LaTeX: 'x > 0', 'x \\ne 0 \\wedge y > 0');
    '' where both sides are defined at every admissible point."""
    conjunction = r" \wedge " if latex else " and "
    nowhere = r"\text{nowhere}" if latex else "nowhere"
    try:
        conditions = domain_conditions(*sides)
    except (TypeError, ValueError, AttributeError, RecursionError, sp.PolynomialError):
        return ""
    if not conditions:
        return ""
    if conditions == [sp.false]:
        return nowhere
    x, region = _one_symbol_set(conditions)
    if region is not None:
        if region is sp.S.EmptySet:
            return nowhere
        # an interval, less finitely many points: 'x > 0 and x ≠ 1'
        hull = sp.Interval(region.inf, region.sup, region.inf not in region, region.sup not in region)
        missing = hull - region
        ends = [hull.inf, hull.sup, *getattr(missing, "args", ())]
        readable = all(not end.has(sp.CRootOf) for end in ends)
        if readable and (isinstance(missing, sp.FiniteSet) or missing is sp.S.EmptySet):
            parts = [_interval_text(x, hull, latex)] + [f"{_shown(x, latex)} {_sign('≠', latex)} {_shown(p, latex)}"
                                                        for p in getattr(missing, "args", ())]
            return conjunction.join(part for part in parts if part)
    if len(conditions) > _UNITS:
        text = (f"{len(conditions)} conditions: where no denominator as written is 0, no even root or log is of "
                "a negative number")
        return r"\text{%s}" % text if latex else text
    return conjunction.join(_condition_text(c, latex) for c in conditions)
