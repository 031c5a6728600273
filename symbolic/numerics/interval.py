"""Rigorous enclosures with python-flint's ball arithmetic (arb): values of sympy expressions at
exact points, ranges over boxes, and two-sided bounds on a maximum over a scaled ball or box.

A maximum is bounded below by the value at a feasible point (exact feasibility, rigorous value)
and above by branch and bound: the box around the feasible set is split, boxes that miss the set
are dropped (an exact lower bound of their constraint exceeds ρ), and the interval extension of
the objective bounds the rest.  Both bounds are rigorous; the search for good points is not, and
need not be.
"""
from __future__ import annotations

import heapq
import math
import random
from dataclasses import dataclass
from fractions import Fraction

import flint
import mpmath
import sympy as sp

from symbolic.relu import ReLU


def _arb_of(value) -> flint.arb:
    value = Fraction(value)
    return flint.arb(flint.fmpq(value.numerator, value.denominator))


def _power(x: flint.arb, exponent: sp.Rational) -> flint.arb:
    """x**exponent for rational exponents with denominator 1 or 2; even powers through |x|."""
    numerator, denominator = int(exponent.p), int(exponent.q)
    if denominator == 2:
        x = x.sqrt()
    elif denominator != 1:
        raise ValueError(f"power {exponent} not supported")
    even = numerator % 2 == 0 and denominator == 1
    base = abs(x) if even else x
    result = flint.arb(1)
    for _ in range(abs(numerator)):
        result = result * base
    if even and result.lower() < 0:
        # an even power is ≥ 0, but arb's |x| keeps a ball around 0 as it is: cut at 0
        result = flint.arb(0).union(flint.arb(result.upper()))
    return 1 / result if numerator < 0 else result


def compile_arb(expr: sp.Expr, symbols: list):
    """expr as a function of arb arguments (one per symbol), by the interval extension of each
    operation: a rigorous enclosure of its range over the argument balls."""
    position = {s: k for k, s in enumerate(symbols)}

    def build(e):
        if e in position:
            k = position[e]
            return lambda args: args[k]
        if e.is_Rational:
            constant = _arb_of(Fraction(int(e.p), int(e.q)))
            return lambda args: constant
        parts = [build(a) for a in e.args]
        if e.is_Add:
            def add(args):
                total = parts[0](args)
                for part in parts[1:]:
                    total = total + part(args)
                return total
            return add
        if e.is_Mul:
            def mul(args):
                total = parts[0](args)
                for part in parts[1:]:
                    total = total * part(args)
                return total
            return mul
        if e.is_Pow and e.exp.is_Rational:
            exponent = e.exp
            return lambda args: _power(parts[0](args), exponent)
        if isinstance(e, (ReLU, sp.Max)) and len(parts) in (1, 2):
            other = parts[1] if len(parts) == 2 else (lambda args: flint.arb(0))
            return lambda args: parts[0](args).max(other(args))
        if isinstance(e, sp.Abs):
            return lambda args: abs(parts[0](args))
        if isinstance(e, sp.exp):
            return lambda args: parts[0](args).exp()
        if isinstance(e, sp.log) and len(parts) == 1:
            return lambda args: parts[0](args).log()
        raise ValueError(f"no interval extension for {e.func.__name__}")
    return build(sp.sympify(expr))


def enclosure(value: sp.Expr, precision: int = 200) -> flint.arb:
    """A rigorous enclosure of an exact real constant (rationals, radicals, ReLU, |·|)."""
    old = flint.ctx.prec
    flint.ctx.prec = precision
    try:
        return compile_arb(value, [])([])
    finally:
        flint.ctx.prec = old


def box_ball(low: Fraction, high: Fraction) -> flint.arb:
    return _arb_of(low).union(_arb_of(high))


@dataclass
class MaxBounds:
    lower: flint.arb              # the value at ``argmax`` (a rigorous enclosure)
    upper: float                  # a rigorous upper bound on the maximum (rounded up)
    argmax: list                  # a feasible point attaining ``lower``
    boxes: int                    # boxes examined
    leaves: list = None           # the boxes left at the end: with the dropped ones they cover the set

    @property
    def lower_value(self) -> float:
        return float(self.lower.lower())


class ScaledSet:
    """{θ + δ : ‖(δ_i / t_i)_i‖_p ≤ ρ}, t_i > 0 rational, p = 2 or "inf"."""

    def __init__(self, centre, scales, radius, norm):
        self.centre = [Fraction(c) for c in centre]
        self.scales = [Fraction(t) for t in scales]
        self.radius = Fraction(radius)
        self.norm = norm

    def contains(self, point) -> bool:
        # a zero scale pins its coordinate: δ_i = 0
        if any(t == 0 and Fraction(x) != c for x, c, t in zip(point, self.centre, self.scales)):
            return False
        ratios = [(Fraction(x) - c) / t for x, c, t in zip(point, self.centre, self.scales) if t]
        if self.norm == "inf":
            return all(abs(r) <= self.radius for r in ratios)
        return sum(r * r for r in ratios) <= self.radius ** 2

    def bounding_box(self):
        return [(c - self.radius * t, c + self.radius * t) for c, t in zip(self.centre, self.scales)]

    def misses(self, box) -> bool:
        """True when the box provably has no point of the set (exact)."""
        if self.norm == "inf":
            return False            # boxes are split inside the bounding box, which is the set
        total = Fraction(0)
        for (low, high), c, t in zip(box, self.centre, self.scales):
            nearest = 0 if low <= c <= high else min(abs(low - c), abs(high - c))
            if t == 0:
                if nearest:
                    return True
                continue
            total += (nearest / t) ** 2
        return total > self.radius ** 2

    def candidates(self, rng: random.Random, count: int):
        """Feasible points: the centre, the axis extremes, scaled corners, random directions."""
        n, r = len(self.centre), self.radius
        yield list(self.centre)
        for i in range(n):
            for sign in (1, -1) if self.scales[i] else ():
                point = list(self.centre)
                point[i] += sign * r * self.scales[i]
                yield point
        shrink = Fraction(1) if self.norm == "inf" else Fraction(1, int(n ** 0.5) + 1)
        for _ in range(count):
            direction = [Fraction(rng.choice((-1, 1)) * rng.randint(0, 8), 8) for _ in range(n)]
            point = [c + shrink * r * t * u for c, t, u in zip(self.centre, self.scales, direction)]
            if self.contains(point):
                yield point


def maximize(objective, symbols, region: ScaledSet, *, below=None, budget: int = 4000,
             seed: int = 0) -> MaxBounds:
    """Rigorous bounds on max_{region} objective.  With ``below`` set, the search stops as soon as
    the upper bound is under it (all that a separation needs)."""
    function = compile_arb(objective, symbols)
    rng = random.Random(seed)
    best, best_point = None, None
    for point in region.candidates(rng, 200):
        value = function([_arb_of(x) for x in point])
        if value.is_finite() and (best is None or value.lower() > best.lower()):
            best, best_point = value, point

    def bound(box):
        value = function([box_ball(low, high) for low, high in box])
        return float(value.upper()) if value.is_finite() else float("inf")
    start = region.bounding_box()
    heap = [(-bound(start), 0, start)]
    counter, boxes = 1, 1
    while heap and boxes < budget:
        upper = -heap[0][0]
        if below is not None and upper < below:
            break
        _, _, box = heapq.heappop(heap)
        widest = max(range(len(box)), key=lambda i: box[i][1] - box[i][0])
        low, high = box[widest]
        middle = (low + high) / 2
        for half in ((low, middle), (middle, high)):
            child = list(box)
            child[widest] = half
            boxes += 1
            if region.misses(child):
                continue
            heapq.heappush(heap, (-bound(child), counter, child))
            counter += 1
    upper = -heap[0][0] if heap else float("-inf")
    # floats round: step the bound up by a relative 1e-12 so that it stays an upper bound
    upper = upper + abs(upper) * 1e-12 + 1e-300 if upper != float("inf") else upper
    return MaxBounds(best, upper, best_point, boxes, [box for _, _, box in heap])


# ---------------------------------------------------------------- an independent upper bound

def _mp_interval(expr: sp.Expr, symbols: list):
    """expr as a function of mpmath.iv intervals: a second interval extension, built on another
    library (mpmath's interval arithmetic) and sharing no code with ``compile_arb``."""
    iv = mpmath.iv
    position = {s: k for k, s in enumerate(symbols)}

    def value(e, args):
        if e in position:
            return args[position[e]]
        if e.is_Rational:
            return iv.mpf(int(e.p)) / int(e.q)
        parts = [value(a, args) for a in e.args]
        if e.is_Add:
            return sum(parts[1:], parts[0])
        if e.is_Mul:
            total = parts[0]
            for part in parts[1:]:
                total = total * part
            return total
        if e.is_Pow and e.exp.is_Integer:
            return parts[0] ** int(e.exp)        # mpmath keeps even powers at or above 0
        if e.is_Pow and e.exp.is_Rational and e.exp.q == 2:
            return iv.sqrt(parts[0]) ** int(e.exp.p)
        if isinstance(e, (ReLU, sp.Max)):
            other = parts[1] if len(parts) == 2 else iv.mpf(0)
            return iv.mpf([max(parts[0].a, other.a), max(parts[0].b, other.b)])
        if isinstance(e, sp.Abs):
            return abs(parts[0])
        raise ValueError(f"no mpmath interval extension for {e.func.__name__}")
    expr = sp.sympify(expr)
    return lambda args: value(expr, args)


def recheck_upper(objective, symbols, region: ScaledSet, leaves, dps: int = 30) -> float:
    """An upper bound on max_{region} objective from the boxes branch and bound left (``leaves``),
    each split in two along its widest side and bounded by mpmath's interval arithmetic; the
    boxes branch and bound dropped were shown (exactly) to miss the set.  Returns +inf when the
    objective has no mpmath interval extension."""
    if not leaves:
        return float("-inf")
    try:
        function = _mp_interval(objective, symbols)
    except ValueError:
        return float("inf")
    best = float("-inf")
    saved, mpmath.iv.dps = mpmath.iv.dps, dps
    try:
        for box in leaves:
            widest = max(range(len(box)), key=lambda i: box[i][1] - box[i][0])
            low, high = box[widest]
            for half in ((low, (low + high) / 2), ((low + high) / 2, high)):
                child = list(box)
                child[widest] = half
                if region.misses(child):
                    continue
                # each rational end enclosed by an outward-rounded division, the box their hull
                args = [mpmath.iv.mpf([(mpmath.iv.mpf(a.numerator) / a.denominator).a,
                                       (mpmath.iv.mpf(b.numerator) / b.denominator).b]) for a, b in child]
                try:
                    upper = function(args).b
                except (ValueError, ZeroDivisionError):
                    return float("inf")
                best = max(best, float(mpmath.mpf(upper)))
    finally:
        mpmath.iv.dps = saved
    return math.nextafter(best, math.inf) if best != float("inf") else best
