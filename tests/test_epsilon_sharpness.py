"""Section 4.3: ε-sharpness and Keskar's box; the certified enclosure of a maximum (literals only here)."""
import math
from fractions import Fraction

import pytest
import sympy as sp

from proofs import epsilon_sharpness as eps
from symbolic.networks import worked_example as example
from symbolic import Status
from symbolic.numerics.enclosure import Region, enclose_maximum
from symbolic.decision.zero import is_rational_zero
from symbolic.trusted.oracles.numerics import INTERVAL_ENCLOSURE
from symbolic.trusted.oracles.solvers import SYMPY_LIMITS

a, b, c = example.a, example.b, example.c
LOSS = example.loss(a, b)


@pytest.fixture(scope="module")
def report():
    return eps.run([(1, 1, 1), (2, 1, 2)])


def test_every_claim_is_proved_with_its_bounds_in_the_evidence(report):
    assert [r.verdict.status for r in report.results] == [Status.PROVED] * len(report.results)
    rows = {r.claim: r.verdict for r in report.results}
    contrast = rows["example: certified brackets at (1, 1) and (eps, 1/eps)"]
    text = " ".join(contrast.evidence)
    assert "lower bound exact at" in text and "upper bound certified by arb" in text


def test_example_bound_is_five_quarters():
    bound, verdict = eps.example_constant_bound()
    assert verdict.status is Status.PROVED and bound == sp.Rational(5, 4)


def test_contrast_brackets_contain_the_true_maxima(report):
    verdict = next(r.verdict for r in report.results if r.claim.startswith("example: certified brackets"))
    low1, up1 = verdict.details["balanced"]
    # by hand: on the ball around (1, 1) the maximum of (5/4)(ab - 1)^2 is at a = b = 1 + 1/(10 sqrt 2)
    true_max = 1.25 * (math.sqrt(2) / 10 + 1 / 200) ** 2
    assert float(low1) <= true_max <= float(up1) and up1 < Fraction(5, 4) / 40
    low2, up2 = verdict.details["rescaled"]
    assert Fraction(5, 4) <= low2 <= up2
    assert verdict.details["proxy"] == sp.Rational(1, 40)


def test_keskar_corner_rate_and_scale():
    derived, verdict = eps.keskar_corner()
    assert verdict.status is Status.PROVED
    e = eps.EPSILON
    assert is_rational_zero(derived["rate"] - sp.Rational(5, 4) * e ** 2 * (1 + e) ** 2)
    value = derived["value"].xreplace({c: 1000, e: sp.Rational(1, 10)})
    assert value > 10 ** 4


def test_enclosure_on_a_box_is_exact_at_the_corner():
    # Keskar's box at (1, 1), epsilon = 1/10: half-widths 1/5; the maximum sits at the far corner
    region = eps.keskar_box((1, 1), Fraction(1, 10))
    enclosure = enclose_maximum(LOSS, [a, b], region, tolerance=Fraction(1, 10 ** 5))
    corner = Fraction(5, 4) * (Fraction(6, 5) ** 2 - 1) ** 2
    assert enclosure.lower <= corner <= enclosure.upper
    assert enclosure.upper - enclosure.lower <= Fraction(1, 10 ** 5)
    assert region.contains(enclosure.argmax)


def test_enclosure_lower_bound_is_an_exact_value_at_a_point_of_the_ball():
    region = Region.ball((1, 1), Fraction(1, 10))
    enclosure = enclose_maximum(LOSS, [a, b], region, tolerance=Fraction(1, 10 ** 4))
    assert region.contains(enclosure.argmax)
    point = {a: sp.Rational(*enclosure.argmax[0].as_integer_ratio()),
             b: sp.Rational(*enclosure.argmax[1].as_integer_ratio())}
    assert LOSS.xreplace(point) == sp.Rational(enclosure.lower.numerator, enclosure.lower.denominator)


def test_enclosure_of_a_kink_and_a_pole():
    x = sp.Symbol("x", real=True)
    # |x| on [-1, 2]: maximum 2 at the edge, a kink inside
    enclosure = enclose_maximum(sp.Abs(x), [x], Region.box((Fraction(1, 2),), (Fraction(3, 2),)))
    assert enclosure.lower == 2 and enclosure.upper >= 2 and enclosure.converged
    # 1/x on [-1/6, 5/6] is unbounded near its pole: the upper bound stays infinite, never a
    # false number, while the lower bound is still an exact value
    enclosure = enclose_maximum(1 / x, [x], Region.ball((Fraction(1, 3),), Fraction(1, 2)), max_boxes=200)
    assert enclosure.upper == float("inf") and not enclosure.converged and enclosure.lower > 100
    # a point of the set where the function is undefined is bad input, not a maximum
    with pytest.raises(ValueError):
        enclose_maximum(1 / x, [x], Region.ball((0,), Fraction(1, 2)))


def test_enclosure_rejects_what_it_cannot_enclose():
    x = sp.Symbol("x", real=True)
    with pytest.raises(ValueError):
        enclose_maximum(sp.sin(x), [x], Region.ball((0,), 1))
    with pytest.raises(ValueError):
        Region.ball((0,), -1)


# --- negative controls ----------------------------------------------------------------------------

def test_a_ball_that_does_not_reach_theta1_zero_is_refuted():
    # general d, h: with radius epsilon/2 the dead point (0, v/alpha) is outside the ball
    verdict = eps.dead_point_distance(2, 2, radius=eps.EPSILON / 2)
    assert verdict.status is Status.REFUTED
    point = verdict.witness
    alpha = point[eps.EPSILON] / sp.sqrt(sum(point[s] ** 2 for s in point if str(s).startswith("W")))
    distance2 = sum((alpha * point[s]) ** 2 for s in point if str(s).startswith("W"))
    assert sp.nsimplify(distance2) > (point[eps.EPSILON] / 2) ** 2          # re-verified exactly


def test_sharpness_bound_fails_when_the_ball_misses_the_dead_region():
    # at (1/10, 10) the dead region a <= 0 is at distance 1/10; a ball of radius 1/20 misses it
    theta = (Fraction(1, 10), Fraction(10))
    verdict = eps.sharpness_reaches(theta, eps.ball(theta, Fraction(1, 20)), Fraction(5, 4))
    assert verdict.status is Status.REFUTED
    upper = verdict.witness["certified upper bound"]
    assert upper < Fraction(5, 4) and verdict.witness["re-verified at 200 bits"] < Fraction(5, 4)
    # re-verified by hand: on that ball a > 0, so L = (5/4)(ab - 1)^2 <= (5/4)(0.15 * 10.05 - 1)^2
    assert upper <= Fraction(5, 4) * (Fraction(15, 100) * Fraction(1005, 100) - 1) ** 2
    # and the full radius reaches it
    reached = eps.sharpness_reaches(theta, eps.ball(theta, Fraction(1, 10)), Fraction(5, 4))
    assert reached.status is Status.PROVED


def test_cli_lists_and_runs(cli):
    listing = cli("--list")
    assert "epsilon_sharpness" in listing.stdout and "reparametrization" in listing.stdout
    result = cli("epsilon_sharpness", "reparametrization", "--json", "--size", "1,1,1")
    assert result.returncode == 0, result.stderr
    assert '"refuted"' not in result.stdout and '"undecided"' not in result.stdout


def test_enclosure_on_an_ellipsoid_is_the_adaptive_set():
    # element-wise adaptive sharpness at theta_c = (c, 1/c): the set |(delta_a/c, delta_b c)| <= rho;
    # its maximum is the same for every c (the example's invariant measure), here c = 1 and c = 4
    rho = Fraction(1, 10)
    brackets = []
    for scale in (Fraction(1), Fraction(4)):
        region = Region.ball((scale, 1 / scale), rho, scales=(scale, 1 / scale))
        enclosure = enclose_maximum(LOSS, [a, b], region, tolerance=Fraction(1, 10 ** 5))
        assert region.contains(enclosure.argmax)
        brackets.append((enclosure.lower, enclosure.upper))
    (low1, up1), (low4, up4) = brackets
    assert low1 <= up4 and low4 <= up1          # the brackets overlap: consistent with invariance
    with pytest.raises(ValueError):
        Region.ball((0, 0), 1, scales=(1, 0))


# --- the kernel: what each PROVED rests on, and the oracles it names -----------------------------

def test_every_proved_claim_rests_on_something_named(report):
    for row in report.results:
        assert row.verdict.rests_on and not row.verdict.theorem.rests_on.empty, row.claim
    rows = {r.claim: r.verdict for r in report.results}
    contrast = rows["example: certified brackets at (1, 1) and (eps, 1/eps)"]
    assert contrast.rests_on["oracles"] == ["interval enclosure"]
    assert contrast.label.startswith("sharpness at (1, 1) < 5/4")
    # the statement is the maximum of the example's ratio over the two balls, not a text
    facts = contrast.statement.parts()
    assert [f.predicate for f in facts] == ["maximum over a region"] * 2
    assert [f.arguments[3] for f in facts] == ["<", ">="] and facts[0].arguments[4] == sp.Rational(5, 4)
    corner = rows["example: Keskar corner value grows like c^2"]
    assert "sympy limits" in corner.rests_on["oracles"]


def _ball_statement(relation, bound):
    from symbolic.numerics.enclosure_oracle import maximum_statement
    return maximum_statement(LOSS, [a, b], Region.ball((1, 1), Fraction(1, 10)), relation, bound)


def test_a_false_lower_bound_is_not_proved_by_the_enclosure():
    from symbolic.kernel import by_oracle
    # the maximum over the ball is about 0.0268: "max >= 1/10" is refuted by a certified upper bound
    verdict = by_oracle(INTERVAL_ENCLOSURE, _ball_statement(">=", Fraction(1, 10)))
    assert verdict.status is Status.REFUTED
    assert verdict.witness["certified upper bound"] < Fraction(1, 10)
    assert verdict.witness["re-verified at 200 bits"] < Fraction(1, 10)
    # the true bound is proved, on the enclosure's word
    proved = by_oracle(INTERVAL_ENCLOSURE, _ball_statement(">=", Fraction(1, 40)))
    assert proved.status is Status.PROVED and proved.rests_on["oracles"] == ["interval enclosure"]


def test_a_false_upper_bound_is_refuted_by_an_exact_point_of_the_ball():
    from symbolic.kernel import by_oracle
    verdict = by_oracle(INTERVAL_ENCLOSURE, _ball_statement("<=", Fraction(1, 100)))
    assert verdict.status is Status.REFUTED
    point = (Fraction(verdict.witness["a"]), Fraction(verdict.witness["b"]))
    assert Region.ball((1, 1), Fraction(1, 10)).contains(point)
    value = LOSS.xreplace({a: sp.Rational(point[0].numerator, point[0].denominator),
                           b: sp.Rational(point[1].numerator, point[1].denominator)})
    assert value > sp.Rational(1, 100)                      # re-verified exactly, by hand
    assert by_oracle(INTERVAL_ENCLOSURE, _ball_statement("<=", Fraction(1, 30))).status is Status.PROVED


def test_the_enclosure_decides_only_the_statements_it_reads():
    from symbolic.kernel import Fact, by_oracle
    from symbolic.numerics.enclosure_oracle import maximum_statement, region_term
    x = sp.Symbol("x", real=True)
    region = Region.ball((0,), 1)
    # a function outside arb's reach, a bound that is not an exact rational, a wrong relation
    assert by_oracle(INTERVAL_ENCLOSURE, maximum_statement(sp.sin(x), [x], region, "<=", 2)).status \
        is Status.UNDECIDED
    statement = Fact("maximum over a region", (x, (x,), region_term(region), "<=", sp.sqrt(2)))
    assert by_oracle(INTERVAL_ENCLOSURE, statement).status is Status.UNDECIDED
    statement = Fact("maximum over a region", (x, (x,), region_term(region), "==", sp.Integer(1)))
    assert by_oracle(INTERVAL_ENCLOSURE, statement).status is Status.UNDECIDED
    # 1/x near its pole: no finite upper bound, so no upper-bound theorem
    pole = maximum_statement(1 / x, [x], Region.ball((Fraction(1, 3),), Fraction(1, 2)), "<=", 10 ** 6)
    assert by_oracle(INTERVAL_ENCLOSURE, pole, max_boxes=200).status is not Status.PROVED


def test_a_wrong_limit_or_sign_is_not_proved_by_sympy():
    from symbolic.decision.limit_oracle import derivative_sign_statement, limit_statement
    from symbolic.kernel import by_oracle
    e = eps.EPSILON
    derived, _ = eps.keskar_corner()
    ratio = derived["value"] / c ** 2
    right = by_oracle(SYMPY_LIMITS, limit_statement(ratio, c, sp.oo, derived["rate"]))
    assert right.status is Status.PROVED and right.rests_on["oracles"] == ["sympy limits"]
    wrong = by_oracle(SYMPY_LIMITS, limit_statement(ratio, c, sp.oo, derived["rate"] + e ** 3))
    assert wrong.status is not Status.PROVED
    assert by_oracle(SYMPY_LIMITS, limit_statement(ratio, c, sp.oo, sp.oo)).status is not Status.PROVED
    assert by_oracle(SYMPY_LIMITS, derivative_sign_statement(-c ** 3, c, ">")).status is not Status.PROVED
    assert by_oracle(SYMPY_LIMITS, derivative_sign_statement(c ** 3, c, ">")).status is Status.PROVED
