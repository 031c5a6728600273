"""The symmetry groups of the invariance audit, each acting on its own network family.

Every group here acts linearly: T·θ = T θ with T an invertible matrix whose entries are functions of
the group parameters.  Most are diagonal, T = diag(s_1, …, s_n) with s_i a product of group
parameters (given by their ``factors``); permutations and the attention head's GL(k) are not (given
by their ``matrix``).  A group is given by the network it acts on (a ``Model``), its parameters and
its action, and by one concrete network for counterexamples: rational data, a parameter point θ₀
at a global minimum (targets y_n = f_θ₀(x_n), so L(θ₀) = 0 without weight decay) and one group
element.  Whether T is a symmetry at all (f∘T = f and L∘T = L) is checked by the audit before any
measure is.

    layerwise            Dinh's T_α on a one-hidden-layer net: W ↦ αW, v ↦ v/α
    per_neuron           each hidden unit its own c_j > 0: W_{:j} ↦ c_j W_{:j}, v_j ↦ v_j/c_j
    deep_layerwise_bias  K = 3 layers with biases: θ_k ↦ α_k θ_k, b_k ↦ (∏_{j≤k} α_j) b_k, ∏ α_k = 1
    batchnorm_scale      W ↦ cW in front of a batch normalization with ε = 0
    batchnorm_scale_eps  the same with the usual ε = 10⁻⁵ (not a symmetry: f moves)
    permutation          the hidden units of a layer permuted with their biases (Godfrey et al. 2022)
    sign_flip            a hidden unit's incoming weights and bias negated through |·|
    attention_qk         W_Q ↦ W_Q A, W_K ↦ W_K A⁻ᵀ, A ∈ GL(2) (da Silva et al. 2025)
    batchnorm_affine     γ, β ↦ cγ, cβ after batch normalization, the next weights ÷ c
    layernorm            W ↦ cW in front of a layer normalization with ε = 0 (Ba et al. 2016)
    weight_decay         Dinh's T_α with the loss L + λ‖θ‖² (not a symmetry: the penalty moves)
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from itertools import product
from typing import Callable

import sympy as sp

from symbolic.relu import ReLU, canonical_relu_form, split_positive_factor

BATCHNORM_EPS = Fraction(1, 100000)


def canonical(expr: sp.Expr, expand: bool = True) -> sp.Expr:
    """An exact normal form for non-integer powers: each base (expanded, unless ``expand`` is
    False) with its common factor pulled out, so that sqrt(c²·X) becomes c·sqrt(X) for c > 0
    (sympy's own rule for positive factors) and equal radicands are written alike on both sides
    of an identity.  ReLU's positive factors come out too (``canonical_relu_form``): ReLU keeps
    its argument as written, so ReLU(α·s) at Tθ is α·ReLU(s) only in this form."""
    tidy = (lambda b: sp.factor_terms(sp.expand(b))) if expand else sp.factor_terms
    if expr.has(ReLU):
        expr = canonical_relu_form(expr)
    return expr.replace(lambda e: e.is_Pow and not e.exp.is_Integer and e.base.has(sp.Symbol),
                        lambda e: sp.Pow(tidy(e.base), e.exp))


def _in_canonical_form(function: Callable) -> Callable:
    """function (outputs or pre-activations) with its values in canonical ReLU form (an identity):
    ReLU keeps its argument as written, and positive factors, ReLU(c·s) = c·ReLU(s) for c > 0,
    come out here."""
    def canonical_values(*args):
        return [canonical_relu_form(value) for value in function(*args)]
    # the values as written, for interval enclosures: t + ReLU(−t) of the canonical form would
    # count t twice and widen every enclosure
    canonical_values.as_written = function
    return canonical_values


@dataclass(frozen=True)
class Model:
    """A network family: parameters θ, which of them are weights (not biases), the rows of its last
    layer (Petzka's w_s), its input-to-output paths (Neyshabur's path norm, a bias starting its own
    path) and its outputs on a batch.

    ``outputs(theta, inputs, activation)`` returns f_θ(x_n) for every row x_n of ``inputs``;
    ``activation(s, key)`` rectifies the pre-activation s of unit ``key`` (the ReLU, or σ_key·s on a
    fixed activation pattern).  The loss is L(θ) = (1/2N) Σ_n (f_θ(x_n) − y_n)².
    """

    name: str
    parameters: tuple
    weights: tuple                      # True where the parameter is a weight, False for a bias
    layers: tuple                       # parameter indices of each weight matrix, input side first
    last_layer_rows: tuple              # rows w_s of the output layer, as parameter indices
    paths: tuple                        # each path as the parameter indices along it
    outputs: Callable
    preactivations: Callable            # (theta, inputs) -> the arguments of every rectifier
    input_width: int
    biases: tuple = ()                  # parameter indices of each layer's bias
    activation: str = "relu"            # "relu" or "abs": what ``activation`` rectifies with
    shapes: tuple = ()                  # (rows, columns) of each weight matrix, entries row by row
    bounded_outputs: Callable | None = None   # (theta, X) -> (outputs with bounded placeholders,
                                              #  {placeholder: bound}), for Gaussian tails

    @property
    def layer_shapes(self) -> tuple:
        return self.shapes or tuple((len(layer), 1) for layer in self.layers)

    def rectify(self, s, key=None) -> sp.Expr:
        """The real activation: ReLU(s), or |s|."""
        return sp.Abs(s) if self.activation == "abs" else ReLU(s)

    def branch(self, value) -> int:
        """The activation's slope at a non-zero pre-activation value: 1 or 0 (ReLU), ±1 (|·|)."""
        if self.activation == "abs":
            return 1 if value > 0 else -1
        return 1 if value > 0 else 0


@dataclass(frozen=True)
class Instance:
    """One concrete network for counterexamples: data, θ₀ at a minimum, a group element."""

    inputs: tuple          # rows of rationals
    theta: tuple           # rationals
    element: dict          # group parameter name -> rational
    radius: Fraction       # ε (ε-sharpness, Keskar) and ρ (adaptive sharpness)

    def targets(self, model: Model) -> list:
        """y_n = f_θ₀(x_n): θ₀ interpolates, a global minimum of the squared loss."""
        theta = [sp.Rational(t) for t in self.theta]
        X = sp.Matrix([[sp.Rational(x) for x in row] for row in self.inputs])
        return model.outputs(theta, X, model.rectify)


@dataclass(frozen=True)
class Family:
    """A symbolic network family at one size, with N symbolic data points; ``concrete`` is the same
    network written with explicit radicals where ``model`` keeps them opaque (batch normalization)."""

    model: Model
    batch: int
    sizes: str
    concrete: Model | None = None

    @property
    def concrete_model(self) -> Model:
        return self.concrete or self.model


@dataclass(frozen=True)
class SymmetryGroup:
    key: str
    title: str
    description: str                    # LaTeX, one sentence
    families: tuple                     # the symbolic families the proofs run on, one per size
    symbols: tuple                      # the group parameters (positive; real for the attention head's A)
    factors: Callable | None            # (model, symbols) -> s_i for every parameter (a diagonal T)
    witness_model: Model                # the small family of the counterexamples
    instance: Instance
    lemmas: Callable | None = None      # family -> [(statement, reason, expression that must be 0)]
    matrix: Callable | None = None      # (model, symbols) -> T, for an action that is not diagonal
    penalty: Fraction = Fraction(0)     # λ of a weight decay λ‖θ‖² added to the loss
    source: str = ""                    # where the symmetry comes from

    @property
    def sizes(self) -> str:
        return "; ".join(family.sizes for family in self.families)

    @property
    def size_list(self) -> list:
        return [family.sizes for family in self.families]

    def action_on(self, model: Model, values) -> sp.Matrix:
        """T on any network of the group's kind, at group parameters (symbols or numbers)."""
        if self.matrix is not None:
            return sp.Matrix(self.matrix(model, values))
        return sp.diag(*[sp.sympify(f) for f in self.factors(model, values)])

    def action(self, family: Family) -> sp.Matrix:
        """T for a symbolic family, a matrix in the group parameters."""
        return self.action_on(family.model, self.symbols)

    @property
    def witness_symbols(self) -> tuple:
        """The group parameters that act on the counterexample network."""
        used = self.action_on(self.witness_model, self.symbols).free_symbols
        return tuple(s for s in self.symbols if s in used)

    def action_at(self, model: Model, element: dict) -> sp.Matrix:
        """T on a concrete network of the group's kind at a group element (name -> rational)."""
        values = [sp.Rational(element.get(str(s), 1)) for s in self.symbols]
        return self.action_on(model, values)

    def witness_action(self, element: dict) -> sp.Matrix:
        """T on the counterexample network at a concrete group element."""
        return self.action_at(self.witness_model, element)

    def random_element(self, rng, symbols=None) -> dict:
        """A random group element: positive rationals, or any non-zero rationals for real
        parameters (A for the attention head, which the caller keeps only when invertible)."""
        def draw(symbol):
            value = Fraction(rng.randint(2, 30), rng.randint(2, 30))
            return value if symbol.is_positive else value * rng.choice((-1, 1))
        return {str(s): draw(s) for s in (self.witness_symbols if symbols is None else symbols)}


# ---------------------------------------------------------------- one hidden layer (W, v)

def one_hidden_layer(d: int, h: int) -> Model:
    """f(x) = Σ_j ReLU(Σ_i x_i W_ij) v_j; θ = (W row by row, v)."""
    W = [sp.Symbol(f"W_{{{i + 1},{j + 1}}}", real=True) for i in range(d) for j in range(h)]
    v = [sp.Symbol(f"v_{{{j + 1}}}", real=True) for j in range(h)]

    def preactivations(theta, X):
        return [sum(X[n, i] * theta[i * h + j] for i in range(d)) for n in range(X.rows)
                for j in range(h)]

    def outputs(theta, X, activation):
        return [sum(activation(sum(X[n, i] * theta[i * h + j] for i in range(d)), (n, j))
                    * theta[d * h + j] for j in range(h)) for n in range(X.rows)]
    paths = tuple((i * h + j, d * h + j) for i in range(d) for j in range(h))
    return Model(f"one hidden layer, d={d}, h={h}", tuple(W + v), (True,) * (d * h + h),
                 (tuple(range(d * h)), tuple(range(d * h, d * h + h))),
                 (tuple(range(d * h, d * h + h)),), paths, _in_canonical_form(outputs), preactivations, d,
                 shapes=((d, h), (h, 1)))


def _layerwise_factors(model: Model, symbols) -> list:
    (alpha,) = symbols
    first, second = model.layers
    return [alpha] * len(first) + [1 / alpha] * len(second)


def _per_neuron_factors(model: Model, symbols) -> list:
    h = len(model.layers[1])
    return [symbols[i % h] for i in model.layers[0]] + [1 / c for c in symbols[:h]]


# ---------------------------------------------------------------- deep, with biases

def deep_with_biases(widths: tuple, activation: str = "relu") -> Model:
    """K = len(widths) − 1 layers, θ = (θ_1, …, θ_K, b_1, …, b_K); hidden layers rectified (by ReLU,
    or by |·| with ``activation="abs"``)."""
    K = len(widths) - 1
    names, weight_index, bias_index = [], [], []
    for k in range(K):
        weight_index.append({})
        for i in range(widths[k]):
            for j in range(widths[k + 1]):
                weight_index[k][(i, j)] = len(names)
                names.append(sp.Symbol(f"theta{k + 1}_{{{i + 1},{j + 1}}}", real=True))
    n_weights = len(names)
    for k in range(K):
        bias_index.append({})
        for j in range(widths[k + 1]):
            bias_index[k][j] = len(names)
            names.append(sp.Symbol(f"b{k + 1}_{{{j + 1}}}", real=True))

    def forward(theta, X, activation, collect=None):
        results = []
        for n in range(X.rows):
            layer = [X[n, i] for i in range(widths[0])]
            for k in range(K):
                pre = [sum(layer[i] * theta[weight_index[k][(i, j)]] for i in range(widths[k]))
                       + theta[bias_index[k][j]] for j in range(widths[k + 1])]
                if k < K - 1:
                    if collect is not None:
                        collect.extend(pre)
                    layer = [activation(s, (n, k, j)) for j, s in enumerate(pre)]
                else:
                    layer = pre
            results.append(layer[0])
        return results

    def preactivations(theta, X):
        collected = []
        forward(theta, X, lambda s, key: ReLU(s), collected)
        return collected

    # paths: from every input, and from every bias, through one unit per later layer to the output
    paths = []
    for start in range(K):
        sources = ([("x", i) for i in range(widths[0])] if start == 0 else []) + [("b", start)]
        for source in sources:
            first_units = range(widths[start + 1])
            for route in product(first_units, *[range(widths[k + 1]) for k in range(start + 1, K)]):
                edges = ([weight_index[start][(source[1], route[0])]] if source[0] == "x"
                         else [bias_index[start][route[0]]])
                for step, k in enumerate(range(start + 1, K)):
                    edges.append(weight_index[k][(route[step], route[step + 1])])
                paths.append(tuple(edges))
    layers = tuple(tuple(weight_index[k].values()) for k in range(K))
    last_rows = (tuple(weight_index[K - 1][(i, 0)] for i in range(widths[K - 1])),)
    weights = tuple(i < n_weights for i in range(len(names)))
    name = f"{K} layers with biases, widths {','.join(map(str, widths))}"
    return Model(name + (", |.| activation" if activation == "abs" else ""), tuple(names),
                 weights, layers, last_rows, tuple(paths),
                 _in_canonical_form(lambda theta, X, activation: forward(theta, X, activation)),
                 _in_canonical_form(preactivations), widths[0], tuple(tuple(b.values()) for b in bias_index),
                 activation, tuple((widths[k], widths[k + 1]) for k in range(K)))


def _deep_factors(model: Model, symbols) -> list:
    """θ_k ↦ α_k θ_k with α_K = 1/(α_1⋯α_{K−1}); b_k ↦ (∏_{j≤k} α_j) b_k."""
    scales = list(symbols) + [1 / sp.Mul(*symbols)]
    factors = [None] * len(model.parameters)
    for k, (layer, biases) in enumerate(zip(model.layers, model.biases)):
        for index in layer:
            factors[index] = scales[k]
        for index in biases:
            factors[index] = sp.Mul(*scales[:k + 1])
    return factors


# ---------------------------------------------------------------- batch normalization

def batch_spread_function(inputs: sp.Matrix, eps, name: str = "R"):
    """R(W) = sqrt(N Σ_n (z_n − μ)² + N²ε), z_n = x_n·W, as an opaque sympy function of W that
    knows its derivative (the chain rule of sqrt) and, for ε = 0 only, its homogeneity
    R(cW) = c R(W) for c > 0 (the radicand is then homogeneous of degree 2 in W).  Keeping R
    opaque makes every derivative of the normalized network a rational function of W, x, R.
    ``name`` tells several such functions apart when they are printed."""
    N, d = inputs.shape

    def radicand(W):
        z = [sum(inputs[n, i] * W[i] for i in range(d)) for n in range(N)]
        mean = sp.Add(*z) / N
        return N * sp.Add(*[(zn - mean) ** 2 for zn in z]) + N ** 2 * eps

    dummies = sp.symbols(f"w_1:{d + 1}", real=True)
    slopes = [sp.expand(sp.diff(radicand(dummies), w)) for w in dummies]

    class R(sp.Function):
        nargs = d

        @classmethod
        def eval(cls, *W):
            if eps != 0:
                return None
            splits = [split_positive_factor(w) for w in W]
            common = splits[0][0]
            if common != 1 and all(factor == common for factor, _ in splits):
                return common * cls(*[rest for _, rest in splits])
            return None

        def fdiff(self, argindex=1):
            slope = slopes[argindex - 1].xreplace(dict(zip(dummies, self.args)))
            return slope / (2 * self)

        def _latex(self, printer, exp=None):
            body = r"%s\left(%s\right)" % (printer._print(sp.Symbol(name)),
                                           ", ".join(printer._print(a) for a in self.args))
            return body if exp is None else r"%s^{%s}" % (body, exp)
    R.__name__ = R.__qualname__ = name
    return R, radicand


def batchnorm_net(d: int, eps, opaque: bool = True, affine: bool = False) -> Model:
    """f(x_n) = v·ReLU(BN(x_n·W)) with BN(z_n) = (z_n − μ)/sqrt(σ² + ε) over the batch (μ, σ² the
    batch mean and variance), one unit; θ = (W_1, …, W_d, v).  With ``affine`` the normalized value
    is γ·BN(z_n) + β before the ReLU, θ = (W_1, …, W_d, γ, β, v).  BN(z_n) = N(z_n − μ)/R(W) with
    R(W) = sqrt(N²σ² + N²ε): an opaque R (``batch_spread_function``) for the symbolic proofs, the
    radical itself (``opaque=False``) for the concrete networks."""
    W = [sp.Symbol(f"W_{{{i + 1}}}", real=True) for i in range(d)]
    v = sp.Symbol("v", real=True)
    scale_shift = list(sp.symbols("gamma beta", real=True)) if affine else []
    spreads = {}     # one R per batch, so that R(W) built twice is the same expression

    def normalized(theta, X):
        N = X.rows
        key = tuple(X)
        if key not in spreads:
            spreads[key] = batch_spread_function(X, eps)
        R, radicand = spreads[key]
        weights = list(theta[:d])
        spread = R(*weights) if opaque else sp.sqrt(radicand(weights))
        z = [sum(X[n, i] * weights[i] for i in range(d)) for n in range(N)]
        mean = sp.Add(*z) / N
        # common factors pulled out, so that c(z_n − μ)/(c R) cancels on construction
        return [sp.factor_terms(sp.expand(N * (zn - mean))) / spread for zn in z]

    def pre(theta, X):
        values = normalized(theta, X)
        return [theta[d] * z + theta[d + 1] for z in values] if affine else values

    def outputs(theta, X, activation):
        return [activation(s, (n, 0)) * theta[-1] for n, s in enumerate(pre(theta, X))]

    def bounded(theta, X):
        # |BN(z_n)| = N|z_n − μ| / sqrt(N Σ_m (z_m − μ)² + N²ε) ≤ sqrt(N) (one term of the sum),
        # bounded by the rational ⌈√N⌉
        values = [sp.Symbol(f"nu_{n + 1}", real=True) for n in range(X.rows)]
        pre_values = [theta[d] * z + theta[d + 1] for z in values] if affine else values
        bound = sp.Integer(math.isqrt(X.rows - 1) + 1)
        return [ReLU(s) * theta[-1] for s in pre_values], {z: bound for z in values}
    n = d + len(scale_shift)
    name = f"batch-normalized unit, d={d}" + (f", eps={eps}" if eps else ", eps=0")
    return Model(name + (", affine" if affine else ""), tuple(W + scale_shift + [v]), (True,) * (n + 1),
                 (tuple(range(d)), (n,)), ((n,),), tuple((i, n) for i in range(d)), _in_canonical_form(outputs),
                 pre, d, ((d + 1,),) if affine else (), shapes=((d, 1), (1, 1)), bounded_outputs=bounded)


def _first_layer_factors(model: Model, symbols) -> list:
    """W ↦ cW for the weights in front of the normalization, every other parameter unchanged."""
    (c,) = symbols
    first = set(model.layers[0])
    return [c if i in first else 1 for i in range(len(model.parameters))]


def _affine_factors(model: Model, symbols) -> list:
    """γ, β ↦ cγ, cβ and v ↦ v/c; W unchanged."""
    (c,) = symbols
    return [1] * len(model.layers[0]) + [c, c, 1 / c]


# ---------------------------------------------------------------- layer normalization

def unit_spread_function(x_row, h: int, name: str = "R"):
    """R(W) = sqrt(h Σ_j (z_j − μ)²), z_j = Σ_i x_i W_ij over the h units of one input x (LayerNorm
    normalizes over units, not over the batch): ``batch_spread_function`` with ε = 0 on the h × dh
    matrix A that maps W (row by row) to z, A[j, i·h + j] = x_i.  (R, radicand)."""
    d = len(x_row)
    A = sp.zeros(h, d * h)
    for i in range(d):
        for j in range(h):
            A[j, i * h + j] = x_row[i]
    return batch_spread_function(A, 0, name)


def layernorm_net(d: int, h: int, opaque: bool = True, read: int | None = None) -> Model:
    """f(x_n) = Σ_{j ≤ read} v_j ReLU(LN(x_n W)_j) (every unit read out unless ``read`` is given),
    LN(z)_j = (z_j − μ)/sqrt(σ²) over the h units of z (μ, σ² the mean and variance of z_1, …,
    z_h), ε = 0, no gain or bias; θ = (W row by row, v_1, …, v_read).  LN(z)_j = h(z_j − μ)/R_n(W)
    with R_n(W) = sqrt(h Σ_j (z_j − μ)²): one opaque R_n per input (``unit_spread_function``) for
    the symbolic proofs, the radical itself (``opaque=False``) for the concrete networks.  Defined
    where σ² > 0, a set that W ↦ cW maps onto itself."""
    W = [sp.Symbol(f"W_{{{i + 1},{j + 1}}}", real=True) for i in range(d) for j in range(h)]
    read = h if read is None else read
    v = [sp.Symbol(f"v_{{{j + 1}}}", real=True) for j in range(read)]
    spreads = {}     # one R per input row, so that R_n(W) built twice is the same expression

    def normalized(theta, X):
        weights = list(theta[:d * h])
        rows = []
        for n in range(X.rows):
            key = tuple(X.row(n))
            if key not in spreads:
                spreads[key] = unit_spread_function(key, h, f"R_{n + 1}")
            R, radicand = spreads[key]
            spread = R(*weights) if opaque else sp.sqrt(radicand(weights))
            z = [sum(X[n, i] * weights[i * h + j] for i in range(d)) for j in range(h)]
            mean = sp.Add(*z) / h
            # common factors pulled out, so that c(z_j − μ)/(c R) cancels on construction
            rows.append([sp.factor_terms(sp.expand(h * (zj - mean))) / spread for zj in z])
        return rows

    def outputs(theta, X, activation):
        return [sum(activation(s, (n, j)) * theta[d * h + j] for j, s in enumerate(row[:read]))
                for n, row in enumerate(normalized(theta, X))]

    def bounded(theta, X):
        # |LN(z)_j| = h|z_j − μ| / sqrt(h Σ_k (z_k − μ)²) ≤ sqrt(h) (one term of the sum),
        # bounded by the rational ⌈√h⌉
        values = [[sp.Symbol(f"nu_{{{n + 1},{j + 1}}}", real=True) for j in range(read)]
                  for n in range(X.rows)]
        bound = sp.Integer(math.isqrt(h - 1) + 1)
        return ([sum(ReLU(s) * theta[d * h + j] for j, s in enumerate(row)) for row in values],
                {s: bound for row in values for s in row})
    n = d * h
    name = f"layer-normalized layer, d={d}, h={h}, eps=0" + (", unit 1 read out" if read == 1 else "")
    return Model(name, tuple(W + v), (True,) * (n + read),
                 (tuple(range(n)), tuple(range(n, n + read))), (tuple(range(n, n + read)),),
                 tuple((i * h + j, n + j) for i in range(d) for j in range(read)), outputs,
                 lambda theta, X: [s for row in normalized(theta, X) for s in row[:read]], d,
                 shapes=((d, h), (read, 1)), bounded_outputs=bounded)


# ---------------------------------------------------------------- permutations and sign flips

def _hidden_unit_positions(model: Model, unit: int) -> list:
    """The parameter indices that belong to hidden unit ``unit`` of a two-layer net with biases:
    its incoming weights (one per input), its bias, its outgoing weight."""
    d, h = model.input_width, len(model.biases[0])
    return [model.layers[0][i * h + unit] for i in range(d)] + [model.biases[0][unit],
                                                                 model.layers[1][unit]]


def _permutation_matrix(model: Model, symbols) -> sp.Matrix:
    """The cycle 1 → 2 → … → h → 1 of the hidden units, every unit's parameters moving together:
    (Tθ) at unit j's positions = θ at unit j+1's positions."""
    h = len(model.biases[0])
    n = len(model.parameters)
    T = sp.zeros(n, n)
    moved = set()
    for unit in range(h):
        for target, source in zip(_hidden_unit_positions(model, unit),
                                  _hidden_unit_positions(model, (unit + 1) % h)):
            T[target, source] = 1
            moved.add(target)
    for index in range(n):
        if index not in moved:
            T[index, index] = 1
    return T


def _sign_flip_factors(model: Model, symbols) -> list:
    """Hidden unit 1's incoming weights and bias negated (its outgoing weight kept: |·| is even)."""
    flipped = set(_hidden_unit_positions(model, 0)[:-1])
    return [-1 if i in flipped else 1 for i in range(len(model.parameters))]


# ---------------------------------------------------------------- an attention head's scores

def attention_scores(d: int, k: int) -> Model:
    """One attention head's score between two tokens a, b ∈ ℝ^d (an input row is (a, b)), read out
    by a weight v: f(a, b) = v · (a W_Q)(b W_K)ᵀ, W_Q, W_K ∈ ℝ^{d×k}; θ = (W_Q, W_K row by row, v).
    The softmax of a full head acts on these scores, so it keeps every symmetry of W_Q W_Kᵀ."""
    Q = [sp.Symbol(f"Q_{{{i + 1},{j + 1}}}", real=True) for i in range(d) for j in range(k)]
    K = [sp.Symbol(f"K_{{{i + 1},{j + 1}}}", real=True) for i in range(d) for j in range(k)]
    v = sp.Symbol("v", real=True)

    def outputs(theta, X, activation):
        q, kk = theta[:d * k], theta[d * k:2 * d * k]
        return [theta[-1] * sum(sum(X[n, i] * q[i * k + j] for i in range(d))
                                * sum(X[n, d + i] * kk[i * k + j] for i in range(d)) for j in range(k))
                for n in range(X.rows)]
    return Model(f"attention score, d={d}, k={k}", tuple(Q + K + [v]), (True,) * (2 * d * k + 1),
                 (tuple(range(d * k)), tuple(range(d * k, 2 * d * k)), (2 * d * k,)), ((2 * d * k,),),
                 tuple((i, d * k + i, 2 * d * k) for i in range(d * k)), outputs,
                 lambda theta, X: [], 2 * d, shapes=((d, k), (d, k), (1, 1)))


def _attention_matrix(model: Model, symbols) -> sp.Matrix:
    """W_Q ↦ W_Q A and W_K ↦ W_K A⁻ᵀ, row by row, for A = [[a, b], [c, e]]."""
    a, b, c, e = symbols
    A = sp.Matrix([[a, b], [c, e]])
    A_inverse_transpose = sp.Matrix([[e, -c], [-b, a]]) / (a * e - b * c)
    k = 2
    d = model.input_width // 2
    n = len(model.parameters)
    T = sp.zeros(n, n)
    for block, M in ((0, A), (d * k, A_inverse_transpose)):
        for i in range(d):
            for j in range(k):
                for l in range(k):       # (W M)_{ij} = Σ_l W_{il} M_{lj}
                    T[block + i * k + j, block + i * k + l] = M[l, j]
    T[n - 1, n - 1] = 1
    return T


def _spread_homogeneity(family: Family) -> list:
    """The rule R(cW) = c R(W) that the opaque R applies for ε = 0 rests on the radicand being
    homogeneous of degree 2 in W: N Σ (c z_n − c μ)² = c² N Σ (z_n − μ)², checked here."""
    d = family.model.input_width
    X = sp.Matrix(family.batch, d, lambda n, i: sp.Symbol(f"x_{{{n + 1},{i + 1}}}", real=True))
    _, radicand = batch_spread_function(X, 0)
    W = list(family.model.parameters[:d])
    c = sp.Symbol("c", positive=True)
    return [(r"R(cW)^2 = c^2 R(W)^2", "the radicand of the batch spread is homogeneous of degree 2 in "
             "$W$, so $R(cW) = c\\,R(W)$ for $c > 0$", radicand([c * w for w in W]) - c ** 2 * radicand(W))]


def _unit_spread_homogeneity(family: Family) -> list:
    """The rule R_n(cW) = c R_n(W) of layer normalization's opaque spread, as for batch
    normalization: its radicand h Σ_j (z_j − μ)² is homogeneous of degree 2 in W, checked here
    for a symbolic input x."""
    model = family.model
    d, h = model.layer_shapes[0]
    x = [sp.Symbol(f"x_{{{i + 1}}}", real=True) for i in range(d)]
    _, radicand = unit_spread_function(x, h)
    W = list(model.parameters[:d * h])
    c = sp.Symbol("c", positive=True)
    return [(r"R_n(cW)^2 = c^2 R_n(W)^2", "the radicand of the spread over the units is homogeneous of "
             "degree 2 in $W$, so $R_n(cW) = c\\,R_n(W)$ for $c > 0$",
             radicand([c * w for w in W]) - c ** 2 * radicand(W))]


# ---------------------------------------------------------------- the groups

_ALPHA = sp.Symbol("alpha", positive=True)


def _batchnorm_instance(eps: Fraction) -> Instance:
    """x_{n,1} = (−1, −1, 1, 1) has variance 1; W₀ = (w, 0) then has σ² = w².  With ε > 0, w and
    the group element c are chosen so that w² + ε and c²w² + ε are rational squares
    (w = (k − ε/k)/2 is a point of the conic w² + ε = r²), keeping every value exact."""
    inputs = ((-1, 0), (-1, 1), (1, 0), (1, -1))
    if eps == 0:
        return Instance(inputs, (Fraction(1), Fraction(0), Fraction(1)), {"c": Fraction(1, 1000)},
                        Fraction(1, 10))
    w = (1 - eps) / 2                       # k = 1
    cw = (Fraction(1, 100) - eps * 100) / 2  # k = 1/100
    return Instance(inputs, (w, Fraction(0), Fraction(1)), {"c": cw / w}, Fraction(1, 10))


def _groups() -> dict:
    c = sp.Symbol("c", positive=True)
    worked = ((1,), (2,))
    worked_instance = Instance(worked, (Fraction(1), Fraction(1)), {"alpha": Fraction(1, 1000)}, Fraction(1, 10))
    one_layer = (Family(one_hidden_layer(1, 1), 2, "d=1, h=1, N=2"),
                 Family(one_hidden_layer(2, 2), 2, "d=2, h=2, N=2"),
                 Family(one_hidden_layer(3, 2), 2, "d=3, h=2, N=2"))
    two_units = (Fraction(1), Fraction(-1), Fraction(1), Fraction(1, 2), Fraction(1, 2), Fraction(1, 2),
                 Fraction(0))              # θ1 = (1, −1), θ2 = (1, 1/2), b1 = (1/2, 1/2), b2 = 0
    eps = sp.Rational(BATCHNORM_EPS)
    bn_eps_instance = _batchnorm_instance(BATCHNORM_EPS)
    w0 = bn_eps_instance.theta[0]
    groups = [
        SymmetryGroup(
            "layerwise", "Dinh's layer-wise rescaling $T_\\alpha$",
            r"$T_\alpha(W, v) = (\alpha W, \alpha^{-1} v)$, $\alpha > 0$, on $f(x) = \sum_j "
            r"\mathrm{ReLU}(\sum_i x_i W_{ij}) v_j$",
            one_layer, (_ALPHA,), _layerwise_factors, one_hidden_layer(1, 1), worked_instance,
            source="Dinh et al. 2017, Section 4"),
        SymmetryGroup(
            "per_neuron", "per-neuron rescaling",
            r"$W_{:j} \mapsto c_j W_{:j}$, $v_j \mapsto v_j / c_j$, every $c_j > 0$",
            (Family(one_hidden_layer(2, 2), 2, "d=2, h=2, N=2"),
             Family(one_hidden_layer(2, 3), 2, "d=2, h=3, N=2")),
            sp.symbols("c_1:4", positive=True), _per_neuron_factors, one_hidden_layer(1, 2),
            Instance(worked, (Fraction(1), Fraction(1, 2), Fraction(1, 2), Fraction(1)),
                     {"c_1": Fraction(1, 1000), "c_2": Fraction(3, 2)}, Fraction(1, 10)),
            source="Neyshabur et al. 2015 (path-SGD); Dinh et al. 2017, Section 4"),
        SymmetryGroup(
            "deep_layerwise_bias", "deep layer-wise rescaling with biases",
            r"$\theta_k \mapsto \alpha_k \theta_k$, $b_k \mapsto (\prod_{j \le k} \alpha_j) b_k$, "
            r"$\alpha_3 = 1/(\alpha_1 \alpha_2)$, on a $K = 3$ layer ReLU net with biases",
            (Family(deep_with_biases((1, 2, 1, 1)), 2, "K=3, widths 1,2,1,1, N=2"),
             Family(deep_with_biases((2, 2, 2, 1)), 1, "K=3, widths 2,2,2,1, N=1")),
            sp.symbols("alpha_1 alpha_2", positive=True), _deep_factors, deep_with_biases((1, 1, 1, 1)),
            Instance(worked, (Fraction(1), Fraction(1), Fraction(1), Fraction(1, 2), Fraction(1, 2),
                              Fraction(1, 2)),
                     {"alpha_1": Fraction(1, 1000), "alpha_2": Fraction(10)}, Fraction(1, 10)),
            source="Dinh et al. 2017, Section 4 (biases: Section 5)"),
        SymmetryGroup(
            "batchnorm_scale", "scaling in front of batch normalization, $\\epsilon = 0$",
            r"$W \mapsto c W$, $c > 0$, in front of $\mathrm{BN}(z) = (z - \mu)/\sqrt{\sigma^2}$",
            (Family(batchnorm_net(2, 0), 4, "d=2, N=4", batchnorm_net(2, 0, opaque=False)),), (c,),
            _first_layer_factors, batchnorm_net(2, 0, opaque=False), _batchnorm_instance(Fraction(0)),
            _spread_homogeneity, source="Ioffe and Szegedy 2015; van Laarhoven 2017"),
        SymmetryGroup(
            "batchnorm_scale_eps", "scaling in front of batch normalization, $\\epsilon = 10^{-5}$",
            r"$W \mapsto c W$, $c > 0$, in front of $\mathrm{BN}(z) = (z - \mu)/\sqrt{\sigma^2 + "
            r"\epsilon}$, $\epsilon = 10^{-5}$",
            (Family(batchnorm_net(2, eps), 4, "d=2, N=4", batchnorm_net(2, eps, opaque=False)),), (c,),
            _first_layer_factors, batchnorm_net(2, eps, opaque=False), bn_eps_instance,
            source="PyTorch's default $\\epsilon = 10^{-5}$"),
        SymmetryGroup(
            "permutation", "permutation of hidden units",
            r"the hidden units cycled ($1 \to 2 \to \dots \to h \to 1$), each with its incoming "
            r"weights, bias and outgoing weight, on a two-layer ReLU net with biases",
            (Family(deep_with_biases((1, 2, 1)), 2, "widths 1,2,1, N=2"),
             Family(deep_with_biases((2, 3, 1)), 1, "widths 2,3,1, N=1")),
            (), None, deep_with_biases((1, 2, 1)), Instance(worked, two_units, {}, Fraction(1, 10)),
            matrix=_permutation_matrix, source="Godfrey et al. 2022, Table 1"),
        SymmetryGroup(
            "sign_flip", "sign flip through $|\\cdot|$",
            r"$W_{:1}, b_1 \mapsto -W_{:1}, -b_1$ on $f(x) = \sum_j v_j |\sum_i x_i W_{ij} + b_j| + b_2$",
            (Family(deep_with_biases((1, 2, 1), "abs"), 2, "widths 1,2,1, N=2"),
             Family(deep_with_biases((2, 2, 1), "abs"), 2, "widths 2,2,1, N=2")),
            (), _sign_flip_factors, deep_with_biases((1, 2, 1), "abs"),
            Instance(worked, two_units, {}, Fraction(1, 10)), source="Godfrey et al. 2022, Table 1"),
        SymmetryGroup(
            "attention_qk", "$GL(2)$ of an attention head's $W_Q W_K^\\top$",
            r"$W_Q \mapsto W_Q A$, $W_K \mapsto W_K A^{-\top}$, $A \in GL(2)$, on the score "
            r"$f(a, b) = v\,(a W_Q)(b W_K)^\top$ of two tokens $a, b \in \mathbb{R}^2$",
            (Family(attention_scores(2, 2), 1, "d=2, k=2, N=1"),),
            sp.symbols("a_11 a_12 a_21 a_22", real=True), None, attention_scores(2, 2),
            Instance(((1, 0, 0, 1), (1, 2, -1, 1)),
                     (Fraction(1), Fraction(0), Fraction(0), Fraction(1),
                      Fraction(1), Fraction(1), Fraction(0), Fraction(1), Fraction(1)),
                     {"a_11": Fraction(1, 1000), "a_12": Fraction(1), "a_21": Fraction(0), "a_22": Fraction(1)},
                     Fraction(1, 10)),
            matrix=_attention_matrix, source="da Silva, Dangel and Oore 2025 (Hide \\& Seek)"),
        SymmetryGroup(
            "batchnorm_affine", "batch normalization's affine scale",
            r"$\gamma, \beta \mapsto c\gamma, c\beta$, $v \mapsto v / c$, $c > 0$, on "
            r"$f = v\,\mathrm{ReLU}(\gamma\,\mathrm{BN}(xW) + \beta)$, $\epsilon = 10^{-5}$",
            (Family(batchnorm_net(2, eps, affine=True), 4, "d=2, N=4",
                    batchnorm_net(2, eps, opaque=False, affine=True)),), (c,), _affine_factors,
            batchnorm_net(2, eps, opaque=False, affine=True),
            Instance(bn_eps_instance.inputs, (w0, Fraction(0), Fraction(1), Fraction(1, 2), Fraction(1)),
                     {"c": Fraction(1, 1000)}, Fraction(1, 10)),
            source="Ioffe and Szegedy 2015; Godfrey et al. 2022"),
        SymmetryGroup(
            "layernorm", "scaling in front of layer normalization, $\\epsilon = 0$",
            r"$W \mapsto c W$, $c > 0$, on $f(x) = \sum_j v_j\,\mathrm{ReLU}(\mathrm{LN}(xW)_j)$, "
            r"$\mathrm{LN}(z) = (z - \mu)/\sqrt{\sigma^2}$ over the units, defined where $\sigma^2 > 0$",
            (Family(layernorm_net(1, 3), 2, "d=1, h=3, N=2", layernorm_net(1, 3, opaque=False)),
             Family(layernorm_net(2, 3), 1, "d=2, h=3, N=1", layernorm_net(2, 3, opaque=False))),
            (c,), _first_layer_factors, layernorm_net(1, 4, opaque=False, read=1),
            # h = 4 units, one read out (few parameters for the Gaussian enclosures): W₀ = (100, 100,
            # 0, 0) normalizes to (1, 1, −1, −1), rational (with h = 3 a rational z ≠ μ never has a
            # rational σ: 3Σ(z_j − μ)² = 2(a² + ab + b²) for the differences a, b is no square);
            # W₀ large and v₀ = 10 so that σ = 1/10 barely moves LN at θ₀ and scrambles it at Tθ₀
            Instance(worked, (Fraction(100), Fraction(100), Fraction(0), Fraction(0), Fraction(10)),
                     {"c": Fraction(1, 100000)}, Fraction(1, 10)),
            _unit_spread_homogeneity, source="Ba, Kiros and Hinton 2016 (Layer Normalization)"),
        SymmetryGroup(
            "weight_decay", "layer-wise rescaling with weight decay",
            r"$T_\alpha$ of \texttt{layerwise} with the loss $L(\theta) + \lambda \|\theta\|^2$, "
            r"$\lambda = 1/100$",
            one_layer[:1], (_ALPHA,), _layerwise_factors, one_hidden_layer(1, 1), worked_instance,
            penalty=Fraction(1, 100), source="Dinh et al. 2017, Section 6 (regularization)"),
    ]
    return {group.key: group for group in groups}


GROUPS = _groups()
