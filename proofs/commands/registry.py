"""The paper's results, each mapped to the proof script that checks it."""
from __future__ import annotations

import importlib

SCRIPTS = {
    "theorem1": "proofs.theorem1_observational_equivalence",
    "theorem2": "proofs.theorem2_volume_flatness",
    "theorem3": "proofs.theorem3_derivative_transformation",
    "theorem4": "proofs.theorem4_sharpest_direction",
    "theorem5": "proofs.theorem5_many_eigenvalues",
    "worked_example": "proofs.worked_example",
    "epsilon_sharpness": "proofs.epsilon_sharpness",
    "reparametrization": "proofs.reparametrization",
    "flat_directions": "proofs.flat_directions",
    "biases": "proofs.biases",
    "all_sizes": "proofs.all_sizes",
    "measures_all_sizes": "proofs.measures_all_sizes",
}


def names() -> list[str]:
    return list(SCRIPTS)


def load(name: str):
    return importlib.import_module(SCRIPTS[name])
