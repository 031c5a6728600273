"""The residue split: floor, ceiling and Mod of integer symbols removed class by class.

An integer symbol n whose floor, ceiling and Mod arguments are polynomials with rational
coefficients of common denominator L is written n = L·k + r, one case for each residue
r = 0, …, L − 1 (of n's parity, if it has one), with k a fresh integer.  In each case every
such argument a is a polynomial whose terms in the symbols have integer coefficients, plus a
rational constant c (N(Lk + r) ≡ N(r) modulo L for a polynomial N with integer coefficients),
and at every integer point

    floor(a) = (a − c) + floor(c),   ceiling(a) = (a − c) + ceiling(c),
    Mod(a, m) = a − m·floor(a/m)      (sympy's Mod, for a rational m ≠ 0).

The reduction is computed here, term by term, and checked: a case whose arguments do not split
that way is no case, and the split is not made.  The cases cover every integer value of n, so
an expression that vanishes in every case vanishes at every integer point.  n's sign facts go
with its case as constraints on k (n ≥ 0 is L·k + r ≥ 0).
"""
from __future__ import annotations

import itertools
import math

import sympy as sp

from symbolic.decision.assumptions import symbol_range

ROUNDING = (sp.floor, sp.ceiling, sp.Mod)
MAX_CLASSES = 64    # more residue classes than this: the split is not made


def residue_classes(expr: sp.Expr, symbols):
    """[(substitution, reduced expression, symbols, constraints)], one per residue class, with no
    floor, ceiling or Mod left; [({}, expr, symbols, [])] for an expression with none; None
    where the split cannot be made (an argument that is not a polynomial of integer symbols,
    a nested rounding, a symbol with a fact it cannot carry, too many classes)."""
    atoms = sorted(expr.atoms(*ROUNDING), key=sp.default_sort_key)
    if not atoms:
        return [({}, expr, list(symbols), [])]
    if any(a is not b and a.has(b) for a in atoms for b in atoms):
        return None
    arguments = [_argument(atom) for atom in atoms]
    if any(argument is None for argument in arguments):
        return None
    involved = sorted(set().union(*(a.free_symbols for a in arguments)), key=sp.default_sort_key)
    if not all(_splittable(s) for s in involved):
        return None
    moduli = {s: _modulus(s, arguments) for s in involved}
    if any(m is None for m in moduli.values()) or math.prod(moduli.values()) > MAX_CLASSES:
        return None
    fresh = {s: sp.Dummy(f"k_{s}", integer=True) for s in involved}
    others = [s for s in symbols if s not in moduli]
    found = []
    for residues in itertools.product(*(_residues(s, moduli[s]) for s in involved)):
        substitution = {s: moduli[s] * fresh[s] + r for s, r in zip(involved, residues)}
        values = {}
        for atom, argument in zip(atoms, arguments):
            value = _reduced(atom, sp.expand(argument.xreplace(substitution)))
            if value is None:
                return None
            values[atom] = value
        # the atoms first, as whole nodes (so none is rebuilt and evaluated), then the symbols
        reduced = expr.xreplace(values).xreplace(substitution)
        constraints = [c for s in involved for c in _sign_constraints(s, substitution[s])]
        found.append((substitution, reduced, others + [fresh[s] for s in involved], constraints))
    return found


def _argument(atom):
    """The argument whose floor the atom needs: a for floor and ceiling, a/m for Mod(a, m)."""
    if isinstance(atom, sp.Mod):
        dividend, divisor = atom.args
        if not (divisor.is_Rational and divisor != 0):
            return None
        argument = dividend / divisor
    else:
        argument = atom.args[0]
    argument = sp.expand(argument)
    if not argument.free_symbols or not argument.is_polynomial(*argument.free_symbols):
        return None
    return argument


def _splittable(symbol) -> bool:
    """An integer symbol whose facts its residue classes can carry: sign and parity (n ≠ 0
    alone is no constraint on k that a region can state)."""
    facts = symbol_range(symbol)
    bare_nonzero = facts.nonzero and not (facts.lower_strict or facts.upper_strict or
                                          facts.parity == 1)
    return facts.integral and not (bare_nonzero or facts.zero)


def _modulus(symbol, arguments) -> int | None:
    """L: the common denominator of the coefficients of every argument (twice over for a
    symbol of given parity, whose residues are then the ones of its parity)."""
    denominators = [1]
    for argument in arguments:
        for coefficient in sp.Poly(argument, *sorted(argument.free_symbols,
                                                     key=sp.default_sort_key)).coeffs():
            if not coefficient.is_Rational:
                return None
            denominators.append(int(coefficient.q))
    modulus = math.lcm(*denominators)
    if symbol_range(symbol).parity is not None and modulus % 2:
        modulus *= 2
    return modulus


def _residues(symbol, modulus: int):
    parity = symbol_range(symbol).parity
    return [r for r in range(modulus) if parity is None or r % 2 == parity]


def _reduced(atom, argument: sp.Expr):
    """The atom's value in one residue class, from its argument there: (a − c) + floor(c),
    checked to have integer coefficients in integer symbols; None otherwise."""
    constant, rest = argument.as_coeff_Add()
    if rest != 0:
        terms = rest.as_coefficients_dict()
        if not all(v.is_Integer and all(s.is_integer for s in t.free_symbols)
                   for t, v in terms.items()):
            return None
    if isinstance(atom, sp.ceiling):
        return rest + sp.ceiling(constant)
    whole = rest + sp.floor(constant)
    if isinstance(atom, sp.floor):
        return whole
    divisor = atom.args[1]
    return sp.expand(divisor * (argument - whole))


def _sign_constraints(symbol, value: sp.Expr) -> list:
    """The symbol's sign facts as constraints on its residue class's fresh integer."""
    facts = symbol_range(symbol)
    found = []
    if facts.lower:
        found.append(sp.GreaterThan(value - (1 if facts.lower_strict else 0), 0, evaluate=False))
    if facts.upper:
        found.append(sp.GreaterThan(-value - (1 if facts.upper_strict else 0), 0, evaluate=False))
    return found
