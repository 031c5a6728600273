"""The two sides of the loss claim L(Tθ) = L(θ) for a model, a map, N symbolic points and a loss
(a generic ℓ of the predictions, MSE, or softmax cross-entropy over every target distribution),
and the plain symbol names mpmath evaluates them under."""
from __future__ import annotations

import re

import sympy as sp

from symbolic.networks.losses import loss_of_predictions
from symbolic.relu import canonical_relu_form, to_relu_form


def plain_names(lhs, rhs) -> dict:
    """Each symbol renamed to a plain identifier (W1_{1,2} → W1_1_2), or kept when that would clash:
    mpmath evaluation of expressions whose symbol names are not identifiers is slow."""
    symbols = sorted(sp.sympify(lhs).free_symbols | sp.sympify(rhs).free_symbols, key=str)
    plain = {s: sp.Symbol(re.sub(r"\W", "_", s.name).strip("_").replace("__", "_"), **s.assumptions0)
             for s in symbols}
    if len({p.name for p in plain.values()}) != len(symbols) or \
            any(not p.name.isidentifier() for p in plain.values()):
        plain = {s: s for s in symbols}     # a clash: keep the names
    return plain


def target_distributions(n: int, outputs: int) -> list[list]:
    """The cross-entropy's targets q_n, one distribution over the K classes per point: q_{n,k} a
    real symbol for the first K − 1 classes, q_{n,K} = 1 − Σ_{k<K} q_{n,k}.  A label y_n is the
    one-hot q_n, so L(Tθ) = L(θ) for every such q gives it for every labelling."""
    targets = []
    for point in range(1, n + 1):
        free = [sp.Symbol(f"q_{{{point},{k}}}", real=True) for k in range(1, outputs)]
        targets.append([*free, 1 - sp.Add(*free)])
    return targets


def loss_sides(model, symmetry, n, loss):
    """L(Tθ) and L(θ) for N symbolic inputs, with the loss's description in words and in math."""
    inputs = [model.input(k + 1) for k in range(n)]
    images = symmetry.tensors()
    outputs = model.outputs

    def predictions(values):
        # the prediction at each point, a vector of K outputs; the canonical ReLU form is an exact
        # rewrite that lets the loss's arguments compare structurally
        return [[sp.expand(canonical_relu_form(to_relu_form(p))) for p in point]
                for point in model.batch_predictions(inputs, values)]
    if loss == "any":
        targets = []
        what, math = (("every loss ell of the predictions", r"\ell(f(x_1), \dots, f(x_N))") if outputs == 1 else
                      (f"every loss ell of the {outputs} N predictions",
                       r"\ell(f_1(x_1), \dots, f_{%d}(x_N))" % outputs))
    elif loss == "mse":
        # y_{n} for one output, y_{n,k} for K > 1: summed over the outputs, the mean over the points
        targets = [[sp.Symbol(f"y_{{{k + 1}}}" if outputs == 1 else f"y_{{{k + 1},{o + 1}}}", real=True)
                    for o in range(outputs)] for k in range(n)]
        what, math = (("mean squared error, symbolic targets", r"\tfrac1N\sum_n (f(x_n) - y_n)^2")
                      if outputs == 1 else
                      (f"mean squared error summed over {outputs} outputs, symbolic targets",
                       r"\tfrac1N\sum_n \sum_k (f_k(x_n) - y_{n,k})^2"))
    else:
        targets = target_distributions(n, outputs)
        what = (f"softmax cross-entropy of {outputs} logits, every target distribution q_n (sum_k q_(n,k) = 1), "
                "class labels among them")
        math = r"\tfrac1N\sum_n \bigl(\log\sum_k e^{f_k(x_n)} - \sum_k q_{n,k} f_k(x_n)\bigr)"
    kind = "generic" if loss == "any" else loss
    lhs, rhs = (loss_of_predictions(kind, predictions(values), targets) for values in (images, None))
    return lhs, rhs, what, math
