"""The attention head's map W_Q ↦ W_Q A, W_K ↦ W_K B (A Bᵀ = I) for every d, k and N: the kernel's
theorem, the audit cells it makes "all", and the attacks each new rule must refuse.  Where a side
condition stops an attack, the attack is also run with that condition switched off, to show that it
is the condition that stops it."""
import contextlib

import sympy as sp
import pytest

from proofs import measures_all_sizes as every
from proofs.commands.audit_command import attach_every_size, check_cell
from symbolic.trusted.axioms import attention_rules, index_rules
from symbolic.every_size.attention import ATTENTION_LOSS, HEAD_CONTRACTION, T_ATTENTION, a, attention_chain, \
    attention_map, attention_prediction, b, gradient_pairing_chain, key, query
from symbolic.trusted.axioms.attention_rules import GL_A, GL_B, HEAD, INVERSE_PAIR, LINEAR_CHAIN_RULE, inverse_pair_sum
from symbolic.trusted.axioms.index_rules import ARITHMETIC, BOUND_RENAMING, CHAIN_RULE, SUM_INTERCHANGE
from symbolic.logic.terms import Const, Deriv, Entry, Eval, Mul, Sum, Transformation
from symbolic.kernel.derivations import Rule, prove
from symbolic.measures.definitions import MEASURES
from symbolic.kernel.verdict import Status

CELLS = ("relative_flatness", "relative_flatness_unsquared", "fisher_rao_norm", "metric_hessian_spectrum")


def _index(name):
    return sp.Symbol(name, integer=True)


def _refused(chain, *words):
    verdict, theorem = prove(chain)
    assert verdict.status is Status.UNDECIDED and theorem is None
    for word in words:
        assert word in verdict.reason, verdict.reason
    return verdict.reason


# --- the theorem and the cells --------------------------------------------------------------------

def test_the_score_and_the_loss_are_kept_for_every_size():
    verdict, theorem = prove(attention_chain())
    assert verdict.status is Status.PROVED
    assert theorem.lhs == T_ATTENTION.apply(attention_prediction()) and theorem.rhs == attention_prediction()
    loss = every.EVERY_SIZE["attention_qk"].theorem
    assert loss.lhs == T_ATTENTION.apply(ATTENTION_LOSS.body) and loss.rhs == ATTENTION_LOSS.body
    assert {"interchange of sums", "the hypothesis A B^T = I", "renaming a summation index"} <= \
        set(verdict.details["rules"])


@pytest.mark.parametrize("measure", CELLS)
def test_the_cells_hold_for_every_size_and_agree_with_the_audit(measure):
    verdict = every.every_size_verdict(measure, "attention_qk")
    assert verdict.status is Status.PROVED, verdict.reason
    assert any("cross-checked on the audit's families" in line for line in verdict.evidence)
    assert (measure, "attention_qk") in every.claims()
    cell = check_cell(measure, "attention_qk", 0)
    attach_every_size([cell], MEASURES)
    assert cell.state == "proved" and cell.sizes == "all" and cell.as_json()["sizes"] == "all"
    assert cell.every_size_route() is None


@pytest.mark.parametrize("measure", ["normalized_flatness", "adaptive_sharpness", "weight_norm", "fisher_trace",
                                     "hessian_trace", "gradient_norm"])
def test_the_cells_the_audit_refutes_are_refused(measure):
    verdict = every.every_size_verdict(measure, "attention_qk")
    assert verdict.status is Status.UNDECIDED and verdict.reason


def test_the_action_is_the_groups_matrix_and_a_wrong_map_is_not():
    entry = every.EVERY_SIZE["attention_qk"]
    assert all(v.status is Status.PROVED for v in every.same_action(entry))
    # the key's image read through A instead of B = A^{-T}
    wrong = every.EverySize("attention_qk", attention_map("T_wrong", lambda: a("s", "m")), ATTENTION_LOSS, None, "",
                            None, None, entry.network, entry=entry.read_entry, concrete_sizes=entry.concrete_sizes,
                            reading=entry.reading)
    assert all(v.status is Status.UNDECIDED for v in every.same_action(wrong))
    # a non-linear image: Q_im -> sum_r Q_ir Q_rm
    square = Transformation("T_square", ((Entry("Q", ("i", "m")), Sum("r", HEAD, Mul((Entry("Q", ("i", "r")),
                                                                                      Entry("Q", ("r", "m")))))),
                                         *T_ATTENTION.images[1:]))
    nonlinear = every.EverySize("attention_qk", square, ATTENTION_LOSS, None, "", None, None, entry.network,
                                entry=entry.read_entry, concrete_sizes=entry.concrete_sizes, reading=entry.reading)
    (verdict,) = every.same_action(nonlinear)
    assert verdict.status is Status.UNDECIDED and "not linear" in verdict.reason


# --- the hypothesis A Bᵀ = I ------------------------------------------------------------------------

def test_the_hypothesis_is_realised_and_its_wrong_forms_are_refused():
    assert INVERSE_PAIR.validity().status is Status.PROVED
    delta = Const(sp.KroneckerDelta(_index("r"), _index("s")))
    r, s, m = (_index(n) for n in "rsm")
    assert INVERSE_PAIR.applies(inverse_pair_sum("r", "s", "m"), delta) is None
    for wrong in (Sum("m", HEAD, Const(GL_A[r, m] * GL_B[m, s])),       # A B = I
                  Sum("m", HEAD, Const(GL_A[r, m] * GL_A[s, m])),       # A A^T = I
                  Sum("m", "d", Const(GL_A[r, m] * GL_B[s, m]))):       # another bound
        assert INVERSE_PAIR.applies(wrong, delta) is not None


def test_a_map_whose_key_is_read_through_B_transposed_or_A_is_refused_at_the_hypothesis():
    transposed = lambda: Const(GL_B[_index("m"), _index("s")])          # W_K -> W_K B^T: A B = I would be needed
    _refused(attention_chain(attention_map("T_AB", transposed), transposed), "A B^T = I", "A B^T, not A B")
    through_a = lambda: a("s", "m")                                       # W_K -> W_K A
    _refused(attention_chain(attention_map("T_AA", through_a), through_a), "A B^T = I")


def test_the_hypothesis_dropped_is_refused():
    chain = attention_chain()
    at = next(k for k, (rule, _, _) in enumerate(chain.steps) if rule is INVERSE_PAIR)
    # the same step claimed by arithmetic: the sum of A_rm B_sm is no delta as a rational function
    chain.steps[at] = (ARITHMETIC, chain.steps[at][1], "")
    _refused(chain, "arithmetic", "refused")
    # or by a rule the kernel never declared
    forged = Rule("A B^T = I", "", lambda before, after: None, lambda: None)
    chain.steps[at] = (forged, chain.steps[at][1], "")
    _refused(chain, "neither an axiom nor a lemma")


# --- the sums: interchange, renaming, contraction ----------------------------------------------------

def test_interchange_refuses_dependent_bounds_and_one_index():
    body = Mul((Entry("Q", ("i", "r")), a()))
    assert SUM_INTERCHANGE.applies(Sum("i", "d", Sum("r", HEAD, body)), Sum("r", HEAD, Sum("i", "d", body))) is None
    assert SUM_INTERCHANGE.applies(Sum("i", "d", Sum("r", HEAD, body)), Sum("r", "d", Sum("i", HEAD, body))) is not None
    assert SUM_INTERCHANGE.applies(Sum("i", "d", Sum("r", "h_{i}", body)), Sum("r", "h_{i}", Sum("i", "d", body))) \
        is not None


def test_renaming_refuses_a_captured_or_free_name():
    body = Mul((query("r"), key("r")))
    assert BOUND_RENAMING.applies(Sum("r", HEAD, body), Sum("m", HEAD, Mul((query(), key())))) is None
    # into i, which the summand binds: Σ_i x_ni Q_ii would be captured
    assert BOUND_RENAMING.applies(Sum("r", HEAD, body), Sum("i", HEAD, Mul((query("i"), key("i"))))) is not None
    # into n, free in the summand (x_ni): the sum would then read its own index
    assert BOUND_RENAMING.applies(Sum("r", HEAD, body), Sum("n", HEAD, Mul((query("n"), key("n"))))) is not None
    # the unsound variant: without the capture test the first wrong renaming goes through
    original = index_rules.bound_indices
    try:
        index_rules.bound_indices = lambda term: frozenset()
        assert index_rules._bound_renaming(Sum("r", HEAD, body), Sum("i", HEAD, Mul((query("i"), key("i"))))) is None
    finally:
        index_rules.bound_indices = original


def test_the_delta_is_contracted_only_over_the_heads_range():
    delta = Const(sp.KroneckerDelta(_index("r"), _index("s")))
    summand = Mul((delta, Mul((query("r"), key("s")))))
    assert HEAD_CONTRACTION.applies(Sum("s", HEAD, summand), Mul((query("r"), key("r")))) is None
    assert HEAD_CONTRACTION.applies(Sum("s", "d", summand), Mul((query("r"), key("r")))) is not None


def test_the_map_refuses_to_capture_an_index():
    # Q_{i r} under T: the image binds r; renaming its pattern's m into r would read A_rr
    with pytest.raises(ValueError):
        T_ATTENTION.image(Entry("Q", ("i", "r")))
    # an image that reads an index its pattern does not have is refused when the map is defined
    with pytest.raises(ValueError):
        attention_map("T_free", lambda: a("r", "m"))


# --- the chain rules ---------------------------------------------------------------------------------

def _sample_loss():
    return every.EVERY_SIZE["attention_qk"].sample_loss


def test_the_pairing_is_a_theorem():
    entry = every.EVERY_SIZE["attention_qk"]
    verdict, theorem = prove(gradient_pairing_chain(entry.sample_loss, entry.sample_lemma))
    assert verdict.status is Status.PROVED and "chain rule through a mixing map" in verdict.details["rules"]


def test_the_mixing_chain_rule_refuses_a_transposed_matrix_and_a_wrong_bound():
    g = _sample_loss()
    before = Deriv(Entry("Q", ("i", "r")), Eval(g, (), T_ATTENTION))

    def through(coefficient, size=HEAD):
        return Sum("m", size, Mul((coefficient, Eval(g, (Entry("Q", ("i", "m")),), T_ATTENTION))))
    assert LINEAR_CHAIN_RULE.applies(before, through(a())) is None
    assert LINEAR_CHAIN_RULE.applies(before, through(a("m", "r"))) is not None
    assert LINEAR_CHAIN_RULE.applies(before, through(a(), "d")) is not None
    # the summation index among the coordinate's: ∂_{Q_im}, result summed over m
    captured = Deriv(Entry("Q", ("i", "m")), Eval(g, (), T_ATTENTION))
    assert LINEAR_CHAIN_RULE.applies(captured, through(Const(GL_A[_index("m"), _index("m")]))) is not None


def test_the_mixing_chain_rule_refuses_a_family_read_by_another_image_or_a_nonlinear_image():
    g = _sample_loss()
    # K's image reads Q: Q_ir reaches Tθ through two images
    crossing = Transformation("T_cross", (T_ATTENTION.images[0],
                                          (Entry("K", ("l", "m")), Sum("s", HEAD, Mul((Entry("Q", ("l", "s")), b())))),
                                          T_ATTENTION.images[2]))
    before = Deriv(Entry("Q", ("i", "r")), Eval(g, (), crossing))
    after = Sum("m", HEAD, Mul((a(), Eval(g, (Entry("Q", ("i", "m")),), crossing))))
    assert "another image" in LINEAR_CHAIN_RULE.applies(before, after)
    # the unsound variant: without the readers' test the rule accepts it
    with _readers_unchecked():
        assert attention_rules._linear_chain_rule(before, after) is None
    # Q_im -> Σ_r Q_ir Q_rm is no constant mixing
    square = Transformation("T_square", ((Entry("Q", ("i", "m")), Sum("r", HEAD, Mul((Entry("Q", ("i", "r")),
                                                                                      Entry("Q", ("r", "m")))))),))
    assert "not a sum over one mixed index" in LINEAR_CHAIN_RULE.applies(
        Deriv(Entry("Q", ("i", "r")), Eval(g, (), square)),
        Sum("m", HEAD, Mul((a(), Eval(g, (Entry("Q", ("i", "m")),), square)))))


@contextlib.contextmanager
def _readers_unchecked():
    """The unsound variant of both chain rules: each image taken as the only reader of its family."""
    original = Transformation.readers
    Transformation.readers = lambda self, entry: [self.pattern_of(entry)]
    try:
        yield
    finally:
        Transformation.readers = original


def test_the_scaled_chain_rule_refuses_a_coordinate_read_by_another_image():
    g = _sample_loss()
    v = Entry("v", ())
    # K's image reads v: v reaches Tθ through two images, ∂_v[g(Tθ)] ≠ (∂_v g)(Tθ)
    leaking = Transformation("T_leak", (T_ATTENTION.images[0], (Entry("K", ("l", "m")), Mul((v, Entry("K", ("l", "m"))))),
                                        T_ATTENTION.images[2]))
    before, after = Deriv(v, Eval(g, (), leaking)), Mul((Const(sp.S.One), Eval(g, (v,), leaking)))
    assert "also reads" in CHAIN_RULE.applies(before, after)
    assert CHAIN_RULE.applies(Deriv(v, Eval(g, (), T_ATTENTION)), Mul((Const(sp.S.One), Eval(g, (v,), T_ATTENTION)))) \
        is None
    # the unsound variant: without the readers' test the step is accepted
    with _readers_unchecked():
        assert index_rules._chain_rule(before, after) is None


# --- the pencil: a congruence by the map's matrix ----------------------------------------------------

def _pencil(transformation=T_ATTENTION, hessian=None, inverse=None, lemmas=None):
    from symbolic.every_size.mixing_congruence import mixing_pencil_congruence
    entry = every.EVERY_SIZE["attention_qk"]
    laws = entry.mixing
    loss_lemma, prediction_lemma = lemmas or (entry.loss_lemma, entry.prediction_lemma)
    hessian = hessian or (lambda a_, b_: prove(laws.hessian(entry.function, loss_lemma, a_, b_, transformation))[1])
    inverse = inverse or (lambda pattern: prove(laws.inverse(pattern.family, transformation))[1])
    return mixing_pencil_congruence("pencil", transformation, entry.function, [
        ("H", lambda a_, b_, point: Eval(entry.function, (a_, b_), point), hessian),
        ("G", lambda a_, b_, point: every.gauss_newton_entry(entry.prediction, a_, b_, point),
         lambda a_, b_: prove(laws.gauss_newton(entry.prediction, prediction_lemma, a_, b_, transformation))[1])],
        inverse)


def test_the_pencil_is_congruent_and_its_premises_are_checked():
    from symbolic.every_size.mixing_congruence import pairs
    assert _pencil().status is Status.PROVED
    entry = every.EVERY_SIZE["attention_qk"]
    first = prove(entry.mixing.hessian(entry.function, entry.loss_lemma, *pairs(T_ATTENTION)[0]))[1]
    # the law of one pair offered for every pair, or a statement the kernel never proved
    other = _pencil(hessian=lambda a_, b_: first)
    assert other.status is Status.UNDECIDED and "M^T H(T theta) M" in other.reason
    assert _pencil(hessian=lambda a_, b_: None).status is Status.UNDECIDED
    # the inverse of one family offered for the other, or none
    swapped = _pencil(inverse=lambda pattern: prove(entry.mixing.inverse("K" if pattern.family == "Q" else "Q"))[1])
    assert swapped.status is Status.UNDECIDED and "the theorem for Q" in swapped.reason
    assert _pencil(inverse=lambda pattern: None).status is Status.UNDECIDED


def test_the_pencil_of_a_map_without_L_o_T_eq_L_is_refused():
    # W_K -> W_K A: the theorem L(T_A theta) = L(theta) gives no lemma for it, so no law is proved
    from symbolic.every_size.laws import invariance_lemma
    from symbolic.kernel.derivations import evaluation_lemma
    entry = every.EVERY_SIZE["attention_qk"]
    wrong = attention_map("T_AA", lambda: a("s", "m"))
    lemmas = (invariance_lemma(entry.theorem, entry.function, wrong),
              evaluation_lemma(entry.prediction_theorem, entry.prediction, wrong, "f o T = f", ""))
    verdict = _pencil(transformation=wrong, lemmas=lemmas)
    assert verdict.status is Status.UNDECIDED and "not a kernel theorem" in verdict.reason


def test_the_pencil_refuses_a_map_it_cannot_read_as_mixed_or_scaled():
    # K's image reads Q (M not block-diagonal), or Q's image is no constant mixing
    crossing = Transformation("T_cross", (T_ATTENTION.images[0],
                                          (Entry("K", ("l", "m")), Sum("s", HEAD, Mul((Entry("Q", ("l", "s")), b())))),
                                          T_ATTENTION.images[2]))
    square = Transformation("T_square", ((Entry("Q", ("i", "m")), Sum("r", HEAD, Mul((Entry("Q", ("i", "r")),
                                                                                      Entry("Q", ("r", "m")))))),
                                         *T_ATTENTION.images[1:]))
    for transformation in (crossing, square):
        verdict = _pencil(transformation=transformation, hessian=lambda a_, b_: None, inverse=lambda pattern: None)
        assert verdict.status is Status.UNDECIDED and "neither mixes nor scales" in verdict.reason


@pytest.mark.parametrize("d, k", [(1, 3), (2, 2), (3, 1)])
def test_the_theorem_holds_on_instances_with_B_the_inverse_transpose(d, k):
    # the two ends of the kernel's chain expanded at concrete sizes, B = A^{-T} for a generic A: the
    # exact identity test agrees; with B = A^{-1} (A B = I read instead) it does not
    from symbolic.logic.terms import expand
    from symbolic.checks import check_identity
    A = sp.Matrix(k, k, lambda r, m: sp.Symbol(f"a{r}{m}", real=True))
    ends = [expand(term, {"d": d, "k": k}, {"n": 1}) for term in (T_ATTENTION.apply(attention_prediction()),
                                                                  attention_prediction())]

    def read(B):
        return {sp.Symbol(f"{name}_{r + 1}_{m + 1}", real=True): M[r, m]
                for name, M in (("A", A), ("B", B)) for r in range(k) for m in range(k)}
    assert check_identity(*[end.xreplace(read(A.inv().T)) for end in ends]).status is Status.PROVED
    if k == 2:
        assert check_identity(*[end.xreplace(read(A.inv())) for end in ends]).status is Status.REFUTED


def test_the_side_conditions_switched_off_let_the_attacks_through():
    # interchange: a bound that names the other index is refused by the test of the bounds alone
    body = Mul((Entry("Q", ("i", "r")), a()))
    dependent = (Sum("i", "d", Sum("r", "h_{i}", body)), Sum("r", "h_{i}", Sum("i", "d", body)))
    assert index_rules._sum_interchange(*dependent) is not None
    original = index_rules._mentions
    try:
        index_rules._mentions = lambda text, name: False
        assert index_rules._sum_interchange(*dependent) is None
    finally:
        index_rules._mentions = original
    # the chain rule through the mixing: g reads Q's columns over 1..d, the image mixes 1..k only
    from symbolic.logic.terms import Fn, Function
    wide = Function("g", Fn("g", (Sum("m", "d", Sum("i", "d", Entry("Q", ("i", "m")))),)))
    before = Deriv(Entry("Q", ("i", "r")), Eval(wide, (), T_ATTENTION))
    after = Sum("m", HEAD, Mul((a(), Eval(wide, (Entry("Q", ("i", "m")),), T_ATTENTION))))
    assert "does not run over exactly" in LINEAR_CHAIN_RULE.applies(before, after)
    original = attention_rules.summation_bounds
    try:
        attention_rules.summation_bounds = lambda *args: [HEAD]
        assert attention_rules._linear_chain_rule(before, after) is None
    finally:
        attention_rules.summation_bounds = original
