"""The inertia of a rational symmetric matrix, exactly: how many eigenvalues are positive, negative
and zero, without computing one of them.

Sylvester's law of inertia: a congruence P A Pᵀ (P invertible) keeps the inertia.  Symmetric
Gaussian elimination is such a congruence: pivoting on a non-zero diagonal entry p splits A into
(p) ⊕ (Schur complement); when every remaining diagonal entry is 0 but an off-diagonal a is not,
the 2×2 block [[0, a], [a, 0]] (one positive and one negative eigenvalue) splits off instead.
Over the rationals every step is exact.  The number of eigenvalues of H above M is then the
positive index of H − M·I.

The independent cross-check is the characteristic polynomial: a symmetric matrix has only real
eigenvalues, and for a real-rooted polynomial Descartes' rule of signs is exact, so the sign
changes of its coefficients count the positive roots.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import flint


@dataclass(frozen=True)
class Inertia:
    positive: int
    negative: int
    zero: int

    @property
    def rank(self) -> int:
        return self.positive + self.negative


def _rational_square(matrix) -> list[list[Fraction]]:
    rows = [[Fraction(entry) for entry in row] for row in matrix]
    size = len(rows)
    if any(len(row) != size for row in rows):
        raise ValueError("the matrix is not square")
    if any(rows[i][j] != rows[j][i] for i in range(size) for j in range(i)):
        raise ValueError("the matrix is not symmetric")
    return rows


def inertia(matrix) -> Inertia:
    """(positive, negative, zero) eigenvalue counts of a rational symmetric matrix, by exact
    symmetric elimination with 1×1 and 2×2 pivots (Sylvester's law of inertia)."""
    # python-flint rationals: the same exact arithmetic as Fraction, several times faster
    A = [[flint.fmpq(e.numerator, e.denominator) for e in row] for row in _rational_square(matrix)]
    size = len(A)
    positive = negative = 0
    active = list(range(size))
    while active:
        pivot = next((i for i in active if A[i][i] != 0), None)
        if pivot is not None:
            # 1×1 pivot: A ≅ (p) ⊕ (A_rest − a aᵀ / p)
            p = A[pivot][pivot]
            positive, negative = (positive + 1, negative) if p > 0 else (positive, negative + 1)
            active.remove(pivot)
            column = {r: A[r][pivot] for r in active}
            for r in active:
                if column[r]:
                    factor = column[r] / p
                    for s in active:
                        A[r][s] -= factor * column[s]
            continue
        pair = next(((i, j) for i in active for j in active if i < j and A[i][j] != 0), None)
        if pair is None:
            break                       # what remains is the zero matrix
        # 2×2 pivot [[0, a], [a, 0]]: one positive and one negative eigenvalue;
        # A_rest ↦ A_rest − [A_ri A_rj] [[0, 1/a], [1/a, 0]] [A_is; A_js]
        i, j = pair
        a = A[i][j]
        positive, negative = positive + 1, negative + 1
        active.remove(i)
        active.remove(j)
        column_i = {r: A[r][i] for r in active}
        column_j = {r: A[r][j] for r in active}
        for r in active:
            for s in active:
                A[r][s] -= (column_i[r] * column_j[s] + column_j[r] * column_i[s]) / a
    return Inertia(positive, negative, size - positive - negative)


def shifted(matrix, shift) -> list[list[Fraction]]:
    """matrix − shift·I."""
    return [[Fraction(entry) - (Fraction(shift) if i == j else 0) for j, entry in enumerate(row)]
            for i, row in enumerate(matrix)]


def count_above(matrix, bound) -> int:
    """The number of eigenvalues (with multiplicity) strictly greater than ``bound``."""
    return inertia(shifted(matrix, bound)).positive


def count_above_by_characteristic_polynomial(matrix, bound) -> int:
    """The same count from the sign changes of det(λI − (H − bound·I)): exact because a symmetric
    matrix's characteristic polynomial is real-rooted (Descartes' rule of signs is then exact)."""
    A = _rational_square(shifted(matrix, bound))
    size = len(A)
    if size == 0:
        return 0
    flat = [flint.fmpq(entry.numerator, entry.denominator) for row in A for entry in row]
    coefficients = [c for c in flint.fmpq_mat(size, size, flat).charpoly().coeffs() if c != 0]
    return sum(1 for low, high in zip(coefficients, coefficients[1:]) if (low > 0) != (high > 0))


def rank(matrix) -> int:
    """The rank of a rational symmetric matrix, from its inertia."""
    return inertia(matrix).rank
