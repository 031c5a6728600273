"""A matrix pencil congruent under a map that scales and relabels coordinates, for every size: the
generalized eigenvalues of (H, G) at Tθ and at θ agree; and a matrix similar to itself under signs
and a relabelling.

Let (Tθ)_a = t_a θ_{σ(a)} with non-zero scales and σ the identity or a bijection of the coordinates
(``symbolic.every_size.relabelling``; Q its permutation matrix, Q_{a,σ(a)} = 1).  Suppose that for every
pair of coordinates (a, b), each of the matrices M = H and M = G obeys

    M_ab(Tθ) = t_a⁻¹ t_b⁻¹ M_{σ(a)σ(b)}(θ),

given as kernel theorems for every size, one per ordered pair of T's parameter families.  With
D = diag(t_a⁻¹), invertible, this says H(Tθ) − λG(Tθ) = DQ (H(θ) − λG(θ)) QᵀD.  By the
multiplicativity of the determinant and det(Q)² = 1, det(H(Tθ) − λG(Tθ)) = det(D)² det(H(θ) − λG(θ))
for every λ.  The two polynomials in λ differ by the non-zero constant det(D)², so they have the
same roots with multiplicity, whether G is invertible or not.  When every t_a is a sign
(t_a² = 1), D² = I and DQ is orthogonal, so H(Tθ) = (DQ) H(θ) (DQ)⁻¹ is an orthogonal similarity:
H's own spectrum does not move.
"""
from __future__ import annotations

import functools
import itertools

import sympy as sp

from symbolic.decision.zero import is_rational_zero, is_sign
from symbolic.logic.terms import Const, Entry, Function, Mul, Transformation, summation_bounds
from symbolic.kernel import conjunction
from symbolic.checks import check_identity
from symbolic.kernel.derivations import is_index_theorem
from symbolic.every_size.relabelling import not_a_relabelling, relabelling_evidence
from symbolic.kernel.verdict import Status, Verdict

_COLUMN_INDICES = {"i": "k", "j": "l"}


def pair_entries(transformation: Transformation) -> list[tuple[Entry, Entry]]:
    """Every ordered pair (a, b) of T's parameter families, b with its own index names (k, l for
    i, j) and its own layer (q for p), so that the pair stands for every pair of coordinates."""
    rows = [pattern for pattern, _ in transformation.images]

    def column(entry: Entry) -> Entry:
        family = entry.family
        for variable in transformation.layer_variables:
            family = family.replace("(%s)" % variable, "(%s)" % ("q" if variable == "p" else variable + "'"))
        return Entry(family, tuple(_COLUMN_INDICES.get(i, i + "'") for i in entry.indices))
    return [(a, column(b)) for a in rows for b in rows]


@functools.cache
def determinant_multiplicativity() -> Verdict:
    """det(P M Pᵀ) = det(P)² det(M) for every square P (the multiplicativity of the determinant, a
    theorem for every n), checked by the exact identity test on generic matrices P, M of orders 1
    and 2 and on P = D Q at order 3, D a generic diagonal and Q each permutation matrix (the maps
    used here; det(Q)² = 1)."""
    def generic(name, n):
        return sp.Matrix(n, n, lambda i, j: sp.Symbol(f"{name}{i}{j}", real=True))
    verdicts = []
    for n in (1, 2):
        M, P = generic("m", n), generic("p", n)
        verdicts.append(check_identity((P * M * P.T).det(), P.det() ** 2 * M.det(),
                                       claim=f"det(P M P^T) = det(P)^2 det(M), order {n}"))
    M, D = generic("m", 3), sp.diag(*sp.symbols("d0:3", real=True))
    for order in itertools.permutations(range(3)):
        Q = sp.Matrix(3, 3, lambda i, j: 1 if order[i] == j else 0)
        verdicts.append(check_identity((D * Q * M * Q.T * D).det(), D.det() ** 2 * M.det(),
                                       claim=f"det(DQ M (DQ)^T) = det(D)^2 det(M), sigma = {order}"))
    return conjunction(verdicts, label="det(P M P^T) = det(P)^2 det(M), and det(Q)^2 = 1", instance_checked=(
        "det(P M P^T) = det(P)^2 det(M): generic P, M of orders 1 and 2, P = D Q at order 3",), evidence=(
        "the multiplicativity of the determinant, for every order; checked exactly on generic matrices of "
        "orders 1 and 2, and at order 3 on P = DQ for every permutation matrix Q (det(Q) = +-1)",))


def _unread_ranges(theorem, function: Function, coordinates) -> str | None:
    """None when every range {index: n} the law's proof took is that of an index of the pair's
    coordinates, and n is the bound of the sum over which ``function`` reads that index position,
    wherever it reads the family (read from its definition): the law is then proved for every
    coordinate of the family, as the congruence needs.  Else why not (a law proved for some columns
    only, say j ≤ k with the loss summing j over 1..h, is not the law of every coordinate)."""
    for index, size in theorem.ranges:
        positions = [(entry, k) for entry in coordinates for k, name in enumerate(entry.indices) if name == index]
        if not positions:
            return f"holds only for some values of {index}, no index of the coordinates: {dict(theorem.ranges)}"
        for entry, k in positions:
            bounds = summation_bounds(function.body, entry.family, len(entry.indices), k)
            if not bounds or any(bound != size for bound in bounds):
                return (f"takes {index} over 1..{size}, not the range over which {function.name} reads it: "
                        f"it holds for some coordinates of {entry.family} only")
    return None


def _congruence_laws(claim: str, transformation: Transformation, function: Function, matrices,
                     signs_only: bool = False):
    """The premises M_ab(Tθ) = t_a⁻¹ t_b⁻¹ M_{σ(a)σ(b)}(θ) of each matrix, for every ordered pair of
    T's parameter families, each checked to be exactly that kernel theorem with t and σ read from T
    (t non-zero; with ``signs_only``, each a sign: t² = 1; σ a bijection of the coordinates
    ``function`` reads); or the UNDECIDED verdict that refuses."""
    relabelling = not_a_relabelling(transformation, function)
    if relabelling is not None:
        return Verdict(Status.UNDECIDED, claim, reason=relabelling)
    premises = []
    for a, b in pair_entries(transformation):
        # a and b name their indices apart (a pattern's index named k, or i beside i', would not be): a
        # law for the pair then speaks of every pair of coordinates, not of a diagonal
        names = list(a.indices) + list(b.indices)
        if len(set(names)) != len(names):
            return Verdict(Status.UNDECIDED, claim, reason=f"the generic coordinates {a.family}_{a.indices} and "
                           f"{b.family}_{b.indices} share an index name: the laws would speak of a diagonal only")
        readings = [transformation.monomial(e) for e in (a, b)]
        scales = [found[0] for found in readings]
        if any(t.expr.is_nonzero is not True for t in scales):
            return Verdict(Status.UNDECIDED, claim, reason=f"${transformation.name}$ does not multiply "
                           f"{a.family} and {b.family} by non-zero scalars")
        if signs_only and not all(is_sign(t.expr) for t in scales):
            return Verdict(Status.UNDECIDED, claim, reason=f"the scales of ${transformation.name}$ on {a.family} "
                           f"and {b.family} are not signs: D is not orthogonal")
        factor = 1 / (scales[0].expr * scales[1].expr)
        for name, entry, law in matrices:
            theorem = law(a, b)
            if not is_index_theorem(theorem):
                return Verdict(Status.UNDECIDED, claim, reason=f"the law of {name} at ({a.family}, {b.family}) "
                                                               "is not a kernel theorem")
            # the ranges the law took of the coordinates' indices are those over which L reads them
            unread = _unread_ranges(theorem, function, (a, b))
            if unread is not None:
                return Verdict(Status.UNDECIDED, claim, reason=f"the law of {name} at ({a.family}, {b.family}) "
                                                               f"{unread}")
            expected_lhs, at_theta = entry(a, b, transformation), entry(readings[0][1], readings[1][1], "theta")
            rhs = theorem.rhs
            shape = (isinstance(rhs, Mul) and len(rhs.factors) == 2 and isinstance(rhs.factors[0], Const)
                     and rhs.factors[1] == at_theta)
            if theorem.lhs != expected_lhs or not shape or not is_rational_zero(rhs.factors[0].expr - factor):
                return Verdict(Status.UNDECIDED, claim, reason=f"the theorem for {name} at ({a.family}, "
                               f"{b.family}) is not {name}_ab(T theta) = t_a^-1 t_b^-1 {name}_(sigma(a) sigma(b))(theta) "
                               f"with the scales and the relabelling of ${transformation.name}$")
            premises.append(theorem.verdict)
    return premises


def pencil_congruence(claim: str, transformation: Transformation, function: Function, matrices) -> Verdict:
    """The generalized eigenvalues of the pencil (H, G) are the same at Tθ and at θ, for every size.

    ``matrices`` holds, for each of H and G, a triple (name, entry, law): ``entry(a, b, point)`` is
    the index-level entry M_ab at θ (point "theta") or at Tθ (point T), and ``law(a, b)`` the kernel
    theorem M_ab(Tθ) = t_a⁻¹ t_b⁻¹ M_{σ(a)σ(b)}(θ) for the pair, which is checked here to be exactly
    that, with t and σ read from T; ``function`` is the loss whose coordinates σ must permute."""
    if len(matrices) != 2:
        return Verdict(Status.UNDECIDED, claim, reason="a pencil is two matrices")
    laws = _congruence_laws(claim, transformation, function, matrices)
    if isinstance(laws, Verdict):
        return laws
    names = " and ".join(name for name, _, _ in matrices)
    return conjunction([determinant_multiplicativity(), *laws], label=claim, evidence=(
        f"{names}: M_ab(T theta) = t_a^-1 t_b^-1 M_(sigma(a) sigma(b))(theta) for each ordered pair of "
        f"${transformation.name}$'s parameter families, kernel theorems for every size, the scales and sigma read "
        f"from ${transformation.name}$ (the scales non-zero, by sympy's assumptions)",
        *relabelling_evidence(transformation, function),
        "so H(T theta) - lambda G(T theta) = DQ (H(theta) - lambda G(theta)) Q^T D with D = diag(1/t_a) "
        "invertible and Q the permutation matrix of sigma",
        "det(P M P^T) = det(P)^2 det(M) and det(Q)^2 = 1: the characteristic polynomials of the two pencils "
        "differ by the non-zero constant det(D)^2, so their roots agree with multiplicity, G singular or not"))


def sign_similarity(claim: str, transformation: Transformation, function: Function, matrix) -> Verdict:
    """The eigenvalues of H are the same at Tθ and at θ, for every size, when every scale of T is a
    sign: H(Tθ) = DQ H(θ) QᵀD with D = diag(t_a⁻¹), D² = I and Q a permutation matrix, so DQ is
    orthogonal and H(Tθ) is orthogonally similar to H(θ) (its spectrum and its Frobenius norm are
    H(θ)'s).  ``matrix`` is (name, entry, law) as in ``pencil_congruence``."""
    laws = _congruence_laws(claim, transformation, function, [matrix], signs_only=True)
    if isinstance(laws, Verdict):
        return laws
    return conjunction(laws, label=claim, evidence=(
        f"{matrix[0]}_ab(T theta) = t_a^-1 t_b^-1 {matrix[0]}_(sigma(a) sigma(b))(theta) for each ordered pair "
        f"of ${transformation.name}$'s parameter families, kernel theorems for every size, each scale a sign "
        "(its square exactly 1)", *relabelling_evidence(transformation, function),
        "so H(T theta) = DQ H(theta) Q^T D with D = diag(1/t_a), D^2 = I, and Q the permutation matrix of "
        "sigma: DQ is orthogonal, an orthogonal similarity, which keeps the eigenvalues with multiplicity "
        "and the Frobenius norm"))
