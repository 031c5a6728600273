"""Symmetries of a model, and ``check_symmetry``: is a map of the parameters a symmetry, and how do
the gradient and the Hessian transform under it?

A symmetry T (``symbolic.networks.maps.Symmetry``) maps each parameter tensor of a ``Model`` to a
matrix of the same shape whose entries are expressions in the parameters and in group parameters
(α > 0, c_j > 0, or none for a permutation).  ``check_symmetry`` answers, each claim with a Verdict:

1. prediction: f_{Tθ}(x) = f_θ(x) at every input x and every θ, kinks included (``check_identity``:
   exact zero test of the canonical ReLU form, sign split where needed, random rational points;
   and exact agreement at points where a pre-activation is exactly zero);
2. loss: L(Tθ) = L(θ) for every loss ℓ of the N predictions (an undefined function ℓ, refuted by a
   concrete one), or for the mean squared error with symbolic targets;

   with K > 1 outputs the prediction is the vector (f_1, …, f_K): claim 1 is one identity per
   output, combined by the kernel's conjunction; "any" is an undefined ℓ of all K·N predictions;
   "mse" is L = (1/N) Σ_n Σ_k (f_k(x_n) − y_{n,k})², summed over the outputs and averaged over the
   points; "cross_entropy" (K ≥ 2) the softmax cross-entropy of the logits with class labels,
   L = (1/N) Σ_n [log Σ_k exp f_k(x_n) − f_{y_n}(x_n)] (``symbolic.networks.losses``), checked for
   every target distribution q_n (Σ_k q_{n,k} = 1), the labels among them, and refuted at a label;
   the laws of 3 are those of these losses;
3. when T is linear, Tθ = Mθ with M a monomial matrix (scalings and permutations), the laws it
   implies: ∇L(Tθ) = M^{-T}∇L(θ) and H(Tθ) = M^{-T}H(θ)M^{-1}, at every θ off the kink set.
   They are checked, not assumed, by the oracle of ``symbolic.networks.derivative_laws`` that the
   kernel runs (``symbolic.networks.activation_patterns`` for the exact part):
   - regularity transport: each nonlinearity's input at Tθ is a positive multiple of one at θ
     (for a max, all candidates by the same multiple), an exact identity, so T maps every
     activation region onto one region and the pattern σ at Tθ is σ∘π;
   - on a region the network is a polynomial in θ, x and the pattern indeterminates; with the
     loss a generic quadratic of the predictions (every 2-jet of every smooth loss) or the MSE,
     every gradient and Hessian entry is an exact Laurent-polynomial identity in the group
     parameters (python-flint), all patterns at once (the cross-entropy, a smooth loss of the
     predictions, has its 2-jets among the generic quadratic's);
   - the independent witness: the real loss (max, not the pattern) differentiated by mpmath.diff
     at random rational points off the kinks, at 50 and 80 digits;
   - where regularity transport fails (a sign flip through abs), the chain rule from the proved
     L(Tθ) = L(θ) for the linear T, with the same witness (``derivative_law``).
"""
from __future__ import annotations

import dataclasses
import html
import json
import random
from dataclasses import dataclass, field

import sympy as sp

from symbolic.networks.activation_patterns import nonlinear_sites
from symbolic.symmetries import layer_transport
from symbolic.symmetries.diagnosis import diagnosis_text, smallest_witness
from symbolic.decision.budget import BudgetExhausted, time_budget
from symbolic.derivation import Derivation
from symbolic.kernel import by_oracle, conjunction, infer, refutation
from symbolic.checks import identity
from symbolic.logic.statements import Equation
from symbolic.latex import render, to_latex
from symbolic.networks.derivative_laws import REAL_LOSS, _as_sympy, _group_value, _law_names, law_statement
from symbolic.networks.losses import deciding_labellings
from symbolic.networks.maps import Symmetry
from symbolic.networks.model import Model
from symbolic.report import counted
from symbolic.kernel.verdict import Status, Verdict, worst
from symbolic.decision.witness import compare_at, substitute_functions
# the map's and the deciding part's public names, importable from here as before
from symbolic.networks.derivative_laws import KINK_MARGIN, LOSS_CONSTANT, WITNESS_POINTS  # noqa: F401
from symbolic.networks.derivative_laws import decide_derivative_law, jet_loss, real_loss  # noqa: F401
from symbolic.networks.maps import linear_matrix, permutation_matrix, positive_scales  # noqa: F401
from symbolic.networks.loss_claims import loss_sides, plain_names, target_distributions
from symbolic.trusted.oracles.networks import DERIVATIVE_LAW
from symbolic.trusted.schemes.linear_maps import CHAIN_RULE_OF_A_LINEAR_MAP

LOSSES = ("any", "mse", "cross_entropy")
KINK_POINTS = 3
BATCH = 2               # the batch of the prediction claim of a model that normalises over its batch


# --- prediction and loss ------------------------------------------------------------------------

def _kink_points(model, symmetry, rng) -> list[dict]:
    """Random rational points where the first nonlinearity's input is exactly zero (for a max:
    two candidates tie), found by solving for one input coordinate."""
    if model.batch_dependent:
        return []               # the sites of one example are not those of a batch
    sites = nonlinear_sites(model)
    if not sites:
        return []
    _, candidates = next(iter(sites.values()))
    kink = candidates[0] if len(candidates) == 1 else candidates[0] - candidates[1]
    inputs = [s for row in model.input() for s in row]
    points = []
    for _ in range(KINK_POINTS * 4):
        point = {p: sp.Rational(rng.randint(-99, 99) or 1, rng.randint(1, 9)) for p in model.parameters}
        point.update({g: _as_sympy(_group_value(g, rng)) for g in symmetry.group})
        point.update({s: sp.Rational(rng.randint(-99, 99), rng.randint(1, 9)) for s in inputs})
        free = next((s for s in inputs if s in kink.free_symbols), None)
        if free is None:
            break
        rest = {s: v for s, v in point.items() if s != free}
        line = sp.expand(kink.xreplace(rest))
        slope = line.coeff(free, 1)
        if not (slope.is_Rational and slope != 0 and sp.expand(line - slope * free).is_Rational):
            continue
        point[free] = -sp.expand(line - slope * free) / slope
        points.append(point)
        if len(points) == KINK_POINTS:
            break
    return points


def sides_at(lhs, rhs, witness: dict) -> str:
    """'lhs = A, rhs = B' at a witness (undefined functions replaced by the witness's bodies)."""
    functions = {k: v for k, v in witness.items() if isinstance(k, sp.FunctionClass)}
    point = {k: v for k, v in witness.items() if isinstance(k, sp.Symbol)}
    values = []
    for side in (lhs, rhs):
        value = substitute_functions(sp.sympify(side), functions).xreplace(point)
        values.append(value if value.is_Rational else sp.N(value, 20))
    return f"{values[0]} against {values[1]}"


def _check_identity(lhs, rhs, claim: str, seed: int) -> Verdict:
    """The kernel's exact identity test on the sides with plain symbol names (``plain_names``),
    a witness named back in the original symbols."""
    plain = plain_names(lhs, rhs)
    verdict = identity(sp.sympify(lhs).xreplace(plain), sp.sympify(rhs).xreplace(plain), label=claim, seed=seed)
    if not verdict.witness:
        return verdict
    back = {p: s for s, p in plain.items()}
    witness = {back.get(k, k): v for k, v in verdict.witness.items()}
    return dataclasses.replace(verdict, witness=witness)


def prediction_invariance(model, symmetry, seed=0, diagnose: bool = True) -> Verdict:
    """f_{Tθ}(x) = f_θ(x) for symbolic θ, x and group parameters, kinks included.  With K > 1
    outputs, one identity per output f_k, combined by the kernel's conjunction.  A refutation
    (``diagnose``) comes with its smallest witness and the tensor whose image breaks the law
    (``symbolic.symmetries.diagnosis``)."""
    if model.batch_dependent:
        # a layer normalises over the batch: the predictions of a batch of BATCH inputs, point by
        # point, output by output
        batch = [model.input(k + 1) for k in range(BATCH)]
        images, originals = ([p for outputs in model.batch_predictions(batch, values) for p in outputs]
                             for values in (symmetry.tensors(), None))
        claim = (f"prediction: f_({symmetry.name} theta)(x_n; x_1, ..., x_{BATCH}) = "
                 f"f_theta(x_n; x_1, ..., x_{BATCH}) at every batch of {BATCH} inputs")
        latex = r"f_{%s\theta}(x_n; x_1, \dots, x_%d) = f_\theta(x_n; x_1, \dots, x_%d)\quad\forall x" % (
            symmetry.name, BATCH, BATCH)
    else:
        x = model.input()
        images, originals = model.predictions(x, symmetry.tensors()), model.predictions(x)
        claim = f"prediction: f_({symmetry.name} theta)(x) = f_theta(x) at every x"
        latex = r"f_{%s\theta}(x) = f_\theta(x)\quad\forall x" % symmetry.name
    several = len(images) > 1
    # a prediction with more kinks than the identity test rewrites: layer by layer, when T rescales
    # every value of every layer (``symbolic.symmetries.layer_transport``); else, or if that fails, as written
    identities = layer_transport.prediction_by_layers(model, symmetry, images, originals, seed) or []
    for k, (lhs, rhs) in enumerate(zip(images, originals) if not identities else (), start=1):
        # each output's identity; a refuted one names its output
        label = f"prediction, output {k}: f_{k}({symmetry.name} theta)(x) = f_{k}(theta)(x) at every x" \
            if several else claim
        verdict = _check_identity(lhs, rhs, label, seed)
        if verdict.status is Status.REFUTED:
            name = f"f_{k}(T theta)(x)" if several else "f_(T theta)(x)"
            verdict = _smallest(verdict, lhs, rhs, symmetry) if diagnose else verdict
            broken = diagnosis_text(model, symmetry, lambda m, t: prediction_invariance(m, t, seed, diagnose=False)) \
                if diagnose else ""
            return _with(verdict, latex, reason=f"{verdict.reason}: {name} = "
                                                f"{sides_at(lhs, rhs, verdict.witness)}"
                                                f"{_cancelled(symmetry, lhs, rhs)}"
                                                + (f"; {broken}" if broken else ""),
                         details={"breaks": broken} if broken else None)
        if verdict.status is not Status.PROVED:
            return _with(verdict, latex)
        identities.append(verdict)
    verdict = identities[0] if not several else conjunction(
        identities, label=claim, evidence=(f"one exact identity per output, {len(identities)} outputs",
                                           *identities[0].evidence))
    rng = random.Random(seed)
    points = _kink_points(model, symmetry, rng)
    for point in points:
        # names outside θ, x and the group (a leaky slope written as a name) get a value too
        others = set().union(*(sp.sympify(e).free_symbols for e in (*images, *originals))) - set(point)
        point.update({s: sp.Rational(rng.randint(1, 99), rng.randint(1, 9))
                      for s in sorted(others, key=sp.default_sort_key)})
        for k, (lhs, rhs) in enumerate(zip(images, originals), start=1):
            if compare_at(lhs, rhs, point).differ:
                name = f"f_{k}(T theta)(x)" if several else "f_(T theta)(x)"
                return Verdict(Status.REFUTED, claim, witness=point, details={"latex": latex},
                               reason=f"the predictions differ at a kink: {name} = "
                                      f"{sides_at(lhs, rhs, point)}")
    kinks = (f"agrees exactly at {counted(len(points), 'point')} where the input of the first nonlinearity "
             "is exactly at its kink" if points else
             "no point on a kink was constructed" if nonlinear_sites(model) else
             "the model has no nonlinearity, hence no kink")
    return conjunction([verdict], label=claim, evidence=(*verdict.evidence, kinks), details={"latex": latex})


def _cancelled(symmetry, lhs, rhs) -> str:
    """'; c_{1} cancels ...' for the group parameters that appear on neither side (the witness has
    no value for them: the sides differ there at every value of them), else ''."""
    present = sp.sympify(lhs).free_symbols | sp.sympify(rhs).free_symbols
    absent = [str(g) for g in symmetry.group if g not in present]
    if not absent:
        return ""
    verb = "cancels" if len(absent) == 1 else "cancel"
    return (f"; the group parameter{'s' if len(absent) > 1 else ''} {', '.join(absent)} {verb} "
            "from both sides, so the witness holds at every value of "
            + ("it" if len(absent) == 1 else "them"))


def _with(verdict: Verdict, latex: str, reason: str | None = None, details: dict | None = None) -> Verdict:
    return dataclasses.replace(verdict, reason=verdict.reason if reason is None else reason,
                               details={**verdict.details, "latex": latex, **(details or {})})


def _smallest(verdict: Verdict, lhs, rhs, symmetry) -> Verdict:
    """The refutation at its smallest witness (``smallest_witness``, confirmed by the kernel), or as it was."""
    point = smallest_witness(lhs, rhs, verdict.witness, symmetry)
    if point is None:
        return verdict
    reason = verdict.reason.replace("a random point separates", "a point separates")
    return dataclasses.replace(verdict, witness=point, reason=(
        f"{reason} (a random one made small, value by value, and confirmed exactly by the kernel)"))


def loss_invariance(model, symmetry, n, loss, seed=0) -> Verdict:
    """L(Tθ) = L(θ) for an undefined ℓ of the K·N predictions ("any"), the MSE ("mse") or the
    softmax cross-entropy ("cross_entropy", refuted at class labels: ``_refuted_at_labels``)."""
    lhs, rhs, what, math = loss_sides(model, symmetry, n, loss)
    claim = f"loss: L({symmetry.name} theta) = L(theta), {what}, N={n}"
    latex = r"L(%s\theta) = L(\theta),\ L = %s,\ N = %d" % (symmetry.name, math, n)
    verdict = _check_identity(lhs, rhs, claim, seed)
    if verdict.status is Status.REFUTED and loss == "cross_entropy":
        return _with(_refuted_at_labels(model, symmetry, n, lhs, rhs, verdict, claim), latex)
    if verdict.status is Status.REFUTED:
        verdict = _smallest(verdict, lhs, rhs, symmetry)
        return _with(verdict, latex, reason=f"{verdict.reason}: L(T theta) = "
                                            f"{sides_at(lhs, rhs, verdict.witness)}"
                                            f"{_cancelled(symmetry, lhs, rhs)}")
    return _with(verdict, latex)


def _refuted_at_labels(model, symmetry, n, lhs, rhs, verdict, claim) -> Verdict:
    """The cross-entropy claim, refuted at target weights q, refuted at class labels: at the
    witness's θ, x and group values, L(Tθ) − L(θ) is affine in the free q_{n,k}, so, non-zero at
    one q, it is non-zero at one of the 1 + N(K−1) labellings 'every label 0' and 'the label of
    one point changed to k' (were it 0 at these, its constant and every coefficient would be 0).
    Each is tried in turn; the labelled equation is evaluated again by the kernel, exactly."""
    classes = model.outputs
    weights = {q for target in target_distributions(n, classes) for q in target[:-1]}
    point = {s: sp.sympify(v) for s, v in verdict.witness.items() if isinstance(s, sp.Symbol) and s not in weights}
    for labels in deciding_labellings(n, classes):
        # the one-hot targets of these labels: q_{n,k} = [k = y_n] for k < K
        one_hot = {sp.Symbol(f"q_{{{m + 1},{k}}}", real=True): int(label == k - 1)
                   for m, label in enumerate(labels) for k in range(1, classes)}
        labelled = Equation(sp.sympify(lhs).xreplace(one_hot), sp.sympify(rhs).xreplace(one_hot))
        if refutation(labelled, point).status is Status.PROVED:
            named = {sp.Symbol(f"y_{{{m + 1}}}", integer=True): label for m, label in enumerate(labels)}
            return Verdict(Status.REFUTED, claim, witness={**point, **named}, residual=verdict.residual,
                           reason=f"at the labels {', '.join(f'{k} = {v}' for k, v in named.items())} "
                                  f"(classes from 0), evaluated again exactly: L(T theta) = "
                                  f"{sides_at(labelled.lhs, labelled.rhs, point)}"
                                  f"{_cancelled(symmetry, labelled.lhs, labelled.rhs)}")
    return Verdict(Status.UNDECIDED, claim, reason=f"refuted at target weights that are no labels ({verdict.reason}), "
                                                   "and at none of the labellings tried")


def derivative_law(model, symmetry, n, loss, order, seed=0, loss_verdict=None) -> Verdict:
    """The gradient (order 1) or Hessian (order 2) law at N data points, at every θ off the kink
    set: regularity transport, the exact identity on the pattern form, and the mpmath witness.

    Where regularity transport or the pattern form fails (a sign flip through abs maps s to −s),
    the chain rule gives the law from ``loss_verdict``, the verdict of L(Tθ) = L(θ) for the
    same loss and N: when it is PROVED at every θ and Tθ = Mθ with M an invertible (monomial)
    matrix, differentiating L(Mθ) = L(θ) gives Mᵀ∇L(Mθ) = ∇L(θ) and MᵀH(Mθ)M = H(θ) wherever L
    is differentiable (at θ exactly when at Mθ); the mpmath witness is still required."""
    _, claim, latex = _law_names(symmetry, n, loss, order)
    verdict = by_oracle(DERIVATIVE_LAW, law_statement(model, symmetry, n, loss, order),
                        label=claim, seed=seed)
    if "no exact route" in verdict.details and loss_verdict is not None and loss_verdict.status is Status.PROVED:
        # the chain rule for the linear map T, from the proved L∘T = L
        law = "M^T grad L(M theta) = grad L(theta)" if order == 1 else "M^T H(M theta) M = H(theta)"
        chained = infer(CHAIN_RULE_OF_A_LINEAR_MAP, [loss_verdict], label=claim, evidence=(
            f"chain rule: L(T theta) = L(theta) is proved at every theta (the loss claim, N={n}) and "
            f"T theta = M theta is linear with M an invertible matrix, so differentiating gives "
            f"{law} wherever L is differentiable", f"the pattern route did not apply: {verdict.reason}"),
            details={"latex": latex}, model=model, symmetry=symmetry, n=n, loss=loss, order=order, seed=seed)
        verdict = chained if chained.status is Status.PROVED else Verdict(
            Status.UNDECIDED, claim, residual=verdict.residual, details=verdict.details,
            reason=f"L(T theta) = L(theta) is proved, but the chain rule for the linear map is not established "
                   f"here ({chained.reason}): the evidence disagrees")
    if verdict.witness:
        # the witness names the loss's constants; say which loss they belong to
        verdict = _with(verdict, latex, reason=f"{verdict.reason}; real loss: {REAL_LOSS[loss]}")
    return _with(verdict, latex)


# --- the report -------------------------------------------------------------------------------

@dataclass
class SymmetryReport:
    """One row per claim and size: (claim name, N or None, Verdict)."""

    model: Model
    symmetry: Symmetry
    rows: list = field(default_factory=list)

    @property
    def status(self) -> Status:
        return worst(v for _, _, v in self.rows)

    def verdict(self, claim: str, n: int | None = None) -> Verdict:
        """The verdict of one claim ('prediction', 'loss', 'gradient', 'Hessian'); with several
        sizes and no n, the worst of them."""
        matching = [v for c, size, v in self.rows if c == claim and (n is None or size == n)]
        if not matching:
            raise KeyError(f"no claim {claim!r}" + (f" at N={n}" if n is not None else ""))
        rank = {Status.REFUTED: 0, Status.UNDECIDED: 1, Status.PROVED: 2}
        return min(matching, key=lambda v: rank[v.status])

    def __getitem__(self, claim: str) -> Verdict:
        return self.verdict(claim)

    def table(self) -> str:
        header = ("claim", "N", "verdict", "detail")
        # a refuted claim's detail: what breaks it where that is known, else its reason
        lines = [(claim, "-" if n is None else str(n), v.status.name,
                  _shorten(v.evidence[0] if v.status is Status.PROVED and v.evidence else
                           v.details.get("breaks") or v.reason))
                 for claim, n, v in self.rows]
        widths = [max(len(str(x)) for x in column) for column in zip(header, *lines)]
        out = ["  ".join(str(x).ljust(w) for x, w in zip(line, widths)).rstrip()
               for line in [header, tuple("-" * w for w in widths), *lines]]
        # below the table, in full: each refuted claim's witness, each undecided claim's reason
        for claim, n, v in self.rows:
            if v.witness or v.status is Status.UNDECIDED:
                out.append(f"\n{v.status.name} {claim}" + (f" (N={n})" if n else "") + f": {v.reason}")
            if v.witness:
                out.append("  witness: " + ", ".join(f"{k} = {x}" for k, x in v.witness.items()))
        out.append(f"\noverall: {self.status.name}")
        breaks = self.breaks
        if breaks:
            out.append(f"what breaks it: {breaks}")
        return "\n".join(out)

    @property
    def breaks(self) -> str:
        """What breaks a refuted symmetry: the tensor whose image breaks the law, with the repaired
        map under which the prediction is PROVED ('' when it is not known)."""
        return next((v.details["breaks"] for _, _, v in self.rows if v.details.get("breaks")), "")

    __str__ = table

    def as_json(self) -> dict:
        return {"model": repr(self.model), "status": self.status.value, "breaks": self.breaks or None,
                "claims": [{"claim": claim, "N": n, "status": v.status.value, "statement": v.claim,
                            "witness": {str(k): str(x) for k, x in v.witness.items()} if v.witness else None,
                            "reason": v.reason or None, "evidence": list(v.evidence),
                            "residual": v.residual} for claim, n, v in self.rows]}

    def to_json(self) -> str:
        return json.dumps(self.as_json(), indent=1)

    def derivation(self) -> Derivation:
        name = self.symmetry.name
        derivation = Derivation(
            name="symmetry", title=f"Is {name} a symmetry of the model?",
            source="check_symmetry, for a user's own model and map",
            statement=(r"For every $\theta$ and every admissible value of the group parameters, "
                       r"$f_{%s\theta} = f_\theta$ at every input, kinks included; hence "
                       r"$L(%s\theta) = L(\theta)$ for every loss of the predictions; and, $%s$ being "
                       r"linear with matrix $M$, $\nabla L(%s\theta) = M^{-T}\nabla L(\theta)$ and "
                       r"$H_L(%s\theta) = M^{-T}H_L(\theta)M^{-1}$ at every $\theta$ off the kink "
                       r"set (no nonlinearity at its kink on the data).") % ((name,) * 5),
            definitions=[r"Model: $%s$." % self.model.latex(),
                         r"Map: $%s$." % self.symmetry.latex(),
                         r"Group parameters: $%s$." % (", ".join(
                             to_latex(g) + (r" > 0" if g.is_positive else r" \in \mathbb{R}")
                             for g in self.symmetry.group) or r"\text{none}")])
        for claim in dict.fromkeys(c for c, _, _ in self.rows):
            verdicts = [v for c, _, v in self.rows if c == claim]
            sizes = [(None, None, n) for c, n, _ in self.rows if c == claim]
            derivation.add(verdicts, _REASONS.get(claim, claim), sizes)
        derivation.sizes = [(None, None, n) for _, n, _ in self.rows if n is not None]
        derivation.notes.append(
            r"The laws are checked on the open activation regions, where $L$ is a polynomial. At a "
            r"kink where $L$ happens to be twice differentiable they follow from $L\circ T = L$ and "
            r"the chain rule for the linear map $T$; that argument is logical glue here, not checked.")
        derivation.notes.append(
            r"$N$ is the number of data points; the architecture is fixed by the model.")
        if self.breaks:
            # what breaks a refuted map, as the text and JSON say it
            derivation.notes.append(r"What breaks it: \texttt{%s}." % _latex_text(self.breaks))
        return derivation

    def latex(self) -> str:
        """A standalone LaTeX document: the derivation, a step per claim."""
        return render(self.derivation())

    def _repr_latex_(self) -> str:
        rows = [r"%s & \textbf{%s}" % (v.claim_latex(), v.status.name) for _, _, v in self.rows]
        body = r"\\ ".join(rows + [r"\textbf{overall} & \textbf{%s}" % self.status.name])
        # every refuted claim's witness, as display lines that fit the page
        witnesses = [r" \\ ".join([r"\text{witness (%s%s):}" % (claim, "" if n is None else f", N = {n}"),
                                    *v.witness_lines()])
                     for claim, n, v in self.rows if v.witness]
        return r"$$\begin{array}{ll} %s \end{array}$$" % body + "".join(
            r"$$\begin{gathered} %s \end{gathered}$$" % w for w in witnesses)

    def _repr_html_(self) -> str:
        cells = ["<tr><td>%s</td><td>%s</td></tr>" % (
            html.escape(claim) + ("" if n is None else f" (N={n})"), v._repr_html_())
            for claim, n, v in self.rows]
        return ("<table><tr><th>claim</th><th>verdict</th></tr>%s</table>"
                "<p>overall: <b>%s</b></p>" % ("".join(cells), self.status.name))


_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "_": r"\_", "^": r"\^{}", "&": r"\&",
                  "%": r"\%", "$": r"\$", "#": r"\#", "~": r"\~{}"}


def _latex_text(text: str) -> str:
    """Text set in LaTeX: its special characters escaped, each once."""
    return "".join(_LATEX_SPECIAL.get(character, character) for character in text)


def _shorten(text: str, width: int = 72) -> str:
    return text if len(text) <= width else text[: width - 3].rsplit(" ", 1)[0] + " ..."


_REASONS = {
    "prediction": "exact zero test of the canonical ReLU form with a sign split where needed, "
                  "random rational points, and exact agreement on the kink set",
    "loss": "the same for the loss of $N$ symbolic inputs; an arbitrary $\\ell$ is refuted by a "
            "concrete one",
    "gradient": "regularity transport, then an exact Laurent-polynomial identity of every entry "
                "on the pattern form (or, where transport fails, the chain rule from the proved "
                "$L \\circ T = L$), with mpmath.diff on the real loss as witness",
    "Hessian": "regularity transport, then an exact Laurent-polynomial identity of every entry "
               "$k \\le l$ on the pattern form (or, where transport fails, the chain rule from "
               "the proved $L \\circ T = L$), with mpmath.diff on the real loss as witness",
}


def check_symmetry(model: Model, symmetry: Symmetry = None, *, loss: str = "any", sizes=(1, 2),
                   seed: int = 0, timeout: float | None = None) -> SymmetryReport:
    """Check that ``symmetry`` leaves the prediction and the loss unchanged, and the gradient and
    Hessian laws it implies when it is linear, for N data points, N in ``sizes``.

    Returns a SymmetryReport; each claim is PROVED, REFUTED (with a witness: the parameter,
    group and input values where the two sides differ) or UNDECIDED (with the reason).  A claim
    whose time budget (``timeout`` seconds, per claim) runs out is UNDECIDED.

    ``sizes="all"``: ``model`` is the spec (the TOML table as a dict, widths may be names) and the
    laws are proved for every N and for every value of each width the spec names, at the widths its
    numbers fix (``symbolic.every_size.spec_symmetry``)."""
    if isinstance(sizes, str) and sizes == "all":
        from symbolic.every_size.spec_symmetry import check_all_sizes
        return check_all_sizes(model, lambda concrete, images, loss: _concrete_laws(concrete, images, loss, seed,
                                                                                  timeout))
    if loss not in LOSSES:
        raise ValueError(f"unknown loss {loss!r}; choose from {', '.join(LOSSES)}")
    if loss == "cross_entropy" and model.outputs < 2:
        raise ValueError("the cross-entropy needs K >= 2 outputs (with one, log exp f - f = 0): "
                         "choose the loss 'any' or 'mse'")
    if symmetry.model is not model:
        raise ValueError("the symmetry was built for another model")
    sizes = list(dict.fromkeys(sizes))
    for n in sizes:
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ValueError(f"sizes are numbers of data points N >= 1, got {n!r}")
        if n < 2 and model.batch_dependent:
            raise ValueError(f"the model normalises over its batch of N data points (a batch of one has "
                             f"no spread): sizes are N >= 2, got {n!r}")
    report = SymmetryReport(model, symmetry)

    def record(claim, n, check, statement):
        try:
            with time_budget(timeout):
                verdict = check()
        except BudgetExhausted:
            verdict = Verdict(Status.UNDECIDED, statement, reason=f"time budget of {timeout} s ran out")
        report.rows.append((claim, n, verdict))

    record("prediction", None, lambda: prediction_invariance(model, symmetry, seed), "prediction")
    for n in sizes:
        record("loss", n, lambda n=n: loss_invariance(model, symmetry, n, loss, seed), "loss")
    if symmetry.is_linear():
        for order, claim in ((1, "gradient"), (2, "Hessian")):
            for n in sizes:
                record(claim, n, lambda n=n, order=order: derivative_law(
                    model, symmetry, n, loss, order, seed, report.verdict("loss", n)),
                    f"{claim} law")
    return report


def _concrete_laws(model: Model, images: dict, loss: str, seed: int, timeout) -> dict:
    """The gradient and Hessian laws of a concrete instance for the loss, N = 1, by claim."""
    report = check_symmetry(model, Symmetry(model, images), loss=loss, sizes=(1,), seed=seed, timeout=timeout)
    return {claim: report.verdict(claim) for claim in ("gradient", "Hessian") if any(c == claim for c, _, _ in report.rows)}
