"""A sympy expression sent to another process as written.  sympy rebuilds a pickled expression
with evaluation, so that 0·x arrives as 0 and a claim checked in a worker would reach the parent
as another claim; here each node is rebuilt from its arguments without evaluation, the tree the
same as the one checked."""
from __future__ import annotations

import sympy as sp


class AsWritten:
    """Pickles ``expr`` node by node, each rebuilt unevaluated (``rebuilt``); unpickled, it is the
    expression itself."""
    __slots__ = ("expr",)

    def __init__(self, expr):
        self.expr = expr

    def __reduce__(self):
        expr = self.expr
        if not isinstance(expr, sp.Basic) or not expr.args:
            return _itself, (expr,)
        return rebuilt, (expr.func, tuple(AsWritten(argument) for argument in expr.args))


def _itself(value):
    return value


def rebuilt(func, args):
    """``func(*args)`` without evaluation where the node takes that option, as sympy built it."""
    try:
        return func(*args, evaluate=False)
    except TypeError:
        return func(*args)


def sendable(value):
    """``value`` with every sympy expression in it (inside tuples, lists and mappings) wrapped to be
    pickled as written."""
    if isinstance(value, sp.Basic):
        return AsWritten(value)
    if isinstance(value, (tuple, list)):
        return type(value)(sendable(item) for item in value)
    if hasattr(value, "keys") and hasattr(value, "items"):
        return {sendable(key): sendable(item) for key, item in value.items()}
    return value
