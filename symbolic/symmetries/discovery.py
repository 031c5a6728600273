"""``discover_symmetries(model)``: the rescalings and unit relabellings that leave a network's
function unchanged, found rather than supplied, each proved, the continuous part proved maximal.

1. Continuous.  The group of positive diagonal rescalings θ_p ↦ t_p·θ_p with f_{t·θ} = f_θ at every
   input and every θ.  Its Lie algebra contains the solutions s of the exponent system
   (``symbolic.networks.exponent_system``, t = e^s), solved exactly with an integer basis; each
   basis vector G_k is the one-parameter group θ_p ↦ c^{G_k,p}·θ_p, c > 0, proved a symmetry by
   ``check_symmetry`` (prediction, loss, gradient and Hessian laws).  The proved generators give
   dim ≥ k.
2. Maximality.  dim ≤ n − rank J for the log-scale derivative J at rational points off the kinks
   (``symbolic.networks.log_scale_jacobian``), an exact rank for piecewise-linear networks, a
   certified lower bound on it with tanh.  When n − rank J = k, the algebra is exactly the span of
   the generators: the identity component of the group of positive diagonal rescalings is
   {θ ↦ ∏_k c_k^{G_k}·θ}, of dimension k.
3. Discrete.  For each hidden layer (a dense layer or a convolution, layers acting on each channel
   alone, a dense layer or a convolution; ``symbolic.networks.discrete_symmetries``): the
   permutations of its units or channels, and the sign flip of one when the layers between are odd
   (flip its incoming weights, bias and outgoing weights) or even (incoming weights and bias).  The
   transposition (1 2), the cycle (1 2 … h) and the flip of unit 1 generate (ℤ₂)^h ⋊ S_h (S_h
   without flips); each generator is proved a symmetry by ``check_symmetry``, so the group they
   generate is one of symmetries.  That there are no other discrete symmetries is not claimed.
4. Flat directions.  At an interpolating minimum θ₀ of the mean squared error (targets f_θ₀(x_n))
   H = (2/N)·Σ_n ∇f_n ∇f_nᵀ exactly (the residuals vanish), and H·(G_k∘θ₀) = 0 for every
   generator: the kernel of H has dimension at least rank{G_k∘θ₀}, the number of flat directions
   the paper's argument predicts (``proofs.flat_directions``).  Both numbers are reported.

The rank bounds of 2 and the flat directions of 4 are decided by oracles the kernel runs, in
``symbolic.networks.dimension_bounds``; here each is asked of the kernel as a statement.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field

import sympy as sp

from symbolic.decision.budget import BudgetExhausted, time_budget
from symbolic.derivation import Derivation
from symbolic.latex import render
from symbolic.networks.exponent_system import ExponentSystem, NotHomogeneous, absent_parameters, \
    with_absent_parameters
from symbolic.networks.attention_head import SHEAR_PARAMETER, Attention, attention_layers, is_diagonal, \
    score_algebra
from symbolic.networks.dimension_bounds import family_directions
from symbolic.networks.discrete_symmetries import COMPLETENESS, discrete_kinds, hidden_layers
from symbolic.networks.maps import Symmetry
from symbolic.networks.model import Model
from symbolic.symmetries.symmetry import SymmetryReport, check_symmetry
from symbolic.kernel import Fact, by_oracle, conjunction
from symbolic.kernel.verdict import Status, Verdict, worst
# the deciding part's public names, importable from here as before
from symbolic.networks.dimension_bounds import FLAT_DATA_FACTOR, MORE_RANK_POINTS, RANK_POINTS  # noqa: F401
from symbolic.networks.dimension_bounds import decide_dimension_bound, decide_flat_directions  # noqa: F401
from symbolic.networks.dimension_bounds import decide_linear_dimension_bound, interpolation_hessian  # noqa: F401
from symbolic.trusted.oracles.networks import FLAT_DIRECTIONS, LINEAR_SYMMETRY_RANK_BOUND, LOG_SCALE_RANK_BOUND

GROUP_PARAMETER = sp.Symbol("c", positive=True)


# --- the pieces of the answer ----------------------------------------------------------------------

@dataclass
class Generator:
    """A basis vector of the Lie algebra: the exponent of c on each parameter, and its proof."""

    exponents: list
    symmetry: Symmetry
    report: SymmetryReport

    @property
    def status(self) -> Status:
        """All four laws."""
        return self.report.status

    @property
    def is_symmetry(self) -> bool:
        """f_{Tθ} = f_θ and L(Tθ) = L(θ) proved: what the lower bound on the dimension needs."""
        return _invariance(self.report) is Status.PROVED


def _invariance(report: SymmetryReport) -> Status:
    return worst(v for claim, _, v in report.rows if claim in ("prediction", "loss"))


@dataclass
class Shear:
    """An off-diagonal generator of an attention head's GL(k): W_Q ↦ W_Q(I + tX_Q), W_K ↦ W_K(I + tX_K)."""

    layer: Attention
    X: tuple
    symmetry: Symmetry
    report: SymmetryReport

    @property
    def status(self) -> Status:
        return self.report.status

    def describe(self) -> str:
        def term(name, X):
            k = len(X)
            entries = [f"{'+' if X[a][b] > 0 else '-'} t E_{a + 1}{b + 1}" for a in range(k) for b in range(k) if X[a][b]]
            return f"{name} -> {name}(I {' '.join(entries)})"
        return f"t real: {term(self.layer.query, self.X[0])}, {term(self.layer.key, self.X[1])}"


@dataclass
class DiscreteKind:
    """One generator of a hidden layer's discrete group (a transposition, a cycle, a flip)."""

    kind: str                       # "transposition", "cycle", "sign flip"
    layer: str
    representative: str
    symmetry: Symmetry
    report: SymmetryReport

    @property
    def status(self) -> Status:
        """Being a symmetry is the prediction and loss claims; the derivative laws are reported
        too (a sign flip with tanh does not transport regions, so they may stay undecided)."""
        return _invariance(self.report)


@dataclass
class DiscoveryReport:
    model: Model
    generators: list = field(default_factory=list)
    shears: list = field(default_factory=list)              # Shear: an attention head's off-diagonal part
    maximality: Verdict | None = None
    upper_bound: int | None = None
    discrete: list = field(default_factory=list)            # DiscreteKind
    hidden_layers: list = field(default_factory=list)       # HiddenLayer
    flat_directions: Verdict | None = None
    flat_numbers: dict = field(default_factory=dict)
    failure: Verdict | None = None                          # the system itself could not be solved
    discrete_searched: bool = True

    @property
    def dimension(self) -> int:
        return len(self.generators) + len(self.shears)

    @property
    def discrete_completeness(self) -> str:
        """Whether the list of discrete symmetries is claimed complete, and why."""
        return "not searched" if not self.discrete_searched else COMPLETENESS

    @property
    def discrete_structure(self) -> str:
        if not self.discrete_searched:
            return "not searched"
        parts = [layer.structure for layer in self.hidden_layers if layer.structure != "trivial"]
        return " × ".join(parts) or "none found"

    @property
    def status(self) -> Status:
        parts = [v for v in (self.failure, self.maximality, self.flat_directions) if v is not None]
        parts += self.generators + self.shears + self.discrete
        return worst(parts) if parts else Status.UNDECIDED

    # --- renderings ---

    def changed_tensors(self, symmetry: Symmetry) -> dict:
        """The image of every tensor the map changes, entry by entry, in the spec's names."""
        return {name: "[" + ", ".join("[" + ", ".join(map(str, row)) + "]" for row in image.tolist()) + "]"
                for name, image in symmetry.mapping.items() if image != self.model[name]}

    def as_json(self) -> dict:
        parameters = [str(p) for p in self.model.parameters]
        return {
            "model": repr(self.model),
            "status": self.status.value,
            "dimension": self.dimension,
            "dimension_is_maximal": self.maximality is not None and self.maximality.proved,
            "generators": [{
                "name": g.symmetry.name,
                "exponents": {p: k for p, k in zip(parameters, g.exponents) if k},
                "map": self.changed_tensors(g.symmetry),
                "status": g.status.value,
                "claims": g.report.as_json()["claims"]} for g in self.generators],
            "shears": [{
                "name": s.symmetry.name, "layer": s.layer.describe(), "map": self.changed_tensors(s.symmetry),
                "status": s.status.value, "claims": s.report.as_json()["claims"]} for s in self.shears],
            "maximality": None if self.maximality is None else {
                **_verdict_json(self.maximality), "upper_bound": self.upper_bound,
                "parameters": len(parameters)},
            "discrete": {
                "structure": self.discrete_structure,
                "complete": False,
                "completeness": self.discrete_completeness,
                "layers": [{"layer": layer.name, "units": layer.units, "structure": layer.structure}
                           for layer in self.hidden_layers],
                "generators": [{"kind": d.kind, "layer": d.layer, "representative": d.representative,
                                "map": self.changed_tensors(d.symmetry),
                                "status": d.status.value,
                                "claims": d.report.as_json()["claims"]} for d in self.discrete]},
            "flat_directions": {**(_verdict_json(self.flat_directions) if self.flat_directions is not None
                                   else {"status": None}), **self.flat_numbers},
            "failure": None if self.failure is None else _verdict_json(self.failure),
        }

    def to_json(self) -> str:
        return json.dumps(self.as_json(), indent=1)

    def table(self) -> str:
        parameters = self.model.parameters
        lines = []
        for g in self.generators:
            support = ", ".join(f"{p}^{k}" if k != 1 else str(p)
                                for p, k in zip(parameters, g.exponents) if k)
            lines.append((f"generator {g.symmetry.name}", _shorten("c on " + support), g.status.name))
        for s in self.shears:
            lines.append((f"generator {s.symmetry.name}", _shorten(s.describe()), s.status.name))
        if self.maximality is not None:
            # the family's size: n parameters, and with attention heads their right multiplications
            m, name = (len(family_directions(self.model, ())), "m") if attention_layers(self.model) else \
                (len(parameters), "n")
            detail = (f"dim <= {name} - rank J = {m} - {m - self.upper_bound} = "
                      f"{self.upper_bound}, {self.dimension} generators proved" if self.maximality.proved
                      else self.maximality.reason)
            lines.append(("maximality", _shorten(detail), self.maximality.status.name))
        for d in self.discrete:
            lines.append((d.kind, _shorten(f"{d.representative}, {d.layer}"), d.status.name))
        numbers = self.flat_numbers
        if self.flat_directions is not None and not self.flat_directions.proved:
            lines.append(("flat directions", _shorten(self.flat_directions.reason),
                          self.flat_directions.status.name))
        elif numbers:
            kernel = numbers.get("hessian_kernel", f"<= {numbers.get('hessian_kernel_at_most')}")
            lines.append(("flat directions", f"predicted {numbers['predicted']}, dim ker H {kernel} "
                          f"(n = {numbers['parameters']}, N = {numbers['data_points']})",
                          self.flat_directions.status.name if self.flat_directions is not None else "-"))
        if self.failure is not None:
            lines.append(("discovery", _shorten(self.failure.reason), self.failure.status.name))
        header = ("claim", "detail", "verdict")
        widths = [max(len(str(x)) for x in column) for column in zip(header, *lines)]
        out = ["  ".join(str(x).ljust(w) for x, w in zip(line, widths)).rstrip()
               for line in [header, tuple("-" * w for w in widths), *lines]]
        # below the table, in full: why each symmetry that is not PROVED is not
        unproved = self._unproved_claims()
        out += [""] * bool(unproved) + [f"{verdict.status.name} {name}: {verdict.reason}"
                                        for name, verdict in unproved]
        maximal = "proved maximal" if self.maximality is not None and self.maximality.proved else \
            "a lower bound (maximality not proved)"
        group = ("positive rescalings" if not self.shears else
                 "linear symmetries (positive rescalings and the attention heads' GL(k))")
        out.append(f"\ndimension of the group of {group}: {self.dimension} ({maximal})")
        for layer in attention_layers(self.model):
            k = layer.head
            shears = sum(1 for s in self.shears if s.layer is layer)
            out.append(f"attention head {layer.query}, {layer.key}: W_Q -> W_Q A, W_K -> W_K A^-T, A in GL({k}), "
                       f"dimension {k * k}: {k} positive rescalings of its columns and {shears} shears found")
        out.append(f"discrete symmetries found: {self.discrete_structure}"
                   + (f" ({self.discrete_completeness})" if self.discrete_searched else ""))
        out.append(f"overall: {self.status.name}")
        return "\n".join(out)

    __str__ = table

    def _unproved_claims(self) -> list:
        """(row name, its worst claim's verdict) for each generator, shear and discrete symmetry that
        is not PROVED: the claim that decided its row, whose reason is printed below the table."""
        rank = {Status.REFUTED: 0, Status.UNDECIDED: 1, Status.PROVED: 2}
        named = [(f"generator {g.symmetry.name}", g.report) for g in self.generators + self.shears]
        named += [(f"{d.kind} {d.representative}", d.report) for d in self.discrete]
        unproved = []
        for name, report in named:
            if report.status is not Status.PROVED and report.rows:
                claim, n, verdict = min(report.rows, key=lambda row: rank[row[2].status])
                unproved.append((f"{name}, {claim}" + (f" (N={n})" if n else ""), verdict))
        return unproved

    def _statement(self) -> str:
        k = self.dimension
        rescalings = (r"The positive diagonal rescalings $\theta_p \mapsto t_p\theta_p$ with "
                      r"$f_{t\theta} = f_\theta$ at every input and every $\theta$ ")
        if self.maximality is not None and self.maximality.proved:
            continuous = rescalings + (r"form a group of dimension $%d$: its Lie algebra is spanned by "
                                       r"the generators below." % k)
        else:
            continuous = rescalings + (r"contain the one-parameter groups below, so the dimension is at "
                                       r"least $%d$ (maximality not proved)." % k)
        structure = (self.discrete_structure.replace("⋊", r"\rtimes ").replace("×", r"\times ")
                     .replace("Z_2", r"\mathbb{Z}_2"))
        discrete = (r" The discrete symmetries found generate $%s$." % structure
                    if self.discrete and self.discrete_searched else "")
        return continuous + discrete

    def derivation(self) -> Derivation:
        derivation = Derivation(
            name="discovery", title="The symmetries of a network, discovered",
            source="discover_symmetries, for a user's own model",
            statement=self._statement(),
            definitions=[r"Model: $%s$." % self.model.latex(),
                         r"Generator $G_k$: $\theta_p \mapsto c^{G_{k,p}}\theta_p$, $c > 0$; its Lie "
                         r"algebra element is $G_k \in \mathbb{Z}^n$, $n = %d$."
                         % len(self.model.parameters)])
        derivation.unchecked.append(
            r"The exponent system, $s \in \ker A \Rightarrow f_{e^s\theta} = f_\theta$: one forward pass on "
            r"log-scales: sums ask for equal scales, homogeneous activations keep them, tanh asks for 0, the output "
            r"for 0; solved exactly (python-flint), integer basis; each generator is then checked below.")
        for g in self.generators:
            verdicts = [v for _, _, v in g.report.rows]
            derivation.add(verdicts, f"{g.symmetry.name}: check_symmetry, prediction, loss, gradient and Hessian laws")
        if self.maximality is not None:
            derivation.add([self.maximality],
                           r"$\dim \mathfrak{g} \le n - \operatorname{rank} J = %s$: " % (
                               self.upper_bound if self.upper_bound is not None else "?") +
                           r"$s \in \mathfrak{g} \Rightarrow J s = 0$, "
                           r"$J_{kp} = \theta_p\,\partial f/\partial\theta_p$ at rational points off "
                           r"the kinks (chain rule at $\lambda = 0$ of $f(e^{\lambda s}\theta) = "
                           r"f(\theta)$); rank exact or certified from below")
        for d in self.discrete:
            derivation.add([v for claim, _, v in d.report.rows if claim in ("prediction", "loss")],
                           f"{d.kind} {d.representative}: check_symmetry on this representative ({d.layer}), the "
                           "prediction and loss claims")
        if self.flat_directions is not None:
            derivation.add([self.flat_directions], r"$H(\theta_0)\,(G_k \circ \theta_0) = 0$, so $\dim\ker H \ge "
                           r"\operatorname{rank}\{G_k\circ\theta_0\}$: exact Hessian of the mean squared error at a "
                           "random interpolating minimum")
        if self.failure is not None:
            derivation.add([self.failure], self.failure.reason)
        derivation.notes.append(
            r"Maximality is a statement about the Lie algebra, hence the identity component of "
            r"the group of positive diagonal rescalings; discrete positive rescalings outside it are "
            r"not excluded by the rank bound. For the discrete symmetries, the proved generators "
            r"generate a group of symmetries; that it is all of them is not claimed.")
        return derivation

    def latex(self) -> str:
        return render(self.derivation())


def _verdict_json(verdict: Verdict) -> dict:
    return {"status": verdict.status.value, "statement": verdict.claim, "reason": verdict.reason or None,
            "evidence": list(verdict.evidence),
            "witness": {str(k): str(v) for k, v in verdict.witness.items()} if verdict.witness else None}


def _shorten(text: str, width: int = 70) -> str:
    return text if len(text) <= width else text[: width - 3].rsplit(" ", 1)[0] + " ..."


# --- 1. the generators ------------------------------------------------------------------------------

def generator_symmetry(model: Model, exponents: list, name: str) -> Symmetry:
    """θ_p ↦ c^{exponents_p}·θ_p for every parameter."""
    factors = dict(zip(model.parameters, exponents))
    mapping = {key: tensor.applyfunc(lambda s: GROUP_PARAMETER ** factors[s] * s)
               for key, tensor in model.tensors.items() if any(factors[s] for s in tensor)}
    return Symmetry(model, mapping, name=name)


# --- 2. maximality ------------------------------------------------------------------------------------

def maximality(model: Model, basis: list, generator_proofs: list, seed: int,
               shears=()) -> tuple[Verdict, int | None]:
    """The generators span the Lie algebra: dim ≤ k by the rank bound (an oracle the kernel runs),
    and dim ≥ k by the k generators, each proved to leave f and L unchanged (``generator_proofs``:
    the verdicts of f_{Tθ} = f_θ and L(Tθ) = L(θ) of every generator).  With an attention head, the
    algebra is that of the linear symmetries in the family of the positive diagonal rescalings and
    the right multiplications of its W_Q and W_K, and ``shears`` are its off-diagonal generators."""
    k = len(basis) + len(shears)
    if attention_layers(model):
        claim = (f"maximality: the Lie algebra of the linear symmetries in the family of the positive diagonal "
                 f"rescalings and the right multiplications of each attention head's query and key weights is the "
                 f"span of the {k} generators")
        bound_verdict, bound = linear_dimension_bound(model, basis, shears, seed, label=claim)
    else:
        claim = (f"maximality: the Lie algebra of the positive diagonal rescalings leaving f unchanged is "
                 f"the span of the {k} generators")
        bound_verdict, bound = dimension_bound(model, basis, seed, label=claim)
    if bound_verdict.status is not Status.PROVED:
        return bound_verdict, bound
    if not all(p.status is Status.PROVED for p in generator_proofs):
        return Verdict(Status.UNDECIDED, claim, reason=bound_verdict.evidence[0] + ", but not every generator is "
                       "proved to leave the prediction unchanged"), bound
    evidence = (bound_verdict.evidence[0] + f", and the {k} generators, proved symmetries, give dim >= {k}",
                *bound_verdict.evidence[1:])
    return conjunction([bound_verdict, *generator_proofs], label=claim, evidence=evidence,
                       details={"bound": bound}), bound


def dimension_bound(model: Model, basis: list, seed: int, label: str = "") -> tuple[Verdict, int | None]:
    """dim ≤ len(basis) for the Lie algebra of positive diagonal rescalings leaving f unchanged,
    by the rank bound (an oracle the kernel runs); with the bound n − rank J found."""
    statement = Fact("dimension at most", (model, tuple(tuple(G) for G in basis)),
                     reading=f"the Lie algebra of the positive diagonal rescalings leaving f unchanged has "
                             f"dimension at most {len(basis)}, each of these generators in it to first order")
    verdict = by_oracle(LOG_SCALE_RANK_BOUND, statement, label=label, seed=seed)
    return verdict, verdict.details.get("bound")


def shear_symmetry(model: Model, layer: Attention, X, name: str) -> Symmetry:
    """W_Q ↦ W_Q(I + tX_Q), W_K ↦ W_K(I + tX_K), t real."""
    k = layer.head
    XQ, XK = (sp.Matrix(M) for M in X)
    return Symmetry(model, {layer.query: model[layer.query] * (sp.eye(k) + SHEAR_PARAMETER * XQ),
                            layer.key: model[layer.key] * (sp.eye(k) + SHEAR_PARAMETER * XK)}, name=name)


def linear_dimension_bound(model: Model, basis: list, shears, seed: int, label: str = ""):
    """dim ≤ len(basis) + len(shears) for the Lie algebra of the linear symmetries in the family of
    ``family_directions``, by the rank bound (an oracle the kernel runs)."""
    statement = Fact("linear dimension at most", (model, tuple(tuple(G) for G in basis),
                                                  tuple(repr(X) for X in shears)),
                     reading=f"the Lie algebra of the linear symmetries spanned by the positive diagonal rescalings and "
                             f"the right multiplications of each attention head's query and key weights has dimension "
                             f"at most {len(basis) + len(shears)}")
    verdict = by_oracle(LINEAR_SYMMETRY_RANK_BOUND, statement, label=label, seed=seed)
    return verdict, verdict.details.get("bound")


# --- 3. discrete symmetries ---------------------------------------------------------------------------

# --- 4. flat directions -------------------------------------------------------------------------------

def flat_directions(model: Model, basis: list, seed: int) -> tuple[Verdict | None, dict]:
    """At a random interpolating minimum with N = 3n data points: H·(G_k∘θ₀) = 0 exactly for every
    generator, and dim ker H against rank{G_k∘θ₀} (an oracle the kernel runs).  Without a generator
    there is nothing to check and without a rational Hessian (tanh) nothing exact: then only the
    numbers are given (with tanh rank H ≥ r certified, so dim ker H ≤ n − r)."""
    claim = "flat directions: every generator is in the Hessian's kernel at an interpolating minimum"
    statement = Fact("flat directions", (model, tuple(tuple(G) for G in basis)),
                     reading="at an interpolating minimum, H (G_k theta) = 0 for every generator G_k and dim ker H "
                             ">= rank{G_k theta}")
    verdict = by_oracle(FLAT_DIRECTIONS, statement, label=claim, seed=seed)
    numbers = verdict.details.get("numbers", {})
    if verdict.details.get("nothing to check"):
        return None, numbers
    return verdict, numbers


# --- the whole discovery ------------------------------------------------------------------------------

def discover_symmetries(model: Model, *, loss: str = "any", sizes=(1,), seed: int = 0,
                        timeout: float | None = None, discrete: bool = True) -> DiscoveryReport:
    """Find the positive diagonal rescalings and (with ``discrete``) the unit relabellings that
    leave ``model``'s function unchanged; prove each generator with ``check_symmetry`` (``loss``
    and ``sizes`` as there, ``timeout`` seconds per claim) and the continuous part maximal.  A step
    whose budget runs out is UNDECIDED with the reason."""
    report = DiscoveryReport(model)
    if model.batch_dependent:
        # a batch normalised over N data points needs two of them at least
        sizes = tuple(sorted({max(n, 2) for n in sizes}))

    def budgeted(step, what):
        try:
            with time_budget(timeout):
                return step()
        except BudgetExhausted:
            report.failure = Verdict(Status.UNDECIDED, what,
                                     reason=f"time budget of {timeout} s ran out during {what}")
            return None
    try:
        # the solutions of the system, and each parameter f does not contain on its own
        basis = budgeted(lambda: with_absent_parameters(ExponentSystem(model).solution_basis(),
                                                        absent_parameters(model), len(model.parameters)),
                         "the exponent system")
    except NotHomogeneous as error:
        report.failure = Verdict(Status.UNDECIDED, "the exponent system", reason=str(error))
        return report
    if basis is None:
        return report
    for k, exponents in enumerate(basis):
        symmetry = generator_symmetry(model, exponents, f"T_{k + 1}")
        check = check_symmetry(model, symmetry, loss=loss, sizes=sizes, seed=seed, timeout=timeout)
        report.generators.append(Generator(exponents, symmetry, check))
    # an attention head's GL(k) beyond its diagonal: the off-diagonal solutions of its score algebra
    for layer in attention_layers(model):
        for X in score_algebra(model, layer):
            if is_diagonal(X):
                continue            # a column of W_Q up, of W_K down: a positive rescaling, found above
            symmetry = shear_symmetry(model, layer, X, f"S_{len(report.shears) + 1}")
            check = check_symmetry(model, symmetry, loss=loss, sizes=sizes, seed=seed, timeout=timeout)
            report.shears.append(Shear(layer, X, symmetry, check))
    proofs = [v for g in report.generators + report.shears for claim, _, v in g.report.rows
              if claim in ("prediction", "loss")]
    shears = [s.X for s in report.shears]
    result = budgeted(lambda: maximality(model, basis, proofs, seed, shears), "the rank bound")
    if result is not None:
        report.maximality, report.upper_bound = result
    report.discrete_searched = discrete
    report.hidden_layers = hidden_layers(model) if discrete else []
    for kind, layer, representative, symmetry in discrete_kinds(model, report.hidden_layers):
        check = check_symmetry(model, symmetry, loss=loss, sizes=sizes, seed=seed, timeout=timeout)
        report.discrete.append(DiscreteKind(kind, layer, representative, symmetry, check))
    result = budgeted(lambda: flat_directions(model, basis, seed), "the flat directions")
    if result is not None:
        report.flat_directions, report.flat_numbers = result
    return report
