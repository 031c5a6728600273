"""Biases (Dinh et al. 2017, Definition 3 and Appendix B): Theorems 1 and 3 with a bias in every
layer of a deep rectifier network.

With θ_k ↦ α_k θ_k (∏_k α_k = 1), each bias is scaled like the pre-activation it is added to:
b_k ↦ (∏_{j≤k} α_j) b_k.  The output bias is scaled by ∏_{j≤K} α_j = 1, so it stays fixed.

  1. the output bias's factor ∏_{j≤K} α_j is exactly 1                          (exact identity)
  2. layer by layer, the pre-activation of layer k is scaled by ∏_{j≤k} α_j > 0, which ReLU lets
     through (positive homogeneity): f_{T_αθ} = f_θ at every input, kinks included  (Theorem 1,
     check_identity on the real network with max)
  3. hence L∘T_α = L for every loss of the predictions                          (glue)
  4. Theorem 3 with biases: ∇L(T_αθ) = D_α∇L(θ), H(T_αθ) = D_α H(θ) D_α with D_α = α_k⁻¹ on θ_k and
     (∏_{j≤k} α_j)⁻¹ on b_k: exact on the pattern form (MSE, symbolic data), every entry, with an
     mpmath witness on the real network; the one-hidden-layer case through Theorem 3's own check.
Negative controls: a hidden bias left unscaled, and the output bias scaled like a weight.
"""
from __future__ import annotations



import sympy as sp

from symbolic import Verdict, check_identity
from symbolic.kernel import by_oracle, infer
from symbolic.trusted.schemes.functionals import EQUAL_FUNCTIONALS
from symbolic.decision.budget import within_budget
from symbolic.networks.deep import DeepNet
from symbolic.networks.deep_congruence import WITNESS_POINTS, bias_factors, congruence, cumulative, layer_scales  # noqa: F401
from symbolic.derivation import Derivation, add_chain, induction_hypotheses
from symbolic.every_size.layers import layers_theorem
from symbolic.every_size.networks import DEEP_BIAS

from proofs import theorem3_derivative_transformation as theorem3
from symbolic.report import Report
from symbolic.trusted.oracles.networks import DEEP_CONGRUENCE

NAME = "biases"
TITLE = "Biases (Appendix B): Theorems 1 and 3 with a bias in every layer"
SOURCE = ("Dinh, Pascanu, Bengio and Bengio, Sharp Minima Can Generalize For Deep Nets, ICML 2017, "
          "Definition 3 (biases excluded for convenience) and Appendix B")
DEFAULT_SIZES = (2, 2, 2)
LARGEST_SIZES = (6, 6, 6)
DEEP_PREDICTION_WIDTHS = ((1, 2, 1), (2, 2, 2, 1), (1, 2, 2, 2, 1))
DEEP_CONGRUENCE_CASES = (((1, 2, 2, 1), 1), ((2, 2, 2, 1), 2), ((1, 1, 1, 1, 1), 2), ((1, 2, 2, 2, 1), 1))


def output_bias_fixed(depth: int) -> Verdict:
    """Step 1: ∏_{j≤K} α_j = 1 exactly."""
    claim = f"output bias factor prod_(j<=K) alpha_j = 1, K={depth}"
    # the product as written (multiplied out, sympy would make it 1 and the statement 1 = 1)
    return check_identity(sp.Mul(*layer_scales(depth), evaluate=False), sp.S.One, claim=claim)


CONTROLS = {"unscaled hidden bias": "the first hidden layer's bias left unscaled",
            "output bias scaled like its weight": "b_K scaled by alpha_K instead of 1"}


def prediction_invariance(widths, control: str | None = None, seed: int = 0) -> Verdict:
    """Step 2: f_{T_αθ}(x) = f_θ(x) for symbolic x, weights, biases and α (real ReLU, max)."""
    net = DeepNet(tuple(widths), bias=True)
    scales = layer_scales(net.depth)
    weights, biases = net.rescaled(scales, bias_factors(net.depth, scales, control))
    x = net.input()
    label = control or "b_k scaled by prod_(j<=k) alpha_j"
    return check_identity(net.prediction(x, weights, biases), net.prediction(x), seed=seed,
                          claim=f"f_(T_alpha theta) = f_theta with biases ({label}), widths {tuple(widths)}")


def deep_congruence(widths, n: int = 1, control: str | None = None, seed: int = 0,
                    bias: bool = True) -> Verdict:
    """Step 4: gradient and Hessian identities with biases, exact on the pattern form (Laurent
    polynomials in the α_k), with an mpmath witness on the real network, by the oracle the kernel
    runs on the statement (``symbolic.networks.deep_congruence``).  ``bias=False`` is the
    multi-layer Theorem 3 itself (§4.2)."""
    label = (control or "b_k scaled by prod_(j<=k) alpha_j") if bias else "no biases"
    claim = f"grad and Hessian congruence ({label}), widths {tuple(widths)}, N={n}"
    return by_oracle(DEEP_CONGRUENCE, congruence(widths, n, control, bias), label=claim, seed=seed)


def functional_invariance(prediction: Verdict, widths) -> Verdict:
    """L(T_αθ) = L(θ) for L = ℓ(f_θ), every functional ℓ: the conclusion the scheme computes from the
    prediction identity."""
    return infer(EQUAL_FUNCTIONALS, [prediction], inputs=tuple(DeepNet(tuple(widths), bias=True).input()),
                 label=f"l(f_(T_alpha theta)) = l(f_theta) with biases, widths {tuple(widths)}")


def derivation_skeleton() -> Derivation:
    return Derivation(
        name=NAME, title=TITLE, source=SOURCE,
        statement=(r"For a deep rectifier network with a bias $b_k$ in every layer and $\alpha_k > 0$, "
                   r"$\prod_k \alpha_k = 1$, the map $T_\alpha: \theta_k \mapsto \alpha_k\theta_k$, "
                   r"$b_k \mapsto \bigl(\prod_{j \le k}\alpha_j\bigr) b_k$ keeps the function, the loss "
                   r"(Theorem 1), and transforms the gradient and the Hessian by $D_\alpha$ (Theorem 3); "
                   r"the output bias is fixed."),
        definitions=[
            r"$z_k = \operatorname{ReLU}(z_{k-1})\,\theta_k + b_k$, $z_0 = x$, no ReLU on the output "
            r"$z_K$.",
            r"$D_\alpha$: $\alpha_k^{-1}$ on $\theta_k$ and $\bigl(\prod_{j\le k}\alpha_j\bigr)^{-1}$ "
            r"on $b_k$.",
        ])


def run(sizes, seed=0, timeout=None) -> Report:
    derivation = derivation_skeleton()
    report = Report(derivation)

    def record(claim, size, check):
        return report.record(NAME, claim, size, lambda: within_budget(check, timeout, claim))
    depths = sorted({len(w) - 1 for w in DEEP_PREDICTION_WIDTHS})
    output = [record("output bias: prod_(j<=K) alpha_j = 1", (None, None, None),
                            lambda K=K: output_bias_fixed(K)) for K in depths]
    prediction = [record("f_(T_alpha theta) = f_theta with biases", (None, None, None),
                                lambda w=w: prediction_invariance(w, seed=seed))
                  for w in DEEP_PREDICTION_WIDTHS]
    single = [record("one hidden layer: Hessian congruence with b scaled by alpha", size,
                            lambda size=size: theorem3.check(
                                *size, "mse", 2, theorem3.VARIANTS["bias scaled with its layer"],
                                seed=seed, timeout=timeout))
              for size in sizes]
    deep = [record("deep: gradient and Hessian congruence with biases", (None, None, n),
                          lambda w=w, n=n: deep_congruence(w, n, seed=seed))
            for w, n in DEEP_CONGRUENCE_CASES]
    derivation.add(output, "the output bias keeps its value, $\\prod_{j \\le K} \\alpha_j = 1$: exact identity, $K = %s$"
                   % ", ".join(map(str, depths)))
    # the layers at T_alpha theta for every depth: the kernel's induction on the layer, then its step
    layers, _ = layers_theorem(DEEP_BIAS)
    derivation.add([layers], r"every layer $k \ge 0$ of a network of any depth and widths, with a bias per layer: the "
                   r"layer at $T_\alpha\theta$ is $P_k = \prod_{j \le k}\alpha_j$ times the layer at $\theta$, by the "
                   r"kernel's induction on $k$ (its base and its step, below, checked chains)")
    step, hypotheses = induction_hypotheses(layers)
    if step is not None:
        add_chain(derivation, step, r"the induction step, for $k + 1 < K$: $\operatorname{ReLU}(c z) = "
                  r"c\operatorname{ReLU}(z)$ for $c > 0$, $\theta_{k+1}$ brings $\alpha_{k+1}$ and $b_{k+1}$ carries "
                  r"$P_{k+1}$; each line under the hypothesis $S(k)$ where it uses it", hypotheses)
    derivation.add(prediction, "$f_{T_\\alpha\\theta}(x) = f_\\theta(x)$: exact identity for symbolic $x$, weights, biases and "
                   "$\\alpha$ on the real network (ReLU as $\\max$, kinks included); widths "
                   + ", ".join(str(w) for w in DEEP_PREDICTION_WIDTHS))
    # equal functions give equal values of any functional: L = ell(f) at T_alpha theta and at theta
    derivation.add([functional_invariance(verdict, widths) for verdict, widths in zip(prediction, DEEP_PREDICTION_WIDTHS)],
                   "Theorem 1 with biases: the functions $x \\mapsto f_{T_\\alpha\\theta}(x)$ and $x \\mapsto "
                   "f_\\theta(x)$ are equal (the line above, every real $x$), so a loss that sees the predictions "
                   "only, any functional $\\ell$ of $f$, takes the same value; the scheme computes the equation")
    derivation.add(single, "one hidden layer with bias $b \\mapsto \\alpha b$, $H_L(T_\\alpha\\theta) = D_\\alpha H_L(\\theta) "
                   "D_\\alpha$: Theorem 3's exact check on the pattern form with an mpmath witness", sizes)
    derivation.add(deep,
                   "deep networks, $\\nabla L(T_\\alpha\\theta) = D_\\alpha \\nabla L(\\theta)$ and "
                   "$H_L(T_\\alpha\\theta) = D_\\alpha H_L(\\theta) D_\\alpha$: exact identity on the pattern form, "
                   "every entry, with an mpmath witness on the real network; widths "
                   + ", ".join(str(w) for w, _ in DEEP_CONGRUENCE_CASES), [(None, None, n) for _, n in DEEP_CONGRUENCE_CASES])
    derivation.sizes = sizes
    derivation.notes.append(
        r"Negative controls (tests): a hidden bias left unscaled, and the output bias scaled like its "
        r"weight, change the function (a point where the two sides differ, re-evaluated exactly) "
        r"and break the gradient identity.")
    return report
