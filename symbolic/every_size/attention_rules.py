"""The hypothesis of an attention head's map, an axiom of the kernel with its validity check.

The map W_Q ↦ W_Q A, W_K ↦ W_K B of an attention head (``symbolic.every_size.attention``) keeps its
scores when A Bᵀ = I, that is B = A^{-T}: the hypothesis, stated entry by entry,

    Σ_{m=1}^{k} A_rm B_sm = δ_rs    for every r, s,

k the head dimension.  It defines B from A (B = A^{-T} exists and is unique for every A ∈ GL(k)), as
the hypothesis ∏_p α_p = 1 defines the output layer's scale; its validity check realises it, B =
A^{-T} for a generic A of orders 1, 2 and 3, exactly, and tries the test of a use on a right
instance and on the wrong ones (A B = I, read B_ms; A in place of B; another bound; the sum's index
among r, s).  A, B and k are named here only.
"""
from __future__ import annotations

import functools

import sympy as sp

from symbolic.every_size.index_terms import Const, Sum
from symbolic.kernel.certificates import conclude, exact_zeros
from symbolic.kernel.derivations import Rule, axiom
from symbolic.verdict import Status, Verdict

GL_A = sp.IndexedBase("A", real=True)       # the head's A ∈ GL(k)
GL_B = sp.IndexedBase("B", real=True)       # B = A^{-T}: A Bᵀ = I
HEAD = "k"                                  # the head dimension, the range of A's and B's indices


def inverse_pair_sum(r: str, s: str, m: str) -> Sum:
    """Σ_{m=1}^{k} A_rm B_sm, the (r, s) entry of A Bᵀ."""
    r_, s_, m_ = (sp.Symbol(name, integer=True) for name in (r, s, m))
    return Sum(m, HEAD, Const(GL_A[r_, m_] * GL_B[s_, m_]))


def _inverse_pair(before, after):
    """Σ_{m=1}^{k} A_rm B_sm → δ_rs: the sum over the head's k columns, m neither r nor s."""
    if not (isinstance(before, Sum) and isinstance(before.body, Const)):
        return "not a sum of scalars"
    if before.size != HEAD:
        return f"the sum runs over 1..{before.size}, not over the head's 1..{HEAD}"
    m = sp.Symbol(before.index, integer=True)
    factors = sp.Mul.make_args(before.body.expr)
    found = [f for f in factors if isinstance(f, sp.Indexed)]
    if len(found) != 2 or len(factors) != 2:
        return "the summand is not A_rm B_sm"
    by_base = {f.base: f for f in found}
    if set(by_base) != {GL_A, GL_B}:
        return "the summand is not an entry of A times an entry of B"
    a, b = by_base[GL_A], by_base[GL_B]
    if len(a.indices) != 2 or len(b.indices) != 2 or a.indices[1] != m or b.indices[1] != m:
        return "the sum does not run over the second index of both A and B (A B^T, not A B)"
    r, s = a.indices[0], b.indices[0]
    if not (r.is_Symbol and s.is_Symbol and r.is_integer and s.is_integer) or m in (r, s):
        return "the rows of A and B are not index names other than the summation index"
    return None if after == Const(sp.KroneckerDelta(r, s)) else "the result is not delta_rs"


def _either_way(one_way):
    def justify(before, after):
        forward = one_way(before, after)
        return None if forward is None or one_way(after, before) is None else forward
    return justify


@functools.cache
def _inverse_pair_validity() -> Verdict:
    """The hypothesis is realised at every order by B = A^{-T} (A invertible): checked exactly for a
    generic A of orders 1, 2 and 3 (each entry of A (A^{-T})ᵀ − I a zero rational function, det A ≠ 0
    generically); the test of a use accepts Σ_m A_rm B_sm = δ_rs and refuses A B = I, A Aᵀ = I, a
    sum over another bound and a summation index among r, s."""
    zeros = []
    for order in (1, 2, 3):
        A = sp.Matrix(order, order, lambda i, j: sp.Symbol(f"a{i}{j}", real=True))
        B = A.inv().T
        zeros += list(A * B.T - sp.eye(order))
    realised = exact_zeros("A B^T = I for B = A^(-T), orders 1 to 3", [sp.cancel(z) for z in zeros])
    r, s, m = (sp.Symbol(name, integer=True) for name in "rsm")
    delta = Const(sp.KroneckerDelta(r, s))
    tests = [_inverse_pair(inverse_pair_sum("r", "s", "m"), delta) is None,
             _inverse_pair(Sum("m", HEAD, Const(GL_A[r, m] * GL_B[m, s])), delta) is not None,
             _inverse_pair(Sum("m", HEAD, Const(GL_A[r, m] * GL_A[s, m])), delta) is not None,
             _inverse_pair(Sum("m", "d", Const(GL_A[r, m] * GL_B[s, m])), delta) is not None,
             _inverse_pair(Sum("m", HEAD, Const(GL_A[m, m] * GL_B[s, m])), Const(sp.KroneckerDelta(m, s))) is not None,
             _inverse_pair(inverse_pair_sum("r", "s", "m"), Const(sp.S.One)) is not None]
    if not all(tests):
        return Verdict(Status.UNDECIDED, "the hypothesis A B^T = I", reason="the test of a use misjudges a known case")
    return conclude("sum_m A_rm B_sm = delta_rs, realised by B = A^(-T) at every order", [realised], evidence=(
        "a hypothesis that defines B from A: B = A^(-T) exists and is unique for every A in GL(k); "
        "realised exactly at orders 1, 2, 3 on a generic A",
        "the test accepts sum_m A_rm B_sm = delta_rs and refuses A B = I, A A^T = I, another bound, the "
        "summation index among the rows and another result"))


INVERSE_PAIR = axiom(Rule("the hypothesis A B^T = I", r"\sum_{m=1}^{k} A_{rm} B_{sm} = \delta_{rs}",
                          _either_way(_inverse_pair), _inverse_pair_validity,
                          r"for every $r, s$: the map's hypothesis, $B = A^{-\top}$, $A \in GL(k)$, $k$ the head dimension"))
