"""The project's LaTeX printer of sympy expressions: sympy's own, with indicators for Heaviside.
It stands on the ground floor (sympy only), so that the term language can print with it."""
from __future__ import annotations

import sympy as sp
from sympy.printing.latex import LatexPrinter

from symbolic.printing.sympy_text import HeldOrder


class _Printer(LatexPrinter):
    def _print_Heaviside(self, expr, exp=None):
        body = r"\mathbf{1}\left[%s > 0\right]" % self._print(expr.args[0])
        return body if exp is None else r"\left(%s\right)^{%s}" % (body, exp)


def to_latex(expr, **settings) -> str:
    """sympy.latex with the project's conventions (indicators, not θ, for Heaviside)."""
    return _Printer(settings).doprint(sp.sympify(expr))


class _WrittenPrinter(HeldOrder, _Printer):
    """The LaTeX printer, each sum and product as written."""


def written_latex(expr, **settings) -> str:
    """``to_latex``, a sum or product held in an order sympy's evaluation would not give printed in
    that order (a side kept as written prints as it was written)."""
    return _WrittenPrinter(settings).doprint(sp.sympify(expr))
