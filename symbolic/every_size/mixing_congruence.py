"""A matrix pencil congruent under a linear map that mixes coordinates, for every size: the generalized
eigenvalues of (H, G) at Tθ and at θ agree.

Let T be read from its definition family by family: a family either mixed, θ_{…m…} ↦ Σ_{r=1}^{K}
θ_{…r…} M_rm with M free of θ (``symbolic.trusted.axioms.attention_rules.mixing``), or scaled, θ_a ↦
t_a θ_a with t_a ≠ 0; no image reading another family.  Then Tθ = Mθ for a block-diagonal matrix M of
the coordinates.  Suppose that for every pair of coordinates (a, b) each of the matrices X = H and
X = G obeys

    X_ab(θ) = Σ_{m} Σ_{m'} c_a(m) c_b(m') X_{a(m) b(m')}(Tθ),

c_a(m) = M_{r m} for a = θ_{…r…} of a mixed family (a(m) = θ_{…m…}), or t_a with no sum for a scaled
one, given as kernel theorems for every size, one per ordered pair of T's parameter families: that
is X(θ) = Mᵀ X(Tθ) M.  Suppose moreover that every mixing has a left inverse, a kernel theorem
Σ_m (Tθ)_{…m…} N_sm = θ_{…s…} with N free of θ: M is injective, so invertible (it is square).  Then
H(Tθ) − λG(Tθ) = M^{-T} (H(θ) − λG(θ)) M^{-1}, and by the multiplicativity of the determinant
det(H(Tθ) − λG(Tθ)) = det(M)^{-2} det(H(θ) − λG(θ)) for every λ: the same roots with multiplicity.
"""
from __future__ import annotations

from symbolic.trusted.axioms.attention_rules import mixing
from symbolic.logic.terms import Const, Entry, Eval, Function, Mul, Sum, Transformation, renamed_scalar
from symbolic.kernel import conjunction
from symbolic.every_size.congruence import determinant_multiplicativity
from symbolic.kernel.derivations import is_index_theorem, unmapped_families
from symbolic.kernel.verdict import Status, Verdict

# the summation index of each side of a pair, and the name of the mixed index of its coordinate
_SIDES = (("m", "r", ""), ("m'", "r'", "'"))


def reading(transformation: Transformation, pattern: Entry):
    """("mixed", (pattern, position, r, K, M(r, m))) or ("scaled", t) for T's image of the family, read
    from its definition; None when it is neither, or when another image reads the family."""
    if pattern is None:
        return None
    if transformation.readers(pattern) != [pattern]:
        return None
    found = mixing(transformation, pattern)
    if found is not None:
        return "mixed", found
    scaled = transformation.monomial(pattern)
    if scaled is not None and scaled[1] == pattern and scaled[0].expr.is_nonzero is True:
        return "scaled", scaled[0]
    return None


def _read(transformation: Transformation, pattern: Entry):
    """``reading``, or ValueError when T neither mixes nor scales the family alone."""
    found = reading(transformation, pattern)
    if found is None:
        raise ValueError(f"{transformation.name} neither mixes nor scales the family of {pattern} alone")
    return found


def _fresh(name: str, taken: set) -> str:
    """The name, primed until it is none of ``taken``."""
    while name in taken:
        name += "'"
    return name


def coordinate(transformation: Transformation, pattern: Entry, side: int, taken=frozenset()) -> Entry:
    """A generic coordinate of the family: its mixed index named r (r' on the second side of a pair), the
    others as in the pattern (primed on the second side), each primed further until it is none of
    ``taken`` (the other side's names), of the mixed names r, r' and of the summation indices m, m'."""
    _, mixed_name, prime = _SIDES[side]
    kind, found = _read(transformation, pattern)
    position = found[1] if kind == "mixed" else None
    used = set(taken) | {name for summation, mixed, _ in _SIDES for name in (summation, mixed)}
    indices = []
    for k, index in enumerate(pattern.indices):
        # the mixed index has its reserved name; any other a name no other index of the pair has
        name = mixed_name if k == position else _fresh(index + prime, used)
        used.add(name)
        indices.append(name)
    return Entry(pattern.family, tuple(indices))


def pairs(transformation: Transformation) -> list[tuple[Entry, Entry]]:
    """(a, b) for every ordered pair of T's parameter families, each a generic coordinate, the names of
    a's indices and of b's disjoint: a law for the pair then speaks of every pair of coordinates, not of
    those whose indices agree (a pattern's index named r, or i beside i', would otherwise make a
    "diagonal" law)."""
    patterns = [pattern for pattern, _ in transformation.images]
    found = []
    for p in patterns:
        for q in patterns:
            a = coordinate(transformation, p, 0)
            found.append((a, coordinate(transformation, q, 1, taken=frozenset(a.indices))))
    return found


def pulled(transformation: Transformation, a: Entry, side: int):
    """(c_a(m), a(m), m) for a mixed family, (t_a, a, None) for a scaled one."""
    kind, found = _read(transformation, transformation.pattern_of(a))
    if kind == "scaled":
        return found, a, None
    pattern, position, r, size, scalar = found
    m = _SIDES[side][0]
    moved = Entry(a.family, a.indices[:position] + (m,) + a.indices[position + 1:])
    renaming = dict(zip(pattern.indices, moved.indices))
    renaming[r] = a.indices[position]
    return Const(renamed_scalar(scalar.expr, renaming)), moved, (m, size)


def pulled_back(transformation: Transformation, a: Entry, b: Entry, entry):
    """Σ_m c_a(m) Σ_m' c_b(m') X_{a(m) b(m')}(Tθ), the (a, b) entry of Mᵀ X(Tθ) M, ``entry(a, b, point)``
    being X_ab at a point; a scaled side is a factor t with no sum."""
    (c_a, a_m, sum_a), (c_b, b_m, sum_b) = pulled(transformation, a, 0), pulled(transformation, b, 1)
    inner = Mul((c_b, entry(a_m, b_m, transformation)))
    inner = Sum(sum_b[0], sum_b[1], inner) if sum_b else inner
    outer = Mul((c_a, inner))
    return Sum(sum_a[0], sum_a[1], outer) if sum_a else outer


def _columns(transformation: Transformation, a: Entry) -> set:
    """{(the coordinate's mixed index, K)} for a coordinate of a mixed family, {} for a scaled one."""
    kind, found = _read(transformation, transformation.pattern_of(a))
    return {(a.indices[found[1]], found[3])} if kind == "mixed" else set()


def left_inverse(transformation: Transformation, pattern: Entry, theorem) -> str | None:
    """None when ``theorem`` is Σ_m (Tθ)_{…m…} N_sm = θ_{…s…} for the mixed family, N a scalar free of θ
    (the kernel's theorem, T's image read from its definition); else the reason it is not."""
    _, found = _read(transformation, pattern)
    _, position, r, size, _ = found
    if not is_index_theorem(theorem):
        return f"the inverse of {pattern.family}'s mixing is not a kernel theorem"
    lhs, rhs = theorem.lhs, theorem.rhs
    if not (isinstance(lhs, Sum) and lhs.size == size and isinstance(lhs.body, Mul) and len(lhs.body.factors) == 2
            and isinstance(lhs.body.factors[1], Const) and isinstance(rhs, Entry) and rhs.family == pattern.family):
        return f"the theorem for {pattern.family} is not sum_m (T theta)_m N_sm = theta_s"
    m, s = lhs.index, rhs.indices[position]
    at = Entry(pattern.family, rhs.indices[:position] + (m,) + rhs.indices[position + 1:])
    if lhs.body.factors[0] != transformation.image(at) or m == s or m in rhs.indices:
        return f"the theorem for {pattern.family} does not compose its image at T theta with a matrix back to theta"
    # the theorem may take s over the mixing's 1..K, and no other free index over a range: M's inverse on
    # every row, not on some
    if set(theorem.ranges) - {(s, size)}:
        return f"the theorem for {pattern.family} holds only for some of its indices: {dict(theorem.ranges)}"
    return None


def mixing_pencil_congruence(claim: str, transformation: Transformation, function: Function, matrices,
                             inverses) -> Verdict:
    """The generalized eigenvalues of the pencil (H, G) are the same at Tθ and at θ, for every size, T a
    linear map read family by family as mixed or scaled, H the Hessian of ``function`` (checked entry
    by entry), every family it reads one T maps.  ``matrices`` holds, for H then G, a
    triple (name, entry, law): ``entry(a, b, point)`` is X_ab at θ or at Tθ, and ``law(a, b)`` the kernel
    theorem X_ab(θ) = (Mᵀ X(Tθ) M)_ab for the pair, checked here against the term this module builds
    from T; ``inverses(pattern)`` the kernel theorem that the mixing of the family has a left inverse."""
    if len(matrices) != 2:
        return Verdict(Status.UNDECIDED, claim, reason="a pencil is two matrices")
    # the pencil's coordinates are those ``function`` reads: each one T's (or data, or a quantity T
    # evaluates at Tθ), so that the laws below, one per pair of T's families, speak of every entry
    unmapped = unmapped_families(transformation, function.body)
    if unmapped:
        return Verdict(Status.UNDECIDED, claim, reason=f"{function.name} reads {', '.join(sorted(unmapped))}, which "
                       f"${transformation.name}$ does not map: the laws would not reach its coordinates")
    patterns = [pattern for pattern, _ in transformation.images]
    readings = {pattern: reading(transformation, pattern) for pattern in patterns}
    unread = [pattern.family for pattern, found in readings.items() if found is None]
    if unread:
        return Verdict(Status.UNDECIDED, claim, reason=f"${transformation.name}$ neither mixes nor scales "
                       f"{', '.join(unread)} alone (read from its definition)")
    mixed = [pattern for pattern, (kind, _) in readings.items() if kind == "mixed"]
    if not mixed:
        return Verdict(Status.UNDECIDED, claim, reason=f"${transformation.name}$ mixes no family")
    premises = [determinant_multiplicativity()]
    for pattern in mixed:
        theorem = inverses(pattern)
        reason = left_inverse(transformation, pattern, theorem)
        if reason is not None:
            return Verdict(Status.UNDECIDED, claim, reason=reason)
        premises.append(theorem.verdict)
    hessian = matrices[0][1]
    for a, b in pairs(transformation):
        # the first matrix is the Hessian of ``function`` itself, at θ and at Tθ: the verdict speaks of its pencil
        if any(hessian(a, b, point) != Eval(function, (a, b), point) for point in ("theta", transformation)):
            return Verdict(Status.UNDECIDED, claim, reason=f"the first matrix is not the Hessian of {function.name} "
                                                           f"at ({a.family}, {b.family})")
        for name, entry, law in matrices:
            theorem = law(a, b)
            if not is_index_theorem(theorem):
                return Verdict(Status.UNDECIDED, claim, reason=f"the law of {name} at ({a.family}, {b.family}) "
                                                               "is not a kernel theorem")
            # the law may take a mixed coordinate's column over the mixing's 1..K, and nothing else over a range
            if set(theorem.ranges) - (_columns(transformation, a) | _columns(transformation, b)):
                return Verdict(Status.UNDECIDED, claim, reason=f"the law of {name} at ({a.family}, {b.family}) holds "
                                                               f"only for some of its indices: {dict(theorem.ranges)}")
            if theorem.lhs != entry(a, b, "theta") or theorem.rhs != pulled_back(transformation, a, b, entry):
                return Verdict(Status.UNDECIDED, claim, reason=f"the theorem for {name} at ({a.family}, {b.family}) "
                               f"is not {name}(theta) = M^T {name}(T theta) M with M read from ${transformation.name}$")
            premises.append(theorem.verdict)
    names = " and ".join(name for name, _, _ in matrices)
    return conjunction(premises, label=claim, evidence=(
        f"${transformation.name}$ read from its definition: "
        + ", ".join(f"{p.family} {readings[p][0]}" for p in patterns) + "; no image reads another family, so "
        "T theta = M theta with M block-diagonal",
        f"{names}: X(theta) = M^T X(T theta) M entry by entry, for each ordered pair of "
        f"${transformation.name}$'s parameter families, kernel theorems for every size (the chain rule through T)",
        "each mixing has a left inverse (a kernel theorem from the map's hypothesis), the scales are non-zero: "
        "M is square and injective, so invertible",
        "so H(T theta) - lambda G(T theta) = M^-T (H(theta) - lambda G(theta)) M^-1, and det(P M P^T) = "
        "det(P)^2 det(M): the characteristic polynomials of the two pencils differ by the non-zero constant "
        "det(M)^-2, so their roots agree with multiplicity, G singular or not"))
