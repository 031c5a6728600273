"""Derivations: chains whose steps the kernel checks and whose conclusion its rule of transitivity
computes; the derive command; each with its negative controls."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest
import sympy as sp

from symbolic import check_identity
from symbolic.derivations import Derivation, DerivationError, read_derivations
from symbolic.derivations.document import chain_display, chain_json, document
from symbolic.kernel import Relation, Status, transitivity
from symbolic.kernel.transitivity import chained_relation
from symbolic.logic import definedness
from symbolic.parsing import parse_expression

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = os.path.join(ROOT, "docs", "examples")


def _chains(text: str):
    return [chain.check() for chain in read_derivations(text)]


def _run(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "proofs", "derive", *args], capture_output=True, text=True,
                          cwd=ROOT, input=stdin, timeout=300)


# --- the kernel's rule of transitivity -----------------------------------------------------------------

@pytest.mark.parametrize("relations, expected", [
    (["="], "="), (["=", "<="], "<="), (["<=", "<", "="], "<"), ([">=", "="], ">="), ([">", ">="], ">"),
    (["<=", ">="], None), (["=", "!="], None), (["<", ">"], None)])
def test_relations_chain_as_order_relations_do(relations, expected):
    assert chained_relation(relations)[0] == expected


def test_the_conclusion_is_computed_from_the_steps_statements_as_written():
    [checked] = _chains("assume a > 0\n  relu(a*w*x) * (v/a)\n= a*relu(w*x) * (v/a)\n= relu(w*x) * v\n")
    assert checked.status is Status.PROVED
    statement = checked.conclusion.theorem.statement
    a = sp.Symbol("a", positive=True, real=True)
    w, x, v = sp.symbols("w x v", real=True)
    assert statement.lhs == parse_expression("relu(a*w*x) * (v/a)", symbols={"a": a, "w": w, "x": x, "v": v})
    assert statement.rhs == parse_expression("relu(w*x) * v", symbols={"w": w, "x": x, "v": v})
    assert "transitivity" in checked.conclusion.rests_on["rules"]


def test_steps_that_do_not_meet_are_no_chain():
    x = sp.Symbol("x", real=True)
    one = check_identity(x + x, 2 * x)
    other = check_identity(3 * x, x + x + x)
    verdict = transitivity([one, other])
    assert verdict.status is Status.UNDECIDED and "does not start where step 1 ends" in verdict.reason


def test_a_step_that_is_not_a_kernel_theorem_is_refused():
    x = sp.Symbol("x", real=True)
    refuted = check_identity(x + 1, x)
    assert refuted.status is Status.REFUTED
    verdict = transitivity([check_identity(x + x, 2 * x), refuted])
    assert verdict.status is Status.UNDECIDED and "not PROVED" in verdict.reason


def test_an_intermediate_defined_on_less_than_the_ends_gives_no_conclusion():
    # 1 = x/x and x/x = sign(x)^2 hold where their sides are defined; 1 = sign(x)^2 fails at 0
    [checked] = _chains("  1\n= x/x\n= sign(x)^2\n")
    assert [s.status for s in checked.steps] == [Status.PROVED, Status.PROVED]
    assert checked.status is Status.UNDECIDED
    assert "x != 0" in checked.conclusion.reason


def test_a_side_condition_proved_lets_the_chain_conclude():
    # the intermediate divides by a; a > 0 gives a != 0, a theorem of the decided relation
    [checked] = _chains("assume a > 0\n  relu(x)\n= a*relu(x)/a\n= relu(x) + 0\n")
    assert checked.status is Status.PROVED
    assert [c.status for c in checked.side_conditions] == [Status.PROVED]
    assert "decided relation" in checked.conclusion.rests_on["oracles"]


def test_definedness_reads_denominators_roots_and_logs_as_written():
    x, y = sp.symbols("x y", real=True)
    found = definedness.conditions(parse_expression("sqrt(x)/y + log(x + 1)", symbols={"x": x, "y": y}))
    assert (definedness.NONNEGATIVE, x) in found and (definedness.NONZERO, y) in found
    assert any(kind == definedness.POSITIVE for kind, _ in found)


# --- steps: equations, inequalities, every size -------------------------------------------------------

def test_the_first_wrong_step_is_named_with_a_small_witness_and_the_others_still_checked():
    [checked] = _chains("assume a > 0\n  relu(a*x - a)/a\n= relu(x - a)\n= relu(x - a) + 0*x\n")
    assert checked.status is Status.REFUTED
    wrong = checked.first_wrong_step
    assert wrong.number == 1 and wrong.step.line == 3
    assert all(abs(value) <= 2 for value in wrong.verdict.witness.values())
    shown = chain_json(checked)["steps"][0]
    assert shown["lhs_value"] != shown["rhs_value"]
    assert checked.steps[1].status is Status.PROVED
    assert checked.conclusion.status is Status.UNDECIDED


def test_a_reason_that_claims_too_much_is_printed_and_not_trusted():
    [checked] = _chains("  x^2\n>= x      by Theorem 1 of the paper\n")
    assert checked.status is Status.REFUTED
    assert checked.steps[0].step.reason == "by Theorem 1 of the paper".removeprefix("by ")


def test_inequality_chains_conclude_the_strongest_relation_they_give():
    [checked] = _chains("  w^2 + v^2 + 1\n> w^2 + v^2\n>= 2*w*v\n")
    assert checked.status is Status.PROVED
    conclusion = checked.conclusion.theorem.statement
    assert isinstance(conclusion, Relation) and conclusion.relation == ">"


def test_a_refuted_inequality_gives_both_sides_values():
    [checked] = _chains("  relu(x)\n< abs(x)\n")
    step = chain_json(checked)["steps"][0]
    assert step["status"] == "refuted" and step["witness"] == {"x": "0"}
    assert step["lhs_value"] == "0" and step["rhs_value"] == "0"


def test_theorem1_a_for_every_size_is_proved_by_rewrites_of_the_kernel():
    checked = _chains(open(os.path.join(EXAMPLES, "theorem1.deriv"), encoding="utf-8").read())
    every_size = checked[1]
    assert every_size.status is Status.PROVED
    theorem = every_size.conclusion.theorem
    assert theorem.sizes == "all"
    assert {"sum factor", "ReLU homogeneity", "arithmetic"} <= set(theorem.rests_on.rules)


def test_a_false_every_size_step_is_refuted_at_an_instance():
    # ReLU(c s) = c ReLU(s) fails for c < 0
    [checked] = _chains("assume c < 0\n  sum(relu(c*x[i]), i, 1, d)\n= sum(c*relu(x[i]), i, 1, d)\n")
    assert checked.status is Status.REFUTED
    assert "instance" in checked.steps[0].verdict.reason


def test_an_every_size_step_no_rule_takes_is_undecided_never_proved():
    [checked] = _chains("  sum(x[i] + y[i], i, 1, d)\n= sum(y[i] + x[i], i, 1, d) + 0\n= sum(x[i], i, 1, d) + sum(y[i], i, 1, d)\n")
    assert checked.status is not Status.PROVED


# --- the file and the command --------------------------------------------------------------------------

@pytest.mark.parametrize("text, words", [
    ("  x\n<= x + 1\n>= x\n", "not a chain"),
    ("  x\n= (x + \n", "line 2"),
    ("= x\n", "before any expression"),
    ("  x\n", "at least one step"),
    ("assume a >> 0\n  a\n= a\n", "cannot read the assumption"),
])
def test_a_file_that_is_not_a_chain_is_refused_naming_the_line(text, words):
    with pytest.raises(DerivationError, match=words):
        read_derivations(text)


def test_derive_exit_codes_and_json():
    proved = _run(os.path.join(EXAMPLES, "theorem1.deriv"), "--json")
    assert proved.returncode == 0, proved.stderr
    found = json.loads(proved.stdout)
    assert found["status"] == "proved" and len(found["chains"]) == 2
    assert all(step["rests_on"] for chain in found["chains"] for step in chain["steps"])
    refuted = _run(os.path.join(EXAMPLES, "wrong_step.deriv"))
    assert refuted.returncode == 1 and "witness" in refuted.stdout
    bad = _run("-", stdin="  x\n<= x\n>= x\n")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "Traceback" not in bad.stderr
    missing = _run("no such file.deriv")
    assert missing.returncode == 2 and "cannot read" in missing.stderr


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="the LaTeX document is compiled by pdflatex")
def test_the_latex_document_prints_each_expression_from_the_statement_checked(tmp_path):
    out = tmp_path / "bounds.tex"
    result = _run(os.path.join(EXAMPLES, "bounds.deriv"), "--latex", str(out))
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "bounds.pdf").exists()
    checked = _chains(open(os.path.join(EXAMPLES, "bounds.deriv"), encoding="utf-8").read())
    source = out.read_text()
    for chain in checked:
        for step in chain.steps:
            for side in step.statement.sides_latex()[::2]:
                assert side in source
        assert chain.conclusion.theorem.statement.latex in source
    assert chain_display(checked[0]) in document(checked, "t")


def test_the_python_api_builds_and_checks_a_chain():
    x = sp.Symbol("x", real=True)
    derivation = Derivation(sp.Abs(x) ** 2, name="square").step("=", x ** 2, by="|x|^2 = x^2")
    derivation.step(">=", sp.S.Zero, by="a square")
    checked = derivation.check()
    assert checked.status is Status.PROVED
    assert "PROVED" in str(checked) and checked._repr_latex_().startswith("$$")


def test_the_pytest_helper_names_the_first_wrong_step():
    from symbolic.testing import assert_derivation
    checked = assert_derivation("assume a > 0\n  relu(a*x)/a\n= relu(x)\n<= abs(x)\n")
    assert checked.conclusion.theorem.statement.relation == "<="
    with pytest.raises(AssertionError, match=r"step 1 \(line 2\): REFUTED[\s\S]*witness"):
        assert_derivation("  relu(2*x)\n= relu(x)\n")


@pytest.mark.skipif(shutil.which("coqc") is None, reason="Coq re-checks the steps")
def test_certify_coq_rechecks_each_step_and_says_why_not_for_an_inequality():
    result = _run(os.path.join(EXAMPLES, "theorem1.deriv"), "--certify", "coq", "--json")
    assert result.returncode == 0, result.stderr
    chains = json.loads(result.stdout)["chains"]
    # the equations by their certificates, the every-size steps by the kernel's chains, each for every size
    assert [step["coq"]["status"] for chain in chains for step in chain["steps"]] == ["checked"] * 5
    assert all(step["coq"]["theorem"] and step["coq"]["statement"] for chain in chains for step in chain["steps"])
    inequality = _run("-", "--certify", "coq", "--json", stdin="  relu(x)\n<= abs(x)\n")
    [step] = json.loads(inequality.stdout)["chains"][0]["steps"]
    assert inequality.returncode == 0 and step["coq"]["status"].startswith("outside the fragment")


def test_a_relation_that_fails_at_one_point_only_is_refuted_there_by_a_solver_s_model():
    # 0 < (x - 1/3)^2 fails at x = 1/3 alone: no small or random point finds it, Z3's model does
    [checked] = _chains("  0\n< (x - 1/3)^2\n")
    step = checked.steps[0]
    assert step.status is Status.REFUTED and step.verdict.witness == {sp.Symbol("x", real=True): sp.Rational(1, 3)}


def test_a_relation_outside_the_solvers_fragment_is_refuted_at_an_exact_point():
    # exp is beyond Z3 and cvc5; at x = 0 both sides are exact and the relation fails
    [checked] = _chains("  x*exp(x)\n>= 1\n")
    assert checked.steps[0].status is Status.REFUTED
    assert checked.steps[0].verdict.witness == {sp.Symbol("x", real=True): 0}


def test_the_failure_each_solver_is_asked_is_the_negation_of_the_relation():
    from symbolic.decision.inequality import FAILURE, HOLDS
    for relation in HOLDS:
        for a, b in ((0, 1), (1, 1), (1, 0)):
            assert bool(FAILURE[relation](sp.Integer(a), sp.Integer(b))) is not HOLDS[relation](a, b), relation


def test_two_exact_numbers_are_compared_exactly_and_a_file_reads_as_written():
    from symbolic.checks import relation
    assert relation(sp.Pow(2, sp.Pow(2, 11, evaluate=False), evaluate=False), ">", sp.S.One).status is Status.PROVED
    assert relation(sp.S.One, ">", sp.Pow(2, sp.Pow(2, 11, evaluate=False), evaluate=False)).status is Status.REFUTED
    # a byte-order mark opens the text; a form feed inside a line does not end it
    [chain] = read_derivations("\ufeff  x\n= x + 0\x0c   by a form feed\n")
    assert len(chain.steps) == 1 and chain.steps[0].line == 2

