"""The trusted base, one folder per kind of trust: the kernel takes an axiom only from ``axioms/``,
an inference scheme only from ``schemes/`` and an oracle only from ``oracles/`` (each declared
there, its code read from there); ``python -m proofs trust`` lists the three folders beside the
kernel.  Everything else in the project proposes steps and returns answers."""

import importlib
import pkgutil
from pathlib import Path

FOLDER = Path(__file__).resolve().parent
KINDS = ("axioms", "schemes", "oracles")


def modules(kind: str) -> list[str]:
    """The modules of one folder of the trusted base, read from the folder itself."""
    folder = FOLDER / kind
    return sorted(f"{__name__}.{kind}.{found.name}" for found in pkgutil.iter_modules([str(folder)]))


def load() -> None:
    """Import every module of the trusted base, so that every axiom, scheme and oracle is declared."""
    for kind in KINDS:
        for module in modules(kind):
            importlib.import_module(module)
