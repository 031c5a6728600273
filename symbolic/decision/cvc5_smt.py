"""cvc5 as a second decision procedure, on its own encoding (cvc5's term API, not Z3's).

The same questions as ``symbolic.decision.smt`` asks Z3 (is left ≠ right satisfiable on the domain
as written?), translated independently: rationals stay exact, ReLU(t) is ite(t > 0, t, 0), a
rational power t^(p/q) a fresh y ≥ 0 with y^q = t and t ≥ 0, floor TO_INTEGER, Mod(a, b) the
remainder a − b·floor(a/b), and every denominator is asserted non-zero (cvc5's division is total
as well).  Integer symbols are cvc5 integers (the logic is ALL: mixed integer and real
arithmetic, with cvc5's own non-linear procedures).

cvc5 is trusted for its ``unsat`` only, and named in the evidence.  A model gives exact points:
rationals as they are, real algebraic numbers as the root of cvc5's defining polynomial in its
isolating interval (a sympy ``CRootOf``), which the caller re-verifies exactly.
"""
from __future__ import annotations

import cvc5
import sympy as sp
from cvc5 import Kind

from symbolic.decision.assumptions import symbol_range
from symbolic.decision.budget import uninterrupted
from symbolic.decision.fragment import Answer, OutsideFragment, check_term, power_exponent
from symbolic.relu import ReLU


class _Encoding:
    """cvc5 terms for sympy expressions over shared constants, with the domain constraints."""

    def __init__(self, solver: cvc5.Solver):
        self.solver = solver
        self.real, self.integer = solver.getRealSort(), solver.getIntegerSort()
        self.constants: dict = {}
        self.terms: dict = {}
        self.constraints: list = []

    def mk(self, kind, *args):
        return self.solver.mkTerm(kind, *args)

    def number(self, value: sp.Rational):
        return self.solver.mkReal(int(value.p), int(value.q))

    def to_real(self, term):
        return self.mk(Kind.TO_REAL, term) if term.getSort() == self.integer else term

    def constant(self, symbol: sp.Symbol):
        if symbol not in self.constants:
            facts = symbol_range(symbol)
            name = f"{symbol}_{len(self.constants)}"
            if facts.integral:
                integer = self.solver.mkConst(self.integer, name)
                value = self.mk(Kind.TO_REAL, integer)
                if facts.parity is not None:
                    two = self.solver.mkInteger(2)
                    self.constraints.append(self.mk(Kind.EQUAL, self.mk(Kind.INTS_MODULUS, integer, two),
                                                    self.solver.mkInteger(facts.parity)))
            else:
                integer, value = None, self.solver.mkConst(self.real, name)
            zero = self.number(sp.S.Zero)
            if facts.zero:
                self.constraints.append(self.mk(Kind.EQUAL, value, zero))
            if facts.lower:
                self.constraints.append(self.mk(Kind.GT if facts.lower_strict else Kind.GEQ, value, zero))
            if facts.upper:
                self.constraints.append(self.mk(Kind.LT if facts.upper_strict else Kind.LEQ, value, zero))
            if facts.nonzero:
                self.constraints.append(self.mk(Kind.DISTINCT, value, zero))
            self.constants[symbol] = (value, integer)
        return self.constants[symbol][0]

    def nonzero(self, term):
        self.constraints.append(self.mk(Kind.DISTINCT, term, self.number(sp.S.Zero)))

    def power(self, base, exponent: int):
        result = None
        for _ in range(exponent):
            result = base if result is None else self.mk(Kind.MULT, result, base)
        return self.number(sp.S.One) if result is None else result

    def term(self, expr: sp.Expr):
        cached = self.terms.get(expr)
        if cached is None:
            cached = self.terms[expr] = self._translate(expr)
        return cached

    def _translate(self, expr: sp.Expr):
        zero, one = self.number(sp.S.Zero), self.number(sp.S.One)
        if expr.is_Rational:
            return self.number(expr)
        if isinstance(expr, sp.Float):
            return self.number(sp.Rational(expr))
        if expr.is_Symbol:
            return self.constant(expr)
        if expr.is_Add:
            terms = [self.term(a) for a in expr.args]
            return terms[0] if len(terms) == 1 else self.mk(Kind.ADD, *terms)
        if expr.is_Mul:
            terms = [self.term(a) for a in expr.args]
            return terms[0] if len(terms) == 1 else self.mk(Kind.MULT, *terms)
        if expr.is_Pow:
            exponent = power_exponent(expr)
            base = self.term(expr.base)
            if exponent.is_Integer:
                value = self.power(base, abs(int(exponent)))
            else:
                root = self.solver.mkConst(self.real, f"root_{len(self.constraints)}")
                self.constraints += [self.mk(Kind.GEQ, root, zero),
                                     self.mk(Kind.EQUAL, self.power(root, exponent.q), base),
                                     self.mk(Kind.GT if exponent.p < 0 else Kind.GEQ, base, zero)]
                value = self.power(root, abs(exponent.p))
            if exponent < 0:
                self.nonzero(value)
                return self.mk(Kind.DIVISION, one, value)
            return value
        if isinstance(expr, sp.Piecewise):
            pieces = list(expr.args)
            if pieces[-1].cond is not sp.true:
                self.constraints.append(self.any([self.condition(p.cond) for p in pieces]))
            result = self.term(pieces[-1].expr)
            for piece in reversed(pieces[:-1]):
                result = self.mk(Kind.ITE, self.condition(piece.cond), self.term(piece.expr), result)
            return result
        args = [self.term(a) for a in expr.args]
        if isinstance(expr, ReLU):
            return self.mk(Kind.ITE, self.mk(Kind.GT, args[0], zero), args[0], zero)
        if isinstance(expr, sp.Abs):
            return self.mk(Kind.ITE, self.mk(Kind.GEQ, args[0], zero), args[0], self.mk(Kind.NEG, args[0]))
        if isinstance(expr, (sp.Max, sp.Min)):
            better = Kind.GEQ if isinstance(expr, sp.Max) else Kind.LEQ
            result = args[0]
            for other in args[1:]:
                result = self.mk(Kind.ITE, self.mk(better, result, other), result, other)
            return result
        if isinstance(expr, sp.sign):
            return self.mk(Kind.ITE, self.mk(Kind.GT, args[0], zero), one,
                           self.mk(Kind.ITE, self.mk(Kind.LT, args[0], zero), self.number(sp.S.NegativeOne), zero))
        if isinstance(expr, sp.Heaviside):
            at_zero = args[1] if len(args) > 1 else self.number(sp.S.Half)
            return self.mk(Kind.ITE, self.mk(Kind.GT, args[0], zero), one,
                           self.mk(Kind.ITE, self.mk(Kind.LT, args[0], zero), zero, at_zero))
        if isinstance(expr, sp.floor):
            return self.mk(Kind.TO_REAL, self.mk(Kind.TO_INTEGER, args[0]))
        if isinstance(expr, sp.ceiling):
            return self.mk(Kind.NEG, self.mk(Kind.TO_REAL, self.mk(Kind.TO_INTEGER, self.mk(Kind.NEG, args[0]))))
        if isinstance(expr, sp.Mod):
            dividend, divisor = args
            self.nonzero(divisor)
            quotient = self.mk(Kind.TO_REAL, self.mk(Kind.TO_INTEGER, self.mk(Kind.DIVISION, dividend, divisor)))
            return self.mk(Kind.SUB, dividend, self.mk(Kind.MULT, divisor, quotient))
        raise OutsideFragment(f"{expr.func.__name__} has no cvc5 term here")

    def any(self, formulas):
        return formulas[0] if len(formulas) == 1 else self.mk(Kind.OR, *formulas)

    def condition(self, cond):
        if cond is sp.true or cond is sp.false:
            return self.solver.mkBoolean(cond is sp.true)
        if isinstance(cond, (sp.And, sp.Or)):
            parts = [self.condition(c) for c in cond.args]
            return parts[0] if len(parts) == 1 else self.mk(Kind.AND if isinstance(cond, sp.And) else Kind.OR, *parts)
        if isinstance(cond, sp.Not):
            return self.mk(Kind.NOT, self.condition(cond.args[0]))
        kinds = {sp.Eq: Kind.EQUAL, sp.Ne: Kind.DISTINCT, sp.Lt: Kind.LT, sp.Le: Kind.LEQ,
                 sp.Gt: Kind.GT, sp.Ge: Kind.GEQ}
        for relation, kind in kinds.items():
            if isinstance(cond, relation):
                return self.mk(kind, self.term(cond.lhs), self.term(cond.rhs))
        raise OutsideFragment(f"the condition {cond} is outside comparisons, And, Or and Not")

    def domain(self, denominators, conditions) -> list:
        zero = self.number(sp.S.Zero)
        goals = [self.mk(Kind.DISTINCT, self.term(d), zero) for d in denominators]
        for c in conditions:
            closed = isinstance(c, sp.GreaterThan)
            goals.append(self.mk(Kind.GEQ if closed else Kind.GT, self.term(c.lhs if closed else c), zero))
        return goals


def _sympy_polynomial(term, variable, x):
    """cvc5's defining polynomial (a term in ``variable``) as a sympy expression in x."""
    kind = term.getKind()
    if term == variable:
        return x
    if kind == Kind.CONST_RATIONAL:
        return sp.Rational(str(term.getRealValue()))
    children = [_sympy_polynomial(c, variable, x) for c in term]
    if kind == Kind.ADD:
        return sp.Add(*children)
    if kind == Kind.MULT:
        return sp.Mul(*children)
    if kind == Kind.NEG:
        return -children[0]
    if kind == Kind.SUB:
        return children[0] - sp.Add(*children[1:])
    raise ValueError(f"unexpected term in cvc5's polynomial: {kind}")


def _value(solver: cvc5.Solver, term, real_sort):
    """An exact sympy number for a model value: a rational, or a real algebraic number."""
    value = solver.getValue(term)
    if value.isIntegerValue():
        return sp.Integer(int(value.getIntegerValue()))
    if value.isRealValue():
        fraction = value.getRealValue()
        return sp.Rational(fraction.numerator, fraction.denominator)
    if value.isRealAlgebraicNumber():
        variable = solver.mkVar(real_sort, "X")
        x = sp.Dummy("X")
        polynomial = sp.Poly(_sympy_polynomial(value.getRealAlgebraicNumberDefiningPolynomial(variable),
                                               variable, x), x)
        low = _value_of(value.getRealAlgebraicNumberLowerBound())
        high = _value_of(value.getRealAlgebraicNumberUpperBound())
        roots = [r for r in polynomial.real_roots() if low <= r <= high]
        return roots[0] if len(roots) == 1 else None
    return None


def _value_of(term) -> sp.Rational:
    fraction = term.getRealValue()
    return sp.Rational(fraction.numerator, fraction.denominator)


def _real_arithmetic(exprs) -> bool:
    """No integer symbol and no floor, ceiling or Mod: a question of real arithmetic alone."""
    exprs = [getattr(e, "lhs", e) for e in exprs]
    return not any(symbol_range(s).integral for e in exprs for s in e.free_symbols) and \
        not any(e.has(sp.floor, sp.ceiling, sp.Mod) for e in exprs)


def _solve(build, exprs, symbols, seconds: float) -> Answer:
    solver = cvc5.Solver()
    solver.setOption("produce-models", "true")
    if _real_arithmetic(exprs):
        # cylindrical algebraic coverings: complete for non-linear real arithmetic
        solver.setOption("nl-cov", "true")
    milliseconds = str(max(1, int(seconds * 1000)))
    solver.setOption("tlimit-per", milliseconds)
    solver.setOption("tlimit", milliseconds)
    solver.setLogic("ALL")
    encoding = _Encoding(solver)
    goals = build(encoding)
    for formula in encoding.constraints + goals:
        solver.assertFormula(formula)
    try:
        with uninterrupted():    # cvc5 keeps its own time limit
            result = solver.checkSat()
    except RuntimeError as error:
        return Answer("unknown", reason=f"cvc5 failed: {error}")
    if result.isUnsat():
        return Answer("unsat")
    if not result.isSat():
        return Answer("unknown", reason=f"cvc5: {result.getUnknownExplanation()}")
    point = {}
    for symbol in symbols:
        value, integer = encoding.constants.get(symbol, (None, None))
        if value is None:
            point[symbol] = symbol_range(symbol).member()
            continue
        number = _value(solver, integer if integer is not None else value, encoding.real)
        if number is None:
            return Answer("sat", reason="cvc5 gave a model value that is not a number")
        point[symbol] = number
    return Answer("sat", points=(point,))


def ask(left, right, denominators, conditions, symbols, seconds: float) -> Answer:
    """cvc5 on left ≠ right on the domain as written: unsat says left = right there.
    OutsideFragment for a side the encoding cannot state exactly (``fragment.check_term``)."""
    check_term(left), check_term(right)

    def build(encoding):
        goal = encoding.mk(Kind.DISTINCT, encoding.term(left), encoding.term(right))
        return [goal, *encoding.domain(denominators, conditions)]
    return _solve(build, [left, right, *denominators, *conditions], symbols, seconds)


def domain_point(denominators, conditions, symbols, seconds: float) -> Answer:
    """cvc5 on the domain as written alone: a model is a point of it, unsat says it is empty."""
    return _solve(lambda encoding: encoding.domain(denominators, conditions),
                  [*denominators, *conditions], symbols, seconds)
