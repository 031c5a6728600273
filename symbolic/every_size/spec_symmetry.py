"""A user's network and map, for every N and every value of the widths it names: the symmetry spec
at index level.

The fragment: dense layers (with or without a bias) and the positively homogeneous activations
ReLU, leaky ReLU (a fixed slope) and abs, the last dense layer of any width K (the outputs f_o,
o = 1..K); widths are names ("d", "h1", "k") or numbers, a number fixing its width, so a spec
whose widths are all numbers is proved at those widths (and every N) only; the loss is every loss
ℓ(f(x_n), y_n) of one output, or for any K the MSE (1/N) Σ_n Σ_o (f_o(x_n) − y_{n,o})² or the
softmax cross-entropy (1/N) Σ_n [log Σ_o exp f_o(x_n) − Σ_o y_{n,o} f_o(x_n)] (for every target
y_{n,o}, one-hot labels among them; log and exp stand as any functions, so the theorem holds for
them); the map gives each tensor's entry (i, j) an image t_ij·W_ij with t a product of powers of
positive group parameters, written g (one for all), g_i (one per input unit) or g_j (one per
unit).  The proof follows the units through the layers: if layer k − 1's unit i comes out
multiplied by u_i at Tθ, then unit j of layer k sees Σ_i (u_i a_i)(t_ij W_ij) [+ t_j b_j], which is
s_j times its value at θ when u_i t_ij = s_j does not depend on i (arithmetic, sum factor) and the
bias scale is s_j too; the activation passes s_j > 0 through (homogeneity).  The output must come
out multiplied by 1, each of the K outputs (the output index o is free in the chain).  Each step
is a kernel rule; a step that does not hold is named.  Then L∘T = L inside the loss (the chain once
per occurrence of the prediction), and the gradient and Hessian laws by the chain rule with t read
from T.  Every loss of the K outputs together is outside it: the term language has no term for the
vector (f_1(x_n), …, f_K(x_n)) as one argument of ℓ.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

import sympy as sp

from symbolic.trusted.axioms.index_rules import ACTIVATION_HOMOGENEITY, ARITHMETIC, HOMOGENEITY, SUM_FACTOR
from symbolic.kernel.derivations import Chain
from symbolic.logic.terms import Activation, Add, Const, Entry, Fn, Function, Mul, Relu, Sum, Transformation, expand, \
    replace_first
from symbolic.logic.notation import latex
from symbolic.every_size.laws import derivative_chain, invariance_lemma, loss_chain
from symbolic.every_size.networks import N, in_loss
from symbolic.kernel import conjunction
from symbolic.checks import check_identity
from symbolic.decision.domain import evaluated
from symbolic.kernel.derivations import prove
from symbolic.networks.losses import deciding_labellings
from symbolic.networks.model import Abs, Dense, LeakyReLU, Model, ReLU, entry_symbol
from symbolic.parsing import ParseError, parse_expression
from symbolic.kernel.verdict import Status, Verdict, worst
from symbolic.errors import CheckerError

ACTIVATIONS = ("relu", "leaky_relu", "abs")
LOSSES = ("any", "mse", "cross_entropy")
INSTANCE_WIDTH = 2          # a named width at the instance cross-check


class OutsideFragment(CheckerError, ValueError):
    """The spec is not in the fragment the every-size proof covers (one line, for stderr)."""


@dataclass
class DenseLayer:
    units: str          # a width: a name or a number written as text
    weight: str
    bias: str | None
    activation: tuple | None = None      # (kind, slope)


@dataclass
class Network:
    inputs: str
    layers: list
    images: dict = field(default_factory=dict)      # tensor -> (template, placeholders)
    group: list = field(default_factory=list)
    loss: str = "any"

    @property
    def outputs(self) -> str:
        """K, the width of the last dense layer: a name or a number written as text."""
        return self.layers[-1].units

    @property
    def widths(self) -> list[str]:
        """The widths as the spec writes them, the input's first, each once."""
        return list(dict.fromkeys([self.inputs, *(layer.units for layer in self.layers)]))

    @property
    def named_widths(self) -> list[str]:
        return [width for width in self.widths if not width.isdigit()]

    def sizes_proved(self) -> str:
        """What the proof covers, in words: every value of the named widths, or the widths the
        numbers fix (never 'every width' when the spec names none)."""
        if self.named_widths:
            fixed = " (the widths written as numbers fixed)" if len(self.named_widths) < len(self.widths) else ""
            return f"for every width {', '.join(self.named_widths)}{fixed} and every N"
        return (f"at the spec's widths (inputs {self.inputs}, units "
                f"{', '.join(layer.units for layer in self.layers)}) and every N")


def _width(value, where: str) -> str:
    if isinstance(value, bool) or not (isinstance(value, int) and value >= 1
                                        or isinstance(value, str) and re.fullmatch(r"[A-Za-z][A-Za-z0-9]*", value)):
        raise OutsideFragment(f"{where}: a width is a whole number >= 1 or a name such as \"h1\", got {value!r}")
    return str(value)


def read_network(spec: dict) -> Network:
    """The fragment's network from the spec (the TOML table), or OutsideFragment."""
    unknown = set(spec) - {"inputs", "sizes", "loss", "layers", "group", "map"}
    if unknown:
        raise OutsideFragment(f"unknown key {sorted(unknown)[0]!r} at the top of the spec")
    loss = spec.get("loss", "any")
    if loss not in LOSSES:
        raise OutsideFragment(f"loss must be one of {', '.join(repr(k) for k in LOSSES)}, got {loss!r}")
    if isinstance(spec.get("inputs"), list):
        raise OutsideFragment(f"inputs: a signal of channels ({spec['inputs']!r}) is outside what --all-sizes covers "
                              "(a vector input of width d, a whole number or a name); check it at fixed widths "
                              "(symmetry SPEC, or SPEC --discover)")
    inputs = _width(spec.get("inputs"), "inputs")
    layers = []
    for number, layer in enumerate(spec.get("layers") or [], start=1):
        where = f"layers[{number}]"
        kind = layer.get("type") if isinstance(layer, dict) else None
        if kind == "dense":
            extra = set(layer) - {"type", "units", "weight", "bias"}
            if extra or not isinstance(layer.get("weight"), str) or not isinstance(layer.get("bias", ""), str):
                raise OutsideFragment(f"{where}: a dense layer takes units, weight and an optional bias (names)")
            layers.append(DenseLayer(_width(layer.get("units"), f"{where}.units"), layer["weight"], layer.get("bias")))
        elif kind in ACTIVATIONS:
            if not layers or layers[-1].activation is not None:
                raise OutsideFragment(f"{where}: an activation must follow a dense layer")
            slope = None
            if kind == "leaky_relu":
                try:
                    slope = evaluated(parse_expression(str(layer.get("slope"))))   # the number, not its text
                except ParseError as error:
                    raise OutsideFragment(f"{where}.slope: {error}") from None
                if not slope.is_Rational:
                    raise OutsideFragment(f"{where}.slope must be a fixed rational number")
            if set(layer) - {"type", "slope"}:
                raise OutsideFragment(f"{where}: unknown key for a {kind} layer")
            layers[-1].activation = (kind, slope)
        else:
            raise OutsideFragment(f"{where}: a {kind} layer is outside what --all-sizes covers (dense layers "
                                  f"with or without bias, relu, leaky_relu and abs after each, K outputs); "
                                  f"check it at fixed widths (symmetry SPEC, or SPEC --discover)")
    if not layers:
        raise OutsideFragment("the spec needs at least one [[layers]] table")
    if layers[-1].units != "1" and loss == "any":
        raise OutsideFragment(f"--all-sizes with {layers[-1].units} outputs covers loss = \"mse\" and "
                              "\"cross_entropy\": every loss of the K outputs together needs the vector of them as "
                              "one argument, which the index-level terms lack (one output: every loss)")
    if layers[-1].units == "1" and loss == "cross_entropy":
        raise OutsideFragment("the cross-entropy needs K >= 2 outputs (with one, log exp f - f = 0): "
                              "units = 2 or a name such as \"k\" in the last dense layer")
    group = spec.get("group", {})
    if not isinstance(group, dict) or set(group) - {"positive"}:
        raise OutsideFragment("--all-sizes takes positive group parameters only ([group] positive = [...])")
    names = group.get("positive", [])
    if not isinstance(names, list) or not all(isinstance(g, str) and g.isidentifier() and "_" not in g for g in names):
        raise OutsideFragment("group.positive must be a list of names without underscores")
    network = Network(inputs, layers, group=names, loss=loss)
    tensors = {layer.weight for layer in layers} | {layer.bias for layer in layers if layer.bias}
    if len(tensors) != len(layers) + sum(1 for layer in layers if layer.bias):
        raise OutsideFragment("every weight and bias needs a name of its own")
    mapping = spec.get("map")
    if not isinstance(mapping, dict) or not mapping:
        raise OutsideFragment("the spec needs a [map] table: tensor name = image of its entry")
    for name, rule in mapping.items():
        if name not in tensors:
            raise OutsideFragment(f"map.{name}: the model has no tensor {name!r}")
        if not isinstance(rule, str):
            raise OutsideFragment(f"map.{name}: --all-sizes takes an image of the entry (a string), not a permutation")
        network.images[name] = _scale_template(name, rule, names, is_bias=name not in {l.weight for l in layers})
    return network


def _scale_template(name: str, rule: str, group: list, is_bias: bool) -> sp.Expr:
    """t with image = t·entry, in the placeholders g, g_i, g_j (positive reals)."""
    tensor = sp.Symbol(name, real=True)
    symbols = {name: tensor}
    for g in group:
        symbols[g] = sp.Symbol(g, positive=True)
        for index in ("i", "j"):
            symbols[f"{g}_{index}"] = sp.Symbol(f"{g}_{index}", positive=True)
    try:
        image = parse_expression(rule, symbols=symbols)
    except ParseError as error:
        raise OutsideFragment(f"map.{name}: {error}") from None
    unknown = sorted(str(s) for s in image.free_symbols if s not in symbols.values())
    if unknown:
        raise OutsideFragment(f"map.{name}: unknown name {unknown[0]!r}")
    scale = sp.powsimp(sp.cancel(image / tensor))
    if tensor in scale.free_symbols or sp.expand(scale * tensor - image) != 0:
        raise OutsideFragment(f"map.{name}: --all-sizes covers images t * {name} with t free of {name}")
    if is_bias and any(str(s).endswith("_i") for s in scale.free_symbols):
        raise OutsideFragment(f"map.{name}: a bias has one index j; _i is not defined for it")
    return scale


def _indexed(template: sp.Expr, group: list, i: str, j: str) -> sp.Expr:
    """The template with g_i, g_j as entries g[i], g[j] of a positive family."""
    values = {}
    for g in group:
        family = sp.IndexedBase(g, positive=True)
        values[sp.Symbol(f"{g}_i", positive=True)] = family[sp.Symbol(i, integer=True)]
        values[sp.Symbol(f"{g}_j", positive=True)] = family[sp.Symbol(j, integer=True)]
    return template.xreplace(values)


# --- the terms ---------------------------------------------------------------------------------------

def _unit_index(network: Network, k: int) -> str:
    """The unit index of dense layer k (from 1); the output unit is o."""
    return "o" if k == len(network.layers) else f"i{k + 1}"


def _activate(activation, term):
    if activation is None:
        return term
    kind, slope = activation
    return Relu(term) if kind == "relu" else Activation("leaky" if kind == "leaky_relu" else "abs", slope, term)


def layer_term(network: Network, k: int, unit: str):
    """Unit ``unit`` of dense layer k at θ (layer 0: the input x_{n,unit})."""
    if k == 0:
        return Entry("x", ("n", unit))
    layer = network.layers[k - 1]
    index = f"i{k}"
    width = network.inputs if k == 1 else network.layers[k - 2].units
    total = Sum(index, width, Mul((layer_term(network, k - 1, index), Entry(layer.weight, (index, unit)))))
    if layer.bias:
        total = Add((total, Entry(layer.bias, (unit,))))
    return _activate(layer.activation, total)


def transformation(network: Network) -> Transformation:
    """T from the map, defined once: each tensor's entry with its image; tensors the map leaves
    out are fixed."""
    images = []
    for layer in network.layers:
        for name, pattern in ((layer.weight, Entry(layer.weight, ("i", "j"))),
                              (layer.bias, Entry(layer.bias or "", ("j",)))):
            if name is None:
                continue
            if name in network.images:
                scale = _indexed(network.images[name], network.group, "i", "j")
                images.append((pattern, Mul((Const(scale), pattern))))
            else:
                images.append((pattern, pattern))
    return Transformation("T", tuple(images))


def invariance_chain(network: Network, T: Transformation) -> Chain:
    """f_{Tθ}(x_n) = f_θ(x_n): layer by layer, innermost first, each unit's scale followed."""
    output = layer_term(network, len(network.layers), "o")
    chain = Chain("f_(T theta)(x) = f_theta(x), every width", T.apply(output))
    previous_scale = sp.S.One
    for k, layer in enumerate(network.layers, start=1):
        index, unit = f"i{k}", _unit_index(network, k)
        width = network.inputs if k == 1 else network.layers[k - 2].units
        below = layer_term(network, k - 1, index)
        below_T = below if k == 1 else Mul((Const(previous_scale), below))
        weight = Entry(layer.weight, (index, unit))
        weight_scale = T.scale(weight)
        scale = sp.powsimp(sp.cancel(previous_scale * weight_scale.expr))
        # the sum at Tθ, inner layers already rewritten: Σ_i (u_i a_i)(t_ij W_ij)
        at_T = Sum(index, width, Mul((below if k == 1 else below_T, T.image(weight))))
        factored = Sum(index, width, Mul((Const(scale), Mul((below, weight)))))
        term = replace_first(chain.end, lambda t: t == at_T, lambda t: factored)
        chain.then(ARITHMETIC, term, f"layer {k}: the scales of unit {index} and of {layer.weight} multiplied")
        total = Sum(index, width, Mul((below, weight)))
        chain.then(SUM_FACTOR, replace_first(chain.end, lambda t: t == factored, lambda t: Mul((Const(scale), total))),
                   f"layer {k}: the product out of the sum over {index}")
        argument = Mul((Const(scale), total))
        if layer.bias:
            bias = Entry(layer.bias, (unit,))
            with_bias = Add((argument, T.image(bias)))
            argument = Mul((Const(scale), Add((total, bias))))
            chain.then(ARITHMETIC, replace_first(chain.end, lambda t: t == with_bias, lambda t: argument),
                       f"layer {k}: the bias {layer.bias} scaled like its unit")
        if layer.activation is not None:
            inner = argument.factors[1]
            rule = HOMOGENEITY if layer.activation[0] == "relu" else ACTIVATION_HOMOGENEITY
            activated = _activate(layer.activation, argument)
            chain.then(rule, replace_first(chain.end, lambda t: t == activated,
                                           lambda t: Mul((Const(scale), _activate(layer.activation, inner)))),
                       f"layer {k}: the positive scale through the activation")
        previous_scale = scale
    # the output unit comes out multiplied by 1
    chain.then(ARITHMETIC, output, "the output's scale is 1")
    return chain


# --- the loss ----------------------------------------------------------------------------------------

def _minus(term):
    return Mul((Const(sp.S.NegativeOne), term))


def loss_body(network: Network, first, second=None):
    """The loss's term, the prediction f_o(x_n) read as ``first`` (and, where the loss reads it twice,
    as ``second`` there): every loss of one output, (1/N) Σ_n ℓ(f(x_n), y_n); the MSE,
    (1/N) Σ_n Σ_o (f_o(x_n) − y_{n,o})(f_o(x_n) − y_{n,o}); the cross-entropy,
    (1/N) Σ_n [log Σ_o exp f_o(x_n) − Σ_o y_{n,o} f_o(x_n)], y_{n,o} the (one-hot) target."""
    second = first if second is None else second
    if network.loss == "any":
        return in_loss(first)
    target = Entry("y", ("n", "o"))
    if network.loss == "mse":
        point = Sum("o", network.outputs, Mul((Add((first, _minus(target))), Add((second, _minus(target))))))
    else:
        point = Add((Fn("log", (Sum("o", network.outputs, Fn("exp", (first,))),)),
                     _minus(Sum("o", network.outputs, Mul((target, second))))))
    return Mul((Const(1 / N), Sum("n", "N", point)))


def loss_chain_of(network: Network, chain: Chain, claim: str) -> Chain:
    """L(Tθ) = L(θ): the prediction's steps (each for every n and every output o) inside the loss,
    once where it reads the prediction once, and for a loss that reads it twice first at the first
    occurrence (the second still at Tθ), then at the second."""
    if network.loss == "any":
        return loss_chain(chain, claim)
    start, end = chain.start, chain.end
    lifted = Chain(claim, loss_body(network, start, start))
    for rule, term, note in chain.steps:
        lifted.then(rule, loss_body(network, term, start), note)
    for rule, term, note in chain.steps:
        lifted.then(rule, loss_body(network, end, term), note)
    return lifted


LOSS_WORDS = {"any": "every loss", "mse": "the MSE summed over the outputs",
              "cross_entropy": "the softmax cross-entropy of the outputs"}


# --- the verdicts ------------------------------------------------------------------------------------

@dataclass
class AllSizesReport:
    """One row per claim ('prediction', 'loss', 'gradient', 'Hessian'), each for every N and every
    value of the named widths (``sizes``: 'all', or 'every N' when the spec names no width)."""
    rows: list = field(default_factory=list)       # (claim, Verdict)
    document: list = field(default_factory=list)   # (LaTeX line, reason) of the prediction chain
    sizes: str = "all"
    proved: str = ""                               # what the rows cover, in words

    @property
    def status(self) -> Status:
        return worst(v for _, v in self.rows)

    def __getitem__(self, claim: str) -> Verdict:
        return next(v for c, v in self.rows if c == claim)

    def as_json(self) -> list:
        return [{"claim": claim, "sizes": self.sizes, "status": v.status.value, "statement": v.claim,
                 "witness": {str(k): str(x) for k, x in v.witness.items()} if v.witness else None,
                 "reason": v.reason or None, "evidence": list(v.evidence)} for claim, v in self.rows]

    def table(self) -> str:
        column = "sizes=all" if self.sizes == "all" else "N=all"
        lines = [f"{claim:<11} {column}  {v.status.name:<9} {v.reason or (v.evidence[0] if v.evidence else '')}"
                 for claim, v in self.rows]
        for claim, v in self.rows:
            if v.witness:
                lines.append(f"\n{v.status.name} {claim}: " + ", ".join(f"{k} = {x}" for k, x in v.witness.items()))
        heading = [f"the claims {self.proved}"] if self.proved else []
        return "\n".join(heading + lines + [f"\noverall: {self.status.name}"])


def concrete_model(network: Network, width: int = INSTANCE_WIDTH):
    """The network at concrete widths (every named width ``width``) as a Model, and the images of
    its tensors' entries (group parameters g_{k} as in the command line's concrete check)."""
    def size(value):
        return int(value) if value.isdigit() else width
    layers = []
    for layer in network.layers:
        layers.append(Dense(size(layer.units), layer.weight, layer.bias))
        if layer.activation is not None:
            kind, slope = layer.activation
            layers.append(ReLU() if kind == "relu" else Abs() if kind == "abs" else LeakyReLU(slope))
    model = Model(size(network.inputs), layers)
    images = {}
    for name, template in network.images.items():
        tensor = model[name]

        def entry(i, j, template=template, tensor=tensor):
            values = {}
            for g in network.group:
                values[sp.Symbol(f"{g}_i", positive=True)] = entry_symbol(g, (1, 2), 0, i, positive=True)
                values[sp.Symbol(f"{g}_j", positive=True)] = entry_symbol(g, (1, 2), 0, j, positive=True)
                values[sp.Symbol(g, positive=True)] = sp.Symbol(g, positive=True)
            return template.xreplace(values) * tensor[i, j]
        images[name] = sp.Matrix(*tensor.shape, entry)
    return model, images


def _instance(chain: Chain, widths: dict, claim: str, outputs: int = 1) -> Verdict:
    """First and last line of a chain at concrete widths, decided by the exact identity test, at
    each output o = 1..``outputs`` where the output index is free (the prediction's chain)."""
    verdicts = []
    for o in range(1, outputs + 1):
        left, right = _expanded_sides(chain, widths, {"n": 1, "o": o, "N": widths["N"]})
        verdicts.append(check_identity(left, right, claim=claim if outputs == 1 else f"{claim}, output {o}"))
    return verdicts[0] if outputs == 1 else conjunction(verdicts, label=claim, evidence=(
        f"one exact identity per output, {outputs} outputs", *verdicts[0].evidence))


def _expanded_sides(chain: Chain, widths: dict, values: dict, functions=None) -> tuple:
    """The chain's first and last line at concrete widths (each Fn an undefined function, but those
    ``functions`` gives)."""
    functions = dict(functions or {})
    return tuple(expand(term, widths, values, functions).xreplace({N: widths["N"]})
                 for term in (chain.start, chain.end if chain.steps else chain.start))


def _labelled_instance(chain: Chain, widths: dict, claim: str, classes: int) -> Verdict:
    """The cross-entropy's chain at concrete widths with the real log and exp and one-hot targets: at
    the labellings 'every label 0' and 'one point's label changed to k' (1 + N(K−1) of them; the
    loss is affine in the targets, so these decide every labelling), each by the exact identity test;
    a refuted one names its labels."""
    n = widths["N"]
    left, right = _expanded_sides(chain, widths, {"N": n}, {"log": sp.log, "exp": sp.exp})
    verdicts = []
    for labels in deciding_labellings(n, classes):
        # y_{n,o} = [o = y_n + 1], classes counted from 0
        one_hot = {sp.Symbol(f"y_{m + 1}_{o}", real=True): int(o == label + 1)
                   for m, label in enumerate(labels) for o in range(1, classes + 1)}
        named = ", ".join(f"y_{m + 1} = {label}" for m, label in enumerate(labels))
        verdict = check_identity(left.xreplace(one_hot), right.xreplace(one_hot), claim=f"{claim}, labels {named}")
        if verdict.status is Status.REFUTED:
            return Verdict(Status.REFUTED, claim, witness={**verdict.witness, **{
                sp.Symbol(f"y_{m + 1}", integer=True): label for m, label in enumerate(labels)}},
                reason=f"at the labels {named} (classes from 0): {verdict.reason}")
        verdicts.append(verdict)
    return conjunction(verdicts, label=claim, evidence=(f"{len(verdicts)} labellings, the real log and exp",
                                                        *verdicts[0].evidence))


def _row(claim: str, derived: Verdict, instances: list, evidence: str, widths: str = "") -> Verdict:
    """PROVED: the derivation and the instances; REFUTED: the derivation refused at a named step and
    an instance refuted with a re-verified witness; UNDECIDED otherwise."""
    refuted = next((v for v in instances if v.status is Status.REFUTED), None)
    if derived.status is not Status.PROVED:
        if refuted is not None:
            return Verdict(Status.REFUTED, claim, witness=refuted.witness,
                           reason=f"{derived.reason}; at a concrete size ({widths}): "
                                  f"{refuted.reason or refuted.claim}, re-verified exactly")
        return Verdict(Status.UNDECIDED, claim, reason=derived.reason)
    seen = tuple(f"instance: {v.claim}; {v.evidence[-1]}" for v in instances if v.evidence)
    return conjunction([derived, *instances], label=claim, evidence=(evidence, *derived.evidence, *seen))


def check_all_sizes(spec: dict, concrete_check=None) -> AllSizesReport:
    """Prove the prediction, loss, gradient and Hessian laws of the spec's map for every N and every
    value of the widths it names (at the widths its numbers fix).  ``concrete_check(model, images,
    loss)`` (optional) returns the concrete laws' verdicts by claim, the instance cross-check of the
    gradient and Hessian rows."""
    network = read_network(spec)
    T = transformation(network)
    proved = network.sizes_proved()
    report = AllSizesReport(sizes="all" if network.named_widths else "every N", proved=proved)
    chain = invariance_chain(network, T)
    widths = {name: int(name) if name.isdigit() else INSTANCE_WIDTH for name in network.widths}
    widths["N"] = 1
    prediction_verdict, _ = prove(chain)
    instance = _instance(chain, widths, "f_(T theta)(x) = f_theta(x) at concrete widths", widths[network.outputs])
    shown = ", ".join(f"{name} = {value}" for name, value in sorted(widths.items()) if not name.isdigit())
    outputs = "f_o(T theta)(x) = f_o(theta)(x) for every output o" if network.outputs != "1" else \
        "f_(T theta)(x) = f_theta(x)"
    report.rows.append(("prediction", _row(f"{outputs}, {proved.removesuffix(' and every N')}", prediction_verdict,
                                           [instance], "index-level chain" + (
                                               ", every named width a symbol" if network.named_widths else
                                               " at the spec's widths"), shown)))
    report.document = [(latex(term), note or rule.name) for rule, term, note in chain.steps]
    output = layer_term(network, len(network.layers), "o")
    loss = Function("L", loss_body(network, output))
    claim = f"L(T theta) = L(theta) for {LOSS_WORDS[network.loss]}, {proved}"
    lifted = loss_chain_of(network, chain, claim)
    loss_verdict, loss_theorem = prove(lifted)
    at_two = "L(T theta) = L(theta) at concrete widths, N = 2"
    loss_instance = (_labelled_instance(lifted, {**widths, "N": 2}, at_two, widths[network.outputs])
                     if network.loss == "cross_entropy" else _instance(lifted, {**widths, "N": 2}, at_two))
    report.rows.append(("loss", _row(claim, loss_verdict, [loss_instance],
                                     "the prediction's chain inside the loss, for each n" +
                                     (" and each output o" if network.outputs != "1" else ""),
                                     shown.replace("N = 1", "N = 2"))))
    concrete = {}
    if concrete_check is not None and worst([prediction_verdict, loss_verdict]) is Status.PROVED:
        model, images = concrete_model(network)
        concrete = concrete_check(model, images, network.loss)
    rule = invariance_lemma(loss_theorem, loss, T) if loss_theorem is not None else None
    coordinates = [Entry(layer.weight, ("i", "j")) for layer in network.layers]
    coordinates += [Entry(layer.bias, ("j",)) for layer in network.layers if layer.bias]
    second = {a: Entry(a.family, ("k", "l")[:len(a.indices)] if len(a.indices) == 2 else ("l",)) for a in coordinates}
    for claim, orders in (("gradient", [[a] for a in coordinates]),
                          ("Hessian", [[a, second[b]] for a in coordinates for b in coordinates])):
        statement = (f"{claim} law with t read from T, {proved}" if claim == "gradient"
                     else f"Hessian law H(T theta) = S H(theta) S, {proved}")
        if rule is None:
            report.rows.append((claim, Verdict(Status.UNDECIDED, statement, reason=f"L(T theta) = L(theta) "
                                               f"is not proved: {loss_verdict.reason}")))
            continue
        derived = conjunction([derivative_chain(c, loss, T, rule).check() for c in orders], label=statement,
                              evidence=(f"{len(orders)} chains, one per coordinate" + (" pair" if claim == "Hessian"
                                                                                       else ""),))
        instances = []
        if claim in concrete:
            seen = concrete[claim]
            instances.append(conjunction([seen], label=f"{claim} law at widths 2") if seen.status is Status.PROVED
                             else seen)
        report.rows.append((claim, _row(statement, derived, instances, "the chain rule through L o T = L")))
    return report
