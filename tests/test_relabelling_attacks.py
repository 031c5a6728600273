"""Attacks on permuted and offset indices (π_m(j), j+1), each of which once made the kernel prove a
false statement, and must now be refused; each false statement is shown false at concrete sizes."""
import sympy as sp

from symbolic.trusted.axioms.index_rules import ABSOLUTE_VALUE_OF_A_SIGN, ARITHMETIC, CHAIN_RULE, REINDEXING, \
    SUM_FACTOR, delta_contraction
from symbolic.logic.terms import Activation, Const, Deriv, Entry, Eval, Function, Mul, Sum, Transformation, \
    expand, free_indices, permuted, substitute_index
from symbolic.every_size.laws import derivative_chain, invariance_lemma
from symbolic.kernel.derivations import Chain, definition, lemma, prove
from symbolic.kernel.verdict import Status

SWAP = {1: 2, 2: 1}


def _v(index):
    return Entry("v", (index,))


def _pi(index, size="h"):
    return permuted(size, index)


def test_a_lemma_variable_may_not_bind_to_a_permuted_index_of_a_bound_name():
    """Σ_n v_j x_n = v_j Σ_n x_n for every j, used at j := π_N(n): n is then captured by Σ_n."""
    x = Entry("x", ("n",))
    theorem = prove(Chain("factor", Sum("n", "N", Mul((_v("j"), x)))).then(SUM_FACTOR, Mul((_v("j"), Sum("n", "N", x)))))[1]
    factor = lemma(theorem, "factor", "", for_all=("j",))
    captured = Sum("n", "N", Mul((_v(_pi("n", "N")), x))), Mul((_v(_pi("n", "N")), Sum("n", "N", x)))
    assert prove(Chain("capture", captured[0]).then(factor, captured[1]))[0].status is Status.UNDECIDED
    # the two sides differ at N = 2, π the swap
    values = {"n": 1, r"\pi_{N}": SWAP}
    assert sp.expand(expand(captured[0], {"N": 2}, values) - expand(captured[1], {"N": 2}, values)) != 0


def test_a_permuted_index_inside_a_scalar_renames_with_its_variable():
    """Σ_k δ(k, π(j)) v_k = v_π(j) for every j may be used at l only as v_π(l)."""
    k, moved = sp.Symbol("k", integer=True), sp.Symbol(_pi("j"), integer=True)
    start = Sum("k", "h", Mul((Const(sp.KroneckerDelta(k, moved)), _v("k"))))
    theorem = prove(Chain("delta", start).then(delta_contraction({_pi("j"): "h"}), _v(_pi("j"))))[1]
    rule = lemma(theorem, "delta", "", for_all=("j",))
    assert prove(Chain("instance", start).then(rule, _v(_pi("l"))))[0].status is Status.UNDECIDED
    # and substitution reaches inside the scalar
    c = sp.IndexedBase("c")
    assert substitute_index(Const(c[moved]), "j", "l") == Const(c[sp.Symbol(_pi("l"), integer=True)])


def test_a_map_whose_scale_reads_the_permuted_unit_gives_the_right_law():
    """T: v_j ↦ (−1)^{e_π(j)} v_π(j) on g = Σ_j |v_j|: the law at v_l has the sign of π(l), not π(j)."""
    e = sp.IndexedBase("e", integer=True)
    sign = Const((-1) ** e[sp.Symbol(_pi("j"), integer=True)])
    T = Transformation("T", ((_v("j"), Mul((sign, _v(_pi("j"))))),))
    g = Function("g", Sum("j", "h", Activation("abs", None, _v("j"))))
    invariance = Chain("g o T = g", T.apply(g.body))
    invariance.then(ABSOLUTE_VALUE_OF_A_SIGN, Sum("j", "h", Activation("abs", None, _v(_pi("j")))))
    invariance.then(REINDEXING, g.body)
    verdict, theorem = prove(invariance)
    assert verdict.status is Status.PROVED
    law = prove(derivative_chain([_v("l")], g, T, invariance_lemma(theorem, g, T)))[1]
    assert str(law.rhs.factors[0].expr) == str((-1) ** -e[sp.Symbol(_pi("l"), integer=True)])
    assert "j" not in free_indices(law.rhs)


def test_a_pattern_with_a_permuted_index_is_not_read_as_a_relabelling():
    T = Transformation("T", ((_v(_pi("j")), _v(_pi(_pi("j")))),))
    assert T.monomial(_v("l")) is None
    g = Function("g", Sum("k", "h", Mul((_v("k"), _v("k")))))
    # what the reading would have licensed: ∂ at v_π(π(j)) of g(Tθ) is (∂_{v_l} g)(Tθ)
    step = Chain("chain", Deriv(_v(_pi(_pi("j"))), Eval(g, (), T)))
    step.then(CHAIN_RULE, Mul((Const(sp.S.One), Eval(g, (_v("l"),), T))))
    assert prove(step)[0].status is Status.UNDECIDED


def test_delta_contraction_sees_the_variable_of_a_permuted_target():
    j = sp.Symbol("j", integer=True)
    target = sp.Symbol(_pi("l"), integer=True)
    body = Mul((Const(sp.KroneckerDelta(j, target)), Sum("l", "h", Mul((_v("j"), Entry("w", ("l",)))))))
    contracted = Sum("l", "h", Mul((_v(_pi("l")), Entry("w", ("l",)))))
    step = Chain("capture", Sum("j", "h", body)).then(delta_contraction({_pi("l"): "h"}), contracted)
    assert prove(step)[0].status is Status.UNDECIDED


def test_an_offset_index_depends_on_its_variable():
    """w_{j+1} depends on j: it does not leave Σ_j, and Σ_j v_π(j) w_{j+1} is not reindexed."""
    shifted = Entry("w", ("j+1",))
    assert free_indices(shifted) == {"j"}
    out = Chain("offset", Sum("j", "h", Mul((shifted, _v("j"))))).then(SUM_FACTOR, Mul((shifted, Sum("j", "h", _v("j")))))
    assert prove(out)[0].status is Status.UNDECIDED
    reordered = Chain("offset", Sum("j", "h", Mul((_v(_pi("j")), shifted)))).then(
        REINDEXING, Sum("j", "h", Mul((_v("j"), shifted))))
    assert prove(reordered)[0].status is Status.UNDECIDED
    values = {r"\pi_{h}": SWAP}
    sizes = {"h": 2}
    assert sp.expand(expand(reordered.start, sizes, values) - expand(reordered.end, sizes, values)) != 0


def test_a_loss_that_reads_a_defined_quantity_t_does_not_map_gives_no_lemma():
    """g reads W only through z_n := Σ_j W_nj, and T: W ↦ 2W lists no value of z at Tθ: T applied to
    g's term is g's term, yet g(Tθ) = 4 g(θ)."""
    z = Entry("z_attack", ("n",))
    definition("z_attack", z, Sum("j", "h", Entry("W", ("n", "j"))), for_all=("n",))
    g = Function("g", Sum("n", "N", Mul((z, z))))
    T = Transformation("T", ((Entry("W", ("i", "j")), Mul((Const(sp.Integer(2)), Entry("W", ("i", "j"))))),))
    assert T.apply(g.body) == g.body
    round_trip = Chain("g o T = g", g.body).then(ARITHMETIC, Mul((Const(sp.S.One), g.body))).then(ARITHMETIC, g.body)
    theorem = prove(round_trip)[1]
    refused = invariance_lemma(theorem, g, T)
    assert refused.validity().status is Status.UNDECIDED and "neither maps" in refused.validity().reason
