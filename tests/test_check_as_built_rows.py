"""The project's own proof scripts are not exempt: a PROVED row whose statement only compares sides
that arrived as one expression (``u = u``, ``0 = 0``: sympy evaluated the claim before the checker
saw it) proves nothing, and this test finds it.

Each script runs at its smallest size; a row is flagged when every part of its statement is an
equation whose sides are one expression as given, or whose difference sympy's automatic evaluation
makes 0 (``symbolic.checks.trivial_as_built``).  The row below is flagged and says something all
the same; any other row fails the test, and a listed row that is no longer flagged is to be struck."""
import pytest

from proofs.commands import registry
from symbolic.checks import trivial_as_built
from symbolic.kernel.verdict import Status
from symbolic.logic.statements import Equation

# (result, claim) of the rows flagged that say something all the same: the sum-of-terms rule's
# instances are written unevaluated, (a + b) + c against a + (b + c), and differ as written; only
# sympy's flattening of their difference makes it 0
BEING_RESTATED = {
    ("all_sizes", "rule: sum of terms, valid for every size"),
}


def _parts(statement) -> list:
    """The statement's parts that are no conjunction (a conjunction read part by part)."""
    parts = statement.parts()
    if len(parts) == 1 and parts[0] is statement:
        return [statement]
    return [leaf for part in parts for leaf in _parts(part)]


def _compares_a_side_with_itself(verdict) -> bool:
    if verdict.status is not Status.PROVED:
        return False
    parts = _parts(verdict.theorem.statement)
    return all(isinstance(part, Equation) and trivial_as_built(part) for part in parts)


@pytest.mark.parametrize("name", registry.names())
def test_no_proved_row_compares_a_side_with_itself(name):
    script = registry.load(name)
    sizes = list(getattr(script, "FIXED_SIZES", [(1, 1, 1)]))
    report = script.run(sizes, seed=0)
    found = {(name, row.claim) for row in report.results if _compares_a_side_with_itself(row.verdict)}
    new = found - BEING_RESTATED
    assert not new, f"rows that compare a side with itself: {sorted(new)}"
    # a row restated is struck from the list
    listed = {row for row in BEING_RESTATED if row[0] == name}
    assert listed <= found, f"rows restated since, to strike from the list: {sorted(listed - found)}"


def test_the_reading_flags_a_row_that_says_nothing():
    import sympy as sp
    from symbolic.checks import identity, zeros
    x = sp.Symbol("x", real=True)
    assert _compares_a_side_with_itself(identity(x, x))
    assert _compares_a_side_with_itself(zeros("nothing", [x - x, (x + 1, 1 + x)]))
    assert not _compares_a_side_with_itself(zeros("something", [x - x, (x * (x + 1), x ** 2 + x)]))
