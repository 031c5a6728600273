"""The spectral norm of a matrix family at index level: a positive scale, a sign on one side and a
permutation of the rows or the columns leave it alone, each rule an axiom of the kernel with its
validity check (``symbolic.trusted.axioms.index_rules`` has the others).

‖A‖₂ = √λ_max(AᵀA) (AᵀA and AAᵀ have the same non-zero eigenvalues).  Each rule says that the Gram
matrices of the matrix it rewrites have the same characteristic polynomials (up to the scale c²), so
the same largest eigenvalue; its validity check compares those polynomials exactly on generic
symbolic matrices, and tries the test of a use on a right instance and on the wrong ones.
"""
from __future__ import annotations

import functools
import itertools

import sympy as sp

from symbolic.decision.zero import is_rational_zero, is_sign
from symbolic.trusted.axioms.index_rules import _either_way
from symbolic.logic.terms import Const, Entry, Mul, SpectralNorm, constants, free_indices, permuted, substitute_index
from symbolic.kernel import conjunction
from symbolic.checks import zeros
from symbolic.kernel.derivations import Rule, axiom
from symbolic.kernel.verdict import Status, Verdict


def _norm_of_a_product(before, what: str):
    """(c, A, the norm of A) for ‖(c A_ab)‖₂, or the reason it is not of that form."""
    if not (isinstance(before, SpectralNorm) and isinstance(before.body, Mul) and len(before.body.factors) == 2):
        return f"not of the form ||({what} A_ab)||_2"
    factor, rest = before.body.factors
    return factor, rest, SpectralNorm(rest, before.rows, before.columns)


def _spectral_norm_homogeneity(before, after):
    """‖(c A_ab)‖₂ → c ‖(A_ab)‖₂ for a scalar c > 0 free of a and b."""
    found = _norm_of_a_product(before, "c")
    if isinstance(found, str):
        return found
    c, _, norm = found
    if after != Mul((c, norm)):
        return "the result is not c ||(A_ab)||_2"
    if not isinstance(c, Const) or c.expr.is_positive is not True:
        return "the factor is not known to be a positive scalar"
    reached = sorted(free_indices(c) & set(before.bound))
    if reached:
        return f"the factor depends on the bound index {', '.join(reached)}: it is not one scale of the whole matrix"
    return None


def _spectral_norm_of_a_sign(before, after):
    """‖(s A_ab)‖₂ → ‖(A_ab)‖₂ for a real scalar s with s² = 1 that depends on a or on b, not on both:
    diag(s) on one side is orthogonal."""
    found = _norm_of_a_product(before, "s")
    if isinstance(found, str):
        return found
    s, _, norm = found
    if after != norm:
        return "the result is not ||(A_ab)||_2"
    if not isinstance(s, Const) or not is_sign(s.expr):
        return "the factor is not known to be a real scalar whose square is 1"
    if len(free_indices(s) & set(before.bound)) > 1:
        return "the sign depends on both bound indices: it is not a diagonal sign matrix on one side"
    return None


def _spectral_norm_of_a_permutation(before, after):
    """‖(A_{a π_m(b)})‖₂ → ‖(A_ab)‖₂, m the range of b (alike for the rows): the first matrix is the
    second with its columns (rows) permuted."""
    if not (isinstance(before, SpectralNorm) and isinstance(after, SpectralNorm) and before.ranges == after.ranges):
        return "not two spectral norms over the same ranges"
    for index, size in before.ranges:
        if substitute_index(after.body, index, permuted(size, index)) == before.body:
            if any(index in c.indices for c in constants(after.body)):
                return f"a scalar depends on {index}"
            return None
    return "the matrix is not the other's with one bound index b replaced by pi_m(b), m the range of b"


def _generic_matrix(rows: int, columns: int) -> sp.Matrix:
    return sp.Matrix(rows, columns, lambda r, c: sp.Symbol(f"a{r + 1}{c + 1}", real=True))


_LAMBDA = sp.Symbol("lambda")


def _gram_polynomials(matrix: sp.Matrix) -> tuple:
    """det(λI − AᵀA) and det(λI − AAᵀ), expanded."""
    return tuple(sp.expand(gram.charpoly(_LAMBDA).as_expr()) for gram in (matrix.T * matrix, matrix * matrix.T))


_SHAPES = ((2, 3), (3, 1))          # a generic matrix, and a vector (one column)
_W, _V = Entry("W", ("a", "b")), Entry("v", ("a",))


def _norm(body, columns=("b", "h")):
    return SpectralNorm(body, ("a", "d"), columns)


def _side_signs(matrix: sp.Matrix) -> list:
    """Each sign vector on the rows and on the columns of the matrix, as the signed matrix."""
    rows, columns = matrix.shape
    return ([sp.diag(*signs) * matrix for signs in itertools.product((1, -1), repeat=rows)]
            + [matrix * sp.diag(*signs) for signs in itertools.product((1, -1), repeat=columns)])


def _side_permutations(matrix: sp.Matrix) -> list:
    """The matrix with its rows, then its columns, in every order."""
    rows, columns = matrix.shape
    return ([matrix.extract(list(order), list(range(columns))) for order in itertools.permutations(range(rows))]
            + [matrix.extract(list(range(rows)), list(order)) for order in itertools.permutations(range(columns))])


def _polynomials_kept(claim: str, label: str, variants) -> Verdict:
    """The Gram polynomials of a generic matrix and vector (``_SHAPES``) kept by each of
    ``variants(matrix)``."""
    pairs = []
    for shape in _SHAPES:
        matrix = _generic_matrix(*shape)
        reference = _gram_polynomials(matrix)
        pairs += [(f"{shape[0]}x{shape[1]} {label} {k + 1}", variant, reference)
                  for k, variant in enumerate(variants(matrix))]
    return _same_polynomials(claim, pairs)


def _moves_polynomials(altered: sp.Matrix, matrix: sp.Matrix) -> bool:
    """Whether the alteration changes a Gram polynomial of the matrix (a negative control)."""
    return not all(is_rational_zero(left - right)
                   for left, right in zip(_gram_polynomials(altered), _gram_polynomials(matrix)))


def _same_polynomials(claim: str, pairs) -> Verdict:
    """Each (label, matrix, reference): the Gram polynomials of the matrix are the reference's."""
    return zeros(claim, [(f"{label}, Gram matrix {k + 1}", left - right) for label, matrix, reference in pairs
                               for k, (left, right) in enumerate(zip(_gram_polynomials(matrix), reference))],
                       instance_checked=(INSTANCES,))


# the validity of the spectral-norm rules is checked on these instances only, not for every size
INSTANCES = "spectral-norm rules: the Gram polynomials of generic 2x3 and 3x1 matrices"


@functools.cache
def _spectral_norm_homogeneity_validity() -> Verdict:
    """Gram(cA) = c² Gram(A), so det(λI − Gram(cA)) = c^(2n) det((λ/c²)I − Gram(A)) (n the Gram's
    side): its eigenvalues are c² times A's, λ_max too, and √(c² λ) = c √λ for c > 0.  Exact on
    generic 2×3 and 3×1 matrices; the test refuses −c, a c not known positive, and a c_b that
    depends on the column index."""
    c = sp.Symbol("c", positive=True)
    polynomials = []
    for shape in _SHAPES:
        matrix = _generic_matrix(*shape)
        for scaled, original in zip(_gram_polynomials(c * matrix), _gram_polynomials(matrix)):
            side = sp.degree(original, _LAMBDA)
            polynomials.append((f"{shape[0]}x{shape[1]}", scaled - sp.expand(c ** (2 * side) * original.xreplace(
                {_LAMBDA: _LAMBDA / c ** 2}))))
    column_scale = Const(sp.IndexedBase("c", positive=True)[sp.Symbol("b", integer=True)])
    tests = [_spectral_norm_homogeneity(_norm(Mul((Const(c), _W))), Mul((Const(c), _norm(_W)))) is None,
             _spectral_norm_homogeneity(_norm(Mul((Const(c), _V)), None), Mul((Const(c), _norm(_V, None)))) is None,
             _spectral_norm_homogeneity(_norm(Mul((Const(-c), _W))), Mul((Const(-c), _norm(_W)))) is not None,
             _spectral_norm_homogeneity(_norm(Mul((Const(sp.Symbol("r", real=True)), _W))),
                                        Mul((Const(sp.Symbol("r", real=True)), _norm(_W)))) is not None,
             _spectral_norm_homogeneity(_norm(Mul((column_scale, _W))), Mul((column_scale, _norm(_W)))) is not None]
    if not all(tests):
        return Verdict(Status.UNDECIDED, "spectral norm homogeneity", reason="the test of a use misjudges a known case")
    return zeros("||c A||_2 = c ||A||_2 for c > 0", polynomials, instance_checked=(INSTANCES,), evidence=(
        "det(lambda I - Gram(cA)) = c^(2n) det((lambda/c^2) I - Gram(A)) for both Gram matrices of a generic 2x3 "
        "matrix and a generic vector of 3: the eigenvalues scale by c^2, and sqrt(c^2 lambda) = c sqrt(lambda), c > 0",
        "the test accepts c > 0 free of the bound indices and refuses -c, a real r and a c_b of the column index"))


@functools.cache
def _spectral_norm_of_a_sign_validity() -> Verdict:
    """(DA)ᵀ(DA) = AᵀA and (DA)(DA)ᵀ = D AAᵀ D = D AAᵀ D⁻¹ for D = diag(s), s_a² = 1: the same
    polynomials, so the same ‖·‖₂; alike A D.  Exact on generic 2×3 and 3×1 matrices for every sign
    vector of either side; a sign of one entry alone (it depends on both indices) moves them; the test
    refuses it, and a factor that is not ±1."""
    signed = _polynomials_kept("a diagonal sign matrix on either side keeps the Gram polynomials", "signed",
                               _side_signs)
    matrix = _generic_matrix(2, 3)
    one_entry = matrix.copy()
    one_entry[0, 0] = -one_entry[0, 0]
    moved = _moves_polynomials(one_entry, matrix)
    e = sp.IndexedBase("e", integer=True)
    a, b = sp.Symbol("a", integer=True), sp.Symbol("b", integer=True)
    column_sign, entry_sign = Const((-1) ** e[b]), Const((-1) ** (e[a] + e[b]))
    tests = [_spectral_norm_of_a_sign(_norm(Mul((column_sign, _W))), _norm(_W)) is None,
             _spectral_norm_of_a_sign(_norm(Mul((Const((-1) ** e[a]), _V)), None), _norm(_V, None)) is None,
             _spectral_norm_of_a_sign(_norm(Mul((entry_sign, _W))), _norm(_W)) is not None,
             _spectral_norm_of_a_sign(_norm(Mul((Const(sp.Symbol("r", real=True)), _W))), _norm(_W)) is not None]
    if not (moved and all(tests)):
        return Verdict(Status.UNDECIDED, "spectral norm of a sign", reason="the test of a use misjudges a known case")
    return conjunction([signed], label="||diag(s) A||_2 = ||A diag(s)||_2 = ||A||_2 for s^2 = 1", evidence=(
        "every sign vector on the rows and on the columns of a generic 2x3 matrix and of a generic vector of 3: "
        "both Gram polynomials exact zeros apart (an orthogonal D on one side)",
        "a sign of one entry alone moves them; the test accepts a sign of one bound index and refuses one of "
        "both and a factor not known to be +-1"))


@functools.cache
def _spectral_norm_of_a_permutation_validity() -> Verdict:
    """A permutation matrix Q is orthogonal: (AQ)ᵀ(AQ) = Qᵀ AᵀA Q and (AQ)(AQ)ᵀ = AAᵀ, the same
    polynomials, so the same ‖·‖₂; alike QA.  Exact on generic 2×3 and 3×1 matrices for every order of
    the rows and of the columns; a map of the columns that is not onto (column 1 twice) moves them; the
    test refuses a permutation of another range and a body with the index also unpermuted."""
    reordered = _polynomials_kept("rows or columns in another order keep the Gram polynomials", "reordered",
                                  _side_permutations)
    matrix = _generic_matrix(2, 3)
    moved = _moves_polynomials(matrix.extract([0, 1], [0, 0, 2]), matrix)
    columns = Entry("W", ("a", permuted("h", "b")))
    tests = [_spectral_norm_of_a_permutation(_norm(columns), _norm(_W)) is None,
             _spectral_norm_of_a_permutation(_norm(Entry("W", (permuted("d", "a"), "b"))), _norm(_W)) is None,
             _spectral_norm_of_a_permutation(_norm(Entry("v", (permuted("d", "a"),)), None), _norm(_V, None)) is None,
             _spectral_norm_of_a_permutation(_norm(Entry("W", ("a", permuted("d", "b")))), _norm(_W)) is not None,
             _spectral_norm_of_a_permutation(_norm(Mul((columns, Entry("u", ("b",))))),
                                             _norm(Mul((_W, Entry("u", ("b",)))))) is not None]
    if not (moved and all(tests)):
        return Verdict(Status.UNDECIDED, "spectral norm of a permutation", reason="the test of a use misjudges a known case")
    return conjunction([reordered], label="||A Q||_2 = ||Q A||_2 = ||A||_2 for a permutation matrix Q", evidence=(
        "every order of the rows and of the columns of a generic 2x3 matrix and of a generic vector of 3: both "
        "Gram polynomials exact zeros apart (an orthogonal Q on one side)",
        "a map of the columns that is not onto moves them; the test accepts pi_m of the range m of a bound "
        "index and refuses pi of another range and a body in which the index also occurs unpermuted"))


SPECTRAL_NORM_HOMOGENEITY = axiom(Rule(
    "spectral norm homogeneity", r"\bigl\|(c\,A_{ab})_{a, b}\bigr\|_2 = c\,\bigl\|(A_{ab})_{a, b}\bigr\|_2",
    _either_way(_spectral_norm_homogeneity), _spectral_norm_homogeneity_validity,
    r"for a scalar $c > 0$ free of $a$ and $b$ and every matrix (or vector) $A$"))
SPECTRAL_NORM_OF_A_SIGN = axiom(Rule(
    "spectral norm of a sign", r"\bigl\|(s\,A_{ab})_{a, b}\bigr\|_2 = \bigl\|(A_{ab})_{a, b}\bigr\|_2",
    _either_way(_spectral_norm_of_a_sign), _spectral_norm_of_a_sign_validity,
    r"for a real scalar $s$ with $s^2 = 1$ that depends on $a$ or on $b$, not on both (a diagonal sign "
    r"matrix on one side)"))
SPECTRAL_NORM_OF_A_PERMUTATION = axiom(Rule(
    "spectral norm of a permutation",
    r"\bigl\|(A_{a\,\pi_m(b)})_{a, b}\bigr\|_2 = \bigl\|(A_{ab})_{a, b}\bigr\|_2",
    _either_way(_spectral_norm_of_a_permutation), _spectral_norm_of_a_permutation_validity,
    r"for $\pi_m$ a permutation of $\{1, \dots, m\}$, $m$ the range of $b$, and a matrix whose scalars are free "
    r"of $b$; alike for the rows"))
