"""Attacks on the kernel and the checker from a user's side (public functions, dataclass fields,
pickling, sympy's own evaluation and assumptions): each one got a PROVED of a false statement, or a
PROVED whose statement was not what had been checked, before the fix beside it; and attacks on
discovery's rule that a parameter no prediction contains is its own scale (a batch normalised over
after a ReLU ended in a traceback; the rule's batch of two against a batch of three holds)."""
from __future__ import annotations

import copy
import pickle

import pytest
import sympy as sp

from symbolic import BatchNormTrain, Dense, Model, ReLU, ReLULayer, discover_symmetries
from symbolic.kernel import Equation, Fact, Relation, RestsOn, Theorem, by_oracle, is_theorem
from symbolic.checks import nonnegatives
from symbolic.networks.exponent_system import absent_parameters
from symbolic.kernel.verdict import ForgedVerdict, Status, Verdict
from symbolic.trusted.oracles.exact import EXACT_ZERO, RATIONAL_COMPARISON, SYMPY_ASSUMPTIONS
from symbolic.trusted.oracles.identity import EXACT_IDENTITY
from symbolic.trusted.oracles.linear_algebra import EXACT_RANK

x = sp.Symbol("x", real=True)


# --- a theorem built by hand is not laundered into a minted one ------------------------------------

@pytest.mark.parametrize("launder", [lambda t: pickle.loads(pickle.dumps(t)), copy.copy, copy.deepcopy],
                         ids=["pickle", "copy", "deepcopy"])
def test_a_hand_made_theorem_does_not_come_back_minted_from_a_copy(launder):
    forged = Theorem(Equation(sp.S.Zero, sp.S.One), RestsOn(rules=("my rule",)))
    with pytest.raises(TypeError, match="did not mint"):
        launder(forged)
    with pytest.raises(ForgedVerdict):
        Verdict(Status.PROVED, theorem=forged)


def test_a_minted_theorem_still_travels_minted():
    proved = by_oracle(EXACT_ZERO, Equation((x + 1) ** 2, x ** 2 + 2 * x + 1))
    assert proved.status is Status.PROVED
    for copied in (pickle.loads(pickle.dumps(proved.theorem)), copy.deepcopy(proved.theorem)):
        assert is_theorem(copied) and copied.statement.text == proved.theorem.statement.text


# --- what a theorem says cannot change after it was checked ---------------------------------------

def test_changing_a_matrix_after_its_proof_does_not_change_the_theorem():
    identity = sp.Matrix([[1, 0], [0, 1]])
    proved = by_oracle(EXACT_RANK, Fact("determinant", (identity, 1)))
    assert proved.status is Status.PROVED
    identity[1, 1] = 5                           # the author reuses the matrix
    kept = proved.theorem.statement.arguments[0]
    assert kept.tolist() == [[1, 0], [0, 1]]
    again = Verdict(Status.PROVED, theorem=pickle.loads(pickle.dumps(proved.theorem)))
    assert again.claim == "determinant([1, 0; 0, 1], 1)"
    # the negative control: the matrix as it is now is not of determinant 1
    assert by_oracle(EXACT_RANK, Fact("determinant", (identity, 1))).status is Status.UNDECIDED


def test_the_containers_of_a_statement_are_copies():
    vectors = [[1, -1]]
    statement = Fact("null vectors", (sp.Matrix([[1, 1]]), vectors))
    vectors[0][1] = 7
    assert statement.arguments[1] == ((1, -1),)
    sides = Equation(sp.Matrix([x]), sp.Matrix([x]))
    assert isinstance(sides.lhs, sp.ImmutableMatrix)


# --- the oracles decide the statement they are given, and only what they can read ---------------

@pytest.mark.parametrize("statement", [Equation(0.1 + 0.2, 0.3), Relation(1.0000000000000002, "<=", 1),
                                       Equation(1.0000000000000002, 1)], ids=str)
def test_a_floating_point_number_is_no_exact_rational(statement):
    # 0.1 + 0.2 == 0.30000000000000004 != 0.3: no rounding makes two different floats equal
    verdict = by_oracle(RATIONAL_COMPARISON, statement)
    assert verdict.status is Status.UNDECIDED and "exact rational" in verdict.reason


def test_exact_rationals_are_still_compared():
    assert by_oracle(RATIONAL_COMPARISON, Relation(sp.Rational(1, 3), "<", sp.Rational(1, 2))).proved
    refused = by_oracle(RATIONAL_COMPARISON, Relation(sp.Rational(1, 2), "<", sp.Rational(1, 3)))
    assert refused.status is Status.UNDECIDED


def test_sympy_assumptions_are_read_only_for_the_facts_the_checker_honours():
    irrational = sp.Symbol("r", irrational=True)
    # sympy takes r**2 to be irrational, so r**2 - 2 != 0; r = sqrt(2) is irrational and r**2 = 2
    assert (irrational ** 2 - 2).is_nonzero is True
    assert (irrational ** 2 - 2).subs(irrational, sp.sqrt(2)) == 0
    verdict = by_oracle(SYMPY_ASSUMPTIONS, Relation(irrational ** 2 - 2, "!=", sp.S.Zero))
    assert verdict.status is Status.UNDECIDED and "irrational" in verdict.reason
    positive = sp.Symbol("p", positive=True)
    assert by_oracle(SYMPY_ASSUMPTIONS, Relation(positive + 1, ">", sp.S.Zero)).proved


@pytest.mark.parametrize("square", [sp.Symbol("z", imaginary=True) ** 2, sp.Pow(sp.I * x, 2, evaluate=False),
                                    sp.Pow(sp.I, 2, evaluate=False),
                                    sp.Pow(sp.Pow(-1, sp.Rational(1, 2), evaluate=False), 2, evaluate=False),
                                    ReLU(sp.I)], ids=str)
def test_the_square_of_a_number_that_is_not_real_is_not_manifestly_nonnegative(square):
    value = sp.sympify(square).subs(sp.Symbol("z", imaginary=True), sp.I).subs(x, 1).doit()
    assert value.is_nonnegative is not True       # -1, or not a real number at all
    assert nonnegatives("a square", [square]).status is Status.UNDECIDED


def test_real_squares_and_rectifiers_are_still_manifestly_nonnegative():
    y = sp.Symbol("y")                            # a plain symbol is a real variable
    f = sp.Function("f")
    verdict = nonnegatives("squares", [x ** 2 + ReLU(x) * (x - 1) ** 2, y ** 2, f(x) ** 2, sp.Abs(sp.I * x)])
    assert verdict.proved
    assert nonnegatives("a difference", [x ** 2 - 1]).status is Status.UNDECIDED


# --- what the printed statement says is what was checked -------------------------------------------

def test_the_printed_statement_says_what_its_symbols_range_over():
    a, n = sp.Symbol("a", positive=True), sp.Symbol("n", integer=True)
    proved = by_oracle(EXACT_IDENTITY, Equation(ReLU(a * x) + n - n, a * ReLU(x)))
    # ReLU(a*x) = a*ReLU(x) is false at a = -1: the claim read must say a > 0
    assert proved.proved and proved.claim == "ReLU(a*x) = a*ReLU(x) for a > 0"
    assert r"\text{for } a > 0" in proved.theorem.statement.latex
    general = sp.Symbol("a", real=True)
    assert by_oracle(EXACT_IDENTITY, Equation(ReLU(general * x), general * ReLU(x))).status is Status.REFUTED
    assert Relation(n, ">=", a).text == "n >= a for a > 0, n integer"


@pytest.mark.parametrize("name, lhs, rhs", [("I", lambda s: s ** 2, lambda s: sp.Abs(s) ** 2),
                                            ("oo", lambda s: sp.Add(s, -s, evaluate=False), lambda s: 0),
                                            ("nan", lambda s: sp.Mul(s, 0, evaluate=False), lambda s: 0),
                                            ("x = 0 and y", lambda s: s, lambda s: s)])
def test_a_symbol_that_prints_as_what_it_is_not_is_refused(name, lhs, rhs):
    # a real symbol named I makes 'I**2 = Abs(I)**2' read -1 = 1; one named 'oo' makes oo - oo = 0
    symbol = sp.Symbol(name, real=True)
    verdict = by_oracle(EXACT_IDENTITY, Equation(lhs(symbol), rhs(symbol)))
    assert verdict.status is Status.UNDECIDED and "would print as something it is not" in verdict.reason
    renamed = sp.Symbol("t", real=True)
    assert by_oracle(EXACT_IDENTITY, Equation(lhs(renamed), rhs(renamed))).proved


def test_the_command_line_refuses_a_symbol_named_like_the_imaginary_unit(cli):
    refused = cli("check", "I^2", "abs(I)^2")
    assert refused.returncode == 3 and "UNDECIDED" in refused.stdout and "'I'" in refused.stdout
    renamed = cli("check", "J^2", "abs(J)^2")
    assert renamed.returncode == 0 and renamed.stdout.startswith("PROVED")


# --- only the kernel's own modules declare axioms and schemes; only its induction, hypotheses -------

def _zero_to_one():
    from symbolic.logic.terms import Const
    return Const(sp.S.Zero), Const(sp.S.One)


def _name(text):
    from symbolic.logic.terms import Const
    return Const(sp.Symbol(text))


def test_a_rule_passed_as_an_induction_hypothesis_proves_nothing():
    from symbolic.kernel.chains import Chain, Rule, prove
    zero, one = _zero_to_one()
    anything = Rule("anything", "", lambda before, after: None, lambda: None)
    chain = Chain("0 = 1", zero).then(anything, one)
    with pytest.raises(TypeError):
        prove(chain, hypotheses=(anything,))         # PROVED '0 = 1', resting on nothing, before the fix
    assert prove(chain)[0].status is Status.UNDECIDED


def test_an_axiom_is_not_assembled_from_the_parts_of_other_rules():
    from symbolic.kernel.chains import Chain, Rule, axiom
    from symbolic.kernel.definitions import definition, hypothesis
    zero, one = _zero_to_one()
    assumed = hypothesis("zero is one", zero, one)                 # printed 'if 0 = 1' where it is used
    defined = definition("a red-team name", _name("redteam_name"), one)
    with pytest.raises(ValueError, match="axiom"):
        axiom(Rule("anything", "", assumed.justify, defined.validity))
    # the hypothesis itself still proves 0 = 1 only under it
    verdict = Chain("0 = 1", zero).then(assumed, one).check()
    assert verdict.proved and verdict.theorem.statement.hypotheses


def test_a_function_given_the_name_of_a_trusted_module_is_not_its_code():
    from symbolic.kernel.chains import Rule, axiom
    from symbolic.kernel.rules import scheme

    def justify(before, after):
        return None

    def validity():
        return by_oracle(EXACT_ZERO, Equation(sp.S.Zero, sp.S.Zero))

    def conclude(premises):
        return Equation(sp.S.Zero, sp.S.One)
    justify.__module__ = validity.__module__ = "symbolic.trusted.axioms.index_rules"
    conclude.__module__ = "symbolic.symmetries.symmetry"
    with pytest.raises(ValueError, match="axiom"):
        axiom(Rule("anything", "", justify, validity))
    with pytest.raises(ValueError, match="scheme"):
        scheme("anything", conclude, "none")


# --- a refutation's point honours the claim's facts and its domain as written ----------------------

def test_a_point_that_breaks_a_symbols_facts_refutes_nothing():
    from symbolic.kernel import refutation
    a = sp.Symbol("a", positive=True)
    # ReLU(a*x) = a*ReLU(x) holds for every a > 0: a = -1 is no counterexample
    refused = refutation(Equation(ReLU(a * x), a * ReLU(x)), {a: -1, x: 1})
    assert refused.status is Status.UNDECIDED and "does not honour" in refused.reason
    # the negative control: a false claim about a > 0, refuted at a point with a > 0
    assert refutation(Equation(ReLU(x + a), ReLU(x) + ReLU(a)), {a: 1, x: -1}).proved
    assert refutation(Equation(ReLU(x + a), ReLU(x) + ReLU(a)), {"a": 1, "x": -1}).proved


def test_a_point_outside_the_domain_as_written_refutes_nothing():
    from symbolic.kernel import refutation
    # sqrt(x)**2 = |x| holds wherever sqrt(x) is real; at x = -1 sympy evaluates it to (i)**2 = -1
    refused = refutation(Equation(sp.Pow(sp.sqrt(x), 2, evaluate=False), sp.Abs(x)), {x: -1})
    assert refused.status is Status.UNDECIDED
    assert refutation(Equation(sp.Pow(sp.sqrt(x), 2, evaluate=False), sp.Abs(x) + 1), {x: 4}).proved


# --- a measure of one's own does not print as the project's ----------------------------------------

def test_a_measure_of_ones_own_under_a_project_key_is_named_as_ones_own():
    from symbolic.measures.definitions import MEASURES, Measure
    from symbolic.symmetries.invariance import check_invariance

    def weight_norm(point):          # a constant: invariant, unlike the project's weight norm
        return sp.Integer(1)
    impostor = Measure("weight_norm", "weight norm", MEASURES["weight_norm"].formula, weight_norm)
    for measure in (weight_norm, impostor):
        verdict = check_invariance(measure, "layerwise").verdict
        assert verdict.proved and verdict.claim.startswith("weight_norm (the caller's own definition) is invariant")
        assert "M = weight_norm (the caller's own definition)" in verdict.theorem.statement.text
    assert check_invariance("weight_norm", "layerwise").verdict.status is Status.REFUTED


def test_an_every_size_statement_says_the_signs_of_its_scalars():
    from symbolic.logic.terms import Const, Mul
    from symbolic.kernel.derivations import definition
    alpha = sp.Symbol("alpha_redteam", positive=True)
    name = sp.Symbol("redteam_scaled")
    defined = definition("a scaled name", Const(name), Mul((Const(alpha), Const(sp.Symbol("u")))))
    statement = defined.validity().theorem.statement
    assert statement.latex.endswith(r"\quad\text{for } \alpha_{redteam} > 0")


# --- discovery: a parameter no prediction contains is its own scale ----------------------------------

def test_discovery_through_a_relu_before_a_batch_normalisation_ends_in_verdicts_not_a_traceback():
    # both examples of the batch on the dead side of a ReLU: sigma^2 = 0, the normalisation is not defined
    model = Model(2, [Dense(2, "W", bias="b"), ReLULayer(), BatchNormTrain(), Dense(1, "v", bias="a")])
    report = discover_symmetries(model, discrete=False)
    assert report.dimension == 2
    assert all(g.report.verdict("prediction").status is Status.PROVED for g in report.generators)
    # the losses are not shown: maximality is not claimed
    assert report.maximality.status is Status.UNDECIDED and "not every generator is proved" in \
        report.maximality.reason


@pytest.mark.parametrize("eps", [0, sp.Rational(1, 10)], ids=["eps 0", "eps 1/10"])
def test_a_bias_absent_at_a_batch_of_two_is_absent_at_a_batch_of_three(eps):
    model = Model(2, [Dense(2, "W", bias="b"), BatchNormTrain(eps), ReLULayer(), Dense(1, "v")])
    present = set().union(*(p.free_symbols for outputs in model.batch_predictions([model.input(n) for n in (1, 2, 3)])
                            for p in outputs))
    assert [model.parameters[k] for k in absent_parameters(model)] == [p for p in model.parameters
                                                                       if p not in present] == list(model["b"])
