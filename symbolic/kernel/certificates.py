"""Transitional names for the kernel's rules (``symbolic.kernel.rules``), kept while callers move.

Each computes its statement as the rule it names does; none takes a claim text as a statement:
``conclude`` is the conjunction of its premises (the text a label), ``exact_zeros`` a conjunction
of exact zero tests, ``nonnegative`` of manifest sign tests.
"""
from __future__ import annotations

from symbolic.kernel.rules import conjunction, identity, issued, nonnegatives, zeros


def check_identity(lhs, rhs, *args, **kwargs):
    return identity(lhs, rhs, *args, **kwargs)


def exact_zeros(claim: str, expressions, evidence=(), residual=None, details=None, instance_checked=()):
    return zeros(claim, expressions, evidence=evidence, residual=residual, details=details,
                 instance_checked=instance_checked)


def nonnegative(claim: str, expressions, evidence=(), details=None):
    return nonnegatives(claim, expressions, evidence=evidence, details=details)


def conclude(claim: str, premises, evidence=(), residual=None, details=None, instance_checked=()):
    return conjunction(premises, label=claim, evidence=evidence, residual=residual, details=details,
                       instance_checked=instance_checked)


is_certified = issued


def by_procedure(procedure: str, claim: str, holds: bool, evidence=(), residual=None, details=None, premises=()):
    """Retired: a procedure's word enters only as an oracle the kernel runs on a statement
    (``symbolic.kernel.rules.by_oracle``).  Until a caller moves, its claim is UNDECIDED."""
    from symbolic.verdict import Status, Verdict
    return Verdict(Status.UNDECIDED, claim, reason=f"'{procedure}' is not run by the kernel on a statement")


def negation_by_counterexample(negation: str, refuted):
    """Retired: 'not S' is ``symbolic.kernel.rules.refutation(S, witness)``, S a statement the
    kernel evaluates at the witness itself."""
    from symbolic.verdict import Status, Verdict
    return Verdict(Status.UNDECIDED, negation, reason="a negation needs the statement refuted, not its text")
