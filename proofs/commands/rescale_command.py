"""python -m proofs rescale MODEL.onnx --data DATA.npz: a trained model's function-identical twin, and which of its sharpness measures move.

    python -m proofs rescale model.onnx --data data.npz --alpha 10
    python -m proofs rescale model.onnx --data data.npz --alpha 0.1 --alpha 10 --group per_neuron --json
    python -m proofs rescale model.onnx --data data.npz --loss cross_entropy --out twin.onnx --plot sweep.png

DATA.npz holds arrays x (N examples of the model's input shape) and y (targets for mse, class labels
for cross_entropy).  The import is checked against onnxruntime on the data; the twin T_α θ is built in
exact rational arithmetic and its outputs on the data are compared with the original's exactly, so
"predictions identical" is a proof for those inputs.  Each measure says what kind of number it is
(exact, float64, an estimate with its error bound, or a lower bound) and the audit's verdict on it.
Needs the onnx extra: pip install -e '.[onnx]'.
Exit code: 0 every twin's predictions identical, 1 some twin's not, 2 bad usage or bad input,
4 an internal error (the import disagrees with onnxruntime).
"""
from __future__ import annotations

import json
import os
import sys
from fractions import Fraction

from symbolic.trained.measures import KEYS as MEASURE_KEYS
from symbolic.trained.rescaling import GROUPS

from proofs.commands.arguments import EXIT_INTERNAL_ERROR, Parser, UsageError

EXAMPLE = "python -m proofs rescale model.onnx --data data.npz --alpha 10"
LOSSES = ("mse", "cross_entropy")
VERDICT_WORDS = {"proved": "invariant", "refuted": "not invariant", "undecided": "undecided"}
EXTRA_MISSING = "the rescale command needs the onnx extra: pip install -e '.[onnx]'"


def positive_rational(text: str) -> Fraction:
    try:
        value = Fraction(text.strip())
    except (ValueError, ZeroDivisionError):
        raise UsageError(f"--alpha takes a positive number (e.g. 10, 0.5 or 1/3), got {text!r}") from None
    if value <= 0:
        raise UsageError(f"--alpha must be positive, got {text!r}")
    if not Fraction(1, 10 ** 30) <= value <= 10 ** 30:
        raise UsageError(f"--alpha must lie between 1e-30 and 1e30 (the twin is written in float32), got {text!r}")
    return value


def build_parser() -> Parser:
    parser = Parser(prog="python -m proofs rescale",
                    description="Import a trained ReLU network from ONNX, build its exactly rescaled twin, "
                                "prove their predictions identical on the data and measure both.")
    parser.add_argument("model", metavar="MODEL.onnx", help="the trained network")
    parser.add_argument("--data", required=True, metavar="DATA.npz", help="arrays x and y")
    parser.add_argument("--alpha", action="append", metavar="A",
                        help="the rescaling factor α > 0, exact (10, 0.5, 1/3); repeatable (default 10)")
    parser.add_argument("--group", choices=GROUPS, default="layerwise",
                        help="layerwise: α on the first layer, 1/α on the last; per_neuron: hidden unit j "
                             "times α (j even) or 1/α (j odd), the next layer divided back")
    parser.add_argument("--loss", choices=LOSSES, default="mse")
    parser.add_argument("--measures", metavar="KEY,...",
                        help=f"the measures (default all): {', '.join(MEASURE_KEYS)}")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    parser.add_argument("--out", metavar="TWIN.onnx", help="write the twin of the first α as ONNX")
    parser.add_argument("--plot", metavar="FILE.png", help="plot every measure's ratio against α")
    return parser


def _measure_keys(text: str | None) -> list[str]:
    if not text:
        return list(MEASURE_KEYS)
    keys = [k.strip() for k in text.split(",") if k.strip()]
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
    deep layer-wise rescaling with biases; per_neuron as audited on one hidden layer."""
    if group == "per_neuron":
        return "per_neuron"
    from symbolic.trained.network import Conv, Dense
    mixing = [layer for layer in network.layers if isinstance(layer, (Dense, Conv))]
    plain = len(mixing) == 2 and all(isinstance(l, Dense) and l.bias is None for l in mixing) \
        and len(mixing) == len(network.affine_layers)
    return "layerwise" if plain else "deep_layerwise_bias"


def audit_verdicts(keys: list[str], group: str) -> dict:
    """The audit's verdict on each measure under the group (proved, refuted or undecided)."""
    from symbolic.measures.invariance import check_invariance
    return {key: check_invariance(key, group).verdict.status.value for key in keys}


def start_audit(keys: list[str], group: str):
    """The audit's verdicts computed in another process while this one measures the model."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    executor = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))
    future = executor.submit(audit_verdicts, keys, group)
    executor.shutdown(wait=False)
    return future


def _ratio(before, after):
    if before.exact is not None and after.exact is not None:
        return 1.0 if before.exact == after.exact else float(after.exact / before.exact) if before.exact else None
    return after.value / before.value if before.value else None


def _difference(twin) -> dict | None:
    if twin.difference is None:
        return None
    (example, output), before, after = twin.difference
    return {"example": example, "output": output, "original": str(before), "twin": str(after)}


def as_json(run, args, keys, group, verdicts) -> dict:
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
    return {"model": args.model, "parameters": run.network.parameter_count, "examples": int(len(run.x)),
            "group": args.group, "audit_group": group, "loss": args.loss, "loss_value": run.loss,
            "alphas": [str(t.alpha) for t in run.twins],
            "predictions_identical": all(t.predictions_identical for t in run.twins),
            "outputs_compared": int(run.outputs.integers.size), "nonzero_outputs": run.nonzero_outputs,
            "onnxruntime_deviation": run.reference_deviation,
            "twins": [{"alpha": str(t.alpha), "predictions_identical": t.predictions_identical,
                       "first_difference": _difference(t),
                       "onnxruntime_float_deviation": t.float_deviation,
                       "onnxruntime_agrees": t.float_agrees} for t in run.twins],
            "measures": measures}


def _number(x, digits: int = 4) -> str:
    return "-" if x is None else f"{x:.{digits}g}"


def table(report: dict) -> str:
    alphas = report["alphas"]
    header = ["measure", "kind", "at θ"] + [f"α={a}" for a in alphas] + [f"ratio α={a}" for a in alphas] \
        + [f"audit ({report['audit_group']})"]
    rows = []
    for key, m in report["measures"].items():
        bound = m["details"].get("error_bound")
        kind = m["kind"] + (f" ±{bound:.2g}" if bound is not None else "")
        ratios = [("1 (exact)" if equal else _number(r, 6)) for r, equal in
                  zip(m["ratio"], m.get("exactly_equal", [False] * len(alphas)))]
        rows.append([key, kind, _number(m["original"])] + [_number(v) for v in m["rescaled"]] + ratios + [m["audit"]])
    widths = [max(len(str(c)) for c in column) for column in zip(header, *rows)]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(line, widths)).rstrip()
             for line in [header, ["-" * w for w in widths], *rows]]
    twins = "; ".join(f"α={t['alpha']}: " + ("identical (exact)" if t["predictions_identical"] else
                         "DIFFERENT at example {example}, output {output}: {original} vs {twin}".format(**t["first_difference"]))
                      + f", twin under onnxruntime: max deviation {t['onnxruntime_float_deviation']:.3g}"
                      + ("" if t["onnxruntime_agrees"] else " (beyond float32 rounding: the float twin is not faithful)")
                      for t in report["twins"])
    head = (f"{report['model']}: {report['parameters']} parameters, {report['examples']} examples, "
            f"{report['loss']} loss {report['loss_value']:.6g}; import vs onnxruntime: max deviation "
            f"{report['onnxruntime_deviation']:.3g}\n{report['group']} rescaling, predictions on the data "
            f"({report['nonzero_outputs']} of {report['outputs_compared']} outputs nonzero"
            f"{'' if report['nonzero_outputs'] else ': comparing zeros shows nothing'}): {twins}\n")
    return head + "\n".join(lines)


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


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    alphas = [positive_rational(a) for a in (args.alpha or ["10"])]
    keys = _measure_keys(args.measures)
    _writable(args.out, "--out")
    _writable(args.plot, "--plot")
    try:
        import jax  # noqa: F401
        import onnx  # noqa: F401
        import onnxruntime  # noqa: F401
    except ImportError:
        raise UsageError(EXTRA_MISSING) from None
    from symbolic.trained.experiment import DataError, ImportMismatch, build_twins, load_network, measure, read_data
    from symbolic.trained.onnx_import import UnsupportedModel
    x, y = read_npz(args.data)
    try:
        model, network = load_network(args.model)
        x, y = read_data(network, x, y, args.loss)
        group = audit_group(network, args.group)
        verdicts = start_audit(keys, group)     # only once the input is known to be good
        run = build_twins(model, network, x, y, alphas, args.group)
        measure(run, keys, args.loss)
    except (UnsupportedModel, DataError) as error:
        raise UsageError(str(error)) from None
    except ImportMismatch as error:
        print(f"proofs: internal error: {error}", file=sys.stderr)
        return EXIT_INTERNAL_ERROR
    report = as_json(run, args, keys, group, verdicts.result())
    print(json.dumps(report, indent=2) if args.json else table(report))
    if args.out:
        with open(args.out, "wb") as handle:
            handle.write(run.twins[0].onnx_model.SerializeToString())
    if args.plot:
        plot(report, args.plot)
    return 0 if report["predictions_identical"] else 1
