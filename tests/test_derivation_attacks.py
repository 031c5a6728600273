"""Attacks on the derivation machinery: the rule of transitivity, the reading of where an expression
is defined, the decided relation, ``check --relation`` and ``derive``.

Each test asserts the sound behaviour: a false statement is never PROVED, a true one never
REFUTED, bad input is one line on stderr and exit 2, and what is printed is what was checked.
"""
from __future__ import annotations

import contextlib
import io

import pytest
import sympy as sp

from proofs.commands.cli import main
from symbolic.checks import identity, relation
from symbolic.derivations import Derivation, DerivationError, read_derivations
from symbolic.kernel import Status, transitivity
from symbolic.relu import ReLU

x = sp.Symbol("x", real=True)


def _derive(tmp_path, text: str, *options):
    """``python -m proofs derive FILE`` run in this process: (exit code, stdout, stderr)."""
    path = tmp_path / "attack.deriv"
    path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(["derive", str(path), "--timeout", "20", *options])
        except SystemExit as leaving:
            code = leaving.code
    return code, out.getvalue(), err.getvalue()


def _check(*args):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(["check", *args])
        except SystemExit as leaving:
            code = leaving.code
    return code, out.getvalue(), err.getvalue()


def _written(*factors):
    return sp.Mul(*factors, evaluate=False)


def _reciprocal(b):
    return sp.Pow(b, -1, evaluate=False)


# a Piecewise with no branch at x = 0: undefined there, as sympy evaluates it (nan)
PARTIAL = sp.Piecewise((1, x > 0), (-1, x < 0))
TOTAL = sp.Piecewise((1, x > 0), (-1, True))


# --- false PROVED through the rule of transitivity ---------------------------------------------------

def test_an_intermediate_piecewise_with_no_branch_somewhere_gives_no_conclusion():
    """sign(x) = PARTIAL holds where PARTIAL is defined (x ≠ 0), PARTIAL = TOTAL too; but
    sign(x) = TOTAL is false at x = 0 (0 against -1): the partial Piecewise imposes x ≠ 0."""
    checked = Derivation(sp.sign(x)).step("=", PARTIAL).step("=", TOTAL).check(seconds=10)
    assert all(step.status is Status.PROVED for step in checked.steps)
    assert checked.conclusion.status is not Status.PROVED, checked.conclusion.theorem.statement.text


def test_an_intermediate_piecewise_with_no_branch_somewhere_gives_no_inequality():
    """sign(x) <= PARTIAL <= TOTAL, each step true where defined; sign(0) = 0 > -1 = TOTAL at 0."""
    checked = Derivation(sp.sign(x)).step("<=", PARTIAL).step("<=", TOTAL).check(seconds=10)
    assert checked.conclusion.status is not Status.PROVED, checked.conclusion.theorem.statement.text


NEVER = sp.Piecewise((5, sp.And(x > 1, x < 0)))      # defined at no point


def test_a_piecewise_defined_nowhere_in_the_middle_does_not_prove_0_lt_minus_1():
    """0 < NEVER and NEVER < -1 each hold vacuously (NEVER has no point); the chain must not
    conclude 0 < -1."""
    checked = Derivation(sp.S.Zero).step("<", NEVER).step("<", sp.Integer(-1)).check(seconds=10)
    assert checked.conclusion.status is not Status.PROVED, checked.conclusion.theorem.statement.text


def test_a_relation_on_an_empty_domain_says_nothing_for_a_piecewise_too():
    """sqrt(-1) <= 0 is UNDECIDED (the domain as written is empty); so is 0 < NEVER."""
    assert relation(sp.S.Zero, "<", NEVER, seconds=5).status is not Status.PROVED


def test_the_kernel_rule_alone_refuses_a_partial_piecewise_intermediate():
    steps = [identity(sp.sign(x), PARTIAL), identity(PARTIAL, TOTAL)]
    assert all(step.status is Status.PROVED for step in steps)
    assert transitivity(steps).status is not Status.PROVED


def test_a_side_condition_about_a_partial_piecewise_does_not_stand_for_its_definedness():
    """1/PARTIAL is defined where PARTIAL is and PARTIAL ≠ 0: the side condition PARTIAL != 0
    (true where PARTIAL is defined) must not make the chain conclude at x = 0."""
    middle = _written(sp.Integer(1), _reciprocal(PARTIAL))
    checked = Derivation(sp.sign(x)).step("=", middle).step("=", TOTAL).check(seconds=10)
    assert checked.conclusion.status is not Status.PROVED


# --- attacks on the rule of transitivity that held ---------------------------------------------------

def test_a_removable_singularity_in_the_middle_gives_no_conclusion():
    """1 = x/x = sign(x)^2: both steps PROVED, 1 = sign(x)^2 false at 0."""
    middle = _written(x, _reciprocal(x))
    checked = Derivation(sp.S.One).step("=", middle).step("=", sp.Pow(sp.sign(x), 2, evaluate=False)).check()
    assert [s.status for s in checked.steps] == [Status.PROVED, Status.PROVED]
    assert checked.conclusion.status is not Status.PROVED


def test_a_root_in_the_middle_gives_no_conclusion():
    """relu(x) = sqrt(x)^2 (x ≥ 0) = x: relu(x) = x is false at -1."""
    middle = sp.Pow(sp.Pow(x, sp.S.Half, evaluate=False), 2, evaluate=False)
    checked = Derivation(ReLU(x)).step("=", middle).step("=", x).check(seconds=10)
    assert checked.conclusion.status is not Status.PROVED


def test_a_log_in_the_middle_gives_no_conclusion():
    """relu(x) <= exp(log(x)) (x > 0) = x: relu(x) <= x is false at -1."""
    middle = sp.exp(sp.log(x, evaluate=False), evaluate=False)
    checked = Derivation(ReLU(x)).step("<=", middle).step("=", x).check(seconds=10)
    assert checked.conclusion.status is not Status.PROVED


def test_a_remainder_in_the_middle_gives_no_conclusion():
    a = sp.Symbol("a", real=True)
    middle = sp.Add(x, _written(0, sp.Mod(x, a, evaluate=False)), evaluate=False)
    checked = Derivation(x).step("=", middle).step("=", x).check(seconds=10)
    assert checked.conclusion.status is not Status.PROVED


def test_a_side_condition_that_holds_lets_the_chain_conclude():
    """1 = (x^2+1)/(x^2+1) = 1: the denominator is never 0, the side condition is PROVED."""
    b = sp.Add(sp.Pow(x, 2, evaluate=False), 1, evaluate=False)
    checked = Derivation(sp.S.One).step("=", _written(b, _reciprocal(b))).step("=", sp.S.One).check(seconds=10)
    assert checked.conclusion.status is Status.PROVED


def test_two_symbols_named_alike_with_different_facts_give_no_conclusion():
    xp = sp.Symbol("x", positive=True)

    def side(s):
        return sp.Add(sp.Pow(sp.Pow(s, 2, evaluate=False), sp.S.Half, evaluate=False), _written(-1, s),
                      evaluate=False)
    checked = Derivation(side(xp)).step("=", sp.S.Zero).step("<=", side(x)).check(seconds=10)
    assert checked.conclusion.status is not Status.PROVED


def test_strict_and_non_strict_chain_as_they_should():
    strict = Derivation(x).step("<", x + 1).step("=", 1 + x).check(seconds=10)
    loose = Derivation(x).step("<=", x + 1).step("=", 1 + x).check(seconds=10)
    assert strict.conclusion.theorem.statement.relation == "<"
    assert loose.conclusion.theorem.statement.relation == "<="


def test_a_chain_that_goes_up_and_down_or_through_not_equal_is_refused():
    with pytest.raises(DerivationError):
        read_derivations("  x\n<= x + 1\n>= x\n")
    with pytest.raises(DerivationError):
        read_derivations("  x\n!= x + 1\n!= x\n")
    steps = [relation(x, "<=", x + 1), relation(x + 1, ">=", x)]
    assert all(step.status is Status.PROVED for step in steps)
    assert transitivity(steps).status is not Status.PROVED


def test_a_kink_is_checked_at_the_kink():
    [true] = read_derivations("  relu(x) - relu(-x)\n= x\n")
    [false] = read_derivations("  relu(2*x)\n= relu(x)\n")
    assert true.check().status is Status.PROVED
    assert false.check().status is Status.REFUTED


def test_an_assumption_is_used_and_printed():
    [chain] = read_derivations("assume a > 0\n  relu(a*x)/a\n= relu(x)\n<= abs(x)\n")
    checked = chain.check(seconds=20)
    assert checked.status is Status.PROVED
    assert "a > 0" in checked.conclusion.theorem.statement.text


# --- the decided relation: no true claim REFUTED, no false one PROVED ----------------------------------

@pytest.mark.parametrize("lhs, rel, rhs", [
    ("heaviside(3*x-1)", "!=", "1/2"), ("sign(3*x-1)", "!=", "0"), ("relu(3*x-1)+relu(1-3*x)", ">", "0"),
    ("abs(3*x-1)", ">", "0"), ("x^2", ">=", "x"), ("x", "!=", "x")])
def test_a_false_relation_failing_only_off_the_grid_is_refuted(lhs, rel, rhs):
    code, out, err = _check(lhs, rhs, "--relation", rel)
    assert code == 1 and out.startswith("REFUTED"), out + err


@pytest.mark.parametrize("lhs, rel, rhs", [
    ("relu(x)", "<=", "abs(x)"), ("0.1+0.2", "<=", "0.3"), ("sqrt(x)*sqrt(x)", ">=", "x"), ("x/x", ">=", "1"),
    ("heaviside(3*x-1)*(3*x-1)", ">=", "0")])
def test_a_true_relation_is_not_refuted(lhs, rel, rhs):
    code, out, err = _check(lhs, rhs, "--relation", rel)
    assert code in (0, 3) and not out.startswith("REFUTED"), out + err


def test_facts_of_the_symbols_are_respected():
    q, n = sp.Symbol("q", rational=True), sp.Symbol("n", integer=True)
    assert relation(q ** 2, "!=", 2, seconds=5).status is not Status.REFUTED
    assert relation(n ** 2, ">=", n, seconds=5).status is Status.PROVED
    assert relation(sp.Abs(3 * q - 1), ">", 0, seconds=5).status is Status.REFUTED


def test_a_fact_a_solver_ignores_does_not_refute_a_true_claim():
    """True for integers or rationals, false at a real point off the grid of small numbers (1/3,
    sqrt 2): a solver's model there must not refute the claim."""
    q, n = sp.Symbol("q", rational=True), sp.Symbol("n", integer=True)
    m = sp.Symbol("m", integer=True, positive=True)
    for lhs, rel, rhs in [(sp.Abs(3 * n - 1), ">", 0), ((q ** 2 - 2) ** 2, ">", 0), (q ** 3, "!=", 2),
                          ((3 * n - 1) ** 2, ">=", 1), (sp.Abs(5 * m - 7), ">=", 1)]:
        assert relation(lhs, rel, rhs, seconds=5).status is not Status.REFUTED, (lhs, rel, rhs)


def test_a_relation_with_a_partial_piecewise_is_decided_where_it_is_defined():
    assert relation(sp.Piecewise((1, x > 0)), ">=", 1, seconds=5).status is not Status.REFUTED


# --- bad input: one line on stderr, exit 2, never an internal error ----------------------------------

def test_contradictory_assumptions_are_bad_input(tmp_path):
    code, out, err = _derive(tmp_path, "assume x > 0\nassume x < 0\n  x\n= x + 1\n")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "internal error" not in err, err


def test_contradictory_assumptions_on_one_line_are_bad_input(tmp_path):
    code, out, err = _derive(tmp_path, "assume x >= 0, x < 0\n  x\n> 5\n")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "internal error" not in err, err


def test_zero_over_zero_in_an_index_level_term_is_no_internal_error(tmp_path):
    code, out, err = _derive(tmp_path, "  sum(v[j]*(0/0), j, 1, h)\n= sum(v[j]*(0/0), j, 1, h)*2   by arithmetic\n")
    assert code != 4 and "internal error" not in err, err
    assert code != 2 or len(err.strip().splitlines()) == 1


def test_one_over_zero_in_an_index_level_term_is_no_internal_error(tmp_path):
    code, out, err = _derive(tmp_path, "  sum(v[j]*(1/0), j, 1, h)\n= sum(v[j], j, 1, h)*(1/0)   by sum factor\n")
    assert code != 4 and "internal error" not in err, err
    assert code != 0, out


@pytest.mark.parametrize("text", [
    "  x\n= x +\n", "= x\n", "assume x > 1\n  x\n= x\n", "  x\n=\n", "  sum(x, j, 1, 2)\n= x\n",
    "  W[i+x]\n= W[i]\n", "  sum(v[j], j, 1, h\n= 0\n", "  relu()\n= 0\n", b"\xff\xfe\x00bad\n",
    "  " + "(" * 500 + "x" + ")" * 500 + "\n= x\n", "  x[i]^2\n= x[i]*x[i]\n", "  2^sum(v[j], j, 1, h)\n= 1\n",
    "  sum(v[j], j, 1, h)/sum(v[j], j, 1, h)\n= 1\n", "  W[]\n= 0\n", "  sum(v[j], j, 0, h)\n= 0\n",
    "  sum(v[j], 1, 1, h)\n= 0\n", "  2^(2^(2^(2^(2^10))))\n> 1\n", "  v[j]^(2^(2^20))\n= 0\n",
    "  x\nassume x > 0\n= x\n", "  x   by foo\n= x\n", "assume 1x > 0\n  x\n= x\n", "  0/0\n= 1\n",
    "assume relu > 0\n  relu(x)\n= x\n", "  x\n<= x + 1\n>= x\n", "  x\n!= y\n", "", "# only a comment\n",
    "  x\n", "  sum(v[j], j, 1, h)\n= 9" + "9" * 4100 + "\n"])
def test_a_malformed_file_is_one_line_and_exit_2(tmp_path, text):
    code, out, err = _derive(tmp_path, text)
    assert code == 2, (code, out, err)
    assert len(err.strip().splitlines()) == 1 and "internal error" not in err and "Traceback" not in err, err


@pytest.mark.parametrize("text", [
    "  sum(" + "(" * 3000 + "v[j]" + ")" * 3000 + ", j, 1, h)\n= sum(v[j], j, 1, h)\n",
    "  " + "relu(" * 300 + "v[j]" + ")" * 300 + "\n= v[j]\n"])
def test_an_index_level_term_nested_too_deeply_is_bad_input(tmp_path, text):
    """The grammar of check refuses nesting deeper than 100 in one line; the index-level reader
    has no limit and the file ends in 'internal error: RecursionError' (exit 4)."""
    code, out, err = _derive(tmp_path, text)
    assert code == 2 and len(err.strip().splitlines()) == 1 and "internal error" not in err, err


def test_an_index_level_term_longer_than_the_size_rule_is_bad_input(tmp_path):
    """An expression has at most 20,000 characters (the scalar grammar refuses 'x+0+0…' of 24,001);
    the index-level reader reads and checks one of 24,000."""
    code, out, err = _derive(tmp_path, "  sum(v[j]" + "+0" * 12000 + ", j, 1, h)\n= sum(v[j], j, 1, h)\n")
    assert code == 2 and len(err.strip().splitlines()) == 1, (code, err)


@pytest.mark.parametrize("args", [
    ["x", "x", "--relation", "=<"], ["x", "x", "--relation", ""], ["x", "y", "--relation", "<=", "--relation", ">="],
    ["1e-4000", "0", "--relation", ">"], ["x", "x", "--relation", "<=", "--timeout=nan"]])
def test_odd_arguments_to_check_relation_are_one_line_and_exit_2(args):
    code, out, err = _check(*args)
    assert code == 2 and len(err.strip().splitlines()) == 1, (code, out, err)


# --- time budgets: a step's budget is kept ------------------------------------------------------------

def test_a_step_stops_near_its_time_budget():
    """(x+y+z+1)^48 >= 0 with a budget of 1 s: cvc5's own time limit is not kept inside its
    coverings (the call is uninterrupted), and the step ran 60 s on the 2-core VM before cvc5 was
    stopped at its limit.  The bound below is generous (30 times the budget) so that the machine's
    load cannot decide the test, and still far below what the unkept limit took."""
    import time
    [chain] = read_derivations("  (x+y+z+1)^48\n>= 0\n")
    started = time.monotonic()
    chain.check(seconds=1)
    assert time.monotonic() - started < 30


def test_a_relation_whose_exact_points_are_huge_stops_near_its_budget():
    """check '2^(2^(20*x))' '0' --relation '>' --timeout 1: at the grid point x = 2 the exact
    value 2^(2^40) is computed in one uninterruptible step; the command ran past 15 s (600 MB)
    on the 2-core VM.  It must end near its budget, UNDECIDED or PROVED."""
    import subprocess
    import sys
    try:
        done = subprocess.run([sys.executable, "-m", "proofs", "check", "2^(2^(20*x))", "0", "--relation", ">",
                               "--timeout", "1"], capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:     # generous, against the machine's load: 2^(2^40) never ends
        pytest.fail("check --relation ran past 60 s with a budget of 1 s")
    assert done.returncode in (0, 3), done.stdout + done.stderr


# --- index-level steps --------------------------------------------------------------------------------

def test_a_scalar_named_as_the_summation_index_is_not_factored_out(tmp_path):
    """sum(j*v[j], j, 1, h) reads Σ_j j·v_j; 'j·Σ_j v_j' is false (h = 2: v1 + 2 v2 against
    j (v1 + v2)); a scalar j that prints as the bound index is refused or the step not PROVED."""
    code, out, err = _derive(tmp_path, "  sum(j*v[j], j, 1, h)\n= j*sum(v[j], j, 1, h)   by sum factor\n")
    assert code != 0 and "conclusion: PROVED" not in out, out


def test_a_scalar_named_as_a_bound_index_of_an_entry_is_not_factored_out(tmp_path):
    code, out, err = _derive(tmp_path, "  sum(i*W[i,j], i, 1, d)\n= i*sum(W[i,j], i, 1, d)   by sum factor\n")
    assert code != 0 and "conclusion: PROVED" not in out, out


@pytest.mark.parametrize("zero", ["0", "(a-a)"])
def test_a_side_nowhere_defined_proves_nothing(tmp_path, zero):
    """0*sum(v[j]/0) is defined nowhere: as for a scalar claim (check 'v/(a-a)' '2*v/(a-a)' is
    UNDECIDED, the domain as written is empty), an index-level step with such a side is not
    PROVED (the arithmetic rule reads no scalar inside a sum)."""
    code, out, err = _derive(tmp_path, f"  sum(v[j], j, 1, h)*0\n= sum(v[j]*(1/{zero}), j, 1, h)*0   by arithmetic\n")
    assert code != 0 and "conclusion: PROVED" not in out, out


@pytest.mark.parametrize("lhs, rhs, reason", [
    ("sum(v[j]*(1/(a-a)), j, 1, h)", "(1/(a-a))*sum(v[j], j, 1, h)", "sum factor"),
    ("sum(sum(W[i,j]*(1/(a-a)), i, 1, d), j, 1, h)", "sum(sum(W[i,j]*(1/(a-a)), j, 1, h), i, 1, d)",
     "sum interchange")])
def test_a_step_nowhere_defined_is_not_proved_by_any_rule(tmp_path, lhs, rhs, reason):
    """The arithmetic rule refuses a scalar that divides by a - a; the sum factor and sum
    interchange rules PROVED such a step, though both its sides are defined nowhere (check says
    of the same claim on scalars: the domain as written is empty)."""
    code, out, err = _derive(tmp_path, f"  {lhs}\n= {rhs}   by {reason}\n")
    assert code != 0 and "conclusion: PROVED" not in out, out


def test_an_index_level_step_nowhere_defined_is_not_refuted(tmp_path):
    """Σ ((a-a)/(a-a)) v_j = 2 Σ ((a-a)/(a-a)) v_j holds wherever both sides are defined (nowhere);
    it was REFUTED 'at the instance h = 1' with a witness v_1 = 2297/2 that gives a no value
    (the scalar claim is UNDECIDED: the domain as written is empty)."""
    code, out, err = _derive(tmp_path, "  sum(v[j]*((a-a)/(a-a)), j, 1, h)\n"
                                       "= sum(v[j]*((a-a)/(a-a)), j, 1, h)*2   by arithmetic\n")
    assert code != 1 and "internal error" not in err, out + err


def test_a_bound_renaming_that_captures_an_index_is_refuted(tmp_path):
    code, out, err = _derive(tmp_path, "  sum(sum(W[j,k], k, 1, h), j, 1, d)\n"
                                       "= sum(sum(W[k,k], k, 1, h), k, 1, d)   by bound renaming\n")
    assert code == 1, out + err


def test_an_interchange_that_swaps_the_entry_indices_is_not_proved(tmp_path):
    code, out, err = _derive(tmp_path, "  sum(sum(W[j,k], k, 1, h), j, 1, d)\n"
                                       "= sum(sum(W[k,j], j, 1, h), k, 1, d)   by sum interchange\n")
    assert code != 0, out + err


@pytest.mark.parametrize("lhs, rhs, reason", [
    ("sum(v[j+1], j, 1, h)", "sum(v[j], j, 1, h)", "reindexing"),
    ("sum(v[j]*w[j], j, 1, h)", "v[j]*sum(w[j], j, 1, h)", "sum factor"),
    ("sum(sum(W[i,j], i, 1, d)*w[j], j, 1, h)", "sum(W[i,j], i, 1, d)*sum(w[j], j, 1, h)", "sum factor"),
    ("sum(v[j]*w[j+1], j, 1, h)", "sum(v[j+1]*w[j], j, 1, h)", "bound renaming"),
    ("relu(sum(v[j], j, 1, h)) + relu(-sum(v[j], j, 1, h))", "sum(v[j], j, 1, h)", "arithmetic"),
    ("relu(-2*v[j])", "-2*relu(v[j])", "ReLU homogeneity"),
    ("relu((1-2)*v[j])", "(1-2)*relu(v[j])", "ReLU homogeneity")])
def test_a_false_index_level_step_is_refuted(tmp_path, lhs, rhs, reason):
    code, out, err = _derive(tmp_path, f"  {lhs}\n= {rhs}   by {reason}\n")
    assert code == 1, out + err


@pytest.mark.parametrize("name", ["pi"])
def test_an_index_level_scalar_named_as_a_number_is_refused(tmp_path, name):
    """check refuses a symbol named pi ('would print as something it is not'); an index-level
    chain printed 'Σ π v_j = π Σ v_j for π < 0' as PROVED (its LaTeX writes the symbol \\pi, the
    number's own sign; E, I and oo print as letters there, not as the numbers)."""
    code, out, err = _derive(tmp_path, f"assume {name} < 0\n  sum({name}*v[j], j, 1, h)\n"
                                       f"= {name}*sum(v[j], j, 1, h)   by sum factor\n")
    assert code != 0 and "conclusion: PROVED" not in out, out


def test_the_size_as_a_factor_is_factored_out(tmp_path):
    """sum(v[j]*h, j, 1, h) = h*sum(v[j], j, 1, h) is true: h does not depend on j."""
    code, out, err = _derive(tmp_path, "  sum(v[j]*h, j, 1, h)\n= h*sum(v[j], j, 1, h)   by sum factor\n")
    assert code == 0, out + err


def test_the_arithmetic_rule_inverts_no_scalar_that_may_be_zero(tmp_path):
    """The rule says 'only non-zero scalars are inverted' and its validity test refuses c/c = 1
    for a real c; an index-level chain has no side conditions, so a/a for a real a must not pass."""
    code, out, err = _derive(tmp_path, "  sum(v[j], j, 1, h)\n= sum(v[j], j, 1, h)*(a/a)   by arithmetic\n")
    assert code != 0 and "conclusion: PROVED" not in out, out


def test_a_false_every_size_step_is_refuted(tmp_path):
    code, out, err = _derive(tmp_path, "  sum(sum(v[j], j, 1, h), j, 1, h)\n= 0\n")
    assert code == 1, out + err


def test_a_relation_between_index_level_terms_is_not_proved(tmp_path):
    code, out, err = _derive(tmp_path, "  sum(v[j], j, 1, h)\n<= sum(v[j], j, 1, h)\n")
    assert code == 3, out + err


def test_index_and_scalar_steps_do_not_chain():
    index = read_derivations("  sum(v[j], j, 1, h)\n= sum(v[j], j, 1, h)*1\n")[0]
    index_step = index.check().steps[0].verdict
    scalar_step = identity(x, x)
    assert index_step.status is Status.PROVED and scalar_step.status is Status.PROVED
    assert transitivity([index_step, scalar_step]).status is not Status.PROVED


# --- what is printed is what was checked ------------------------------------------------------------

def test_an_index_level_step_does_not_print_as_x_equals_x(tmp_path):
    """W[i]*1 = W[i] was checked (a product with 1 against the entry); it must not print as
    'W_{i} = W_{i}', a statement that says nothing."""
    code, out, err = _derive(tmp_path, "  W[i,j,k,l,m]\n= W[i,j,k,l,m]*1\n")
    step = next(line for line in out.splitlines() if "step 1" in line)
    lhs, rhs = step.split(": ", 2)[-1].split(" = ")
    assert lhs.strip() != rhs.strip(), step


def test_the_printed_conclusion_is_the_kernels(tmp_path):
    code, out, err = _derive(tmp_path, "  x/x\n= sign(x)^2\n<= 1\n", "--json")
    import json
    chain = json.loads(out)["chains"][0]
    assert chain["conclusion"]["statement"] == "x/x <= 1"
    assert [s["statement"] for s in chain["steps"]] == ["x/x = sign(x)**2", "sign(x)**2 <= 1"]


def test_certify_coq_says_what_coq_answered_in_the_text_output(tmp_path):
    """--certify coq: the JSON and LaTeX say per step what Coq answered; the terminal text says
    nothing, so a reader cannot tell a step Coq checked from one it did not take."""
    code, out, err = _derive(tmp_path, "  x/x\n= sign(x)^2\n", "--certify", "coq")
    assert code == 0, out + err
    assert "coq" in out.lower(), out


def test_a_step_printed_as_x_equals_x_carries_the_warning_check_gives(tmp_path):
    """'y + x = x + y' prints as 'x + y = x + y' (sympy's printer orders the terms); check warns
    that such a claim says nothing, derive prints the bare X = X as PROVED."""
    code, out, err = _derive(tmp_path, "  y + x\n= x + y\n")
    step = next(line for line in out.splitlines() if "step 1" in line)
    lhs, rhs = step.split(": ", 2)[-1].split(" = ")
    assert lhs.strip() != rhs.strip() or "says nothing" in out, out


@pytest.mark.parametrize("name, misleading", [
    ("a__b", "a^{b}"), ("xabs", r"\left|{x}\right|"), ("xmag", r"\left|{x}\right|"),
    ("xnorm", r"\left\|{x}\right\|")])
def test_a_symbol_name_is_not_printed_as_another_expression_in_latex(name, misleading):
    """A symbol named a__b (xabs, xnorm) is one real number; sympy's LaTeX printer writes it a^{b}
    (|x|, ||x||), so the document would show '|x| < 0' for the symbol xabs assumed negative.  The
    name is refused, or printed as a name."""
    from symbolic.derivations.document import chain_latex
    try:
        [chain] = read_derivations(f"assume {name} < 0\n  {name}\n< 0\n")
    except DerivationError:
        return
    checked = chain.check(seconds=10)
    assert checked.status is Status.PROVED
    assert misleading not in chain_latex(checked)


def test_a_step_whose_sides_are_one_expression_carries_the_warning_check_gives(tmp_path):
    """'-x^2 = -(x^2)': both sides are one expression as written (check warns that the claim says
    nothing); derive printed '-x**2 = -x**2' PROVED and no warning."""
    code, out, err = _derive(tmp_path, "  -x^2\n= -(x^2)\n")
    assert "says nothing" in out, out


def test_a_reason_with_latex_commands_is_escaped():
    from symbolic.derivations.document import document
    [chain] = read_derivations("  x\n= x + 0   by \\input{secret} $\\write18{ls}$\n")
    text = document([chain.check()], "attack")
    assert "\\input{secret}" not in text and "\\write18" not in text
