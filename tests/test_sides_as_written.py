"""No PROVED row of the every-size results states a comparison whose two sides are the same as
written: a statement that arrived as 0 = 0 or X = X proves nothing (sympy would have cancelled the
claim before the kernel saw it)."""
import pytest
import sympy as sp

from proofs import all_sizes, measures_all_sizes
from symbolic import Status
from symbolic.logic.statements import Conclusion


def comparisons(statement):
    """(lhs, rhs) of every equation, relation and index-level equation a statement states, the
    premises of an inference scheme's conclusion included."""
    for part in statement.parts():
        if isinstance(part, Conclusion):
            for premise in part.premises:
                yield from comparisons(premise)
        elif hasattr(part, "lhs") and hasattr(part, "rhs"):
            yield part.lhs, part.rhs


def same_as_written(lhs, rhs) -> bool:
    """The two sides are one expression: the same tree, or the same printed text."""
    return lhs == rhs or str(lhs) == str(rhs) or (isinstance(lhs, sp.Basic) and sp.srepr(lhs) == sp.srepr(rhs))


@pytest.fixture(scope="module")
def rows():
    reports = [all_sizes.run([(1, 1, 1), (2, 1, 2)]), measures_all_sizes.run()]
    return [row for report in reports for row in report.results]


def bare_parts(row) -> list:
    return [str(lhs) for lhs, rhs in comparisons(row.verdict.statement) if same_as_written(lhs, rhs)]


def test_no_proved_row_is_only_the_same_side_twice(rows):
    proved = [row for row in rows if row.verdict.status is Status.PROVED]
    assert len(proved) >= 130
    assert [row.claim for row in proved if len(bare_parts(row)) == len(list(comparisons(row.verdict.statement)))] == []


def test_the_rules_and_the_closed_forms_compare_their_sides_as_written(rows):
    # each rule's validity check states the rule's instances; the MSE closed forms state the
    # derivatives as written: not one of their parts has the same side twice
    rules = [row for row in rows if row.claim.startswith("rule: ") or row.claim.startswith("MSE closed forms")]
    assert len(rules) >= 17
    assert [(row.claim, bare_parts(row)[:3]) for row in rules if bare_parts(row)] == []


def test_the_rule_rows_state_the_rules_instances(rows):
    # the derivative rules state derivatives as written, compared with what the rule says they are
    statements = {row.claim: row.verdict.statement.text for row in rows}
    assert "Derivative(" in statements["rule: derivative of a constant, valid for every size"]
    assert "KroneckerDelta(" in statements["rule: delta contraction, valid for every size"]
    assert statements["rule: indicator homogeneity, valid for every size"].endswith("= Heaviside(s, 0) for c > 0")
    mse = [text for claim, text in statements.items() if claim == "MSE closed forms of the gradient and the Hessian blocks"]
    assert mse and all("Derivative(" in text for text in mse)


def test_the_check_sees_a_bare_equation():
    # the negative control: an equation whose sides cancelled before the kernel saw it is caught
    x = sp.Symbol("x", real=True)
    assert same_as_written(sp.diff(x, x) - 1, sp.S.Zero)
    assert same_as_written(2 * x, x + x)
    assert not same_as_written(sp.Derivative(x, x), sp.S.One)
