"""The network description API: shapes, parameter names, the prediction of each layer kind."""
import pytest
import sympy as sp

from symbolic import ReLU as relu
from symbolic.networks.model import (Abs, AvgPool1d, Conv1d, Dense, LeakyReLU, MaxPool1d, Maxout, Model,
                            ModelError, ReLU, Residual, Tanh)
from symbolic.networks.network import OneHiddenLayerNet


def at(expr, values):
    return sp.sympify(expr).xreplace(values)


def test_one_hidden_layer_is_the_papers_network():
    net = Model(3, [Dense(2, "W"), ReLU(), Dense(1, "v")])
    paper = OneHiddenLayerNet(3, 2)
    assert net.shapes == {"W": (3, 2), "v": (2, 1)}
    assert net["W"] == paper.W and net["v"] == paper.v
    assert [str(x) for x in net.parameters] == [str(x) for x in paper.parameters]
    assert net.prediction() == paper.prediction(paper.input())


def test_dense_with_bias_and_leaky_relu():
    net = Model(1, [Dense(1, "W", bias="b"), LeakyReLU(sp.Rational(1, 10)), Dense(1, "v")])
    W, b, v, x = net["W"][0], net["b"][0], net["v"][0], net.input()[0][0]
    f = net.prediction()
    assert at(f, {W: 2, b: -1, v: 3, x: 1}) == 3          # leaky(1) = 1
    assert at(f, {W: 2, b: -1, v: 3, x: 0}) == sp.Rational(-3, 10)   # leaky(-1) = -1/10


def test_abs_and_tanh():
    for layer, value in ((Abs(), 2), (Tanh(), sp.tanh(-2))):
        net = Model(1, [Dense(1, "W"), layer, Dense(1, "v")])
        f = net.prediction()
        point = {net["W"][0]: -2, net["v"][0]: 1, net.input()[0][0]: 1}
        assert at(f, point) == value


def test_conv1d_maxpool_avgpool_by_hand():
    # one input channel of length 4, two output channels, kernel 2, then pools of 3
    net = Model((1, 4), [Conv1d(2, 2, "K", bias="k"), ReLU(), MaxPool1d(3), Dense(1, "v")])
    assert net.shapes == {"K": (2, 2), "k": (2, 1), "v": (2, 1)}
    K, k, v = net["K"], net["k"], net["v"]
    x = [s for s in net.input()[0]]
    point = {K[0, 0]: 1, K[0, 1]: -1, K[1, 0]: 2, K[1, 1]: 0, k[0]: 0, k[1]: -3,
             v[0]: 1, v[1]: 10, x[0]: 1, x[1]: 4, x[2]: 2, x[3]: 0}
    # channel 1: x_t - x_{t+1} = -3, 2, 2 → ReLU max 2; channel 2: 2x_t - 3 = -1, 5, 1 → 5
    assert at(net.prediction(), point) == 2 + 10 * 5
    average = Model((1, 4), [Conv1d(2, 2, "K", bias="k"), ReLU(), AvgPool1d(3), Dense(1, "v")])
    assert at(average.prediction(), point) == sp.Rational(4, 3) + 10 * sp.Rational(6, 3)


def test_maxout_and_residual():
    net = Model(1, [Dense(2, "W"), Maxout(2), Dense(1, "v")])
    W, v, x = net["W"], net["v"][0], net.input()[0][0]
    assert at(net.prediction(), {W[0, 0]: 1, W[0, 1]: -1, v: 1, x: -5}) == 5
    block = Model(2, [Residual(Dense(2, "A"), ReLU(), Dense(2, "B")), Dense(1, "v")])
    A, B, v = block["A"], block["B"], block["v"]
    x1, x2 = (row[0] for row in block.input())
    expected = sum(v[j] * (x_j + sum(relu(x1 * A[0, i] + x2 * A[1, i]) * B[i, j] for i in range(2)))
                   for j, x_j in enumerate((x1, x2)))
    assert sp.expand(block.prediction() - expected) == 0


@pytest.mark.parametrize("inputs, layers, message", [
    (2, [Dense(2, "W"), Dense(1, "W")], "used by two layers"),
    (2, [Dense(0, "W")], "positive integer"),
    (2, [Dense(1, "x1")], "must be a name"),
    (3, [Dense(3, "W"), Maxout(2), Dense(1, "v")], "multiple of 2"),
    ((1, 2), [Conv1d(1, 3, "K"), Dense(1, "v")], "longer than its input"),
    (2, [Residual(Dense(3, "A")), Dense(1, "v")], "keep the shape"),
    (0, [Dense(1, "v")], "positive integer"),
    (2, [], "at least one layer"),
])
def test_bad_descriptions_are_model_errors(inputs, layers, message):
    with pytest.raises(ModelError, match=message):
        Model(inputs, layers)
