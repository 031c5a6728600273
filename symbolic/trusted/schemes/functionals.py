"""The inference scheme 'equal functions give equal values of any functional': from f(x) = g(x) for
every real x (the premise, x free and unrestricted), the functions x ↦ f(x) and x ↦ g(x) are equal,
so ℓ(x ↦ f(x)) = ℓ(x ↦ g(x)) for every functional ℓ."""
from __future__ import annotations

import sympy as sp

from symbolic.kernel import scheme
from symbolic.logic.statements import Equation


def _equal_functionals(premises, *, inputs, functional: str = "ell"):
    """From one premise, an equation f(x) = g(x) whose input symbols ``inputs`` are real and carry
    no other fact (so that it holds at every point of R^d): the equation ℓ(x ↦ f(x)) = ℓ(x ↦ g(x))
    for an undefined function ℓ named ``functional``, which the premise does not name (so that it
    stands for every functional)."""
    if len(premises) != 1:
        return "one premise, the equation of the two functions' values"
    statement = premises[0].statement
    if type(statement) is not Equation:
        return "the premise is not an equation of the two functions' values"
    inputs = tuple(inputs)
    if not inputs or not all(isinstance(x, sp.Symbol) for x in inputs) or len(set(inputs)) != len(inputs):
        return "the inputs are distinct symbols"
    named = statement.lhs.free_symbols | statement.rhs.free_symbols
    missing = [x for x in inputs if x not in named]
    if missing:
        return f"the input {missing[0]} is not a symbol of the premise"
    # the premise holds at every real input only if no fact beyond 'real' restricts the inputs
    restricted = [x for x in inputs if x.is_real is not True or any(
        x.assumptions0.get(fact) is not None for fact in ("positive", "negative", "nonnegative", "nonpositive",
                                                          "zero", "nonzero", "integer", "rational"))]
    if restricted:
        return f"the input {restricted[0]} is restricted to part of the reals: the functions agree only there"
    functions = {f.func.__name__ for side in (statement.lhs, statement.rhs) for f in side.atoms(sp.Function)}
    if functional in functions or functional in {str(s) for s in named}:
        return f"the premise already names {functional}: it would not stand for every functional"
    ell = sp.Function(functional)
    return Equation(ell(sp.Lambda(inputs, statement.lhs)), ell(sp.Lambda(inputs, statement.rhs)))


EQUAL_FUNCTIONALS = scheme("equal functions give equal values of any functional", _equal_functionals,
                           "f(x) = g(x) at every real x makes x -> f(x) and x -> g(x) one function, and a "
                           "functional takes one value at one function")
