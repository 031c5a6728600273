"""The Coq theorems a document cites, asked of Coq when the document is written: each theorem's
answer (checked: it compiles and rests on the reals' axioms only; or why not) and its statement as
Coq prints it (``Check``), never a statement typed beside it."""
from __future__ import annotations

import tempfile
from pathlib import Path

from symbolic.coq import library

CHECK_SECONDS = 60            # a cap on the CPU time of the call that prints the statements


def answer_citations(derivations) -> None:
    """Fill in, for every Coq theorem the derivations cite, Coq's answer and its printed statement
    (one compile of the development for all of them)."""
    # (a citation that already carries Coq's statement, a row Coq checked in the run, is not asked again)
    citations = [citation for derivation in derivations for citation in derivation.coq if not citation.statement]
    if not citations:
        return
    names = list(dict.fromkeys(citation.name for citation in citations))
    answers, statements = _ask(names)
    for citation in citations:
        citation.answer = answers.get(citation.name, citation.answer)
        citation.statement = statements.get(citation.name, "")


def _ask(names: list[str]) -> tuple[dict, dict]:
    """name -> Coq's answer, and name -> its statement as Coq printed it (for the theorems Coq
    found in the development)."""
    if library.coqc() is None:
        return dict.fromkeys(names, library.COQC_MISSING), {}
    with tempfile.TemporaryDirectory(prefix="coq-cited-") as folder:
        # the development, compiled once (the files that need mathcomp are not cited)
        failure = library._compile(Path(folder), skip=library.NEEDS_MATHCOMP)
        if failure:
            return dict.fromkeys(names, failure), {}
        answers = library.assumptions(Path(folder), names)
        found = [name for name in names if not answers[name].startswith("refused")]
        # the reals' notations, so that Coq prints 0 < alpha and R rather than their full names
        lines = ["Require Import Reals.", "Open Scope R_scope."]
        lines += [f"Require {library.LIBRARY}.{module}." for module in sorted({name.split(".")[0] for name in found})]
        lines += [library.printing(f"{library.LIBRARY}.{name}") for name in found]
        (Path(folder) / "Cited.v").write_text("\n".join(lines) + "\n")
        run = library.timed_coqc(Path(folder), "Cited.v", CHECK_SECONDS, ("-Q", ".", library.LIBRARY))
    printed = library.printed_statements(run.stdout) if run.accepted else {}
    # Coq prints 'Module.name : type' (the library's prefix left out): the type is the statement
    return answers, {name: printed[f"{library.LIBRARY}.{name}"].removeprefix(f"{name} : ")
                     for name in found if f"{library.LIBRARY}.{name}" in printed}
