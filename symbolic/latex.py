"""Derivations as standalone LaTeX documents, and their compilation by a real TeX engine.

Only amsmath, amssymb, graphicx and geometry are used (all in Debian's texlive-latex-base).  sympy prints
Heaviside as θ, which collides with the parameter θ; indicators print as 1[s > 0] instead.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess

import sympy as sp

from symbolic.derivation import Derivation, summarize_sizes
from symbolic.printing.sympy_latex import to_latex  # noqa: F401 - the project's sympy printer, used here and re-exported
from symbolic.kernel.verdict import Status
from symbolic.logic.notation import latex as term_latex




BREAK_DIGITS = 24       # a run of digits in running text may break after this many

_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
            "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\^{}"}


def escape(text: str) -> str:
    """Text made safe for LaTeX; segments between $ signs are inline math and kept as they are."""
    parts = text.split("$")
    if len(parts) % 2 == 0:
        raise ValueError(f"unbalanced $ in {text!r}")
    return "$".join(part if k % 2 else escape_text(part) for k, part in enumerate(parts))


def escape_text(text: str) -> str:
    """Text with no math in it made safe for LaTeX: every special character a character (a user's
    own text, a reason given beside a step, is never read as commands or math)."""
    text = "".join(_SPECIAL.get(ch, ch) for ch in text)
    text = text.replace("<", r"\textless{}").replace(">", r"\textgreater{}").replace("|", r"\textbar{}")
    # a long run of digits (an exact value in a reason) may break every BREAK_DIGITS digits
    return re.sub(r"\d{%d,}" % (BREAK_DIGITS + 1), lambda m: r"\allowbreak{}".join(
        m.group(0)[k:k + BREAK_DIGITS] for k in range(0, len(m.group(0)), BREAK_DIGITS)), text)


# LaTeX commands that become a word or a sign in plain text (any other command: its name)
_PLAIN_WORDS = {
    "varsigma": "sigmoid", "varepsilon": "epsilon", "infty": "inf", "nabla": "grad", "partial": "d",
    "le": "<=", "leq": "<=", "ge": ">=", "geq": ">=", "ne": "!=", "neq": "!=", "pm": "+-",
    "cdot": "*", "times": "x", "circ": "o", "to": "->", "mapsto": "->", "Rightarrow": "=>",
    "implies": "=>", "iff": "<=>", "Leftrightarrow": "<=>", "approx": "~", "sim": "~",
    "dots": "...", "ldots": "...", "cdots": "...", "langle": "<", "rangle": ">", "mid": "|",
    "lVert": "||", "rVert": "||", "cap": "cap", "subseteq": "subset of", "succeq": ">=",
    "forall": "for all", "exists": "exists", "emptyset": "{}", "notin": "not in", "top": "T",
}
# commands that print their argument as it is, and commands that print nothing
_PLAIN_WRAPPERS = {"operatorname", "mathrm", "text", "textbf", "emph", "mathbf", "mathit", "mathbb",
                   "mathcal", "boldsymbol", "texttt", "tilde", "hat", "bar"}
_PLAIN_DROPPED = {"left", "right", "bigl", "bigr", "Bigl", "Bigr", "big", "Big", "textstyle",
                  "displaystyle", "allowbreak", "noindent", "par", "medskip"}
# one-character commands: escaped characters and spaces
_PLAIN_SIGNS = {"{": "{", "}": "}", "|": "||", ",": " ", ";": " ", ":": " ", " ": " ", "!": "",
                "%": "%", "_": "_", "&": "&", "$": "$", "#": "#", "\\": "; "}


def to_plain(text: str) -> str:
    """Text with inline LaTeX (a step's reason) for a terminal: commands become words or signs
    (\\operatorname{vol} → vol, \\infty → inf, \\ge → >=), \\frac{a}{b} becomes (a)/(b), a
    super- or subscript of more than one character is parenthesised (alpha_k^(-1)), and a word
    never runs into its neighbour (T_s theta)."""
    plain = _Plain(text.replace("$", "").replace("~", " ")).read()
    plain = re.sub(r" {2,}", " ", plain)
    return re.sub(r" +([)\].,;:])", r"\1", plain).strip()      # no space before closing punctuation


class _Plain:
    """A small reader of LaTeX: commands, groups {...}, scripts ^ and _."""

    def __init__(self, text: str):
        self.text, self.at = text, 0

    def read(self, until: str = "") -> str:
        """Everything up to the closing ``until`` (a brace) or the end, in plain text."""
        out = ""
        while self.at < len(self.text) and self.text[self.at] != until:
            out = _join(out, self.token())
        self.at += 1 if until else 0
        return out

    def argument(self) -> str:
        """A command's or a script's argument: a group, or one token."""
        while self.at < len(self.text) and self.text[self.at] == " ":
            self.at += 1
        if self.at < len(self.text) and self.text[self.at] == "{":
            self.at += 1
            return self.read("}")
        return self.token() if self.at < len(self.text) else ""

    def token(self) -> str:
        ch = self.text[self.at]
        self.at += 1
        if ch == "{":
            return self.read("}")
        if ch in "^_":
            inner = self.argument()
            return ch + (inner if re.fullmatch(r"[A-Za-z0-9]|[A-Za-z]+", inner) else f"({inner})")
        if ch != "\\":
            return ch
        name = re.match(r"[A-Za-z]+|.?", self.text[self.at:], re.S).group(0)
        self.at += len(name)
        if name in ("frac", "tfrac", "dfrac"):
            top, bottom = self.argument(), self.argument()
            return "/".join(part if re.fullmatch(r"[A-Za-z0-9]+", part) else f"({part})"
                            for part in (top, bottom))
        if name == "sqrt":
            return f"sqrt({self.argument()})"
        if name in _PLAIN_WRAPPERS:
            return self.argument()
        if name in _PLAIN_DROPPED:
            return ""
        if len(name) == 1 or not name:
            return _PLAIN_SIGNS.get(name, name)
        word = _PLAIN_WORDS.get(name, name)
        return word if word.isalpha() else f" {word} "


def _join(left: str, right: str) -> str:
    """left + right; a space where a word would otherwise run into a letter or a digit."""
    if left and left[-1].isalnum() and len(right) > 1 and right.isalpha():
        return left + " " + right
    return left + right


def _status_text(step) -> str:
    """The step's verdict and where it was checked."""
    return r"\emph{checked}: \textbf{%s}, %s" % (step.status.name, escape(step.where))


def _step_text(step) -> str:
    return r"%s. %s." % (escape(step.reason[0].upper() + step.reason[1:]), _status_text(step))


def display_lines(step, before=None) -> list[str]:
    """The step's displayed formula, one line per conjunct, each printed from the statement the
    step's verdict carries (``Step.formula_lines``); a step of an every-size chain whose left side
    is the line before's right side shows '= its right side' (the rest of the same printed line)."""
    lines = step.formula_lines()
    statement, previous = step.statement, before.statement if before is not None else None
    if (len(lines) == 1 and type(statement).__name__ == "IndexEquation" and type(previous).__name__ == "IndexEquation"
            and not statement.hypotheses and statement.lhs == previous.rhs):
        head = term_latex(statement.lhs) + " = "
        if lines[0].startswith(head):
            return ["= " + lines[0][len(head):]]
    return lines


def _fitted(line: str) -> str:
    # a statement printed as words (a fact an oracle decided, a scheme's conclusion) is set as a
    # paragraph that breaks its lines; a formula wider than the text block is scaled down to it
    # (TeX never breaks a display); a function named by a command that takes an argument (\sqrt) is
    # applied as the printer writes every function, to a parenthesised argument: an operator name
    words = _words(line)
    if words is not None:
        return r"\statementwords{%s}" % words
    return r"\fitmath{%s}" % re.sub(r"\\(sqrt)(?=\\bigl\()", r"\\operatorname{\1}", line)


def _words(line: str) -> str | None:
    """The text of a line that is one \\text{...} and nothing else, or None."""
    if not (line.startswith(r"\text{") and line.endswith("}")):
        return None
    depth = 0
    for at, ch in enumerate(line[len(r"\text"):], start=len(r"\text")):
        escaped = line[at - 1] == "\\"
        depth += (ch == "{" and not escaped) - (ch == "}" and not escaped)
        if depth == 0:
            return line[len(r"\text{"):-1] if at == len(line) - 1 else None
    return None


def _display(steps, first_number: int = 1) -> list:
    """Each step's lines in one align*, the first line of a step tagged with its number."""
    lines = [r"\begin{align*}"]
    rows, before = [], None
    for number, step in enumerate(steps, start=first_number):
        for k, line in enumerate(display_lines(step, before)):
            rows.append(r"& %s %s" % (_fitted(line), r"\tag{%d}" % number if k == 0 else r"\notag"))
        before = step
    lines.append(" \\\\\n".join(rows))
    return lines + [r"\end{align*}"]


def _steps_then_reasons(steps, first_number: int = 1) -> list:
    """Every step in one display, then the reasons numbered below it."""
    if not steps:
        return []
    lines = [r"Each line is the statement of a theorem the kernel proved, printed from it; its reason "
             r"follows below the display."]
    lines += _display(steps, first_number)
    lines += [r"\begin{enumerate}"]
    lines += [r"\item[(%d)] %s" % (number, _step_text(step)) for number, step in enumerate(steps, start=first_number)]
    return lines + [r"\end{enumerate}"]


def _steps_with_reasons(steps, first_number: int = 1) -> list:
    """Each step with its reason beside it: the display, then at once the rule, the subterm it
    rewrites and the check."""
    lines = [r"Each line is the statement of a theorem the kernel proved, printed from it, followed at once "
             r"by its reason: the rule, the subterm it rewrites, the check."]
    before = None
    for number, step in enumerate(steps, start=first_number):
        shown = display_lines(step, before)
        rows = [r"& %s %s" % (_fitted(line), r"\tag{%d}" % number if k == 0 else r"\notag")
                for k, line in enumerate(shown)]
        lines += [r"\begin{align*}%s\end{align*}" % " \\\\ ".join(rows),
                  r"\vspace{-0.6\baselineskip}{\small\noindent\hfill\parbox{0.92\linewidth}{\raggedright (%d) %s}}\par"
                  % (number, _step_text(step))]
        before = step
    return lines


# a display line wider than the text block is scaled to fit it (graphicx, in texlive-latex-base)
FIT_MATH = (r"\newsavebox{\stepbox}"
            r"\newcommand{\fitmath}[1]{\sbox{\stepbox}{$\displaystyle #1$}"
            r"\ifdim\wd\stepbox>\dimexpr\linewidth-4em\relax"
            r"\resizebox{\dimexpr\linewidth-4em\relax}{!}{\usebox{\stepbox}}\else\usebox{\stepbox}\fi}"
            r"\newcommand{\statementwords}[1]{\parbox[t]{\dimexpr\linewidth-4em\relax}{\raggedright\small #1}}")


def render(derivation: Derivation) -> str:
    """The derivation as a standalone document."""
    lines = [
        r"\documentclass[11pt]{article}",
        r"\usepackage[margin=2.2cm]{geometry}",
        r"\usepackage{amsmath,amssymb,graphicx}",
        r"\allowdisplaybreaks",
        r"\setlength{\emergencystretch}{3em}",
        FIT_MATH,
        r"\title{%s}" % escape(derivation.title),
        r"\date{}",
        r"\begin{document}",
        r"\maketitle",
        r"\noindent\textbf{Source.} %s.\par\medskip" % escape(derivation.source),
        (r"\noindent\textbf{Verdict.} \textbf{%s} for every size: the sizes are symbols, every step "
         r"checked by the kernel; the instances of the cross-check are listed at the end." if derivation.every_size
         else r"\noindent\textbf{Verdict.} \textbf{%s} for every checked step, at the sizes each step names.")
        % derivation.status.name,
        r"\section*{Statement}",
        derivation.statement,
        *_proved_here(derivation),
    ]
    if derivation.definitions:
        lines += [r"\section*{Definitions}", r"\begin{itemize}",
                  *[r"\item " + definition for definition in derivation.definitions], r"\end{itemize}"]
    number = 1
    for title, steps in derivation.sections:
        lines += [r"\section*{%s}" % escape(title)] + _steps_with_reasons(steps, number)
        number += len(steps)
    lines += _coq(derivation)
    if derivation.steps:
        lines.append(r"\section*{%s}" % ("Derivation" if not derivation.sections else "Derivation at the checked sizes"))
        if derivation.every_size:
            lines += _steps_with_reasons(derivation.steps, number)
        else:
            lines += _steps_then_reasons(derivation.steps, number)
    if derivation.unchecked:
        lines += [r"\section*{The argument in words (not checked by the kernel)}",
                  r"These inferences join the checked steps above; no kernel rule checks them, so they are "
                  r"not displayed as steps.", r"\begin{itemize}", *[r"\item " + text for text in derivation.unchecked],
                  r"\end{itemize}"]
    lines += _refuted_and_undecided(derivation)
    lines += _instances(derivation)
    lines += [r"\section*{%s}" % ("Instances of the cross-check" if derivation.every_size else "Sizes covered"),
              escape(summarize_sizes(derivation.sizes) or "not applicable") + "."]
    if derivation.residuals:
        lines += [r"\section*{Witness residuals}", r"\begin{tabular}{ll}",
                  r"\textbf{identity} & \textbf{largest residual} \\ \hline"]
        lines += [r"%s & $%s$ \\" % (escape(label), to_latex(sp.Float(value, 3)))
                  for label, value in derivation.residuals]
        lines.append(r"\end{tabular}")
    lines += _rests_on(derivation)
    if derivation.notes:
        lines.append(r"\section*{Notes}")
        lines += [note + r"\par" for note in derivation.notes]
    lines += [r"\section*{Verdict}",
              r"\textbf{%s}: %s" % (derivation.status.name, escape(derivation.title)),
              r"\end{document}", ""]
    return "\n".join(lines)


def _proved_here(derivation: Derivation) -> list[str]:
    """What the document proves of its statement, when the statement does not say it itself: the
    steps at the sizes each names, the words left unchecked, the Coq theorems cited."""
    if "What is proved here" in derivation.statement:
        return []
    text = (r"Every displayed step, for every size" if derivation.every_size else
            r"Every displayed step, at the sizes named under it")
    if derivation.unchecked:
        text += "; the inferences given in words join them and are not checked by the kernel"
    if derivation.coq:
        text += "; the Coq theorems cited prove what each says, for every size"
    return [r"\par\medskip\noindent\emph{What is proved here.} %s." % text]


def _coq(derivation: Derivation) -> list[str]:
    """The Coq theorems that re-check the result, each with Coq's answer and its statement as Coq
    printed it (``Check``), asked when the document was written."""
    if not derivation.coq:
        return []
    title = "The Coq theorem that re-checks it" if len(derivation.coq) == 1 else "The Coq theorems that re-check it"
    lines = [r"\section*{%s}" % title, r"{\raggedright"]
    for citation in derivation.coq:
        lines.append(r"\noindent\texttt{%s} (%s): Coq's answer: \textbf{%s}.\par"
                     % (escape(citation.name), escape(citation.proves), escape(citation.answer)))
        if citation.statement:
            lines += [r"{\small\begin{verbatim}", *_wrapped(citation.statement), r"\end{verbatim}}"]
        else:
            lines.append(r"\noindent (Coq printed no statement in this run.)\par")
    return lines + [r"\par}"]


def _wrapped(text: str, width: int = 88) -> list[str]:
    """Verbatim lines of at most ``width`` characters (a long line cut at a space where it can)."""
    out = []
    for line in text.splitlines():
        while len(line) > width:
            cut = line.rfind(" ", 0, width)
            cut = cut if cut > width // 2 else width
            out.append(line[:cut])
            line = "    " + line[cut:].lstrip()
        out.append(line)
    return out


def _instances(derivation: Derivation) -> list[str]:
    """The instance checks as a table: each claim, the sizes it ran at, its verdict."""
    if not derivation.instances:
        return []
    lines = [r"\section*{Instance checks}", r"{\small\noindent\begin{tabular}{p{0.6\linewidth}p{0.2\linewidth}l}",
             r"\textbf{claim} & \textbf{sizes} & \textbf{verdict} \\ \hline"]
    lines += [r"%s & %s & %s \\" % (escape(claim), escape(sizes), status) for claim, sizes, status in derivation.instances]
    return lines + [r"\end{tabular}}"]


def _rests_on(derivation: Derivation) -> list[str]:
    """What the proved checks rest on, as Lean's #print axioms lists it: the kernel's rules and
    axioms, the oracles taken on their word, the lemmas, the rules checked on instances only."""
    parts = {"rules": {}, "oracles": {}, "lemmas": {}, "instance_checked": {}}
    for step in derivation.all_steps:
        for verdict in step.verdicts:
            for kind, names in verdict.rests_on.items():
                parts[kind].update(dict.fromkeys(names))
    if not any(parts.values()):
        return []
    titles = {"rules": "Rules and axioms", "oracles": "Oracles (taken on their word)", "lemmas": "Lemmas",
              "instance_checked": "Valid for every size, checked on instances only"}
    items = [r"\item \textbf{%s}: %s." % (titles[kind], escape(", ".join(names)))
             for kind, names in parts.items() if names]
    return [r"\section*{What the proof rests on}", r"{\raggedright", r"\begin{itemize}", *items, r"\end{itemize}\par}"]


def _refuted_and_undecided(derivation: Derivation) -> list[str]:
    """Each refuted check with its reason and witness, each undecided one with its reason, under
    the number of its step."""
    items = []
    for number, step in enumerate(derivation.all_steps, start=1):
        for verdict in step.verdicts:
            if verdict.status is Status.PROVED:
                continue
            item = r"\item[(%d)] \textbf{%s}: $%s$." % (number, verdict.status.name, verdict.claim_latex())
            if verdict.reason:
                item += " " + escape(verdict.reason[0].upper() + verdict.reason[1:]) + "."
            if verdict.witness:
                # one inline formula per value, so that the line may break between them
                item += r" \emph{Witness}: " + ", ".join(f"${v}$" for v in verdict.witness_items()) + "."
            items.append(item)
    if not items:
        return []
    # ragged right: a line of long exact numbers breaks wherever it may, never into the margin
    return [r"\section*{Refuted and undecided checks}", r"{\raggedright", r"\begin{itemize}", *items,
            r"\end{itemize}\par}"]


_OVERFULL = re.compile(r"Overfull \\hbox \((\d+(?:\.\d+)?)pt too wide\)[^\n]*")


def overfull_boxes(log: str, tolerance_pt: float = 1.0) -> list[str]:
    """The lines of a pdflatex log that report a box wider than the text block by more than
    ``tolerance_pt`` points: a display or a line running into the margin."""
    return [match.group(0) for match in _OVERFULL.finditer(log) if float(match.group(1)) > tolerance_pt]


def tex_engine() -> str | None:
    return shutil.which("pdflatex")


def compile_pdf(tex_path: str, timeout: float = 180) -> tuple[bool, str]:
    """Run pdflatex on tex_path in its folder; (success, the log's error lines)."""
    engine = tex_engine()
    if engine is None:
        return False, "no TeX engine (pdflatex) on this machine"
    folder, name = os.path.split(os.path.abspath(tex_path))
    try:
        result = subprocess.run([engine, "-interaction=nonstopmode", "-halt-on-error", name],
                                cwd=folder, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return False, f"pdflatex did not finish within {timeout} s"
    pdf = os.path.splitext(os.path.abspath(tex_path))[0] + ".pdf"
    if result.returncode != 0 or not os.path.exists(pdf):
        errors = [line for line in result.stdout.splitlines() if line.startswith("!")]
        return False, "; ".join(errors) or f"pdflatex exited with {result.returncode}"
    return True, ""
