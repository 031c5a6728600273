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
