"""The invariance audit as one LaTeX document: the matrix as a table (proved / refuted, each refuted
cell with a footnote giving its counterexample), then one short derivation per cell."""
from __future__ import annotations

import os
import re
from fractions import Fraction

from symbolic.latex import compile_pdf, escape, tex_engine
from symbolic.measures.definitions import MEASURES
from symbolic.networks.symmetry_groups import GROUPS
from symbolic.verdict import Status

SHORT = {"layerwise": "layer", "per_neuron": "neuron", "deep_layerwise_bias": "deep",
         "batchnorm_scale": "BN", "batchnorm_scale_eps": r"BN$_\epsilon$"}
LONG_NUMBER = re.compile(r"(?<![\d.])-?(?:\d{9,}(?:/\d+)?|\d+/\d{9,})(?![\d.])")


def _short_numbers(text: str) -> str:
    """Rationals with many digits written as 10-digit decimals (≈), so that lines can break."""
    def decimal(match):
        value = Fraction(match.group(0))
        return f"~{float(value):.10g}"
    return LONG_NUMBER.sub(decimal, text)


def _text(text: str) -> str:
    """Plain text (witnesses, values) made safe and breakable for LaTeX."""
    text = _short_numbers(text).replace("**", "^")
    return escape(text.replace("$", "")).replace(",", r",\allowbreak{}")


def _mark(cell, number) -> str:
    if cell.status is Status.PROVED:
        return r"$\checkmark$"
    if cell.status is Status.REFUTED:
        return r"$\times$\footnotemark[%d]" % number
    return "?"


def _witness_note(cell) -> str:
    w = cell.outcome.verdict.witness
    return (r"\texttt{%s} under \texttt{%s}: %s, data %s, targets %s, $\theta_0$ = %s, %s; "
            r"value %s at $\theta_0$ and %s at $T\theta_0$."
            % (escape(cell.measure), escape(cell.group), _text(w["network"]), _text(w["inputs"]),
               _text(w["targets"]), _text(w["theta"]), _text(w["group_element"]),
               _text(w["value_at_theta"]), _text(w["value_at_T_theta"])))


def render(cells, measures, groups) -> str:
    by_key = {(c.measure, c.group): c for c in cells}
    lines = [r"\documentclass[10pt]{article}", r"\usepackage[margin=2cm]{geometry}",
             r"\usepackage{amsmath,amssymb}", r"\sloppy", r"\title{Invariance audit: sharpness and "
             r"flatness measures under the symmetries of ReLU networks}", r"\date{}",
             r"\begin{document}", r"\maketitle",
             r"A cell is $\checkmark$ when the measure is \emph{proved} invariant: $M(T\theta) = "
             r"M(\theta)$ as an exact identity in the group parameters, the parameters and the data, "
             r"confirmed by an independent witness.  It is $\times$ when it is \emph{refuted}: the "
             r"footnote gives a concrete network, data, $\theta_0$ and group element with both values "
             r"(exact, or rigorous enclosures that do not overlap).", r"\par\medskip",
             r"\noindent Groups: " + "; ".join(
                 r"\textbf{%s} (\texttt{%s}): %s" % (SHORT.get(g, escape(g)), escape(g), GROUPS[g].description)
                 for g in groups) + ".", r"\par\medskip",
             r"\begin{center}", r"\begin{tabular}{l" + "c" * len(groups) + "}",
             r"measure & " + " & ".join(SHORT.get(g, escape(g)) for g in groups) + r" \\ \hline"]
    notes, number = [], 0
    for m in measures:
        marks = []
        for g in groups:
            cell = by_key[(m, g)]
            if cell.status is Status.REFUTED:
                number += 1
                notes.append((number, cell))
            marks.append(_mark(cell, number))
        lines.append(r"\texttt{%s} & %s \\" % (escape(m), " & ".join(marks)))
    lines += [r"\end{tabular}", r"\end{center}"]
    lines += [r"\footnotetext[%d]{%s}" % (n, _witness_note(cell)) for n, cell in notes]
    lines.append(r"\section*{Measures}")
    lines.append(r"\begin{itemize}")
    for m in measures:
        measure = MEASURES[m]
        note = f" ({escape(measure.note)})" if measure.note else ""
        lines.append(r"\item \texttt{%s}: %s, $%s$%s." % (escape(m), measure.title, measure.formula, note))
    lines.append(r"\end{itemize}")
    lines.append(r"\section*{One derivation per cell}")
    for m in measures:
        for g in groups:
            cell = by_key[(m, g)]
            verdict = cell.outcome.verdict
            lines.append(r"\subsection*{\texttt{%s} under \texttt{%s}: %s}"
                         % (escape(m), escape(g), verdict.status.name))
            lines.append(r"\begin{enumerate}")
            for step in cell.outcome.steps:
                how = (r"\emph{logical glue}" if not step.checked else
                       r"\emph{checked}: %s" % ("holds" if step.holds else "fails"))
                lines.append(r"\item $%s$\\ %s. %s." % (step.statement, _reason(step.reason), how))
            lines.append(r"\end{enumerate}")
            if verdict.evidence:
                lines.append(r"Evidence: %s." % "; ".join(_reason(e) for e in verdict.evidence))
            if verdict.reason:
                lines.append(r"Reason: %s." % _reason(verdict.reason))
            if verdict.status is Status.REFUTED:
                lines.append(r"Counterexample: %s" % _witness_note(cell))
    lines += [r"\end{document}", ""]
    return "\n".join(lines)


def _reason(text: str) -> str:
    """A reason: inline math kept, plain parts escaped and long numbers shortened."""
    parts = text.split("$")
    return "$".join(part if k % 2 else _text(part) for k, part in enumerate(parts))


def write_document(cells, measures, groups, folder: str) -> str:
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "audit.tex")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(render(cells, measures, groups))
    if tex_engine() is None:
        return f"wrote {path} (no TeX engine found: not compiled)"
    ok, message = compile_pdf(path)
    pdf = os.path.splitext(path)[0] + ".pdf"
    return f"wrote {path} and {pdf}" if ok else f"wrote {path}; compiling FAILED: {message}"
