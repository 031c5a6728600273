"""python -m proofs derive FILE: check every step of the derivations a file holds, name the first wrong one.

Each chain of the file (``symbolic.derivations.reading``) is checked step by step by the kernel;
the conclusion e₀ R eₙ is computed by its rule of transitivity when every step is PROVED.

Examples:
  python -m proofs derive docs/examples/theorem1.deriv
  python -m proofs derive docs/examples/theorem1.deriv --latex theorem1.tex
"""
from __future__ import annotations

import argparse
import json
import os
import sys

from proofs.commands.arguments import EXIT_CODES, EXIT_INTERNAL_ERROR, Parser, UsageError, positive_seconds, \
    program_name
from symbolic.kernel.verdict import Status, worst

DEFAULT_SECONDS = 60.0

FORMAT = """file format:
  # a comment
  assume a > 0, b >= 0         (also: n integer, q rational, c < 0)
    relu(a*w*x) * (v/a)          the first expression line opens a chain
  = a*relu(w*x) * (v/a)   by ReLU is positively homogeneous
  <= ...                  by ...  (the reason is printed beside the step, never trusted)

  A step starts with =, <=, <, >=, >, != (or ≤, ≥, ≠); a blank line ends a chain.  Expressions
  use the grammar of `check`, plus index sums over symbolic sizes, sum(TERM, j, 1, h), and
  entries W[i,j], v[j], x[i]: such a step is proved for every size by one rewrite of the kernel.

exit codes: 0 every step PROVED, 1 a step REFUTED, 3 undecided, 2 a file that is not a chain."""


def build_parser() -> Parser:
    parser = Parser(prog="python -m proofs derive", description=__doc__.splitlines()[0].split(": ", 1)[1],
                    epilog=FORMAT, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("file", help="the derivation file (- for standard input)")
    parser.add_argument("--json", action="store_true", help="print the chains as JSON")
    parser.add_argument("--latex", metavar="OUT.tex", help="write the derivations as a LaTeX document, "
                        "each expression printed from the statement checked, and compile it to PDF")
    parser.add_argument("--certify", choices=["coq"], help="re-check each PROVED equation step with Coq")
    parser.add_argument("--timeout", type=positive_seconds, default=DEFAULT_SECONDS, metavar="SECONDS",
                        help=f"time budget of each step (default {DEFAULT_SECONDS:g})")
    return parser


def _read(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    try:
        with open(path, encoding="utf-8-sig") as handle:      # a byte-order mark is no part of the text
            return handle.read()
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"cannot read {path}: {getattr(error, 'strerror', None) or error}") from None


def _certified(checked):
    """Each PROVED step re-checked by Coq: an equation by its certificate, an index-level step by the
    kernel's chain that proved it, exported rule by rule and checked for every size; a step outside
    both says why not.  Coq refuting a step makes it UNDECIDED with both answers."""
    import dataclasses

    # Coq's runner and the chains' export, only when they are asked for
    from symbolic.coq.chains import NotExported, check_exports, export_chain
    from symbolic.coq.runner import Answer, combine, with_coq
    from symbolic.kernel.chains import proof_of
    from symbolic.logic.statements import IndexEquation
    verdicts, exports = {}, {}
    for step in checked.steps:
        verdict = step.verdict
        if verdict.status is not Status.PROVED:
            continue
        proof = proof_of(verdict.theorem.statement) if isinstance(step.statement, IndexEquation) else None
        if proof is None or proof[0] != "chain":
            verdicts[step.number] = with_coq(verdict)
            continue
        try:
            exports[step.number] = export_chain(proof[1], f"derive_step_{step.number}", step.statement.ranges)
        except NotExported as why:
            verdicts[step.number] = combine(verdict, Answer(f"outside the fragment ({why})"))
    answers = check_exports(list(exports.values()))
    for number, export in exports.items():
        found = answers.answers[export.name]
        answer = Answer(found, theorem=export.name, statement=answers.statements.get(export.name, ""))
        verdicts[number] = combine(checked.steps[number - 1].verdict, answer)
    steps = tuple(dataclasses.replace(step, verdict=verdicts.get(step.number, step.verdict)) for step in checked.steps)
    return dataclasses.replace(checked, steps=steps)


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    from symbolic.derivations import DerivationError, read_derivations
    from symbolic.derivations.document import chain_json, chain_text, document
    text = _read(args.file)
    try:
        chains = read_derivations(text)
    except DerivationError as error:
        raise UsageError(f"{args.file}: {error}") from None
    checked = [chain.check(seconds=args.timeout) for chain in chains]
    if args.certify == "coq":
        checked = [_certified(c) for c in checked]
    status = worst(checked)                # REFUTED beats UNDECIDED beats PROVED
    if args.json:
        print(json.dumps({"file": args.file, "status": status.value,
                          "chains": [chain_json(c) for c in checked]}, indent=1))
    else:
        print("\n\n".join(chain_text(c) for c in checked))
    if args.latex:
        _write_latex(args.latex, document(checked, f"Derivations of {os.path.basename(args.file)}"))
    # Coq refuting a step the kernel proved is a real disagreement: a bug of one of the two checkers
    if any(step.verdict.details.get("disagreement") for chain in checked for step in chain.steps):
        print(f"{program_name()} derive: two procedures disagree on a step (see its reason)", file=sys.stderr)
        return EXIT_INTERNAL_ERROR
    return EXIT_CODES[status]


def _write_latex(path: str, source: str) -> None:
    from proofs.commands.latex_output import compiled      # the TeX engine's run, only when it is asked for
    try:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(source)
    except OSError as error:
        raise UsageError(f"cannot write {path}: {error.strerror}") from None
    print(compiled(path), file=sys.stderr)
