"""``python -m proofs --latex DIR``: one LaTeX derivation per result, compiled where possible."""
from __future__ import annotations

import os

from proofs.commands.coq_citations import answer_citations
from symbolic.latex import compile_pdf, render, tex_engine


def write_documents(derivations, folder: str) -> list[str]:
    """Write DIR/<result>.tex for each derivation, compile each to PDF; return report lines."""
    os.makedirs(folder, exist_ok=True)
    # the Coq theorems the documents cite, asked of Coq now: their answers and printed statements
    answer_citations(derivations)
    lines = []
    for derivation in derivations:
        tex_path = os.path.join(folder, f"{derivation.name}.tex")
        with open(tex_path, "w", encoding="utf-8") as handle:
            handle.write(render(derivation))
        lines.append(compiled(tex_path))
    return lines


def compiled(tex_path: str) -> str:
    """Compile a written .tex file to PDF where a TeX engine is found; the line that reports it."""
    if tex_engine() is None:
        return f"wrote {tex_path} (no TeX engine found: not compiled)"
    ok, message = compile_pdf(tex_path)
    pdf = os.path.splitext(tex_path)[0] + ".pdf"
    return f"wrote {tex_path} and {pdf}" if ok else f"wrote {tex_path}; compiling FAILED: {message}"
