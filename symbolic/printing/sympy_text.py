"""The project's text printer of sympy expressions: sympy's own, except that a rational that is
not an integer is parenthesised wherever an operator binds it, so that a claim kept as written
reads back as itself (sympy prints 6 − 3·(1/2)⁻¹ as ``6 - 3/1/2``, which reads as 4.5)."""
from __future__ import annotations

import sympy as sp
from sympy.printing.str import StrPrinter


class _TextPrinter(StrPrinter):
    def parenthesize(self, item, level, strict=False):
        # a fraction bound by an operator is a unit: (1/2)**2, 3/(1/2), 6 - 3/(1/2)
        if isinstance(item, sp.Rational) and not item.is_Integer:
            return "(%s)" % self._print(item)
        return super().parenthesize(item, level, strict)


def held_out_of_order(expr) -> bool:
    """Whether a sum or product holds its arguments in an order sympy's evaluation would not give
    (y + x built unevaluated): then it prints in the order held, as it was written; an evaluated
    one prints in sympy's usual order."""
    try:
        return expr.func(*expr.args) != expr
    except (TypeError, ValueError, ZeroDivisionError):
        return True


class HeldOrder:
    """A printer mixin: each sum and product printed in the order it is held where that order was
    written (``held_out_of_order``), in sympy's usual order elsewhere; for the text and LaTeX printers alike."""

    def _print_Add(self, expr, order=None):
        return super()._print_Add(expr, order="none" if held_out_of_order(expr) else order)

    def _print_Mul(self, expr):
        if not held_out_of_order(expr):
            return super()._print_Mul(expr)
        saved = self._settings.get("order")
        self._settings["order"] = "none"
        try:
            return super()._print_Mul(expr)
        finally:
            self._settings["order"] = saved


class _WrittenTextPrinter(HeldOrder, _TextPrinter):
    """The text printer, each sum and product as written."""


_PRINTER = _TextPrinter()
_AS_WRITTEN = _WrittenTextPrinter()


def to_text(expr) -> str:
    """``expr`` as text, the way ``sympy.sstr`` prints it but for fractions bound by an operator."""
    return _PRINTER.doprint(expr)


def written_text(expr) -> str:
    """``expr`` as text with its terms and factors in the order they are held, never sorted: a side
    kept as written prints as it was written (y + x, not x + y)."""
    return _AS_WRITTEN.doprint(expr)
