"""What breaks a refuted symmetry: the smallest witness, and the tensor whose image breaks the law.

A refuted prediction claim f_(Tθ)(x) ≠ f_θ(x) comes with a witness of random rationals, one per
parameter, group parameter and input.  Two readings make it useful to the person who wrote T:

1. ``smallest_witness``: the witness made small, one symbol at a time (two passes), each set to the
   first of a few small values (0 and 1 first for a tensor the map leaves alone, then −1, 2, −2, 3; a group
   parameter to 1, 2, 3, 1/2, honouring its positivity) at which the two sides still differ,
   exactly; the point kept is confirmed by the kernel (``refutation``: both sides defined and
   different there, every fact honoured).
2. ``breaking_tensors``: for a map that rescales each parameter by a positive monomial of the group
   parameters (θ_p ↦ m_p·θ_p), the forward pass on log-scales (``symbolic.networks.exponent_system``)
   asks every value of every layer to be carried to a positive multiple of itself, the output to
   itself.  The map fails these equations (else it would transport every layer).  Each tensor's
   image is restored to fit in turn: its exponents are freed, every other tensor's kept, and the
   equations solved again.  A tensor whose freed exponents solve them is one whose image alone
   breaks the law; the image that fits is built, and the prediction claim under the repaired map is
   decided by the kernel's exact identity test, so that the tensor is named only with a proof that
   repairing it restores the symmetry.  Where no single tensor does, ``first_failing_layer`` names
   the first layer whose output at Tθ is no positive multiple of its output at θ (the forward pass on
   factors of the layer-by-layer transport, on the model cut after each layer in turn).

Nothing here is trusted: the diagnosis is printed beside the refutation, never in its place.
"""
from __future__ import annotations

from fractions import Fraction

import flint
import sympy as sp

from symbolic.decision.witness import compare_at, substitute_functions
from symbolic.errors import CheckerError
from symbolic.kernel import Equation, refutation
from symbolic.kernel.verdict import Status
from symbolic.networks.exponent_system import ExponentSystem
from symbolic.networks.maps import Symmetry
from symbolic.networks.model import Model
from symbolic.trusted.schemes.layer_transport import COVERED, signal_factors

SMALL_VALUES = (1, 0, -1, 2, -2, 3, -3)
LEFT_ALONE_VALUES = (0, 1, -1, 2, -2, 3, -3)
POSITIVE_VALUES = (1, 2, 3, sp.Rational(1, 2))


# --- 1. the smallest witness --------------------------------------------------------------------------

def _candidates(symbol, left_alone: set) -> tuple:
    if symbol.is_positive:
        return POSITIVE_VALUES
    if symbol.is_nonnegative:
        return (0, 1, 2, 3)
    if symbol.is_negative:
        return (-1, -2, -3)
    return LEFT_ALONE_VALUES if symbol in left_alone else SMALL_VALUES


def _separates(lhs, rhs, point: dict) -> bool:
    separation = compare_at(lhs, rhs, point)
    return bool(separation.exact and separation.differ)


def smallest_witness(lhs, rhs, witness: dict, symmetry=None) -> dict | None:
    """A witness of lhs ≠ rhs with small values, found from ``witness`` one symbol at a time and
    confirmed by the kernel; None when none smaller is found or confirmed.  The symbols ``symmetry``
    leaves alone (image = itself) are tried at 0 and 1 first."""
    functions = {k: v for k, v in witness.items() if isinstance(k, sp.FunctionClass)}
    point = {k: sp.sympify(v) for k, v in witness.items() if isinstance(k, sp.Symbol)}
    lhs, rhs = (substitute_functions(sp.sympify(side), functions) for side in (lhs, rhs))
    if not _separates(lhs, rhs, point):
        return None
    left_alone = set()
    if symmetry is not None:
        left_alone = {s for s, image in symmetry.images.items() if sp.sympify(image) == s}
    # two passes: a value that had to stay large may give way once the others are small
    for _ in range(2):
        for symbol in sorted(point, key=sp.default_sort_key):
            for value in _candidates(symbol, left_alone):
                if point[symbol] == value:
                    break
                trial = {**point, symbol: sp.sympify(value)}
                if _separates(lhs, rhs, trial):
                    point = trial
                    break
    if point == {k: sp.sympify(v) for k, v in witness.items() if isinstance(k, sp.Symbol)}:
        return None
    # the kernel evaluates both sides again, exactly, at the point: defined, every fact honoured, different
    if refutation(Equation(lhs, rhs), point).status is not Status.PROVED:
        return None
    return {**point, **functions}


# --- 2. the tensor whose image breaks the law -------------------------------------------------------------

class _NoReading(CheckerError):
    """The map or the model is outside what the log-scale reading covers."""


def _log_scale(factor) -> dict:
    """A positive monomial k·Π g^e as its log-scale {g or prime: exponent}."""
    scale = {}
    for base, exponent in sp.sympify(factor).as_powers_dict().items():
        if base.is_Rational:
            # a rational coefficient through its primes, whose logs are independent over the rationals
            primes = [(prime, power) for prime, power in sp.factorint(base.p).items()] + \
                [(prime, -power) for prime, power in sp.factorint(base.q).items()]
            for prime, power in primes:
                scale[sp.Integer(prime)] = scale.get(sp.Integer(prime), 0) + Fraction(power) * _fraction(exponent)
        elif base.is_Symbol:
            scale[base] = scale.get(base, 0) + _fraction(exponent)
        else:
            raise _NoReading
    return {k: v for k, v in scale.items() if v}


def _fraction(value) -> Fraction:
    value = sp.sympify(value)
    if not value.is_Rational:
        raise _NoReading
    return Fraction(int(value.p), int(value.q))


def _exponents(symmetry) -> list[dict]:
    """Each parameter's log-scale under the map, in ``model.parameters`` order."""
    form = symmetry.monomial_form()
    if form is None or any(q != p or factor.is_positive is not True for p, (factor, q) in enumerate(form)):
        raise _NoReading
    return [_log_scale(factor) for factor, _ in form]


def _solve(rows, width, known: dict, directions) -> dict | None:
    """For each direction, exponents of the free columns (all but ``known``'s) that solve the
    equations with the known ones fixed: {column: {direction: exponent}}; None when there are none.
    One exact elimination (python-flint) of the equations' free columns beside one right-hand side
    per direction."""
    free = [c for c in range(width) if c not in known]
    if not rows:
        return {c: {} for c in free}
    entries = []
    for row in rows:
        entries += [row[c] for c in free]
        entries += [-sum(row[c] * known[c].get(direction, 0) for c in known) for direction in directions]
    augmented = flint.fmpq_mat(len(rows), len(free) + len(directions),
                               [flint.fmpq(e.numerator, e.denominator) if isinstance(e, Fraction) else e
                                for e in entries])
    reduced, rank = augmented.rref()
    solution = {c: {} for c in free}
    for r in range(rank):
        pivot = next(k for k in range(len(free) + len(directions)) if reduced[r, k] != 0)
        if pivot >= len(free):
            return None         # a row 0 = non-zero: the equations have no solution
        for d, direction in enumerate(directions):
            value = reduced[r, len(free) + d]
            if value != 0:
                solution[free[pivot]][direction] = Fraction(int(value.p), int(value.q))
    return solution


def _tensor_columns(model) -> dict:
    columns, index = {}, 0
    for name, (rows, width) in model.shapes.items():
        columns[name] = list(range(index, index + rows * width))
        index += rows * width
    return columns


def _layer_of(model, tensor: str) -> str:
    shape = model.input_grid
    for k, layer in enumerate(model.layers, start=1):
        if tensor in layer.parameter_shapes(shape):
            return f"layer {k}, {layer.describe()}"
        shape = layer.output_shape(shape)
    return ""


def _monomial(scale: dict):
    return sp.Mul(*(base ** sp.Rational(e.numerator, e.denominator) for base, e in scale.items()))


def breaking_tensors(model, symmetry, decide) -> list[tuple[str, str, object]]:
    """The tensors whose image alone breaks the law, each (name, where it is, the repaired map),
    with the prediction claim under the repaired map PROVED by ``decide(model, repaired) -> Verdict``;
    [] when the map is no positive rescaling, or no single tensor's image repairs it."""
    try:
        scales = _exponents(symmetry)
        system = ExponentSystem(model)
    except (_NoReading, CheckerError, TypeError, ValueError):
        return []
    rows = system.matrix_rows()
    width = system.size + system.unit_count
    directions = sorted(set().union(*scales) if scales else set(), key=sp.default_sort_key)
    if not directions:
        return []
    known_all = {p: scale for p, scale in enumerate(scales)}
    if _solve(rows, width, known_all, directions) is not None:
        return []       # every layer is carried to a multiple of itself: the break is not in the factors
    found = []
    parameters = model.parameters
    for name, columns in _tensor_columns(model).items():
        known = {p: scale for p, scale in known_all.items() if p not in columns}
        solution = _solve(rows, width, known, directions)
        if solution is None:
            continue
        tensor = model[name]
        image = tensor.xreplace({parameters[p]: _monomial(solution[p]) * parameters[p] for p in columns})
        repaired = Symmetry(model, {**symmetry.mapping, name: image}, name=symmetry.name)
        if decide(model, repaired).status is Status.PROVED:
            found.append((name, _layer_of(model, name), repaired))
    return found


def first_failing_layer(model, symmetry) -> str:
    """For a positive rescaling, the first layer whose output at Tθ is no positive multiple of its
    output at θ, value by value, read by the forward pass on factors of the layer-by-layer transport
    (``signal_factors``) on the model cut after each layer in turn; '' where that reading does not
    apply (a layer it does not cover, a map that is no positive rescaling)."""
    if model.batch_dependent or _positive_rescaling(symmetry) is None:
        return ""
    factors = None
    for k, layer in enumerate(model.layers, start=1):
        if not isinstance(layer, COVERED):
            return ""
        try:
            part = Model(model.input_grid, model.layers[:k])
            images = {name: image for name, image in symmetry.mapping.items() if name in part.tensors}
            factors = signal_factors(part, Symmetry(part, images, name=symmetry.name))
        except (CheckerError, ValueError, TypeError):
            return ""
        if factors is None:
            return (f"layer {k}, {layer.describe()}, is the first whose output at {symmetry.name} theta is no "
                    f"positive multiple of its output at theta, value by value")
    if factors is not None and any(d != 1 for channel in factors[-1] for d in channel):
        scales = ", ".join(sp.sstr(d) for channel in factors[-1] for d in channel)
        return (f"every layer's output at {symmetry.name} theta is a positive multiple of its output at theta, "
                f"but the prediction is multiplied by {scales}, not 1")
    return ""


def _positive_rescaling(symmetry):
    try:
        return _exponents(symmetry)
    except _NoReading:
        return None


def diagnosis_text(model, symmetry, decide) -> str:
    """'the image of b2 (layer 3, Dense(2, W2, bias b2)) breaks the law: with b2 -> [[b2_{1}*e_1, …]]
    the prediction is PROVED'; where no single tensor repairs the map, the first layer the map does
    not transport; '' when neither is found."""
    found = breaking_tensors(model, symmetry, decide)
    if not found:
        return first_failing_layer(model, symmetry)
    parts = []
    for name, where, repaired in found:
        image = sp.sstr(repaired.mapping[name].tolist())
        parts.append(f"the image of {name}" + (f" ({where})" if where else "") +
                     f" breaks the law: with {name} -> {image} instead, the prediction claim is PROVED")
    return "; or ".join(parts)
