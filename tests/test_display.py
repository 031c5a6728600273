"""Output a person reads: the table fits 100 columns when the reader is no terminal (or the
terminal's width), the summary line comes last, derivation steps only with --steps, a long claim
is cut with an ellipsis in the table and kept whole in JSON, and ``print(verdict)`` and
``str(report)`` give the command line's text."""
import json
import os
import re

import pytest

from proofs.commands import cli, registry
from symbolic import check_identity
from symbolic.derivation import Derivation
from symbolic.checks import zeros
from symbolic.display import ELLIPSIS, PLAIN_WIDTH, cut, table
from symbolic.parsing import parse_expression
from symbolic.report import ClaimResult, Report


SUMMARY = re.compile(r"\d+ claims?: \d+ proved, \d+ refuted, \d+ undecided")


def run(capsys, *args):
    code = cli.main(list(args))
    captured = capsys.readouterr()
    return code, captured.out


@pytest.fixture(scope="module")
def theorem1_report():
    return registry.load("theorem1").run([(1, 1, 1), (2, 1, 1)], seed=0)


def test_the_default_run_fits_100_columns_and_ends_with_the_summary(capsys):
    code, out = run(capsys, "theorem1", "theorem2", "--size", "1,1,1")
    lines = out.rstrip("\n").splitlines()
    assert code == 0 and max(map(len, lines)) <= PLAIN_WIDTH
    assert lines[0].split() == ["result", "claim", "sizes", "verdict", "seconds"]
    assert SUMMARY.fullmatch(lines[-1])
    assert "derivation steps" not in out


def test_steps_only_with_the_steps_flag_and_still_before_the_summary(capsys):
    _, out = run(capsys, "theorem1", "--size", "1,1,1", "--steps")
    lines = out.rstrip("\n").splitlines()
    assert "theorem1: derivation steps" in lines and "[checked, PROVED; " in out
    assert SUMMARY.fullmatch(lines[-1]) and lines.index("theorem1: derivation steps") < len(lines) - 1


def test_the_table_fits_the_terminal_it_is_shown_on(monkeypatch, theorem1_report):
    from symbolic import display
    from symbolic.display import tables
    monkeypatch.setattr(tables.shutil, "get_terminal_size", lambda fallback: os.terminal_size((64, 24)))

    class Terminal:
        def isatty(self):
            return True
    assert display.output_width(Terminal()) == 64
    text = display.report_text(theorem1_report, width=64)
    assert max(len(line) for line in text.splitlines()) <= 64


def long_claim_report(length=300):
    claim = "PROVED statement: " + " + ".join(f"relu(w_{k} x)" for k in range(length // 12))
    report = Report(Derivation("long", "a long claim", "a test", "a statement"))
    report.results.append(ClaimResult("long", claim, 1, 1, 1, zeros(claim, [0]), 0.5))
    return report, claim


def test_a_long_claim_is_cut_in_the_table_and_whole_in_json():
    report, claim = long_claim_report()
    lines = str(report).splitlines()
    assert max(map(len, lines)) <= PLAIN_WIDTH and ELLIPSIS in lines[2]
    assert json.loads(json.dumps(report.results[0].as_json()))["claim"] == claim


@pytest.mark.parametrize("width", [30, 60, 100, 200])
def test_table_lines_never_pass_the_width(width):
    rows = [("a" * 40, "b" * 300, "c"), ("x", "y", "z" * 5)]
    lines = table(("first", "second", "third"), rows, width, flexible=(1, 0), middle=(1,))
    assert all(len(line) <= max(width, 30) for line in lines)
    assert len(lines) == 4


def test_a_middle_cut_keeps_both_ends():
    cut_text = cut("(b) L(T_alpha theta) = L(theta), hinge loss", 30, middle=True)
    assert len(cut_text) == 30 and cut_text.startswith("(b) L(") and cut_text.endswith("hinge loss")
    assert ELLIPSIS in cut_text


def test_str_of_a_report_is_what_the_command_line_prints(capsys, monkeypatch, theorem1_report):
    script = registry.load("theorem1")
    monkeypatch.setattr(script, "run", lambda sizes, seed=0, timeout=None: theorem1_report)
    _, out = run(capsys, "theorem1", "--size", "1,1,1", "--jobs", "1")
    assert out == str(theorem1_report) + "\n"


@pytest.mark.parametrize("lhs, rhs, facts", [("relu(a*x)", "a*relu(x)", ["--positive", "a"]),
                                             ("x/x", "1", [])])
def test_print_of_a_verdict_is_what_the_check_command_prints(capsys, lhs, rhs, facts):
    _, out = run(capsys, "check", lhs, rhs, *facts)
    symbols = {}
    positive = facts[1:] if facts else []
    verdict = check_identity(parse_expression(lhs, positive=positive, symbols=symbols),
                             parse_expression(rhs, symbols=symbols), timeout=60, claim=f"{lhs} = {rhs}")
    print(verdict)
    assert capsys.readouterr().out == out
    assert out.startswith(f"{verdict.status.name}: {lhs} = {rhs}")


def test_the_progress_line_waits_until_a_run_has_lasted_a_few_seconds(capsys):
    progress = cli._Progress(2, after=cli.PROGRESS_AFTER)
    progress.enabled = True                     # as on a terminal
    progress.claim_done(ClaimResult("theorem1", "(a)", 1, 1, None, zeros("0 = 0", [0]), 0.1))
    progress.result_done("theorem1")
    progress.close()
    assert capsys.readouterr().err == ""
    progress.start -= cli.PROGRESS_AFTER        # the run has now lasted that long
    progress.result_done("theorem2")
    progress.close()
    assert "2/2 results" in capsys.readouterr().err


def test_json_with_steps_holds_the_claims_and_every_step(capsys):
    code, out = run(capsys, "theorem1", "--size", "1,1,1", "--json", "--steps")
    data = json.loads(out)
    assert code == 0 and data["claims"] and all(row["status"] == "proved" for row in data["claims"])
    (derivation,) = data["derivations"]
    assert derivation["result"] == "theorem1" and derivation["steps"]
    # every step is a checked statement, printed from the theorem proved; none is logical glue
    assert {step["checked"] for step in derivation["steps"]} == {True}
    assert all(step["status"] == "proved" and step["statement"] for step in derivation["steps"])
