import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_cli(*args, timeout=600):
    """Run ``python -m proofs ARGS`` in a fresh interpreter; returns the CompletedProcess."""
    return subprocess.run([sys.executable, "-m", "proofs", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout)


@pytest.fixture
def cli():
    return run_cli


# the four claims of a symmetry report (prediction, loss and the two derivative laws)
CLAIMS = {"prediction", "loss", "gradient", "Hessian"}


def assert_all_proved(report, dimension):
    """A discovery report of that dimension: every generator's four claims PROVED, and maximality."""
    from symbolic.kernel.verdict import Status
    assert report.dimension == dimension
    for g in report.generators:
        assert g.status is Status.PROVED, g.report.table()
        assert {claim for claim, _, _ in g.report.rows} == CLAIMS
    assert report.maximality.status is Status.PROVED, report.maximality.reason
    assert report.upper_bound == dimension


def forged_verdict():
    """A PROVED verdict made without the kernel, past the constructor's check: what every output
    path must refuse."""
    from symbolic.kernel.verdict import Status, Verdict
    forged = object.__new__(Verdict)
    for name, value in dict(status=Status.PROVED, claim="1 = 2", witness=None, reason="", evidence=(),
                            residual=None, details={}, theorem=None, label="").items():
        object.__setattr__(forged, name, value)
    return forged
