"""Maps of a model's parameters: ``Symmetry(model, mapping)``, T given tensor by tensor, its
monomial form (Tθ)_p = m_p·θ_q(p) and whether it is linear; the matrix M of a linear map, Tθ = Mθ,
and whether M is invertible; and the building blocks of maps: positive scales, one per unit, and
permutation matrices.

What a map does to the prediction, the loss and their derivatives is checked elsewhere
(``symbolic.symmetries.symmetry`` proves, ``symbolic.networks.derivative_laws`` decides the laws);
this module only says what the map is.
"""
from __future__ import annotations

import sympy as sp

from symbolic.logic.statements import FrozenMap
from symbolic.latex import to_latex
from symbolic.networks.model import Model, ModelError


def positive_scales(name: str, count: int) -> list[sp.Symbol]:
    """c_1, …, c_count, each a positive real symbol: one scale per unit."""
    return [sp.Symbol(f"{name}_{{{j + 1}}}", positive=True) for j in range(count)]


def permutation_matrix(permutation) -> sp.Matrix:
    """P with P[i, permutation[i]] = 1 (permutation of 0, …, n−1): W·P permutes W's columns."""
    n = len(permutation)
    if sorted(permutation) != list(range(n)):
        raise ValueError(f"not a permutation of 0..{n - 1}: {list(permutation)}")
    return sp.Matrix(n, n, lambda i, j: int(permutation[i] == j))


def linear_matrix(symmetry) -> sp.Matrix:
    """M with Tθ = Mθ for a linear map: M[p, q] the coefficient of θ_q in the image of θ_p."""
    parameters = symmetry.model.parameters
    return sp.Matrix(len(parameters), len(parameters),
                     lambda p, q: sp.expand(symmetry.images[parameters[p]]).coeff(parameters[q]))


def invertible_linear(symmetry) -> bool:
    """T is linear, Tθ = Mθ, and det M is a non-zero rational times a Laurent monomial in the group
    parameters: M is invertible wherever they are defined (and positive ones non-zero)."""
    if not symmetry.is_linear():
        return False
    positive = [g for g in symmetry.group if g.is_positive]
    return _is_laurent_monomial(sp.factor(linear_matrix(symmetry).det()), positive)


def _is_laurent_monomial(factor, group) -> bool:
    """factor = q·∏ g^k with q a non-zero rational, g group parameters and k integers: non-zero
    wherever the group parameters are, so M is invertible there."""
    coefficient, rest = sp.sympify(factor).as_coeff_Mul()
    if not coefficient.is_Rational or coefficient == 0:
        return False
    for power in sp.Mul.make_args(rest):
        base, exponent = power.as_base_exp()
        if power != 1 and (base not in group or not exponent.is_Integer):
            return False
    return True


class Symmetry:
    """``Symmetry(model, {"W1": W1*C, "v": C.inv()*v, ...})``: tensors not named are unchanged.
    Immutable once built (its images are immutable matrices in a frozen mapping): a theorem about a
    symmetry keeps the very map it was checked on."""

    def __init__(self, model: Model, mapping: dict, name: str = "T"):
        images_of = {}
        for key, value in mapping.items():
            if key not in model.tensors:
                raise ModelError(f"the map names {key!r}, which is not a parameter of the model "
                                 f"(parameters: {', '.join(model.tensors)})")
            matrix = sp.ImmutableMatrix(value)
            if matrix.shape != model[key].shape:
                raise ModelError(f"the image of {key} has shape {matrix.shape}, {key} has shape "
                                 f"{model[key].shape}")
            images_of[key] = matrix
        images = {}
        for key, tensor in model.tensors.items():
            image = images_of.get(key, tensor)
            images.update({s: sp.sympify(e) for s, e in zip(tensor, image)})
        parameters = set(model.parameters)
        group = tuple(sorted({s for e in images.values() for s in e.free_symbols} - parameters,
                             key=sp.default_sort_key))
        taken = {p.name for p in parameters}
        for symbol in group:
            # a group parameter printed like a parameter of the model would make two symbols one name
            if symbol.name in taken:
                raise ModelError(f"the group parameter {symbol} has the name of a parameter of the model; "
                                 "rename one of them")
            if symbol.name.startswith("x_"):
                raise ModelError(f"the map uses the input {symbol}; a symmetry acts on parameters")
            if not symbol.is_real:
                raise ModelError(f"group parameter {symbol} must be a real symbol")
        for field_name, value in (("model", model), ("name", name), ("mapping", FrozenMap(images_of)),
                                  ("images", FrozenMap(images)), ("group", group)):
            object.__setattr__(self, field_name, value)

    def __setattr__(self, name, value):
        raise AttributeError(f"a symmetry cannot be changed once built (its {name!r} included)")

    __delattr__ = __setattr__

    def tensors(self) -> dict[str, sp.Matrix]:
        return {key: self.model[key].xreplace(self.images) for key in self.model.tensors}

    def __repr__(self):
        return f"{self.name}: " + ", ".join(f"{key} -> {sp.sstr(value.tolist())}" for key, value in self.mapping.items())

    def monomial_form(self):
        """[(m_p, q(p))] with (Tθ)_p = m_p·θ_q(p), q a permutation of the parameters, m_p ≠ 0
        free of θ; None when T is not of this form (a linear map that mixes, or not linear)."""
        parameters = self.model.parameters
        index = {s: k for k, s in enumerate(parameters)}
        form = []
        for p in parameters:
            image = sp.expand(self.images[p])
            used = image.free_symbols & set(parameters)
            if len(used) != 1:
                return None
            q = used.pop()
            factor = sp.cancel(image / q)
            if not _is_laurent_monomial(factor, self.group):
                return None
            form.append((factor, index[q]))
        if sorted(q for _, q in form) != list(range(len(parameters))):
            return None
        return form

    def is_linear(self) -> bool:
        """Every image is a linear form in the parameters (no constant term)."""
        parameters = self.model.parameters
        for image in self.images.values():
            try:
                poly = sp.Poly(sp.expand(image), *parameters)
            except sp.PolynomialError:
                return False
            if not poly.is_zero and any(sum(m) != 1 for m in poly.monoms()):
                return False
        return True

    def latex(self) -> str:
        parts = []
        for key, matrix in self.mapping.items():
            parts.append(r"%s \mapsto %s" % (key,
                                              to_latex(matrix, mat_delim="(", mat_str="matrix")))
        return r",\quad ".join(parts) or r"\mathrm{id}"
