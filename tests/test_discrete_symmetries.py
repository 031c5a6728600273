"""Maxout-group permutations as discrete symmetries: the groups moved whole (the next layer's inputs
with them) and the pieces inside one group (the next layer untouched), found by discover_symmetries,
each PROVED by check_symmetry; broken relabellings REFUTED with a witness re-evaluated exactly."""
import sympy as sp
import pytest

from symbolic import Conv1d, Dense, Maxout, Model, ReLULayer, Status
from symbolic.symmetries.discovery import discover_symmetries
from symbolic.networks.discrete_symmetries import discrete_kinds, hidden_layers, relabelling
from symbolic.networks.grid_layers import Flatten
from symbolic.symmetries.symmetry import Symmetry, check_symmetry


def maxout_net():
    """2 groups of 3 pieces: W (1 x 6), b, Maxout(3), v (2 x 1)."""
    return Model(1, [Dense(6, "W", "b"), Maxout(3), Dense(1, "v")])


def test_the_groups_and_the_pieces_are_permuted_and_proved():
    model = maxout_net()
    report = discover_symmetries(model)
    assert [(d.kind, d.representative) for d in report.discrete] == [
        ("transposition", "maxout groups (1 2), 3 pieces each"),
        ("transposition", "pieces (1 2) of maxout group 1"),
        ("cycle", "pieces (1 2 ... 3) of maxout group 1")]
    assert all(d.report.status is Status.PROVED for d in report.discrete)       # all four laws
    # (the continuous part's rank bound does not close on this one-input net at the sampled points:
    # maximality is UNDECIDED there, and not what this test is about)
    assert report.discrete_structure == "(S_3)^2 ⋊ S_2" and all(g.status is Status.PROVED for g in report.generators)
    W, b, v = model["W"], model["b"], model["v"]
    groups, pieces, cycle = (d.symmetry.mapping for d in report.discrete)
    # a group's three units move together, v's rows with them
    assert list(groups["W"]) == [W[3], W[4], W[5], W[0], W[1], W[2]] and list(groups["v"]) == [v[1], v[0]]
    assert list(groups["b"]) == [b[3], b[4], b[5], b[0], b[1], b[2]]
    # the pieces of group 1 move alone, v untouched
    assert list(pieces["W"]) == [W[1], W[0], W[2], W[3], W[4], W[5]] and pieces["v"] == v
    assert list(cycle["W"]) == [W[1], W[2], W[0], W[3], W[4], W[5]]
    data = report.as_json()["discrete"]
    assert data["complete"] is False and "with a maxout, of its groups and of the pieces" in data["completeness"]
    assert data["layers"] == [{"layer": "hidden layer W -> v (6 units, Maxout(3))", "units": 6,
                               "structure": "(S_3)^2 ⋊ S_2"}]


def test_a_convolution_into_a_maxout_moves_the_next_layer_by_blocks():
    """Conv1d of 4 channels, Maxout(2) over channels, Flatten, Dense: group 2 is channels 3 and 4, and
    the dense layer reads 2 positions per group."""
    model = Model((1, 3), [Conv1d(4, 2, "K", "b"), Maxout(2), Flatten(), Dense(1, "v")])
    (layer,) = hidden_layers(model)
    assert (layer.groups, layer.pieces, layer.consumer_block()) == (2, 2, 2)
    kinds = list(discrete_kinds(model, [layer]))
    assert [representative for _, _, representative, _ in kinds] == ["maxout groups (1 2), 2 pieces each",
                                                                     "pieces (1 2) of maxout group 1"]
    swap = kinds[0][3]
    v = model["v"]
    assert list(swap.mapping["v"]) == [v[2], v[3], v[0], v[1]]
    for _, _, _, symmetry in kinds:
        assert check_symmetry(model, symmetry, sizes=(1,)).status is Status.PROVED


def _reverified(model, symmetry, witness) -> bool:
    """The two predictions differ, recomputed exactly at the witness."""
    point = {s: v for s, v in witness.items() if isinstance(s, sp.Symbol)}
    image = model.prediction(values=symmetry.tensors()).xreplace(point)
    return sp.nsimplify(image) != sp.nsimplify(model.prediction().xreplace(point))


@pytest.mark.parametrize("what, units, consumer", [
    ("the groups swapped, v's rows not moved", [3, 4, 5, 0, 1, 2], [0, 1]),
    ("the pieces of group 1 swapped, v's rows moved as if the groups were", [1, 0, 2, 3, 4, 5], [1, 0]),
    ("a piece of group 1 swapped with one of group 2", [3, 1, 2, 0, 4, 5], [0, 1]),
])
def test_a_broken_relabelling_is_refuted_with_a_reverified_witness(what, units, consumer):
    model = maxout_net()
    (layer,) = hidden_layers(model)
    broken = relabelling(model, layer, units, False, "broken", consumer=consumer)
    verdict = check_symmetry(model, broken, sizes=(1,))["prediction"]
    assert verdict.status is Status.REFUTED, what
    assert _reverified(model, broken, verdict.witness), what


def test_maxouts_not_on_the_channels_are_not_searched_and_a_relu_net_keeps_its_unit_permutations():
    twice = Model(1, [Dense(4, "W"), Maxout(2), Maxout(2), Dense(1, "v")])
    assert hidden_layers(twice) == []
    # a maxout after a flatten takes each channel's positions as its pieces: not runs of channels
    spread = Model((1, 3), [Conv1d(2, 2, "K", "b"), Flatten(), Maxout(2), Dense(1, "v")])
    assert hidden_layers(spread) == []
    plain = Model(1, [Dense(3, "W"), ReLULayer(), Dense(1, "v")])
    (layer,) = hidden_layers(plain)
    assert (layer.pieces, layer.groups, layer.structure) == (1, 3, "S_3")
    assert [kind for kind, *_ in discrete_kinds(plain, [layer])] == ["transposition", "cycle"]
    wrong = Symmetry(plain, {"W": plain["W"][:, [1, 0, 2]]})
    assert check_symmetry(plain, wrong, sizes=(1,))["prediction"].status is Status.REFUTED
