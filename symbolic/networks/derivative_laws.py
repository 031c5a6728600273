"""The gradient and Hessian laws of a map of a model's parameters, decided: the oracle 'exact
derivative law of a model' (``decide_derivative_law``), which answers ``Holds`` or a verdict that
is no proof; the kernel runs it on the law's statement (``law_statement``).

For a map Tθ = Mθ with M monomial (scalings by monomials in the group parameters, permutations)
the law ∇L(Tθ) = M^{-T}∇L(θ) (order 1), H(Tθ) = M^{-T}H(θ)M^{-1} (order 2), at N data points and
every θ off the kink set, holds when

- regularity transport holds: T maps every activation region onto one region
  (``symbolic.networks.activation_patterns``);
- every entry is an exact Laurent-polynomial identity on the pattern form, all patterns at once,
  for a generic quadratic of the predictions (every 2-jet of every smooth loss) or the MSE
  (``jet_loss``: the cross-entropy through the generic quadratic);
- the independent witness agrees: the real loss (max, not the pattern; ``real_loss``)
  differentiated by mpmath.diff at random rational points clear of the kinks, at two precisions
  (``numeric_law``), with a residual that is rounding noise.

A stable difference on the real loss refutes the law, with its point.  A map that mixes
parameters (M invertible, not monomial) has no pattern-form route: the witness may refute, and the
answer says "no exact route", so that ``symbolic.symmetries.symmetry`` may conclude by the chain rule
from L∘T = L.
"""
from __future__ import annotations

# the witness's closures over a loop variable are each called within their own iteration
# ruff: noqa: B023

import random
from fractions import Fraction

import mpmath
import sympy as sp

from symbolic.decision.budget import check_budget
from symbolic.logic.statements import Fact
from symbolic.networks.activation_patterns import NoPatternForm, exact_laws, nonlinear_sites, transport
from symbolic.networks.maps import invertible_linear, linear_matrix
from symbolic.networks.model import LeakyReLU, Nonlinearity
from symbolic.networks.model import Abs as AbsLayer, ReLU as ReLULayer, Tanh as TanhLayer
from symbolic.numerics.real_network import HIGH_DPS, LOW_DPS, directional_derivative, measure
from symbolic.kernel.verdict import Holds, Status, Verdict

WITNESS_POINTS = 3
KINK_MARGIN = Fraction(1, 20)


# --- the independent witness: the real loss and mpmath.diff ---------------------------------------

def _rational(rng, low=-3, high=3) -> Fraction:
    return Fraction(rng.randint(low * 16, high * 16) or 1, 16)


def _group_value(symbol, rng) -> Fraction:
    if symbol.is_positive:
        value = Fraction(1)
        while value == 1:
            value = Fraction(rng.randint(2, 40), rng.randint(2, 40))
        return value
    return _rational(rng)


def _as_sympy(value: Fraction) -> sp.Rational:
    return sp.Rational(value.numerator, value.denominator)


def _clear_of_kinks(sites, point) -> bool:
    for _, candidates in sites.values():
        values = [c.xreplace(point) for c in candidates]
        if not all(v.is_Rational for v in values):
            # after a normalisation a value is algebraic: 30 digits place it against a margin of
            # 1/20 (this only chooses the witness's points)
            values = [sp.N(v, 30) for v in values]
            if not all(v.is_real and v.is_Number for v in values):
                return False
        values = sorted(values)
        if len(values) == 1 and abs(values[0]) <= KINK_MARGIN:
            return False
        if len(values) > 1 and values[-1] - values[-2] <= KINK_MARGIN:
            return False
    return True


class _Mpmath(Nonlinearity):
    """The real network in mpmath: max, not a pattern form; independent of every sympy path."""

    def __init__(self, slopes: dict):
        self.slopes = slopes

    def unit(self, layer, site, s):
        if isinstance(layer, ReLULayer):
            return max(s, 0)
        if isinstance(layer, LeakyReLU):
            return s if s > 0 else _mp(sp.sympify(layer.slope).xreplace(self.slopes)) * s
        if isinstance(layer, AbsLayer):
            return abs(s)
        if isinstance(layer, TanhLayer):
            return mpmath.tanh(s)
        raise TypeError(f"no numeric form for {layer.describe()}")

    def maximum(self, layer, site, candidates):
        return max(candidates)

    def power(self, layer, site, value, exponent):
        return mpmath.power(value, _mp(exponent))

    def softmax(self, layer, site, scores):
        top = max(scores)
        exponentials = [mpmath.exp(s - top) for s in scores]
        total = sum(exponentials)
        return [e / total for e in exponentials]

    def constant(self, value):
        return _mp(value)


# the witness's name for the n-th constant of the real loss, and what the constants are
LOSS_CONSTANT = {"mse": "loss target", "any": "loss coefficient", "cross_entropy": "label"}
REAL_LOSS = {"mse": "L = (1/N) sum_n (f(x_n) - y_n)^2 with loss target n = y_n (with K > 1 outputs: "
                    "(1/N) sum_n sum_k (f_k(x_n) - y_(n,k))^2, the K N predictions and targets "
                    "numbered point by point, output by output)",
             "cross_entropy": "L = (1/N) sum_n [log sum_k exp f_k(x_n) - f_(y_n)(x_n)] with label n = y_n, "
                              "a class from 0 to K - 1 (class k is output k + 1)",
             "any": "the smooth loss L = sum_n sin(a_n f(x_n)) + exp(sum_n a_(N+1-n) f(x_n) / (4N)), "
                    "standing for every loss, with loss coefficient n = a_n (with K > 1 outputs the "
                    "sums run over the K N predictions, numbered point by point, output by output)"}


def real_loss(model, inputs, loss, constants, slopes):
    """θ ↦ L(θ) for the real network at concrete inputs, evaluated by mpmath."""
    shapes = model.shapes
    functions = _Mpmath(slopes)

    def L(theta):
        values, k = {}, 0
        for name, (rows, cols) in shapes.items():
            values[name] = [[theta[k + i * cols + j] for j in range(cols)] for i in range(rows)]
            k += rows * cols
        # the K·N predictions, data point by data point, output by output (the N points one batch)
        batch = [[[_mp(v) for v in row] for row in x] for x in inputs]
        predictions = [p for outputs in model.forward_batch_outputs(batch, values, functions) for p in outputs]
        if loss == "cross_entropy":
            # the logits of each point, and its class label
            points = [predictions[k * model.outputs:(k + 1) * model.outputs] for k in range(len(inputs))]
            return sum(mpmath.log(sum(mpmath.exp(p) for p in logits)) - logits[label]
                       for logits, label in zip(points, constants)) / len(inputs)
        c = [_mp(v) for v in constants]
        if loss == "mse":
            return sum((p - y) ** 2 for p, y in zip(predictions, c)) / len(inputs)
        # a smooth, non-polynomial loss standing for 'any loss'
        return (sum(mpmath.sin(a * p) for a, p in zip(c, predictions))
                + mpmath.exp(sum(a * p for a, p in zip(c[::-1], predictions)) / (4 * len(c))))
    return L


def numeric_law(model, symmetry, n, loss, order, monomial, seed):
    """The most telling Residual of the law on the real loss, and its witness: DL(Tθ)[u] against
    DL(θ)[M^{-1}u] (order 1), D²L(Tθ)[u, w] against D²L(θ)[M^{-1}u, M^{-1}w] (order 2), at random
    rational points whose every nonlinearity (at θ and at Tθ) is clear of its kink."""
    rng = random.Random(seed)
    parameters = model.parameters
    generic_x = [s for row in model.input() for s in row]
    site_theta = nonlinear_sites(model)
    site_image = nonlinear_sites(model, symmetry.tensors())
    slope_symbols = sorted({sp.sympify(layer.slope) for layer, _ in site_theta.values()
                            if isinstance(layer, LeakyReLU) and sp.sympify(layer.slope).is_Symbol},
                           key=str)
    worst_case, evaluated = None, 0
    for _ in range(WITNESS_POINTS * 10):
        check_budget()
        theta = {p: _rational(rng) for p in parameters}
        group = {g: _group_value(g, rng) for g in symmetry.group}
        slopes = {a: _as_sympy(_rational(rng, 0, 1)) for a in slope_symbols}
        inputs = [[[_rational(rng) for _ in row] for row in model.input()] for _ in range(n)]
        clear = True if not model.batch_dependent else _batch_clear_of_kinks(model, symmetry, theta, group,
                                                                              slopes, inputs)
        for x in inputs if not model.batch_dependent else ():
            point = {s: _as_sympy(v) for s, v in {**theta, **group}.items()}
            point.update(slopes)
            point.update({s: _as_sympy(v) for s, v in zip(generic_x, [v for row in x for v in row])})
            clear = clear and _clear_of_kinks(site_theta, point) and _clear_of_kinks(site_image, point)
        if not clear:
            continue
        constants = ([rng.randrange(model.outputs) for _ in range(n)] if loss == "cross_entropy" else
                     [_rational(rng, -2, 2) for _ in range(n * model.outputs)])
        L = real_loss(model, inputs, loss, constants, slopes)
        values = {**{q: _as_sympy(theta[q]) for q in parameters},
                  **{g: _as_sympy(v) for g, v in group.items()}}
        factors = [m.xreplace(values) for m, _ in monomial] if monomial is not None else None
        inverse = None if monomial is not None else linear_matrix(symmetry).xreplace(values).inv()
        image = [symmetry.images[p].xreplace(values) for p in parameters]
        u = [_rational(rng) for _ in parameters]
        w = [_rational(rng) for _ in parameters]
        base = [theta[p] for p in parameters]

        def pulled_back(direction):
            if inverse is not None:
                # a linear map that mixes: M^{-1}u exactly
                return [_mp(e) for e in inverse * sp.Matrix([_as_sympy(d) for d in direction])]
            # (M^{-1}u)_q(p) = u_p / m_p
            result = [None] * len(parameters)
            for (_, q), m, value in zip(monomial, factors, direction):
                result[q] = _mp(value) / _mp(m)
            return result

        def both_sides(dps):
            directions = [u] if order == 1 else [u, w]
            left = directional_derivative(L, [_mp(v) for v in image], directions, dps)
            right = directional_derivative(L, base, [pulled_back(d) for d in directions], dps)
            return left, right
        residual = measure(both_sides)
        if residual.scale == 0:
            continue        # both sides 0 (dead units): this point compares nothing
        evaluated += 1
        witness = {str(p): theta[p] for p in parameters}
        witness.update({str(g): v for g, v in group.items()})
        witness.update({str(a): v for a, v in slopes.items()})
        for k, x in enumerate(inputs):
            for symbols, row in zip(model.input(k + 1), x):
                witness.update({str(sym): val for sym, val in zip(symbols, row)})
        witness.update({f"u[{p}]": v for p, v in zip(parameters, u)})
        if order == 2:
            witness.update({f"w[{p}]": v for p, v in zip(parameters, w)})
        witness.update({f"{LOSS_CONSTANT[loss]} {k}": v for k, v in enumerate(constants, start=1)})
        if worst_case is None or residual.key() > worst_case[0].key():
            worst_case = (residual, witness)
        if residual.stable or evaluated == WITNESS_POINTS:
            break
    return worst_case


class _Margins(_Mpmath):
    """The real network in mpmath, remembering how close each nonlinearity came to its kink."""

    def __init__(self, slopes: dict):
        super().__init__(slopes)
        self.closest = mpmath.inf

    def unit(self, layer, site, s):
        if not isinstance(layer, TanhLayer):
            self.closest = min(self.closest, abs(s))
        return super().unit(layer, site, s)

    def maximum(self, layer, site, candidates):
        ordered = sorted(candidates)
        if len(ordered) > 1:
            self.closest = min(self.closest, ordered[-1] - ordered[-2])
        return super().maximum(layer, site, candidates)


def _batch_clear_of_kinks(model, symmetry, theta, group, slopes, inputs) -> bool:
    """Every nonlinearity of the batch, at θ and at Tθ, at least KINK_MARGIN from its kink (a
    model that normalises over the batch: its sites are those of the whole batch)."""
    values = {**{q: _as_sympy(v) for q, v in theta.items()}, **{g: _as_sympy(v) for g, v in group.items()},
              **slopes}
    batch = [[[_mp(v) for v in row] for row in x] for x in inputs]
    for tensors in (model.tensors, symmetry.tensors()):
        margins = _Margins(slopes)
        params = {name: [[_mp(e.xreplace(values)) for e in row] for row in tensor.tolist()]
                  for name, tensor in tensors.items()}
        try:
            model.forward_batch_outputs(batch, params, margins)
        except ZeroDivisionError:
            return False        # a normalisation of values all equal (σ² = 0, ε = 0): f is not defined there
        if margins.closest <= _mp(KINK_MARGIN):
            return False
    return True


def _mp(value):
    if isinstance(value, Fraction):
        return mpmath.mpf(value.numerator) / value.denominator
    value = sp.sympify(value)
    if value.is_Rational:
        return mpmath.mpf(int(value.p)) / int(value.q)
    return mpmath.mpmathify(sp.N(value, 60))


def _law_answer(claim, latex, holds, entry, witness_result, exact_evidence, why_no_exact=None):
    """Holds: exact identity and a witness residual that is rounding noise; REFUTED: a difference
    on the real loss that is stable across precisions; else UNDECIDED with the reason."""
    details = {"latex": latex}
    if witness_result is None:
        return Verdict(Status.UNDECIDED, claim, details=details,
                       reason="no witness point clear of the kinks with non-zero sides was found")
    residual, witness = witness_result
    described = (f"{float(residual.low):.1e} at {LOW_DPS} digits, {float(residual.high):.1e} at "
                 f"{HIGH_DPS} digits (sides of size {float(residual.scale):.1e})")
    if holds and residual.noise:
        return Holds(residual=float(residual.low), details=details,
                     evidence=(*exact_evidence, f"mpmath.diff on the real loss: residual {described}"))
    if not holds and residual.stable:
        why = f"the exact identity fails at {entry}; " if entry else (why_no_exact or "") + "; "
        return Verdict(Status.REFUTED, claim, witness=witness, residual=float(residual.low),
                       details=details,
                       reason=why + f"on the real loss the two sides differ by {described}")
    if holds is None:
        return Verdict(Status.UNDECIDED, claim, residual=float(residual.low), details=details,
                       reason=f"{why_no_exact}; the witness residual is {described}")
    return Verdict(Status.UNDECIDED, claim, residual=float(residual.low), details=details,
                   reason=f"exact test says {'zero' if holds else 'non-zero'} but the witness "
                          f"residual is {described}: the evidence disagrees")


# --- the law's statement and its oracle --------------------------------------------------------------

def _law_names(symmetry, n, loss, order):
    what = "gradient" if order == 1 else "Hessian"
    name = symmetry.name
    claim = (f"{what} law: " + (f"grad L({name} theta) = M^-T grad L(theta)" if order == 1 else
                                f"H({name} theta) = M^-T H(theta) M^-1") + f", {loss} loss, N={n}")
    latex = ((r"\nabla L(%s\theta) = M^{-T}\,\nabla L(\theta)" if order == 1 else
              r"H_L(%s\theta) = M^{-T} H_L(\theta)\, M^{-1}") % name) + r",\ N = %d" % n
    return what, claim, latex


def jet_loss(loss: str) -> str:
    """The loss of the exact pattern-form laws: the cross-entropy, a smooth function of the
    predictions at each labelling, is checked through the generic quadratic (its 2-jets)."""
    return "any" if loss == "cross_entropy" else loss


def law_statement(model, symmetry, n, loss, order) -> Fact:
    """The gradient (order 1) or Hessian (order 2) law of ``symmetry`` for ``model`` at N data
    points, at every θ off the kink set, as a statement about these objects."""
    what, claim, _ = _law_names(symmetry, n, loss, order)
    return Fact(f"{what} law", (model, symmetry, n, loss), reading=claim.split(": ", 1)[1])


def decide_derivative_law(statement, seed: int = 0):
    """Oracle 'exact derivative law of a model': regularity transport, the exact Laurent-polynomial
    identity of every entry on the pattern form, and the mpmath witness on the real loss."""
    model, symmetry, n, loss = statement.arguments
    order = 1 if statement.predicate == "gradient law" else 2
    what, claim, latex = _law_names(symmetry, n, loss, order)
    monomial = symmetry.monomial_form()
    if monomial is None and invertible_linear(symmetry):
        # a linear map that mixes parameters (an attention head's shear): no pattern-form route; the
        # witness may refute, and derivative_law may conclude by the chain rule from L∘T = L
        why = "T theta = M theta mixes parameters (M invertible, not monomial): no pattern-form route"
        witness = numeric_law(model, symmetry, n, loss, order, None, seed)
        answer = _law_answer(claim, latex, None, "", witness, (), why)
        answer.details["no exact route"] = why
        return answer
    if monomial is None:
        return Verdict(Status.UNDECIDED, claim, details={"latex": latex},
                       reason="the law is checked for maps T theta = M theta with M an invertible matrix "
                              "(scalings by monomials in the group parameters, permutations, mixings); this "
                              "map is not of that form")
    assignment, how = (None, "a layer normalises over the batch: no pattern form") if model.batch_dependent \
        else transport(model, symmetry)
    holds, entry, why_no_exact = None, "", None
    if assignment is None:
        why_no_exact = how
    else:
        try:
            holds, entry = exact_laws(model, symmetry, n, jet_loss(loss))[order]
            if loss != jet_loss(loss) and entry:
                entry += " for the generic quadratic of the predictions"
        except NoPatternForm as error:
            why_no_exact = f"no exact pattern form: {error}"
    witness = numeric_law(model, symmetry, n, loss, order, monomial, seed)
    exact_evidence = (f"exact Laurent-polynomial identity of every {what} entry on the pattern form "
                      "(all activation patterns), "
                      + {"any": "a generic quadratic of the predictions (every 2-jet of every smooth loss)",
                         "cross_entropy": "a generic quadratic of the predictions (every 2-jet of every smooth "
                                          "loss, the cross-entropy's at every label among them)",
                         "mse": "mean squared error with symbolic targets"}[loss],
                      f"regularity transport: {how}")
    answer = _law_answer(claim, latex, holds, entry, witness, exact_evidence, why_no_exact)
    if holds is None and isinstance(answer, Verdict):
        answer.details["no exact route"] = why_no_exact
    return answer
