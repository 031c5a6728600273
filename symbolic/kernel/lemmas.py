"""Lemmas: a theorem used as a rule in later chains, and the evaluation lemma g(Tθ) = g(θ) tied to
one transformation and one function."""
from __future__ import annotations



from symbolic.logic.terms import DATA_FAMILIES, Deriv, Entry, Eval, \
    children, free_indices, index_variable
from symbolic.kernel.chains import _LEMMA_SOURCES, _LEMMAS, Rule
from symbolic.kernel.theorem import Theorem, is_index_theorem
from symbolic.kernel.matching import _instance_binding, _is_instance
from symbolic.kernel.names import defined_in
from symbolic.kernel.verdict import Status, Verdict


def lemma(theorem: Theorem, name: str, statement: str, for_all: tuple = ()) -> Rule:
    """The theorem lhs = rhs as a rule; the index names in ``for_all`` (free in the theorem) may
    be renamed.  A statement that is not a kernel theorem gives a rule the kernel refuses."""
    if not is_index_theorem(theorem):
        return _refused_lemma(name, statement, "not a theorem proved by the kernel")
    variables = set(for_all) & (free_indices(theorem.lhs) | free_indices(theorem.rhs))

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
    _LEMMA_SOURCES[id(rule)] = (rule, "instance", theorem)
    return rule


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
    fits = (is_index_theorem(theorem) and theorem.lhs == transformation.apply(function.body)
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
    if is_index_theorem(theorem) and theorem.ranges:
        index, size = theorem.ranges[0]
        return _refused_lemma(name, statement, f"the theorem holds for {index} in 1..{size} only, which "
                                               f"{function.name}(T theta) = {function.name}(theta) does not say")
    if not fits or unmapped:
        reason = ("not a theorem proved by the kernel" if not is_index_theorem(theorem) else
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
    _LEMMA_SOURCES[id(rule)] = (rule, "evaluation", theorem, function, transformation)
    return rule


def _refused_lemma(name: str, statement: str, reason: str) -> Rule:
    """A lemma the kernel will not use: every step it is asked to justify is refused with the reason."""
    rule = Rule(name, statement, lambda before, after: reason, lambda: Verdict(Status.UNDECIDED, name, reason=reason))
    _LEMMAS[id(rule)] = rule
    return rule
