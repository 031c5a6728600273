"""Exact arithmetic in a real quadratic field Q(√d): the numbers a + b·√d, a and b rational.

A kink of a quadratic argument (x² − 2 = 0, or a conic's ReLU solved for one symbol) lies at a
point with one coordinate a + b·√d and the others rational.  Every value that the piecewise-
rational constructs (sums, products, integer powers, ReLU, |·|, sign, max, floor, ...) take at
such a point is again a number of Q(√d), and its sign is decided exactly: for b ≠ 0, a + b·√d
has the sign of b when a and b agree in sign or a² < b²·d, else the sign of a (a² = b²·d would
make √d rational, which it is not: d is no perfect square).  So the claim is evaluated there
exactly in python-flint's rationals, where sympy's algebraic numbers take tens of milliseconds.
"""
from __future__ import annotations

import math
import flint
import sympy as sp


class Quadratic:
    """a + b·√d for a fixed integer d > 1 that is no perfect square."""

    __slots__ = ("a", "b", "d")

    def __init__(self, a, b, d: int):
        self.a, self.b, self.d = flint.fmpq(a), flint.fmpq(b), d

    def _lift(self, other):
        """other as a number of the same field (a rational or an int), or None."""
        if isinstance(other, Quadratic):
            if other.d != self.d:
                raise ValueError("two different quadratic fields")
            return other
        if isinstance(other, (int, flint.fmpz, flint.fmpq)):
            return Quadratic(other, 0, self.d)
        return None

    def __add__(self, other):
        other = self._lift(other)
        return NotImplemented if other is None else \
            Quadratic(self.a + other.a, self.b + other.b, self.d)

    __radd__ = __add__

    def __neg__(self):
        return Quadratic(-self.a, -self.b, self.d)

    def __sub__(self, other):
        other = self._lift(other)
        return NotImplemented if other is None else self + (-other)

    def __rsub__(self, other):
        other = self._lift(other)
        return NotImplemented if other is None else other + (-self)

    def __mul__(self, other):
        other = self._lift(other)
        if other is None:
            return NotImplemented
        # (a + b√d)(c + e√d) = (ac + be·d) + (ae + bc)√d
        return Quadratic(self.a * other.a + self.b * other.b * self.d,
                         self.a * other.b + self.b * other.a, self.d)

    __rmul__ = __mul__

    def inverse(self):
        # 1/(a + b√d) = (a − b√d)/(a² − b²d), the norm a² − b²d non-zero unless both are 0
        norm = self.a * self.a - self.b * self.b * self.d
        if norm == 0:
            raise ZeroDivisionError("division by 0 in a quadratic field")
        return Quadratic(self.a / norm, -self.b / norm, self.d)

    def __truediv__(self, other):
        other = self._lift(other)
        return NotImplemented if other is None else self * other.inverse()

    def __rtruediv__(self, other):
        other = self._lift(other)
        return NotImplemented if other is None else other * self.inverse()

    def __pow__(self, exponent: int):
        if not isinstance(exponent, int):
            return NotImplemented
        base = self if exponent >= 0 else self.inverse()
        result = Quadratic(1, 0, self.d)
        for _ in range(abs(exponent)):
            result = result * base
        return result

    def sign(self) -> int:
        """The exact sign of a + b√d."""
        sa, sb = (self.a > 0) - (self.a < 0), (self.b > 0) - (self.b < 0)
        if sb == 0 or sa == sb:
            return sa or sb
        if sa == 0:
            return sb
        # opposite signs: the larger of |a| and |b|√d wins, compared through their squares
        return sa if self.a * self.a > self.b * self.b * self.d else sb

    def _compare(self, other) -> int | None:
        other = self._lift(other)
        return None if other is None else (self - other).sign()

    def __eq__(self, other):
        difference = self._compare(other)
        return NotImplemented if difference is None else difference == 0

    def __hash__(self):
        return hash((self.a, self.b, self.d))

    def __lt__(self, other):
        difference = self._compare(other)
        return NotImplemented if difference is None else difference < 0

    def __le__(self, other):
        difference = self._compare(other)
        return NotImplemented if difference is None else difference <= 0

    def __gt__(self, other):
        difference = self._compare(other)
        return NotImplemented if difference is None else difference > 0

    def __ge__(self, other):
        difference = self._compare(other)
        return NotImplemented if difference is None else difference >= 0

    def __abs__(self):
        return -self if self.sign() < 0 else self

    def __floor__(self) -> int:
        # b√d = ±√(b²d) lies between two integers found by the integer square root
        if self.b == 0:
            return int(math.floor(self.a))
        low = _floor_times_sqrt(self.b, self.d)
        n = int(math.floor(self.a + low))
        # a + b√d lies in [a + low, a + low + 1): its floor is n or n + 1
        return n + 1 if self >= n + 1 else n

    def __ceil__(self) -> int:
        return -math.floor(-self)

    def __float__(self):
        return float(self.a) + float(self.b) * math.sqrt(self.d)

    def to_sympy(self) -> sp.Expr:
        return sp.Rational(int(self.a.p), int(self.a.q)) + \
            sp.Rational(int(self.b.p), int(self.b.q)) * sp.sqrt(self.d)


def _floor_times_sqrt(b: flint.fmpq, d: int) -> int:
    """⌊b·√d⌋ for rational b, exactly: ⌊√(b²d)⌋ through the integer square root, signed."""
    square = b * b * d
    root = math.isqrt(int(square.p) // int(square.q))
    # root ≤ √(b²d) < root + 1
    return root if b > 0 else -root - 1


def field_of(values) -> int | None:
    """The d of the one quadratic field Q(√d) that holds every value (sympy numbers: rationals
    and a + b·√d), 1 when all are rational, None when none does (CRootOf, two different roots,
    a root of a negative number)."""
    field = 1
    for value in values:
        parts = quadratic_parts(value)
        if parts is None:
            return None
        d = parts[2]
        if d != 1:
            if field not in (1, d):
                return None
            field = d
    return field


def quadratic_parts(value: sp.Expr) -> tuple[flint.fmpq, flint.fmpq, int] | None:
    """(a, b, d) with value = a + b·√d, d > 1 no perfect square (d = 1, b = 0 for a rational),
    read off sympy's form of the number; None for any other number."""
    if value.is_Rational:
        return flint.fmpq(int(value.p), int(value.q)), flint.fmpq(0), 1
    a, b, d = flint.fmpq(0), flint.fmpq(0), None
    for term in sp.Add.make_args(value):
        if term.is_Rational:
            a += flint.fmpq(int(term.p), int(term.q))
            continue
        coefficient, radical = term.as_coeff_Mul()
        if not (coefficient.is_Rational and radical.is_Pow and radical.base.is_Integer and
                radical.exp == sp.S.Half and radical.base > 1):
            return None
        base = int(radical.base)
        if math.isqrt(base) ** 2 == base or d not in (None, base):
            return None
        d = base
        b += flint.fmpq(int(coefficient.p), int(coefficient.q))
    return (a, b, d) if d is not None else (a, flint.fmpq(0), 1)


def as_field_point(point: dict, d: int) -> dict:
    """The point's coordinates as numbers of Q(√d) (rationals as fmpq)."""
    converted = {}
    for symbol, value in point.items():
        a, b, _ = quadratic_parts(value)
        converted[symbol] = Quadratic(a, b, d) if b != 0 else a
    return converted
