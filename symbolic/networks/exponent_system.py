"""The exponent system of a model: which positive diagonal rescalings θ_p ↦ e^{s_p}·θ_p carry every
value of the forward pass to a positive multiple of itself and leave the output unchanged.

The forward pass runs on ``Scale`` elements: each value of the network is replaced by its
log-scale, a linear form in the exponents s (a parameter has s_p, an input 0).  A product adds the
forms; a sum asks its terms to carry the same form (a linear equation); a positively homogeneous
activation (ReLU, leaky ReLU of any slope, |·|) keeps the form, since σ(e^u·a) = e^u·σ(a); a max asks
its candidates for one form; a power a^q of a positive value (a normalisation's 1/sqrt(σ² + ε))
multiplies it by q; a softmax asks every score for the form 0; tanh, homogeneous of no degree, asks for the form 0; each of the K
outputs' forms is 0.  Every solution s of the equations is a rescaling under which f is invariant (by induction
along the forward pass); the solution space is therefore contained in the Lie algebra of the
group.  That it is all of it is not claimed here: ``symbolic.networks.log_scale_jacobian`` bounds
the algebra from above.
"""
from __future__ import annotations

from fractions import Fraction
from math import gcd, lcm

import flint
import sympy as sp

from symbolic.networks.model import LeakyReLU, Model, Nonlinearity, Tanh
from symbolic.networks.model import Abs as AbsLayer, ReLU as ReLULayer
from symbolic.errors import CheckerError

HOMOGENEOUS = (ReLULayer, LeakyReLU, AbsLayer)   # σ(c·a) = c·σ(a) for every c > 0


class NotHomogeneous(CheckerError):
    """An activation of the model whose scaling behaviour the system does not know."""


class Scale:
    """A value of the forward pass seen only through its log-scale: {parameter index: coefficient}."""

    def __init__(self, system: "ExponentSystem", form: dict):
        self.system, self.form = system, form

    def __mul__(self, other):
        if not isinstance(other, Scale):
            return self                     # a rational constant does not rescale
        form = dict(self.form)
        for p, k in other.form.items():
            form[p] = form.get(p, 0) + k
        return Scale(self.system, {p: k for p, k in form.items() if k})

    __rmul__ = __mul__

    def __add__(self, other):
        if isinstance(other, Scale):
            # both terms must be scaled alike
            self.system.equal(self.form, other.form)
        elif other != 0:
            self.system.equal(self.form, {})     # a non-zero constant term is never rescaled
        return self

    __radd__ = __add__


class _Scaling(Nonlinearity):
    """How each nonlinearity acts on log-scales."""

    def __init__(self, system: "ExponentSystem"):
        self.system = system

    def unit(self, layer, site, s):
        if isinstance(layer, HOMOGENEOUS):
            return self.system.unit_scale(s)
        if isinstance(layer, Tanh):
            # tanh(c·a) = tanh(a) for all a only when c = 1
            self.system.equal(s.form, {})
            return s
        raise NotHomogeneous(f"no scaling rule for {layer.describe()}")

    def maximum(self, layer, site, candidates):
        for other in candidates[1:]:
            self.system.equal(candidates[0].form, other.form)
        return self.system.unit_scale(candidates[0])

    def softmax(self, layer, site, scores):
        # exp(c·s) = exp(s) for all s only when c = 1: every score keeps its scale; the weights
        # are not rescaled
        for score in scores:
            self.system.equal(score.form, {})
        return [Scale(self.system, {}) for _ in scores]

    def power(self, layer, site, value, exponent):
        # (e^w·a)^q = e^{q·w}·a^q for a > 0: a new log-scale u with den(q)·u = num(q)·w
        return self.system.power_scale(value, Fraction(exponent.p, exponent.q))

    def constant(self, value):
        return value


class ExponentSystem:
    """The equations on the exponents s_1, …, s_n (one per entry of θ, in ``model.parameters``
    order) and on one log-scale u per nonlinearity (the scale of its input, which it passes on),
    built by one forward pass on log-scales."""

    def __init__(self, model: Model):
        self.model = model
        self.size = len(model.parameters)
        self.equations: set[tuple] = set()
        self.unit_count = 0
        index = 0
        params = {}
        for name, (rows, columns) in model.shapes.items():
            params[name] = [[Scale(self, {index + i * columns + j: 1}) for j in range(columns)]
                            for i in range(rows)]
            index += rows * columns
        signal = [[Scale(self, {}) for _ in row] for row in model.input()]
        # every output is unchanged (with K outputs, K equations; an output bias b_k, a sum's term
        # next to the weighted units, is thereby asked for the form 0: it adds no scale)
        for output in model.forward_outputs(signal, params, _Scaling(self)):
            self.equal(output.form, {})

    def unit_scale(self, value: Scale) -> Scale:
        """A new unknown u for the scale of a nonlinearity's input, tied to it by an equation."""
        u = {self.size + self.unit_count: 1}
        self.unit_count += 1
        self.equal(value.form, u)
        return Scale(self, u)

    def power_scale(self, value: Scale, exponent: Fraction) -> Scale:
        """A new unknown u for the log-scale of value^exponent: denominator·u = numerator·form."""
        u = self.size + self.unit_count
        self.unit_count += 1
        self.equal({p: k * exponent.numerator for p, k in value.form.items()}, {u: exponent.denominator})
        return Scale(self, {u: 1})

    def equal(self, left: dict, right: dict) -> None:
        self.equations.add((tuple(sorted(left.items())), tuple(sorted(right.items()))))

    def matrix_rows(self) -> list[list[int]]:
        """The equations as rows over (s_1, …, s_n, u_1, …, u_m)."""
        rows = set()
        for left, right in self.equations:
            row = [0] * (self.size + self.unit_count)
            for p, k in left:
                row[p] += k
            for p, k in right:
                row[p] -= k
            if any(row):
                rows.add(tuple(row))
        return sorted(rows)

    def solution_basis(self) -> list[list[int]]:
        """A basis of the solutions' exponents s with integer entries.

        The parameters' columns come first (eliminated first), the units' scales u last, so the
        free unknowns are units' scales wherever they determine the exponents: for a layered
        network the basis is the familiar one, +1 on a unit's incoming weights and bias, −1 on its
        outgoing weights.  Distinct solutions have distinct exponents (u is a form in s), so the
        vectors stay independent when u is dropped."""
        width = self.size + self.unit_count
        order = list(range(self.size))[::-1] + list(range(self.size, width))
        rows = self.matrix_rows()
        pivots = []
        if rows:
            matrix = flint.fmpq_mat(len(rows), width, [row[p] for row in rows for p in order])
            reduced, rank = matrix.rref()
            for r in range(rank):
                pivots.append(next(c for c in range(width) if reduced[r, c] != 0))
        basis = []
        for f in (c for c in range(width) if c not in pivots):
            vector = [Fraction(0)] * width
            vector[order[f]] = Fraction(1)
            for r, c in enumerate(pivots):
                value = reduced[r, f]
                vector[order[c]] = -Fraction(int(value.p), int(value.q))
            exponents = integer_vector(vector[:self.size])
            if any(exponents):          # never 0 (see above); a zero vector would generate nothing
                basis.append(exponents)
        return basis


def absent_parameters(model: Model) -> list[int]:
    """The indices of the parameters that no prediction contains (for a model that normalises over
    its batch, no prediction of a batch of two): a bias before a batch normalisation over the batch
    cancels from (z − μ) altogether.  f does not depend on such a θ_p, so θ_p ↦ c·θ_p alone leaves
    it unchanged, whatever the equations on log-scales say (they see terms, not cancellations).
    Only a proposal: each generator is proved by ``check_symmetry``."""
    if model.batch_dependent:
        outputs = [p for example in model.batch_predictions([model.input(1), model.input(2)]) for p in example]
    else:
        outputs = model.predictions()
    present = set().union(*(sp.sympify(p).free_symbols for p in outputs))
    return [k for k, p in enumerate(model.parameters) if p not in present]


def with_absent_parameters(basis: list[list[int]], absent: list[int], size: int) -> list[list[int]]:
    """An integer basis of span(basis) + span{e_p : p absent}: each vector with its absent entries
    set to 0 (e_p being in the algebra, v − Σ v_p e_p is), the independent ones kept, then e_p for
    each absent p."""
    if not absent:
        return basis
    projected = [[0 if p in absent else k for p, k in enumerate(vector)] for vector in basis]
    # a vector and its negative generate one group: the first non-zero exponent positive
    projected = [[-k for k in v] if next((k for k in v if k), 0) < 0 else v for v in projected]
    kept, rank = [], 0
    for vector in projected:
        rows = kept + [vector]
        if any(vector) and flint.fmpq_mat(len(rows), size, [k for row in rows for k in row]).rank() > rank:
            kept.append(vector)
            rank += 1
    return kept + [[1 if q == p else 0 for q in range(size)] for p in absent]


def integer_vector(vector) -> list[int]:
    """The vector times the least common denominator, divided by the gcd of its entries."""
    scale = lcm(*(Fraction(v).denominator for v in vector)) if vector else 1
    integers = [int(Fraction(v) * scale) for v in vector]
    common = gcd(*integers) or 1
    return [k // common for k in integers]

