"""The exact fast paths of check_identity: arithmetic in a quadratic field Q(√d) at kinks with a
square-root coordinate, and Fourier–Motzkin elimination on linear regions of the sign split.
Each is compared with sympy's own exact answer, and each answer it gives is checked before use."""
import random

import flint
import pytest
import sympy as sp

import symbolic.decision.regions as regions
from symbolic import ReLU, Status, check_identity
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


@pytest.mark.parametrize("lhs, rhs, expected", [
    (ReLU(sp.Rational(6999997, 3000000) - x) * ReLU(x - sp.Rational(7, 3)), 0, Status.PROVED),
    (ReLU(sp.Rational(3501, 1000) - x) * ReLU(x - sp.Rational(7, 2)), 0, Status.REFUTED),
    (ReLU(x) * ReLU(-10 * x + y) * ReLU(sp.Rational(9999, 1000) * x - y), 0, Status.PROVED),
    (ReLU(x) * ReLU(-15 * x / 2 + y) * ReLU(sp.Rational(751, 100) * x - y), 0, Status.REFUTED),
])
def test_needles_decided_without_z3_on_their_regions(lhs, rhs, expected, monkeypatch):
    # Z3 answers no region question: the elimination settles every one of them
    monkeypatch.setattr(regions, "solve", lambda *args: Answer("unknown", reason="mocked"))
    verdict = check_identity(lhs, rhs)
    assert verdict.status is expected
    # the project's split settled it, not the solvers' word on the whole claim
    assert any(line.startswith("sign split") for line in verdict.evidence), verdict.evidence
    if expected is Status.REFUTED:
        assert sp.sympify(lhs).xreplace(verdict.witness) != sp.sympify(rhs)
