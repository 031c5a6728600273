"""An attention head's score at index level, its map W_Q ↦ W_Q A, W_K ↦ W_K B with A Bᵀ = I, and the
kernel's proof that the map keeps the score, for every d, every head dimension k and every N.

The score of example n between its tokens x_n, x'_n ∈ ℝ^d (the audit's input row is (x_n, x'_n)),
read out by one weight v:

    f_θ(x_n) = v Σ_{m=1}^{k} (Σ_{i=1}^{d} x_ni Q_im)(Σ_{l=1}^{d} x'_nl K_lm),

θ = (Q, K ∈ ℝ^{d×k}, v), and the loss L(θ) = (1/N) Σ_n ℓ(f_θ(x_n), y_n).  The map T_A:

    Q_im ↦ Σ_{r=1}^{k} Q_ir A_rm,   K_lm ↦ Σ_{s=1}^{k} K_ls B_sm,   v ↦ v,

under the hypothesis Σ_m A_rm B_sm = δ_rs (``symbolic.trusted.axioms.attention_rules``).  It mixes the
columns of Q and of K: the images are sums, whose bound index is no index of the pattern.

f(T_Aθ)(x_n) = f_θ(x_n): each projection is a sum over r of A_rm times the projection at θ (the sum
over r out of Σ_i, the two sums interchanged, A_rm out of Σ_i); the product of the two sums is a
double sum; Σ_m goes inside, where Σ_m A_rm B_sm = δ_rs; the delta contracts Σ_s; the index r is
renamed m.
"""
from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from symbolic.trusted.axioms.attention_rules import GL_A, GL_B, HEAD, INVERSE_PAIR, LINEAR_CHAIN_RULE
from symbolic.trusted.axioms.index_rules import ARITHMETIC, BOUND_RENAMING, CHAIN_RULE, CONSTANT_FACTOR, \
    DERIVATIVE_OF_SUM, SUM_FACTOR, SUM_INTERCHANGE, delta_contraction
from symbolic.kernel.derivations import Chain
from symbolic.logic.terms import Add, Const, Deriv, Entry, Eval, Function, Mul, Sum, Transformation, replace_first
from symbolic.logic.notation import latex
from symbolic.every_size.networks import N, in_loss
from symbolic.every_size.mixing_congruence import pulled
from symbolic.every_size.measure_forms import gauss_newton_entry

QUERY, KEY, READOUT = "Q", "K", "v"
SECOND_TOKEN = "x'"


def _index(name: str) -> sp.Symbol:
    return sp.Symbol(name, integer=True)


def a(r: str = "r", m: str = "m") -> Const:
    return Const(GL_A[_index(r), _index(m)])


def b(s: str = "s", m: str = "m") -> Const:
    return Const(GL_B[_index(s), _index(m)])


def query(column: str = "m", weight=None):
    """Σ_i x_ni Q_i,column (with ``weight`` the entry of Q read instead, at index i)."""
    return Sum("i", "d", Mul((Entry("x", ("n", "i")), weight or Entry(QUERY, ("i", column)))))


def key(column: str = "m", weight=None):
    """Σ_l x'_nl K_l,column."""
    return Sum("l", "d", Mul((Entry(SECOND_TOKEN, ("n", "l")), weight or Entry(KEY, ("l", column)))))


def attention_prediction():
    """f_θ(x_n) = v Σ_m (Σ_i x_ni Q_im)(Σ_l x'_nl K_lm)."""
    return Mul((Entry(READOUT, ()), Sum("m", HEAD, Mul((query(), key())))))


ATTENTION_LOSS = Function("L", in_loss(attention_prediction()))


def attention_map(name: str = "T_A", key_matrix=b) -> Transformation:
    """Q_im ↦ Σ_r Q_ir A_rm, K_lm ↦ Σ_s K_ls B_sm, v ↦ 1·v (``key_matrix`` another matrix for the
    negative controls)."""
    Q, K, v = Entry(QUERY, ("i", "m")), Entry(KEY, ("l", "m")), Entry(READOUT, ())
    return Transformation(name, ((Q, Sum("r", HEAD, Mul((Entry(QUERY, ("i", "r")), a())))),
                                 (K, Sum("s", HEAD, Mul((Entry(KEY, ("l", "s")), key_matrix())))),
                                 (v, Mul((Const(sp.S.One), v)))))


T_ATTENTION = attention_map()
# Σ_s δ_rs F_s = F_r: r runs over the head's columns, 1..k, as the sum over s does
HEAD_CONTRACTION = delta_contraction({"r": HEAD})
# Σ_r δ_rs θ_r = θ_s for the inverse of the mixing: s (t for K) a column of the head, 1..k
BACK_CONTRACTION = delta_contraction({"s": HEAD, "t": HEAD})


def attention_chain(transformation: Transformation = T_ATTENTION, key_matrix=b) -> Chain:
    """f(T_Aθ)(x_n) = f_θ(x_n), every d, k and N, one justified step at a time (another map and the
    matrix its key image reads, for the negative controls: the kernel refuses their chains)."""
    v = Entry(READOUT, ())
    x, x_key = Entry("x", ("n", "i")), Entry(SECOND_TOKEN, ("n", "l"))
    Q_r, K_s = Entry(QUERY, ("i", "r")), Entry(KEY, ("l", "s"))

    def score(q, k):
        return Mul((v, Sum("m", HEAD, Mul((q, k)))))
    mixed_query = Sum("r", HEAD, Mul((a(), query("r"))))          # Σ_r A_rm (Σ_i x_ni Q_ir)
    mixed_key = Sum("s", HEAD, Mul((key_matrix(), key("s"))))     # Σ_s B_sm (Σ_l x'_nl K_ls)
    chain = Chain(f"attention head: f_({transformation.name} theta)(x) = f_theta(x), every d, k and N",
                  transformation.apply(attention_prediction()))
    # v's factor 1 dropped
    chain.then(ARITHMETIC, Mul((v, chain.start.factors[1])), "the read-out weight's factor 1")
    at_T_key = transformation.apply(key())
    # the query at T_Aθ: x_ni into the sum over r, the two sums interchanged, A_rm out of Σ_i
    chain.then(SUM_FACTOR, score(Sum("i", "d", Sum("r", HEAD, Mul((x, Mul((Q_r, a())))))), at_T_key),
               "$x_{ni}$ into the sum over $r$")
    chain.then(SUM_INTERCHANGE, score(Sum("r", HEAD, Sum("i", "d", Mul((x, Mul((Q_r, a())))))), at_T_key))
    chain.then(ARITHMETIC, score(Sum("r", HEAD, Sum("i", "d", Mul((a(), Mul((x, Q_r)))))), at_T_key))
    chain.then(SUM_FACTOR, score(mixed_query, at_T_key), "$A_{rm}$ is free of $i$")
    # the key alike, with s and B_sm
    chain.then(SUM_FACTOR, score(mixed_query, Sum("l", "d", Sum("s", HEAD, Mul((x_key, Mul((K_s, key_matrix()))))))),
               "$x'_{nl}$ into the sum over $s$")
    chain.then(SUM_INTERCHANGE, score(mixed_query, Sum("s", HEAD, Sum("l", "d", Mul((x_key, Mul((K_s, key_matrix()))))))))
    chain.then(ARITHMETIC, score(mixed_query, Sum("s", HEAD, Sum("l", "d", Mul((key_matrix(), Mul((x_key, K_s))))))))
    chain.then(SUM_FACTOR, score(mixed_query, mixed_key), "$B_{sm}$ is free of $l$")
    # the product of the two sums as a double sum: each factor into the other's sum (free of its index)
    query_r, key_s = Mul((a(), query("r"))), Mul((key_matrix(), key("s")))
    chain.then(ARITHMETIC, Mul((v, Sum("m", HEAD, Mul((mixed_key, mixed_query))))))
    chain.then(SUM_FACTOR, Mul((v, Sum("m", HEAD, Sum("r", HEAD, Mul((mixed_key, query_r)))))),
               "the key's sum is free of $r$")
    chain.then(ARITHMETIC, Mul((v, Sum("m", HEAD, Sum("r", HEAD, Mul((query_r, mixed_key)))))))
    double = Sum("s", HEAD, Mul((query_r, key_s)))
    chain.then(SUM_FACTOR, Mul((v, Sum("m", HEAD, Sum("r", HEAD, double)))), "$A_{rm} q_r$ is free of $s$")
    # the sum over m innermost
    chain.then(SUM_INTERCHANGE, Mul((v, Sum("r", HEAD, Sum("m", HEAD, double)))))
    chain.then(SUM_INTERCHANGE, Mul((v, Sum("r", HEAD, Sum("s", HEAD, Sum("m", HEAD, Mul((query_r, key_s))))))))
    # the projections in front, free of m, out of Σ_m; then the hypothesis Σ_m A_rm B_sm = δ_rs
    projections = Mul((query("r"), key("s")))
    pair = Sum("m", HEAD, Const(a().expr * key_matrix().expr))
    chain.then(ARITHMETIC, Mul((v, Sum("r", HEAD, Sum("s", HEAD, Sum("m", HEAD, Mul((projections, pair.body))))))))
    chain.then(SUM_FACTOR, Mul((v, Sum("r", HEAD, Sum("s", HEAD, Mul((projections, pair)))))),
               "the projections are free of $m$")
    delta = Const(sp.KroneckerDelta(_index("r"), _index("s")))
    chain.then(INVERSE_PAIR, Mul((v, Sum("r", HEAD, Sum("s", HEAD, Mul((projections, delta)))))))
    chain.then(ARITHMETIC, Mul((v, Sum("r", HEAD, Sum("s", HEAD, Mul((delta, projections)))))))
    # Σ_s δ_rs F_s = F_r, then the index r renamed m
    chain.then(HEAD_CONTRACTION, Mul((v, Sum("r", HEAD, Mul((query("r"), key("r")))))))
    return chain.then(BOUND_RENAMING, attention_prediction(), "the index $r$ renamed $m$")


# --- ⟨Tθ, ∇g(Tθ)⟩ = ⟨θ, ∇g(θ)⟩: the chain rule through T_A, Tᵀ∇g(Tθ) = ∇(g∘T)(θ) = ∇g(θ) ----------------

# each family with its row index, its sum over the mixed column and the matrix that mixes it
_MIXED = ((QUERY, "i", "r", a), (KEY, "l", "s", b))


def gradient_pairing(function: Function, point, image=None):
    """⟨θ, ∇g(θ)⟩ = Σ_i Σ_m Q_im (∂_{Q_im} g)(θ) + Σ_l Σ_m K_lm (∂_{K_lm} g)(θ) + v (∂_v g)(θ), at θ
    (``point`` "theta") or at Tθ (``point`` T, ``image`` its map on the entries): the measures' term."""
    image = image or (lambda entry: entry)
    parts = [Sum(row, "d", Sum("m", HEAD, Mul((image(Entry(family, (row, "m"))),
                                               Eval(function, (Entry(family, (row, "m")),), point)))))
             for family, row, _, _ in _MIXED]
    v = Entry(READOUT, ())
    return Add((*parts, Mul((image(v), Eval(function, (v,), point)))))


def gradient_pairing_chain(function: Function, invariance, transformation: Transformation = T_ATTENTION) -> Chain:
    """⟨T_Aθ, ∇g(T_Aθ)⟩ = ⟨θ, ∇g(θ)⟩ for g with g(T_Aθ) = g(θ) (``invariance``, a lemma made from the
    kernel's theorem): on each mixed family Σ_m (Σ_r θ_{…r} M_rm)(∂_{…m} g)(Tθ) = Σ_r θ_{…r} Σ_m M_rm
    (∂_{…m} g)(Tθ) = Σ_r θ_{…r} ∂_{…r}[g(Tθ)] (the chain rule through the mixing), = Σ_r θ_{…r}
    ∂_{…r}[g(θ)] (g∘T = g) = Σ_r θ_{…r} (∂_{…r} g)(θ); v's scale is 1."""
    T = transformation
    chain = Chain(f"<T theta, grad {function.name}(T theta)> = <theta, grad {function.name}(theta)>",
                  gradient_pairing(function, T, T.image))

    def step(rule, old, new, note=""):
        chain.then(rule, replace_first(chain.end, lambda t: t == old, lambda t: new), note)
    at_T, at_theta = Eval(function, (), T), Eval(function, (), "theta")
    for family, row, r, matrix in _MIXED:
        entry, mixed = Entry(family, (row, r)), matrix(r, "m")
        partial = Eval(function, (Entry(family, (row, "m")),), T)
        image = T.image(Entry(family, (row, "m")))
        term = image.body                                               # θ_{…r} M_rm

        def over(body):
            return Sum(row, "d", body)
        old = over(Sum("m", HEAD, Mul((image, partial))))
        # the derivative in front, then into the sum over r (it does not depend on r)
        step(ARITHMETIC, old, over(Sum("m", HEAD, Mul((partial, image)))))
        step(SUM_FACTOR, over(Sum("m", HEAD, Mul((partial, image)))),
             over(Sum("m", HEAD, Sum(r, HEAD, Mul((partial, term))))), f"the derivative is free of ${r}$")
        # Σ_m Σ_r in the other order, θ_{…r} in front and out of the sum over m
        step(SUM_INTERCHANGE, over(Sum("m", HEAD, Sum(r, HEAD, Mul((partial, term))))),
             over(Sum(r, HEAD, Sum("m", HEAD, Mul((partial, term))))))
        step(ARITHMETIC, over(Sum(r, HEAD, Sum("m", HEAD, Mul((partial, term))))),
             over(Sum(r, HEAD, Sum("m", HEAD, Mul((entry, Mul((mixed, partial))))))))
        through = Sum("m", HEAD, Mul((mixed, partial)))
        step(SUM_FACTOR, over(Sum(r, HEAD, Sum("m", HEAD, Mul((entry, Mul((mixed, partial))))))),
             over(Sum(r, HEAD, Mul((entry, through)))), "$%s$ is free of $m$" % latex(entry))
        # Σ_m M_rm (∂_{…m} g)(Tθ) = ∂_{…r}[g(Tθ)], then g(Tθ) = g(θ) and ∂_{…r}[g(θ)] = (∂_{…r} g)(θ)
        step(LINEAR_CHAIN_RULE, through, Deriv(entry, at_T))
        step(invariance, Deriv(entry, at_T), Deriv(entry, at_theta))
        step(CHAIN_RULE, Deriv(entry, at_theta), Eval(function, (entry,), "theta"))
        # the index r renamed m
        renamed = Sum("m", HEAD, Mul((Entry(family, (row, "m")), Eval(function, (Entry(family, (row, "m")),), "theta"))))
        step(BOUND_RENAMING, Sum(r, HEAD, Mul((entry, Eval(function, (entry,), "theta")))), renamed,
             f"the index ${r}$ renamed $m$")
    # v ↦ 1·v: the chain rule with the scale 1
    v = Entry(READOUT, ())
    partial = Eval(function, (v,), T)
    step(ARITHMETIC, Mul((T.image(v), partial)), Mul((v, Mul((Const(sp.S.One), partial)))))
    step(CHAIN_RULE, Mul((Const(sp.S.One), partial)), Deriv(v, at_T))
    step(invariance, Deriv(v, at_T), Deriv(v, at_theta))
    step(CHAIN_RULE, Deriv(v, at_theta), Eval(function, (v,), "theta"))
    return chain


# --- the pencil: H(θ) = Mᵀ H(T_Aθ) M and G(θ) = Mᵀ G(T_Aθ) M, M invertible --------------------------------

def _pull(chain: Chain, coordinate: Entry, function: Function, partials: tuple, invariance, T, side: int,
          wrap) -> None:
    """∂_a[g(θ)] inside ``wrap`` (with g's earlier ``partials`` at θ already turned to Tθ), rewritten as
    Σ_m c_a(m) (∂_{a(m)} g)(Tθ) (a mixed family) or t_a (∂_a g)(Tθ) (a scaled one): the chain rule
    through T; for the first partial, g(θ) = g(Tθ) first."""
    c, moved, over = pulled(T, coordinate, side)
    inner = Eval(function, partials, T)
    if not partials:
        chain.then(invariance, wrap(Deriv(coordinate, inner)))
    result = Mul((c, Eval(function, partials + (moved,), T)))
    if over is not None:
        chain.then(LINEAR_CHAIN_RULE, wrap(Sum(over[0], over[1], result)))
    else:
        chain.then(CHAIN_RULE, wrap(result))


def hessian_law_chain(function: Function, invariance, a: Entry, b: Entry, T: Transformation = T_ATTENTION) -> Chain:
    """(∂_b∂_a L)(θ) = Σ_m c_a(m) Σ_m' c_b(m') (∂_{b(m')}∂_{a(m)} L)(Tθ): each partial at θ as a derivative
    of L(θ) = L(Tθ), then the chain rule through T from the inside out, the constants out of ∂_b."""
    chain = Chain(f"Hessian law through {T.name} at ({a.family}, {b.family})", Eval(function, (a, b), "theta"))
    # (∂_b∂_a L)(θ) = ∂_b[∂_a[L(θ)]]
    chain.then(CHAIN_RULE, Deriv(b, Eval(function, (a,), "theta")))
    chain.then(CHAIN_RULE, Deriv(b, Deriv(a, Eval(function, (), "theta"))))
    # L(θ) = L(Tθ), then ∂_a through T
    _pull(chain, a, function, (), invariance, T, 0, lambda t: Deriv(b, t))
    c_a, a_m, over = pulled(T, a, 0)
    # ∂_b into the sum over m and past the constant c_a(m)
    if over is not None:
        chain.then(DERIVATIVE_OF_SUM, Sum(over[0], over[1], Deriv(b, Mul((c_a, Eval(function, (a_m,), T))))))
        wrap = lambda t: Sum(over[0], over[1], Mul((c_a, t)))
    else:
        wrap = lambda t: Mul((c_a, t))
    chain.then(CONSTANT_FACTOR, wrap(Deriv(b, Eval(function, (a_m,), T))))
    # ∂_b through T
    _pull(chain, b, function, (a_m,), invariance, T, 1, wrap)
    return chain


def _nested(sums, body):
    """Σ over each (index, size) of ``sums``, the first outermost."""
    for index, size in reversed(list(sums)):
        body = Sum(index, size, body)
    return body


def gauss_newton_law_chain(prediction: Function, invariance, a: Entry, b: Entry, T: Transformation = T_ATTENTION) -> Chain:
    """G_ab(θ) = Σ_m c_a(m) Σ_m' c_b(m') G_{a(m) b(m')}(Tθ), G_ab = (1/N) Σ_n (∂_a f_n)(∂_b f_n): the
    gradient of f_n at θ through T in each factor, the product of the two sums a double sum, Σ_n
    innermost, the constants out of it and 1/N into the sums."""
    chain = Chain(f"Gauss-Newton law through {T.name} at ({a.family}, {b.family})",
                  gauss_newton_entry(prediction, a, b, "theta"))
    (c_a, a_m, over_a), (c_b, b_m, over_b) = pulled(T, a, 0), pulled(T, b, 1)
    at_a, at_b = Eval(prediction, (a_m,), T), Eval(prediction, (b_m,), T)
    sums = [over for over in (over_a, over_b) if over is not None]

    def entry(first, second):
        return Mul((Const(1 / N), Sum("n", "N", Mul((first, second)))))
    # each factor: (∂_a f)(θ) = ∂_a[f(θ)] = ∂_a[f(Tθ)], then through T
    chain.then(CHAIN_RULE, entry(Deriv(a, Eval(prediction, (), "theta")), Eval(prediction, (b,), "theta")))
    _pull(chain, a, prediction, (), invariance, T, 0, lambda t: entry(t, Eval(prediction, (b,), "theta")))
    first = _nested([over_a] if over_a else [], Mul((c_a, at_a)))
    chain.then(CHAIN_RULE, entry(first, Deriv(b, Eval(prediction, (), "theta"))))
    _pull(chain, b, prediction, (), invariance, T, 1, lambda t: entry(first, t))
    second = _nested([over_b] if over_b else [], Mul((c_b, at_b)))
    # the second factor into the sum over m (it does not depend on m), then the first into the sum over m'
    if over_a is not None:
        chain.then(ARITHMETIC, entry(second, first))
        chain.then(SUM_FACTOR, Mul((Const(1 / N), Sum("n", "N", Sum(*over_a, Mul((second, Mul((c_a, at_a)))))))),
                   "the second factor is free of $m$")
        chain.then(ARITHMETIC, Mul((Const(1 / N), Sum("n", "N", Sum(*over_a, Mul((Mul((c_a, at_a)), second)))))))
    body = Mul((Mul((c_a, at_a)), Mul((c_b, at_b))))
    if over_b is not None:
        chain.then(SUM_FACTOR, Mul((Const(1 / N), Sum("n", "N", _nested(sums, body)))), "the first factor is free of $m'$")
    # Σ_n past each sum over m and m'
    for k in range(len(sums)):
        chain.then(SUM_INTERCHANGE, Mul((Const(1 / N), _nested(sums[:k + 1] + [("n", "N")] + sums[k + 1:], body))))
    # the constants out of Σ_n, then 1/N into the sums over m and m'
    scale = Const(c_a.expr * c_b.expr)
    products = Sum("n", "N", Mul((at_a, at_b)))
    chain.then(ARITHMETIC, Mul((Const(1 / N), _nested(sums, Sum("n", "N", Mul((scale, Mul((at_a, at_b)))))))))
    chain.then(SUM_FACTOR, Mul((Const(1 / N), _nested(sums, Mul((scale, products))))), "free of $n$")
    for k in range(len(sums)):
        chain.then(SUM_FACTOR, _nested(sums[:k + 1], Mul((Const(1 / N), _nested(sums[k + 1:], Mul((scale, products)))))),
                   "$1/N$ into the sum")
    # the entry of G at Tθ, its two coefficients in front; c_a(m) out of the sum over m'
    at_T = gauss_newton_entry(prediction, a_m, b_m, T)
    chain.then(ARITHMETIC, _nested(sums, Mul((c_a, Mul((c_b, at_T))))))
    if over_b is not None:
        chain.then(SUM_FACTOR, _nested([over_a] if over_a else [], Mul((c_a, Sum(*over_b, Mul((c_b, at_T)))))),
                   "$c_a$ is free of $m'$")
    return chain


def inverse_chain(family: str, T: Transformation = T_ATTENTION) -> Chain:
    """Σ_m (Tθ)_{…m} N_sm = θ_{…s}: the mixing of Q followed by Bᵀ, of K by Aᵀ, is the identity, from
    Σ_m A_rm B_sm = δ_rs."""
    row = "i" if family == QUERY else "l"
    r, s = ("r", "s") if family == QUERY else ("s", "t")
    matrix, back = (a(r, "m"), b(s, "m")) if family == QUERY else (b(r, "m"), a(s, "m"))
    entry = Entry(family, (row, r))
    chain = Chain(f"the mixing of {family} has a left inverse",
                  Sum("m", HEAD, Mul((T.image(Entry(family, (row, "m"))), back))))
    # the matrix of the way back into the sum over r, the two sums swapped
    chain.then(ARITHMETIC, Sum("m", HEAD, Mul((back, T.image(Entry(family, (row, "m")))))))
    chain.then(SUM_FACTOR, Sum("m", HEAD, Sum(r, HEAD, Mul((back, Mul((entry, matrix)))))), f"free of ${r}$")
    chain.then(SUM_INTERCHANGE, Sum(r, HEAD, Sum("m", HEAD, Mul((back, Mul((entry, matrix)))))))
    chain.then(ARITHMETIC, Sum(r, HEAD, Sum("m", HEAD, Mul((entry, Const(matrix.expr * back.expr))))))
    pair = Sum("m", HEAD, Const(matrix.expr * back.expr))
    chain.then(SUM_FACTOR, Sum(r, HEAD, Mul((entry, pair))), "free of $m$")
    # A Bᵀ = I, then the delta contracted
    delta = Const(sp.KroneckerDelta(_index(r) if family == QUERY else _index(s),
                                    _index(s) if family == QUERY else _index(r)))
    chain.then(INVERSE_PAIR, Sum(r, HEAD, Mul((entry, delta))))
    chain.then(ARITHMETIC, Sum(r, HEAD, Mul((delta, entry))))
    return chain.then(BACK_CONTRACTION, Entry(family, (row, s)))


@dataclass(frozen=True)
class MixingLaws:
    """The chains a map that mixes coordinates needs for the measures: the gradient pairing
    (g, g∘T = g) -> ⟨Tθ, ∇g(Tθ)⟩ = ⟨θ, ∇g(θ)⟩; the Hessian's and the Gauss–Newton matrix's laws
    (g, its lemma, a, b) -> X_ab(θ) = (Mᵀ X(Tθ) M)_ab; and the left inverse of a mixed family."""
    pairing: object
    hessian: object
    gauss_newton: object
    inverse: object


ATTENTION_LAWS = MixingLaws(gradient_pairing_chain, hessian_law_chain, gauss_newton_law_chain, inverse_chain)
