"""python -m proofs symmetry SPEC: check a symmetry of a model described in a small TOML file.

    inputs = 2                      # input width d, [channels, length] or [channels, height, width]
    sizes = [1, 2]                  # numbers of data points N for the loss and the laws (optional)
    loss = "any"                    # "any" (every loss of the predictions), "mse" or
                                    # "cross_entropy" (K >= 2 outputs, class labels) (optional)

    [[layers]]
    type = "dense"                  # dense, conv1d, conv2d, relu, leaky_relu, abs, tanh, maxout,
    units = 2                       # maxpool1d, avgpool1d, maxpool2d, avgpool2d, flatten,
                                    # batchnorm, layernorm, batchnorm_train, attention,
                                    # residual (with [[layers.layers]]);
                                    # the last layer may have any width K: K outputs
    weight = "W1"
    bias = "b1"

    [[layers]]
    type = "leaky_relu"
    slope = "1/10"
    ...

    [group]
    positive = ["c", "e"]           # group parameters > 0 (real = [...] for signed ones)

    [map]                           # the image of each entry (i, j) of a tensor
    W1 = "c_j * W1"                 # the tensor's name stands for its entry, c_j for c_{j}, c_i for c_{i}
    W2 = "e_j * W2 / c_i"
    P = { entry = "P", columns = [2, 1] }   # entry (i, j) of P ↦ P[rows[i], columns[j]] (from 1)

Conventions: indices count from 1 (``permutation_matrix`` in Python counts from 0); a dense weight
is (inputs, units), so a scale per unit is ``c_j``; a conv1d weight is (channels, input channels ×
kernel), so a scale per output channel is ``c_i``; ``sizes`` are from 1 to 4.
Expressions are parsed without eval.  A bad spec is bad input: one line on stderr, exit 2.

``symmetry MODEL.onnx --discover`` takes the layers from an exported ONNX graph instead
(``symbolic.networks.onnx_architecture``), under the same limits.
"""
from __future__ import annotations

import argparse
import json
import sys
import textwrap

import numpy as np
import sympy as sp

from symbolic.decision.domain import evaluated
from symbolic.networks import attention_head, grid_layers, model as layers_module, normalization
from symbolic.symmetries.discovery import discover_symmetries
from symbolic.networks.model import Model, ModelError, entry_symbol
from symbolic.parsing import ParseError, parse_expression
from symbolic.symmetries.symmetry import LOSSES, Symmetry, check_symmetry
from symbolic.every_size.spec_symmetry import OutsideFragment
from symbolic.kernel.verdict import worst

from proofs.commands import discover_command
from proofs.commands.arguments import EXIT_CODES, Parser, UsageError, positive_seconds, show_report, write_latex

try:
    import tomllib
except ModuleNotFoundError:     # Python 3.10
    import tomli as tomllib

MAX_SPEC_BYTES = 100_000
MAX_N = 4
# what the procedures decide within about a minute on 2 cores (benchmarks/spec_limits.py: a ReLU net
# with 120 parameters is checked in 9 s and discovered in 74 s, one with 48 inputs in seconds)
MAX_PARAMETERS = 120
MAX_INPUTS = 48
MAX_LAYERS = 20
HELP_WIDTH = 100

# layer type → (class, {field: kind}); kind is "size", "name", "optional name", "number", "pair"
# (a whole number or a list of two) or "optional pair"
LAYERS = {
    "dense": (layers_module.Dense, {"units": "size", "weight": "name", "bias": "optional name"}),
    "conv1d": (layers_module.Conv1d, {"channels": "size", "kernel": "size", "weight": "name",
                                      "bias": "optional name"}),
    "relu": (layers_module.ReLU, {}),
    "leaky_relu": (layers_module.LeakyReLU, {"slope": "number"}),
    "abs": (layers_module.Abs, {}),
    "tanh": (layers_module.Tanh, {}),
    "maxout": (layers_module.Maxout, {"pieces": "size"}),
    "maxpool1d": (layers_module.MaxPool1d, {"size": "size"}),
    "avgpool1d": (layers_module.AvgPool1d, {"size": "size"}),
    "conv2d": (grid_layers.Conv2d, {"channels": "size", "kernel": "pair", "weight": "name",
                                    "bias": "optional name", "stride": "optional pair",
                                    "padding": "optional pair"}),
    "maxpool2d": (grid_layers.MaxPool2d, {"kernel": "pair", "stride": "optional pair"}),
    "avgpool2d": (grid_layers.AvgPool2d, {"kernel": "pair", "stride": "optional pair"}),
    "flatten": (grid_layers.Flatten, {}),
    "batchnorm": (normalization.BatchNorm, {"scale": "name", "shift": "optional name"}),
    "layernorm": (normalization.LayerNorm, {"eps": "number"}),
    "batchnorm_train": (normalization.BatchNormTrain, {"eps": "number"}),
    "attention": (attention_head.Attention, {"head": "size", "query": "name", "key": "name", "value": "name",
                                             "values": "optional size"}),
}


# what --help says of each layer type: its fields with their defaults, and the layer it builds
# (the same as docs/spec_reference.md)
LAYER_HELP = {
    "dense": ("units; weight; bias (none)",
              "x -> x W + b, W of shape (inputs, units): a scale per unit multiplies column j (c_j); "
              "any width last: the network then has that many outputs"),
    "conv1d": ("channels; kernel; weight; bias (none)",
               "a valid 1-d convolution, stride 1, weight of shape (channels, input channels x kernel): "
               "a scale per output channel multiplies row i (c_i)"),
    "relu": ("none", "max(s, 0) at every value"),
    "leaky_relu": ('slope ("1/100")', "max(s, 0) - slope max(-s, 0); a whole number, a string such as "
                                     '"1/10", or a name'),
    "abs": ("none", "|s| at every value"),
    "tanh": ("none", "tanh(s) at every value (no pattern form: its derivative laws are REFUTED or "
                     "UNDECIDED)"),
    "maxout": ("pieces", "the maximum of each group of `pieces` consecutive channels"),
    "maxpool1d": ("size", "the maximum over windows of `size` positions, without overlap"),
    "avgpool1d": ("size", "the mean over windows of `size` positions, without overlap"),
    "conv2d": ("channels; kernel (a number or [kh, kw]); weight; bias (none); stride (1); padding (0)",
               "a 2-d convolution with zero padding, on an image [channels, height, width], weight of shape "
               "(channels, input channels x kh x kw): a scale per output channel multiplies row i (c_i)"),
    "maxpool2d": ("kernel (a number or [kh, kw]); stride (the kernel)",
                  "the maximum over each window of kh x kw positions inside the image"),
    "avgpool2d": ("kernel (a number or [kh, kw]); stride (the kernel)",
                  "the mean over each window of kh x kw positions inside the image"),
    "flatten": ("none", "the values channel by channel, each row by row, as a vector"),
    "batchnorm": ("scale; shift (none)",
                  "batch normalisation in inference form, per channel: s -> gamma_c s + beta_c, gamma (scale) "
                  "and beta (shift) of shape (channels, 1)"),
    "layernorm": ("eps (0)", "(z_j - mean)/sqrt(variance + eps) over all values of one example; eps a "
                             "rational >= 0 such as \"1/100000\""),
    "batchnorm_train": ("eps (0)", "per channel, (z - mean)/sqrt(variance + eps) over the N examples of the "
                                   "batch (and the positions): N >= 2"),
    "attention": ("head; query; key; value; values (the head)",
                  "a softmax attention head over the positions (tokens) of a [features, tokens] signal: out_t = "
                  "sum_s softmax_s(q_t . k_s) v_s, q = x W_Q, k = x W_K (shape (features, head)), v = x W_V "
                  "(shape (features, values)); --discover finds W_Q -> W_Q A, W_K -> W_K A^-T, A in GL(head)"),
    "residual": ("[[layers.layers]]", "x + block(x), the block a list of layers that keeps the shape "
                                      "(nested at most 4 deep)"),
}


def spec_help() -> str:
    """The spec's keys and every layer type with its fields and defaults, for --help."""
    width = max(len(kind) for kind in LAYER_HELP)
    indent = " " * (width + 4)
    layers = "\n".join(f"  {kind.ljust(width)}  {fields}\n" + textwrap.fill(what, HELP_WIDTH, initial_indent=indent,
                                                                         subsequent_indent=indent)
                        for kind, (fields, what) in LAYER_HELP.items())
    keys = [
        ("inputs = 2", "input width d, [channels, length], or [channels, height, width] for an image "
                       "(required)"),
        ("sizes = [1, 2]", f"numbers of data points N, from 1 to {MAX_N} (default [1, 2]; [1] with --discover)"),
        ('loss = "any"', '"any": every loss of the K N predictions; "mse": (1/N) sum_n sum_k (f_k(x_n) - y_(n,k))^2, '
                         'summed over the K outputs, averaged over the N points; "cross_entropy" (K >= 2): '
                         "(1/N) sum_n [log sum_k exp f_k(x_n) - f_(y_n)(x_n)], class labels y_n from 0 to K - 1 "
                         '(default "any")'),
        ("[[layers]]", f"first to last, at most {MAX_LAYERS}; a table with a type and its fields (below)"),
        ("[group]", 'positive = ["c"], real = [...]: the group parameters (default none)'),
        ("[map]", 'the image of entry (i, j): W1 = "c_j * W1", v = "v / c_i", P = { entry = "P", '
                  "columns = [2, 1] } (required, except with --discover)"),
    ]
    key_width = max(len(key) for key, _ in keys) + 4
    top = "\n".join(textwrap.fill(what, HELP_WIDTH, initial_indent=f"  {key}".ljust(key_width),
                                  subsequent_indent=" " * key_width) for key, what in keys)
    closing = textwrap.fill(
        f"At most {MAX_PARAMETERS} parameters and {MAX_INPUTS} inputs (what the procedures decide within about a "
        "minute on 2 cores); indices count from 1. --all-sizes covers dense, relu, leaky_relu and abs, a vector "
        "input, positive group parameters and no permutation, with one output (every loss) or K outputs (the "
        'last units a number or a name such as "k"; loss "mse" or "cross_entropy"); --discover covers every '
        "layer type above: the positive rescalings (tanh, a softmax's scores and a normalisation with eps > 0 "
        "ask for scale 1, a normalisation with eps = 0 absorbs the scale of the layer before), an attention "
        "head's GL(head), and the swaps and sign flips of the units or channels of each hidden layer. "
        "MODEL.onnx --discover reads the layers from an exported ONNX graph instead (Gemm/MatMul, Conv, "
        "BatchNormalization, Relu, LeakyRelu, the pools, Flatten, a skip connection's Add). The full "
        "reference, with an example: docs/spec_reference.md.",
        HELP_WIDTH)
    return "The spec (TOML):\n" + top + "\n\nLayer types (type = ...), fields (default) and the layer:\n" + \
        layers + "\n\n" + closing


def _layer(spec, where: str, depth: int = 0):
    if not isinstance(spec, dict) or "type" not in spec:
        raise UsageError(f"{where}: a layer is a table with a 'type'")
    kind = spec["type"]
    if kind == "residual":
        if depth > 3:
            raise UsageError(f"{where}: residual blocks nested too deeply")
        unknown = set(spec) - {"type", "layers"}
        if unknown:
            raise UsageError(f"{where}: unknown key {sorted(unknown)[0]!r} for a residual block")
        inner = spec.get("layers")
        if not isinstance(inner, list) or not inner:
            raise UsageError(f"{where}: a residual block needs [[...layers]] inside it")
        return layers_module.Residual(*[_layer(s, f"{where}.layers[{k + 1}]", depth + 1)
                                        for k, s in enumerate(inner)])
    if kind not in LAYERS:
        raise UsageError(f"{where}: unknown layer type {kind!r}; choose from "
                         f"{', '.join(sorted([*LAYERS, 'residual']))}")
    cls, fields = LAYERS[kind]
    unknown = set(spec) - {"type", *fields}
    if unknown:
        raise UsageError(f"{where}: unknown key {sorted(unknown)[0]!r} for a {kind} layer")
    arguments = {}
    for name, field_kind in fields.items():
        if name not in spec:
            if field_kind in ("optional name", "number", "optional pair", "optional size"):
                continue
            raise UsageError(f"{where}: a {kind} layer needs {name!r}")
        value = spec[name]
        if field_kind.endswith("size") and (isinstance(value, bool) or not isinstance(value, int)):
            raise UsageError(f"{where}: {name} must be a whole number, got {value!r}")
        if field_kind.endswith("name") and not isinstance(value, str):
            raise UsageError(f"{where}: {name} must be a string, got {value!r}")
        if field_kind == "number":
            value = _number(value, f"{where}: {name}")
        if field_kind.endswith("pair"):
            value = _pair(value, f"{where}: {name}")
        arguments[name] = value
    return cls(**arguments)


def _pair(value, where: str):
    """A whole number, or a list of two (rows, columns)."""
    if isinstance(value, list) and len(value) == 2 and all(isinstance(k, int) and not isinstance(k, bool)
                                                           for k in value):
        return tuple(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise UsageError(f"{where} must be a whole number or a list of two, such as [2, 3], got {value!r}")


def _number(value, where: str) -> sp.Expr:
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise UsageError(f"{where} must be a whole number or a string such as \"1/10\", got {value!r}")
    try:
        number = evaluated(parse_expression(str(value)))
    except ParseError as error:
        raise UsageError(f"{where}: {error}") from None
    if not (number.is_Rational or number.is_Symbol):
        raise UsageError(f"{where} must be a rational number or a name, got {value!r}")
    return number


def build_model(spec: dict) -> Model:
    layers = spec.get("layers")
    if not isinstance(layers, list) or not layers:
        raise UsageError("the spec needs at least one [[layers]] table")
    if len(layers) > MAX_LAYERS:
        raise UsageError(f"at most {MAX_LAYERS} layers")
    inputs = spec.get("inputs")
    if isinstance(inputs, list):
        inputs = tuple(inputs)
    if not (isinstance(inputs, int) and not isinstance(inputs, bool)) and not (
            isinstance(inputs, tuple) and len(inputs) in (2, 3)
            and all(isinstance(k, int) and not isinstance(k, bool) for k in inputs)):
        raise UsageError(f"inputs must be a width, [channels, length] or [channels, height, width], "
                         f"got {spec.get('inputs')!r}")
    try:
        model = Model(inputs, [_layer(s, f"layers[{k + 1}]") for k, s in enumerate(layers)])
    except ModelError as error:
        raise UsageError(str(error)) from None
    check_limits(model)
    return model


def check_limits(model: Model) -> None:
    """The sizes the command line checks: a model beyond them is bad input, with the reason (an ONNX model
    beyond them has its group read from the architecture instead)."""
    # counted from the shapes, before any symbol is made
    count = sum(rows * columns for rows, columns in model.shapes.values())
    inputs = model.input_shape[0] * model.input_shape[1]
    if count > MAX_PARAMETERS or inputs > MAX_INPUTS:
        raise UsageError(f"the model has {count} parameters and {inputs} inputs; the command line checks at most "
                         f"{MAX_PARAMETERS} parameters and {MAX_INPUTS} inputs, what its procedures decide within "
                         "about a minute on 2 cores (the exact identity tests grow with the parameters and the "
                         "kinks, discovery proves one generator per unit); use the Python API with a timeout for "
                         "more, or --all-sizes with the widths written as names (units = \"h\"), proved for "
                         "every value of them")


def _permutation(value, length: int, where: str) -> list[int]:
    if (not isinstance(value, list) or sorted(value) != list(range(1, length + 1))
            or any(isinstance(k, bool) for k in value)):
        raise UsageError(f"{where} must be a permutation of 1..{length} (positions count from 1 in a "
                         f"spec, unlike permutation_matrix in Python), got {value!r}")
    return [k - 1 for k in value]


def _group_name_rule_broken(name: str, model: Model, declared: dict) -> str | None:
    """Which rule a group parameter's name breaks, in words, or None."""
    if name in model.tensors:
        return f"is already a tensor of the model ({', '.join(model.tensors)}); choose another"
    if name in declared:
        return "is declared twice"
    if "_" in name:
        return "has an underscore: the map reads c_i and c_j as the entries of a group parameter c"
    if name.startswith("x"):
        return "starts with x, which the model keeps for its inputs"
    return None


def build_symmetry(model: Model, spec: dict) -> Symmetry:
    group = spec.get("group", {})
    if not isinstance(group, dict) or set(group) - {"positive", "real"}:
        raise UsageError("[group] takes 'positive' and 'real', lists of names")
    declared = {}
    for kind in ("positive", "real"):
        names = group.get(kind, [])
        if not isinstance(names, list) or not all(isinstance(n, str) and n.isidentifier() for n in names):
            raise UsageError(f"group.{kind} must be a list of names, got {names!r}")
        for name in names:
            broken = _group_name_rule_broken(name, model, declared)
            if broken:
                raise UsageError(f"group.{kind}: the name {name!r} {broken}")
            declared[name] = {kind: True, "real": True}
    mapping = spec.get("map")
    if not isinstance(mapping, dict) or not mapping:
        raise UsageError("the spec needs a [map] table: tensor name = image of its entry")
    images = {}
    for name, rule in mapping.items():
        if name not in model.tensors:
            raise UsageError(f"map.{name}: the model has no tensor {name!r} "
                             f"(tensors: {', '.join(model.tensors)})")
        shape = model[name].shape
        rows, columns = list(range(shape[0])), list(range(shape[1]))
        if isinstance(rule, dict):
            unknown = set(rule) - {"entry", "rows", "columns"}
            if unknown or "entry" not in rule:
                raise UsageError(f"map.{name}: a table takes 'entry' and optional 'rows', 'columns'")
            if "rows" in rule:
                rows = _permutation(rule["rows"], shape[0], f"map.{name}.rows")
            if "columns" in rule:
                columns = _permutation(rule["columns"], shape[1], f"map.{name}.columns")
            rule = rule["entry"]
        if not isinstance(rule, str):
            raise UsageError(f"map.{name} must be a string (the image of entry i, j) or a table")
        images[name] = _image(model, name, rule, declared, rows, columns)
    try:
        return Symmetry(model, images)
    except ModelError as error:
        raise UsageError(str(error)) from None


def _image(model, name, rule, declared, rows, columns) -> sp.Matrix:
    """The image of every entry of tensor ``name`` under the rule, parsed once."""
    placeholders = {name: sp.Symbol(name, real=True)}
    for group_name, assumptions in declared.items():
        placeholders[group_name] = sp.Symbol(group_name, **assumptions)
        for index in ("i", "j"):
            placeholders[f"{group_name}_{index}"] = sp.Symbol(f"{group_name}_{index}", real=True)
    symbols = dict(placeholders)
    try:
        template = evaluated(parse_expression(rule, symbols=symbols))
    except ParseError as error:
        raise UsageError(f"map.{name}: {error}") from None
    unknown = sorted(str(s) for s in template.free_symbols if s not in placeholders.values())
    if unknown:
        raise UsageError(f"map.{name}: unknown name {unknown[0]!r}; use {name}, the group "
                         f"parameters and their _i/_j forms")
    shape = model[name].shape

    def entry(i, j):
        values = {placeholders[name]: model[name][rows[i], columns[j]]}
        for group_name, assumptions in declared.items():
            for index, k in (("i", i), ("j", j)):
                values[placeholders[f"{group_name}_{index}"]] = entry_symbol(
                    group_name, (1, 2), 0, k, **assumptions)
        return template.xreplace(values)
    return sp.Matrix(*shape, entry)


def _sizes(spec: dict) -> list[int]:
    sizes = spec.get("sizes", [1, 2])
    if (not isinstance(sizes, list) or not sizes
            or not all(isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= MAX_N for n in sizes)):
        raise UsageError(f"sizes must be a list of numbers of data points from 1 to {MAX_N}, "
                         f"got {sizes!r}")
    return sizes


def read_spec(path: str) -> dict:
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_SPEC_BYTES + 1)
    except OSError as error:
        raise UsageError(f"cannot read {path}: {error.strerror}") from None
    if len(data) > MAX_SPEC_BYTES:
        raise UsageError(f"{path} is longer than {MAX_SPEC_BYTES} bytes")
    try:
        return tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise UsageError(f"{path} is not UTF-8 text") from None
    except tomllib.TOMLDecodeError as error:
        raise UsageError(f"{path} is not valid TOML: {error}") from None


def main(argv: list[str]) -> int:
    parser = Parser(prog="python -m proofs symmetry",
                    description=textwrap.fill(
                        "Check that a map of the parameters is a symmetry of a model described in a "
                        "TOML file, and the gradient and Hessian laws it implies.", HELP_WIDTH),
                    epilog=spec_help(), formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("spec", metavar="SPEC", help="the TOML description of the layers and the map, or an "
                        "exported MODEL.onnx (with --discover: the symmetries of its architecture)")
    parser.add_argument("--timeout", type=positive_seconds, metavar="SECONDS",
                        help="time budget per claim; a claim that exceeds it is UNDECIDED")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random witness points")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--latex", metavar="FILE", help="write the LaTeX derivation into FILE")
    parser.add_argument("--discover", action="store_true",
                        help="find the model's symmetries (no [map] needed) and prove them maximal")
    parser.add_argument("--all-sizes", action="store_true",
                        help="prove the laws for every N, and for every value of each width written as a "
                             "name (units = \"h\"); a width written as a number stays that number")
    args = parser.parse_args(argv)
    if args.spec.lower().endswith(".onnx"):
        return onnx_main(args)
    spec = read_spec(args.spec)
    if args.all_sizes:
        return all_sizes_main(spec, args)
    unknown = set(spec) - {"inputs", "sizes", "loss", "layers", "group", "map"}
    if unknown:
        raise UsageError(f"unknown key {sorted(unknown)[0]!r} at the top of the spec")
    loss = spec.get("loss", "any")
    if loss not in LOSSES:
        raise UsageError(f"loss must be one of {', '.join(repr(k) for k in LOSSES)}, got {loss!r}")
    model = build_model(spec)
    if loss == "cross_entropy" and model.outputs < 2:
        raise UsageError(f"loss = 'cross_entropy' needs at least 2 outputs (the last layer gives {model.outputs}; "
                         "with one, log exp f - f = 0)")
    if args.discover:
        return discover_command.run(spec, model, loss, _sizes(spec) if "sizes" in spec else None, args)
    symmetry = build_symmetry(model, spec)
    sizes = _sizes(spec)
    if model.batch_dependent and min(sizes) < 2:
        raise UsageError(f"a batchnorm_train layer normalises over the batch of N data points: sizes must be "
                         f"at least 2, got {sizes}")
    report = check_symmetry(model, symmetry, loss=loss, sizes=sizes, seed=args.seed,
                            timeout=args.timeout)
    return show_report(report, args)


def onnx_main(args) -> int:
    """MODEL.onnx --discover: the architecture read from the graph.  Within the spec's limits, its group
    discovered and proved at the model's own widths (and maximal where the rank bound allows); past
    them, or with layers the symmetry layers do not have, the group read from the architecture, every
    generator proved by the unit transport.  Then, where its layers allow, the rescaling of its hidden
    units for every width."""
    if not args.discover or args.all_sizes:
        raise UsageError(f"{args.spec}: an ONNX model is checked with --discover (its architecture's group; "
                         "--all-sizes follows by itself where its layers allow)")
    from symbolic.networks.onnx_architecture import UnsupportedArchitecture, every_width_spec, read_architecture
    from symbolic.trained.onnx_import import UnsupportedModel, import_network, load_model
    try:
        onnx_model = load_model(args.spec)
        network = import_network(onnx_model)
    except UnsupportedModel as error:
        raise UsageError(f"{args.spec}: {error}") from None
    inputs = int(np.prod(network.input_shape))
    architecture = None
    if network.parameter_count <= MAX_PARAMETERS and inputs <= MAX_INPUTS:
        try:
            architecture = read_architecture(onnx_model)
        except UnsupportedArchitecture as error:
            print(f"note: {error}: the group is read from the architecture instead", file=sys.stderr)
        except UnsupportedModel as error:
            raise UsageError(f"{args.spec}: {error}") from None
    if architecture is None or len(architecture.model.layers) > MAX_LAYERS:
        return whole_model_main(args, network)
    model = architecture.model
    check_limits(model)
    for note in architecture.notes:
        print(f"note: {note}", file=sys.stderr)
    report = discover_symmetries(model, loss="any", sizes=discover_command.DEFAULT_SIZES, seed=args.seed,
                                 timeout=args.timeout)
    spec, statement = every_width_spec(architecture)
    every_width = None if spec is None else check_symmetry(spec, sizes="all", seed=args.seed, timeout=args.timeout)
    status = report.status if every_width is None else worst([report, every_width])
    if args.json:
        print(json.dumps({**report.as_json(), "every_width": {
            "applies": spec is not None, "statement": statement, "spec": spec,
            "status": None if every_width is None else every_width.status.value,
            "claims": None if every_width is None else every_width.as_json()}}, indent=1))
    else:
        print(report.table())
        if every_width is None:
            print(f"for every width: no: {statement}")
        else:
            print(f"for every width: {statement}")
            print(every_width.table())
    write_latex(report, args.latex)
    return EXIT_CODES[status]


def whole_model_main(args, network) -> int:
    """Past the spec's limits: the group read from the architecture, each generator proved by the unit
    transport; for a dense ReLU network, the every-width theorem cited (proved for every width)."""
    import os

    from symbolic.networks.onnx_architecture import every_width_spec_of
    if args.latex:
        raise UsageError("--latex writes the derivation of the spec path; a whole model's report is its table or "
                         "--json")
    name = os.path.splitext(os.path.basename(args.spec))[0]
    report = discover_command.architecture_report(network, "".join(ch if ch.isalnum() else "_" for ch in name),
                                                  args.seed)
    spec, statement = every_width_spec_of(network)
    every_width = {"applies": spec is not None, "statement": statement, "spec": spec}
    if spec is not None:
        # the generators are statements of the prediction: the every-width theorem's prediction claim is cited
        claims = check_symmetry(spec, sizes="all", seed=args.seed, timeout=args.timeout)
        verdict = claims["prediction"]
        every_width.update(status=verdict.status.value, verdict=verdict, claims={
            claim: row.status.value for claim, row in claims.rows},
            cited=f"the prediction claim for every width; each of the {report['dimension']} generators is its "
                  "instance at this model's widths, one g_k,j at c and the others at 1")
    status = discover_command._status(report, every_width)
    if args.json:
        print(json.dumps(discover_command.architecture_json(report, every_width), indent=1))
    else:
        print(discover_command.architecture_table(report, args.spec))
        if spec is None:
            print(f"for every width: no: {statement}")
        else:
            print(f"for every width: {statement}: {every_width['status'].upper()} ({every_width['cited']}; the "
                  "claims for every width: " + ", ".join(f"{claim} {status.upper()}" for claim, status in
                                                          every_width["claims"].items()) + ")")
    return EXIT_CODES[status]


def all_sizes_main(spec: dict, args) -> int:
    """--all-sizes: one row per claim, each for every N and every value of the named widths (at the
    widths the numbers fix); outside the fragment, exit 2."""
    try:
        report = check_symmetry(spec, sizes="all", seed=args.seed, timeout=args.timeout)
    except OutsideFragment as error:
        raise UsageError(str(error)) from None
    print(json.dumps(report.as_json(), indent=1) if args.json else report.table())
    return EXIT_CODES[report.status]


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
