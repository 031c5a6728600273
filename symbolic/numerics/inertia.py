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

import math
from dataclasses import dataclass
from fractions import Fraction

import flint
import sympy as sp

from symbolic.kernel.verdict import Holds, Status, Verdict


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
    symmetric elimination with 1×1 and 2×2 pivots (Sylvester's law of inertia).

    The 1×1 steps run fraction-free (Bareiss) on the matrix scaled to integers by a positive common
    denominator: after k pivots the trailing entries are (k+1)-minors, the Schur complement times
    the last pivot, so they stay small and every division is exact.  A 2×2 step (all remaining
    diagonal entries 0) divides the trailing block by the last pivot and goes on in rationals."""
    rows = _rational_square(matrix)
    size = len(rows)
    denominator = 1
    for row in rows:
        for entry in row:
            denominator = denominator * entry.denominator // math.gcd(denominator, entry.denominator)
    A = [[flint.fmpz(int(e * denominator)) for e in row] for row in rows]
    positive = negative = 0
    previous = flint.fmpz(1)                 # the last Bareiss pivot (1 before any)
    while A:
        pivot = next((i for i in range(len(A)) if A[i][i] != 0), None)
        if pivot is None:
            break
        p = A[pivot][pivot]
        # the new LDLᵀ entry is p / previous: its sign decides the eigenvalue's sign
        if (p > 0) == (previous > 0):
            positive += 1
        else:
            negative += 1
        rest = [k for k in range(len(A)) if k != pivot]
        column = [A[k][pivot] for k in rest]
        A = [[(p * A[r][s] - c_r * c) // previous for s, c in zip(rest, column)]
             for r, c_r in zip(rest, column)]
        previous = p
    if not A:
        return Inertia(positive, negative, size - positive - negative)
    # every remaining diagonal entry is 0: the rest is the Schur complement A / previous
    rest = _rational_inertia([[flint.fmpq(e, previous) for e in row] for row in A])
    positive, negative = positive + rest[0], negative + rest[1]
    return Inertia(positive, negative, size - positive - negative)


def _rational_inertia(A) -> tuple[int, int]:
    """(positive, negative) counts of a python-flint rational symmetric matrix, 1×1/2×2 pivots."""
    positive = negative = 0
    while A:
        pivot = next((i for i in range(len(A)) if A[i][i] != 0), None)
        if pivot is not None:
            # 1×1 pivot: A ≅ (p) ⊕ (A_rest − c cᵀ / p), c the pivot's column
            p = A[pivot][pivot]
            positive, negative = (positive + 1, negative) if p > 0 else (positive, negative + 1)
            rest = [k for k in range(len(A)) if k != pivot]
            column = [A[k][pivot] for k in rest]
            A = [[A[r][s] - c_r * c / p for s, c in zip(rest, column)] for r, c_r in zip(rest, column)]
            continue
        pair = next(((i, j) for i in range(len(A)) for j in range(i + 1, len(A)) if A[i][j] != 0), None)
        if pair is None:
            break                       # what remains is the zero matrix
        # 2×2 pivot [[0, a], [a, 0]]: one positive and one negative eigenvalue;
        # A_rest ↦ A_rest − [A_ri A_rj] [[0, 1/a], [1/a, 0]] [A_is; A_js]
        i, j = pair
        a = A[i][j]
        positive, negative = positive + 1, negative + 1
        rest = [k for k in range(len(A)) if k not in pair]
        column_i, column_j = [A[k][i] for k in rest], [A[k][j] for k in rest]
        A = [[A[r][s] - (ci_r * cj + cj_r * ci) / a for s, ci, cj in zip(rest, column_i, column_j)]
             for r, ci_r, cj_r in zip(rest, column_i, column_j)]
    return positive, negative


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


# --- the oracles the kernel runs on a statement (symbolic.kernel.oracles) --------------------------

def decide_inertia(statement):
    """Oracle 'exact inertia': Fact("eigenvalues above", (H, M, n)) — the rational symmetric matrix
    H has exactly n eigenvalues (with multiplicity) greater than M — by the exact LDLᵀ count,
    confirmed by Descartes' rule on the characteristic polynomial."""
    if getattr(statement, "predicate", None) != "eigenvalues above" or len(statement.arguments) != 3:
        return Verdict(Status.UNDECIDED, statement.text, reason="exact inertia decides 'eigenvalues above' facts")
    matrix, bound, count = statement.arguments
    try:
        rows, bound = [[_fraction(e) for e in row] for row in _rows(matrix)], _fraction(bound)
    except (TypeError, ValueError) as why:
        return Verdict(Status.UNDECIDED, statement.text, reason=str(why))
    by_pivots, by_polynomial = count_above(rows, bound), count_above_by_characteristic_polynomial(rows, bound)
    if by_pivots != by_polynomial:
        return Verdict(Status.UNDECIDED, statement.text,
                       reason=f"the two exact counts disagree: {by_pivots} by pivots, {by_polynomial} by Descartes")
    if by_pivots == count:
        return Holds((f"{count} eigenvalues above {bound}: exact LDL^T pivots and Descartes' rule agree",))
    return Verdict(Status.UNDECIDED, statement.text, reason=f"{by_pivots} eigenvalues lie above {bound}, not {count}")


def decide_rank(statement):
    """Oracle 'exact linear algebra', by exact elimination over the rationals (python-flint):
    Fact("rank", (A, r)) — the rational matrix A has rank r; Fact("null vectors", (A, vectors)) —
    A v = 0 for every listed rational vector v; Fact("determinant", (A, δ)) — det A = δ."""
    try:
        return _decide_rank(statement)
    except (TypeError, ValueError) as why:
        # an entry that is no exact rational (a float, sqrt(2)) is not what this oracle decides
        return Verdict(Status.UNDECIDED, statement.text, reason=str(why))


def _decide_rank(statement):
    predicate, arguments = getattr(statement, "predicate", None), getattr(statement, "arguments", ())
    if predicate == "null vectors" and len(arguments) == 2:
        rows = [[_fraction(e) for e in row] for row in _rows(arguments[0])]
        for vector in arguments[1]:
            vector = [_fraction(e) for e in vector]
            if len(vector) != (len(rows[0]) if rows else 0):
                return Verdict(Status.UNDECIDED, statement.text, reason="a vector of the wrong size")
            product = [sum(a * x for a, x in zip(row, vector)) for row in rows]
            if any(product):
                return Verdict(Status.UNDECIDED, statement.text, reason=f"A v != 0 for v = {vector}")
        return Holds((f"A v = 0 exactly for {len(arguments[1])} vectors",))
    if predicate == "determinant" and len(arguments) == 2:
        rows = _rows(arguments[0])
        if any(len(row) != len(rows) for row in rows):
            return Verdict(Status.UNDECIDED, statement.text, reason="the matrix is not square")
        flat = [_fmpq(e) for row in rows for e in row]
        value = flint.fmpq_mat(len(rows), len(rows), flat).det() if rows else flint.fmpq(1)
        found = Fraction(int(value.p), int(value.q))
        if found == _fraction(arguments[1]):
            return Holds((f"det = {found} by exact elimination over the rationals",))
        return Verdict(Status.UNDECIDED, statement.text, reason=f"the determinant is {found}, not {arguments[1]}")
    if predicate != "rank" or len(arguments) != 2:
        return Verdict(Status.UNDECIDED, statement.text,
                       reason="exact linear algebra decides 'rank', 'null vectors' and 'determinant' facts")
    matrix, wanted = statement.arguments
    rows = _rows(matrix)
    if not rows:
        found = 0
    else:
        flat = [_fmpq(e) for row in rows for e in row]
        found = flint.fmpq_mat(len(rows), len(rows[0]), flat).rank()
    if found == wanted:
        return Holds((f"rank {found} by exact elimination over the rationals",))
    return Verdict(Status.UNDECIDED, statement.text, reason=f"the rank is {found}, not {wanted}")


def _fmpq(value) -> flint.fmpq:
    value = _fraction(value)
    return flint.fmpq(value.numerator, value.denominator)


def _fraction(value) -> Fraction:
    """An exact rational as a Fraction; a float (binary, not the decimal it prints as) or an
    irrational number is refused with a ValueError."""
    if isinstance(value, (float, sp.Float)) or (isinstance(value, sp.Basic) and not value.is_Rational):
        raise ValueError(f"{value} is not an exact rational")
    value = sp.Rational(value) if not isinstance(value, Fraction) else value
    return Fraction(int(value.numerator if isinstance(value, Fraction) else value.p),
                    int(value.denominator if isinstance(value, Fraction) else value.q))


def _rows(matrix) -> list:
    return [list(matrix.row(i)) for i in range(matrix.rows)] if hasattr(matrix, "rows") else [list(r) for r in matrix]
