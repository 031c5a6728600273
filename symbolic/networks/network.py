"""The one-hidden-layer ReLU network f_θ(x) = Σ_j ReLU(Σ_i x_i W_ij) v_j, θ = (W, v)."""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import sympy as sp

from symbolic.relu import ReLU


def validate_sizes(**sizes: int) -> None:
    """Sizes are positive integers; anything else is bad input."""
    for name, value in sizes.items():
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be a positive integer, got {value!r}")


@dataclass(frozen=True)
class OneHiddenLayerNet:
    """Input dimension d, hidden width h; parameters W (d×h) and v (h), all real symbols."""

    d: int
    h: int

    def __post_init__(self):
        validate_sizes(d=self.d, h=self.h)

    @cached_property
    def W(self) -> sp.Matrix:
        return sp.Matrix(self.d, self.h, lambda i, j: sp.Symbol(f"W_{{{i + 1},{j + 1}}}", real=True))

    @cached_property
    def v(self) -> sp.Matrix:
        return sp.Matrix(self.h, 1, lambda j, _: sp.Symbol(f"v_{{{j + 1}}}", real=True))

    @property
    def parameters(self) -> list[sp.Symbol]:
        """θ flattened: W row by row, then v."""
        return list(self.W) + list(self.v)

    def input(self, n: int | None = None) -> sp.Matrix:
        """The symbolic input x (or x_n, the n-th data point) as a row vector."""
        prefix = "x_{" if n is None else f"x_{{{n},"
        return sp.Matrix(1, self.d, lambda _, i: sp.Symbol(f"{prefix}{i + 1}}}", real=True))

    def preactivations(self, x: sp.Matrix, W: sp.Matrix | None = None) -> list[sp.Expr]:
        W = self.W if W is None else W
        return list(x * W)

    def prediction(self, x: sp.Matrix, W: sp.Matrix | None = None, v: sp.Matrix | None = None,
                   activation=ReLU) -> sp.Expr:
        """f_θ(x) = Σ_j activation(Σ_i x_i W_ij) v_j, at θ = (W, v) (default: the symbols)."""
        v = self.v if v is None else v
        return sp.Add(*[activation(s) * v[j] for j, s in enumerate(self.preactivations(x, W))])
