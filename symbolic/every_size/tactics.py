"""Tactics: the steps of a derivation proposed, one rewrite at a time, by differentiation, contraction
and tidying of index-level terms.  Trusted for nothing: each step they propose must still pass the
axiom it names when the kernel checks the chain (``symbolic.trusted.axioms.index_rules``)."""
from __future__ import annotations

import sympy as sp

from symbolic.kernel.derivations import Chain, Rule
from symbolic.logic.terms import DATA_FAMILIES, Add, Const, Deriv, Entry, Eval, Indicator, Mul, Relu, Sum, children, \
    families, first_subterm, replace_first, substitute_index
from symbolic.trusted.axioms.index_rules import ARITHMETIC, CONSTANT_FACTOR, CONSTANT_TERM, COORDINATE, \
    DERIVATIVE_OF_ADD, DERIVATIVE_OF_SUM, INDICATOR_DERIVATIVE, PARAMETER_FAMILIES, PRODUCT_RULE, RELU_DERIVATIVE, \
    SUM_OF_TERMS, as_rational_function, product_rule


def monomials(term) -> object:
    """``term`` as a sum of monomials c·A_1⋯A_r (c a scalar, the A the non-arithmetic subterms):
    the arithmetic rule justifies the rewrite."""
    atoms: dict = {}
    expanded = sp.expand(as_rational_function(term, atoms))
    back = {symbol: original for original, symbol in atoms.items()}
    result = []
    for monomial in sp.Add.make_args(expanded):
        coefficient, factors = sp.S.One, []
        for factor in sp.Mul.make_args(monomial):
            base, exponent = factor.as_base_exp()
            if base in back and not isinstance(back[base], sp.Expr):
                if not (exponent.is_Integer and exponent > 0):
                    raise ValueError("a subterm in a denominator has no monomial form")
                factors += [back[base]] * int(exponent)
            else:
                coefficient *= factor.xreplace({s: o for s, o in back.items() if isinstance(o, sp.Expr)})
        if not factors:
            result.append(Const(coefficient))
        else:
            rest = factors[0] if len(factors) == 1 else Mul(tuple(factors))
            result.append(Mul((Const(coefficient), rest)))
    return result[0] if len(result) == 1 else Add(tuple(result))


def rewrite_first(chain: Chain, rule: Rule, wanted, rewrite, note: str = "") -> bool:
    """Propose the chain's next step: its first subterm ``wanted`` holds for rewritten by ``rewrite``,
    justified by ``rule``; False when there is no such subterm."""
    term = replace_first(chain.end, wanted, rewrite)
    if term is None:
        return False
    chain.then(rule, term, note)
    return True


def rewrite_all(chain: Chain, rule: Rule, wanted, rewrite, note: str = "") -> int:
    """``rewrite_first`` until no subterm is left that ``wanted`` holds for; the number of steps."""
    steps = 0
    while rewrite_first(chain, rule, wanted, rewrite, note):
        steps += 1
    return steps


def differentiate(chain: Chain, coordinate: Entry) -> None:
    """Push every ∂/∂coordinate of the chain's last term inward until it meets an entry, one rule a
    step: sums, sums of terms, products, scalars, ReLU and its indicator, constants, coordinates."""
    independent = DATA_FAMILIES | (PARAMETER_FAMILIES - {coordinate.family})

    def pushed(body):
        if families(body) <= independent:
            return CONSTANT_TERM, Const(sp.S.Zero)
        if isinstance(body, Entry):
            return COORDINATE, Const(sp.Mul(*[
                sp.KroneckerDelta(sp.Symbol(p, integer=True), sp.Symbol(q, integer=True))
                for p, q in zip(body.indices, coordinate.indices)]))
        if isinstance(body, Sum):
            return DERIVATIVE_OF_SUM, Sum(body.index, body.size, Deriv(coordinate, body.body))
        if isinstance(body, Add):
            return DERIVATIVE_OF_ADD, Add(tuple(Deriv(coordinate, term) for term in body.terms))
        if isinstance(body, Mul) and len(body.factors) == 2 and isinstance(body.factors[0], Const):
            return CONSTANT_FACTOR, Mul((body.factors[0], Deriv(coordinate, body.factors[1])))
        if isinstance(body, Mul):
            return PRODUCT_RULE, product_rule(coordinate, body.factors)
        if isinstance(body, Relu):
            return RELU_DERIVATIVE, Mul((Indicator(body.arg), Deriv(coordinate, body.arg)))
        if isinstance(body, Indicator):
            return INDICATOR_DERIVATIVE, Const(sp.S.Zero)
        raise ValueError(f"no rule differentiates {type(body).__name__}")

    def wanted(t):
        return isinstance(t, Deriv) and t.coordinate == coordinate and not isinstance(t.body, Eval)

    def constant(t):
        return wanted(t) and families(t.body) <= independent
    # derivatives of constants first: they vanish and keep the lines short
    while (target := first_subterm(chain.end, constant) or first_subterm(chain.end, wanted)) is not None:
        rule, result = pushed(target.body)
        rewrite_first(chain, rule, lambda t: t == target, lambda t: result)
        tidy(chain)


_ZERO, _ONE = Const(sp.S.Zero), Const(sp.S.One)


def _tidied(term):
    """One local simplification of a product or a sum of terms, or the term itself: a factor 0,
    a term 0, a factor 1, a sum of one term, equal products (up to order) added together."""
    if isinstance(term, Mul):
        if _ZERO in term.factors:
            return _ZERO
        if _ONE in term.factors and len(term.factors) > 1:
            rest = tuple(f for f in term.factors if f != _ONE)
            return rest[0] if len(rest) == 1 else Mul(rest)
    if isinstance(term, Add):
        rest = tuple(t for t in term.terms if t != _ZERO)
        if len(rest) != len(term.terms):
            return _ZERO if not rest else rest[0] if len(rest) == 1 else Add(rest)
        if len(rest) > 1 and all(isinstance(t, Mul) for t in rest):
            orders = {tuple(sorted(map(repr, t.factors))) for t in rest}
            if len(orders) == 1:
                return Mul((Const(sp.Integer(len(rest))), rest[-1]))
    return term


def tidy(chain: Chain) -> None:
    """Local simplifications (``_tidied``), one arithmetic step each, until none applies."""
    while (target := first_subterm(chain.end, lambda t: _tidied(t) != t)) is not None:
        rewrite_first(chain, ARITHMETIC, lambda t: t == target, _tidied)


def _deltas_of(term, index: str) -> bool:
    """Whether a scalar of the ring expression ``term`` (not inside other subterms) holds a
    Kronecker delta of ``index``."""
    if isinstance(term, Const):
        return any(sp.Symbol(index, integer=True) in d.args for d in term.expr.atoms(sp.KroneckerDelta))
    if isinstance(term, (Mul, Add)):
        return any(_deltas_of(c, index) for c in children(term))
    return False


def contract(chain: Chain, contraction: Rule) -> None:
    """Every sum whose summand carries a Kronecker delta of its index, innermost first: the summand
    as monomials (arithmetic), one sum per monomial (sum of terms), each delta contracted."""
    def contractible(t):
        return isinstance(t, Sum) and _deltas_of(t.body, t.index)

    def innermost(t):
        return contractible(t) and first_subterm(t.body, contractible) is None
    while (total := first_subterm(chain.end, innermost)) is not None:
        body = monomials(total.body)
        if body != total.body:
            rewrite_first(chain, ARITHMETIC, lambda t, old=total: t == old, lambda t: Sum(t.index, t.size, body))
            total = Sum(total.index, total.size, body)
        parts = body.terms if isinstance(body, Add) else (body,)
        if isinstance(body, Add):
            split = Add(tuple(Sum(total.index, total.size, p) for p in parts))
            rewrite_first(chain, SUM_OF_TERMS, lambda t, old=total: t == old, lambda t: split)
        index = sp.Symbol(total.index, integer=True)
        for part in parts:
            if not _deltas_of(part, total.index):
                continue
            coefficient, rest = part.factors
            delta = next(d for d in sp.Mul.make_args(coefficient.expr)
                         if isinstance(d, sp.KroneckerDelta) and index in d.args)
            target = str(next(a for a in delta.args if a != index))
            contracted = substitute_index(Mul((Const(coefficient.expr / delta), rest)), total.index, target)
            single = Sum(total.index, total.size, part)
            rewrite_first(chain, contraction, lambda t, old=single: t == old, lambda t: contracted)
