"""Attacks on the layer-by-layer transport, as a hostile user of the public API would make them, on
a 2 x 2 max-pooling of two channels (28 kinks, past what the identity test rewrites): activations
positively homogeneous for any slope are proved by the route and a broken map through them is
REFUTED with a witness re-verified here; a group parameter not known positive, or a factor 0, is
refused by the route and the claim as written is REFUTED; premises reordered, or proved for another
model, give no conclusion; a parameter or a slope named like the fresh inputs z no longer pushes the
claim off the route (it fell back to the claim as written: Z3's word alone, or UNDECIDED); a leaky
slope that is a parameter of the model is refused (T moved the parameter and not the slope, and a
map that is no symmetry of f at T theta was PROVED)."""
import pytest
import sympy as sp

from symbolic import (Abs, Conv2d, Dense, Flatten, LeakyReLU, MaxPool2d, Model, ModelError, ReLULayer, Residual,
                      Status, Symmetry)
from symbolic.kernel import infer
from symbolic.symmetries import layer_transport
from symbolic.symmetries.layer_transport import LAYER_BY_LAYER
from symbolic.symmetries.symmetry import prediction_invariance
from symbolic.relu import ReLU
from test_layer_transport import _layer_theorems      # the layer claims, each proved

c = sp.Symbol("c", positive=True)
a = sp.Symbol("a", real=True)


def pooled_net(activation, kernel="K"):
    """An image 1 x 3 x 3, two channels of a 2 x 2 kernel with a bias, the activation, one 2 x 2
    max-pooling window per channel, a dense read-out: 28 kinks on the two sides with ReLU."""
    return Model((1, 3, 3), [Conv2d(2, 2, kernel, bias="b"), activation, MaxPool2d(2), Flatten(), Dense(1, "v")])


def channel_scale(model, scale=c, kernel="K", bias=True):
    """Channel 1's kernel (and bias) up by ``scale``, its read-out weight down."""
    one = sp.diag(scale, 1)
    images = {kernel: one * model[kernel], "v": one.inv() * model["v"]}
    return Symmetry(model, {**images, "b": one * model["b"]} if bias else images)


def _on_the_route(model, symmetry):
    """PROVED by the layer-by-layer transport, its statement the claim as written."""
    verdict = prediction_invariance(model, symmetry)
    assert verdict.status is Status.PROVED, verdict.reason
    assert "layer-by-layer transport" in verdict.theorem.rests_on.rules
    statement = verdict.theorem.statement
    assert (statement.lhs, statement.rhs) == (model.prediction(values=symmetry.tensors()), model.prediction())


def _refuted_and_reverified(model, symmetry):
    """REFUTED, the two predictions recomputed here at the witness (50 digits) apart."""
    verdict = prediction_invariance(model, symmetry)
    assert verdict.status is Status.REFUTED, verdict.reason
    point = {s: v for s, v in verdict.witness.items() if isinstance(s, sp.Symbol)}
    gap = (model.prediction(values=symmetry.tensors()) - model.prediction()).xreplace(point)
    assert abs(sp.N(gap.replace(ReLU, lambda t: sp.Max(t, 0)), 50)) > sp.Rational(1, 10 ** 20)


@pytest.mark.parametrize("activation", [LeakyReLU(-2), LeakyReLU(a), Abs()], ids=["slope -2", "slope a", "abs"])
def test_activations_homogeneous_for_any_slope_are_proved_and_a_broken_map_through_them_refuted(activation):
    model = pooled_net(activation)
    assert layer_transport.kinks((*model.predictions(values=channel_scale(model).tensors()),
                                  *model.predictions())) > 24
    _on_the_route(model, channel_scale(model))
    # negative control: the bias left unscaled
    broken = channel_scale(model, bias=False)
    assert layer_transport.prediction_by_layers(model, broken, model.predictions(values=broken.tensors()),
                                                model.predictions()) is None
    _refuted_and_reverified(model, broken)


@pytest.mark.parametrize("scale", [sp.Symbol("c", real=True), sp.Symbol("c", negative=True), sp.S.Zero],
                         ids=["real", "negative", "zero"])
def test_a_factor_not_known_positive_is_refused_and_the_claim_refuted(scale):
    model = pooled_net(ReLULayer())
    one = sp.diag(scale, 1)
    # a factor 0 cannot be inverted on the read-out: that weight is left as it is
    images = {"K": one * model["K"], "b": one * model["b"]}
    symmetry = Symmetry(model, images if scale == 0 else {**images, "v": one.inv() * model["v"]})
    assert layer_transport.signal_factors(model, symmetry) is None
    _refuted_and_reverified(model, symmetry)


def test_premises_reordered_or_proved_for_another_model_give_no_conclusion():
    model = pooled_net(ReLULayer())
    T = channel_scale(model)
    theorems = _layer_theorems(model, T)
    leaky = pooled_net(LeakyReLU(-2))
    for premises, on in ((theorems[::-1], model), (theorems, leaky)):
        verdict = infer(LAYER_BY_LAYER, premises, label="prediction", model=on, symmetry=channel_scale(on),
                        output=0, seed=0)
        assert verdict.status is Status.UNDECIDED and "not the layer claims" in verdict.reason


@pytest.mark.parametrize("kernel, activation", [("z1", ReLULayer()), ("K", LeakyReLU(sp.Symbol("z2_{1,1}", real=True)))],
                         ids=["kernel z1", "slope z2_{1,1}"])
def test_a_symbol_named_like_the_fresh_inputs_keeps_the_claim_on_the_route(kernel, activation):
    model = pooled_net(activation, kernel)
    T = channel_scale(model, kernel=kernel)
    _on_the_route(model, T)
    # no fresh input of any layer claim is a symbol of the model or the map
    factors = layer_transport.signal_factors(model, T)
    claims = layer_transport.layer_claims(model, T, factors)
    used = set(model.parameters) | model.prediction().free_symbols | {c}
    fresh = set().union(*(claim.lhs.free_symbols | claim.rhs.free_symbols for _, claim in claims)) - used
    assert fresh and not {str(s) for s in fresh} & {str(s) for s in used}


def test_a_leaky_slope_that_is_a_parameter_is_refused():
    # the model with the slope a named apart, then a read as the read-out weight v_1: f at T theta
    # (every v_1 moved, the slope's too) is not f at theta, so the channel scale is no symmetry of it
    model = pooled_net(LeakyReLU(a))
    T = channel_scale(model)
    v1 = model["v"][0]
    aliased = model.prediction().xreplace({a: v1})
    at_image = aliased.xreplace({p: image for p, image in zip(model.parameters, [e for m in T.tensors().values()
                                                                               for e in m])})
    point = {s: sp.Rational(k + 1, 3) * (-1) ** k for k, s in enumerate(sorted(aliased.free_symbols | {c},
                                                                                key=sp.default_sort_key))}
    gap = (at_image - aliased).xreplace(point).replace(ReLU, lambda t: sp.Max(t, 0))
    assert gap != 0
    # such a model, where that map was PROVED, is refused; inside a residual block too
    for layers in ([Conv2d(2, 2, "K", bias="b"), LeakyReLU(v1), MaxPool2d(2), Flatten(), Dense(1, "v")],
                   [Dense(2, "W"), Residual(Dense(2, "U"), LeakyReLU(sp.Symbol("U_{1,1}", real=True))),
                    Dense(1, "v")]):
        with pytest.raises(ModelError, match="layer 2 .*is named like a parameter"):
            Model((1, 3, 3) if isinstance(layers[0], Conv2d) else 2, layers)
