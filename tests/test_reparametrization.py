"""Section 5: chain rule on generic jets, the radial map, weight normalization, input representation
(literals only here)."""
from fractions import Fraction

import mpmath
import pytest
import sympy as sp

from proofs import reparametrization as rep
from symbolic import Status, check_identity
from symbolic.decision.witness import compare_at
from symbolic.decision.zero import is_rational_zero
from symbolic.trusted.oracles.numerics import FUNCTION_AGREEMENT

a, b, M, gamma = rep.A_EXPONENT, rep.B_SHIFT, rep.TARGET, rep.GAMMA


@pytest.fixture(scope="module")
def report():
    return rep.run([(1, 1, 1), (2, 2, 2)])


def test_every_claim_is_proved(report):
    assert [r.verdict.status for r in report.results] == [Status.PROVED] * len(report.results)


def test_composite_derivatives_match_the_corrected_formulas_symbolically():
    jets = rep.Jets(2)
    gradient, hessian = jets.composite_derivatives()
    claimed_gradient, claimed_hessian = rep.chain_rule_formulas(jets)
    assert all(is_rational_zero(e) for e in gradient - claimed_gradient)
    assert all(is_rational_zero(e) for e in hessian - claimed_hessian)
    # the second-order term is really there: it carries the C coefficients
    assert any(str(s).startswith("C_") for s in hessian.free_symbols)


def test_radial_jacobian_and_hessian_factor():
    scale, verdict = rep.radial_jacobian(3)
    assert verdict.status is Status.PROVED and scale == b ** a
    factor, verdict = rep.radial_hessian(3, scale)
    assert verdict.status is Status.PROVED and is_rational_zero(factor - b ** (-2 * a))


def test_explicit_shifts_reach_both_sides():
    factor, _ = rep.radial_hessian(1, b ** a)
    shifts = rep.explicit_shifts(factor)
    for target in (Fraction(1, 1000), Fraction(7), Fraction(10 ** 9)):
        values = {M: sp.Rational(target.numerator, target.denominator), gamma: 5}
        below = (gamma / shifts["below"] ** 2).xreplace(values)
        above = (gamma / shifts["above"] ** 2).xreplace(values)
        assert below < values[M] < above


def test_radial_inverse_inverts_the_radial_map():
    with mpmath.workdps(40):
        eta = [mpmath.mpf(3) / 7, -mpmath.mpf(2) / 9]
        theta = rep.radial_inverse(eta, mpmath.mpf(1) / 4)
        back = [(sum(t ** 2 for t in theta) + mpmath.mpf(1) / 4) * t for t in theta]
        assert max(abs(x - y) for x, y in zip(back, eta)) < mpmath.mpf(10) ** -35
    # the closed form at exact inputs, evaluated at 60 digits, and at the centre itself
    eta, quarter = [sp.Rational(3, 7), sp.Rational(-2, 9)], sp.Rational(1, 4)
    theta = rep.radial_inverse(eta, quarter)
    back = [(sum(t ** 2 for t in theta) + quarter) * t for t in theta]
    assert max(abs(sp.N(x - y, 60)) for x, y in zip(back, eta)) < sp.Rational(1, 10 ** 50)
    assert rep.radial_inverse([sp.S.Zero, sp.S.Zero], quarter) == [0, 0]


def test_example_norms_are_on_the_predicted_sides():
    factor, _ = rep.radial_hessian(2, b ** a)
    verdict = rep.example_radial(factor)
    assert verdict.status is Status.PROVED
    assert verdict.residual < 1e-15
    text = " ".join(verdict.evidence)
    assert "predicted norm 1/20" in text and "predicted norm 2000000" in text


def test_weight_normalization_orthogonality():
    assert rep.weight_norm_orthogonality(3).status is Status.PROVED


# --- negative controls ----------------------------------------------------------------------------

def test_weight_normalization_with_negative_alpha_is_refuted():
    verdict = rep.weight_norm_invariance(2, rep.NEGATIVE_ALPHA)
    assert verdict.status is Status.REFUTED
    point = {k: v for k, v in verdict.witness.items() if isinstance(k, sp.Symbol)}
    assert point[rep.NEGATIVE_ALPHA] < 0
    v = sp.symbols("v_1:3", real=True)
    s = sp.Symbol("s", real=True)
    scaled = rep.weight_normalization([rep.NEGATIVE_ALPHA * x for x in v], s)
    plain = rep.weight_normalization(list(v), s)
    # re-verified on the original expressions: w flips sign
    assert any(compare_at(left, right, point).differ for left, right in zip(scaled, plain))


def test_chain_rule_without_the_second_order_term_is_refuted():
    verdict = rep.chain_rule(2, second_order_term=False)
    assert verdict.status is Status.REFUTED
    witness = {k: v for k, v in verdict.witness.items() if isinstance(k, sp.Symbol)}
    jets = rep.Jets(2)
    _, hessian = jets.composite_derivatives()
    _, wrong = rep.chain_rule_formulas(jets, second_order_term=False)
    differences = [(hessian[i, j] - wrong[i, j]).xreplace(witness) for i in range(2) for j in range(2)]
    assert any(value != 0 for value in differences)     # re-verified exactly at the witness


def test_the_sources_truncated_hessian_is_refuted():
    # the source prints grad g^T grad^2 L (no trailing grad g): wrong for a generic g
    jets = rep.Jets(2)
    _, hessian = jets.composite_derivatives()
    truncated = jets.G.T * jets.H + sum((jets.l[k] * jets.C[k] for k in range(2)), sp.zeros(2, 2))
    verdict = check_identity(hessian[0, 0], truncated[0, 0])
    assert verdict.status is Status.REFUTED
    point = {k: v for k, v in verdict.witness.items() if isinstance(k, sp.Symbol)}
    assert (hessian[0, 0] - truncated[0, 0]).xreplace(point) != 0     # re-verified exactly


def test_input_gradient_invariance_is_refuted_with_exact_quotients():
    verdict = rep.input_gradient_invariance()
    assert verdict.status is Status.REFUTED
    assert verdict.witness["sigma"] == sp.Rational(1, 2) and verdict.witness["mu"] == sp.Rational(3, 2)
    assert verdict.witness["u"] == -1 and "1/2" in verdict.reason


def test_cli_lists_it(cli):
    result = cli("--list")
    assert result.returncode == 0 and "reparametrization" in result.stdout


# --- the kernel: what each PROVED rests on, refutations and the numeric-agreement oracle ---------

def test_every_proved_claim_rests_on_something_named(report):
    for row in report.results:
        assert row.verdict.rests_on and not row.verdict.theorem.rests_on.empty, row.claim
    rows = {r.claim: r.verdict for r in report.results}
    for negation in ("weight normalization: not invariant for some alpha < 0",
                     "input-gradient norm depends on the input representation"):
        assert rows[negation].rests_on["rules"] == ["refutation by an exact point"]
        assert rows[negation].statement.__class__.__name__ == "Negation"
    assert "two-precision agreement of a function" in \
        rows["worked example: explicit b, Hessian recomputed numerically"].rests_on["oracles"]
    assert "sympy limits" in rows["radial map is a bijection"].rests_on["oracles"]


def test_a_negation_needs_a_refuted_claim_and_a_point_that_refutes_it():
    # alpha > 0: the invariance holds, so its negation is not proved
    proved = rep.weight_norm_invariance(2)
    assert rep.refuted_as_expected(proved, rep.weight_norm_equations(2), "no").status is Status.UNDECIDED
    # a point where the two sides agree (v = 0 is excluded, s = 0 makes both 0) refutes nothing
    refuted = rep.weight_norm_invariance(2, rep.NEGATIVE_ALPHA)
    equations = rep.weight_norm_equations(2, rep.NEGATIVE_ALPHA)
    s, v1, v2 = sp.Symbol("s", real=True), *sp.symbols("v_1:3", real=True)
    agreeing = {s: 0, v1: 1, v2: 2, rep.NEGATIVE_ALPHA: -3}
    assert rep.refuted_as_expected(refuted, equations, "no", agreeing).status is Status.UNDECIDED
    # the input-gradient claim holds at a point where the map does not rescale the slope
    statement, point = rep.input_gradient_equation()
    u = next(iter(point))
    assert rep.refuted_as_expected(rep.input_gradient_invariance(), [statement], "no",
                                   {u: sp.Integer(-10)}).status is Status.UNDECIDED


def test_the_numeric_agreement_oracle_refuses_a_wrong_value():
    from symbolic.kernel import by_oracle
    from symbolic.numerics.agreement_oracle import hessian_norm_statement
    x, y = sp.symbols("x y", real=True)
    f = x ** 2 + 3 * y ** 2 + x * y                    # Hessian [[2, 1], [1, 6]]: norm 4 + sqrt(5)
    norm = 4 + sp.sqrt(5)
    tolerance = sp.Rational(1, 10 ** 15)
    proved = by_oracle(FUNCTION_AGREEMENT, hessian_norm_statement(f, (x, y), (0, 0), norm,
                                                                                          tolerance))
    assert proved.status is Status.PROVED and proved.residual < 1e-15
    assert proved.rests_on["oracles"] == ["two-precision agreement of a function"]
    off = by_oracle(FUNCTION_AGREEMENT,
                    hessian_norm_statement(f, (x, y), (0, 0), norm + sp.Rational(1, 10 ** 12), tolerance))
    assert off.status is not Status.PROVED
    # a free parameter in f: no number to compare
    free = by_oracle(FUNCTION_AGREEMENT,
                     hessian_norm_statement(f + M * x ** 2, (x, y), (0, 0), norm, tolerance))
    assert free.status is not Status.PROVED
