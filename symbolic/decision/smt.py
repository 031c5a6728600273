"""Z3 as a decision procedure for real (and integer) arithmetic with ReLU, max, min and abs.

The translation is exact: rational numbers stay rational, ReLU(t) becomes If(t > 0, t, 0), a
Piecewise nested Ifs of its conditions, floor and ceiling Z3's ToInt, Mod(a, b) the remainder
a − b·floor(a/b) (for integer arguments also fresh integers q, r with a = b·q + r, each encoding
given half the time), and a symbol's range (``symbolic.decision.assumptions``) becomes
constraints.  Division in Z3 is a total function (x/0 is some number), so every denominator met
in the translation is asserted non-zero: the question asked is the claim on its domain of
definition, not another one.

Z3 is trusted for nothing but its ``unsat``; callers say so in the verdict's evidence.  A model is
only a hint: ``candidate_points`` turns it into rational points (algebraic values are rounded at
several precisions) that the caller re-verifies exactly on the original expressions.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import sympy as sp
import z3

from symbolic.decision.assumptions import symbol_range
from symbolic.decision.budget import uninterrupted
from symbolic.decision.fragment import DISCONTINUOUS, MAX_POWER, REAL_ONLY, Answer, OutsideFragment, \
    check_term, in_fragment, power_exponent  # noqa: F401 - the fragment's names, as they were read here
from symbolic.relu import ReLU


@dataclass
class Translation:
    """Z3 terms for sympy expressions over shared variables, with the domain constraints.

    ``integers``: every symbol is an integer and every number an integer, with no division; the
    terms are then built over Z3's integers alone, where its non-linear integer reasoning is far
    stronger than over reals constrained to be integral.
    """

    variables: dict = field(default_factory=dict)
    terms: dict = field(default_factory=dict)
    constraints: list = field(default_factory=list)
    integers: bool = False
    remainders_by_floor: bool = False    # Mod of integers as a − b·floor(a/b), not a = b·q + r

    @classmethod
    def for_expressions(cls, exprs, remainders_by_floor: bool = False) -> "Translation":
        """A translation over the integers where that is exact, else over the reals."""
        symbols = set().union(*(e.free_symbols for e in exprs))
        integral = all(symbol_range(s).integral for s in symbols) and all(
            n.is_Integer for e in exprs for n in e.atoms(sp.Number)) and not any(
            p.exp.is_negative for e in exprs for p in e.atoms(sp.Pow))
        return cls(integers=integral and not any(e.has(*REAL_ONLY) for e in exprs),
                   remainders_by_floor=remainders_by_floor)

    def variable(self, symbol: sp.Symbol):
        if symbol not in self.variables:
            facts = symbol_range(symbol)
            # one Z3 variable per sympy symbol: two symbols may share a name
            name = f"{symbol}!{len(self.variables)}"
            if facts.integral:
                integer = z3.Int(name)
                value = integer if self.integers else z3.ToReal(integer)
                if facts.parity is not None:
                    self.constraints.append(integer % 2 == facts.parity)
            else:
                integer, value = None, z3.Real(name)
            self.variables[symbol] = (value, integer)
            if facts.zero:
                self.constraints.append(value == 0)
            if facts.lower:
                self.constraints.append(value > 0 if facts.lower_strict else value >= 0)
            if facts.upper:
                self.constraints.append(value < 0 if facts.upper_strict else value <= 0)
            if facts.nonzero:
                self.constraints.append(value != 0)
        return self.variables[symbol][0]

    def term(self, expr: sp.Expr):
        """The Z3 term of expr (shared sub-expressions translated once)."""
        cached = self.terms.get(expr)
        if cached is None:
            cached = self.terms[expr] = self._translate(expr)
        return cached

    def _translate(self, expr: sp.Expr):
        if expr.is_Integer and self.integers:
            return z3.IntVal(int(expr))
        if expr.is_Rational:
            return rational(expr)
        if isinstance(expr, sp.Float):
            return rational(sp.Rational(expr))
        if expr.is_Symbol:
            return self.variable(expr)
        if expr.is_Add:
            return z3.Sum([self.term(a) for a in expr.args])
        if expr.is_Mul:
            numerator, denominator = [], []
            for factor in expr.args:
                base, exponent = factor.as_base_exp()
                if exponent.is_Integer and exponent < 0:
                    denominator.append(self.term(base ** -exponent))
                else:
                    numerator.append(self.term(factor))
            product = z3.Product(numerator) if numerator else z3.RealVal(1)
            if not denominator:
                return product
            divisor = z3.Product(denominator) if len(denominator) > 1 else denominator[0]
            self.constraints.append(divisor != 0)
            return product / divisor
        if expr.is_Pow:
            base, exponent = expr.base, power_exponent(expr)
            if not exponent.is_Integer:
                return self._root_power(base, exponent)
            power = _power(self.term(base), abs(int(exponent)))
            if exponent < 0:
                self.constraints.append(power != 0)
                return 1 / power
            return power
        if isinstance(expr, sp.Piecewise):
            return self._piecewise(expr)
        args = [self.term(a) for a in expr.args]
        if isinstance(expr, sp.floor):
            return z3.ToReal(z3.ToInt(self._real(args[0])))
        if isinstance(expr, sp.ceiling):
            return -z3.ToReal(z3.ToInt(-self._real(args[0])))
        if isinstance(expr, sp.Mod):
            return self._mod(expr, *args)
        if isinstance(expr, ReLU):
            return z3.If(args[0] > 0, args[0], 0)
        if isinstance(expr, (sp.Max, sp.Min)):
            better = (lambda a, b: a >= b) if isinstance(expr, sp.Max) else (lambda a, b: a <= b)
            result = args[0]
            for other in args[1:]:
                result = z3.If(better(result, other), result, other)
            return result
        if isinstance(expr, sp.Abs):
            return z3.If(args[0] >= 0, args[0], -args[0])
        if isinstance(expr, sp.sign):
            return z3.If(args[0] > 0, 1, z3.If(args[0] < 0, -1, 0))
        if isinstance(expr, sp.Heaviside):
            # sympy stores the value at 0 as the second argument (1/2 unless given)
            at_zero = args[1] if len(args) > 1 else rational(sp.S.Half)
            return z3.If(args[0] > 0, 1, z3.If(args[0] < 0, 0, at_zero))
        raise OutsideFragment(f"{expr.func.__name__} is outside real arithmetic with ReLU, "
                              "max, min, abs, sign, Heaviside, Piecewise, floor, ceiling and Mod")


    def _root_power(self, base: sp.Expr, exponent: sp.Rational):
        """t^(p/q) = y^p for a fresh y ≥ 0 with y^q = t, defined for t ≥ 0 (t > 0 when p < 0):
        the real root sympy means, on the domain as written (no root of a negative number)."""
        t = self._real(self.term(base))
        root = z3.Real(f"root!{len(self.constraints)}")
        self.constraints += [root >= 0, _power(root, exponent.q) == t,
                             t > 0 if exponent.p < 0 else t >= 0]
        power = _power(root, abs(exponent.p))
        return 1 / power if exponent.p < 0 else power

    def _mod(self, expr: sp.Mod, dividend, divisor):
        """sympy's Mod(a, b) = a − b·floor(a/b), with the sign of b, defined for b ≠ 0.  Of
        integer arguments: a = b·q + r with fresh integers q, r and 0 ≤ r < b (b > 0) or
        b < r ≤ 0 (b < 0), which determine q and r, so nothing is added to the claim."""
        self.constraints.append(divisor != 0)
        if self.remainders_by_floor or not (expr.args[0].is_integer and expr.args[1].is_integer):
            dividend, divisor = self._real(dividend), self._real(divisor)
            return dividend - divisor * z3.ToReal(z3.ToInt(dividend / divisor))
        count = len(self.constraints)
        quotient, remainder = z3.Int(f"quotient!{count}"), z3.Int(f"remainder!{count}")
        if not self.integers:
            quotient, remainder = z3.ToReal(quotient), z3.ToReal(remainder)
        self.constraints += [dividend == divisor * quotient + remainder,
                             z3.If(divisor > 0, z3.And(0 <= remainder, remainder < divisor),
                                   z3.And(divisor < remainder, remainder <= 0))]
        return remainder

    def _real(self, term):
        return z3.ToReal(term) if z3.is_int(term) else term

    def _piecewise(self, expr: sp.Piecewise):
        """If(c1, e1, If(c2, e2, ...)); a Piecewise without a final True branch is undefined
        where no condition holds, so one of its conditions is a domain constraint."""
        pieces = list(expr.args)
        if pieces[-1].cond is not sp.true:
            # undefined where no condition holds: that set is outside the domain
            self.constraints.append(z3.Or([self.condition(p.cond) for p in pieces]))
        result = self._real(self.term(pieces[-1].expr))
        for piece in reversed(pieces[:-1]):
            result = z3.If(self.condition(piece.cond), self._real(self.term(piece.expr)), result)
        return result

    def condition(self, cond):
        """A Z3 formula for a condition made of comparisons, Eq/Ne, And, Or and Not."""
        if cond is sp.true or cond is sp.false:
            return z3.BoolVal(cond is sp.true)
        if isinstance(cond, sp.And):
            return z3.And([self.condition(c) for c in cond.args])
        if isinstance(cond, sp.Or):
            return z3.Or([self.condition(c) for c in cond.args])
        if isinstance(cond, sp.Not):
            return z3.Not(self.condition(cond.args[0]))
        comparisons = {sp.Eq: lambda a, b: a == b, sp.Ne: lambda a, b: a != b,
                       sp.Lt: lambda a, b: a < b, sp.Le: lambda a, b: a <= b,
                       sp.Gt: lambda a, b: a > b, sp.Ge: lambda a, b: a >= b}
        for kind, compare in comparisons.items():
            if isinstance(cond, kind):
                return compare(self._real(self.term(cond.lhs)), self._real(self.term(cond.rhs)))
        raise OutsideFragment(f"the condition {cond} is outside comparisons, And, Or and Not")


def rational(number: sp.Rational) -> z3.ArithRef:
    """An exact Z3 rational ("p/q": read the same way by every Z3 version)."""
    return z3.RealVal(f"{int(number.p)}/{int(number.q)}")


def _power(base, exponent: int):
    result = None
    for _ in range(exponent):
        result = base if result is None else result * base
    return z3.RealVal(1) if result is None else result


def solve(translation: Translation, goals: list, symbols, seconds: float) -> Answer:
    """Is goals ∧ domain constraints satisfiable?  Z3 with a time limit (milliseconds)."""
    solver = z3.Solver()
    solver.set("timeout", max(1, int(seconds * 1000)))
    solver.add(*translation.constraints, *goals)
    try:
        with uninterrupted():     # Z3 keeps its own time limit; a signal must not cut it half-way
            result = solver.check()
    except z3.Z3Exception as error:    # e.g. interrupted
        return Answer("unknown", reason=f"Z3 failed: {error}")
    if result == z3.unsat:
        return Answer("unsat")
    if result == z3.unknown:
        return Answer("unknown", reason=f"Z3: {solver.reason_unknown()}")
    return Answer("sat", points=tuple(candidate_points(solver.model(), translation, symbols)))


def domain_goals(translation: Translation, denominators, conditions) -> list:
    """The domain as written, as Z3 formulas: each denominator ≠ 0, each region condition
    (c for c > 0, GreaterThan(c, 0) for c ≥ 0: ``WrittenDomain.conditions``)."""
    goals = [translation.term(d) != 0 for d in denominators]
    for c in conditions:
        if isinstance(c, sp.GreaterThan):
            goals.append(translation.term(c.lhs) >= 0)
        else:
            goals.append(translation.term(c) > 0)
    return goals


def ask(left, right, denominators, conditions, symbols, seconds: float) -> Answer:
    """Z3 on left ≠ right on the domain as written (every denominator non-zero, every
    condition holding): unsat says left = right there.  OutsideFragment for a side the
    encoding cannot state exactly (``fragment.check_term``)."""
    check_term(left), check_term(right)
    exprs = [left, right, *denominators, *(getattr(c, "lhs", c) for c in conditions)]
    # a remainder of integers has two exact encodings, and Z3 settles some claims in one only
    # (floor(n/4) + ceiling(n/4) = 2 floor(n/4) + sign(Mod(n, 4)) through floor, Mod(n, 2)² =
    # Mod(n, 2) through a = b·q + r): half the time for each
    encodings = (True, False) if any(m.args[0].is_integer and m.args[1].is_integer
                                     for e in exprs for m in e.atoms(sp.Mod)) else (False,)
    for remainders_by_floor in encodings:
        translation = Translation.for_expressions(exprs, remainders_by_floor)
        goal = translation.term(left) != translation.term(right)
        translation.constraints += domain_goals(translation, denominators, conditions)
        answer = solve(translation, [goal], symbols, seconds / len(encodings))
        if answer.result != "unknown":
            return answer
    return answer


def domain_point(denominators, conditions, symbols, seconds: float) -> Answer:
    """Z3 on the domain as written alone: a model is a point of it, unsat says it is empty."""
    exprs = [*denominators, *(getattr(c, "lhs", c) for c in conditions)]
    translation = Translation.for_expressions(exprs)
    goals = domain_goals(translation, denominators, conditions)
    return solve(translation, goals, symbols, seconds)


def _rational(value, digits: int):
    if z3.is_int_value(value):
        return sp.Integer(value.as_long())
    if z3.is_rational_value(value):
        return sp.Rational(value.numerator_as_long(), value.denominator_as_long())
    if z3.is_algebraic_value(value):
        if digits is None:    # the exact algebraic number: a real root of Z3's polynomial
            coefficients = [int(str(c)) for c in value.poly()]
            polynomial = sp.Poly(list(reversed(coefficients)), sp.Dummy("X"))
            return polynomial.real_roots()[value.index() - 1]
        approximation = value.approx(digits)
        return sp.Rational(approximation.numerator_as_long(), approximation.denominator_as_long())
    return None


def candidate_points(model, translation: Translation, symbols) -> list[dict]:
    """Points from a model: exact where the model is rational; else the exact algebraic point
    (√2 as a root of x² − 2, re-verified exactly by the caller) and rounded values at 10, 20 and
    40 digits (a point of an open set has rational points nearby)."""
    points = []
    for digits in (None, 10, 20, 40):
        point = {}
        for symbol in symbols:
            value, integer = translation.variables.get(symbol, (None, None))
            if value is None:    # the symbol does not occur: any member of its range will do
                point[symbol] = symbol_range(symbol).member()
                continue
            evaluated = model.eval(integer if integer is not None else value,
                                   model_completion=True)
            try:
                number = _rational(evaluated, digits)
            except (ValueError, IndexError, sp.polys.polyerrors.PolynomialError):
                number = None
            if number is None:
                break
            point[symbol] = number
        else:
            if point not in points:
                points.append(point)
    return points
