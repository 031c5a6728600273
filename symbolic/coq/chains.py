"""The kernel's chains as Coq proofs, checked by coqc: a second checker for a theorem "for every size".

A chain t_0 = t_1 = … = t_m (``symbolic.kernel.chains``) becomes one Coq lemma per step and a
theorem that composes them.  A step rewrites one subterm by one rule, found as the kernel finds it
(the innermost differing subterm the rule accepts); its proof goes down to that subterm by
congruence (``f_equal`` with a hole, ``sum_ext`` under a sum) and closes it with the rule's lemma,
proved once for every size in ``coq/Prelude.v`` and ``coq/Chains.v``, or with ``field`` for a step
of arithmetic.  The sizes, index families and scalars of the chain are Coq variables: the Coq
theorem holds for every size, as the kernel's does; sign facts of the scalars are hypotheses.

A chain whose rule or term has no Coq counterpart here is "not exported", with the rule or the term
named.  A step whose proof fails refutes nothing: the chain is "not checked at step K" unless Coq
proves the step false at an instance (``refutation``: every size 1, then 2, each family constant),
and only then is it "refuted at step K".
"""
from __future__ import annotations

import random
import re
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import sympy as sp

from symbolic.coq import library
from symbolic.coq.certificate import AT_POINT, VALUES, Refutation
from symbolic.errors import CheckerError
from symbolic.coq.printer import OutsideFragment, Printer
from symbolic.kernel.chains import proof_of, source_of
from symbolic.kernel.matching import _instance_binding
from symbolic.logic.terms import DATA_FAMILIES, Activation, Add, Const, Deriv, Entry, Eval, Fn, Indicator, Mul, Relu, \
    Sum, children, difference, entries_of, free_indices, index_variable, permutation_of, permuted, \
    substitute_index
from symbolic.trusted.axioms.index_rules import RECIPROCAL_ROOT, SQUARE_ROOT

SECONDS_PER_CHAIN = 60               # a cap on the CPU time of the check of one chain
CHECKED = "checked"

# the square root and its reciprocal: Coq variables with the hypotheses that say what they are
ROOTS = (SQUARE_ROOT, RECIPROCAL_ROOT)
# Coq names the export itself uses
RESERVED = frozenset({"sum", "relu", "step", "leaky", "is_root", "sqrt", "Rabs", "INR", "hole", "R", "nat", "fun",
                      "forall", "in", "let", "match", "end", "with", "as", "at", "if", "then", "else", "for",
                      "Type", "Prop", "Set", "S", "O", "pos", "nonzero", "arithmetic", "delta", "seq", "map",
                      "In", "permutation", "sum_list", "powerRZ", "square_one", "Z"})


class NotExported(CheckerError):
    """The chain has a rule or a term with no Coq counterpart here (the message says which)."""


@dataclass
class Names:
    """The Coq variables of one chain: its sizes, index families, scalars, functions and indices,
    each named once, with the hypotheses their sign facts give."""

    coq: dict = field(default_factory=dict)            # key -> Coq name
    binders: dict = field(default_factory=dict)        # Coq name -> its Coq type
    hypotheses: list = field(default_factory=list)     # Coq propositions

    def name(self, key, text: str, kind: str) -> str:
        if key in self.coq:
            return self.coq[key]
        base = re.sub(r"\\(operatorname|mathrm|tilde|hat|bar)\b", "", text)
        base = re.sub(r"[^A-Za-z0-9]+", "_", base).strip("_") or "v"
        base = base if base[0].isalpha() else "v" + base
        candidate, number = base, 0
        while candidate in RESERVED or candidate in self.binders or candidate.startswith("H"):
            candidate, number = f"{base}_{number}", number + 1
        self.coq[key] = candidate
        self.binders[candidate] = kind
        return candidate

    def assume(self, fact: str) -> None:
        if fact not in self.hypotheses:
            self.hypotheses.append(fact)


class ScalarPrinter(Printer):
    """A chain's scalars (``Const``) in Coq: the certificates' printer, with indexed scalars (c_j,
    α_k) as functions of their indices, and sizes as the reals INR n."""

    def __init__(self, names: Names, indices, size):
        super().__init__()
        self.record_premises = False      # the arithmetic rule inverts only scalars known to be non-zero
        self.chain_names, self.indices, self.size = names, indices, size

    def term(self, e):
        if isinstance(e, sp.Indexed):
            return self.indexed(e)
        if isinstance(e, sp.KroneckerDelta):
            # δ_ij of two indices of the chain: the prelude's delta i j (1 when i = j, else 0)
            return f"(delta {self.index(e.args[0])} {self.index(e.args[1])})"
        return super().term(e)

    def power(self, e: sp.Pow) -> str:
        base, exponent = e.args
        if base == -1 and exponent.is_integer and not exponent.is_Integer:
            # a sign (-1)^e of an integer e: e is a Coq integer (Z)
            return f"(powerRZ (-1) {self.integer(exponent)})"
        return super().power(e)

    def integer(self, e) -> str:
        """An integer exponent: an indexed integer family e_j (nat -> Z) or a sum or product of such."""
        if isinstance(e, sp.Indexed) and e.is_integer:
            arity = len(e.indices)
            name = self.chain_names.name(("integer", str(e.base.label), arity), str(e.base.label),
                                         " -> ".join(["nat"] * arity + ["Z"]))
            return f"({name} {' '.join(self.index(i) for i in e.indices)})"
        if e.is_Integer:
            return f"({e})%Z"
        if isinstance(e, (sp.Add, sp.Mul)):
            operator = " + " if isinstance(e, sp.Add) else " * "
            return "(" + operator.join(self.integer(a) for a in e.args) + ")%Z"
        raise OutsideFragment(f"the exponent {e}")

    def symbol(self, s: sp.Symbol) -> str:
        if s.is_integer and s.is_positive and re.fullmatch(r"[A-Za-z]", s.name):
            # a size as a scalar (the 1/N of a mean): the real number INR N of the natural number N
            return f"(INR {self.size(s.name)})"
        if s.is_integer:
            raise OutsideFragment(f"the integer symbol {s} as a scalar")
        if s.is_real is not True:
            raise OutsideFragment(f"the symbol {s} is not known to be real")
        name = self.chain_names.name(("scalar", s), s.name, "R")
        fact = _sign_fact(s, name)
        if fact:
            self.chain_names.assume(fact)
        return name

    def indexed(self, e: sp.Indexed) -> str:
        base = e.base
        arity = len(e.indices)
        name = self.chain_names.name(("indexed", str(base.label), arity), str(base.label),
                                     " -> ".join(["nat"] * arity + ["R"]))
        indices = [self.index(i) for i in e.indices]
        variables = " ".join(f"i{k}" for k in range(arity))
        fact = _sign_fact(e, f"{name} {variables}")
        if fact:
            self.chain_names.assume(f"forall {variables}, {fact}")
        return f"({name} {' '.join(indices)})"

    def index(self, index) -> str:
        if isinstance(index, sp.Symbol) and str(index) in self.indices:
            return self.indices[str(index)]
        layer = self.layer(index)
        if layer is not None:
            return layer
        raise OutsideFragment(f"the index {index} of a scalar is not an index of the chain")

    def layer(self, index) -> str | None:
        """A layer K + c (c an integer, K a layer variable not bound in the chain) as a natural
        number: a Coq variable K of its own, ``(K + c)%nat`` or ``(K - c)%nat``; None otherwise."""
        offset, rest = sp.sympify(index).as_coeff_Add()
        if not (offset.is_Integer and isinstance(rest, sp.Symbol) and rest.is_integer):
            return None
        name = self.indices.get(str(rest)) or self.chain_names.name(("layer", str(rest)), str(rest), "nat")
        return name if offset == 0 else f"({name} {'+' if offset > 0 else '-'} {abs(offset)})%nat"


def _sign_fact(thing, text: str) -> str:
    if thing.is_positive:
        return f"0 < {text}"
    if thing.is_negative:
        return f"{text} < 0"
    if thing.is_nonnegative:
        return f"0 <= {text}"
    if thing.is_nonpositive:
        return f"{text} <= 0"
    if thing.is_nonzero:
        return f"{text} <> 0"
    return ""


class TermPrinter:
    """Index-level terms in Coq: Σ as ``sum n (fun i => …)`` over 0..n-1, entries as applications of
    index families, ReLU as ``relu``, the indicator as ``step``, |·| as ``Rabs``, ℓ and the other
    functions as Coq variables of their arity; ``hole`` (a path of child positions) prints the
    subterm there as the variable ``hole``."""

    def __init__(self, names: Names, free_indices):
        self.names = names
        self.bound: dict = {}                 # index name in scope -> Coq name
        for index in sorted(free_indices):
            self.bound[index] = names.name(("index", index), index, "nat")
        self.sizes: set = set()
        # under a derivative along a coordinate of a family, that family is the point moved along the
        # coordinate: (family, arity) -> Coq text (``upd2 W k l t0``)
        self.moved: dict = {}
        self.depth = 0                        # derivatives around the term being printed
        self.near = None                      # (t, θ_c) of a derivative taken near the point only
        self.near_proof = ""                  # the term that proves the premise held near it

    def size(self, size: str) -> str:
        # a size, or a size read from a layer (h_{K-1}): a natural number of its own in Coq, so the
        # Coq theorem holds for every value of it, the one of that layer included
        if not re.fullmatch(r"[A-Za-z](_\{?\d+\}?|_\{[A-Za-z]\w*\s*([+-]\s*\d+)?\})?", size):
            raise NotExported(f"the size {size} (a size read from a layer)")
        name = self.names.name(("size", size), size, "nat")
        self.sizes.add(name)
        return name

    def root(self, name: str) -> str:
        """The Coq function of a root: ``root`` with the hypothesis ``is_root root`` (the non-negative
        root of t >= 0, 0 below, as Coq's sqrt), its reciprocal ``rroot`` with rroot t = / root t."""
        root = self.names.name(("function", "root"), "root", "R -> R")
        self.names.assume(f"is_root {root}")
        if name == SQUARE_ROOT:
            return root
        reciprocal = self.names.name(("function", "rroot"), "rroot", "R -> R")
        self.names.assume(f"forall t, {reciprocal} t = / {root} t")
        return reciprocal

    def index(self, index: str) -> str:
        if index in self.bound:
            return self.bound[index]
        if permutation_of(index) is not None:
            # π_m(j): a Coq function π_m on 0..m-1 with the hypothesis that it is a permutation of them
            size, inner = permutation_of(index)
            coq_size = self.size(size)
            name = self.names.name(("permutation", size), f"pi_{size}", "nat -> nat")
            self.names.assume(f"permutation {coq_size} {name}")
            return f"({name} {self.index(inner)})"
        raise NotExported(f"the index {index} is neither bound nor free in the chain")

    def term(self, term, hole=None) -> str:
        if hole == ():
            return "hole"

        def below(k):
            # the hole's path seen from child k (None when the hole is not below it)
            return hole[1:] if hole and hole[0] == k else None
        if isinstance(term, Const):
            scalars = ScalarPrinter(self.names, self.bound, self.size)
            try:
                return scalars.term(term.expr)
            except OutsideFragment as why:
                raise NotExported(f"the scalar {term.expr}: {why}") from None
        if isinstance(term, Entry):
            if not term.indices:
                return self.family(term.family, 0)
            arity = len(term.indices)
            name = self.family(term.family, arity)
            return "(" + " ".join([name] + [self.index(i) for i in term.indices]) + ")"
        if isinstance(term, Sum):
            if term.index in self.bound:
                raise NotExported(f"a sum rebinds the index {term.index}")
            size = self.size(term.size)
            self.bound[term.index] = name = self.names.name(("bound", term.index), term.index, "bound")
            try:
                return f"(sum {size} (fun {name} : nat => {self.term(term.body, below(0))}))"
            finally:
                del self.bound[term.index]
        if isinstance(term, Mul):
            return "(" + " * ".join(self.term(f, below(k)) for k, f in enumerate(term.factors)) + ")"
        if isinstance(term, Add):
            return "(" + " + ".join(self.term(t, below(k)) for k, t in enumerate(term.terms)) + ")"
        if isinstance(term, Relu):
            return f"(relu {self.term(term.arg, below(0))})"
        if isinstance(term, Indicator):
            return f"(step {self.term(term.arg, below(0))})"
        if isinstance(term, Activation):
            if term.kind != "abs":
                raise NotExported(f"the activation {term.kind}")
            return f"(Rabs {self.term(term.arg, below(0))})"
        if isinstance(term, Fn):
            if term.name in ROOTS:
                if len(term.args) != 1:
                    raise NotExported(f"{term.name} of {len(term.args)} arguments")
                function = self.root(term.name)
            else:
                arity = len(term.args)
                function = self.names.name(("function", term.name, arity), term.name,
                                           " -> ".join(["R"] * (arity + 1)))
            return "(" + " ".join([function] + [self.term(a, below(k)) for k, a in enumerate(term.args)]) + ")"
        if isinstance(term, Eval):
            return self.evaluation(term)
        if isinstance(term, Deriv):
            return self.derivative(term.coordinate, lambda: self.term(term.body, below(0)))
        raise NotExported(f"the term {type(term).__name__} (no Coq counterpart here)")

    def family(self, family: str, arity: int) -> str:
        """The Coq text of a parameter family at the current point: its variable, or the point moved
        along a coordinate under a derivative."""
        name = self.names.name(("family", family, arity), family, " -> ".join(["nat"] * arity + ["R"]))
        return self.moved.get((family, arity), name)

    def derivative(self, coordinate: Entry, body) -> str:
        """∂/∂θ_c [body]: Coquelicot's ``Derive (fun t => body at θ with θ_c set to t) θ_c``, the
        family moved along the coordinate with ``upd1``/``upd2`` (one or two indices)."""
        arity = len(coordinate.indices)
        if arity not in (0, 1, 2):
            raise NotExported(f"a derivative along a coordinate with {arity} indices")
        key = (coordinate.family, arity)
        point = self.family(*key)
        indices = " ".join(self.index(i) for i in coordinate.indices)
        variable = self.names.name(("derivative", self.depth), f"t{self.depth}", "bound")
        saved = dict(self.moved)
        self.moved[key] = f"(upd{arity} {point} {indices} {variable})" if arity else variable
        self.depth += 1
        try:
            inside = body()
        finally:
            self.moved, self.depth = saved, self.depth - 1
        return f"(Derive (fun {variable} : R => {inside}) {_applied(point, indices)})"

    def evaluation(self, term: Eval) -> str:
        """(g)(θ) or (g)(Tθ): g as a Coq function of its parameter families (``fun (W : nat -> nat ->
        R) (v : nat -> R) => body``, the data x, y the section's), applied to the families at θ or to
        their images under T (``fun i j : nat => alpha * W i j``): Coq itself substitutes the point."""
        function, arguments = self.evaluated(term)
        return f"({function} {' '.join(arguments)})" if arguments else function

    def evaluated(self, term: Eval) -> tuple:
        """(g as a Coq function of its parameter families, the families at the point): a
        derivative (∂_a … g) is the function θ ↦ ∂/∂θ_a [(… g)(θ)]."""
        families = sorted({(e.family, len(e.indices)) for e in entries_of(term.function.body)
                           if e.family not in DATA_FAMILIES})
        binders, arguments = [], []
        for family, arity in families:
            kind = " -> ".join(["nat"] * arity + ["R"])
            name = self.names.name(("family", family, arity), family, kind)
            binders.append(f"({name} : {kind})")
            point = self.family(family, arity)
            arguments.append(point if term.point == "theta" else self.image(term.point, family, arity, point))
        # inside the function its binders are the families: no family is moved there, and only the
        # indices it reads (the n of f_θ(x_n), those of its partials) are in scope
        moved, self.moved, bound = self.moved, {}, self.bound
        reads = free_indices(term.function.body) | {index_variable(i) for p in term.partials for i in p.indices}
        self.bound = {index: name for index, name in bound.items() if index in reads}
        try:
            if term.partials:
                inner = Eval(term.function, term.partials[:-1], "theta")
                body = self.derivative(term.partials[-1], lambda: self.evaluation(inner))
            else:
                body = self.term(term.function.body)
        finally:
            self.moved, self.bound = moved, bound
        return (f"(fun {' '.join(binders)} => {body})", arguments) if binders else (body, [])

    def image(self, transformation, family: str, arity: int, name: str) -> str:
        """The family of Tθ: ``fun i j : nat => image`` read from T's definition, or the family itself
        where T leaves it alone."""
        if transformation.layer_variables or transformation.abbreviations:
            raise NotExported(f"the evaluation at {transformation.name}θ (layers or abbreviations in its "
                              "definition)")
        for pattern, image in transformation.images:
            if pattern.family != family or len(pattern.indices) != arity:
                continue
            if len(set(pattern.indices)) != arity or any(index_variable(i) != i for i in pattern.indices):
                raise NotExported(f"the image of {family} under {transformation.name} (its pattern's indices)")
            if not arity:
                return self.term(image)
            # the image reads only its pattern's indices (``Transformation``): bound here by names of
            # their own, which no index in scope has (the point may read those, under a derivative)
            coq = fresh_binders(self.names, arity)
            saved = dict(self.bound)
            self.bound.update(zip(pattern.indices, coq))
            try:
                return f"(fun {' '.join(coq)} : nat => {self.term(image)})"
            finally:
                self.bound = saved
        return name


# --- the steps ------------------------------------------------------------------------------------

def fresh_binders(names: Names, count: int) -> list[str]:
    """Names for the indices a lambda over a family's coordinates binds, each a Coq name no other
    variable, index or binder of the chain has, so that nothing the lambda reads is captured."""
    return [names.name(("family binder", k), f"a{k}", "bound") for k in range(count)]


def _oriented(before, after, is_left) -> tuple:
    """(the side the rule's lemma reads from, the other, whether the step runs the lemma backwards)."""
    return (before, after, False) if is_left(before) else (after, before, True)


def _lemma_tactic(text: str, backwards: bool) -> str:
    return ("symmetry; " if backwards else "") + f"exact ({text})."


def leaf_tactic(rule_name: str, before, after, printer: TermPrinter, rule=None) -> str:
    """The tactic that proves before = after, an instance of the rule at its root."""
    term = printer.term
    if rule_name == "arithmetic":
        return "arithmetic."
    if rule_name == "sum factor":
        left, _, back = _oriented(before, after, lambda t: isinstance(t, Sum))
        c, rest = left.body.factors
        body = _body(printer, left, rest)
        return _lemma_tactic(f"sum_factor {printer.size(left.size)} {term(c)} {body}", back)
    if rule_name == "sum of terms":
        left, _, back = _oriented(before, after, lambda t: isinstance(t, Sum))
        first, second = left.body.terms
        return _lemma_tactic(f"sum_plus {printer.size(left.size)} {_body(printer, left, first)} "
                             f"{_body(printer, left, second)}", back)
    if rule_name in ("ReLU homogeneity", "indicator homogeneity", "activation homogeneity"):
        head = {"ReLU homogeneity": Relu, "indicator homogeneity": Indicator,
                "activation homogeneity": Activation}[rule_name]
        lemma = {"ReLU homogeneity": "relu_pos_hom", "indicator homogeneity": "step_pos_hom",
                 "activation homogeneity": "abs_pos_hom"}[rule_name]
        left, _, back = _oriented(before, after, lambda t: isinstance(t, head) and isinstance(t.arg, Mul))
        if isinstance(left, Activation) and left.kind != "abs":
            raise NotExported(f"the activation {left.kind}")
        c, s = left.arg.factors
        return _lemma_tactic(f"{lemma} {term(c)} {term(s)} ltac:(pos)", back)
    if rule_name == "absolute value of a sign":
        left, _, back = _oriented(before, after, lambda t: isinstance(t.arg, Mul))
        c, s = left.arg.factors
        return _lemma_tactic(f"abs_sign {term(c)} {term(s)} ltac:(square_one)", back)
    if rule_name == "root homogeneity":
        left, right, back = _oriented(before, after, lambda t: isinstance(t, Fn))
        k, s = left.args[0].factors
        m = right.factors[0]
        root = printer.root(SQUARE_ROOT)
        if left.name == SQUARE_ROOT:
            lemma = f"root_hom {root} {term(k)} {term(m)} {term(s)} ltac:(assumption)"
        else:
            lemma = f"rroot_hom {root} {printer.root(RECIPROCAL_ROOT)} {term(k)} {term(m)} {term(s)} ltac:(assumption) " \
                    "ltac:(assumption)"
        return _lemma_tactic(f"{lemma} ltac:(pos) ltac:(arithmetic)", back)
    if rule_name == "reindexing":
        # the side whose summand reads π_m(j) where the other reads j
        left, right, back = _oriented(before, after, lambda t: t.body == substitute_index(
            (after if t is before else before).body, t.index, permuted(t.size, t.index)))
        size = left.size
        permutation = printer.names.coq.get(("permutation", size))
        if permutation is None:
            raise NotExported("a reindexing by no permutation of the chain")
        return _lemma_tactic(f"sum_reindex {printer.size(size)} {permutation} {_body(printer, right, right.body)} "
                             "ltac:(assumption)", back)
    if rule_name == "interchange of sums":
        # the side whose outer sum is the other's inner one, read as sum_swap's left side
        left, _, back = _oriented(before, after, lambda t: True)
        inner = left.body
        outer_name = printer.names.name(("bound", left.index), left.index, "bound")
        printer.bound[left.index] = outer_name
        try:
            body = _body(printer, inner, inner.body)
        finally:
            del printer.bound[left.index]
        return _lemma_tactic(f"sum_swap {printer.size(left.size)} {printer.size(inner.size)} "
                             f"(fun {outer_name} : nat => {body})", back)
    if rule_name == "renaming a summation index":
        # the same Coq term: a bound variable's name is no part of it
        return "reflexivity."
    if rule_name == "constant factor":
        # Coquelicot's Derive_scal: d/dt [c G(t)] = c d/dt [G(t)], for every G
        _, _, back = _oriented(before, after, lambda t: isinstance(t, Deriv))
        return ("symmetry; " if back else "") + "apply Derive_scal."
    if rule_name == "chain rule":
        return _chain_rule_tactic(before, after, printer)
    if rule is not None and source_of(rule) is not None:
        return lemma_tactic(rule, before, after, printer)
    raise NotExported(f"the rule {rule_name}")


def lemma_tactic(rule, before, after, printer: TermPrinter) -> str:
    """A step by a lemma, a theorem the kernel proved by a chain: that chain's steps re-proved here
    (``transitivity`` through its terms, each step's own proof), its free indices read as the
    instance renames them.  A lemma g(Tθ) = g(θ) has the chain T(body) = body, which Coq sees is
    the evaluation of g at Tθ and at θ once it substitutes the point (``change``)."""
    source = source_of(rule)
    theorem = source[1]
    proof = proof_of(theorem.statement)
    if proof is None or proof[0] != "chain":
        how = "in another process" if proof is None else f"by {proof[0]}"
        raise NotExported(f"the rule {rule.name} (a lemma whose theorem was proved {how})")
    chain = proof[1]
    lhs, rhs = theorem.statement.lhs, theorem.statement.rhs
    inner = TermPrinter(printer.names, ())
    # the same sizes, and the families moved as they are where the step is (under a derivative)
    inner.sizes, inner.moved, inner.depth = printer.sizes, dict(printer.moved), printer.depth
    if source[0] == "evaluation":
        function, transformation = source[2], source[3]
        at_T = Eval(function, (), transformation)
        backwards = before != at_T
        # the body's free indices (the n of f_θ(x_n)) are the instance's own
        inner.bound = {index: printer.index(index) for index in free_indices(lhs) | free_indices(rhs)
                       if index not in _sizes(lhs) | _sizes(rhs)}
    else:
        binding = _instance_binding(lhs, rhs, before, after, set(free_indices(lhs) | free_indices(rhs)))
        if binding is None:
            raise NotExported(f"the rule {rule.name} (the step is no instance of its theorem here)")
        inner.bound = {old: printer.index(new) for old, new in binding.items()}
        backwards = None
    terms = [chain.start] + [term for _, term, _ in chain.steps]
    # an index the instance does not rename is the one in scope where the step is (the n of f_θ(x_n)
    # inside an evaluation, which the matching does not look into), unless the chain's sums bind it
    own = {s.index for t in terms for s in _sums(t)}
    inner.bound = {**{index: name for index, name in printer.bound.items() if index not in own}, **inner.bound}
    # the chain's own sums bind Coq names of their own, none of them a name the instance reads
    captured = {printer.names.name(("bound", s.index), s.index, "bound") for t in terms for s in _sums(t)}
    if captured & set(inner.bound.values()):
        raise NotExported(f"the rule {rule.name} (its sums would capture an index of the instance)")
    start, end = inner.term(terms[0]), inner.term(terms[-1])
    if backwards is None:
        forward = (start, end) == (printer.term(before), printer.term(after))
        if not forward and (end, start) != (printer.term(before), printer.term(after)):
            raise NotExported(f"the rule {rule.name} (its theorem does not print as the step)")
        backwards = not forward
    parts = ["symmetry." if backwards else "", f"change ({start} = {end})."]
    for k, (step_rule, _, _) in enumerate(chain.steps):
        tactics = " ".join(step_proof(step_rule, terms[k], terms[k + 1], inner))
        parts.append(f"transitivity {inner.term(terms[k + 1])}. {{ {tactics} }}" if k < len(chain.steps) - 1
                     else f"{{ {tactics} }}")
    return " ".join(p for p in parts if p)


def _premise(printer: TermPrinter, premise: str) -> str:
    """The premise assumed as a hypothesis of the section, for every index bound where the step is;
    the term that proves it there: the hypothesis (named when the section is, ``HYPOTHESIS``)
    applied to those indices."""
    scope = [name for name in printer.bound.values() if printer.names.binders.get(name) == "bound"]
    fact = f"forall {' '.join(f'({n} : nat)' for n in scope)}, {premise}" if scope else premise
    printer.names.assume(fact)
    return f"({HYPOTHESIS}{printer.names.hypotheses.index(fact)}{HYPOTHESIS} {' '.join(scope)})"


HYPOTHESIS = "@@"                 # around a hypothesis's number in a tactic, until the section is named


def _closing(printer: TermPrinter, premise: str) -> str:
    """The tactic that proves the chain rule's premise: the hypothesis at the point, or, under the
    derivative along another coordinate (variable t), Hnear from the hypothesis that it holds at
    every t near the point (applied after the step by ``step_proof``)."""
    if printer.near is None:
        return f"exact {_premise(printer, premise)}."
    variable, at = printer.near
    printer.near_proof = _premise(printer, f"locally {at} (fun {variable} : R => {premise})")
    return "exact Hnear."


def _chain_rule_tactic(before, after, printer: TermPrinter) -> str:
    """∂/∂θ_a [(… g)(θ)] = (∂_a … g)(θ): the same Coq term once the point is substituted
    (``reflexivity``); ∂/∂θ_a [(… g)(Tθ)] = t (∂_a … g)(Tθ) for (Tθ)_a = t θ_a: ``scaled1``/``scaled2``
    (the one-variable chain rule through s = t r), with the premise that (… g) has a derivative
    along a at Tθ, a hypothesis of the section (for every index bound where the step is)."""
    left, right, back = _oriented(before, after, lambda t: isinstance(t, Deriv))
    evaluation = left.body
    if evaluation.point == "theta":
        return "reflexivity."
    coordinate = left.coordinate
    arity = len(coordinate.indices)
    if printer.moved and printer.near is None:
        raise NotExported("the chain rule at T theta under another derivative")
    if arity not in (0, 1, 2) or evaluation.point.scale(coordinate) is None:
        raise NotExported(f"the chain rule along {coordinate.family} (no diagonal image)")
    function, arguments = printer.evaluated(evaluation)
    families = sorted({(e.family, len(e.indices)) for e in entries_of(evaluation.function.body)
                       if e.family not in DATA_FAMILIES})
    position = families.index((coordinate.family, arity))
    kind = " -> ".join(["nat"] * arity + ["R"])
    if arity == 0:
        # a scalar parameter v: the one-variable chain rule itself, through s = c t
        moved = list(arguments)
        moved[position] = "Z0"
        along = f"(fun (Z0 : R) => ({function} {' '.join(moved)}))"
        scale, point = printer.term(evaluation.point.scale(coordinate)), printer.family(coordinate.family, 0)
        premise = f"ex_derive {along} ({scale} * {point})"
        closing = _closing(printer, premise)
        return ("symmetry; " if back else "") + f"apply (derive_scaled {along} {scale} {point}); {closing}"
    moved = list(arguments)
    moved[position] = "Z0"
    along = f"(fun (Z0 : {kind}) => ({function} {' '.join(moved)}))"
    # the factor of each coordinate of the family, C (a function of the pattern's indices)
    pattern = evaluation.point.pattern_of(coordinate)
    factor = evaluation.point.scale(Entry(pattern.family, pattern.indices))
    if factor is None:
        raise NotExported(f"the chain rule along {coordinate.family} (no diagonal image)")
    coq = fresh_binders(printer.names, len(pattern.indices))
    saved = dict(printer.bound)
    printer.bound.update(zip(pattern.indices, coq))
    try:
        scales = f"(fun {' '.join(coq)} : nat => {printer.term(factor)})"
    finally:
        printer.bound = saved
    point = printer.family(coordinate.family, arity)
    indices = " ".join(printer.index(i) for i in coordinate.indices)
    variables = " ".join(fresh_binders(printer.names, arity))
    scaled = f"(fun {variables} : nat => {scales} {variables} * {point} {variables})"
    premise = (f"ex_derive (fun s : R => {along} (upd{arity} {scaled} {indices} s)) "
               f"({scales} {indices} * {point} {indices})")
    closing = _closing(printer, premise)
    return ("symmetry; " if back else "") + f"apply (scaled{arity} {along} {scales} {point} {indices}); {closing}"


def _sums(term) -> list:
    return ([term] if isinstance(term, Sum) else []) + [s for child in children(term) for s in _sums(child)]


def _body(printer: TermPrinter, total: Sum, body) -> str:
    """fun i => body, for the summand of a sum over i."""
    if total.index in printer.bound:
        raise NotExported(f"a sum rebinds the index {total.index}")
    name = printer.names.name(("bound", total.index), total.index, "bound")
    printer.bound[total.index] = name
    try:
        return f"(fun {name} : nat => {printer.term(body)})"
    finally:
        del printer.bound[total.index]


def step_proof(rule, before, after, printer: TermPrinter) -> list[str]:
    """The tactics of one step: congruence down to the subterm the rule rewrites, then the rule."""
    path, leaf_before, leaf_after = _rewritten(rule, before, after)
    tactics, term, position, prefix, moved = [], before, 0, (), []
    other = after
    # the chain rule at Tθ under a derivative needs its premise near the point only: the innermost
    # derivative around it is taken through Derive_ext_loc, the premise held on a neighbourhood
    near = rule.name == "chain rule" and any(isinstance(t, Deriv) and isinstance(t.body, Eval)
                                             and t.body.point != "theta" for t in (leaf_before, leaf_after))
    around = _derivatives_on(before, path)
    if near and around > 1:
        raise NotExported("the chain rule at T theta under two derivatives")
    while True:
        # the context from here down to the next sum on the path (or to the rewritten subterm)
        depth = position
        node, other_node = term, other
        while depth < len(path) and not isinstance(node, (Sum, Deriv)):
            node, other_node = children(node)[path[depth]], children(other_node)[path[depth]]
            depth += 1
        if depth > position:
            hole = tuple(path[position:depth])
            tactics.append(f"refine (f_equal (fun hole : R => {printer.term(term, hole)}) "
                           f"(_ : {printer.term(node)} = {printer.term(other_node)})).")
        if depth == len(path):
            break
        if isinstance(node, Deriv):
            # under a derivative: the functions differentiated agree at every point of the line
            arity = len(node.coordinate.indices)
            if arity not in (0, 1, 2):
                raise NotExported(f"a derivative along a coordinate with {arity} indices")
            variable = printer.names.name(("derivative", printer.depth), f"t{printer.depth}", "bound")
            indices = " ".join(printer.index(i) for i in node.coordinate.indices)
            key = (node.coordinate.family, arity)
            if near:
                tactics.append(f"apply Derive_ext_loc; eapply filter_imp; [intros {variable} Hnear; cbv beta | ].")
                printer.near = (variable, _applied(printer.family(*key), indices))
            else:
                tactics.append(f"apply Derive_ext; intros {variable}; cbv beta.")
            moved.append(dict(printer.moved))
            printer.moved[key] = f"(upd{arity} {printer.family(*key)} {indices} {variable})" if arity else variable
            printer.depth += 1
            term, other, position = node.body, other_node.body, depth + 1
            continue
        # under the sum: the summands agree at every index of its range
        name = printer.names.name(("bound", node.index), node.index, "bound")
        if node.index in printer.bound:
            raise NotExported(f"a sum rebinds the index {node.index}")
        tactics.append(f"apply sum_ext; intros {name} H{name}; cbv beta.")
        printer.bound[node.index] = name
        prefix += (node.index,)
        term, other, position = node.body, other_node.body, depth + 1
    try:
        tactics.append(leaf_tactic(rule.name, leaf_before, leaf_after, printer, rule))
        if near and around:
            # the premise near the point, a hypothesis of the section
            tactics.append(f"exact {printer.near_proof}.")
    finally:
        printer.near = None
        for index in prefix:
            del printer.bound[index]
        if moved:
            printer.moved, printer.depth = moved[0], printer.depth - len(moved)
    return tactics


def _applied(function: str, arguments: str) -> str:
    return f"({function} {arguments})" if arguments else function


def _derivatives_on(term, path) -> int:
    """How many derivatives ∂[…] enclose the subterm at ``path``."""
    count = 0
    for position in path:
        count += isinstance(term, Deriv)
        term = children(term)[position]
    return count


def _rewritten(rule, before, after) -> tuple:
    """(path, subterm before, subterm after) of the innermost place where the step is an instance
    of its rule, as the kernel reads it (``Rule.judged``)."""
    for path, b, a in difference(before, after):
        if rule.justify(b, a) is None:
            return path, b, a
    raise NotExported(f"no subterm of the step is an instance of {rule.name}")


# --- a chain --------------------------------------------------------------------------------------

@dataclass
class Export:
    """One chain as Coq text: a section with its variables and hypotheses, a lemma per step, the theorem."""

    name: str
    text: str
    steps: int
    lines: list = field(default_factory=list)        # (first line of step k's lemma, k), relative
    names: Names = field(default_factory=Names)      # the section's variables and hypotheses
    terms: list = field(default_factory=list)        # the chain's terms t_0, ..., t_m
    printed: list = field(default_factory=list)      # their Coq text


def export_chain(chain, name: str, ranges=()) -> Export:
    """The chain as a Coq section; raises NotExported naming the rule or term without a Coq counterpart."""
    names = Names()
    terms = [chain.start] + [term for _, term, _ in chain.steps]
    # the free indices of the terms, not the sizes a scalar names (the N of 1/N)
    free = set().union(*[free_indices(t) for t in terms]) - set().union(*[_sizes(t) for t in terms])
    printer = TermPrinter(names, free)
    printed = [printer.term(t) for t in terms]
    proofs = [step_proof(rule, terms[k], terms[k + 1], printer) for k, (rule, _, _) in enumerate(chain.steps)]
    for index, size in ranges:
        if index in printer.bound:
            names.assume(f"({printer.bound[index]} < {printer.size(size)})%nat")
    for size in sorted(printer.sizes):
        names.assume(f"(0 < {size})%nat")
    lines = [f"Section {name}.", *(f"  Variable {n} : {kind}." for n, kind in names.binders.items() if kind != "bound")]
    lines += [f"  Hypothesis H_{name}_{k} : {fact}." for k, fact in enumerate(names.hypotheses)]
    proofs = [[re.sub(rf"{HYPOTHESIS}(\d+){HYPOTHESIS}", rf"H_{name}_\1", tactic) for tactic in tactics]
              for tactics in proofs]
    starts = []
    for k, tactics in enumerate(proofs, start=1):
        starts.append((len(lines) + 1, k))
        lines += [f"  Lemma {name}_step{k} : {printed[k - 1]} = {printed[k]}.", "  Proof.",
                  *(f"    {t}" for t in tactics), "  Qed."]
    composed = f"{name}_step1" if len(proofs) == 1 else \
        "".join(f"(eq_trans {name}_step{k} " for k in range(1, len(proofs))) + f"{name}_step{len(proofs)}" + \
        ")" * (len(proofs) - 1)
    lines += [f"  Theorem {name} : {printed[0]} = {printed[-1]}.", f"  Proof. exact {composed}. Qed.",
              f"End {name}."]
    return Export(name, "\n".join(lines) + "\n", len(proofs), starts, names, terms, printed)


def _sizes(term) -> set:
    own = {term.size} if isinstance(term, Sum) else set()
    return own.union(*[_sizes(child) for child in children(term)])


# --- checking with coqc ---------------------------------------------------------------------------

LIBRARY_FILES = ("Prelude.v", "Chains.v")      # the development's files an exported chain cites
HEADER = "Require Import Reals Lra Lia ZArith.\nRequire Import Sharp.Prelude Sharp.Chains.\nOpen Scope R_scope.\n" \
    + AT_POINT
# for chains over derivatives: Coquelicot's total Derive, a parameter family moved along one
# coordinate (upd1, upd2), and the one-variable chain rule through s = c t for a family scaled by c
# (Coquelicot's coercion warning silenced: coqc's first located message must be an error's)
DERIVATIVES = """Set Warnings "-ambiguous-paths".
From Coquelicot Require Import Coquelicot.
Require Import Reals Lra Lia ZArith FunctionalExtensionality.
Require Import Sharp.Prelude Sharp.Chains.
Open Scope R_scope.
Definition upd2 (W : nat -> nat -> R) (k l : nat) (t : R) : nat -> nat -> R :=
  fun i j => if andb (Nat.eqb i k) (Nat.eqb j l) then t else W i j.
Definition upd1 (v : nat -> R) (k : nat) (t : R) : nat -> R := fun j => if Nat.eqb j k then t else v j.
Lemma derive_scaled (G : R -> R) (c x : R) :
  ex_derive G (c * x) -> Derive (fun t => G (c * t)) x = c * Derive G (c * x).
Proof.
  intros H. rewrite (Derive_comp G (fun t => c * t) x); [| exact H | auto_derive; auto].
  f_equal. apply is_derive_unique. auto_derive; [auto | ring].
Qed.
Lemma scaled2 (F : (nat -> nat -> R) -> R) (C W : nat -> nat -> R) (k l : nat) :
  ex_derive (fun s => F (upd2 (fun i j => C i j * W i j) k l s)) (C k l * W k l) ->
  Derive (fun t => F (fun i j => C i j * upd2 W k l t i j)) (W k l)
  = C k l * Derive (fun s => F (upd2 (fun i j => C i j * W i j) k l s)) (C k l * W k l).
Proof.
  intros H. rewrite <- (derive_scaled (fun s => F (upd2 (fun i j => C i j * W i j) k l s)) (C k l) (W k l) H).
  apply Derive_ext. intros t. f_equal.
  apply functional_extensionality; intros i. apply functional_extensionality; intros j.
  unfold upd2. destruct (Nat.eqb i k) eqn:Ei; destruct (Nat.eqb j l) eqn:Ej; simpl; try reflexivity.
  apply Nat.eqb_eq in Ei. apply Nat.eqb_eq in Ej. subst. reflexivity.
Qed.
Lemma scaled1 (F : (nat -> R) -> R) (C v : nat -> R) (k : nat) :
  ex_derive (fun s => F (upd1 (fun j => C j * v j) k s)) (C k * v k) ->
  Derive (fun t => F (fun j => C j * upd1 v k t j)) (v k)
  = C k * Derive (fun s => F (upd1 (fun j => C j * v j) k s)) (C k * v k).
Proof.
  intros H. rewrite <- (derive_scaled (fun s => F (upd1 (fun j => C j * v j) k s)) (C k) (v k) H).
  apply Derive_ext. intros t. f_equal.
  apply functional_extensionality; intros j. unfold upd1.
  destruct (Nat.eqb j k) eqn:Ej; [apply Nat.eqb_eq in Ej; subst |]; reflexivity.
Qed.
""" + AT_POINT


# --- a step refuted at an instance ----------------------------------------------------------------

INSTANCE_SIZES = (1, 2)          # every size of the chain is 1, then 2
ATTEMPTS = 12                    # values tried at each size


def refutation(export: Export, step: int) -> Refutation | None:
    """The lemma that step ``step`` fails at an instance: values of the section's variables (every
    size 1, then 2; each index family and indexed scalar constant; each scalar a number; each
    function a polynomial) where every hypothesis holds and the two sides differ, with its proof:
    the sums unfolded, then every sign decided at the point (``at_point``).  The project proposes
    the instance by exact evaluation of the kernel's terms; None when it finds none, or when the
    chain has a root, a permutation or an integer exponent beyond a constant (no instance here)."""
    kinds = {key[0] for key in export.names.coq}
    if kinds & {"permutation", "integer"} or any(key[:2] in (("function", "root"), ("function", "rroot"))
                                                 for key in export.names.coq):
        return None
    before, after = export.terms[step - 1], export.terms[step]
    rng = random.Random(step)
    for size in INSTANCE_SIZES:
        for attempt in range(ATTEMPTS):
            instance = Instance(size, attempt == 0, rng)
            try:
                values = [instance.value(term) for term in (before, after)]
            except Unevaluated:
                return None
            if None in values or values[0] == values[1]:
                continue
            witnesses = [instance.witness(key, kind) for key, kind in _variables(export.names)]
            if None in witnesses:
                return None
            hypotheses = " /\\ ".join(export.names.hypotheses)
            differ = f"{export.printed[step - 1]} <> {export.printed[step]}"
            binders = " ".join(f"({name} : {kind})" for _, (name, kind) in _named(export.names))
            body = f"({hypotheses}) /\\ {differ}" if hypotheses else differ
            lemma = (f"Lemma {export.name}_refuted_step{step} :\n  exists {binders},\n  {body}.\nProof.\n"
                     f"  exists {', '.join(witnesses)}.\n  cbn [sum INR powerRZ]; unfold relu, step; at_point.\nQed.\n")
            return Refutation(lemma, f"every size {size}, {instance.described()}: "
                                     f"{values[0]} before the step, {values[1]} after it")
    return None


class Unevaluated(CheckerError):
    """A term the instance does not evaluate (it has no constant value here)."""


def _named(names: Names) -> list:
    """(key, (Coq name, Coq type)) of each variable of the section, in the binders' order."""
    keys = {coq: key for key, coq in names.coq.items()}
    return [(keys[name], (name, kind)) for name, kind in names.binders.items() if kind != "bound"]


def _variables(names: Names) -> list:
    return [(key, kind) for key, (_, kind) in _named(names)]


class Instance:
    """Values of a chain's variables: every size ``size``, each family and indexed scalar a constant
    (the first attempt 1 everywhere, then rational values from ``VALUES`` honouring each sign fact),
    each function a cubic polynomial; ``value`` evaluates a kernel term there exactly."""

    def __init__(self, size: int, first: bool, rng: random.Random):
        self.size, self.first, self.rng = size, first, rng
        self.chosen: dict = {}            # key -> its value (a number, or a polynomial's body)

    def number(self, key, thing=None) -> sp.Rational:
        if key not in self.chosen:
            candidates = [v for v in VALUES if thing is None or _honours(v, thing)]
            if not candidates:
                raise Unevaluated(f"no value honours the facts of {thing}")
            self.chosen[key] = candidates[0] if self.first else self.rng.choice(candidates)
        return self.chosen[key]

    def function(self, name: str, arity: int) -> sp.Lambda:
        key = ("function", name, arity)
        if key not in self.chosen:
            variables = sp.symbols(f"t0:{arity}", real=True)
            square = 3 + len(self.chosen) % 3
            self.chosen[key] = sp.Lambda(variables, sp.Rational(1, 2) + sum(
                (k + 2) * t - square * t ** 2 + t ** 3 for k, t in enumerate(variables)))
        return self.chosen[key]

    def scalar(self, expr: sp.Expr) -> sp.Expr:
        """A scalar of the chain: its symbols and indexed scalars at their values, a size (the N
        of 1/N) at the instance's size."""
        def indexed(e):
            return self.number(("indexed", str(e.base.label), len(e.indices)), e)
        expr = expr.replace(lambda e: isinstance(e, sp.Indexed), indexed)
        values = {}
        for s in expr.free_symbols:
            if s.is_integer and s.is_positive and re.fullmatch(r"[A-Za-z]", s.name):
                values[s] = sp.Integer(self.size)
            elif s.is_integer:
                raise Unevaluated(f"the integer symbol {s}")
            else:
                values[s] = self.number(("scalar", s), s)
        value = expr.xreplace(values)
        if not value.is_Rational:
            raise Unevaluated(f"the scalar {expr}")
        return value

    def value(self, term):
        """The term's exact value at the instance (sums over constant summands), None where a
        division by 0 leaves it undefined."""
        if isinstance(term, Const):
            return self.scalar(term.expr)
        if isinstance(term, Entry):
            return self.number(("family", term.family, len(term.indices)))
        if isinstance(term, Sum):
            return self.size * self.value(term.body)
        if isinstance(term, (Mul, Add)):
            parts = [self.value(part) for part in (term.factors if isinstance(term, Mul) else term.terms)]
            return sp.Mul(*parts) if isinstance(term, Mul) else sp.Add(*parts)
        if isinstance(term, Relu):
            return max(self.value(term.arg), sp.Integer(0))
        if isinstance(term, Indicator):
            return sp.Integer(1 if self.value(term.arg) > 0 else 0)
        if isinstance(term, Activation) and term.kind == "abs":
            return abs(self.value(term.arg))
        if isinstance(term, Fn):
            return self.function(term.name, len(term.args))(*[self.value(a) for a in term.args])
        if isinstance(term, Eval) and not term.partials:
            # g at θ is its body; at Tθ, its body with every parameter replaced by its image
            body = term.function.body
            return self.value(body if term.point == "theta" else term.point.apply(body))
        raise Unevaluated(f"the term {type(term).__name__}")

    def witness(self, key, kind: str) -> str | None:
        """The Coq value of one variable of the section (a family constant in its indices)."""
        category = key[0]
        if category == "size":
            return f"{self.size}%nat"
        if category == "index":
            return "0%nat"                    # a free index: the first of its range
        if category in ("family", "indexed", "scalar"):
            value = self.number(key, key[1] if category == "scalar" else None)
            arity = kind.count("->")
            return f"(fun {' '.join(['_'] * arity)} => {Printer().term(value)})" if arity else Printer().term(value)
        if category == "function":
            body = self.function(key[1], key[2])
            return f"(fun {' '.join(map(str, body.variables))} : R => {Printer().term(body.expr)})"
        return None

    def described(self) -> str:
        """The values, each family's at every index."""
        parts = []
        for key, value in self.chosen.items():
            if key[0] == "function":
                parts.append(f"{key[1]}({', '.join(map(str, value.variables))}) = {value.expr}")
            else:
                parts.append(f"{key[1]}{'_*' * key[2] if key[0] != 'scalar' else ''} = {value}")
        return ", ".join(parts)


def _honours(value: sp.Rational, thing) -> bool:
    """The value has every sign fact sympy holds of the symbol or indexed scalar."""
    facts = ("positive", "negative", "nonnegative", "nonpositive", "nonzero", "zero")
    return all(getattr(value, f"is_{fact}") for fact in facts if getattr(thing, f"is_{fact}") is True)


@dataclass
class Checked:
    """coqc's answers on a batch of exported chains: name -> "checked", "refuted at step K (…)" or
    "not checked …" (the tactics failed at step K, out of time, the exported text does not compile),
    with the CPU and wall seconds of the calls."""

    answers: dict
    cpu_seconds: float = 0.0
    wall_seconds: float = 0.0
    calls: int = 0
    statements: dict = field(default_factory=dict)   # name -> the theorem's statement as Coq printed it


def not_checked(export: Export, outcome: library.Outcome) -> str:
    """Why Coq did not accept a chain: out of time, the exported text does not compile (an error in
    the section's variables and hypotheses, in a step's statement or in the composition, or a
    syntax error), or the tactics of a step failed."""
    if outcome.out_of_time:
        return f"not checked (out of time after {outcome.out_of_time} s of CPU)"
    step = step_at(export, outcome.line)
    statements = {start for start, _ in export.lines}
    composition = export.text.count("\n") - 2          # the line of the composed theorem
    if not step or outcome.line in statements or outcome.line >= composition \
            or re.match(r"(Error: )?Syntax error", outcome.message):
        return f"not checked (the exported chain does not compile: {outcome.message})"
    return f"not checked at step {step} (the tactics failed: {outcome.message})"


def step_at(export: Export, line: int) -> int:
    """The step whose lemma holds the line of the export (counted from 1), 0 before the first."""
    steps = [k for start, k in export.lines if start <= line]
    return steps[-1] if steps else 0


def check_exports(exports: list[Export]) -> Checked:
    """Every export in one coqc call (the library compiled once, ``library.check_items``): each
    chain checked, or refuted at the step whose proof failed (``refutation``), or not checked."""
    result = Checked({})
    if not exports:
        return result
    if library.coqc() is None:
        result.answers = dict.fromkeys((e.name for e in exports), library.COQC_MISSING)
        return result
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="coq-chains-") as folder:
        failure = library._compile(Path(folder), only=LIBRARY_FILES)
        if failure:
            result.answers = {e.name: f"not checked (the rules' library does not compile: {failure})"
                              for e in exports}
            return result
        arguments = ("-Q", ".", library.LIBRARY)
        # each chain followed by the commands that print its theorem (the section closed: every size,
        # family and hypothesis quantified), read back from Coq's output
        # a chain over derivatives is checked with Coquelicot's Derive, in a file of its own
        over_derivatives = [e for e in exports if "(Derive (fun" in e.text]
        if over_derivatives and not library.coquelicot():
            result.answers.update({e.name: library.COQUELICOT_MISSING for e in over_derivatives})
            exports = [e for e in exports if e not in over_derivatives]
            over_derivatives = []
        plain = [e for e in exports if e not in over_derivatives]
        checked = library.check_items(Path(folder), HEADER, {e.name: e.text + library.printing(e.name) for e in plain},
                                      SECONDS_PER_CHAIN, arguments, file="Exported.v")
        if over_derivatives:
            derived = library.check_items(Path(folder), DERIVATIVES, {e.name: e.text + library.printing(e.name)
                                                                      for e in over_derivatives},
                                          SECONDS_PER_CHAIN, arguments, file="Derivatives.v")
            checked.outcomes.update(derived.outcomes)
            checked.printed.update(derived.printed)
            checked.cpu_seconds += derived.cpu_seconds
            checked.calls += derived.calls
        result.statements = {name: text for name, text in checked.printed.items()
                             if checked.outcomes.get(name, library.Outcome(False)).accepted}
        failed = {}
        for export in exports:
            outcome = checked.outcomes[export.name]
            result.answers[export.name] = CHECKED if outcome.accepted else not_checked(export, outcome)
            if not outcome.accepted and not outcome.out_of_time and step_at(export, outcome.line):
                failed[export.name] = (export, step_at(export, outcome.line))
        # a step whose proof failed refutes nothing: Coq refutes it only by a lemma that it fails at an instance
        negations = {name: found for name, (export, step) in failed.items() if (found := refutation(export, step))}
        refuted = library.check_items(Path(folder), HEADER, {name: found.lemma for name, found in negations.items()},
                                      SECONDS_PER_CHAIN, arguments, file="Negations.v") if negations else None
        for name, found in negations.items():
            if refuted.outcomes[name].accepted:
                result.answers[name] = f"refuted at step {failed[name][1]} (Coq proves the sides differ at {found.point})"
        result.cpu_seconds = checked.cpu_seconds + (refuted.cpu_seconds if refuted else 0)
        result.calls = checked.calls + (refuted.calls if refuted else 0)
    result.wall_seconds = time.perf_counter() - started
    return result
