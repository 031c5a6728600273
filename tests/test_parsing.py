import pytest
import sympy as sp

from symbolic import ReLU
from symbolic.decision.domain import evaluated
from symbolic.parsing import ParseError, parse_expression


def test_parses_arithmetic_and_functions():
    symbols = {}
    expr = parse_expression("relu(a*x) - 2^3*max(x, y)/4 + abs(-x)", positive=["a"], symbols=symbols)
    a, x, y = symbols["a"], symbols["x"], symbols["y"]
    assert a.is_positive and x.is_real
    assert evaluated(expr) == ReLU(a * x) - 2 * sp.Max(x, y) + sp.Abs(x)


def test_the_expression_is_kept_as_written():
    symbols = {}
    assert str(parse_expression("x/x", symbols=symbols)) == "x/x"
    assert str(parse_expression("relu(a*x)/a", positive=["a"], symbols=symbols)) == "ReLU(a*x)/a"
    assert str(parse_expression("sqrt(x)*sqrt(x^3)", symbols=symbols)) == "sqrt(x)*sqrt(x**3)"


def test_constants_are_bounded_before_they_are_built():
    with pytest.raises(ParseError, match=r"\(\(2\*\*64\)\*\*64\)\*\*64.*4,000 digits"):
        parse_expression("((2^64)^64)^64")
    assert evaluated(parse_expression("(2^64)^64")) == sp.Integer(2) ** 4096


def test_sign_and_heaviside():
    x = sp.Symbol("x", real=True)
    assert parse_expression("sign(x) + heaviside(x)", symbols={"x": x}) == \
        sp.Add(sp.sign(x), sp.Heaviside(x), evaluate=False)


def test_decimals_are_exact():
    assert parse_expression("0.1") == sp.Rational(1, 10)


@pytest.mark.parametrize("text", [
    "__import__('os').system('true')", "x.real", "[x]", "x if y else z", "f(x)", "relu()",
    "relu(x, y)", "max(x)", "(x", "x)", "1/0", "x ** 100",
])
def test_rejects(text):
    with pytest.raises(ParseError):
        parse_expression(text)


def test_nesting_limit():
    with pytest.raises(ParseError):
        parse_expression("(" * 500 + "x" + ")" * 500)
