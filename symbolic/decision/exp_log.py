"""Identities of exp and log in one real variable: softplus(x) − softplus(−x) = x, tanh(x) = 2σ(2x) − 1.

The fragment: one real symbol x; the sides built from x and rationals by +, −, ×, ÷, integer powers,
exp of a rational multiple of x, log, and tanh, sigmoid and softplus (tanh(u) = (e^{2u} − 1)/(e^{2u} + 1),
σ(u) = 1/(1 + e^{−u}), softplus(u) = log(1 + e^u), each an identity at every real u); every denominator
and every log's argument positive by construction (a positive rational, an exp, products, quotients and
integer powers of these, and sums of such terms and even powers, one term positive), so that both sides are defined and differentiable at every
real x.  The decision, on F = lhs − rhs:

1. t = e^{x/L}, L the common denominator of the exponents' coefficients, so that every exp is a power
   of t; e^{x/L} is transcendental over the rational functions of x, so a rational function of x and
   t that is 0 as a function of x is the zero rational function, and the zero rational function is 0
   at every x (the direction used here);
2. F' = ∂F/∂x + (t/L)·∂F/∂t, with (log A)' = A'/A: when it is log-free, its exact zero test as a
   rational function of the indeterminates x and t;
3. F(0) at x = 0, t = 1: rationals and logs of positive rationals, each log expanded over primes
   (log(p^k·q^m) = k log p + m log q, exact for positive rationals); F(0) must come out 0 as it stands.

F' = 0 on ℝ and F(0) = 0 with F differentiable on ℝ give F = 0 on ℝ: the identity holds at every x.
Where F' or F(0) is not shown 0 nothing is concluded (a refutation is the identity test's, with its
witness).  The independent witness: both sides as written, at random rational points, at 50 and 100
digits, agreeing, at least one value non-zero.
"""
from __future__ import annotations

import math
import random

import sympy as sp

from symbolic.decision.budget import BudgetExhausted, time_budget
from symbolic.decision.witness import mp_value
from symbolic.decision.zero import is_rational_zero
from symbolic.errors import CheckerError
from symbolic.kernel.verdict import Holds, Status, Verdict

WITNESS_POINTS = 4
AGREEMENT = sp.Float(10) ** -40       # 50-digit values this close agree


class _Outside(CheckerError):
    """The claim is outside the fragment."""


def _rewritten(expr: sp.Expr) -> sp.Expr:
    """tanh (and sinh, cosh) through exp, every node rebuilt (so evaluated): the same function."""
    if expr.is_Atom:
        return expr
    args = [_rewritten(a) for a in expr.args]
    if isinstance(expr, sp.tanh):
        e = sp.exp(2 * args[0])
        return (e - 1) / (e + 1)
    if isinstance(expr, sp.sinh):
        return (sp.exp(args[0]) - sp.exp(-args[0])) / 2
    if isinstance(expr, sp.cosh):
        return (sp.exp(args[0]) + sp.exp(-args[0])) / 2
    return expr.func(*args)


def _positive_by_construction(expr: sp.Expr, x: sp.Symbol) -> bool:
    """A positive rational, an exp, products and integer powers of these, and sums of terms that
    are non-negative by construction, one of them positive."""
    if expr.is_Rational:
        return expr > 0
    if isinstance(expr, sp.exp):
        return True
    if isinstance(expr, sp.Mul):
        return all(_positive_by_construction(a, x) for a in expr.args)
    if isinstance(expr, sp.Add):
        return all(_nonnegative_by_construction(a, x) for a in expr.args) and \
            any(_positive_by_construction(a, x) for a in expr.args)
    if isinstance(expr, sp.Pow):
        return expr.exp.is_Integer and _positive_by_construction(expr.base, x)
    return False


def _nonnegative_by_construction(expr: sp.Expr, x: sp.Symbol) -> bool:
    """Positive by construction, 0, an even integer power of a real expression, or a product of these."""
    if expr.is_Rational:
        return expr >= 0
    if isinstance(expr, sp.Pow) and expr.exp.is_Integer and expr.exp.is_even and expr.exp > 0:
        return True
    if isinstance(expr, sp.Mul):
        return all(_nonnegative_by_construction(a, x) for a in expr.args)
    return _positive_by_construction(expr, x)


def _in_terms_of_t(expr: sp.Expr, x: sp.Symbol, t: sp.Symbol, period: int) -> sp.Expr:
    """Every exp(q·x) as t^(q·L); what else it holds must be rationals, x, +, ×, integer powers, log."""
    if expr.is_Rational or expr == x:
        return expr
    if isinstance(expr, sp.exp):
        q = sp.expand(expr.args[0]).coeff(x)
        if sp.expand(expr.args[0] - q * x) != 0 or not q.is_Rational:
            raise _Outside("an exp of something other than a rational multiple of x")
        return t ** int(q * period)
    if isinstance(expr, sp.Pow):
        if not expr.exp.is_Integer:
            raise _Outside("a power that is not an integer")
        return _in_terms_of_t(expr.base, x, t, period) ** expr.exp
    if isinstance(expr, (sp.Add, sp.Mul, sp.log)):
        return expr.func(*(_in_terms_of_t(a, x, t, period) for a in expr.args))
    raise _Outside(f"{type(expr).__name__} is outside exp and log")


def _check_domain(expr: sp.Expr, x: sp.Symbol) -> None:
    """Every denominator and every log's argument positive by construction: F is smooth on ℝ."""
    for node in sp.preorder_traversal(expr):
        if isinstance(node, sp.Pow) and node.exp.is_negative and not _positive_by_construction(node.base, x):
            raise _Outside(f"the denominator {node.base} is not positive by construction")
        if isinstance(node, sp.log) and not _positive_by_construction(node.args[0], x):
            raise _Outside(f"the log's argument {node.args[0]} is not positive by construction")


def _period(expr: sp.Expr, x: sp.Symbol) -> int:
    """L: the common denominator of the coefficients of x in the exps."""
    denominators = [1]
    for node in sp.preorder_traversal(expr):
        if isinstance(node, sp.exp):
            q = sp.expand(node.args[0]).coeff(x)
            if not q.is_Rational:
                raise _Outside("an exp of something other than a rational multiple of x")
            denominators.append(int(q.q))
    return math.lcm(*denominators)


def _zero_at_origin(F: sp.Expr, x: sp.Symbol, t: sp.Symbol) -> bool:
    """F(0) is 0 exactly: its logs of positive rationals expanded over primes."""
    value = F.xreplace({x: sp.S.Zero, t: sp.S.One})
    value = sp.expand(sp.expand_log(value, force=True))
    return value == 0


def _witness(lhs, rhs, x, seed: int) -> tuple[bool, str]:
    """Both sides as written agree at random rational points at 50 and 100 digits, one of them non-zero."""
    rng = random.Random(seed)
    informative = 0
    for _ in range(WITNESS_POINTS):
        point = {x: sp.Rational(rng.randint(-40, 40), rng.randint(1, 9))}
        for digits in (50, 100):
            left, right = mp_value(lhs, point, digits), mp_value(rhs, point, digits)
            if left is None or right is None or abs(left - right) > AGREEMENT * (1 + abs(left)):
                return False, f"the sides differ at {x} = {point[x]} ({digits} digits)"
        informative += left != 0
    if not informative:
        return False, "every point compared 0 with 0"
    return True, (f"agrees at {WITNESS_POINTS} random rational points at 50 and 100 digits, "
                  f"{informative} of them comparing non-zero values")


def decide_exp_log_equation(statement, *, seed: int = 0, timeout: float | None = None, **_):
    """Oracle 'exact exp-log identity test': ``Holds`` for lhs = rhs in the fragment (module
    docstring) when F' and F(0) are exactly 0 and the witness agrees; else an UNDECIDED answer
    (also when the time budget, ``timeout`` seconds, runs out)."""
    lhs, rhs = sp.sympify(statement.lhs), sp.sympify(statement.rhs)
    try:
        with time_budget(timeout):
            return _decide(lhs, rhs, seed)
    except BudgetExhausted:
        if timeout is None:
            raise       # an enclosing budget ran out: it is the caller's to report
        return Verdict(Status.UNDECIDED, f"{lhs} = {rhs}", reason=f"time budget of {timeout} s ran out")


def _decide(lhs, rhs, seed: int):
    claim = f"{lhs} = {rhs}"
    symbols = lhs.free_symbols | rhs.free_symbols
    if len(symbols) != 1 or not next(iter(symbols)).is_real:
        return Verdict(Status.UNDECIDED, claim, reason="the exp-log test takes claims in one real symbol")
    x = next(iter(symbols))
    try:
        F = _rewritten(lhs) - _rewritten(rhs)
        _check_domain(F, x)
        period = _period(F, x)
        t = sp.Symbol("t_exp", positive=True)
        F = _in_terms_of_t(F, x, t, period)
    except _Outside as why:
        return Verdict(Status.UNDECIDED, claim, reason=f"outside the exp-log fragment: {why}")
    derivative = sp.diff(F, x) + sp.diff(F, t) * t / period
    if derivative.has(sp.log):
        return Verdict(Status.UNDECIDED, claim, reason="the derivative of lhs − rhs still holds a log")
    if not is_rational_zero(derivative):
        return Verdict(Status.UNDECIDED, claim, reason="the derivative of lhs − rhs is not the zero rational function")
    if not _zero_at_origin(F, x, t):
        return Verdict(Status.UNDECIDED, claim, reason="lhs − rhs is not shown 0 at x = 0")
    agrees, witness = _witness(lhs, rhs, x, seed)
    if not agrees:
        return Verdict(Status.UNDECIDED, claim, reason=f"the evidence disagrees: {witness}")
    exp_name = f"exp({x}/{period})" if period != 1 else f"exp({x})"
    return Holds(evidence=(
        f"exp-log fragment: with t = {exp_name}, d/d{x} (lhs − rhs) is the zero rational function of {x} and t "
        f"(exp is transcendental over the rational functions), and lhs − rhs = 0 at {x} = 0 exactly; every "
        "denominator and log argument is positive by construction, so lhs − rhs is differentiable on all of ℝ",
        witness))
