"""Chains of rewrites: a rule, its instances, and the check of a chain t_0 = t_1 = … = t_m, which
mints the index-level theorem t_0 = t_m for every size."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable


from symbolic.logic.definedness import vanishing_denominator
from symbolic.logic.terms import OVER_LAYERS, Eval, \
    SpectralNorm, Sum, Transformation, children, difference
from symbolic.kernel.names import defined_in, transformed_names
from symbolic.kernel.provenance import AXIOMS, called_from, code_in
from symbolic.kernel.rules import issued as is_certified
from symbolic.logic.statements import IndexEquation
from symbolic.kernel.theorem import RestsOn, Theorem, _cite, _mint
from symbolic.kernel.verdict import Status, Verdict


_AXIOMS: dict[int, object] = {}          # the rules declared as axioms, by identity
_LEMMAS: dict[int, object] = {}          # the rules the kernel made from theorems, by identity
_LEMMA_SOURCES: dict[int, tuple] = {}    # id of a lemma -> (its rule, "instance" or "evaluation", its theorem)
_DEFINED: dict = {}                      # defined term -> its definition
_HYPOTHESES: dict = {}                   # the hypotheses (rules a theorem holds under), by identity
_DEFINITION_RULES: dict = {}             # id of a definition's rule -> (the name it introduced, the rule)
_PROOFS: dict = {}                       # id of an index-level statement -> (the statement, how it was proved)


@dataclass(frozen=True, eq=False)
class Rule:
    """``justify(before, after)`` is None when before = after is an instance of the rule, else
    the reason it is not; rules are equations, so either side may be the one rewritten.  A rule
    whose side condition speaks of the range of an index the rewritten subterm leaves free (a delta
    contracted onto it) also has ``in_scope(before, after, scope)``: ``scope`` maps each index bound
    above the subterm, in the whole term, to the size of its binder (None for a layer variable); and
    ``assumes(before, after, scope)``, the ranges {index: size} it takes for indices free in the whole
    term, which the theorem the chain proves then carries (``Theorem.ranges``)."""

    name: str
    statement: str                               # LaTeX math
    justify: Callable = field(compare=False)
    validity: Callable = field(compare=False)    # () -> Verdict, for all sizes
    condition: str = ""                          # LaTeX text with inline math: when it applies
    in_scope: Callable | None = field(default=None, compare=False)
    assumes: Callable | None = field(default=None, compare=False)
    hypotheses: tuple = field(default=(), compare=False)      # the statements a theorem using it holds under
    definitions: tuple = field(default=(), compare=False)     # the definitions a theorem using it speaks with

    @property
    def as_text(self) -> str:
        """The rule for a document: its name, its equation, its side condition."""
        return r"\emph{%s}: $%s$%s" % (self.name, self.statement,
                                        f", {self.condition}" if self.condition else "")

    def applies(self, before, after) -> str | None:
        return self.judged(before, after)[0]

    def judged(self, before, after) -> tuple:
        """(None, the ranges the step assumes of indices free in the whole term) when before = after
        is an instance of the rule somewhere inside, else (the reason, {})."""
        reasons = []
        for path, b, a in difference(before, after):
            reason = self.justify(b, a)
            scope = binders_above(before, path) if reason is None else {}
            # the side condition on the indices the subterm leaves free, read where they are bound
            if reason is None and self.in_scope is not None:
                reason = self.in_scope(b, a, scope)
            if reason is None:
                return None, (self.assumes(b, a, scope) if self.assumes is not None else {})
            reasons.append(reason)
        return (reasons[0] if reasons else "the step changes nothing"), {}


def binders_above(term, path: tuple) -> dict:
    """The indices bound above the subterm at ``path`` (child positions from ``term``), each with the
    size of its binder, the innermost binder of a name winning: a sum's bound, a spectral norm's
    ranges; a sum or a product over the layers binds its variable to no size of an index (None)."""
    scope: dict = {}
    for position in path:
        if isinstance(term, Sum):
            scope[term.index] = term.size
        elif isinstance(term, SpectralNorm):
            scope.update(dict(term.ranges))
        elif isinstance(term, OVER_LAYERS):
            scope[term.variable] = None
        term = children(term)[position]
    return scope


def axiom(rule: Rule) -> Rule:
    """Declare a rewrite rule an axiom: it may then justify chain steps, provided its validity
    check comes out certified.  Only rules whose matching and validity code live in the trusted
    folder of axioms (or the kernel's own definitions) are taken, declared there: an axiom is part
    of the trusted base (``axioms()``)."""
    for part in (rule.justify, rule.validity):
        if not (code_in(part, AXIOMS) and called_from(AXIOMS)):
            raise ValueError(f"{rule.name}: an axiom's code must be in {', '.join(AXIOMS)}")
    _AXIOMS[id(rule)] = rule
    return rule


def axioms() -> list[Rule]:
    return list(_AXIOMS.values())


def _issue(label, lhs, rhs, ranges, hypotheses, rests_on, evidence, details, definitions=(), proof=None,
           schema=None) -> Verdict:
    """The PROVED verdict of the index-level theorem lhs = rhs, for every size; ``proof`` says how
    it was proved (a checked chain, an induction, …), kept for a second checker to re-check."""
    statement = IndexEquation(lhs, rhs, tuple(sorted(dict(ranges).items())), tuple(hypotheses), tuple(definitions))
    theorem = _mint(statement, rests_on, sizes="all", evidence=evidence, claim=label, schema=schema)
    _PROOFS[id(statement)] = (statement, proof)
    verdict = Verdict(Status.PROVED, evidence=tuple(evidence), details=dict(details), theorem=theorem, label=label)
    _cite(theorem, verdict)
    return verdict


def _carried(rules, kind: str) -> tuple:
    """What a chain's rules carry into its theorem, each once: their ``hypotheses`` (a hypothesis
    rule's own, a lemma's theorem's) or their ``definitions``."""
    return tuple(dict.fromkeys(item for rule in rules for item in getattr(rule, kind)))


@dataclass
class Chain:
    """t_0 = t_1 = … = t_m, each step justified by a rule; ``prove`` checks it."""

    claim: str
    start: object
    steps: list = field(default_factory=list)       # (rule, term, note)

    def then(self, rule: Rule, term, note: str = "") -> "Chain":
        self.steps.append((rule, term, note))
        return self

    @property
    def end(self):
        return self.steps[-1][1] if self.steps else self.start

    @property
    def rules(self) -> list[Rule]:
        return list(dict.fromkeys(rule for rule, _, _ in self.steps))

    def lifted(self, context) -> "Chain":
        """The same steps inside a larger term: ``context(t)`` for every t."""
        chain = Chain(self.claim, context(self.start))
        for rule, term, note in self.steps:
            chain.then(rule, context(term), note)
        return chain

    def check(self) -> Verdict:
        return prove(self)[0]

    def step_verdicts(self) -> list[Verdict]:
        """One verdict per step: the chain's certified verdict for every step when it is proved;
        else PROVED-free: UNDECIDED at the refused step with the reason, the others not reached."""
        verdict = self.check()
        if verdict.status is Status.PROVED:
            return [verdict] * len(self.steps)
        refused = verdict.details.get("refused_step", 0)
        return [Verdict(Status.UNDECIDED, f"step {number}", reason=verdict.reason if number == refused
                        else "not certified: the chain is refused" + (f" at step {refused}" if refused else ""))
                for number in range(1, len(self.steps) + 1)]


def _refused(claim, reason, **details) -> tuple[Verdict, None]:
    return Verdict(Status.UNDECIDED, claim, reason=reason, details=details), None


def prove(chain: Chain) -> tuple[Verdict, Theorem | None]:
    """Check every step of the chain against its rule, and every rule: an axiom or a lemma whose
    validity is certified.  PROVED gives the theorem start = end."""
    return _prove(chain, ())


def _prove(chain: Chain, hypotheses) -> tuple[Verdict, Theorem | None]:
    """``prove``, where the rules ``hypotheses`` (an induction's, while the kernel checks its step)
    are taken too: for the kernel's induction only, whose theorem is the one that carries them."""
    if not chain.steps:
        return _refused(chain.claim, "a chain without steps proves nothing")
    # a scalar that divides by what may be 0 leaves its term without a value there: an index-level
    # equation holds for every value, so such a term has no place in one (1/(a - a) is nowhere defined)
    for number, term in enumerate([chain.start, *(t for _, t, _ in chain.steps)]):
        partial = vanishing_denominator(term)
        if partial is not None:
            return _refused(chain.claim, f"{'the start' if number == 0 else f'step {number}'} divides by "
                            f"{partial}, which may be 0: a term of an index-level equation has a value everywhere",
                            refused_step=number)
    current, ranges = chain.start, {}
    for number, (rule, term, note) in enumerate(chain.steps, start=1):
        label = f"{rule.name}: {note}" if note else rule.name
        known = (any(rule is h for h in hypotheses) or _AXIOMS.get(id(rule)) is rule or _LEMMAS.get(id(rule)) is rule
                 or _HYPOTHESES.get(id(rule)) is rule)
        if not known:
            return _refused(chain.claim, f"step {number} ({rule.name}) refused: the rule is neither an axiom "
                            "nor a lemma made by the kernel from a theorem", refused_step=number, rule=rule.name)
        reason, assumed = rule.judged(current, term)
        # a transformation that maps a defined name, or takes one as a parameter, speaks of no map
        touched = sorted(set().union(*[defined_in(t) for t in transformations_in(term)]) if reason is None else ())
        if touched:
            reason = (f"the transformation maps or is parametrised by {', '.join(touched)}, a name a definition "
                      "introduced")
        # the ranges the steps take of free indices: one range per index, carried by the theorem
        clash = [index for index, size in assumed.items() if ranges.setdefault(index, size) != size]
        if reason is None and clash:
            reason = f"the index {clash[0]} is taken to run over two ranges"
        if reason is not None:
            return _refused(chain.claim, f"step {number} ({label}) refused: {reason}",
                            refused_step=number, rule=rule.name)
        current = term
    rests_on = RestsOn()
    for rule in chain.rules:
        if any(rule is h for h in hypotheses) or _HYPOTHESES.get(id(rule)) is rule:
            continue
        validity = rule.validity()
        if not is_certified(validity):
            why = validity.reason or "its validity verdict was not issued by the kernel"
            return _refused(chain.claim, f"the rule {rule.name} is not valid: {why}",
                            rules=[r.name for r in chain.rules])
        # an axiom rests on itself and on what its validity check rests on; a lemma on its theorem
        own = RestsOn(lemmas=(rule.name,)) if _LEMMAS.get(id(rule)) is rule else RestsOn(rules=(rule.name,))
        rests_on = rests_on | own | validity.theorem.rests_on
    # a definition of a name a transformation maps, or takes as a parameter, is no abbreviation
    for rule in chain.rules:
        introduced = _DEFINITION_RULES.get(id(rule), (None, None))
        if introduced[1] is rule and introduced[0] in transformed_names():
            return _refused(chain.claim, f"the rule {rule.name} defines {introduced[0]}, which a transformation maps "
                            "or takes as a parameter", rules=[r.name for r in chain.rules])
    rules = [r.name for r in chain.rules]
    assumed, used = _carried(chain.rules, "hypotheses"), _carried(chain.rules, "definitions")
    verdict = _issue(chain.claim, chain.start, chain.end, ranges, assumed, rests_on,
                     (f"{len(chain.steps)} rewrite steps, each an instance of its rule", "rules used: " + ", ".join(rules)),
                     {"rules": rules}, used, proof=("chain", chain))
    return verdict, verdict.theorem


def proof_of(statement) -> tuple | None:
    """How the kernel proved an index-level statement it minted in this process: ("chain", the
    checked chain), ("induction", layer variable, base chain, step chain, the hypothesis rule),
    ("instance", the induction's theorem, the layer), ("definition", name); None when it did not
    (a statement that came from another process, say)."""
    found = _PROOFS.get(id(statement))
    return found[1] if found is not None and found[0] is statement else None


def source_of(rule) -> tuple | None:
    """("instance", the theorem) for a lemma whose steps are instances of a theorem lhs = rhs,
    ("evaluation", the theorem) for a lemma g(Tθ) = g(θ) read from one; None for any other rule."""
    found = _LEMMA_SOURCES.get(id(rule))
    return found[1:] if found is not None and found[0] is rule else None


def transformations_in(term) -> set:
    """The transformations a term evaluates at (the T of (g)(Tθ), ∂[…](Tθ))."""
    found = {term.point} if isinstance(term, Eval) and isinstance(term.point, Transformation) else set()
    return found.union(*[transformations_in(child) for child in children(term)]) if children(term) else found
