"""The paper's worked example: f(x) = b·max(0, a·x) on the data (1, 1), (2, 2), and the closed forms
derived from it for symbolic c > 0 at (a, b) = (c, 1/c): the Hessian, its spectrum, and the losses
after perturbing one weight.  Nothing here is typed in; ``proofs/worked_example.py`` checks it."""
from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from symbolic.decision.regions import sign_branches
from symbolic.relu import canonical_relu_form, to_relu_form

DATA = ((1, 1), (2, 2))
a, b, x, delta = sp.symbols("a b x delta", real=True)
c = sp.Symbol("c", positive=True)
M = sp.Symbol("M", positive=True)
a_positive = sp.Symbol("a", positive=True)


def network(weight_a, weight_b, point):
    """f(x) = b·max(0, a·x)."""
    return weight_b * sp.Max(0, weight_a * point)


def loss(weight_a, weight_b):
    """L = ½·(1/N)·Σ (f(x_i) − y_i)²."""
    return sp.Rational(1, 2) * sp.Rational(1, len(DATA)) * sum(
        (network(weight_a, weight_b, xi) - yi) ** 2 for xi, yi in DATA)


@dataclass
class Derived:
    """What the example's derivation produces, as sympy expressions in c (and δ, M)."""

    hessian: sp.Matrix
    eigenpairs: list          # (eigenvalue, multiplicity, [eigenvectors])
    trace: sp.Expr
    determinant: sp.Expr
    spectral_norm: sp.Expr
    first_weight_branches: list   # (region, loss) for L(c + δ, 1/c)
    second_weight_loss: sp.Expr   # L(c, 1/c + δ)


def hessian_at_optimum() -> sp.Matrix:
    """H_L at (c, 1/c).  Near a = c > 0 every a·x_i > 0, so L is the polynomial obtained with a
    positive: differentiate it twice, then put a = c, b = 1/c."""
    branch = loss(a_positive, b)
    hessian = sp.hessian(branch, (a_positive, b)).xreplace({a_positive: c, b: 1 / c})
    return hessian.applyfunc(sp.factor)


def derive() -> Derived:
    hessian = hessian_at_optimum()
    eigenpairs = [(sp.factor(value), multiplicity, vectors)
                  for value, multiplicity, vectors in hessian.eigenvects()]
    eigenvalues = [value for value, _, _ in eigenpairs]
    # the spectral norm of a symmetric matrix is its largest |eigenvalue|; sympy decides the order
    spectral_norm = next(v for v in eigenvalues
                         if all((sp.Abs(v) - sp.Abs(w)).is_nonnegative for w in eigenvalues))
    perturbed = canonical_relu_form(to_relu_form(loss(c + delta, 1 / c)))
    branches = [(region, sp.factor(value)) for region, value in sign_branches(perturbed, [c, delta])]
    return Derived(hessian, eigenpairs, sp.factor(hessian.trace()), sp.factor(hessian.det()),
                   spectral_norm, branches, sp.factor(loss(c, 1 / c + delta)))


def real_loss_mp(weight_a, weight_b):
    """L with the real max, in whatever number type the weights are (mpmath for the witnesses)."""
    return sum((weight_b * max(0, weight_a * xi) - yi) ** 2 for xi, yi in DATA) / (2 * len(DATA))
