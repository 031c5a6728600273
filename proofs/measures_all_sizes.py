"""Sharpness measures that rescaling or a sign flip cannot move, for every size: the audit's cells
whose argument does not depend on the size, proved through the kernel of the every-size proofs.

The groups are those whose map T the kernel defines as a term, with L(Tθ) = L(θ) a kernel theorem
for every size (``proofs.all_sizes``): Dinh's T_α and the per-neuron rescaling of one hidden layer
(every d, h, N), the layer-wise rescaling of a deep network with a bias per layer (every depth K,
all widths, every N), a sign σ_j = ±1 per hidden unit of two layers with biases and |·| units
(every d, h, N; its L(T_σθ) = L(θ) proved here: σ_j leaves Σ_i, then |σ_j s| = |s|), a
permutation π of the hidden units of two layers with biases and ReLU units (every d, h, N; its
L(T_πθ) = L(θ) proved here by reindexing the sum over the units), the scales of a normalized
layer (every d, h, N; below), and the map W_Q ↦ W_Q A, W_K ↦ W_K B of an attention head (below).

  Change of variables.  A sharpness with coordinate-wise scales s (adaptive sharpness on the ℓ2
      and ℓ∞ balls, and its Gaussian average): T is diagonal with positive scales t_a read from its
      definition, s(t u) = t s(u) on each family of parameters, so δ ↦ Tδ maps the perturbations
      at θ onto those at Tθ, and L(Tθ + Tδ) = L(T(θ + δ)) = L(θ + δ) by Theorem 1 at θ + δ.
  Theorem 3, coordinate by coordinate.  Normalized flatness Σ_a θ_a² ∂²_a L: the law
      (∂²_a L)(Tθ) = t_a⁻² (∂²_a L)(θ) for every coordinate (a lemma made from the kernel's
      theorem), then t_a² t_a⁻² = 1 under the sums.
  Paths.  Σ_paths ∏_e θ_e² (its square root, the path norm) and Σ_paths ∏_e |θ_e| of one hidden
      layer: a positive scale leaves |·|, and the two scales on a path x_i → j → output cancel.  On
      the deep network the paths are summed layer by layer (``symbolic.every_size.paths``): the sum
      over the paths reaching layer k at Tθ is P_k^q times the one at θ (induction on k), and at the
      output α_K = 1/P_{K-1} and P_K = 1 cancel the rest.
  Roots.  The product of the layers' Frobenius norms under the layer-wise maps: α_p² out of each
      sum, √(α_p² S) = α_p √S (the rule of a root's homogeneity), then α·α⁻¹ = 1 on one hidden layer;
      on the deep network the scales leave the product over the layers, ∏_{p=1}^{K-1} α_p = P_{K-1}
      (an induction on the layers from the definitions of P) and α_K = 1/P_{K-1} (∏_p α_p = 1).
  Spectral norms.  The product of the layers' squared spectral norms ∏_k ‖W_k‖₂², each norm a term
      that binds its matrix's two indices: under T_α one positive scale out of each norm
      (‖cA‖₂ = c‖A‖₂), then α²·α⁻² = 1; under σ the sign σ_j of each column dropped (a diagonal sign
      matrix on one side is orthogonal); under π the columns of θ^{(1)} and the rows of θ^{(2)} put
      back in order (a permutation matrix is orthogonal); on the deep network the scales of the hidden
      layers gathered in front of each factor of the product over the layers, out of it as
      (∏_p α_p)(∏_p α_p) = P_{K-1}², and α_K² = P_{K-1}⁻² cancels them.  The per-neuron scale c_j of
      each column is not one scale of the matrix: refused there, and the audit refutes it.
  Normalization.  One layer of h ReLU units normalized over the batch or over the units
      (``symbolic.every_size.normalization``, every d, h, N): W ↦ cW in front of the normalization
      (ε = 0) multiplies the centred pre-activations by c and the variance by c², and
      rsqrt(c² σ²) = c⁻¹ rsqrt(σ²) takes c out again; the affine scale γ, β ↦ cγ, cβ with v ↦ v/c of
      batch normalization (any ε ≥ 0) is ReLU's homogeneity.  Each is then an ordinary diagonal T,
      and the arguments above apply.
  Signs.  Under σ the scales are signs: a coordinate-wise scale s needs only s(−u) = s(u), and
      H(Tθ) = D H(θ) D with D² = I is an orthogonal similarity, which keeps H's own spectrum.
  Relabelling.  The hidden units of two layers with biases and ReLU units permuted by π (every d,
      h, N): unit j of T_πθ is unit π(j) of θ, so f(T_πθ) = f(θ) is one reindexing of the sum over
      the units; Theorem 3 reads (∂_a L)(T_πθ) = (∂_{σ(a)} L)(θ), each sum over the units is
      reindexed, T_π = Q is a permutation matrix of the coordinates (its range checked against the
      sums of L), so the changes of variables hold and H(T_πθ) = Q H(θ) Qᵀ.
  An attention head.  The score v Σ_m (Σ_i x_ni Q_im)(Σ_l x'_nl K_lm) of one head
      (``symbolic.every_size.attention``, every d, head dimension k and N) under Q_im ↦ Σ_r Q_ir A_rm,
      K_lm ↦ Σ_s K_ls B_sm, v ↦ v, with the hypothesis Σ_m A_rm B_sm = δ_rs (A Bᵀ = I, B = A^{-T}):
      the images are sums, the map mixes the columns.  f(T_Aθ) = f(θ): each projection's sum over r
      out of Σ_i, the product of the two sums a double sum, Σ_m innermost, the hypothesis, the delta
      contracted.  Relative flatness (both variants) reads only v, which T_A leaves alone (the chain
      rule with the scale 1, no other image reading v).  The Fisher–Rao norm: the chain rule through
      the mixing, Σ_m A_rm (∂_{Q_im} ℓ_n)(T_Aθ) = ∂_{Q_ir}[ℓ_n(T_Aθ)], turns ⟨T_Aθ, ∇ℓ_n(T_Aθ)⟩ into
      ⟨θ, ∇(ℓ_n∘T_A)(θ)⟩ = ⟨θ, ∇ℓ_n(θ)⟩, a kernel theorem used at each occurrence.  The cross-check
      expands each image at the audit's sizes: a linear form whose coefficients are the group's
      matrix, read with B = A^{-T}, at which the hypothesis holds exactly.

Each every-size verdict is cross-checked on the audit's own families: the kernel's T is the
group's action coordinate by coordinate, and the measure's index-level term expanded at their sizes
is the measure the audit computes (for the spectral norms: the term's value is a root of the
characteristic polynomial of the audit's matrix, and no other root is larger in magnitude; where
that matrix is a Kronecker product of Gram matrices, each factor's largest eigenvalue is checked so,
and the term's value is their product).  The
negative controls (ε-sharpness, Keskar's box, adaptive
sharpness with η > 0, the Gaussian sharpness with a fixed σ, the Hessian's trace) are refused at
the step that fails, and the audit refutes each on a concrete network.
"""
from __future__ import annotations

import functools
import itertools
import re

import sympy as sp

from symbolic.derivation import Derivation
from symbolic.every_size.attention import ATTENTION_LAWS, ATTENTION_LOSS, T_ATTENTION, attention_chain, \
    attention_prediction
from symbolic.trusted.axioms.index_rules import ABSOLUTE_VALUE_OF_A_SIGN, ARITHMETIC, LAST_FACTOR, REINDEXING, \
    SUM_FACTOR
from symbolic.kernel.derivations import Chain
from symbolic.every_size.tactics import rewrite_all
from symbolic.logic.terms import Activation, Add, Const, Entry, Eval, Fn, Function, LayerProduct, Mul, Sum, \
    children, expand, largest_gram_eigenvalue, permutation_of, rebuild, substitute_layer
from symbolic.every_size.laws import derivative_chain, invariance_lemma, loss_chain
from symbolic.every_size.paths import ABSOLUTE_PATHS, SQUARED_PATHS, for_edge
from symbolic.every_size.normalization import AFFINE_BATCH_NORM_LOSS, BATCH_NORM_LOSS, LAYER_NORM_LOSS, \
    T_AFFINE_SCALE, T_WEIGHT_SCALE, affine_batch_norm_prediction, affine_scale_chain, batch_norm_prediction, \
    layer_norm_prediction, weight_scale_chain
from symbolic.every_size.networks import A, ABSOLUTE_LOSS_FUNCTION, DEEP_BIAS, DEPTH, HIDDEN_BIAS, HIDDEN_WEIGHT, \
    LAYER, LOSS, LOSS_FUNCTION, N, NEURON_SCALE, OUTPUT_BIAS, OUTPUT_WEIGHT, P, P_NEXT, P_START, PRODUCT_ONE, \
    RELU_TWO_LAYER_LOSS, SIGN_EXPONENT, T_ALPHA, \
    T_NEURON, T_PERMUTATION, T_SIGN, UNIT_SIGN, absolute_value_prediction, prediction, relu_two_layer_prediction, x
from symbolic.decision.positivity import is_manifestly_nonnegative
from symbolic.kernel import conjunction
from symbolic.checks import check_identity, nonnegatives, zeros
from symbolic.every_size.change_of_variables import change_of_variables
from symbolic.every_size.congruence import pencil_congruence, sign_similarity
from symbolic.every_size.mixing_congruence import mixing_pencil_congruence
from symbolic.kernel.derivations import evaluation_lemma, induction, instantiate, lemma, prove
from symbolic.latex import escape
from symbolic.measures.definitions import MEASURES, CoordinatewiseSharpness, GaussNewtonPencil, HessianSpectrum, \
    Measure, MeasurePoint, PathSum, SampleCoordinateSum, SampleDirectionalSum, Spectrum, SpectralNormProduct
from symbolic.every_size.measure_forms import AFFINE_NORMALIZED_LAYER, ATTENTION_HEAD, DEEP_WITH_BIASES, NORMALIZED_LAYER, ONE_LAYER, \
    TWO_LAYERS_WITH_BIASES, gauss_newton_chain, gauss_newton_entry, invariance_chain, measure_term
from symbolic.networks.symmetry_groups import GROUPS
from symbolic.report import Report
from symbolic.kernel.verdict import Status, Verdict

from proofs import all_sizes

NAME = "measures_all_sizes"
TITLE = ("Sharpness measures invariant under rescaling for every size: change of variables, "
         "Theorem 3 coordinate by coordinate, path products, a sign per hidden unit, a permutation of the units "
         "and the scales of normalized layers")
SOURCE = ("Dinh et al. 2017, Sections 3-4 (Theorems 1 and 3) and Appendix B; the measures as cited in "
          "the invariance audit (Kwon et al. 2021, Andriushchenko et al. 2023, Jiang et al. 2020, "
          "Tsuzuku et al. 2020, Neyshabur et al. 2015); the permutation of hidden units after Godfrey et al. 2022; "
          "batch and layer normalization after Ioffe and Szegedy 2015 and Ba, Kiros and Hinton 2016")
FIXED_SIZES = [(1, 1, 1)]
DEFAULT_SIZES = LARGEST_SIZES = (1, 1, 1)

# the measures each argument proves invariant (the script's claims; the audit asks every measure)
CHANGE_OF_VARIABLES = ("adaptive_sharpness", "adaptive_sharpness_inf", "adaptive_average_sharpness")
PENCILS = ("metric_hessian_spectrum",)
COORDINATE_TERMS = ("normalized_flatness", "fisher_rao_norm")
PATH_TERMS = ("path_norm", "path_norm_l1")           # on one hidden layer and, summed layer by layer, the deep network
LAYER_WISE = ("layerwise", "deep_layerwise_bias")    # one scale per layer: relative flatness too
# a sign per unit moves no magnitude: every coordinate-wise scale, the Hessian's own spectrum, ‖θ‖, ‖∇L‖
SIGN_ONLY = ("eps_sharpness", "keskar_sharpness", "adaptive_sharpness_eta", "average_sharpness",
             "hessian_spectral_norm", "hessian_log_pseudo_det", "hessian_frobenius", "hessian_trace",
             "weight_norm", "gradient_norm", "fisher_trace", "relative_flatness", "layer_norm_product",
             "path_norm", "path_norm_l1", "relative_flatness_unsquared")


# W ↦ cW in front of a normalization, and the affine scale of batch normalization (which moves the
# output weights, so that the unsquared relative flatness moves with them)
NORMALIZED = ("batchnorm_scale", "batchnorm_affine", "layernorm")
# the product of the layers' squared spectral norms, under the maps with one scale per matrix, a sign
# per unit or a permutation of the units (the one-hidden-layer and two-layer networks, whose layers
# are written)
SPECTRAL = ("spectral_norm_product",)
# a relabelling of the hidden units moves no coordinate's value, only its name: every measure written
# as a form
RELABELLED = CHANGE_OF_VARIABLES + PENCILS + COORDINATE_TERMS + SIGN_ONLY + SPECTRAL

# the attention head's W_Q ↦ W_Q A, W_K ↦ W_K A^{-T} leaves its read-out weight alone: the measures of
# the output layer
ATTENTION = ("relative_flatness", "relative_flatness_unsquared", "fisher_rao_norm", "metric_hessian_spectrum")

SAMPLE_FORMS = (SampleDirectionalSum, SampleCoordinateSum)     # the measures that read ∇ℓ_n


def _is_weight(family: str) -> bool:
    """θ^{(p)}, W and v are weights; b^{(p)} biases."""
    return not family.startswith("b")


def sign_flip_chain() -> Chain:
    """f_{T_σθ}(x_n) = f_θ(x_n) for |·| units with biases: σ_j out of Σ_i, then out of |·| (σ_j² = 1)."""
    sign, inner = UNIT_SIGN, Sum("i", "h_{0}", Mul((x(), HIDDEN_WEIGHT)))

    def unit(argument, output=(OUTPUT_WEIGHT, OUTPUT_BIAS)):
        return Add((Sum("j", "h_{1}", Mul((Activation("abs", None, argument), output[0]))), output[1]))
    scaled_bias = Mul((sign, HIDDEN_BIAS))
    chain = Chain("sign flip: f_(T_sigma theta)(x) = f_theta(x), all widths", T_SIGN.apply(absolute_value_prediction()))
    # the output layer's scale 1 dropped, on its weights, then on its bias
    signed = Add((Sum("i", "h_{0}", Mul((x(), T_SIGN.image(HIDDEN_WEIGHT)))), scaled_bias))
    chain.then(ARITHMETIC, unit(signed, (OUTPUT_WEIGHT, T_SIGN.image(OUTPUT_BIAS))), "the output weights' factor 1")
    chain.then(ARITHMETIC, unit(signed), "the output bias's factor 1")
    # the sign is a scalar factor of each summand x_ni·(σ_j θ_ij)
    chain.then(ARITHMETIC, unit(Add((Sum("i", "h_{0}", Mul((sign, Mul((x(), HIDDEN_WEIGHT))))), scaled_bias))),
               "the sign of $\\theta^{(1)}_{ij}$ in front of each summand")
    # σ_j does not depend on i: it leaves the inner sum
    chain.then(SUM_FACTOR, unit(Add((Mul((sign, inner)), scaled_bias))), "out of $\\sum_i$")
    chain.then(ARITHMETIC, unit(Mul((sign, Add((inner, HIDDEN_BIAS))))), "in front of the unit's input")
    # |σ s| = |s| for σ² = 1
    chain.then(ABSOLUTE_VALUE_OF_A_SIGN, unit(Add((inner, HIDDEN_BIAS))), "out of $|\\cdot|$: its square is 1")
    return chain


@functools.cache
def loss_theorem(prediction_chain, claim: str):
    """The kernel's theorem L(Tθ) = L(θ): the steps of ``prediction_chain()``, f(Tθ)(x_n) = f(θ)(x_n),
    inside the loss of the predictions."""
    return prove(loss_chain(prediction_chain(), claim))


@functools.cache
def layer_scales_product():
    """∏_{p=1}^{k} α_p = P_k for every k ≥ 0, by induction on k: the empty product is 1 = P_0, and
    ∏_{p=1}^{k+1} α_p = (∏_{p=1}^{k} α_p) α_{k+1} = P_k α_{k+1} = P_{k+1} (the definitions of P)."""
    def product(last):
        return LayerProduct("p", last, Const(A[sp.Symbol("p", integer=True)]))
    base = Chain("prod_(p<=0) alpha_p = P_0", product("0"))
    base.then(LAST_FACTOR, Const(sp.S.One), "the empty product").then(P_START, Const(P[0]))

    def step(hypothesis):
        chain = Chain("prod_(p<=k+1) alpha_p = P_(k+1)", product("k+1"))
        # the last factor out, the hypothesis on the rest, then P_{k+1}'s definition
        chain.then(LAST_FACTOR, Mul((product("k"), Const(A[LAYER + 1]))))
        chain.then(hypothesis, Mul((Const(P[LAYER]), Const(A[LAYER + 1]))))
        chain.then(ARITHMETIC, Const(P[LAYER] * A[LAYER + 1]))
        return chain.then(P_NEXT, Const(P[LAYER + 1]))
    return induction("prod_(p=1)^k alpha_p = P_k", product("k"), Const(P[LAYER]), LAYER, base, step)


def deep_scalar_rules() -> tuple:
    """What the deep layer-wise map's definitions say of its scales: ∏_{p=1}^{K-1} α_p = P_{K-1} (the
    induction at k = K − 1, a network having an output layer, K ≥ 1) and α_K = 1/P_{K-1} (the
    hypothesis ∏_p α_p = 1)."""
    theorem = instantiate(layer_scales_product()[1], DEPTH - 1, "K >= 1: the network has an output layer")
    product = lemma(theorem, "prod_(p<K) alpha_p = P_(K-1)", r"\prod_{p=1}^{K-1} \alpha_p = P_{K-1}")
    return ((product, theorem.lhs, theorem.rhs), (PRODUCT_ONE, Const(A[DEPTH]), Const(1 / P[DEPTH - 1])))


def permutation_chain() -> Chain:
    """f_{T_πθ}(x_n) = f_θ(x_n) for ReLU units with biases: unit j of T_πθ is unit π(j) of θ, and the
    sum over the hidden units, taken in the order π, is the same sum."""
    chain = Chain("permutation: f_(T_pi theta)(x) = f_theta(x), all widths",
                  T_PERMUTATION.apply(relu_two_layer_prediction()))
    # Σ_j G(π(j)) = Σ_j G(j), G(j) the contribution of unit j
    chain.then(REINDEXING, relu_two_layer_prediction(), r"the hidden units summed in the order of $\pi_{h_1}$")
    return chain


def batch_norm_chain() -> Chain:
    return weight_scale_chain(batch_norm_prediction(), "scale in front of batch normalization: "
                                                       "f_(T_c theta)(x) = f_theta(x), all widths")


def layer_norm_chain() -> Chain:
    return weight_scale_chain(layer_norm_prediction(), "scale in front of layer normalization: "
                                                       "f_(T_c theta)(x) = f_theta(x), all widths")


@functools.cache
def sample_loss_theorem(prediction_chain):
    """The kernel's theorem ℓ_n(Tθ) = ℓ_n(θ): the prediction's steps inside ℓ(·, y_n)."""
    chain = prediction_chain().lifted(lambda term: Fn(LOSS, (term, Entry("y", ("n",)))))
    chain.claim = f"{chain.claim}, inside the loss of example n"
    return prove(chain)


class EverySize:
    """An audit group whose map the kernel defines at every size: T, the loss L with the theorem
    L(Tθ) = L(θ), and the prediction f_θ(x_n) with the chain proving f(Tθ) = f(θ) (which, inside
    ℓ(·, y_n), also gives ℓ_n(Tθ) = ℓ_n(θ));
    ``network`` says which measures can be written at index level on it (``symbolic.every_size.measure_forms``)."""

    def __init__(self, group: str, transformation, function, loss_theorem, sizes: str, prediction,
                 prediction_chain, network, entry=None, scalar_rules=lambda: (), concrete_sizes=None, reading=None,
                 mixing=None):
        self.group, self.T, self.function, self.loss_theorem = group, transformation, function, loss_theorem
        self.sizes, self.prediction, self.prediction_chain, self.network = sizes, prediction, prediction_chain, network
        self.read_entry = entry          # how a parameter of the audit's family is named in the kernel
        self.scalar_rules = scalar_rules  # () -> (rule, scalar, value): what T's definitions say of its scales
        # model -> the kernel's size symbols at the audit's family (by default d, h and the layer widths)
        self.concrete_sizes = concrete_sizes or _layer_sizes
        # for a map that mixes coordinates: (group, model) -> (the kernel's scalars in the group's
        # parameters, the hypotheses of the map at that reading, each an expression that must be 0)
        self.reading = reading
        # for a map that mixes coordinates: the chains its measures need (``attention.MixingLaws``)
        self.mixing = mixing

    def entry(self, name: str, model) -> Entry:
        """The kernel's entry of the audit's parameter ``name`` (by default ``_entry``)."""
        return (self.read_entry or _entry)(name, model)

    @functools.cached_property
    def theorem(self):
        return self.loss_theorem()[1]

    @functools.cached_property
    def prediction_theorem(self):
        return prove(self.prediction_chain())[1]

    @functools.cached_property
    def sample_loss(self) -> Function:
        """The loss of one example, ℓ_n(θ) = ℓ(f_θ(x_n), y_n), for the measures that read the examples' gradients."""
        return Function(r"\ell_n", Fn(LOSS, (self.prediction.body, Entry("y", ("n",)))))

    @functools.cached_property
    def sample_theorem(self):
        return sample_loss_theorem(self.prediction_chain)[1]

    # the three invariances as lemmas, made once: L∘T = L, f∘T = f and ℓ_n∘T = ℓ_n
    @functools.cached_property
    def loss_lemma(self):
        return invariance_lemma(self.theorem, self.function, self.T)

    @functools.cached_property
    def prediction_lemma(self):
        return evaluation_lemma(self.prediction_theorem, self.prediction, self.T, "f o T = f", r"f(T\theta) = f(\theta)")

    @functools.cached_property
    def sample_lemma(self):
        return evaluation_lemma(self.sample_theorem, self.sample_loss, self.T, "l_n o T = l_n",
                                r"\ell_n(T\theta) = \ell_n(\theta)")


def _layer_sizes(model) -> dict:
    """The size symbols of the one- and two-layer and deep networks at a concrete model."""
    return {"d": model.input_width, "h": len(model.layers[-1]),
            **{"h_{%d}" % k: rows for k, (rows, _) in enumerate(model.layer_shapes)}}


def _attention_entry(name: str, model) -> Entry:
    """The kernel's entry of a parameter of the audit's attention head: Q_{i,m}, K_{l,m} and v."""
    found = re.fullmatch(r"(Q|K)_\{(\d+),(\d+)\}", name)
    if found:
        return Entry(found.group(1), (found.group(2), found.group(3)))
    if name != "v":
        raise ValueError(f"no kernel entry for the parameter {name}")
    return Entry("v", ())


def _attention_sizes(model) -> dict:
    """d, the width of each token (an input row is the two tokens), and k, the head dimension."""
    return {"d": model.input_width // 2, "k": model.layer_shapes[0][1]}


def _attention_reading(group, model):
    """A_rm is the audit's a_rm, and B = A^{-T} (the audit's W_K ↦ W_K A^{-T}); the hypothesis
    Σ_m A_rm B_sm = δ_rs at that reading, entry by entry."""
    k = model.layer_shapes[0][1]
    A = sp.Matrix(k, k, lambda r, m: {str(s): s for s in group.symbols}[f"a_{r + 1}{m + 1}"])
    B = A.inv().T
    reading = {}
    for r in range(k):
        for m in range(k):
            reading[sp.Symbol(f"A_{r + 1}_{m + 1}", real=True)] = A[r, m]
            reading[sp.Symbol(f"B_{r + 1}_{m + 1}", real=True)] = B[r, m]
    hypothesis = [(f"sum_m A_{r + 1}m B_{s + 1}m = delta", sp.cancel(sum(A[r, m] * B[s, m] for m in range(k))
                                                                      - (1 if r == s else 0)))
                  for r in range(k) for s in range(k)]
    return reading, hypothesis


def _unit_entry(name: str, model) -> Entry:
    """The kernel's entry of a parameter of the audit's batch-normalized unit, unit 1 of h:
    W_{i} is W_{i1}, and v, gamma, beta are v_1, γ_1, β_1."""
    found = re.fullmatch(r"W_\{(\d+)\}", name)
    if found:
        return Entry("W", (found.group(1), "1"))
    families = {"v": "v", "gamma": r"\gamma", "beta": r"\beta"}
    if name not in families:
        raise ValueError(f"no kernel entry for the parameter {name}")
    return Entry(families[name], ("1",))


def proved_here(group: str, transformation, function: Function, prediction, prediction_chain, claim: str,
                sizes: str, network, **options) -> EverySize:
    """A group whose f(Tθ)(x_n) = f(θ)(x_n) is the chain ``prediction_chain()`` proposed here (or by its
    map's module), and L(Tθ) = L(θ) that chain inside the loss (``loss_theorem``, claimed as ``claim``)."""
    return EverySize(group, transformation, function, functools.partial(loss_theorem, prediction_chain, claim), sizes,
                     Function("f", prediction), prediction_chain, network, **options)


EVERY_SIZE = {
    "layerwise": EverySize("layerwise", T_ALPHA, LOSS_FUNCTION, all_sizes.theorem1_loss, "every d, h and N",
                           Function("f", prediction()), all_sizes.theorem1_chain, ONE_LAYER),
    "per_neuron": EverySize("per_neuron", T_NEURON, LOSS_FUNCTION, all_sizes.per_neuron_loss, "every d, h and N",
                            Function("f", prediction()), all_sizes.per_neuron_chain, ONE_LAYER),
    "deep_layerwise_bias": EverySize("deep_layerwise_bias", DEEP_BIAS.T, DEEP_BIAS.function,
                                     functools.partial(all_sizes.deep_loss, DEEP_BIAS),
                                     "every depth K, all widths and every N", Function("f", DEEP_BIAS.output()),
                                     functools.partial(all_sizes.output_layer_chain, DEEP_BIAS), DEEP_WITH_BIASES,
                                     scalar_rules=deep_scalar_rules),
    "sign_flip": proved_here("sign_flip", T_SIGN, ABSOLUTE_LOSS_FUNCTION, absolute_value_prediction(), sign_flip_chain,
                             "sign flip: L(T theta) = L(theta)", "every d, h and N (two layers with biases, |.| units)",
                             TWO_LAYERS_WITH_BIASES),
    "permutation": proved_here("permutation", T_PERMUTATION, RELU_TWO_LAYER_LOSS, relu_two_layer_prediction(),
                               permutation_chain, "permutation: L(T theta) = L(theta)",
                               "every d, h and N (two layers with biases, ReLU units)", TWO_LAYERS_WITH_BIASES),
    "batchnorm_scale": proved_here("batchnorm_scale", T_WEIGHT_SCALE, BATCH_NORM_LOSS, batch_norm_prediction(),
                                   batch_norm_chain, "scale in front of batch normalization: L(T theta) = L(theta), "
                                   "all widths", "every d, h and N (one layer of batch-normalized ReLU units, eps = 0)",
                                   NORMALIZED_LAYER, entry=_unit_entry),
    "batchnorm_affine": proved_here("batchnorm_affine", T_AFFINE_SCALE, AFFINE_BATCH_NORM_LOSS,
                                    affine_batch_norm_prediction(), affine_scale_chain, "affine scale of batch "
                                    "normalization: L(T theta) = L(theta), all widths", "every d, h, N and eps >= 0 "
                                    "(one layer of batch-normalized ReLU units with gain and shift)",
                                    AFFINE_NORMALIZED_LAYER, entry=_unit_entry),
    "layernorm": proved_here("layernorm", T_WEIGHT_SCALE, LAYER_NORM_LOSS, layer_norm_prediction(), layer_norm_chain,
                             "scale in front of layer normalization: L(T theta) = L(theta), all widths",
                             "every d, h and N (one layer-normalized layer of ReLU units, eps = 0)", NORMALIZED_LAYER),
    "attention_qk": proved_here("attention_qk", T_ATTENTION, ATTENTION_LOSS, attention_prediction(), attention_chain,
                                "attention head: L(T_A theta) = L(theta), every d, k and N",
                                "every d, k and N (one attention head's score, head dimension k)", ATTENTION_HEAD,
                                entry=_attention_entry, concrete_sizes=_attention_sizes, reading=_attention_reading,
                                mixing=ATTENTION_LAWS),
}


# --- the cross-checks on the audit's families ---------------------------------------------------

_NAME = re.compile(r"(W|v|theta|b)(\d*)_\{([\d,]+)\}")


def _entry(name: str, model) -> Entry:
    """The kernel's entry of a concrete parameter: W_{1,2} is W_12, theta3_{2,1} the output weight
    θ^{(3)}_2 of a depth-3 network, b3_{1} its output bias b^{(3)}."""
    family, layer, indices = _NAME.fullmatch(name).groups()
    indices = tuple(indices.split(","))
    if family in ("W", "v"):
        return Entry(family, indices)
    depth = len(model.layers)
    if family == "theta":
        return Entry(r"\theta^{(%s)}" % layer, indices[:1] if int(layer) == depth else indices)
    return Entry("b^{(%s)}" % layer, () if int(layer) == depth else indices)


def _read(scalar: sp.Expr, group, depth: int) -> sp.Expr:
    """A kernel scale in the group's own parameters: c_j is c_{j}; α_p is alpha_p below the output
    layer and α_K = 1/(α_1⋯α_{K-1}) (the hypothesis ∏ α_p = 1); P_p = α_1⋯α_p (its definition); the
    sign (−1)^{e_j} of unit j is −1 for unit 1 alone, the element of the audit's ``sign_flip``."""
    named = {str(s): s for s in group.symbols}

    def parameter(name):
        if name not in named:
            raise ValueError(f"{group.key} has no parameter {name}")
        return named[name]

    def alpha(p):
        return 1 / sp.Mul(*[alpha(q) for q in range(1, depth)]) if p == depth else parameter(f"alpha_{p}")

    def value(indexed):
        numbers = [int(str(i)) for i in indexed.indices]
        if indexed.base == SIGN_EXPONENT:        # the audit's element flips unit 1
            return 1 if numbers[0] == 1 else 0
        if indexed.base == NEURON_SCALE:
            return parameter(f"c_{numbers[0]}")
        if indexed.base == A:
            return alpha(numbers[0])
        if indexed.base == P:
            return sp.Mul(*[alpha(q) for q in range(1, numbers[0] + 1)])
        raise ValueError(f"no reading of {indexed}")
    return scalar.replace(lambda e: isinstance(e, sp.Indexed), value)


def _cycled(entry: Entry, model) -> Entry:
    """A concrete entry with each permuted index π_{h_1}(j) read at the audit's element, the cycle
    1 → 2 → … → h → 1 of the first hidden layer's units: π(j) = j + 1, π(h) = 1."""
    def value(index):
        found = permutation_of(index)
        return index if found is None else str(int(value(found[1])) % model.layer_shapes[0][1] + 1)
    return Entry(entry.family, tuple(value(i) for i in entry.indices))


def same_action(every: EverySize) -> list[Verdict]:
    """On each of the group's families: the kernel's T is the group's action, entry by entry of its
    matrix ((Tθ)_a = t_a θ_{σ(a)}, the scale and σ read from T's definition, at the element the
    audit takes; the group's action from its factors or its matrix)."""
    group = GROUPS[every.group]
    if every.reading is not None:
        return [_same_linear_action(every, group, family) for family in group.families]
    verdicts = []
    for family in group.families:
        model = family.model
        entries = [every.entry(str(parameter), model) for parameter in model.parameters]
        column = {entry: k for k, entry in enumerate(entries)}
        claim = f"the kernel's {every.T.name} is the action of {every.group} on {family.sizes}"
        kernel = sp.zeros(len(entries), len(entries))
        try:
            for row, entry in enumerate(entries):
                found = every.T.monomial(entry)
                if found is None:
                    raise ValueError(f"the kernel's map does not list the family of {model.parameters[row]}")
                scale, source = found
                kernel[row, column[_cycled(source, model)]] = _read(scale.expr, group, len(model.layers))
        except (ValueError, KeyError) as error:
            verdicts.append(Verdict(Status.UNDECIDED, claim, reason=str(error)))
            continue
        action = group.action(family)
        # each entry of the kernel's matrix against the group's, the two sides as they are
        verdicts.append(zeros(claim, [(f"entry ({r + 1}, {c + 1})", (kernel[r, c], action[r, c]))
                                            for r in range(len(entries)) for c in range(len(entries))]))
    return verdicts


def _same_linear_action(every: EverySize, group, family) -> Verdict:
    """On one of the group's families, for a map whose images are sums (a linear map that mixes
    coordinates): each pattern's image expanded at every value of its indices over the family's
    sizes, the kernel's scalars read in the group's parameters, is a linear form in the parameters;
    its coefficients are the row of the group's matrix, every parameter the row of exactly one
    instance; and the map's hypotheses hold at that reading."""
    model = family.model
    claim = f"the kernel's {every.T.name} is the action of {every.group} on {family.sizes}"
    sizes = every.concrete_sizes(model)
    parameters = _symbols("", [every.entry(str(p), model) for p in model.parameters])
    column = {symbol: k for k, symbol in enumerate(parameters)}
    reading, hypotheses = every.reading(group, model)
    ranges = {pattern: sums for pattern, sums in every.network.families}
    kernel, rows = sp.zeros(len(parameters)), set()
    for pattern, image in every.T.images:
        if pattern not in ranges:
            return Verdict(Status.UNDECIDED, claim, reason=f"the network does not say over what {pattern.family} runs")
        names, bounds = [index for index, _ in ranges[pattern]], [sizes[size] for _, size in ranges[pattern]]
        if tuple(names) != pattern.indices:
            return Verdict(Status.UNDECIDED, claim, reason=f"the indices of {pattern.family} are not its pattern's")
        for values in itertools.product(*[range(1, bound + 1) for bound in bounds]):
            at = dict(zip(names, values))
            row = column.get(expand(pattern, sizes, at))
            form = sp.expand(expand(image, sizes, at).xreplace(reading))
            if row is None or row in rows:
                return Verdict(Status.UNDECIDED, claim, reason=f"{pattern.family} at {values} is not one parameter "
                                                               "of the family, once")
            if not form.free_symbols <= set(parameters) | set(group.symbols):
                return Verdict(Status.UNDECIDED, claim, reason=f"the image of {pattern.family} at {values} reads "
                                                               "more than the parameters and the group's")
            poly = sp.Poly(form, *parameters)
            if poly.total_degree() > 1 or poly.coeff_monomial(1) != 0:
                return Verdict(Status.UNDECIDED, claim, reason=f"the image of {pattern.family} at {values} is not "
                                                               "linear in the parameters")
            rows.add(row)
            for symbol, k in column.items():
                kernel[row, k] = poly.coeff_monomial(symbol)
    if len(rows) != len(parameters):
        return Verdict(Status.UNDECIDED, claim, reason="the kernel's map does not list every parameter")
    action = group.action(family)
    return zeros(claim, [(f"entry ({r + 1}, {c + 1})", (kernel[r, c], action[r, c]))
                               for r in range(len(parameters)) for c in range(len(parameters))] + hypotheses,
                       evidence=("each image expanded at the family's sizes, read in the group's parameters, a "
                                 "linear form whose coefficients are the group's matrix row",
                                 "the map's hypotheses hold exactly at that reading"))


def _stand_in(term):
    """Each derivative the measure reads replaced by an entry standing for it, so that the term can
    be expanded: (∂²_a L)(θ) by H_a, (∂_a L)(θ) by g_a, (∂_a ℓ_n)(θ) by G_{n,a}."""
    if isinstance(term, Eval):
        coordinate = term.partials[0]
        if len(term.partials) == 2:
            return Entry("H" + coordinate.family, coordinate.indices)
        if term.function.name == r"\ell_n":
            return Entry("G" + coordinate.family, ("n",) + coordinate.indices)
        return Entry("g" + coordinate.family, coordinate.indices)
    return rebuild(term, tuple(_stand_in(c) for c in children(term))) if children(term) else term


def _symbols(prefix: str, entries, *first) -> list:
    """The symbols ``expand`` gives the entries (W_{12} is W_1_2), with a prefix and leading indices."""
    return [sp.Symbol(f"{prefix}{e.family}_{'_'.join(map(str, first + e.indices))}", real=True) for e in entries]


def same_measure(measure: Measure, every: EverySize, examples: int = 2) -> list[Verdict]:
    """On each of the group's families: the measure's index-level term at θ, expanded at the
    family's sizes (and ``examples`` examples), equals the measure the audit computes from the same
    rule at a point whose Hessian diagonal and example gradients are the stand-ins."""
    verdicts = []
    function = every.sample_loss if isinstance(measure.evaluate, SAMPLE_FORMS) else every.function
    for family in GROUPS[every.group].families:
        model = family.model
        sizes = {**every.concrete_sizes(model), "N": examples}
        # the depth K of a deep network made concrete: θ^{(K)} is the family's last layer
        term = substitute_layer(_stand_in(measure_term(measure.evaluate, function, network=every.network)),
                                DEPTH, sp.Integer(len(model.layers)))
        for paths in (SQUARED_PATHS, ABSOLUTE_PATHS):      # the sums over the paths, by their definitions
            term = paths.unfolded(term)
        entries = [every.entry(str(p), model) for p in model.parameters]
        point = MeasurePoint(_symbols("", entries), sp.Symbol("L"), sp.Matrix(_symbols("g", entries)),
                             sp.diag(*_symbols("H", entries)), sp.eye(len(entries)),
                             [sp.Matrix(_symbols("G", entries, n)) for n in range(1, examples + 1)],
                             model.weights, model.layers, model.last_layer_rows, model.paths,
                             layer_shapes=model.layer_shapes)
        expanded = expand(term, sizes, functions={r"\sqrt": sp.sqrt}).xreplace({N: examples})
        claim = f"the index-level {measure.key} at {family.sizes}"
        value = measure.evaluate(point)
        verdicts.append(largest_eigenvalue(claim, expanded, value) if isinstance(value, Spectrum)
                        else check_identity(expanded, value, claim=claim))
    return verdicts


def largest_eigenvalue(claim: str, value: sp.Expr, spectrum: Spectrum) -> Verdict:
    """``value`` is the spectral norm (the largest eigenvalue in magnitude) of the symmetric matrix
    M of ``spectrum``, at most 2×2: det(value·I − M) is an exact zero, so value is an eigenvalue;
    for 2×2 the other is μ = tr M − value, and value − μ ≥ 0, value + μ = tr M ≥ 0 give value ≥ |μ|
    (each a manifest sign, a square root of a manifestly non-negative radicand read as a
    non-negative symbol)."""
    matrix = spectrum.matrix
    if spectrum.reduction != "spectral_norm" or spectrum.metric is not None:
        return Verdict(Status.UNDECIDED, claim, reason="not the spectral norm of one matrix")
    if matrix.rows > 2 and len(spectrum.factors) > 1:
        return _largest_of_kronecker_product(claim, value, spectrum)
    if matrix.rows > 2 or matrix != matrix.T:
        return Verdict(Status.UNDECIDED, claim, reason="no exact comparison beyond a symmetric 2x2 matrix")
    root = zeros(f"{claim}: an eigenvalue", [sp.expand((value * sp.eye(matrix.rows) - matrix).det())],
                       evidence=("det(value I - M) an exact zero",))
    if matrix.rows == 1:
        return conjunction([root], label=claim, evidence=root.evidence)

    gap = 2 * value - matrix.trace()
    roots = sorted((e for e in gap.atoms(sp.Pow) if e.exp == sp.Rational(1, 2) and is_manifestly_nonnegative(e.base)),
                   key=sp.default_sort_key)
    named = gap.xreplace({e: sp.Dummy(f"root{k}", nonnegative=True) for k, e in enumerate(roots)})
    largest = nonnegatives(f"{claim}: the largest in magnitude", [sp.expand(named), sp.expand(matrix.trace())],
        evidence=("value - mu = 2 value - tr M >= 0 and value + mu = tr M >= 0, mu the other eigenvalue",))
    return conjunction([root, largest], label=claim, evidence=(*root.evidence, *largest.evidence))


def _largest_of_kronecker_product(claim: str, value: sp.Expr, spectrum: Spectrum) -> Verdict:
    """``value`` is the spectral norm of M = G_1 ⊗ ⋯ ⊗ G_r (``spectrum.factors``): M is that product
    entry by entry, each λ_k is the largest eigenvalue in magnitude of G_k (``largest_eigenvalue``,
    G_k at most 2×2), and value = ∏_k λ_k exactly; the eigenvalues of a Kronecker product are the
    products of its factors' eigenvalues, so ∏_k λ_k is one of M's, and no other is larger in magnitude."""
    product = spectrum.factors[0]
    for factor in spectrum.factors[1:]:
        product = sp.kronecker_product(product, factor)
    if product.shape != spectrum.matrix.shape:
        return Verdict(Status.UNDECIDED, claim, reason="the factors are not the matrix's Kronecker factors")
    entries = zeros(f"{claim}: M is the Kronecker product of its factors",
                          [sp.expand(e) for e in product - spectrum.matrix], evidence=("M - G_1 x ... x G_r = 0",))
    largest = [largest_gram_eigenvalue(factor) for factor in spectrum.factors]
    factors = [largest_eigenvalue(f"{claim}: factor {k}", candidate, Spectrum(factor, "spectral_norm"))
               for k, (candidate, factor) in enumerate(zip(largest, spectrum.factors), start=1)]
    product_of_largest = check_identity(value, sp.Mul(*largest), claim=f"{claim}: the product of the factors' largest")
    return conjunction([entries, *factors, product_of_largest], label=claim, evidence=(
        "M is G_1 x ... x G_r entry by entry; each factor's largest eigenvalue in magnitude checked exactly",
        "value = prod_k lambda_max(G_k), an exact identity",
        "the eigenvalues of a Kronecker product are the products of its factors' eigenvalues (a theorem taken as known)"))


# --- the every-size verdict of one audit cell -----------------------------------------------------

def every_size_proof(measure: Measure, every: EverySize) -> Verdict | None:
    """M(Tθ) = M(θ) for every size, by the argument that fits the measure's form; None when none
    does (the measure is not built from one rule per coordinate, or has no index-level term on
    this network: the paths of a deep network are not written); UNDECIDED when the argument cannot
    be made for this map (Theorem 3's coordinate law read from a map that mixes coordinates)."""
    claim = f"{measure.key} is invariant under {every.group}, {every.sizes}"
    try:
        return _every_size_proof(claim, measure, every)
    except ValueError as error:
        return Verdict(Status.UNDECIDED, claim, reason=str(error))


def _every_size_proof(claim: str, measure: Measure, every: EverySize) -> Verdict | None:
    form = measure.evaluate
    if isinstance(form, CoordinatewiseSharpness):
        return change_of_variables(claim, every.theorem, every.function, every.T, form.scale, _is_weight,
                                   form.gaussian, form.normalizer)
    if isinstance(form, HessianSpectrum):
        return sign_similarity(claim, every.T, every.function, ("H", functools.partial(_hessian_entry, every.function),
                                                functools.partial(_hessian_law, every)))
    if isinstance(form, GaussNewtonPencil) and every.mixing is not None:
        return mixing_pencil_congruence(claim, every.T, every.function, [
            ("H", functools.partial(_hessian_entry, every.function), functools.partial(_mixing_law, every, "hessian")),
            ("G", functools.partial(gauss_newton_entry, every.prediction), functools.partial(_mixing_law, every, "gauss_newton"))],
            lambda pattern: prove(every.mixing.inverse(pattern.family, every.T))[1])
    if isinstance(form, GaussNewtonPencil):
        return pencil_congruence(claim, every.T, every.function, [("H", functools.partial(_hessian_entry, every.function),
                                                   functools.partial(_hessian_law, every)),
                                                  ("G", functools.partial(gauss_newton_entry, every.prediction),
                                                   functools.partial(_metric_law, every))])
    if measure_term(form, every.function, network=every.network) is None:
        return None
    if isinstance(form, PathSum) and every.network.layered_paths:
        return _layered_paths_proof(claim, form, every)
    if isinstance(form, SampleDirectionalSum) and every.mixing is not None:
        return _pairing_proof(claim, form, every)
    if isinstance(form, SAMPLE_FORMS):
        chain = invariance_chain(form, every.sample_loss, every.T, every.sample_lemma, claim, every.network)
    else:
        chain = invariance_chain(form, every.function, every.T, every.loss_lemma, claim, every.network,
                                 every.scalar_rules())
    return prove(chain)[0]


def _layered_paths_proof(claim: str, form: PathSum, every: EverySize) -> Verdict:
    """A path norm of the deep network: the chain from the sum over the paths at Tθ to the sum at θ
    (the induction on the layers inside it), whose two ends must be the measure's own terms."""
    paths = for_edge(form.edge)
    chain = paths.total_chain(None if form.outer is None else lambda total: Fn(r"\sqrt", (total,)))
    ends = (measure_term(form, every.function, every.T, every.T.image, every.network),
            measure_term(form, every.function, network=every.network))
    if (chain.start, chain.end) != ends:
        return Verdict(Status.UNDECIDED, claim, reason="the chain over the paths does not join the measure at T theta "
                                                      "to the measure at theta")
    chain.claim = claim
    return prove(chain)[0]


def _pairing_proof(claim: str, form: SampleDirectionalSum, every: EverySize) -> Verdict:
    """(1/N) Σ_n outer(⟨Tθ, ∇ℓ_n(Tθ)⟩) = (1/N) Σ_n outer(⟨θ, ∇ℓ_n(θ)⟩) for a map that mixes coordinates:
    the kernel's theorem ⟨Tθ, ∇ℓ_n(Tθ)⟩ = ⟨θ, ∇ℓ_n(θ)⟩ (the chain rule through T, then ℓ_n∘T = ℓ_n), as a
    lemma, at each occurrence; its two ends must be the measure's own terms."""
    start = measure_term(form, every.sample_loss, every.T, every.T.image, every.network)
    target = measure_term(form, every.sample_loss, network=every.network)
    verdict, theorem = prove(every.mixing.pairing(every.sample_loss, every.sample_lemma))
    if theorem is None:
        return Verdict(Status.UNDECIDED, claim, reason=f"the pairing: {verdict.reason}")
    rule = lemma(theorem, "the gradient pairing under T", r"\langle T\theta, \nabla \ell_n(T\theta) \rangle = "
                                                           r"\langle \theta, \nabla \ell_n(\theta) \rangle")
    chain = Chain(claim, start)
    rewrite_all(chain, rule, lambda t: t == theorem.lhs, lambda t: theorem.rhs, "the chain rule through $T$")
    if chain.end != target:
        return Verdict(Status.UNDECIDED, claim, reason="the pairing's theorem does not join the measure at T theta "
                                                      "to the measure at theta")
    return prove(chain)[0]


def _hessian_entry(function, a, b, point):
    return Eval(function, (a, b), point)


def _hessian_law(every: EverySize, a, b):
    """Theorem 3 at the pair (a, b): (∂_b∂_a L)(Tθ) = t_a⁻¹ t_b⁻¹ (∂_b∂_a L)(θ), the kernel's theorem."""
    return prove(derivative_chain([a, b], every.function, every.T, every.loss_lemma))[1]


def _mixing_law(every: EverySize, matrix: str, a, b):
    """X_ab(θ) = (Mᵀ X(Tθ) M)_ab for X = H (``matrix`` "hessian") or G ("gauss_newton"), the kernel's
    theorem from the chain rule through a map that mixes coordinates."""
    if matrix == "hessian":
        return prove(every.mixing.hessian(every.function, every.loss_lemma, a, b, every.T))[1]
    return prove(every.mixing.gauss_newton(every.prediction, every.prediction_lemma, a, b, every.T))[1]


def _metric_law(every: EverySize, a, b):
    """G_ab(Tθ) = t_a⁻¹ t_b⁻¹ G_ab(θ) from the gradient law of the prediction, the kernel's theorem."""
    return prove(gauss_newton_chain(every.prediction, every.T, every.prediction_lemma, a, b))[1]


@functools.cache
def every_size_verdict(measure: Measure | str, group: str) -> Verdict | None:
    """The audit cell (measure, group) for every size: the kernel's proof with its cross-checks on
    the group's families, or None when the group or the measure has no every-size argument here.
    PROVED means M(Tθ) = M(θ) at every size the group's network has (``EVERY_SIZE[group].sizes``)."""
    every = EVERY_SIZE.get(group)
    measure = MEASURES.get(measure) if isinstance(measure, str) else measure
    if every is None or measure is None:
        return None
    proof = every_size_proof(measure, every)
    if proof is None or proof.status is not Status.PROVED:
        return proof
    checks = same_action(every)
    written = not isinstance(measure.evaluate, (CoordinatewiseSharpness, GaussNewtonPencil, HessianSpectrum))
    if written:
        checks += same_measure(measure, every)
    return conjunction([proof, *checks], label=proof.claim, evidence=(
        *proof.evidence, f"for every size ({every.sizes}): the kernel's ${every.T.name}$ and the loss theorem for it",
        f"cross-checked on the audit's families of {group}: the kernel's map is the group's action"
        + (", and the index-level measure is the audit's" if written else "")))


# --- the script ------------------------------------------------------------------------------------

def claims() -> list[tuple[str, str]]:
    """(measure, group) pairs this script proves invariant for every size."""
    rescalings = ["layerwise", "per_neuron", "deep_layerwise_bias", "sign_flip"]
    pairs = [(m, g) for g in rescalings for m in CHANGE_OF_VARIABLES + PENCILS + COORDINATE_TERMS]
    pairs += [(m, g) for g, every in EVERY_SIZE.items() if every.network in (ONE_LAYER, DEEP_WITH_BIASES)
              for m in PATH_TERMS]
    pairs += [("relative_flatness", g) for g in LAYER_WISE]
    pairs += [("layer_norm_product", g) for g in LAYER_WISE]    # one scale per layer, out of each root
    pairs += [(m, g) for g in LAYER_WISE for m in SPECTRAL]   # one scale per matrix, out of each spectral norm
    pairs += [(m, "sign_flip") for m in SIGN_ONLY if m != "relative_flatness"] + [("relative_flatness", "sign_flip")]
    pairs += [(m, "sign_flip") for m in SPECTRAL]        # a sign per column, dropped from each spectral norm
    pairs += [(m, g) for g in NORMALIZED for m in CHANGE_OF_VARIABLES + PENCILS + COORDINATE_TERMS]
    pairs += [("relative_flatness", g) for g in NORMALIZED]
    pairs += [("relative_flatness_unsquared", g) for g in NORMALIZED if g != "batchnorm_affine"]
    pairs += [(m, "attention_qk") for m in ATTENTION]
    return pairs + [(m, "permutation") for m in RELABELLED]


def derivation_skeleton() -> Derivation:
    return Derivation(
        name=NAME, title=TITLE, source=SOURCE,
        statement=(r"For every size, $M(T\theta) = M(\theta)$ for every $\theta$ and every data set, for "
                   r"$T_\alpha$ and the per-neuron rescaling of one hidden layer (every $d, h, N$) and the "
                   r"layer-wise rescaling of a deep network with biases (every depth, widths and $N$), "
                   r"when $M$ is adaptive sharpness ($\ell_2$ or $\ell_\infty$ ball, scales $|\theta_a|$), "
                   r"its Gaussian average, the spectrum of the pencil $(H, G)$ with $G$ the Gauss--Newton "
                   r"matrix, normalized flatness $\sum_a \theta_a^2\,\partial^2_a L$ or the Fisher--Rao norm; "
                   r"for one hidden layer also a path norm ($p = 2$ or $1$); for the layer-wise maps also "
                   r"relative flatness.  For a sign per hidden unit through $|\cdot|$ (two layers with biases, "
                   r"every $d, h, N$): every sharpness with coordinate-wise scales, the Hessian's spectrum, trace "
                   r"and Frobenius norm, the squared norms of $\theta$ and $\nabla L$, the Fisher trace and "
                   r"relative flatness too.  For $T_\alpha$, the sign flip and the permutation below, also the "
                   r"product of the layers' squared spectral norms $\prod_k \|W_k\|_2^2$.  For a permutation "
                   r"$\pi$ of the hidden units of two layers with "
                   r"biases and ReLU units (every $d, h, N$): every one of these measures.  For $W \mapsto cW$ "
                   r"in front of batch or layer normalization ($\epsilon = 0$) and for the affine scale "
                   r"$\gamma, \beta, v \mapsto c\gamma, c\beta, v/c$ of batch normalization (any "
                   r"$\epsilon \ge 0$), one layer of $h$ normalized ReLU units (every $d, h, N$): adaptive "
                   r"sharpness and its Gaussian average, the pencil, normalized flatness, the Fisher--Rao norm "
                   r"and relative flatness, and in front of the normalization its unsquared variant.  For "
                   r"$W_Q \mapsto W_Q A$, $W_K \mapsto W_K B$ with $A B^\top = I$ on one attention head's "
                   r"score (every $d$, head dimension $k$ and $N$): relative flatness (both variants) and the "
                   r"Fisher--Rao norm."),
        definitions=[
            r"A sharpness with coordinate-wise scales: $\max_{\|(\delta_a / s(\theta_a))_a\|_p \le \rho} "
            r"L(\theta + \delta) - L(\theta)$, $p = 2$ or $\infty$, or $\mathbb{E}\,L(\theta + \delta) - "
            r"L(\theta)$ with $\delta_a \sim N(0, \sigma^2 s(\theta_a)^2)$; adaptive: $s(u) = |u|$.",
            r"$T$ and $L(T\theta) = L(\theta)$ are those of the every-size proofs of Theorems 1 and 3; "
            r"$(T\theta)_a = t_a\theta_{\sigma(a)}$ with $t_a$ and $\sigma$ read from $T$'s definition "
            r"($\sigma(a) = a$ but under the permutation, where $\sigma$ replaces the unit $j$ by $\pi(j)$, "
            r"$\pi$ a permutation of $\{1, \dots, h\}$).",
            r"Batch normalization of unit $j$: $\mathrm{BN}(z)_{nj} = (z_{nj} - \mu_j)\,"
            r"\operatorname{rsqrt}(\sigma_j^2 + \epsilon)$, $z_{nj} = \sum_i x_{ni} W_{ij}$, $\mu_j$ and "
            r"$\sigma_j^2$ the mean and variance of $z_{1j}, \dots, z_{Nj}$ and $\operatorname{rsqrt}(s) = "
            r"1/\sqrt{s}$ (defined for $s > 0$); layer normalization of example $n$ alike over the units "
            r"$z_{n1}, \dots, z_{nh}$; $f_\theta(x_n) = \sum_j \operatorname{ReLU}(\cdot)\,v_j$ of the "
            r"normalized value (with the affine map $\gamma_j \mathrm{BN}(z)_{nj} + \beta_j$).",
        ])


def run(sizes=None, seed=0, timeout=None) -> Report:
    derivation = derivation_skeleton()
    report = Report(derivation)
    for measure, group in claims():
        verdict = report.record(NAME, f"{measure} invariant under {group}, {EVERY_SIZE[group].sizes}",
                                (None, None, None), functools.partial(every_size_verdict, measure, group),
                                for_all_sizes=True)
        form = MEASURES[measure].evaluate
        how = ("the change of variables $\\delta \\mapsto T\\delta$: $s(t u) = t\\,s(u)$ on each family, "
               "$L \\circ T = L$ for every size" if isinstance(form, CoordinatewiseSharpness) else
               "the pencil: $H_{ab}$ and $G_{ab}$ at $T\\theta$ are $t_a^{-1} t_b^{-1}$ times their values at "
               "$(\\sigma(a), \\sigma(b))$ for every pair of parameter families, then "
               "$\\det(PMP^\\top) = \\det(P)^2 \\det(M)$"
               if isinstance(form, GaussNewtonPencil) else
               "an orthogonal similarity: $H_{ab}(T\\theta) = t_a^{-1} t_b^{-1} H_{\\sigma(a)\\sigma(b)}(\\theta)$ for "
               "every pair of parameter families, each $t$ a sign, so $H(T\\theta) = DQ H(\\theta) (DQ)^{-1}$"
               if isinstance(form, HessianSpectrum) else
               "a chain checked by the kernel: a positive scale out of each spectral norm, a sign of one side "
               "dropped, permuted rows or columns put back in order (an orthogonal matrix on one side), the "
               "scales cancel" if isinstance(form, SpectralNormProduct) else
               "the kernel's theorem $\\langle T\\theta, \\nabla\\ell_n(T\\theta)\\rangle = \\langle \\theta, "
               "\\nabla\\ell_n(\\theta)\\rangle$: the chain rule through the mixing map, "
               "$\\sum_m A_{rm} (\\partial_{Q_{im}} \\ell_n)(T\\theta) = \\partial_{Q_{ir}}[\\ell_n(T\\theta)]$, "
               "then $\\ell_n \\circ T = \\ell_n$"
               if isinstance(form, SampleDirectionalSum) and EVERY_SIZE[group].mixing is not None else
               "a chain checked by the kernel: Theorem 3's law for each derivative the measure reads, "
               "sums over permuted units reindexed, positive scales out of $|\\cdot|$ and out of sums, "
               "the scales cancel")
        derivation.add([verdict], f"{escape(measure)} under {escape(group)}: {how}; cross-checked on the audit's "
                       "families")
    shown = invariance_chain(MEASURES["normalized_flatness"].evaluate, LOSS_FUNCTION, T_ALPHA,
                             EVERY_SIZE["layerwise"].loss_lemma, "normalized flatness under T_alpha")
    all_sizes.add_chain(derivation, shown, "the measure at $T_\\alpha\\theta$, as the audit defines it")
    all_sizes.add_chain(derivation, permutation_chain(),
                        "the permutation: $\\theta^{(1)}_{ij} \\mapsto \\theta^{(1)}_{i\\pi(j)}$, "
                        "$b^{(1)}_j \\mapsto b^{(1)}_{\\pi(j)}$, $\\theta^{(2)}_j \\mapsto \\theta^{(2)}_{\\pi(j)}$")
    all_sizes.add_chain(derivation, affine_scale_chain(),
                        "the affine scale of batch normalization: $\\gamma_j \\mapsto c\\gamma_j$, "
                        "$\\beta_j \\mapsto c\\beta_j$, $v_j \\mapsto v_j / c$, $c > 0$; "
                        "$\\mathrm{BN}(z)_{nj}$ as defined above, which the map does not touch")
    sign_flip = EVERY_SIZE["sign_flip"]
    all_sizes.add_chain(derivation, invariance_chain(MEASURES["spectral_norm_product"].evaluate, sign_flip.function,
                                                     T_SIGN, sign_flip.loss_lemma, "spectral norms under T_sigma",
                                                     sign_flip.network),
                        "the product of the layers' squared spectral norms at $T_\\sigma\\theta$, each norm "
                        "binding its matrix's indices")
    all_sizes.add_chain(derivation, attention_chain(),
                        "the attention head: $Q_{im} \\mapsto \\sum_r Q_{ir} A_{rm}$, $K_{lm} \\mapsto \\sum_s "
                        "K_{ls} B_{sm}$, $v \\mapsto v$, under the hypothesis $\\sum_m A_{rm} B_{sm} = \\delta_{rs}$ "
                        "($A B^\\top = I$); $x_n$ and $x'_n$ the two tokens")
    all_sizes.add_chain(derivation, sign_flip_chain(),
                        "the sign flip: $\\theta^{(1)}_{ij} \\mapsto \\sigma_j \\theta^{(1)}_{ij}$, "
                        "$b^{(1)}_j \\mapsto \\sigma_j b^{(1)}_j$, $\\sigma_j = (-1)^{e_j}$, the output layer left alone")
    derivation.notes.append(
        "In front of a normalization, $W \\mapsto cW$: the kernel checks a chain of "
        f"{len(batch_norm_chain().steps)} steps for batch normalization (and as many for layer normalization): "
        "$c$ out of each pre-activation and each mean (sum factor), out of each centred value and each square "
        "(arithmetic), $c^2$ out of the variance's sum, then $\\operatorname{rsqrt}(c^2 s) = c^{-1} "
        "\\operatorname{rsqrt}(s)$ (root homogeneity) and $c \\cdot c^{-1} = 1$.")
    derivation.every_size = True
    derivation.sizes = []
    derivation.notes.append(
        "Negative controls, each refused at the step that fails (and refuted by the audit on a concrete "
        "network): " + "; ".join(f"{escape(key)} under layerwise: {_control_reason(key)}" for key in NEGATIVE_CONTROLS)
        + "".join(f"; {escape(key)} under {escape('per_neuron')}: " + escape(every_size_verdict(key, "per_neuron").reason)
                  for key in ("relative_flatness", "spectral_norm_product")) + ".")
    return report


NEGATIVE_CONTROLS = ("eps_sharpness", "keskar_sharpness", "adaptive_sharpness_eta", "average_sharpness",
                     "hessian_trace")      # under layerwise; relative flatness and spectral norms under per_neuron too


def _control_reason(key: str) -> str:
    verdict = every_size_verdict(key, "layerwise")
    return escape(verdict.reason if verdict is not None else "no every-size argument")
