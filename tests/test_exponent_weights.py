"""The exact test by alpha-weights against the composition test, and its reach past the old size limit."""
import itertools

import pytest

from proofs import theorem3_derivative_transformation as theorem3
from symbolic.networks.polynomial import PatternNetwork, alpha_weights


def test_weights_are_read_off_the_exponents():
    model = PatternNetwork(1, 1, 1)
    g = model.gens
    exponents = model.weight_exponents({"W": 1, "v": -1})
    assert alpha_weights(g["W_1_1"] ** 2 * g["v_1"], exponents) == {1}
    assert alpha_weights(g["W_1_1"] + g["v_1"] * g["x_1_1"], exponents) == {1, -1}
    assert alpha_weights(model.predictions[0], exponents) == {0}
    assert alpha_weights(0 * g["W_1_1"], exponents) == set()


@pytest.mark.parametrize("variant", list(theorem3.VARIANTS))
@pytest.mark.parametrize("loss", ["mse", "logistic", "quadratic"])
def test_weight_test_and_composition_test_agree(variant, loss):
    # every variant (the theorem, its true extension and the false controls), both orders
    for size, order in itertools.product([(1, 2, 1), (2, 2, 2)], (1, 2)):
        by_weights = theorem3.weight_identity(*size, loss, order, theorem3.VARIANTS[variant])
        by_composition = theorem3.exact_polynomial_identity(*size, loss, order,
                                                            theorem3.VARIANTS[variant])
        assert by_weights[0] == by_composition[0], (variant, loss, size, order)


def test_chain_rule_by_weights_matches_the_composed_chain_rule():
    for order, inverse in itertools.product((1, 2), (False, True)):
        assert theorem3.chain_rule_by_weights(2, 2, order, inverse) == \
            theorem3.chain_rule_check(2, 2, order, inverse)
    assert not theorem3.chain_rule_by_weights(2, 2, 2, claimed_inverse=True)


def test_the_weight_test_decides_past_the_cross_check_sizes():
    assert theorem3.weight_identity(12, 12, 12, "mse", 2) == (True, None)
    assert theorem3.weight_identity(12, 12, 12, "quadratic", 1) == (True, None)
    holds, entry = theorem3.weight_identity(5, 4, 5, "mse", 2, theorem3.VARIANTS["S inverse"])
    assert not holds and entry == ("W_1_1", "W_1_1")


def test_the_derivation_names_the_exact_test():
    report = theorem3.run([(1, 1, 1)])
    notes = " ".join(report.derivation.notes)
    assert "reading exponents" in notes and "composition test" in notes


def test_theorem3_accepts_sizes_up_to_16():
    from proofs.commands import cli as cli_module
    from proofs.commands.arguments import UsageError
    parser = cli_module.build_parser()
    assert cli_module.sweep(theorem3, parser.parse_args(["--size", "16,16,16"])) == [(16, 16, 16)]
    with pytest.raises(UsageError):
        cli_module.sweep(theorem3, parser.parse_args(["--size", "17,16,16"]))
