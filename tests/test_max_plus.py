"""The max-plus normal form: a convex (concave) piecewise-linear side as the maximum (minimum) of
its affine forms, checked against the side itself at exact points, and seen deciding the wide
claims that had gone to the solvers whole."""
import random

import pytest
import sympy as sp

from symbolic import ReLU, Status, check_identity
from symbolic.decision.max_plus import MAX_FORMS, normal_form, separating_points

x, y, z = sp.symbols("x y z", real=True)
SYMBOLS = (x, y, z)


def _value(form, point):
    kind, forms = form
    values = [sum(v * (1 if k == 1 else point[k]) for k, v in f) for f in forms]
    return max(values) if kind == "max" else min(values)


def _random_side(rng, depth):
    """A random side of the grammar (sums, rational multiples, Max, Min, ReLU, Abs)."""
    if depth == 0 or rng.random() < 0.3:
        return sum(sp.Rational(rng.randint(-3, 3), rng.randint(1, 2)) * s for s in SYMBOLS) + \
            sp.Rational(rng.randint(-4, 4), rng.randint(1, 3))
    choice = rng.randrange(6)
    a, b = _random_side(rng, depth - 1), _random_side(rng, depth - 1)
    return [lambda: a + b, lambda: sp.Rational(rng.choice([-2, -1, 1, 3]), 2) * a,
            lambda: sp.Max(a, b), lambda: sp.Min(a, b), lambda: ReLU(a), lambda: sp.Abs(a)][choice]()


def test_the_normal_form_is_the_side_at_every_point_where_it_is_read():
    rng = random.Random(0)
    read = 0
    for _ in range(150):
        side = _random_side(rng, 3)
        form = normal_form(side)
        if form is None:
            continue
        read += 1
        for _ in range(6):
            point = {s: sp.Rational(rng.randint(-20, 20), rng.randint(1, 4)) for s in SYMBOLS}
            assert _value(form, point) == side.xreplace(point), (side, point)
    assert read > 40    # the property was checked on many sides, not vacuously


def test_a_max_plus_a_min_and_other_constructs_have_no_normal_form():
    assert normal_form(sp.Max(x, y) + sp.Min(x, z)) is None          # neither convex nor concave
    assert normal_form(sp.Max(sp.Min(x, y), z)) is None
    assert normal_form(ReLU(-sp.Max(x, y))) is None                 # ReLU of a concave side
    assert normal_form(sp.Abs(sp.Max(x, y))) is None
    assert normal_form(x * y) is None and normal_form(x / y) is None
    assert normal_form(sp.exp(x)) is None
    # past MAX_FORMS forms: a sum of independent maxima multiplies their forms
    wide = sum(sp.Max(s, 0) for s in sp.symbols("w0:12", real=True))
    assert 2 ** 12 > MAX_FORMS and normal_form(wide) is None


def test_forms_that_cannot_be_attained_are_dropped():
    # max(x, y + 1) + max(-y, -x) has the forms x - y, 0, 1 and y - x + 1: of 0 and 1 (one linear
    # part) a max attains 1 alone
    assert normal_form(sp.Max(x, y + 1) + sp.Max(-y, -x)) == ("max", frozenset({
        frozenset({(x, 1), (y, -1)}), frozenset({(1, 1)}), frozenset({(y, 1), (x, -1), (1, 1)})}))
    assert normal_form(sp.Min(x, y - 1) + sp.Min(-y, -x)) == ("min", frozenset({
        frozenset({(x, 1), (y, -1)}), frozenset({(1, -1)}), frozenset({(y, 1), (x, -1), (1, -1)})}))
    assert normal_form(sp.Max(x, x - 1, y)) == normal_form(sp.Max(x, y))
    assert normal_form(sp.Min(x, x - 1)) == normal_form(x - 1)
    # an affine side is read as a max of one form
    assert normal_form(2 * x + 1)[0] == "max" and len(normal_form(2 * x + 1)[1]) == 1


WIDE = sp.symbols("x0:40", real=True)


def wide_max(*arguments):
    return sp.Max(*arguments, evaluate=False)    # as written (sympy's own Max compares pairwise)


def wide_min(*arguments):
    return sp.Min(*arguments, evaluate=False)


@pytest.mark.parametrize("lhs, rhs", [
    (wide_max(*WIDE), WIDE[0] + ReLU(wide_max(*WIDE[1:]) - WIDE[0])),
    (wide_min(*WIDE), WIDE[0] - ReLU(WIDE[0] - wide_min(*WIDE[1:]))),
    (wide_max(*(w - sp.Rational(11, 2) for w in WIDE)), wide_max(*WIDE) - sp.Rational(11, 2)),
    (sp.Max(x, y) + sp.Max(-x, z), sp.Max(x - x, x + z, y - x, y + z)),
    (2 * ReLU(x - y) + y, sp.Max(2 * x - y, y)),
])
def test_wide_claims_are_proved_by_the_normal_form_without_a_solver(lhs, rhs):
    verdict = check_identity(lhs, rhs, timeout=20)
    assert verdict.status is Status.PROVED, verdict.describe()
    assert verdict.evidence[0].startswith("max-plus normal form: both sides are the")
    assert "word alone" not in verdict.reason


@pytest.mark.parametrize("lhs, rhs", [
    (wide_max(*WIDE), WIDE[0] + ReLU(wide_max(*WIDE[1:23], *WIDE[24:]) - WIDE[0])),   # x23 dropped
    (wide_min(*WIDE), WIDE[0] - ReLU(WIDE[0] - wide_min(*WIDE[1:]) - sp.Rational(1, 100))),
    (sp.Max(x, y), sp.Max(x, y, (x + y) / 2 + 1)),
])
def test_their_negative_controls_are_refuted_at_a_re_verified_point(lhs, rhs):
    verdict = check_identity(lhs, rhs, timeout=20)
    assert verdict.status is Status.REFUTED, verdict.describe()
    point = {s: v for s, v in verdict.witness.items() if isinstance(s, sp.Symbol)}
    assert lhs.xreplace(point) != rhs.xreplace(point)


def test_different_sets_of_forms_say_nothing_and_the_claim_is_decided_otherwise():
    # (x + y)/2 is never attained in max(x, y, (x + y)/2): the sets differ, the functions do not
    verdict = check_identity(sp.Max(x, y, (x + y) / 2), sp.Max(x, y), timeout=20)
    assert verdict.status is Status.PROVED
    assert not verdict.evidence[0].startswith("max-plus normal form")


def test_separating_points_are_candidates_where_one_sides_forms_stand_out():
    points = separating_points(normal_form(sp.Max(x, y, z)), normal_form(sp.Max(x, y)), SYMBOLS)
    assert {x: 0, y: 0, z: 1000} in points
    # of different kinds, or unread: no candidates
    assert separating_points(normal_form(sp.Max(x, y)), normal_form(sp.Min(x, y)), SYMBOLS) == []
    assert separating_points(None, normal_form(x), SYMBOLS) == []


def test_a_normal_form_proof_needs_a_point_that_compared_non_zero_values():
    # both sides are 0 at every random point (the kink is far): the equal normal forms are no
    # proof on their own; the proof that stands has a solver's unsat beside it
    verdict = check_identity(ReLU(x - 10**6), sp.Max(x - 10**6, 0), timeout=20)
    assert verdict.status is Status.PROVED
    assert not verdict.evidence[0].startswith("max-plus normal form")
    assert any("unsat" in line or "at least one of them comparing non-zero values" in line
               for line in verdict.evidence)
