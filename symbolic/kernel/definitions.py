"""Definitions and hypotheses: a definition is a conservative extension (one fresh bare name,
introduced once with all its clauses); a hypothesis is carried by every theorem that uses it."""
from __future__ import annotations

import re

import sympy as sp

from symbolic.logic.terms import DATA_FAMILIES, Const, Entry, children, family_stem, layer_expr
from symbolic.kernel.chains import _DEFINED, _DEFINITION_RULES, _HYPOTHESES, Rule, _issue, axiom
from symbolic.kernel.matching import _is_instance
from symbolic.kernel.names import _INTRODUCED, defined_name, transformed_names
from symbolic.logic.statements import IndexEquation
from symbolic.kernel.theorem import RestsOn
from symbolic.kernel.verdict import Status, Verdict


_CLAUSES: dict = {}        # each name introduced -> its clauses (defined, meaning, for_all, rule)


def definition(name: str, defined, meaning, for_all: tuple = ()) -> Rule:
    """defined := meaning, a definition of one clause (``definitions``)."""
    return definitions(name, [(defined, meaning, for_all)])[0]


def definitions(name: str, clauses) -> list[Rule]:
    """A conservative extension: one fresh name introduced once, by all its clauses at once
    ((defined, meaning, for_all), e.g. a family at layer 0 and at layer k + 1), so no two
    definitions can contradict.  The name is a bare name (``defined_name``), not yet introduced,
    not data, not a family a transformation maps nor one of its parameters (α, c, …), and it does
    not occur in its own meaning.  A transformation that maps a defined name, or whose parameters
    include one, is refused wherever the kernel meets it (``prove``), whatever ran before."""
    clauses = [(defined, meaning, tuple(for_all)) for defined, meaning, for_all in clauses]
    names = {defined_name(defined) for defined, _, _ in clauses}
    if None in names or not clauses:
        raise ValueError(f"{name}: only a bare name (a family's entry with plain indices, a symbol, an "
                         "indexed symbol) can be defined")
    if len(names) != 1:
        raise ValueError(f"{name}: one definition introduces one name, not {', '.join(sorted(names))}")
    introduced = names.pop()
    if introduced in _INTRODUCED:
        earlier, rules = _INTRODUCED[introduced], _CLAUSES[introduced]
        # the very same definition again (a network built twice) introduces nothing new
        if earlier == name and [(d, m, f) for d, m, f, _ in rules] == clauses:
            return [rule for *_, rule in rules]
        raise ValueError(f"{name}: {introduced} is defined already (by '{earlier}'); a name is "
                         "introduced once, with all its clauses")
    if introduced in DATA_FAMILIES:
        raise ValueError(f"{name}: {introduced} is data, not a name to define")
    if introduced in transformed_names():
        raise ValueError(f"{name}: {introduced} is a parameter or a group parameter of a transformation, "
                         "not a name to define")
    for defined, meaning, _ in clauses:
        if _occurs(defined, meaning) or not _recursion_goes_down(introduced, defined, meaning):
            raise ValueError(f"{name}: a definition may use the name it defines only at a lower layer")
    for defined, meaning, _ in clauses:
        if isinstance(defined, Entry):
            _refuse_overlapping_layer(name, defined.family)
        else:
            _refuse_inconsistent_scalar(name, defined, meaning)
    rules = []
    for defined, meaning, for_all in clauses:
        _DEFINED[defined] = meaning
        verdict = _issue(f"definition: {name}", defined, meaning, (), (), RestsOn(rules=(f"definition of {name}",)),
                         ("a definition introduces a fresh name",), {}, proof=("definition", name))

        def justify(before, after, defined=defined, meaning=meaning, for_all=for_all):
            return None if _is_instance(defined, meaning, before, after, set(for_all)) else \
                f"not an instance of the definition {name}"
        rule = axiom(Rule(f"definition of {name}", "", justify, lambda verdict=verdict: verdict,
                          definitions=(IndexEquation(defined, meaning),)))
        _DEFINITION_RULES[id(rule)] = (introduced, rule)
        rules.append(rule)
    _INTRODUCED[introduced] = name
    _CLAUSES[introduced] = [(*clause, rule) for clause, rule in zip(clauses, rules)]
    return rules


def _layers_of(term) -> tuple | None:
    """The layers a bare name's term stands at: a family's (z^{(k+1)}), an indexed scalar's first
    index (P_{k+1}); None when it has none."""
    if isinstance(term, Entry):
        layers = re.findall(r"\(([^()]*)\)", term.family)
        return tuple(layer_expr(layer) for layer in layers) if layers else None
    if isinstance(term, Const) and isinstance(term.expr, sp.Indexed):
        return (term.expr.indices[0],)
    return None


def _occurrences(name: str, term) -> list:
    """The subterms of ``term`` that read ``name`` (entries of the family, the scalar's entries)."""
    if isinstance(term, Entry):
        return [term] if family_stem(term.family) == name else []
    if isinstance(term, Const):
        indexed = [e for e in term.expr.atoms(sp.Indexed) if str(e.base.label) == name]
        bare = [s for s in term.expr.free_symbols if str(s) == name and not isinstance(s, sp.Indexed)
                and not any(s == e.base.label for e in indexed)]
        return [Const(e) for e in indexed] + [Const(s) for s in bare]
    return [found for child in children(term) for found in _occurrences(name, child)]


def _recursion_goes_down(name: str, defined, meaning) -> bool:
    """A definition by recursion on the layer: the name occurs in its meaning only at a layer a
    positive constant below the one defined (P_{k+1} := P_k α_{k+1}, z^{(k+1)} from z^{(k)})."""
    top = _layers_of(defined)
    for occurrence in _occurrences(name, meaning):
        below = _layers_of(occurrence)
        if top is None or below is None or len(below) != len(top):
            return False
        gaps = [sp.simplify(a - b) for a, b in zip(top, below)]
        if not all(gap.is_Integer and gap > 0 for gap in gaps[:1]) or any(not gap.is_Integer for gap in gaps):
            return False
    return True


def hypothesis(name: str, lhs, rhs, for_all: tuple = ()) -> Rule:
    """lhs = rhs as an assumption: a chain may rewrite with it, and the theorem it proves then holds
    under it (``IndexEquation.hypotheses``, printed 'if …'); so does every theorem that uses that one."""
    assumed = IndexEquation(lhs, rhs)

    def justify(before, after):
        return None if _is_instance(lhs, rhs, before, after, set(for_all)) else f"not an instance of the hypothesis {name}"
    verdict = Verdict(Status.UNDECIDED, name, reason="a hypothesis is assumed, not proved")
    rule = Rule(f"hypothesis {name}", "", justify, lambda: verdict, hypotheses=(assumed,))
    _HYPOTHESES[id(rule)] = rule
    return rule


_LAYERS_DEFINED: dict = {}       # a family with its layers blanked -> the layer expressions defined


def _refuse_overlapping_layer(name: str, family: str) -> None:
    """A family defined at a layer (z^{(0)}, z^{(k+1)}) may be defined again only at a layer that
    no earlier one can equal for k ≥ 0: the definitions of one family never speak of the same
    layer twice (z^{(K)} after z^{(k+1)} is refused)."""
    layers = re.findall(r"\(([^()]*)\)", family)
    if not layers:
        return
    stem = re.sub(r"\(([^()]*)\)", "(#)", family)
    try:
        new = [layer_expr(layer) for layer in layers]
    except ValueError:
        return
    if any(layer.is_Integer and layer < 0 for layer in new):
        raise ValueError(f"{name}: {family} is at a negative layer")
    for old in _LAYERS_DEFINED.get(stem, []):
        if all(_may_equal(a, b) for a, b in zip(old, new)):
            raise ValueError(f"{name}: {family} may be a layer that is defined already")
    _LAYERS_DEFINED.setdefault(stem, []).append(new)


_SCALARS_DEFINED: list = []      # (defined, meaning) of the scalar definitions


def _refuse_inconsistent_scalar(name: str, defined: Const, meaning) -> None:
    """A scalar c_{layer} defined again at a layer an earlier definition may reach (P_K after
    P_{k+1}) must agree with it there: wherever the two speak of the same scalar and both speak only
    of layers ≥ 0 (P_K = P_{K-1} α_K presupposes K ≥ 1), they must be one instance of each other;
    otherwise the two could define one scalar twice, differently."""
    if not (isinstance(meaning, Const) and isinstance(defined.expr, sp.Indexed)):
        _SCALARS_DEFINED.append((defined, meaning))
        return
    if any(index.is_Integer and index < 0 for index in defined.expr.indices):
        raise ValueError(f"{name}: {defined.expr} is at a negative layer")

    def layers_at(solution, *exprs):
        return [index.xreplace(solution) for expr in exprs for indexed in expr.atoms(sp.Indexed) for index in indexed.indices]
    for old_defined, old_meaning in _SCALARS_DEFINED:
        if not (isinstance(old_defined.expr, sp.Indexed) and old_defined.expr.base == defined.expr.base
                and isinstance(old_meaning, Const)):
            continue
        # the earlier definition's layer variables are its own: renamed apart from the new one's
        fresh = {v: sp.Dummy(str(v), integer=True)
                 for v in set().union(*[index.free_symbols for index in old_defined.expr.indices])}
        old, old_value = old_defined.expr.xreplace(fresh), old_meaning.expr.xreplace(fresh)
        variables = sorted(set().union(*[index.free_symbols for index in old.indices + defined.expr.indices]), key=str)
        equations = [a - b for a, b in zip(old.indices, defined.expr.indices)]
        solutions = sp.solve(equations, variables, dict=True) if variables else \
            ([{}] if all(e == 0 for e in equations) else [])
        for solution in solutions:
            reached = layers_at(solution, old, old_value, defined.expr, meaning.expr)
            if any(layer.is_Integer and layer < 0 for layer in reached):
                continue          # one of the two speaks of a negative layer there: outside its domain
            if not (old.xreplace(solution) == defined.expr.xreplace(solution)
                    and old_value.xreplace(solution) == meaning.expr.xreplace(solution)):
                raise ValueError(f"{name}: {defined.expr} may be a scalar defined already, differently")
    _SCALARS_DEFINED.append((defined, meaning))


def _may_equal(a: sp.Expr, b: sp.Expr) -> bool:
    """Whether two layers v + m (v ≥ 0 a variable, or absent) can be equal."""
    if not (a - b).free_symbols:
        return a == b
    constant, shifted = (a, b) if not a.free_symbols else (b, a) if not b.free_symbols else (None, None)
    if constant is None:
        return True
    return constant >= shifted.as_coeff_Add()[0]


def _occurs(term, inside) -> bool:
    return term == inside or any(_occurs(term, c) for c in children(inside))
