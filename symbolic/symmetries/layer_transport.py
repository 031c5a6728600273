"""The prediction claim f_(Tθ)(x) = f_θ(x) proved layer by layer: each layer's claim on fresh inputs
proved by the exact identity test, then composed by the scheme 'layer-by-layer transport'
(``symbolic.trusted.schemes.layer_transport``), for a map that rescales every value of every layer."""
from __future__ import annotations

from symbolic.checks import identity
from symbolic.decision.identity import WIDE_KINKS
from symbolic.kernel import infer
from symbolic.kernel.verdict import Status
from symbolic.trusted.schemes.layer_transport import LAYER_BY_LAYER, WITNESS_POINTS, kinks, layer_claims, signal_factors


def prediction_by_layers(model, symmetry, images, originals, seed: int = 0):
    """The verdicts of f_k(Tθ)(x) = f_k(θ)(x), one per output, proved layer by layer (the scheme
    'layer-by-layer transport'); None when the route does not apply (few kinks: the direct
    claim is decided as it stands; a map or a layer outside it) or does not prove it (the direct
    claim then gives its verdict, a REFUTED one with its witness)."""
    if kinks((*images, *originals)) <= WIDE_KINKS:
        return None
    factors = signal_factors(model, symmetry)
    if factors is None or any(d != 1 for channel in factors[0] + factors[-1] for d in channel):
        return None
    claims = [identity(claim.lhs, claim.rhs, label=name, seed=seed) for name, claim in layer_claims(model, symmetry,
                                                                                                   factors)]
    if any(c.status is not Status.PROVED for c in claims):
        return None
    verdicts = []
    for k in range(len(images)):
        verdict = infer(LAYER_BY_LAYER, claims, label=f"prediction, output {k + 1}", evidence=(
            f"layer by layer: {len(claims)} exact identities L_k(D_(k-1) z; T theta) = D_k L_k(z; theta) on fresh "
            f"inputs z, each layer's output at T theta a positive multiple of its output at theta, value by value, "
            f"composed along the {len(model.layers)} layers (the input and the output rescaled by 1)",
            f"agrees exactly at {WITNESS_POINTS} random rational points comparing non-zero predictions"),
            model=model, symmetry=symmetry, output=k, seed=seed)
        if verdict.status is not Status.PROVED:
            return None
        verdicts.append(verdict)
    return verdicts
