"""The identities of exp and log a student tries first, decided exactly (the exp-log test:
``symbolic.decision.exp_log``), and the ones that are false, or outside its fragment, never PROVED by it."""
import json

import pytest
import sympy as sp

from symbolic import check_identity
from symbolic.kernel import Equation, by_oracle
from symbolic.kernel.verdict import Status
from symbolic.parsing import parse_expression
from symbolic.trusted.oracles.identity import EXP_LOG_IDENTITY


def parsed(lhs, rhs):
    symbols = {}
    return parse_expression(lhs, symbols=symbols), parse_expression(rhs, symbols=symbols)


@pytest.mark.parametrize("lhs, rhs", [
    ("softplus(x) - softplus(-x)", "x"),
    ("tanh(x)", "2*sigmoid(2*x) - 1"),
    ("sigmoid(x) + sigmoid(-x)", "1"),
    ("sigmoid(x)*(1 - sigmoid(x))", "sigmoid(x)*sigmoid(-x)"),
    ("log(exp(x/2))", "x/2"),
    ("softplus(x)", "x + softplus(-x)"),
    ("log(1 + x^2) + log(1 + exp(x))", "log((1 + x^2)*(1 + exp(x)))"),
])
def test_an_exp_log_identity_is_proved(lhs, rhs):
    verdict = check_identity(*parsed(lhs, rhs))
    assert verdict.status is Status.PROVED, verdict.describe()
    assert verdict.rests_on["oracles"] in (["exact exp-log identity test"], ["exact identity test"])


@pytest.mark.parametrize("lhs, rhs", [
    ("tanh(x)", "2*sigmoid(x) - 1"),                      # the argument not doubled
    ("softplus(x) - softplus(-x)", "x + 1"),               # off by 1 everywhere
    ("log(1 + exp(2*x))", "2*softplus(x)"),                # log(1 + t^2) is not 2 log(1 + t)
    ("sigmoid(x) + sigmoid(-x)", "1 + exp(-x^2)/10^40"),   # off by less than the witness sees, not an identity
    # a constant below what 50 digits see: only the value at x = 0 tells it apart
    ("softplus(x) - softplus(-x)", "x + 1/10^60"),
    # 0 at x = 0 and below what 50 digits see elsewhere: only the derivative tells it apart
    ("sigmoid(x) + sigmoid(-x)", "1 + x*exp(x)/(10^60*(1 + exp(x))^2)"),
])
def test_a_false_one_is_not_proved(lhs, rhs):
    statement = Equation(*parsed(lhs, rhs))
    assert by_oracle(EXP_LOG_IDENTITY, statement).status is Status.UNDECIDED
    assert check_identity(statement.lhs, statement.rhs).status is not Status.PROVED


@pytest.mark.parametrize("lhs, rhs, why", [
    ("log(x^2)", "2*log(x)", "not positive by construction"),          # undefined at x < 0 on the right
    ("exp(x)*exp(y)", "exp(x + y)", "one real symbol"),                  # two symbols
    ("exp(x^2)", "1 + x^2", "rational multiple"),
    ("sin(x)^2 + cos(x)^2", "1", "outside exp and log"),
])
def test_outside_the_fragment_the_test_answers_nothing(lhs, rhs, why):
    verdict = by_oracle(EXP_LOG_IDENTITY, Equation(*parsed(lhs, rhs)))
    assert verdict.status is Status.UNDECIDED and why in verdict.reason


def test_the_command_line_proves_the_softplus_identity(cli):
    result = cli("check", "softplus(x) - softplus(-x)", "x", "--json")
    assert result.returncode == 0
    verdict = json.loads(result.stdout)
    assert verdict["status"] == "proved" and verdict["rests_on"]["oracles"] == ["exact exp-log identity test"]
    assert any("zero rational function" in line for line in verdict["evidence"])


def test_a_claim_of_several_symbols_keeps_the_identity_test_s_answer():
    x, y = sp.symbols("x y", real=True)
    verdict = check_identity(sp.log(1 + sp.exp(x)) + y, y + sp.log(1 + sp.exp(x)) + 1)
    assert verdict.status is Status.REFUTED
