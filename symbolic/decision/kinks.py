"""Witness points where counterexamples hide: on the kinks and at the edges of the domain.

A claim about sign, Heaviside, ReLU, Abs, max, min, floor or a Piecewise is often false only where
an argument is exactly 0 (``exp(sign(x)^2) = e`` fails at x = 0 alone), or, for floor, ceiling and
Mod, at an integer value of it; a claim with roots is often defined only where a radicand is 0
(``sqrt(x^2 - 1) + sqrt(1 - x^2)`` at x = ±1).  Random points never land there.  So for each such
argument s and target k (0, and −1, 1, 2 for the integer-valued constructs) one symbol is solved
for from s = k, the others fixed at a base point; the real roots are exact: rationals, or
algebraic numbers (√2), which the caller compares exactly.

The points are hints, as every witness is: the caller keeps only those that honour every symbol's
facts and lie in the domain as written, and re-verifies the claim there.
"""
from __future__ import annotations

import functools
from fractions import Fraction

import flint
import sympy as sp

from symbolic.decision.fragment import _COMPARISONS
from symbolic.decision.witness import exact_value
from symbolic.flint_fractions import NotRational, fraction_in, polynomial_context, read_fraction
from symbolic.relu import ReLU

MAX_ARGUMENTS = 8    # kink arguments tried per claim
MAX_POINTS = 8       # points returned per claim
MAX_DEGREE = 4       # s = k is solved exactly for polynomials up to this degree in the symbol
INTEGER_TARGETS = (0, 1, -1, 2)


def kink_arguments(exprs) -> list[tuple[sp.Expr, tuple]]:
    """(s, targets) for each kink argument of the expressions, in the order met."""
    return list(_kink_arguments(tuple(exprs)))


@functools.lru_cache(maxsize=64)
def _kink_arguments(exprs: tuple) -> tuple:
    """kink_arguments, once per claim: the kinks, the centres and the kinks through each centre
    all read the same arguments."""
    found: dict = {}

    def add(argument, targets):
        argument = sp.expand(argument) if argument.is_polynomial() else argument
        if argument.free_symbols and argument not in found:
            found[argument] = targets

    for expr in exprs:
        for node in sp.preorder_traversal(expr):
            if isinstance(node, (ReLU, sp.Abs, sp.sign, sp.Heaviside)):
                add(node.args[0], (0,))
            elif isinstance(node, (sp.Max, sp.Min)):
                for other in node.args[1:]:
                    add(node.args[0] - other, (0,))
            elif isinstance(node, (sp.floor, sp.ceiling)):
                add(node.args[0], INTEGER_TARGETS)
            elif isinstance(node, sp.Mod):
                add(node.args[0] / node.args[1], INTEGER_TARGETS)
            elif isinstance(node, sp.Pow) and node.exp.is_Rational and not node.exp.is_Integer:
                add(node.base, (0,))
            elif isinstance(node, _COMPARISONS):
                add(node.lhs - node.rhs, (0,))
    return tuple(found.items())[:MAX_ARGUMENTS]


def _linear_root(argument: sp.Expr, target, symbol: sp.Symbol, fixed: dict):
    """The root of an argument a·v + b = target that is linear in v once the other symbols take
    their fixed rational values, read off its terms (no polynomial arithmetic): each term a
    rational times distinct symbols, v among them at most once.  None for any other argument."""
    slope, rest = sp.S.Zero, sp.S.Zero
    for term in sp.Add.make_args(argument):
        coefficient, factor = term.as_coeff_Mul()
        if not coefficient.is_Rational:
            return None
        value, degree = coefficient, 0
        for part in sp.Mul.make_args(factor):
            if part is symbol:
                degree += 1
            elif part is sp.S.One:
                continue
            elif part.is_Symbol and part in fixed and sp.sympify(fixed[part]).is_Rational:
                value *= fixed[part]
            else:
                return None
        if degree > 1:
            return None
        if degree:
            slope += value
        else:
            rest += value
    return (target - rest) / slope if slope != 0 else None


def solutions(argument: sp.Expr, target, symbol: sp.Symbol, base: dict) -> list:
    """Exact real values v with argument = target at base ∪ {symbol: v}."""
    fixed = {s: v for s, v in base.items() if s != symbol}
    root = _linear_root(argument, target, symbol, fixed)
    if root is not None:
        return [root]
    if all(sp.sympify(value).is_Rational for value in fixed.values()):
        coefficients = _univariate_numerator(argument, target, symbol, fixed)
        return [] if coefficients is None else _real_roots(coefficients, symbol)
    try:
        numerator, _ = sp.fraction(sp.together(argument.xreplace(fixed) - target))
        polynomial = sp.Poly(numerator, symbol)
        if polynomial.degree() < 1 or polynomial.degree() > MAX_DEGREE or \
                not polynomial.domain.is_QQ and not polynomial.domain.is_ZZ:
            return []
        if polynomial.degree() == 2:
            return _quadratic_roots(*(sp.Rational(c) for c in polynomial.all_coeffs()))
        return polynomial.real_roots()
    except (sp.PolynomialError, ValueError, TypeError, ArithmeticError, NotImplementedError):
        return []    # no exact roots to offer: the point is a hint, and there is none here


def _univariate_numerator(argument: sp.Expr, target, symbol: sp.Symbol, fixed: dict):
    """The coefficients [c_0, …, c_n] (rationals) of the numerator of argument − target as a
    fraction in ``symbol``, cancelled, the other symbols at their fixed rational values: read in
    python-flint's polynomials, with no sympy arithmetic.  None when the argument is no rational
    function of ``symbol`` once every other symbol takes its (rational) fixed value: a
    subexpression such as ReLU(y) that holds fixed symbols alone is taken at its exact value."""
    context, one = polynomial_context(1, prefix="v")
    generators = {symbol: context.gens()[0]}
    for other, value in fixed.items():
        value = sp.sympify(value)
        generators[other] = one * flint.fmpq(int(value.p), int(value.q))
    for node in _fixed_nodes(argument, symbol):
        value = exact_value(node, {s: sp.sympify(fixed[s]) for s in node.free_symbols if s in fixed})
        if value is not None:
            generators[node] = one * flint.fmpq(int(value.p), int(value.q))
    try:
        numerator, denominator = read_fraction(argument, generators, one)
    except (NotRational, ZeroDivisionError):
        return None
    if denominator.is_zero():
        return None
    target = sp.Rational(target)
    numerator = numerator - denominator * flint.fmpq(int(target.p), int(target.q))
    if numerator.is_zero():
        return []    # argument = target on the whole line: no single point to offer
    numerator = numerator / numerator.gcd(denominator)
    terms = numerator.to_dict()
    coefficients = [flint.fmpq(0)] * (max(k for (k,) in terms) + 1)
    for (k,), c in terms.items():
        coefficients[k] = c
    return [sp.Rational(int(c.p), int(c.q)) for c in coefficients]


def _fixed_nodes(expr: sp.Expr, symbol: sp.Symbol) -> list:
    """The outermost nodes of expr that are no sum, product or integer power and do not hold
    ``symbol``: values at the fixed point, not functions of the line's coordinate."""
    if expr.is_Atom:
        return []
    if expr.is_Add or expr.is_Mul or (expr.is_Pow and expr.exp.is_Integer):
        return [node for a in expr.args for node in _fixed_nodes(a, symbol)]
    return [] if expr.has(symbol) else [expr]


def _real_roots(coefficients: list, symbol: sp.Symbol) -> list:
    """The real roots of Σ c_k v^k, exactly, up to MAX_DEGREE: the quadratic formula for degree 2,
    sympy's real roots (isolated exactly) for degrees 3 and 4."""
    degree = len(coefficients) - 1
    if degree < 1 or degree > MAX_DEGREE:
        return []
    if degree == 1:
        return [-coefficients[0] / coefficients[1]]
    if degree == 2:
        return _quadratic_roots(*reversed(coefficients))
    return sp.Poly(list(reversed(coefficients)), symbol).real_roots()


def _quadratic_roots(a, b, c) -> list:
    """The real roots of a·v² + b·v + c (rational, a ≠ 0), ascending, by the formula: rationals,
    or −b/2a ± √Δ/2a with Δ = b² − 4ac written as √(p·q)/q for Δ = p/q (sympy's form of a
    quadratic irrational, which the quadratic-field arithmetic reads)."""
    discriminant = b * b - 4 * a * c
    if discriminant < 0:
        return []
    centre, root = -b / (2 * a), sp.sqrt(discriminant.p * discriminant.q) / (discriminant.q * 2 * abs(a))
    return [centre] if discriminant == 0 else [centre - root, centre + root]


def kink_points(exprs, symbols, base: dict) -> list[dict]:
    """Points where a kink argument takes one of its targets: one symbol solved for at a time,
    the others at ``base`` (a point of their ranges)."""
    points = []
    for argument, targets in kink_arguments(exprs):
        variables = sorted(argument.free_symbols & set(symbols), key=sp.default_sort_key)
        for target in targets:
            for variable in variables[:2]:
                for root in solutions(argument, target, variable, base):
                    point = dict(base) | {variable: root}
                    if point not in points:
                        points.append(point)
                    if len(points) >= MAX_POINTS:
                        return points
    return points


def critical_points(exprs, symbols, base: dict) -> list[dict]:
    """The critical points of the quadratic kink arguments (∇s = 0, a linear system solved
    exactly), the other symbols at ``base``: where a ball's or a cone's ReLU(r² − |x − c|²) is
    positive only near its centre c, the centre is the point to try, and the kinks on lines
    through it are the edges of the ball."""
    points = []
    for argument, _ in kink_arguments(exprs):
        variables = sorted(argument.free_symbols & set(symbols), key=sp.default_sort_key)
        if not variables or argument.free_symbols - set(variables):
            continue
        # s as a polynomial with rational coefficients, read in python-flint's polynomials
        fraction = fraction_in(argument, variables, "v")
        if fraction is None or not fraction[1].is_constant():
            continue
        polynomial = fraction[0] / fraction[1]
        if polynomial.total_degree() != 2:
            continue
        # ∂s/∂v = Σ_w H[v][w]·w + g[v] = 0 for each variable v
        size = len(variables)
        hessian, gradient = [[0] * size for _ in range(size)], [0] * size
        for monomial, value in polynomial.terms():
            degrees = [k for k, e in enumerate(monomial) for _ in range(e)]
            if len(degrees) == 1:
                gradient[degrees[0]] += value
            elif len(degrees) == 2:
                i, j = degrees
                hessian[i][j] += value
                hessian[j][i] += value
        try:
            centre = flint.fmpq_mat(size, size, [h for row in hessian for h in row]).solve(
                flint.fmpq_mat(size, 1, [-g for g in gradient]))
        except ZeroDivisionError:
            continue    # no single critical point (a cylinder, a parabola)
        point = dict(base) | {v: sp.Rational(int(centre[k, 0].p), int(centre[k, 0].q))
                              for k, v in enumerate(variables)}
        if point not in points:
            points.append(point)
    return points


def between_kinks(points: list[dict], base: dict) -> list[dict]:
    """Points between neighbouring kinks on one line: for each symbol, the kinks that differ
    from ``base`` in that symbol alone, sorted, and a rational point strictly between each
    neighbouring pair (the midpoint of two rationals, the simplest rational between two
    algebraic numbers), and an integer beyond each of the outermost two.  On a line every
    piecewise-linear side is linear between two kinks, so a claim false only on a thin slab
    (ReLU(3501/1000 − x)·ReLU(x − 7/2) = 0, false for 7/2 < x < 3501/1000) or a thin shell is
    false at such a point, and one false only past the last kink (ReLU(x − 10⁶) = 0) beyond it."""
    lines: dict = {}
    for point in points:
        moved = [s for s in point if point[s] != base.get(s)]
        if len(moved) == 1:
            lines.setdefault(moved[0], set()).add(point[moved[0]])
    between = []
    for symbol, values in lines.items():
        values = values | ({base[symbol]} if symbol in base else set())
        ordered = sorted(values, key=lambda v: v.evalf(30))
        for low, high in zip(ordered, ordered[1:]):
            inner = _rational_between(low, high)
            if inner is not None:
                between.append(dict(base) | {symbol: inner})
        # and beyond the outermost kinks, where a far ReLU (ReLU(x − 10⁶)) is first non-zero
        for outer in (sp.floor(ordered[0].evalf(30)) - 1, sp.ceiling(ordered[-1].evalf(30)) + 1):
            between.append(dict(base) | {symbol: sp.Integer(outer)})
    return between[:MAX_POINTS]


def _rational_between(low: sp.Expr, high: sp.Expr):
    """A rational strictly between two real numbers low < high: their midpoint when both are
    rational, else the simplest fraction inside, found at 30 digits (a hint: the caller checks
    the point exactly)."""
    if low.is_Rational and high.is_Rational:
        return (low + high) / 2 if low != high else None
    a, b = low.evalf(30), high.evalf(30)
    if not a < b:
        return None
    middle = Fraction(str((a + b) / 2))
    for limit in (10, 10**3, 10**6, 10**9, 10**15):
        candidate = middle.limit_denominator(limit)
        if a < candidate < b:
            return sp.Rational(candidate.numerator, candidate.denominator)
    return None
