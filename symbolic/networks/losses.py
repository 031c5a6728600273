"""Losses as functions of the predictions only.  The prediction at x_n is a number f(x_n) (one
output) or the vector (f_1(x_n), …, f_K(x_n)) of K outputs; the conventions, for N data points:

- generic: ℓ(f_1(x_1), …, f_K(x_1), …, f_K(x_N)), an undefined function of all K·N predictions,
  point by point, output by output (one output: ℓ(f(x_1), …, f(x_N)));
- mse: (1/N) Σ_n Σ_k (f_k(x_n) − y_{n,k})², summed over the K outputs, averaged over the N points;
- absolute: (1/N) Σ_n Σ_k |f_k(x_n) − y_{n,k}|, the same sums;
- hinge: (1/N) Σ_n max(0, 1 − y_n f(x_n)), one output;
- cross_entropy: the softmax cross-entropy of the logits, (1/N) Σ_n [log Σ_k exp f_k(x_n) −
  Σ_k q_{n,k} f_k(x_n)] with targets q_n, a distribution over the K classes; a class label
  y_n ∈ {0, …, K−1} is the one-hot target q_{n,k} = [k = y_n] (classes from 0: output k + 1 is the
  logit of class k), and the loss is then (1/N) Σ_n [log Σ_k exp f_k(x_n) − f_{y_n}(x_n)].
"""
from __future__ import annotations

import sympy as sp

LOSSES = ("generic", "mse", "absolute", "hinge")          # the losses of one output
SEVERAL_OUTPUT_LOSSES = ("generic", "mse", "absolute", "cross_entropy")


def loss_of_predictions(kind: str, predictions: list, targets: list) -> sp.Expr:
    """L as a function of the predictions f(x_1), …, f(x_N) only: each prediction a number or a
    list of K outputs, each target a number, a list of K (mse, absolute), or for cross_entropy a
    class label 0..K−1 or a list of K target weights."""
    n = len(predictions)
    vectors = [list(p) if isinstance(p, (list, tuple)) else [p] for p in predictions]
    if kind == "generic":
        return sp.Function("ell")(*[p for vector in vectors for p in vector])
    if kind in ("mse", "absolute"):
        per_output = [list(y) if isinstance(y, (list, tuple)) else [y] for y in targets]
        error = (lambda p, y: (p - y) ** 2) if kind == "mse" else (lambda p, y: sp.Abs(p - y))
        return sp.Add(*[error(p, y) for vector, ys in zip(vectors, per_output) for p, y in zip(vector, ys)]) / n
    if kind == "hinge":
        return sp.Add(*[sp.Max(0, 1 - y * p) for p, y in zip(predictions, targets)]) / n
    if kind == "cross_entropy":
        return sp.Add(*[cross_entropy(vector, target) for vector, target in zip(vectors, targets)]) / n
    raise ValueError(f"unknown loss {kind!r}; choose from {', '.join(dict.fromkeys(LOSSES + SEVERAL_OUTPUT_LOSSES))}")


def cross_entropy(logits: list, target) -> sp.Expr:
    """log Σ_k exp(logit_k) − Σ_k q_k logit_k, the target a class label (q one-hot) or the weights q."""
    if len(logits) < 2:
        raise ValueError("the cross-entropy needs K >= 2 outputs (with one, log exp f - f = 0)")
    weights = target if isinstance(target, (list, tuple)) else one_hot(target, len(logits))
    if len(weights) != len(logits):
        raise ValueError(f"a cross-entropy target has {len(logits)} weights, got {len(weights)}")
    return sp.log(sp.Add(*[sp.exp(p) for p in logits])) - sp.Add(*[q * p for q, p in zip(weights, logits)])


def one_hot(label, classes: int) -> list:
    """The target of class ``label`` ∈ {0, …, classes − 1}: 1 at that class, 0 elsewhere."""
    if isinstance(label, bool) or not isinstance(label, int) or not 0 <= label < classes:
        raise ValueError(f"a class label is a whole number from 0 to {classes - 1}, got {label!r}")
    return [int(k == label) for k in range(classes)]


def deciding_labellings(n: int, classes: int) -> list[list[int]]:
    """The 1 + N(K−1) labellings 'every label 0' and 'the label of one point changed to k': a
    function of the targets that is affine in them (the cross-entropy, L(Tθ) − L(θ)) is 0 at every
    labelling when it is 0 at these (its constant is its value at the first, each coefficient its
    change at one of the others)."""
    return [[0] * n] + [[k if m == changed else 0 for m in range(n)]
                        for changed in range(n) for k in range(1, classes)]
