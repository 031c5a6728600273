"""A derivation: the steps of a proof, each the statement a kernel theorem proved (or the statement a
check was run on, when it was not proved), printed from that statement, with its reason and the
sizes at which it was checked.

A step is made from verdicts, never from text: its displayed formula is the statement of the
theorem its verdict carries (``verdict.theorem.statement``), printed by the project's printer
(``statement.latex``); a verdict that is not PROVED shows the statement the oracle ran on (the
kernel prints it into ``details["latex"]``) and says so.  A step without a verdict cannot be added.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from symbolic.kernel.chains import Chain, proof_of
from symbolic.kernel.definitions import hypothesis
from symbolic.errors import CheckerError
from symbolic.kernel.verdict import Status, Verdict, worst
from symbolic.logic.notation import latex as term_latex
from symbolic.logic.terms import difference

SIZE_LABELS = ("d", "h", "N")
PARTS_SHOWN = 6           # conjuncts of a step's statement displayed, at most (the rest counted)


class UncheckedStep(CheckerError, ValueError):
    """A derivation step offered without a verdict whose statement it would show."""


def summarize_sizes(sizes) -> str:
    """(d, h, N) triples (None where a size does not apply) in a few words: ranges when the sizes
    fill a grid, else the list."""
    sizes = sorted({tuple(size) for size in sizes if size is not None},
                   key=lambda t: tuple(-1 if v is None else v for v in t))
    if not sizes:
        return ""
    axes = []
    for label, values in zip(SIZE_LABELS, zip(*sizes)):
        present = sorted({v for v in values if v is not None})
        if present:
            axes.append((label, present))
    if not axes:
        return ""
    grid = 1
    for _, present in axes:
        grid *= len(present)
    if grid != len(sizes):
        return ", ".join("(" + ",".join("-" if v is None else str(v) for v in size) + ")"
                         for size in sizes)

    def span(values):
        contiguous = values == list(range(values[0], values[-1] + 1))
        return f"{values[0]}..{values[-1]}" if contiguous and len(values) > 2 else ",".join(map(str, values))
    text = " ".join(f"{label}={span(present)}" for label, present in axes)
    return text + (f" ({len(sizes)} cases)" if len(sizes) > 1 else "")


def size_text(size) -> str:
    """One (d, h, N) triple as 'd = 1, h = 1' (the sizes that apply)."""
    return ", ".join(f"{label} = {value}" for label, value in zip(SIZE_LABELS, size or ()) if value is not None)


def every_size(verdict: Verdict) -> bool:
    """Whether the verdict is PROVED by a theorem for every size (an index-level equation)."""
    return verdict.status is Status.PROVED and verdict.theorem.sizes == "all"


def _size_key(size) -> tuple:
    # the smallest instance first: by the sum of its sizes, then size by size
    values = [v for v in (size or ()) if v is not None]
    return (sum(values), values)


@dataclass
class Step:
    """One line of a derivation: the verdicts behind it (each a kernel theorem, or the answer a
    check got), the sizes each was checked at (``sizes[k]`` for ``verdicts[k]``, None where a
    verdict has no size), and its reason.  ``shown`` is the verdict whose statement is displayed:
    the first not PROVED, else an every-size theorem, else the one at the smallest size."""

    reason: str
    verdicts: list
    sizes: list = field(default_factory=list)

    @property
    def checked(self) -> bool:
        # every step is made from verdicts (kept for the readers of a step's state)
        return True

    @property
    def status(self) -> Status:
        return worst(self.verdicts)

    @property
    def shown_index(self) -> int:
        order = range(len(self.verdicts))
        failed = [k for k in order if self.verdicts[k].status is not Status.PROVED]
        if failed:
            return failed[0]
        general = [k for k in order if every_size(self.verdicts[k])]
        if general:
            return general[0]
        sized = [k for k in order if k < len(self.sizes) and self.sizes[k] is not None]
        return min(sized, key=lambda k: _size_key(self.sizes[k])) if sized else 0

    @property
    def shown(self) -> Verdict:
        return self.verdicts[self.shown_index]

    @property
    def statement(self):
        """The statement displayed: the shown verdict's theorem's (PROVED), else None."""
        shown = self.shown
        return shown.theorem.statement if shown.status is Status.PROVED else None

    def formula_lines(self, parts_shown: int = PARTS_SHOWN) -> list[str]:
        """The displayed formula, LaTeX math, one line per conjunct (at most ``parts_shown``, the
        others counted): printed from the shown theorem's statement; for a verdict not PROVED, the
        statement it was run on as the kernel printed it (else its claim as text)."""
        shown = self.shown
        if shown.status is not Status.PROVED:
            return [shown.claim_latex()]
        parts = self.statement.parts()
        lines = [part.latex for part in parts[:parts_shown]]
        if len(parts) > parts_shown:
            lines.append(r"\text{and %d more conjuncts of the same theorem, not displayed}" % (len(parts) - parts_shown))
        return lines

    @property
    def where(self) -> str:
        """At which sizes the step was checked, and which instance is shown: 'for every size',
        'shown at d = 1, h = 1; checked at d=1..3 h=1..3 (9 cases)', or what was not proved."""
        shown = self.shown
        sizes = [s for s in self.sizes if s is not None]
        checked = summarize_sizes(sizes)
        if shown.status is not Status.PROVED:
            at = size_text(self.sizes[self.shown_index]) if self.shown_index < len(self.sizes) else ""
            what = ("the statement the check was run on" if shown.details.get("latex") else
                    "the claim as the check named it (no statement of it reached an oracle)")
            return f"{shown.status.name}" + (f" at {at}" if at else "") + f": shown is {what}, not a theorem"
        if every_size(shown):
            return "for every size" + (f"; also checked on the instances {checked}" if checked else "")
        if not sizes:
            return "as stated" if len(self.verdicts) == 1 else f"the first of {len(self.verdicts)} checked statements shown"
        at = size_text(self.sizes[self.shown_index])
        return f"shown at {at}; checked at {checked}" if len(set(sizes)) > 1 else f"checked at {at}"


@dataclass
class CoqCitation:
    """A theorem of the Coq development that re-checks a result: its name (Module.name), Coq's
    answer and its statement as Coq printed it, both filled in when the document is written
    (``proofs.commands.coq_citations``); ``proves`` says which part of the result it proves."""

    name: str
    proves: str
    answer: str = "not asked of Coq in this run"
    statement: str = ""


@dataclass
class Derivation:
    """A result of the paper as the checker establishes it."""

    name: str
    title: str
    source: str
    statement: str                      # LaTeX paragraph with inline math
    definitions: list = field(default_factory=list)   # LaTeX paragraphs
    steps: list = field(default_factory=list)
    notes: list = field(default_factory=list)         # LaTeX paragraphs
    sizes: list = field(default_factory=list)
    residuals: list = field(default_factory=list)     # (label, value) pairs
    every_size: bool = False     # proved with the sizes as symbols; ``sizes`` are the cross-check's
    # sections printed before the steps (a document that opens with the every-size proof): (title, steps)
    sections: list = field(default_factory=list)
    coq: list = field(default_factory=list)           # CoqCitation: the Coq theorems that re-check the result
    instances: list = field(default_factory=list)     # (claim, sizes text, verdict name) rows of the table
    # the steps of the argument no kernel rule checks yet, in words: printed under their own heading,
    # never as a displayed step
    unchecked: list = field(default_factory=list)     # LaTeX paragraphs

    def add(self, verdicts, reason: str, sizes=()) -> Step:
        """A step showing the statement its verdicts' theorem proved, with its reason; ``sizes[k]``
        is where ``verdicts[k]`` was checked.  No verdict, no step: a formula is never passed in."""
        verdicts = list(verdicts) if not isinstance(verdicts, (str, Verdict)) else None
        if not verdicts or not all(isinstance(v, Verdict) for v in verdicts):
            raise UncheckedStep(f"a step shows the statement of a checked verdict; none given for {reason!r}")
        # a size with no entry that applies is no size
        sizes = [None if size is None or all(v is None for v in size) else tuple(size) for size in sizes]
        if sizes and len(sizes) != len(verdicts):
            raise ValueError(f"{len(sizes)} sizes for {len(verdicts)} verdicts: one size per verdict")
        # a PROVED the kernel did not issue is never a step's evidence (nor printed as one)
        step = Step(reason, [v.refused_if_forged() for v in verdicts], sizes)
        self.steps.append(step)
        return step

    @property
    def status(self) -> Status:
        verdicts = [v for step in self.all_steps for v in step.verdicts]
        return worst(verdicts) if verdicts else Status.UNDECIDED

    @property
    def all_steps(self) -> list:
        return [step for _, steps in self.sections for step in steps] + list(self.steps)


# --- the kernel's chains as lines of a derivation ------------------------------------------------------

def chain_reason(rule, note="", before=None, after=None) -> str:
    """A chain step's reason: the rule, what the step does, and the subterm it rewrites (when short
    enough to show)."""
    text = f"rule: {rule.name}" + (f"; {note}" if note else "")
    changes = difference(before, after) if before is not None else []
    if changes:
        _, old, _ = changes[0]
        shown = term_latex(old)
        if len(shown) <= 90:
            text += f"; rewrites ${shown}$"
    return text


def step_verdicts(chain: Chain, hypotheses=None) -> list[Verdict]:
    """One kernel theorem per step of the chain, before = after by the step's rule, proved as a chain
    of that one step (``hypotheses`` maps an induction's hypothesis rule, which exists only while the
    kernel checks the induction, to the same equation declared as a hypothesis: that step's
    theorem holds under it, and says so)."""
    verdicts, before = [], chain.start
    for number, (rule, term, note) in enumerate(chain.steps, start=1):
        used = (hypotheses or {}).get(id(rule), rule)
        verdicts.append(Chain(f"{chain.claim}, step {number}", before).then(used, term, note).check())
        before = term
    return verdicts


def add_chain(derivation: Derivation, chain: Chain, opening: str, hypotheses=None) -> list:
    """Every step of a chain as a line, each the statement of its own kernel theorem (the first
    line shows t_0 = t_1, each next one = t_k), with its rule and the subterm it rewrites;
    ``opening`` says what the chain starts from."""
    before, steps = chain.start, []
    for number, ((rule, term, note), verdict) in enumerate(zip(chain.steps, step_verdicts(chain, hypotheses))):
        reason = chain_reason(rule, note, before, term)
        steps.append(derivation.add([verdict], f"{opening}; {reason}" if number == 0 else reason))
        before = term
    return steps


def add_condensed_chain(derivation: Derivation, chain: Chain, opening: str, tidying=None) -> None:
    """A chain at the level a reader follows: consecutive steps of one rule in one line, the
    steps of the rule ``tidying`` without a note (arithmetic: a factor 1, a term 0) folded into the
    line before it; each line the statement of the kernel theorem of its steps, proved as a chain
    of them."""
    groups: list = []
    for rule, term, note in chain.steps:
        if groups and (rule is groups[-1][0] or rule is tidying and not note and len(groups[-1][1]) > 0):
            groups[-1][1].append((rule, term, note))
        else:
            groups.append([rule, [(rule, term, note)]])
    before = chain.start
    for number, (_, steps) in enumerate(groups):
        part = Chain(f"{chain.claim}, lines {number + 1}", before)
        for step in steps:
            part.then(*step)
        named = list(dict.fromkeys(r.name for r, _, _ in steps))
        reason = "rule: " + ", then ".join(named) + (f" ({len(steps)} steps)" if len(steps) > 1 else "")
        derivation.add([part.check()], f"{opening}; {reason}" if number == 0 else reason)
        before = part.end


def induction_hypotheses(verdict: Verdict) -> tuple:
    """For the theorem of an induction the kernel proved here: its step chain (as checked) and, for
    its hypothesis rule, the same equation S(k) declared as a hypothesis (``add_chain``)."""
    proof = proof_of(verdict.theorem.statement) if verdict.status is Status.PROVED else None
    if not proof or proof[0] != "induction":
        return None, {}
    _, _, _, step, rule = proof
    statement = verdict.theorem.statement
    return step, {id(rule): hypothesis("S(k)", statement.lhs, statement.rhs, for_all=("n", "j"))}
