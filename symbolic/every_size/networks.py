"""The networks of the paper as index-level terms, and the maps T on their parameters, each
defined once.

One hidden layer: f_θ(x_n) = Σ_j ReLU(Σ_i x_ni W_ij) v_j and L(θ) = (1/N) Σ_n ℓ(f_θ(x_n), y_n);
T_α: W_ij ↦ α W_ij, v_j ↦ α⁻¹ v_j; per neuron: W_ij ↦ c_j W_ij, v_j ↦ c_j⁻¹ v_j.

Two layers with biases, f_θ(x_n) = Σ_j σ(Σ_i x_ni θ^{(1)}_ij + b^{(1)}_j) θ^{(2)}_j + b^{(2)}: a sign
per hidden unit through σ = |·|, and the hidden units permuted (σ = ReLU).

Deep: z^{(0)}_{nj} = x_nj, z^{(k+1)}_{nj} = ReLU(Σ_i z^{(k)}_{ni} θ^{(k+1)}_{ij} [+ b^{(k+1)}_j]),
f_θ(x_n) = Σ_i z^{(K-1)}_{ni} θ^{(K)}_i [+ b^{(K)}]; T: θ^{(p)} ↦ α_p θ^{(p)}, b^{(p)} ↦ P_p b^{(p)}
with P_p = α_1⋯α_p (Appendix B), under the hypothesis ∏_p α_p = 1; per neuron: θ^{(p)}_{ij} ↦
c^{(p)}_j θ^{(p)}_{ij} / c^{(p-1)}_i, b^{(p)}_j ↦ c^{(p)}_j b^{(p)}_j, c^{(0)} = 1, the output divided by
the last hidden layer's scales.  The layer definitions are
kernel definitions: what they say is what ``symbolic.networks.deep`` computes (trusted).
"""
from __future__ import annotations

import sympy as sp

from symbolic.logic.terms import Activation, Add, Const, Entry, Fn, Function, Mul, Relu, Sum, Transformation, \
    layer_text, permuted
from symbolic.kernel.derivations import definitions, hypothesis
from symbolic.networks.rescaling import ALPHA

N = sp.Symbol("N", positive=True, integer=True)
LAYER, DEPTH = sp.Symbol("k", integer=True), sp.Symbol("K", integer=True)
UNIT = sp.Symbol("j", integer=True)
C = sp.IndexedBase("c", positive=True)          # per-neuron scales c_j
A = sp.IndexedBase(r"\alpha", positive=True)    # layer scales α_k
P = sp.IndexedBase("P", positive=True)          # P_k = α_1 ⋯ α_k
NEURON_SCALE = sp.IndexedBase("c", positive=True)   # c^{(k)}_j = c[k, j], the scale of unit j of layer k
LOSS = r"\ell"


def x(i="i"):
    return Entry("x", ("n", i))


def prediction(bias=None):
    """f_θ(x_n) = Σ_j ReLU(Σ_i x_ni W_ij [+ b_j]) v_j."""
    inner = Sum("i", "d", Mul((x(), Entry("W", ("i", "j")))))
    if bias is not None:
        inner = Add((inner, bias))
    return Sum("j", "h", Mul((Relu(inner), Entry("v", ("j",)))))


def in_loss(term):
    """(1/N) Σ_n ℓ(term, y_n): the loss of the predictions, term being f(x_n)."""
    return Mul((Const(1 / N), Sum("n", "N", Fn(LOSS, (term, Entry("y", ("n",)))))))


def one_layer_map(name: str, w_scale: Const, v_scale: Const) -> Transformation:
    """W_ij ↦ w_scale·W_ij, v_j ↦ v_scale·v_j (the scales may depend on j)."""
    W, v = Entry("W", ("i", "j")), Entry("v", ("j",))
    return Transformation(name, ((W, Mul((w_scale, W))), (v, Mul((v_scale, v)))))


LOSS_FUNCTION = Function("L", in_loss(prediction()))
T_ALPHA = one_layer_map(r"T_\alpha", Const(ALPHA), Const(1 / ALPHA))
T_NEURON = one_layer_map("T_c", Const(C[UNIT]), Const(1 / C[UNIT]))

# two layers with biases and |·| in the hidden layer, and the sign of each hidden unit flipped or not:
# θ^{(1)}_ij ↦ σ_j θ^{(1)}_ij, b^{(1)}_j ↦ σ_j b^{(1)}_j with σ_j = (−1)^{e_j}, e_j an integer
SIGN_EXPONENT = sp.IndexedBase("e", integer=True)
HIDDEN_WEIGHT, HIDDEN_BIAS = Entry(r"\theta^{(1)}", ("i", "j")), Entry("b^{(1)}", ("j",))
OUTPUT_WEIGHT, OUTPUT_BIAS = Entry(r"\theta^{(2)}", ("j",)), Entry("b^{(2)}", ())


def two_layer_prediction(activation):
    """f_θ(x_n) = Σ_j σ(Σ_i x_ni θ^{(1)}_ij + b^{(1)}_j) θ^{(2)}_j + b^{(2)}, σ(s) = ``activation(s)``."""
    inner = Add((Sum("i", "h_{0}", Mul((x(), HIDDEN_WEIGHT))), HIDDEN_BIAS))
    return Add((Sum("j", "h_{1}", Mul((activation(inner), OUTPUT_WEIGHT))), OUTPUT_BIAS))


def absolute_value_prediction():
    """f_θ(x_n) = Σ_j |Σ_i x_ni θ^{(1)}_ij + b^{(1)}_j| θ^{(2)}_j + b^{(2)}."""
    return two_layer_prediction(lambda s: Activation("abs", None, s))


def relu_two_layer_prediction():
    """f_θ(x_n) = Σ_j ReLU(Σ_i x_ni θ^{(1)}_ij + b^{(1)}_j) θ^{(2)}_j + b^{(2)}."""
    return two_layer_prediction(Relu)


UNIT_SIGN = Const((-1) ** SIGN_EXPONENT[UNIT])
ABSOLUTE_LOSS_FUNCTION = Function("L", in_loss(absolute_value_prediction()))
# every parameter family listed, the output layer's with the scale 1 (the kernel's combinators read
# the coordinates from T's images)
T_SIGN = Transformation(r"T_\sigma", ((HIDDEN_WEIGHT, Mul((UNIT_SIGN, HIDDEN_WEIGHT))),
                                      (HIDDEN_BIAS, Mul((UNIT_SIGN, HIDDEN_BIAS))),
                                      (OUTPUT_WEIGHT, Mul((Const(sp.S.One), OUTPUT_WEIGHT))),
                                      (OUTPUT_BIAS, Mul((Const(sp.S.One), OUTPUT_BIAS)))))


class DeepNetwork:
    """A ReLU network of depth K and widths h_0 = d, h_1, …, h_{K-1}, one output, with or without a
    bias per layer; ``name`` is its layers' letter (z, u), so each variant has its own definitions.
    The map is layer-wise (Appendix B): unit j of layer k comes out of Tθ multiplied by P_k."""

    def __init__(self, name: str, bias: bool, bias_layer_offset: int = 0):
        self.name, self.bias = name, bias
        self.bias_layer_offset = bias_layer_offset
        layers = (LAYER, LAYER + 1, DEPTH - 1)
        self.T = Transformation("T", self.images(), ("p",),
                                tuple((self.layer(k, False).family, self.layer(k, True).family) for k in layers),
                                abbreviations=("P",))
        self.function = Function("L", in_loss(self.output()))
        k = LAYER
        # the layers at θ and at Tθ, each one name defined at layer 0 and at layer k + 1
        self.input_definition, self.layer_definition = definitions(f"{name}^(k) at theta", [
            (self.layer(0, False), x("j"), ("n", "j")), (self.layer(k + 1, False), self.unit(k, False), ("n", "j"))])
        self.input_definition_T, self.layer_definition_T = definitions(f"{name}^(k) at T theta", [
            (self.layer(0, True), x("j"), ("n", "j")), (self.layer(k + 1, True), self.unit(k, True), ("n", "j"))])

    def images(self) -> tuple:
        """T: θ^{(p)} ↦ α_p θ^{(p)}, b^{(p)} ↦ P_p b^{(p)} (an offset other than 0 is a wrong map, for
        the negative controls)."""
        p = sp.Symbol("p", integer=True)
        images = [(Entry(r"\theta^{(p)}", ("i", "j")), Mul((Const(A[p]), Entry(r"\theta^{(p)}", ("i", "j"))))),
                  (Entry(r"\theta^{(p)}", ("i",)), Mul((Const(A[p]), Entry(r"\theta^{(p)}", ("i",)))))]
        if self.bias:
            bias_scale = Const(P[p + self.bias_layer_offset])
            images += [(Entry("b^{(p)}", ("j",)), Mul((bias_scale, Entry("b^{(p)}", ("j",))))),
                       (Entry("b^{(p)}", ()), Mul((bias_scale, Entry("b^{(p)}", ()))))]
        return tuple(images)

    def unit_scale(self, k, unit: str) -> Const:
        """The factor of unit ``unit`` of layer k at Tθ: P_k."""
        return Const(P[k])

    @property
    def scale_definitions(self) -> tuple:
        """The definitions of the unit scales: at layer 0, and of layer k + 1 from layer k (or None)."""
        return P_START, P_NEXT

    def layer(self, k, at_T: bool, unit: str = "j") -> Entry:
        """z^{(k)}_{n,unit} at θ, \\tilde z^{(k)}_{n,unit} at Tθ."""
        return Entry((r"\tilde %s^{(%s)}" if at_T else r"%s^{(%s)}") % (self.name, layer_text(sp.sympify(k))), ("n", unit))

    def unit(self, k, at_T: bool):
        """ReLU(Σ_i z^{(k)}_{ni} θ^{(k+1)}_{ij} [+ b^{(k+1)}_j]), the unit j of layer k + 1 (at Tθ: T applied)."""
        weight = Entry(r"\theta^{(%s)}" % layer_text(k + 1), ("i", "j"))
        inner = Sum("i", "h_{%s}" % layer_text(k), Mul((self.layer(k, False, "i"), weight)))
        if self.bias:
            inner = Add((inner, Entry("b^{(%s)}" % layer_text(k + 1), ("j",))))
        return self.T.apply(Relu(inner)) if at_T else Relu(inner)

    def output(self):
        """f_θ(x_n) = Σ_i z^{(K-1)}_{ni} θ^{(K)}_i [+ b^{(K)}]."""
        last = DEPTH - 1
        total = Sum("i", "h_{%s}" % layer_text(last), Mul((self.layer(last, False, "i"), Entry(r"\theta^{(K)}", ("i",)))))
        return Add((total, Entry("b^{(K)}", ()))) if self.bias else total


# P_0 = 1, P_{k+1} = P_k α_{k+1}, P_K = P_{K-1} α_K; the hypothesis ∏ α = 1 as α_K = P_{K-1}⁻¹
P_START, P_NEXT, P_LAST = definitions("P_k = alpha_1 ... alpha_k", [
    (Const(P[0]), Const(sp.S.One), ()), (Const(P[LAYER + 1]), Const(P[LAYER] * A[LAYER + 1]), ()),
    (Const(P[DEPTH]), Const(P[DEPTH - 1] * A[DEPTH]), ())])
PRODUCT_ONE = hypothesis("prod_k alpha_k = 1, as alpha_K = 1/P_(K-1)", Const(A[DEPTH]), Const(1 / P[DEPTH - 1]))


class PerNeuronDeepNetwork(DeepNetwork):
    """The deep network under per-neuron rescaling: unit j of hidden layer k has its own scale
    c^{(k)}_j > 0, with c^{(0)} = 1 on the inputs; θ^{(p)}_{ij} ↦ c^{(p)}_j θ^{(p)}_{ij} / c^{(p-1)}_i,
    b^{(p)}_j ↦ c^{(p)}_j b^{(p)}_j, and the output layer divides by the last hidden layer's scales:
    θ^{(K)}_i ↦ θ^{(K)}_i / c^{(K-1)}_i, b^{(K)} fixed.  ``divide_incoming`` False is a wrong map
    (the weights not divided by the incoming unit's scale), for the negative controls."""

    def __init__(self, name: str, bias: bool, divide_incoming: bool = True):
        self.divide_incoming = divide_incoming
        super().__init__(name, bias)

    def images(self) -> tuple:
        p, i, j = (sp.Symbol(name, integer=True) for name in "pij")
        incoming = 1 / NEURON_SCALE[p - 1, i] if self.divide_incoming else sp.S.One
        weight, output = Entry(r"\theta^{(p)}", ("i", "j")), Entry(r"\theta^{(p)}", ("i",))
        images = [(weight, Mul((Const(NEURON_SCALE[p, j] * incoming), weight))),
                  (output, Mul((Const(1 / NEURON_SCALE[p - 1, i]), output)))]
        if self.bias:
            bias, output_bias = Entry("b^{(p)}", ("j",)), Entry("b^{(p)}", ())
            images += [(bias, Mul((Const(NEURON_SCALE[p, j]), bias))), (output_bias, output_bias)]
        return tuple(images)

    def unit_scale(self, k, unit: str) -> Const:
        """The factor of unit ``unit`` of layer k at Tθ: its own scale c^{(k)}_unit."""
        return Const(NEURON_SCALE[k, sp.Symbol(unit, integer=True)])

    @property
    def scale_definitions(self) -> tuple:
        return NEURON_START, None


# c^{(0)}_j = 1: the inputs are not rescaled
NEURON_START = hypothesis("c^(0)_j = 1", Const(NEURON_SCALE[0, UNIT]), Const(sp.S.One), ("j",))
DEEP = DeepNetwork("z", bias=False)
DEEP_BIAS = DeepNetwork("u", bias=True)
DEEP_NEURON = PerNeuronDeepNetwork("a", bias=False)
DEEP_NEURON_BIAS = PerNeuronDeepNetwork("e", bias=True)

# the same two layers with ReLU units, and their hidden units permuted: unit j of Tθ is unit π(j) of θ,
# π = π_{h_1} a permutation of {1, …, h_1}, with its incoming weights, its bias and its outgoing weight
RELU_TWO_LAYER_LOSS = Function("L", in_loss(relu_two_layer_prediction()))
PERMUTED_UNIT = permuted("h_{1}", "j")
T_PERMUTATION = Transformation(r"T_\pi", ((HIDDEN_WEIGHT, Entry(HIDDEN_WEIGHT.family, ("i", PERMUTED_UNIT))),
                                         (HIDDEN_BIAS, Entry(HIDDEN_BIAS.family, (PERMUTED_UNIT,))),
                                         (OUTPUT_WEIGHT, Entry(OUTPUT_WEIGHT.family, (PERMUTED_UNIT,))),
                                         (OUTPUT_BIAS, OUTPUT_BIAS)))
