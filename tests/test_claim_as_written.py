"""The claim checked is the claim written: no rewriting before the check, the domain as written,
reasons that say what is known, and the cases a new user hit (each with its negative control)."""
import json

import pytest
import sympy as sp

from proofs.commands import check_command
from proofs.commands.cli import main as cli_main
from symbolic import ReLU, Status, check_identity
from symbolic.decision.domain import WrittenDomain, evaluated
from symbolic.networks.model import Abs, Dense, LeakyReLU, Model, ReLU as ReLULayer
from symbolic.symmetries.symmetry import Symmetry, check_symmetry
from symbolic.parsing import parse_expression


def check(capsys, *argv):
    """python -m proofs check ARGV, in process: (exit code, stdout, stderr)."""
    code = cli_main(["check", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def sides(lhs, rhs, **facts):
    symbols = {}
    return parse_expression(lhs, symbols=symbols, **facts), parse_expression(rhs, symbols=symbols)


# --- 1. the claim as written, in every display ------------------------------------------------------

def test_the_papers_rescaling_identity_from_the_command_line(capsys):
    code, out, err = check(capsys, "relu(a*x)/a", "relu(x)", "--positive", "a")
    assert code == 0, err
    assert out.startswith("PROVED: relu(a*x)/a = relu(x)")


def test_the_verdict_shows_the_claim_as_written():
    a, s = sp.Symbol("a", positive=True), sp.Symbol("s", real=True)
    verdict = check_identity(ReLU(a * s), a * ReLU(s))
    assert verdict.status is Status.PROVED
    assert verdict.claim == "ReLU(a*s) = a*ReLU(s) for a > 0"
    assert r"\operatorname{ReLU}\left(a s\right) = a \operatorname{ReLU}\left(s\right)\quad\text{for } a > 0" == \
        verdict.claim_latex()


def test_json_keeps_the_claim_as_written(capsys):
    code, out, _ = check(capsys, "x/x", "1", "--json")
    assert code == 0 and json.loads(out)["claim"] == "x/x = 1"


# --- 2. the domain as written ----------------------------------------------------------------------

@pytest.mark.parametrize("lhs, rhs", [
    ("relu(x)/relu(x)", "relu(x)/x"),
    ("relu(x)*relu(y)/(relu(x)*relu(y))", "relu(x+y)/(x+y)"),
    ("x/x", "2 - sign(x)^2"),
])
def test_cancellation_does_not_enlarge_the_domain(lhs, rhs):
    assert check_identity(*sides(lhs, rhs)).status is Status.PROVED


@pytest.mark.parametrize("lhs, rhs", [
    ("relu(x)/relu(x)", "2*relu(x)/x"),                     # false where both are defined, x > 0
    ("x/x", "sign(x)"),                                      # false at x < 0
    ("sqrt(x)*sqrt(x^3)", "x^2 + 1"),
])
def test_negative_controls_refuted_inside_the_domain_as_written(lhs, rhs):
    written = sides(lhs, rhs)
    verdict = check_identity(*written)
    assert verdict.status is Status.REFUTED
    point = {s: v for s, v in verdict.witness.items() if isinstance(s, sp.Symbol)}
    assert WrittenDomain(*written).admits(point)
    values = [evaluated(side).xreplace(point) for side in written]
    assert sp.N(values[0] - values[1], 30) != 0


@pytest.mark.parametrize("lhs, rhs", [("sqrt(x*y)", "sqrt(x)*sqrt(y)"),
                                      ("sqrt(x)*sqrt(x^3)", "x^2")])
def test_no_counterexample_from_roots_of_negative_numbers(lhs, rhs):
    # true on the domain as written (x, y >= 0): proved there, with the roots as y >= 0, y^2 = t
    verdict = check_identity(*sides(lhs, rhs))
    assert verdict.status is Status.PROVED, verdict.describe()
    assert any("unsat" in line or "sign split" in line for line in verdict.evidence)


def test_the_domain_test_itself():
    x, y = sp.symbols("x y", real=True)
    domain = WrittenDomain(*sides("sqrt(x)*log(y)/x", "1"))
    four, two = sp.Integer(4), sp.Integer(2)
    assert domain.admits({x: four, y: two})
    assert not domain.admits({x: sp.S.Zero, y: two})      # a denominator vanishes
    assert not domain.admits({x: -four, y: two})          # a square root of a negative number
    assert not domain.admits({x: four, y: sp.S.Zero})     # log of 0


# --- 3. Piecewise, floor, ceiling, Mod; sign and heaviside in the grammar --------------------------

x, y = sp.symbols("x y", real=True)
n, m = sp.symbols("n m", integer=True)


@pytest.mark.parametrize("lhs, rhs, expected", [
    (sp.Piecewise((x, x > 0), (0, True)), ReLU(x), Status.PROVED),
    (sp.Piecewise((x, x >= 0), (-x, True)), sp.Abs(x), Status.PROVED),
    (sp.Piecewise((1, sp.Eq(x, 0)), (0, True)), 0, Status.REFUTED),
    (sp.Piecewise((x, x > 1), (0, True)), ReLU(x), Status.REFUTED),
    (sp.Piecewise((x, sp.And(x > 0, y > 0)), (0, True)), ReLU(x) * sp.Heaviside(y), Status.REFUTED),
    (sp.floor(n / 2) + sp.ceiling(n / 2), n, Status.PROVED),
    (sp.floor(x) + sp.ceiling(-x), 0, Status.PROVED),
    (sp.floor(x) + sp.ceiling(x), 2 * x, Status.REFUTED),
    (sp.Mod(n, 2) ** 2, sp.Mod(n, 2), Status.PROVED),
    (sp.Mod(n * m, 2), sp.Mod(n, 2) * sp.Mod(m, 2), Status.PROVED),
    (sp.Mod(n, 3) ** 2, sp.Mod(n, 3), Status.REFUTED),
])
def test_piecewise_floor_and_mod_are_decided(lhs, rhs, expected):
    verdict = check_identity(lhs, rhs, timeout=30)
    assert verdict.status is expected, verdict.describe()
    if expected is Status.REFUTED:
        point = {s: v for s, v in verdict.witness.items() if isinstance(s, sp.Symbol)}
        assert sp.sympify(lhs).xreplace(point) != sp.sympify(rhs).xreplace(point)


def test_sign_and_heaviside_from_the_command_line(capsys):
    assert check(capsys, "heaviside(x) + heaviside(-x)", "1")[0] == 0      # 1/2 + 1/2 at 0
    assert check(capsys, "heaviside(x) + heaviside(-x)", "1 - sign(x)^2/2")[0] == 1   # at x ≠ 0


# --- 4. reasons say what is known ------------------------------------------------------------------

@pytest.mark.parametrize("lhs, rhs", [("softplus(x) - softplus(-x)", "x"),
                                      ("tanh(x)", "2*sigmoid(2*x) - 1")])
def test_true_claims_outside_the_fragment_are_not_said_to_fail(lhs, rhs):
    verdict = check_identity(*sides(lhs, rhs))
    assert verdict.status is not Status.REFUTED
    assert "is not zero" not in verdict.reason


# --- 5. integer claims by the project's own procedure ----------------------------------------------

def test_integer_sign_split_proves_without_z3_alone():
    verdict = check_identity(*sides("relu(n)*relu(1-n)", "0", integer=["n"]))
    assert verdict.status is Status.PROVED
    assert any(line.startswith("sign split shows an exact zero") for line in verdict.evidence)
    assert "Z3's word alone" not in verdict.describe()
    # the negative control: n = 1 is a counterexample of relu(n)·relu(2 − n) = 0
    refuted = check_identity(*sides("relu(n)*relu(2-n)", "0", integer=["n"]))
    assert refuted.status is Status.REFUTED and refuted.witness[sp.Symbol("n", integer=True)] == 1


def test_a_proof_on_z3_alone_says_so_in_its_first_line():
    # floor of a real symbol: neither the split nor the residue split reads it
    verdict = check_identity(sp.floor(x) + sp.ceiling(-x), 0)
    assert verdict.status is Status.PROVED
    assert "on Z3's" in verdict.describe().splitlines()[0]
    assert "word alone" in verdict.describe().splitlines()[0]


# --- 6. literal sizes and leaky slopes that are names ----------------------------------------------

def test_huge_literal_is_bad_input_naming_it(capsys):
    code, out, err = check(capsys, "((2^64)^64)^64", "x")
    assert code == 2 and out == ""
    assert "((2**64)**64)**64" in err and len(err.strip().splitlines()) == 1


def test_leaky_slope_named_in_two_layers():
    s, c = sp.Symbol("s", real=True), sp.symbols("c_1:3", positive=True)
    model = Model(2, [Dense(2, "W1"), LeakyReLU(s), Dense(2, "W2"), LeakyReLU(s), Dense(1, "v")])
    C = sp.diag(*c)
    symmetry = Symmetry(model, {"W1": model["W1"] * C, "W2": C.inv() * model["W2"]})
    report = check_symmetry(model, symmetry, sizes=(1,))
    assert report.verdict("prediction").status is Status.PROVED
    assert report.verdict("gradient").status is Status.PROVED


# --- 7. a linear T through abs: the chain rule -----------------------------------------------------

def test_sign_flip_through_abs_proves_the_laws_by_the_chain_rule():
    model = Model(2, [Dense(2, "W1", bias="b1"), Abs(), Dense(1, "v")])
    flip = Symmetry(model, {"W1": -model["W1"], "b1": -model["b1"]})
    report = check_symmetry(model, flip, sizes=(1,))
    assert report.status is Status.PROVED, report.table()
    for claim in ("gradient", "Hessian"):
        assert report.verdict(claim).evidence[0].startswith("chain rule: L(T theta) = L(theta)")


def test_sign_flip_through_relu_is_no_symmetry_and_gets_no_chain_rule():
    model = Model(2, [Dense(2, "W1", bias="b1"), ReLULayer(), Dense(1, "v")])
    flip = Symmetry(model, {"W1": -model["W1"], "b1": -model["b1"]})
    report = check_symmetry(model, flip, sizes=(1,))
    assert report.verdict("loss").status is Status.REFUTED
    assert report.verdict("gradient").status is not Status.PROVED


# --- 8. a leading minus --------------------------------------------------------------------------

def test_expressions_and_values_may_start_with_a_minus(capsys):
    code, out, err = check(capsys, "-relu(-x)", "min(x,0)")
    assert code == 0 and out.startswith("PROVED: -relu(-x) = min(x,0)"), err
    assert check(capsys, "-x", "x")[0] == 1                  # the negative control
    assert cli_main(["example", "--perturbation", "-1/3"]) == 0
    assert "-1/3" in capsys.readouterr().out


def test_negative_and_rational_options(capsys):
    assert check(capsys, "relu(q)", "0", "--negative", "q")[0] == 0
    assert check(capsys, "relu(q)", "0", "--rational", "q")[0] == 1
    assert check(capsys, "abs(q)", "q", "--rational", "q")[0] == 1
    args = check_command.build_parser().parse_args(["x", "x", "--negative", "a,b"])
    assert args.negative == ["a", "b"]
