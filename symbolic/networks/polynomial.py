"""The network on a fixed activation pattern, as exact polynomials (python-flint ``fmpz_mpoly``).

Off the kink set every pre-activation s_nj = Σ_i x_ni W_ij (+ b_j) has a sign, and ReLU(s_nj) =
σ_nj·s_nj with σ_nj ∈ {0, 1}.  Keeping σ_nj as indeterminates proves all 2^{Nh} patterns at once:
a polynomial identity in free σ holds in particular for σ ∈ {0, 1}.  The generator ᾱ stands for
1/α, and zero tests are made in the Laurent ring (``zero.laurent_is_zero``).

α-weights.  T_α multiplies each generator by α^e (e = 1 on W, −1 on v, 0 on data and patterns),
so a monomial m becomes α^{wt(m)}·m with wt(m) = Σ_i e_i·(exponent of generator i), and for a
polynomial P = Σ_m c_m m: P(T_αθ) = Σ_m c_m α^{wt(m)} m.  Distinct monomials stay distinct, so
P(T_αθ) = α^c·P(θ) holds in the Laurent ring exactly when every monomial of P has weight c: reading
exponents is an exact test of that identity, with no composition (``alpha_weights``).

The loss is stored multiplied by a positive integer ``scale`` (N for the mean losses, 2 for the
quadratic) so that every coefficient is an integer; an identity ∂L(T_αθ) = c·∂L(θ) holds for L
exactly when it holds for scale·L.  Integer polynomials compose about a quarter faster.
"""
from __future__ import annotations

import operator
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property

import flint

from symbolic.networks.network import validate_sizes
from symbolic.decision.zero import laurent_is_zero


# the α-exponent a parameter group's factor stands for: α, 1/α or 1
EXPONENTS = {"a": 1, "abar": -1, 1: 0}


def alpha_weights(poly, exponents) -> set[int]:
    """The α-weights of poly's monomials when generator i is multiplied by α^exponents[i] (the
    empty set for the zero polynomial).  ``exponents`` is a list, or ``WeightReader(list)``
    when many polynomials are read."""
    reader = exponents if isinstance(exponents, WeightReader) else WeightReader(exponents)
    return {reader.weight(monomial) for monomial in poly.monoms()}


class WeightReader:
    """Σ_i e_i·(exponent of generator i) of a monomial: the generators grouped by their α-exponent
    e, each group's exponents picked out of the monomial and summed."""

    def __init__(self, exponents):
        self.exponents = list(exponents)
        groups = {}
        for i, e in enumerate(self.exponents):
            if e:
                groups.setdefault(e, []).append(i)
        self.pickers = [(e, lambda monomial, index=index: [monomial[i] for i in index]
                         if len(index) == 1 else operator.itemgetter(*index)(monomial))
                        for e, index in groups.items()]

    def weight(self, monomial) -> int:
        return sum(e * sum(pick(monomial)) for e, pick in self.pickers)


@dataclass
class PatternNetwork:
    """One hidden layer, d inputs, h units, N data points, symbolic data and patterns.

    ``loss`` is "mse" (mean squared error with symbolic targets y_n), "quadratic" (a generic
    quadratic in the predictions with symbolic coefficients c_n, C_nm: every 2-jet of every smooth
    loss of N evaluations) or "logistic" (binary cross-entropy (1/N) Σ softplus(f_n) − t_n f_n on
    the logit f_n; the generator P_n stands for sigmoid(f_n), so that softplus' = P_n and
    sigmoid' = P_n(1 − P_n) make every derivative a polynomial).  With ``bias`` every unit gets a
    bias b_j, a parameter like W and v.
    """

    d: int
    h: int
    n: int
    loss: str = "mse"
    bias: bool = False
    names: list = field(init=False)

    def __post_init__(self):
        validate_sizes(d=self.d, h=self.h, N=self.n)
        if self.loss not in ("mse", "quadratic", "logistic"):
            raise ValueError(f"unknown polynomial loss {self.loss!r}")
        d, h, n = self.d, self.h, self.n
        self.weight_names = [f"W_{i + 1}_{j + 1}" for i in range(d) for j in range(h)]
        self.bias_names = [f"b_{j + 1}" for j in range(h)] if self.bias else []
        self.output_names = [f"v_{j + 1}" for j in range(h)]
        data = [f"x_{k + 1}_{i + 1}" for k in range(n) for i in range(d)]
        data += [f"y_{k + 1}" for k in range(n)]
        sigmoids = [f"P_{k + 1}" for k in range(n)] if self.loss == "logistic" else []
        patterns = [f"sigma_{k + 1}_{j + 1}" for k in range(n) for j in range(h)]
        coefficients = []
        if self.loss == "quadratic":
            coefficients = [f"c_{k + 1}" for k in range(n)]
            coefficients += [f"C_{k + 1}_{m + 1}" for k in range(n) for m in range(k, n)]
        # the parameters first: generator k is parameter k
        self.names = (self.weight_names + self.bias_names + self.output_names + data + patterns
                      + sigmoids + coefficients + ["alpha", "alphabar"])

    @cached_property
    def context(self):
        return flint.fmpz_mpoly_ctx.get(tuple(self.names), "lex")

    @property
    def scale(self) -> int:
        """The positive integer the loss is multiplied by to clear denominators."""
        return 2 if self.loss == "quadratic" else self.n

    @cached_property
    def gens(self) -> dict:
        return dict(zip(self.names, self.context.gens()))

    @property
    def parameter_names(self) -> list[str]:
        """θ flattened: W row by row, then b (if any), then v."""
        return self.weight_names + self.bias_names + self.output_names

    @property
    def alpha(self):
        return self.gens["alpha"]

    @property
    def alphabar(self):
        return self.gens["alphabar"]

    def preactivation(self, k: int, j: int):
        g = self.gens
        s = sum(g[f"x_{k + 1}_{i + 1}"] * g[f"W_{i + 1}_{j + 1}"] for i in range(self.d))
        return s + g[f"b_{j + 1}"] if self.bias else s

    def prediction(self, k: int):
        """f(x_k) = Σ_j σ_kj s_kj v_j on the pattern σ."""
        g = self.gens
        return sum(g[f"sigma_{k + 1}_{j + 1}"] * self.preactivation(k, j) * g[f"v_{j + 1}"]
                   for j in range(self.h))

    @cached_property
    def predictions(self) -> list:
        return [self.prediction(k) for k in range(self.n)]

    @cached_property
    def loss_polynomial(self):
        """scale·L, for the polynomial losses (the logistic loss is not a polynomial)."""
        g = self.gens
        predictions = self.predictions
        if self.loss == "logistic":
            raise ValueError("the logistic loss is not a polynomial; use its gradient")
        if self.loss == "mse":
            return sum((p - g[f"y_{k + 1}"]) ** 2 for k, p in enumerate(predictions))
        linear = sum(g[f"c_{k + 1}"] * p for k, p in enumerate(predictions))
        quadratic = sum(g[f"C_{k + 1}_{m + 1}"] * predictions[k] * predictions[m]
                        for k in range(self.n) for m in range(k, self.n))
        return 2 * linear + quadratic

    def _index(self, name: str) -> int:
        return self.names.index(name)

    def total_derivative(self, poly, parameter: str):
        """d/dθ of a polynomial in θ and the sigmoids P_n = sigmoid(f_n(θ)): the chain rule with
        dP_n/dθ = P_n(1 − P_n)·∂f_n/∂θ."""
        result = poly.derivative(self._index(parameter))
        if self.loss == "logistic":
            for k, f in enumerate(self.predictions):
                P = self.gens[f"P_{k + 1}"]
                result += (poly.derivative(self._index(f"P_{k + 1}")) * P * (1 - P)
                           * f.derivative(self._index(parameter)))
        return result

    @cached_property
    def gradient(self) -> list:
        """scale·∂L/∂θ_k for every parameter, by exact differentiation."""
        if self.loss == "logistic":
            # softplus'(f) = sigmoid(f) = P: N ∂L/∂θ = Σ_n (P_n − t_n) ∂f_n/∂θ, t_n = y_n
            return [sum((self.gens[f"P_{k + 1}"] - self.gens[f"y_{k + 1}"]) * f.derivative(self._index(p))
                        for k, f in enumerate(self.predictions))
                    for p in self.parameter_names]
        return [self.loss_polynomial.derivative(self._index(p)) for p in self.parameter_names]

    @cached_property
    def hessian(self) -> dict:
        """scale·∂²L/∂θ_k∂θ_l for k ≤ l, keyed (k, l)."""
        size = len(self.parameter_names)
        return {(k, l): self.hessian_entry(k, l) for k in range(size) for l in range(k, size)}

    def transform_images(self, scale: dict) -> list:
        """Images of every generator under θ ↦ (factor·θ), factor per parameter group."""
        images = []
        for name in self.names:
            group = name.split("_")[0]
            images.append(scale.get(group, 1) * self.gens[name])
        return images

    def weight_exponents(self, exponents: dict) -> list[int]:
        """The α-exponent of every generator, given one per parameter group (others 0)."""
        return [exponents.get(name.split("_")[0], 0) for name in self.names]

    @cached_property
    def prediction_derivatives(self) -> list[dict]:
        """Per data point n, the non-zero ∂f_n/∂θ_k keyed by k: per unit, σ_nj x_ni v_j (W_ij),
        σ_nj (b_j), σ_nj s_nj (v_j); every other parameter leaves f_n unchanged."""
        return [{k: f.derivative(k) for k in self._parameters_in(f)} for f in self.predictions]

    def _parameters_in(self, poly, first: int = 0) -> list[int]:
        """The indices k ≥ first of the parameters that occur in poly (the parameters are the
        first generators, in the order of ``parameter_names``)."""
        degrees = poly.degrees()
        return [k for k in range(first, len(self.parameter_names)) if degrees[k]]

    @cached_property
    def prediction_second_derivatives(self) -> list[dict]:
        """Per data point n, the non-zero ∂²f_n/∂θ_k∂θ_l (k ≤ l) keyed (k, l): a derivative of
        ∂f_n/∂θ_k is taken only in the parameters that occur in it (σ_nj x_ni for (W_ij, v_j))."""
        return [{(k, l): poly.derivative(l) for k, poly in first.items() for l in self._parameters_in(poly, k)}
                for first in self.prediction_derivatives]

    def hessian_entry(self, k: int, l: int):
        """scale·∂²L/∂θ_k∂θ_l for one entry, by exact differentiation of the loss."""
        return self.total_derivative(self.gradient[k], self.parameter_names[l])

    def at(self, poly, images: list):
        """poly evaluated at the transformed parameters."""
        return poly.compose(*images)

    def evaluate(self, poly, values: dict) -> Fraction:
        """poly at rational values given for every generator name."""
        rational = flint.fmpq_mpoly_ctx.get(tuple(self.names), "lex").from_dict(poly.to_dict())
        value = rational(*[flint.fmpq(Fraction(values[name]).numerator, Fraction(values[name]).denominator)
                           for name in self.names])
        return Fraction(int(value.p), int(value.q))

    def to_sympy(self, poly):
        """poly as a sympy expression (α⁻¹ written as 1/α), for display."""
        import sympy as sp
        symbols = [sp.Symbol(name) for name in self.names]
        symbols[-1] = 1 / sp.Symbol("alpha", positive=True)
        symbols[-2] = sp.Symbol("alpha", positive=True)
        return sp.Add(*[sp.Integer(int(c)) / self.scale * sp.Mul(*[s ** e for s, e in zip(symbols, m)])
                        for m, c in zip(poly.monoms(), poly.coeffs())])

    def is_zero(self, poly) -> bool:
        return laurent_is_zero(poly, self.alpha, self.alphabar)
