"""The time budget cannot be lost: a claim with a budget of 1 s stops near 1 s with JAX imported
(whose garbage-collection callback runs at any allocation), an alarm that lands in such a callback
raises nothing there and stops the claim a moment later, and nested budgets keep the earliest
deadline.  The upper bounds on the time are generous (several times the budget) so that a loaded
machine cannot fail them; the work stopped would run for over half a minute."""
import gc
import sys
import time

import pytest
import sympy as sp

from symbolic import Status
from symbolic.decision.budget import BudgetExhausted, check_budget, remaining, time_budget, \
    within_budget

SYMBOLS = sp.symbols("a b c d e")
SLACK = 4.0       # seconds allowed past a deadline: unwinding, and a loaded machine


def long_expansion():
    """Pure sympy arithmetic, with no cooperative check, for well over 30 s."""
    total = sp.Integer(0)
    for power in range(30, 60):
        total += sp.expand((sum(SYMBOLS) + 1) ** power)
    return total


def test_a_claim_with_a_one_second_budget_stops_near_one_second_while_jax_is_imported():
    jax = pytest.importorskip("jax")
    jax.numpy.ones(3).sum().block_until_ready()       # XLA initialised, its gc callback live
    start = time.monotonic()
    verdict = within_budget(long_expansion, 1.0, "a long expansion")
    elapsed = time.monotonic() - start
    assert verdict.status is Status.UNDECIDED and "time budget of 1.0 s ran out" in verdict.reason
    assert 1.0 <= elapsed < 1.0 + SLACK, elapsed


BUDGET = 0.5


@pytest.fixture
def callback_across_the_deadline():
    """A collector callback in Python, as JAX's is, from a module of another library: it holds the
    interpreter from 0.1 s before the deadline to 0.2 s after it, so the alarm lands inside it."""
    namespace = {"time": time}
    exec(compile("def callback(phase, info):\n"
                 "    while window[0] <= time.monotonic() < window[1]:\n"
                 "        pass\n", "<another library>", "exec"), namespace)
    callback = namespace["callback"]
    gc.callbacks.append(callback)
    try:
        yield namespace
    finally:
        gc.callbacks.remove(callback)


def test_an_alarm_inside_a_gc_callback_raises_nothing_there_and_still_stops_the_claim(
        callback_across_the_deadline):
    swallowed = []
    previous_hook, sys.unraisablehook = sys.unraisablehook, swallowed.append
    try:
        start = time.monotonic()
        callback_across_the_deadline["window"] = (start + BUDGET - 0.1, start + BUDGET + 0.2)
        with pytest.raises(BudgetExhausted):
            with time_budget(BUDGET):
                long_expansion()
        elapsed = time.monotonic() - start
    finally:
        sys.unraisablehook = previous_hook
    assert not [s for s in swallowed if isinstance(s.exc_value, BudgetExhausted)]
    assert BUDGET + 0.2 <= elapsed < BUDGET + SLACK, elapsed


def test_nested_budgets_keep_the_earliest_deadline():
    start = time.monotonic()
    with pytest.raises(BudgetExhausted):
        with time_budget(0.5):
            with time_budget(600):
                assert remaining() <= 0.5
                long_expansion()
    assert time.monotonic() - start < 0.5 + SLACK


def test_the_cooperative_check_raises_past_the_deadline_and_nothing_is_left_armed():
    with pytest.raises(BudgetExhausted):
        with time_budget(0.2):
            while True:
                check_budget()
    assert remaining() is None
    long_running = time.monotonic() + 0.4       # no alarm of a closed budget fires later
    while time.monotonic() < long_running:
        pass
