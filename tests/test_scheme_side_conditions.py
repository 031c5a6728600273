"""The inference scheme 'chain rule for a linear map', refused at each of its side conditions: a
premise that is not L(Tθ) = L(θ) for this model, map, loss and N (its sides compared as built), and
a map that is no invertible linear map.  The scheme concludes the gradient or Hessian law only from
its own premise."""
import sympy as sp

from symbolic.kernel import Status, infer
from symbolic.networks.maps import Symmetry, positive_scales
from symbolic.networks.model import Dense, Model, ReLU as ReLULayer
from symbolic.symmetries.symmetry import loss_invariance
from symbolic.trusted.schemes.linear_maps import CHAIN_RULE_OF_A_LINEAR_MAP

NET = Model(2, [Dense(2, "W1"), ReLULayer(), Dense(1, "v")])
C = sp.diag(*positive_scales("c", 2))
SCALING = Symmetry(NET, {"W1": NET["W1"] * C, "v": C.inv() * NET["v"]})


def _law(premise, symmetry=SCALING, n=1, loss="mse"):
    return infer(CHAIN_RULE_OF_A_LINEAR_MAP, [premise], label="gradient law", model=NET, symmetry=symmetry,
                 n=n, loss=loss, order=1, seed=0)


def test_the_scheme_concludes_the_law_from_its_own_premise():
    premise = loss_invariance(NET, SCALING, 1, "mse")
    assert premise.status is Status.PROVED
    law = _law(premise)
    assert law.status is Status.PROVED
    assert law.theorem.statement.predicate == "gradient law"
    assert "chain rule for a linear map" in law.theorem.rests_on.rules


def test_a_premise_for_another_number_of_points_or_another_loss_is_refused():
    premise = loss_invariance(NET, SCALING, 1, "mse")
    for other in ({"n": 2}, {"loss": "any"}):
        law = _law(premise, **other)
        assert law.status is Status.UNDECIDED and "the premise is not L(T theta) = L(theta)" in law.reason


def test_a_premise_for_another_model_is_refused():
    wider = Model(2, [Dense(3, "W1"), ReLULayer(), Dense(1, "v")])
    c = sp.diag(*positive_scales("c", 3))
    premise = loss_invariance(wider, Symmetry(wider, {"W1": wider["W1"] * c, "v": c.inv() * wider["v"]}), 1, "mse")
    assert premise.status is Status.PROVED
    law = _law(premise)
    assert law.status is Status.UNDECIDED and "the premise is not L(T theta) = L(theta)" in law.reason


def test_a_map_that_is_no_invertible_linear_map_is_refused():
    # every hidden unit scaled by 1 + v_1^2 > 0, the output weights divided by it: f and L are
    # unchanged, but T is not linear in theta, so no chain rule for a linear map gives its laws
    scale = 1 + NET["v"][0] ** 2
    curved = Symmetry(NET, {"W1": NET["W1"] * scale, "v": NET["v"] / scale})
    premise = loss_invariance(NET, curved, 1, "mse")
    assert premise.status is Status.PROVED
    law = _law(premise, symmetry=curved)
    assert law.status is Status.UNDECIDED and "invertible matrix does not hold" in law.reason
