"""The everyday proofs, each the kernel running a declared oracle on a statement built here:

- ``identity(lhs, rhs)`` (``check_identity``): the exact identity test on lhs = rhs, as written;
- ``zeros``, ``nonnegatives``: conjunctions of exact zero tests and manifest sign tests.

Nothing here is trusted: the theorems state what the kernel ran the oracle on.
"""
from __future__ import annotations

import sympy as sp

from symbolic.kernel import by_oracle, conjunction
from symbolic.kernel.verdict import Status, Verdict
from symbolic.logic.statements import Equation, Relation
from symbolic.trusted.oracles.exact import EXACT_ZERO, MANIFEST_SIGN
from symbolic.trusted.oracles.identity import EXACT_IDENTITY


def identity(lhs, rhs, *, label: str = "", evidence=(), **options) -> Verdict:
    """lhs = rhs for every admissible value of its symbols, by the exact identity test (options: a
    time budget, a seed, the procedure)."""
    if "claim" in options:
        label = options.pop("claim") or label
    return by_oracle(EXACT_IDENTITY, Equation(lhs, rhs), label=label, evidence=evidence, **options)


def zeros(label: str, equations, evidence=(), residual=None, details=None, instance_checked=()) -> Verdict:
    """Every equation holds by the exact zero test; an item is an Equation, a pair (lhs, rhs), or an
    expression (= 0), or any of these after a name: (name, item)."""
    named = [_named_equation(item) for item in equations]
    if not named:
        return Verdict(Status.UNDECIDED, label, reason="no equation to test: an empty test compares nothing")
    verdicts = [by_oracle(EXACT_ZERO, equation, label=name) for name, equation in named]
    return conjunction(verdicts, label=label, evidence=(
        f"{len(verdicts)} exact zero test{'s' if len(verdicts) > 1 else ''}", *evidence), residual=residual,
        details=details, instance_checked=instance_checked)


def _named_equation(item) -> tuple[str, Equation]:
    """(its name or "", the equation) of an item of ``zeros``."""
    name = ""
    if isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str):
        name, item = item
    if isinstance(item, Equation):
        return name, item
    if isinstance(item, tuple) and len(item) == 2:
        return name, Equation(*item)
    return name, Equation(sp.sympify(item), sp.S.Zero)


def nonnegatives(label: str, expressions, evidence=(), details=None) -> Verdict:
    """Every expression is >= 0, by the manifest sign test."""
    statements = [Relation(sp.sympify(e), ">=", sp.S.Zero) for e in expressions]
    if not statements:
        return Verdict(Status.UNDECIDED, label, reason="no expression to test: an empty test compares nothing")
    verdicts = [by_oracle(MANIFEST_SIGN, statement) for statement in statements]
    return conjunction(verdicts, label=label, evidence=evidence, details=details)


# the exact identity test under the name the public API has always used
check_identity = identity
