"""Oracles: decision procedures outside the kernel whose word a theorem may rest on.

The kernel runs an oracle itself, on the statement it is given, and mints a theorem of exactly
that statement when the oracle answers ``Holds``; the oracle's name goes into the theorem's
``rests_on``.  No caller hands the kernel a boolean.  Each oracle is declared once, in the trusted
base's folder of oracles (``symbolic/trusted/oracles/``), as an object: its name, its function
``decide(statement, **parameters)`` and what it decides; a caller imports that object and hands it
to ``by_oracle``, so that a misspelt oracle fails at import and every use is an import one can
follow.  An oracle answers ``Holds``, or a REFUTED or UNDECIDED verdict; parameters steer the
search (a seed, a budget), never the meaning of the statement.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from symbolic.kernel.provenance import ORACLES as ORACLE_FOLDER, called_from


@dataclass(frozen=True, eq=False)
class Oracle:
    """A declared oracle: ``decide(statement, **parameters)``, and in words what it decides."""
    name: str
    decide: Callable = field(repr=False)
    decides: str

    @property
    def where(self) -> str:
        """The procedure's module and function, as ``python -m proofs trust`` prints them."""
        return f"{self.decide.__module__}.{self.decide.__name__}"


_DECLARED: dict[str, Oracle] = {}       # every oracle declared, by name


def declare(name: str, decide: Callable, decides: str) -> Oracle:
    """Declare an oracle; only a module of the trusted folder of oracles may, while it is imported,
    once per name."""
    if not called_from(ORACLE_FOLDER, while_importing=True):
        raise ValueError(f"{name}: an oracle is declared in {', '.join(ORACLE_FOLDER)} only")
    if name in _DECLARED:
        raise ValueError(f"{name}: an oracle of this name is already declared")
    oracle = Oracle(name, decide, decides)
    _DECLARED[name] = oracle
    return oracle


def is_declared(oracle) -> bool:
    """Whether ``oracle`` is the very object a module of the trusted folder declared."""
    return isinstance(oracle, Oracle) and _DECLARED.get(oracle.name) is oracle


def declared() -> list[Oracle]:
    """The oracles declared so far in this process (``python -m proofs trust`` imports them all)."""
    return list(_DECLARED.values())
