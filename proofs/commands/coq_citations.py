"""The Coq theorems a document cites, asked of Coq when the document is written: each theorem's
answer (checked: it compiles and rests on the reals' axioms only; or why not) and its statement as
Coq prints it (``Check``), never a statement typed beside it."""
from __future__ import annotations

import tempfile
from pathlib import Path

from symbolic.coq import library

MARK = "@@ cited "            # printed by coqc before the statement of each cited theorem
CHECK_SECONDS = 60            # a cap on the CPU time of the call that prints the statements


def answer_citations(derivations) -> None:
    """Fill in, for every Coq theorem the derivations cite, Coq's answer and its printed statement
    (one compile of the development for all of them)."""
    citations = [citation for derivation in derivations for citation in derivation.coq]
    if not citations:
        return
    names = list(dict.fromkeys(citation.name for citation in citations))
    answers, statements = _ask(names)
    for citation in citations:
        citation.answer = answers.get(citation.name, citation.answer)
        citation.statement = statements.get(citation.name, "")


def _ask(names: list[str]) -> tuple[dict, dict]:
    """name -> Coq's answer, and name -> its statement as Coq printed it."""
    if library.coqc() is None:
        return dict.fromkeys(names, library.COQC_MISSING), {}
    with tempfile.TemporaryDirectory(prefix="coq-cited-") as folder:
        # the development, compiled once (the files that need mathcomp are not cited)
        failure = library._compile(Path(folder), skip=library.NEEDS_MATHCOMP)
        if failure:
            return dict.fromkeys(names, failure), {}
        answers = library.assumptions(Path(folder), names)
        # the reals' notations, so that Coq prints 0 < alpha and R rather than their full names
        lines = ["Require Import Reals.", "Open Scope R_scope."]
        lines += [f"Require {library.LIBRARY}.{module}." for module in sorted({name.split(".")[0] for name in names})]
        for name in names:
            lines += [f'Goal True. idtac "{MARK}{name}". Abort.', f"Check {library.LIBRARY}.{name}."]
        (Path(folder) / "Cited.v").write_text("\n".join(lines) + "\n")
        run = library.timed_coqc(Path(folder), "Cited.v", CHECK_SECONDS, ("-Q", ".", library.LIBRARY))
    return answers, (printed(run.stdout) if run.accepted else {})


def printed(stdout: str) -> dict:
    """name -> the statement Coq printed after its mark (``Check``: 'Sharp.M.name : type'), its
    lines joined by single spaces."""
    found, current, lines = {}, None, []
    for line in stdout.splitlines() + [MARK]:
        if line.startswith(MARK):
            if current is not None:
                text = " ".join(" ".join(lines).split())
                # 'Module.name : type', the name as Coq prints it (with or without the library's)
                for head in (f"{library.LIBRARY}.{current} :", f"{current} :"):
                    text = text[len(head):].strip() if text.startswith(head) else text
                found[current] = text
            current, lines = line[len(MARK):].strip() or None, []
        elif current is not None:
            lines.append(line)
    return found
