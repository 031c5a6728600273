import sympy as sp

from symbolic.relu import ReLU, canonical_relu_form, leaky_relu, split_positive_factor, to_relu_form

x, y = sp.symbols("x y", real=True)
a = sp.Symbol("a", positive=True)
b = sp.Symbol("b", real=True)


def test_relu_of_numbers():
    assert ReLU(3) == 3
    assert ReLU(-sp.Rational(1, 2)) == 0
    assert ReLU(0) == 0


def test_construction_keeps_the_argument_as_written():
    assert ReLU(a * x).args == (a * x,)
    assert ReLU(a).args == (a,)
    assert str(ReLU(-3 * x)) == "ReLU(-3*x)"


def test_positive_factors_are_pulled_out_on_the_checkers_copy():
    assert canonical_relu_form(ReLU(a * x)) == a * ReLU(x)
    assert canonical_relu_form(ReLU(2 * a * x + 4 * a * y)) == 2 * a * ReLU(x + 2 * y)
    assert canonical_relu_form(ReLU(3 * x)) == 3 * ReLU(x)


def test_factors_of_unknown_sign_stay_inside():
    assert canonical_relu_form(ReLU(b * x)) != b * ReLU(x)
    assert isinstance(canonical_relu_form(ReLU(b * x)), ReLU)


def test_known_signs_evaluate_on_the_checkers_copy():
    assert canonical_relu_form(ReLU(a)) == a
    assert canonical_relu_form(ReLU(-a)) == 0
    assert canonical_relu_form(ReLU(x ** 2)) == x ** 2


def test_split_positive_factor():
    positive, rest = split_positive_factor(-6 * a * x)
    assert positive == 6 * a and rest == -x


def test_rewrites_into_relu():
    assert to_relu_form(sp.Max(x, 0)) == ReLU(x)
    assert to_relu_form(sp.Abs(x)) == ReLU(x) + ReLU(-x)
    assert to_relu_form(sp.Min(x, y)) == x - ReLU(x - y)
    assert to_relu_form(sp.Max(x, y)) == y + ReLU(x - y)


def test_canonical_form_keeps_one_of_t_and_minus_t():
    assert canonical_relu_form(ReLU(x) - ReLU(-x)) == x


def test_leaky_relu_values():
    half = sp.Rational(1, 2)
    assert leaky_relu(sp.Integer(4), half) == 4
    assert leaky_relu(sp.Integer(-4), half) == -2


def test_derivative_is_heaviside():
    assert sp.diff(ReLU(x), x) == sp.Heaviside(x)


def test_latex_names_relu():
    assert r"\operatorname{ReLU}" in sp.latex(ReLU(x))
