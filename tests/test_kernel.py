"""The kernel refuses what it did not check: each attack of the issue, and a few more."""
import dataclasses

import pytest
import sympy as sp

from proofs import all_sizes
from symbolic import Status, Verdict
from symbolic.kernel.verdict import ForgedVerdict
from symbolic.trusted.axioms.index_rules import ARITHMETIC, CHAIN_RULE, HOMOGENEITY, SUM_FACTOR
from symbolic.kernel.derivations import Chain
from symbolic.logic.terms import Const, Deriv, Entry, Eval, Function, Mul, Relu, Sum, substitute_index
from symbolic.every_size.networks import DEEP, DEEP_NEURON, LAYER, LOSS_FUNCTION, P, T_ALPHA, T_NEURON, DeepNetwork, in_loss, \
    one_layer_map, prediction, x
from symbolic.kernel import IndexEquation, issued
from symbolic.checks import check_identity, zeros
from symbolic.kernel.derivations import Theorem, axiom, definition, evaluation_lemma, induction, instantiate, \
    is_index_theorem, lemma, prove
from symbolic.networks.rescaling import ALPHA

W, V = Entry("W", ("i", "j")), Entry("v", ("j",))


def theorem1():
    return all_sizes.theorem1_loss()[1]


# --- the attacks of the issue ----------------------------------------------------------------------

def test_a_wrong_scale_chain_is_refused():
    # T with α² on W and α⁵ on v: its chain rule reads α² from T, but L∘T = L is not a theorem for it
    wrong = one_layer_map("T", Const(ALPHA ** 2), Const(ALPHA ** 5))
    borrowed = all_sizes.invariance_lemma(theorem1(), LOSS_FUNCTION, wrong)
    chain = all_sizes.derivative_chain([W], LOSS_FUNCTION, wrong, borrowed)
    verdict = chain.check()
    assert verdict.status is Status.UNDECIDED and "for this T and this L" in verdict.reason
    # the lemma proved for T_α does not rewrite L at the other T
    right = all_sizes.invariance_lemma(theorem1(), LOSS_FUNCTION, T_ALPHA)
    verdict = all_sizes.derivative_chain([W], LOSS_FUNCTION, wrong, right).check()
    assert verdict.status is Status.UNDECIDED and "not an instance of L o T = L" in verdict.reason
    # and Theorem 1 itself fails for that T, at the step where the scales must cancel
    refused = all_sizes.invariance_chain("Theorem 1 for alpha^2, alpha^5", wrong).check()
    assert refused.status is Status.UNDECIDED and refused.details["rule"] == "arithmetic"


def test_the_chain_rule_reads_the_scale_from_T_and_refuses_another():
    at_T = Eval(LOSS_FUNCTION, (), T_ALPHA)
    derivative = Mul((Const(1 / ALPHA), Mul((Const(ALPHA), Eval(LOSS_FUNCTION, (W,), T_ALPHA)))))
    honest = Mul((Const(1 / ALPHA), Deriv(W, at_T)))
    assert CHAIN_RULE.applies(Mul((Const(1 / ALPHA), Deriv(W, at_T))),
                              Mul((Const(1 / ALPHA), Mul((Const(ALPHA), Eval(LOSS_FUNCTION, (W,), T_ALPHA)))))) is None
    lying = Mul((Const(1 / ALPHA), Mul((Const(ALPHA ** 2), Eval(LOSS_FUNCTION, (W,), T_ALPHA)))))
    assert CHAIN_RULE.applies(honest, lying) is not None
    assert derivative != lying


def test_a_lemma_with_a_made_up_verdict_is_refused():
    # f = 0 "proved" by a hand-made PROVED verdict: the verdict cannot even be built
    with pytest.raises(ForgedVerdict):
        Verdict(Status.PROVED, "f = 0")
    forged = Theorem(IndexEquation(prediction(), Const(sp.S.Zero)), sizes="all", claim="f = 0")
    assert not is_index_theorem(forged)
    rule = lemma(forged, "made up", "f = 0")
    verdict = Chain("f = 0", prediction()).then(rule, Const(sp.S.Zero)).check()
    assert verdict.status is Status.UNDECIDED and "not a theorem proved by the kernel" in verdict.reason
    # a rule of one's own, whose validity is a genuine kernel verdict of something else
    stolen = zeros("0 = 0", [sp.S.Zero])
    assert issued(stolen)
    own = dataclasses.replace(SUM_FACTOR, justify=lambda before, after: None, validity=lambda: stolen)
    verdict = Chain("f = 0", prediction()).then(own, Const(sp.S.Zero)).check()
    assert verdict.status is Status.UNDECIDED and "neither an axiom nor a lemma" in verdict.reason
    # a copy with another claim prints the statement it carries, not the claim passed in
    copy = dataclasses.replace(stolen, claim="f = 0")
    assert copy.claim == stolen.claim and "f = 0" not in copy.claim


def test_a_step_that_rewrites_the_wrong_subterm_is_refused():
    chain = all_sizes.theorem1_chain()
    # the ReLU homogeneity step, but the scale pulled out of the wrong factor (v's, not ReLU's)
    rule, term, _ = chain.steps[2]
    before = chain.steps[1][1]
    assert rule is HOMOGENEITY
    relu_term = Sum("i", "d", Mul((x(), W)))
    wrong = Sum("j", "h", Mul((Relu(Mul((Const(ALPHA), relu_term))), Mul((Const(ALPHA), Mul((Const(1 / ALPHA), V)))))))
    assert HOMOGENEITY.applies(before, wrong) is not None
    tampered = Chain(chain.claim, chain.start, chain.steps[:2] + [(HOMOGENEITY, wrong, "")])
    verdict = tampered.check()
    assert verdict.status is Status.UNDECIDED and verdict.details["refused_step"] == 3
    # a factor depending on the summation index does not leave the sum
    c_i = Const(sp.IndexedBase("c", positive=True)[sp.Symbol("i", integer=True)])
    inside = Sum("i", "d", Mul((c_i, Mul((x(), W)))))
    assert SUM_FACTOR.applies(inside, Mul((c_i, Sum("i", "d", Mul((x(), W)))))) is not None
    # the lemma f_{T_α θ} = f_θ does not rewrite the prediction at T_c
    prediction_lemma = lemma(all_sizes.theorem1_prediction()[1], "Theorem 1 (a)", "", for_all=("n",))
    verdict = Chain("T_c", T_NEURON.apply(prediction())).then(prediction_lemma, prediction()).check()
    assert verdict.status is Status.UNDECIDED and "not an instance of Theorem 1 (a)" in verdict.reason


def test_an_induction_with_a_false_step_is_refused():
    # the step uses the hypothesis at layer k + 1 instead of k: circular, refused
    def circular(hypothesis):
        return Chain("circular", DEEP.layer(LAYER + 1, True)).then(
            hypothesis, Mul((Const(P[LAYER + 1]), DEEP.layer(LAYER + 1, False))))
    verdict, theorem = induction("circular", DEEP.layer(LAYER, True), Mul((Const(P[LAYER]), DEEP.layer(LAYER, False))),
                                 LAYER, all_sizes.base_chain(DEEP), circular, ("n", "j"))
    assert theorem is None and "induction step" in verdict.reason
    # a false statement (the scale P_k replaced by 2 P_k) fails at its base and its step
    doubled = Mul((Const(2 * P[LAYER]), DEEP.layer(LAYER, False)))
    verdict, theorem = induction("doubled", DEEP.layer(LAYER, True), doubled, LAYER, all_sizes.base_chain(DEEP),
                                 lambda hypothesis: all_sizes.step_chain(DEEP, hypothesis), ("n", "j"))
    assert theorem is None and "does not prove S(0)" in verdict.reason
    # the hypothesis does not outlive its step
    leaked = []
    induction("layers", DEEP.layer(LAYER, True), Mul((Const(P[LAYER]), DEEP.layer(LAYER, False))), LAYER,
              all_sizes.base_chain(DEEP), lambda hypothesis: leaked.append(hypothesis) or all_sizes.step_chain(DEEP, hypothesis),
              ("n", "j"))
    outside = Chain("leak", DEEP.layer(LAYER, True)).then(leaked[0], Mul((Const(P[LAYER]), DEEP.layer(LAYER, False))))
    assert outside.check().status is Status.UNDECIDED



def test_an_induction_needs_a_proved_base_and_a_step_that_proves_the_next_layer():
    statement = (DEEP.layer(LAYER, True), Mul((Const(P[LAYER]), DEEP.layer(LAYER, False))))
    base = all_sizes.base_chain(DEEP)
    # a base chain with the right ends whose step no rule of the kernel justifies
    anything = dataclasses.replace(ARITHMETIC, justify=lambda before, after: None)
    unproved_base = Chain("base", base.start).then(anything, base.end)
    verdict, theorem = induction("unproved base", *statement, LAYER, unproved_base,
                                 lambda hypothesis: all_sizes.step_chain(DEEP, hypothesis), ("n", "j"))
    assert theorem is None and "base case" in verdict.reason
    # a proved chain offered as the step, but of S(0), not of S(k + 1)
    verdict, theorem = induction("wrong step", *statement, LAYER, base, lambda hypothesis: base, ("n", "j"))
    assert theorem is None and "does not prove S(k + 1)" in verdict.reason


def test_a_chain_needs_the_certified_validity_of_every_rule(monkeypatch):
    from symbolic.kernel import derivations
    broken = dataclasses.replace(ARITHMETIC, validity=lambda: Verdict(Status.UNDECIDED, "broken", reason="no proof"))
    # admitted as if it were an axiom, only the validity check stands between it and PROVED
    monkeypatch.setitem(derivations._AXIOMS, id(broken), broken)
    a = sp.Symbol("a")
    verdict, theorem = prove(Chain("broken", Const(a * (a + 1))).then(broken, Const(a**2 + a)))
    assert theorem is None and verdict.status is Status.UNDECIDED and "not valid" in verdict.reason

def test_a_map_whose_bias_scale_is_off_by_one_layer_is_refused():
    off = DeepNetwork("w", bias=True, bias_layer_offset=-1)
    verdict, theorem = all_sizes.layers_theorem(off)
    assert theorem is None and verdict.status is Status.UNDECIDED
    assert "induction step: step 2 (induction hypothesis)" in verdict.reason
    # the same concrete network, its hidden bias unscaled: refuted with a witness
    instance = all_sizes.biases.prediction_invariance((2, 2, 1), control="unscaled hidden bias")
    assert instance.status is Status.REFUTED and instance.witness


# --- further attacks through the public API --------------------------------------------------------------

def test_an_instance_needs_a_nonnegative_layer_or_a_stated_assumption():
    _, theorem = all_sizes.layers_theorem(DEEP)
    assert instantiate(theorem, sp.Integer(-1)) is None
    assert instantiate(theorem, sp.Symbol("K", integer=True) - 1) is None
    assert is_index_theorem(instantiate(theorem, sp.Integer(3)))


def test_a_parameter_cannot_be_defined_away():
    all_sizes.theorem1_loss()
    with pytest.raises(ValueError, match="parameter"):
        definition("W := 0", W, Const(sp.S.Zero), ("i", "j"))
    with pytest.raises(ValueError, match="parameter"):
        definition("alpha := 1", Const(ALPHA), Const(sp.S.One))
    with pytest.raises(ValueError, match="defined already"):
        definition("P_0 := 2", Const(P[0]), Const(sp.Integer(2)))
    # a layer that the schematic definition of layer k + 1 already covers
    with pytest.raises(ValueError, match="defined already"):
        definition("z^(K) := 0", Entry("z^{(K)}", ("n", "j")), Const(sp.S.Zero), ("n", "j"))
    with pytest.raises(ValueError, match="defined already"):
        definition("z^(3) := 0", Entry("z^{(3)}", ("n", "j")), Const(sp.S.Zero), ("n", "j"))


def test_an_evaluation_lemma_must_match_its_T_and_its_function():
    other_function = Function("L", in_loss(Sum("j", "h", V)))
    rule = evaluation_lemma(theorem1(), other_function, T_ALPHA, "L o T = L", "")
    assert rule.validity().status is Status.UNDECIDED


def test_axioms_come_from_the_rule_modules_and_chains_need_steps():
    # an axiom of one's own, its validity a hand-made verdict or a stolen kernel verdict: refused
    with pytest.raises(ValueError, match="an axiom's code"):
        axiom(dataclasses.replace(ARITHMETIC, validity=lambda: Verdict(Status.PROVED, "trust me")))
    with pytest.raises(ValueError, match="an axiom's code"):
        axiom(dataclasses.replace(SUM_FACTOR, justify=lambda before, after: None,
                                  validity=lambda: zeros("0 = 0", [sp.S.Zero])))
    assert prove(Chain("nothing", x()))[0].status is Status.UNDECIDED
    assert zeros("empty", []).status is Status.UNDECIDED


def test_the_certified_identity_test_and_the_kernel_theorems():
    assert issued(check_identity(sp.Symbol("a") * 2, sp.Symbol("a") + sp.Symbol("a")))
    assert not issued(check_identity(sp.Symbol("a"), sp.Symbol("b")))
    verdict, theorem = all_sizes.theorem1_loss()
    assert issued(verdict) and is_index_theorem(theorem)


def test_a_lemma_renames_an_index_in_its_scalars_as_in_its_entries():
    # the layers of the per-neuron network at K - 1: \tilde a_{nj} = c_{K-1,j} a_{nj}, used for unit i
    _, theorem = all_sizes.layers_theorem(DEEP_NEURON)
    last = sp.Symbol("K", integer=True) - 1
    rule = lemma(instantiate(theorem, last, assumption="K >= 1"), "layers at K-1", "", for_all=("n", "j"))
    layer, scale = DEEP_NEURON.layer(last, False, "i"), DEEP_NEURON.unit_scale(last, "i")
    assert rule.applies(DEEP_NEURON.layer(last, True, "i"), Mul((scale, layer))) is None
    # the entries renamed j -> i but the scale left at unit j: not an instance
    unrenamed = Mul((DEEP_NEURON.unit_scale(last, "j"), layer))
    assert rule.applies(DEEP_NEURON.layer(last, True, "i"), unrenamed) is not None


def test_a_lemma_refuses_a_renaming_captured_by_a_sum():
    # f_{T_α θ}(x_n) = f_θ(x_n) for every n, but not with n renamed to i, which Σ_i binds
    rule = lemma(all_sizes.theorem1_prediction()[1], "Theorem 1 (a)", "", for_all=("n",))
    at_T, at_theta = T_ALPHA.apply(prediction()), prediction()
    assert rule.applies(substitute_index(at_T, "n", "m"), substitute_index(at_theta, "n", "m")) is None
    assert rule.applies(substitute_index(at_T, "n", "i"), substitute_index(at_theta, "n", "i")) is not None
