"""Coq's pass over a run: every equation a PROVED row's theorem states (its statement's parts,
the premises' equations included) is recorded with the row, then re-checked by Coq in batches; every
index-level equation it states (a theorem for every size) has its kernel chain exported to Coq
(``symbolic.coq.chains``) and re-checked step by step.

The recording reads the statements the kernel minted: it wraps ``Report.record`` for the length of
a ``with`` block in one process, to see each row as it is made; nothing else is changed.
"""
from __future__ import annotations

import dataclasses
import time
from contextlib import contextmanager
from dataclasses import dataclass, field

from symbolic.coq import library
from symbolic.coq.chains import CHECKED, NotExported, check_exports, export_chain
from symbolic.coq.runner import SECONDS_PER_CLAIM, Answer, Batch, certify, checked_together, combine
from symbolic.kernel import Equation
from symbolic.kernel.chains import proof_of
from symbolic.logic.statements import IndexEquation
from symbolic.derivation import CoqCitation
from symbolic.report import Report
from symbolic.kernel.verdict import Status

BATCH = 40                     # lemmas per coqc call


def equations_of(verdict) -> list:
    """The (lhs, rhs) of every equation a PROVED verdict's statement states."""
    if verdict.status is not Status.PROVED:
        return []
    return [(part.lhs, part.rhs) for part in verdict.statement.parts() if isinstance(part, Equation)]


def chains_of(verdict) -> tuple[list, list]:
    """(the chains the kernel checked for the index-level equations a PROVED verdict's statement
    states, the reasons its other index-level parts are not exported): an equation proved by a
    chain has the chain; one proved otherwise (an induction on the layer, its instance) says how."""
    if verdict.status is not Status.PROVED:
        return [], []
    chains, reasons = [], []
    for part in verdict.statement.parts():
        if not isinstance(part, IndexEquation):
            continue
        proof = proof_of(part)
        if proof is None:
            reasons.append("not exported: a theorem proved in another process")
        elif proof[0] == "chain":
            chains.append((proof[1], part.ranges))
        elif proof[0] != "definition":          # a definition is Coq's definition of the same name
            reasons.append("not exported: " + {"induction": "induction on a layer",
                                               "instance": "the instance of a theorem for every layer"}[proof[0]])
    return chains, reasons


@dataclass
class Recorder:
    """The proved identities of a run, the chains of its theorems for every size, and which of them
    each row states; ``start()`` begins recording in this process, ``stop()`` ends it."""

    claims: list = field(default_factory=list)           # (lhs, rhs) of each equation proved
    rows: list = field(default_factory=list)             # (row, indices into claims, chain keys, reasons)
    chains: dict = field(default_factory=dict)           # id of a chain -> (the chain, its ranges)
    reports: dict = field(default_factory=dict)          # id of a row -> the report that holds it
    _original: object = None

    def start(self) -> Recorder:
        original_record, recorder = Report.record, self

        def record(report, *args, **kwargs):
            verdict = original_record(report, *args, **kwargs)
            start = len(recorder.claims)
            recorder.claims += equations_of(verdict)
            chains, reasons = chains_of(verdict)
            for chain, ranges in chains:
                recorder.chains.setdefault(id(chain), (chain, ranges))
            recorder.rows.append((report.results[-1], list(range(start, len(recorder.claims))),
                                  [id(chain) for chain, _ in chains], reasons))
            recorder.reports[id(report.results[-1])] = report
            return verdict
        self._original = original_record
        Report.record = record
        return self

    def stop(self) -> None:
        if self._original is not None:
            Report.record = self._original
            self._original = None

    def certify_rows(self, seconds: float = SECONDS_PER_CLAIM, mapper=map) -> str:
        """Coq's pass over the recorded claims and chains, the rows' verdicts updated; its summary.
        ``mapper(function, items)`` runs the coqc batches: in turn (``map``), or in parallel."""
        answers, batch, chains = coq_pass(self, seconds, mapper)
        self.cite_checked_rows()
        return summary(answers, batch) + "\n" + chain_summary(chains)

    def cite_checked_rows(self) -> None:
        """Each row Coq checked, cited in its report's document: the Coq theorems, Coq's answer and
        their statements as Coq printed them (the LaTeX document prints them as it prints every
        Coq theorem it cites)."""
        for row, _, _, _ in self.rows:
            details = row.verdict.details
            report = self.reports.get(id(row))
            derivation = getattr(report, "derivation", None)
            if derivation is not None and details.get("coq") == CHECKED and details.get("coq_statement"):
                derivation.coq.append(CoqCitation(details["coq_theorem"], row.claim, CHECKED, details["coq_statement"]))


@contextmanager
def recording():
    """Within the block, record every equation a PROVED row states and the row."""
    recorder = Recorder().start()
    try:
        yield recorder
    finally:
        recorder.stop()


def _certify_batch(arguments) -> Batch:
    claims, seconds, first = arguments
    return certify(claims, seconds, first)


def coq_pass(recorder: Recorder, seconds: float = SECONDS_PER_CLAIM, mapper=map) -> tuple[list[Answer], Batch, "ChainPass"]:
    """Coq's answer on each recorded claim (the same claim once) and on each recorded chain, and the
    rows' verdicts updated: a PROVED row one of whose claims or chains Coq refuted becomes UNDECIDED
    (``combine``); one Coq did not check keeps its status, with the reason."""
    unique: dict[tuple[str, str], int] = {}
    order = []
    for number, (lhs, rhs) in enumerate(recorder.claims):
        key = (str(lhs), str(rhs))
        if key not in unique:
            unique[key] = len(order)
            order.append(number)
    total = Batch([])
    batches = [([recorder.claims[n] for n in order[start:start + BATCH]], seconds, start)
               for start in range(0, len(order), BATCH)]
    started = time.perf_counter()
    for batch in mapper(_certify_batch, batches):
        total.answers += batch.answers
        total.cpu_seconds += batch.cpu_seconds
        total.calls += batch.calls
    total.wall_seconds = time.perf_counter() - started
    answers = [total.answers[unique[(str(lhs), str(rhs))]] for lhs, rhs in recorder.claims]
    chains = chain_pass(recorder.chains, mapper)
    for row, _, _, _ in recorder.rows:
        every_order(row)
    for row, indices, keys, reasons in recorder.rows:
        if row.verdict.status is not Status.PROVED or not (indices or keys or reasons):
            continue
        mine = [answers[n] for n in indices]
        refuted = [a for a in mine if a.refuted] + [Answer(chains.answers[k]) for k in keys
                                                    if chains.answers[k].startswith("refuted")]
        outside = [a for a in mine if not a.checked and not a.refuted]
        # a chain not exported, or exported and not checked (its tactics failed, out of time)
        not_exported = [chains.answers[k] for k in keys if chains.answers[k].startswith("not ")] + reasons
        if refuted:
            answer = refuted[0]
        elif not_exported:
            answer = Answer(not_exported[0])
        elif outside:
            answer = Answer(f"{len(mine) - len(outside)} of {len(mine)} identities checked, "
                            f"the others {outside[0].result}")
        else:
            # every identity and every chain the row states, checked: the Coq theorems and their
            # statements as Coq printed them
            answer = checked_together([answers[n] for n in indices]
                                      + [Answer(CHECKED, theorem=chains.names[k], statement=chains.statements.get(k, ""))
                                         for k in keys])
        verdict = combine(row.verdict, answer)
        if keys and answer.checked:
            steps = sum(len(chains.chains[k].steps) for k in keys)
            verdict = dataclasses.replace(verdict, evidence=(
                *verdict.evidence, f"Coq: {len(keys)} kernel chain{'s' * (len(keys) > 1)} exported and re-checked "
                                   f"step by step ({steps} steps)"))
        row.verdict = verdict
    return answers, total, chains


def every_order(row) -> None:
    """A PROVED row resting on instance checks of a rule that the Coq development proves for every
    order: the rule named in ``details["coq_every_order"]`` (its sizes then say "all") and the Coq
    theorems in its evidence."""
    verdict = row.verdict
    checked = verdict.rests_on.get("instance_checked") if verdict.status is Status.PROVED else None
    proved = library.instance_rules_proved(tuple(checked or ()))
    if proved:
        row.verdict = dataclasses.replace(verdict, details={**verdict.details, "coq_every_order": tuple(proved)},
                                          evidence=(*verdict.evidence, *proved.values()))


@dataclass
class ChainPass:
    """Coq's answer on each recorded chain: "checked", "refuted at step K (…)", "not checked … (…)"
    or "not exported: …"."""

    chains: dict
    answers: dict
    cpu_seconds: float = 0.0
    wall_seconds: float = 0.0
    calls: int = 0
    names: dict = field(default_factory=dict)        # key -> the name of its Coq theorem
    statements: dict = field(default_factory=dict)   # key -> that theorem's statement as Coq printed it


CHAINS_PER_CALL = 40             # exported chains per coqc call when the calls run side by side


def chain_pass(recorded: dict, mapper=map) -> ChainPass:
    """Export every recorded chain that has a Coq counterpart and check them, one coqc call per
    group of chains (one group when the batches run in turn)."""
    exports, answers = {}, {}
    for key, (chain, ranges) in recorded.items():
        try:
            exports[key] = export_chain(chain, f"chain_{len(exports)}", ranges)
        except NotExported as why:
            answers[key] = f"not exported: {why}"
    listed = list(exports.values())
    # each call compiles the rules' library first (about 2 s): a group is worth it from 40 chains on
    groups = 1 if mapper is map else max(1, -(-len(listed) // CHAINS_PER_CALL))
    started = time.perf_counter()
    results = list(mapper(check_exports, [listed[k::groups] for k in range(groups)]))
    by_name = {name: answer for result in results for name, answer in result.answers.items()}
    printed = {name: text for result in results for name, text in result.statements.items()}
    answers.update({key: by_name[export.name] for key, export in exports.items()})
    return ChainPass({key: chain for key, (chain, _) in recorded.items()}, answers,
                     sum(r.cpu_seconds for r in results), time.perf_counter() - started, sum(r.calls for r in results),
                     {key: export.name for key, export in exports.items()},
                     {key: printed[export.name] for key, export in exports.items() if export.name in printed})


def chain_summary(chains: ChainPass) -> str:
    """One line: how many chains Coq re-checked, how many are not exported, how many it did not
    check, how many it refuted."""
    answers = list(chains.answers.values())
    checked = answers.count(CHECKED)
    refuted = sum(answer.startswith("refuted") for answer in answers)
    unchecked = sum(answer.startswith("not checked") for answer in answers)
    return (f"coq: {len(answers)} kernel chains: {checked} exported and checked, "
            f"{len(answers) - checked - refuted - unchecked} not exported, {unchecked} exported and not checked, "
            f"{refuted} refuted ({chains.calls} coqc calls, {chains.cpu_seconds:.1f} s CPU, "
            f"{chains.wall_seconds:.1f} s)")


def summary(answers: list[Answer], batch: Batch) -> str:
    """One line: how many claims Coq checked, how many it did not check (outside the fragment, or
    its tactics failed or ran out of time), how many it refuted."""
    distinct = len(batch.answers)
    checked = sum(a.checked for a in batch.answers)
    refuted = sum(a.refuted for a in batch.answers)
    outside = sum(a.result.startswith("outside") for a in batch.answers)
    return (f"coq: {distinct} distinct identities of {len(answers)} proved: {checked} checked, "
            f"{distinct - checked - refuted} not checked ({outside} outside the fragment), {refuted} refuted "
            f"({batch.calls} coqc calls, {batch.cpu_seconds:.1f} s CPU, {batch.wall_seconds:.1f} s)")
