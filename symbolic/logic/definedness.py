"""Where an expression as written is defined: the conditions it imposes, read from its nodes.

An equation or a relation of the statement language holds at the points where both its sides, as
written, are defined.  A chain e₀ R₁ e₁ … Rₙ eₙ of such statements gives e₀ R eₙ only where the
intermediate expressions are defined too; the kernel's rule of transitivity reads here which
conditions an intermediate expression imposes beyond those of the ends.

A condition is a pair (kind, expression):

- ("!= 0", b): a denominator, b^(-k) for a positive integer k;
- (">= 0", b): a root or other positive non-integer rational power of b;
- ("> 0", b): a negative non-integer rational power of b, or the logarithm of b;
- ("defined", node): a node whose domain this reading does not state (a power with a symbolic
  exponent, a Piecewise with no otherwise branch, a function it does not know, a non-real
  constant); it is satisfied only where the same node is evaluated at the ends.

Each is read as written (no node is rebuilt).  Inside a Piecewise a node is evaluated only where
its branch is taken: such a condition is ``guarded``, and only the unguarded conditions of an end
stand for that end's domain.  The reading errs one way only: a condition it omits would make the
rule of transitivity unsound, so every node not known to be total imposes one.
"""
from __future__ import annotations

import sympy as sp
from sympy.core.function import AppliedUndef

from symbolic.logic.terms import constants
from symbolic.relu import ReLU

NONZERO, NONNEGATIVE, POSITIVE, DEFINED = "!= 0", ">= 0", "> 0", "defined"

# the relations that give each kind of condition, b R 0: b > 0 gives b ≠ 0 and b ≥ 0
DISCHARGED_BY = {NONZERO: ("!=", ">", "<"), NONNEGATIVE: (">=", ">"), POSITIVE: (">",)}

# nodes defined wherever their arguments are (the arithmetic of +, ×, and these functions)
_TOTAL = (sp.Add, sp.Mul, ReLU, sp.Max, sp.Min, sp.Abs, sp.sign, sp.Heaviside, sp.exp, sp.sin, sp.cos,
          sp.tanh, sp.floor, sp.ceiling, sp.Piecewise, AppliedUndef, sp.Symbol, sp.Rational,
          sp.Tuple, sp.logic.boolalg.Boolean, sp.core.relational.Relational)
_NOT_REAL = (sp.zoo, sp.nan, sp.oo, -sp.oo, sp.I)


def _node_condition(node):
    """The condition one node imposes on its own arguments, or None."""
    if any(node == constant for constant in _NOT_REAL):
        return (DEFINED, node)
    if isinstance(node, sp.Pow):
        exponent = node.exp
        if exponent.is_Integer:
            return (NONZERO, node.base) if exponent < 0 else None
        if exponent.is_Rational:
            return (POSITIVE, node.base) if exponent < 0 else (NONNEGATIVE, node.base)
        return (DEFINED, node)
    if isinstance(node, sp.log):
        return (POSITIVE, node.args[0]) if len(node.args) == 1 else (DEFINED, node)
    if isinstance(node, sp.Mod):
        return (NONZERO, node.args[1])
    if isinstance(node, sp.Piecewise) and node.args[-1].cond is not sp.true:
        return (DEFINED, node)          # no value where none of its conditions holds
    if isinstance(node, sp.NumberSymbol) or isinstance(node, _TOTAL):
        return None
    return (DEFINED, node)


def _walk(expr, guarded: bool):
    """Every node as written with whether it stands inside a Piecewise's branch or condition."""
    yield expr, guarded
    inner = guarded or isinstance(expr, sp.Piecewise)
    for arg in expr.args:
        if isinstance(arg, sp.Basic):
            yield from _walk(arg, inner)


def conditions(expr, unguarded_only: bool = False) -> tuple:
    """The conditions the expression as written imposes, each once, in the order met; with
    ``unguarded_only`` the ones imposed wherever the expression is (outside any Piecewise)."""
    found = []
    for node, guarded in _walk(sp.sympify(expr), False):
        if guarded and unguarded_only:
            continue
        condition = _node_condition(node)
        if condition is not None and condition not in found:
            found.append(condition)
    return tuple(found)


def beyond(intermediates, ends) -> tuple:
    """The conditions the intermediate expressions impose (anywhere in them) that the ends do not
    impose wherever they are defined: where the ends are defined and these hold, every
    intermediate is defined."""
    provided = {condition for end in ends for condition in conditions(end, unguarded_only=True)}
    needed = []
    for expr in intermediates:
        for condition in conditions(expr):
            if condition not in provided and condition not in needed:
                needed.append(condition)
    return tuple(needed)


def vanishing_denominator(term):
    """A denominator, as written, of a sympy expression or of a scalar of an index-level term, that
    the symbols' facts do not show to be non-zero (a of a/a, though a/a evaluates to 1), or None."""
    exprs = [term] if isinstance(term, sp.Basic) else [c.expr for c in constants(term)]
    return next((node.base for expr in exprs for node in sp.preorder_traversal(expr)
                 if isinstance(node, sp.Pow) and node.exp.is_negative and node.base.is_nonzero is not True), None)


def condition_text(condition) -> str:
    kind, expr = condition
    return f"{expr} is defined" if kind == DEFINED else f"{expr} {kind}"
