"""A kernel in fact: the attacks on definitions and on free-text claims, each in a fresh process
(no proof ran before it) and again after the project's own proofs, and the output paths that
refuse a PROVED verdict the kernel did not issue."""
import ast
import json
import os
import subprocess
import sys
import textwrap

import pytest
import sympy as sp

from symbolic.trusted.oracles.exact import EXACT_ZERO, RATIONAL_COMPARISON
from symbolic import Status, Verdict
from symbolic.kernel import Equation, by_oracle, conjunction, issued, refuse_forged
from symbolic.checks import identity, zeros
from symbolic.kernel.verdict import ForgedVerdict
from conftest import forged_verdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# each attack ends with ``verdict`` (refused when it is not PROVED), or ``free_text`` (whether a
# PROVED says what was not checked), or a definition refused with a ValueError; it prints one JSON
# line: {"refused": bool, "why": text}
ATTACKS = {
    # one family defined twice under two index names: 0 = A_i = A_j = 1
    "two definitions of one family": """
        from symbolic.logic.terms import Const, Entry
        from symbolic.kernel.derivations import definition
        definition("A_i := 0", Entry("A", ("i",)), Const(sp.S.Zero), ("i",))
        definition("A_j := 1", Entry("A", ("j",)), Const(sp.S.One), ("j",))
    """,
    # a scalar defined, then an expression in it: a = 0 and 2a = 1
    "a scalar and an expression in it": """
        from symbolic.logic.terms import Const
        from symbolic.kernel.derivations import definition
        a = sp.Symbol("a")
        definition("a := 0", Const(a), Const(sp.S.Zero))
        definition("2a := 1", Const(2 * a), Const(sp.S.One))
    """,
    # W := 0 before anything else, then 5W = 0 = W by a chain, the map W -> 5W built
    "a parameter defined as 0": """
        from symbolic.logic.terms import Const, Entry, Mul, Transformation
        from symbolic.kernel.derivations import Chain, definition
        W = Entry("W", ("i", "j"))
        zero = definition("W := 0", W, Const(sp.S.Zero), ("i", "j"))
        from symbolic.trusted.axioms.index_rules import ARITHMETIC
        five = Transformation("T_5", ((W, Mul((Const(sp.Integer(5)), W))),))
        chain = Chain("f(5W) = f(W)", five.apply(W))
        chain.then(zero, Mul((Const(sp.Integer(5)), Const(sp.S.Zero)))).then(ARITHMETIC, Const(sp.S.Zero)).then(zero, W)
        verdict = chain.check()
    """,
    # alpha := 1, then the wrong-scale map (alpha^2 on W, alpha^5 on v) would pass Theorem 1
    "the group parameter defined as 1": """
        from symbolic.logic.terms import Const
        from symbolic.kernel.derivations import definition
        from symbolic.networks.rescaling import ALPHA
        definition("alpha := 1", Const(ALPHA), Const(sp.S.One))
        from proofs import all_sizes
        from symbolic.every_size.networks import one_layer_map
        wrong = one_layer_map("T", Const(ALPHA ** 2), Const(ALPHA ** 5))
        verdict = all_sizes.invariance_chain("Theorem 1 for alpha^2, alpha^5", wrong).check()
    """,
    # a user's own family: U := 0, then U -> 5U
    "a user family defined, then mapped": """
        from symbolic.logic.terms import Const, Entry, Mul, Transformation
        from symbolic.kernel.derivations import definition, prove, Chain
        from symbolic.trusted.axioms.index_rules import ARITHMETIC
        zero = definition("U := 0", Entry("U", ("i",)), Const(sp.S.Zero), ("i",))
        T = Transformation("T_5", ((Entry("U", ("i",)), Mul((Const(sp.Integer(5)), Entry("U", ("i",))))),))
        chain = Chain("5U = U", T.apply(Entry("U", ("i",))))
        chain.then(zero, Mul((Const(sp.Integer(5)), Const(sp.S.Zero)))).then(ARITHMETIC, Const(sp.S.Zero))
        chain.then(zero, Entry("U", ("i",)))
        verdict = chain.check()
    """,
    # the claim a reader sees is the statement checked: a label cannot turn 0 = 0 into 1 = 2
    "free text as a claim": """
        from symbolic.kernel import conjunction
        from symbolic.checks import zeros
        verdict = conjunction([zeros("0 = 0", [sp.S.Zero])], label="1 = 2")
        # proved, but of what it checked: the claim printed is the statement 0 = 0, after its label
        free_text = not (verdict.statement.text == "0 = 0" and verdict.claim.endswith(": 0 = 0"))
    """,
}

PRELUDE = """
import json, sympy as sp
from symbolic.kernel.verdict import Status
free_text = None
try:
{body}
except ValueError as error:          # a definition refused
    print(json.dumps({{"refused": True, "why": str(error)}}))
else:
    if free_text is not None:
        print(json.dumps({{"refused": not free_text, "why": verdict.claim}}))
    else:
        print(json.dumps({{"refused": verdict.status is not Status.PROVED, "why": verdict.claim + " " + verdict.reason}}))
"""


def run_attack(name: str, after_proofs: bool) -> dict:
    body = textwrap.indent(textwrap.dedent(ATTACKS[name]), "    ")
    if after_proofs:
        body = "    from proofs import all_sizes\n    all_sizes.theorem1_loss(); all_sizes.layers_theorem(all_sizes.DEEP)\n" + body
    script = PRELUDE.format(body=body)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=300,
                          env={**os.environ, "PYTHONPATH": ROOT})
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("after_proofs", [False, True], ids=["fresh process", "after the proofs"])
@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_each_attack_is_refused_whatever_ran_before(name, after_proofs):
    outcome = run_attack(name, after_proofs)
    assert outcome["refused"], f"{name}: {outcome['why']}"


def test_a_proved_verdict_cannot_be_built_by_hand():
    with pytest.raises(ForgedVerdict):
        Verdict(Status.PROVED, "1 = 2")
    # a copy keeps the theorem, so the claim it prints is still the statement checked
    x = sp.Symbol("x", real=True)
    lhs, rhs = x * (x + 1), x ** 2 + x
    proved = identity(lhs, rhs, label="a product expanded")
    assert issued(proved) and proved.statement.lhs is lhs and proved.statement.rhs is rhs
    assert proved.claim == f"a product expanded: {proved.statement.text}"
    assert proved.rests_on["oracles"] == ["exact identity test"]


def test_every_output_path_refuses_a_hand_made_proved_verdict():
    from symbolic.derivation import Derivation
    from symbolic.report import ClaimResult, Report
    from symbolic.testing import _refuse_forged
    forged = forged_verdict()
    assert not issued(forged)
    assert refuse_forged(forged).status is Status.UNDECIDED
    # a proof script's row (the table, JSON and LaTeX are printed from the rows)
    report = Report(Derivation(name="t", title="t", source="t", statement="t"))
    assert report.record("t", "1 = 2", (None, None, None), lambda: forged).status is Status.UNDECIDED
    assert ClaimResult("t", "1 = 2", None, None, None, forged, 0.0).as_json()["status"] == "undecided"
    # a conjunction does not take it as a premise
    assert conjunction([forged, zeros("0 = 0", [sp.S.Zero])], label="both").status is Status.UNDECIDED
    # the pytest helpers
    with pytest.raises(AssertionError, match="did not issue"):
        _refuse_forged(forged)
    # print(verdict), the command line's text, and a derivation's step (the LaTeX document)
    assert str(forged).startswith("UNDECIDED") and "did not issue" in str(forged)
    derivation = Derivation(name="t", title="t", source="t", statement="t")
    step = derivation.add([forged], "by hand")
    assert step.verdicts[0].status is Status.UNDECIDED
    from symbolic.latex import render
    assert r"\textbf{PROVED}" not in render(derivation).split(r"\section*{Derivation}")[1]


def test_an_oracle_runs_its_test_on_the_statement_it_is_given():
    x = sp.Symbol("x", real=True)
    assert by_oracle(EXACT_ZERO, Equation(x * (x - 1), x ** 2 - x)).status is Status.PROVED
    assert by_oracle(EXACT_ZERO, Equation(x, x + 1)).status is Status.UNDECIDED
    assert by_oracle(RATIONAL_COMPARISON, Equation(sp.Rational(1, 3), sp.Rational(2, 6))).status \
        is Status.PROVED
    assert by_oracle("no such oracle", Equation(x, x)).status is Status.UNDECIDED
    assert by_oracle(EXACT_ZERO, "x = x").status is Status.UNDECIDED      # text is no statement


# --- no PROVED outside the kernel ----------------------------------------------------------------------

KERNEL = os.path.join("symbolic", "kernel")


def _python_files():
    for top in ("symbolic", "proofs"):
        for folder, _, files in os.walk(os.path.join(ROOT, top)):
            for name in files:
                if name.endswith(".py"):
                    yield os.path.relpath(os.path.join(folder, name), ROOT)


def _mints_outside_the_kernel(path: str) -> list:
    """The places in a module that would make a PROVED verdict or a theorem without the kernel:
    Verdict(Status.PROVED, ...), the kernel's private constructors, a PROVED status passed on."""
    tree = ast.parse(open(os.path.join(ROOT, path), encoding="utf-8").read())
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) == "Verdict":
            first = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "status"), None)
            named = isinstance(first, ast.Attribute) and getattr(first.value, "id", "") == "Status"
            if named and first.attr == "PROVED":
                found.append(f"{path}:{node.lineno} Verdict(Status.PROVED, ...)")
            elif first is not None and not named:
                # a status passed on from another verdict could be PROVED: say REFUTED or UNDECIDED
                found.append(f"{path}:{node.lineno} Verdict(<a status read from elsewhere>, ...)")
        if isinstance(node, (ast.ImportFrom,)) and any(alias.name in ("_mint", "_issue", "_MINTED") for alias in node.names):
            found.append(f"{path}:{node.lineno} imports a private constructor of the kernel")
        if isinstance(node, ast.Name) and node.id in ("_mint", "_MINTED"):
            found.append(f"{path}:{node.lineno} uses {node.id}")
    return found


def test_no_module_outside_the_kernel_constructs_a_proved_verdict():
    offenders = [place for path in _python_files() if not path.startswith(KERNEL)
                 for place in _mints_outside_the_kernel(path)]
    assert offenders == []


def test_the_static_check_sees_a_proved_verdict_built_outside(tmp_path):
    # the check itself can fail: a module that builds one by hand is caught
    module = tmp_path / "rogue.py"
    module.write_text("from symbolic import Status, Verdict\nv = Verdict(Status.PROVED, 'x')\n")
    relative = os.path.relpath(module, ROOT)
    assert _mints_outside_the_kernel(relative)


def test_a_conjunction_needs_every_premise_and_a_refutation_a_failing_point():
    x = sp.Symbol("x", real=True)
    proved, open_claim = zeros("x - x = 0", [x - x]), Verdict(Status.UNDECIDED, "x = 1", reason="not shown")
    assert conjunction([proved, open_claim], label="both").status is Status.UNDECIDED
    refuted = identity(x, x + 1)
    assert conjunction([proved, refuted], label="both").status is Status.REFUTED
    # not S from a point where S fails, evaluated by the kernel; a point where S holds proves nothing
    from symbolic.kernel import refutation
    assert refutation(Equation(x ** 2, x), {x: 2}).status is Status.PROVED
    assert refutation(Equation(x ** 2, x), {x: 1}).status is Status.UNDECIDED
    assert refutation(Equation(1 / x, x), {x: 0}).status is Status.UNDECIDED      # a side undefined there


def test_the_latex_document_lists_what_the_proofs_rest_on():
    from proofs import theorem1_observational_equivalence as theorem1
    from symbolic.latex import render
    text = render(theorem1.run([(1, 1, 1)]).derivation)
    assert r"\section*{What the proof rests on}" in text and "exact identity test" in text
