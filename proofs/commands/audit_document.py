"""The invariance audit as one LaTeX document: the matrix as a table (proved for every size / at
the listed sizes / refuted / not applicable, each refuted cell and each non-symmetry with a footnote giving its
counterexample in mathematics), the definitions of the measures and groups with their sources,
then one short derivation per cell."""
from __future__ import annotations

import os
import re
from fractions import Fraction

from symbolic.latex import compile_pdf, escape, tex_engine
from symbolic.measures.definitions import MEASURES
from symbolic.networks.symmetry_groups import GROUPS

SHORT = {"layerwise": "layer", "per_neuron": "neuron", "deep_layerwise_bias": "deep",
         "batchnorm_scale": "BN", "batchnorm_scale_eps": r"BN$_\epsilon$", "permutation": "perm",
         "sign_flip": "sign", "attention_qk": "attn", "batchnorm_affine": r"BN$_{\gamma\beta}$",
         "layernorm": "LN", "weight_decay": "wd"}
RATIONAL = re.compile(r"^-?\d+(/\d+)?$")
INTERVAL = re.compile(r"^in \[([^,\]]+), ([^\]]+)\](.*)$", re.S)
BALL = re.compile(r"^\[([-\d.e+]+) \+/- ([\d.e+-]+)\]$")
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
    safe = escape(text.replace("$", ""))
    for mark in (",", "+", "*", ")/"):      # long values break after these
        safe = safe.replace(mark, mark + r"\allowbreak{}")
    return safe


def _mark(cell, number) -> str:
    if cell.for_every_size:
        return r"$\checkmark$"
    if cell.state == "proved":
        return r"$\checkmark^{s}$"
    if cell.state == "refuted":
        return r"$\times$\footnotemark[%d]" % number
    if cell.state == "not_applicable":
        return r"n/a\footnotemark[%d]" % number
    return "?"


def _number(text: str) -> str:
    """A rational as LaTeX (long ones as 10-digit decimals)."""
    text = text.strip()
    if LONG_NUMBER.fullmatch(text):
        return r"\approx %.10g" % float(Fraction(text))
    if "/" in text:
        p, q = text.split("/")
        sign = "-" if p.startswith("-") else ""
        return r"%s\tfrac{%s}{%s}" % (sign, p.lstrip("-"), q)
    return text


def _math_tuple(text: str) -> str:
    """'(1, 2/3)' or '((1,), (2,))' as LaTeX math (without the $)."""
    text = text.strip()
    if text.startswith("(") and text.endswith(")"):
        inner, depth, parts, current = text[1:-1], 0, [], ""
        for ch in inner:
            depth += ch == "("
            depth -= ch == ")"
            if ch == "," and depth == 0:
                parts.append(current)
                current = ""
            else:
                current += ch
        parts.append(current)
        return r"\left(" + ", ".join(_math_tuple(p) for p in parts if p.strip()) + r"\right)"
    return _number(text) if RATIONAL.match(text) else r"\text{%s}" % escape(text)


def _math_value(text: str) -> str:
    """A value of a witness: a rational, an arb ball or an interval as mathematics, the rest text."""
    text = text.strip()
    if RATIONAL.match(text):
        return "$%s$" % _number(text)
    ball = BALL.match(text)
    if ball:
        return r"$%s \pm %s$" % ball.groups()
    interval = INTERVAL.match(text)
    if interval:
        low, high, rest = interval.groups()
        return r"$\in [%s, %s]$%s" % (low, high, _text(rest))
    return _text(text)


def _element(text: str) -> str:
    """'alpha = 1/1000, c = 2' as mathematics."""
    parts = []
    for item in text.split(", "):
        name, equals, value = item.partition(" = ")
        if not equals or not RATIONAL.match(value.strip()):
            return _text(text)
        symbol = name.replace("alpha", r"\alpha").replace("_", "_{") + ("}" if "_" in name else "")
        parts.append("%s = %s" % (symbol, _number(value)))
    return "$" + ",\\ ".join(parts) + "$"


def _witness_note(cell) -> str:
    w = cell.outcome.verdict.witness
    if cell.state == "not_applicable":
        return (r"\texttt{%s} is not a symmetry: on %s at $\theta_0 = %s$, %s ($T\theta_0 = %s$): "
                r"%s against %s.  %s"
                % (escape(cell.group), _text(w["network"]), _math_tuple(w["theta"]), _element(w["group_element"]),
                   _math_tuple(w["T_theta"]), _math_value(w["value_at_theta"]), _math_value(w["value_at_T_theta"]),
                   _text(cell.outcome.not_applicable.split(": ", 1)[-1])))
    return (r"\texttt{%s} under \texttt{%s}: %s, data $%s$, targets $%s$, $\theta_0 = %s$, %s; "
            r"value %s at $\theta_0$ and %s at $T\theta_0$."
            % (escape(cell.measure), escape(cell.group), _text(w["network"]), _math_tuple(w["inputs"]),
               _math_tuple(w["targets"]), _math_tuple(w["theta"]), _element(w["group_element"]),
               _math_value(w["value_at_theta"]), _math_value(w["value_at_T_theta"])))


def render(cells, measures, groups, definitions=None) -> str:
    """``definitions``: the Measure of every key (the built-in ones by default)."""
    definitions = {**MEASURES, **(definitions or {})}
    by_key = {(c.measure, c.group): c for c in cells}
    lines = [r"\documentclass[10pt]{article}", r"\usepackage[margin=1.5cm]{geometry}",
             r"\usepackage{amsmath,amssymb}", r"\sloppy", r"\title{Invariance audit: sharpness and "
             r"flatness measures under the symmetries of ReLU networks}", r"\date{}",
             r"\begin{document}", r"\maketitle",
             r"Invariance means $M(T\theta) = M(\theta)$ at every $\theta$, every data set and every "
             r"group element.  Every group is first proved to be a symmetry ($f \circ T = f$ and "
             r"$L \circ T = L$, exactly); a group that is not gets n/a cells, the footnote giving the "
             r"refuted precondition with its counterexample.  A cell is $\checkmark$ when the measure is "
             r"\emph{proved} invariant for every size, through the kernel of the every-size proofs "
             r"(section Sizes), and $\checkmark^{s}$ when the "
             r"measure is \emph{proved} invariant at the sizes $s$ of the group's families (listed "
             r"below): $M(T\theta) = M(\theta)$ as an exact identity in the group parameters, the "
             r"parameters, the data and every activation pattern, confirmed by an independent witness.  "
             r"It is $\times$ when it is \emph{refuted}: the footnote gives a concrete network, data, "
             r"$\theta_0$ and group element with both values (exact, or rigorous enclosures that do "
             r"not overlap).", r"\par\medskip",
             r"\noindent Groups: " + "; ".join(
                 r"\textbf{%s} (\texttt{%s}): %s [%s; sizes %s]" % (
                     SHORT.get(g, escape(g)), escape(g), GROUPS[g].description, GROUPS[g].source,
                     escape(GROUPS[g].sizes)) for g in groups) + ".", r"\par\medskip",
             r"\begin{center}", r"\footnotesize", r"\begin{tabular}{l" + "c" * len(groups) + "}",
             r"measure & " + " & ".join(SHORT.get(g, escape(g)) for g in groups) + r" \\ \hline"]
    notes, number, groups_noted = [], 0, {}
    for m in measures:
        marks = []
        for g in groups:
            cell = by_key[(m, g)]
            if cell.state == "not_applicable" and g in groups_noted:
                marks.append(r"n/a\footnotemark[%d]" % groups_noted[g])
                continue
            if cell.state in ("refuted", "not_applicable"):
                number += 1
                notes.append((number, cell))
                if cell.state == "not_applicable":
                    groups_noted[g] = number
            marks.append(_mark(cell, number))
        lines.append(r"\texttt{%s} & %s \\" % (escape(m), " & ".join(marks)))
    lines += [r"\end{tabular}", r"\end{center}"]
    lines += [r"\footnotetext[%d]{%s}" % (n, _witness_note(cell)) for n, cell in notes]
    lines.append(r"\section*{Measures}")
    lines.append(r"\begin{itemize}")
    for m in measures:
        measure = definitions[m]
        note = f" ({escape(measure.note)})" if measure.note else ""
        source = f" Source: {escape(measure.source)}." if measure.source else ""
        lines.append(r"\item \texttt{%s}: %s, $%s$%s.%s" % (escape(m), measure.title, measure.formula,
                                                           note, source))
    lines.append(r"\end{itemize}")
    lines.append(r"Average-case measures use $\sigma = 1/10$; max-type measures the radius $\rho = 1/10$.  "
                 r"An expectation is an integral: it is proved invariant by the change of variables "
                 r"$\delta = T\delta'$ and refuted with rigorous values (exact Gaussian moments for a "
                 r"polynomial loss, otherwise arb enclosures on boxes with erf masses and a Cauchy--Schwarz "
                 r"tail), never by sampling.  A maximum's separating upper bound (arb branch and bound) is "
                 r"re-checked by mpmath's interval arithmetic on a finer subdivision.")
    lines.append(r"\section*{Sizes}")
    lines.append(r"A $\checkmark$ holds for every size (the JSON field \texttt{sizes} is \texttt{all}): for the "
                 r"groups whose map $T$ the kernel defines at every size ($T_\alpha$ and the per-neuron "
                 r"rescaling of one hidden layer, every $d, h, N$; the layer-wise rescaling of a deep network "
                 r"with biases, every depth, widths and $N$; a sign per hidden unit of two layers with biases "
                 r"and $|\cdot|$ units, and a permutation of the hidden units of two layers with biases and ReLU "
                 r"units, every $d, h, N$; $W \mapsto cW$ in front of batch or layer normalization with "
                 r"$\epsilon = 0$ and the affine scale of batch normalization, one layer of $h$ units, every "
                 r"$d, h, N$; $W_Q \mapsto W_Q A$, $W_K \mapsto W_K A^{-\top}$ on one attention head's score, "
                 r"every $d$, head dimension $k$ and $N$), with $L(T\theta) = L(\theta)$ a kernel theorem for every size.  A sharpness with coordinate-wise scales $s$ is invariant by the change of "
                 r"variables $\delta \mapsto T\delta$ once $s(t u) = t\,s(u)$ (or $s(-u) = s(u)$ for a sign) "
                 r"on every family of parameters, and a permutation relabels the coordinates; the pencil "
                 r"$(H, G)$ by the congruence of both for every pair of parameter families, and under signs "
                 r"and permutations the Hessian's own spectrum by an orthogonal similarity, and under the "
                 r"attention head's map, which mixes coordinates ($T\theta = M\theta$), the pencil by "
                 r"$H(\theta) = M^\top H(T\theta) M$, $G$ alike, with $M$ invertible (the kernel's "
                 r"combinators, which check each premise); the other measures by a chain of rewrites the "
                 r"kernel checks step by step (Theorem 3's law per coordinate, sums over permuted units "
                 r"reindexed, then the scales cancel).  Each is cross-checked on the group's families: the kernel's $T$ is the "
                 r"group's action, and the index-level measure is the one "
                 r"computed here.  A $\checkmark^{s}$ is established at the sizes of the group's families "
                 r"(JSON field \texttt{sizes}); the JSON field \texttt{every\_size\_route} names what an "
                 r"every-size proof of it would need.")
    lines.append(r"\section*{One derivation per cell}")
    for m in measures:
        for g in groups:
            cell = by_key[(m, g)]
            verdict = cell.outcome.verdict
            lines.append(r"\subsection*{\texttt{%s} under \texttt{%s}: %s}"
                         % (escape(m), escape(g), escape(cell.state.upper().replace("_", " "))))
            lines.append(r"\begin{enumerate}")
            for step in cell.outcome.steps:
                how = (r"\emph{logical glue}" if not step.checked else
                       r"\emph{checked}: %s" % ("holds" if step.holds else "fails"))
                lines.append(r"\item $%s$\\ %s. %s." % (step.statement, _reason(step.reason), how))
            lines.append(r"\end{enumerate}")
            if verdict.evidence:
                lines.append(r"Evidence: %s." % "; ".join(_reason(e) for e in verdict.evidence))
            if cell.for_every_size:
                lines.append(r"For every size: %s." % "; ".join(_reason(e) for e in cell.every_size.evidence))
            if verdict.reason and cell.state != "not_applicable":
                lines.append(r"Reason: %s." % _reason(verdict.reason))
            if cell.state in ("refuted", "not_applicable"):
                lines.append(r"Counterexample: %s" % _witness_note(cell))
    lines += [r"\end{document}", ""]
    return "\n".join(lines)


def _reason(text: str) -> str:
    """A reason: inline math kept, plain parts escaped and long numbers shortened."""
    parts = text.split("$")
    return "$".join(part if k % 2 else _text(part) for k, part in enumerate(parts))


def write_document(cells, measures, groups, folder: str, definitions=None) -> str:
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "audit.tex")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(render(cells, measures, groups, definitions))
    if tex_engine() is None:
        return f"wrote {path} (no TeX engine found: not compiled)"
    ok, message = compile_pdf(path)
    pdf = os.path.splitext(path)[0] + ".pdf"
    return f"wrote {path} and {pdf}" if ok else f"wrote {path}; compiling FAILED: {message}"
