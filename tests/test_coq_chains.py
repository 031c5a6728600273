"""The kernel's chains exported to Coq: a chain the kernel proved is re-checked step by step, false
steps forced through the exporter are refuted at their step, what has no Coq counterpart is named,
and the rows of a run say what Coq answered."""
import json

import pytest
import sympy as sp

from proofs import all_sizes
from symbolic import ReLU
from symbolic.coq import library, recording
from symbolic.coq.chains import CHECKED, NotExported, check_exports, export_chain
from symbolic.trusted.axioms.index_rules import ARITHMETIC, BOUND_RENAMING, CHAIN_RULE, HOMOGENEITY, \
    SUM_INTERCHANGE
from symbolic.every_size import alpha_scale
from symbolic.every_size.laws import derivative_chain, invariance_lemma
from symbolic.every_size.networks import LOSS_FUNCTION, T_ALPHA
from symbolic.logic.terms import Const, Deriv, Entry, Eval, Function, Mul, Relu, Sum, Transformation
from symbolic.kernel.chains import Chain, Rule, proof_of

needs_coq = pytest.mark.skipif(library.coqc() is None,
                               reason="coqc is not installed (Debian: apt-get install coq); no chain can be "
                                      "checked here")


x, a = sp.Symbol("x", real=True), sp.Symbol("a", positive=True)


def kernel_chain(verdict):
    """The chain the kernel checked for the index-level equation a PROVED verdict states."""
    (how,) = [proof_of(part) for part in verdict.statement.parts() if proof_of(part) is not None]
    assert how[0] == "chain"
    return how[1]


def forged(name: str) -> Rule:
    """A rule named like one of the kernel's that accepts every step: the exporter must not trust it."""
    return Rule(name, "", lambda before, after: None, lambda: None)


def test_a_chain_prints_one_lemma_per_step_and_their_composition():
    chain = kernel_chain(all_sizes.theorem1_loss()[0])
    export = export_chain(chain, "theorem1_loss")
    assert export.steps == len(chain.steps) >= 3
    assert export.text.count("  Lemma theorem1_loss_step") == export.steps
    assert "Hypothesis H_theorem1_loss_0 : 0 < alpha." in export.text
    # every size: the widths and the number of examples are Coq variables, and the sums run over them
    assert "Variable d : nat." in export.text and "(sum d (fun i : nat =>" in export.text
    assert "exact (eq_trans theorem1_loss_step1" in export.text


@needs_coq
def test_the_kernel_chains_of_theorem_1_are_checked_by_coq():
    chains = [kernel_chain(all_sizes.theorem1_prediction()[0]), kernel_chain(all_sizes.theorem1_loss()[0]),
              kernel_chain(all_sizes.per_neuron_loss()[0])]
    result = check_exports([export_chain(chain, f"chain{k}") for k, chain in enumerate(chains)])
    assert list(result.answers.values()) == [CHECKED] * 3
    assert result.calls == 1 and result.cpu_seconds > 0


@needs_coq
def test_false_steps_forced_through_the_exporter_are_refuted_at_their_step():
    x, w = Entry("x", ("i",)), Entry("w", ("i",))
    real, alpha = sp.Symbol("r", real=True), sp.Symbol("alpha", positive=True)
    inner = Sum("i", "d", Mul((x, w)))
    # ReLU(r s) = r ReLU(s) for a real r, not known positive: false for r < 0
    relu_step = Chain("relu of a real scale", Relu(Mul((Const(real), inner))))
    relu_step.then(forged(HOMOGENEITY.name), Mul((Const(real), Relu(inner))))
    # a true first step, then 2 s = 3 s "by arithmetic"
    arithmetic = Chain("two is three", Mul((Const(alpha), Const(1 / alpha), inner)))
    arithmetic.then(forged(ARITHMETIC.name), inner).then(forged(ARITHMETIC.name), Mul((Const(sp.Integer(2)), inner)))
    true = Chain("alpha over alpha", Mul((Const(alpha), Const(1 / alpha), inner))).then(ARITHMETIC, inner)
    result = check_exports([export_chain(relu_step, "relu_step"), export_chain(arithmetic, "arithmetic"),
                            export_chain(true, "true")])
    # each proof fails, and Coq proves the step false at an instance (every size 1, constant families)
    assert result.answers["relu_step"].startswith("refuted at step 1 (Coq proves the sides differ at every size 1")
    assert result.answers["arithmetic"].startswith("refuted at step 2")
    assert result.answers["true"] == CHECKED


def test_what_has_no_coq_counterpart_is_named():
    loss = Function("L", Entry("U", ("i", "j", "k")))
    partial = Eval(loss, (Entry("U", ("i", "j", "k")),), "theta")
    evaluated = Chain("a derivative along a three-index coordinate", partial).then(ARITHMETIC, partial)
    with pytest.raises(NotExported, match="a derivative along a coordinate with 3 indices"):
        export_chain(evaluated, "evaluation")
    relu = Relu(Entry("s", ()))
    unknown = Chain("a rule Coq has no lemma for", relu).then(forged("some rule"), Mul((Const(sp.Integer(1)), relu)))
    with pytest.raises(NotExported, match="the rule some rule"):
        export_chain(unknown, "unknown")


@needs_coq
def test_the_every_size_rows_carry_the_coq_statements_they_were_checked_against_none_refuted(cli, tmp_path):
    rows = []
    for result in ("all_sizes", "measures_all_sizes"):
        done = cli(result, "--certify", "coq", "--json", *(("--latex", str(tmp_path)) if result == "all_sizes" else ()))
        assert done.returncode == 0, done.stderr
        assert " 0 refuted" in done.stderr and "kernel chains:" in done.stderr
        rows += json.loads(done.stdout)
    answers = [row.get("coq", {}).get("status") for row in rows]
    assert not [a for a in answers if a and a.startswith("refuted")]
    checked = [row for row in rows if row.get("coq", {}).get("status") == CHECKED]
    assert len(checked) >= 60, answers
    # each checked row names its Coq theorems and carries their statements as Coq printed them
    for row in checked:
        assert row["coq"]["theorem"] and row["coq"]["statement"], row["claim"]
        assert all(name.startswith(("claim_", "chain_")) for name in row["coq"]["theorem"].split(", "))
    rule = next(row for row in checked if row["claim"].startswith("rule: coordinate derivative"))
    assert "Derive (fun" in rule["coq"]["statement"]
    # the LaTeX document prints each checked row's Coq theorems and statements as the JSON gives them
    document = (tmp_path / "all_sizes.tex").read_text()
    cited = [row for row in checked if row["theorem"] == "all_sizes"]
    assert cited and all(row["coq"]["theorem"].replace("_", "\\_") in document for row in cited)
    assert all(row["coq"]["statement"][:60] in document.replace("\n", " ") for row in cited
               if len(row["coq"]["statement"]) < 80)
    assert document.count("Coq's answer: \\textbf{checked}") >= 15
    # a row whose chain has no Coq counterpart says which term or rule
    assert any(a and a.startswith("not exported: ") for a in answers)
    exported = [row for row in rows if any("exported and re-checked step by step" in e for e in row["evidence"])]
    assert exported and all(row["coq"]["status"] == CHECKED for row in exported)
    # det(P M P^T) = det(P)^2 det(M), checked by the kernel on orders 1 to 3, is proved for every order in Coq
    spectra = [row for row in rows if row["claim"].startswith("metric_hessian_spectrum invariant under layerwise")]
    assert spectra and spectra[0]["sizes"] == "all"
    assert "proved for every size in Coq: Sharp.Matrices.det_congruence" in spectra[0]["evidence"]
    # the spectral-norm rules, checked by the kernel on generic 2x3 and 3x1 matrices, are proved for every size
    spectral = [row for row in rows if any("Sharp.Spectral.spectral_scale" in e for e in row["evidence"])]
    assert spectral and all(row["sizes"] == "all" for row in spectral)
    assert not any(row.get("sizes", "").startswith("all, resting on instance checks of spectral-norm") for row in rows)


@needs_coq
def test_an_evaluation_at_t_theta_is_a_coq_function_applied_to_the_transformed_families():
    # L(T_alpha theta) = L(theta) by the evaluation lemma: L is a Coq function of W and v, applied to
    # their images under T_alpha; the lemma's step is the kernel's own chain of Theorem 1 (b) re-proved
    invariance = invariance_lemma(alpha_scale.theorem1_loss()[1], LOSS_FUNCTION, T_ALPHA)
    at_T, at_theta = Eval(LOSS_FUNCTION, (), T_ALPHA), Eval(LOSS_FUNCTION, (), "theta")
    lemma_step = Chain("L o T = L", at_T).then(invariance, at_theta)
    export = export_chain(lemma_step, "evaluated")
    assert "(fun (W : nat -> nat -> R) (v : nat -> R) =>" in export.text
    assert "(fun a0 a1 : nat => (alpha * (W a0 a1)))" in export.text and "change (" in export.text
    # a negative control: the same step at a map that scales v by alpha as well, forced through the
    # exporter as arithmetic, is not L(theta) (the loss's prediction scales by alpha squared)
    wrong = Transformation("T_wrong", ((Entry("W", ("i", "j")), Mul((Const(a), Entry("W", ("i", "j"))))),
                                       (Entry("v", ("j",)), Mul((Const(a), Entry("v", ("j",)))))))
    forced = Chain("L o T_wrong = L", Eval(LOSS_FUNCTION, (), wrong)).then(forged(ARITHMETIC.name), at_theta)
    checked = check_exports([export, export_chain(forced, "forced")])
    assert checked.answers["evaluated"] == CHECKED
    assert checked.answers["forced"].startswith("refuted at step 1 (Coq proves the sides differ at every size 1")
    # Coq holds it with the point substituted: L's body at alpha W and v / alpha
    assert "x n i * (alpha * W i j)" in checked.statements["evaluated"]


needs_coquelicot = pytest.mark.skipif(library.coqc() is None or not library.coquelicot(),
                                      reason="coqc or Coquelicot is not installed (Debian: libcoq-coquelicot)")


@needs_coquelicot
def test_the_hessian_law_at_t_theta_is_checked_with_derive_and_its_premises_stated():
    # (d_kl d_ij L)(T theta) = alpha^-2 (d_kl d_ij L)(theta): Coquelicot's Derive along a coordinate,
    # the chain rule through s = alpha t with the premise that the partial has a derivative there
    # (near the point under the outer derivative), Theorem 1 (b) re-proved under both derivatives
    invariance = invariance_lemma(alpha_scale.theorem1_loss()[1], LOSS_FUNCTION, T_ALPHA)
    W_ij, W_kl = Entry("W", ("i", "j")), Entry("W", ("k", "l"))
    hessian = derivative_chain([W_ij, W_kl], LOSS_FUNCTION, T_ALPHA, invariance)
    export = export_chain(hessian, "hessian")
    # twice along one coordinate: the family moved along it (upd2 W i j t0) is read inside T's image
    # under the indices' own names, which no lambda over the coordinates captures
    twice = export_chain(derivative_chain([W_ij, W_ij], LOSS_FUNCTION, T_ALPHA, invariance), "twice")
    assert "(fun a0 a1 : nat => (alpha * ((upd2 W i j t0) a0 a1)))" in twice.text
    assert "(Derive (fun t0 : R =>" in export.text and "upd2 W k l t0" in export.text
    assert any(h.startswith("locally (W k l) (fun t0 : R => ex_derive") for h in export.names.hypotheses)
    # a negative control: the chain rule's factor claimed alpha^2 where T_alpha scales W by alpha
    alpha = sp.Symbol("alpha", positive=True)
    wrong = Chain("a wrong chain rule", Deriv(W_ij, Eval(LOSS_FUNCTION, (), T_ALPHA)))
    wrong.then(forged(CHAIN_RULE.name), Mul((Const(alpha ** 2), Eval(LOSS_FUNCTION, (W_ij,), T_ALPHA))))
    checked = check_exports([export, twice, export_chain(wrong, "wrong")])
    assert checked.answers["hessian"] == checked.answers["twice"] == CHECKED
    assert checked.answers["wrong"].startswith("not checked at step 1 (the tactics failed"), checked.answers
    # the statement Coq checked carries the premises: each an ex_derive of the partial at T_alpha theta
    assert checked.statements["hessian"].count("ex_derive") == 2 and "locally" in checked.statements["hessian"]


@needs_coq
def test_two_sums_swapped_an_index_renamed_a_layer_and_a_delta_are_exported_and_checked():
    # the interchange of sums is Chains.sum_swap, a renamed index the same Coq term; a scalar read at a
    # layer K - 1 and a Kronecker delta of two indices are printed as Coq's P (K - 1) and delta r s
    body = Mul((Entry("W", ("i", "j")), Entry("v", ("j",))))
    swapped = Chain("swap", Sum("i", "d", Sum("j", "h", body))).then(SUM_INTERCHANGE, Sum("j", "h", Sum("i", "d", body)))
    swapped.then(BOUND_RENAMING, Sum("l", "h", Sum("i", "d", Mul((Entry("W", ("i", "l")), Entry("v", ("l",)))))))
    layer, r, s = sp.Symbol("K", integer=True), sp.Symbol("r", integer=True), sp.Symbol("s", integer=True)
    scalar = Const(sp.IndexedBase("P", positive=True)[layer - 1] * sp.KroneckerDelta(r, s))
    moved = Chain("layer", Mul((scalar, Entry("v", ("r",))))).then(ARITHMETIC, Mul((Entry("v", ("r",)), scalar)))
    checked = check_exports([export_chain(swapped, "swapped"), export_chain(moved, "moved")])
    assert checked.answers == {"swapped": CHECKED, "moved": CHECKED}
    assert "sum_swap" in export_chain(swapped, "swapped").text
    assert checked.statements["moved"] == ("forall (K r s : nat) (P v : nat -> R), P (K - 1)%nat * delta r s * v r = "
                                           "v r * (P (K - 1)%nat * delta r s)")


@needs_coq
def test_the_coq_pass_answers_the_same_in_turn_side_by_side_and_on_dask():
    from dask import distributed

    from proofs.commands.parallel import coq_mapper
    chains = [kernel_chain(all_sizes.theorem1_loss()[0]), kernel_chain(all_sizes.per_neuron_loss()[0])]
    recorded = {id(chain): (chain, ()) for chain in chains}
    claims = [(ReLU(a * x), a * ReLU(x)), (ReLU(x), x)]

    def answers(mapper):
        batches = list(mapper(recording._certify_batch, [(claims[:1], 5, 0), (claims[1:], 5, 1)]))
        return ([answer.result[:7] for batch in batches for answer in batch.answers],
                list(recording.chain_pass(recorded, mapper).answers.values()))
    in_turn = answers(map)
    assert in_turn == (["checked", "refuted"], [CHECKED, CHECKED])
    assert answers(coq_mapper(2)) == in_turn
    with distributed.LocalCluster(n_workers=1, processes=False, dashboard_address=None) as cluster:
        assert answers(coq_mapper(1, cluster.scheduler_address)) == in_turn
