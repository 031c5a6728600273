"""Certified verdicts: a PROVED verdict exists only if the kernel issued it.

In the spirit of LCF's abstract theorem type: ``_issue`` is the one constructor of a PROVED
verdict in the project, and it is called only by the checks below, each of which runs its test
itself (the exact identity test, the exact zero test, the manifest sign test), or combines
verdicts the kernel issued before (``conclude``).  The kernel remembers what it issued, so a
PROVED verdict built by hand is recognised as such and refused as a premise.  A decision taken
on the word of a procedure outside the kernel (an SMT solver's unsat, an interval enclosure, a
two-precision numeric agreement) goes through ``by_procedure``, which names the procedure in the
verdict's evidence; the procedures allowed are listed in ``TRUSTED_PROCEDURES``.
"""
from __future__ import annotations

import sympy as sp

from symbolic.decision.identity import check_identity as _exact_identity_test
from symbolic.decision.positivity import is_manifestly_nonnegative
from symbolic.decision.zero import is_rational_zero
from symbolic.verdict import Status, Verdict

# every PROVED verdict the kernel issued, by identity (the verdict is kept so its id stays unique)
_ISSUED: dict[int, Verdict] = {}

# the procedures outside the kernel whose word a verdict may rest on, each with what it decides
TRUSTED_PROCEDURES = {
    "exact rational comparison": "an order or equality between exact rationals computed by the caller",
    "interval enclosure": "a lower or upper bound of a function on a box by interval arithmetic",
    "z3 unsat": "the SMT solver z3 answers unsat: the query has no model",
    "sympy assumptions": "a sign read from sympy's assumptions on positive or negative symbols",
    "two-precision numeric agreement": "mpmath evaluations at two precisions agree to rounding noise",
    "exact inertia": "the signs of eigenvalues counted by an exact LDL^T decomposition",
    "exact linear algebra": "ranks, determinants and products of rational matrices computed exactly",
    "pattern-form exact test": "polynomial identities on the ReLU pattern form tested exactly by the caller",
    "exact eigenpairs": "H v = lambda v checked exactly for each eigenpair",
    "exact evaluation": "both sides evaluated exactly at rational points",
    "sympy limits": "a limit or a derivative's sign computed by sympy",
    "check_symmetry at concrete widths": "the gradient and Hessian laws of a concrete model (symbolic/networks/symmetry.py)",
}


def _issue(claim: str, evidence, residual=None, details=None, reason: str = "") -> Verdict:
    verdict = Verdict(Status.PROVED, claim, evidence=tuple(evidence), residual=residual,
                      details=dict(details or {}), reason=reason)
    _ISSUED[id(verdict)] = verdict
    return verdict


def is_certified(verdict) -> bool:
    """Whether ``verdict`` is a PROVED verdict the kernel issued."""
    return isinstance(verdict, Verdict) and verdict.status is Status.PROVED and _ISSUED.get(id(verdict)) is verdict


def _undecided(claim: str, reason: str, **details) -> Verdict:
    return Verdict(Status.UNDECIDED, claim, reason=reason, details=details)


# --- the kernel's own checks ------------------------------------------------------------------------

def check_identity(lhs, rhs, *args, **kwargs) -> Verdict:
    """The exact identity test (``symbolic.decision.identity``); its PROVED answer is certified."""
    verdict = _exact_identity_test(lhs, rhs, *args, **kwargs)
    if verdict.status is not Status.PROVED:
        return verdict
    # the same answer, its caveat kept (e.g. "on Z3's word alone")
    return _issue(verdict.claim, verdict.evidence, verdict.residual, verdict.details, verdict.reason)


def exact_zeros(claim: str, expressions, evidence=(), residual=None, details=None) -> Verdict:
    """PROVED when every expression is an exact zero (``is_rational_zero``, run here); an item may
    be a (label, expression) pair, the label naming it when it is not."""
    expressions = list(expressions)
    if not expressions:
        return _undecided(claim, "no expression to test: an empty test compares nothing")
    for number, item in enumerate(expressions, start=1):
        label, expression = item if isinstance(item, tuple) else (f"expression {number} of {len(expressions)}", item)
        if not is_rational_zero(sp.sympify(expression)):
            return _undecided(claim, f"{label} is not an exact zero")
    return _issue(claim, (f"{len(expressions)} exact zero test{'s' if len(expressions) > 1 else ''}",
                          *evidence), residual, details)


def nonnegative(claim: str, expressions, evidence=(), details=None) -> Verdict:
    """PROVED when every expression is manifestly ≥ 0 (``is_manifestly_nonnegative``, run here)."""
    expressions = list(expressions)
    if not expressions:
        return _undecided(claim, "no expression to test: an empty test compares nothing")
    for number, expression in enumerate(expressions, start=1):
        if not is_manifestly_nonnegative(sp.sympify(expression)):
            return _undecided(claim, f"expression {number} ({expression}) is not manifestly >= 0")
    return _issue(claim, (f"{len(expressions)} manifest sign test{'s' if len(expressions) > 1 else ''}",
                          *evidence), details=details)


# --- combining certified verdicts ----------------------------------------------------------------------

def conclude(claim: str, premises, evidence=(), residual=None, details=None) -> Verdict:
    """The conjunction of the premises: PROVED when every premise is a PROVED verdict the kernel
    issued; otherwise the worst premise (REFUTED keeps its witness), or UNDECIDED when a premise
    claims PROVED without having come from the kernel."""
    premises = list(premises)
    if not premises:
        return _undecided(claim, "no premise: a conclusion needs at least one checked premise")
    for status in (Status.REFUTED, Status.UNDECIDED):
        bad = next((p for p in premises if p.status is status), None)
        if bad is not None:
            return Verdict(status, claim, witness=bad.witness, reason=f"{bad.claim}: {bad.reason}",
                           details=dict(details or {}))
    forged = next((p for p in premises if not is_certified(p)), None)
    if forged is not None:
        return _undecided(claim, f"the premise '{forged.claim}' is PROVED but was not issued by the kernel")
    if residual is None:
        residual = max((p.residual for p in premises if p.residual is not None), default=None)
    return _issue(claim, evidence, residual, details)


def by_procedure(procedure: str, claim: str, holds: bool, evidence=(), residual=None, details=None,
                 premises=()) -> Verdict:
    """PROVED on the word of a named procedure outside the kernel (and of certified premises);
    the procedure is named in the evidence.  ``holds`` False gives UNDECIDED."""
    if procedure not in TRUSTED_PROCEDURES:
        return _undecided(claim, f"'{procedure}' is not a procedure the kernel takes on its word")
    if holds is not True:
        return _undecided(claim, f"{procedure}: the test does not establish the claim")
    evidence = (*evidence, f"taken on the word of: {procedure} ({TRUSTED_PROCEDURES[procedure]})")
    if premises:
        return conclude(claim, premises, evidence, residual, details)
    return _issue(claim, evidence, residual, details)


def negation_by_counterexample(negation: str, refuted: Verdict) -> Verdict:
    """'not C' is PROVED by a REFUTED verdict of C with its (re-verified) witness."""
    if refuted.status is not Status.REFUTED or not refuted.witness:
        return _undecided(negation, f"'{refuted.claim}' is not refuted with a witness")
    witness = ", ".join(f"{k} = {v}" for k, v in refuted.witness.items())
    return _issue(negation, (f"counterexample to '{refuted.claim}': {witness}",))
