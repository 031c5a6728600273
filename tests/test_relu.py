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


def test_the_polynomial_normal_form_is_relu_at_every_point():
    """polynomial_relu (python-flint) against ReLU itself, exactly, at random points that honour
    every symbol's sign: random arguments over symbols of each sign fact, ReLU atoms, monomial
    denominators."""
    import random

    from symbolic.relu import polynomial_relu
    rng = random.Random(7)
    p = sp.Symbol("p", positive=True)
    n = sp.Symbol("n", negative=True)
    q = sp.Symbol("q", nonnegative=True)
    m = sp.Symbol("m", nonpositive=True)
    u = sp.Symbol("u", real=True)
    atoms = [p, n, q, m, u, ReLU(u - 1)]
    ranges = {p: (1, 9), n: (-9, -1), q: (0, 9), m: (-9, 0), u: (-9, 9)}

    def term():
        factors = [rng.choice(atoms) ** rng.randint(1, 3) for _ in range(rng.randint(0, 2))]
        return sp.Rational(rng.randint(-6, 6), rng.randint(1, 4)) * sp.Mul(*factors)

    checked = 0
    for _ in range(300):
        t = sp.Add(*[term() for _ in range(rng.randint(1, 3))])
        if rng.random() < 0.3:
            t = t / (rng.choice([p, n, sp.Integer(-3)]) ** rng.randint(1, 2))
        form = polynomial_relu(t)
        if form is None:
            continue
        for _ in range(4):
            point = {s: sp.Rational(rng.randint(*ranges[s]) * 3 + rng.randint(0, 2), 3) for s in ranges}
            point = {s: min(max(v, ranges[s][0]), ranges[s][1]) for s, v in point.items()}
            assert ReLU(t.xreplace(point)) == form.xreplace(point), (t, form, point)
            checked += 1
    assert checked > 600
