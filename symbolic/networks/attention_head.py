"""A softmax attention head as a layer, and its score symmetry.

``Attention(head, query, key, value, values=None)`` reads a signal of d channels (features) and T
positions (tokens), T ≥ 2, and returns ``values`` channels (the head dimension k by default) at the
same T positions:

    q_t = x_t W_Q,  k_s = x_s W_K,  v_s = x_s W_V,  out_t = Σ_s softmax_s(q_t · k_s) v_s,

W_Q and W_K of shape (d, k), W_V of shape (d, values); the scores are not divided by √k (that
constant is absorbed in W_Q).  The scores q_t·k_sᵀ = x_t W_Q W_Kᵀ x_sᵀ are unchanged by
W_Q ↦ W_Q A, W_K ↦ W_K A⁻ᵀ for every A ∈ GL(k): a group of dimension k².  Its diagonal part (a
column of W_Q up, the same column of W_K down) is a positive rescaling, found by the exponent
system; the rest is found here: the Lie algebra of the right multiplications W_Q ↦ W_Q(I + tX_Q),
W_K ↦ W_K(I + tX_K) that keep every score to first order is the solution space of an exact linear
system in the entries of X_Q and X_K (``score_algebra``), X_Q + X_Kᵀ = 0 when d ≥ k.  Each
off-diagonal basis vector E_ab gives the shear W_Q ↦ W_Q(I + tE_ab), W_K ↦ W_K(I − tE_ba), t real,
whose scores are those at θ exactly (E_ab² = 0): a symmetry for every t.
"""
from __future__ import annotations

from dataclasses import dataclass

import flint
import sympy as sp

from symbolic.networks.model import Layer, Model, ModelError

SHEAR_PARAMETER = sp.Symbol("t", real=True)


@dataclass(frozen=True)
class Attention(Layer):
    """One softmax attention head over the positions of its input."""

    head: int
    query: str
    key: str
    value: str
    values: int | None = None
    saturates = True

    @property
    def value_width(self) -> int:
        return self.head if self.values is None else self.values

    def output_shape(self, shape):
        if len(shape) != 2 or shape[1] < 2:
            raise ModelError(f"Attention reads (features, tokens) with at least two tokens, got the shape {shape}")
        return (self.value_width, shape[1])

    def parameter_shapes(self, shape):
        names = (self.query, self.key, self.value)
        if len(set(names)) != 3:
            raise ModelError(f"query, key and value need three names, got {names}")
        return {self.query: (shape[0], self.head), self.key: (shape[0], self.head),
                self.value: (shape[0], self.value_width)}

    def forward(self, signal, params, nonlinearity, path, shape=None):
        Q, K, V = params[self.query], params[self.key], params[self.value]
        tokens, features = len(signal[0]), len(signal)

        def projection(W, t, m):
            return sum((signal[c][t] * W[c][m] for c in range(features)), 0)
        queries = [[projection(Q, t, m) for m in range(self.head)] for t in range(tokens)]
        keys = [[projection(K, t, m) for m in range(self.head)] for t in range(tokens)]
        values = [[projection(V, t, j) for j in range(self.value_width)] for t in range(tokens)]
        out = [[None] * tokens for _ in range(self.value_width)]
        for t in range(tokens):
            scores = [sum((queries[t][m] * keys[s][m] for m in range(self.head)), 0) for s in range(tokens)]
            weights = nonlinearity.softmax(self, (path, 0, t), scores)
            for j in range(self.value_width):
                out[j][t] = sum((w * values[s][j] for s, w in enumerate(weights)), 0)
        return out

    def describe(self):
        return (f"Attention(head {self.head}, {self.query}, {self.key}, {self.value}"
                + (f", {self.values} values)" if self.values is not None else ")"))


def attention_layers(model: Model) -> list[Attention]:
    return [layer for layer in model.layers if isinstance(layer, Attention)]


def score_algebra(model: Model, layer: Attention) -> list[tuple[list, list]]:
    """A basis of the X = (X_Q, X_K) ∈ gl(k)² with d/dt scores(W_Q(I + tX_Q), W_K(I + tX_K)) = 0 at
    t = 0 for every θ and every input: the coefficients of the polynomial
    Σ_m (x W_Q X_Q)_m (x' W_K)_m + (x W_Q)_m (x' W_K X_K)_m in θ, x, x' vanish, linear equations in
    X solved exactly (python-flint).  Each basis vector as (X_Q, X_K), k × k lists of integers."""
    k, d = layer.head, model.input_shape[0]
    unknowns = [sp.Symbol(f"X_{n}") for n in range(2 * k * k)]
    XQ = sp.Matrix(k, k, unknowns[:k * k])
    XK = sp.Matrix(k, k, unknowns[k * k:])
    WQ = sp.Matrix(d, k, lambda i, j: sp.Symbol(f"q_{i}_{j}"))
    WK = sp.Matrix(d, k, lambda i, j: sp.Symbol(f"k_{i}_{j}"))
    x = sp.Matrix(1, d, lambda _, i: sp.Symbol(f"x_{i}"))
    y = sp.Matrix(1, d, lambda _, i: sp.Symbol(f"y_{i}"))
    derivative = sp.expand((x * WQ * XQ * (y * WK).T + x * WQ * (y * WK * XK).T)[0, 0])
    variables = [*WQ, *WK, *x, *y]
    equations = sp.Poly(derivative, *variables).coeffs() if derivative != 0 else []
    rows = [[int(sp.Poly(e, *unknowns).coeff_monomial(u)) for u in unknowns] for e in equations]
    if not rows:
        return [_split(vector, k) for vector in (([0] * n + [1] + [0] * (2 * k * k - n - 1))
                                                  for n in range(2 * k * k))]
    matrix = flint.fmpq_mat(len(rows), len(unknowns), [v for row in rows for v in row])
    reduced, rank = matrix.rref()
    pivots = [next(c for c in range(len(unknowns)) if reduced[r, c] != 0) for r in range(rank)]
    basis = []
    for free in (c for c in range(len(unknowns)) if c not in pivots):
        vector = [0] * len(unknowns)
        vector[free] = 1
        for r, c in enumerate(pivots):
            value = -reduced[r, free]
            if value.q != 1:
                raise ModelError("the score algebra has a non-integer basis vector")
            vector[c] = int(value.p)
        basis.append(_split(vector, k))
    return basis


def _split(vector, k):
    return ([vector[a * k:(a + 1) * k] for a in range(k)],
            [vector[k * k + a * k:k * k + (a + 1) * k] for a in range(k)])


def is_diagonal(X) -> bool:
    XQ, XK = X
    return all(XQ[a][b] == 0 and XK[a][b] == 0 for a in range(len(XQ)) for b in range(len(XQ)) if a != b)
