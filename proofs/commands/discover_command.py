"""python -m proofs symmetry SPEC --discover: find the symmetries of the model in SPEC instead of
checking a map.  The spec needs only ``inputs`` and ``[[layers]]`` (``sizes`` and ``loss`` are used
when present); a ``[map]`` or ``[group]`` is ignored, with a note on stderr."""
from __future__ import annotations

import sys

from symbolic.symmetries.discovery import discover_symmetries

from proofs.commands.arguments import show_report

DEFAULT_SIZES = [1]


def run(spec: dict, model, loss: str, sizes: list | None, args) -> int:
    """Discover, print the table or the JSON object, write the LaTeX derivation; the exit code of
    the overall status."""
    ignored = [f"[{key}]" for key in ("map", "group") if key in spec]
    if ignored:
        print(f"note: {' and '.join(ignored)} ignored: --discover finds the symmetries itself",
              file=sys.stderr)
    report = discover_symmetries(model, loss=loss, sizes=sizes or DEFAULT_SIZES, seed=args.seed,
                                 timeout=args.timeout)
    return show_report(report, args)


# --- a whole trained model: the group read from its architecture -------------------------------------

SHOWN_GENERATORS = 12          # the table lists this many generators, then counts the rest by status


def architecture_report(network, name: str, seed: int = 0) -> dict:
    """The group of positive unit rescalings read from the network's layers, each generator PROVED (or not)
    by the unit transport, the dimension, what maximality rests on, and the discrete symmetries named."""
    from symbolic.trained.unit_group import read_unit_group
    from symbolic.symmetries.unit_transport import prove_generators
    group = read_unit_group(network)
    verdicts = prove_generators(group, name, seed)
    tied = [k for k in range(group.dimension) if group.tied(k)]
    hidden = group.hidden_units()
    discrete = ["permutations of the units of each hidden layer (with the units a skip connection ties permuted "
                "alike)"] if hidden else []
    if group.odd:
        discrete.append(f"sign flips of the units that {', '.join(sorted(set(group.odd)))} reads (an odd function)")
    return {
        "group": group, "verdicts": verdicts, "dimension": group.dimension, "hidden_units": hidden,
        "tied_classes": tied, "blocking": group.blocking, "discrete": discrete,
        "maximality": ("not proved: the dimension counts the positive rescalings of hidden units the layers allow "
                       "(the rank bound that proves it maximal is computed within the spec limit only)"),
    }


def architecture_json(report: dict, every_width: dict) -> dict:
    group = report["group"]
    return {
        "status": _status(report, every_width).value if report["verdicts"] else "no generator to prove",
        "route": "the group read from the architecture, each generator proved by the unit transport",
        "dimension": report["dimension"], "dimension_is_maximal": False, "maximality": report["maximality"],
        "hidden_units": report["hidden_units"], "parameters": group.network.parameter_count,
        "layers": len(group.network.layers),
        "skip_ties": [group.describe(k) for k in report["tied_classes"]],
        "not_positively_homogeneous": report["blocking"], "discrete_not_proved": report["discrete"],
        "generators": [{"name": f"T_{k + 1}", "units": group.describe(k), "status": v.status.value,
                        "statement": str(v.theorem.statement) if v.theorem is not None else None,
                        "rests_on": list(v.theorem.rests_on.rules) if v.theorem is not None else []}
                       for k, v in enumerate(report["verdicts"])],
        "every_width": {key: value for key, value in every_width.items() if key != "verdict"},
    }


def _status(report: dict, every_width: dict):
    from symbolic.kernel.verdict import Status, worst
    parts = list(report["verdicts"]) + ([every_width["verdict"]] if every_width.get("verdict") is not None else [])
    return worst(parts) if parts else Status.PROVED


def architecture_table(report: dict, name: str) -> str:
    group, verdicts = report["group"], report["verdicts"]
    network = group.network
    lines = [f"{name}: {len(network.layers)} layers, {network.parameter_count:,} parameters, "
             f"{report['hidden_units']} hidden units; the group read from the architecture (one positive factor "
             "per class of hidden units), each generator proved by the unit transport (6 exact laws, one walk of "
             "the layers per generator: the cost grows with the layers, not the parameters)"]
    lines.append(f"dimension {report['dimension']} (maximality {report['maximality']})")
    if report["tied_classes"]:
        lines.append(f"skip connections tie {len(report['tied_classes'])} classes (one factor for the units of "
                     "several layers; measures can move only through the rest): "
                     + "; ".join(group.describe(k) for k in report["tied_classes"][:4])
                     + ("; ..." if len(report["tied_classes"]) > 4 else ""))
    if report["blocking"]:
        lines.append("not positively homogeneous, the units they read fixed: " + "; ".join(report["blocking"][:3]))
    if not report["dimension"]:
        lines.append("no positive rescaling leaves the network unchanged"
                     + (f": {report['blocking'][0]} reads every hidden unit" if report["blocking"] else ""))
    for k, verdict in enumerate(verdicts[:SHOWN_GENERATORS]):
        statement = verdict.theorem.statement if verdict.theorem is not None else verdict.claim
        lines.append(f"  T_{k + 1:<4} {group.describe(k):<46} {verdict.status.value.upper():<9} {statement}")
    if len(verdicts) > SHOWN_GENERATORS:
        rest = verdicts[SHOWN_GENERATORS:]
        counts = {s: sum(v.status.value == s for v in rest) for s in ("proved", "refuted", "undecided")}
        lines.append(f"  ... {len(rest)} more: " + ", ".join(f"{n} {s.upper()}" for s, n in counts.items() if n))
    if report["discrete"]:
        lines.append("discrete symmetries besides (not proved here): " + "; ".join(report["discrete"]))
    return "\n".join(lines)
