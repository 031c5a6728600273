"""The command line: tables, JSON, exit codes, and one clear line for bad input."""
import json
import os

import pytest

from symbolic.checks import zeros


def assert_usage_error(result):
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert result.stdout == ""


def test_theorem1_json_is_all_proved(cli):
    result = cli("theorem1", "--json", "--max-d", "2", "--max-h", "2", "--max-n", "2")
    assert result.returncode == 0, result.stderr
    rows = json.loads(result.stdout)
    assert rows and all(r["status"] == "proved" for r in rows)
    for key in ("theorem", "claim", "d", "h", "n", "status", "seconds", "witness"):
        assert key in rows[0]
    claims = {r["claim"][:3] for r in rows}
    assert {"(a)", "(b)", "(c)"} <= claims


def test_table_lists_claims_and_verdicts(cli):
    result = cli("theorem1", "--size", "1,1,1")
    assert result.returncode == 0
    assert "PROVED" in result.stdout and "claims:" in result.stdout


def test_list(cli):
    result = cli("--list")
    assert result.returncode == 0 and "theorem1" in result.stdout


@pytest.mark.parametrize("args", [
    ["--max-d", "0"], ["--max-h", "-1"], ["--max-n", "x"], ["--size", "1,2"], ["--size", "0,1,1"],
    ["--size", "1.5,1,1"], ["--size", "99,99,99"], ["nosuchresult"], ["--timeout", "-3"],
    ["--timeout", "nan"], ["--bogus"],
])
def test_bad_arguments_give_one_line_and_exit_2(cli, args):
    assert_usage_error(cli(*args))


def test_check_proves_refutes_and_exits_accordingly(cli):
    assert cli("check", "ReLU(a*x)", "a*relu(x)", "--positive", "a").returncode == 0
    refuted = cli("check", "relu(x+y)", "relu(x)+relu(y)", "--json")
    assert refuted.returncode == 1
    assert json.loads(refuted.stdout)["witness"]


@pytest.mark.parametrize("text", [
    "__import__('os').system('touch pwned')", "x.__class__", "lambda: 1", "x; y",
    "ReLU(x", "", "unknownfn(x)", "2**20000", "x**65", "0^-1", "log(0)",
])
def test_check_rejects_malformed_text_without_running_it(cli, text):
    from conftest import ROOT
    result = cli("check", text, "x")
    assert_usage_error(result)
    assert not os.path.exists(os.path.join(ROOT, "pwned"))


@pytest.mark.parametrize("args", [
    ["corpus", "extra"], ["check", "x"], ["check", "x", "x", "--timeout", "-1"],
    ["check", "x", "x", "--positive", "1bad"], ["example", "--bogus"], ["example", "--c", "inf"],
])
def test_every_entry_point_rejects_bad_arguments_in_one_line(cli, args):
    assert_usage_error(cli(*args))


def test_output_names_each_step_checked_and_none_as_logical_glue(cli):
    result = cli("theorem1", "--size", "1,1,1", "--steps")
    assert "[checked, PROVED; " in result.stdout and "logical glue" not in result.stdout


def test_progress_bar_draws_on_a_terminal(capsys, monkeypatch):
    from proofs.commands import cli as cli_module
    from symbolic.report import ClaimResult
    monkeypatch.setattr("sys.stderr.isatty", lambda: True, raising=False)
    progress = cli_module._Progress(2)
    progress.enabled = True
    progress.claim_done(ClaimResult("theorem1", "(a)", 1, 1, None, zeros("0 = 0", [0]), 0.1))
    progress.result_done("theorem1")
    progress.close()
    drawn = capsys.readouterr().err
    assert "1/2 results" in drawn and "1 claim," in drawn and "#" in drawn


def test_json_stays_clean_when_latex_is_written(cli, tmp_path):
    result = cli("worked_example", "--json", "--latex", str(tmp_path))
    assert result.returncode == 0
    json.loads(result.stdout)


def run_in_process(capsys, *args):
    """``python -m proofs ARGS`` in this interpreter: (exit code, stdout, stderr)."""
    from proofs.commands import cli as cli_module
    try:
        code = cli_module.main(list(args))
    except SystemExit as stop:        # --help
        code = stop.code
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_help_lists_every_subcommand_with_an_example_and_the_exit_codes(capsys):
    from proofs.commands.cli import SUBCOMMANDS
    code, out, _ = run_in_process(capsys, "--help")
    assert code == 0
    for name in SUBCOMMANDS:
        assert f"\n  {name} " in out
        assert f"python -m proofs {name}" in out
    assert "exit codes: 0 every claim PROVED, 1 some claim REFUTED, 3 some UNDECIDED" in out
    assert "2 bad" in out


@pytest.mark.parametrize("subcommand", ["corpus", "example"])
def test_subcommand_help(capsys, subcommand):
    code, out, err = run_in_process(capsys, subcommand, "--help")
    assert code == 0 and err == ""
    assert f"usage: python -m proofs {subcommand}" in out
    assert f"example: python -m proofs {subcommand}" in out


@pytest.mark.parametrize("args, named", [
    (["worked_example", "--size", "1,1,1"], "--size"), (["worked_example", "--max-d", "2"], "--max-d"),
    (["--list", "--json"], "--json"), (["--list", "theorem1"], "RESULT"), (["--list", "--latex", "x"], "--latex"),
])
def test_options_that_do_not_apply_are_refused(capsys, args, named):
    code, out, err = run_in_process(capsys, *args)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert named in err


def test_sizing_ignored_for_a_fixed_size_result_says_so(capsys):
    from argparse import Namespace
    from proofs.commands import cli as cli_module
    from proofs import worked_example
    every_result = Namespace(size=[(1, 1, 1)], max_d=None, max_h=None, max_n=None, results=[])
    assert cli_module.sweep(worked_example, every_result) == worked_example.FIXED_SIZES
    assert "worked_example runs at its fixed size d,h,N = 1,1,2; --size ignored" in capsys.readouterr().err


def _drawn_lines(capsys):
    return [line for line in capsys.readouterr().err.split("\r") if line.strip()]


@pytest.mark.parametrize("columns", [40, 80, 200])
def test_progress_bar_fits_the_terminal_and_moves_with_claims(capsys, monkeypatch, columns):
    import os
    from proofs.commands import cli as cli_module
    from symbolic.report import ClaimResult
    monkeypatch.setattr(cli_module.shutil, "get_terminal_size",
                        lambda fallback=None: os.terminal_size((columns, 24)))
    progress = cli_module._Progress(2, [27, 1])
    progress.enabled = True
    row = ClaimResult("theorem3", "(iii) a claim with a long name " * 4, 3, 3, 3, zeros("0 = 0", [0]), 0.1)
    for _ in range(30):
        progress.claim_done(row)      # one long result: the bar moves claim by claim
    progress.result_done("theorem3")
    progress.close()
    lines = _drawn_lines(capsys)
    assert all(len(line) <= columns - 1 for line in lines)
    assert len(lines) == 31
    filled = [line.split("]")[0].count("#") for line in lines]
    assert filled == sorted(filled) and filled[0] < filled[29] < filled[30]
    assert 0 < filled[29] and "0/2 results" in lines[29] and "1/2 results" in lines[30]
