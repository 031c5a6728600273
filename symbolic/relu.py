"""The rectifier max(s, 0) as a sympy function, and the normal forms the checker computes of it.

``ReLU(s)`` keeps its argument as written: only a number is evaluated on construction, so a
claim such as ReLU(a·x)/a = ReLU(x) reaches the checker (and every display of its verdict) as
the user wrote it.  Positive homogeneity, ReLU(c·s) = c·ReLU(s) for c > 0, and the sign facts
are applied by ``canonical_relu_form``, on the checker's copy.  ``to_relu_form`` rewrites Max,
Min and Abs into ReLU, so that every piecewise-linear construct the checker accepts has one
normal form.
"""
from __future__ import annotations

import functools
import math

import flint
import sympy as sp
from sympy import Abs, Heaviside, Max, Min, Mul, S

from symbolic.flint_fractions import as_sympy, fraction_in


def split_positive_factor(s: sp.Expr) -> tuple[sp.Expr, sp.Expr]:
    """Write s = c·r with c > 0 collected from the factors sympy knows to be positive."""
    if s == 0:
        return S.One, S.Zero
    positive, remaining = [], []
    for part in Mul.make_args(s):
        # the common factor of a sum's terms, one level down only (nested arguments keep their
        # own): s = (c·a + c·b)/R gives c from its numerator too
        factored = sp.gcd_terms(part, fraction=False) if part.is_Add else part
        coeff, rest = factored.as_coeff_Mul()
        positive.append(abs(coeff) if coeff.is_nonzero else S.One)
        remaining += [S.NegativeOne] if coeff.is_negative else []
        for factor in Mul.make_args(rest):
            (positive if factor.is_positive else remaining).append(factor)
    return Mul(*positive), Mul(*remaining)


class ReLU(sp.Function):
    """ReLU(s) = max(s, 0) for real s."""

    nargs = 1

    @classmethod
    def eval(cls, s):
        if s is S.NaN or s is S.ComplexInfinity or (s.is_number and s.is_infinite):
            return S.NaN    # undefined (a division by zero inside): no value
        if s.is_Number:
            return s if s > 0 else S.Zero
        return None    # the argument as written: rewriting is the checker's, on a copy

    def fdiff(self, argindex=1):
        return Heaviside(self.args[0])

    def _eval_is_real(self):
        return self.args[0].is_real

    def _eval_is_extended_nonnegative(self):
        if self.args[0].is_extended_real:
            return True
        return None

    def _eval_rewrite_as_Max(self, s, **kwargs):
        return Max(s, 0)

    def _latex(self, printer, exp=None):
        body = r"\operatorname{ReLU}\left(%s\right)" % printer._print(self.args[0])
        return body if exp is None else r"%s^{%s}" % (body, exp)


def leaky_relu(s: sp.Expr, slope: sp.Expr) -> sp.Expr:
    """The leaky rectifier: s for s > 0, slope·s otherwise."""
    return ReLU(s) - slope * ReLU(-s)


def _max_of_two(a: sp.Expr, b: sp.Expr) -> sp.Expr:
    if a == 0:
        return ReLU(b)
    # max(a, b) = b + max(a - b, 0)
    return b + ReLU(a - b)


def _balanced(args: list, combine):
    """max/min of many arguments as a balanced tree of pairs: nesting depth log2 of their number."""
    while len(args) > 1:
        paired = [combine(a, b) for a, b in zip(args[::2], args[1::2])]
        args = paired + ([args[-1]] if len(args) % 2 else [])
    return args[0]


def to_relu_form(expr: sp.Expr) -> sp.Expr:
    """Rewrite Max, Min and Abs (of real arguments) into ReLU, bottom-up."""
    if expr.is_Atom:
        return expr
    args = [to_relu_form(a) for a in expr.args]
    if isinstance(expr, Max):
        return _balanced(args, _max_of_two)
    if isinstance(expr, Min):
        # min(a, b) = a - max(a - b, 0)
        return _balanced(args, lambda a, b: a - ReLU(a - b))
    if isinstance(expr, Abs):
        return ReLU(args[0]) + ReLU(-args[0])
    if isinstance(expr, ReLU):
        return ReLU(args[0])
    return expr.func(*args) if args != list(expr.args) else expr


def reduced_argument(t: sp.Expr) -> sp.Expr:
    """t expanded and, where it has a denominator, as one reduced fraction p/q (gcd cancelled).

    Wherever t is defined it equals the result, so ReLU(t) may be replaced by ReLU of it there.
    An argument that cancels to a constant (``(x**2 - 1)/(x - 1) - x - 1`` is 0 wherever it is
    defined) becomes that constant, and ReLU of it is evaluated: no sign split is ever taken on
    an argument whose zero set is not a proper algebraic set.
    """
    if any(power.exp.is_negative for power in t.atoms(sp.Pow)):
        # a rational function of the symbols alone that cancels to a polynomial: that
        # polynomial, found in python-flint's polynomials (the same expression sympy's
        # expansion of its cancelled fraction gives, as sympy's polynomials are canonical)
        polynomial = _cancelled_polynomial(t)
        if polynomial is not None:
            return polynomial
    t = sp.expand(t)
    if any(power.exp.is_negative for power in t.atoms(sp.Pow)):
        t = sp.cancel(sp.together(t))
        t = sp.expand(t) if t.is_polynomial() else t
    return t


def _cancelled_polynomial(t: sp.Expr) -> sp.Expr | None:
    """t as a polynomial when t is a fraction p/q of polynomials in its symbols with rational
    coefficients and q divides p exactly; None otherwise (another atom, a float, a constant
    such as π, a division by the zero polynomial, or a remainder)."""
    symbols = sorted(t.free_symbols, key=sp.default_sort_key)
    if not symbols:
        return None
    fraction = fraction_in(t, symbols, "v")
    if fraction is None:
        return None
    quotient, remainder = divmod(*fraction)
    if not remainder.is_zero():
        return None
    return as_sympy(quotient, symbols)


@functools.lru_cache(maxsize=8192)
def normal_relu(t: sp.Expr) -> sp.Expr:
    """ReLU(t) with the facts sympy knows applied: ReLU(t) = t where t ≥ 0, 0 where t ≤ 0, and
    positive homogeneity ReLU(c·r) = c·ReLU(r) for c > 0.  Each is an identity for real t."""
    if t.is_Number or t is S.NaN:
        return ReLU(t)
    if t.is_extended_nonnegative:
        return t
    if t.is_extended_nonpositive:
        return S.Zero
    positive, rest = split_positive_factor(t)
    if positive != 1:
        return positive * normal_relu(rest)
    return ReLU(t)


def canonical_relu_form(expr: sp.Expr) -> sp.Expr:
    """ReLU form with each argument reduced (``reduced_argument``), the sign facts and positive
    homogeneity applied (``normal_relu``), and sign-normalised.

    ReLU(t) = t + ReLU(-t) holds for every real t, so of the two arguments t and -t only the one
    that does not 'extract a minus sign' is kept.  Equal atoms then compare equal structurally.
    """
    if expr.is_Atom:
        return expr
    args = [canonical_relu_form(a) for a in expr.args]
    if isinstance(expr, ReLU):
        normal = polynomial_relu(args[0])
        if normal is not None:
            return normal
        t = reduced_argument(args[0])
        if t.is_Number:
            return ReLU(t)
        if t.could_extract_minus_sign():
            return t + normal_relu(-t)
        return normal_relu(t)
    return expr.func(*args) if args != list(expr.args) else expr


# --- the same normal form, in python-flint's polynomials ---------------------------------------------

def _sign(generator: sp.Expr) -> tuple:
    """(≥ 0 known, ≤ 0 known, ≠ 0 known) of a symbol or a ReLU atom, from its facts."""
    if isinstance(generator, ReLU):
        return True, False, False
    return (bool(generator.is_nonnegative), bool(generator.is_nonpositive), bool(generator.is_nonzero))


def _term_sign(coefficient, exponents, signs) -> int:
    """1 when the term is ≥ 0 at every point, −1 when ≤ 0 at every point, 0 when unknown."""
    sign = 1 if coefficient > 0 else -1
    for e, (nonnegative, nonpositive, _) in zip(exponents, signs):
        if e == 0 or e % 2 == 0 or nonnegative:
            continue
        if not nonpositive:
            return 0
        sign = -sign
    return sign


def polynomial_relu(t: sp.Expr) -> sp.Expr | None:
    """The normal form of ReLU(t) for t a rational function with rational coefficients of symbols
    and ReLU atoms whose denominator, once cancelled, is a monomial of non-zero factors; computed
    in python-flint's polynomials.  Each step is an identity for real t, as in ``normal_relu``:
    t = c·r with c > 0 (the rational content, the denominator's absolute value and the powers
    of positive symbols), ReLU(c·r) = c·ReLU(r); ReLU(r) = r where every term of r is ≥ 0 and 0
    where every term is ≤ 0; ReLU(r) = r + ReLU(−r) where r extracts a minus sign.  None for any
    other t (the sympy path then applies)."""
    if t.is_Number:
        return None
    found: dict = {}
    if not _readable(t, found):
        return None
    generators = sorted(found, key=sp.default_sort_key)
    fraction = fraction_in(t, generators, "r")
    if fraction is None:
        return None
    numerator, denominator = fraction
    common = numerator.gcd(denominator)
    numerator, denominator = numerator / common, denominator / common
    if len(denominator.coeffs()) != 1:
        return None    # a denominator of several terms: its sign is sympy's to find
    signs = [_sign(g) for g in generators]
    (exponents,), (scale,) = denominator.monoms(), denominator.coeffs()
    if any(e and not (signs[k][2] and (signs[k][0] or signs[k][1])) for k, e in enumerate(exponents)):
        return None    # a factor of the denominator of unknown sign, or that may be 0
    # the denominator's sign, and the positive factor 1/|denominator|
    flip = (scale < 0) != (sum(e for k, e in enumerate(exponents) if signs[k][1]) % 2 == 1)
    positive = 1 / (-as_sympy(denominator, generators) if flip else as_sympy(denominator, generators))
    numerator = -numerator if flip else numerator
    if numerator.is_zero():
        return S.Zero
    # the powers of positive symbols dividing every term, and the rational content
    powers = [min(m[k] for m in numerator.monoms()) if signs[k][0] and signs[k][2] else 0
              for k in range(len(generators))]
    coefficients = numerator.coeffs()
    content = flint.fmpq(math.gcd(*(int(c.p) for c in coefficients)),    # > 0: gcd of non-zero integers
                         math.lcm(*(int(c.q) for c in coefficients)))
    monomial = numerator.context().from_dict({tuple(powers): content})
    rest = numerator / monomial
    positive = positive * as_sympy(monomial, generators)
    term_signs = {_term_sign(c, m, signs) for m, c in rest.terms()}
    if term_signs == {1}:
        return positive * as_sympy(rest, generators)
    if term_signs == {-1}:
        return S.Zero
    r = as_sympy(rest, generators)
    if r.is_Number:
        return positive * ReLU(r)
    if r.could_extract_minus_sign():
        return positive * (r + ReLU(-r))
    return positive * ReLU(r)


def _readable(expr: sp.Expr, found: dict) -> bool:
    """Whether expr is built of rationals, symbols and ReLU atoms by sums, products and integer
    powers; the symbols and atoms are gathered in ``found``."""
    if expr.is_Symbol or isinstance(expr, ReLU):
        found[expr] = None
        return True
    if expr.is_Rational:
        return True
    if expr.is_Add or expr.is_Mul:
        return all(_readable(a, found) for a in expr.args)
    if expr.is_Pow and expr.exp.is_Integer:
        return _readable(expr.base, found)
    return False


def relu_atoms(expr: sp.Expr) -> list[ReLU]:
    """The ReLU applications of expr whose arguments contain no further ReLU, in a fixed order."""
    innermost = [a for a in expr.atoms(ReLU) if not a.args[0].has(ReLU)]
    return sorted(innermost, key=sp.default_sort_key)
