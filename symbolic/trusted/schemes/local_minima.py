"""The inference scheme 'an invertible coordinate scaling T with L∘T = L carries local minima': from
T linear, T_{1/a} T_a = id = T_a T_{1/a}, ‖T_a u‖² ≤ K(a)‖u‖² for every a > 0, and
L(T_a θ) = L(θ) at every θ, the point θ is a local minimum of L if and only if T_a θ is."""
from __future__ import annotations

import sympy as sp

from symbolic.kernel import scheme
from symbolic.logic.statements import Conclusion, Equation, Relation
from symbolic.printing.sympy_text import to_text


def scales_of(image, direction):
    """The factors t_k of a coordinate scaling, T u = (t_1 u_1, …, t_n u_n), read from its image
    ``image`` of the direction ``direction``; None when T is not one (a factor names a coordinate)."""
    scales = [sp.sympify(value) / u for value, u in zip(image, direction)]
    if len(scales) != len(direction) or any(t.free_symbols & set(direction) or t.is_zero is not False for t in scales):
        return None
    return scales


def inverse_sides(image, direction, alpha):
    """T_{1/a}(T_a u) and T_a(T_{1/a} u), coordinate by coordinate, as written (not evaluated: the
    premise must say what it composes, not u = u)."""
    scales = scales_of(image, direction)
    back = [t.xreplace({alpha: 1 / alpha}) for t in scales]
    there = [t * u for t, u in zip(scales, direction)]
    home = [t * u for t, u in zip(back, direction)]
    return ([sp.Mul(b, x, evaluate=False) for b, x in zip(back, there)]
            + [sp.Mul(t, x, evaluate=False) for t, x in zip(scales, home)])


def _parts(verdict) -> tuple:
    return verdict.statement.parts()


def _same(found, expected) -> bool:
    return (len(found) == len(expected) and all(
        type(f) is type(e) and f.lhs == e.lhs and f.rhs == e.rhs and getattr(f, "relation", "=") == getattr(e, "relation", "=")
        for f, e in zip(found, expected)))


def _local_minima_carried(premises, *, image, direction, other, coefficients, parameters, alpha, bound):
    """Premises, in order: linearity (T(λu + μw)_k = λ T(u)_k + μ T(w)_k, each k, with ``other`` = (w,
    λ, μ)), the inverse (T_{1/a}(T_a u) = u = T_a(T_{1/a} u), as written), the norm bound
    (``bound``·‖u‖² − ‖T u‖² = c and c ≥ 0), and L∘T = L (ℓ(x ↦ f at Tθ) = ℓ(x ↦ f at θ), the
    parameters θ the coordinates of ``parameters``); T u = ``image``, a coordinate scaling with
    factors in the positive parameter ``alpha``."""
    if len(premises) != 4:
        return "four premises: linear, inverse, norm bound, L o T = L"
    linear, inverse, norm, invariance = premises
    direction, parameters = tuple(direction), tuple(parameters)
    if not (isinstance(alpha, sp.Symbol) and alpha.is_positive is True):
        return "the map's parameter is a positive symbol"
    if len(image) != len(direction) or len(parameters) != len(direction) or scales_of(image, direction) is None:
        return "T is no coordinate scaling of the direction"
    if any(alpha not in t.free_symbols and t.is_positive is not True for t in scales_of(image, direction)):
        return "a factor of T is not positive"
    (lam, mu), w = coefficients, tuple(other)
    to_w = dict(zip(direction, w))
    combined = {u: lam * u + mu * x for u, x in zip(direction, w)}
    expected = [Equation(t.xreplace(combined), lam * t + mu * t.xreplace(to_w)) for t in image]
    if not _same(_parts(linear), expected):
        return "the first premise is not T(lambda u + mu w) = lambda T u + mu T w, coordinate by coordinate"
    if not _same(_parts(inverse), [Equation(side, u) for side, u in
                                   zip(inverse_sides(image, direction, alpha), direction + direction)]):
        return "the second premise is not T_(1/a) T_a u = u = T_a T_(1/a) u, as written"
    gap = bound * sum(u ** 2 for u in direction) - sum(t ** 2 for t in image)
    parts = _parts(norm)
    if not (len(parts) == 2 and type(parts[0]) is Equation and parts[0].lhs == gap
            and _same(parts[1:], [Relation(parts[0].rhs, ">=", sp.S.Zero)])):
        return "the third premise is not K |u|^2 - |T u|^2 = c with c >= 0"
    statement = invariance.statement
    sides = (getattr(statement, "lhs", None), getattr(statement, "rhs", None))
    if type(statement) is not Equation or not all(isinstance(s, sp.core.function.AppliedUndef) and len(s.args) == 1
                                                  and isinstance(s.args[0], sp.Lambda) for s in sides):
        return "the fourth premise is not l(x -> f at T theta) = l(x -> f at theta)"
    if sides[0].func != sides[1].func:
        return "the fourth premise compares two different functionals"
    moved = {p: t.xreplace(dict(zip(direction, parameters))) for p, t in zip(parameters, image)}
    if sides[0] != sides[1].xreplace(moved):
        return "the fourth premise's left side is not its right side at T theta"
    radius = sp.sqrt(bound.xreplace({alpha: 1 / alpha}))
    loss = f"{sides[1].func.__name__}({', '.join(map(to_text, sides[1].args[0].variables))} -> {to_text(sides[1].args[0].expr)})"
    reading = (f"for every {to_text(alpha)} > 0: theta = ({', '.join(map(to_text, parameters))}) is a local minimum "
               f"of L(theta) = {loss} if and only if T theta = "
               f"({', '.join(to_text(p) for p in moved.values())}) is one; a radius eps at theta gives the radius "
               f"eps/{to_text(radius)} at T theta")
    return Conclusion("local minima carried by an invertible coordinate scaling", reading,
                      tuple(p.statement for p in premises))


LOCAL_MINIMA_CARRIED = scheme(
    "local minima carried by an invertible coordinate scaling", _local_minima_carried,
    "with T linear and invertible, |T^-1 u| <= sqrt(K(1/a)) |u| and L(T theta) = L(theta): if L(z) >= L(theta) "
    "whenever |z - theta| < eps, then for |z - T theta| < eps/sqrt(K(1/a)), |T^-1 z - theta| = "
    "|T^-1(z - T theta)| < eps, so L(z) = L(T^-1 z) >= L(theta) = L(T theta); the converse is the same with "
    "T^-1 = T_(1/a), whose premises are these at 1/a")
