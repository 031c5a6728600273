"""Index-level derivations: every size at once, rules that can fail, and refused false claims."""
import dataclasses
import json
import shutil

import pytest
import sympy as sp

from proofs import all_sizes
from symbolic import Status, Verdict
from symbolic.trusted.axioms.index_rules import HOMOGENEITY, SUM_FACTOR, by_induction, relu_homogeneity_verdict
from symbolic.kernel.derivations import Chain
from symbolic.logic.terms import Const, Entry, Mul, Relu, Sum, difference, expand
from symbolic.every_size.networks import one_layer_map
from symbolic.kernel.derivations import axiom
from symbolic.latex import compile_pdf, overfull_boxes


@pytest.fixture(scope="module")
def report():
    return all_sizes.run([(1, 1, 1), (2, 1, 2)])


def test_every_row_is_proved_for_all_sizes_with_its_rules(report):
    rows = [row.as_json() for row in report.results]
    assert all(row["status"] == "proved" for row in rows)
    # the closed forms are checked at instances; every other row holds for all sizes
    instances = [row for row in rows if row["claim"] == "MSE closed forms of the gradient and the Hessian blocks"]
    assert [(row["d"], row["h"], row["n"]) for row in instances] == [(1, 1, 1), (2, 1, 2)]
    rows = [row for row in rows if row not in instances]
    assert all(row["sizes"] == "all" and row["d"] == "all" for row in rows)
    claims = " | ".join(row["claim"] for row in rows)
    for result in ("Theorem 1", "Theorem 3: gradient", "Theorem 3: Hessian", "per-neuron", "multi-layer",
                   "per-neuron multi-layer with biases congruence"):
        assert result in claims
    theorem3 = next(row for row in rows if row["claim"].startswith("Theorem 3: Hessian"))
    assert {"chain rule", "constant factor", "L o T = L", "arithmetic"} <= set(theorem3["rules"])


def test_command_line_json_says_all(cli):
    result = cli("all_sizes", "--json")
    assert result.returncode == 0, result.stderr
    rows = [row for row in json.loads(result.stdout) if "sizes" in row]
    assert len(rows) >= 10 and all(row["sizes"] == "all" and row["status"] == "proved" for row in rows)
    assert any("rules" in row and "ReLU homogeneity" in row["rules"] for row in rows)


def test_a_rule_without_its_side_condition_is_invalid_and_the_derivation_refused(monkeypatch):
    # homogeneity for every scalar c, not only c > 0: the rule's own check must fail
    weakened = dataclasses.replace(
        HOMOGENEITY,
        justify=lambda before, after: None if isinstance(before, Relu) or isinstance(after, Relu) else "no",
        validity=lambda: relu_homogeneity_verdict(sp.Symbol("c", real=True)))
    assert weakened.validity().status is not Status.PROVED
    # the kernel takes no axiom whose code lives outside the rule modules, and no rule that is
    # neither an axiom nor a lemma
    with pytest.raises(ValueError, match="an axiom's code"):
        axiom(weakened)
    from symbolic.every_size import alpha_scale         # where the chain of Theorem 1 is built
    monkeypatch.setattr(alpha_scale, "HOMOGENEITY", weakened)
    negative = sp.Symbol("alpha", negative=True)
    verdict = all_sizes.invariance_chain("alpha < 0", one_layer_map("T", Const(negative), Const(1 / negative))).check()
    assert verdict.status is Status.UNDECIDED and "neither an axiom nor a lemma" in verdict.reason


def test_a_false_sum_rule_fails_its_induction_and_the_derivation_is_refused():
    # Σ_i c a_i = Σ_i a_i (c dropped): the induction step is not an identity
    i, m = sp.Symbol("i", integer=True), sp.Symbol("m", integer=True, nonnegative=True)
    a, c = sp.IndexedBase("a"), sp.Symbol("c", real=True)
    false_equation = lambda top: (sp.Sum(c * a[i], (i, 1, top)), sp.Sum(a[i], (i, 1, top)))  # noqa: E731
    assert not by_induction(false_equation, i, m)
    assert by_induction(lambda top: (sp.Sum(c * a[i], (i, 1, top)), c * sp.Sum(a[i], (i, 1, top))), i, m)
    dropped = dataclasses.replace(
        SUM_FACTOR,
        justify=lambda before, after: None if isinstance(before, Sum) and isinstance(before.body, Mul)
        and after == Sum(before.index, before.size, before.body.factors[1]) else "not an instance",
        validity=lambda: Verdict(Status.PROVED if by_induction(false_equation, i, m) else Status.UNDECIDED,
                                 "sum rule without c", reason="induction step not an exact zero"))
    x_w = Mul((Entry("x", ("n", "i")), Entry("W", ("i", "j"))))
    chain = Chain("drop alpha", Sum("i", "d", Mul((Const(all_sizes.ALPHA), x_w)))).then(dropped, Sum("i", "d", x_w))
    verdict = chain.check()
    assert verdict.status is Status.UNDECIDED and "neither an axiom nor a lemma" in verdict.reason


def test_a_tampered_step_is_refused_at_its_number():
    chain = all_sizes.theorem1_chain()
    rule, term, note = chain.steps[3]
    tampered = Chain(chain.claim, chain.start, chain.steps[:3] + [(rule, Sum("j", "h", Relu(Entry("v", ("j",)))), note)])
    verdict = tampered.check()
    assert verdict.status is Status.UNDECIDED and verdict.details["refused_step"] == 4


@pytest.mark.parametrize("name, step, rule", [
    ("v scaled by alpha", 4, "arithmetic"), ("alpha < 0", 3, "ReLU homogeneity"),
    ("hidden bias", 3, "arithmetic"), ("Hessian law with S^-1", 10, "arithmetic")])
def test_negative_controls_fail_at_a_named_step_and_are_refuted(name, step, rule):
    controls = {claim: (derived, instance) for claim, derived, instance in all_sizes.negative_controls()}
    derived, instance = next(value for claim, value in controls.items() if claim.startswith(name))
    assert derived.status is Status.UNDECIDED
    assert (derived.details["refused_step"], derived.details["rule"]) == (step, rule)
    assert instance.status is Status.REFUTED and instance.witness


def test_the_refuting_witness_of_v_scaled_by_alpha_differs_exactly():
    chain = all_sizes.invariance_chain("v scaled", one_layer_map("T", Const(all_sizes.ALPHA), Const(all_sizes.ALPHA)))
    instance = all_sizes.instance_check(chain, [(2, 2, 1)], all_sizes.prediction())[0]
    left = expand(chain.start, {"d": 2, "h": 2}, {"n": 1})
    right = expand(all_sizes.prediction(), {"d": 2, "h": 2}, {"n": 1})
    assert instance.status is Status.REFUTED
    assert (left - right).xreplace(instance.witness) != 0


def test_every_rule_is_valid():
    for rule in all_sizes.RULES:
        assert rule.validity().status is Status.PROVED, rule.name


def test_difference_finds_the_innermost_change():
    before = Sum("j", "h", Mul((Relu(Entry("s", ("j",))), Entry("v", ("j",)))))
    after = Sum("j", "h", Mul((Relu(Entry("t", ("j",))), Entry("v", ("j",)))))
    paths = [path for path, _, _ in difference(before, after)]
    assert paths == [(0, 0, 0), (0, 0), (0,), ()]


def test_overfull_lines_are_found_in_a_real_log(tmp_path):
    if shutil.which("pdflatex") is None:
        pytest.skip("pdflatex is not installed")
    tex = tmp_path / "wide.tex"
    tex.write_text(r"\documentclass{article}\begin{document}$$" + "x + " * 120 + r"x$$\end{document}")
    ok, _ = compile_pdf(str(tex))
    assert ok and overfull_boxes((tmp_path / "wide.log").read_text(errors="replace"))
    assert overfull_boxes("Overfull \\hbox (0.9pt too wide) in paragraph") == []


def test_mse_closed_forms_match_the_instances_and_a_wrong_one_does_not(monkeypatch):
    assert all_sizes.mse_instance_check(2, 2, 1).status is Status.PROVED
    name, form, coordinates, factor = all_sizes.MSE_FORMS[1]
    halved = lambda forms: Mul((Const(sp.Rational(1, 2)), form(forms)))  # noqa: E731
    monkeypatch.setattr(all_sizes, "MSE_FORMS", (all_sizes.MSE_FORMS[0], (name, halved, coordinates, factor)))
    verdict = all_sizes.mse_instance_check(1, 1, 1)
    # the derivative as written against the wrong form: refuted at a point, the entry named
    assert verdict.status is Status.REFUTED and "dL/dv_l" in verdict.reason and verdict.witness


def test_mse_laws_hold_for_every_size_and_a_wrong_factor_is_refused():
    for name, form, _, factor in all_sizes.MSE_FORMS:
        assert all_sizes.mse_law_chain(name, form, factor).check().status is Status.PROVED, name
    name, form, _, factor = all_sizes.MSE_FORMS[0]
    verdict = all_sizes.mse_law_chain(name, form, all_sizes.ALPHA).check()
    assert verdict.status is Status.UNDECIDED and verdict.details["rule"] == "arithmetic"


def test_closed_forms_are_derived_and_a_wrong_index_range_is_refused(monkeypatch):
    for name in all_sizes.MSE_DERIVATIONS:
        verdict = all_sizes.mse_derivation(name).check()
        assert verdict.status is Status.PROVED, name
        assert {"delta contraction", "product rule", "derivative of a sum"} <= set(verdict.details["rules"])
    # the contraction needs l to run over the summation range 1..h
    monkeypatch.setattr(all_sizes, "CONTRACTION", all_sizes.delta_contraction({"k": "d", "l": "d"}))
    verdict = all_sizes.mse_derivation("dL/dv_l").check()
    assert verdict.status is Status.UNDECIDED and verdict.details["rule"] == "delta contraction"
    assert "does not run over" in verdict.reason


@pytest.mark.parametrize("network", [all_sizes.DEEP_NEURON, all_sizes.DEEP_NEURON_BIAS], ids=["no bias", "biases"])
def test_per_neuron_layers_by_induction_then_f_and_the_loss(network):
    verdict, theorem = all_sizes.layers_theorem(network)
    assert verdict.status is Status.PROVED and theorem is not None
    assert {"induction hypothesis", "sum factor", "ReLU homogeneity", "hypothesis c^(0)_j = 1"} <= set(verdict.details["rules"])
    assert all_sizes.deep_loss(network)[0].status is Status.PROVED
    # the law of an output weight reads its scale 1/c_{K-1,i} from T
    output_weight = Entry(r"\theta^{(K)}", ("i",))
    assert network.T.scale(output_weight) == Const(1 / all_sizes.DEEP_NEURON.unit_scale(sp.Symbol("K", integer=True) - 1, "i").expr)


def test_per_neuron_weights_not_divided_by_the_incoming_scale_are_refused_and_refuted():
    undivided = all_sizes.PerNeuronDeepNetwork("o", bias=False, divide_incoming=False)
    verdict, theorem = all_sizes.layers_theorem(undivided)
    assert theorem is None and verdict.status is Status.UNDECIDED
    assert "step 4 (sum factor)" in verdict.reason and "depends on the summation index i" in verdict.reason
    # on a concrete network of depth 3: refuted, and the witness makes the two sides differ exactly
    instance = all_sizes.per_neuron_deep_prediction((2, 2, 2, 1), bias=False, divide_incoming=False)
    assert instance.status is Status.REFUTED and instance.witness
    model, images = all_sizes.per_neuron_deep_model((2, 2, 2, 1), bias=False, divide_incoming=False)
    witness = {str(name): value for name, value in instance.witness.items()}
    left, right = model.prediction(values=images), model.prediction()
    point = {symbol: sp.sympify(witness[str(symbol)]) for symbol in left.free_symbols | right.free_symbols}
    assert left.xreplace(point) - right.xreplace(point) != 0 and not (left - right).xreplace(point).free_symbols
