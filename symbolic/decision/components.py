"""Independent parts of a sum: terms grouped so that no two groups share a symbol.

If D = c + D_1(X_1) + … + D_m(X_m) with pairwise disjoint symbol sets X_k, then D vanishes on the
product of the symbols' ranges exactly when every D_k is constant, D_k ≡ c_k, and c + Σ c_k = 0:
fix all groups but one and the remaining one cannot vary.  Each group is decided on its own, so
that m independent kinks cost m small splits instead of one split into 2^m regions.
"""
from __future__ import annotations

import sympy as sp


def independent_parts(expr: sp.Expr) -> tuple[sp.Expr, list[sp.Expr]]:
    """(constant, [D_1, …, D_m]): the terms of the sum expr, grouped by shared symbols."""
    constant, groups = sp.S.Zero, []    # groups: [symbol set, [terms]]
    for term in sp.Add.make_args(expr):
        symbols = term.free_symbols
        if not symbols:
            constant += term
            continue
        touching = [g for g in groups if g[0] & symbols]
        merged = [set(symbols), [term]]
        for group in touching:
            merged[0] |= group[0]
            merged[1] += group[1]
            groups.remove(group)
        groups.append(merged)
    parts = [sp.Add(*terms) for _, terms in groups]
    return constant, sorted(parts, key=sp.default_sort_key)
