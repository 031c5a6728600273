"""The notation of index-level terms: each term printed as the LaTeX a reader sees, the one
printer of a statement's terms (``symbolic.logic.statements`` prints an index-level equation with
it)."""
from __future__ import annotations

import sympy as sp

from symbolic.logic.terms import (Activation, Add, children, Const, Deriv, Entry, Eval, Fn, Indicator, LayerProduct, Mul, OVER_LAYERS, rebuild, Relu, SpectralNorm, Sum)
from symbolic.printing.sympy_latex import to_latex


def _index_text(indices) -> str:
    return ("" if all(len(i) == 1 for i in indices) else ",").join(indices)


def latex(term, *, tight: bool = False, names: dict | None = None, explicit: bool = False) -> str:
    """The term as LaTeX math; ``tight`` wraps sums in parentheses; ``names`` maps subterms to
    the short names a document defines for them (s_{nl} for a pre-activation); ``explicit`` shows
    a factor 1 too (two terms that differ by one must not print alike)."""
    if explicit:
        return _explicit(term, tight)
    names = names or {}
    if term in names:
        return names[term]
    if isinstance(term, Const):
        base, exponent = term.expr.as_base_exp()
        if exponent == -1 and (base.is_Symbol or isinstance(base, sp.Indexed)):
            return "%s^{-1}" % to_latex(base)      # α^{-1} rather than a fraction
        text = to_latex(term.expr)
        return r"\left(%s\right)" % text if tight and (term.expr.is_Add or term.expr.could_extract_minus_sign()) else text
    if isinstance(term, Entry):
        if not term.indices:
            return term.family
        return "%s_{%s}" % (term.family, _index_text(term.indices))
    if isinstance(term, (Sum, *OVER_LAYERS)):
        index, size = (term.index, term.size) if isinstance(term, Sum) else (term.variable, term.last)
        operator = r"\prod" if isinstance(term, LayerProduct) else r"\sum"
        text = r"%s_{%s=1}^{%s} %s" % (operator, index, size, latex(term.body, tight=True, names=names))
        return r"\Bigl(%s\Bigr)" % text if tight else text
    if isinstance(term, SpectralNorm):
        ranges = r",\, ".join(r"%s \le %s" % pair for pair in term.ranges)
        return r"\bigl\|\bigl(%s\bigr)_{%s}\bigr\|_2" % (latex(term.body, names=names), ranges)
    if isinstance(term, Mul):
        shown = [f for f in term.factors if f != Const(sp.S.One)] or [Const(sp.S.One)]
        if len(shown) > 1 and shown[0] == Const(sp.S.NegativeOne):
            return "-" + latex(Mul(tuple(shown[1:])), tight=True, names=names)
        if len(shown) == 1:
            return latex(shown[0], tight=tight, names=names)
        return r"\,".join(latex(f, tight=True, names=names) for f in shown)
    if isinstance(term, Add):
        text = " + ".join(latex(t, names=names) for t in term.terms).replace("+ -", "- ")
        return r"\bigl(%s\bigr)" % text if tight else text
    if isinstance(term, Relu):
        return r"\operatorname{ReLU}\bigl(%s\bigr)" % latex(term.arg, names=names)
    if isinstance(term, Indicator):
        return r"\mathbf{1}\bigl[%s > 0\bigr]" % latex(term.arg, names=names)
    if isinstance(term, Activation):
        if term.kind == "abs":
            return r"\bigl|%s\bigr|" % latex(term.arg, names=names)
        return r"\operatorname{LReLU}_{%s}\bigl(%s\bigr)" % (sp.latex(term.slope), latex(term.arg, names=names))
    if isinstance(term, Fn):
        if term.name == r"\sqrt" and len(term.args) == 1:      # a command that takes its argument in braces
            return r"\sqrt{%s}" % latex(term.args[0], names=names)
        return r"%s\bigl(%s\bigr)" % (term.name, ", ".join(latex(a, names=names) for a in term.args))
    if isinstance(term, Deriv):
        return r"\partial_{%s}\bigl[%s\bigr]" % (latex(term.coordinate), latex(term.body, names=names))
    if isinstance(term, Eval):
        point = r"\theta" if term.point == "theta" else r"%s\theta" % term.point.name
        if not term.partials:
            return r"%s(%s)" % (term.function.name, point)
        partials = "".join(r"\partial_{%s}" % latex(p) for p in reversed(term.partials))
        return r"(%s %s)(%s)" % (partials, term.function.name, point)
    raise TypeError(f"not an index-level term: {term!r}")


def _explicit(term, tight: bool) -> str:
    """The term with every factor shown, a factor 1 included, each product's factors as held."""
    if isinstance(term, Mul):
        return r"\,".join(_explicit(f, True) for f in term.factors)
    if isinstance(term, Const):
        return latex(term, tight=tight)
    found = children(term)
    if not found:
        return latex(term, tight=tight)
    # the term's own notation, each child printed explicitly in its place
    marks = tuple(Entry("\\explicit%d" % k, ()) for k in range(len(found)))
    text = latex(rebuild(term, marks), tight=tight)
    for k, child in enumerate(found):
        text = text.replace("\\explicit%d" % k, _explicit(child, True), 1)
    return text
