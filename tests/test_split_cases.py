"""The split's cases of sign, Heaviside and Piecewise, the residue split of floor, ceiling and Mod,
and the integer rounding of a region's constraints: each checked against the construct itself at
exact points, and each seen deciding claims that had rested on a solver's word alone."""
import itertools
import random

import pytest
import sympy as sp

from symbolic import ReLU, Status, check_identity
from symbolic.decision.cases import cases, split_atoms
from symbolic.decision.regions import _primitive, pinned_values
from symbolic.decision.residues import residue_classes
from symbolic.decision.witness import exact_value

x, y = sp.symbols("x y", real=True)
n, m = sp.symbols("n m", integer=True)
p = sp.Symbol("p", integer=True, positive=True)
odd = sp.Symbol("o", integer=True, odd=True)

CONSTRUCTS = [
    sp.sign(x - 2 * y),
    sp.Heaviside(x - y),
    sp.Heaviside(x + 1, 0),
    sp.Piecewise((x, x > y), (y, True)),
    sp.Piecewise((1, sp.Eq(2 * x + y, 1)), (0, True)),
    sp.Piecewise((x - 1, sp.Ne(x, y)), (3, True)),
    sp.Piecewise((x, (x < 2) | ((y > 0) & (x <= 3))), (2 * y, x >= 5), (0, True)),
    sp.Piecewise((1, ~((x > 0) & (y < 1))), (-1, True)),
    sp.Piecewise((y, x >= 1), (x, x > 0), (0, True)),
]


def _holds(constraint, point) -> bool:
    if isinstance(constraint, sp.GreaterThan):
        return exact_value(constraint.lhs, point) >= 0
    return exact_value(constraint, point) > 0


@pytest.mark.parametrize("construct", CONSTRUCTS, ids=str)
def test_the_cases_cover_every_point_and_give_the_construct_value_there(construct):
    # a grid of small rationals: every boundary s = 0 of these constructs is hit
    grid = [sp.Rational(k, 2) for k in range(-8, 13)]
    found = cases(construct, closed=True)
    assert found
    for a, b in itertools.product(grid, grid):
        point = {x: a, y: b}
        value = construct.xreplace(point)
        holding = [v for constraints, v in found if all(_holds(c, point) for c in constraints)]
        assert holding, f"no case of {construct} holds at {point}"
        assert all(exact_value(v, point) == value for v in holding), (construct, point)


def test_the_integer_cases_round_strict_comparisons():
    # over the integers s > 0 is s - 1 >= 0: every case still covers every integer point
    for construct in (sp.sign(n - 2 * m), sp.Piecewise((1, n > m), (0, True))):
        found = cases(construct, closed=True)
        for a, b in itertools.product(range(-4, 5), repeat=2):
            point = {n: sp.Integer(a), m: sp.Integer(b)}
            holding = [v for constraints, v in found if all(_holds(c, point) for c in constraints)]
            assert holding and all(v.xreplace(point) == construct.xreplace(point) for v in holding)


def test_constructs_whose_cases_cannot_be_read_are_not_split():
    # no otherwise branch: undefined where no condition holds, and a construct around it may
    # still be defined there
    assert cases(sp.Piecewise((x, x > 0)), closed=True) is None
    assert cases(sp.Heaviside(x, sp.nan), closed=True) is None
    # the open split (continuous claims, kinks left out) splits ReLU only
    assert split_atoms(sp.sign(x) + ReLU(y), closed=False) == [ReLU(y)]
    # innermost first: the sign inside the ReLU is split before the ReLU
    assert split_atoms(ReLU(sp.sign(x) - y), closed=True) == [sp.sign(x)]


ROUNDED = [
    sp.floor(n / 4) + sp.ceiling(n / 4) - 2 * sp.floor(n / 4) - sp.sign(sp.Mod(n, 4)),
    sp.floor(n**2 / 4) - sp.floor(n / 2) * sp.ceiling(n / 2),
    sp.Mod(3 * n + m, 6) + sp.floor(m / 3) - n,
    sp.Mod(n, -3) + sp.ceiling(2 * n / 3),
    sp.floor(p / 3) - sp.Mod(p, 2),
    sp.floor(odd / 2) + sp.Mod(odd, 4),
]


@pytest.mark.parametrize("expr", ROUNDED, ids=str)
def test_each_residue_class_reduces_to_the_expression_at_its_integer_points(expr):
    symbols = sorted(expr.free_symbols, key=sp.default_sort_key)
    classes = residue_classes(expr, symbols)
    assert classes is not None and len(classes) > 1
    rng = random.Random(0)
    for substitution, reduced, fresh, constraints in classes:
        assert not reduced.has(sp.floor, sp.ceiling, sp.Mod)
        for _ in range(12):
            values = {k: sp.Integer(rng.randint(-9, 9)) for k in fresh}
            point = {s: v.xreplace(values) for s, v in substitution.items()}
            if not all(_holds(c, values) for c in constraints):
                continue    # outside the symbols' sign facts
            assert reduced.xreplace(values) == expr.xreplace(point), (substitution, values)
    # the classes cover the integers: every small integer point of the ranges is in one of them
    for point in itertools.product(range(-6, 7), repeat=len(symbols)):
        assignment = dict(zip(symbols, map(sp.Integer, point)))
        if not all(s.is_integer and (not s.is_positive or v > 0) and (not s.is_odd or v % 2 == 1)
                   for s, v in assignment.items()):
            continue
        assert any(_in_class(substitution, fresh, constraints, assignment)
                   for substitution, _, fresh, constraints in classes), assignment


def _in_class(substitution, fresh, constraints, assignment) -> bool:
    """The integer point is n = L·k + r for an integer k honouring the class's constraints."""
    values = {}
    for s, form in substitution.items():
        k = next(iter(form.free_symbols))
        modulus, residue = form.coeff(k), form.subs(k, 0)
        if (assignment[s] - residue) % modulus:
            return False
        values[k] = (assignment[s] - residue) / modulus
    return all(_holds(c, values) for c in constraints)


def test_the_residue_split_refuses_what_it_cannot_reduce():
    assert residue_classes(sp.floor(x / 2), [x]) is None                # a real symbol
    assert residue_classes(sp.floor(sp.floor(n / 2) / 3), [n]) is None  # nested
    assert residue_classes(sp.Mod(n, m), [n, m]) is None                # a symbolic modulus
    assert residue_classes(sp.floor(n / 997) + sp.floor(m / 991), [n, m]) is None   # too many


def test_integer_rounding_keeps_every_integer_point_of_a_constraint():
    for c in (2 * n - 11, 12 - 2 * n, 3 * n + 6 * m - 4, -4 * n + 2 * m + 1, n / 2 - sp.Rational(1, 3)):
        rounded = _primitive(sp.expand(c))
        for a, b in itertools.product(range(-7, 8), repeat=2):
            point = {n: a, m: b}
            assert (c.xreplace(point) >= 0) == (rounded.xreplace(point) >= 0), (c, rounded, point)
    # a real symbol's constraint is scaled, never rounded
    assert _primitive(4 * x - 13) == 4 * x - 13 and _primitive(sp.Rational(13, 4) - x) == 13 - 4 * x


def test_pinned_values_meet_constraints_written_at_different_scales():
    region = [sp.GreaterThan(4 * x - 13, 0, evaluate=False),
              sp.GreaterThan(sp.Rational(13, 4) - x, 0, evaluate=False)]
    assert pinned_values(region, [x]) == {x: sp.Rational(13, 4)}
    # over the integers 2n - 11 >= 0 and 12 - 2n >= 0 hold at n = 6 alone
    region = [sp.GreaterThan(2 * n - 11, 0, evaluate=False),
              sp.GreaterThan(12 - 2 * n, 0, evaluate=False)]
    assert pinned_values(region, [n]) == {n: 6}
    # an integer symbol is never solved to a fraction
    region = [sp.GreaterThan(2 * n + 2 * m - 1, 0, evaluate=False),
              sp.GreaterThan(1 - 2 * n - 2 * m, 0, evaluate=False)]
    assert all(v.is_integer for v in pinned_values(region, [n, m]).values())


def _by_the_project(lhs, rhs):
    verdict = check_identity(lhs, rhs, timeout=20)
    assert verdict.status is Status.PROVED, verdict.describe()
    assert "word alone" not in verdict.reason, verdict.reason
    assert any(line.startswith("sign split shows an exact zero") for line in verdict.evidence)
    return verdict


@pytest.mark.parametrize("lhs, rhs", [
    (sp.Piecewise((3 * x - 3 * y - 8, 3 * x - 3 * y > 8), (0, True)), ReLU(3 * x - 3 * y - 8)),
    (sp.Piecewise((-3 * x, x <= 0), (3 * x, True)), 3 * sp.Abs(x)),
    (sp.Piecewise((1, sp.Eq(2 * x + y, -sp.Rational(1, 3))), (0, True)),
     1 - sp.sign(2 * x + y + sp.Rational(1, 3)) ** 2),
    (sp.Piecewise((-3 * x + y, (x < 3) | ((x > 0) & (x <= 3))), (-2 * x + y - 3, True)),
     sp.Max(-3 * x + y, -2 * x + y - 3)),
    (sp.Heaviside(x) + sp.Heaviside(-x), 1),
    (sp.Mul(x - y, sp.Pow(x - y, -1), evaluate=False), 2 - sp.sign(x - y) ** 2),
    (sp.sign(x) * sp.Abs(x), x),
])
def test_discontinuous_claims_are_proved_by_the_split_itself(lhs, rhs):
    _by_the_project(lhs, rhs)


@pytest.mark.parametrize("lhs, rhs, where", [
    (sp.Heaviside(x, 1) + sp.Heaviside(-x, 1), 1, {x: 0}),
    (sp.Piecewise((1, x >= 0), (0, True)), sp.Heaviside(x), {x: 0}),
    (sp.sign(x) ** 2, 1, {x: 0}),
    (sp.Piecewise((x, x > y), (y, True)), sp.Max(x, y) + sp.Piecewise((1, sp.Eq(x, y + 1)), (0, True)),
     None),
])
def test_their_negative_controls_are_refuted_at_a_re_verified_point(lhs, rhs, where):
    verdict = check_identity(lhs, rhs, timeout=20)
    assert verdict.status is Status.REFUTED, verdict.describe()
    point = {s: v for s, v in verdict.witness.items() if isinstance(s, sp.Symbol)}
    assert sp.simplify(lhs.xreplace(point) - sp.sympify(rhs).xreplace(point)) != 0
    if where is not None:
        assert all(point[s] == v for s, v in where.items())


@pytest.mark.parametrize("lhs, rhs", [
    (sp.floor(n / 2) + sp.floor((n + 1) / 2), n),
    (sp.floor(n / 4) + sp.ceiling(n / 4), 2 * sp.floor(n / 4) + sp.sign(sp.Mod(n, 4))),
    (sp.Mod(n, 2) ** 2, sp.Mod(n, 2)),
    (sp.floor(n**2 / 4), sp.floor(n / 2) * sp.ceiling(n / 2)),
    (ReLU(sp.Mod(p, 4) - 3), 0),
    (ReLU(1 - sp.Abs(2 * n - 11)), 0),
])
def test_integer_claims_are_proved_by_the_residue_split_and_rounding(lhs, rhs):
    _by_the_project(lhs, rhs)


@pytest.mark.parametrize("lhs, rhs", [
    (sp.floor(n**2 / 4), sp.floor(n / 2) ** 2),
    (sp.Mod(n, 3) ** 2, sp.Mod(n, 3)),
    (ReLU(sp.Mod(p, 4) - 2), 0),
    (ReLU(2 - sp.Abs(2 * n - 11)), 0),
])
def test_integer_negative_controls_are_refuted_at_an_integer_point(lhs, rhs):
    verdict = check_identity(lhs, rhs, timeout=20)
    assert verdict.status is Status.REFUTED, verdict.describe()
    point = {s: v for s, v in verdict.witness.items() if isinstance(s, sp.Symbol)}
    assert all(v.is_Integer for v in point.values())
    assert lhs.xreplace(point) != sp.sympify(rhs).xreplace(point)


@pytest.mark.parametrize("construct", CONSTRUCTS, ids=str)
def test_the_exact_evaluator_reads_each_construct_as_sympy_does(construct):
    grid = [sp.Rational(k, 2) for k in range(-6, 11)]
    for a, b in itertools.product(grid, grid):
        point = {x: a, y: b}
        assert exact_value(construct, point) == construct.xreplace(point), (construct, point)


def test_the_exact_evaluator_takes_the_first_branch_that_holds_and_no_other():
    # the unused branch 1/x is not evaluated at x = 0; no branch holding is no value
    assert exact_value(sp.Piecewise((1 / x, x > 0), (0, True)), {x: sp.S.Zero}) == 0
    assert exact_value(sp.Piecewise((x, x > 0)), {x: -sp.S.One}) is None
    # at a point of a quadratic field the comparison is exact: √2 − 1 > 0, and x = √2 is no 3/2
    root = {x: sp.sqrt(2), y: sp.S.One}
    assert exact_value(sp.Piecewise((y, x > 1), (0, True)), root) == 1
    assert exact_value(sp.Piecewise((y, sp.Eq(2 * x, 3)), (0, True)), root) == 0


a_form, b_form = 13 - 12 * y, -2 * x - 2 * y - sp.Rational(1, 2)


def test_a_denominator_zero_throughout_a_region_is_found_by_splitting_its_own_atoms():
    from symbolic.decision.domain import WrittenDomain
    product = sp.Mul(ReLU(x), ReLU(y), evaluate=False)
    domain = WrittenDomain(sp.Mul(product, sp.Pow(product, -1, evaluate=False), evaluate=False))
    # on x + y <= 0, x > 0 and y > 0 cannot both hold: ReLU(x)·ReLU(y) is 0 there throughout
    assert domain.vacuous_on([sp.GreaterThan(-x - y, 0, evaluate=False)])
    # on x + y >= 0 it is not (x = y = 1)
    assert not domain.vacuous_on([sp.GreaterThan(x + y, 0, evaluate=False)])


def test_a_quotient_of_relu_products_is_proved_on_its_domain_as_written():
    product = sp.Mul(ReLU(a_form), ReLU(b_form), evaluate=False)
    quotient = sp.Mul(product, sp.Pow(product, -1, evaluate=False), evaluate=False)
    total = sp.expand(a_form + b_form)
    verdict = _by_the_project(quotient, sp.Mul(ReLU(total), sp.Pow(total, -1), evaluate=False))
    assert any("where a denominator as written is 0 throughout" in line for line in verdict.evidence)
    # the negative control: against ReLU(a - b)/(a - b), refuted where a > 0, b > 0 and a < b
    gap = sp.expand(a_form - b_form)
    wrong = check_identity(quotient, sp.Mul(ReLU(gap), sp.Pow(gap, -1), evaluate=False), timeout=20)
    assert wrong.status is Status.REFUTED


# --- a Piecewise's branches restrict the domain only where they are taken ---------------------------

Pw = sp.Piecewise


@pytest.mark.parametrize("lhs, rhs, where", [
    # sympy and the exact evaluator give 0 and 5 at x = 0, where 1/x is not evaluated
    (Pw((1 / x, x > 0), (0, True)), Pw((1 / x, x > 0), (5, sp.Eq(x, 0)), (0, True)), {x: 0}),
    (Pw((sp.sqrt(x), x >= 0), (0, True)), Pw((sp.sqrt(x), x >= 0), (1, True)), None),
    (Pw((sp.log(x), x > 0), (x, True)), Pw((sp.log(x), x > 0), (-x, True)), None),
    (Pw((1 / n, sp.Ne(n, 0)), (0, True)), Pw((1 / n, sp.Ne(n, 0)), (1, True)), {n: 0}),
    (Pw((sp.Mod(n, x), sp.Ne(x, 0)), (7, True)), Pw((sp.Mod(n, x), sp.Ne(x, 0)), (8, True)), {x: 0}),
])
def test_a_branch_not_taken_restricts_nothing_and_the_claim_is_refuted_there(lhs, rhs, where):
    verdict = check_identity(lhs, rhs, timeout=20)
    assert verdict.status is Status.REFUTED, verdict.describe()
    point = {s: v for s, v in verdict.witness.items() if isinstance(s, sp.Symbol)}
    assert exact_value(lhs, point) != exact_value(rhs, point)
    if where is not None:
        assert all(point[s] == v for s, v in where.items())


def test_a_branch_taken_still_restricts_the_domain():
    from symbolic.decision.domain import WrittenDomain
    domain = WrittenDomain(Pw((1 / x, x >= 0), (0, True)))
    assert not domain.admits({x: sp.S.Zero})              # the branch 1/x is taken at x = 0
    assert domain.admits({x: -sp.S.One}) and domain.admits({x: sp.S.One})
    assert domain.denominators == []                     # never asserted everywhere
    # and the solvers are not given a restriction inside a branch
    from symbolic.decision.fragment import in_fragment
    assert "inside a Piecewise" in in_fragment([Pw((1 / x, x > 0), (0, True))])
    assert in_fragment([Pw((x, x > 0), (0, True))]) is None
