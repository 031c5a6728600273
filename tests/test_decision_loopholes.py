"""Loopholes of the decision procedure, each closed with the claim that showed it: a claim the
procedure cannot evaluate is UNDECIDED with the reason (never an exception, never an internal
error), a derivative is no counterexample where it does not exist, a term written on both sides
takes none of the kink witnesses, the residue split keeps n = 0 of a non-negative integer, and
the invariance comparison concludes "agree" and "differ" from enclosures only as they allow."""
import flint
import pytest
import sympy as sp

from symbolic.decision.domain import WrittenDomain
from symbolic.decision.identity import check_identity
from symbolic.decision.residues import residue_classes
from symbolic.measures.invariance import PRECISION, Value, compare
from symbolic.numerics.interval import enclosure
from symbolic.relu import ReLU
from symbolic.kernel.verdict import Holds, Status

x, y, xi = sp.symbols("x y xi", real=True)
f = sp.Function("f")
D, P = sp.Derivative, sp.Piecewise


def status(verdict):
    return Status.PROVED if isinstance(verdict, Holds) else verdict.status


def assert_no_internal_error(verdict):
    assert isinstance(verdict, Holds) or not verdict.details.get("internal_error"), verdict.reason


# --- 1. a claim the procedure cannot evaluate: a verdict or UNDECIDED with the reason ---------

DIVIDED = P((0, x > 0), (1, True))


@pytest.mark.parametrize("lhs, rhs, expected", [
    # derivatives of smooth expressions are carried out: decided
    (D(x ** 2, x), 2 * x, Status.PROVED),
    (D(x ** 2, x), 3 * x, Status.REFUTED),
    (D(x ** 3, (x, 2)), 6 * x, Status.PROVED),
    (D(x * y, x, y), 1, Status.PROVED),
    (1 / D(x ** 2, x), 1 / (2 * x), Status.PROVED),
    (D(sp.exp(x), x), sp.exp(x), Status.PROVED),
    (D(sp.log(x), x), 1 / sp.Abs(x), Status.PROVED),           # on x > 0, where log x is defined
    (D(y * ReLU(x), y), ReLU(x), Status.PROVED),                # ReLU(x) is a constant in y
    (D(f(x) ** 2, x), 2 * f(x) * D(f(x), x), Status.PROVED),
    (sp.Subs(x ** 2, x, y), y ** 2, Status.PROVED),
    (sp.Subs(ReLU(x), x, y), ReLU(y) + 1, Status.REFUTED),
    # a derivative that need not exist where its expression is defined: outside the checker
    (D(ReLU(x), x), sp.Heaviside(x), Status.UNDECIDED),
    (D(sp.Abs(x), x), sp.sign(x), Status.UNDECIDED),
    (D(sp.Max(x, y), x), sp.Heaviside(x - y), Status.UNDECIDED),
    (D(P((x, x > 0), (0, True)), x), sp.Heaviside(x), Status.UNDECIDED),
    (D(sp.floor(x), x), 0, Status.UNDECIDED),
    (D(sp.sqrt(x), x), 1 / (2 * sp.sqrt(x)), Status.UNDECIDED),
    (ReLU(D(ReLU(x), x)), 1, Status.UNDECIDED),
    (sp.Subs(1 / x, x, y), 1 / y, Status.UNDECIDED),
    # operators over a bound variable
    (sp.Integral(x, (x, 0, 1)), sp.Rational(1, 2), Status.UNDECIDED),
    (sp.Limit(x, x, 0), 0, Status.UNDECIDED),
    (sp.Order(x), 0, Status.UNDECIDED),
    # a Piecewise in a denominator, as sympy evaluates it and as written
    (1 / DIVIDED, 1, Status.PROVED),
    (1 / DIVIDED, 2, Status.REFUTED),
    (sp.Pow(DIVIDED, -1, evaluate=False), 1, Status.PROVED),
    (sp.Pow(DIVIDED, -1, evaluate=False) + ReLU(x), 2, Status.REFUTED),
    (x * P((sp.zoo, x > 0), (1, True)), x, Status.PROVED),
    (P((sp.zoo, x > 0), (sp.nan, x < 0), (5, True)), 4, Status.REFUTED),
    (P((P((sp.zoo, y > 0), (1, True)), x > 0), (2, True)), P((3, x > 0), (2, True)), Status.REFUTED),
    # a Piecewise with no otherwise branch is undefined where no condition holds
    (P((x, x > 0)), ReLU(x), Status.PROVED),
    (P((x, x > 0)), -x, Status.REFUTED),
    # a side that sympy cannot evaluate: a Mod by 0 inside a branch, a comparison with zoo
    (P((sp.Mod(x, 0, evaluate=False), x > 0), (1, True)), 1, Status.UNDECIDED),
    (P((1, sp.Gt(sp.Pow(x - x, -1, evaluate=False), 0, evaluate=False)), (1, True), evaluate=False), 1,
     Status.UNDECIDED),
])
def test_every_shape_gets_a_verdict_or_a_reason(lhs, rhs, expected):
    verdict = check_identity(lhs, rhs, timeout=60)
    assert_no_internal_error(verdict)
    assert status(verdict) is expected, getattr(verdict, "reason", "")
    if expected is Status.UNDECIDED:
        assert verdict.reason


def test_a_refutation_of_a_division_by_a_piecewise_lies_where_it_is_defined():
    verdict = check_identity(1 / DIVIDED, 2)
    assert verdict.status is Status.REFUTED and verdict.witness[x] <= 0
    domain = WrittenDomain(1 / DIVIDED, sp.S.One)
    assert not domain.admits({x: sp.Integer(1)}) and domain.admits({x: sp.Integer(-1)})
    written = WrittenDomain(sp.Pow(DIVIDED, -1, evaluate=False), sp.S.One)
    assert not written.admits({x: sp.Integer(1)}) and written.admits({x: sp.Integer(-1)})


@pytest.mark.parametrize("undefined", [sp.zoo, sp.Pow(x - x, -1, evaluate=False)])
def test_an_undefined_branch_hides_nothing_where_it_is_not_taken(undefined):
    """sign(x⁴ + y⁴ − 2)² = 1 fails on a curve that no witness line meets, at (1, 1) among
    others; a region of the split where the undefined branch is taken on part of it only is
    still a region where the claim asserts something (reading any infinity in the remainder as
    'undefined throughout' had proved this claim)."""
    lhs = P((undefined, x > 5), (sp.sign(x ** 4 + y ** 4 - 2) ** 2, x < 10), evaluate=False)
    for procedure in ("all", "split"):
        verdict = check_identity(lhs, 1, timeout=60, procedure=procedure)
        assert verdict.status is Status.REFUTED, verdict.reason
        assert verdict.witness[x] ** 4 + verdict.witness[y] ** 4 == 2


def test_an_infinity_outside_a_branch_is_still_bad_input():
    for bad in (sp.zoo * x, P((1, x > 0), (2, True)) + sp.oo):
        with pytest.raises(ValueError):
            check_identity(bad, x)


# --- 4. a derivative is no counterexample where it does not exist ------------------------------

@pytest.mark.parametrize("lhs, rhs", [
    # true wherever the derivative exists (x ≠ 0); sympy's formula takes a value at x = 0
    (D(f(x) * ReLU(x), x), D(f(x), x) * ReLU(x) + f(x) * P((1, x >= 0), (0, True))),
    (D(sp.Subs(ReLU(xi), xi, 2 * x), x), P((2, x >= 0), (0, True))),
    (D(sp.Abs(x), x), P((1, x >= 0), (-1, True))),
])
def test_a_derivative_at_its_kink_refutes_nothing(lhs, rhs):
    verdict = check_identity(lhs, rhs, timeout=60)
    assert_no_internal_error(verdict)
    assert status(verdict) is Status.UNDECIDED and "differentiable" in verdict.reason


# --- 2. a term written on both sides takes none of the kink witnesses --------------------------

def _decoys(**facts):
    a, b = sp.symbols("a0:4", **facts), sp.symbols("b0:4", **facts)
    return [ReLU(a[k] - b[k]) for k in range(4)]


@pytest.mark.parametrize("facts, procedure", [
    ({"rational": True}, "all"),      # the density argument needs continuous sides: no split
    ({"rational": True}, "z3"),
    ({"real": True}, "split"),       # the split finds the region z = 0 but no point in it
])
def test_cancelling_decoys_do_not_hide_the_kink(facts, procedure):
    """sign(z)² = 1 is false at z = 0 alone; four ReLU(a_k − b_k) on both sides held the eight
    kink points before z = 0 was reached."""
    z = sp.Symbol("z", **facts)
    lhs, rhs = sp.Add(*_decoys(**facts), 1), sp.Add(*_decoys(**facts), sp.sign(z) ** 2)
    verdict = check_identity(lhs, rhs, timeout=60, procedure=procedure)
    assert verdict.status is Status.REFUTED and verdict.witness[z] == 0


def test_cancelling_decoys_do_not_make_a_claim_wide():
    """Thirteen decoy pairs were 26 kinks, past the 24 beyond which the project's rewriting and
    split are skipped: ReLU(x)·ReLU(−x) = 0 then rested on the solvers' word alone."""
    x_ = sp.Symbol("x", real=True)
    a, b = sp.symbols("a0:13", real=True), sp.symbols("b0:13", real=True)
    decoys = [ReLU(a[k] - b[k]) for k in range(13)]
    verdict = check_identity(sp.Add(*decoys, ReLU(x_) * ReLU(-x_)), sp.Add(*decoys))
    assert isinstance(verdict, Holds) and not verdict.reason
    assert any("sign split" in line for line in verdict.evidence)


def test_the_claim_with_decoys_is_still_decided_as_written():
    """Only the witnesses read the cancelled difference: z·sign(z)² = z with the decoys on both
    sides is proved, and with a decoy on one side only it is refuted."""
    z = sp.Symbol("z", real=True)
    decoys = _decoys(real=True)
    assert status(check_identity(sp.Add(*decoys, sp.sign(z) ** 2 * z), sp.Add(*decoys, z))) is Status.PROVED
    assert check_identity(sp.Add(*decoys, sp.sign(z) ** 2 * z), sp.Add(*decoys[1:], z)).status is Status.REFUTED


# --- 3. the residue split keeps n = 0 of a non-negative integer --------------------------------

n = sp.Symbol("n", integer=True, nonnegative=True)
k = sp.Symbol("k", integer=True, nonpositive=True)
HALF = sp.Rational(1, 2)


@pytest.mark.parametrize("lhs, rhs, at", [
    # floor((n + 3)/2) is 1 at n = 0, where the Heaviside is 1/2; no kink of n lies at 0
    (sp.floor((n + 3) / 2) * sp.Heaviside(n - HALF), sp.floor((n + 3) / 2), {n: 0}),
    (sp.Mod(n + 3, 2) * sp.Heaviside(n - HALF) + sp.floor((n + 3) / 2),
     sp.Mod(n + 3, 2) + sp.floor((n + 3) / 2), {n: 0}),
    (sp.floor((3 - k) / 2) * sp.Heaviside(-k - HALF), sp.floor((3 - k) / 2), {k: 0}),
])
def test_a_claim_false_only_at_zero_is_not_proved(lhs, rhs, at):
    verdict = check_identity(lhs, rhs, timeout=60)
    assert verdict.status is Status.REFUTED and verdict.witness == at
    # the project's own argument alone does not call it proved either
    assert status(check_identity(lhs, rhs, timeout=60, procedure="split")) is not Status.PROVED


def test_the_residue_classes_of_a_non_negative_integer_start_at_zero():
    classes = residue_classes(sp.floor((n + 3) / 2), [n])
    for substitution, _, _, constraints in classes:
        value = substitution[n]
        fresh = value.free_symbols.pop()
        # the class's least member is its residue: k = 0 satisfies every constraint when r ≥ 0
        at_zero = value.xreplace({fresh: 0})
        assert all(c.lhs.xreplace({fresh: 0}) >= 0 for c in constraints) == (at_zero >= 0)


# --- 3. the invariance comparison: "agree" only from narrow enclosures, "differ" only disjoint --

def _ball(low, high):
    return flint.arb(low).union(flint.arb(high))


def _third():
    """1/3 enclosed as the measures enclose a value: a ball far narrower than AGREEMENT."""
    return enclosure(sp.Rational(1, 3), PRECISION)


@pytest.mark.parametrize("a, b, expected", [
    # bounds of a maximum: disjoint differ, touching or overlapping do not, never agree
    (Value("a", low=0.0, high=1.0), Value("b", low=1.5, high=2.0), "differ"),
    (Value("a", low=0.0, high=1.0), Value("b", low=1.0, high=2.0), "unknown"),
    (Value("b", low=1.0, high=2.0), Value("a", low=0.0, high=1.0), "unknown"),
    (Value("a", low=0.0, high=1.5), Value("b", low=1.0, high=2.0), "unknown"),
    # balls: overlapping wide balls tell nothing; barely overlapping ones do not differ
    (Value("a", ball=_ball(0, 1)), Value("b", ball=_ball(1, 2)), "unknown"),
    (Value("a", ball=_ball(0, 2)), Value("b", ball=_ball(1, 3)), "unknown"),
    (Value("a", ball=_ball(0, 1)), Value("b", ball=_ball(2, 3)), "differ"),
    (Value("a", ball=_third()), Value("b", ball=_third()), "agree"),
    # characteristic polynomials: every coefficient must be narrow for agree, disjoint for differ
    (Value("a", balls=(flint.arb(1), _ball(0, 1))), Value("b", balls=(flint.arb(1), _ball(1, 2))), "unknown"),
    (Value("a", balls=(flint.arb(1), _ball(0, 1))), Value("b", balls=(flint.arb(1), _ball(2, 3))), "differ"),
    (Value("a", balls=(flint.arb(1), _third())), Value("b", balls=(flint.arb(1), _third())), "agree"),
    # an infinite enclosure separates nothing; bounds of a maximum against a ball compare nothing
    (Value("a", balls=(flint.arb(1), flint.arb("inf"))), Value("b", balls=(flint.arb(1), flint.arb(1))), "unknown"),
    (Value("a", ball=flint.arb("inf")), Value("b", ball=flint.arb(1)), "unknown"),
    (Value("a", low=0.0, high=1.0), Value("b", ball=_ball(2, 3)), "unknown"),
    (Value("b", ball=_ball(2, 3)), Value("a", low=0.0, high=1.0), "unknown"),
    # exact values
    (Value("a", exact=sp.Rational(1, 3)), Value("b", exact=sp.Rational(2, 6)), "agree"),
    (Value("a", exact=sp.Rational(1, 3)), Value("b", exact=sp.Rational(1, 4)), "differ"),
])
def test_enclosures_agree_only_when_narrow_and_differ_only_when_disjoint(a, b, expected):
    assert compare(a, b) == expected
