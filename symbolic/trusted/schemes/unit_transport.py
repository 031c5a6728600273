"""The prediction claim f(T_k(c) θ, x) = f(θ, x) for a whole trained network, T_k multiplying the hidden
units of one class k by c > 0, composed from six exact identities that do not depend on the network's
size: the cost grows with its layers, not with its parameters.

The network is given as a description, value by value (value 0 the input, value j + 1 layer j's
output), each value's units as slots (one per channel of a channel-first value, or one per position
after a layer that moved the channels), and ``classes``: slot -> its class (-1: fixed, factor 1).
T_k multiplies each unit of class k by c: a weight W[j, i] of an affine layer by c^(d_j - e_i), its
bias by c^(d_j), a batch normalisation's shift by c^(d) (its scale by 1), where d, e are 1 on the
units of class k and 0 elsewhere (``exponents``).

1. The laws (premises, each proved by the kernel's exact identity test on fresh symbols, c > 0):
     affine     (c·w1)·z1 + ((c·w2)/c)·(c·z2) + c·b = c·(w1·z1 + w2·z2 + b), and the same for an
                output unit of factor 1: w1·z1 + (w2/c)·(c·z2) + b = w1·z1 + w2·z2 + b
     rectifier  relu(c·u) − a·relu(−(c·u)) = c·(relu(u) − a·relu(−u)) for every real slope a
                (ReLU a = 0, LeakyReLU and PReLU their slopes)
     maximum    c·v + relu(c·u − c·v) = c·(v + relu(u − v))   (max(cu, cv) = c max(u, v))
     linear     s·(c·u) + t·(c·v) = c·(s·u + t·v)   (an average pool, a constant scale, a sum)
     diagonal   a·(c·z) + c·β = c·(a·z + β)          (a batch normalisation in inference form)
2. The walk (``conclusion``): every layer's rule holds for the slots given: an affine layer makes new
   units and reads its input's channels; a rectifier, a max or average pool, a batch normalisation, a
   constant scale keep their input's units (its channels); a sum's two inputs have the same class
   unit by unit; a flatten, view or permutation moves the slots with the values; any other layer (not
   positively homogeneous, no parameters) reads and writes fixed units only; the input and the
   output are fixed.  Then, by induction on the layers, the signal after each layer at T_k θ is
   c^(its units' d) times the signal at θ (an affine unit's value is a sum of terms w·z, one term of
   the law per entry, and the bias; a window's max is a max of two taken repeatedly, padding never
   winning; an average pool's window is a sum with constant coefficients, zero padding adding 0),
   and the output's factor is 1: f(T_k(c) θ, x) = f(θ, x) for every x and c > 0.
"""
from __future__ import annotations

import numpy as np
import sympy as sp

from symbolic.kernel import Equation, scheme
from symbolic.relu import ReLU as relu

C = sp.Symbol("c", positive=True)
_u, _v, _z1, _z2, _w1, _w2, _b, _a, _s, _t, _beta = sp.symbols("u v z1 z2 w1 w2 b a s t beta", real=True)
FIXED = -1
AFFINE, DIAGONAL, RECTIFIER, MAXIMUM, LINEAR, SUM, RELABEL, OTHER = (
    "affine", "diagonal", "rectifier", "maximum", "linear", "sum", "relabel", "other")
KEEP = (DIAGONAL, RECTIFIER, MAXIMUM, LINEAR)       # layers that keep their input's units


def _times(*factors):
    return sp.Mul(*factors, evaluate=False)


def _plus(*terms):
    return sp.Add(*terms, evaluate=False)


def _over_c(x):
    return _times(x, sp.Pow(C, -1, evaluate=False))


def laws() -> list[tuple[str, Equation]]:
    """The six identities, unevaluated as written (sympy simplifies nothing before the kernel sees them)."""
    cz2 = _times(C, _z2)
    scaled_unit = _plus(_times(_times(C, _w1), _z1), _times(_over_c(_times(C, _w2)), cz2), _times(C, _b))
    kept_unit = _plus(_times(_w1, _z1), _times(_over_c(_w2), cz2), _b)
    plain = _plus(_times(_w1, _z1), _times(_w2, _z2), _b)
    cu, cv = _times(C, _u), _times(C, _v)
    return [
        ("affine, an output unit of class k", Equation(scaled_unit, _times(C, plain))),
        ("affine, an output unit of factor 1", Equation(kept_unit, plain)),
        ("rectifier of slope a", Equation(_plus(relu(cu), _times(-_a, relu(_times(-1, cu)))),
                                          _times(C, _plus(relu(_u), _times(-_a, relu(_times(-1, _u))))))),
        ("maximum of two", Equation(_plus(cv, relu(_plus(cu, _times(-1, cv)))),
                                    _times(C, _plus(_v, relu(_plus(_u, _times(-1, _v))))))),
        ("linear with constant coefficients", Equation(_plus(_times(_s, cu), _times(_t, cv)),
                                                      _times(C, _plus(_times(_s, _u), _times(_t, _v))))),
        ("batch normalisation", Equation(_plus(_times(_a, _times(C, _z1)), _times(C, _beta)),
                                         _times(C, _plus(_times(_a, _z1), _beta)))),
    ]


def relabelled(slots: np.ndarray, step: tuple) -> np.ndarray:
    """The slots of a flatten, view or permutation's output: the input's slots moved with the values
    (one per channel again when each channel's positions share one)."""
    _, _, how, in_shape, argument = step
    full = np.broadcast_to(slots.reshape(slots.shape + (1,) * (len(in_shape) - slots.ndim)), in_shape)
    moved = full.reshape(-1) if how == "flatten" else np.transpose(full, argument) if how == "permute" \
        else full.reshape(argument)
    if moved.ndim == 1:
        return moved.copy()
    by_channel = moved.reshape(len(moved), -1)
    return by_channel[:, 0].copy() if np.all(by_channel == by_channel[:, :1]) else moved


def walk(description: tuple, slots: tuple, classes: np.ndarray) -> str | None:
    """None when every layer's rule holds for these slots and classes (step 2), else the first that fails."""
    fixed = lambda s: bool(np.all(classes[np.asarray(s).ravel()] == FIXED))   # noqa: E731
    if len(slots) != len(description) + 1 or not fixed(slots[0]) or not fixed(slots[-1]):
        return "the input and the output must be fixed (factor 1)"
    seen = set(np.asarray(slots[0]).ravel().tolist())
    for j, step in enumerate(description):
        kind, sources = step[0], step[1]
        if any(not 0 <= s <= j for s in sources):
            return f"layer {j + 1} reads a value not yet computed"
        inputs, out = [np.asarray(slots[s]) for s in sources], np.asarray(slots[j + 1])
        if kind == AFFINE:
            channels_in, channels_out = step[2], step[3]
            fresh = set(out.ravel().tolist())
            if inputs[0].shape != (channels_in,) or out.shape != (channels_out,) or len(fresh) != channels_out \
                    or fresh & seen:
                return f"layer {j + 1}: an affine layer reads its input's channels and makes new units"
            seen |= fresh
        elif kind in KEEP:
            if not np.array_equal(inputs[0], out) or (kind != RECTIFIER and inputs[0].ndim != 1):
                return f"layer {j + 1}: a {kind} layer keeps its input's units, one per channel"
        elif kind == SUM:
            a, b = (np.broadcast_to(s.reshape(s.shape + (1,) * (len(step[2]) - s.ndim)), step[2]) for s in inputs)
            if not np.array_equal(inputs[0], out) or not np.array_equal(classes[a], classes[b]):
                return f"layer {j + 1}: a sum's two inputs must have the same class unit by unit"
        elif kind == RELABEL:
            if not np.array_equal(relabelled(inputs[0], step), out):
                return f"layer {j + 1}: a {step[2]} moves the slots with the values"
        elif kind == OTHER:
            if not all(fixed(s) for s in inputs) or not fixed(out):
                return f"layer {j + 1} ({step[2]}) is not positively homogeneous: it reads and writes fixed units only"
        else:
            return f"layer {j + 1}: no rule for a layer of kind {kind!r}"
    return None


def statement(name: str, generator: int) -> Equation:
    """f(T_k(c, θ), x) = f(θ, x): the network's prediction unchanged by T_k (k counted from 1)."""
    f, theta, x = sp.Function(f"f_{name}"), sp.Symbol("theta"), sp.Symbol("x")
    return Equation(f(sp.Function(f"T_{generator + 1}")(C, theta), x), f(theta, x))


def conclusion(premises, *, description, slots, classes, generator, name):
    """Step 3: the statement for generator k, from the six laws (as ``laws`` states them) and the walk."""
    expected = [law for _, law in laws()]
    given = [p.theorem.statement for p in premises]
    if len(given) != len(expected) or not all(isinstance(s, Equation) and s.lhs == e.lhs and s.rhs == e.rhs
                                              for s, e in zip(given, expected)):
        return "the premises are not the six laws of the unit transport"
    classes = np.asarray(classes)
    if not (isinstance(generator, int) and generator >= 0 and np.any(classes == generator)):
        return f"class {generator} holds no unit"
    failure = walk(description, slots, classes)
    return failure if failure is not None else statement(name, generator)


def _concluded(premises, *, description, slots, classes, generator, name):
    return conclusion(premises, description=description, slots=slots, classes=classes, generator=generator,
                      name=name)


UNIT_TRANSPORT = scheme("unit transport", _concluded,
                        "the six laws (an affine unit's terms and bias, a rectifier of any slope, a max of two, a "
                        "linear map with constant coefficients, a batch normalisation, each commuting with c > 0) "
                        "and a walk of the layers in which every layer's units keep their class (sums tying theirs, "
                        "other layers on fixed units only, the input and output fixed) give, by induction on the "
                        "layers, f(T_k(c) theta, x) = f(theta, x) for the units of class k times c")
