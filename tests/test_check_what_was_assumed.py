"""A verdict says everything it assumed and everything that makes it useless: the domain as written,
a claim sympy emptied before it arrived, what breaks a refuted symmetry, and what an interrupted run
had decided."""
import io
import json
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from types import SimpleNamespace

import pytest
import sympy as sp

from conftest import ROOT
from symbolic import Dense, LeakyReLU, Model, ReLU, Symmetry, check_identity, check_symmetry, positive_scales
from symbolic.checks import trivial_as_built, zeros
from symbolic.kernel import Equation
from symbolic.kernel.verdict import Status
from symbolic.parsing import parse_expression
from symbolic.testing import assert_proved, assert_refuted


# --- a claim sympy emptied before it reached the checker ----------------------------------------

def test_a_path_norm_claim_sympy_cancelled_is_proved_with_a_warning():
    W, v = sp.symbols("W11 v1", real=True)
    c = sp.Symbol("c", positive=True)
    verdict = check_identity((W * c) ** 2 * (v / c) ** 2, W ** 2 * v ** 2)     # sympy cancels c at once
    assert verdict.status is Status.PROVED
    assert "same expression as given" in verdict.details["as_built"]
    text = str(verdict)
    assert "warning: the two sides are the same expression as given" in text
    assert "evaluate=False" in text and "check_invariance" in text and "Symmetry" in text


def test_the_same_claim_stated_unevaluated_has_no_warning():
    W, v = sp.symbols("W11 v1", real=True)
    c = sp.Symbol("c", positive=True)
    lhs = sp.Mul(sp.Pow(sp.Mul(W, c, evaluate=False), 2, evaluate=False),
                 sp.Pow(sp.Mul(v, sp.Pow(c, -1, evaluate=False), evaluate=False), 2, evaluate=False),
                 evaluate=False)
    verdict = check_identity(lhs, W ** 2 * v ** 2)
    assert verdict.status is Status.PROVED
    assert "as_built" not in verdict.details


def test_a_difference_sympy_evaluates_to_zero_counts_as_built():
    x, y = sp.symbols("x y", real=True)
    assert trivial_as_built(Equation(sp.Add(x, y, evaluate=False), sp.Add(y, x, evaluate=False)))
    assert not trivial_as_built(Equation(x * (y + 1), x * y + x))


def test_a_zero_test_of_an_expression_that_arrived_as_zero_says_so():
    x = sp.Symbol("x", real=True)
    verdict = zeros("nothing", [x - x])
    assert verdict.status is Status.PROVED and "as_built" in verdict.details
    assert "as_built" not in zeros("something", [(x * (x + 1), x ** 2 + x)]).details


def test_the_pytest_helper_refuses_a_trivial_proof():
    x = sp.Symbol("x", real=True)
    with pytest.raises(AssertionError, match="same expression as given"):
        assert_proved(ReLU(x), ReLU(x))
    assert_proved(ReLU(2 * x), 2 * ReLU(x))     # a claim that says something still passes


def test_the_command_line_warns_in_text_and_json(cli):
    text = cli("check", "relu(x)", "relu(x)")
    assert text.returncode == 0 and "warning: the two sides are the same expression" in text.stdout
    as_json = json.loads(cli("check", "relu(x)", "relu(x)", "--json").stdout)
    assert "same expression as given" in as_json["warning"]
    assert "warning" not in json.loads(cli("check", "relu(2*x)", "2*relu(x)", "--json").stdout)


# --- the domain as written, printed where it restricts ------------------------------------------

def test_the_domain_is_printed_where_it_restricts(cli):
    result = cli("check", "relu(x)/relu(x)", "relu(x)/x")
    assert result.returncode == 0
    assert "for x > 0, where both sides as written are defined" in result.stdout
    as_json = json.loads(cli("check", "relu(x)/relu(x)", "relu(x)/x", "--json").stdout)
    assert as_json["domain"] == "x > 0"
    assert as_json["rests_on"]["oracles"] == ["exact identity test"]


def test_no_domain_is_printed_where_the_facts_settle_it(cli):
    as_json = json.loads(cli("check", "relu(a*x)/a", "relu(x)", "--positive", "a", "--json").stdout)
    assert as_json["status"] == "proved" and as_json["domain"] == ""
    assert as_json["facts"] == "a > 0"


@pytest.mark.parametrize("lhs, rhs, domain", [
    ("x/x", "1", "x ≠ 0"), ("sqrt(x)**2", "x", "x ≥ 0"), ("log(x) + 1/(x - 1)", "log(x) + 1/(x - 1)", None),
    ("sqrt(1 - x^2)", "sqrt(1 - x^2)", "-1 ≤ x ≤ 1"), ("1/(x^2 - 1)", "1/(x^2 - 1)", "x ≠ -1 and x ≠ 1"),
])
def test_the_domain_reads_as_intervals(lhs, rhs, domain):
    from symbolic.decision.domain_text import domain_text
    from symbolic.parsing import parse_expression
    symbols = {}
    sides = parse_expression(lhs, symbols=symbols), parse_expression(rhs, symbols=symbols)
    assert domain_text(*sides) == (domain or "x > 0 and x ≠ 1")


def test_the_helpers_failure_message_prints_the_domain():
    x = sp.Symbol("x", real=True)
    with pytest.raises(AssertionError) as failure:
        assert_proved(ReLU(x) / x, 1)
    assert "for x ≠ 0, where both sides as written are defined" in str(failure.value)


def test_the_helpers_failure_message_prints_the_facts():
    a = sp.Symbol("a", positive=True)
    x = sp.Symbol("x", real=True)
    with pytest.raises(AssertionError) as failure:
        assert_refuted(ReLU(a * x), a * ReLU(x))
    assert "a > 0" in str(failure.value)


# --- a refuted symmetry names what breaks it ------------------------------------------------------

def _readme_network():
    leaky = LeakyReLU(sp.Rational(1, 10))
    net = Model(2, [Dense(2, "W1", bias="b1"), leaky, Dense(2, "W2", bias="b2"), leaky, Dense(1, "v")])
    return net, (net[name] for name in ("W1", "b1", "W2", "b2", "v"))


def test_the_readme_wrong_map_names_b2_and_a_small_witness():
    net, (W1, b1, W2, b2, v) = _readme_network()
    C, E = sp.diag(*positive_scales("c", 2)), sp.diag(*positive_scales("e", 2))
    wrong = Symmetry(net, {"W1": W1 * C, "b1": b1 * C, "W2": C.inv() * W2 * E, "v": E.inv() * v})
    report = check_symmetry(net, wrong, sizes=(1,))
    assert report.status is Status.REFUTED
    assert "the image of b2" in report.breaks and "the image of W2" not in report.breaks
    assert "what breaks it: the image of b2" in str(report)
    assert report.as_json()["breaks"] == report.breaks
    # the witness: small integers, every value an integer of absolute value at most 3 (or 1/2)
    witness = report.verdict("prediction").witness
    assert all(abs(value) <= 3 and sp.sympify(value).q <= 2 for value in witness.values())
    # the tensor the map leaves alone (b2) is set to 0 or 1
    assert {witness[s] for s in b2} <= {0, 1}


def test_a_map_with_a_wrong_exponent_names_the_tensor():
    net, (W1, b1, W2, b2, v) = _readme_network()
    C, E = sp.diag(*positive_scales("c", 2)), sp.diag(*positive_scales("e", 2))
    wrong = Symmetry(net, {"W1": W1 * C, "b1": b1 * C, "W2": C.inv() * W2 * E, "b2": b2 * E, "v": E * v})
    report = check_symmetry(net, wrong, sizes=(1,))
    assert report.status is Status.REFUTED
    assert report.breaks.startswith("the image of v ")


def test_a_true_symmetry_names_nothing():
    net, (W1, b1, W2, b2, v) = _readme_network()
    C, E = sp.diag(*positive_scales("c", 2)), sp.diag(*positive_scales("e", 2))
    right = Symmetry(net, {"W1": W1 * C, "b1": b1 * C, "W2": C.inv() * W2 * E, "b2": b2 * E, "v": E.inv() * v})
    report = check_symmetry(net, right, sizes=(1,))
    assert report.status is Status.PROVED and report.breaks == ""


# --- Ctrl-C keeps what was decided ------------------------------------------------------------------

def _script(name, claims, interrupt=False):
    """A stand-in proof script: records ``claims`` identities, then (``interrupt``) a Ctrl-C."""
    from symbolic.derivation import Derivation
    from symbolic.report import Report

    def run(sizes, seed=0, timeout=None):
        report = Report(Derivation(name=name, title=name, source="", statement=""))
        x = sp.Symbol("x", real=True)
        for k in range(claims):
            report.record(name, f"claim {k + 1}", (1, 1, 1), lambda k=k: check_identity(ReLU((k + 2) * x),
                                                                                        (k + 2) * ReLU(x)))
        if interrupt:
            raise KeyboardInterrupt
        return report
    return SimpleNamespace(NAME=name, TITLE=name, DEFAULT_SIZES=(1, 1, 1), LARGEST_SIZES=(9, 9, 9), run=run,
                           __name__=name)


@pytest.mark.parametrize("as_json", [False, True])
def test_an_interrupted_run_prints_the_rows_it_decided(monkeypatch, as_json):
    from proofs.commands import cli, registry
    scripts = {"first": _script("first", 2), "second": _script("second", 1, interrupt=True),
               "third": _script("third", 3)}
    monkeypatch.setattr(registry, "names", lambda: list(scripts))
    monkeypatch.setattr(registry, "load", lambda name: scripts[name])
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = cli.main(["--jobs", "1"] + (["--json"] if as_json else []))
    assert status == 130
    if as_json:
        rows = json.loads(out.getvalue())
        assert [(r["theorem"], r["claim"]) for r in rows] == [("first", "claim 1"), ("first", "claim 2"),
                                                                ("second", "claim 1")]
        assert all(r["status"] == "proved" for r in rows)
        assert "interrupted (Ctrl-C): 3 claims decided, from 2 of the 3 results" in err.getvalue()
    else:
        text = out.getvalue()
        assert text.count("PROVED") == 3 and "third" not in text
        assert "3 claims: 3 proved" in text
        assert "interrupted (Ctrl-C): 3 claims decided, from 2 of the 3 results" in text
    assert err.getvalue().strip().endswith("proofs: interrupted")


# --- small cuts -------------------------------------------------------------------------------------

def test_a_parse_error_names_the_side(cli):
    left, right = cli("check", "relu(x", "x"), cli("check", "x", "relu(x")
    assert left.returncode == right.returncode == 2
    assert "cannot read the left-hand side" in left.stderr
    assert "cannot read the right-hand side" in right.stderr


def test_the_console_script_names_itself_in_its_errors():
    code = "import sys; sys.argv[0] = 'sharpcheck'; from proofs.commands.cli import main; sys.exit(main())"
    result = subprocess.run([sys.executable, "-c", code, "check", "relu(x", "x"], cwd=ROOT, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 2
    assert result.stderr.startswith("sharpcheck: error: cannot read the left-hand side")
    usage = subprocess.run([sys.executable, "-c", code, "check", "--help"], cwd=ROOT, capture_output=True,
                           text=True, timeout=120)
    assert usage.stdout.startswith("usage: sharpcheck check")


def test_a_huge_exact_value_prints_compactly(cli):
    result = cli("check", "10^300", "x")
    assert result.returncode == 1
    assert "lhs = 10^300," in result.stdout
    assert "0" * 100 not in result.stdout


def test_an_invariance_outcome_prints_as_text():
    from symbolic import check_invariance
    text = str(check_invariance("path_norm", "layerwise"))
    assert text.startswith("PROVED: path_norm is invariant under layerwise")
    assert "(1) [checked, holds]" in text and "Outcome(" not in text


def test_the_symmetry_helper_names_what_breaks_the_map():
    from symbolic.testing import assert_symmetry
    net, (W1, b1, W2, b2, v) = _readme_network()
    C, E = sp.diag(*positive_scales("c", 2)), sp.diag(*positive_scales("e", 2))
    wrong = Symmetry(net, {"W1": W1 * C, "b1": b1 * C, "W2": C.inv() * W2 * E, "v": E.inv() * v})
    with pytest.raises(AssertionError, match="what breaks it: the image of b2"):
        assert_symmetry(net, wrong, sizes=(1,))


def test_an_interrupted_parallel_run_prints_the_rows_that_came_back(monkeypatch):
    from proofs.commands import cli, parallel, registry
    scripts = {"first": _script("first", 2), "second": _script("second", 2)}
    monkeypatch.setattr(registry, "names", lambda: list(scripts))
    monkeypatch.setattr(registry, "load", lambda name: scripts[name])

    def run_scripts(plans, seed, timeout, *, jobs=1, address=None, on_done=None):
        # the first script's rows come back from its task (run as a worker runs it), then Ctrl-C
        from symbolic.report import claims_run_by, run_check
        with claims_run_by(lambda key, check: run_check(check)):
            rows = plans[0][0].run(plans[0][1]).results
        for row in rows:
            on_done(row)
        raise KeyboardInterrupt
    monkeypatch.setattr(parallel, "run_scripts", run_scripts)
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = cli.main(["--jobs", "2"])
    assert status == 130
    assert out.getvalue().count("PROVED") == 2
    assert not any(line.startswith("second ") for line in out.getvalue().splitlines())
    assert "2 claims decided, from 1 of the 2 results" in out.getvalue()


def test_the_latex_derivation_of_a_refuted_map_says_what_breaks_it():
    net, (W1, b1, W2, b2, v) = _readme_network()
    C, E = sp.diag(*positive_scales("c", 2)), sp.diag(*positive_scales("e", 2))
    wrong = Symmetry(net, {"W1": W1 * C, "b1": b1 * C, "W2": C.inv() * W2 * E, "v": E.inv() * v})
    tex = check_symmetry(net, wrong, sizes=(1,)).latex()
    assert r"What breaks it: \texttt{the image of b2" in tex and r"b2\_\{1\}" in tex


def test_ctrl_c_in_a_real_run_keeps_the_rows_decided():
    """A real SIGINT, sent once the progress bar (stderr on a terminal) shows a claim decided: the rows
    so far, the summary that says the run was interrupted, exit 130."""
    import os
    import pty
    import re
    import select
    import signal
    leader, follower = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "proofs", "--jobs", "1", "theorem1", "theorem3"], cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=follower, text=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    os.close(follower)
    seen = ""
    try:
        while not re.search(r"[1-9]\d* claims?,", seen):
            ready, _, _ = select.select([leader], [], [], 300)
            assert ready, "no progress shown"
            seen += os.read(leader, 4096).decode(errors="replace")
        process.send_signal(signal.SIGINT)
        out, _ = process.communicate(timeout=300)
    finally:
        os.close(leader)
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130
    assert "PROVED" in out and "interrupted (Ctrl-C): " in out
    assert int(re.search(r"(\d+) claims? decided", out).group(1)) >= 1


def test_a_map_no_single_tensor_repairs_names_the_first_layer_it_does_not_transport():
    net, (W1, b1, W2, b2, v) = _readme_network()
    C, E = sp.diag(*positive_scales("c", 2)), sp.diag(*positive_scales("e", 2))
    both = Symmetry(net, {"W1": W1 * C, "W2": C.inv() * W2 * E, "v": E.inv() * v})     # b1 and b2 unscaled
    report = check_symmetry(net, both, sizes=(1,))
    assert report.status is Status.REFUTED
    assert report.breaks.startswith("layer 1, Dense(2, W1, bias b1), is the first whose output")


def test_a_verdict_s_latex_says_its_domain_as_written():
    x = sp.Symbol("x", real=True)
    relu_x = parse_expression("relu(x)", symbols={"x": x})
    verdict = check_identity(sp.Mul(relu_x, sp.Pow(relu_x, -1, evaluate=False), evaluate=False),
                             sp.Mul(relu_x, sp.Pow(x, -1, evaluate=False), evaluate=False))
    assert verdict.status is Status.PROVED
    assert r"\text{on } x > 0" in verdict.claim_latex() and "x &gt; 0" in verdict._repr_html_()
