"""The inference scheme 'chain rule for a linear map': from L(Mθ) = L(θ) at every θ, M an invertible
matrix, the gradient and Hessian laws Mᵀ∇L(Mθ) = ∇L(θ) and MᵀH(Mθ)M = H(θ) wherever L is
differentiable, the mpmath witness on the real loss agreeing."""
from __future__ import annotations

import sympy as sp

from symbolic.kernel import scheme
from symbolic.networks.derivative_laws import law_statement, numeric_law
from symbolic.networks.loss_claims import loss_sides, plain_names
from symbolic.networks.maps import invertible_linear


def _chain_rule_of_a_linear_map(premises, *, model, symmetry, n, loss, order, seed):
    """From L(Tθ) = L(θ) at every θ (the premise, for this model, map, loss and N) and Tθ = Mθ with
    M an invertible matrix (monomial, or with det M a non-zero constant times a monomial in positive
    group parameters): differentiating gives Mᵀ∇L(Mθ) = ∇L(θ) and MᵀH(Mθ)M = H(θ)
    wherever L is differentiable (at θ exactly when at Mθ, M being a linear bijection); the mpmath
    witness on the real loss must still agree."""
    lhs, rhs, _, _ = loss_sides(model, symmetry, n, loss)
    plain = plain_names(lhs, rhs)
    statement = premises[0].statement
    if not (getattr(statement, "lhs", None) == sp.sympify(lhs).xreplace(plain)
            and getattr(statement, "rhs", None) == sp.sympify(rhs).xreplace(plain)):
        return "the premise is not L(T theta) = L(theta) for this model, map, loss and N"
    monomial = symmetry.monomial_form()
    if monomial is None and not invertible_linear(symmetry):
        return "T theta = M theta with M an invertible matrix does not hold"
    residual, _ = numeric_law(model, symmetry, n, loss, order, monomial, seed) or (None, None)
    if residual is None or not residual.noise:
        return "the mpmath witness on the real loss does not agree"
    return law_statement(model, symmetry, n, loss, order)


CHAIN_RULE_OF_A_LINEAR_MAP = scheme("chain rule for a linear map", _chain_rule_of_a_linear_map,
                                    "L(M theta) = L(theta) for all theta, M linear and invertible, gives "
                                    "M^T grad L(M theta) = grad L(theta) and M^T H(M theta) M = H(theta) "
                                    "wherever L is differentiable, at theta exactly when at M theta")
