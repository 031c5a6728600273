"""The paper's documents are printed from the statements the kernel proved: no step is a LaTeX
literal or logical glue, each displayed line is the printed statement of a minted theorem, a
forged or failed verdict's step says so, and the two schemes that replace Theorem 1's glue refuse
premises that do not match."""
import ast
import os
import re

import pytest
import sympy as sp

from conftest import ROOT
from proofs import theorem1_observational_equivalence as theorem1
from proofs.commands import registry
from symbolic import Status, check_identity
from symbolic.checks import nonnegatives

from symbolic.derivation import Derivation, UncheckedStep
from symbolic.kernel import Equation, by_oracle, infer, is_theorem
from symbolic.latex import display_lines, render
from symbolic.networks.network import OneHiddenLayerNet
from symbolic.networks.rescaling import ALPHA, rescale_vector
from symbolic.trusted.oracles.exact import EXACT_ZERO
from symbolic.trusted.schemes.functionals import EQUAL_FUNCTIONALS
from symbolic.trusted.schemes.local_minima import LOCAL_MINIMA_CARRIED
from conftest import forged_verdict

SMALL = {"worked_example": None}        # the sizes each script runs at here (default: two small ones)


@pytest.fixture(scope="module", params=registry.names())
def report(request):
    return registry.load(request.param).run(SMALL.get(request.param, [(1, 1, 1), (2, 1, 1)]))


def _calls_of_add(path):
    tree = ast.parse(open(path, encoding="utf-8").read())
    return [node for node in ast.walk(tree) if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == "add" and isinstance(node.func.value, ast.Name) and node.func.value.id == "derivation"]


def test_no_proof_script_hands_a_formula_to_its_document():
    folder = os.path.join(ROOT, "proofs")
    scripts = [os.path.join(folder, name) for name in os.listdir(folder) if name.endswith(".py")]
    calls = [(path, call) for path in scripts for call in _calls_of_add(path)]
    assert len(calls) > 50
    for path, call in calls:
        # the first argument is the verdicts, never text: the formula comes from their statements
        first = call.args[0]
        parts = [first, *(first.elts if isinstance(first, (ast.List, ast.Tuple)) else ())]
        text = [node for node in parts if isinstance(node, ast.JoinedStr)
                or isinstance(node, ast.Constant) and isinstance(node.value, str)
                or isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mod, ast.Add))
                and any(isinstance(side, (ast.Constant, ast.JoinedStr)) for side in (node.left, node.right))]
        assert not text, (path, call.lineno)
    text = "".join(open(path, encoding="utf-8").read() for path in scripts)
    assert "derivation.add(r" not in text


def test_a_step_without_a_verdict_or_with_text_cannot_be_added():
    derivation = Derivation("t", "t", "t", "t")
    x = sp.Symbol("x", real=True)
    proved = by_oracle(EXACT_ZERO, Equation(x - x, sp.S.Zero))
    with pytest.raises(UncheckedStep):
        derivation.add([], "logical glue")
    with pytest.raises(UncheckedStep):
        derivation.add(r"x = x", "a formula typed beside the check")
    with pytest.raises(UncheckedStep):
        derivation.add(["x = x"], "text among the verdicts")
    with pytest.raises(ValueError):
        derivation.add([proved, proved], "two verdicts, one size", [(1, 1, None)])
    assert derivation.steps == []


def test_every_step_shows_the_printed_statement_of_a_minted_theorem(report):
    derivation = report.derivation
    steps = derivation.all_steps
    assert steps
    for step in steps:
        assert step.verdicts and step.status is Status.PROVED, step.reason
        shown = step.shown
        assert is_theorem(shown.theorem) and shown.minted
        parts = shown.theorem.statement.parts()
        lines = step.formula_lines()
        # each displayed line is one conjunct of the theorem's statement, printed by its printer
        assert lines[:len(parts)] == [part.latex for part in parts][:len(lines)] or \
            lines[-1].startswith(r"\text{and ")
        for line in lines:
            assert line in [part.latex for part in parts] or line.startswith(r"\text{and ")


def test_the_document_displays_only_those_lines_and_no_glue(report):
    derivation = report.derivation
    text = render(derivation)
    assert "logical glue" not in text and r"\emph{glue}" not in text
    # a formula is displayed in \fitmath, a statement printed as words in \statementwords
    displayed = [line if kind == "fitmath" else r"\text{%s}" % line for kind, line in
                 re.findall(r"\\(fitmath|statementwords)\{(.*?)\} \\(?:tag\{\d+\}|notag)", text)]
    expected, before = [], None
    for step in derivation.all_steps:
        expected += display_lines(step, before)
        before = step
    unfitted = [re.sub(r"\\operatorname\{sqrt\}(?=\\bigl\()", r"\\sqrt", line) for line in displayed]
    assert unfitted == expected
    # a line that continues a chain is the rest of its theorem's printed statement
    for step, previous in zip(derivation.all_steps[1:], derivation.all_steps):
        (line, *_) = display_lines(step, previous)
        if line.startswith("= "):
            assert step.statement.latex.endswith(line[2:])


def test_each_step_says_where_it_was_checked(report):
    for step in report.derivation.all_steps:
        assert step.where == "for every size" or step.where.startswith(("for every size; also", "shown at",
                                                                         "checked at", "as stated", "the first of "))
        if step.where == "as stated":
            assert len(step.verdicts) == 1
        if step.where.startswith("shown at"):
            assert "checked at" in step.where


def test_the_theorem_documents_open_with_the_statement_and_the_proof_for_every_size():
    for script in (theorem1, registry.load("theorem3")):
        derivation = script.run([(1, 1, 1)]).derivation
        text = render(derivation)
        assert "As stated" in text and "What is proved here" in text
        (title, steps), = derivation.sections
        assert title == "The proof for every size" and all(step.where == "for every size" for step in steps)
        assert derivation.coq and all(citation.name.count(".") == 1 for citation in derivation.coq)
        assert text.index("The proof for every size") < text.index("The Coq theorem") < text.index("Derivation at")
        assert r"\section*{Instance checks}" in text and derivation.instances


# --- negative controls -----------------------------------------------------------------------------

def test_a_forged_verdicts_step_is_shown_as_refused():
    derivation = Derivation("t", "t", "t", "t")
    step = derivation.add([forged_verdict()], "by hand")
    assert step.status is Status.UNDECIDED and step.statement is None
    assert step.where.startswith("UNDECIDED") and "not a theorem" in step.where
    text = render(derivation)
    assert r"\textbf{PROVED}" not in text.split(r"\section*{Derivation}")[1]


def test_a_refuted_steps_shows_the_statement_it_was_run_on_and_says_so():
    x = sp.Symbol("x", real=True)
    statement = Equation((x + 1) ** 2, x ** 2 + 1)
    refuted = check_identity(statement.lhs, statement.rhs)
    assert refuted.status is Status.REFUTED and refuted.witness
    derivation = Derivation("t", "t", "t", "t")
    step = derivation.add([by_oracle(EXACT_ZERO, Equation(x - x, sp.S.Zero)), refuted], "a false step",
                          [(1, None, None), (2, None, None)])
    assert step.shown is step.verdicts[1]
    assert step.formula_lines() == [refuted.claim_latex()] and statement.written_latex() in step.formula_lines()[0]
    assert step.where == "REFUTED at d = 2: shown is the statement the check was run on, not a theorem"
    assert "REFUTED" in render(derivation)


# the schemes that replace Theorem 1's glue

def _prediction(d=1, h=1):
    return theorem1.prediction_invariance(d, h)


def test_equal_functionals_concludes_from_the_prediction_identity():
    verdict = theorem1.functional_invariance(_prediction(), 1, 1)
    assert verdict.status is Status.PROVED
    premise = _prediction().statement
    ell = sp.Function("ell")
    x = tuple(OneHiddenLayerNet(1, 1).input())
    assert verdict.statement.lhs == ell(sp.Lambda(x, premise.lhs))
    assert verdict.statement.rhs == ell(sp.Lambda(x, premise.rhs))
    assert verdict.rests_on["rules"][0] == "equal functions give equal values of any functional"


def test_equal_functionals_refuses_premises_that_do_not_match():
    x = tuple(OneHiddenLayerNet(1, 1).input())
    premise = _prediction()
    positive = sp.Symbol("x_{1}", positive=True)
    relation = nonnegatives("x^2 >= 0", [x[0] ** 2])
    refusals = {
        "not an equation": infer(EQUAL_FUNCTIONALS, [relation], inputs=x),
        "two premises": infer(EQUAL_FUNCTIONALS, [premise, premise], inputs=x),
        "an input the premise lacks": infer(EQUAL_FUNCTIONALS, [premise], inputs=(sp.Symbol("z", real=True),)),
        "the functional named in the premise": infer(EQUAL_FUNCTIONALS, [premise], inputs=x, functional="v_{1}"),
        "a restricted input": infer(EQUAL_FUNCTIONALS, [check_identity(positive * (positive + 1), positive ** 2 + positive)],
                                    inputs=(positive,)),
    }
    for why, verdict in refusals.items():
        assert verdict.status is Status.UNDECIDED and "does not apply" in verdict.reason, why


def _local_minima(lemmas, functional, **changes):
    d, h = 1, 1
    u = list(sp.symbols("u_1:3", real=True))
    w = list(sp.symbols("w_1:3", real=True))
    arguments = dict(image=tuple(rescale_vector(u, d, h, ALPHA)), direction=tuple(u), other=tuple(w),
                     coefficients=sp.symbols("lambda mu", real=True),
                     parameters=tuple(OneHiddenLayerNet(d, h).parameters), alpha=ALPHA,
                     bound=sp.Max(ALPHA ** 2, ALPHA ** -2))
    arguments.update(changes)
    return infer(LOCAL_MINIMA_CARRIED, [*lemmas, functional], **arguments)


@pytest.fixture(scope="module")
def premises():
    lemmas = theorem1.local_minimum_lemmas(1, 1)
    return [lemmas["linear"], lemmas["inverse"], lemmas["norm bound"]], theorem1.functional_invariance(_prediction(), 1, 1)


def test_local_minima_are_carried_from_the_four_premises(premises):
    lemmas, functional = premises
    verdict = _local_minima(lemmas, functional)
    assert verdict.status is Status.PROVED
    assert "is a local minimum of L(theta) = ell(x_{1} -> " in verdict.statement.text
    assert "if and only if T theta = (W_{1,1}*alpha, v_{1}/alpha) is one" in verdict.statement.text


def test_local_minima_refuse_premises_that_do_not_match(premises):
    lemmas, functional = premises
    linear, inverse, norm = lemmas
    u = list(sp.symbols("u_1:3", real=True))
    evaluated = theorem1._all_proved("u = u", [check_identity(a, a) for a in u + u])
    other_map = theorem1.functional_invariance(theorem1.prediction_invariance(1, 1, alpha=2 * ALPHA), 1, 1)
    refusals = {
        "premises out of order": _local_minima([inverse, linear, norm], functional),
        "an inverse that says u = u": _local_minima([linear, evaluated, norm], functional),
        "a bound for another K": _local_minima(lemmas, functional, bound=sp.Max(ALPHA, 1 / ALPHA)),
        "L o T = L for another map": _local_minima(lemmas, other_map),
        "a map that is no coordinate scaling": _local_minima(lemmas, functional, image=(u[1], u[0])),
        "a parameter not known positive": _local_minima(lemmas, functional, alpha=sp.Symbol("alpha", real=True)),
        "three premises": infer(LOCAL_MINIMA_CARRIED, lemmas, image=(), direction=(), other=(), coefficients=(),
                                parameters=(), alpha=ALPHA, bound=1),
    }
    for why, verdict in refusals.items():
        assert verdict.status is Status.UNDECIDED and "does not apply" in verdict.reason, why


def test_a_cited_coq_theorem_is_asked_of_coq_and_a_name_the_development_lacks_is_refused():
    from proofs.commands.coq_citations import answer_citations
    from symbolic.coq import library
    from symbolic.derivation import CoqCitation
    if library.coqc() is None:
        pytest.skip("coqc is not installed")
    derivation = Derivation("t", "t", "t", "t")
    derivation.coq = [CoqCitation("Theorem1.theorem1", "Theorem 1"), CoqCitation("Theorem1.no_such_theorem", "none")]
    answer_citations([derivation])
    found, missing = derivation.coq
    # the statement is Coq's printing of the theorem (Check), not the name or text typed beside it
    assert found.answer == "checked" and found.statement.startswith("forall (d h : nat)")
    assert "local_min" in found.statement and "0 < alpha" in found.statement
    assert missing.answer.startswith("refused") and missing.statement == ""
    text = render(derivation)
    assert "Theorem1.theorem1" in text and "checked" in text and "no statement" in text


def test_a_citation_that_carries_coqs_statement_is_not_asked_again(monkeypatch):
    from proofs.commands import coq_citations
    from symbolic.derivation import CoqCitation
    asked = []
    monkeypatch.setattr(coq_citations, "_ask", lambda names: asked.append(names) or ({}, {}))
    derivation = Derivation("t", "t", "t", "t")
    derivation.coq = [CoqCitation("claim_1", "a row Coq checked", "checked", "forall x : R, x = x")]
    coq_citations.answer_citations([derivation])
    assert asked == [] and derivation.coq[0].answer == "checked"
