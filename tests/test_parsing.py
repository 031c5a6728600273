import pytest
import sympy as sp

from symbolic import ReLU
from symbolic.parsing import ParseError, parse_expression


def test_parses_arithmetic_and_functions():
    symbols = {}
    expr = parse_expression("relu(a*x) - 2^3*max(x, y)/4 + abs(-x)", positive=["a"], symbols=symbols)
    a, x, y = symbols["a"], symbols["x"], symbols["y"]
    assert a.is_positive and x.is_real
    assert expr == a * ReLU(x) - 2 * sp.Max(x, y) + sp.Abs(x)


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
