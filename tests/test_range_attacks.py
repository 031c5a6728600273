"""Attacks on the ranges a proof assumed for free indices (``Theorem.ranges``), aimed at the older
combinators (the pencil and the sign similarity, the change of variables) and at the generic
coordinates of the mixing pencil.  Each asserts the kernel does not say PROVED; the docstring of each
says what the code before the fix answered."""
import sympy as sp

from proofs import measures_all_sizes as every
from symbolic.trusted.axioms.index_rules import ARITHMETIC, delta_contraction
from symbolic.logic.terms import Add, Const, Entry, Eval, Function, Mul, Sum, Transformation
from symbolic.every_size.laws import derivative_chain
from symbolic.every_size.networks import LOSS_FUNCTION, T_ALPHA
from symbolic.kernel.derivations import Chain, prove
from symbolic.kernel.verdict import Status

ONE = Const(sp.S.One)


def _index(name):
    return sp.Symbol(name, integer=True)


def _adaptive(u, is_weight):
    return sp.Abs(u)


def test_the_change_of_variables_refuses_an_invariance_proved_for_some_examples_only():
    """f = v (Σ_{j≤k} δ_jn y_j − y_n) + u: for n ≤ k the bracket is 0, so T(f) = f under v ↦ 2v, u ↦ u
    is proved with n taken over 1..k; for n > k, f = −v y_n + u and f(Tθ) ≠ f(θ), so the sharpness of
    f moves under T.  Before the fix the change of variables said PROVED (a false verdict)."""
    from symbolic.every_size.change_of_variables import change_of_variables
    n_over_k = delta_contraction({"n": "k"})
    j, n = _index("j"), _index("n")
    V, U, y_n = Entry("v", ()), Entry("u", ()), Entry("y", ("n",))
    minus = Const(sp.S.NegativeOne)
    contracted = Sum("j", "k", Mul((Const(sp.KroneckerDelta(j, n)), Entry("y", ("j",)))))
    f = Function("f", Add((Mul((V, Add((contracted, Mul((minus, y_n)))))), U)))
    T = Transformation("T_v", ((V, Mul((Const(sp.Integer(2)), V))), (U, Mul((ONE, U)))))
    two_v = Mul((Const(sp.Integer(2)), V))
    chain = Chain("T(f) = f", T.apply(f.body))
    chain.then(n_over_k, Add((Mul((two_v, Add((y_n, Mul((minus, y_n)))))), Mul((ONE, U)))))
    chain.then(ARITHMETIC, Add((Mul((V, Add((y_n, Mul((minus, y_n)))))), U)))
    chain.then(n_over_k, f.body)
    verdict, theorem = prove(chain)
    assert verdict.status is Status.PROVED and dict(theorem.ranges) == {"n": "k"}
    refused = change_of_variables("M(T theta) = M(theta)", theorem, f, T, _adaptive, lambda family: True)
    assert refused.status is not Status.PROVED and "some values of its indices" in refused.reason


def _detoured_hessian_law(group, size):
    """The group's Hessian law (∂_b∂_a L)(Tθ) = t_a⁻¹ t_b⁻¹ (∂_b∂_a L)(θ), where a is the first-layer
    weight θ_ij, with a detour through Σ_{j'≤size} δ_{j'j} (∂_b∂_{θ_ij'} L)(θ): the theorem takes the
    column j over 1..size."""
    every_size = every.EVERY_SIZE[group]
    weight = every_size.T.images[0][0].family

    def law(a, b):
        chain = derivative_chain([a, b], every_size.function, every_size.T, every_size.loss_lemma)
        if a.family == weight:
            column = delta_contraction({a.indices[1]: size})
            end = chain.end
            factor, at_theta = end.factors
            moved = Entry(weight, (a.indices[0], "j'"))
            delta = Const(sp.KroneckerDelta(_index("j'"), _index(a.indices[1])))
            detour = Sum("j'", size, Mul((delta, Eval(at_theta.function, (moved,) + at_theta.partials[1:], "theta"))))
            chain.then(column, Mul((factor, detour)))
            chain.then(column, end)
        return prove(chain)[1]
    return law


def _pencil(hessian_law):
    from symbolic.every_size.congruence import pencil_congruence
    from symbolic.every_size.measure_forms import gauss_newton_entry
    layerwise = every.EVERY_SIZE["layerwise"]
    return pencil_congruence("the pencil of L", T_ALPHA, LOSS_FUNCTION, [
        ("H", lambda a, b, point: Eval(LOSS_FUNCTION, (a, b), point), hessian_law),
        ("G", lambda a, b, point: gauss_newton_entry(layerwise.prediction, a, b, point),
         lambda a, b: every._metric_law(layerwise, a, b))])


def test_the_pencil_refuses_a_law_proved_for_some_columns_only():
    """The Hessian law at (W_ij, W_kl) proved with j taken over 1..K, while L sums j over 1..h: a law
    for some coordinates of W only, not for every pair of coordinates.  Before the fix the pencil
    said PROVED; the law happens to hold for every j, so that verdict was unjustified rather than
    false (a contraction's detour rewrites a term into an equal one where it is valid, and we found
    no law the kernel proves for j ≤ K that fails for j > K)."""
    law = _detoured_hessian_law("layerwise", "K")
    assert dict(law(Entry("W", ("i", "j")), Entry("W", ("k", "l"))).ranges) == {"j": "K"}
    verdict = _pencil(law)
    assert verdict.status is not Status.PROVED and "not the range over which L reads it" in verdict.reason
    # the same detour over 1..h, the range L reads W's column over: the law of every coordinate
    assert _pencil(_detoured_hessian_law("layerwise", "h")).status is Status.PROVED


def test_the_sign_similarity_refuses_a_law_proved_for_some_columns_only():
    """As for the pencil, through the sign similarity (the same premises, the scales signs), with the
    sign-flip group's law taking the column of θ^(1) over 1..K while L sums it over 1..h_1.  Before
    the fix it said PROVED (unjustified, as above)."""
    from symbolic.every_size.congruence import sign_similarity
    signs = every.EVERY_SIZE["sign_flip"]

    def hessian(law):
        return ("H", lambda a, b, point: Eval(signs.function, (a, b), point), law)
    assert sign_similarity("H", signs.T, signs.function, hessian(_detoured_hessian_law("sign_flip", "h_{1}"))).status \
        is Status.PROVED
    verdict = sign_similarity("H", signs.T, signs.function, hessian(_detoured_hessian_law("sign_flip", "K")))
    assert verdict.status is not Status.PROVED and "not the range over which L reads it" in verdict.reason


def test_the_mixing_pencil_pairs_coordinates_with_disjoint_index_names():
    """A family whose pattern names an index r (the name of the mixed column) or i' (the second side's
    prime of i): before the fix pairs() gave K_{r r} (its row and its mixed column one name) and
    (X_{i i'}, Y_{i'}) — a law for those pairs speaks of the diagonal only."""
    from symbolic.trusted.axioms.attention_rules import GL_A, HEAD
    from symbolic.every_size.mixing_congruence import pairs
    m = _index("m")
    K_pattern = Entry("K", ("r", "m"))
    mixed = Sum("r'", HEAD, Mul((Entry("K", ("r", "r'")), Const(GL_A[_index("r'"), m]))))
    X, Y = Entry("X", ("i", "i'")), Entry("Y", ("i",))
    T = Transformation("T_names", ((K_pattern, mixed), (X, Mul((Const(sp.Integer(2)), X))),
                                   (Y, Mul((Const(sp.Integer(3)), Y)))))
    for a, b in pairs(T):
        names_a, names_b = list(a.indices), list(b.indices)
        assert len(set(names_a)) == len(names_a) and len(set(names_b)) == len(names_b), (a, b)
        assert not set(names_a) & set(names_b), (a, b)
        assert not (set(names_a) | set(names_b)) & {"m", "m'"}, (a, b)


def test_the_pencil_refuses_generic_coordinates_that_share_a_name():
    """pair_entries names the second coordinate's i, j as k, l: a pattern whose index is named k gives
    the pair (W_{i k}, W_{k l}), whose law speaks of coordinates sharing an index.  Refused now; before,
    the combinator read the laws for such pairs (no group in the repository names an index k, so no
    verdict changed)."""
    from symbolic.every_size.congruence import pair_entries, pencil_congruence
    W, v = Entry("W", ("i", "k")), Entry("v", ("k",))
    alpha = sp.Symbol("alpha", positive=True)
    T = Transformation("T_k", ((W, Mul((Const(alpha), W))), (v, Mul((Const(1 / alpha), v)))))
    assert any(set(a.indices) & set(b.indices) for a, b in pair_entries(T))
    body = Sum("k", "h", Mul((Sum("i", "d", Mul((Entry("x", ("i",)), W))), v)))
    verdict = pencil_congruence("pencil", T, Function("L", body), [("H", None, None), ("G", None, None)])
    assert verdict.status is not Status.PROVED and "share an index name" in verdict.reason
