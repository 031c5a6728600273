"""discover_symmetries and `symmetry SPEC --discover`: the generators found and proved, maximality
by the certified rank, the discrete symmetries, the flat directions, and the negative controls."""
import json
import random

import flint
import sympy as sp

from conftest import assert_all_proved
from proofs.commands.cli import main
from proofs.flat_directions import generator
from symbolic import (Abs, Conv1d, Dense, LeakyReLU, Maxout, MaxPool1d, Model, ReLULayer, Status, Tanh,
                      check_symmetry, discover_symmetries)
from symbolic.networks.deep import DeepNet
from symbolic.symmetries.discovery import dimension_bound, flat_directions, generator_symmetry, interpolation_hessian, \
    maximality
from symbolic.kernel.verdict import Verdict
from symbolic.networks.exponent_system import ExponentSystem
from symbolic.networks.minima import interpolating_minimum
from symbolic.networks.log_scale_jacobian import certified_rank, output_jet, sample

def test_one_hidden_relu_layer_has_an_h_dimensional_group_and_s_h():
    model = Model(1, [Dense(3, "W", "b"), ReLULayer(), Dense(1, "v")])
    report = discover_symmetries(model)
    assert_all_proved(report, 3)
    # the familiar basis: +1 on unit j's weight and bias, -1 on its outgoing weight
    assert sorted(g.exponents for g in report.generators) == [
        [0, 0, 1, 0, 0, 1, 0, 0, -1], [0, 1, 0, 0, 1, 0, 0, -1, 0], [1, 0, 0, 1, 0, 0, -1, 0, 0]]
    assert report.discrete_structure == "S_3"
    assert [d.kind for d in report.discrete] == ["transposition", "cycle"]
    assert all(d.report.status is Status.PROVED for d in report.discrete)
    assert report.flat_directions.status is Status.PROVED
    assert report.flat_numbers["predicted"] == 3 and report.flat_numbers["hessian_kernel"] >= 3
    assert report.status is Status.PROVED


def test_the_basis_is_the_per_unit_generators_of_flat_directions():
    """The exponent system's basis is exactly the G_j of proofs/flat_directions.py, whose number of
    flat directions (live units) is h, the dimension."""
    for d, h in ((1, 1), (2, 3), (3, 2)):
        model = Model(d, [Dense(h, "W"), ReLULayer(), Dense(1, "v")])
        basis = ExponentSystem(model).solution_basis()
        assert sorted(basis) == sorted(generator(d, h, j) for j in range(h))


def test_random_dense_stacks_one_scale_per_hidden_unit_and_the_bound_closes():
    """Random widths, activations and biases: the system's dimension is the number of hidden units
    (homogeneous activations) and the rank bound meets it (no proof of the generators here)."""
    rng = random.Random(7)
    for trial in range(6):
        widths = [rng.randint(1, 3) for _ in range(rng.randint(1, 3))]
        layers, hidden = [], 0
        for k, width in enumerate(widths):
            layers += [Dense(width, f"W{k}", f"b{k}" if rng.random() < 0.5 else None),
                       rng.choice([ReLULayer(), Abs(), LeakyReLU(sp.Rational(rng.randint(2, 9), 10))])]
            hidden += width
        model = Model(rng.randint(1, 3), layers + [Dense(1, "out", "c" if trial % 2 else None)])
        basis = ExponentSystem(model).solution_basis()
        assert len(basis) == hidden, model
        verdict, bound = dimension_bound(model, basis, seed=trial)
        assert bound == hidden and verdict.status is Status.PROVED, verdict.reason
        assert verdict.rests_on["oracles"] == ["log-scale Jacobian rank bound"]
        # the bound alone is no maximality: the generators must be proved symmetries too
        unproved, _ = maximality(model, basis, [Verdict(Status.UNDECIDED, "f(T theta) = f(theta)")], seed=trial)
        assert unproved.status is Status.UNDECIDED and "not every generator" in unproved.reason


def test_deep_leaky_relu_with_biases_has_one_scale_per_hidden_unit():
    model = Model(1, [Dense(2, "W1", "b1"), LeakyReLU(sp.Rational(1, 10)), Dense(1, "W2", "b2"),
                      LeakyReLU(sp.Rational(-3, 2)), Dense(1, "W3", "b3")])
    report = discover_symmetries(model, discrete=False)
    assert_all_proved(report, 3)
    # the second hidden layer's unit: its incoming weights and bias up, its outgoing weight down
    assert report.generators[-1].exponents == [0, 0, 0, 0, 1, 1, 1, -1, 0]
    assert report.discrete_structure == "not searched"
    assert report.flat_numbers["predicted"] == 3 <= report.flat_numbers["hessian_kernel"]


def test_tanh_has_no_rescaling_only_discrete_symmetries():
    model = Model(1, [Dense(1, "W", "b"), Tanh(), Dense(1, "v")])
    report = discover_symmetries(model)
    assert_all_proved(report, 0)
    assert "certified by 3 pivots" in report.maximality.evidence[0]
    assert report.discrete_structure == "Z_2"
    (flip,) = report.discrete
    assert flip.kind == "sign flip" and flip.status is Status.PROVED
    assert report.status is Status.PROVED


def test_an_output_bias_adds_no_dimension():
    dimensions = []
    for bias in (None, "c"):
        model = Model(1, [Dense(2, "W", "b"), ReLULayer(), Dense(1, "v", bias)])
        report = discover_symmetries(model, discrete=False)
        assert report.maximality.status is Status.PROVED
        dimensions.append(report.dimension)
    assert dimensions == [2, 2]


def test_abs_maxout_and_a_convolution_with_max_pooling():
    abs_report = discover_symmetries(Model(1, [Dense(2, "W"), Abs(), Dense(1, "v")]))
    assert_all_proved(abs_report, 2)
    assert abs_report.discrete_structure == "(Z_2)^2 ⋊ S_2"
    flip = abs_report.discrete[-1]
    assert flip.kind == "sign flip" and flip.status is Status.PROVED
    assert "v" not in abs_report.changed_tensors(flip.symmetry)       # even: the outgoing weight stays
    # a maxout unit: its two pieces scale together
    maxout = discover_symmetries(Model(1, [Dense(2, "W", "b"), Maxout(2), Dense(1, "v")]), discrete=False)
    assert_all_proved(maxout, 1)
    assert maxout.generators[0].exponents == [1, 1, 1, 1, -1]
    # a channel: its kernel and bias, shared over positions, scale together
    conv = discover_symmetries(Model((1, 4), [Conv1d(1, 2, "K", "b"), ReLULayer(), MaxPool1d(3),
                                              Dense(1, "v")]), discrete=False)
    assert_all_proved(conv, 1)
    assert conv.generators[0].exponents == [1, 1, 1, -1]


def test_a_wrong_generator_is_refuted_and_a_missing_one_leaves_maximality_open():
    model = Model(1, [Dense(2, "W", "b"), ReLULayer(), Dense(1, "v")])
    basis = ExponentSystem(model).solution_basis()
    wrong = list(basis[0])
    wrong[wrong.index(1, 2)] = 0                       # the bias of the unit left unscaled
    refuted = check_symmetry(model, generator_symmetry(model, wrong, "T"), sizes=(1,))
    verdict = refuted["prediction"]
    assert verdict.status is Status.REFUTED and verdict.witness
    # one generator short: the rank bound leaves a dimension open
    verdict, bound = dimension_bound(model, basis[:1], seed=0)
    assert verdict.status is Status.UNDECIDED and bound == 2 and "not excluded" in verdict.reason
    # a direction that is no symmetry is not in the Hessian's kernel
    verdict, _ = flat_directions(model, [wrong], seed=0)
    assert verdict.status is Status.REFUTED and "H (G theta) != 0" in verdict.reason


def test_the_log_scale_derivative_agrees_with_sympy():
    model = Model(1, [Dense(2, "W", "b"), ReLULayer(), Dense(2, "V"), Maxout(2), Dense(1, "u")])
    point = sample(model, 2, random.Random(3), {})
    prediction = model.prediction()
    x = [s for row in model.input() for s in row]
    for inputs, row in zip(point.inputs, point.rows):
        values = {p: sp.Rational(int(t.p), int(t.q)) for p, t in zip(model.parameters, point.theta)}
        values.update({s: sp.Rational(int(v.p), int(v.q)) for s, v in zip(x, [v for r in inputs for v in r])})
        expected = [sp.diff(prediction, p).subs(values) * values[p] for p in model.parameters]
        assert [sp.Rational(int(flint.fmpq(v).p), int(flint.fmpq(v).q)) for v in row] == expected


def test_the_hessian_at_a_minimum_agrees_with_the_deep_networks_exact_hessian():
    model = Model(2, [Dense(2, "W1"), ReLULayer(), Dense(2, "W2"), ReLULayer(), Dense(1, "W3")])
    minimum = interpolating_minimum(DeepNet((2, 2, 2, 1)), 5, random.Random(0))
    theta = [flint.fmpq(t.numerator, t.denominator) for t in minimum.theta]
    rows = []
    for x in minimum.inputs:
        jet = output_jet(model, theta, [[flint.fmpq(v.numerator, v.denominator)] for v in x], {}, False)
        rows.append([jet.tangent.get(p, 0) for p in range(len(theta))])
    hessian = interpolation_hessian(rows)
    assert [[hessian[a, b] for b in range(len(theta))] for a in range(len(theta))] == \
        [[flint.fmpq(v.numerator, v.denominator) for v in row] for row in minimum.hessian]


def test_the_certified_rank_of_balls_is_a_lower_bound():
    third = flint.arb(1) / 3
    assert certified_rank([[third, 2 * third], [2 * third, 4 * third]]) == (1, False)
    assert certified_rank([[third, 0], [0, third]]) == (2, False)
    assert certified_rank([[1, 2], [2, 4]]) == (1, True)


SPEC = """
inputs = 2

[[layers]]
type = "dense"
units = 2
weight = "W1"
bias = "b1"

[[layers]]
type = "relu"

[[layers]]
type = "dense"
units = 1
weight = "v"

[map]
W1 = "W1"
"""


def test_command_line_json(tmp_path, capsys):
    path = tmp_path / "spec.toml"
    path.write_text(SPEC)
    latex = tmp_path / "out.tex"
    assert main(["symmetry", str(path), "--discover", "--json", "--latex", str(latex)]) == 0
    captured = capsys.readouterr()
    assert "[map] ignored" in captured.err
    data = json.loads(captured.out)
    assert data["dimension"] == 2 and data["dimension_is_maximal"] is True
    assert [g["status"] for g in data["generators"]] == ["proved", "proved"]
    assert data["generators"][0]["exponents"] == {"W1_{1,1}": 1, "W1_{2,1}": 1, "b1_{1}": 1, "v_{1}": -1}
    assert data["maximality"]["status"] == "proved" and data["maximality"]["upper_bound"] == 2
    assert data["discrete"]["structure"] == "S_2"
    assert latex.read_text().startswith(r"\documentclass")


def test_command_line_bad_spec_and_budget(tmp_path, capsys):
    path = tmp_path / "spec.toml"
    path.write_text("inputs = 2\n")
    assert main(["symmetry", str(path), "--discover"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "layers" in err
    path.write_text(SPEC)
    assert main(["symmetry", str(path), "--discover", "--timeout", "0.001"]) == 3
    assert "time budget" in capsys.readouterr().out
