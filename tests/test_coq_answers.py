"""Coq's three kinds of answer: checked, refuted (Coq proved the claim false: a disagreement), and not
checked with the reason (the tactics failed, out of time, the printed lemma does not compile), which
keeps the kernel's verdict and exit code; the cap is on Coq's CPU time, with a retry; and the sign
fact of every symbol becomes the hypothesis it says."""
import json
import os
import threading
import time

import pytest
import sympy as sp

from proofs.commands import check_command
from symbolic import ReLU, check_identity
from symbolic.coq import certificate as certificates
from symbolic.coq import library, runner
from symbolic.coq.certificate import HEADER
from symbolic.coq.chains import check_exports, export_chain
from symbolic.coq.printer import OutsideFragment, statement
from symbolic.coq.runner import certify, with_coq
from symbolic.trusted.axioms.index_rules import ARITHMETIC
from symbolic.kernel.chains import Chain, Rule
from symbolic.logic.terms import Add, Const, Entry, Mul, Relu, Sum
from symbolic.parsing import parse_expression
from symbolic.kernel.verdict import Holds, Status

needs_coq = pytest.mark.skipif(library.coqc() is None,
                               reason="coqc is not installed (Debian: apt-get install coq); Coq gives no answer here")

x, y = sp.symbols("x y", real=True)
n = sp.Symbol("n", nonzero=True)

# the README's example and a maximum regrouped: true, PROVED by the kernel, and beyond Coq's tactics
BEYOND_THE_TACTICS = [("relu(x)*relu(y)/(relu(x)*relu(y))", "relu(x+y)/(x+y)"),
                      ("max(x,y,z,w,v)", "max(max(x,y),max(z,max(w,v)))")]


# --- not checked: the verdict and the exit code are the kernel's ------------------------------------

@needs_coq
@pytest.mark.parametrize("lhs, rhs", BEYOND_THE_TACTICS)
def test_a_tactic_failure_is_not_checked_and_the_claim_stays_proved_with_exit_0(cli, lhs, rhs):
    done = cli("check", lhs, rhs, "--certify", "coq", "--json")
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["status"] == "proved"
    assert answer["coq"].startswith("not checked (the tactics failed: "), answer["coq"]
    assert "disagree" not in done.stderr


@needs_coq
def test_a_lemma_out_of_time_is_retried_alone_then_not_checked(monkeypatch):
    # the regrouped maximum takes Coq seconds of CPU to fail; a cap of one second (no allowance for
    # loading the libraries) is reached whatever the machine's load, since the cap counts CPU time
    monkeypatch.setattr(library, "STARTUP_SECONDS", 0)
    lhs, rhs = (parse_expression(side) for side in BEYOND_THE_TACTICS[1])
    batch = certify([(lhs, rhs)], seconds=0.01)
    assert batch.answers[0].result == "not checked (out of time after 1 s of CPU)"
    # the batch, the lemma alone, the lemma alone with three times the cap
    assert batch.calls == 3


@needs_coq
def test_the_cap_counts_cpu_time_not_the_time_coqc_waits(tmp_path):
    # coqc waits two seconds for a reader of what it writes, using no CPU meanwhile: under a cap of
    # one second of CPU it finishes all the same (a cap on wall time would stop it)
    os.mkfifo(tmp_path / "waiting.out")
    (tmp_path / "Waiting.v").write_text('Redirect "waiting" Check 1.\n')

    def reader():
        time.sleep(2)
        (tmp_path / "waiting.out").read_text()
    threading.Thread(target=reader, daemon=True).start()
    started = time.monotonic()
    run = library.timed_coqc(tmp_path, "Waiting.v", 1)
    assert run.accepted and not run.out_of_time, run
    assert time.monotonic() - started >= 2 and run.cpu < 1


@needs_coq
def test_a_printed_lemma_that_does_not_compile_is_not_checked_with_coqs_message(tmp_path):
    lemmas = {"statement": "Lemma unbound (x : R) :\n  x = y.\nProof.\n  ring.\nQed.\n",
              "script": "Lemma bad_script (x : R) :\n  x = x.\nProof.\n  first [ ( ].\nQed.\n",
              "tactics": "Lemma false (x : R) :\n  x = x + 1.\nProof.\n  ring.\nQed.\n"}
    outcomes = library.check_items(tmp_path, HEADER, lemmas, 5).outcomes
    answers = {name: runner.not_checked(outcome) for name, outcome in outcomes.items()}
    assert answers["statement"].startswith("not checked (the printed lemma does not compile: ")
    assert "y" in answers["statement"] and "was not found" in answers["statement"]
    assert answers["script"].startswith("not checked (the printed lemma does not compile: Error: Syntax error")
    assert answers["tactics"].startswith("not checked (the tactics failed: ")
    # an error in the header: no lemma is checked, and the message is kept
    broken = library.check_items(tmp_path, HEADER + "Lemma broken : 1 = 2. Proof. ring. Qed.\n",
                                 {"any": lemmas["tactics"]}, 5).outcomes["any"]
    assert runner.not_checked(broken).startswith("not checked (the printed lemma does not compile: ")


# --- refuted: only a lemma Coq accepts that the claim fails ------------------------------------------

@needs_coq
def test_a_false_claim_coq_refutes_makes_a_proved_verdict_undecided_with_a_disagreement(monkeypatch, capsys):
    # an oracle that says the claim holds of a false claim (a bug of the procedure): the kernel
    # mints PROVED on its word; Coq's proof fails, and Coq proves the claim false at a point
    import symbolic.decision.identity as procedure
    monkeypatch.setattr(procedure, "check_identity", lambda lhs, rhs, **_: Holds(evidence=("wrong",)))
    verdict = check_identity(ReLU(x), x)
    assert verdict.status is Status.PROVED
    answered = with_coq(verdict)
    assert answered.status is Status.UNDECIDED and answered.details["disagreement"] is True
    assert answered.details["coq"].startswith("refuted (Coq proves the sides differ at x = ")
    assert "the kernel says PROVED, Coq refuted" in answered.reason
    assert check_command.main(["relu(x)", "x", "--certify", "coq"]) == 4
    assert "the kernel and Coq disagree" in capsys.readouterr().err


@needs_coq
def test_a_point_the_project_proposes_wrongly_is_not_a_refutation(monkeypatch):
    # the proof fails (a script that proves nothing) and the project's evaluation is made to lie:
    # Coq decides the refutation, which fails, and the answer stays "not checked"
    monkeypatch.setattr(certificates, "proof_script", lambda lhs, rhs, printer: "fail.")
    monkeypatch.setattr(certificates, "_value", lambda e, point, bodies: sp.Integer(len(str(e))))
    (answer,) = certify([(x ** 2 - 1, (x - 1) * (x + 1))]).answers
    assert answer.result.startswith("not checked (the tactics failed: ") and not answer.refuted


@needs_coq
def test_a_chain_step_beyond_the_tactics_is_not_checked_and_a_false_one_refuted():
    s = Sum("i", "d", Mul((Entry("x", ("i",)), Entry("w", ("i",)))))
    forged = Rule(ARITHMETIC.name, "", lambda before, after: None, lambda: None)
    # ReLU(s) - ReLU(-s) = s holds, but is no identity of the field: the step's proof fails
    true = Chain("relu difference", Add((Relu(s), Mul((Const(sp.Integer(-1)), Relu(Mul((Const(sp.Integer(-1)), s))))))))
    true.then(forged, s)
    false = Chain("relu is the identity", Relu(s)).then(forged, s)
    answers = check_exports([export_chain(true, "true"), export_chain(false, "false")]).answers
    assert answers["true"].startswith("not checked at step 1 (the tactics failed: ")
    assert answers["false"].startswith("refuted at step 1 (Coq proves the sides differ at every size ")


# --- the sign facts of the symbols --------------------------------------------------------------------

@pytest.mark.parametrize("facts, hypothesis", [
    ({"positive": True}, "0 < s"), ({"negative": True}, "s < 0"), ({"nonnegative": True}, "0 <= s"),
    ({"nonpositive": True}, "s <= 0"), ({"nonzero": True}, "s <> 0"), ({"real": True}, None),
    ({"rational": True}, None), ({"positive": True, "rational": True}, "0 < s"),
])
def test_every_sign_fact_becomes_its_hypothesis(facts, hypothesis):
    s = sp.Symbol("s", **facts)
    printed = statement(ReLU(s), s)
    assert printed.hypotheses == ([hypothesis] if hypothesis else [])


@pytest.mark.parametrize("facts", [{"integer": True}, {"even": True}, {"zero": True}, {"complex": True}, {}])
def test_a_symbol_coq_cannot_range_over_the_reals_is_outside(facts):
    with pytest.raises(OutsideFragment):
        statement(sp.Symbol("s", **facts), sp.Integer(0))


@needs_coq
def test_each_sign_fact_proves_what_it_says_and_no_more():
    p, q = sp.Symbol("p", positive=True), sp.Symbol("q", negative=True)
    m, k = sp.Symbol("m", nonnegative=True), sp.Symbol("k", nonpositive=True)
    claims = [(sp.Abs(p), p), (sp.Abs(q), -q), (sp.Abs(m), m), (sp.Abs(k), -k),
              # |n|/n = 1 holds for n > 0 only: a non-zero n may be negative
              (sp.Abs(n) / n, sp.Integer(1))]
    answers = [answer.result for answer in certify(claims).answers]
    assert answers[:4] == ["checked"] * 4
    assert answers[4].startswith("refuted (Coq proves the sides differ at n = -"), answers[4]
