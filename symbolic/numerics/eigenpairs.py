"""Exact eigenpairs: H v = λ v for a symbolic matrix H and each claimed pair, by exact zero tests.

``Fact(EIGENPAIRS, (H, pairs))``, pairs = ((λ, (v_1, v_2, …)), …): every v_i is an eigenvector of H
for λ, that is H v_i − λ v_i = 0 entry by entry as a rational function (``is_rational_zero``, its
atoms independent indeterminates) and v_i ≠ 0 (an entry non-zero by the symbols' assumptions);
and the pairs give as many vectors as H has columns (the whole spectrum, with multiplicity, when
the vectors are independent, which this fact does not claim).  A symbol carrying a fact the
checker does not honour is refused: sympy reads r**2 - 2 as non-zero for an irrational r, which
is false at r = sqrt(2).
"""
from __future__ import annotations

import sympy as sp

from symbolic.decision.assumptions import unsupported_fact_in
from symbolic.decision.zero import is_rational_zero
from symbolic.kernel import Fact
from symbolic.kernel.verdict import Holds, Status, Verdict

EIGENPAIRS = "eigenpairs"
READING = "H v = lambda v exactly for every listed pair, each v non-zero, as many vectors as columns of H"


def eigenpairs(matrix, pairs) -> Fact:
    """The statement: each (λ, vectors) of ``pairs`` is an eigenvalue of ``matrix`` with those eigenvectors."""
    pairs = tuple((sp.sympify(value), tuple(sp.Matrix(v) for v in vectors)) for value, vectors in pairs)
    return Fact(EIGENPAIRS, (sp.Matrix(matrix), pairs), READING)


def decide_eigenpairs(statement):
    """Oracle 'exact eigenpairs': the fact above, each product formed and zero-tested here."""
    if getattr(statement, "predicate", None) != EIGENPAIRS or len(statement.arguments) != 2:
        return Verdict(Status.UNDECIDED, getattr(statement, "text", str(statement)),
                       reason="exact eigenpairs decides 'eigenpairs' facts")
    matrix, pairs = statement.arguments
    # the symbols' facts, read as the checker honours them
    unread = unsupported_fact_in(matrix, *(value for value, _ in pairs), *(v for _, vectors in pairs for v in vectors))
    if unread is not None:
        return Verdict(Status.UNDECIDED, statement.text, reason=f"a symbol carries the fact {unread}, "
                       "which this oracle does not read")
    count = 0
    for value, vectors in pairs:
        for vector in vectors:
            if vector.shape != (matrix.cols, 1):
                return Verdict(Status.UNDECIDED, statement.text, reason=f"{list(vector)} is not a column of size {matrix.cols}")
            # a non-zero vector: some entry is non-zero for every admissible value of its symbols
            if not any(sp.sympify(entry).is_nonzero is True for entry in vector):
                return Verdict(Status.UNDECIDED, statement.text, reason=f"{list(vector)} is not shown non-zero")
            residual = matrix * vector - value * vector
            failing = next((entry for entry in residual if not is_rational_zero(entry)), None)
            if failing is not None:
                return Verdict(Status.UNDECIDED, statement.text,
                               reason=f"H v - lambda v has the entry {failing}, not shown zero, for lambda = {value}")
            count += 1
    if count != matrix.cols:
        return Verdict(Status.UNDECIDED, statement.text, reason=f"{count} vectors for {matrix.cols} columns")
    return Holds((f"H v = lambda v exactly for {count} eigenvectors (exact zero test of each entry)",))
