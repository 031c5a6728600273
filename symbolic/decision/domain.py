"""The domain of a claim as written: the points where both sides, before any rewriting, are defined.

A point is admissible when, in each side as written, no denominator vanishes (x/x at x = 0),
no even root or other non-integer power is taken of a negative number (√x·√(x³) at x < 0, where
i·i = −1 would pass for a real value), no logarithm is taken of a non-positive number, and no
remainder is taken modulo 0.  The checker rewrites copies of the sides (x/x becomes 1,
ReLU(x)/ReLU(x) becomes 1), and a rewriting may only enlarge the set where an expression is
defined; so the domain is read from the sides as written, never from a rewritten copy:

- a REFUTED witness must be admissible (``WrittenDomain.admits``);
- a region of the sign split on which some denominator as written vanishes identically asserts
  nothing (``WrittenDomain.vacuous_on``, splitting the denominator's own ReLU atoms over the
  region where the region does not state their signs);
- the denominators as written are asserted non-zero wherever Z3 is asked (``denominators``).
"""
from __future__ import annotations

import functools

import mpmath
import sympy as sp

from sympy.core.function import AppliedUndef

from symbolic.decision.regions import examine
from symbolic.decision.witness import WITNESS_DPS, evaluated, exact_value, mp_value, substitute_functions
from symbolic.decision.zero import is_rational_zero
from symbolic.relu import canonical_relu_form, relu_atoms, to_relu_form

# a value closer to 0 than this at WITNESS_DPS digits has no sign the domain test trusts
_SIGN_NOISE = mpmath.mpf(10) ** -(WITNESS_DPS // 2)
_THROUGHOUT_REGIONS = 12    # pieces examined to show a denominator 0 on a whole region
# values that are no real number: a Piecewise branch holding one is undefined wherever it is taken
_INFINITIES = (sp.zoo, sp.nan, sp.oo, -sp.oo)


def _walk_guarded(expr: sp.Expr, guards: tuple = ()):
    """Every sub-expression as written (no node is rebuilt, so none is evaluated) with its
    guards: inside a Piecewise, the k-th value is evaluated only where its branch is taken, the
    k-th condition only where no earlier one holds (each guard a (Piecewise, k, "value" or
    "condition"))."""
    yield expr, guards
    if isinstance(expr, sp.Piecewise):
        for k, (value, condition) in enumerate(expr.args):
            yield from _walk_guarded(condition, guards + ((expr, k, "condition"),))
            yield from _walk_guarded(value, guards + ((expr, k, "value"),))
        return
    for arg in expr.args:
        if isinstance(arg, sp.Basic):    # a derivative's count may be a plain int
            yield from _walk_guarded(arg, guards)


def _unguarded(expr: sp.Expr):
    """The sub-expressions evaluated wherever expr is: none inside a Piecewise's branches."""
    return (node for node, guards in _walk_guarded(expr) if not guards)


def _guard_holds(guard, point: dict) -> bool:
    """At point, is the guarded node evaluated?  Decided by the Piecewise's conditions there; a
    condition that cannot be decided at the point counts as holding (the node is then required
    to be defined, the safe reading)."""
    piecewise, k, role = guard
    for j, (_, condition) in enumerate(piecewise.args[:k + (role == "value")]):
        truth = _truth(condition, point)
        if truth is None:
            return True
        if truth is not (j == k):
            return False
    return True


def _truth(condition, point: dict):
    try:
        value = condition.xreplace(point)
    except (TypeError, ValueError, ZeroDivisionError):
        return None
    return bool(value) if value in (sp.true, sp.false) else None


def denominators(expr: sp.Expr) -> list[sp.Expr]:
    """The bases of the negative powers of expr as written, each of which must be non-zero
    wherever expr is defined (one inside a Piecewise's branch only where that branch is taken:
    it is left to ``WrittenDomain.admits``)."""
    found = []
    for node in _unguarded(expr):
        if isinstance(node, sp.Pow) and _is_negative_number(node.exp) and node.base not in found:
            found.append(node.base)
        if isinstance(node, sp.Mod) and node.args[1] not in found:
            found.append(node.args[1])
    return found


def _is_negative_number(exponent: sp.Expr) -> bool:
    value = evaluated(exponent)
    return bool(value.is_number and value.is_negative)


def _sign(expr: sp.Expr, point: dict, functions: dict | None = None) -> int | None:
    """The sign of expr at point (undefined functions replaced by ``functions``): exactly where
    possible, else at WITNESS_DPS digits when the value is clearly away from 0; None when it is
    undefined or too close to 0 to tell."""
    expr = substitute_functions(expr, functions or {})
    value = exact_value(expr, point)
    if value is not None:
        return 1 if value > 0 else -1 if value < 0 else 0
    value = mp_value(expr, point, WITNESS_DPS)
    if value is None or abs(value) <= _SIGN_NOISE:
        return None
    return 1 if value > 0 else -1


def _power_defined(base: sp.Expr, exponent: sp.Expr, point: dict, functions=None) -> bool:
    """base**exponent is a real number at point: a non-integer power needs base > 0 (or base = 0
    and a positive exponent), a negative integer power needs base ≠ 0."""
    value = evaluated(exponent).xreplace(point)
    if value.is_Integer and value >= 0:
        return True    # a polynomial power is defined wherever its base is
    if not value.is_Rational:
        # an irrational exponent value: a positive base only
        return _sign(base, point, functions) == 1
    base_sign = _sign(base, point, functions)
    if base_sign is None:
        return False
    if value.is_Integer:
        return base_sign != 0
    return base_sign == 1 or (base_sign == 0 and value > 0)


class WrittenDomain:
    """Where both sides of a claim, as written, are defined."""

    def __init__(self, *sides: sp.Expr, functions: dict | None = None):
        self.sides = tuple(sp.sympify(side) for side in sides)
        self.functions = functions or {}    # a concrete function for each undefined one
        self.denominators = []
        for side in self.sides:
            self.denominators += [d for d in denominators(side) if d not in self.denominators]

    def conditions(self) -> list:
        """The domain as constraints of a sign region (``symbolic.decision.regions``), each
        evaluated: b ≥ 0 for a root or other positive non-integer power of b, b > 0 for a
        negative one or a log of b.  Together with the denominators (≠ 0), and a Piecewise's
        conditions, they are the domain as written."""
        found = []
        for side in self.sides:
            for node in _unguarded(side):
                constraint = None
                if isinstance(node, sp.Pow):
                    exponent = evaluated(node.exp)
                    if exponent.is_Rational and not exponent.is_Integer:
                        base = evaluated(node.base)
                        constraint = base if exponent < 0 else sp.GreaterThan(base, 0, evaluate=False)
                elif isinstance(node, sp.log):
                    constraint = evaluated(node.args[0])
                if constraint is not None and constraint not in found:
                    found.append(constraint)
        return found

    def empty_reason(self) -> str | None:
        """Why the domain as written is empty, when a denominator is identically 0 (x − x) or a
        constant radicand or logarithm's argument is negative (log(−1))."""
        for c in self.conditions():
            value = c.lhs if isinstance(c, sp.GreaterThan) else c
            if value.is_Rational and (value < 0 or (value == 0 and not isinstance(c, sp.GreaterThan))):
                return (f"the domain as written is empty: it needs {value} "
                        f"{'>=' if isinstance(c, sp.GreaterThan) else '>'} 0")
        for d in self.denominators:
            value = evaluated(d)
            if value.has(sp.zoo, sp.nan) or (not value.has(AppliedUndef) and is_rational_zero(value)):
                return f"the domain as written is empty: the denominator {d} is 0 at every point"
        return None

    @functools.cached_property
    def restrictions(self) -> list[tuple[sp.Expr, frozenset, tuple]]:
        """The nodes of the sides as written that can be undefined somewhere, each once, with
        its symbols and the places it stands (each a tuple of Piecewise guards, () outside any
        Piecewise): every power except a constant non-negative integer one (x**2 is defined
        wherever x is), every log and every Mod, and an infinity in a Piecewise's value (the
        branch of 1/Piecewise((0, x > 0), (1, True)) taken at x > 0, written zoo).  The other nodes are defined wherever their
        arguments are, so ``admits`` reads these alone, each where one of its places is reached
        (1/x in Piecewise((1/x, x > 0), (0, True)) is no restriction at x = 0)."""
        found = {}
        for side in self.sides:
            for node, guards in _walk_guarded(side):
                if isinstance(node, sp.Pow):
                    exponent = evaluated(node.exp)
                    if exponent.is_Integer and exponent >= 0:
                        continue
                elif not (isinstance(node, (sp.log, sp.Mod)) or node in _INFINITIES):
                    continue
                found.setdefault(node, set()).add(guards)
        return [(node, frozenset(node.free_symbols), tuple(places)) for node, places in found.items()]

    def admits(self, point: dict, partial: bool = False) -> bool:
        """Every side as written is defined at point.  ``partial``: the point gives some symbols
        only (a part of the claim), and only the conditions on those symbols are checked."""
        given = set(point)
        for node, symbols, places in self.restrictions:
            if partial and not symbols <= given:
                continue
            # a node inside a Piecewise's branches is needed where one of its places is reached
            if not any(all(_guard_holds(g, point) for g in guards) for guards in places):
                continue
            if node in _INFINITIES:    # a branch whose value is undefined at every point
                return False
            if isinstance(node, sp.Pow) and \
                    not _power_defined(*node.args, point, self.functions):
                return False
            if isinstance(node, sp.log) and _sign(node.args[0], point, self.functions) != 1:
                return False
            if isinstance(node, sp.Mod) and \
                    _sign(node.args[1], point, self.functions) in (0, None):
                return False
        return True

    def vacuous_on(self, region: list, pinned: dict | None = None) -> bool:
        """Some denominator as written is identically 0 on the region of a sign split: there the
        claim asserts nothing.  The symbols the region pins to one value (``pinned``) are
        substituted, and the denominator's ReLU atoms are replaced by their value on the region
        (s where the region says s ≥ 0 or s > 0, 0 where it says −s > 0)."""
        return any(_vanishes_on(d, region, pinned or {}) for d in self.denominators)


def _vanishes_on(denominator: sp.Expr, region: list, pinned: dict) -> bool:
    positive = {c.lhs if isinstance(c, sp.GreaterThan) else c for c in region}
    written = to_relu_form(evaluated(denominator).xreplace(pinned))
    expr = canonical_relu_form(written)
    while True:
        atoms = relu_atoms(expr)
        if not atoms:
            return is_rational_zero(expr)
        values = {}
        for atom in atoms:
            argument = atom.args[0]
            if argument in positive:
                values[atom] = argument
            elif {sp.expand(-argument), sp.expand(-argument - 1)} & positive:
                values[atom] = sp.S.Zero
        if not values:
            # the atoms as written (the canonical form's ReLU(−s) = −s + ReLU(s) would move the
            # kink to the side where the atom is not 0)
            return _zero_throughout(written, region)
        expr = canonical_relu_form(expr.xreplace(values))


def _zero_throughout(expr: sp.Expr, region: list, budget: list | None = None) -> bool:
    """expr, with ReLU atoms whose sign the region does not state, is 0 at every point of the
    region: split on each atom's argument s into {s > 0} (ReLU(s) = s) and {s ≤ 0} (ReLU(s) = 0),
    a partition with the kink on the side where the atom is 0, each piece dropped only with a
    certificate of emptiness, and an exact 0 left on every piece.  ReLU(a)·ReLU(b) vanishes on
    a + b ≤ 0 this way: a > 0 and b > 0 there is certified empty."""
    budget = [_THROUGHOUT_REGIONS] if budget is None else budget
    atoms = relu_atoms(expr)
    if not atoms:
        return is_rational_zero(expr)
    atom = atoms[0]
    argument = atom.args[0]
    constraints = [c.lhs if isinstance(c, sp.GreaterThan) else c for c in region]
    symbols = sorted(expr.free_symbols.union(*(c.free_symbols for c in constraints)),
                     key=sp.default_sort_key)
    for constraint, value in ((argument, argument),
                              (sp.GreaterThan(sp.expand(-argument), 0, evaluate=False), sp.S.Zero)):
        budget[0] -= 1
        if budget[0] < 0:
            return False
        piece = [*region, constraint]
        if examine(piece, symbols).empty is True:
            continue
        if not _zero_throughout(expr.xreplace({atom: value}), piece, budget):
            return False
    return True
