"""The cheap exact tests that check_identity asks before the expensive ones stay sound: a point at
hand shows a region non-empty only when it lies inside (checked exactly), and the exact zero test
in flint's polynomials hands every case its reading cannot settle to sympy's expansion."""
import sympy as sp

from symbolic import ReLU, Status, check_identity
from symbolic.decision.fraction_field import fraction_reading, is_zero_fraction
from symbolic.decision.regions import examine, inside
from symbolic.decision.zero import is_rational_zero

x, y = sp.symbols("x y", real=True)
a, b = sp.symbols("a b", positive=True)


# --- points at hand in the sign split's regions ------------------------------------------------------

def test_a_point_at_hand_inside_the_region_shows_it_non_empty():
    fact = examine([x - 1, 3 - x], [x], hints=[{x: sp.Rational(2)}])
    assert fact.empty is False and fact.point == {x: 2}
    assert fact.how == "a point at hand inside, checked exactly"


def test_a_point_at_hand_outside_the_region_is_not_taken():
    # x = 0 lies outside {x > 1}: the region is shown non-empty by Z3's point, which is inside
    fact = examine([x - 1], [x], hints=[{x: sp.S.Zero}])
    assert fact.empty is False and fact.how != "a point at hand inside, checked exactly"
    assert inside([x - 1], [x], fact.point)


def test_a_point_on_the_boundary_of_a_strict_region_is_not_inside():
    fact = examine([x - 1], [x], hints=[{x: sp.S.One}])
    assert fact.how != "a point at hand inside, checked exactly" and fact.point[x] > 1


def test_a_point_at_hand_never_makes_an_empty_region_non_empty():
    fact = examine([x - 1, -x], [x], hints=[{x: sp.Rational(1, 2)}, {x: sp.S(2)}])
    assert fact.empty is True and "Farkas" in fact.how


def test_a_point_at_hand_missing_a_symbol_of_the_region_is_not_taken():
    fact = examine([x + y - 1], [x, y], hints=[{x: sp.S(5)}])
    assert fact.empty is False and fact.how != "a point at hand inside, checked exactly"


def test_the_split_with_points_at_hand_still_refutes_and_proves():
    # a thin slab where the claim fails: no random point lands in it, the refutation is re-verified
    false = check_identity(ReLU(x - 3) * ReLU(sp.Rational(301, 100) - x), 0)
    assert false.status is Status.REFUTED
    point = false.witness[x]
    assert 3 < point < sp.Rational(301, 100)
    # true: an empty slab, each region either shown empty by a certificate or carrying a zero
    true = check_identity(ReLU(x - 3) * ReLU(2 - x), 0)
    assert true.status is Status.PROVED


# --- the exact zero test: flint first, sympy's expansion where flint's reading is too literal -------

def test_flint_reads_rational_functions_exactly():
    assert fraction_reading(1 / (x + 1) + 1 / (x + 2) - (2 * x + 3) / ((x + 1) * (x + 2))) is True
    assert fraction_reading(1 / (x + 1) + 1 / (x + 2) - 2 / (x + 1)) is False
    assert fraction_reading(ReLU(x) * y - y * ReLU(x)) is True


def test_flint_refuses_what_it_cannot_read():
    assert fraction_reading(sp.pi * x - sp.pi * x + sp.pi) is None
    assert fraction_reading(sp.Float(0.5) * x) is None
    assert fraction_reading(x / (y - y + 0 * x)) is None
    assert is_zero_fraction(sp.pi * x) is False


def test_relations_among_generators_are_left_to_sympy():
    # each is zero by sympy's expansion, while flint reads two independent generators
    assert is_rational_zero((sp.sqrt(x) + 1) * (sp.sqrt(x) - 1) - x + 1)
    assert is_rational_zero(sp.exp(x + y) - sp.exp(x) * sp.exp(y))
    assert is_rational_zero(sp.log(a * b) - sp.log(a) - sp.log(b))
    assert is_rational_zero(ReLU(x * (y + 1)) - ReLU(x * y + x))
    assert is_rational_zero(sp.pi * (x + 1) - sp.pi * x - sp.pi)


def test_non_zero_stays_non_zero():
    assert not is_rational_zero(ReLU(x) - ReLU(y))
    assert not is_rational_zero(ReLU(x - 1) * y - ReLU(x - 1) * x)      # 0 at the probe's ReLU
    assert not is_rational_zero(sp.sqrt(x) * sp.sqrt(y) - sp.sqrt(x * y))
    assert not is_rational_zero(sp.Piecewise((x, x > 0), (0, True)) - ReLU(x))
    assert not is_rational_zero(sp.pi * x + 1)          # flint cannot read it: sympy says not zero


def test_claims_through_the_exact_zero_test():
    assert check_identity(ReLU(a * x), a * ReLU(x)).status is Status.PROVED
    refuted = check_identity(ReLU(x + y), ReLU(x) + ReLU(y))
    assert refuted.status is Status.REFUTED
    at = refuted.witness
    assert ReLU(at[x] + at[y]) != ReLU(at[x]) + ReLU(at[y])

