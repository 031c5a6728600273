"""Attacks on what binds a name (sums, products and sums over the layers, lemma variables, layer
definitions, the arithmetic's atoms), each of which once made the kernel prove a false statement,
and must now be refused; each false statement is shown false at concrete sizes."""
import pytest
import sympy as sp

from symbolic.trusted.axioms.index_rules import ARITHMETIC, LAST_FACTOR, SUM_FACTOR, delta_contraction
from symbolic.logic.terms import Add, Const, Entry, Fn, LayerProduct, Mul, Sum, expand, free_indices
from symbolic.kernel.derivations import Chain, definition, induction, instantiate, lemma, prove
from symbolic.kernel.verdict import Status

c = sp.IndexedBase("c", positive=True)
p, q, j, k, l = (sp.Symbol(name, integer=True) for name in "pqjkl")


def _x(index):
    return Entry("x", (index,))


def test_a_lemma_does_not_rename_the_variable_a_product_binds():
    """∏_{p≤2} c_p = (∏_{p≤1} c_p) c_2 is no lemma about ∏_{p≤2} c_q = (∏_{p≤1} c_q) c_2 (c_q² ≠ c_q c_2)."""
    theorem = prove(Chain("peel", LayerProduct("p", "2", Const(c[p]))).then(
        LAST_FACTOR, Mul((LayerProduct("p", "1", Const(c[p])), Const(c[2])))))[1]
    assert "p" not in free_indices(theorem.lhs)
    rule = lemma(theorem, "peel", "", for_all=("p",))
    false = Chain("false", LayerProduct("p", "2", Const(c[q]))).then(
        rule, Mul((LayerProduct("p", "1", Const(c[q])), Const(c[2]))))
    assert prove(false)[0].status is Status.UNDECIDED


def test_a_layer_is_not_substituted_under_a_sum_that_binds_its_name():
    """δ_{1l} Σ_p x_p = x_l (false at d = 2, l = 1) through a product over p of a sum over p."""
    inner = Sum("p", "d", Mul((Const(sp.KroneckerDelta(p, l)), _x("p"))))
    start = Sum("p", "d", Mul((Const(sp.KroneckerDelta(1, l)), _x("p"))))
    chain = Chain("false", Mul((Const(sp.S.One), start)))
    chain.then(LAST_FACTOR, Mul((LayerProduct("p", "0", inner), start)))
    chain.then(LAST_FACTOR, LayerProduct("p", "1", inner))
    chain.then(delta_contraction({"l": "d"}), LayerProduct("p", "1", _x("l")))
    assert prove(chain)[0].status is Status.UNDECIDED
    values = {"l": 1}
    assert expand(start, {"d": 2}, values) != expand(_x("l"), {"d": 2}, values)


def _product_of_a_constant():
    """∏_{p≤k} c_j = c_j^k for every k ≥ 0, by the kernel's induction."""
    def step(hypothesis):
        chain = Chain("step", LayerProduct("p", "k+1", Const(c[j])))
        chain.then(LAST_FACTOR, Mul((LayerProduct("p", "k", Const(c[j])), Const(c[j]))))
        chain.then(hypothesis, Mul((Const(c[j] ** k), Const(c[j]))))
        return chain.then(ARITHMETIC, Const(c[j] ** (k + 1)))
    base = Chain("base", LayerProduct("p", "0", Const(c[j]))).then(LAST_FACTOR, Const(sp.S.One))
    return induction("product of a constant", LayerProduct("p", "k", Const(c[j])), Const(c[j] ** k), k, base, step)


def test_a_lemma_does_not_rename_into_a_bound_name_nor_a_layer():
    verdict, theorem = _product_of_a_constant()
    assert verdict.status is Status.PROVED
    at_three = instantiate(theorem, 3)
    # j := p would be captured by the product over p: ∏_{p≤3} c_p ≠ c_p³
    captured = Chain("captured", LayerProduct("p", "3", Const(c[p]))).then(
        lemma(at_three, "at 3", "", for_all=("j",)), Const(c[p] ** 3))
    assert prove(captured)[0].status is Status.UNDECIDED
    # k stands in the product's range too: renaming it in the scalar alone is no instance
    m = sp.Symbol("m", integer=True)
    renamed = Chain("k renamed", LayerProduct("p", "k", Const(c[j]))).then(
        lemma(theorem, "all k", "", for_all=("k",)), Const(c[j] ** m))
    assert prove(renamed)[0].status is Status.UNDECIDED
    # an instance at a negative layer, whatever the assumption says
    assert instantiate(theorem, -1, "trust me") is None


def test_no_last_factor_at_a_layer_that_may_be_below_one_and_no_negative_layer_is_defined():
    two = Const(sp.Integer(2))
    negative = Chain("negative", LayerProduct("p", "-1", two)).then(LAST_FACTOR, Mul((LayerProduct("p", "-2", two), two)))
    assert prove(negative)[0].status is Status.UNDECIDED
    with pytest.raises(ValueError, match="negative layer"):
        definition("g at -1", Entry("g_attack^{(-1)}", ()), two)


def test_the_arithmetics_atoms_are_not_the_users_symbols():
    for symbol in ("atom0", "scalar0"):
        named = Const(sp.Symbol(symbol, real=True))
        for term in (_x("i"), Const(c[j]), Fn(r"\sqrt", (_x("i"),))):
            assert prove(Chain("collision", term).then(ARITHMETIC, named))[0].status is Status.UNDECIDED


def test_a_symbol_that_is_not_a_lemma_variable_matches_only_itself():
    """j + j = 2j with j a positive integer symbol (not the variable j) says nothing of a + b = 2c."""
    positive = sp.Symbol("j", integer=True, positive=True)
    theorem = prove(Chain("double", Add((Const(positive), Const(positive)))).then(
        ARITHMETIC, Mul((Const(sp.Integer(2)), Const(positive)))))[1]
    a, b, d = sp.symbols("a b d", real=True)
    false = Chain("false", Add((Const(a), Const(b)))).then(
        lemma(theorem, "double", "", for_all=("j",)), Mul((Const(sp.Integer(2)), Const(d))))
    assert prove(false)[0].status is Status.UNDECIDED


def test_a_scalar_is_not_defined_twice_differently():
    Q, r = sp.IndexedBase("Q_attack"), sp.Symbol("r_attack", integer=True)
    definition("Q_r = 1", Const(Q[r]), Const(sp.S.One))
    with pytest.raises(ValueError, match="defined already"):
        definition("Q_1 = 2", Const(Q[1]), Const(sp.Integer(2)))
    # two definitions in one name of a variable are still two: Q'_{r+1} and Q'_{r+2} meet at r + 2 = r' + 1
    shifted = sp.IndexedBase("Q_shift")
    definition("Q'_(r+1) = 1", Const(shifted[r + 1]), Const(sp.S.One))
    with pytest.raises(ValueError, match="defined already"):
        definition("Q'_(r+2) = 2", Const(shifted[r + 2]), Const(sp.Integer(2)))


def test_a_lemma_index_bound_in_one_place_is_not_renamed_there():
    """y_i + Σ_i δ_il x_i = y_i + x_l, used at i := b: the sum's i is its own, not b."""
    summed = Sum("i", "d", Mul((Const(sp.KroneckerDelta(sp.Symbol("i", integer=True), l)), _x("i"))))
    theorem = prove(Chain("t", Add((Entry("y", ("i",)), summed))).then(
        delta_contraction({"l": "d"}), Add((Entry("y", ("i",)), _x("l")))))[1]
    b = sp.Symbol("b", integer=True)
    wrong = Sum("i", "d", Mul((Const(sp.KroneckerDelta(b, l)), _x("b"))))
    false = Chain("false", Add((Entry("y", ("b",)), wrong))).then(
        lemma(theorem, "t", "", for_all=("i",)), Add((Entry("y", ("b",)), _x("l"))))
    assert prove(false)[0].status is Status.UNDECIDED


def test_an_instance_is_not_captured_by_a_sum_of_the_statement():
    def statement(value):
        return Sum("i", "d", Mul((Const(c[value]), _x("i")))), Mul((Const(c[value]), Sum("i", "d", _x("i"))))

    def chain(value):
        return Chain("factor", statement(value)[0]).then(SUM_FACTOR, statement(value)[1])
    verdict, theorem = induction("factor", *statement(k), k, chain(sp.S.Zero), lambda hypothesis: chain(k + 1))
    assert verdict.status is Status.PROVED
    assert instantiate(theorem, sp.Symbol("i", integer=True) ** 2) is None


def test_a_map_image_speaks_only_of_its_patterns_indices():
    """W_ij ↦ (c_j / c_b) W_ij with a foreign b: applied to ‖(W_ab)‖₂ the norm's b would capture it."""
    from symbolic.logic.terms import Transformation
    b = sp.Symbol("b", integer=True)
    with pytest.raises(ValueError, match="not an index of its pattern"):
        Transformation("T_c", ((Entry("W", ("i", "j")), Mul((Const(c[j] / c[b]), Entry("W", ("i", "j"))))),))


def test_a_layer_is_not_substituted_under_a_norm_that_binds_its_name():
    """∏_{a≤1} ‖(c_a W_ab)‖₂ is ‖diag(c) W‖₂, not c_1 ‖W‖₂ (√5 against √2 at c = (1, 2), W = (1, 1))."""
    from symbolic.trusted.axioms.norm_rules import SPECTRAL_NORM_HOMOGENEITY
    from symbolic.logic.terms import SpectralNorm, substitute_layer
    a = sp.Symbol("a", integer=True)
    norm = SpectralNorm(Mul((Const(c[a]), Entry("W", ("a", "b")))), ("a", "d"), ("b", "h"))
    assert substitute_layer(norm, a, sp.Integer(1)) == norm
    chain = Chain("shadow", LayerProduct("a", "1", norm))
    chain.then(LAST_FACTOR, Mul((LayerProduct("a", "0", norm), norm)))
    chain.then(LAST_FACTOR, Mul((Const(sp.S.One), norm)))
    chain.then(SPECTRAL_NORM_HOMOGENEITY, Mul((Const(sp.S.One), Mul((Const(c[1]), SpectralNorm(
        Entry("W", ("a", "b")), ("a", "d"), ("b", "h")))))))
    assert prove(chain)[0].status is Status.UNDECIDED
    # and the expansion reads the norm's own rows in the scalar: c_a per row
    values = expand(norm, {"d": 2, "h": 1})
    assert values.free_symbols >= {sp.Symbol("c_1", positive=True), sp.Symbol("c_2", positive=True)}
