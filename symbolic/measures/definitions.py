"""Sharpness and flatness measures as functions of a model's parameters, loss, gradient and Hessian.

A measure is a function ``measure(point) -> value`` of a ``MeasurePoint`` (θ, L, ∇L, ∇²L, the
metric G transported with the parameters, the per-example gradients and the model's layer
structure), all sympy.  Its value is one of
    a sympy expression                     (weight norm, path norm, trace, …),
    ``Spectrum(matrix, reduction)``        (a function of the eigenvalues only: spectral norm,
                                            log pseudo-determinant, the spectrum itself),
    ``Sharpness(scales, norm, normalizer)`` the max-type measure
                                           normalizer · (max_{‖δ/t‖_p ≤ ρ} L(θ+δ) − L(θ)),
    ``AverageSharpness(scales)``           the average-case measure
                                           E_{δ_i ~ N(0, σ² t_i²)} L(θ+δ) − L(θ).
The measures whose every-size proofs read their structure are forms, frozen dataclasses called like
functions (``CoordinateSum``, ``PathSum``, ``LayerNormProduct``, ``SpectralNormProduct``, …): the
index-level term of each is written from its form (``symbolic.every_size.measure_forms``).
A user's own measure is a function of the same kind (see ``symbolic.measures.invariance.check_invariance``).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable

import sympy as sp

REDUCTIONS = ("spectrum", "spectral_norm", "log_pseudo_det")
ASAM_ETA = sp.Rational(1, 100)


@dataclass(frozen=True)
class MeasurePoint:
    """Everything a measure may read at one parameter point θ."""

    theta: list                 # θ_1, …, θ_n
    loss: sp.Expr               # L(θ) = (1/2N) Σ_n (f_θ(x_n) − y_n)²
    gradient: sp.Matrix         # ∇L(θ), a column
    hessian: sp.Matrix          # ∇²L(θ)
    metric: sp.Matrix           # G at θ: I at the base point, transported as J^{-T} G J^{-1}
    sample_gradients: list      # ∇ℓ_n(θ), ℓ_n = ½(f_θ(x_n) − y_n)²
    weights: tuple              # True where θ_i is a weight, False for a bias
    layers: tuple               # parameter indices of each weight matrix
    last_layer_rows: tuple      # rows w_s of the output layer (parameter indices)
    paths: tuple                # input-to-output paths (parameter indices)
    gauss_newton: sp.Matrix = None   # G(θ) = (1/N) Σ_n ∇f_n ∇f_nᵀ, recomputed at every point
    layer_shapes: tuple = ()    # (rows, columns) of each weight matrix, entries row by row


@dataclass(frozen=True)
class Spectrum:
    """A function of the eigenvalues of ``matrix`` (with multiplicity) only; with a ``metric`` B,
    of the generalized eigenvalues of the pencil (matrix, B): the roots of det(matrix − λB), which
    are the eigenvalues of B⁻¹·matrix where B is invertible.  ``factors``, when given, are square
    matrices whose Kronecker product ``matrix`` is (for the exact checks that read it)."""

    matrix: sp.Matrix
    reduction: str = "spectrum"
    metric: sp.Matrix | None = None
    factors: tuple = ()

    def __post_init__(self):
        if self.reduction not in REDUCTIONS:
            raise ValueError(f"unknown reduction {self.reduction!r}; choose from {', '.join(REDUCTIONS)}")


@dataclass(frozen=True)
class Sharpness:
    """normalizer · (max over {δ : ‖(δ_i / t_i)_i‖_p ≤ ρ} of L(θ + δ) − L(θ)), t_i = scales[i] > 0
    (p = 2 or "inf"); the radius ρ is a positive number chosen by the audit."""

    scales: list
    norm: object = 2
    normalizer: sp.Expr = sp.S.One

    def __post_init__(self):
        if self.norm not in (2, "inf"):
            raise ValueError("the sharpness norm must be 2 or 'inf'")


@dataclass(frozen=True)
class AverageSharpness:
    """E over independent δ_i ~ N(0, σ² t_i²) of L(θ + δ) − L(θ), t_i = scales[i] ≥ 0 (t_i = 0
    leaves θ_i unperturbed); the standard deviation σ is a positive number chosen by the audit."""

    scales: list


@dataclass(frozen=True)
class Measure:
    key: str
    title: str
    formula: str                 # LaTeX (math mode)
    evaluate: Callable
    note: str = ""
    source: str = ""             # the paper or reference code the definition follows


@dataclass(frozen=True)
class CoordinatewiseSharpness:
    """A sharpness whose scales are read coordinate by coordinate, t_i = scale(θ_i, θ_i is a weight):
    the max over a ball (``norm`` 2) or a box (``norm`` "inf") of ``Sharpness``, or the Gaussian
    average of ``AverageSharpness`` (``gaussian``); ``normalizer`` is a function of the loss value
    L(θ) alone.  One rule for every coordinate is what lets the change of variables be argued for
    every size (``symbolic.every_size.change_of_variables``)."""

    scale: Callable
    norm: object = 2
    gaussian: bool = False
    normalizer: Callable | None = None

    def scales(self, p: MeasurePoint) -> list:
        return [sp.sympify(self.scale(t, is_weight)) for t, is_weight in zip(p.theta, p.weights)]

    def __call__(self, p: MeasurePoint) -> Sharpness | AverageSharpness:
        if self.gaussian:
            return AverageSharpness(self.scales(p))
        normalizer = sp.S.One if self.normalizer is None else self.normalizer(p.loss)
        return Sharpness(self.scales(p), self.norm, normalizer)


@dataclass(frozen=True)
class CoordinateSum:
    """Σ_i term(θ_i, D_i): each coordinate with its own derivative of the loss, by one rule; D_i is
    ∂²L/∂θ_i² (``order`` 2), ∂L/∂θ_i (1), or absent (0, the term reads θ_i alone)."""

    term: Callable
    order: int = 2

    def derivative(self, p: MeasurePoint, i: int) -> sp.Expr:
        return (sp.S.Zero, p.gradient[i], p.hessian[i, i])[self.order]

    def __call__(self, p: MeasurePoint) -> sp.Expr:
        return sp.Add(*[self.term(p.theta[i], self.derivative(p, i)) for i in range(len(p.theta))])


@dataclass(frozen=True)
class SampleCoordinateSum:
    """(1/N) Σ_n Σ_i term(θ_i, ∂ℓ_n/∂θ_i): each example's gradient, coordinate by coordinate."""

    term: Callable

    def __call__(self, p: MeasurePoint) -> sp.Expr:
        return sp.Add(*[self.term(t, g_i) for g in p.sample_gradients for t, g_i in zip(p.theta, g)]) \
            / len(p.sample_gradients)


@dataclass(frozen=True)
class HessianSpectrum:
    """A function of the Hessian's eigenvalues alone: its spectral norm, its log pseudo-determinant,
    or its Frobenius norm (sqrt Σ λ² for a symmetric matrix, computed from the entries)."""

    reduction: str

    def __post_init__(self):
        if self.reduction not in ("spectral_norm", "log_pseudo_det", "frobenius"):
            raise ValueError(f"unknown reduction {self.reduction!r}")

    def __call__(self, p: MeasurePoint):
        if self.reduction == "frobenius":
            return sp.sqrt(sp.Add(*[entry ** 2 for entry in p.hessian]))
        return Spectrum(p.hessian, self.reduction)


@dataclass(frozen=True)
class PathSum:
    """outer(Σ_paths ∏_{e ∈ path} edge(θ_e)) over the input-to-output paths of the network."""

    edge: Callable
    outer: Callable | None = None

    def __call__(self, p: MeasurePoint) -> sp.Expr:
        total = sp.Add(*[sp.Mul(*[self.edge(p.theta[e]) for e in path]) for path in p.paths])
        return total if self.outer is None else self.outer(total)


@dataclass(frozen=True)
class SampleDirectionalSum:
    """(1/N) Σ_n outer(⟨θ, ∇ℓ_n(θ)⟩): each example's loss differentiated along θ itself."""

    outer: Callable

    def __call__(self, p: MeasurePoint) -> sp.Expr:
        theta = sp.Matrix(p.theta)
        return sp.Add(*[self.outer((theta.T * g)[0, 0]) for g in p.sample_gradients]) / len(p.sample_gradients)


def _one(theta, is_weight):
    return sp.S.One


def _magnitude(theta, is_weight):
    return sp.Abs(theta)


def _magnitude_plus_one(theta, is_weight):
    return sp.Abs(theta) + 1


def _weight_magnitude_plus_eta(theta, is_weight):
    """As in the reference code: T_w = |w| + η (η = 0.01) on weights; biases not normalized."""
    return sp.Abs(theta) + ASAM_ETA if is_weight else sp.S.One


def _sharpness_normalizer(loss):
    return 1 / (1 + loss)


def _keskar_normalizer(loss):
    return 100 / (1 + loss)


def _square(theta):
    return theta ** 2


def _curvature(theta, second_derivative):
    return second_derivative


def _scaled_curvature(theta, second_derivative):
    return theta ** 2 * second_derivative


normalized_flatness = CoordinateSum(_scaled_curvature)
path_norm = PathSum(_square, sp.sqrt)                  # (Σ_paths ∏ θ_e²)^{1/2}: p = 2
path_norm_l1 = PathSum(sp.Abs)                         # Σ_paths ∏ |θ_e|: the ℓ1 path norm
# ⟨θ, I(θ) θ⟩ with the empirical Fisher I = (1/N) Σ_n ∇ℓ_n ∇ℓ_nᵀ: (1/N) Σ_n ⟨θ, ∇ℓ_n⟩²
fisher_rao_norm = SampleDirectionalSum(_square)


@dataclass(frozen=True)
class LayerNormProduct:
    """∏_k ‖W_k‖_F over the weight matrices (biases excluded)."""

    def __call__(self, p: MeasurePoint) -> sp.Expr:
        return sp.Mul(*[sp.sqrt(sp.Add(*[p.theta[i] ** 2 for i in layer])) for layer in p.layers])


layer_norm_product = LayerNormProduct()


@dataclass(frozen=True)
class RelativeFlatness:
    """Petzka et al.: κ_Tr(w) = Σ_{s,s'} ⟨w_s, w_s'⟩ Tr(H_{s,s'}) on the output layer, w_s its rows."""

    def __call__(self, p: MeasurePoint) -> sp.Expr:
        rows = p.last_layer_rows
        return sp.Add(*[sp.Add(*[p.theta[a] * p.theta[b] for a, b in zip(r, q)])
                        * sp.Add(*[p.hessian[a, b] for a, b in zip(r, q)]) for r in rows for q in rows])


relative_flatness = RelativeFlatness()


@dataclass(frozen=True)
class OutputNormTrace:
    """The regularizer code's variant of relative flatness: ‖w‖_F · Tr(H_w) on the output layer."""

    def __call__(self, p: MeasurePoint) -> sp.Expr:
        layer = [i for row in p.last_layer_rows for i in row]
        return sp.sqrt(sp.Add(*[p.theta[i] ** 2 for i in layer])) * sp.Add(*[p.hessian[i, i] for i in layer])


relative_flatness_unsquared = OutputNormTrace()


def _squared_derivative(theta, derivative):
    return derivative ** 2


def _squared_coordinate(theta, derivative):
    return theta ** 2


weight_norm = CoordinateSum(_squared_coordinate, order=0)           # ‖θ‖²
gradient_norm = CoordinateSum(_squared_derivative, order=1)         # ‖∇L‖²
# Tr I(θ) for the empirical Fisher I = (1/N) Σ_n ∇ℓ_n ∇ℓ_nᵀ: (1/N) Σ_n ‖∇ℓ_n‖²
fisher_trace = SampleCoordinateSum(_squared_derivative)


def _layer_gram(p: MeasurePoint, layer: tuple, shape: tuple) -> sp.Matrix:
    """The smaller Gram matrix of a weight matrix W (WᵀW or WWᵀ): its largest eigenvalue is ‖W‖₂²."""
    rows, cols = shape
    W = sp.Matrix(rows, cols, [p.theta[i] for i in layer])
    return W.T * W if cols <= rows else W * W.T


@dataclass(frozen=True)
class SpectralNormProduct:
    """∏_k ‖W_k‖₂² over the weight matrices (biases excluded), as the largest eigenvalue of ⊗_k G_k,
    G_k the Gram matrix of W_k: the eigenvalues of a Kronecker product of positive semidefinite
    matrices are the products of theirs, so its largest is ∏_k λ_max(G_k) = ∏_k ‖W_k‖₂²."""

    def __call__(self, p: MeasurePoint) -> Spectrum:
        grams = [_layer_gram(p, layer, shape) for layer, shape in zip(p.layers, p.layer_shapes)]
        product = grams[0]
        for gram in grams[1:]:
            product = sp.kronecker_product(product, gram)
        return Spectrum(product, "spectral_norm", factors=tuple(grams))


spectral_norm_product = SpectralNormProduct()


@dataclass(frozen=True)
class GaussNewtonPencil:
    """A function (``reduction``) of the generalized eigenvalues of (H, G), G(θ) = (1/N) Σ_n ∇f_n ∇f_nᵀ
    the Gauss–Newton matrix, a function of θ."""

    reduction: str = "spectrum"

    def __call__(self, p: MeasurePoint) -> Spectrum:
        return Spectrum(p.hessian, self.reduction, p.gauss_newton)


gauss_newton_pencil = GaussNewtonPencil()


MEASURES = {m.key: m for m in [
    Measure("hessian_spectral_norm", "Hessian spectral norm", r"\|\nabla^2 L(\theta)\|_2",
            HessianSpectrum("spectral_norm")),
    Measure("hessian_trace", "Hessian trace", r"\operatorname{Tr} \nabla^2 L(\theta)",
            CoordinateSum(_curvature)),
    Measure("hessian_frobenius", "Hessian Frobenius norm", r"\|\nabla^2 L(\theta)\|_F", HessianSpectrum("frobenius")),
    Measure("hessian_log_pseudo_det", "log pseudo-determinant of the Hessian",
            r"\sum_{\lambda \ne 0} \log|\lambda(\nabla^2 L)|", HessianSpectrum("log_pseudo_det")),
    Measure("eps_sharpness", "$\\epsilon$-sharpness (Definition 2)",
            r"\frac{\max_{\|\delta\|_2 \le \epsilon} L(\theta + \delta) - L(\theta)}{1 + L(\theta)}",
            CoordinatewiseSharpness(_one, 2, normalizer=_sharpness_normalizer)),
    Measure("keskar_sharpness", "Keskar sharpness (box, full space)",
            r"100\,\frac{\max_{|\delta_i| \le \epsilon(|\theta_i| + 1)} L(\theta + \delta) - L(\theta)}"
            r"{1 + L(\theta)}", CoordinatewiseSharpness(_magnitude_plus_one, "inf", normalizer=_keskar_normalizer)),
    Measure("weight_norm", "squared weight norm", r"\|\theta\|_2^2", weight_norm),
    Measure("layer_norm_product", "product of layer norms", r"\prod_k \|W_k\|_F", layer_norm_product),
    Measure("path_norm", "path norm ($p = 2$)", r"\bigl(\sum_{\text{paths}} \prod_{e} \theta_e^2\bigr)^{1/2}",
            path_norm),
    Measure("fisher_rao_norm", "Fisher--Rao norm (empirical Fisher)",
            r"\frac1N \sum_n \langle \theta, \nabla \ell_n(\theta) \rangle^2", fisher_rao_norm),
    Measure("adaptive_sharpness", "adaptive sharpness (element-wise, $\\eta = 0$)",
            r"\max_{\|\delta / |\theta|\|_2 \le \rho} L(\theta + \delta) - L(\theta)",
            CoordinatewiseSharpness(_magnitude)),
    Measure("adaptive_sharpness_eta", "adaptive sharpness as in the reference code ($\\eta = 0.01$)",
            r"\max_{\|\delta / (|w| + \eta)\|_2 \le \rho} L(\theta + \delta) - L(\theta)",
            CoordinatewiseSharpness(_weight_magnitude_plus_eta), "biases are not normalized"),
    Measure("normalized_flatness", "normalized flatness", r"\sum_i \theta_i^2 \, \partial^2_{\theta_i} L",
            normalized_flatness),
    Measure("relative_flatness", "relative flatness (squared norms)",
            r"\sum_{s, s'} \langle w_s, w_{s'} \rangle \operatorname{Tr} H_{s, s'}", relative_flatness,
            "on the output layer"),
    Measure("relative_flatness_unsquared", "relative flatness, unsquared (regularizer code)",
            r"\|w\|_F \operatorname{Tr} H_w", relative_flatness_unsquared, "on the output layer"),
    Measure("metric_hessian_spectrum", "spectrum of $G(\\theta)^{-1}H$, $G$ the Gauss--Newton matrix",
            r"\{\lambda : \det(\nabla^2 L(\theta) - \lambda G(\theta)) = 0\},\ "
            r"G(\theta) = \tfrac1N \sum_n \nabla f_\theta(x_n) \nabla f_\theta(x_n)^\top",
            gauss_newton_pencil, "the generalized eigenvalues of the pencil; $G$ is a function of $\\theta$",
            "Kristiadi et al. 2023 (the geometry of neural nets' parameter spaces under reparametrization)"),
    Measure("average_sharpness", "average sharpness (Gaussian, $\\sigma$ fixed)",
            r"\mathbb{E}_{\delta \sim N(0, \sigma^2 I)} L(\theta + \delta) - L(\theta)",
            CoordinatewiseSharpness(_one, gaussian=True), "$\\sigma = 1/10$",
            "Neyshabur et al. 2017; Jiang et al. 2020 (pacbayes.sharpness)"),
    Measure("adaptive_average_sharpness", "adaptive average sharpness",
            r"\mathbb{E}_{\delta_i \sim N(0, \sigma^2 \theta_i^2)} L(\theta + \delta) - L(\theta)",
            CoordinatewiseSharpness(_magnitude, gaussian=True), "$\\sigma = 1/10$, every parameter",
            "Andriushchenko et al. 2023 (average case, $c = |w|$); Jiang et al. 2020 (pacbayes.mag.sharpness, "
            "$\\epsilon = 0$)"),
    Measure("adaptive_sharpness_inf", "adaptive sharpness, $\\ell_\\infty$ ball ($\\eta = 0$)",
            r"\max_{\|\delta / |\theta|\|_\infty \le \rho} L(\theta + \delta) - L(\theta)",
            CoordinatewiseSharpness(_magnitude, "inf"), "every parameter",
            "Andriushchenko et al. 2023 (the default worst case); Kwon et al. 2021 (ASAM)"),
    Measure("spectral_norm_product", "product of spectral norms (squared)",
            r"\prod_k \|W_k\|_2^2", spectral_norm_product,
            "computed as $\\lambda_{\\max}(\\otimes_k W_k^\\top W_k)$; biases excluded",
            "Bartlett et al. 2017 (the spectral complexity's product term)"),
    Measure("fisher_trace", "trace of the empirical Fisher",
            r"\operatorname{Tr} \tfrac1N \sum_n \nabla \ell_n \nabla \ell_n^\top", fisher_trace,
            "", "Jastrzebski et al. 2021 (Fisher trace); Liang et al. 2019 (the empirical Fisher)"),
    Measure("path_norm_l1", "path norm ($p = 1$)", r"\sum_{\text{paths}} \prod_e |\theta_e|",
            path_norm_l1, "bias paths included", "Neyshabur, Tomioka and Srebro 2015"),
    Measure("gradient_norm", "squared gradient norm", r"\|\nabla L(\theta)\|_2^2", gradient_norm,
            "", "Zhao et al. 2022 (gradient norm penalty)"),
]}

# where each of the first sixteen measures comes from (the seven above name theirs)
_SOURCES = {
    "hessian_spectral_norm": "Dinh et al. 2017, Section 2 (the spectral norm of the Hessian)",
    "hessian_trace": "Dinh et al. 2017, Section 2 (the trace of the Hessian)",
    "hessian_frobenius": "Jiang et al. 2020 (a Hessian-based measure); Frobenius norm",
    "hessian_log_pseudo_det": "Dinh et al. 2017, Section 5 (non-zero eigenvalues); the log volume of "
                              "the Laplace approximation",
    "eps_sharpness": "Dinh et al. 2017, Definition 2",
    "keskar_sharpness": "Keskar et al. 2017, Metric 2.1 (full space, $A = I$)",
    "weight_norm": "weight decay's penalty; Neyshabur et al. 2017",
    "layer_norm_product": "Neyshabur, Tomioka and Srebro 2015 (product of Frobenius norms)",
    "path_norm": "Neyshabur, Tomioka and Srebro 2015 ($\\ell_2$ path norm)",
    "fisher_rao_norm": "Liang, Poggio, Rakhlin and Stokes 2019",
    "adaptive_sharpness": "Kwon et al. 2021 (ASAM, element-wise, $\\eta = 0$); Andriushchenko et al. 2023",
    "adaptive_sharpness_eta": "Kwon et al. 2021, the reference code asam.py ($\\eta = 0.01$, weights only)",
    "normalized_flatness": "Tsuzuku, Sato and Sugiyama 2020: the element-wise variant "
                           "$\\sum_i \\theta_i^2 H_{ii}$, not their optimized row and column scales",
    "relative_flatness": "Petzka et al. 2021, $\\kappa_{Tr}$ on the output layer",
    "relative_flatness_unsquared": "Petzka et al., the authors' regularizer code (unsquared norm)",
}
MEASURES = {key: (measure if measure.source else replace(measure, source=_SOURCES.get(key, "")))
            for key, measure in MEASURES.items()}
