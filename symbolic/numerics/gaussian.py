"""Rigorous values of a Gaussian expectation E_{u ~ N(0, I)} g(c + s ⊙ u) of a loss g ≥ 0.

Two routes, both exact or rigorous, never sampled:
  polynomial g   the expectation is exact: g expanded in u, each monomial replaced by its Gaussian
                 moment E[u^k] = (k − 1)!! for even k, 0 for odd k;
  otherwise      the cube [−R, R]^n in u is cut into K^n boxes; on each box arb's interval extension
                 bounds g below and above, and the box's Gaussian mass is a product of erf
                 differences (arb).  Outside the cube g ≥ 0 gives the lower bound, and the upper
                 bound is E[g 1_out] ≤ (E[ĝ²] P(out))^{1/2} (Cauchy–Schwarz), with ĝ ≥ |g| the
                 majorant of g (every sign made +, ReLU(s) and |s| bounded by the majorant of s,
                 u_i by |u_i|, a batch-normalized value by its bound) whose moments E|u|^k are exact.
"""
from __future__ import annotations

import heapq
import itertools
import math
from dataclasses import dataclass
from fractions import Fraction

import flint
import sympy as sp

from symbolic.numerics.interval import compile_arb
from symbolic.relu import ReLU

CUBE = 6                  # R: the cube [−R, R]^n in standard units
BOX_BUDGET = 4096         # at most this many boxes (K = floor(budget^(1/n)), K ≤ 48)
PRECISION = 120


@dataclass
class ExpectationBounds:
    lower: flint.arb            # a rigorous lower bound (an arb ball whose lower end counts)
    upper: flint.arb            # a rigorous upper bound (its upper end counts)
    how: str


def _arb(value) -> flint.arb:
    value = Fraction(value)
    return flint.arb(flint.fmpq(value.numerator, value.denominator))


def _gaussian_moment(k: int) -> int:
    """E[u^k] for a standard normal u."""
    return 0 if k % 2 else math.prod(range(k - 1, 0, -2))


def _standardized(loss, symbols, centre, scales):
    """g(c + s ⊙ u) as a polynomial-or-not expression in u (one u per noisy coordinate)."""
    noisy = [i for i, s in enumerate(scales) if s != 0]
    u = [sp.Symbol(f"u_{k}", real=True) for k in range(len(noisy))]
    at = {t: sp.Rational(c.numerator, c.denominator) for t, c in zip(symbols, centre)}
    for k, i in enumerate(noisy):
        s = Fraction(scales[i])
        at[symbols[i]] = at[symbols[i]] + sp.Rational(s.numerator, s.denominator) * u[k]
    return sp.sympify(loss).xreplace(at), u


def _polynomial_expectation(expr, u):
    """E[expr] exactly when expr is a polynomial in u, else None."""
    if expr.has(ReLU, sp.Abs, sp.Max) or any(p.is_Pow and not p.exp.is_Integer for p in sp.preorder_traversal(expr)):
        return None
    try:
        poly = sp.Poly(sp.expand(expr), *u)
    except sp.PolynomialError:
        return None
    if any(not c.is_Rational for c in poly.coeffs()):
        return None
    total = sp.S.Zero
    for exponents, coefficient in poly.terms():
        total += coefficient * math.prod(_gaussian_moment(k) for k in exponents)
    return total


def _majorant(expr, u, magnitudes, bounded):
    """A polynomial ĝ in |u_i| (``magnitudes``) with non-negative coefficients and |expr| ≤ ĝ;
    ``bounded`` maps placeholder symbols (a batch-normalized value) to a bound on their size."""
    position = {**dict(zip(u, magnitudes)), **bounded}

    def bound(e):
        if e in position:
            return position[e]
        if e.is_Rational:
            return abs(e)
        if e.is_Add:
            return sp.Add(*[bound(a) for a in e.args])
        if e.is_Mul:
            return sp.Mul(*[bound(a) for a in e.args])
        if e.is_Pow and e.exp.is_Integer and e.exp > 0:
            return bound(e.base) ** e.exp
        if isinstance(e, (ReLU, sp.Abs)):
            return bound(e.args[0])
        raise ValueError(f"no polynomial majorant of {e.func.__name__}")
    return bound(sp.sympify(expr))


def _absolute_moment_arb(k: int) -> flint.arb:
    """E|u|^k = (k − 1)!! for even k, 2^{(k−1)/2} ((k−1)/2)! sqrt(2/π) for odd k."""
    if k % 2 == 0:
        return flint.arb(_gaussian_moment(k))
    return flint.arb(2 ** ((k - 1) // 2) * math.factorial((k - 1) // 2)) * (flint.arb(2) / flint.arb.pi()).sqrt()


def _moment_of_majorant_squared(majorant, magnitudes) -> flint.arb:
    """E[ĝ²]: ĝ² expanded, each monomial ∏|u_i|^{k_i} replaced by ∏ E|u|^{k_i} (independence)."""
    poly = sp.Poly(sp.expand(majorant ** 2), *magnitudes)
    total = flint.arb(0)
    for exponents, coefficient in poly.terms():
        term = _arb(Fraction(int(coefficient.p), int(coefficient.q)))
        for k in exponents:
            term = term * _absolute_moment_arb(k)
        total = total + term
    return total


def _mass(low, high) -> flint.arb:
    """P(low ≤ u ≤ high) for a standard normal u (an end may be ±inf)."""
    def cdf2(x):      # 2Φ(x) − 1 = erf(x/√2)
        if x == math.inf:
            return flint.arb(1)
        if x == -math.inf:
            return flint.arb(-1)
        return (_arb(x) / flint.arb(2).sqrt()).erf()
    return (cdf2(high) - cdf2(low)) / 2


def expectation_bounds(loss, symbols, centre, scales, *, majorant_loss=None, bounded=None,
                       budget: int = BOX_BUDGET) -> ExpectationBounds:
    """Rigorous bounds on E_{u ~ N(0, I)} loss(centre + scales ⊙ u), loss ≥ 0 (exact rationals
    ``centre`` and ``scales``; a zero scale leaves its coordinate fixed).  ``majorant_loss`` is the
    loss written with placeholders for bounded parts (``bounded``: placeholder -> bound), for the
    tail; by default the loss itself.  A coarse grid first (half the budget), then the boxes whose
    bounds are furthest apart (gap × mass) are split in two, one at a time, for the other half."""
    old, flint.ctx.prec = flint.ctx.prec, PRECISION
    try:
        centre = [Fraction(c) for c in centre]
        expr, u = _standardized(loss, symbols, centre, scales)
        exact = _polynomial_expectation(expr, u)
        if exact is not None:
            ball = _arb(Fraction(int(exact.p), int(exact.q)))
            return ExpectationBounds(ball, ball, "exact: the loss is a polynomial, Gaussian moments")
        n = len(u)
        if 2 ** n > budget // 2:
            raise ValueError(f"{n} perturbed coordinates: more than {budget // 2} boxes")
        cells = max(2, min(48, int(round((budget // 2) ** (1 / max(n, 1)), 9))))
        edges = [Fraction(-CUBE) + Fraction(2 * CUBE * k, cells) for k in range(cells + 1)]
        function = compile_arb(expr, u)
        magnitudes = [sp.Symbol(f"m_{k}", nonnegative=True) for k in range(n)]
        source = expr if majorant_loss is None else _standardized(majorant_loss, symbols, centre, scales)[0]
        majorant = _majorant(source, u, magnitudes, bounded or {})
        majorant_function = compile_arb(majorant, magnitudes)
        masses: dict = {}

        def mass_of(box):
            total = flint.arb(1)
            for interval in box:
                if interval not in masses:
                    masses[interval] = _mass(*interval)
                total = total * masses[interval]
            return total

        def bounds_on(box):
            """(lower end ≥ 0, upper end) of g on a box, each times the box's mass."""
            balls = [_arb(a).union(_arb(b)) for a, b in box]
            value = function(balls)
            if not value.is_finite():
                # no enclosure of g on this box (a radicand reaching 0): 0 ≤ g ≤ ĝ there
                value = flint.arb(0).union(majorant_function([abs(b) for b in balls]))
            mass = mass_of(box)
            low_end = value.lower()
            return (low_end if low_end > 0 else flint.arb(0)) * mass, value.upper() * mass
        heap, lower, upper, counter = [], flint.arb(0), flint.arb(0), 0
        for index in itertools.product(range(cells), repeat=n):
            box = tuple((edges[k], edges[k + 1]) for k in index)
            low, high = bounds_on(box)
            lower, upper = lower + low, upper + high
            heapq.heappush(heap, (-float((high - low).upper()), counter, box, low, high))
            counter += 1
        for _ in range(budget - cells ** n):
            _, _, box, low, high = heapq.heappop(heap)
            widest = max(range(n), key=lambda i: box[i][1] - box[i][0])
            a, b = box[widest]
            lower, upper = lower - low, upper - high
            for half in ((a, (a + b) / 2), ((a + b) / 2, b)):
                child = box[:widest] + (half,) + box[widest + 1:]
                low_c, high_c = bounds_on(child)
                lower, upper = lower + low_c, upper + high_c
                heapq.heappush(heap, (-float((high_c - low_c).upper()), counter, child, low_c, high_c))
                counter += 1
        inside = _mass(-CUBE, CUBE) ** n
        outside = (1 - inside)
        tail = (_moment_of_majorant_squared(majorant, magnitudes) * outside).sqrt()
        return ExpectationBounds(lower, upper + tail,
                                 f"arb on {len(heap)} boxes of [-{CUBE}, {CUBE}]^{n} in standard units "
                                 f"(a grid, then the widest gaps split), Gaussian masses by erf, the tail by "
                                 f"Cauchy-Schwarz with exact moments")
    finally:
        flint.ctx.prec = old
