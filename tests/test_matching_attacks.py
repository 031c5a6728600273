"""Attacks on the kernel's matching of an instance: an index variable stands for one index, the
same at each of its places (in an entry, across the factors of a product, in a scalar, on both
sides of the equation).  Bound to two different indices it would make f_{Tθ}(x_m) = f_θ(x_p) an
instance of f_{Tθ}(x_n) = f_θ(x_n), and x_m + x_p = 2 x_m one of x_i + x_i = 2 x_i; each such
statement is false at concrete values and must be refused."""
import pytest
import sympy as sp

from proofs import all_sizes
from symbolic.trusted.axioms.index_rules import ARITHMETIC
from symbolic.kernel.derivations import Chain
from symbolic.logic.terms import Add, Const, Entry, Mul, expand, permuted, substitute_index
from symbolic.every_size.networks import T_ALPHA, prediction
from symbolic.kernel.derivations import _match, _match_scalar, lemma, prove
from symbolic.kernel.matching import _instance_binding, _is_instance
from symbolic.kernel.verdict import Status

c = sp.IndexedBase("c")
i, m, p = (sp.Symbol(name, integer=True) for name in "imp")


def _x(index):
    return Entry("x", (index,))


# --- the matcher: one variable, one index ------------------------------------------------------

@pytest.mark.parametrize("pattern, same, different", [
    # twice in one entry: W_ii against W_mm and W_mp
    (Entry("W", ("i", "i")), Entry("W", ("m", "m")), Entry("W", ("m", "p"))),
    # in two factors of a product
    (Mul((_x("i"), Entry("y", ("i",)))), Mul((_x("m"), Entry("y", ("m",)))), Mul((_x("m"), Entry("y", ("p",))))),
    # in a scalar and an entry
    (Mul((Const(c[i]), _x("i"))), Mul((Const(c[m]), _x("m"))), Mul((Const(c[m]), _x("p")))),
    # twice in one scalar
    (Const(c[i] * c[i] + 1), Const(c[m] * c[m] + 1), Const(c[m] * c[p] + 1)),
    # under a permutation and beside it
    (Mul((Entry("x", (permuted("d", "i"),)), _x("i"))), Mul((Entry("x", (permuted("d", "m"),)), _x("m"))),
     Mul((Entry("x", (permuted("d", "m"),)), _x("p")))),
    # with an offset and without
    (Mul((_x("i+1"), _x("i"))), Mul((_x("m+1"), _x("m"))), Mul((_x("m+1"), _x("p")))),
])
def test_a_repeated_index_variable_matches_one_index_only(pattern, same, different):
    binding = {}
    assert _match(pattern, same, {"i"}, binding) and binding == {"i": "m"}
    assert not _match(pattern, different, {"i"}, {})


def test_a_scalar_variable_bound_already_refuses_another_index():
    assert _match_scalar(c[i], c[m], {i}, {"i": "m"})
    assert not _match_scalar(c[i], c[p], {i}, {"i": "m"})
    assert not _match_scalar(c[i] * c[i] + 1, c[m] * c[p] + 1, {i}, {})


def test_the_two_sides_of_an_instance_rename_alike():
    lhs, rhs = _x("i"), Entry("y", ("i",))
    assert _instance_binding(lhs, rhs, _x("m"), Entry("y", ("m",)), {"i"}) == {"i": "m"}
    assert _instance_binding(lhs, rhs, _x("m"), Entry("y", ("p",)), {"i"}) is None
    assert not _is_instance(lhs, rhs, Entry("y", ("m",)), _x("p"), {"i"})


# --- through the kernel: statements that must not be proved ------------------------------------

def test_f_at_T_theta_on_one_input_is_not_f_at_theta_on_another():
    """f_{Tθ}(x_n) = f_θ(x_n) for every n says nothing of f_{Tθ}(x_m) = f_θ(x_p)."""
    rule = lemma(all_sizes.theorem1_prediction()[1], "Theorem 1 (a)", "", for_all=("n",))
    at_T, at_theta = T_ALPHA.apply(prediction()), prediction()
    # the control: the same renaming on both sides is an instance
    same = Chain("f_{T theta}(x_m) = f_theta(x_m)", substitute_index(at_T, "n", "m"))
    assert prove(same.then(rule, substitute_index(at_theta, "n", "m")))[0].status is Status.PROVED
    two = Chain("f_{T theta}(x_m) = f_theta(x_p)", substitute_index(at_T, "n", "m"))
    verdict = two.then(rule, substitute_index(at_theta, "n", "p")).check()
    assert verdict.status is Status.UNDECIDED and "not an instance" in verdict.reason


def test_a_lemma_with_a_repeated_variable_does_not_prove_a_false_sum():
    """x_i + x_i = 2 x_i used on x_m + x_p = 2 x_m (false at x_m = 0, x_p = 1)."""
    theorem = prove(Chain("double", Add((_x("i"), _x("i")))).then(ARITHMETIC, Mul((Const(sp.Integer(2)), _x("i")))))[1]
    rule = lemma(theorem, "double", "", for_all=("i",))
    start, end = Add((_x("m"), _x("p"))), Mul((Const(sp.Integer(2)), _x("m")))
    assert prove(Chain("false", start).then(rule, end))[0].status is Status.UNDECIDED
    values = {"m": 1, "p": 2}
    assert expand(start, {"d": 2}, values) != expand(end, {"d": 2}, values)


def test_a_lemma_with_a_repeated_scalar_variable_does_not_prove_a_false_product():
    """c_i c_i = c_i² used on c_m c_p = c_m²."""
    theorem = prove(Chain("square", Mul((Const(c[i]), Const(c[i])))).then(ARITHMETIC, Const(c[i] ** 2)))[1]
    rule = lemma(theorem, "square", "", for_all=("i",))
    assert rule.applies(Mul((Const(c[m]), Const(c[m]))), Const(c[m] ** 2)) is None
    false = Chain("false", Mul((Const(c[m]), Const(c[p])))).then(rule, Const(c[m] ** 2))
    assert prove(false)[0].status is Status.UNDECIDED
