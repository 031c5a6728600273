"""Index-level proofs in the kernel, for every size: the names a proof script imports, from the
modules that hold them, one job each.

An index-level ``Theorem`` (the kernel's one theorem type, of an equation lhs = rhs of index-level
terms, for every size and every value of its free indices) is made only by the kernel: by a chain whose every step is an instance of an axiom,
a definition, a hypothesis or a lemma (``chains.prove``), by induction on a layer
(``induction.induction``), or by instantiating an induction's variable (``induction.instantiate``).
A lemma enters a chain only as a rule made from a Theorem (``lemmas``); a definition introduces a
fresh bare name once (``definitions``), never one a transformation maps (``names``); an instance is
checked by matching (``matching``).
"""
from symbolic.kernel.chains import (_AXIOMS, Chain, Rule, axiom, axioms, binders_above, prove,
                                    transformations_in)
from symbolic.kernel.definitions import definition, definitions, hypothesis
from symbolic.kernel.induction import induction, instantiate
from symbolic.kernel.lemmas import evaluation_lemma, lemma, unmapped_families
from symbolic.kernel.matching import _match, _match_scalar
from symbolic.kernel.names import defined_in, defined_name, is_defined, transformation_names, transformed_names
from symbolic.kernel.theorem import Theorem, is_index_theorem

__all__ = ["Chain", "Rule", "Theorem", "_AXIOMS", "_match", "_match_scalar", "axiom", "axioms",
           "binders_above", "defined_in", "defined_name", "definition", "definitions", "evaluation_lemma", "hypothesis",
           "induction", "instantiate", "is_defined", "is_index_theorem", "lemma", "prove", "transformation_names",
           "transformations_in", "transformed_names", "unmapped_families"]
