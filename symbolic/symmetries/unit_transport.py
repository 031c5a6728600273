"""Every generator of a trained network's unit group proved: the six laws of the scheme 'unit transport'
by the kernel's exact identity test (once: they do not depend on the network), then one inference per
generator T_k, f(T_k(c) θ, x) = f(θ, x), composed by the scheme along the layers."""
from __future__ import annotations

from symbolic.checks import identity
from symbolic.kernel import infer
from symbolic.trained.unit_group import UnitGroup
from symbolic.trusted.schemes.unit_transport import UNIT_TRANSPORT, laws


def proved_laws(seed: int = 0) -> list:
    """The six laws, each a verdict of the exact identity test."""
    return [identity(law.lhs, law.rhs, label=f"law: {name}", seed=seed) for name, law in laws()]


def prove_generators(group: UnitGroup, name: str, seed: int = 0, premises: list | None = None) -> list:
    """One verdict per generator T_k (in class order): f(T_k(c) θ, x) = f(θ, x), by the unit transport."""
    premises = premises if premises is not None else proved_laws(seed)
    layers = len(group.network.layers)
    return [infer(UNIT_TRANSPORT, premises, label=f"T_{k + 1}: {group.describe(k)} times c", evidence=(
        f"the unit transport: {len(premises)} exact identities (each layer kind commuting with c > 0) composed "
        f"along the {layers} layers, the units of class {k + 1} ({group.describe(k)}) times c, the input and "
        f"the output fixed",), description=group.description, slots=group.slots, classes=group.classes,
        generator=k, name=name) for k in range(group.dimension)]
