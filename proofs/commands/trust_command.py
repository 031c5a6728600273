"""python -m proofs trust: what a PROVED verdict rests on, printed from the code.

The kernel's files with their line counts (the code that mints theorems), the trusted base's folder
(``symbolic/trusted/``: the axioms, schemes and oracles the kernel takes) with its own, the axioms and
definitions the every-size chains may use (with the rules whose validity is checked on instances
only, less those the Coq development proves for every size, checked by coqc where it is installed),
the inference schemes, and the oracles the kernel runs on a statement.  ``--markdown``
prints the same as the tables of the README's trust section.
"""
from __future__ import annotations

import argparse
import importlib
import os

from proofs.commands.arguments import Parser
from symbolic import trusted
from symbolic.coq import library as coq_library

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
KERNEL = os.path.join("symbolic", "kernel")
TRUSTED = os.path.join("symbolic", "trusted")

# the modules that declare definitions (the axioms, schemes and oracles are declared by the trusted
# folder's own modules, which ``trusted.load`` imports)
DECLARING = ("symbolic.every_size.networks", "symbolic.every_size.paths", "proofs.all_sizes",
             "proofs.measures_all_sizes")


def kernel_files() -> list[tuple[str, int]]:
    """Each file of the kernel with its number of lines."""
    return _files(KERNEL)


def trusted_files() -> list[tuple[str, int]]:
    """Each file of the trusted base's folder (axioms, schemes, oracles) with its number of lines."""
    return _files(TRUSTED)


def _files(top: str) -> list[tuple[str, int]]:
    found = []
    for folder, _, names in sorted(os.walk(os.path.join(ROOT, top))):
        for name in sorted(n for n in names if n.endswith(".py")):
            path = os.path.join(folder, name)
            found.append((os.path.relpath(path, ROOT), sum(1 for _ in open(path, encoding="utf-8"))))
    return found


def trusted_base() -> dict:
    trusted.load()
    for module in DECLARING:
        importlib.import_module(module)
    from symbolic.kernel import derivations, oracles, rules
    axioms = derivations.axioms()
    checked_on_instances, proved_in_coq = [], []
    for rule in axioms:
        validity = rule.validity()
        caveats = validity.rests_on.get("instance_checked", []) if validity.status.name == "PROVED" else []
        # a rule the Coq development proves for every size (checked by coqc in this process) leaves the list
        proved = coq_library.instance_rules_proved(tuple(caveats)) if caveats else {}
        checked_on_instances += [(rule.name, caveat) for caveat in caveats if caveat not in proved]
        proved_in_coq += [(rule.name, evidence) for evidence in proved.values()]
    return {
        "kernel": kernel_files(),
        "trusted": trusted_files(),
        "axioms": sorted({rule.name for rule in axioms if not rule.name.startswith("definition of ")}),
        "definitions": sorted({rule.name for rule in axioms if rule.name.startswith("definition of ")}),
        "instance_checked": sorted(set(checked_on_instances)),
        "proved_in_coq": sorted(set(proved_in_coq)),
        "schemes": sorted((s.name, s.conclude.__module__) for s in rules._SCHEMES.values()),
        "oracles": sorted((o.name, o.where, o.decides) for o in oracles.declared()),
    }


def render(base: dict, markdown: bool) -> str:
    total = sum(lines for _, lines in base["kernel"])
    trusted = sum(lines for _, lines in base["trusted"])
    out = [f"kernel: {total} lines in {len(base['kernel'])} files"]
    out += [f"  {path}: {lines}" for path, lines in base["kernel"]]
    out.append(f"trusted base (axioms, schemes, oracles): {trusted} lines in {len(base['trusted'])} files")
    out += [f"  {path}: {lines}" for path, lines in base["trusted"]]
    out.append(f"axioms (rewrite rules, each with a validity check): {len(base['axioms'])}")
    out += [f"  {name}" for name in base["axioms"]]
    out.append(f"definitions (each a fresh name): {len(base['definitions'])}")
    out += [f"  {name}" for name in base["definitions"]]
    out.append("rules valid for every size but checked on instances only:")
    out += [f"  {name}: {caveat}" for name, caveat in base["instance_checked"]] or ["  none"]
    out.append("rules the kernel checks on instances and Coq proves for every size:")
    out += [f"  {name}: {evidence}" for name, evidence in base["proved_in_coq"]] or ["  none (coqc or mathcomp missing)"]
    out.append(f"inference schemes: {len(base['schemes'])}")
    out += [f"  {name} ({module})" for name, module in base["schemes"]]
    out.append(f"oracles the kernel runs on a statement: {len(base['oracles'])}")
    out += [f"  {name} ({where}): {decides}" for name, where, decides in base["oracles"]]
    if not markdown:
        return "\n".join(out)
    rows = ["| part | count | what |", "|---|---|---|",
            f"| kernel (`symbolic/kernel/`) | {total} lines, {len(base['kernel'])} files | "
            + ", ".join(f"`{os.path.basename(p)}` {n}" for p, n in base["kernel"]) + " |",
            f"| trusted base (`symbolic/trusted/`) | {trusted} lines, {len(base['trusted'])} files | "
            + ", ".join(f"`{os.path.relpath(p, TRUSTED)}` {n}" for p, n in base["trusted"]) + " |",
            f"| axioms | {len(base['axioms'])} | rewrite rules, each with a validity check |",
            f"| definitions | {len(base['definitions'])} | each introduces a fresh name once |",
            f"| checked on instances only | {len(base['instance_checked'])} | "
            + "; ".join(f"{n} ({c})" for n, c in base["instance_checked"]) + " |",
            f"| checked on instances, proved for every size in Coq | {len(base['proved_in_coq'])} | "
            + "; ".join(f"{n} ({e})" for n, e in base["proved_in_coq"]) + " |",
            f"| inference schemes | {len(base['schemes'])} | " + ", ".join(n for n, _ in base["schemes"]) + " |",
            f"| oracles | {len(base['oracles'])} | " + ", ".join(n for n, _, _ in base["oracles"]) + " |"]
    return "\n".join(rows)


def main(argv: list[str]) -> int:
    parser = Parser(prog="python -m proofs trust", description=__doc__.split("\n\n")[0],
                    formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--markdown", action="store_true", help="the summary as a Markdown table")
    args = parser.parse_args(argv)
    print(render(trusted_base(), args.markdown))
    return 0
