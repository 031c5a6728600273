"""Losses as functions of the predictions f(x_1), …, f(x_N) only: a generic ℓ, mean squared error,
absolute error and hinge."""
from __future__ import annotations

import sympy as sp

LOSSES = ("generic", "mse", "absolute", "hinge")


def loss_of_predictions(kind: str, predictions: list, targets: list) -> sp.Expr:
    """L as a function of the predictions f(x_1), …, f(x_N) only."""
    n = len(predictions)
    if kind == "generic":
        return sp.Function("ell")(*predictions)
    if kind == "mse":
        return sp.Add(*[(p - y) ** 2 for p, y in zip(predictions, targets)]) / n
    if kind == "absolute":
        return sp.Add(*[sp.Abs(p - y) for p, y in zip(predictions, targets)]) / n
    if kind == "hinge":
        return sp.Add(*[sp.Max(0, 1 - y * p) for p, y in zip(predictions, targets)]) / n
    raise ValueError(f"unknown loss {kind!r}; choose from {', '.join(LOSSES)}")
