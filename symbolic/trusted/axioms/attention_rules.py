"""The hypothesis of an attention head's map, an axiom of the kernel with its validity check.

The map W_Q ↦ W_Q A, W_K ↦ W_K B of an attention head (``symbolic.every_size.attention``) keeps its
scores when A Bᵀ = I, that is B = A^{-T}: the hypothesis, stated entry by entry,

    Σ_{m=1}^{k} A_rm B_sm = δ_rs    for every r, s,

k the head dimension.  It defines B from A (B = A^{-T} exists and is unique for every A ∈ GL(k)), as
the hypothesis ∏_p α_p = 1 defines the output layer's scale; its validity check realises it, B =
A^{-T} for a generic A of orders 1, 2 and 3, exactly, and tries the test of a use on a right
instance and on the wrong ones (A B = I, read B_ms; A in place of B; another bound; the sum's index
among r, s).  A, B and k are named here only.
"""
from __future__ import annotations

import functools
import random

import sympy as sp

from symbolic.logic.terms import DATA_FAMILIES, Const, Deriv, Entry, Eval, Fn, Function, Mul, Sum, \
    Transformation, entries_of, families, family_stem, free_indices, index_variable, renamed_scalar, summation_bounds
from symbolic.trusted.axioms.index_rules import _either_way
from symbolic.kernel import conjunction
from symbolic.checks import check_identity, zeros
from symbolic.logic.statements import Fact
from symbolic.kernel.derivations import Rule, axiom
from symbolic.kernel.verdict import Status, Verdict

GL_A = sp.IndexedBase("A", real=True)       # the head's A ∈ GL(k)
GL_B = sp.IndexedBase("B", real=True)       # B = A^{-T}: A Bᵀ = I
HEAD = "k"                                  # the head dimension, the range of A's and B's indices


def inverse_pair_sum(r: str, s: str, m: str) -> Sum:
    """Σ_{m=1}^{k} A_rm B_sm, the (r, s) entry of A Bᵀ."""
    r_, s_, m_ = (sp.Symbol(name, integer=True) for name in (r, s, m))
    return Sum(m, HEAD, Const(GL_A[r_, m_] * GL_B[s_, m_]))


def _inverse_pair(before, after):
    """Σ_{m=1}^{k} A_rm B_sm → δ_rs: the sum over the head's k columns, m neither r nor s."""
    if not (isinstance(before, Sum) and isinstance(before.body, Const)):
        return "not a sum of scalars"
    if before.size != HEAD:
        return f"the sum runs over 1..{before.size}, not over the head's 1..{HEAD}"
    m = sp.Symbol(before.index, integer=True)
    factors = sp.Mul.make_args(before.body.expr)
    found = [f for f in factors if isinstance(f, sp.Indexed)]
    if len(found) != 2 or len(factors) != 2:
        return "the summand is not A_rm B_sm"
    by_base = {f.base: f for f in found}
    if set(by_base) != {GL_A, GL_B}:
        return "the summand is not an entry of A times an entry of B"
    a, b = by_base[GL_A], by_base[GL_B]
    if len(a.indices) != 2 or len(b.indices) != 2 or a.indices[1] != m or b.indices[1] != m:
        return "the sum does not run over the second index of both A and B (A B^T, not A B)"
    r, s = a.indices[0], b.indices[0]
    if not (r.is_Symbol and s.is_Symbol and r.is_integer and s.is_integer) or m in (r, s):
        return "the rows of A and B are not index names other than the summation index"
    return None if after == Const(sp.KroneckerDelta(r, s)) else "the result is not delta_rs"


@functools.cache
def _inverse_pair_validity() -> Verdict:
    """The hypothesis is realised at every order by B = A^{-T} (A invertible): checked exactly for a
    generic A of orders 1, 2 and 3 (each entry of A (A^{-T})ᵀ − I a zero rational function, det A ≠ 0
    generically); the test of a use accepts Σ_m A_rm B_sm = δ_rs and refuses A B = I, A Aᵀ = I, a
    sum over another bound and a summation index among r, s."""
    entries = []
    for order in (1, 2, 3):
        A = sp.Matrix(order, order, lambda i, j: sp.Symbol(f"a{i}{j}", real=True))
        B = A.inv().T
        entries += list(A * B.T - sp.eye(order))
    realised = zeros("A B^T = I for B = A^(-T), orders 1 to 3", [sp.cancel(z) for z in entries],
                     instance_checked=("A B^T = I for B = A^(-T): orders 1 to 3",))
    r, s, m = (sp.Symbol(name, integer=True) for name in "rsm")
    delta = Const(sp.KroneckerDelta(r, s))
    tests = [_inverse_pair(inverse_pair_sum("r", "s", "m"), delta) is None,
             _inverse_pair(Sum("m", HEAD, Const(GL_A[r, m] * GL_B[m, s])), delta) is not None,
             _inverse_pair(Sum("m", HEAD, Const(GL_A[r, m] * GL_A[s, m])), delta) is not None,
             _inverse_pair(Sum("m", "d", Const(GL_A[r, m] * GL_B[s, m])), delta) is not None,
             _inverse_pair(Sum("m", HEAD, Const(GL_A[m, m] * GL_B[s, m])), Const(sp.KroneckerDelta(m, s))) is not None,
             _inverse_pair(inverse_pair_sum("r", "s", "m"), Const(sp.S.One)) is not None]
    if not all(tests):
        return Verdict(Status.UNDECIDED, "the hypothesis A B^T = I", reason="the test of a use misjudges a known case")
    return conjunction([realised], label="sum_m A_rm B_sm = delta_rs, realised by B = A^(-T) at every order", evidence=(
        "a hypothesis that defines B from A: B = A^(-T) exists and is unique for every A in GL(k); "
        "realised exactly at orders 1, 2, 3 on a generic A",
        "the test accepts sum_m A_rm B_sm = delta_rs and refuses A B = I, A A^T = I, another bound, the "
        "summation index among the rows and another result"))


def _rows(before, after) -> list:
    """The rows r, s of A and B in the step's Σ_m A_rm B_sm (either side)."""
    total = before if isinstance(before, Sum) else after
    found = {f.base: f.indices[0] for f in sp.Mul.make_args(total.body.expr) if isinstance(f, sp.Indexed)}
    return [str(found[GL_A]), str(found[GL_B])]


def _rows_in_scope(before, after, scope):
    """r and s are rows of the k × k matrices A and B: bound above, their sums run over 1..k."""
    wider = [row for row in _rows(before, after) if row in scope and scope[row] != HEAD]
    return None if not wider else f"the row {wider[0]} of A or B is bound above by a sum over another range than 1..{HEAD}"


def _rows_assumed(before, after, scope):
    """r and s free in the whole term are taken to run over 1..k: the theorem carries that range."""
    return {row: HEAD for row in _rows(before, after) if row not in scope}


INVERSE_PAIR = axiom(Rule("the hypothesis A B^T = I", r"\sum_{m=1}^{k} A_{rm} B_{sm} = \delta_{rs}",
                          _either_way(_inverse_pair), _inverse_pair_validity,
                          r"for every $r, s$ in $1..k$: the map's hypothesis, $B = A^{-\top}$, $A \in GL(k)$, $k$ the head "
                          r"dimension", _rows_in_scope, _rows_assumed))


# --- the chain rule through a map that mixes one index of a family ------------------------------------

def mixing(transformation, entry):
    """(the pattern, the position it mixes, r, its bound, the scalar M(r, m)) when T's image of
    ``entry``'s family is Σ_{r=1}^{K} θ_{…r…} M(r, m): the pattern's entry with its index m at one
    position replaced by r, times a scalar free of θ that speaks of r and m alone; the pattern's
    indices distinct plain names.  None otherwise."""
    pattern = transformation.pattern_of(entry)
    if pattern is None or len(set(pattern.indices)) != len(pattern.indices) \
            or any(index_variable(index) != index for index in pattern.indices):
        return None
    image = dict(transformation.images)[pattern]
    if not (isinstance(image, Sum) and isinstance(image.body, Mul) and len(image.body.factors) == 2):
        return None
    moved, scalar = image.body.factors
    if not (isinstance(moved, Entry) and isinstance(scalar, Const) and moved.family == pattern.family
            and len(moved.indices) == len(pattern.indices)):
        return None
    changed = [k for k, (old, new) in enumerate(zip(pattern.indices, moved.indices)) if old != new]
    if len(changed) != 1 or moved.indices[changed[0]] != image.index or image.index in pattern.indices:
        return None
    position = changed[0]
    if not scalar.indices <= {image.index, pattern.indices[position]}:
        return None
    return pattern, position, image.index, image.size, scalar


def _linear_chain_rule(before, after):
    """∂/∂θ_{…r₀…}[g(Tθ)] → Σ_{m=1}^{K} M(r₀, m) (∂_{θ_{…m…}} g)(Tθ) for T's image θ_{…m…} ↦
    Σ_{r=1}^{K} θ_{…r…} M(r, m) (``mixing``), when no other image of T reads the family, the mixed
    index runs over exactly 1..K wherever g reads the family (g's definition holding no function of θ
    and no family T does not map, whose reading would be hidden), and m is no index of the coordinate."""
    if not (isinstance(before, Deriv) and isinstance(before.body, Eval) and before.body.point != "theta"):
        return "not a derivative of a function evaluated at T theta"
    g, c, T = before.body, before.coordinate, before.body.point
    found = mixing(T, c)
    if found is None:
        return f"{T.name}'s image of {c.family} is not a sum over one mixed index of a scalar times the family"
    pattern, position, r, size, scalar = found
    if [p for p in T.readers(c)] != [pattern]:
        return f"another image of {T.name} reads {c.family}: its coordinates are not read by this image alone"
    # g's definition read in full: an evaluation or a derivative inside it is a function of θ whose own
    # reading of the family (another range, another point) this rule does not see
    if "*" in families(g.function.body):
        return f"{g.function.name}'s definition holds a function of theta: where it reads {c.family} is not seen"
    # likewise a family that is neither data nor one T maps may be a quantity defined from θ
    mapped = {family_stem(pattern.family) for pattern, _ in T.images} | DATA_FAMILIES
    hidden = sorted({e.family for e in entries_of(g.function.body) if family_stem(e.family) not in mapped})
    if hidden:
        return (f"{g.function.name} reads {', '.join(hidden)}, which {T.name} does not map: where it reads "
                f"{c.family} is not seen")
    bounds = summation_bounds(g.function.body, c.family, len(c.indices), position)
    if not bounds or any(bound != size for bound in bounds):
        return f"the mixed index of {c.family} does not run over exactly 1..{size} wherever {g.function.name} reads it"
    if not (isinstance(after, Sum) and after.size == size and isinstance(after.body, Mul) and len(after.body.factors) == 2):
        return f"the result is not a sum over 1..{size} of a scalar times a derivative"
    m = after.index
    if m in {index_variable(i) for i in c.indices} or m in free_indices(before):
        return f"the summation index {m} is an index of the coordinate: it would be captured"
    at = Entry(c.family, c.indices[:position] + (m,) + c.indices[position + 1:])
    renaming = {name: value for name, value in zip(pattern.indices, at.indices)}
    renaming[r] = c.indices[position]
    coefficient = Const(renamed_scalar(scalar.expr, renaming))
    expected = Sum(m, size, Mul((coefficient, Eval(g.function, g.partials + (at,), T))))
    return None if after == expected else "the result is not the chain rule through the mixing"


@functools.cache
def _linear_chain_rule_validity() -> Verdict:
    """∂/∂Q_{i r}[g(QA)] = Σ_m A_rm (∂_{Q_im} g)(QA), the multivariable chain rule for the linear map
    Q ↦ QA ((QA)_{im} depends on Q_ir through the coefficient A_rm alone): checked exactly for a
    quadratic g with rational coefficients of the entries of Q, d × K with d = 1, 2 and K = 1, 2, 3,
    and a generic A; and the test of a use on a right instance and on the wrong ones (A read
    transposed, another bound, the summation index captured)."""
    rng = random.Random(11)
    instances = []
    for d, K in ((1, 1), (1, 2), (2, 2), (1, 3)):
        Q = sp.Matrix(d, K, lambda i, m: sp.Symbol(f"q{i}{m}", real=True))
        A = sp.Matrix(K, K, lambda r, m: sp.Symbol(f"a{r}{m}", real=True))
        P = sp.Matrix(d, K, lambda i, m: sp.Symbol(f"p{i}{m}", real=True))
        flat = list(P)
        g = sum(sp.Rational(rng.randint(-9, 9), rng.randint(1, 9)) * x * y
                for k, x in enumerate(flat) for y in flat[k:]) + sum(rng.randint(-9, 9) * x for x in flat)
        at = dict(zip(flat, list(Q * A)))
        for i in range(d):
            for r in range(K):
                instances.append(check_identity(sp.diff(g.xreplace(at), Q[i, r]),
                                                 sum(A[r, m] * sp.diff(g, P[i, m]).xreplace(at) for m in range(K)),
                                                 claim=f"chain rule through QA, d = {d}, K = {K}"))
    T, g = _example_map(), _example_function()
    right = _linear_chain_rule(Deriv(Entry("Q", ("i", "r")), Eval(g, (), T)),
                               Sum("m", HEAD, Mul((Const(GL_A[_index("r"), _index("m")]), Eval(g, (Entry("Q", ("i", "m")),), T)))))
    transposed = _linear_chain_rule(Deriv(Entry("Q", ("i", "r")), Eval(g, (), T)),
                                    Sum("m", HEAD, Mul((Const(GL_A[_index("m"), _index("r")]), Eval(g, (Entry("Q", ("i", "m")),), T)))))
    other_bound = _linear_chain_rule(Deriv(Entry("Q", ("i", "r")), Eval(g, (), T)),
                                     Sum("m", "d", Mul((Const(GL_A[_index("r"), _index("m")]), Eval(g, (Entry("Q", ("i", "m")),), T)))))
    captured = _linear_chain_rule(Deriv(Entry("Q", ("i", "m")), Eval(g, (), T)),
                                  Sum("m", HEAD, Mul((Const(GL_A[_index("m"), _index("m")]), Eval(g, (Entry("Q", ("i", "m")),), T)))))
    if right is not None or None in (transposed, other_bound, captured):
        return Verdict(Status.UNDECIDED, "chain rule through a mixing map", reason="the test of a use misjudges a known case")
    return conjunction(instances, label="d/dQ_ir g(QA) = sum_m A_rm (d_Q_im g)(QA)", instance_checked=(
        "chain rule through a mixing: a quadratic g at d x K = 1x1, 1x2, 2x2, 1x3",), evidence=(
        "the multivariable chain rule: (QA)_im = sum_r Q_ir A_rm is linear, its derivative in Q_ir is A_rm",
        "check_identity on a quadratic g at d x K = 1x1, 1x2, 2x2, 1x3, every coordinate",
        "the test accepts the rule and refuses A transposed, another bound and a captured summation index"))


def _index(name: str) -> sp.Symbol:
    return sp.Symbol(name, integer=True)


def _example_map():
    """Q_im ↦ Σ_r Q_ir A_rm alone, for the test of a use."""
    Q = Entry("Q", ("i", "m"))
    return Transformation("T_A", ((Q, Sum("r", HEAD, Mul((Entry("Q", ("i", "r")), Const(GL_A[_index("r"), _index("m")]))))),))


def _example_function():
    """g(θ) = ℓ(Σ_m Σ_i Q_im): a function that reads Q with its column over 1..k."""
    return Function("g", Fn("g", (Sum("m", HEAD, Sum("i", "d", Entry("Q", ("i", "m")))),)))


def _mixed_index(before, after) -> str:
    """The index r₀ of the coordinate at the position the map mixes (either side of the step)."""
    derivative = before if isinstance(before, Deriv) else after
    c = derivative.coordinate
    return c.indices[mixing(derivative.body.point, c)[1]]


def _mixed_index_in_scope(before, after, scope):
    """r₀ is a column of the mixing, a plain name: bound above, its sum runs over 1..K (a column past K
    is read by no image, its derivative is 0)."""
    index = _mixed_index(before, after)
    derivative = before if isinstance(before, Deriv) else after
    size = mixing(derivative.body.point, derivative.coordinate)[3]
    if index_variable(index) != index:
        return f"the mixed index {index} is not a plain name"
    if index in scope and scope[index] != size:
        return f"the mixed index {index} is bound above by a sum over another range than 1..{size}"
    return None


def _mixed_index_assumed(before, after, scope):
    """r₀ free in the whole term is taken to run over 1..K: the theorem carries that range."""
    index = _mixed_index(before, after)
    derivative = before if isinstance(before, Deriv) else after
    return {} if index in scope else {index: mixing(derivative.body.point, derivative.coordinate)[3]}


LINEAR_CHAIN_RULE = axiom(Rule(
    "chain rule through a mixing map", r"\partial_{\theta_{\dots r \dots}}\bigl[g(T\theta)\bigr] = "
    r"\sum_{m=1}^{K} M_{rm}\,(\partial_{\theta_{\dots m \dots}} g)(T\theta)", _either_way(_linear_chain_rule),
    _linear_chain_rule_validity,
    r"for $T$ with $\theta_{\dots m \dots} \mapsto \sum_{r=1}^{K} \theta_{\dots r \dots} M_{rm}$, $M$ free of $\theta$, "
    r"read from the definition of $T$, no other image of $T$ reading the family, the mixed index running over "
    r"exactly $1..K$ wherever $g$ reads the family, $m$ no index of the coordinate, $r$ in $1..K$, and $g$ "
    r"differentiable at $T\theta$ (a hypothesis every theorem using the rule carries: for a map that mixes "
    r"coordinates the rule is false where $g$ is not)",
    _mixed_index_in_scope, _mixed_index_assumed,
    hypotheses=(Fact("differentiable", (), reading="the function differentiated through a mixing map is "
                                               "differentiable at T theta"),)))
