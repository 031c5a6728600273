"""The real network, with max and not a pattern form, in mpmath: the independent witness for
derivative identities.  Derivatives come from mpmath.diff (finite differences at high precision),
independent of every symbolic derivative."""
from __future__ import annotations

import random
from dataclasses import dataclass
from fractions import Fraction

import mpmath
import sympy as sp

from symbolic.kernel.verdict import Holds, Status, Verdict

KINK_MARGIN = Fraction(1, 20)


@dataclass
class Instance:
    """Exact rational data for one witness: parameters, data, directions, α and loss constants."""

    d: int
    h: int
    n: int
    bias: bool
    theta: list          # W row by row, then b (if any), then v
    inputs: list         # n rows of d
    targets: list        # n values
    alpha: Fraction
    u: list
    w: list
    constants: list      # 2n + n² loss constants for the generic and smooth losses

    def __str__(self) -> str:
        # the exact instance is the statement's argument; its printing names it by its size and alpha
        return f"instance(d={self.d}, h={self.h}, N={self.n}, alpha={self.alpha})"

    def as_witness(self) -> dict:
        names = parameter_names(self.d, self.h, self.bias)
        witness = {name: value for name, value in zip(names, self.theta)}
        for k, row in enumerate(self.inputs):
            for i, value in enumerate(row):
                witness[f"x_{k + 1},{i + 1}"] = value
        witness.update({f"y_{k + 1}": y for k, y in enumerate(self.targets)})
        witness["alpha"] = self.alpha
        witness.update({f"u[{name}]": value for name, value in zip(names, self.u)})
        witness.update({f"w[{name}]": value for name, value in zip(names, self.w)})
        return witness


def parameter_names(d: int, h: int, bias: bool = False) -> list[str]:
    names = [f"W_{i + 1},{j + 1}" for i in range(d) for j in range(h)]
    names += [f"b_{j + 1}" for j in range(h)] if bias else []
    return names + [f"v_{j + 1}" for j in range(h)]


def _rational(rng: random.Random, low: int = -3, high: int = 3) -> Fraction:
    return Fraction(rng.randint(low * 16, high * 16) or 1, 16)


def _dot(xs, ys):
    return sum(x * y for x, y in zip(xs, ys))


def preactivations(theta, inputs, d, h, bias, dot=_dot):
    """s_kj = Σ_i x_ki W_ij (+ b_j); ``dot`` may be mpmath.fdot for mpmath numbers."""
    columns = [theta[j: d * h: h] for j in range(h)]
    b = theta[d * h: d * h + h] if bias else [0] * h
    return [[dot(x, column) + b[j] for j, column in enumerate(columns)] for x in inputs]


INPUT_TRIES = 64


def random_instance(d: int, h: int, n: int, rng: random.Random, bias: bool = False) -> Instance:
    """A random rational instance whose pre-activations stay clear of the kinks and which is
    informative: at every data point at least one hidden unit is active (with every unit dead at
    a point, both sides of a derivative identity are 0 there and compare nothing)."""
    size = d * h + h + (h if bias else 0)
    inputs = None
    while inputs is None:
        theta = [_rational(rng) for _ in range(size)]
        inputs = []
        for _ in range(n):
            row = next((x for x in ([_rational(rng) for _ in range(d)] for _ in range(INPUT_TRIES))
                        if active_off_kinks(theta, x, d, h, bias)), None)
            if row is None:     # θ leaves every unit dead on most inputs: draw θ again
                inputs = None
                break
            inputs.append(row)
    alpha = Fraction(1)
    while alpha == 1:    # α = 1 would make every false scaling look true
        alpha = Fraction(rng.randint(2, 40), rng.randint(2, 40))
    return Instance(d, h, n, bias, theta, inputs, [_rational(rng) for _ in range(n)], alpha,
                    [_rational(rng, -3, 3) for _ in range(size)],
                    [_rational(rng, -3, 3) for _ in range(size)],
                    [_rational(rng, -2, 2) for _ in range(2 * n + n * n)])


def active_off_kinks(theta, x, d, h, bias) -> bool:
    """Every pre-activation at x clear of its kink, and at least one unit active."""
    row = preactivations(theta, [x], d, h, bias)[0]
    return all(abs(s) > KINK_MARGIN for s in row) and any(s > 0 for s in row)


def to_mpf(value) -> mpmath.mpf:
    """A Fraction as an mpmath number at the working precision (other values unchanged)."""
    return mpmath.mpf(value.numerator) / value.denominator if isinstance(value, Fraction) else value


def predictions(theta, inputs, d, h, bias, dot=_dot):
    """f(x_k) = Σ_j max(s_kj, 0) v_j: the real ReLU, not a pattern."""
    v = theta[-h:]
    return [dot([max(s, 0) for s in row], v) for row in preactivations(theta, inputs, d, h, bias, dot)]


def loss_value(kind: str, p: list, instance: Instance):
    """The loss of the predictions p: mse, logistic (binary cross-entropy on the logit), the
    generic quadratic, or a smooth non-polynomial loss standing for 'any loss'."""
    n = instance.n
    c = [to_mpf(x) for x in instance.constants]
    y = [to_mpf(t) for t in instance.targets]
    if kind == "mse":
        return sum((pk - yk) ** 2 for pk, yk in zip(p, y)) / n
    if kind == "logistic":
        labels = [1 if t > 0 else 0 for t in instance.targets]
        return sum(mpmath.log1p(mpmath.exp(pk)) - lk * pk for pk, lk in zip(p, labels)) / n
    if kind == "quadratic":
        linear = sum(c[k] * p[k] for k in range(n))
        quadratic = sum(c[n + k * n + m] * p[k] * p[m] for k in range(n) for m in range(k, n))
        return linear + quadratic / 2
    if kind == "smooth":
        return (sum(mpmath.sin(c[k] * p[k]) for k in range(n))
                + mpmath.exp(sum(c[n + k] * p[k] for k in range(n)) / (4 * n)))
    raise ValueError(f"unknown loss {kind!r}")


def loss_function(kind: str, instance: Instance):
    inputs = [[to_mpf(x) for x in row] for row in instance.inputs]

    def loss(theta):
        return loss_value(kind, predictions(theta, inputs, instance.d, instance.h, instance.bias,
                                            dot=mpmath.fdot), instance)
    return loss


def directional_derivative(loss, theta: list, directions: list, dps: int):
    """D L(θ)[u] (one direction) or D²L(θ)[u, w] (two), by mpmath.diff at dps digits."""
    with mpmath.workdps(dps):
        base = [to_mpf(t) for t in theta]
        dirs = [[to_mpf(x) for x in direction] for direction in directions]

        def along(*steps):
            point = list(base)
            for step, direction in zip(steps, dirs):
                point = [p + step * e for p, e in zip(point, direction)]
            return loss(point)
        if len(dirs) == 1:
            return mpmath.diff(along, 0)
        return mpmath.diff(along, (0, 0), (1, 1))


LOW_DPS, HIGH_DPS = 50, 80


@dataclass(frozen=True)
class Residual:
    """|lhs − rhs| of one identity at LOW_DPS and HIGH_DPS digits, and the size of the sides.

    A true zero leaves rounding noise: tiny next to the sides, and smaller again at the higher
    precision.  A real difference does not move with the precision, however small it is (a
    saturated sigmoid makes both sides of a false identity about 1e-80)."""

    low: mpmath.mpf
    high: mpmath.mpf
    scale: mpmath.mpf

    @property
    def stable(self) -> bool:
        return self.low > 0 and abs(self.low - self.high) <= self.low * mpmath.mpf(10) ** -10

    @property
    def noise(self) -> bool:
        tiny = self.low <= mpmath.mpf(10) ** -(LOW_DPS - 10) * (1 + self.scale)
        falls = (self.high <= self.low * mpmath.mpf(10) ** -20
                 or self.high <= mpmath.mpf(10) ** -(HIGH_DPS - 10) * (1 + self.scale))
        return tiny and falls and not self.stable

    @property
    def relative(self) -> float:
        return float(self.low / self.scale) if self.scale > 0 else float(self.low)

    def key(self):
        """Orders residuals from the least to the most telling difference."""
        return (self.stable, self.relative)


def measure(evaluate) -> Residual:
    """``evaluate(dps)`` returns (lhs, rhs) computed at dps digits."""
    values = []
    for dps in (LOW_DPS, HIGH_DPS):
        with mpmath.workdps(dps + 10):
            left, right = evaluate(dps)
            values.append((abs(left - right), max(abs(left), abs(right))))
    return Residual(values[0][0], values[1][0], values[0][1])


def hessian_residual(function, theta, scale, claimed, rng):
    """D²L(Tθ)[u, w] against D²L(θ)[Du, Dw] for random u, w, by mpmath.diff."""
    u = [sp.Rational(rng.randint(-16, 16), 8) for _ in theta]
    w = [sp.Rational(rng.randint(-16, 16), 8) for _ in theta]
    value = lambda r: mpmath.mpf(int(r.p)) / int(r.q)  # noqa: E731

    def along(base, first, second):
        return lambda s, t: function(*[b + s * f + t * g for b, f, g in zip(base, first, second)])

    def both_sides(dps):
        left = mpmath.diff(along([value(a) * value(t) for a, t in zip(scale, theta)],
                                 [value(x) for x in u], [value(x) for x in w]), (0, 0), (1, 1))
        right = mpmath.diff(along([value(t) for t in theta],
                                  [value(c) * value(x) for c, x in zip(claimed, u)],
                                  [value(c) * value(x) for c, x in zip(claimed, w)]), (0, 0), (1, 1))
        return left, right
    return measure(both_sides)


def witness_answer(claim, residual, informative, witness_method="mpmath.diff on the real ReLU loss",
                   instance=None, point=None):
    """The two-precision agreement's answer on its most telling residual: Holds when it is rounding
    noise at one informative point at least; otherwise UNDECIDED, its details saying whether the
    difference was stable across precisions (a real difference).  A witness that compared nothing
    (both sides 0 wherever it looked) agrees with nothing."""
    if residual is None or informative == 0:
        return Verdict(Status.UNDECIDED, claim, details={"informative_points": 0},
                       reason="the witness compared nothing: both sides were 0 at every point it tried")
    details = {"residual_low_dps": float(residual.low), "residual_high_dps": float(residual.high),
               "size_of_sides": float(residual.scale), "informative_points": informative,
               "stable": residual.stable}
    if instance is not None:
        details["witness"] = instance.as_witness()
    elif point is not None:
        details["witness"] = dict(point)
    described = (f"{float(residual.low):.1e} at {LOW_DPS} digits, {float(residual.high):.1e} at "
                 f"{HIGH_DPS} digits (sides of size {float(residual.scale):.1e})")
    points = f"{informative} informative point{'s' if informative != 1 else ''}"
    if residual.noise:
        return Holds((f"{witness_method} at {points}: residual {described}",), residual=float(residual.low),
                     details=details)
    return Verdict(Status.UNDECIDED, claim, residual=float(residual.low), details=details,
                   reason=f"{witness_method} at {points}: residual {described}, "
                          + ("a difference stable across precisions" if residual.stable else "not rounding noise"))
