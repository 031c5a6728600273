"""The α-scale transformation T_α(W, v) = (αW, v/α), α > 0 (Definition 5)."""
from __future__ import annotations

import sympy as sp

ALPHA = sp.Symbol("alpha", positive=True)


def rescale(W: sp.Matrix, v: sp.Matrix, alpha: sp.Expr = ALPHA) -> tuple[sp.Matrix, sp.Matrix]:
    """T_α(W, v) = (αW, α⁻¹v)."""
    return W * alpha, v / alpha


def rescale_vector(values: list, d: int, h: int, alpha: sp.Expr = ALPHA) -> list:
    """T_α on a flattened parameter or direction (W row by row, then v)."""
    return [alpha * u for u in values[: d * h]] + [u / alpha for u in values[d * h:]]
