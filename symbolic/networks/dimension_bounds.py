"""The dimension of a network's group of rescalings, bounded from above, and its flat directions,
decided: the oracles the kernel runs for ``symbolic.symmetries.discovery``, each answering ``Holds``
or a verdict that is no proof.

1. 'log-scale Jacobian rank bound' (``decide_dimension_bound``): a vector s of log-scales is in the
   Lie algebra of the positive diagonal rescalings leaving f unchanged only if J s = 0, J the
   log-scale derivative θ_p ∂f/∂θ_p at points off the kinks (the derivative at λ = 0 of
   f(e^{λs}θ) = f(θ)), so dim ≤ n − rank J, with rank J exact (piecewise-linear networks) or
   certified from below (tanh); and every generator found satisfies J G = 0.
2. 'linear-symmetry Jacobian rank bound' (``decide_linear_dimension_bound``): with attention heads,
   the same bound for the family of linear vector fields of ``family_directions`` (each
   parameter's scale, and the off-diagonal right multiplications of each head's W_Q and W_K):
   dim ≤ m − rank J, J's columns the derivative of f along the m fields.
3. 'exact flat directions' (``decide_flat_directions``): at a random interpolating minimum θ₀ of
   the mean squared error, H = (2/N)·Σ_n ∇f_n ∇f_nᵀ exactly (``interpolation_hessian``); then
   H·(G_k∘θ₀) = 0 for every generator, and dim ker H ≥ rank{G_k∘θ₀}.
"""
from __future__ import annotations

import random

import flint

from symbolic.networks.attention_head import attention_layers
from symbolic.networks.model import Model
from symbolic.networks.log_scale_jacobian import NoExactDerivative, OnKink, certified_rank, is_exact, sample, \
    symbolic_slopes
from symbolic.kernel.verdict import Holds, Status, Verdict

RANK_POINTS = 3          # parameter points whose rows are stacked, at least (unless the bound closes first)
MORE_RANK_POINTS = 8     # at most: further points are drawn while each raises the rank


# --- the positive diagonal rescalings: the log-scale rank bound --------------------------------------

def decide_dimension_bound(statement, seed: int = 0):
    """Oracle 'log-scale Jacobian rank bound': Fact("dimension at most", (model, basis)) — the Lie
    algebra of positive diagonal rescalings leaving f unchanged has dimension at most len(basis),
    and every vector of basis is in it to first order (J G = 0) — by dim ≤ n − rank J, J the
    log-scale derivative stacked from RANK_POINTS points, or up to MORE_RANK_POINTS while each
    raises the rank (an exact rank, or one certified by arb pivots excluding 0), stopping when the
    bound meets len(basis): a point whose activation pattern hardly varies over its inputs sees
    the biases of a layer through one constant, so a few points may leave them unseparated."""
    model, basis = statement.arguments
    n, k = len(model.parameters), len(basis)
    claim = statement.text
    rng = random.Random(seed)
    slopes = symbolic_slopes(model, rng)
    rows, rank, exact, points = [], 0, True, 0
    for attempt in range(MORE_RANK_POINTS):
        try:
            point = sample(model, n, rng, slopes)
        except (OnKink, NoExactDerivative) as error:
            return Verdict(Status.UNDECIDED, claim, reason=str(error))
        points += 1
        rows += point.rows
        # each generator is in the kernel of J: an independent check of the solved system
        if is_exact(point.rows):
            for G in basis:
                if any(sum((row[p] * G[p] for p in range(n)), flint.fmpq(0)) != 0 for row in point.rows):
                    return Verdict(Status.UNDECIDED, claim, reason=(
                        f"J G != 0 for the generator {list(G)}: the exponent system and the derivative "
                        "disagree"))
        before = rank
        rank, exact = certified_rank(rows)
        if n - rank <= k or (attempt + 1 >= RANK_POINTS and rank == before):
            break
    bound = n - rank
    rank_text = (f"exact rank {rank}" if exact else f"rank >= {rank}, certified by {rank} pivots whose "
                 "arb balls exclude 0")
    how = (f"{rank_text} of the {len(rows)} x {n} log-scale derivative J (theta_p df/dtheta_p) at "
           f"{points} rational parameter point(s), each with {n} rational inputs off every kink: "
           f"dim <= {n} - {rank} = {bound}")
    if bound == k:
        return Holds(evidence=(how, ("no generator to check against J" if not k else
                                     "J G_k = 0 exactly for every generator" if exact else
                                     "J is not rational (tanh): only its rank is used")), details={"bound": bound})
    if bound < k:
        return Verdict(Status.UNDECIDED, claim, details={"bound": bound}, reason=how + f", below the {k} generators "
                       "found: the evidence disagrees")
    return Verdict(Status.UNDECIDED, claim, details={"bound": bound}, reason=how + f": {bound - k} more dimension(s) "
                   f"than the {k} generators found are not excluded")


# --- with attention heads: the rank bound along the linear family ------------------------------------

def family_directions(model: Model, shears) -> list:
    """The family of linear vector fields the bound speaks of: each parameter's own direction
    θ_p e_p, then for every attention head the off-diagonal right multiplications W ↦ W E_ab of its
    W_Q and W_K, each as [(p, q)]: the field moves θ_p by θ_q."""
    parameters = model.parameters
    index = {s: p for p, s in enumerate(parameters)}
    fields = [[(p, p)] for p in range(len(parameters))]
    for layer in attention_layers(model):
        k = layer.head
        for name in (layer.query, layer.key):
            W = model[name]
            for a in range(k):
                for b in range(k):
                    if a != b:
                        # (W E_ab)_{i,b} = W_{i,a}: entry (i, b) moves by entry (i, a)
                        fields.append([(index[W[i, b]], index[W[i, a]]) for i in range(W.rows)])
    return fields


def decide_linear_dimension_bound(statement, seed: int = 0):
    """Oracle 'linear-symmetry Jacobian rank bound': a field X of the family is in the algebra only
    if ∂f/∂θ(θ₀, x)·Xθ₀ = 0 at every point where f is differentiable (the derivative at λ = 0 of
    f(e^{λX}θ₀, x) = f(θ₀, x)), so dim ≤ m − rank J, J's columns ∂f/∂θ·X_jθ₀ for the m fields X_j,
    rows at up to RANK_POINTS parameter points with n inputs each (a rank certified from below)."""
    model, basis, shears = statement.arguments
    fields = family_directions(model, shears)
    n, m, k = len(model.parameters), len(fields), len(basis) + len(shears)
    claim = statement.text
    rng = random.Random(seed)
    slopes = symbolic_slopes(model, rng)
    rows, rank, points = [], 0, 0
    for _ in range(RANK_POINTS):
        try:
            point = sample(model, n, rng, slopes, log_scale=False)
        except (OnKink, NoExactDerivative) as error:
            return Verdict(Status.UNDECIDED, claim, reason=str(error))
        points += 1
        rows += [[sum((row[p] * point.theta[q] for p, q in field), 0) for field in fields] for row in point.rows]
        rank, exact = certified_rank(rows)
        if m - rank <= k:
            break
    bound = m - rank
    how = (f"rank >= {rank} (certified by pivots, or exact) of the {len(rows)} x {m} derivative of f along the "
           f"{m} fields of the family (each parameter's scale, and the off-diagonal right multiplications of "
           f"W_Q and W_K) at {points} rational parameter point(s): dim <= {m} - {rank} = {bound}")
    if bound == k:
        return Holds(evidence=(how,), details={"bound": bound})
    if bound < k:
        return Verdict(Status.UNDECIDED, claim, details={"bound": bound},
                       reason=how + f", below the {k} generators found: the evidence disagrees")
    return Verdict(Status.UNDECIDED, claim, details={"bound": bound},
                   reason=how + f": {bound - k} more dimension(s) than the {k} generators found are not excluded")


# --- flat directions ---------------------------------------------------------------------------------

FLAT_DATA_FACTOR = 3     # data points per parameter at the minimum, so that H has no accidental kernel


def decide_flat_directions(statement, seed: int = 0):
    """Oracle 'exact flat directions': Fact("flat directions", (model, basis)), decided at a random
    interpolating minimum with N = 3n data points by the exact rational Hessian."""
    model, basis = statement.arguments
    n = len(model.parameters)
    claim = statement.text
    rng = random.Random(seed + 1)
    try:
        point = sample(model, FLAT_DATA_FACTOR * n, rng, symbolic_slopes(model, rng), log_scale=False)
    except (OnKink, NoExactDerivative) as error:
        return Verdict(Status.UNDECIDED, claim, reason=str(error))
    # with K outputs, K gradient rows per data point: the MSE's Hessian is still their Gram matrix
    # (up to a positive factor), so its kernel is theirs
    count = len(point.inputs)
    directions = [[G[p] * point.theta[p] for p in range(n)] for G in basis]
    numbers = {"predicted": _rank(directions), "parameters": n, "data_points": count}
    if not is_exact(point.rows):
        # rank H = rank of the gradient rows (H is their Gram matrix up to 2/N)
        numbers["hessian_kernel_at_most"] = n - certified_rank(point.rows)[0]
        return Verdict(Status.UNDECIDED, claim, reason="no rational Hessian (tanh): only the numbers",
                       details={"numbers": numbers, "nothing to check": True})
    hessian = interpolation_hessian(point.rows)
    for G, v in zip(basis, directions):
        product = hessian * flint.fmpq_mat(n, 1, [flint.fmpq(e) for e in v])
        if any(product[a, 0] != 0 for a in range(n)):
            return Verdict(Status.REFUTED, claim, witness={"theta": [str(t) for t in point.theta],
                                                           "generator": list(G)},
                           reason="H (G theta) != 0 at this minimum (exact)", details={"numbers": numbers})
    numbers["hessian_kernel"] = kernel = n - hessian.rank()
    if not basis:
        return Verdict(Status.UNDECIDED, claim, reason="no generator: nothing to check",
                       details={"numbers": numbers, "nothing to check": True})
    if kernel < numbers["predicted"]:
        return Verdict(Status.REFUTED, claim, details={"numbers": numbers},
                       reason=f"dim ker H = {kernel} < {numbers['predicted']}")
    return Holds(evidence=(
        f"exact: H (G_k theta_0) = 0 for all {len(basis)} generators at a random interpolating minimum "
        f"with N = {count} data points; predicted flat directions rank{{G_k theta_0}} = "
        f"{numbers['predicted']} (the dimension, theta_0 having no zero entry), dim ker H = {n} - "
        f"rank H = {kernel}",), details={"numbers": numbers})


def interpolation_hessian(gradients) -> flint.fmpq_mat:
    """The exact Hessian of L = (1/N) Σ (f_n − y_n)² at a point where every y_n = f(x_n), from the
    rational gradients ∇f_n: H = (2/N) Σ_n (∇f_n ∇f_nᵀ + (f_n − y_n) ∇²f_n), the residuals being
    0."""
    rows = [[flint.fmpq(v) for v in row] for row in gradients]
    count, n = len(rows), len(rows[0])
    return flint.fmpq_mat(n, n, [flint.fmpq(2, count) * sum((g[a] * g[b] for g in rows), flint.fmpq(0))
                                 for a in range(n) for b in range(n)])


def _rank(vectors) -> int:
    return certified_rank(vectors)[0] if vectors else 0
