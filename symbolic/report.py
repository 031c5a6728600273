"""What a proof script hands back: one row per checked claim and size, and its derivation."""
from __future__ import annotations

import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field

from symbolic.derivation import Derivation
from symbolic.display import counted, report_text  # noqa: F401 - counted: where callers find it
from symbolic.kernel import refuse_forged
from symbolic.kernel.verdict import Status, Verdict


@dataclass
class ClaimResult:
    theorem: str
    claim: str
    d: int | None
    h: int | None
    n: int | None
    verdict: Verdict
    seconds: float
    for_all_sizes: bool = False      # proved with the sizes as symbols, not at (d, h, n)

    def as_json(self) -> dict:
        v = refuse_forged(self.verdict)
        sizes = {"d": "all", "h": "all", "n": "all", "sizes": all_sizes_text(v)} if self.for_all_sizes else \
            {"d": self.d, "h": self.h, "n": self.n}
        rules = {"rules": list(v.details["rules"])} if v.details.get("rules") else {}
        return {
            "theorem": self.theorem, "claim": self.claim, **sizes, **rules,
            "status": v.status.value, "seconds": round(self.seconds, 4),
            "witness": {str(k): str(x) for k, x in v.witness.items()} if v.witness else None,
            "residual": v.residual, "reason": v.reason or None,
            "evidence": list(v.evidence),
            **({"statement": v.statement.text, "rests_on": v.rests_on} if v.status is Status.PROVED else {}),
            **({"coq": coq_json(v.details)} if "coq" in v.details else {}),
        }


def coq_json(details) -> dict:
    """Coq's answer on a row: its status, and for a row Coq checked the Coq theorem and its
    statement as Coq printed it (``symbolic.coq``)."""
    return {"status": details["coq"], **({"theorem": details["coq_theorem"], "statement": details["coq_statement"]}
                                         if "coq_statement" in details else {})}


def all_sizes_text(verdict) -> str:
    """"all", or, for a theorem resting on a rule whose validity is checked on instances only,
    "all, resting on instance checks of …"."""
    checked = verdict.rests_on.get("instance_checked") if verdict.status is Status.PROVED else None
    # a rule Coq proved for every order (``--certify coq``) rests on its proof, not on its instances
    checked = [entry for entry in checked or () if entry not in verdict.details.get("coq_every_order", ())]
    return "all, resting on instance checks of " + "; ".join(checked) if checked else "all"


# called with each new ClaimResult of a run on one process; the command line sets it to draw its
# progress bar
progress_hook = None

# how ``record`` carries out a check in this thread, when ``claims_run_by`` sets it
_runner = threading.local()


@contextmanager
def claims_run_by(runner):
    """Within the block, each ``record`` of this thread answers ``runner(key, check)`` -> (verdict,
    seconds) instead of running the check, and calls no progress hook (``proofs.commands.parallel`` runs a
    script's checks elsewhere, or only some of them, and reports progress itself)."""
    previous = getattr(_runner, "runner", None)
    _runner.runner = runner
    try:
        yield
    finally:
        _runner.runner = previous


def run_check(check) -> tuple:
    """Run one claim's check here: (verdict, seconds)."""
    start = time.perf_counter()
    verdict = check()
    return verdict, time.perf_counter() - start


@dataclass
class Report:
    derivation: Derivation
    results: list = field(default_factory=list)

    def __str__(self) -> str:
        """The report as ``python -m proofs RESULT`` prints it (``symbolic.display``)."""
        return report_text(self)

    def record(self, theorem: str, claim: str, sizes: tuple, check, for_all_sizes: bool = False) -> Verdict:
        """Run one check, time it, and keep its row (``for_all_sizes``: the sizes were symbols)."""
        d, h, n = (tuple(sizes) + (None, None, None))[:3]
        key = (theorem, claim, d, h, n)
        runner = getattr(_runner, "runner", None)
        verdict, seconds = run_check(check) if runner is None else runner(key, check)
        verdict = refuse_forged(verdict)       # a PROVED verdict the kernel did not issue is never a row
        row = ClaimResult(theorem, claim, d, h, n, verdict, seconds, for_all_sizes)
        self.results.append(row)
        if runner is None and progress_hook is not None:
            progress_hook(row)
        return verdict
