"""pytest helpers: regression tests of symbolic identities that read like ordinary asserts.

    from symbolic.testing import assert_derivation, assert_proved, assert_refuted, assert_symmetry

    def test_relu_is_positively_homogeneous():
        a, s = sympy.symbols("a s", real=True)
        assert_proved(ReLU(a * s), a * ReLU(s), a="positive")
        assert_proved(ReLU(a * s), a * ReLU(s), a="positive", certify="coq")   # Coq re-checks it

    def test_not_for_negative_scales():
        assert_refuted(ReLU(a * s), a * ReLU(s))

Assumptions are keyword arguments naming a symbol of the claim: ``a="positive"`` (or
"nonnegative", "negative", "nonpositive", "real") rebuilds that symbol with the assumption.
A failing assert raises AssertionError whose message shows the status, the facts and the domain the
claim was checked under, the witness, both sides' values there, and the reason or the evidence.
``assert_derivation(text or Derivation)`` asserts that every step of a chain is PROVED and the kernel
concluded its ends' relation, naming the first wrong step otherwise.
A claim whose two sides arrive as one expression (sympy evaluated it before it reached the checker)
fails ``assert_proved``: a regression test of ``X = X`` tests nothing.
"""
from __future__ import annotations

import sympy as sp

from symbolic.coq.runner import with_coq
from symbolic.kernel import issued
from symbolic.checks import identity
from symbolic.networks.model import Model
from symbolic.symmetries.symmetry import Symmetry, check_symmetry, sides_at
from symbolic.kernel.verdict import Status, Verdict
from symbolic.printing.verdicts import assumed_lines

ASSUMPTIONS = ("positive", "nonnegative", "negative", "nonpositive", "real")


def _with_assumptions(lhs, rhs, assumptions: dict):
    lhs, rhs = sp.sympify(lhs), sp.sympify(rhs)
    present = {s.name: s for s in lhs.free_symbols | rhs.free_symbols}
    replacement = {}
    for name, assumption in assumptions.items():
        if assumption not in ASSUMPTIONS:
            raise ValueError(f"assumption for {name} must be one of {', '.join(ASSUMPTIONS)}, "
                             f"got {assumption!r}")
        if name not in present:
            raise ValueError(f"the claim has no symbol {name!r} (symbols: "
                             f"{', '.join(sorted(present)) or 'none'})")
        replacement[present[name]] = sp.Symbol(name, **{assumption: True, "real": True})
    return lhs.xreplace(replacement), rhs.xreplace(replacement)


def _message(expected: Status, verdict: Verdict, lhs=None, rhs=None) -> str:
    lines = [f"expected {expected.name}, got {verdict.status.name}: {verdict.claim}"]
    # everything the verdict assumed: the symbols' facts, the domain as written
    if verdict.facts and verdict.status is not Status.PROVED:
        lines.append(f"  checked for {verdict.facts}")
    lines += assumed_lines(verdict)
    if verdict.witness:
        lines.append("  witness: " + ", ".join(f"{k} = {v}" for k, v in verdict.witness.items()))
        if lhs is not None:
            lines.append(f"  there lhs = {sides_at(lhs, rhs, verdict.witness).replace(' against ', ', rhs = ')}")
    if verdict.reason:
        lines.append(f"  reason: {verdict.reason}")
    lines += [f"  evidence: {e}" for e in verdict.evidence]
    return "\n".join(lines)


def assert_proved(lhs, rhs, *, timeout: float | None = None, certify: str | None = None,
                  **assumptions) -> Verdict:
    """Assert that lhs = rhs is PROVED for every admissible real value; returns the verdict.
    ``certify="coq"`` demands that Coq re-checks it too (``details["coq"] == "checked"``)."""
    __tracebackhide__ = True
    if certify not in (None, "coq"):
        raise ValueError(f"certify must be None or 'coq', got {certify!r}")
    lhs, rhs = _with_assumptions(lhs, rhs, assumptions)
    verdict = identity(lhs, rhs, timeout=timeout)
    if certify == "coq":
        verdict = with_coq(verdict)
    if verdict.status is not Status.PROVED:
        raise AssertionError(_message(Status.PROVED, verdict, lhs, rhs))
    _refuse_forged(verdict)
    if verdict.details.get("as_built"):
        # PROVED, but of a claim that says nothing: the test would pass whatever the code does
        raise AssertionError(f"PROVED, but trivially: {verdict.claim}\n  {verdict.details['as_built']}")
    if certify == "coq" and verdict.details["coq"] != "checked":
        raise AssertionError(f"PROVED, but not re-checked by Coq: {verdict.claim}\n  coq: {verdict.details['coq']}")
    return verdict


def _refuse_forged(verdict) -> None:
    """A PROVED verdict the kernel did not issue never passes a test."""
    if verdict.status is Status.PROVED and not issued(verdict):
        raise AssertionError(f"a PROVED verdict the kernel did not issue: {verdict.claim}")


def assert_refuted(lhs, rhs, *, timeout: float | None = None, **assumptions) -> Verdict:
    """Assert that lhs = rhs is REFUTED, with a witness; returns the verdict."""
    __tracebackhide__ = True
    lhs, rhs = _with_assumptions(lhs, rhs, assumptions)
    verdict = identity(lhs, rhs, timeout=timeout)
    if verdict.status is not Status.REFUTED:
        raise AssertionError(_message(Status.REFUTED, verdict, lhs, rhs))
    return verdict


def assert_symmetry(model: Model, symmetry: Symmetry, **options):
    """Assert that every claim of ``check_symmetry(model, symmetry, **options)`` is PROVED;
    returns the report."""
    __tracebackhide__ = True
    report = check_symmetry(model, symmetry, **options)
    failing = [(claim, n, v) for claim, n, v in report.rows if v.status is not Status.PROVED]
    if failing:
        lines = [f"{symmetry.name} is not shown to be a symmetry of {model!r}"]
        if report.breaks:
            lines.append(f"  what breaks it: {report.breaks}")
        for claim, n, verdict in failing:
            lines.append(f"{claim}" + (f" (N={n})" if n is not None else "") + ": "
                         + _message(Status.PROVED, verdict).replace("\n", "\n  "))
        raise AssertionError("\n".join(lines))
    for _, _, verdict in report.rows:
        _refuse_forged(verdict)
    return report


def assert_derivation(derivation, *, timeout: float | None = None):
    """Assert that every step of ``derivation`` (a ``symbolic.derivations.Derivation``, or the text
    of a derivation file holding one chain) is PROVED and that the kernel concluded its ends'
    relation; returns the checked derivation.  A failure names the first wrong step, its witness
    and both sides' values there."""
    __tracebackhide__ = True
    from symbolic.derivations import read_derivations
    from symbolic.derivations.document import chain_text
    if isinstance(derivation, str):
        chains = read_derivations(derivation)
        if len(chains) != 1:
            raise ValueError(f"the text holds {len(chains)} chains: give one")
        derivation = chains[0]
    checked = derivation.check(seconds=timeout)
    for step in (*checked.steps, checked):
        if step.status is not Status.PROVED:
            raise AssertionError(f"expected every step PROVED\n{chain_text(checked)}")
    _refuse_forged(checked.conclusion)
    return checked
