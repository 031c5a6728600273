"""``rescale --group discovered``: the continuous group an exported model's architecture has, as
``symmetry MODEL.onnx --discover`` finds it, and the element of it the twin applies.

The architecture is read from the graph by ``read_architecture`` (the one reader), under the limits
of ``symmetry`` (the spec's); ``discover_symmetries`` finds the positive rescalings and proves each
generator T_k: θ_p ↦ c_k^{G_k,p} θ_p.  Only the PROVED generators are applied: the element
(c_1, …, c_m) multiplies θ_p by ∏_k c_k^{G_k,p}, each c_k > 0 given on the command line
(``--element T_1=2,T_2=1/3``, the generators not named at c = 1) or drawn with ``--seed``.  The ONNX
import reads no attention head, so no shear of one arises: the group applied is one of positive
rescalings.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from fractions import Fraction
from math import gcd

import numpy as np

from proofs.commands.arguments import UsageError

# the random element's c_k: small rationals other than 1, so that every generator moves θ
RANDOM_VALUES = tuple(Fraction(p, q) for p in range(1, 5) for q in range(1, 5) if p != q and gcd(p, q) == 1)
LOWEST, HIGHEST = Fraction(1, 10 ** 30), Fraction(10 ** 30)     # the twin is written in float32


def positive_rational(text: str, option: str) -> Fraction:
    """An exact c > 0 within the range float32 keeps, from its text (10, 0.5, 1/3)."""
    try:
        value = Fraction(text.strip())
    except (ValueError, ZeroDivisionError):
        raise UsageError(f"{option} takes a positive number (e.g. 10, 0.5 or 1/3), got {text!r}") from None
    if value <= 0:
        raise UsageError(f"{option} must be positive, got {text!r}")
    if not LOWEST <= value <= HIGHEST:
        raise UsageError(f"{option} must lie between 1e-30 and 1e30 (the twin is written in float32), got {text!r}")
    return value


def parse_element(text: str) -> dict:
    """'T_1=2,T_2=1/3' as {generator name: c}; the names are checked against the group later."""
    element = {}
    for part in text.split(","):
        name, equals, value = (piece.strip() for piece in part.partition("="))
        if not equals or not name or not value:
            raise UsageError(f"--element takes NAME=VALUE pairs separated by commas, naming the discovered "
                             f"generators (e.g. T_1=2,T_2=1/3), got {text!r}")
        if name in element:
            raise UsageError(f"--element {text!r} names {name} twice")
        element[name] = positive_rational(value, f"--element {name}")
    return element


@dataclass
class DiscoveredGroup:
    report: object                  # the DiscoveryReport
    applied: list                   # the PROVED generators
    exponents: np.ndarray           # one row per applied generator: its exponent on each entry of θ

    @property
    def names(self) -> list[str]:
        return [g.symmetry.name for g in self.applied]

    @property
    def not_applied(self) -> list:
        return [g for g in self.report.generators if g not in self.applied]

    def support(self, generator) -> str:
        """The generator as discovery prints it: 'c on W1_{1,1}, b1_{1}, W2_{1,1}^-1'."""
        return "c on " + ", ".join(f"{p}^{k}" if k != 1 else str(p)
                                   for p, k in zip(self.report.model.parameters, generator.exponents) if k)

    def element(self, given: dict) -> list[Fraction]:
        """The c_k of every applied generator, 1 for those not named; a name outside the group is bad input."""
        unknown = [name for name in given if name not in self.names]
        if unknown:
            unproved = {g.symmetry.name: g.status.name for g in self.not_applied}
            why = (f"{unknown[0]} is {unproved[unknown[0]]}, not PROVED: only proved generators are applied"
                   if unknown[0] in unproved else f"the discovered group has no generator {unknown[0]}")
            raise UsageError(f"--element: {why} (its proved generators: {', '.join(self.names)})")
        return [given.get(name, Fraction(1)) for name in self.names]

    def random_element(self, seed: int) -> list[Fraction]:
        rng = random.Random(seed)
        return [rng.choice(RANDOM_VALUES) for _ in self.applied]

    def label(self, element: list) -> str:
        return ", ".join(f"{name}={c}" for name, c in zip(self.names, element))

    def as_json(self) -> dict:
        report = self.report
        return {"dimension": report.dimension,
                "dimension_is_maximal": report.maximality is not None and report.maximality.proved,
                "generators": [{"name": g.symmetry.name, "support": self.support(g), "status": g.status.value,
                                "applied": g in self.applied} for g in report.generators]}


def discover_group(architecture, path: str, seed: int) -> DiscoveredGroup:
    """The architecture's group, discovered and proved as ``symmetry MODEL.onnx --discover`` does;
    a model past the spec's limits, a failed discovery or no proved generator is bad input."""
    from symbolic.symmetries.discovery import discover_symmetries
    from symbolic.kernel.verdict import Status

    from proofs.commands import discover_command
    from proofs.commands.symmetry_command import MAX_LAYERS, check_limits
    model = architecture.model
    try:
        if len(model.layers) > MAX_LAYERS:
            raise UsageError(f"{len(model.layers)} layers; the command line reads at most {MAX_LAYERS}")
        check_limits(model)
    except UsageError as error:
        raise UsageError(f"{path}: --group discovered: {error}") from None
    report = discover_symmetries(model, loss="any", sizes=discover_command.DEFAULT_SIZES, seed=seed,
                                 discrete=False)
    if report.failure is not None:
        raise UsageError(f"{path}: --group discovered: the discovery failed: {report.failure.reason}")
    applied = [g for g in report.generators if g.status is Status.PROVED]
    if not applied:
        raise UsageError(f"{path}: --group discovered: the architecture has no proved positive rescaling "
                         f"({len(report.generators)} generator(s) found, none PROVED): nothing to apply")
    exponents = np.array([architecture.theta_exponents(g.exponents) for g in applied])
    return DiscoveredGroup(report, applied, exponents)


@dataclass
class UnitDiscoveredGroup:
    """A whole model's group as ``symmetry MODEL.onnx --discover`` reads it past the spec's limits: one
    generator T_k per class of hidden units, each PROVED by the unit transport; an element (c_1, …, c_m)
    gives the units of class k the factor c_k."""
    group: object                   # the UnitGroup read from the layers
    verdicts: list                  # one per class

    @property
    def applied(self) -> list:
        return [k for k, v in enumerate(self.verdicts) if v.proved]

    @property
    def names(self) -> list[str]:
        return [f"T_{k + 1}" for k in self.applied]

    def element(self, given: dict) -> list[Fraction]:
        unknown = [name for name in given if name not in self.names]
        if unknown:
            raise UsageError(f"--element: the discovered group has no proved generator {unknown[0]} (T_1 … "
                             f"T_{len(self.verdicts)}, {len(self.applied)} PROVED)")
        return [given.get(name, Fraction(1)) for name in self.names]

    def random_element(self, seed: int) -> list[Fraction]:
        rng = random.Random(seed)
        return [rng.choice(RANDOM_VALUES) for _ in self.applied]

    def label(self, element: list) -> str:
        moved = [f"{name}={c}" for name, c in zip(self.names, element) if c != 1]
        shown = ", ".join(moved[:6]) + (f", … ({len(moved)} generators moved)" if len(moved) > 6 else "")
        return shown or "the identity"

    def factors(self, network, element: list) -> list:
        """The parameter tensors' factors of the element: each unit of class k times c_k."""
        from symbolic.trained.rescaling import slot_factors
        by_class = {k: c for k, c in zip(self.applied, element)}
        classes = self.group.classes

        def factor(slot: int) -> Fraction:
            return Fraction(by_class.get(int(classes[slot]), 1))
        return slot_factors(network, list(self.group.slots), factor)

    def as_json(self) -> dict:
        return {"dimension": self.group.dimension, "dimension_is_maximal": False,
                "route": "the group read from the architecture, each generator proved by the unit transport",
                "generators": [{"name": f"T_{k + 1}", "support": f"c on the units {self.group.describe(k)}",
                                "status": v.status.value, "applied": v.proved}
                               for k, v in enumerate(self.verdicts)]}


def discover_unit_group(network, path: str, seed: int) -> UnitDiscoveredGroup:
    """Past the spec's limits: the group read from the architecture, every generator proved by the unit
    transport; no proved generator is bad input."""
    import os

    from symbolic.symmetries.unit_transport import prove_generators
    from symbolic.trained.unit_group import read_unit_group
    group = read_unit_group(network)
    name = "".join(ch if ch.isalnum() else "_" for ch in os.path.splitext(os.path.basename(path))[0])
    discovered = UnitDiscoveredGroup(group, prove_generators(group, name, seed))
    if not discovered.applied:
        raise UsageError(f"{path}: --group discovered: the architecture has no proved positive rescaling "
                         f"({group.dimension} generator(s), none PROVED"
                         + (f"; {group.blocking[0]} fixes the units it reads" if group.blocking else "") + ")")
    return discovered
