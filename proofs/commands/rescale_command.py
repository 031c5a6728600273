"""python -m proofs rescale MODEL.onnx --data DATA.npz: a trained model's function-identical twin, and which of its sharpness measures move.

    python -m proofs rescale model.onnx --data data.npz --alpha 10
    python -m proofs rescale model.onnx --data data.npz --alpha 0.1 --alpha 10 --group per_neuron --json
    python -m proofs rescale model.onnx --data data.npz --loss cross_entropy --out twin.onnx --plot sweep.png
    python -m proofs rescale model.onnx --data big.npz --dask tcp://host:8786   the data sharded over Dask workers
    python -m proofs rescale model.onnx --data data.npz --group discovered --element T_1=2,T_2=1/3

DATA.npz holds arrays x (N examples of the model's input shape) and y (targets for mse, class labels
for cross_entropy).  The graph is read as torch, Keras 3 and skl2onnx export it (docs/trained_models.md
lists what is read): a fixed batch, shape subgraphs, a trailing Softmax (part of the cross-entropy
loss), several outputs (the one the loss needs, or --output NAME), skip connections.  The import is
checked against onnxruntime on the data before any exact arithmetic; the twin T_α θ is built in exact
rational arithmetic and its outputs on the data are compared with the original's exactly, so
"predictions identical" is a proof for those inputs.  --group discovered applies the architecture's own
group instead, as symmetry MODEL.onnx --discover finds and proves it (its PROVED generators T_k, each
θ_p ↦ c_k^{G_k,p} θ_p): the element --element T_1=2,T_2=1/3 (the generators not named at 1), or a
random one drawn with --seed.  The report says what was read (the output, batch
norms, the parameters counted, the loss convention against torch's losses); each measure says what
kind of number it is (exact, float64, an estimate with its error bound, or a lower bound) and the
audit's verdict on it.  Needs the onnx extra: pip install -e '.[onnx]'.
Exit code: 0 every twin's predictions identical, 1 some twin's not, 2 bad usage or bad input,
4 an internal error (the import disagrees with onnxruntime).
"""
from __future__ import annotations

import json
import os
import sys
from contextlib import contextmanager
from fractions import Fraction
from functools import lru_cache

from symbolic.trained.measures import KEYS as MEASURE_KEYS
from symbolic.trained.rescaling import GROUPS

from proofs.commands.arguments import EXIT_INTERNAL_ERROR, Accumulate, Parser, UsageError, names
from proofs.commands.discovered_group import discover_group, discover_unit_group, parse_element, positive_rational

EXAMPLE = "python -m proofs rescale model.onnx --data data.npz --alpha 10"
LOSSES = ("mse", "cross_entropy")
VERDICT_WORDS = {"proved": "invariant", "refuted": "not invariant", "undecided": "undecided"}
EXTRA_MISSING = "the rescale command needs the onnx extra: pip install -e '.[onnx]'"
SHOWN_GENERATORS = 12             # the table lists this many generators of a discovered group, then counts the rest
DISCOVERED = "discovered"          # the architecture's own group, as symmetry MODEL.onnx --discover finds it


def build_parser() -> Parser:
    parser = Parser(prog="python -m proofs rescale",
                    description="Import a trained ReLU network from ONNX, build its exactly rescaled twin, "
                                "prove their predictions identical on the data and measure both.")
    parser.add_argument("model", metavar="MODEL.onnx", help="the trained network")
    parser.add_argument("--data", required=True, metavar="DATA.npz", help="arrays x and y")
    parser.add_argument("--alpha", type=names, action=Accumulate, metavar="A,...",
                        help="the rescaling factors α > 0, exact (10, 0.5, 1/3); repeatable (default 10)")
    parser.add_argument("--group", choices=GROUPS + (DISCOVERED,), default="layerwise",
                        help="layerwise: α on the first layer, 1/α on the last; per_neuron: hidden unit j "
                             "times α (j even) or 1/α (j odd), the next layer divided back; discovered: the "
                             "architecture's group as symmetry MODEL.onnx --discover finds and proves it "
                             "(an element of its PROVED generators, --element or --seed)")
    parser.add_argument("--element", action="append", metavar="T_1=C1,T_2=C2",
                        help="with --group discovered: the element applied, each named generator T_k (as "
                             "discovery prints them) with its c_k > 0, exact (2, 0.5, 1/3); the generators not "
                             "named at c = 1; repeatable (one twin each; default: one random element)")
    parser.add_argument("--seed", type=int, default=0,
                        help="with --group discovered: the random element's seed (and discovery's random points)")
    parser.add_argument("--loss", choices=LOSSES,
                        help="mse: (1/N) Σ_n ½‖f(x_n) − y_n‖² (K/2 × torch's MSELoss() for K outputs); "
                             "cross_entropy: torch's CrossEntropyLoss() of the logits, y class labels "
                             "(default: cross_entropy if the model ends in Softmax or LogSoftmax, else mse)")
    parser.add_argument("--output", metavar="NAME",
                        help="the graph output to read (default: the first floating-point one, never a label)")
    parser.add_argument("--measures", type=names, action=Accumulate, metavar="KEY,...",
                        help=f"the measures (default all; repeatable): {', '.join(MEASURE_KEYS)}")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    parser.add_argument("--out", metavar="TWIN.onnx", help="write the twin of the first α as ONNX")
    parser.add_argument("--plot", metavar="FILE.png", help="plot every measure's ratio against α")
    parser.add_argument("--dask", metavar="ADDRESS",
                        help="shard the examples over the workers of the Dask scheduler at ADDRESS, e.g. "
                             "tcp://host:8786: each computes its batches' shares of the loss, the gradient and "
                             "the Hessian-vector products, summed here (needs the 'dask' extra)")
    return parser


def _measure_keys(keys: list[str] | None) -> list[str]:
    if not keys:
        return list(MEASURE_KEYS)
    for key in keys:
        if key not in MEASURE_KEYS:
            raise UsageError(f"unknown measure {key!r}; choose from {', '.join(MEASURE_KEYS)}")
    return list(dict.fromkeys(keys))


def _writable(path: str | None, option: str) -> None:
    if path and not os.path.isdir(os.path.dirname(os.path.abspath(path))):
        raise UsageError(f"{option} {path}: its folder does not exist")


def read_npz(path: str):
    import numpy as np
    try:
        with np.load(path, allow_pickle=False) as archive:
            if not hasattr(archive, "files"):
                raise UsageError(f"{path} is a single array, not an .npz archive with x and y")
            missing = [key for key in ("x", "y") if key not in archive.files]
            if missing:
                raise UsageError(f"{path} has no array {missing[0]!r} (it needs x and y)")
            return archive["x"], archive["y"]
    except (OSError, ValueError, EOFError) as error:
        raise UsageError(f"cannot read {path} as .npz: {str(error).splitlines()[0][:120]}") from None


def audit_group(network, group: str) -> str:
    """The audit's group for this rescaling: Dinh's T_α on one hidden layer without biases, else the
    deep layer-wise rescaling with biases; per_neuron (and a discovered group, whose generators scale
    units one by one) as audited on one hidden layer."""
    if group in ("per_neuron", DISCOVERED):
        return "per_neuron"         # a discovered group rescales each unit on its own
    from symbolic.trained.network import Conv, Dense
    mixing = [layer for layer in network.layers if isinstance(layer, (Dense, Conv))]
    plain = len(mixing) == 2 and all(isinstance(l, Dense) and l.bias is None for l in mixing) \
        and len(mixing) == len(network.affine_layers)
    return "layerwise" if plain else "deep_layerwise_bias"


@lru_cache(maxsize=None)
def audit_verdict(key: str, group: str) -> str:
    """The audit's verdict on one measure under the group (proved, refuted or undecided), decided
    here once per process: only the cells a run prints."""
    from symbolic.symmetries.invariance import check_invariance
    return check_invariance(key, group).verdict.status.value


def audit_verdicts(keys: list[str], group: str) -> dict:
    return {key: audit_verdict(key, group) for key in keys}


def loss_convention(loss: str, outputs: int, ending: str | None) -> dict:
    """The loss as a formula and its factor against torch's losses."""
    if loss == "mse":
        return {"formula": "L = (1/N) Σ_n ½‖f(x_n) − y_n‖²",
                "torch": f"{Fraction(outputs, 2)} × nn.MSELoss() (reduction='mean', over N·{outputs} entries); "
                         "1/(2N) × nn.MSELoss(reduction='sum'); 1/(2N) × the sum of nn.MSELoss(reduction='none')"}
    read = {"Softmax": "the model's Softmax is part of the loss: f is the logits before it",
            "LogSoftmax": "the model's LogSoftmax is part of the loss: f is the logits before it "
                          "(= nn.NLLLoss() of the model's output)"}.get(ending, "f is read as the logits")
    return {"formula": "L = (1/N) Σ_n −log softmax(f(x_n))_{y_n}",
            "torch": "1 × nn.CrossEntropyLoss() of the logits (reduction='mean'); 1/N × reduction='sum'",
            "read": read}


def parameters_counted(network) -> str:
    """Which numbers θ holds, layer kind by layer kind."""
    from symbolic.trained.network import Conv, Dense, Diagonal, Standardize
    parts = []
    for kind, what in ((Dense, "dense"), (Conv, "convolution"), (Diagonal, "batch-norm")):
        layers = [layer for layer in network.layers if isinstance(layer, kind)]
        if layers:
            size = sum(t.size for layer in layers for t in (layer.weight, layer.bias) if t is not None) \
                if kind is not Diagonal else sum(2 * layer.scale.size for layer in layers)
            biases = "" if kind is Diagonal else \
                f", {sum(layer.bias is not None for layer in layers)} with a bias"
            parts.append(f"{len(layers)} {what} layer{'s' * (len(layers) != 1)}{biases}: {size}")
    text = f"θ holds {network.parameter_count} numbers ({'; '.join(parts) or 'none'})"
    if any(isinstance(layer, Diagonal) for layer in network.layers):
        text += "; a batch norm counts a = γ/√(var+ε) and c = β − a·mean per unit, not γ, β and its statistics"
    if any(isinstance(layer, Standardize) for layer in network.layers):
        text += "; the input's normalisation constants are not parameters"
    return text


def batch_norm_note(reading: dict) -> str:
    if reading.get("batch_norms"):
        return (f"{len(reading['batch_norms'])} BatchNormalization node(s) read as per-unit scale and shift "
                f"({', '.join(reading['batch_norms'])})")
    if reading.get("batch_norm_names"):
        return ("no BatchNormalization node, but the graph's names speak of one "
                f"({', '.join(reading['batch_norm_names'][:3])}): folded by the exporter into the previous layer, "
                "θ holds the folded weights (other parameters, other sharpness numbers for the same function)")
    return ("no BatchNormalization node (an exporter that folds one into the previous layer, as torch's dynamo "
            "exporter does, leaves the same function with other parameters and other sharpness numbers)")


def _ratio(before, after):
    if before.exact is not None and after.exact is not None:
        return 1.0 if before.exact == after.exact else float(after.exact / before.exact) if before.exact else None
    return after.value / before.value if before.value else None


def _difference(twin) -> dict | None:
    if twin.difference is None:
        return None
    (example, output), before, after = twin.difference
    return {"example": example, "output": output, "original": str(before), "twin": str(after)}


def twin_label(twin, k: int, discovered) -> str:
    """A twin's name in the table: α=A, or g1, g2, … for the elements of a discovered group."""
    return f"g{k + 1}" if discovered is not None else f"α={twin.element}"


def discovered_json(discovered, run) -> dict | None:
    """The discovered group, its generators as discovery prints them, and the elements applied."""
    if discovered is None:
        return None
    return {**discovered.as_json(),
            "elements": [{"label": twin_label(t, k, discovered), "applied": t.element}
                         for k, t in enumerate(run.twins)]}


def as_json(run, args, keys, group, verdicts, loss, discovered=None) -> dict:
    measures = {}
    for key in keys:
        before, afters = run.measures[key]
        entry = {"original": before.value, "rescaled": [a.value for a in afters],
                 "ratio": [_ratio(before, a) for a in afters], "kind": before.kind,
                 "audit": VERDICT_WORDS[verdicts[key]], "details": before.details,
                 "rescaled_details": [a.details for a in afters]}
        if before.exact is not None:
            entry["exactly_equal"] = [before.exact == a.exact for a in afters]
        measures[key] = entry
    from symbolic.trained.experiment import output_count
    reading = run.network.reading
    read = {"output": reading.get("output"), "tensor": reading.get("tensor"), "ending": reading.get("ending"),
            "other_outputs": reading.get("other_outputs", []), "fixed_batch": reading.get("batch"),
            "notes": reading.get("notes", []), "batch_norms": batch_norm_note(reading),
            "skip_connections": sum(type(layer).__name__ == "Sum" for layer in run.network.layers)}
    if read["skip_connections"]:
        read["audit_note"] = ("the audit's cells are decided for chains of layers; for this residual network "
                              "the exact twin and the ratios measured are the evidence")
        read["skip_ties"] = skip_ties(run.network)
    return {"model": args.model, "parameters": run.network.parameter_count, "examples": int(len(run.x)),
            "read": read, "parameters_counted": parameters_counted(run.network),
            "loss_convention": loss_convention(loss, output_count(run.network), reading.get("ending")),
            "group": args.group, "audit_group": group, "loss": loss, "loss_value": run.loss,
            "labels": [twin_label(t, k, discovered) for k, t in enumerate(run.twins)],
            **({"alphas": [str(t.element) for t in run.twins]} if discovered is None else {}),
            "discovered": discovered_json(discovered, run),
            "predictions_identical": all(t.predictions_identical for t in run.twins),
            "outputs_compared": int(run.outputs.integers.size), "nonzero_outputs": run.nonzero_outputs,
            "onnxruntime_deviation": run.reference_deviation,
            "twins": [{"label": twin_label(t, k, discovered),
                       ("element" if discovered is not None else "alpha"): str(t.element),
                       "predictions_identical": t.predictions_identical,
                       "first_difference": _difference(t),
                       "onnxruntime_float_deviation": t.float_deviation,
                       "onnxruntime_agrees": t.float_agrees} for k, t in enumerate(run.twins)],
            "hessian_blocks": [hessian_blocks(run.network, t.factors, twin_label(t, k, discovered))
                               for k, t in enumerate(run.twins)],
            "measures": measures}


def skip_ties(network) -> str:
    """Which units the skip connections tie (one factor for the units of several layers), in words."""
    from symbolic.trained.unit_group import read_unit_group
    group = read_unit_group(network)
    tied = [k for k in range(group.dimension) if group.tied(k)]
    if not tied:
        return "no units tied"
    return (f"the skip connections tie {len(tied)} classes of units across layers (one factor each, e.g. "
            f"{group.describe(tied[0])}): the twin gives each class one factor, so the measures move only through "
            f"the units no skip ties and through these classes as a whole ({group.dimension} classes in all)")


def hessian_blocks(network, factors: list, label: str) -> str:
    """Why α and 1/α move λmax differently: T multiplies the Hessian's entry (p, q) by 1/(s_p s_q), so the
    block of the entries T scales down (s < 1) grows and the block it scales up shrinks; λmax follows the
    blocks that grow, and α and 1/α make different blocks grow."""
    from symbolic.trained.network import layer_parameters
    names = [f"{type(layer).__name__} {k + 1} {what}" for k, layer in enumerate(network.layers)
             for what, _ in zip(("weight", "bias") if not type(layer).__name__ == "Diagonal" else ("scale", "shift"),
                                layer_parameters(layer))]
    grows, shrinks = [], []
    for name, f in zip(names, factors):
        used = [f.table[c] for c in sorted(set(f.codes.ravel().tolist()))]
        if min(used) < 1:
            grows.append(f"{name} ×{float(1 / min(used) ** 2):.3g}")
        if max(used) > 1:
            shrinks.append(f"{name} ×{float(1 / max(used) ** 2):.3g}")
    if not grows and not shrinks:
        return f"{label}: θ unchanged"

    def listed(items):
        return ", ".join(items[:3]) + (f" and {len(items) - 3} more" if len(items) > 3 else "") if items else "none"
    return (f"{label}: the Hessian's block of an entry scaled by s is multiplied by 1/s² (entry (p, q) by 1/(s_p s_q)): "
            f"it grows on {listed(grows)}; it shrinks on {listed(shrinks)}; λmax is pulled by the blocks that grow, "
            "which the inverse element swaps, so α and 1/α move it by different amounts")


def _number(x, digits: int = 4) -> str:
    return "-" if x is None else f"{x:.{digits}g}"


def table(report: dict) -> str:
    labels = report["labels"]
    header = ["measure", "kind", "at θ"] + labels + [f"ratio {label}" for label in labels] \
        + [f"audit ({report['audit_group']})"]
    rows = []
    for key, m in report["measures"].items():
        bound = m["details"].get("error_bound")
        kind = m["kind"] + (f" ±{bound:.2g}" if bound is not None else "")
        ratios = [("1 (exact)" if equal else _number(r, 6)) for r, equal in
                  zip(m["ratio"], m.get("exactly_equal", [False] * len(labels)))]
        rows.append([key, kind, _number(m["original"])] + [_number(v) for v in m["rescaled"]] + ratios + [m["audit"]])
    widths = [max(len(str(c)) for c in column) for column in zip(header, *rows)]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(line, widths)).rstrip()
             for line in [header, ["-" * w for w in widths], *rows]]
    twins = "; ".join(f"{t['label']}: " + ("identical (exact)" if t["predictions_identical"] else
                         "DIFFERENT at example {example}, output {output}: {original} vs {twin}".format(**t["first_difference"]))
                      + f", twin under onnxruntime: max deviation {t['onnxruntime_float_deviation']:.3g}"
                      + ("" if t["onnxruntime_agrees"] else " (beyond float32 rounding: the float twin is not faithful)")
                      for t in report["twins"])
    read, convention = report["read"], report["loss_convention"]
    where = f"output {read['output']}" + (f" (tensor {read['tensor']})" if read["tensor"] != read["output"] else "")
    head = (f"{report['model']}: {report['parameters']} parameters, {report['examples']} examples, "
            f"{report['loss']} loss {report['loss_value']:.6g}; import vs onnxruntime: max deviation "
            f"{report['onnxruntime_deviation']:.3g}\n"
            f"read: {where}"
            + (f"; other outputs not read: {', '.join(read['other_outputs'])} (--output NAME picks another)"
               if read["other_outputs"] else "")
            + (f"; batch fixed at {read['fixed_batch']}: onnxruntime run in batches of {read['fixed_batch']}"
               if read["fixed_batch"] else "")
            + (f"; {read['skip_connections']} skip connection(s): the factors agree on both sides of each sum "
               f"({read['audit_note']})" if read["skip_connections"] else "")
            + "".join(f"; {note}" for note in read["notes"]) + "\n"
            f"{report['parameters_counted']}; {read['batch_norms']}\n"
            f"loss: {convention['formula']} = {convention['torch']}"
            + (f"; {convention['read']}" if "read" in convention else "") + "\n"
            + "".join(f"Hessian blocks, {line}\n" for line in report["hessian_blocks"])
            + (f"skip connections: {read['skip_ties']}\n" if read.get("skip_ties") else "")
            + group_lines(report["discovered"]) +
            f"{report['group']} rescaling, predictions on the data "
            f"({report['nonzero_outputs']} of {report['outputs_compared']} outputs nonzero"
            f"{'' if report['nonzero_outputs'] else ': comparing zeros shows nothing'}): {twins}\n")
    return head + "\n".join(lines)


def group_lines(discovered: dict | None) -> str:
    """The discovered group's lines of the table: its generators, as discovery prints them, and the
    elements applied."""
    if discovered is None:
        return ""
    maximal = "proved maximal" if discovered["dimension_is_maximal"] else "maximality not proved"
    lines = [f"discovered group: dimension {discovered['dimension']} ({maximal}), generators "
             "θ_p -> c^G_p θ_p, c > 0:"]
    for g in discovered["generators"][:SHOWN_GENERATORS]:
        applied = "applied" if g["applied"] else "not applied: not PROVED"
        lines.append(f"  {g['name']}  {g['support']}  {g['status'].upper()} ({applied})")
    rest = discovered["generators"][SHOWN_GENERATORS:]
    if rest:
        lines.append(f"  ... {len(rest)} more, {sum(g['applied'] for g in rest)} of them PROVED and applied")
    lines += [f"element {e['label']}: {e['applied']}" for e in discovered["elements"]]
    return "\n".join(lines) + "\n"


def plot(report: dict, path: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    alphas = [float(Fraction(a)) for a in report["alphas"]]
    figure, axes = plt.subplots(figsize=(7.5, 4.8))
    for key, m in report["measures"].items():
        points = sorted([(1.0, 1.0)] + [(a, abs(r)) for a, r in zip(alphas, m["ratio"]) if r])
        invariant = m["audit"] == "invariant"
        axes.plot(*zip(*points), "o-" if invariant else "s--", linewidth=2.2 if invariant else 1.2,
                  label=f"{key} (audit: {m['audit']})")
    axes.set_xscale("log")
    axes.set_yscale("log")
    axes.set_xlabel("α")
    axes.set_ylabel(r"$|m(T_\alpha\theta)|\ /\ |m(\theta)|$")
    axes.set_title(f"{os.path.basename(report['model'])}: {report['group']} rescaling "
                   f"(predictions identical: {report['predictions_identical']})", fontsize=10)
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize=7, loc="best")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


@contextmanager
def _cluster(address: str | None):
    """The Dask client of --dask (the sweeps' own), closed after the run, or None: the data stay in
    this process."""
    if address is None:
        yield None
        return
    from proofs.commands.parallel import _dask_client
    client = _dask_client(address)
    try:
        if not client.scheduler_info()["workers"]:
            raise UsageError("the Dask cluster has no workers")
        yield client
    finally:
        client.close()


def read_model(path: str, output: str | None, discovering: bool) -> tuple:
    """The ONNX model, the network read and (for --group discovered) its architecture, all from one
    reading of the graph."""
    from symbolic.networks.onnx_architecture import read_architecture
    from symbolic.trained.experiment import load_network
    from symbolic.trained.onnx_import import load_model
    if not discovering:
        return (*load_network(path, output), None)
    import numpy as np

    from proofs.commands.symmetry_command import MAX_INPUTS, MAX_PARAMETERS
    from symbolic.networks.onnx_architecture import UnsupportedArchitecture
    from symbolic.trained.onnx_import import import_network
    model = load_model(path)
    network = import_network(model, output)
    # past the spec's limits, or with layers the symmetry layers do not have: the group read from the layers
    if network.parameter_count > MAX_PARAMETERS or int(np.prod(network.input_shape)) > MAX_INPUTS:
        return model, network, None
    try:
        architecture = read_architecture(model, output)
    except UnsupportedArchitecture:
        return model, network, None
    return model, architecture.network, architecture


def rescalings(network, group: str, alphas: list, discovered, given: list, seed: int) -> list:
    """(element, factors) of every twin: each α of a fixed group, or each element of the discovered
    one (those given, else one drawn with the seed)."""
    from symbolic.trained.rescaling import element_factors, parameter_factors
    if discovered is None:
        return [(alpha, parameter_factors(network, group, alpha)) for alpha in alphas]
    elements = [discovered.element(e) for e in given] or [discovered.random_element(seed)]
    if hasattr(discovered, "factors"):             # the group read from the layers: each class its c_k
        return [(discovered.label(e), discovered.factors(network, e)) for e in elements]
    return [(discovered.label(e), element_factors(network, discovered.exponents, e)) for e in elements]


def default_loss(network, y) -> str:
    """cross_entropy when the model ends in Softmax or LogSoftmax, or when y holds integer class labels
    (one per example) for a model of several outputs; else mse."""
    from symbolic.trained.experiment import output_count
    if network.reading.get("ending"):
        return "cross_entropy"
    if getattr(y, "ndim", 0) == 1 and y.dtype.kind in "iu" and output_count(network) > 1:
        network.reading.setdefault("notes", []).append(
            "y holds integer labels and the model several outputs: read as classes, the loss cross_entropy "
            "(--loss mse to fit them as numbers)")
        return "cross_entropy"
    return "mse"


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    discovering = args.group == DISCOVERED
    if discovering and args.alpha:
        raise UsageError("--alpha scales the layerwise and per_neuron groups; --group discovered takes "
                         "--element T_1=C1,... (or a random element, --seed)")
    if discovering and args.plot:
        raise UsageError("--plot draws each ratio against α; --group discovered has no α")
    if args.element and not discovering:
        raise UsageError("--element names generators of --group discovered")
    alphas = [positive_rational(a, "--alpha") for a in (args.alpha or ["10"])]
    given = [parse_element(text) for text in args.element or []]
    keys = _measure_keys(args.measures)
    _writable(args.out, "--out")
    _writable(args.plot, "--plot")
    try:
        import onnx  # noqa: F401
        import onnxruntime  # noqa: F401
    except ImportError:
        raise UsageError(EXTRA_MISSING) from None
    from symbolic.networks.onnx_architecture import UnsupportedArchitecture
    from symbolic.trained.experiment import DataError, ImportMismatch, read_data, twins_of
    from symbolic.trained.onnx_import import UnsupportedModel
    from symbolic.trained.rescaling import check_positive_rescaling
    discovered = None
    try:
        # the operators first: a model that is not read is refused before JAX or the data are loaded
        model, network, architecture = read_model(args.model, args.output, discovering)
        check_positive_rescaling(network)
    except (UnsupportedModel, UnsupportedArchitecture) as error:
        raise UsageError(str(error)) from None
    try:
        import jax  # noqa: F401
    except ImportError:
        raise UsageError(EXTRA_MISSING) from None
    from symbolic.trained.experiment import measure
    from symbolic.trained.sharding import ClusterError
    x, y = read_npz(args.data)
    try:
        loss = args.loss or default_loss(network, y)
        x, y = read_data(network, x, y, loss)
        group = audit_group(network, args.group)
        if discovering:
            discovered = discover_group(architecture, args.model, args.seed) if architecture is not None else \
                discover_unit_group(network, args.model, args.seed)
        elements = rescalings(network, args.group, alphas, discovered, given, args.seed)
        with _cluster(args.dask) as cluster:           # reached (or refused) before any exact arithmetic
            run = twins_of(model, network, x, y, elements)
            measure(run, keys, loss, cluster=cluster)
    except (UnsupportedModel, UnsupportedArchitecture, DataError, ClusterError) as error:
        raise UsageError(str(error)) from None
    except ImportMismatch as error:
        print(f"proofs: internal error: {error}", file=sys.stderr)
        return EXIT_INTERNAL_ERROR
    report = as_json(run, args, keys, group, audit_verdicts(keys, group), loss, discovered)
    print(json.dumps(report, indent=2) if args.json else table(report))
    if args.out:
        with open(args.out, "wb") as handle:
            handle.write(run.twins[0].onnx_model.SerializeToString())
    if args.plot:
        plot(report, args.plot)
    return 0 if report["predictions_identical"] else 1
