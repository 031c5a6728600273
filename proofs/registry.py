"""The paper's results, each mapped to the proof script that checks it."""
from __future__ import annotations

import importlib

SCRIPTS = {
    "theorem1": "proofs.theorem1_observational_equivalence",
    "theorem3": "proofs.theorem3_derivative_transformation",
    "theorem4": "proofs.theorem4_sharpest_direction",
    "worked_example": "proofs.worked_example",
    "all_sizes": "proofs.all_sizes",
}


def names() -> list[str]:
    return list(SCRIPTS)


def load(name: str):
    return importlib.import_module(SCRIPTS[name])
