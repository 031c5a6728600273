"""Attacks on the attention head's rules and its pencil combinator: each builds a forged chain (or a
combinator call) whose statement is false, or whose step is outside its rule, and asserts that the
kernel does not say PROVED.  The first group are holes that were open; the second, attacks the rules
already refused, kept so that they stay refused."""
import sympy as sp
import pytest

from proofs import measures_all_sizes as every
from symbolic.every_size.attention import T_ATTENTION, a, attention_prediction
from symbolic.trusted.axioms.attention_rules import GL_A, GL_B, HEAD, INVERSE_PAIR, LINEAR_CHAIN_RULE
from symbolic.trusted.axioms.index_rules import ARITHMETIC, BOUND_RENAMING, CHAIN_RULE, SUM_INTERCHANGE
from symbolic.logic.terms import Add, Const, Deriv, Entry, Eval, Fn, Function, Mul, Sum, Transformation, \
    permuted
from symbolic.kernel.derivations import Chain, evaluation_lemma, prove
from symbolic.kernel.verdict import Status

ONE = Const(sp.S.One)


def _index(name):
    return sp.Symbol(name, integer=True)


def _not_proved(chain):
    verdict, theorem = prove(chain)
    assert verdict.status is not Status.PROVED and theorem is None, chain.claim
    return verdict.reason


def _one_step(rule, before, after, claim="forged"):
    return _not_proved(Chain(claim, before).then(rule, after))


def _unchecked(name, images, outputs=()):
    """A map built without its definition's checks (as a caller could): the kernel must refuse it on
    its own."""
    transformation = object.__new__(Transformation)
    for field, value in (("name", name), ("images", images), ("layer_variables", ()), ("outputs", outputs)):
        object.__setattr__(transformation, field, value)
    return transformation


# --- holes that were open -------------------------------------------------------------------------------

Q, K, V, SECOND = Entry("Q", ("i", "m")), Entry("K", ("l", "m")), Entry("v", ()), Entry("x'", ("n", "l"))


def _lemma_use(transformation):
    """f(Tθ) = f(θ) for the head's score f, from the theorem T(f) = f if the kernel proves it."""
    f = Function("f", attention_prediction())
    verdict, theorem = prove(Chain("T(f) = f", transformation.apply(f.body)).then(ARITHMETIC, f.body))
    rule = evaluation_lemma(theorem, f, transformation, "f o T = f", "")
    return Chain("f(T theta) = f(theta)", Eval(f, (), transformation)).then(rule, Eval(f, (), "theta"))


def test_a_map_that_moves_the_second_token_is_no_map_on_the_parameters():
    # K ↦ 2K with x' ↦ x'/2 keeps the score as a term, but at Tθ = (Q, 2K, v) the score doubles: the
    # lemma f(Tθ) = f(θ) would be false
    images = ((Q, Q), (K, Mul((Const(sp.Integer(2)), K))), (V, V), (SECOND, Mul((Const(sp.Rational(1, 2)), SECOND))))
    # built past the map's own check, the kernel refuses the lemma; the map's definition refuses it too
    reason = _not_proved(_lemma_use(_unchecked("T_data", images)))
    assert "data" in reason
    with pytest.raises(ValueError, match="moves no data"):
        Transformation("T_data", images)


def test_a_map_that_swaps_the_tokens_as_derived_quantities_is_refused():
    # Q ↦ K, K ↦ Q with x and x' declared "derived quantities" swapped at Tθ: T(f) is f up to the
    # names of the inner sums, but f(Tθ) = v Σ_m (x K)_m (x' Q)_m is not f(θ)
    images = ((Q, Entry("K", ("i", "m"))), (K, Entry("Q", ("l", "m"))), (V, V))
    outputs = (("x", "x'"), ("x'", "x"))
    T = _unchecked("T_swap", images, outputs)
    f = Function("f", attention_prediction())
    x, x2 = Entry("x", ("n", "l")), Entry("x'", ("n", "i"))
    start = T.apply(f.body)
    query_l = Sum("l", "d", Mul((x, Entry("Q", ("l", "m")))))
    key_i = Sum("i", "d", Mul((x2, Entry("K", ("i", "m")))))
    chain = Chain("T(f) = f", start)
    chain.then(ARITHMETIC, Mul((V, Sum("m", HEAD, Mul((query_l, key_i))))))
    chain.then(BOUND_RENAMING, Mul((V, Sum("m", HEAD, Mul((Sum("i", "d", Mul((Entry("x", ("n", "i")), Q))), key_i))))))
    chain.then(BOUND_RENAMING, f.body)
    verdict, theorem = prove(chain)
    assert verdict.status is Status.PROVED          # the term-level identity is true
    rule = evaluation_lemma(theorem, f, T, "f o T = f", "")
    _not_proved(Chain("f(T theta) = f(theta)", Eval(f, (), T)).then(rule, Eval(f, (), "theta")))
    with pytest.raises(ValueError, match="moves no data"):
        Transformation("T_swap", images, (), outputs)


def test_no_invariance_lemma_for_a_function_whose_definition_hides_an_evaluation():
    # g := 1·h(θ) with h(θ) = Σ_m Σ_i Q_im: T_A applied to g's term leaves the evaluation alone, so
    # T(g) = g is a theorem, but g(T_A θ) = h(T_A θ) = Σ_m Σ_i Σ_r Q_ir A_rm is not g(θ)
    h = Function("h", Sum("m", HEAD, Sum("i", "d", Entry("Q", ("i", "m")))))
    g = Function("g", Mul((ONE, Eval(h, (), "theta"))))
    assert T_ATTENTION.apply(g.body) == g.body
    chain = Chain("T(g) = g", g.body).then(ARITHMETIC, Eval(h, (), "theta")).then(ARITHMETIC, g.body)
    verdict, theorem = prove(chain)
    rule = evaluation_lemma(theorem, g, T_ATTENTION, "g o T = g", "")
    reason = _not_proved(Chain("g(T theta) = g(theta)", Eval(g, (), T_ATTENTION)).then(rule, Eval(g, (), "theta")))
    assert "function of theta" in reason


def _reads_q_and_v():
    return Function("g", Fn("g", (Sum("m", HEAD, Sum("i", "d", Entry("Q", ("i", "m")))), V)))


def test_the_mixing_chain_rule_sees_a_family_read_through_an_evaluation_in_another_image():
    # v ↦ h(θ)·v with h(θ) = Σ_i Q_im: Q_ir reaches Tθ through v's image too, so ∂_{Q_ir}[g(Tθ)] has a
    # term the mixing's chain rule leaves out
    h = Function("h", Sum("i", "d", Entry("Q", ("i", "m"))))
    leaking = Transformation("T_leak", (T_ATTENTION.images[0], (V, Mul((Eval(h, (), "theta"), V)))))
    g = _reads_q_and_v()
    reason = _one_step(LINEAR_CHAIN_RULE, Deriv(Entry("Q", ("i", "r")), Eval(g, (), leaking)),
                       Sum("m", HEAD, Mul((a(), Eval(g, (Entry("Q", ("i", "m")),), leaking)))))
    assert "another image" in reason


def test_the_scaled_chain_rule_sees_a_family_read_through_an_evaluation_in_another_image():
    # U ↦ h(θ)·U with h(θ) = v: ∂_v[g(Tθ)] is not (∂_v g)(Tθ) alone
    h = Function("h", V)
    U = Entry("U", ())
    leaking = Transformation("T_leak", ((V, Mul((ONE, V))), (U, Mul((Eval(h, (), "theta"), U)))))
    g = Function("g", Fn("g", (V, U)))
    reason = _one_step(CHAIN_RULE, Deriv(V, Eval(g, (), leaking)), Mul((ONE, Eval(g, (V,), leaking))))
    assert "also reads" in reason


def test_the_mixing_chain_rule_sees_a_family_read_through_a_defined_quantity_in_another_image():
    # v ↦ ζ·v with ζ := Q_11 a quantity defined from θ: Q_11 reaches Tθ through v's image too
    from symbolic.kernel.derivations import definition
    definition("a quantity of theta read by an image", Entry(r"\zeta", ()), Entry("Q", ("1", "1")))
    leaking = Transformation("T_leak", (T_ATTENTION.images[0], (V, Mul((Entry(r"\zeta", ()), V)))))
    g = _reads_q_and_v()
    reason = _one_step(LINEAR_CHAIN_RULE, Deriv(Entry("Q", ("i", "r")), Eval(g, (), leaking)),
                       Sum("m", HEAD, Mul((a(), Eval(g, (Entry("Q", ("i", "m")),), leaking)))))
    assert "another image" in reason
    # and the scaled chain rule: Q ↦ 1·Q, U ↦ ζ·U, so Q_11 reaches Tθ through U's image too
    U = Entry("U", ())
    scaled = Transformation("T_leak", ((Q, Mul((ONE, Q))), (U, Mul((Entry(r"\zeta", ()), U)))))
    h = Function("g", Fn("g", (U, Entry("Q", ("1", "1")))))
    reason = _one_step(CHAIN_RULE, Deriv(Entry("Q", ("1", "1")), Eval(h, (), scaled)),
                       Mul((ONE, Eval(h, (Entry("Q", ("1", "1")),), scaled))))
    assert "also reads" in reason


def test_the_mixing_chain_rule_refuses_a_function_that_reads_the_family_through_an_evaluation():
    # g reads Q's columns over 1..k itself, and over 1..d through w(θ) inside its definition: the
    # range test must not be passed by hiding the wide reading in an evaluation
    wide = Function("w", Sum("m", "d", Sum("i", "d", Entry("Q", ("i", "m")))))
    g = Function("g", Fn("g", (Sum("m", HEAD, Sum("i", "d", Entry("Q", ("i", "m")))), Eval(wide, (), "theta"))))
    reason = _one_step(LINEAR_CHAIN_RULE, Deriv(Entry("Q", ("i", "r")), Eval(g, (), T_ATTENTION)),
                       Sum("m", HEAD, Mul((a(), Eval(g, (Entry("Q", ("i", "m")),), T_ATTENTION)))))
    assert "function of theta" in reason


def test_the_mixing_chain_rule_refuses_a_function_that_reads_the_family_through_a_defined_quantity():
    # g reads Q's columns over 1..k itself, and over 1..d through ω := Σ_{m≤d} Σ_i Q_im, a quantity
    # defined from θ: its reading is hidden from the range test as an evaluation's would be
    from symbolic.kernel.derivations import definition
    definition("a quantity of theta read by a function", Entry(r"\omega", ()),
               Sum("m", "d", Sum("i", "d", Entry("Q", ("i", "m")))))
    g = Function("g", Fn("g", (Sum("m", HEAD, Sum("i", "d", Entry("Q", ("i", "m")))), Entry(r"\omega", ()))))
    reason = _one_step(LINEAR_CHAIN_RULE, Deriv(Entry("Q", ("i", "r")), Eval(g, (), T_ATTENTION)),
                       Sum("m", HEAD, Mul((a(), Eval(g, (Entry("Q", ("i", "m")),), T_ATTENTION)))))
    assert "does not map" in reason


def test_the_mixing_chain_rule_reads_the_family_at_every_layer():
    # T mixes the columns of θ^{(p)} over 1..k at every layer p; g reads θ^{(1)} over 1..k, and again, as
    # θ^{(p)} under a sum over the layers, over 1..d: the range test must see the second reading too
    from symbolic.logic.terms import LayerSum
    layered, first = r"\theta^{(p)}", r"\theta^{(1)}"
    T = Transformation("T_layers", ((Entry(layered, ("i", "m")), Sum("r", HEAD, Mul((Entry(layered, ("i", "r")), a())))),),
                       ("p",))
    g = Function("g", Fn("g", (Sum("m", HEAD, Sum("i", "d", Entry(first, ("i", "m")))),
                              LayerSum("p", "K", Sum("m", "d", Sum("i", "d", Entry(layered, ("i", "m"))))))))
    reason = _one_step(LINEAR_CHAIN_RULE, Deriv(Entry(first, ("i", "r")), Eval(g, (), T)),
                       Sum("m", HEAD, Mul((a(), Eval(g, (Entry(first, ("i", "m")),), T)))))
    assert "does not run over exactly" in reason


@pytest.mark.parametrize("range_", ["l", "h_{l}"])
def test_renaming_does_not_capture_the_range_of_a_permutation(range_):
    # Σ_j x_{π_l(j)} (l free) renamed into l: Σ_l x_{π_l(l)} reads another permutation at each term
    _one_step(BOUND_RENAMING, Sum("j", "h", Entry("x", (permuted(range_, "j"),))),
              Sum("l", "h", Entry("x", (permuted(range_, "l"),))))
    # the same in a scalar c_{π_l(j)}, and in the coordinate of an evaluation
    c = sp.IndexedBase("c")
    _one_step(BOUND_RENAMING, Sum("j", "h", Const(c[_index(permuted(range_, "j"))])),
              Sum("l", "h", Const(c[_index(permuted(range_, "l"))])))
    g = Function("g", Fn("g", (Entry("W", ("i", "j")),)))
    _one_step(BOUND_RENAMING, Sum("j", "h", Eval(g, (Entry("W", ("i", permuted(range_, "j"))),), "theta")),
              Sum("l", "h", Eval(g, (Entry("W", ("i", permuted(range_, "l"))),), "theta")))
    # and the old name inside the range: Σ_j x_{π_{h_j}(j)} is not Σ_l x_{π_{h_j}(l)}
    _one_step(BOUND_RENAMING, Sum("j", "h", Entry("x", (permuted("h_{j}", "j"),))),
              Sum("l", "h", Entry("x", (permuted("h_{j}", "l"),))))


@pytest.mark.parametrize("over_layers", ["sum", "product"])
def test_renaming_does_not_capture_the_last_layer_of_a_sum_over_the_layers(over_layers):
    # Σ_j Σ_{p=1}^{l} x_j (l free) renamed into l: Σ_l Σ_{p=1}^{l} x_l; and j the last layer, left free
    from symbolic.logic.terms import LayerProduct, LayerSum
    kind = LayerSum if over_layers == "sum" else LayerProduct
    _one_step(BOUND_RENAMING, Sum("j", "h", kind("p", "l", Entry("x", ("j",)))),
              Sum("l", "h", kind("p", "l", Entry("x", ("l",)))))
    _one_step(BOUND_RENAMING, Sum("j", "h", kind("p", "j", Entry("x", ("j",)))),
              Sum("l", "h", kind("p", "j", Entry("x", ("l",)))))


def test_a_delta_is_not_contracted_onto_an_index_a_wider_sum_binds():
    # Σ_{s=1}^{d} Σ_{r=1}^{k} δ_rs x_nr = Σ_{s=1}^{d} x_ns is false for d > k (the left side stops at
    # k): the contraction's range for s, declared for an s free in the term, is not the sum's above
    from symbolic.every_size.attention import BACK_CONTRACTION, HEAD_CONTRACTION
    r, s = _index("r"), _index("s")
    _one_step(BACK_CONTRACTION, Sum("s", "d", Sum("r", HEAD, Mul((Const(sp.KroneckerDelta(r, s)), Entry("x", ("n", "r")))))),
              Sum("s", "d", Entry("x", ("n", "s"))))
    contracted = Sum("s", HEAD, Mul((Const(sp.KroneckerDelta(r, s)), Entry("x", ("n", "s")))))
    _one_step(HEAD_CONTRACTION, Sum("r", "d", Mul((V, contracted))), Sum("r", "d", Mul((V, Entry("x", ("n", "r"))))))
    # the same contraction under a sum over the head's range stays a theorem
    summand = Mul((Const(sp.KroneckerDelta(r, s)), Entry("x", ("n", "r"))))
    chain = Chain("contracted", Sum("s", HEAD, Sum("r", HEAD, summand)))
    assert prove(chain.then(BACK_CONTRACTION, Sum("s", HEAD, Entry("x", ("n", "s")))))[0].status is Status.PROVED


def test_a_theorem_that_took_a_free_index_over_the_heads_range_is_no_lemma_inside_a_wider_sum():
    # Σ_{r≤k} δ_rs x_nr = x_ns holds for s in 1..k (the contraction took s there); used as a lemma
    # inside Σ_{s≤d} it would give Σ_{s≤d} Σ_{r≤k} δ_rs x_nr = Σ_{s≤d} x_ns, false for d > k
    from symbolic.every_size.attention import BACK_CONTRACTION
    from symbolic.kernel.derivations import lemma
    r, s = _index("r"), _index("s")
    inner = Sum("r", HEAD, Mul((Const(sp.KroneckerDelta(r, s)), Entry("x", ("n", "r")))))
    verdict, theorem = prove(Chain("s free", inner).then(BACK_CONTRACTION, Entry("x", ("n", "s"))))
    rule = lemma(theorem, "the delta contracted", "")
    _one_step(rule, Sum("s", "d", inner), Sum("s", "d", Entry("x", ("n", "s"))))
    assert verdict.status is Status.PROVED and dict(theorem.ranges) == {"s": HEAD}
    # inside a sum over the head's range the lemma applies, and a free use passes the range on
    inside = prove(Chain("inside", Sum("s", HEAD, inner)).then(rule, Sum("s", HEAD, Entry("x", ("n", "s")))))
    assert inside[0].status is Status.PROVED and inside[1].ranges == ()
    free = prove(Chain("free", Mul((V, inner))).then(rule, Mul((V, Entry("x", ("n", "s"))))))
    assert free[0].status is Status.PROVED and dict(free[1].ranges) == {"s": HEAD}


def test_the_hypothesis_is_not_used_for_rows_a_wider_sum_binds():
    # Σ_{r≤d} (Σ_m A_rm B_sm) x_nr: r runs past the k rows of A, where A Bᵀ = I says nothing
    r, s, m = (_index(name) for name in "rsm")
    x = Entry("x", ("n", "r"))
    _one_step(INVERSE_PAIR, Sum("r", "d", Mul((Sum("m", HEAD, Const(GL_A[r, m] * GL_B[s, m])), x))),
              Sum("r", "d", Mul((Const(sp.KroneckerDelta(r, s)), x))))
    # over the head's rows it holds, and a free row is carried as running over 1..k
    verdict, theorem = prove(Chain("rows", Sum("r", HEAD, Mul((Sum("m", HEAD, Const(GL_A[r, m] * GL_B[s, m])), x))))
                             .then(INVERSE_PAIR, Sum("r", HEAD, Mul((Const(sp.KroneckerDelta(r, s)), x)))))
    assert verdict.status is Status.PROVED and dict(theorem.ranges) == {"s": HEAD}


def test_the_mixing_chain_rule_is_not_used_for_a_column_a_wider_sum_binds():
    # Σ_{r≤d} ∂_{Q_ir}[g(T_A θ)]: for r > k no image reads Q_ir (its derivative is 0), while the rule
    # would give Σ_m A_rm (∂_{Q_im} g)(T_A θ)
    g = every.EVERY_SIZE["attention_qk"].sample_loss

    def step(size):
        return (Sum("r", size, Deriv(Entry("Q", ("i", "r")), Eval(g, (), T_ATTENTION))),
                Sum("r", size, Sum("m", HEAD, Mul((a(), Eval(g, (Entry("Q", ("i", "m")),), T_ATTENTION))))))
    _one_step(LINEAR_CHAIN_RULE, *step("d"))
    # over the head's columns it holds; a free column is carried as running over 1..k
    assert prove(Chain("columns", step(HEAD)[0]).then(LINEAR_CHAIN_RULE, step(HEAD)[1]))[0].status is Status.PROVED
    free = Deriv(Entry("Q", ("i", "r")), Eval(g, (), T_ATTENTION))
    verdict, theorem = prove(Chain("free", free).then(LINEAR_CHAIN_RULE, step(HEAD)[1].body))
    assert verdict.status is Status.PROVED and dict(theorem.ranges) == {"r": HEAD}


def test_no_invariance_lemma_from_a_theorem_that_holds_for_some_examples_only():
    # f = v (Σ_{j≤k} δ_jn y_j − y_n) + u: for n ≤ k the bracket is 0, so T(f) = f under v ↦ 2v, u ↦ u is
    # proved with n taken over 1..k; for n > k it is −y_n and f(Tθ) ≠ f(θ): the lemma must not drop the range
    from symbolic.trusted.axioms.index_rules import delta_contraction
    n_over_head = delta_contraction({"n": HEAD})
    j, n = _index("j"), _index("n")
    U, y_n = Entry("u", ()), Entry("y", ("n",))
    minus = Const(sp.S.NegativeOne)
    contracted = Sum("j", HEAD, Mul((Const(sp.KroneckerDelta(j, n)), Entry("y", ("j",)))))
    f = Function("f", Add((Mul((V, Add((contracted, Mul((minus, y_n)))))), U)))
    T = Transformation("T_v", ((V, Mul((Const(sp.Integer(2)), V))), (U, Mul((ONE, U)))))
    start = T.apply(f.body)
    two_v = Mul((Const(sp.Integer(2)), V))
    chain = Chain("T(f) = f", start)
    chain.then(n_over_head, Add((Mul((two_v, Add((y_n, Mul((minus, y_n)))))), Mul((ONE, U)))))
    chain.then(ARITHMETIC, Add((Mul((V, Add((y_n, Mul((minus, y_n)))))), U)))
    chain.then(n_over_head, f.body)
    verdict, theorem = prove(chain)
    rule = evaluation_lemma(theorem, f, T, "f o T = f", "")
    _not_proved(Chain("f(T theta) = f(theta)", Eval(f, (), T)).then(rule, Eval(f, (), "theta")))
    assert verdict.status is Status.PROVED and dict(theorem.ranges) == {"n": HEAD}


def test_the_pencil_refuses_a_left_inverse_proved_for_some_rows_only():
    # the inverse of Q's mixing with a detour that takes the row i over 1..k (a delta contracted onto
    # it): M's inverse on rows 1..k only is not the inverse of M
    from symbolic.every_size.attention import inverse_chain
    from symbolic.trusted.axioms.index_rules import delta_contraction
    rows_over_head = delta_contraction({"i": HEAD})
    j, i = _index("j"), _index("i")

    def detoured(pattern):
        chain = inverse_chain(pattern.family)
        if pattern.family == "Q":
            end = chain.end
            chain.then(rows_over_head, Sum("j", HEAD, Mul((Const(sp.KroneckerDelta(j, i)), Entry("Q", ("j", "s"))))))
            chain.then(rows_over_head, end)
        return prove(chain)[1]
    assert dict(detoured(Entry("Q", ("i", "m"))).ranges) == {"i": HEAD, "s": HEAD}
    from test_attention_all_sizes import _pencil
    verdict = _pencil(inverse=detoured)
    assert verdict.status is not Status.PROVED and "some of its indices" in verdict.reason


# --- attacks the rules refuse --------------------------------------------------------------------------

def test_the_mixing_chain_rule_refuses_capture_through_the_images_summation_index():
    g = every.EVERY_SIZE["attention_qk"].sample_loss
    # ∂_{Q_{r r}}: the coordinate's row is the image's summation index; the rule's M_{r m} must be A_{r m}
    # read at the coordinate's column, not a captured A_{m m}
    before = Deriv(Entry("Q", ("r", "r")), Eval(g, (), T_ATTENTION))
    right = Sum("m", HEAD, Mul((a("r", "m"), Eval(g, (Entry("Q", ("r", "m")),), T_ATTENTION))))
    assert LINEAR_CHAIN_RULE.applies(before, right) is None
    for wrong in (Sum("m", HEAD, Mul((Const(GL_A[_index("m"), _index("m")]), Eval(g, (Entry("Q", ("r", "m")),), T_ATTENTION)))),
                  Sum("r", HEAD, Mul((a("r", "r"), Eval(g, (Entry("Q", ("r", "r")),), T_ATTENTION))))):
        _one_step(LINEAR_CHAIN_RULE, before, wrong)


def test_the_mixing_chain_rule_refuses_permuted_and_offset_coordinates_read_wrongly():
    g = every.EVERY_SIZE["attention_qk"].sample_loss
    # the column of the coordinate is π_k(j): the coefficient is A_{π_k(j), m}, not A_{j m}
    column = permuted(HEAD, "j")
    before = Deriv(Entry("Q", ("i", column)), Eval(g, (), T_ATTENTION))
    _one_step(LINEAR_CHAIN_RULE, before, Sum("m", HEAD, Mul((a("j", "m"), Eval(g, (Entry("Q", ("i", "m")),), T_ATTENTION)))))
    # the row permuted, the result read at the unpermuted row
    before = Deriv(Entry("Q", (permuted("d", "i"), "r")), Eval(g, (), T_ATTENTION))
    _one_step(LINEAR_CHAIN_RULE, before, Sum("m", HEAD, Mul((a(), Eval(g, (Entry("Q", ("i", "m")),), T_ATTENTION)))))


def test_a_second_derivative_through_the_mixing_keeps_the_first_partial():
    g = every.EVERY_SIZE["attention_qk"].sample_loss
    first = Entry("K", ("l", "s"))
    before = Deriv(Entry("Q", ("i", "r")), Eval(g, (first,), T_ATTENTION))
    right = Sum("m", HEAD, Mul((a(), Eval(g, (first, Entry("Q", ("i", "m"))), T_ATTENTION))))
    assert LINEAR_CHAIN_RULE.applies(before, right) is None
    # the first partial dropped, or the partials in the other order at a mixed coordinate
    _one_step(LINEAR_CHAIN_RULE, before, Sum("m", HEAD, Mul((a(), Eval(g, (Entry("Q", ("i", "m")),), T_ATTENTION)))))
    _one_step(LINEAR_CHAIN_RULE, before, Sum("m", HEAD, Mul((a(), Eval(g, (Entry("Q", ("i", "m")), first), T_ATTENTION)))))
    # the summation index m among the first partial's indices would be captured
    captured = Eval(g, (Entry("K", ("l", "m")),), T_ATTENTION)
    _one_step(LINEAR_CHAIN_RULE, Deriv(Entry("Q", ("i", "r")), captured),
              Sum("m", HEAD, Mul((a(), Eval(g, (Entry("K", ("l", "m")), Entry("Q", ("i", "m"))), T_ATTENTION)))))


def test_the_mixing_chain_rule_refuses_a_second_mixed_position():
    g = Function("g", Fn("g", (Sum("m", HEAD, Sum("i", HEAD, Entry("Q", ("i", "m")))),)))
    # Q_im ↦ Σ_r Q_rr A_rm moves two positions: no mixing of one index
    twice = Transformation("T_twice", ((Q, Sum("r", HEAD, Mul((Entry("Q", ("r", "r")), a())))),))
    _one_step(LINEAR_CHAIN_RULE, Deriv(Entry("Q", ("i", "r")), Eval(g, (), twice)),
              Sum("m", HEAD, Mul((a(), Eval(g, (Entry("Q", ("i", "m")),), twice)))))


def test_the_hypothesis_is_not_used_for_a_matrix_the_map_does_not_pair():
    r, s, m = (_index(name) for name in "rsm")
    delta = Const(sp.KroneckerDelta(r, s))
    for wrong in (Sum("m", HEAD, Const(GL_B[r, m] * GL_B[s, m])),          # B Bᵀ = I
                  Sum("m", HEAD, Const(GL_A[m, r] * GL_B[m, s])),          # Aᵀ B = I
                  Sum("m", HEAD, Const(2 * GL_A[r, m] * GL_B[s, m])),      # a factor 2
                  Sum("m", HEAD, Const(GL_A[r, m] * GL_B[s, m] * GL_A[r, m]))):
        _one_step(INVERSE_PAIR, wrong, delta)
    # r = s: the diagonal of A Bᵀ is 1, and only 1
    _one_step(INVERSE_PAIR, Sum("m", HEAD, Const(GL_A[r, m] * GL_B[r, m])), Const(sp.S.Zero))


def test_interchange_refuses_a_bound_that_names_the_other_index_in_a_layer():
    body = Entry("x", ("i", "j"))
    for size in ("h_{i+1}", "i", "K-i", permuted("h", "i")):
        _one_step(SUM_INTERCHANGE, Sum("i", "d", Sum("j", size, body)), Sum("j", size, Sum("i", "d", body)))
        _one_step(SUM_INTERCHANGE, Sum("j", size, Sum("i", "d", body)), Sum("i", "d", Sum("j", size, body)))


def test_renaming_refuses_a_name_in_a_scalar_of_the_summand():
    # Σ_r Q_ir A_rm renamed into m, which A_rm reads free
    _one_step(BOUND_RENAMING, Sum("r", HEAD, Mul((Entry("Q", ("i", "r")), a()))),
              Sum("m", HEAD, Mul((Entry("Q", ("i", "m")), Const(GL_A[_index("m"), _index("m")])))))
    # a scalar whose index symbol carries no integer assumption is still read as an index
    plain = Const(sp.IndexedBase("c")[sp.Symbol("r")])
    _one_step(BOUND_RENAMING, Sum("r", HEAD, Mul((Entry("Q", ("i", "r")), plain))),
              Sum("t", HEAD, Mul((Entry("Q", ("i", "t")), plain))))


def test_the_pencil_refuses_a_zero_or_an_unknown_scale():
    from symbolic.every_size.mixing_congruence import reading
    zero = Transformation("T_zero", (T_ATTENTION.images[0], T_ATTENTION.images[1], (V, Mul((Const(sp.S.Zero), V)))))
    assert reading(zero, V) is None
    unknown = Transformation("T_c", (T_ATTENTION.images[0], T_ATTENTION.images[1],
                                     (V, Mul((Const(sp.Symbol("c", real=True)), V)))))
    assert reading(unknown, V) is None
    from test_attention_all_sizes import _pencil
    assert _pencil(transformation=zero, hessian=lambda a_, b_: None).status is Status.UNDECIDED


# --- a hole that was open in the pencil combinator --------------------------------------------------

def _honest_pencil(function):
    """The combinator called with the attention head's own laws (the Hessian of its loss L, the
    Gauss–Newton matrix of its score), about ``function``."""
    from symbolic.every_size.mixing_congruence import mixing_pencil_congruence
    entry = every.EVERY_SIZE["attention_qk"]
    laws = entry.mixing
    return mixing_pencil_congruence("the pencil of " + function.name, T_ATTENTION, function, [
        ("H", lambda a_, b_, point: Eval(entry.function, (a_, b_), point),
         lambda a_, b_: prove(laws.hessian(entry.function, entry.loss_lemma, a_, b_, T_ATTENTION))[1]),
        ("G", lambda a_, b_, point: every.gauss_newton_entry(entry.prediction, a_, b_, point),
         lambda a_, b_: prove(laws.gauss_newton(entry.prediction, entry.prediction_lemma, a_, b_, T_ATTENTION))[1])],
        lambda pattern: prove(laws.inverse(pattern.family, T_ATTENTION))[1])


def test_the_pencil_speaks_of_the_hessian_of_the_function_it_is_given():
    # a loss that reads the query alone changes under T_A (L'(T_A θ) ≠ L'(θ)), so does its pencil; the
    # laws offered are those of the head's own loss, and the combinator must not take them for L''s
    from symbolic.every_size.attention import query
    from symbolic.every_size.networks import in_loss
    assert _honest_pencil(every.EVERY_SIZE["attention_qk"].function).status is Status.PROVED
    query_only = Function("L'", in_loss(Mul((V, Sum("m", HEAD, query())))))
    verdict = _honest_pencil(query_only)
    assert verdict.status is not Status.PROVED and "Hessian of L'" in verdict.reason
    # a loss reading a family T_A does not map: its pencil has coordinates no law speaks of
    extra = Function("L", Fn("ell", (attention_prediction(), Entry("U", ()))))
    verdict = _honest_pencil(extra)
    assert verdict.status is not Status.PROVED and "does not map" in verdict.reason
