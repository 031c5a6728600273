"""Index-level proofs in the kernel: rules, chains of rewrites, theorems, lemmas and induction.

A ``Theorem`` (an equation lhs = rhs of index-level terms, for every size and every value of
its free indices) is made only here: by a chain whose every step is an instance of an axiom or
of a lemma (``prove``), by induction (``induction``), or by instantiating an induction's
variable (``instantiate``).  A lemma enters a chain only as a rule made from a Theorem
(``lemma``, ``evaluation_lemma``); an induction hypothesis is a rule that exists only while the
kernel checks that induction's step.  The axioms are the rewrite rules of
``symbolic.every_size.index_rules`` and the definitions (``definition``): each declared with
``axiom``, each with a validity check that must come out certified.  ``axioms()`` lists them.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable

import sympy as sp

from symbolic.every_size.index_terms import DATA_FAMILIES, OVER_LAYERS, TRANSFORMATIONS, Const, Deriv, Entry, Eval, \
    SpectralNorm, Sum, Transformation, binds, bound_indices, children, difference, family_stem, free_indices, \
    index_variable, layer_expr, offset_of, permutation_of, rebuild, substitute_layer
from symbolic.kernel.rules import issued as is_certified
from symbolic.kernel.statements import IndexEquation, Relation
from symbolic.kernel.theorem import RestsOn, _mint
from symbolic.verdict import Status, Verdict

_AXIOMS: dict[int, object] = {}          # the rules declared as axioms, by identity
_LEMMAS: dict[int, object] = {}          # the rules the kernel made from theorems, by identity
_THEOREMS: dict[int, object] = {}        # the theorems the kernel proved, by identity
_DEFINED: dict = {}                      # defined term -> its definition


@dataclass(frozen=True, eq=False)
class Rule:
    """``justify(before, after)`` is None when before = after is an instance of the rule, else
    the reason it is not; rules are equations, so either side may be the one rewritten.  A rule
    whose side condition speaks of the range of an index the rewritten subterm leaves free (a delta
    contracted onto it) also has ``in_scope(before, after, scope)``: ``scope`` maps each index bound
    above the subterm, in the whole term, to the size of its binder (None for a layer variable); and
    ``assumes(before, after, scope)``, the ranges {index: size} it takes for indices free in the whole
    term, which the theorem the chain proves then carries (``Theorem.ranges``)."""

    name: str
    statement: str                               # LaTeX math
    justify: Callable = field(compare=False)
    validity: Callable = field(compare=False)    # () -> Verdict, for all sizes
    condition: str = ""                          # LaTeX text with inline math: when it applies
    in_scope: Callable | None = field(default=None, compare=False)
    assumes: Callable | None = field(default=None, compare=False)
    hypotheses: tuple = field(default=(), compare=False)      # the statements a theorem using it holds under
    definitions: tuple = field(default=(), compare=False)     # the definitions a theorem using it speaks with

    @property
    def as_text(self) -> str:
        """The rule for a document: its name, its equation, its side condition."""
        return r"\emph{%s}: $%s$%s" % (self.name, self.statement,
                                        f", {self.condition}" if self.condition else "")

    def applies(self, before, after) -> str | None:
        return self.judged(before, after)[0]

    def judged(self, before, after) -> tuple:
        """(None, the ranges the step assumes of indices free in the whole term) when before = after
        is an instance of the rule somewhere inside, else (the reason, {})."""
        reasons = []
        for path, b, a in difference(before, after):
            reason = self.justify(b, a)
            scope = binders_above(before, path) if reason is None else {}
            # the side condition on the indices the subterm leaves free, read where they are bound
            if reason is None and self.in_scope is not None:
                reason = self.in_scope(b, a, scope)
            if reason is None:
                return None, (self.assumes(b, a, scope) if self.assumes is not None else {})
            reasons.append(reason)
        return (reasons[0] if reasons else "the step changes nothing"), {}


def binders_above(term, path: tuple) -> dict:
    """The indices bound above the subterm at ``path`` (child positions from ``term``), each with the
    size of its binder, the innermost binder of a name winning: a sum's bound, a spectral norm's
    ranges; a sum or a product over the layers binds its variable to no size of an index (None)."""
    scope: dict = {}
    for position in path:
        if isinstance(term, Sum):
            scope[term.index] = term.size
        elif isinstance(term, SpectralNorm):
            scope.update(dict(term.ranges))
        elif isinstance(term, OVER_LAYERS):
            scope[term.variable] = None
        term = children(term)[position]
    return scope


# the modules whose rules may be axioms: the trusted base, listed in the README
AXIOM_MODULES = ("symbolic.every_size.index_rules", "symbolic.every_size.norm_rules",
                 "symbolic.every_size.attention_rules", "symbolic.kernel.derivations")


def axiom(rule: Rule) -> Rule:
    """Declare a rewrite rule an axiom: it may then justify chain steps, provided its validity
    check comes out certified.  Only rules whose matching and validity code live in
    ``AXIOM_MODULES`` are taken: an axiom is part of the trusted base (``axioms()``)."""
    for part in (rule.justify, rule.validity):
        if getattr(part, "__module__", None) not in AXIOM_MODULES:
            raise ValueError(f"{rule.name}: an axiom's code must be in {', '.join(AXIOM_MODULES)}")
    _AXIOMS[id(rule)] = rule
    return rule


def axioms() -> list[Rule]:
    return list(_AXIOMS.values())


@dataclass(frozen=True, eq=False)
class Theorem:
    """lhs = rhs for every size and every value of the indices in ``for_all``; made only by the
    kernel (``is_theorem``)."""
    claim: str
    lhs: object
    rhs: object
    for_all: tuple
    verdict: Verdict
    schema: tuple | None = None           # an induction's (variable, layer -> (lhs, rhs))
    ranges: tuple = ()                    # (index, size): a free index the proof took to run over 1..size
    hypotheses: tuple = ()                # the statements it holds under (IndexEquation), e.g. prod alpha = 1
    definitions: tuple = ()               # the definitions its names are read with (IndexEquation defined = meaning)


def is_theorem(theorem) -> bool:
    return isinstance(theorem, Theorem) and _THEOREMS.get(id(theorem)) is theorem


def _issue(label, lhs, rhs, ranges, hypotheses, rests_on, evidence, details, definitions=()) -> Verdict:
    """The PROVED verdict of the index-level theorem lhs = rhs, for every size."""
    statement = IndexEquation(lhs, rhs, tuple(sorted(dict(ranges).items())), tuple(hypotheses), tuple(definitions))
    theorem = _mint(statement, rests_on, sizes="all", evidence=evidence)
    return Verdict(Status.PROVED, evidence=tuple(evidence), details=dict(details), theorem=theorem, label=label)


def _hypotheses_of(rules) -> tuple:
    """The hypotheses a chain's rules carry: a hypothesis rule's own, a lemma's theorem's."""
    return tuple(dict.fromkeys(h for rule in rules for h in getattr(rule, "hypotheses", ())))


def _theorem(claim, lhs, rhs, verdict, schema=None, ranges=(), hypotheses=(), definitions=()) -> Theorem:
    theorem = Theorem(claim, lhs, rhs, tuple(sorted(free_indices(lhs) | free_indices(rhs))), verdict, schema,
                      tuple(sorted(dict(ranges).items())), tuple(hypotheses), tuple(definitions))
    _THEOREMS[id(theorem)] = theorem
    return theorem




def _names(term) -> set:
    """The names a term speaks of: its entry families and the symbols of its scalars."""
    if isinstance(term, Entry):
        return {term.family}
    if isinstance(term, Const):
        return {str(s) for s in term.expr.free_symbols} | {str(e.base) for e in term.expr.atoms(sp.Indexed)}
    if isinstance(term, Eval):
        return {"*"}
    return set().union(*[_names(c) for c in children(term)]) if children(term) else set()


@dataclass
class Chain:
    """t_0 = t_1 = … = t_m, each step justified by a rule; ``prove`` checks it."""

    claim: str
    start: object
    steps: list = field(default_factory=list)       # (rule, term, note)

    def then(self, rule: Rule, term, note: str = "") -> "Chain":
        self.steps.append((rule, term, note))
        return self

    @property
    def end(self):
        return self.steps[-1][1] if self.steps else self.start

    @property
    def rules(self) -> list[Rule]:
        return list(dict.fromkeys(rule for rule, _, _ in self.steps))

    def lifted(self, context) -> "Chain":
        """The same steps inside a larger term: ``context(t)`` for every t."""
        chain = Chain(self.claim, context(self.start))
        for rule, term, note in self.steps:
            chain.then(rule, context(term), note)
        return chain

    def check(self) -> Verdict:
        return prove(self)[0]

    def step_verdicts(self) -> list[Verdict]:
        """One verdict per step: the chain's certified verdict for every step when it is proved;
        else PROVED-free: UNDECIDED at the refused step with the reason, the others not reached."""
        verdict = self.check()
        if verdict.status is Status.PROVED:
            return [verdict] * len(self.steps)
        refused = verdict.details.get("refused_step", 0)
        return [Verdict(Status.UNDECIDED, f"step {number}", reason=verdict.reason if number == refused
                        else "not certified: the chain is refused" + (f" at step {refused}" if refused else ""))
                for number in range(1, len(self.steps) + 1)]


def _refused(claim, reason, **details) -> tuple[Verdict, None]:
    return Verdict(Status.UNDECIDED, claim, reason=reason, details=details), None


def prove(chain: Chain, hypotheses=()) -> tuple[Verdict, Theorem | None]:
    """Check every step of the chain against its rule, and every rule: an axiom or a lemma whose
    validity is certified, or one of ``hypotheses`` (an induction's, while its step is checked).
    PROVED gives the theorem start = end."""
    if not chain.steps:
        return _refused(chain.claim, "a chain without steps proves nothing")
    current, ranges = chain.start, {}
    for number, (rule, term, note) in enumerate(chain.steps, start=1):
        label = f"{rule.name}: {note}" if note else rule.name
        known = (any(rule is h for h in hypotheses) or _AXIOMS.get(id(rule)) is rule or _LEMMAS.get(id(rule)) is rule
                 or _HYPOTHESES.get(id(rule)) is rule)
        if not known:
            return _refused(chain.claim, f"step {number} ({rule.name}) refused: the rule is neither an axiom "
                            "nor a lemma made by the kernel from a theorem", refused_step=number, rule=rule.name)
        reason, assumed = rule.judged(current, term)
        # a transformation that maps a defined name, or takes one as a parameter, speaks of no map
        touched = sorted(set().union(*[defined_in(t) for t in transformations_in(term)]) if reason is None else ())
        if touched:
            reason = (f"the transformation maps or is parametrised by {', '.join(touched)}, a name a definition "
                      "introduced")
        # the ranges the steps take of free indices: one range per index, carried by the theorem
        clash = [index for index, size in assumed.items() if ranges.setdefault(index, size) != size]
        if reason is None and clash:
            reason = f"the index {clash[0]} is taken to run over two ranges"
        if reason is not None:
            return _refused(chain.claim, f"step {number} ({label}) refused: {reason}",
                            refused_step=number, rule=rule.name)
        current = term
    rests_on = RestsOn()
    for rule in chain.rules:
        if any(rule is h for h in hypotheses) or _HYPOTHESES.get(id(rule)) is rule:
            continue
        validity = rule.validity()
        if not is_certified(validity):
            why = validity.reason or "its validity verdict was not issued by the kernel"
            return _refused(chain.claim, f"the rule {rule.name} is not valid: {why}",
                            rules=[r.name for r in chain.rules])
        # an axiom rests on itself and on what its validity check rests on; a lemma on its theorem
        own = RestsOn(lemmas=(rule.name,)) if _LEMMAS.get(id(rule)) is rule else RestsOn(rules=(rule.name,))
        rests_on = rests_on | own | validity.theorem.rests_on
    # a definition of a name a transformation maps, or takes as a parameter, is no abbreviation
    for rule in chain.rules:
        introduced = _DEFINITION_RULES.get(id(rule), (None, None))
        if introduced[1] is rule and introduced[0] in transformed_names():
            return _refused(chain.claim, f"the rule {rule.name} defines {introduced[0]}, which a transformation maps "
                            "or takes as a parameter", rules=[r.name for r in chain.rules])
    rules = [r.name for r in chain.rules]
    assumed = _hypotheses_of(chain.rules)
    used = tuple(dict.fromkeys(d for rule in chain.rules for d in rule.definitions))
    verdict = _issue(chain.claim, chain.start, chain.end, ranges, assumed, rests_on,
                     (f"{len(chain.steps)} rewrite steps, each an instance of its rule", "rules used: " + ", ".join(rules)),
                     {"rules": rules}, used)
    return verdict, _theorem(chain.claim, chain.start, chain.end, verdict, ranges=ranges, hypotheses=assumed,
                             definitions=used)


# --- lemmas: theorems used as rules ------------------------------------------------------------------

def lemma(theorem: Theorem, name: str, statement: str, for_all: tuple = ()) -> Rule:
    """The theorem lhs = rhs as a rule; the index names in ``for_all`` (free in the theorem) may
    be renamed.  A statement that is not a kernel theorem gives a rule the kernel refuses."""
    if not is_theorem(theorem):
        return _refused_lemma(name, statement, "not a theorem proved by the kernel")
    variables = set(for_all) & set(theorem.for_all)

    def justify(before, after):
        return None if _is_instance(theorem.lhs, theorem.rhs, before, after, variables) else f"not an instance of {name}"

    def renamed_ranges(before, after):
        """The theorem's ranges of its free indices, with the instance's renaming."""
        binding = _instance_binding(theorem.lhs, theorem.rhs, before, after, variables) or {}
        return {binding.get(index, index): size for index, size in theorem.ranges}

    def in_scope(before, after, scope):
        # an index the theorem took to run over 1..size, bound above by another range, is not its instance
        for index, size in renamed_ranges(before, after).items():
            if index_variable(index) in scope and (index != index_variable(index) or scope[index] != size):
                return f"the index {index} is bound above by a sum over another range than 1..{size}"
        return None

    def assumes(before, after, scope):
        return {index: size for index, size in renamed_ranges(before, after).items()
                if index_variable(index) not in scope}
    rule = Rule(name, statement, justify, lambda: theorem.verdict, in_scope=in_scope, assumes=assumes,
                hypotheses=theorem.hypotheses, definitions=theorem.definitions)
    _LEMMAS[id(rule)] = rule
    return rule


def transformations_in(term) -> set:
    """The transformations a term evaluates at (the T of (g)(Tθ), ∂[…](Tθ))."""
    found = {term.point} if isinstance(term, Eval) and isinstance(term.point, Transformation) else set()
    return found.union(*[transformations_in(child) for child in children(term)]) if children(term) else found


def unmapped_families(transformation, term) -> set:
    """The families of the entries of ``term`` that are not data and that T neither maps (its images)
    nor evaluates at Tθ (its outputs): T applied to the term leaves them alone, so T applied to a
    term that reads them (a defined hidden layer, say) is not the term at Tθ."""
    if isinstance(term, Entry):
        known = (term.family in DATA_FAMILIES or transformation.lists(term)
                 or any(term.family == at_theta for at_theta, _ in transformation.outputs))
        return set() if known else {term.family}
    return set().union(*[unmapped_families(transformation, child) for child in children(term)])


def _holds_a_function_of_theta(term) -> bool:
    """Whether the term holds an evaluation (g)(θ) or a derivative ∂[…]: a function of θ as a subterm."""
    return isinstance(term, (Eval, Deriv)) or any(_holds_a_function_of_theta(child) for child in children(term))


def evaluation_lemma(theorem: Theorem, function, transformation, name: str, statement: str) -> Rule:
    """g(Tθ) = g(θ) from a theorem whose sides are the defining term of g with T applied, and
    that term: the lemma is tied to this T and this g, objects rather than names.  Every entry g
    reads is data, a parameter T maps or a quantity T evaluates at Tθ, T moves no data, and the term
    holds no evaluation or derivative (T applied to it would leave their θ alone), so that T applied to
    the term is g at Tθ; the theorem takes no free index over a range (``Theorem.ranges``)."""
    fits = (is_theorem(theorem) and theorem.lhs == transformation.apply(function.body)
            and theorem.rhs == function.body)
    unmapped = unmapped_families(transformation, function.body)
    # T moves no data: were an input given an image, T applied to the term would change the data too,
    # and the theorem would not speak of g at Tθ
    moved = sorted(({pattern.family for pattern, _ in transformation.images}
                    | {family for pair in transformation.outputs for family in pair}) & DATA_FAMILIES)
    if moved:
        return _refused_lemma(name, statement, f"{transformation.name} gives the data {', '.join(moved)} an image")
    # T applied to a term leaves an evaluation or a derivative inside it alone: a definition holding one
    # reads θ where T does not reach, so T applied to it is not g at Tθ
    if _holds_a_function_of_theta(function.body):
        return _refused_lemma(name, statement, f"the definition of {function.name} holds a function of theta, "
                                               f"which {transformation.name} applied to it does not reach")
    # a theorem that took a free index over a range holds only there: g(Tθ) = g(θ) would drop the range
    if is_theorem(theorem) and theorem.ranges:
        index, size = theorem.ranges[0]
        return _refused_lemma(name, statement, f"the theorem holds for {index} in 1..{size} only, which "
                                               f"{function.name}(T theta) = {function.name}(theta) does not say")
    if not fits or unmapped:
        reason = ("not a theorem proved by the kernel" if not is_theorem(theorem) else
                  f"{function.name} reads {', '.join(sorted(unmapped))}, which {transformation.name} neither maps "
                  "nor evaluates at T theta" if unmapped else
                  f"the theorem is not {function.name}({transformation.name}θ) = {function.name}(θ) for this "
                  f"{transformation.name} and this {function.name}")
        return _refused_lemma(name, statement, reason)
    at_T, at_theta = Eval(function, (), transformation), Eval(function, (), "theta")

    def justify(before, after):
        return None if {before, after} == {at_T, at_theta} and before != after else f"not an instance of {name}"
    if defined_in(transformation):
        return _refused_lemma(name, statement, f"{transformation.name} maps or is parametrised by "
                                               f"{', '.join(sorted(defined_in(transformation)))}, a defined name")
    rule = Rule(name, statement, justify, lambda: theorem.verdict, hypotheses=theorem.hypotheses,
                definitions=theorem.definitions)
    _LEMMAS[id(rule)] = rule
    return rule


def _refused_lemma(name: str, statement: str, reason: str) -> Rule:
    """A lemma the kernel will not use: every step it is asked to justify is refused with the reason."""
    rule = Rule(name, statement, lambda before, after: reason, lambda: Verdict(Status.UNDECIDED, name, reason=reason))
    _LEMMAS[id(rule)] = rule
    return rule


def _is_instance(lhs, rhs, before, after, variables: set) -> bool:
    """Whether before = after is lhs = rhs (or rhs = lhs) with the index names in ``variables``
    renamed, the same renaming on both sides, in entries and in scalars alike; a variable may not
    be renamed to an index that a sum of the equation binds (it would be captured)."""
    return _instance_binding(lhs, rhs, before, after, variables) is not None


def _instance_binding(lhs, rhs, before, after, variables: set) -> dict | None:
    """The renaming under which before = after is an instance of lhs = rhs (``_is_instance``), or None."""
    # a name that is also a layer (in a family's name, a size, the range of a sum over the layers)
    # is not renamed: the renaming would not reach those places
    if any(_names_a_layer(variable, side) for variable in variables for side in (lhs, rhs)):
        return None
    for one, other in ((lhs, rhs), (rhs, lhs)):
        binding: dict = {}
        if _match(one, before, variables, binding) and _match(other, after, variables, binding):
            if not {index_variable(value) for value in binding.values()} & (bound_indices(lhs) | bound_indices(rhs)):
                return binding
    return None


def _names_a_layer(name: str, term) -> bool:
    """Whether ``name`` stands in a layer of the term: a family's name (θ^{(k)}), the size of a sum
    (h_{k}), the range or the variable of a sum or a product over the layers."""
    word = re.compile(r"(?<![A-Za-z0-9_\\])%s(?![A-Za-z0-9_])" % re.escape(name))
    return any(word.search(text) for text in _layer_texts(term))


def _layer_texts(term):
    """Every text of the term that names layers: families' layers, sizes, ranges over the layers."""
    if isinstance(term, Entry):
        yield from re.findall(r"\(([^()]*)\)", term.family)
    elif isinstance(term, Sum):
        yield term.size
    elif isinstance(term, OVER_LAYERS):
        yield from (term.last, term.variable)
    elif isinstance(term, SpectralNorm):
        yield from (size for _, size in term.ranges)
    for child in children(term):
        yield from _layer_texts(child)


def _match(pattern, term, variables: set, binding: dict) -> bool:
    """Syntactic matching; only index names in ``variables`` are variables, and not under a sum or a
    spectral norm that binds them (there the name is the binder's, matched only by itself)."""
    if isinstance(pattern, Const) and isinstance(term, Const):
        return _match_scalar(pattern.expr, term.expr, {sp.Symbol(v, integer=True) for v in variables}, binding)
    if isinstance(pattern, Entry) and isinstance(term, Entry):
        if pattern.family != term.family or len(pattern.indices) != len(term.indices):
            return False
        return all(_match_index(p, t, variables, binding) for p, t in zip(pattern.indices, term.indices))
    if type(pattern) is not type(term) or not children(pattern):
        return pattern == term
    if rebuild(pattern, tuple(children(term))) != term:
        return False
    inner = variables - binds(pattern)
    return all(_match(p, t, inner, binding) for p, t in zip(children(pattern), children(term)))


def _match_index(pattern: str, index: str, variables: set, binding: dict) -> bool:
    """An index matched: a variable binds it; π_m(j) matches π_m(l) and j+1 matches l+1, with j
    matched to l."""
    if pattern in variables:
        return binding.setdefault(pattern, index) == index
    if permutation_of(pattern) is not None:          # π_m(j) against π_m(l): the same m, j against l
        (size, inner), found = permutation_of(pattern), permutation_of(index)
        return found is not None and found[0] == size and _match_index(inner, found[1], variables, binding)
    if offset_of(pattern) is not None:               # j+k against l+k: the same k, j against l
        (base, offset), found = offset_of(pattern), offset_of(index)
        return found is not None and found[1] == offset and _match_index(base, found[0], variables, binding)
    return pattern == index


def _match_scalar(pattern: sp.Expr, term: sp.Expr, variables: set, binding: dict) -> bool:
    """A scalar (c_{k,j}) matched argument by argument: a variable index matches an index symbol,
    bound as in the entries; everything else must be equal."""
    if pattern in variables:
        return isinstance(term, sp.Symbol) and term.is_integer is True and \
            binding.setdefault(str(pattern), str(term)) == str(term)
    names = {str(v) for v in variables}
    if isinstance(pattern, sp.Symbol) and index_variable(str(pattern)) != str(pattern):
        return isinstance(term, sp.Symbol) and _match_index(str(pattern), str(term), names, binding)
    if not pattern.args:             # any other atom that is not a variable: only itself
        return pattern == term
    if not {index_variable(str(s)) for s in pattern.free_symbols} & names:
        return pattern == term
    if pattern.func != term.func or len(pattern.args) != len(term.args):
        return False
    return all(_match_scalar(p, t, variables, binding) for p, t in zip(pattern.args, term.args))


# --- definitions ------------------------------------------------------------------------------------

def definition(name: str, defined, meaning, for_all: tuple = ()) -> Rule:
    """defined := meaning, a definition of one clause (``definitions``)."""
    return definitions(name, [(defined, meaning, for_all)])[0]


_INTRODUCED: dict = {}     # each name a definition introduced -> that definition's name
_CLAUSES: dict = {}        # each name introduced -> its clauses (defined, meaning, for_all, rule)
_DEFINITION_RULES: dict = {}   # id of a definition's rule -> (the name it introduced, the rule)


def defined_name(term) -> str | None:
    """The name a term is an instance of, when it is a bare name: a family's entry with plain,
    distinct indices (its layers blanked: z^{(k)} and z^{(0)} are one name), or a scalar that is a
    symbol or an indexed symbol (P_k); None for anything else (2a, W_{i+1}, α·x)."""
    if isinstance(term, Entry):
        plain = all(index_variable(i) == i for i in term.indices) and len(set(term.indices)) == len(term.indices)
        return family_stem(term.family) if plain else None
    if isinstance(term, Const):
        if isinstance(term.expr, sp.Symbol):
            return str(term.expr)
        if isinstance(term.expr, sp.Indexed) and isinstance(term.expr.base.label, sp.Symbol):
            return str(term.expr.base.label)
    return None


def is_defined(name: str) -> bool:
    return name in _INTRODUCED


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
                         ("a definition introduces a fresh name",), {})

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


def _names_read(term) -> set:
    """The names a term reads, blanked like ``defined_name``: family stems and scalar names, with
    the names inside scalars (the P of P_k α_{k+1})."""
    if isinstance(term, Entry):
        return {family_stem(term.family)}
    if isinstance(term, Const):
        return {str(s) for s in term.expr.free_symbols} | {str(e.base.label) for e in term.expr.atoms(sp.Indexed)}
    return set().union(*[_names_read(c) for c in children(term)]) if children(term) else set()


def transformed_names() -> set:
    """The names every transformation built so far maps or takes as a parameter."""
    return set().union(*[transformation_names(t) for t in TRANSFORMATIONS]) if TRANSFORMATIONS else set()


def transformation_names(transformation) -> set:
    """The families T maps and its parameters: the scalars of its images that are no abbreviation
    (a name T declares in ``abbreviations``, such as P_k = α_1 ⋯ α_k)."""
    mapped = {family_stem(pattern.family) for pattern, _ in transformation.images}
    scalars = set().union(*[_names_read(image) for _, image in transformation.images]) - mapped
    scalars -= {index_variable(str(v)) for v in transformation.layer_variables} | set(transformation.abbreviations)
    indices = set().union(*[{index_variable(i) for i in pattern.indices} for pattern, _ in transformation.images])
    return mapped | {name for name in scalars if name not in indices}


def defined_in(transformation) -> set:
    """The defined names a transformation maps or takes as a parameter (none for a sound one)."""
    return {name for name in transformation_names(transformation) if name in _INTRODUCED}


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


_HYPOTHESES: dict = {}


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


# --- induction on a layer ------------------------------------------------------------------------------

def induction(claim: str, lhs, rhs, variable: sp.Symbol, base: Chain, step: Callable,
              for_all: tuple = ()) -> tuple[Verdict, Theorem | None]:
    """S(k): lhs = rhs for every integer k ≥ 0, k the layer ``variable`` of the terms.  The kernel
    forms S(0), S(k + 1) itself by substitution; ``base`` must prove S(0), and ``step(hypothesis)``
    must build a chain proving S(k + 1) in which S(k) may be used: the hypothesis is a rule that
    exists only while the kernel checks this step."""
    def statement(value):
        return substitute_layer(lhs, variable, value), substitute_layer(rhs, variable, value)
    try:
        base_statement, step_statement = statement(sp.S.Zero), statement(variable + 1)
    except ValueError as captured:
        return _refused(claim, str(captured))
    if (base.start, base.end) != base_statement:
        return _refused(claim, "the base chain does not prove S(0)")
    base_verdict, base_theorem = prove(base)
    if base_verdict.status is not Status.PROVED:
        return _refused(claim, f"base case: {base_verdict.reason}")

    def justify(before, after):
        return None if _is_instance(lhs, rhs, before, after, set(for_all)) else \
            "not an instance of the induction hypothesis S(k)"
    hypothesis = Rule("induction hypothesis", "", justify,
                      lambda: Verdict(Status.UNDECIDED, "induction hypothesis",
                                      reason="holds only inside its induction step"))
    step_chain = step(hypothesis)
    if (step_chain.start, step_chain.end) != step_statement:
        return _refused(claim, "the step chain does not prove S(k + 1)")
    step_verdict, step_theorem = prove(step_chain, hypotheses=(hypothesis,))
    if step_verdict.status is not Status.PROVED:
        return _refused(claim, f"induction step: {step_verdict.reason}")
    ranges = dict(base_theorem.ranges)
    if any(ranges.setdefault(index, size) != size for index, size in step_theorem.ranges):
        return _refused(claim, "the base and the step take an index to run over two ranges")
    rules = sorted(set(base_verdict.details["rules"]) | set(step_verdict.details["rules"]))
    assumed = tuple(dict.fromkeys((*base_theorem.hypotheses, *step_theorem.hypotheses)))
    used = tuple(dict.fromkeys((*base_theorem.definitions, *step_theorem.definitions)))
    rests_on = base_verdict.theorem.rests_on | step_verdict.theorem.rests_on | RestsOn(rules=("induction on a layer",))
    verdict = _issue(claim, lhs, rhs, ranges, assumed, rests_on,
                     (f"induction on {variable}: base ({len(base.steps)} steps) and step "
                      f"({len(step_chain.steps)} steps, the hypothesis used) checked", "rules used: " + ", ".join(rules)),
                     {"rules": rules}, used)
    return verdict, _theorem(claim, lhs, rhs, verdict, schema=(variable, statement), ranges=ranges, hypotheses=assumed,
                             definitions=used)


def instantiate(theorem: Theorem, value: sp.Expr, assumption: str = "") -> Theorem | None:
    """S(value) from an induction's theorem S(k) for every k ≥ 0: ``value`` must be an integer
    known to be ≥ 0, or ``assumption`` must say why it is (recorded in the evidence)."""
    if not is_theorem(theorem) or theorem.schema is None:
        return None
    value = sp.sympify(value)
    if value.is_integer is not True or value.is_negative or (value.is_nonnegative is not True and not assumption):
        return None
    try:
        lhs, rhs = theorem.schema[1](value)
    except ValueError:         # the value would be captured by a sum or a product that binds its name
        return None
    note = f"instance {theorem.schema[0]} = {value} of '{theorem.claim}'" + (f", given {assumption}" if assumption else "")
    # a value not known to be >= 0 is assumed to be: the instance holds under that hypothesis
    assumed = (*theorem.hypotheses, *((Relation(value, ">=", sp.S.Zero),) if value.is_nonnegative is not True else ()))
    rests_on = theorem.verdict.theorem.rests_on | RestsOn(rules=("instance of a theorem for every layer",))
    verdict = _issue(note, lhs, rhs, theorem.ranges, assumed, rests_on, (note, *theorem.verdict.evidence),
                     dict(theorem.verdict.details), theorem.definitions)
    return _theorem(note, lhs, rhs, verdict, ranges=theorem.ranges, hypotheses=assumed, definitions=theorem.definitions)
