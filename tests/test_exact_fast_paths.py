"""The exact fast paths of check_identity: arithmetic in a quadratic field Q(√d) at kinks with a
square-root coordinate, and Fourier–Motzkin elimination on linear regions of the sign split.
Each is compared with sympy's own exact answer, and each answer it gives is checked before use."""
import random

import flint
import pytest
import sympy as sp

import symbolic.decision.regions as regions
from symbolic import ReLU, Status, check_identity
from symbolic.decision.kinks import between_kinks, critical_points, solutions
from symbolic.decision.linear import decide_linear
from symbolic.decision.quadratic import Quadratic, field_of, quadratic_parts
from symbolic.decision.regions import examine, inside
from symbolic.decision.smt import Answer
from symbolic.decision.witness import UNDEFINED, compare_at, exact_value, exactly_zero, field_value, substituted

x, y = sp.symbols("x y", real=True)
n = sp.Symbol("n", integer=True)


def fmpq(r):
    return flint.fmpq(int(r.p), int(r.q))


# --- Q(√d) ----------------------------------------------------------------------------------------

def test_signs_floors_and_ceilings_agree_with_sympy():
    rng = random.Random(3)
    for _ in range(120):
        a, b = (sp.Rational(rng.randint(-60, 60), rng.randint(1, 9)) for _ in range(2))
        d = rng.choice([2, 3, 5, 10, 1000003])
        number, exact = Quadratic(fmpq(a), fmpq(b), d), a + b * sp.sqrt(d)
        assert number.sign() == sp.sign(exact)
        assert number.__floor__() == sp.floor(exact)
        assert number.__ceil__() == sp.ceiling(exact)
        assert (number * number.inverse()) == 1


def test_values_in_the_field_are_sympys_values():
    rng = random.Random(5)
    exprs = [x**3 * y - 2 * x + 1, ReLU(x**2 - 2 * y) - x, sp.Abs(x - 3) * sp.sign(x * y - 1),
             sp.Max(x, y, 1) - sp.Min(x**2, y), sp.floor(3 * x) + sp.ceiling(x * y), sp.Mod(5 * x, y),
             (x + 1) / (x**2 - y)]
    for _ in range(8):
        point = {x: sp.Rational(rng.randint(-9, 9), rng.randint(1, 4)) +
                 sp.Rational(rng.choice([-1, 1]) * rng.randint(1, 9), rng.randint(1, 4)) * sp.sqrt(7),
                 y: sp.Rational(rng.randint(-9, 9), rng.randint(1, 4))}
        for expr in exprs:
            value = field_value(expr, point)
            # sympy's own evaluation, node by node from the leaves (the path this one replaces)
            reference = substituted(expr, point)
            if value is UNDEFINED:
                assert reference is None or reference.has(sp.zoo, sp.nan)
                continue
            got = value.to_sympy() if isinstance(value, Quadratic) else sp.Rational(int(value.p), int(value.q))
            assert exactly_zero(got - reference), (expr, point)


def test_a_kink_at_a_square_root_is_compared_exactly():
    # sign(x² − 2)² = 1 fails at x = √2 only: the field arithmetic sees sign(0) = 0
    separation = compare_at(sp.sign(x**2 - 2) ** 2, sp.S.One, {x: sp.sqrt(2)})
    assert separation.defined and separation.differ and separation.exact
    assert not compare_at(ReLU(x**2 - 2) + x, x, {x: -sp.sqrt(2)}).differ
    # a division by 0 at the point is no value
    assert not compare_at(1 / (x**2 - 2), sp.S.Zero, {x: sp.sqrt(2)}).defined
    # an irrational value is no rational one
    assert exact_value(x + 1, {x: sp.sqrt(2)}) is None
    assert exact_value(x**2 + 1, {x: sp.sqrt(2)}) == 3


def test_only_numbers_of_one_quadratic_field_are_read():
    assert quadratic_parts(sp.Rational(1, 2) - 3 * sp.sqrt(5) / 7) == (flint.fmpq(1, 2), flint.fmpq(-3, 7), 5)
    assert field_of([sp.sqrt(2), sp.sqrt(3)]) is None
    assert field_of([sp.sqrt(2) + 1, sp.Rational(3)]) == 2
    assert quadratic_parts(sp.CRootOf(x**3 - 2, 0)) is None
    assert quadratic_parts(sp.sqrt(2) ** sp.Rational(1, 2)) is None


# --- Fourier–Motzkin --------------------------------------------------------------------------------

def test_an_empty_linear_region_gets_checked_multipliers():
    strict = [sp.Rational(6999997, 3000000) - x, x - sp.Rational(7, 3)]
    kind, multipliers = decide_linear(strict, [], [x])
    assert kind == "empty"
    assert sum(multipliers) == 1 and all(m >= 0 for m in multipliers)
    assert sp.expand(sum(m * c for m, c in zip(multipliers, strict))) < 0


def test_a_non_empty_linear_region_gets_a_point_inside():
    region = [x, -15 * x / 2 + y, 751 * x / 100 - y]
    kind, point = decide_linear(region, [], [x, y])
    assert kind == "point" and inside(region, [x, y], point)


def test_strict_and_closed_bounds_meet_only_when_both_are_closed():
    assert decide_linear([], [x - 1, 1 - x], [x]) == ("point", {x: 1})
    assert decide_linear([x - 1], [1 - x], [x])[0] == "empty"


def test_an_integer_point_or_no_answer():
    kind, point = decide_linear([], [n - sp.Rational(17, 2), 10 - n], [n], integral={n})
    assert kind == "point" and point[n] in (9, 10)
    # 2n = 19 has a real solution and no integer one: no answer here (Z3 is asked)
    assert decide_linear([], [2 * n - 19, 19 - 2 * n], [n], integral={n}) is None


def test_non_linear_constraints_get_no_answer():
    assert decide_linear([x * y - 1, 1 - x**2], [], [x, y]) is None


def test_wrong_multipliers_are_refused(monkeypatch):
    # the elimination's answer is checked: multipliers that do not certify are not used
    monkeypatch.setattr(regions, "decide_linear", lambda *args, **kwargs: ("empty", [sp.S.One, sp.S.Zero]))
    monkeypatch.setattr(regions, "solve", lambda *args: Answer("unknown", reason="mocked"))
    fact = examine([x - 3, 4 - x], [x])
    assert fact.empty is not True


def test_a_point_outside_is_refused(monkeypatch):
    monkeypatch.setattr(regions, "decide_linear", lambda *args, **kwargs: ("point", {x: sp.S(10)}))
    fact = examine([x - 3, sp.Rational(7, 2) - x], [x])
    assert fact.empty is False and inside([x - 3, sp.Rational(7, 2) - x], [x], fact.point)


@pytest.mark.parametrize("lhs", [
    ReLU(sp.Rational(6999997, 3000000) - x) * ReLU(x - sp.Rational(7, 3)),
    ReLU(x) * ReLU(-10 * x + y) * ReLU(sp.Rational(9999, 1000) * x - y),
])
def test_true_needles_are_split_without_z3_on_their_regions(lhs, monkeypatch):
    # Z3 answers no region question: the elimination settles every one of them
    monkeypatch.setattr(regions, "solve", lambda *args: Answer("unknown", reason="mocked"))
    verdict = check_identity(lhs, 0)
    assert verdict.status is Status.PROVED
    # the project's split settled it, not the solvers' word on the whole claim
    assert any(line.startswith("sign split") for line in verdict.evidence), verdict.evidence


# --- witnesses between kinks and at the centres of quadratic arguments ------------------------------

@pytest.mark.parametrize("lhs", [
    ReLU(sp.Rational(3501, 1000) - x) * ReLU(x - sp.Rational(7, 2)),              # a slab
    ReLU(x) * ReLU(-15 * x / 2 + y) * ReLU(sp.Rational(751, 100) * x - y),        # a wedge
    ReLU(-(x + 1) ** 2 - (y + sp.Rational(9, 2)) ** 2 + sp.Rational(1, 10**6)),  # a small disc
    ReLU(-x**2 - y**2 + sp.Rational(1, 1000)) * ReLU(x**2 + y**2 - sp.Rational(999, 10**6)),  # a shell
])
def test_thin_sets_are_refuted_at_a_witness_point(lhs):
    verdict = check_identity(lhs, 0)
    assert verdict.status is Status.REFUTED
    assert verdict.reason == "a point on a kink separates the two sides"
    assert sp.sympify(lhs).xreplace(verdict.witness) > 0


def test_between_kinks_lies_strictly_between():
    base = {x: sp.S(1), y: sp.S(2)}
    points = [base | {x: sp.Rational(7, 2)}, base | {x: sp.Rational(3501, 1000)},
              base | {x: sp.sqrt(2)}, base | {x: sp.S(1), y: sp.sqrt(5)}]
    between = between_kinks(points, base)
    xs = sorted(p[x] for p in between if p[y] == 2)
    # strictly between neighbours, and an integer beyond each end: 0 below 1, 5 above 3501/1000
    assert xs[0] == 0 and xs[-1] == 5
    assert xs[1] > 1 and xs[1] < sp.sqrt(2)
    assert sp.Rational(7, 2) < xs[-2] < sp.Rational(3501, 1000)
    assert any(2 < p[y] < sp.sqrt(5) and p[x] == 1 for p in between)
    assert any(p[y] == 4 and p[x] == 1 for p in between) and any(p[y] == 1 and p[x] == 1 for p in between)


def test_a_claim_false_only_beyond_the_last_kink_is_refuted_at_a_witness_point():
    far = ReLU(x - 10**6)
    verdict = check_identity(far * ReLU(y), sp.S.Zero)
    assert verdict.status is Status.REFUTED and verdict.witness[x] > 10**6
    assert "kink" in verdict.reason


def test_the_centre_of_a_quadratic_argument():
    ball = ReLU(-(x + 1) ** 2 - (y - sp.Rational(9, 2)) ** 2 + 1)
    assert critical_points([ball], [x, y], {x: sp.S(5), y: sp.S(5)}) == [{x: -1, y: sp.Rational(9, 2)}]
    # a saddle has one too; a parabolic cylinder has none
    assert critical_points([ReLU(x * y - 1)], [x, y], {x: sp.S(5), y: sp.S(5)}) == [{x: 0, y: 0}]
    assert critical_points([ReLU(x**2 - y)], [x, y], {x: sp.S(5), y: sp.S(5)}) == []


def test_quadratic_kinks_are_sympys_real_roots():
    v = sp.Symbol("v", real=True)
    rng = random.Random(2)
    for _ in range(40):
        a, b, c = (sp.Rational(rng.randint(-30, 30), rng.randint(1, 7)) for _ in range(3))
        if a == 0:
            continue
        ours = solutions(a * v**2 + b * v + c, 0, v, {})
        theirs = sorted(set(sp.Poly(a * v**2 + b * v + c, v).real_roots()), key=lambda r: r.evalf(30))
        assert len(ours) == len(theirs)
        assert all(exactly_zero(mine - root) for mine, root in zip(ours, theirs))


def test_kink_equations_read_in_flint_are_sympys_roots():
    """The kink equation of a rational argument, the other symbols fixed (a subexpression of fixed
    symbols alone at its exact value), has sympy's real roots of its cancelled numerator."""
    v, w = sp.symbols("v w", real=True)
    rng = random.Random(5)
    for _ in range(40):
        coefficients = [sp.Rational(rng.randint(-9, 9), rng.randint(1, 4)) for _ in range(4)]
        argument = (coefficients[0] * v**2 * w + coefficients[1] * v + coefficients[2] * ReLU(w - 1)
                    + coefficients[3]) * (v - 2) / (v - 2)
        at = {w: sp.Rational(rng.randint(-5, 5), rng.randint(1, 3))}
        ours = solutions(argument, 1, v, at)
        numerator = sp.fraction(sp.cancel(sp.together(argument.xreplace(at) - 1)))[0]
        if not numerator.has(v):
            assert ours == []
            continue
        theirs = sorted(set(sp.Poly(numerator, v).real_roots()), key=lambda r: r.evalf(30))
        assert len(ours) == len(theirs)
        assert all(exactly_zero(mine - root) for mine, root in zip(ours, theirs))


def test_a_claim_false_only_at_a_cubic_kink_is_still_refuted():
    # the kink x = 2^(1/3) is tried last (roots of cubics cost a tenth of a second each), and
    # the claim is refuted there or by a solver's model, re-verified exactly
    verdict = check_identity(sp.sign(x**3 - 2) ** 2, sp.S.One)
    assert verdict.status is Status.REFUTED
    point = verdict.witness[x]
    assert sp.minimal_polynomial(point, sp.Symbol("X")) == sp.Symbol("X") ** 3 - 2
