"""Audit cells proved for every size: the kernel's change of variables, the measure chains, the
cross-checks on the audit's families, and the attacks each must refuse."""
import copy
import json

import pytest
import sympy as sp

from proofs import all_sizes
from proofs import measures_all_sizes as every
from symbolic.logic.terms import Const, Entry, Mul, Transformation
from symbolic.every_size.laws import invariance_lemma
from symbolic.every_size.networks import LOSS_FUNCTION, T_ALPHA, T_NEURON
from symbolic.every_size.change_of_variables import change_of_variables, normal_scaling_law
from symbolic.kernel.derivations import Theorem, prove
from symbolic.every_size import measure_forms
from symbolic.measures.definitions import MEASURES, CoordinatewiseSharpness, CoordinateSum, Measure, PathSum
from symbolic.symmetries.invariance import check_invariance
from symbolic.networks.rescaling import ALPHA
from symbolic.kernel.verdict import Status


def test_the_scripts_claims_are_proved_for_every_size_and_agree_with_the_audit():
    for measure, group in every.claims():
        verdict = every.every_size_verdict(measure, group)
        assert verdict.status is Status.PROVED, (measure, group, verdict.reason)
        assert any("every size" in line for line in verdict.evidence)
        assert any("cross-checked on the audit's families" in line for line in verdict.evidence)
    # the concrete audit, at its own sizes, agrees: normalized flatness in every group here (the
    # audit itself reports a cell it refutes that the kernel proves for every size, tested below)
    for group in every.EVERY_SIZE:
        if group == "attention_qk":     # W_Q -> W_Q A mixes coordinates: the audit refutes normalized flatness
            assert ("normalized_flatness", group) not in every.claims()
            assert every.every_size_verdict("normalized_flatness", group).status is Status.UNDECIDED
            assert check_invariance("normalized_flatness", group).verdict.status is Status.REFUTED
            continue
        assert ("normalized_flatness", group) in every.claims()
        assert check_invariance("normalized_flatness", group).verdict.status is Status.PROVED, group
    assert len(every.claims()) == 99 + len(every.ATTENTION)


@pytest.mark.parametrize("measure", every.NEGATIVE_CONTROLS)
def test_negative_controls_are_refused_and_refuted_by_the_audit(measure):
    verdict = every.every_size_verdict(measure, "layerwise")
    assert verdict.status is Status.UNDECIDED and verdict.reason
    assert check_invariance(measure, "layerwise").verdict.status is Status.REFUTED


def test_refusals_name_the_failing_step():
    scale = every.every_size_verdict("keskar_sharpness", "per_neuron")
    assert "not covariant on W" in scale.reason and "refuted at" in scale.reason
    trace = every.every_size_verdict("hessian_trace", "per_neuron")
    assert "arithmetic" in trace.reason and "refused" in trace.reason


def test_relative_flatness_per_neuron_is_refused_where_a_scale_depends_on_the_unit():
    verdict = every.every_size_verdict("relative_flatness", "per_neuron")
    assert verdict.status is Status.UNDECIDED and "sum factor" in verdict.reason and "index j" in verdict.reason
    assert check_invariance("relative_flatness", "per_neuron").verdict.status is Status.REFUTED


def test_measures_without_an_every_size_argument_get_none():
    assert every.every_size_verdict("relative_flatness_unsquared", "deep_layerwise_bias").status is Status.UNDECIDED
    # the attention head's map mixes coordinates: no coordinate-wise scale to change variables by
    refused = every.every_size_verdict("adaptive_sharpness", "attention_qk")
    assert refused.status is Status.UNDECIDED and "constant times a coordinate" in refused.reason
    assert every.every_size_verdict("no_such_measure", "layerwise") is None


# --- the kernel's change of variables, attacked -----------------------------------------------------

def _adaptive(u, is_weight):
    return sp.Abs(u)


def test_change_of_variables_refuses_a_forged_or_foreign_theorem():
    theorem = all_sizes.theorem1_loss()[1]
    good = change_of_variables("adaptive, T_alpha", theorem, LOSS_FUNCTION, T_ALPHA, _adaptive, every._is_weight)
    assert good.status is Status.PROVED
    forged = Theorem(theorem.statement, theorem.rests_on, theorem.sizes, theorem.evidence, theorem.claim,
                     verdict=theorem.verdict)
    refused = change_of_variables("forged", forged, LOSS_FUNCTION, T_ALPHA, _adaptive, every._is_weight)
    assert refused.status is Status.UNDECIDED and "not a kernel theorem" in refused.reason
    # the theorem for T_alpha does not speak of the per-neuron map
    foreign = change_of_variables("foreign", theorem, LOSS_FUNCTION, T_NEURON, _adaptive, every._is_weight)
    assert foreign.status is Status.UNDECIDED and "for this" in foreign.reason


def test_change_of_variables_refuses_a_map_that_is_not_diagonal_or_not_positive():
    W, v = Entry("W", ("i", "j")), Entry("v", ("j",))
    theorem = all_sizes.theorem1_loss()[1]
    s = sp.Symbol("s", real=True)
    for images, words in ((((W, Mul((Const(s), W))), (v, Mul((Const(1 / s), v)))), "not known to be positive"),
                          (((W, Mul((Const(ALPHA), v))), (v, v)), "not a diagonal map")):
        T = Transformation("T_bad", images)
        verdict = change_of_variables("bad map", theorem, LOSS_FUNCTION, T, _adaptive, every._is_weight)
        assert verdict.status is Status.UNDECIDED
    # a map that is fine but not the theorem's is refused at (1) before anything else
    assert "not a kernel theorem" in verdict.reason or "for this" in verdict.reason


def test_change_of_variables_checks_each_premise_on_its_own():
    """The premises (2)-(4) are checked even with the right theorem: reached through a T that equals
    T_alpha as a term but is another object is not possible, so each check is driven directly."""
    theorem = all_sizes.theorem1_loss()[1]
    # a normalizer that reads more than the loss value
    theta = sp.Symbol("theta_1", real=True)
    verdict = change_of_variables("normalizer", theorem, LOSS_FUNCTION, T_ALPHA, _adaptive, every._is_weight,
                                  normalizer=lambda loss: 1 / (1 + loss + theta ** 2))
    assert verdict.status is Status.UNDECIDED and "normalizer" in verdict.reason
    # a family nobody said is a weight or a bias
    verdict = change_of_variables("kinds", theorem, LOSS_FUNCTION, T_ALPHA, _adaptive, lambda family: None)
    assert verdict.status is Status.UNDECIDED and "weight or a bias" in verdict.reason
    # the Gaussian premise is the kernel's own check, and compared non-zero values
    law = normal_scaling_law()
    assert law.status is Status.PROVED and any("non-zero" in line for line in law.evidence)


# --- the chains, attacked ---------------------------------------------------------------------------

def _chain(form, transformation=T_ALPHA, loss=all_sizes.theorem1_loss):
    rule = invariance_lemma(loss()[1], LOSS_FUNCTION, transformation)
    return measure_forms.invariance_chain(form, LOSS_FUNCTION, transformation, rule, "test")


def test_chains_of_measures_that_move_are_refused():
    for form in (CoordinateSum(lambda u, h: u * h),            # t·t⁻² ≠ 1
                 CoordinateSum(lambda u, h: h),                # the trace
                 PathSum(lambda u: u + 1)):                         # not homogeneous
        verdict = prove(_chain(form))[0]
        assert verdict.status is Status.UNDECIDED and "refused" in verdict.reason


def test_a_chain_with_the_wrong_law_is_refused():
    """Theorem 3's lemma for T_alpha does not rewrite the per-neuron second derivatives."""
    chain = _chain(CoordinateSum(lambda u, h: u ** 2 * h), T_NEURON, all_sizes.per_neuron_loss)
    assert prove(chain)[0].status is Status.PROVED
    wrong = _chain(CoordinateSum(lambda u, h: u ** 2 * h))
    wrong.start = chain.start          # the per-neuron measure, rewritten with T_alpha's steps
    assert prove(wrong)[0].status is Status.UNDECIDED


def test_cross_checks_catch_a_wrong_map_or_a_wrong_term():
    wrong_map = copy.copy(every.EVERY_SIZE["layerwise"])
    wrong_map.T = T_NEURON              # the per-neuron map claimed for the layer-wise group
    assert any(v.status is not Status.PROVED for v in every.same_action(wrong_map))
    # the term without its v coordinates is not the audit's normalized flatness
    without_v = copy.copy(every.EVERY_SIZE["layerwise"])
    without_v.network = measure_forms.IndexNetwork(measure_forms.ONE_LAYER_FAMILIES[:1], measure_forms.ONE_LAYER.output)
    checks = every.same_measure(MEASURES["normalized_flatness"], without_v)
    assert any(v.status is Status.REFUTED for v in checks)
    # nor, on the deep network, the term without its sum over the hidden layers' biases
    deep = copy.copy(every.EVERY_SIZE["deep_layerwise_bias"])
    families = measure_forms.DEEP_BIAS_FAMILIES
    deep.network = measure_forms.IndexNetwork(families[:2] + families[3:], families[1])
    assert any(v.status is Status.REFUTED for v in every.same_measure(MEASURES["fisher_rao_norm"], deep))


def test_a_users_coordinatewise_measure_gets_every_size():
    mine = Measure("my_adaptive", "mine", "M", CoordinatewiseSharpness(lambda u, w: 2 * sp.Abs(u), "inf"))
    assert every.every_size_verdict(mine, "per_neuron").status is Status.PROVED
    moved = Measure("my_offset", "mine", "M", CoordinatewiseSharpness(lambda u, w: sp.Abs(u) + 1))
    assert every.every_size_verdict(moved, "per_neuron").status is Status.UNDECIDED


# --- the audit command ---------------------------------------------------------------------------

def test_audit_json_says_all_sizes_where_the_kernel_proved_them(cli):
    result = cli("audit", "--json", "--group", "layerwise", "--group", "deep_layerwise_bias",
                 "--measure", "adaptive_sharpness_inf", "--measure", "path_norm_l1", "--measure", "eps_sharpness",
                 "--measure", "spectral_norm_product")
    assert result.returncode == 0, result.stderr
    rows = {(r["measure"], r["group"]): r for r in json.loads(result.stdout)}
    for key in (("adaptive_sharpness_inf", "layerwise"), ("adaptive_sharpness_inf", "deep_layerwise_bias"),
                ("path_norm_l1", "layerwise"), ("path_norm_l1", "deep_layerwise_bias"),
                ("spectral_norm_product", "deep_layerwise_bias")):
        row = rows[key]
        assert row["status"] == "proved" and row["sizes"] == "all" and row["every_size_route"] is None
        assert row["instance_sizes"] and "every" in row["every_size"]["networks"]
    refuted = rows[("eps_sharpness", "layerwise")]
    assert refuted["status"] == "refuted" and refuted["every_size"] is None
    table = cli("audit", "--group", "layerwise", "--measure", "path_norm_l1", "--measure", "eps_sharpness")
    assert "(1 for every size)" in table.stdout


def test_a_proof_for_every_size_beside_a_refutation_is_a_contradiction(monkeypatch):
    from proofs.commands import audit_command as audit
    from symbolic.measures.invariance import Outcome
    from symbolic.kernel.verdict import Verdict
    cell = audit.Cell("path_norm", "layerwise", Outcome(Verdict(Status.REFUTED, "x", witness={"theta": "1"})), 0.0)
    audit.attach_every_size([cell], MEASURES)
    assert cell.state == "undecided" and "contradiction" in cell.outcome.verdict.reason


# --- the pencil (H, G), attacked ----------------------------------------------------------------------

def test_pencil_refuses_laws_of_the_wrong_shape_or_scale():
    from symbolic.logic.terms import Eval
    from symbolic.every_size.congruence import pencil_congruence
    from symbolic.every_size.measure_forms import gauss_newton_entry
    layerwise = every.EVERY_SIZE["layerwise"]

    def hessian(a, b, point):
        return Eval(LOSS_FUNCTION, (a, b), point)
    good = [("H", hessian, lambda a, b: every._hessian_law(layerwise, a, b)),
            ("G", lambda a, b, point: gauss_newton_entry(layerwise.prediction, a, b, point),
             lambda a, b: every._metric_law(layerwise, a, b))]
    assert pencil_congruence("pencil", T_ALPHA, LOSS_FUNCTION, good).status is Status.PROVED
    # G's law handed in for H: its sides are not the Hessian's entries
    swapped = [("H", hessian, good[1][2]), good[1]]
    assert "is not H_ab" in pencil_congruence("swapped", T_ALPHA, LOSS_FUNCTION, swapped).reason
    # a "metric" that is the gradient: its law has one scale, not two
    gradient = [good[0], ("G", lambda a, b, point: Eval(LOSS_FUNCTION, (a,), point),
                          lambda a, b: prove(_gradient_chain(a))[1])]
    assert pencil_congruence("gradient", T_ALPHA, LOSS_FUNCTION, gradient).status is Status.UNDECIDED
    # the per-neuron laws do not speak of T_alpha
    foreign = [("H", hessian, lambda a, b: every._hessian_law(every.EVERY_SIZE["per_neuron"], a, b)), good[1]]
    assert pencil_congruence("foreign", T_ALPHA, LOSS_FUNCTION, foreign).status is Status.UNDECIDED

    # a law with the right sides that the kernel did not prove
    def forged(a, b):
        law = every._hessian_law(layerwise, a, b)
        return Theorem(law.statement, law.rests_on, law.sizes, law.evidence, law.claim, verdict=law.verdict)
    refused = pencil_congruence("forged", T_ALPHA, LOSS_FUNCTION, [("H", hessian, forged), good[1]])
    assert refused.status is Status.UNDECIDED and "not a kernel theorem" in refused.reason


def _gradient_chain(a):
    from symbolic.every_size.laws import derivative_chain
    rule = invariance_lemma(all_sizes.theorem1_loss()[1], LOSS_FUNCTION, T_ALPHA)
    return derivative_chain([a], LOSS_FUNCTION, T_ALPHA, rule)


def test_pencil_cells_hold_for_every_size_in_every_group_with_a_map():
    for group in every.EVERY_SIZE:
        verdict = every.every_size_verdict("metric_hessian_spectrum", group)
        assert verdict.status is Status.PROVED
        assert any("det(P M P^T)" in line for line in verdict.evidence)
    # the Hessian's own spectrum moves under a rescaling (the audit refutes it): D is not orthogonal
    refused = every.every_size_verdict("hessian_spectral_norm", "layerwise")
    assert refused.status is Status.UNDECIDED and "not orthogonal" in refused.reason


# --- the sum over the layers of a deep network --------------------------------------------------------

def test_a_layer_substitution_reaches_the_sizes_of_sums_and_stops_at_a_bound_layer():
    from symbolic.logic.terms import LayerSum, Sum, expand, substitute_layer
    k, p = sp.Symbol("k", integer=True), sp.Symbol("p", integer=True)
    total = Sum("i", "h_{k}", Entry(r"z^{(k)}", ("n", "i")))
    assert substitute_layer(total, k, sp.S.Zero) == Sum("i", "h_{0}", Entry(r"z^{(0)}", ("n", "i")))
    layers = LayerSum("p", "K-1", Sum("j", "h_{p}", Entry(r"b^{(p)}", ("j",))))
    assert substitute_layer(layers, p, sp.Integer(7)) == layers            # p is bound there
    at_three = substitute_layer(layers, sp.Symbol("K", integer=True), sp.Integer(3))
    # Σ_{p=1}^{2} Σ_{j=1}^{h_p} b^{(p)}_j with h_1 = 2, h_2 = 1: three biases
    value = expand(at_three, {"h_{1}": 2, "h_{2}": 1})
    assert value == sp.Add(*sp.symbols(r"b^{(1)}_1 b^{(1)}_2 b^{(2)}_1", real=True))


def test_deep_coordinate_measures_hold_for_every_depth():
    for measure in ("normalized_flatness", "fisher_rao_norm", "relative_flatness"):
        verdict = every.every_size_verdict(measure, "deep_layerwise_bias")
        assert verdict.status is Status.PROVED and "every depth" in verdict.claim
    trace = every.every_size_verdict("hessian_trace", "deep_layerwise_bias")
    assert trace.status is Status.UNDECIDED and "refused" in trace.reason


# --- a sign per hidden unit through |·| ---------------------------------------------------------------

def test_sign_flip_cells_hold_for_every_size_and_the_audit_agrees():
    cells = [m for m, g in every.claims() if g == "sign_flip"]
    assert len(cells) == 23 and "spectral_norm_product" in cells
    for measure in ("hessian_spectral_norm", "weight_norm", "eps_sharpness", "gradient_norm"):
        verdict = every.every_size_verdict(measure, "sign_flip")
        assert verdict.status is Status.PROVED and "two layers with biases" in verdict.claim
    assert every.sign_flip_chain().check().status is Status.PROVED


def test_what_moves_under_a_rescaling_is_refused_though_a_sign_flip_keeps_it():
    for measure in ("weight_norm", "gradient_norm", "fisher_trace", "hessian_spectral_norm", "hessian_frobenius",
                    "eps_sharpness"):
        verdict = every.every_size_verdict(measure, "layerwise")
        assert verdict.status is Status.UNDECIDED, measure
        assert check_invariance(measure, "layerwise").verdict.status is Status.REFUTED, measure
    similarity = every.every_size_verdict("hessian_spectral_norm", "per_neuron")
    assert "not signs" in similarity.reason


def test_a_map_that_leaves_out_a_family_fails_the_cross_check():
    from symbolic.every_size.networks import T_SIGN
    partial = copy.copy(every.EVERY_SIZE["sign_flip"])
    partial.T = Transformation(T_SIGN.name, T_SIGN.images[:2])      # the output layer's families left out
    checks = every.same_action(partial)
    assert all(v.status is Status.UNDECIDED and "does not list" in v.reason for v in checks)


def test_the_sign_rule_needs_a_square_of_one():
    from symbolic.trusted.axioms.index_rules import ABSOLUTE_VALUE_OF_A_SIGN
    from symbolic.logic.terms import Activation
    s = Entry("s", ())
    for factor, accepted in ((-1, True), (sp.Integer(1), True), (sp.Rational(1, 2), False), (sp.Symbol("c"), False)):
        before = Activation("abs", None, Mul((Const(sp.sympify(factor)), s)))
        assert (ABSOLUTE_VALUE_OF_A_SIGN.justify(before, Activation("abs", None, s)) is None) is accepted
    assert ABSOLUTE_VALUE_OF_A_SIGN.validity().status is Status.PROVED


def test_a_square_root_of_a_rescaled_sum_is_taken_apart_only_by_its_rule():
    """‖αW‖_F‖v/α‖_F = ‖W‖_F‖v‖_F needs √(α²S) = α√S: the rule of a root's homogeneity, which takes
    out only a positive factor, and only its root; per neuron, c_j² cannot leave Σ_j."""
    from symbolic.trusted.axioms.index_rules import RECIPROCAL_ROOT, ROOT_HOMOGENEITY, SQUARE_ROOT
    from symbolic.logic.terms import Fn
    proved = every.every_size_verdict("layer_norm_product", "layerwise")
    assert proved.status is Status.PROVED
    assert "root homogeneity" in [rule.name for rule in _chain(MEASURES["layer_norm_product"].evaluate).rules]
    assert check_invariance("layer_norm_product", "layerwise").verdict.status is Status.PROVED
    per_neuron = every.every_size_verdict("layer_norm_product", "per_neuron")
    assert per_neuron.status is Status.UNDECIDED and "sum factor" in per_neuron.reason
    assert check_invariance("layer_norm_product", "per_neuron").verdict.status is Status.REFUTED
    s, k = Entry("s", ()), sp.Symbol("k", positive=True)
    real = sp.Symbol("r", real=True)
    for name, factor, out, accepted in ((SQUARE_ROOT, k ** 2, k, True), (SQUARE_ROOT, k ** 2, k ** 2, False),
                                        (RECIPROCAL_ROOT, k ** 2, 1 / k, True), (RECIPROCAL_ROOT, k ** 2, k, False),
                                        (SQUARE_ROOT, real ** 2, sp.Abs(real), False)):
        before = Fn(name, (Mul((Const(factor), s)),))
        assert (ROOT_HOMOGENEITY.justify(before, Mul((Const(out), Fn(name, (s,))))) is None) is accepted
    assert ROOT_HOMOGENEITY.validity().status is Status.PROVED


# --- a permutation of the hidden units -----------------------------------------------------------------

def test_permutation_cells_hold_for_every_size_and_the_audit_agrees():
    cells = [m for m, g in every.claims() if g == "permutation"]
    assert len(cells) == 23 and "spectral_norm_product" in cells
    for measure in ("hessian_spectral_norm", "adaptive_average_sharpness", "path_norm_l1", "relative_flatness",
                    "metric_hessian_spectrum"):
        verdict = every.every_size_verdict(measure, "permutation")
        assert verdict.status is Status.PROVED and "ReLU units" in verdict.claim
        assert check_invariance(measure, "permutation").verdict.status is Status.PROVED
    theorem = every.EVERY_SIZE["permutation"].loss_theorem()
    assert theorem[0].status is Status.PROVED
    assert [rule.name for rule in every.permutation_chain().rules] == ["reindexing"]


def _permuted(entry, index_position=-1, size="h_{1}"):
    from symbolic.logic.terms import permuted
    indices = list(entry.indices)
    indices[index_position] = permuted(size, indices[index_position])
    return Entry(entry.family, tuple(indices))


def test_a_map_that_permutes_only_the_incoming_weights_is_not_a_symmetry():
    """θ^{(1)}_{ij} ↦ θ^{(1)}_{iπ(j)} alone: the reindexing is refused (j occurs unpermuted in v_j),
    and at h = 2 with π the swap the two predictions differ at a concrete point."""
    from symbolic.trusted.axioms.index_rules import REINDEXING
    from symbolic.logic.terms import expand
    from symbolic.every_size.networks import HIDDEN_WEIGHT, relu_two_layer_prediction
    from symbolic.checks import check_identity
    incoming = Transformation(r"T_{bad}", ((HIDDEN_WEIGHT, _permuted(HIDDEN_WEIGHT)),))
    moved, target = incoming.apply(relu_two_layer_prediction()), relu_two_layer_prediction()
    assert REINDEXING.applies(moved, target) is not None
    chain = every.Chain("bad", moved).then(REINDEXING, target)
    assert prove(chain)[0].status is Status.UNDECIDED
    swap = {r"\pi_{h_{1}}": {1: 2, 2: 1}}
    sizes = {"h_{0}": 1, "h_{1}": 2}
    refuted = check_identity(expand(moved, sizes, {"n": 1, **swap}), expand(target, sizes, {"n": 1, **swap}))
    assert refuted.status is Status.REFUTED and refuted.witness


def test_reindexing_needs_the_permutation_of_the_sums_own_range_and_no_scalar_in_the_index():
    from symbolic.trusted.axioms.index_rules import REINDEXING
    from symbolic.logic.terms import Sum, permuted
    v = Entry("v", ("j",))
    assert REINDEXING.applies(Sum("j", "h", _permuted(v, size="h")), Sum("j", "h", v)) is None
    assert REINDEXING.applies(Sum("j", "h", v), Sum("j", "h", _permuted(v, size="h"))) is None      # either way
    assert "replaced" in REINDEXING.justify(Sum("j", "h", _permuted(v, size="d")), Sum("j", "h", v))
    assert "bound" in REINDEXING.justify(Sum("j", "h", _permuted(v, size="h")), Sum("j", "d", v))
    scaled = Mul((Const(sp.IndexedBase("c")[sp.Symbol("j", integer=True)]), v))
    assert "scalar" in REINDEXING.justify(Sum("j", "h", Mul((scaled.factors[0], _permuted(v, size="h")))),
                                          Sum("j", "h", scaled))
    assert REINDEXING.applies(Sum("j", "h", _permuted(v, size="d")), Sum("j", "h", v)) is not None
    # a nested permutation is still an index in j: its sum is not free of j
    from symbolic.logic.terms import free_indices
    assert free_indices(Entry("v", (permuted("h", permuted("h", "j")),))) == {"j"}
    assert REINDEXING.validity().status is Status.PROVED


def test_the_chain_rule_reads_the_permuted_coordinate_from_the_map():
    from symbolic.trusted.axioms.index_rules import CHAIN_RULE
    from symbolic.logic.terms import Deriv, Eval
    from symbolic.every_size.networks import HIDDEN_WEIGHT, RELU_TWO_LAYER_LOSS, T_PERMUTATION
    at_T = Eval(RELU_TWO_LAYER_LOSS, (), T_PERMUTATION)
    partial = Mul((Const(sp.S.One), Eval(RELU_TWO_LAYER_LOSS, (HIDDEN_WEIGHT,), T_PERMUTATION)))
    # ∂ at θ_{i π(j)} of L(T_π θ) is (∂_{ij} L)(T_π θ); at θ_ij it is not
    assert CHAIN_RULE.applies(Deriv(_permuted(HIDDEN_WEIGHT), at_T), partial) is None
    assert CHAIN_RULE.applies(Deriv(HIDDEN_WEIGHT, at_T), partial) is not None
    assert CHAIN_RULE.validity().status is Status.PROVED


def test_a_relabelling_must_cover_exactly_the_range_the_loss_sums_over():
    from symbolic.every_size.networks import HIDDEN_BIAS, HIDDEN_WEIGHT, OUTPUT_BIAS, OUTPUT_WEIGHT, \
        RELU_TWO_LAYER_LOSS, T_PERMUTATION
    from symbolic.every_size.relabelling import not_a_relabelling
    assert not_a_relabelling(T_PERMUTATION, RELU_TWO_LAYER_LOSS) is None
    # π of the input range h_0 applied to the units, which run over h_1
    wrong_range = Transformation(r"T_{bad}", tuple((e, _permuted(e, size="h_{0}")) for e in
                                                   (HIDDEN_WEIGHT, HIDDEN_BIAS, OUTPUT_WEIGHT)) + ((OUTPUT_BIAS, OUTPUT_BIAS),))
    assert "does not run over exactly" in not_a_relabelling(wrong_range, RELU_TWO_LAYER_LOSS)
    theorem = every.EVERY_SIZE["permutation"].loss_theorem()[1]
    refused = change_of_variables("wrong range", theorem, RELU_TWO_LAYER_LOSS, wrong_range, _adaptive, every._is_weight)
    assert refused.status is Status.UNDECIDED
    # an index moved to another position (a transpose) is not a relabelling read from the map
    transpose = Transformation(r"T_{bad}", ((HIDDEN_WEIGHT, Entry(HIDDEN_WEIGHT.family, ("j", "i"))),))
    assert transpose.monomial(HIDDEN_WEIGHT) is None
    assert "constant times a coordinate" in not_a_relabelling(transpose, RELU_TWO_LAYER_LOSS)
    # the right map with the right theorem
    good = change_of_variables("adaptive, T_pi", theorem, RELU_TWO_LAYER_LOSS, T_PERMUTATION, _adaptive,
                                every._is_weight)
    assert good.status is Status.PROVED and any("bijection" in line for line in good.evidence)


def test_a_lemma_about_a_permuted_index_renames_it_with_its_variable():
    """A lemma's pattern π_m(j), j a variable, matches π_m(l) only with j bound to l, and only a
    permutation of the same range."""
    from symbolic.kernel.derivations import _match
    v, w = Entry("v", ("j",)), Entry("w", ("j",))
    binding = {}
    assert _match(_permuted(v), _permuted(Entry("v", ("l",))), {"j"}, binding) and binding == {"j": "l"}
    # j renamed to l in w_j but kept in v_π(j): not one renaming
    assert not _match(Mul((w, _permuted(v))), Mul((Entry("w", ("l",)), _permuted(v))), {"j"}, {})
    assert not _match(_permuted(v), _permuted(Entry("v", ("l",)), size="h_{0}"), {"j"}, {})
    assert not _match(_permuted(v), Entry("v", ("l",)), {"j"}, {})
    # the same inside a scalar: the index symbol π_m(j) renames with j
    from symbolic.kernel.derivations import _match_scalar
    j = sp.Symbol("j", integer=True)
    at = {"j": "l"}
    assert _match_scalar(sp.Symbol(_permuted(v).indices[0], integer=True),
                         sp.Symbol(_permuted(Entry("v", ("l",))).indices[0], integer=True), {j}, at)
    assert not _match_scalar(sp.Symbol(_permuted(v).indices[0], integer=True),
                             sp.Symbol(_permuted(Entry("v", ("l",))).indices[0], integer=True), {j}, {"j": "k"})


# --- normalized layers ----------------------------------------------------------------------------------

def test_normalization_cells_hold_for_every_size_and_the_audit_agrees():
    for group, count in (("batchnorm_scale", 8), ("layernorm", 8), ("batchnorm_affine", 7)):
        cells = [m for m, g in every.claims() if g == group]
        assert len(cells) == count
        for measure in cells:
            verdict = every.every_size_verdict(measure, group)
            assert verdict.status is Status.PROVED, (group, measure, verdict.reason)
        assert check_invariance("adaptive_sharpness", group).verdict.status is Status.PROVED
    # the affine scale moves the output weights: the unsquared relative flatness moves, and the audit refutes it
    moved = every.every_size_verdict("relative_flatness_unsquared", "batchnorm_affine")
    assert moved.status is Status.UNDECIDED and "arithmetic" in moved.reason
    assert check_invariance("relative_flatness_unsquared", "batchnorm_affine").verdict.status is Status.REFUTED
    # the chain in front of the normalization takes c out of the root by the root's rule
    assert "root homogeneity" in [rule.name for rule in every.batch_norm_chain().rules]


def test_with_epsilon_the_scale_does_not_leave_the_root():
    """rsqrt(c²σ² + ε) is not c⁻¹ rsqrt(σ² + ε): the chain for W ↦ cW stops before the root and is
    refused; the audit finds the same group no symmetry, with a counterexample."""
    from symbolic.every_size.normalization import EPSILON, batch_normalized, weight_scale_chain, _prediction
    from symbolic.logic.terms import Function
    from symbolic.every_size.laws import loss_chain
    from symbolic.every_size.networks import in_loss
    from symbolic.every_size.normalization import T_WEIGHT_SCALE
    prediction = _prediction(batch_normalized(EPSILON))
    chain = weight_scale_chain(prediction, "with epsilon")
    assert "root homogeneity" not in [rule.name for rule in chain.rules] and chain.end != prediction
    # the steps it took are sound, but they do not end at f: no lemma L(T theta) = L(theta) comes of them
    theorem = prove(loss_chain(chain, "with epsilon"))[1]
    loss = Function("L", in_loss(prediction))
    refused = invariance_lemma(theorem, loss, T_WEIGHT_SCALE)
    assert refused.validity().status is Status.UNDECIDED
    assert check_invariance("adaptive_sharpness", "batchnorm_scale_eps").not_applicable


def test_an_affine_scale_that_keeps_the_output_weights_is_refused_and_moves_f():
    from symbolic.trusted.axioms.index_rules import RECIPROCAL_ROOT
    from symbolic.logic.terms import expand
    from symbolic.every_size.normalization import GAIN, OUTPUT, SCALE, SHIFT, WEIGHT, affine_batch_norm_prediction
    from symbolic.checks import check_identity
    kept = Transformation("T_c", ((WEIGHT, WEIGHT), (GAIN, Mul((Const(SCALE), GAIN))),
                                  (SHIFT, Mul((Const(SCALE), SHIFT))), (OUTPUT, OUTPUT)))
    before, after = kept.apply(affine_batch_norm_prediction()), affine_batch_norm_prediction()
    chain = every.Chain("kept v", before).then(every.ARITHMETIC, after)
    assert prove(chain)[0].status is Status.UNDECIDED
    sizes, functions = {"d": 1, "h": 1, "N": 2}, {RECIPROCAL_ROOT: lambda s: 1 / sp.sqrt(s)}
    values = {"n": 1}
    from symbolic.every_size.networks import N
    from symbolic.every_size.normalization import EPSILON
    at = {N: 2, EPSILON: 0, SCALE: 2}
    moved = check_identity(expand(before, sizes, values, dict(functions)).xreplace(at),
                           expand(after, sizes, values, dict(functions)).xreplace(at))
    assert moved.status is Status.REFUTED and moved.witness


def test_a_scale_not_known_to_be_positive_does_not_leave_the_root():
    from symbolic.trusted.axioms.index_rules import RECIPROCAL_ROOT, ROOT_HOMOGENEITY
    from symbolic.logic.terms import Fn
    r, s = sp.Symbol("r", real=True), Entry("s", ())
    before = Fn(RECIPROCAL_ROOT, (Mul((Const(r ** 2), s)),))
    assert ROOT_HOMOGENEITY.justify(before, Mul((Const(1 / r), Fn(RECIPROCAL_ROOT, (s,))))) is not None


def test_the_unit_entries_read_the_audits_batch_normalized_unit():
    from symbolic.networks.symmetry_groups import GROUPS
    model = GROUPS["batchnorm_affine"].families[0].model
    entries = [every._unit_entry(str(p), model) for p in model.parameters]
    assert [e.family for e in entries] == ["W", "W", r"\gamma", r"\beta", "v"]
    assert all(e.indices[-1] == "1" for e in entries)
    with pytest.raises(ValueError):
        every._unit_entry("theta", model)


# --- a product over the layers ----------------------------------------------------------------------------

def test_the_product_of_layer_norms_holds_for_every_depth():
    """∏_p ‖θ^{(p)}‖_F under the deep layer-wise map: the scales leave the product over the layers,
    their product is P_{K-1} by induction, and α_K = 1/P_{K-1}; per neuron the same measure is refused."""
    verdict = every.every_size_verdict("layer_norm_product", "deep_layerwise_bias")
    assert verdict.status is Status.PROVED and "every depth" in verdict.claim
    induction_verdict, theorem = every.layer_scales_product()
    assert induction_verdict.status is Status.PROVED and "induction on k" in induction_verdict.evidence[0]
    assert check_invariance("layer_norm_product", "deep_layerwise_bias").verdict.status is Status.PROVED


def test_the_rules_of_a_product_over_the_layers_refuse_wrong_uses():
    from symbolic.trusted.axioms.index_rules import LAST_FACTOR, SCALARS_OUT_OF_PRODUCT
    from symbolic.logic.terms import LayerProduct
    p = sp.Symbol("p", integer=True)
    alpha = Const(sp.IndexedBase(r"\alpha", positive=True)[p])
    body = Entry(r"\theta^{(p)}", ())
    # the last factor is the body at the last layer, not at another
    peeled = Mul((LayerProduct("p", "k", body), Entry(r"\theta^{(k+1)}", ())))
    assert LAST_FACTOR.justify(LayerProduct("p", "k+1", body), peeled) is None
    assert LAST_FACTOR.justify(LayerProduct("p", "k+1", body),
                               Mul((LayerProduct("p", "k", body), Entry(r"\theta^{(k)}", ())))) is not None
    assert LAST_FACTOR.justify(LayerProduct("p", "0", body), Const(sp.S.Zero)) is not None
    # only a last layer known to be at least 1 is peeled: not K (it may be 0), not -1
    for last in ("K", "-1", "K-1"):
        before = LayerProduct("p", last, body)
        assert "at least 1" in LAST_FACTOR.justify(before, Mul((LayerProduct("p", "q", body), body)))
    # a scalar that depends on p leaves the product only as a product of its own
    scaled = LayerProduct("p", "K", Mul((alpha, body)))
    assert SCALARS_OUT_OF_PRODUCT.justify(scaled, Mul((LayerProduct("p", "K", alpha), LayerProduct("p", "K", body)))) is None
    assert SCALARS_OUT_OF_PRODUCT.justify(scaled, Mul((alpha, LayerProduct("p", "K", body)))) is not None
    assert LAST_FACTOR.validity().status is Status.PROVED
    # the product of the scales with a wrong definition: P_(k+1) = P_k alpha_k would not give the step
    from symbolic.kernel.derivations import Chain, prove
    from symbolic.every_size.networks import A, LAYER, P
    step = Chain("wrong", Mul((Const(P[LAYER]), Const(A[LAYER])))).then(every.P_NEXT, Const(P[LAYER + 1]))
    assert prove(step)[0].status is Status.UNDECIDED


def test_the_path_norms_of_the_deep_network_hold_for_every_depth():
    from symbolic.every_size.paths import ABSOLUTE_PATHS, SQUARED_PATHS
    for paths in (SQUARED_PATHS, ABSOLUTE_PATHS):
        verdict, theorem = paths.theorem
        assert verdict.status is Status.PROVED and "induction on k" in verdict.evidence[0]
    for measure in ("path_norm", "path_norm_l1"):
        verdict = every.every_size_verdict(measure, "deep_layerwise_bias")
        assert verdict.status is Status.PROVED and "every depth" in verdict.claim
        assert check_invariance(measure, "deep_layerwise_bias").verdict.status is Status.PROVED


def test_a_path_sum_without_the_bias_paths_is_not_the_audits_measure():
    """The cross-check expands the sums over the paths by their definitions at the family's depth: a
    recursion that forgets the paths a bias starts is refuted there."""
    from symbolic.every_size import paths
    original = paths.DeepPaths.through
    try:
        paths.DeepPaths.through = lambda self, k, at_T, inner="i": original(self, k, at_T, inner).terms[0]
        checks = every.same_measure(MEASURES["path_norm_l1"], every.EVERY_SIZE["deep_layerwise_bias"])
    finally:
        paths.DeepPaths.through = original
    assert all(v.status is Status.REFUTED for v in checks)


def test_a_path_recursion_with_the_wrong_degree_is_refused():
    """|u| is homogeneous of degree 1: claiming that the sums at T theta are P_k^2 times those at theta
    fails the induction step."""
    from symbolic.logic.terms import Activation
    from symbolic.every_size.paths import DeepPaths
    wrong = DeepPaths(r"\kappa", lambda u: Activation("abs", None, u), 2)
    verdict, theorem = wrong.theorem
    assert verdict.status is Status.UNDECIDED and theorem is None


# --- the product of the layers' spectral norms ------------------------------------------------------------

def test_spectral_norm_cells_hold_for_every_size_and_the_audit_agrees():
    rules = {"layerwise": {"spectral norm homogeneity", "arithmetic"},
             "sign_flip": {"spectral norm of a sign", "spectral norm homogeneity", "arithmetic"},
             "permutation": {"spectral norm of a permutation"},
             "deep_layerwise_bias": {"spectral norm homogeneity", "arithmetic", "scalars out of a product",
                                     "prod_(p<K) alpha_p = P_(K-1)",
                                     "hypothesis prod_k alpha_k = 1, as alpha_K = 1/P_(K-1)"}}
    for group, used in rules.items():
        assert ("spectral_norm_product", group) in every.claims()
        verdict = every.every_size_verdict("spectral_norm_product", group)
        assert verdict.status is Status.PROVED, (group, verdict.reason)
        listed = next(line for line in verdict.evidence if line.startswith("rules used: "))
        assert sorted(listed.removeprefix("rules used: ").split(", ")) == sorted(", ".join(used).split(", "))
        assert any("the index-level measure is the audit's" in line for line in verdict.evidence)
        assert check_invariance("spectral_norm_product", group).verdict.status is Status.PROVED


def test_a_scale_per_column_does_not_leave_a_spectral_norm():
    """c_j W_ij: the scale is not one scale of the matrix; the chain is refused at the first spectral
    norm, and the audit refutes the cell on a concrete network."""
    verdict = every.every_size_verdict("spectral_norm_product", "per_neuron")
    assert verdict.status is Status.UNDECIDED
    assert "step 1 (spectral norm homogeneity) refused" in verdict.reason and "bound index j" in verdict.reason
    assert check_invariance("spectral_norm_product", "per_neuron").verdict.status is Status.REFUTED


def test_the_spectral_norm_rules_refuse_what_their_conditions_exclude():
    from symbolic.trusted.axioms.norm_rules import SPECTRAL_NORM_HOMOGENEITY, SPECTRAL_NORM_OF_A_PERMUTATION, \
        SPECTRAL_NORM_OF_A_SIGN
    from symbolic.logic.terms import SpectralNorm, permuted
    i, j = sp.Symbol("i", integer=True), sp.Symbol("j", integer=True)
    e, c = sp.IndexedBase("e", integer=True), sp.IndexedBase("c", positive=True)
    W, v = Entry("W", ("i", "j")), Entry("v", ("j",))

    def norm(body, columns=("j", "h")):
        return SpectralNorm(body, ("i", "d"), columns)

    def scaled(factor, body=W, columns=("j", "h")):
        return norm(Mul((Const(factor), body)), columns)
    alpha = sp.Symbol("alpha", positive=True)
    # a positive scale free of i and j leaves; one not known positive, or one of a column, does not
    assert SPECTRAL_NORM_HOMOGENEITY.justify(scaled(alpha), Mul((Const(alpha), norm(W)))) is None
    assert SPECTRAL_NORM_HOMOGENEITY.justify(Mul((Const(alpha), norm(W))), scaled(alpha)) is None     # either way
    for factor, words in ((sp.Symbol("r", real=True), "positive"), (-alpha, "positive"), (c[j], "bound index j"),
                          (c[i], "bound index i")):
        assert words in SPECTRAL_NORM_HOMOGENEITY.justify(scaled(factor), Mul((Const(factor), norm(W))))
    # the scale c_k of an outer index k is one scale of the matrix
    outer = c[sp.Symbol("k", integer=True)]
    assert SPECTRAL_NORM_HOMOGENEITY.justify(scaled(outer), Mul((Const(outer), norm(W)))) is None
    # a sign of the rows or of the columns drops; a sign of both, or a scale that is not a sign, does not
    for sign in ((-1) ** e[j], (-1) ** e[i], sp.S.NegativeOne):
        assert SPECTRAL_NORM_OF_A_SIGN.justify(scaled(sign), norm(W)) is None
    assert "both bound indices" in SPECTRAL_NORM_OF_A_SIGN.justify(scaled((-1) ** (e[i] + e[j])), norm(W))
    assert "square is 1" in SPECTRAL_NORM_OF_A_SIGN.justify(scaled(sp.Integer(2)), norm(W))
    # a permutation of the range of j, or of i, drops; of another range, or with j also unpermuted, not
    assert SPECTRAL_NORM_OF_A_PERMUTATION.justify(norm(Entry("W", ("i", permuted("h", "j")))), norm(W)) is None
    assert SPECTRAL_NORM_OF_A_PERMUTATION.justify(norm(Entry("W", (permuted("d", "i"), "j"))), norm(W)) is None
    assert SPECTRAL_NORM_OF_A_PERMUTATION.justify(SpectralNorm(Entry("v", (permuted("h", "j"),)), ("j", "h")),
                                                  SpectralNorm(v, ("j", "h"))) is None
    assert SPECTRAL_NORM_OF_A_PERMUTATION.justify(norm(Entry("W", ("i", permuted("d", "j")))), norm(W)) is not None
    mixed = Mul((Entry("W", ("i", permuted("h", "j"))), v))
    assert SPECTRAL_NORM_OF_A_PERMUTATION.justify(norm(mixed), norm(Mul((W, v)))) is not None
    assert SPECTRAL_NORM_OF_A_PERMUTATION.justify(norm(W), SpectralNorm(W, ("i", "d"), ("j", "d"))) is not None
    for rule in (SPECTRAL_NORM_HOMOGENEITY, SPECTRAL_NORM_OF_A_SIGN, SPECTRAL_NORM_OF_A_PERMUTATION):
        assert rule.validity().status is Status.PROVED, rule.name


def test_a_spectral_norm_binds_its_indices():
    from symbolic.trusted.axioms.index_rules import SUM_FACTOR
    from symbolic.logic.terms import SpectralNorm, Sum, bound_indices, expand, free_indices, \
        substitute_index
    W = Entry("W", ("i", "j"))
    norm = SpectralNorm(Mul((Entry("x", ("k",)), W)), ("i", "d"), ("j", "h"))
    assert free_indices(norm) == {"k"} and bound_indices(norm) == {"i", "j"}
    assert substitute_index(norm, "j", "l") == norm
    # the norm does not depend on an outer j: it leaves Σ_j; a norm whose entries read the outer k does not leave Σ_k
    outer = Sum("j", "h", Mul((norm, Entry("u", ("j",)))))
    assert SUM_FACTOR.justify(outer, Mul((norm, Sum("j", "h", Entry("u", ("j",)))))) is None
    inner = Sum("k", "h", Mul((norm, Entry("u", ("k",)))))
    assert "summation index k" in SUM_FACTOR.justify(inner, Mul((norm, Sum("k", "h", Entry("u", ("k",))))))
    with pytest.raises(ValueError):
        SpectralNorm(W, ("i", "d"), ("i", "h"))
    # at concrete sizes: the largest singular value, here of diag(3, 4) (a 2x2 Gram) and of a vector
    value = expand(SpectralNorm(W, ("i", "d"), ("j", "h")), {"d": 2, "h": 2})
    diagonal = {sp.Symbol("W_1_1", real=True): 3, sp.Symbol("W_2_2", real=True): 4,
                sp.Symbol("W_1_2", real=True): 0, sp.Symbol("W_2_1", real=True): 0}
    assert value.xreplace(diagonal) == 4
    vector = expand(SpectralNorm(Entry("v", ("j",)), ("j", "h")), {"h": 2})
    assert vector.xreplace({sp.Symbol("v_1", real=True): 3, sp.Symbol("v_2", real=True): 4}) == 5


def test_the_spectral_cross_check_compares_the_largest_eigenvalue():
    """The term's value must be the largest eigenvalue of the audit's matrix: a term without the
    output layer, or the smaller eigenvalue, is not certified."""
    layerwise = copy.copy(every.EVERY_SIZE["layerwise"])
    checks = every.same_measure(MEASURES["spectral_norm_product"], layerwise)
    assert checks and all(v.status is Status.PROVED for v in checks)
    layerwise.network = measure_forms.IndexNetwork(measure_forms.ONE_LAYER_FAMILIES, measure_forms.ONE_LAYER.output,
                                                 layers=measure_forms.ONE_LAYER_FAMILIES[:1])
    assert any(v.status is not Status.PROVED for v in every.same_measure(MEASURES["spectral_norm_product"], layerwise))
    from symbolic.measures.definitions import Spectrum
    p, q, r = sp.symbols("p q r", real=True)
    matrix = sp.Matrix([[p ** 2 + q ** 2, q * r], [q * r, r ** 2]])
    disc = sp.sqrt((matrix[0, 0] - matrix[1, 1]) ** 2 + 4 * matrix[0, 1] ** 2)
    spectrum = Spectrum(matrix, "spectral_norm")
    assert every.largest_eigenvalue("larger", (matrix.trace() + disc) / 2, spectrum).status is Status.PROVED
    assert every.largest_eigenvalue("smaller", (matrix.trace() - disc) / 2, spectrum).status is Status.UNDECIDED
    assert every.largest_eigenvalue("not a root", matrix.trace(), spectrum).status is Status.UNDECIDED


def test_the_spectral_cross_check_of_a_kronecker_product_needs_each_factors_largest_eigenvalue():
    """On a deep network the audit's matrix is G_1 ⊗ G_2 (4×4): the product of the factors' largest
    eigenvalues is certified; the smaller eigenvalue of one factor, the product of the traces, or
    factors in the wrong order are not."""
    from symbolic.logic.terms import largest_gram_eigenvalue
    from symbolic.measures.definitions import Spectrum
    a, b, c, d, e, f = sp.symbols("a b c d e f", real=True)
    first = sp.Matrix([[a ** 2 + b ** 2, a * c + b * d], [a * c + b * d, c ** 2 + d ** 2]])
    second = sp.Matrix([[e ** 2, e * f], [e * f, f ** 2 + 1]])
    spectrum = Spectrum(sp.kronecker_product(first, second), "spectral_norm", factors=(first, second))
    largest = largest_gram_eigenvalue(first) * largest_gram_eigenvalue(second)
    assert every.largest_eigenvalue("largest", largest, spectrum).status is Status.PROVED
    smaller = (first.trace() - sp.sqrt((first[0, 0] - first[1, 1]) ** 2 + 4 * first[0, 1] ** 2)) / 2
    assert every.largest_eigenvalue("smaller", smaller * largest_gram_eigenvalue(second),
                                    spectrum).status is not Status.PROVED
    assert every.largest_eigenvalue("traces", first.trace() * second.trace(), spectrum).status is not Status.PROVED
    swapped = Spectrum(spectrum.matrix, "spectral_norm", factors=(second, first))
    assert every.largest_eigenvalue("swapped", largest, swapped).status is not Status.PROVED


def test_a_lemma_variable_is_not_renamed_under_a_binder_of_the_same_name():
    """x_j·Σ_j W_ij with j free and bound: renaming the free j to l leaves the bound j alone, so
    x_l·Σ_j W_il is not an instance; alike under a spectral norm that binds j."""
    from symbolic.logic.terms import SpectralNorm, Sum
    from symbolic.kernel.derivations import _match
    x_j, x_l = Entry("x", ("j",)), Entry("x", ("l",))
    W_ij, W_il = Entry("W", ("i", "j")), Entry("W", ("i", "l"))
    for binder in (lambda body: Sum("j", "h", body), lambda body: SpectralNorm(body, ("i", "d"), ("j", "h"))):
        pattern = Mul((x_j, binder(W_ij)))
        assert _match(pattern, Mul((x_l, binder(W_ij))), {"j"}, {})
        assert not _match(pattern, Mul((x_l, binder(W_il))), {"j"}, {})
