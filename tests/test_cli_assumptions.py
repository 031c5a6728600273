"""The command line keeps every assumption: a repeated list option accumulates, a single-valued
option repeated with another value is refused, contradictory facts are bad input, and every
verdict prints the facts it was checked under.  Each test runs the command in a fresh process."""
import json
from fractions import Fraction

import pytest

from test_cli import assert_usage_error

# true only for a, b > 0: with either fact lost, a point with a < 0 refutes it
SCALED = ("relu(a*b*x)/(a*b)", "relu(x)")
# false even for a, b > 0 (at x < 0 the left side is 0, the right side b)
SHIFTED = ("relu(a*x+b)", "a*relu(x)+b")


def check_json(cli, *args):
    result = cli("check", *args, "--json")
    assert "Traceback" not in result.stderr
    return result.returncode, json.loads(result.stdout)


def test_a_repeated_fact_option_keeps_every_fact_and_the_claim_is_proved(cli):
    result = cli("check", *SCALED, "--positive", "a", "--positive", "b")
    assert result.returncode == 0, result.stdout + result.stderr
    first = result.stdout.splitlines()[0]
    assert first.startswith("PROVED: ") and first.endswith(" for a, b > 0")


@pytest.mark.parametrize("repeated, listed", [
    (["--positive", "a", "--positive", "b"], ["--positive", "a,b"]),
    (["--positive", "a", "--integer", "n", "--positive", "b"], ["--positive", "a,b", "--integer", "n"]),
])
def test_a_comma_list_is_the_same_as_repeating_the_option(cli, repeated, listed):
    sides = ("relu(a*b*n)/(a*b)", "relu(n)") if "n" in repeated else SCALED
    code, by_repeats = check_json(cli, *sides, *repeated)
    assert (code, by_repeats) == check_json(cli, *sides, *listed)
    assert by_repeats["status"] == "proved"
    assert by_repeats["assumptions"]["a"] == by_repeats["assumptions"]["b"] == ["positive"]


def test_a_comma_list_mixed_with_repeats_keeps_every_name(cli):
    code, verdict = check_json(cli, "relu(a*b*c*x)/(a*b*c)", "relu(x)", "--positive", "a,b",
                               "--positive", "c")
    assert code == 0 and verdict["facts"] == "a, b, c > 0"


def test_a_refuted_line_prints_the_facts_and_its_witness_honours_them(cli):
    result = cli("check", *SHIFTED, "--positive", "a", "--positive", "b")
    assert result.returncode == 1
    first = result.stdout.splitlines()[0]
    assert first.startswith("REFUTED: relu(a*x+b) = a*relu(x)+b for a, b > 0  witness: ")
    code, verdict = check_json(cli, *SHIFTED, "--positive", "a", "--positive", "b")
    assert code == 1 and verdict["facts"] == "a, b > 0"
    assert Fraction(verdict["witness"]["a"]) > 0 and Fraction(verdict["witness"]["b"]) > 0


def test_an_undecided_line_prints_the_facts(cli):
    # a symbol named I would print as the imaginary unit: UNDECIDED, asking for another name
    result = cli("check", "relu(a*I)", "a*relu(I)", "--positive", "a")
    assert result.returncode == 3
    assert result.stdout.startswith("UNDECIDED: relu(a*I) = a*relu(I) for a > 0  (")


def test_json_carries_the_facts_and_what_a_proved_verdict_rests_on(cli):
    code, proved = check_json(cli, "relu(a*x)", "a*relu(x)", "--positive", "a", "--integer", "x")
    assert code == 0
    assert proved["facts"] == "a > 0, x integer"
    assert proved["assumptions"] == {"a": ["positive"], "x": ["integer"]}
    assert proved["rests_on"]["oracles"]
    code, refuted = check_json(cli, *SHIFTED, "--positive", "a,b")
    assert code == 1 and refuted["assumptions"] == {"a": ["positive"], "b": ["positive"]}
    assert "rests_on" not in refuted
    code, over_the_reals = check_json(cli, "relu(x+y)", "relu(x)+relu(y)")
    assert code == 1 and over_the_reals["facts"] == "" and over_the_reals["assumptions"] == {}


@pytest.mark.parametrize("facts, named", [
    (["--positive", "a", "--negative", "a"], "'a'"),
    (["--positive", "a,b", "--negative", "x", "--negative", "b"], "'b'"),
    (["--nonnegative", "b", "--negative", "b"], "'b'"),
])
def test_contradictory_facts_are_refused_in_one_line(cli, facts, named):
    result = cli("check", *SHIFTED, *facts)
    assert_usage_error(result)
    assert named in result.stderr and "contradict" in result.stderr


def test_the_audit_accumulates_its_measures_and_groups(cli):
    listed = cli("audit", "--measure", "weight_norm,path_norm", "--group", "layerwise", "--json", "--jobs", "1")
    repeated = cli("audit", "--measure", "weight_norm", "--measure", "path_norm", "--group", "layerwise",
                   "--json", "--jobs", "1")
    assert listed.returncode == repeated.returncode == 0, listed.stderr + repeated.stderr
    cells = [(row["measure"], row["group"], row["status"]) for row in json.loads(listed.stdout)]
    assert cells == [(row["measure"], row["group"], row["status"]) for row in json.loads(repeated.stdout)]
    assert [measure for measure, _, _ in cells] == ["weight_norm", "path_norm"]
    # a name given before the last use is read too
    for args in (["--measure", "path_norm,bogus", "--measure", "weight_norm"],
                 ["--group", "bogus", "--group", "layerwise"]):
        result = cli("audit", *args)
        assert_usage_error(result)
        assert "'bogus'" in result.stderr


@pytest.mark.parametrize("args, named", [
    (["--measures", "bogus", "--measures", "path_norm"], "'bogus'"),
    (["--measures", "path_norm", "--measures", "weight_norm,bogus"], "'bogus'"),
    (["--alpha", "10,-1", "--alpha", "3"], "'-1'"),
])
def test_rescale_accumulates_its_alphas_and_measures(cli, args, named):
    # the options are read before the model and the data, which need not exist
    result = cli("rescale", "absent.onnx", "--data", "absent.npz", *args)
    assert_usage_error(result)
    assert named in result.stderr


def test_the_main_run_accumulates_its_sizes_and_results(cli):
    result = cli("theorem1", "--size", "1,1,1", "theorem2", "--size", "1,1,2", "--json")
    assert result.returncode == 0, result.stderr
    rows = json.loads(result.stdout)
    assert {row["theorem"] for row in rows} == {"theorem1", "theorem2"}
    # both sizes ran (a claim that does not depend on N has none)
    assert {row["n"] for row in rows if row["theorem"] == "theorem1"} - {None} == {1, 2}


@pytest.mark.parametrize("args, option", [
    (["--seed", "1", "--seed", "2", "--list"], "--seed"),
    (["check", "x", "x", "--timeout", "1", "--timeout", "2"], "--timeout"),
    (["check", "x", "x", "--procedure", "z3", "--procedure", "split"], "--procedure"),
    (["example", "--c", "2", "--c", "3"], "--c"),
    (["symmetry", "spec.toml", "--seed", "1", "--seed", "2"], "--seed"),
    (["audit", "--measure", "weight_norm", "--group", "layerwise", "--cell-seconds", "5", "--cell-seconds", "6"],
     "--cell-seconds"),
    (["rescale", "m.onnx", "--data", "d.npz", "--data", "e.npz"], "--data"),
])
def test_a_single_valued_option_given_two_values_is_refused(cli, args, option):
    result = cli(*args)
    assert_usage_error(result)
    assert f"{option} is given twice with different values" in result.stderr


def test_a_single_valued_option_given_the_same_value_twice_is_that_value(cli):
    once = cli("example", "--c", "2")
    twice = cli("example", "--c", "2", "--c", "2/1")
    assert once.returncode == twice.returncode == 0
    assert once.stdout == twice.stdout
