"""A checked derivation as a reader reads it: text, JSON and LaTeX, every expression printed from the
statement the kernel checked (its sides as written, never a simplified copy), the reason beside it,
the verdict and what the step rests on."""
from __future__ import annotations

import sympy as sp

from symbolic.decision.inequality import sides_at
from symbolic.latex import escape_text
from symbolic.kernel.verdict import Status
from symbolic.logic.statements import IndexEquation

RELATION_LATEX = {"=": "=", "<": "<", "<=": r"\le", ">": ">", ">=": r"\ge", "!=": r"\ne"}


SAYS_NOTHING = "the two sides are the same expression as written: this step says nothing"


def says_nothing(step) -> bool:
    """The step's two sides are one expression as written (-x^2 and -(x^2)): an X = X step."""
    if step.statement is None or step.step.relation != "=":
        return False
    if isinstance(step.statement, IndexEquation):
        return step.statement.lhs == step.statement.rhs
    return sp.sympify(step.statement.lhs) == sp.sympify(step.statement.rhs)


def rests_on_words(verdict) -> str:
    """What a PROVED verdict rests on, in a line: its rules, oracles and lemmas."""
    if verdict.status is not Status.PROVED:
        return ""
    rests = verdict.theorem.rests_on
    parts = [("rules", rests.rules), ("oracles", rests.oracles), ("lemmas", rests.lemmas)]
    return "; ".join(f"{name}: {', '.join(items)}" for name, items in parts if items)


def witness_values(step) -> tuple | None:
    """Both sides' exact values at a refuted step's witness, where they can be evaluated."""
    if step.status is not Status.REFUTED or not step.verdict.witness or isinstance(step.statement, IndexEquation):
        return None
    found = sides_at(step.statement, dict(step.verdict.witness))
    if found is None and "lhs_value" in step.verdict.details:
        found = step.verdict.details["lhs_value"], step.verdict.details["rhs_value"]
    return found


def _where(checked) -> str:
    derivation = checked.derivation
    place = f" (line {derivation.line})" if derivation.line else ""
    assumed = f", assuming {', '.join(derivation.assumptions)}" if derivation.assumptions else ""
    return f"{derivation.name or 'chain'}{place}{assumed}"


def chain_text(checked) -> str:
    """The derivation for a terminal: a line per step, then the conclusion."""
    lines = [f"{_where(checked)}: {checked.status.name} (each step checked by the kernel; a reason is "
             "printed, never trusted)"]
    for step in checked.steps:
        place = f" (line {step.step.line})" if step.step.line else ""
        lines.append(f"  step {step.number}{place}: {step.status.name}: {step.shown}")
        if says_nothing(step):
            lines.append(f"      warning: {SAYS_NOTHING}")
        if step.step.reason:
            lines.append(f"      by {step.step.reason}")
        if step.status is Status.PROVED:
            lines.append(f"      rests on {rests_on_words(step.verdict)}")
            if _coq(step.verdict) is not None:
                lines.append(f"      coq: {_coq_words(_coq(step.verdict))}")
        else:
            if step.verdict.witness:
                lines.append("      witness: " + ", ".join(f"{k} = {v}" for k, v in step.verdict.witness.items()))
                values = witness_values(step)
                if values is not None:
                    lines.append(f"      there the left side is {values[0]} and the right side is {values[1]}")
            if step.verdict.reason:
                lines.append(f"      {step.verdict.reason}")
    for condition in checked.side_conditions:
        lines.append(f"  side condition: {condition.status.name}: {condition.claim}"
                     + (f" ({condition.reason})" if condition.reason and not condition.proved else ""))
    conclusion = checked.conclusion
    if conclusion.status is Status.PROVED:
        lines.append(f"  conclusion: PROVED: {conclusion.theorem.statement.text}")
        lines.append(f"      rests on {rests_on_words(conclusion)}")
    else:
        lines.append(f"  conclusion: {conclusion.status.name}: {conclusion.reason}")
    return "\n".join(lines)


def _coq(verdict) -> dict | None:
    """Coq's answer on a step, as the rows carry it: its status, and for a checked step the Coq
    theorem and its statement as Coq printed it."""
    if "coq" not in verdict.details:
        return None
    found = {"status": verdict.details["coq"]}
    if verdict.details.get("coq_theorem"):
        found.update(theorem=verdict.details["coq_theorem"], statement=verdict.details.get("coq_statement", ""))
    return found


def _coq_words(coq: dict) -> str:
    """Coq's answer on a step in a few words: checked (with the theorem), or why not."""
    return coq["status"] + (f" ({coq['theorem']})" if coq.get("theorem") else "")


def step_json(step) -> dict:
    verdict = step.verdict
    found = {"number": step.number, "line": step.step.line, "relation": step.step.relation,
             "statement": step.shown,
             "latex": step.statement.latex if step.statement is not None else "",
             "reason": step.step.reason, "status": verdict.status.value,
             "evidence": list(verdict.evidence)}
    if verdict.status is Status.PROVED:
        found["rests_on"] = verdict.theorem.rests_on.as_json()
    if verdict.witness:
        found["witness"] = {str(k): str(v) for k, v in verdict.witness.items()}
        values = witness_values(step)
        if values is not None:
            found["lhs_value"], found["rhs_value"] = str(values[0]), str(values[1])
    if verdict.reason:
        found["why"] = verdict.reason
    if says_nothing(step):
        found["warning"] = SAYS_NOTHING
    if _coq(verdict) is not None:
        found["coq"] = _coq(verdict)
    return found


def chain_json(checked) -> dict:
    conclusion = checked.conclusion
    return {"name": checked.derivation.name, "line": checked.derivation.line,
            "assumptions": list(checked.derivation.assumptions), "status": checked.status.value,
            "steps": [step_json(step) for step in checked.steps],
            "side_conditions": [{"statement": c.claim, "status": c.status.value} for c in checked.side_conditions],
            "conclusion": {"status": conclusion.status.value,
                           **({"statement": conclusion.theorem.statement.text,
                               "latex": conclusion.theorem.statement.latex,
                               "rests_on": conclusion.theorem.rests_on.as_json()}
                              if conclusion.status is Status.PROVED else {"why": conclusion.reason})}}


def _side(step, which: int) -> str:
    if step.statement is None:      # a relation of index-level terms: no statement, its sides as terms
        from symbolic.derivations.index_steps import as_index_term
        from symbolic.logic.notation import latex as term_latex
        return term_latex(as_index_term(step.step.expression if which else step.lhs))
    return step.statement.sides_latex()[0 if which == 0 else 2]


def chain_display(checked) -> str:
    """The chain as an align* body: e₀ R₁ e₁ … each expression printed from the statement checked,
    each line numbered by its step and marked with its verdict."""
    rows = []
    for step in checked.steps:
        first = _side(step, 0) if step.number == 1 else ""
        mark = {Status.PROVED: r"\checkmark", Status.REFUTED: r"\text{refuted}",
                Status.UNDECIDED: r"\text{undecided}"}[step.status]
        rows.append(r"%s &%s %s && \text{(%d)}\ %s" % (first, RELATION_LATEX[step.step.relation], _side(step, 1),
                                                     step.number, mark))
    return r"\begin{aligned}" + r" \\ ".join(rows) + r"\end{aligned}"


def _step_item(step) -> str:
    verdict = step.verdict
    place = f" (line {step.step.line})" if step.step.line else ""
    words = [r"\item[(%d)] \textbf{%s}%s." % (step.number, verdict.status.name, escape_text(place))]
    if step.step.reason:
        words.append(r"Reason given: \emph{%s} (printed, not checked)." % escape_text(step.step.reason))
    if says_nothing(step):
        words.append(r"Warning: %s." % escape_text(SAYS_NOTHING))
    if verdict.status is Status.PROVED:
        words.append(r"Rests on %s." % escape_text(rests_on_words(verdict)))
    if verdict.witness:
        point = ", ".join(f"{sp.latex(sp.sympify(k) if not isinstance(k, sp.Basic) else k)} = {sp.latex(v)}"
                          for k, v in verdict.witness.items())
        words.append(r"Witness: $%s$." % point)
        values = witness_values(step)
        if values is not None:
            words.append(r"There the left side is $%s$ and the right side $%s$." % (sp.latex(values[0]),
                                                                                     sp.latex(values[1])))
    if verdict.status is not Status.PROVED and verdict.reason:
        words.append(escape_text(verdict.reason) + ".")
    coq = _coq(verdict)
    if coq is not None:
        words.append(r"Coq: %s." % escape_text(_coq_words(coq)))
    return " ".join(words)


def chain_latex(checked) -> str:
    """One chain as a section of the document."""
    lines = [r"\section*{%s}" % escape_text(_where(checked)),
             r"\[" + chain_display(checked) + r"\]", r"\begin{description}"]
    lines += [_step_item(step) for step in checked.steps]
    lines.append(r"\end{description}")
    for condition in checked.side_conditions:
        lines.append(r"\noindent Side condition (an intermediate expression's domain): $%s$, %s.\par"
                     % (condition.theorem.statement.latex if condition.proved else sp.latex(condition.claim),
                        condition.status.name))
    conclusion = checked.conclusion
    if conclusion.status is Status.PROVED:
        lines += [r"\noindent\textbf{Conclusion (PROVED by the rule of transitivity).}",
                  r"\[%s\]" % conclusion.theorem.statement.latex,
                  r"\noindent Rests on %s.\par" % escape_text(rests_on_words(conclusion))]
    else:
        lines.append(r"\noindent\textbf{No conclusion.} %s.\par" % escape_text(conclusion.reason))
    return "\n".join(lines)


def document(checked_chains, title: str) -> str:
    """A complete LaTeX document of the checked chains."""
    body = "\n\n".join(chain_latex(c) for c in checked_chains)
    return "\n".join([r"\documentclass[11pt]{article}", r"\usepackage[margin=2cm]{geometry}",
                      r"\usepackage{amsmath,amssymb}", r"\allowdisplaybreaks",
                      r"\title{%s}" % escape_text(title), r"\date{}", r"\begin{document}", r"\maketitle",
                      r"\noindent Every displayed expression is printed from the statement the kernel checked, "
                      r"as written. A step is PROVED only by a kernel theorem of that statement; the conclusion "
                      r"is computed from the steps' statements by the kernel's rule of transitivity.",
                      body, r"\end{document}", ""])
