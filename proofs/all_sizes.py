"""Theorems 1 and 3, the multi-layer congruence and the per-neuron law, for every d, h, N at once.

The sizes stay symbols: each result is a chain of index-level terms (``symbolic.logic.terms``),
every step an instance of a rule whose validity does not depend on the sizes and is itself
checked (``symbolic.trusted.axioms.index_rules``).  The proofs follow the paper:

  Theorem 1.  Σ_j ReLU(Σ_i x_ni·αW_ij)·α⁻¹v_j: α leaves the inner sum (sum factor), then ReLU
      (homogeneity, α > 0) and cancels against α⁻¹ (arithmetic).  Inside the loss
      (1/N)Σ_n ℓ(f(x_n), y_n) the same steps apply for every n.
  Theorem 3.  (∂_a L)(Tθ) = t_a⁻¹·t_a(∂_a L)(Tθ) = t_a⁻¹ ∂_a[L(Tθ)] (chain rule for the scaled
      coordinate) = t_a⁻¹ ∂_a[L(θ)] (Theorem 1) = t_a⁻¹(∂_a L)(θ); the Hessian is the same twice.
  Multi-layer.  The output of layer k at Tθ is P_k = α_1⋯α_k times its output at θ, by induction
      on k (the step is a checked chain); ∏_k α_k = 1 gives f(Tθ) = f(θ), then Theorem 3's chain.
  Per neuron.  Theorem 1's chain with a scale c_j > 0 per hidden unit.
  Mean squared error.  The gradient and every Hessian block are derived down to closed forms
      (derivative of a sum, product rule, coordinate derivatives as Kronecker deltas, which then
      contract the sums); at T_αθ every closed form is its value at θ times the entry of S (or
      S·S), for every size.

Beside the derivations, every result is evaluated on instances by the project's identity checker
(the independent witness), and the negative controls fail at a named step and are refuted on an
instance.
"""
from __future__ import annotations


import functools

import sympy as sp

from symbolic import ReLU, Status, Verdict
# the chains of one hidden layer and their document lines, where the callers of this script find them
from symbolic.derivation import Derivation, add_chain, add_condensed_chain, induction_hypotheses  # noqa: F401
from symbolic.every_size.layers import base_chain, layers_theorem, step_chain  # noqa: F401
from symbolic.every_size.alpha_scale import coordinates as one_layer_coordinates, invariance_chain, \
    per_neuron_chain, theorem1_chain, theorem1_loss, theorem1_prediction, theorem3_chains  # noqa: F401
from symbolic.trusted.axioms.index_rules import ARITHMETIC, CHAIN_RULE, CONSTANT_FACTOR, CONSTANT_TERM, COORDINATE, \
    DERIVATIVE_OF_ADD, DERIVATIVE_OF_SUM, HOMOGENEITY, INDICATOR_DERIVATIVE, INDICATOR_HOMOGENEITY, PRODUCT_RULE, \
    RELU_DERIVATIVE, SUM_FACTOR, SUM_OF_TERMS, delta_contraction
from symbolic.kernel.derivations import Chain
from symbolic.every_size.tactics import contract, differentiate
from symbolic.logic.terms import Add, Const, Deriv, Entry, Indicator, Mul, Relu, Sum, expand, \
    replace_first
from symbolic.logic.notation import latex
from symbolic.every_size.networks import A, DEEP, DEEP_BIAS, DEEP_NEURON, DEEP_NEURON_BIAS, DEPTH, DeepNetwork, \
    LOSS_FUNCTION, N, P, P_LAST, PRODUCT_ONE, T_ALPHA, T_NEURON, PerNeuronDeepNetwork, one_layer_map, prediction, x
from symbolic.kernel import conjunction
from symbolic.checks import check_identity, zeros
from symbolic.every_size.laws import derivative_chain, invariance_lemma, loss_chain
from symbolic.kernel.derivations import instantiate, lemma, prove
from symbolic.latex import escape
from symbolic.networks.deep import DeepNet
from symbolic.networks.model import Dense, Model
from symbolic.networks.model import ReLU as ReLULayer
from symbolic.networks.maps import Symmetry, positive_scales
from symbolic.symmetries.symmetry import check_symmetry
from symbolic.networks.rescaling import ALPHA
from symbolic.report import Report

from proofs import biases
from proofs import theorem1_observational_equivalence as theorem1
from proofs import theorem3_derivative_transformation as theorem3

NAME = "all_sizes"
TITLE = ("Theorems 1 and 3 for all sizes: index-level derivations of the alpha-scale invariance, "
         "the gradient and Hessian laws, the multi-layer congruence with and without biases, and the "
         "per-neuron laws in one hidden layer and at every depth")
SOURCE = ("Dinh, Pascanu, Bengio and Bengio, Sharp Minima Can Generalize For Deep Nets, ICML 2017, "
          "Section 3 (Theorem 1, Definition 5), Section 4.2 (Theorem 3, many directions) and Appendix B")
FIXED_SIZES = [(1, 1, 1), (2, 2, 2)]     # the instance cross-check
DEFAULT_SIZES = LARGEST_SIZES = (2, 2, 2)

_j, _l, _k = (sp.Symbol(name, integer=True) for name in "jlk")
INDEX_RANGES = {"k": "d", "m": "d", "l": "h", "r": "h"}   # the free indices of the closed forms
CONTRACTION = delta_contraction(INDEX_RANGES)


def scaled_prediction():
    """f_{T_αθ}(x_n): T_α applied to the definition of f."""
    return T_ALPHA.apply(prediction())


# --- Theorem 1 and the per-neuron law: invariance of the prediction --------------------------------

@functools.cache
def per_neuron_loss():
    return prove(loss_chain(per_neuron_chain(), "per-neuron: L(T theta) = L(theta)"))


# --- the multi-layer network: induction on the layer ----------------------------------------------

def output_layer_chain(network) -> Chain:
    """f(Tθ)(x_n) = Σ_i \\tilde z^{(K-1)}_{ni}·t_i θ^{(K)}_i [+ t b^{(K)}] = f(θ)(x_n), with the
    induction's instance at K − 1; layer-wise the hypothesis α_K = P_{K-1}⁻¹ makes the scales
    cancel, per neuron T divides θ^{(K)}_i by c^{(K-1)}_i itself."""
    last = DEPTH - 1
    _, theorem = layers_theorem(network)
    instance = instantiate(theorem, last, assumption="K >= 1, the depth of a network")
    hypothesis = lemma(instance, "the layers at K-1 (induction)",
                       r"\tilde z^{(K-1)}_{nj} = %s\, z^{(K-1)}_{nj}" % latex(network.unit_scale(last, "j")),
                       for_all=("n", "j"))
    theta = Entry(r"\theta^{(K)}", ("i",))
    z_last = network.layer(last, False, "i")
    incoming = Mul((network.unit_scale(last, "i"), z_last))
    # the scales cancel as T defines them (per neuron), or by the hypothesis α_K = P_{K-1}⁻¹
    cancel_by_definition = network.unit_scale(last, "i").expr * network.T.scale(theta).expr == 1
    bias = Entry("b^{(K)}", ())
    start = network.T.apply(network.output())

    def with_bias(total, bias_term):
        return Add((total, bias_term)) if network.bias else total
    chain = Chain("f(T theta)(x) = f(theta)(x)" + ("" if cancel_by_definition
                                                   else " when the product of the alpha_k is 1"), start)
    scaled_bias = network.T.image(bias)
    chain.then(hypothesis, with_bias(Sum("i", "h_{K-1}", Mul((incoming, network.T.image(theta)))), scaled_bias))
    if not cancel_by_definition:
        chain.then(PRODUCT_ONE, with_bias(Sum("i", "h_{K-1}", Mul((incoming, Mul((Const(1 / P[last]), theta))))),
                                          scaled_bias))
    inner = Sum("i", "h_{K-1}", Mul((z_last, theta)))
    chain.then(ARITHMETIC, with_bias(inner, scaled_bias))
    if scaled_bias != bias:
        chain.then(P_LAST, Add((inner, Mul((Const(P[last] * A[DEPTH]), bias)))))
        chain.then(ARITHMETIC, Add((inner, Mul((Const(P[last]), Mul((Const(A[DEPTH]), bias)))))))
        chain.then(PRODUCT_ONE, Add((inner, Mul((Const(P[last]), Mul((Const(1 / P[last]), bias)))))))
        chain.then(ARITHMETIC, Add((inner, bias)))
    return chain


@functools.cache
def deep_loss(network):
    return prove(loss_chain(output_layer_chain(network), "multi-layer: L(T theta) = L(theta)"))


# --- Theorem 3: the chain rule through L∘T = L --------------------------------------------------

# --- the instances: the independent cross-check -------------------------------------------------------

def instance_check(chain: Chain, sizes, reference=None) -> list:
    """First and last line of a chain (or ``reference`` in place of the last), expanded at the
    concrete sizes (d, h, N) with n = 1, decided by check_identity."""
    verdicts = []
    for d, h, n in sizes:
        table = {"d": d, "h": h, "N": n}
        functions: dict = {}
        left = expand(chain.start, table, {"n": 1, "N": n}, functions).xreplace({N: n})
        right = expand(chain.end if reference is None else reference, table, {"n": 1, "N": n},
                       functions).xreplace({N: n})
        verdicts.append(check_identity(left, right, claim=f"{chain.claim}, instance d={d}, h={h}, N={n}"))
    return verdicts


def deep_instance(widths=(2, 2, 2, 1)) -> Verdict:
    """f(α_1θ_1, α_2θ_2, θ_3/(α_1α_2)) = f(θ) for a concrete deep network."""
    net = DeepNet(widths)
    alphas = list(sp.symbols(f"alpha1:{net.depth}", positive=True))
    scales = alphas + [1 / sp.Mul(*alphas)]
    weights, _ = net.rescaled(scales)
    x_ = net.input()
    return check_identity(net.prediction(x_, weights), net.prediction(x_),
                          claim=f"deep invariance, widths {widths}")


def per_neuron_hessian_instance(d: int, h: int, n: int) -> Verdict:
    """Every entry of the MSE Hessian at (c_j W_ij, v_j/c_j) against S H S, S = diag(1/c_j, c_j),
    on the pattern form (ReLU(s_nj) = σ_nj s_nj, σ_nj indeterminates): exact zero tests."""
    W = sp.Matrix(d, h, lambda i, j: sp.Symbol(f"W_{i}_{j}", real=True))
    v = [sp.Symbol(f"v_{j}", real=True) for j in range(h)]
    c = [sp.Symbol(f"c_{j}", positive=True) for j in range(h)]
    xs = [[sp.Symbol(f"x_{m}_{i}", real=True) for i in range(d)] for m in range(n)]
    ys = [sp.Symbol(f"y_{m}", real=True) for m in range(n)]
    sigma = [[sp.Symbol(f"sigma_{m}_{j}") for j in range(h)] for m in range(n)]
    loss = sum((sum(sigma[m][j] * sum(xs[m][i] * W[i, j] for i in range(d)) * v[j] for j in range(h))
                - ys[m]) ** 2 for m in range(n)) / n
    parameters = list(W) + v
    scale = {W[i, j]: c[j] for i in range(d) for j in range(h)} | {v[j]: 1 / c[j] for j in range(h)}
    transform = {p: scale[p] * p for p in parameters}
    differences = []
    for a in parameters:
        first = sp.diff(loss, a)
        differences += [sp.diff(first, b).xreplace(transform) - sp.diff(first, b) / (scale[a] * scale[b])
                        for b in parameters]
    return zeros(f"per-neuron Hessian law, instance d={d}, h={h}, N={n}", differences,
                       evidence=("every Hessian entry an exact zero on the pattern form",))


def per_neuron_deep_model(widths, bias: bool, divide_incoming: bool = True):
    """A concrete deep network and the images of its tensors under per-neuron rescaling: W_k[i, j] ↦
    c^{(k)}_j W_k[i, j] / c^{(k-1)}_i (c^{(0)} = 1, no c^{(K)}: the output is divided only),
    b_k[j] ↦ c^{(k)}_j b_k[j]; ``divide_incoming`` False leaves the hidden weights undivided."""
    depth = len(widths) - 1
    layers = []
    for k in range(1, depth + 1):
        layers.append(Dense(widths[k], f"W{k}", f"b{k}" if bias else None))
        if k < depth:
            layers.append(ReLULayer())
    model = Model(widths[0], layers)
    scales = [[1] * widths[0]] + [positive_scales(f"c{k}", widths[k]) for k in range(1, depth)] + [[1]]
    images = {}
    for k in range(1, depth + 1):
        weight = model[f"W{k}"]
        divided = divide_incoming or k == depth
        images[f"W{k}"] = sp.Matrix(*weight.shape, lambda i, j, k=k, w=weight, divided=divided:
                                    scales[k][j] / (scales[k - 1][i] if divided else 1) * w[i, j])
        if bias:
            row = model[f"b{k}"]
            images[f"b{k}"] = sp.Matrix(*row.shape, lambda _, j, k=k, row=row: scales[k][j] * row[0, j])
    return model, images


def per_neuron_deep_prediction(widths, bias: bool, seed: int = 0, divide_incoming: bool = True) -> Verdict:
    """f at the rescaled parameters against f, a concrete deep network: the exact identity test."""
    model, images = per_neuron_deep_model(widths, bias, divide_incoming)
    return check_identity(model.prediction(values=images), model.prediction(), seed=seed,
                          claim=f"per-neuron deep invariance, widths {tuple(widths)}" + (" with biases" if bias else ""))


def per_neuron_deep_laws(widths, bias: bool, seed: int = 0) -> list:
    """The gradient and Hessian laws of a concrete deep network under per-neuron rescaling, N = 1,
    by check_symmetry (exact pattern-form identities with an mpmath witness), named as trusted."""
    model, images = per_neuron_deep_model(widths, bias)
    report = check_symmetry(model, Symmetry(model, images), sizes=(1,), seed=seed)
    laws = []
    for claim in ("gradient", "Hessian"):
        seen = report.verdict(claim)
        laws.append(conjunction([seen], label=f"per-neuron {claim} law, widths {tuple(widths)}")
                    if seen.status is Status.PROVED else seen)
    return laws


def _combine(claim: str, proofs: list, instances: list) -> Verdict:
    """PROVED for all sizes: every proof (the kernel's verdict of a chain or an induction) and
    every instance cross-check PROVED; the kernel's conjunction."""
    derived = [proof.check() if isinstance(proof, Chain) else proof for proof in proofs]
    rules = list(dict.fromkeys(name for v in derived for name in v.details.get("rules", ())))
    steps = sum(len(proof.steps) for proof in proofs if isinstance(proof, Chain))
    # a procedure an instance was taken on the word of is named in the conclusion too
    trusted = dict.fromkeys(line for v in instances for line in v.evidence if line.startswith("taken on the word of"))
    return conjunction(derived + list(instances), label=claim, details={"rules": rules}, evidence=(
        f"index-level derivation, symbolic sizes: {len(proofs)} proofs ({steps} chain steps), each "
        "step an instance of a rule valid for every size", "rules used: " + ", ".join(rules),
        f"instance cross-check: {len(instances)} identities PROVED by check_identity or exact "
        "pattern-form tests" + (", or by the procedures named below" if trusted else ""), *trusted))


# --- the negative controls ------------------------------------------------------------------------

def negative_controls() -> list[tuple[str, Verdict, Verdict]]:
    """(name, the derivation's verdict, the instance verdict) for each false variant: the
    derivation is refused at a named step, and the instance machinery refutes the claim."""
    negative_alpha = sp.Symbol("alpha", negative=True)
    bias = Entry("b", ("j",))
    unscaled_bias = Chain("hidden bias left unscaled: f(T theta) = f(theta)", T_ALPHA.apply(prediction(bias)))
    W, v = Entry("W", ("i", "j")), Entry("v", ("j",))
    inner = Sum("i", "d", Mul((x(), W)))
    scaled_v = Mul((Const(1 / ALPHA), v))
    factored = Sum("i", "d", Mul((Const(ALPHA), Mul((x(), W)))))
    unscaled_bias.then(ARITHMETIC, Sum("j", "h", Mul((Relu(Add((factored, bias))), scaled_v))))
    unscaled_bias.then(SUM_FACTOR, Sum("j", "h", Mul((Relu(Add((Mul((Const(ALPHA), inner)), bias))), scaled_v))))
    # the claim needs a common factor α of the whole argument of ReLU: there is none
    unscaled_bias.then(ARITHMETIC, Sum("j", "h", Mul((Relu(Mul((Const(ALPHA), Add((inner, bias))))), scaled_v))))
    controls = [
        (invariance_chain("v scaled by alpha as well: f(T theta) = f(theta)",
                          one_layer_map("T", Const(ALPHA), Const(ALPHA))), prediction()),
        (invariance_chain("alpha < 0: f(T theta) = f(theta)",
                          one_layer_map("T", Const(negative_alpha), Const(1 / negative_alpha))), prediction()),
        (unscaled_bias, prediction(bias)),
    ]
    results = [(chain.claim, chain.check(), instance_check(chain, [(2, 2, 1)], reference)[0])
               for chain, reference in controls]
    W2 = Entry("W", ("k", "l"))
    _, theorem = theorem1_loss()
    wrong = derivative_chain([W, W2], LOSS_FUNCTION, T_ALPHA, invariance_lemma(theorem, LOSS_FUNCTION, T_ALPHA),
                             claimed=ALPHA ** 2)
    wrong.claim = "Hessian law with S^-1: H(T theta) = S^-1 H(theta) S^-1"
    results.append((wrong.claim, wrong.check(),
                    theorem3.check(1, 1, 1, "mse", 2, variant=theorem3.VARIANTS["S inverse"])))
    off_by_one = biases.prediction_invariance((2, 2, 1), control="unscaled hidden bias")
    wrong_network = DeepNetwork("w", bias=True, bias_layer_offset=-1)
    results.append(("deep network whose map scales b_k by P_(k-1), one layer off",
                    layers_theorem(wrong_network)[0], off_by_one))
    undivided = per_neuron_deep_prediction((2, 2, 2, 1), bias=False, divide_incoming=False)
    results.append(("deep per-neuron map whose weights are not divided by the incoming unit's scale",
                    layers_theorem(PerNeuronDeepNetwork("o", bias=False, divide_incoming=False))[0], undivided))
    return results


# --- the document and the rows ----------------------------------------------------------------------

RULES = (SUM_FACTOR, HOMOGENEITY, INDICATOR_HOMOGENEITY, CHAIN_RULE, CONSTANT_FACTOR, ARITHMETIC,
         DERIVATIVE_OF_SUM, DERIVATIVE_OF_ADD, PRODUCT_RULE, CONSTANT_TERM, COORDINATE, RELU_DERIVATIVE,
         INDICATOR_DERIVATIVE, SUM_OF_TERMS, CONTRACTION)


def derivation_skeleton() -> Derivation:
    rules = "\n".join(r"\item " + rule.as_text for rule in RULES)
    return Derivation(
        name=NAME, title=TITLE, source=SOURCE,
        statement=(r"For all sizes $d, h, N \ge 1$, every $\alpha > 0$ and every loss $\ell$: "
                   r"$f_{T_\alpha\theta} = f_\theta$ and $L(T_\alpha\theta) = L(\theta)$ (Theorem 1); "
                   r"if $L$ is twice differentiable at $\theta$, then for all coordinates "
                   r"$(\partial_a L)(T_\alpha\theta) = t_a^{-1}(\partial_a L)(\theta)$ and "
                   r"$(\partial_b\partial_a L)(T_\alpha\theta) = t_a^{-1}t_b^{-1}(\partial_b\partial_a L)(\theta)$, "
                   r"that is $\nabla L(T_\alpha\theta) = S\,\nabla L(\theta)$ and $H_L(T_\alpha\theta) = "
                   r"S\,H_L(\theta)\,S$ (Theorem 3). The same holds for every depth $K$ and widths $h_k$ "
                   r"under $\theta^{(k)} \mapsto \alpha_k\theta^{(k)}$ with $\prod_k \alpha_k = 1$, also with a "
                   r"bias per layer under $b^{(k)} \mapsto P_k b^{(k)}$ (Appendix B), and for "
                   r"one hidden layer under $W_{ij} \mapsto c_j W_{ij}$, $v_j \mapsto c_j^{-1} v_j$, $c_j > 0$; at every "
                   r"depth per neuron under $\theta^{(k)}_{ij} \mapsto c_{k,j}\,\theta^{(k)}_{ij} / c_{k-1,i}$, "
                   r"$b^{(k)}_j \mapsto c_{k,j}\, b^{(k)}_j$, $c_{k,j} > 0$, $c_{0,i} = 1$, the output weights "
                   r"$\theta^{(K)}_i \mapsto \theta^{(K)}_i / c_{K-1,i}$."),
        definitions=[
            r"Sizes $d, h, N \ge 1$ are symbols; indices run over $i, k \in \{1..d\}$, "
            r"$j, l \in \{1..h\}$, $n \in \{1..N\}$. Data $x_{ni}$, targets $y_n$; parameters "
            r"$\theta = (W, v)$, $W_{ij}$ and $v_j$ real.",
            r"$f_\theta(x_n) = \sum_{j=1}^{h} \operatorname{ReLU}\bigl(\sum_{i=1}^{d} x_{ni} W_{ij}\bigr)\, v_j$, "
            r"$\operatorname{ReLU}(s) = \max(s, 0)$; $L(\theta) = \frac1N\sum_{n=1}^{N} \ell(f_\theta(x_n), y_n)$ "
            r"for a function $\ell$ of two reals (twice differentiable in its first argument for Theorem 3).",
            r"$T$ is the transformation of the result: it multiplies each coordinate $\theta_a$ by a "
            r"factor $t_a$ free of $\theta$. Theorems 1 and 3: $T_\alpha(W, v) = (\alpha W, \alpha^{-1} v)$, "
            r"$\alpha > 0$, so $t_a = \alpha$ on $W$ and $\alpha^{-1}$ on $v$; per neuron: $t = c_j$ on "
            r"$W_{ij}$ and $c_j^{-1}$ on $v_j$; multi-layer: $t = \alpha_k$ on $\theta^{(k)}$ and $P_k$ on "
            r"$b^{(k)}$. $S = \operatorname{diag}(t_a^{-1})$. Each $T$ is defined once, as a term: the "
            r"chain rule reads $t_a$ from it, and $L(T\theta) = L(\theta)$ is used only as the theorem "
            r"proved for that same $T$.",
            r"$L(T\theta)$ is $L$ at the transformed parameters; $\partial_{\theta_a}[G]$ "
            r"is the partial derivative of the function $\theta \mapsto G(\theta)$; "
            r"$(\partial_b\partial_a L)(T\theta)$ is the partial derivative of $L$ evaluated at $T\theta$.",
            r"Mean squared error: $\ell(p, y) = (p - y)^2$, $r_n = f_\theta(x_n) - y_n$, "
            r"$s_{nl} = \sum_{i=1}^{d} x_{ni} W_{il}$, $\sigma_{nl} = \mathbf{1}[s_{nl} > 0]$ (the "
            r"derivative of ReLU off its kink), $\delta_{lr}$ the Kronecker delta; indices "
            r"$k, m \in \{1..d\}$, $l, r \in \{1..h\}$. The closed forms hold off the kink set "
            r"($s_{nl} \neq 0$ for all $n, l$).",
            r"Multi-layer network of depth $K$ and widths $h_0 = d$, $h_1, \dots, h_{K-1}$: "
            r"$z^{(0)}_{ni} = x_{ni}$ and, for $k + 1 < K$, "
            r"$z^{(k+1)}_{nj} = \operatorname{ReLU}\bigl(\sum_{i=1}^{h_k} z^{(k)}_{ni}\theta^{(k+1)}_{ij}\bigr)$; "
            r"the output is $f_\theta(x_n) = \sum_{i=1}^{h_{K-1}} z^{(K-1)}_{ni}\theta^{(K)}_i$; "
            r"with biases, $u^{(k+1)}_{nj} = \operatorname{ReLU}\bigl(\sum_i u^{(k)}_{ni}\theta^{(k+1)}_{ij} + "
            r"b^{(k+1)}_j\bigr)$ and $f_\theta(x_n) = \sum_i u^{(K-1)}_{ni}\theta^{(K)}_i + b^{(K)}$; "
            r"$\tilde z^{(k)}$ is $z^{(k)}$ at "
            r"$T\theta$; $P_k = \alpha_1\cdots\alpha_k$ ($P_0 = 1$), so $\prod_k\alpha_k = 1$ means "
            r"$\alpha_K = P_{K-1}^{-1}$; here $k$ counts layers, and $p, q \in \{1..K\}$ are layer indices. "
            r"Per neuron, $c_{k,j} > 0$ is the scale of unit $j$ of layer $k$ (written $c^{(k)}_j$ in the "
            r"rows), $c_{0,i} = 1$ on the inputs; the layers are $a^{(k)}$ (without biases) and $e^{(k)}$ "
            r"(with biases), and the induction proves $\tilde a^{(k)}_{nj} = c_{k,j}\, a^{(k)}_{nj}$.",
            r"Rules, each checked for every size (by induction on the bound of a sum, by a sign split, "
            r"or on a generic polynomial jet) and on instances:\begin{itemize}" + rules
            + r"\end{itemize}",
        ])


def run(sizes=None, seed=0, timeout=None) -> Report:
    sizes = list(sizes or FIXED_SIZES)
    derivation = derivation_skeleton()
    report = Report(derivation)

    def record(claim, check):
        return report.record(NAME, claim, (None, None, None), check, for_all_sizes=True)

    for rule in RULES:
        record(f"rule: {rule.name}, valid for every size", rule.validity)
    gradients, hessians = one_layer_coordinates()

    # Theorem 1: the prediction, then the loss
    prediction_chain = theorem1_chain()
    loss = loss_chain(theorem1_chain(), "L(T_alpha theta) = L(theta)")
    record("Theorem 1 (a): f_(T_alpha theta)(x) = f_theta(x), for all d, h >= 1", lambda: _combine(
        "Theorem 1 (a), all sizes", [prediction_chain], instance_check(prediction_chain, sizes)))
    theorem1_b = record("Theorem 1 (b): L(T_alpha theta) = L(theta) for every loss ell, for all d, h, N >= 1",
                        lambda: _combine("Theorem 1 (b), all sizes", [theorem1_loss()[0]], instance_check(loss, sizes)))
    theorem1.add_theorem1_proof(derivation, prediction_chain, loss, [theorem1_b])

    # Theorem 3: the chain rule through L∘T_α = L, the theorem just proved for this T_α and this L
    gradient_chains, hessian_chains = theorem3_chains()
    theorem3_gradient = record(
        "Theorem 3: gradient law grad L(T_alpha theta) = S grad L(theta), for all d, h, N >= 1",
        lambda: _combine("Theorem 3 gradient, all sizes", gradient_chains,
                         [theorem3.check(d, h, n, "quadratic", 1, seed=seed, timeout=timeout) for d, h, n in sizes]))
    theorem3_hessian = record(
        "Theorem 3: Hessian law H(T_alpha theta) = S H(theta) S, for all d, h, N >= 1",
        lambda: _combine("Theorem 3 Hessian, all sizes", hessian_chains,
                         [theorem3.check(d, h, n, "quadratic", 2, seed=seed, timeout=timeout) for d, h, n in sizes]))
    theorem3.add_theorem3_proof(derivation, gradient_chains, hessian_chains, [theorem3_gradient], [theorem3_hessian])

    # Theorem 3 for mean squared error, with the closed forms at index level
    mse_checks = [functools.cache(lambda d=d, h=h, n=n: mse_instance_check(d, h, n)) for d, h, n in sizes]
    mse_rows = [report.record(NAME, "MSE closed forms of the gradient and the Hessian blocks", size, check)
                for size, check in zip(sizes, mse_checks)]
    mse_chains = [mse_law_chain(name, form, factor) for name, form, _, factor in MSE_FORMS]
    mse_law = record(
        "Theorem 3, MSE closed forms: at T_alpha theta they are S (gradient), S.S (Hessian) times "
        "those at theta, for all d, h, N >= 1",
        lambda: _combine("MSE closed-form laws, all sizes", mse_chains, [c() for c in mse_checks]))
    derivations = {name: mse_derivation(name) for name in MSE_DERIVATIONS}
    mse_derived = record(
        "MSE closed forms of the gradient and every Hessian block derived by index-level "
        "differentiation, for all d, h, N >= 1",
        lambda: _combine("MSE closed forms, all sizes", list(derivations.values()),
                         [c() for c in mse_checks]))
    add_mse_lines(derivation, mse_chains, mse_rows, mse_law, sizes, derivations, mse_derived)

    # per neuron
    neuron_chain = per_neuron_chain()
    neuron_loss = loss_chain(per_neuron_chain(), "per-neuron: L(T theta) = L(theta)")
    neuron_invariance = record(
        "per-neuron: f and L invariant under W_ij -> c_j W_ij, v_j -> v_j / c_j, for all d, h, N >= 1",
        lambda: _combine("per-neuron invariance, all sizes", [neuron_chain, per_neuron_loss()[0]],
                         instance_check(neuron_chain, sizes) + instance_check(neuron_loss, sizes)))
    neuron_lemma = invariance_lemma(per_neuron_loss()[1], LOSS_FUNCTION, T_NEURON)
    neuron_chains = ([derivative_chain([a], LOSS_FUNCTION, T_NEURON, neuron_lemma) for a in gradients]
                     + [derivative_chain(list(pair), LOSS_FUNCTION, T_NEURON, neuron_lemma) for pair in hessians])
    neuron_law = record(
        "per-neuron: gradient and Hessian laws with S = diag(1/c_j on W, c_j on v), for all d, h, N >= 1",
        lambda: _combine("per-neuron derivative laws, all sizes", neuron_chains,
                         [per_neuron_hessian_instance(d, h, n) for d, h, n in sizes]))
    add_chain(derivation, neuron_chain,
              "per-neuron scales: definition of $f$ and of $T_c$ ($t = c_j$ on $W_{ij}$, $c_j^{-1}$ on $v_j$)")
    for chain in neuron_chains[2:4]:
        derivation.add([chain.check(), neuron_invariance, neuron_law],
                       "the loss as in Theorem 1, then the chains of Theorem 3 with $t = c_j$ on "
                       "$W_{ij}$ and $t = c_j^{-1}$ on $v_j$ (every block checked; two shown)")

    # deep networks, without and with biases: induction on the layer, then Theorem 3's chain
    for network, label in ((DEEP, "multi-layer"), (DEEP_BIAS, "multi-layer with biases"),
                           (DEEP_NEURON, "per-neuron multi-layer"), (DEEP_NEURON_BIAS, "per-neuron multi-layer with biases")):
        add_deep_rows(derivation, record, network, label, seed)
    derivation.sizes = sizes
    derivation.every_size = True
    derivation.notes.append(
        r"Every line marked \emph{checked} is an instance of the rule named below it; the rule itself "
        r"was checked for every size. The sizes listed are those of the instance cross-check, in which "
        r"the first and the last line of each chain were expanded at concrete sizes and compared by "
        r"the identity checker (for Theorem 3: the exact pattern-form test of every entry, with a "
        r"numeric witness on the real loss).")
    derivation.notes.append(
        r"A rewrite inside $\sum_n$, inside $\ell$ or under $\partial_{\theta_a}$ is sound because "
        r"every rule is an identity for all values of its variables, $\theta$ included (the ReLU "
        r"derivative off the kink set, where the closed forms are stated), and its side "
        r"conditions ($c > 0$, $c$ free of $i$ or of $\theta$) never involve $\theta$. Theorem 3 needs "
        r"$L$ twice differentiable at $T\theta$; since $L = L\circ T^{-1}$ with $T^{-1}$ linear, that "
        r"holds exactly when $L$ is twice differentiable at $\theta$.")
    derivation.notes.append(_controls_note())
    # Coq's answer on a row comes from its own statement, printed to Coq by ``--certify coq``
    return report


def layer_wise_rows(network, seed: int) -> dict:
    """What the rows of a layer-wise deep network say, and their instance cross-checks (run by the rows)."""
    if network.bias:
        def instances():
            return [biases.prediction_invariance((2, 2, 1), seed=seed), biases.prediction_invariance((1, 2, 2, 1), seed=seed)]

        def derivative_instances():
            return [biases.deep_congruence((1, 2, 1), n=1, seed=seed)]
    else:
        def instances():
            return [deep_instance()]

        def derivative_instances():
            return [theorem3.deep_congruence((1, 2, 1), n=1, seed=seed)]
    return {
        "map": "theta_k -> alpha_k theta_k, " + ("b_k -> P_k b_k, " if network.bias else "") + "prod alpha_k = 1",
        "diagonal": "1/alpha_k" + (", 1/P_k on b_k" if network.bias else ""),
        "instances": instances, "derivative_instances": derivative_instances, "output_weights": [],
        "output": r"with $\alpha_K = P_{K-1}^{-1}$ ($\prod_k \alpha_k = 1$)",
        "scales": r"$\alpha_p$ on $\theta^{(p)}$" + (", $P_p$ on $b^{(p)}$" if network.bias else ""),
    }


def per_neuron_rows(network, seed: int) -> dict:
    """What the rows of a per-neuron deep network say, and their instance cross-checks: the
    prediction by the exact identity test, the gradient and Hessian laws by check_symmetry, on
    concrete networks of depth 3 and 4 (run by the rows)."""
    widths = ((1, 2, 2, 1), (2, 2, 2, 1)) if network.bias else ((2, 2, 2, 1), (1, 2, 1, 2, 1))
    return {
        "map": "theta^(k)_ij -> c^(k)_j theta^(k)_ij / c^(k-1)_i, " + ("b^(k)_j -> c^(k)_j b^(k)_j, " if network.bias else "")
               + "c^(0) = 1, theta^(K)_i -> theta^(K)_i / c^(K-1)_i",
        "diagonal": "c^(k-1)_i / c^(k)_j on theta^(k)_ij, c^(K-1)_i on theta^(K)_i" + (", 1/c^(k)_j on b^(k)_j" if network.bias else ""),
        "instances": lambda: [per_neuron_deep_prediction(w, network.bias, seed) for w in widths],
        "derivative_instances": lambda: per_neuron_deep_laws((1, 2, 2, 1), network.bias, seed),
        "output_weights": [Entry(r"\theta^{(K)}", ("i",)), Entry(r"\theta^{(K)}", ("k",))],
        "output": r"which $T$ divides by the last hidden layer's scales $c^{(K-1)}_i$",
        "scales": r"$c^{(p)}_j / c^{(p-1)}_i$ on $\theta^{(p)}_{ij}$, $1/c^{(K-1)}_i$ on $\theta^{(K)}_i$"
                  + (", $c^{(p)}_j$ on $b^{(p)}_j$" if network.bias else ""),
    }


def add_deep_rows(derivation: Derivation, record, network, label: str, seed: int) -> None:
    """The rows and lines of a deep network: the layers by induction, the output, the loss, and
    the gradient and Hessian laws of every weight and bias coordinate."""
    layers_verdict, _ = layers_theorem(network)
    output = output_layer_chain(network)
    loss_verdict, loss_theorem = deep_loss(network)
    rows = (per_neuron_rows if isinstance(network, PerNeuronDeepNetwork) else layer_wise_rows)(network, seed)
    invariance = record(
        f"{label}: f and L invariant under {rows['map']}, for every depth K, all widths and N",
        lambda: _combine(f"{label} invariance, all sizes", [layers_verdict, output, loss_verdict], rows["instances"]()))
    lemma_rule = invariance_lemma(loss_theorem, network.function, network.T)
    coordinates = [Entry(r"\theta^{(p)}", ("i", "j")), Entry(r"\theta^{(q)}", ("k", "l"))]
    if network.bias:
        coordinates += [Entry("b^{(p)}", ("j",)), Entry("b^{(q)}", ("l",))]
    coordinates += rows["output_weights"]
    pairs = [(a, b) for a in coordinates[::2] for b in coordinates[1::2]]
    chains = ([derivative_chain([a], network.function, network.T, lemma_rule) for a in coordinates[::2]]
              + [derivative_chain(list(pair), network.function, network.T, lemma_rule) for pair in pairs])
    law = record(
        f"{label} congruence: grad L(T theta) = D grad L(theta), H(T theta) = D H(theta) D, "
        f"D = diag({rows['diagonal']}), for every depth, widths, N",
        lambda: _combine(f"{label} congruence, all sizes", chains, rows["derivative_instances"]()))
    derivation.add([layers_verdict], "the kernel's induction rule: the base and the step below are checked "
                   "chains, the step using the hypothesis for $k$")
    step, hypotheses = induction_hypotheses(layers_verdict)
    if step is not None:
        add_chain(derivation, step, "the induction step, for $k + 1 < K$, each line under the hypothesis $S(k)$ where "
                  "it uses it", hypotheses)
    add_chain(derivation, output, r"the output layer at $T\theta$, " + rows["output"])
    for chain in chains[-2:]:
        derivation.add([chain.check(), invariance, law], "the loss as in Theorem 1, then the chain of Theorem 3 with "
                       "$t_a$ read "
                       f"from $T$ ({rows['scales']})")


def _controls_note() -> str:
    lines = []
    for name, derived, instance in negative_controls():
        lines.append(r"\item %s: %s; on an instance: \textbf{%s}." % (
            escape(name), escape(derived.reason or derived.status.name), instance.status.name))
    return (r"Negative controls (each derivation is refused at the named step, and the identity "
            r"checker refutes the claim on an instance with a concrete witness):"
            r"\begin{itemize}" + "\n".join(lines) + r"\end{itemize}")


# --- mean squared error: the closed forms at index level ---------------------------------------------
#
# ℓ(p, y) = (p − y)², r_n = f(x_n) − y_n, s_nl = Σ_i x_ni W_il, σ_nl = 1[s_nl > 0] (off the kinks):
#   ∂L/∂W_kl = (2/N) Σ_n r_n v_l σ_nl x_nk                  ∂L/∂v_l = (2/N) Σ_n r_n ReLU(s_nl)
#   ∂²L/∂W_kl∂W_mr = (2/N) Σ_n v_l σ_nl x_nk v_r σ_nr x_nm  ∂²L/∂v_l∂v_r = (2/N) Σ_n ReLU(s_nl) ReLU(s_nr)
#   ∂²L/∂W_kl∂v_r = (2/N) Σ_n (ReLU(s_nr) v_l σ_nl x_nk + δ_lr r_n σ_nl x_nk)
# They are checked against sympy's derivatives of the expanded loss at instances; their law under
# T_α is then derived for every size.

_m, _r = sp.Symbol("m", integer=True), sp.Symbol("r", integer=True)


class MSEForms:
    """The closed forms at θ (scaled=False) or at T_αθ (scaled=True)."""

    def __init__(self, scaled: bool):
        self.scaled = scaled

    def W(self, i, j):
        entry = Entry("W", (i, j))
        return Mul((Const(ALPHA), entry)) if self.scaled else entry

    def v(self, j):
        entry = Entry("v", (j,))
        return Mul((Const(1 / ALPHA), entry)) if self.scaled else entry

    def s(self, column):
        return Sum("i", "d", Mul((x(), self.W("i", column))))

    def residual(self):
        f = scaled_prediction() if self.scaled else prediction()
        return Add((f, Mul((Const(sp.S.NegativeOne), Entry("y", ("n",))))))

    def _mean(self, body):
        return Mul((Const(2 / N), Sum("n", "N", body)))

    def gradient_W(self):
        return self._mean(Mul((self.residual(), self.v("l"), Indicator(self.s("l")), x("k"))))

    def gradient_v(self):
        return self._mean(Mul((self.residual(), Relu(self.s("l")))))

    def hessian_WW(self):
        return self._mean(Mul((self.v("l"), Indicator(self.s("l")), x("k"),
                               self.v("r"), Indicator(self.s("r")), x("m"))))

    def hessian_Wv(self):
        return self._mean(Add((Mul((Relu(self.s("r")), self.v("l"), Indicator(self.s("l")), x("k"))),
                               Mul((Const(sp.KroneckerDelta(_l, _r)), self.residual(), Indicator(self.s("l")), x("k"))))))

    def hessian_vv(self):
        return self._mean(Mul((Relu(self.s("l")), Relu(self.s("r")))))


# (name, the form, the coordinates it differentiates by, the factor of the law)
MSE_FORMS = (
    ("dL/dW_kl", MSEForms.gradient_W, (("W", "k", "l"),), 1 / ALPHA),
    ("dL/dv_l", MSEForms.gradient_v, (("v", "l"),), ALPHA),
    ("d2L/dW_kl dW_mr", MSEForms.hessian_WW, (("W", "k", "l"), ("W", "m", "r")), ALPHA ** -2),
    ("d2L/dW_kl dv_r", MSEForms.hessian_Wv, (("W", "k", "l"), ("v", "r")), sp.S.One),
    ("d2L/dv_l dv_r", MSEForms.hessian_vv, (("v", "l"), ("v", "r")), ALPHA ** 2),
)


def mse_instance_check(d: int, h: int, n: int) -> Verdict:
    """Each closed form at every index value against sympy's derivative of the expanded MSE loss,
    on the pattern form (ReLU(s) = σ_s s, 1[s > 0] = σ_s, σ_s one indeterminate per s)."""
    sizes = {"d": d, "h": h, "N": n}
    pattern: dict = {}

    def on_pattern(expr):
        sigma = lambda e: pattern.setdefault(sp.expand(e), sp.Symbol(f"sigma{len(pattern)}", real=True))  # noqa: E731
        expr = expr.replace(lambda e: isinstance(e, sp.Heaviside), lambda e: sigma(e.args[0]))
        return expr.replace(lambda e: isinstance(e, ReLU), lambda e: sigma(e.args[0]) * e.args[0])
    loss = sum((expand(prediction(), sizes, {"n": m}) - sp.Symbol(f"y_{m}", real=True)) ** 2
               for m in range(1, n + 1)) / n
    loss = on_pattern(loss)
    ranges = {"k": d, "m": d, "l": h, "r": h}
    claim = f"MSE closed forms, instance d={d}, h={h}, N={n}"
    entries = []
    for name, form, coordinates, _ in MSE_FORMS:
        names = sorted({index for _, *indices in coordinates for index in indices})
        for values in _index_values(names, ranges):
            symbols = [sp.Symbol(f"{family}_{'_'.join(str(values[i]) for i in indices)}", real=True)
                       for family, *indices in coordinates]
            closed = expand(form(MSEForms(False)), sizes, dict(values)).xreplace({N: n})
            closed = on_pattern(closed.xreplace({sp.Symbol(k, integer=True): v for k, v in values.items()}))
            # the derivative of the expanded loss as written (unevaluated) against the closed form
            entries.append(check_identity(sp.Derivative(loss, *symbols), closed, claim=f"{name} at {values}"))
    return conjunction(entries, label=claim, evidence=("every closed form equals the derivative of the expanded "
                                                       "loss at every index value, by the exact identity test",))


def _index_values(names, ranges):
    """Every assignment of 1..range to the index names."""
    assignments = [{}]
    for name in names:
        assignments = [{**a, name: k} for a in assignments for k in range(1, ranges[name] + 1)]
    return assignments


def mse_law_chain(name, form, factor) -> Chain:
    """closed form at T_αθ = factor · closed form at θ, for every size: Theorem 1 for each
    prediction, α out of each pre-activation, homogeneity of ReLU and of its indicator, then
    arithmetic on the summand and the factor out of Σ_n."""
    prediction_lemma = lemma(theorem1_prediction()[1], "Theorem 1 (a)", r"f_{T_\alpha\theta}(x_n) = f_\theta(x_n)",
                             for_all=("n",))
    chain = Chain(f"MSE: {name} at T_alpha theta = {factor} times at theta", form(MSEForms(True)))

    def scaled_preactivation(term):
        return (isinstance(term, Sum) and term.index == "i" and isinstance(term.body, Mul)
                and len(term.body.factors) == 2 and isinstance(term.body.factors[1], Mul)
                and isinstance(term.body.factors[1].factors[0], Const))

    def factored(term):
        return isinstance(term.arg, Mul) and isinstance(term.arg.factors[0], Const)
    while (term := replace_first(chain.end, lambda t: t == scaled_prediction(), lambda t: prediction())) is not None:
        chain.then(prediction_lemma, term)
    while (term := replace_first(chain.end, scaled_preactivation, lambda t: Sum("i", "d", Mul((
            t.body.factors[1].factors[0], Mul((t.body.factors[0], t.body.factors[1].factors[1]))))))) is not None:
        chain.then(ARITHMETIC, term)
        chain.then(SUM_FACTOR, replace_first(term, lambda t: isinstance(t, Sum) and t.index == "i"
                                             and isinstance(t.body, Mul) and isinstance(t.body.factors[0], Const),
                                             lambda t: Mul((t.body.factors[0], Sum("i", "d", t.body.factors[1])))))
    for wrapper, rule, pulled in ((Relu, HOMOGENEITY, lambda t: Mul((t.arg.factors[0], Relu(t.arg.factors[1])))),
                                  (Indicator, INDICATOR_HOMOGENEITY, lambda t: Indicator(t.arg.factors[1]))):
        while (term := replace_first(chain.end, lambda t, w=wrapper: isinstance(t, w) and factored(t),
                                     pulled)) is not None:
            chain.then(rule, term)
    at_theta = form(MSEForms(False))
    mean, total = at_theta.factors
    chain.then(ARITHMETIC, Mul((mean, Sum("n", "N", Mul((Const(factor), total.body))))))
    chain.then(SUM_FACTOR, Mul((mean, Mul((Const(factor), total)))))
    chain.then(ARITHMETIC, Mul((Const(factor), at_theta)))
    return chain


MSE_HEADS = {
    "dL/dW_kl": r"\tfrac{\partial L}{\partial W_{kl}}", "dL/dv_l": r"\tfrac{\partial L}{\partial v_l}",
    "d2L/dW_kl dW_mr": r"\tfrac{\partial^2 L}{\partial W_{kl}\,\partial W_{mr}}",
    "d2L/dW_kl dv_r": r"\tfrac{\partial^2 L}{\partial W_{kl}\,\partial v_r}",
    "d2L/dv_l dv_r": r"\tfrac{\partial^2 L}{\partial v_l\,\partial v_r}",
}


def short_names() -> dict:
    """The document's names for pre-activations, indicators and residuals (defined in it)."""
    at_theta, at_T = MSEForms(False), MSEForms(True)
    names = {prediction(): r"f_\theta(x_n)", scaled_prediction(): r"f_{T_\alpha\theta}(x_n)",
             at_theta.residual(): "r_n"}
    for column in "jlr":
        names[at_theta.s(column)] = "s_{n%s}" % column
        names[Indicator(at_theta.s(column))] = r"\sigma_{n%s}" % column
        names[at_T.s(column)] = r"\textstyle\sum_i x_{ni}\,\alpha W_{i%s}" % column
    return names


def add_mse_lines(derivation: Derivation, chains, instance_rows, law, sizes, derivations, derived) -> None:
    """The closed forms (two derivations in full, the others by their result), then their laws."""
    for name, shown in (("dL/dW_kl", True), ("dL/dv_l", False), ("d2L/dW_kl dv_r", True),
                        ("d2L/dW_kl dW_mr", False), ("d2L/dv_l dv_r", False)):
        chain = derivations[name]
        if shown:
            add_condensed_chain(derivation, chain, r"mean squared error, $L = \frac1N\sum_n r_n r_n$, off the kink set",
                                tidying=ARITHMETIC)
        else:
            derivation.add([chain.check(), *instance_rows],
                           "derived the same way, every step checked; compared with sympy's derivative "
                           "of the expanded loss at every index value at the sizes listed",
                           [None, *sizes])
    add_chain(derivation, chains[0], r"the closed form at $T_\alpha\theta$: $W \mapsto \alpha W$, $v \mapsto \alpha^{-1} v$")
    for chain in chains[1:]:
        derivation.add([chain.check()], "the same steps; with the lines above, $\\nabla L(T_\\alpha\\theta) = "
                       "S\\,\\nabla L(\\theta)$ and $H_L(T_\\alpha\\theta) = S\\,H_L(\\theta)\\,S$ in closed form")


# --- the closed forms, derived at index level -----------------------------------------------------

def mse_loss():
    """L = (1/N) Σ_n r_n·r_n, r_n = f(x_n) − y_n."""
    residual = MSEForms(False).residual()
    return Mul((Const(1 / N), Sum("n", "N", Mul((residual, residual)))))


def _finish(chain: Chain, closed) -> None:
    """From c·Σ_n B to the closed form c'·Σ_n B': B = (c'/c)·B' (arithmetic), the factor out of
    the sum, and the constants together."""
    scale, total = chain.end.factors
    target_scale, target = closed.factors
    ratio = Const(target_scale.expr / scale.expr)
    if ratio.expr == 1:
        if chain.end != closed:
            chain.then(ARITHMETIC, closed)      # the summand rearranged
        return
    chain.then(ARITHMETIC, Mul((scale, Sum("n", "N", Mul((ratio, target.body))))))
    chain.then(SUM_FACTOR, Mul((scale, Mul((ratio, target)))))
    chain.then(ARITHMETIC, closed)


def _entry(family, *indices):
    return Entry(family, tuple(indices))


# (closed form, first coordinate, second coordinate or None)
MSE_DERIVATIONS = {
    "dL/dW_kl": (MSEForms.gradient_W, _entry("W", "k", "l"), None),
    "dL/dv_l": (MSEForms.gradient_v, _entry("v", "l"), None),
    "d2L/dW_kl dW_mr": (MSEForms.hessian_WW, _entry("W", "k", "l"), _entry("W", "m", "r")),
    "d2L/dW_kl dv_r": (MSEForms.hessian_Wv, _entry("W", "k", "l"), _entry("v", "r")),
    "d2L/dv_l dv_r": (MSEForms.hessian_vv, _entry("v", "l"), _entry("v", "r")),
}
GRADIENT_OF = {"W": "dL/dW_kl", "v": "dL/dv_l"}


def mse_derivation(name: str) -> Chain:
    """The closed form ``name`` derived from L = (1/N) Σ_n r_n r_n: every ∂ pushed inward by the
    derivative rules, the Kronecker deltas contracted, then the constants collected.  A Hessian
    block starts from the gradient's closed form, itself a checked derivation."""
    form, first, second = MSE_DERIVATIONS[name]
    if second is None:
        chain = Chain(f"MSE closed form {name}", Deriv(first, mse_loss()))
        differentiate(chain, first)
    else:
        gradient = GRADIENT_OF[first.family]
        gradient_chain = mse_derivation(gradient)
        closed_gradient = gradient_chain.end
        chain = Chain(f"MSE closed form {name}", Deriv(second, Deriv(first, mse_loss())))
        _, gradient_theorem = prove(gradient_chain)
        chain.then(lemma(gradient_theorem, f"{gradient} (derived)",
                         MSE_HEADS[gradient] + " = " + latex(closed_gradient, names=short_names())),
                   Deriv(second, closed_gradient))
        differentiate(chain, second)
    contract(chain, CONTRACTION)
    _finish(chain, form(MSEForms(False)))
    return chain
