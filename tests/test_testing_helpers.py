"""symbolic.testing: asserts that pass on the right verdict and explain themselves otherwise."""
import os
import re

import pytest
import sympy as sp

from symbolic import ReLU, Status
from symbolic.networks.model import Dense, Model, ReLU as ReLULayer
from symbolic.symmetries.symmetry import Symmetry, positive_scales
from symbolic.testing import assert_proved, assert_refuted, assert_symmetry

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
a, s = sp.symbols("a s", real=True)


def test_assert_proved_passes_and_returns_the_verdict():
    verdict = assert_proved(ReLU(a * s), a * ReLU(s), a="positive")
    assert verdict.status is Status.PROVED and verdict.evidence


def test_failure_message_shows_status_witness_and_both_sides_as_in_the_readme():
    with pytest.raises(AssertionError) as failure:
        assert_proved(ReLU(a * s), a * ReLU(s))
    message = str(failure.value)
    assert message.startswith("expected PROVED, got REFUTED")
    # the witness is a real counterexample: both sides re-evaluated there differ
    witness = dict(re.findall(r"(\w+) = (-?\d+/?\d*)", message.splitlines()[1]))
    point = {a: sp.Rational(witness["a"]), s: sp.Rational(witness["s"])}
    lhs, rhs = ReLU(a * s).xreplace(point), (a * ReLU(s)).xreplace(point)
    assert lhs != rhs and f"there lhs = {lhs}, rhs = {rhs}" in message
    readme = open(os.path.join(ROOT, "docs", "regression_tests.md"), encoding="utf-8").read()
    shown = re.search(r"<!-- helper-failure -->\s*```\n(.*?)```", readme, re.S).group(1)
    assert shown.strip() == message.strip()


def test_assert_refuted_passes_on_a_false_claim_and_fails_on_a_true_one():
    verdict = assert_refuted(ReLU(a * s), a * ReLU(s))
    assert verdict.witness
    with pytest.raises(AssertionError, match="expected REFUTED, got PROVED(.|\n)*evidence: exact"):
        assert_refuted(ReLU(a * s), a * ReLU(s), a="positive")


def test_a_verdict_displays_its_claim_in_math_and_its_witness_in_a_notebook():
    verdict = assert_refuted(ReLU(a * s), a * ReLU(s))
    latex = verdict._repr_latex_()
    assert latex.startswith("$$") and r"\textbf{REFUTED}" in latex
    assert r"\operatorname{ReLU}\left(a s\right) = a \operatorname{ReLU}\left(s\right)" in latex
    assert r"\text{witness: } a = " in latex
    page = verdict._repr_html_()
    assert "REFUTED" in page and "witness" in page and "separates the two sides" in page


def test_nonnegative_and_negative_assumptions():
    assert_proved(ReLU(a * s), a * ReLU(s), a="nonnegative")
    assert_proved(ReLU(a * s), -a * ReLU(-s), a="negative")


@pytest.mark.parametrize("assumptions, message", [
    ({"b": "positive"}, "no symbol 'b'"),
    ({"a": "large"}, "must be one of"),
])
def test_bad_assumptions_are_errors(assumptions, message):
    with pytest.raises(ValueError, match=message):
        assert_proved(ReLU(a * s), a * ReLU(s), **assumptions)


def test_assert_symmetry_failure_lists_each_failing_claim_with_its_witness():
    net = Model(1, [Dense(2, "W"), ReLULayer(), Dense(1, "v")])
    C = sp.diag(*positive_scales("c", 2))
    assert_symmetry(net, Symmetry(net, {"W": net["W"] * C, "v": C.inv() * net["v"]}), sizes=(1,))
    with pytest.raises(AssertionError) as failure:
        assert_symmetry(net, Symmetry(net, {"W": net["W"] * C}), sizes=(1,))
    message = str(failure.value)
    assert message.startswith("T is not shown to be a symmetry")
    for claim in ("prediction:", "loss (N=1):", "gradient (N=1):", "Hessian (N=1):"):
        assert claim in message
    assert "witness: " in message and "f_(T theta)(x) = " in message and " against " in message


def test_the_readme_helper_example_runs_on_its_own():
    # the block imports all it uses (ReLU the function, ReLULayer the layer) and every assert holds
    readme = open(os.path.join(ROOT, "docs", "regression_tests.md"), encoding="utf-8").read()
    code = re.search(r"<!-- helper-example -->\s*```python\n(.*?)```", readme, re.S).group(1)
    namespace = {}
    exec(compile(code, "docs/regression_tests.md", "exec"), namespace)
    assert namespace["ReLU"] is ReLU and namespace["ReLULayer"] is ReLULayer
    assert isinstance(namespace["T"], Symmetry)
