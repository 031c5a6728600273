"""Families of claims whose truth is known by construction: the fuzz corpus of ``check_identity``.

One family per way a decision procedure for rational functions with ReLU, Max, Min and Abs can go
wrong: a ReLU argument that is zero only after cancellation, removable singularities, thin regions
(needles), far regions, non-linear boundaries, many independent kinks, max of many arguments,
integer symbols, positive homogeneity, sides defined on different sets (the domain as written),
Piecewise, floor, ceiling and Mod.  A claim says lhs = rhs wherever both sides are defined, for
every value of the symbols that honours their assumptions (positive, integer, ...); how it was
built decides whether it is true, and its ``why`` says how.

``claims(seed)`` is deterministic: ``PROJECT_SEED`` gives the project's corpus, ``HELD_OUT_SEED`` a
held-out corpus of the same families; both include the expression claims of the soundness corpus
(``proofs.corpora.corpus``).  ``constraint_sets(seed, count)`` gives conjunctions of strict linear
inequalities with known feasibility, for the region oracle: a non-empty one carries a point inside
it, an empty one carries Farkas multipliers (non-negative, not all zero) that combine its
constraints into a constant ≤ 0, which is impossible when every constraint is > 0.
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Callable

import sympy as sp

from symbolic import ReLU

from proofs.corpora import corpus

PROJECT_SEED = 0
HELD_OUT_SEED = 1
CLAIMS_PER_FAMILY = 30

X, Y, Z = sp.symbols("x y z", real=True)
A = sp.Symbol("a", positive=True)          # a positive scale
T = sp.Symbol("t", real=True)              # a scale of either sign
N, M = sp.symbols("n m", integer=True)
P = sp.Symbol("p", positive=True, integer=True)


@dataclass(frozen=True)
class KnownClaim:
    """lhs = rhs, true or false by construction; ``why`` is the construction's argument."""

    family: str
    name: str
    lhs: sp.Expr
    rhs: sp.Expr
    true: bool
    why: str

    @property
    def symbols(self) -> list[sp.Symbol]:
        return sorted(self.lhs.free_symbols | self.rhs.free_symbols, key=sp.default_sort_key)


# --- random numbers and shapes ---------------------------------------------------------------------

def _rational(rng: random.Random, low: int = -5, high: int = 5, nonzero: bool = False) -> sp.Rational:
    while True:
        value = sp.Rational(rng.randint(low * 4, high * 4), rng.choice((1, 2, 3, 4)))
        if value != 0 or not nonzero:
            return value


def _small(rng: random.Random, low: int = 2, high: int = 6) -> sp.Rational:
    """10^-k: the width of a thin region."""
    return sp.Rational(1, 10 ** rng.randint(low, high))


def _far(rng: random.Random) -> sp.Integer:
    """A distance no sampling around the origin reaches: 10^k, sometimes a little off."""
    return sp.Integer(10 ** rng.randint(3, 9) + rng.choice((0, 0, rng.randint(1, 999))))


def _linear_form(rng: random.Random, symbols, constant: bool = True) -> sp.Expr:
    while True:
        form = sum(rng.randint(-3, 3) * s for s in symbols)
        if form != 0:
            return form + (_rational(rng) if constant else 0)


def _max(*args) -> sp.Expr:
    """Max as written, without sympy's pairwise comparisons of its arguments (quadratic in their
    number; 1.5 s for 40 symbols)."""
    return sp.Max(*args, evaluate=False)


def _min(*args) -> sp.Expr:
    return sp.Min(*args, evaluate=False)


def _reals(name: str, count: int) -> list[sp.Symbol]:
    return list(sp.symbols(f"{name}0:{count}", real=True))


Template = Callable[[random.Random, int], tuple]   # (rng, size) -> (name, lhs, rhs, true, why)


def _family(family: str, templates: list[Template], sizes: list[int], rng: random.Random,
            count: int) -> list[KnownClaim]:
    """count claims cycling through the templates; round r of the cycle uses sizes[r]."""
    claims = []
    for index in range(count):
        template = templates[index % len(templates)]
        size = sizes[(index // len(templates)) % len(sizes)]
        name, lhs, rhs, true, why = template(rng, size)
        claims.append(KnownClaim(family, f"{family} {index}: {name}", sp.sympify(lhs),
                                 sp.sympify(rhs), true, why))
    return claims


# --- 1. zero-by-cancellation ReLU arguments --------------------------------------------------------

def _vanishing(rng: random.Random) -> tuple[sp.Expr, sp.Symbol, sp.Rational]:
    """(q, x, a): q is 0 wherever it is defined, x = a excepted, but only after cancelling x - a."""
    a = _rational(rng, nonzero=True)
    scale = rng.choice((1, 2, 3, sp.Rational(1, 2)))
    kind = rng.randrange(3)
    if kind == 0:
        q = (X ** 2 - a ** 2) / (X - a) - X - a
    elif kind == 1:
        b = _rational(rng)
        q = sp.expand((X - a) * (Y - b)) / (X - a) - Y + b
    else:
        q = (X ** 3 - a ** 3) / (X - a) - X ** 2 - a * X - a ** 2
    return scale * q, X, a


def _other_than(rng: random.Random, a: sp.Rational) -> sp.Rational:
    while True:
        c = _rational(rng)
        if c != a:
            return c


def _cancel_far(rng, _):
    q, x, _a = _vanishing(rng)
    far = _far(rng)
    return ("far ReLU beside a vanishing argument", ReLU(q) + ReLU(x - far), 0, False,
            f"q = 0 where defined, ReLU(x - {far}) > 0 for x > {far}")


def _cancel_zero(rng, _):
    q, _x, a = _vanishing(rng)
    return "ReLU of a vanishing argument", ReLU(q), 0, True, f"q = 0 wherever defined (x != {a})"


def _cancel_needle(rng, _):
    q, x, a = _vanishing(rng)
    c, width = _other_than(rng, a), _small(rng)
    return ("needle beside a vanishing argument", ReLU(q) + ReLU(width - (x - c) ** 2), 0, False,
            f"q = 0 where defined, and the needle term is {width} at x = {c} != {a}")


def _cancel_kept_far(rng, _):
    q, x, _a = _vanishing(rng)
    far = _far(rng)
    return ("vanishing argument added to a far ReLU", ReLU(q) + ReLU(x - far), ReLU(x - far), True,
            "q = 0 where defined")


def _cancel_max(rng, _):
    q, x, _a = _vanishing(rng)
    far = _far(rng)
    return ("max of a vanishing argument and a far one", _max(q, x - far), 0, False,
            f"max(q, x - {far}) = x - {far} > 0 for x > {far}")


def _cancel_shift(rng, _):
    q, x, a = _vanishing(rng)
    c = _rational(rng)
    return ("vanishing argument inside a ReLU", ReLU(q + x - c), ReLU(x - c), True,
            f"q = 0 where defined (x != {a})")


def _cancel_product(rng, _):
    q, x, _a = _vanishing(rng)
    far = _far(rng)
    return ("non-linear far term beside a vanishing argument", ReLU(q) + ReLU(x * Z - far), 0, False,
            f"q = 0 where defined, x z > {far} somewhere")


def _cancel_abs(rng, _):
    q, x, _a = _vanishing(rng)
    return ("max of a vanishing argument and minus an Abs", _max(q, -sp.Abs(x - Z)), 0, True,
            "max(0, -|x - z|) = 0 where q is defined")


def cancellation(rng: random.Random, count: int) -> list[KnownClaim]:
    return _family("cancellation", [_cancel_far, _cancel_zero, _cancel_needle, _cancel_kept_far,
                                    _cancel_max, _cancel_shift, _cancel_product, _cancel_abs],
                   [1], rng, count)


# --- 2. removable singularities --------------------------------------------------------------------

def _removable(rng: random.Random) -> tuple[sp.Expr, sp.Expr, sp.Expr]:
    """(p·r expanded over r, p, r): equal to p wherever r != 0, a removable singularity on r = 0."""
    r = _linear_form(rng, (X, Y))
    while True:
        p = sum(_rational(rng, -3, 3) * m for m in (X ** 2, X * Y, Y ** 2, X, Y, sp.S.One))
        if p.free_symbols:
            return sp.expand(p * r) / r, p, r


def _removable_equal(rng, _):
    quotient, p, r = _removable(rng)
    return "removable singularity", quotient, p, True, f"(p·r)/r = p where {r} != 0"


def _removable_relu(rng, _):
    quotient, p, r = _removable(rng)
    return "ReLU of a removable singularity", ReLU(quotient), ReLU(p), True, f"(p·r)/r = p where {r} != 0"


def _removable_needle(rng, _):
    quotient, p, r = _removable(rng)
    width = _small(rng, 8, 12)      # |r| < 10^-4: no point of small denominator off the line
    return ("needle hugging the singular line", ReLU(quotient), ReLU(p) + ReLU(width - r ** 2), False,
            f"(p·r)/r = p where r != 0, and 0 < r^2 < {width} near the line r = 0")


def _removable_far(rng, _):
    quotient, p, r = _removable(rng)
    far, step = _far(rng), _small(rng, 1, 3)
    return ("removable singularity with a far ReLU", quotient, p + step * ReLU(X - far), False,
            f"the ReLU term is positive for x > {far}")


def _removable_relu_numerator(rng, _):
    r = _linear_form(rng, (X, Y))
    s = _linear_form(rng, (X, Y, Z))
    return ("ReLU times a cancelling factor", sp.expand(r * ReLU(s)) / r, ReLU(s), True,
            f"r·ReLU(s)/r = ReLU(s) where {r} != 0")


def _removable_relu_shifted(rng, _):
    r = _linear_form(rng, (X, Y))
    s = _linear_form(rng, (X, Y, Z))
    step = _small(rng, 1, 4)
    return ("ReLU times a cancelling factor, shifted kink", sp.expand(r * ReLU(s)) / r,
            ReLU(s + step), False, f"ReLU(s) != ReLU(s + {step}) where s > -{step}")


def _removable_wrong(rng, _):
    quotient, p, r = _removable(rng)
    step = _small(rng, 1, 4)
    return ("removable singularity, wrong quotient", quotient, p + step * X * Y, False,
            f"differs by {step}·x·y")


def _removable_max(rng, _):
    quotient, p, r = _removable(rng)
    return "max of a quotient and its value", _max(quotient, p), p, True, f"both are p where {r} != 0"


def removable(rng: random.Random, count: int) -> list[KnownClaim]:
    return _family("removable singularity", [_removable_equal, _removable_needle, _removable_relu,
                                             _removable_far, _removable_relu_numerator,
                                             _removable_relu_shifted, _removable_max, _removable_wrong],
                   [1], rng, count)


# --- 3. needles: thin regions ----------------------------------------------------------------------

def _needle_disk(rng, _):
    c1, c2, width = _rational(rng), _rational(rng), _small(rng)
    return ("small disk", ReLU(width - (X - c1) ** 2 - (Y - c2) ** 2), 0, False,
            f"positive at ({c1}, {c2})")


def _needle_ball(rng, _):
    width = _small(rng)
    return "small ball", ReLU(width - X ** 2 - Y ** 2 - Z ** 2), 0, False, "positive at the origin"


def _annulus(rng, inner: sp.Rational):
    width = _small(rng)
    radius = X ** 2 + Y ** 2
    return ReLU(width - radius) * ReLU(radius - inner * width), width


def _needle_no_annulus(rng, _):
    inner = 1 + rng.choice((0, sp.Rational(1, rng.randint(1, 10))))
    product, width = _annulus(rng, inner)
    return ("disk inside its own hole", product, 0, True,
            f"x^2 + y^2 < {width} and > {inner}·{width} >= {width} cannot both hold")


def _needle_annulus(rng, _):
    inner = 1 - _small(rng, 1, 4)
    product, width = _annulus(rng, inner)
    return ("thin annulus", product, 0, False, f"{inner}·{width} < x^2 + y^2 < {width} is a ring")


def _needle_slab(rng, _):
    c, width = _rational(rng), _small(rng)
    return ("thin slab", ReLU(X - c) * ReLU(c + width - X), 0, False, f"x in ({c}, {c} + {width})")


def _needle_empty_slab(rng, _):
    c, width = _rational(rng), _small(rng)
    return ("empty slab", ReLU(X - c) * ReLU(c - width - X), 0, True, f"x > {c} and x < {c} - {width}")


def _wedge(rng, opening):
    slope = _rational(rng)
    return ReLU(Y - slope * X) * ReLU((slope + opening) * X - Y) * ReLU(X), slope


def _needle_wedge(rng, _):
    opening = _small(rng)
    product, slope = _wedge(rng, opening)
    return ("thin wedge", product, 0, False, f"{slope}·x < y < ({slope} + {opening})·x for x > 0")


def _needle_empty_wedge(rng, _):
    opening = -_small(rng)
    product, slope = _wedge(rng, opening)
    return ("empty wedge", product, 0, True, f"{slope}·x < y < ({slope} - {-opening})·x forces x < 0")


def _needle_disk_off_line(rng, _):
    width = _small(rng, 1, 6)
    return ("small disk beside a line it does not reach", ReLU(width - X ** 2 - Y ** 2) * ReLU(X - 1),
            0, True, f"x^2 < {width} < 1 forces x < 1")


def needles(rng: random.Random, count: int) -> list[KnownClaim]:
    return _family("needle", [_needle_disk, _needle_no_annulus, _needle_slab, _needle_empty_slab,
                              _needle_wedge, _needle_empty_wedge, _needle_annulus, _needle_disk_off_line,
                              _needle_ball], [1], rng, count)


# --- 4. far regions --------------------------------------------------------------------------------

def _far_relu(rng, _):
    far = _far(rng)
    return "far ReLU", ReLU(X - far), 0, False, f"positive for x > {far}"


def _far_empty_slab(rng, _):
    far = _far(rng)
    below = far - rng.choice((0, 1, rng.randint(2, 10 ** 3)))
    return ("far empty slab", ReLU(X - far) * ReLU(below - X), 0, True, f"x > {far} and x < {below}")


def _far_thin_slab(rng, _):
    far = _far(rng)
    return "far thin slab", ReLU(X - far) * ReLU(far + 1 - X), 0, False, f"x in ({far}, {far} + 1)"


def _far_max(rng, _):
    far = _far(rng)
    return "max with a far constant", _max(X, far), far + ReLU(X - far), True, "max(a, b) = b + ReLU(a - b)"


def _far_max_wrong(rng, _):
    far = _far(rng)
    below = far - rng.randint(1, 10 ** 3)
    return ("max with a far constant, kink moved", _max(X, far), far + ReLU(X - below), False,
            f"differ for x in ({below}, {far})")


def _far_min(rng, _):
    far = _far(rng)
    return "min with a far negative constant", _min(X, -far), -far - ReLU(-far - X), True, \
        "min(a, b) = b - ReLU(b - a)"


def _far_hyperbola(rng, _):
    far = _far(rng)
    return ("far hyperbolic region", ReLU(X * Y - far) * ReLU(X - Y), 0, False,
            f"x = y + 1 with y large gives x y > {far}")


def _far_not_additive(rng, _):
    far = _far(rng)
    return ("far ReLUs are not additive", ReLU(X - far) + ReLU(Y - far), ReLU(X + Y - 2 * far), False,
            f"x = {far} + 1, y = 0 gives 1 against 0")


def _far_abs(rng, _):
    far = _far(rng)
    return "far Abs", ReLU(X - far) + ReLU(far - X), sp.Abs(X - far), True, "|s| = ReLU(s) + ReLU(-s)"


def _far_moved_kink(rng, _):
    far = _far(rng)
    return ("far kink moved by one", ReLU(X - far), ReLU(X - far - 1), False,
            f"differ for x > {far}")


def far_regions(rng: random.Random, count: int) -> list[KnownClaim]:
    return _family("far region", [_far_relu, _far_empty_slab, _far_thin_slab, _far_max, _far_max_wrong,
                                  _far_min, _far_hyperbola, _far_abs, _far_not_additive, _far_moved_kink],
                   [1], rng, count)


# --- 5. non-linear boundaries ----------------------------------------------------------------------

def _hyperbola_disk(rng, radius_factor):
    """ReLU(x y - a)·ReLU(r - x^2 - y^2): empty exactly when r <= 2a, since x^2 + y^2 >= 2 x y."""
    a = sp.Rational(rng.randint(1, 16), rng.randint(1, 4))
    r = 2 * a * radius_factor
    return ReLU(X * Y - a) * ReLU(r - X ** 2 - Y ** 2), a, r


def _nonlinear_hyperbola_disk(rng, _):
    product, a, r = _hyperbola_disk(rng, 1 - _small(rng, 1, 4))
    return "hyperbola outside a disk", product, 0, True, f"x y > {a} forces x^2 + y^2 > {2 * a} >= {r}"


def _nonlinear_hyperbola_disk_edge(rng, _):
    product, a, r = _hyperbola_disk(rng, 1)
    return "hyperbola touching a disk", product, 0, True, f"x y > {a} forces x^2 + y^2 > {r}"


def _nonlinear_hyperbola_meets_disk(rng, _):
    epsilon = _small(rng, 1, 4)
    product, a, r = _hyperbola_disk(rng, 1 + epsilon)
    return ("hyperbola meeting a disk", product, 0, False,
            f"x = y slightly above sqrt({a}) lies in both")


def _band(rng, width):
    curve = sum(_rational(rng, -2, 2) * X ** k for k in range(rng.randint(2, 3) + 1))
    return ReLU(Y - curve) * ReLU(curve + width - Y), curve


def _nonlinear_band(rng, _):
    width = _small(rng, 1, 5)
    product, curve = _band(rng, width)
    return "thin band along a curve", product, 0, False, f"y = {curve} + {width}/2"


def _nonlinear_no_band(rng, _):
    width = -_rational(rng, 0, 2)
    product, curve = _band(rng, width)
    return "empty band along a curve", product, 0, True, f"y > {curve} and y < {curve} - {-width}"


def _am_gm(rng, slack):
    """x, y, z > 0 with x y z > c^3 and x + y + z < b: empty exactly when b <= 3c (AM-GM)."""
    c = sp.Rational(rng.randint(1, 12), rng.randint(1, 4))
    b = 3 * c * slack
    product = ReLU(X) * ReLU(Y) * ReLU(Z) * ReLU(X * Y * Z - c ** 3) * ReLU(b - X - Y - Z)
    return product, b, c


def _nonlinear_am_gm(rng, _):
    product, b, c = _am_gm(rng, 1 - rng.choice((0, _small(rng, 1, 3))))
    return "AM-GM: product above, sum below", product, 0, True, f"x + y + z >= 3 (x y z)^(1/3) > {3 * c} >= {b}"


def _nonlinear_am_gm_false(rng, _):
    epsilon = _small(rng, 1, 3)
    product, b, c = _am_gm(rng, 1 + epsilon)
    return "AM-GM with room to spare", product, 0, False, f"x = y = z = {c}·(1 + {epsilon}/2)"


def _root_interval(rng, above: bool):
    """ReLU(x^2 - k)·ReLU(x)·ReLU(c - x) with c a decimal just below or above sqrt(k)."""
    k = rng.choice([n for n in range(2, 30) if math.isqrt(n) ** 2 != n])
    digits = rng.randint(2, 8)
    below = sp.Rational(math.isqrt(k * 10 ** (2 * digits)), 10 ** digits)
    c = below + sp.Rational(1, 10 ** digits) if above else below
    return ReLU(X ** 2 - k) * ReLU(X) * ReLU(c - X), k, c


def _nonlinear_root(rng, _):
    product, k, c = _root_interval(rng, above=False)
    return "interval ending just below a square root", product, 0, True, f"x > sqrt({k}) > {c}"


def _nonlinear_root_false(rng, _):
    product, k, c = _root_interval(rng, above=True)
    return "interval ending just above a square root", product, 0, False, f"sqrt({k}) < x < {c}"


def nonlinear(rng: random.Random, count: int) -> list[KnownClaim]:
    return _family("non-linear boundary", [_nonlinear_hyperbola_disk, _nonlinear_hyperbola_meets_disk,
                                           _nonlinear_hyperbola_disk_edge, _nonlinear_band,
                                           _nonlinear_no_band, _nonlinear_am_gm, _nonlinear_am_gm_false,
                                           _nonlinear_root, _nonlinear_root_false], [1], rng, count)


# --- 6. independent kinks --------------------------------------------------------------------------

def _kinks(rng, k):
    xs = _reals("x", k)
    return xs, [_rational(rng) for _ in xs]


def _kinks_products(rng, k):
    xs, cs = _kinks(rng, k)
    return (f"{k} products ReLU(s)·ReLU(-s)", sum(ReLU(x - c) * ReLU(c - x) for x, c in zip(xs, cs)), 0,
            True, "ReLU(s)·ReLU(-s) = 0 for each term")


def _kinks_products_thin(rng, k):
    xs, cs = _kinks(rng, k)
    j, width = rng.randrange(k), _small(rng)
    gap = ReLU(xs[j] - cs[j]) * ReLU(cs[j] + width - xs[j])
    return (f"{k} products, one of them a thin slab",
            sum(ReLU(x - c) * ReLU(c - x) for i, (x, c) in enumerate(zip(xs, cs)) if i != j) + gap, 0,
            False, f"the term of {xs[j]} is positive on ({cs[j]}, {cs[j]} + {width})")


def _kinks_abs(rng, k):
    xs, cs = _kinks(rng, k)
    return (f"{k} Abs split into ReLUs", sum(sp.Abs(x - c) for x, c in zip(xs, cs)),
            sum(ReLU(x - c) + ReLU(c - x) for x, c in zip(xs, cs)), True, "|s| = ReLU(s) + ReLU(-s)")


def _kinks_abs_thin(rng, k):
    xs, cs = _kinks(rng, k)
    j, width = rng.randrange(k), _small(rng)
    return (f"{k} Abs split into ReLUs, plus a thin slab", sum(sp.Abs(x - c) for x, c in zip(xs, cs)),
            sum(ReLU(x - c) + ReLU(c - x) for x, c in zip(xs, cs))
            + ReLU(xs[j] - cs[j]) * ReLU(cs[j] + width - xs[j]), False,
            f"the slab term is positive for {xs[j]} in ({cs[j]}, {cs[j]} + {width})")


def _kinks_max(rng, k):
    xs, cs = _kinks(rng, k)
    return (f"{k} max with constants", sum(_max(x, c) for x, c in zip(xs, cs)),
            sum(c + ReLU(x - c) for x, c in zip(xs, cs)), True, "max(a, b) = b + ReLU(a - b)")


def _kinks_max_moved(rng, k):
    xs, cs = _kinks(rng, k)
    j, step = rng.randrange(k), _small(rng, 1, 4)
    moved = [c + step if i == j else c for i, c in enumerate(cs)]
    return (f"{k} max with constants, one kink moved", sum(_max(x, c) for x, c in zip(xs, cs)),
            sum(c + ReLU(x - m) for x, c, m in zip(xs, cs, moved)), False,
            f"the term of {xs[j]} differs on ({cs[j]}, {moved[j]})")


def independent_kinks(rng: random.Random, count: int) -> list[KnownClaim]:
    sizes = [10] + rng.sample(range(2, 10), 8)
    return _family("independent kinks", [_kinks_products, _kinks_products_thin, _kinks_abs,
                                         _kinks_abs_thin, _kinks_max, _kinks_max_moved],
                   sizes, rng, count)


# --- 7. wide max -----------------------------------------------------------------------------------

def _max_chain(args) -> sp.Expr:
    """max(a1, ..., an) by max(m, b) = b + ReLU(m - b), nested one argument at a time (ReLU left
    unevaluated: its sign queries on the nested argument grow with the depth)."""
    result = args[0]
    for b in args[1:]:
        result = b + ReLU(result - b, evaluate=False)
    return result


def _min_chain(args) -> sp.Expr:
    """min(a1, ..., an) by min(m, b) = b - ReLU(b - m)."""
    result = args[0]
    for b in args[1:]:
        result = b - ReLU(b - result, evaluate=False)
    return result


def _wide_split_first(rng, n):
    xs = _reals("x", n)
    return (f"max of {n} split at its first argument", _max(*xs), xs[0] + ReLU(_max(*xs[1:]) - xs[0]),
            True, "max(a, m) = a + ReLU(m - a)")


def _wide_split_first_dropped(rng, n):
    xs = _reals("x", n)
    j = rng.randrange(1, n)
    rest = [x for i, x in enumerate(xs) if i not in (0, j)]
    return (f"max of {n} split at its first argument, one argument dropped", _max(*xs),
            xs[0] + ReLU(_max(*rest) - xs[0]), False, f"differ where {xs[j]} is the largest")


def _wide_chain(rng, n):
    xs = _reals("x", n)
    order = rng.sample(xs, n)
    return f"max of {n} as a nested chain", _max(*xs), _max_chain(order), True, "max is associative"


def _wide_chain_shifted(rng, n):
    xs = _reals("x", n)
    order = rng.sample(xs, n)
    j, step = rng.randrange(n), _small(rng, 1, 4)
    shifted = [x + step if i == j else x for i, x in enumerate(order)]
    return (f"max of {n} as a nested chain, one argument shifted", _max(*xs), _max_chain(shifted), False,
            f"differ where {order[j]} is the largest")


def _wide_min_chain(rng, n):
    xs = _reals("x", n)
    order = rng.sample(xs, n)
    return f"min of {n} as a nested chain", _min(*xs), _min_chain(order), True, "min is associative"


def _wide_min_chain_dropped(rng, n):
    xs = _reals("x", n)
    order = rng.sample(xs, n)[1:]
    return (f"min of {n} as a nested chain, one argument dropped", _min(*xs), _min_chain(order), False,
            "differ where the dropped argument is the smallest")


def _wide_translation(rng, n):
    xs = _reals("x", n)
    c = _rational(rng, nonzero=True)
    return (f"max of {n} translated", _max(*[x + c for x in xs]), c + _max(*xs), True,
            "max(a + c, b + c) = c + max(a, b)")


def _wide_translation_wrong(rng, n):
    xs = _reals("x", n)
    c = _rational(rng, nonzero=True)
    j = rng.randrange(n)
    return (f"max of {n} translated, one argument left behind",
            _max(*[x if i == j else x + c for i, x in enumerate(xs)]), c + _max(*xs), False,
            f"differ where {xs[j]} is the largest by more than |{c}|")


def wide_max(rng: random.Random, count: int) -> list[KnownClaim]:
    sizes = [40, 10] + rng.sample(range(11, 40), 8)
    return _family("wide max", [_wide_split_first, _wide_split_first_dropped, _wide_chain,
                                _wide_chain_shifted, _wide_min_chain, _wide_min_chain_dropped,
                                _wide_translation, _wide_translation_wrong], sizes, rng, count)


# --- 8. integer symbols ----------------------------------------------------------------------------

def _integer_gap(rng, _):
    a = rng.randint(-20, 20)
    return "no integer strictly between a and a + 1", ReLU(N - a) * ReLU(a + 1 - N), 0, True, \
        f"n integer: n > {a} forces n >= {a + 1}"


def _integer_gap_of_two(rng, _):
    a = rng.randint(-20, 20)
    return "an integer strictly between a and a + 2", ReLU(N - a) * ReLU(a + 2 - N), 0, False, \
        f"n = {a + 1}"


def _integer_gap_real(rng, _):
    a = rng.randint(-20, 20)
    return "a real strictly between a and a + 1", ReLU(X - a) * ReLU(a + 1 - X), 0, False, \
        f"x = {a} + 1/2"


def _integer_sum_gap(rng, _):
    a = rng.randint(-20, 20)
    return "no integer sum strictly between a and a + 1", ReLU(N + M - a) * ReLU(a + 1 - N - M), 0, \
        True, "n + m is an integer"


def _integer_half_sum(rng, _):
    a = rng.randint(-20, 20)
    return ("a half-integer sum strictly between a and a + 1",
            ReLU(N + M / 2 - a) * ReLU(a + 1 - N - M / 2), 0, False, f"n = {a}, m = 1")


def _positive_integer_gap(rng, _):
    b = rng.randint(1, 30)
    return ("no positive integer strictly between b - 1 and b", ReLU(b - P) * ReLU(P - b + 1), 0, True,
            f"p integer: p > {b - 1} forces p >= {b}")


def _positive_integer_gap_false(rng, _):
    b = rng.randint(1, 30)
    return ("a positive integer strictly between b - 1 and b + 1", ReLU(b + 1 - P) * ReLU(P - b + 1), 0,
            False, f"p = {b}")


def _integer_odd_abs(rng, _):
    a = rng.randint(-20, 20)
    return "an odd number has absolute value at least 1", ReLU(1 - sp.Abs(2 * N - 2 * a - 1)), 0, True, \
        f"2n - {2 * a + 1} is odd"


def _integer_abs_false(rng, _):
    a = rng.randint(-20, 20)
    return "an integer at distance below 1", ReLU(1 - sp.Abs(N - a)), 0, False, f"n = {a}"


def _integer_product_gap(rng, _):
    a = rng.randint(-20, 20)
    return "no integer product strictly between a and a + 1", ReLU(N * M - a) * ReLU(a + 1 - N * M), 0, \
        True, "n m is an integer"


def _integer_product_gap_false(rng, _):
    a = rng.randint(-20, 20)
    return "an integer product strictly between a and a + 2", ReLU(N * M - a) * ReLU(a + 2 - N * M), 0, \
        False, f"n = 1, m = {a + 1}"


def integer_symbols(rng: random.Random, count: int) -> list[KnownClaim]:
    return _family("integer symbols", [_integer_gap, _integer_gap_of_two, _integer_gap_real,
                                       _integer_sum_gap, _integer_half_sum, _positive_integer_gap,
                                       _positive_integer_gap_false, _integer_odd_abs, _integer_abs_false,
                                       _integer_product_gap, _integer_product_gap_false], [1], rng, count)


# --- 9. positive homogeneity and rescaling ---------------------------------------------------------

def _homogeneous(rng: random.Random, depth: int = 2) -> sp.Expr:
    """A positively homogeneous function of x, y, z: linear forms without constants, closed under
    ReLU, Abs, Max, Min, sums and rational multiples."""
    if depth == 0 or rng.random() < 0.2:
        return _linear_form(rng, (X, Y, Z), constant=False)
    kind = rng.randrange(6)
    first = _homogeneous(rng, depth - 1)
    if kind == 0:
        return ReLU(first)
    if kind == 1:
        return sp.Abs(first)
    second = _homogeneous(rng, depth - 1)
    if kind == 2:
        return _max(first, second)
    if kind == 3:
        return _min(first, second)
    if kind == 4:
        return first + second
    return _rational(rng, -3, 3, nonzero=True) * first + ReLU(second)


def _value_at(expr: sp.Expr, point: dict) -> sp.Rational:
    return expr.xreplace(point).doit()


def _homogeneous_where(rng: random.Random, condition) -> sp.Expr:
    """A homogeneous f and a rational point where condition(f, point) holds (exactly): the false
    claims about f below are false because of that point."""
    while True:
        f = _homogeneous(rng)
        for _ in range(20):
            point = {s: _rational(rng, nonzero=True) for s in (X, Y, Z)}
            if condition(f, point):
                return f


def _scaled(f: sp.Expr, scale: sp.Expr) -> sp.Expr:
    return f.xreplace({s: scale * s for s in (X, Y, Z)})


def _homogeneity(rng, _):
    f = _homogeneous(rng)
    return "positive homogeneity", _scaled(f, A), A * f, True, "built from homogeneous pieces"


def _homogeneity_constant(rng, _):
    f = _homogeneous(rng)
    c = _rational(rng, nonzero=True)
    return "homogeneity with a constant added", _scaled(f, A) + c, A * (f + c), False, \
        f"the two sides differ by {c}·(a - 1)"


def _homogeneity_wrong_power(rng, _):
    f = _homogeneous_where(rng, lambda f, point: _value_at(f, point) != 0)
    return "homogeneity of degree 2 claimed", _scaled(f, A), A ** 2 * f, False, \
        "f(a·x) = a·f(x) != a^2·f(x) at a = 2 where f != 0"


def _homogeneity_real_scale(rng, _):
    f = _homogeneous_where(rng, lambda f, point: _value_at(f, {s: -v for s, v in point.items()})
                           != -_value_at(f, point))
    return "homogeneity with a scale of either sign", _scaled(f, T), T * f, False, \
        "f is not odd: t = -1 separates"


def _network(rng: random.Random, scale_bias: bool):
    """Σ_j v_j/a · ReLU(a·w_j·x + a·b_j) against Σ_j v_j ReLU(w_j·x + b_j) (or b_j left unscaled)."""
    width = rng.randint(1, 3)
    inputs = (X, Y)
    w = [sp.symbols(f"w_{j}0:2", real=True) for j in range(width)]
    b = sp.symbols(f"b_0:{width}", real=True)
    v = sp.symbols(f"v_0:{width}", real=True)
    pre = [sum(wi * xi for wi, xi in zip(w[j], inputs)) for j in range(width)]
    lhs = sum(v[j] / A * ReLU(A * pre[j] + (A if scale_bias else 1) * b[j]) for j in range(width))
    rhs = sum(v[j] * ReLU(pre[j] + b[j]) for j in range(width))
    return lhs, rhs, width


def _homogeneity_network(rng, _):
    lhs, rhs, width = _network(rng, scale_bias=True)
    return f"rescaled network of width {width}", lhs, rhs, True, "ReLU(a·s) = a·ReLU(s) for a > 0"


def _homogeneity_network_bias(rng, _):
    lhs, rhs, width = _network(rng, scale_bias=False)
    return (f"rescaled network of width {width}, bias unscaled", lhs, rhs, False,
            "w = 0, b_0 = 1, v_0 = 1, other v = 0, a = 2: 1/2 against 1")


def _homogeneity_max(rng, _):
    first, second = (_linear_form(rng, (X, Y, Z), constant=False) for _ in range(2))
    return ("max of scaled forms", _max(A * first, A * second), A * _max(first, second), True,
            "a > 0 preserves order")


def _homogeneity_max_one_scaled(rng, _):
    return ("max with one argument scaled", _max(A * X, Y), A * _max(X, Y), False,
            "x = 0, y = 1, a = 2: 1 against 2")


def homogeneity(rng: random.Random, count: int) -> list[KnownClaim]:
    return _family("homogeneity", [_homogeneity, _homogeneity_constant, _homogeneity_wrong_power,
                                   _homogeneity_real_scale, _homogeneity_network,
                                   _homogeneity_network_bias, _homogeneity_max, _homogeneity_max_one_scaled],
                   [1], rng, count)


# --- 10. the domain as written: sides defined on different sets -------------------------------------

def _written_ratio(numerator: sp.Expr, denominator: sp.Expr) -> sp.Expr:
    """numerator/denominator as written: sympy does not cancel it (x/x stays undefined at 0)."""
    return sp.Mul(numerator, sp.Pow(denominator, -1, evaluate=False), evaluate=False)


def _one_as_written(rng: random.Random):
    """ReLU(L)/ReLU(L): 1 where L > 0, undefined elsewhere."""
    form = _linear_form(rng, (X, Y))
    return form, _written_ratio(ReLU(form), ReLU(form))


def _domain_relu_ratio(rng, _):
    form, one = _one_as_written(rng)
    return ("ReLU(L)/ReLU(L) against ReLU(L)/L", one, _written_ratio(ReLU(form), form), True,
            "both sides are 1 where L > 0, the only points where the left side is defined")


def _domain_relu_ratio_shifted(rng, _):
    form, one = _one_as_written(rng)
    c = _rational(rng, 1, 5, nonzero=True)
    shifted = form - c
    return ("ReLU(L)/ReLU(L) against ReLU(L - c)/(L - c)", one, _written_ratio(ReLU(shifted), shifted),
            False, f"1 against 0 where 0 < L < {c}")


def _domain_product(rng, _):
    first, second = (_linear_form(rng, (X, Y)) for _ in range(2))
    both = ReLU(first) * ReLU(second)
    total = first + second
    return ("ReLU(L1)ReLU(L2)/(ReLU(L1)ReLU(L2)) against ReLU(L1 + L2)/(L1 + L2)",
            _written_ratio(both, both), _written_ratio(ReLU(total), total), True,
            "L1 > 0 and L2 > 0 wherever the left side is defined, so L1 + L2 > 0")


def _domain_product_difference(rng, _):
    # L1 has an x term and L2 = L1 + t·y: where t·y > 0, x can make 0 < L1 < L2
    first = _linear_form(rng, (X,)) + rng.randint(-3, 3) * Y
    second = first + _rational(rng, nonzero=True) * Y
    both = ReLU(first) * ReLU(second)
    difference = first - second
    return ("ReLU(L1)ReLU(L2)/(ReLU(L1)ReLU(L2)) against ReLU(L1 - L2)/(L1 - L2)",
            _written_ratio(both, both), _written_ratio(ReLU(difference), difference), False,
            "1 against 0 where 0 < L1 < L2")


def _domain_sign(rng, _):
    form = _linear_form(rng, (X, Y))
    return "L/L against 2 - sign(L)^2", _written_ratio(form, form), 2 - sp.sign(form) ** 2, True, \
        "both 1 where L != 0, the only points where L/L is defined"


def _domain_sign_wrong(rng, _):
    form = _linear_form(rng, (X, Y))
    return "L/L against sign(L)", _written_ratio(form, form), sp.sign(form), False, \
        "1 against -1 where L < 0"


def _domain_root_square(rng, _):
    form = _linear_form(rng, (X, Y))
    return "sqrt(L)^2 against L", sp.Pow(sp.sqrt(form), 2, evaluate=False), form, True, \
        "defined where L >= 0, and equal there"


def _domain_root_of_square(rng, _):
    form = _linear_form(rng, (X, Y))
    return "sqrt(L^2) against L", sp.sqrt(sp.Pow(form, 2, evaluate=False), evaluate=False), form, \
        False, "|L| against L where L < 0"


def domain_as_written(rng: random.Random, count: int) -> list[KnownClaim]:
    return _family("domain as written", [_domain_relu_ratio, _domain_relu_ratio_shifted, _domain_product,
                                         _domain_product_difference, _domain_sign, _domain_sign_wrong,
                                         _domain_root_square, _domain_root_of_square], [1], rng, count)


# --- 11. Piecewise, floor, ceiling and Mod -----------------------------------------------------------

def _piecewise_relu(rng, _):
    form = _linear_form(rng, (X, Y))
    return "ReLU written as Piecewise", sp.Piecewise((form, form > 0), (0, True)), ReLU(form), True, \
        "the definition of ReLU"


def _piecewise_relu_shifted(rng, _):
    form = _linear_form(rng, (X, Y))
    c = _small(rng, 1, 3)
    return "ReLU as Piecewise with a shifted threshold", sp.Piecewise((form, form > c), (0, True)), \
        ReLU(form), False, f"L against 0 where 0 < L <= {c}"


def _piecewise_abs(rng, _):
    form = _linear_form(rng, (X, Y))
    return "|L| written as Piecewise", sp.Piecewise((form, form >= 0), (-form, True)), sp.Abs(form), \
        True, "the definition of |L|"


def _piecewise_point(rng, _):
    form = _linear_form(rng, (X, Y))
    return "an indicator of L = 0 against 1 - sign(L)^2", \
        sp.Piecewise((1, sp.Eq(form, 0)), (0, True)), 1 - sp.sign(form) ** 2, True, \
        "both 1 on L = 0 and 0 elsewhere"


def _piecewise_point_zero(rng, _):
    form = _linear_form(rng, (X, Y))
    return "an indicator of L = 0 against 0", sp.Piecewise((1, sp.Eq(form, 0)), (0, True)), 0, False, \
        "1 on the line L = 0"


def _piecewise_max(rng, _):
    first, second = (_linear_form(rng, (X, Y)) for _ in range(2))
    return "max of two forms as Piecewise with And/Or", \
        sp.Piecewise((first, sp.Or(first > second, sp.And(first >= second, X > 0))), (second, True)), \
        _max(first, second), True, "the larger of the two, ties either way"


def _floor_halves(rng, _):
    k = rng.randint(2, 5)
    return f"floor(n/{k}) + ceiling(n/{k}) against 2n/{k} rounded", \
        sp.floor(N / k) + sp.ceiling(N / k), 2 * sp.floor(N / k) + sp.sign(sp.Mod(N, k)), True, \
        "ceiling(n/k) = floor(n/k) + 1 exactly when k does not divide n"


def _floor_double(rng, _):
    k = rng.randint(2, 5)
    return f"{k} floor(n/{k}) against n", k * sp.floor(N / k), N, False, "n = 1: 0 against 1"


def _mod_idempotent(rng, _):
    return "Mod(n, 2)^2 against Mod(n, 2)", sp.Mod(N, 2) ** 2, sp.Mod(N, 2), True, "Mod(n, 2) is 0 or 1"


def _mod_not_idempotent(rng, _):
    k = rng.randint(3, 6)
    return f"Mod(n, {k})^2 against Mod(n, {k})", sp.Mod(N, k) ** 2, sp.Mod(N, k), False, "n = 2: 4 against 2"


def piecewise(rng: random.Random, count: int) -> list[KnownClaim]:
    return _family("piecewise", [_piecewise_relu, _piecewise_relu_shifted, _piecewise_abs, _piecewise_point,
                                 _piecewise_point_zero, _piecewise_max, _floor_halves, _floor_double,
                                 _mod_idempotent, _mod_not_idempotent], [1], rng, count)


# --- the corpora -----------------------------------------------------------------------------------

FAMILIES = {
    "cancellation": cancellation,
    "removable singularity": removable,
    "needle": needles,
    "far region": far_regions,
    "non-linear boundary": nonlinear,
    "independent kinks": independent_kinks,
    "wide max": wide_max,
    "integer symbols": integer_symbols,
    "homogeneity": homogeneity,
    "domain as written": domain_as_written,
    "piecewise": piecewise,
}

SOUNDNESS_CORPUS = "soundness corpus"


def soundness_corpus_claims() -> list[KnownClaim]:
    """The expression claims of proofs.corpora.corpus (those with two sides)."""
    return [KnownClaim(SOUNDNESS_CORPUS, f"{SOUNDNESS_CORPUS}: {claim.name}",
                       *map(sp.sympify, claim.sides()), claim.true, "hand-written in proofs.corpora.corpus")
            for claim in corpus.FALSE_CLAIMS + corpus.TRUE_CLAIMS if claim.sides is not None]


def family_claims(family: str, seed: int = PROJECT_SEED, count: int = CLAIMS_PER_FAMILY) -> list[KnownClaim]:
    """count claims of one family; each family draws from its own generator, so the claims of one
    family do not change when another changes."""
    return FAMILIES[family](random.Random(f"{seed}/{family}"), count)


def claims(seed: int = PROJECT_SEED, count: int = CLAIMS_PER_FAMILY) -> list[KnownClaim]:
    """The corpus of a seed: count claims of every family, then the soundness corpus."""
    generated = [claim for family in FAMILIES for claim in family_claims(family, seed, count)]
    return generated + soundness_corpus_claims()


# --- linear constraint sets for the region oracle --------------------------------------------------

@dataclass(frozen=True)
class ConstraintSet:
    """The open set {c > 0 for c in constraints}: non-empty with ``point`` inside it, or empty with
    ``multipliers`` λ >= 0, not all 0, such that Σ λ_i c_i is a constant <= 0."""

    constraints: tuple[sp.Expr, ...]
    symbols: tuple[sp.Symbol, ...]
    feasible: bool
    point: dict | None = None
    multipliers: tuple[sp.Rational, ...] | None = None


def _with_relaxed_copies(rng: random.Random, rows: list) -> list:
    """Add redundant constraints c + k (k > 0), implied by c > 0: the shape on which an LP solver
    once called an empty set non-empty."""
    copies = [(sp.expand(c + sp.Integer(rng.randint(1, 4))), sp.S.Zero) for c, _ in rows
              if rng.random() < 0.3]
    rows = rows + copies
    rng.shuffle(rows)
    return rows


def _feasible_set(rng: random.Random, symbols, count: int) -> ConstraintSet:
    """Constraints through a chosen point, each with a positive margin there, some of them paired
    into a thin slab around it."""
    point = {s: _rational(rng) for s in symbols}
    constraints = []
    while len(constraints) < count:
        form = _linear_form(rng, symbols, constant=False)
        at_point = form.xreplace(point)
        margin = _small(rng, 1, 6) if rng.random() < 0.4 else _rational(rng, 0, 3, nonzero=True) ** 2
        constraints.append(sp.expand(form - at_point + margin))
        if rng.random() < 0.3:
            constraints.append(sp.expand(at_point - form + _small(rng, 1, 6)))
    rows = _with_relaxed_copies(rng, [(c, None) for c in constraints])
    return ConstraintSet(tuple(c for c, _ in rows), tuple(symbols), True, point=point)


def _empty_set(rng: random.Random, symbols, count: int) -> ConstraintSet:
    """Forms c_1..c_{k-1} and positive λ; c_k = (-r - Σ λ_i c_i)/λ_k, so Σ λ_i c_i = -r <= 0.
    r = 0 gives an empty open set whose closure is not empty, the hard case.  Unrelated
    constraints and relaxed copies (λ = 0) are mixed in."""
    involved = rng.randint(2, max(2, count))
    forms = [_linear_form(rng, symbols) for _ in range(involved - 1)]
    weights = [sp.Integer(rng.randint(1, 5)) for _ in range(involved)]
    r = rng.choice((sp.S.Zero, _small(rng, 1, 4), sp.Integer(rng.randint(1, 5))))
    forms.append(sp.expand((-r - sum(w * f for w, f in zip(weights, forms))) / weights[-1]))
    rows = list(zip(forms, weights))
    rows += [(_linear_form(rng, symbols), sp.S.Zero) for _ in range(count - involved)]
    rows = _with_relaxed_copies(rng, rows)
    return ConstraintSet(tuple(c for c, _ in rows), tuple(symbols), False,
                         multipliers=tuple(w for _, w in rows))


def constraint_sets(seed: int = PROJECT_SEED, count: int = 200):
    """count sets of strict linear inequalities in 1 to 4 real unknowns, half of them empty."""
    rng = random.Random(f"{seed}/linear constraint sets")
    for index in range(count):
        symbols = _reals("u", rng.randint(1, 4))
        size = rng.randint(2, 7)
        yield (_feasible_set if index % 2 == 0 else _empty_set)(rng, symbols, size)
