"""Per-claim time budgets: when one runs out, the claim is UNDECIDED, never a hang or a guess."""
from __future__ import annotations

import contextlib
import signal
import threading
import time


class BudgetExhausted(Exception):
    """Raised inside a check whose time budget ran out."""


_deadline: list[float] = []


def check_budget() -> None:
    """Cooperative check, called between steps of long computations."""
    if _deadline and time.monotonic() > _deadline[-1]:
        raise BudgetExhausted


@contextlib.contextmanager
def time_budget(seconds: float | None):
    """Run the body with at most ``seconds`` of wall time (None: no limit).

    In the main thread a timer signal interrupts long sympy calls; elsewhere the body's own
    ``check_budget`` calls enforce the limit.
    """
    if seconds is None:
        yield
        return
    if seconds <= 0:
        raise ValueError("a time budget must be positive")
    use_signal = threading.current_thread() is threading.main_thread()
    previous = signal.getsignal(signal.SIGALRM) if use_signal else None
    _deadline.append(time.monotonic() + seconds)
    try:
        if use_signal:
            signal.signal(signal.SIGALRM, _on_alarm)
            signal.setitimer(signal.ITIMER_REAL, seconds)
        yield
    finally:
        if use_signal:
            signal.setitimer(signal.ITIMER_REAL, 0)
        _deadline.pop()
        if use_signal:
            signal.signal(signal.SIGALRM, previous)
            if _deadline:
                # re-arm the enclosing budget's timer
                signal.setitimer(signal.ITIMER_REAL, max(_deadline[-1] - time.monotonic(), 1e-3))


def _on_alarm(signum, frame):
    # only a budget that is still open may interrupt
    if _deadline:
        raise BudgetExhausted


def within_budget(check, seconds: float | None, claim: str):
    """``check()`` run with a budget of ``seconds``; an UNDECIDED verdict when it runs out."""
    from symbolic.verdict import Status, Verdict
    try:
        with time_budget(seconds):
            return check()
    except BudgetExhausted:
        return Verdict(Status.UNDECIDED, claim, reason=f"time budget of {seconds} s ran out")


def remaining() -> float | None:
    """Seconds left in the innermost budget (None: no limit)."""
    return max(_deadline[-1] - time.monotonic(), 0.0) if _deadline else None


@contextlib.contextmanager
def uninterrupted():
    """Hold the budget's timer signal while the body runs (an external solver that must not be
    interrupted half-way, e.g. z3, which is given its own time limit instead); a budget that ran
    out meanwhile takes effect when the body ends."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGALRM})
