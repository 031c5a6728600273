"""Rigorous bounds on the maximum of a function over a ball (Euclidean, or an axis-parallel
ellipsoid) or an axis-parallel box.

A maximum over a set is not an identity, so no zero test decides it.  This module brackets it:

* the LOWER bound is the function's exact value at an exact rational point of the set;
* the UPPER bound is certified by interval arithmetic (python-flint's ``arb`` balls, outward
  rounded): the set's bounding box is split into sub-boxes, every sub-box that meets the set is
  kept (an exact rational test), and the function's enclosure on each kept sub-box bounds it there.
  The kept sub-boxes cover the set, so the largest upper end bounds the maximum.

Branch and bound refines the sub-box with the largest upper end until the gap between the two
bounds is within the tolerance or the box budget is spent; either way both bounds are valid.

The function is a sympy expression in the listed variables, built from rational numbers, +, ×,
integer powers, ReLU, Max, Min and Abs (every loss of a ReLU network on rational data is one).
"""
from __future__ import annotations

import heapq
import itertools
from dataclasses import dataclass
from fractions import Fraction

import sympy as sp
from flint import arb, ctx, fmpq

from symbolic.relu import ReLU

INFINITY = float("inf")


# --- the sets --------------------------------------------------------------------------------------

Box = tuple   # a tuple of (low, high) pairs of Fractions, one per variable


@dataclass(frozen=True)
class Region:
    """A closed ball ‖(θ − center)/scales‖₂ ≤ radius (``radius``; Euclidean when every scale is 1,
    an axis-parallel ellipsoid otherwise) or a closed box (``half_widths``) around ``center``."""

    center: tuple
    radius: Fraction | None = None
    half_widths: tuple | None = None
    scales: tuple | None = None

    @classmethod
    def ball(cls, center, radius, scales=None) -> "Region":
        """The Euclidean ball, or with ``scales`` s_i > 0 the ellipsoid Σ((θ_i − c_i)/s_i)² ≤ r²
        (the set of adaptive sharpness, for instance)."""
        radius = Fraction(radius)
        if radius < 0:
            raise ValueError(f"a ball's radius must be >= 0, got {radius}")
        center = tuple(Fraction(t) for t in center)
        scales = tuple(Fraction(w) for w in scales) if scales is not None else (Fraction(1),) * len(center)
        if len(scales) != len(center) or any(w <= 0 for w in scales):
            raise ValueError("an ellipsoid needs one scale > 0 per coordinate")
        return cls(center, radius=radius, scales=scales)

    @classmethod
    def box(cls, center, half_widths) -> "Region":
        half_widths = tuple(Fraction(w) for w in half_widths)
        if len(half_widths) != len(center) or any(w < 0 for w in half_widths):
            raise ValueError("a box needs one half-width >= 0 per coordinate")
        return cls(tuple(Fraction(t) for t in center), half_widths=half_widths)

    def bounding_box(self) -> Box:
        widths = self.half_widths or tuple(self.radius * w for w in self.scales)
        return tuple((t - w, t + w) for t, w in zip(self.center, widths))

    def contains(self, point) -> bool:
        """Exact membership of a rational point."""
        if self.half_widths is not None:
            return all(abs(p - t) <= w for p, t, w in zip(point, self.center, self.half_widths))
        return sum(((p - t) / w) ** 2 for p, t, w in zip(point, self.center, self.scales)) <= self.radius ** 2

    def closest_point(self, box: Box) -> tuple:
        """The point of the box nearest to the center (the center clamped into the box)."""
        return tuple(min(max(t, low), high) for t, (low, high) in zip(self.center, box))

    def meets(self, box: Box) -> bool:
        """Exact: does the closed box intersect the set?  Both kinds of set are sums (or maxima) of
        one term per coordinate, each growing with |θ_i − c_i|, so the box's point nearest to the
        center coordinate by coordinate is in the set exactly when some point of the box is."""
        return self.contains(self.closest_point(box))

    def points_in(self, box: Box) -> list:
        """Exact points of box ∩ set (box assumed to meet the set): the box's midpoint if it is in
        the set, else its nearest point to the center; and its farthest corner if it is in the set
        (where a maximum over a box often sits)."""
        middle = tuple((low + high) / 2 for low, high in box)
        farthest = tuple(low if t - low > high - t else high for t, (low, high) in zip(self.center, box))
        points = [middle if self.contains(middle) else self.closest_point(box)]
        return points + [farthest] if self.contains(farthest) else points

    def describe(self) -> str:
        center = ", ".join(str(t) for t in self.center)
        if self.half_widths is not None:
            return f"box around ({center}) with half-widths ({', '.join(map(str, self.half_widths))})"
        if any(w != 1 for w in self.scales):
            return (f"ellipsoid of radius {self.radius} around ({center}) with scales "
                    f"({', '.join(map(str, self.scales))})")
        return f"Euclidean ball of radius {self.radius} around ({center})"


# --- evaluation: exact (Fractions) and enclosing (arb balls), from one walk of the expression -----

class ExactArithmetic:
    """Rational arithmetic: the value itself."""
    @staticmethod
    def constant(p, q):
        return Fraction(p, q)

    @staticmethod
    def relu(x):
        return max(x, Fraction(0))

    @staticmethod
    def even_power(x, k):
        return x ** k

    @staticmethod
    def extreme(pick, values):
        return max(values) if pick == "max" else min(values)


class BallArithmetic:
    """arb ball arithmetic, outward rounded: the result contains every value."""
    @staticmethod
    def constant(p, q):
        return arb(fmpq(p, q))

    @staticmethod
    def relu(x):
        return x.nonnegative_part()

    @staticmethod
    def even_power(x, k):
        # an even power of a ball is taken of its absolute value: never below 0
        return abs(x).nonnegative_part() ** k

    @staticmethod
    def extreme(pick, values):
        value = values[0]
        for other in values[1:]:
            value = getattr(value, pick)(other)
        return value


def compile_function(expr: sp.Expr, variables, arithmetic):
    """expr as a Python function of a list of values (one per variable), evaluated with the given
    arithmetic (ExactArithmetic or BallArithmetic).  Raises ValueError on a construct outside the
    module's scope."""
    index = {v: k for k, v in enumerate(variables)}

    def build(e):
        if e.is_Symbol:
            if e not in index:
                raise ValueError(f"{e} is not one of the variables {list(variables)}")
            k = index[e]
            return lambda xs: xs[k]
        if e.is_Rational:
            constant = arithmetic.constant(int(e.p), int(e.q))
            return lambda xs: constant
        parts = [build(argument) for argument in e.args]
        if e.is_Add:
            return lambda xs: sum((p(xs) for p in parts[1:]), parts[0](xs))
        if e.is_Mul:
            def product(xs):
                value = parts[0](xs)
                for p in parts[1:]:
                    value = value * p(xs)
                return value
            return product
        if e.is_Pow and e.exp.is_Integer:
            base, exponent = parts[0], int(e.exp)
            if exponent < 0:
                return lambda xs: 1 / base(xs) ** (-exponent)
            if exponent % 2 == 0:
                return lambda xs: arithmetic.even_power(base(xs), exponent)
            return lambda xs: base(xs) ** exponent
        if isinstance(e, ReLU):
            return lambda xs: arithmetic.relu(parts[0](xs))
        if isinstance(e, sp.Abs):
            return lambda xs: abs(parts[0](xs))
        if isinstance(e, (sp.Max, sp.Min)):
            pick = "max" if isinstance(e, sp.Max) else "min"
            return lambda xs: arithmetic.extreme(pick, [p(xs) for p in parts])
        raise ValueError(f"cannot evaluate {type(e).__name__} in {expr} rigorously")

    return build(sp.sympify(expr))


def interval(low: Fraction, high: Fraction) -> arb:
    """An arb ball containing [low, high]."""
    a, b = arb(fmpq(low.numerator, low.denominator)), arb(fmpq(high.numerator, high.denominator))
    return a if low == high else a.union(b)


def upper_end(ball: arb) -> float | Fraction:
    """The exact rational upper end of an arb ball (+inf when it is not finite)."""
    if not ball.is_finite():
        return INFINITY
    bound = ball.upper()
    if not bound.is_exact():
        raise ArithmeticError(f"arb returned an inexact upper end for {ball}")
    mantissa, exponent = bound.man_exp()
    mantissa, exponent = int(mantissa), int(exponent)
    return Fraction(mantissa * 2 ** exponent) if exponent >= 0 else Fraction(mantissa, 2 ** -exponent)


# --- the maximum -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class MaximumEnclosure:
    """lower ≤ max over the region ≤ upper; lower = f(argmax) exactly, argmax in the region."""

    lower: Fraction
    argmax: tuple
    upper: float | Fraction
    boxes: int             # sub-boxes enclosed
    precision: int         # arb working precision in bits
    converged: bool        # upper − lower ≤ the tolerance asked for

    @property
    def gap(self):
        return self.upper - self.lower

    def describe(self) -> str:
        point = ", ".join(str(p) for p in self.argmax)
        return (f"max in [{float(self.lower):.10g}, {float(self.upper):.10g}]: lower bound exact at "
                f"({point}), upper bound certified by arb ({self.precision} bits) over {self.boxes} "
                f"sub-boxes")


def enclose_maximum(expr: sp.Expr, variables, region: Region, *, tolerance=Fraction(1, 10 ** 6),
                    max_boxes: int = 20000, precision: int = 64) -> MaximumEnclosure:
    """Bracket max_{θ ∈ region} expr(θ) (see the module docstring); both bounds always hold."""
    variables = list(variables)
    if len(variables) != len(region.center):
        raise ValueError("one center coordinate per variable")
    enclose = compile_function(expr, variables, BallArithmetic)
    exact_function = compile_function(expr, variables, ExactArithmetic)
    tolerance = Fraction(tolerance)

    def exact(point) -> Fraction:
        try:
            return exact_function(list(point))
        except ZeroDivisionError:
            raise ValueError(f"{expr} is undefined at {point}") from None

    def upper_on(box: Box):
        return upper_end(enclose([interval(low, high) for low, high in box]))

    saved, ctx.prec = ctx.prec, precision
    try:
        start = region.bounding_box()
        best, best_point = max((exact(p), p) for p in region.points_in(start))
        counter = itertools.count()
        heap = [(-upper_on(start), next(counter), start)]
        boxes = 1
        while boxes < max_boxes and -heap[0][0] - best > tolerance:
            _, _, box = heapq.heappop(heap)
            # split the widest side in two; keep the halves that meet the set
            side = max(range(len(box)), key=lambda k: box[k][1] - box[k][0])
            low, high = box[side]
            middle = (low + high) / 2
            for half in ((low, middle), (middle, high)):
                piece = box[:side] + (half,) + box[side + 1:]
                if not region.meets(piece):
                    continue
                for point in region.points_in(piece):
                    value = exact(point)
                    if value > best:
                        best, best_point = value, point
                heapq.heappush(heap, (-upper_on(piece), next(counter), piece))
                boxes += 1
        upper = -heap[0][0]
    finally:
        ctx.prec = saved
    if upper < best:
        raise ArithmeticError(f"enclosure {upper} below the exact value {best}: unsound arithmetic")
    return MaximumEnclosure(best, best_point, upper, boxes, precision, upper - best <= tolerance)
