"""The prediction claim proved layer by layer: a 2 x 2 max-pooling of two channels of four positions
(28 kinks on the two sides, past what the identity test rewrites) gets every generator PROVED and
maximality decided; a broken map stays REFUTED with a witness re-verified here; the scheme refuses
premises that are not the layer claims of the model and map, and a map that rescales the output."""
import pytest
import sympy as sp

from conftest import assert_all_proved
from symbolic import (Conv2d, Dense, Flatten, MaxPool2d, Model, ReLULayer, Status, Symmetry, discover_symmetries,
                      positive_scales)
from symbolic.kernel import infer
from symbolic.checks import identity
from symbolic.symmetries import layer_transport
from symbolic.symmetries.layer_transport import LAYER_BY_LAYER
from symbolic.symmetries.symmetry import prediction_invariance

c = sp.Symbol("c", positive=True)


def pooled_net(size):
    """An image 1 x size x size, two channels of a (size - 1) x (size - 1) kernel with a bias: 2 x 2
    positions per channel, ReLU, one 2 x 2 max-pooling window per channel, a dense read-out."""
    return Model((1, size, size), [Conv2d(2, size - 1, "K", bias="b"), ReLULayer(), MaxPool2d(2), Flatten(),
                                   Dense(1, "v")])


def channel_scale(model):
    """Channel 1's kernel and bias up by c, its read-out weight down: a symmetry."""
    one = sp.diag(c, 1)
    return Symmetry(model, {"K": one * model["K"], "b": one * model["b"], "v": one.inv() * model["v"]})


@pytest.mark.parametrize("size", [3, 4])
def test_a_2x2_pooling_past_24_kinks_gets_every_generator_proved_and_maximality(size):
    model = pooled_net(size)
    x = model.input()
    T = channel_scale(model)
    assert layer_transport.kinks((*model.predictions(x, T.tensors()), *model.predictions(x))) == 28
    report = discover_symmetries(model)
    assert_all_proved(report, 2)
    for g in report.generators:
        verdict = g.report.verdict("prediction")
        assert verdict.evidence[0].startswith("layer by layer")
        assert "layer-by-layer transport" in verdict.theorem.rests_on.rules
        # the statement proved is the claim as written: f at T theta against f at theta
        statement = verdict.theorem.statement
        assert (statement.lhs, statement.rhs) == (model.prediction(values=g.symmetry.tensors()), model.prediction())
    assert report.status is Status.PROVED


def _reverified(model, symmetry, witness) -> bool:
    """The two predictions differ, recomputed exactly at the witness."""
    point = {s: v for s, v in witness.items() if isinstance(s, sp.Symbol)}
    image = model.prediction(values=symmetry.tensors()).xreplace(point)
    return sp.nsimplify(image) != sp.nsimplify(model.prediction().xreplace(point))


def test_a_broken_map_stays_refuted_with_a_reverified_witness():
    model = pooled_net(3)
    one = sp.diag(c, 1)
    # the bias left unscaled: the convolution's claim fails on fresh inputs, the whole claim at a point
    broken = Symmetry(model, {"K": one * model["K"], "v": one.inv() * model["v"]})
    x = model.input()
    assert layer_transport.prediction_by_layers(model, broken, model.predictions(x, broken.tensors()),
                                                model.predictions(x)) is None
    verdict = prediction_invariance(model, broken)
    assert verdict.status is Status.REFUTED and _reverified(model, broken, verdict.witness)
    # a scale per column of K is no rescaling of a channel's values either
    columns = Symmetry(model, {"K": model["K"] * sp.diag(*positive_scales("c", 4))})
    assert layer_transport.signal_factors(model, columns) is None
    verdict = prediction_invariance(model, columns)
    assert verdict.status is Status.REFUTED and _reverified(model, columns, verdict.witness)


def _layer_theorems(model, symmetry):
    factors = layer_transport.signal_factors(model, symmetry)
    claims = [identity(claim.lhs, claim.rhs, label=name)
              for name, claim in layer_transport.layer_claims(model, symmetry, factors)]
    assert all(v.status is Status.PROVED for v in claims)
    return claims


def test_the_scheme_composes_only_the_layer_claims_of_this_model_and_map():
    model = pooled_net(3)
    T = channel_scale(model)
    theorems = _layer_theorems(model, T)
    proved = infer(LAYER_BY_LAYER, theorems, label="prediction", model=model, symmetry=T, output=0, seed=0)
    assert proved.status is Status.PROVED
    # one layer claim missing, or the claims of another map (channel 2's scale): no conclusion
    other = Symmetry(model, {"K": sp.diag(1, c) * model["K"], "b": sp.diag(1, c) * model["b"],
                             "v": sp.diag(1, 1 / c) * model["v"]})
    for premises in (theorems[:-1], _layer_theorems(model, other)):
        verdict = infer(LAYER_BY_LAYER, premises, label="prediction", model=model, symmetry=T, output=0, seed=0)
        assert verdict.status is Status.UNDECIDED and "not the layer claims" in verdict.reason
    # a map that rescales the output (v up by c): every layer claim holds, the prediction moves
    scaled = Symmetry(model, {"v": c * model["v"]})
    verdict = infer(LAYER_BY_LAYER, _layer_theorems(model, scaled), label="prediction", model=model,
                    symmetry=scaled, output=0, seed=0)
    assert verdict.status is Status.UNDECIDED and "D_0 and D_n must be 1" in verdict.reason
    assert prediction_invariance(model, scaled).status is Status.REFUTED


def test_a_claim_with_few_kinks_is_decided_as_it_stands():
    model = Model((1, 1, 3), [Conv2d(2, (1, 2), "K", bias="b"), ReLULayer(), MaxPool2d((1, 2)), Flatten(),
                              Dense(1, "v")])
    verdict = prediction_invariance(model, channel_scale(model))
    assert verdict.status is Status.PROVED
    assert "layer-by-layer transport" not in verdict.theorem.rests_on.rules
