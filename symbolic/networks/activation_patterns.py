"""Activation patterns of a model, and what a symmetry does to them.

Regularity transport: a map T of the parameters carries every activation region onto a region
when each nonlinearity's input at Tθ is a positive multiple of one nonlinearity's input at θ (for
a max, all candidates by the same multiple, in some order); then sign(κs) = sign(s), and the
pattern σ at Tθ is σ∘π for a permutation π of the sites.  ``transport`` finds π and checks every
relation exactly.

The pattern form: on a region every piecewise-linear nonlinearity is one of its linear pieces,
ReLU(s) = σs, leaky(s) = (a + (1 − a)σ)s, |s| = (2σ − 1)s, max(s_1, …) = Σ τ_m s_m, with σ, τ kept
as indeterminates (an identity in free σ, τ holds for every 0/1 pattern).  The loss is then an
exact polynomial (python-flint ``fmpq_mpoly``) in θ, the data and the pattern, and the gradient
and Hessian laws of a monomial map are exact Laurent-polynomial identities in its group
parameters (``exact_laws``).  This generalises ``symbolic.networks.polynomial`` (one hidden layer, one α)
to any model of ``symbolic.networks.model`` and any number of group parameters.
"""
from __future__ import annotations

import functools

import flint
import sympy as sp

from symbolic.decision.budget import check_budget
from symbolic.networks.model import Abs as AbsLayer, LeakyReLU, Model, Nonlinearity, RealFunctions, ReLU as ReLULayer
from symbolic.decision.zero import is_rational_zero
from symbolic.relu import canonical_relu_form
from symbolic.errors import CheckerError

PIECEWISE_LINEAR = (ReLULayer, LeakyReLU, AbsLayer)     # activations with a pattern form


class _Recorder(RealFunctions):
    """The real forward pass, remembering each nonlinear site's inputs."""

    def __init__(self):
        self.sites = {}

    def unit(self, layer, site, s):
        self.sites[site] = (layer, [s])
        return super().unit(layer, site, s)

    def maximum(self, layer, site, candidates):
        self.sites[site] = (layer, list(candidates))
        return super().maximum(layer, site, candidates)


def nonlinear_sites(model: Model, values: dict | None = None, x=None) -> dict:
    """site → (layer, inputs) for the real forward pass at θ (or at the tensors ``values``)."""
    recorder = _Recorder()
    tensors = {**model.tensors, **(values or {})}
    model.forward_outputs(model.input() if x is None else x,
                  {k: t.tolist() for k, t in tensors.items()}, recorder)
    return recorder.sites


def _positive_ratio(numerator, denominator, group) -> sp.Expr | None:
    """κ with numerator = κ·denominator exactly, κ > 0 and free of θ and x; else None."""
    if denominator == 0:
        return None
    ratio = sp.cancel(numerator / denominator)
    if not ratio.free_symbols <= set(group) or ratio.is_positive is not True:
        return None
    return ratio if is_rational_zero(numerator - ratio * denominator) else None


@functools.lru_cache(maxsize=16)
def transport(model: Model, symmetry) -> tuple[dict | None, str]:
    """(site at Tθ → (site at θ, permutation of the candidates), how) or (None, why not).

    Each nonlinearity's inputs at Tθ must be κ times the inputs of one nonlinearity of the same
    layer at θ (permuted, for a max), κ > 0: then sign(κs) = sign(s), the unit is active at Tθ
    exactly when its partner is at θ, and the maximum is taken by the corresponding candidate."""
    # ReLU keeps its argument as written: positive factors come out in the canonical form
    at_theta, at_image = ({site: (layer, [canonical_relu_form(c) for c in candidates])
                           for site, (layer, candidates) in sites.items()}
                          for sites in (nonlinear_sites(model),
                                        nonlinear_sites(model, symmetry.tensors())))
    assignment, used = {}, set()
    for site, (layer, candidates) in at_image.items():
        check_budget()
        found = None
        for partner, (partner_layer, partner_candidates) in at_theta.items():
            if partner[0] != site[0] or partner in used or len(partner_candidates) != len(candidates):
                continue
            ratio = _positive_ratio(candidates[0], partner_candidates[0], symmetry.group)
            order = [0]
            if ratio is None:
                # the first candidate may correspond to another one of the partner's
                for k in range(1, len(partner_candidates)):
                    ratio = _positive_ratio(candidates[0], partner_candidates[k], symmetry.group)
                    if ratio is not None:
                        order = [k]
                        break
            if ratio is None:
                continue
            for candidate in candidates[1:]:
                match = next((k for k, other in enumerate(partner_candidates) if k not in order
                              and is_rational_zero(candidate - ratio * other)), None)
                if match is None:
                    break
                order.append(match)
            if len(order) == len(candidates):
                found = (partner, order)
                break
        if found is None:
            return None, (f"the input of {site_name(layer, site)} at T theta is not a positive "
                          "multiple of any input at theta: T need not map activation regions onto "
                          "regions")
        assignment[site] = found
        used.add(found[0])
    return assignment, (f"{len(assignment)} nonlinear sites: each input at T theta is a positive "
                        "multiple of its partner's at theta (exact identities)")


def site_name(layer, site) -> str:
    """'unit 2 of layer 4 (LeakyReLU(1/10))', counting from 1."""
    path, channel, position = site
    where = f"unit {channel + 1}" + (f", position {position + 1}" if position else "")
    return f"{where} of layer {'.'.join(str(k + 1) for k in path)} ({layer.describe()})"


# --- the pattern form, as exact polynomials -------------------------------------------------------

class NoPatternForm(CheckerError):
    """A nonlinearity without linear pieces (tanh), or a map that is not a Laurent polynomial."""


class PatternForm:
    """The network on an activation pattern, over python-flint's fmpq_mpoly.

    Generators: the parameters, the inputs x_{n,·} of N data points, a pattern indeterminate per
    data point and site (σ for a unit, τ per candidate for a max), the loss coefficients (one per
    prediction, and per pair, for each of the K·N predictions: K outputs at N points), symbolic
    leaky slopes, and each group parameter g with a partner ḡ standing for 1/g."""

    def __init__(self, model: Model, symmetry, n: int, loss: str):
        self.model, self.symmetry, self.n, self.loss = model, symmetry, n, loss
        self.sites = nonlinear_sites(model)
        for layer, candidates in self.sites.values():
            if len(candidates) == 1 and not isinstance(layer, PIECEWISE_LINEAR):
                raise NoPatternForm(f"{layer.describe()} is not piecewise linear")
        self.site_index = {site: k for k, site in enumerate(self.sites)}
        parameters = [str(s) for s in model.parameters]
        inputs = [str(s) for k in range(n) for row in model.input(k + 1) for s in row]
        patterns = [f"pattern_{k}_{m}_{c}" for k in range(n) for m, (_, cands) in
                    enumerate(self.sites.values()) for c in range(len(cands))]
        # one coefficient per prediction: the K·N predictions, point by point, output by output
        count = n * model.outputs
        coefficients = ([f"c_{k}" for k in range(count)] +
                        [f"C_{k}_{m}" for k in range(count) for m in range(k, count)]) if loss == "any" \
            else [f"y_{k}" for k in range(count)]
        slopes = sorted({str(layer.slope) for layer, _ in self.sites.values()
                         if isinstance(layer, LeakyReLU) and sp.sympify(layer.slope).is_Symbol})
        self.group = [str(g) for g in symmetry.group]
        names = parameters + inputs + patterns + coefficients + slopes + self.group + \
            [g + "_bar" for g in self.group]
        if len(set(names)) != len(names):
            raise NoPatternForm("two generators share a name")
        self.context = flint.fmpq_mpoly_ctx.get(tuple(names), "lex")
        self.gens = dict(zip(names, self.context.gens()))
        self.names = names
        self.parameter_names = parameters

    def convert(self, expr):
        """A sympy expression, polynomial in everything but the group parameters, which may also
        appear with negative powers, as an fmpq_mpoly."""
        expr = sp.sympify(expr)
        if expr.is_Rational:
            return self.context.from_dict({(0,) * len(self.names): flint.fmpq(int(expr.p), int(expr.q))})
        if expr.is_Symbol:
            return self.gens[str(expr)]
        if expr.is_Add:
            return sum((self.convert(a) for a in expr.args), self.convert(sp.S.Zero))
        if expr.is_Mul:
            result = self.convert(sp.S.One)
            for a in expr.args:
                result = result * self.convert(a)
            return result
        if expr.is_Pow and expr.exp.is_Integer:
            if expr.exp >= 0:
                return self.convert(expr.base) ** int(expr.exp)
            if expr.base.is_Symbol and str(expr.base) in self.group:
                return self.gens[str(expr.base) + "_bar"] ** int(-expr.exp)
        raise NoPatternForm(f"{expr} is not a Laurent polynomial in the group parameters")

    def loss_polynomial(self, transported: dict | None):
        """L on the pattern (σ at θ, or σ∘π when ``transported`` is the transport)."""
        tensors = {name: [[self.convert(e) for e in row] for row in tensor.tolist()]
                   for name, tensor in self.model.tensors.items()}
        predictions = []
        for k in range(self.n):
            x = [[self.gens[str(s)] for s in row] for row in self.model.input(k + 1)]
            predictions += self.model.forward_outputs(x, tensors, _Pattern(self, k, transported))
        g = self.gens
        count = len(predictions)
        if self.loss == "mse":
            # (1/N) Σ_n Σ_k (f_k − y)², summed over the outputs (the loss of check_symmetry)
            weight = flint.fmpq(1, self.n)
            return sum(((p - g[f"y_{k}"]) ** 2 for k, p in enumerate(predictions)), 0) * weight
        linear = sum((g[f"c_{k}"] * p for k, p in enumerate(predictions)), 0)
        quadratic = sum((g[f"C_{k}_{m}"] * predictions[k] * predictions[m]
                         for k in range(count) for m in range(k, count)), 0)
        return linear + quadratic * flint.fmpq(1, 2)

    def is_zero(self, poly) -> bool:
        """Zero in the Laurent ring: the binomials g·ḡ − 1 have coprime leading monomials, so
        they form a Gröbner basis and division by each in turn gives the normal form."""
        for g in self.group:
            poly = poly % (self.gens[g] * self.gens[g + "_bar"] - 1)
        return poly.is_zero()


class _Pattern(Nonlinearity):
    """Each nonlinearity replaced by its linear piece on the pattern of data point k."""

    def __init__(self, form: PatternForm, k: int, transported: dict | None):
        self.form, self.k, self.transported = form, k, transported

    def _indeterminates(self, site, count):
        order = list(range(count))
        if self.transported is not None:
            site, order = self.transported[site]
        m = self.form.site_index[site]
        return [self.form.gens[f"pattern_{self.k}_{m}_{c}"] for c in order]

    def constant(self, value):
        return self.form.convert(value)

    def unit(self, layer, site, s):
        sigma = self._indeterminates(site, 1)[0]
        if isinstance(layer, ReLULayer):
            return sigma * s
        if isinstance(layer, LeakyReLU):
            a = self.form.convert(layer.slope)
            return (a + (1 - a) * sigma) * s
        if isinstance(layer, AbsLayer):
            return (2 * sigma - 1) * s
        raise NoPatternForm(f"{layer.describe()} is not piecewise linear")

    def softmax(self, layer, site, scores):
        raise NoPatternForm(f"{layer.describe()} takes a softmax: no polynomial on a pattern")

    def power(self, layer, site, value, exponent):
        raise NoPatternForm(f"{layer.describe()} takes a square root: no polynomial on a pattern")

    def maximum(self, layer, site, candidates):
        if len(candidates) == 1:
            return candidates[0]
        tau = self._indeterminates(site, len(candidates))
        return sum((t * s for t, s in zip(tau, candidates)), 0)


@functools.lru_cache(maxsize=16)
def exact_laws(model, symmetry, n, loss) -> dict:
    """{1: (holds, first failing entry), 2: …}: the gradient and Hessian laws on the pattern form.

    With (Tθ)_p = m_p·θ_q(p), M^{-T} has the entry 1/m_p at (p, q(p)), so the laws read
    m_p·(∂_p L)(Tθ) = (∂_q(p) L)(θ) and m_p·m_r·(∂_p∂_r L)(Tθ) = (∂_q(p)∂_q(r) L)(θ).  The chain
    rule for the monomial map, ∂_q(r)[g(Tθ)] = m_r·(∂_r g)(Tθ), an identity of polynomial calculus,
    turns the second into m_p·∂_q(r)[(∂_p L)(Tθ)] = (∂_q(p)∂_q(r) L)(θ): each gradient entry is
    composed with T once."""
    monomial = symmetry.monomial_form()
    assignment, _ = transport(model, symmetry)
    form = PatternForm(model, symmetry, n, loss)
    at_theta = form.loss_polynomial(None)
    at_image = form.loss_polynomial(assignment)
    parameters = [str(s) for s in model.parameters]
    position = [form.names.index(name) for name in parameters]
    substitution = list(form.context.gens())
    for k, p in enumerate(model.parameters):
        substitution[position[k]] = form.convert(symmetry.images[p])
    factors = [form.convert(m) for m, _ in monomial]
    results = {1: (True, ""), 2: (True, "")}
    for p in range(len(parameters)):
        check_budget()
        q = monomial[p][1]
        pulled = factors[p] * at_image.derivative(position[p]).compose(*substitution)
        gradient_theta = at_theta.derivative(position[q])
        if results[1][0] and not form.is_zero(pulled - gradient_theta):
            results[1] = (False, f"d/d{parameters[p]}")
        if not results[2][0]:
            continue
        for r in range(p, len(parameters)):
            s = monomial[r][1]
            if not form.is_zero(pulled.derivative(position[s]) - gradient_theta.derivative(position[s])):
                results[2] = (False, f"d2/d{parameters[p]} d{parameters[r]}")
                break
    return results
