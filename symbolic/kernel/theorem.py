"""The theorem type: a checked statement and what it rests on, made only by the kernel.

As in LCF, a ``Theorem`` is an abstract value: ``_mint`` is its one constructor, called only by
the kernel's rules (``symbolic.kernel.rules``, ``symbolic.kernel.derivations``), each of which
computes the statement it mints from what it checked.  The kernel remembers what it minted, so a
theorem built by hand (or copied with ``dataclasses.replace``) is not one (``is_theorem``).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from symbolic.logic.statements import Statement, foreign_statement

_MINTED: dict[int, tuple] = {}       # every theorem the kernel made, by identity: (it, its shape when minted)


@dataclass(frozen=True)
class RestsOn:
    """What a theorem rests on, as Lean's ``#print axioms`` lists it: the axioms and inference
    rules used, the oracles (procedures outside the kernel) taken on their word, the lemmas cited,
    and the rules whose validity is checked on instances only."""
    rules: tuple = ()
    oracles: tuple = ()
    lemmas: tuple = ()
    instance_checked: tuple = ()

    def __or__(self, other: "RestsOn") -> "RestsOn":
        return RestsOn(*(tuple(dict.fromkeys((*a, *b))) for a, b in
                         zip((self.rules, self.oracles, self.lemmas, self.instance_checked),
                             (other.rules, other.oracles, other.lemmas, other.instance_checked))))

    @staticmethod
    def union(parts) -> "RestsOn":
        total = RestsOn()
        for part in parts:
            total = total | part
        return total

    def as_json(self) -> dict:
        return {"rules": list(self.rules), "oracles": list(self.oracles), "lemmas": list(self.lemmas),
                **({"instance_checked": list(self.instance_checked)} if self.instance_checked else {})}

    @property
    def empty(self) -> bool:
        return not (self.rules or self.oracles or self.lemmas)


@dataclass(frozen=True, eq=False)
class Theorem:
    """``statement`` holds, resting on ``rests_on``; ``sizes`` is "all" for a statement proved for
    every size (an index-level equation), "" for one about the objects it names.  An index-level
    theorem also keeps the name it was proved under (``claim``), an induction's ``schema`` (the
    layer variable, and the statement at a layer, which ``instantiate`` reads) and its ``verdict``
    (what a lemma made from it cites as its validity)."""
    statement: Statement
    rests_on: RestsOn = field(default_factory=RestsOn)
    sizes: str = ""
    evidence: tuple = ()
    claim: str = ""
    schema: tuple | None = None
    verdict: object = field(default=None, compare=False, repr=False)

    # an equation's sides, and an index-level equation's ranges, hypotheses and definitions
    @property
    def lhs(self):
        return self.statement.lhs

    @property
    def rhs(self):
        return self.statement.rhs

    @property
    def ranges(self) -> tuple:
        return getattr(self.statement, "ranges", ())

    @property
    def hypotheses(self) -> tuple:
        return getattr(self.statement, "hypotheses", ())

    @property
    def definitions(self) -> tuple:
        return getattr(self.statement, "definitions", ())

    def __reduce__(self):
        # a theorem a worker process minted (``--jobs``, ``--dask``) arrives minted: unpickling runs
        # code of the sender's choosing anyway, so this opens no door a pickle does not already open;
        # a theorem built by hand is refused, so that no copy or pickle of it comes back minted
        if not is_theorem(self):
            raise TypeError("a theorem the kernel did not mint cannot be pickled or copied")
        return _mint, (self.statement, self.rests_on, self.sizes, self.evidence, self.claim)


def _mint(statement: Statement, rests_on: RestsOn, sizes: str = "", evidence=(), claim: str = "",
          schema: tuple | None = None) -> Theorem:
    """The one constructor of a theorem: for the kernel's rules only."""
    if not isinstance(statement, Statement):
        raise TypeError("a theorem's statement is a term (symbolic.logic.statements), not text")
    if foreign_statement(statement) is not None:
        raise TypeError(f"a theorem's statement is of the kernel's own types, not {foreign_statement(statement)}")
    theorem = Theorem(statement, rests_on, sizes, tuple(evidence), claim, schema)
    _MINTED[id(theorem)] = (theorem, _shape(theorem))
    return theorem


def _cite(theorem: Theorem, verdict) -> None:
    """Keep the PROVED verdict the kernel issued with ``theorem`` (for the kernel's rules only)."""
    object.__setattr__(theorem, "verdict", verdict)


def is_theorem(theorem) -> bool:
    """Whether ``theorem`` is a theorem the kernel minted (the very object, not a copy), holding
    the very statement it was minted with (no field of it, or of a part of it, set anew since)."""
    found = _MINTED.get(id(theorem)) if isinstance(theorem, Theorem) else None
    return found is not None and found[0] is theorem and found[1] == _shape(theorem)


def _shape(theorem: Theorem) -> tuple:
    """What a theorem holds, by identity: its statement and what it rests on, and every field of
    the statement and of its parts (sympy's expressions and the statements' containers being
    immutable, the same objects say the same thing)."""
    return (id(theorem.statement), id(theorem.rests_on), theorem.sizes, _statement_shape(theorem.statement))


def _statement_shape(statement) -> tuple:
    values = tuple(getattr(statement, name) for name in statement.__dataclass_fields__)
    inner = tuple(_statement_shape(part) for value in values
                  for part in (value if isinstance(value, tuple) else (value,)) if isinstance(part, Statement))
    return (type(statement), tuple(map(id, values)), inner)


def is_index_theorem(theorem) -> bool:
    """Whether ``theorem`` is a theorem the kernel minted of an index-level equation, for every size."""
    return is_theorem(theorem) and theorem.sizes == "all" and type(theorem.statement).__name__ == "IndexEquation"
