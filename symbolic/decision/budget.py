"""Per-claim time budgets: when one runs out, the claim is UNDECIDED, never a hang or a guess.

A budget is a deadline on the clock, checked in two ways:

- cooperatively: the procedures' loops call ``check_budget()`` between steps, which raises
  ``BudgetExhausted`` once the earliest open deadline has passed (in any thread);
- in the main thread, a timer signal stops a long sympy computation between two of its steps.
  The signal never raises inside code it does not know: only when every frame from the one it
  interrupts up to the one that opened the budget belongs to the project, sympy or mpmath.  In
  any other frame (a garbage-collection callback of JAX, a C library calling back into Python,
  the budget's own bookkeeping) it raises nothing and fires again ``RETRY`` seconds later; and
  after it has raised it keeps firing every ``RETRY`` seconds until the budget is closed, so an
  exception swallowed by a broad ``except`` is raised again.  A budget cannot be lost.
"""
from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time

import mpmath
import sympy

from symbolic.errors import CheckerError
from symbolic.kernel.verdict import Status, Verdict


class BudgetExhausted(CheckerError):
    """Raised inside a check whose time budget ran out."""


RETRY = 0.05     # seconds between two alarms once a deadline has passed

# the open budgets of this process, innermost last: (deadline on the monotonic clock, the frame
# that opened it)
_open: list[tuple[float, object]] = []

# code the alarm may interrupt: the project's own (symbolic/, and proofs/, tests/, benchmarks/
# beside it), sympy's and mpmath's, all of it plain Python that unwinds cleanly
_SYMBOLIC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_INTERRUPTIBLE = tuple(directory + os.sep for directory in (
    _SYMBOLIC, *(os.path.join(os.path.dirname(_SYMBOLIC), name) for name in ("proofs", "tests", "benchmarks")),
    *(os.path.dirname(os.path.abspath(module.__file__)) for module in (sympy, mpmath))))
_BOOKKEEPING = os.path.abspath(__file__)


def _earliest() -> float | None:
    return min(deadline for deadline, _ in _open) if _open else None


def check_budget() -> None:
    """Cooperative check, called between steps of long computations."""
    earliest = _earliest()
    if earliest is not None and time.monotonic() > earliest:
        raise BudgetExhausted


def remaining() -> float | None:
    """Seconds left in the earliest open budget (None: no limit)."""
    earliest = _earliest()
    return None if earliest is None else max(earliest - time.monotonic(), 0.0)


def _in_main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


def _arm() -> None:
    """Set the timer to the earliest open deadline, or clear it when no budget is open."""
    earliest = _earliest()
    delay = 0.0 if earliest is None else max(earliest - time.monotonic(), 1e-3)
    signal.setitimer(signal.ITIMER_REAL, delay)


def _interruptible(frame) -> bool:
    """Every frame from ``frame`` up to the one that opened the innermost budget runs code the
    alarm may interrupt (module docstring)."""
    owner = _open[-1][1]
    while frame is not None and frame is not owner:
        path = frame.f_code.co_filename      # '<string>' and the like: code of unknown origin
        if path == _BOOKKEEPING or not os.path.isabs(path) or not path.startswith(_INTERRUPTIBLE):
            return False
        frame = frame.f_back
    return frame is owner


def _on_alarm(signum, frame):
    earliest = _earliest()
    if earliest is None:
        return                              # every budget closed meanwhile
    if time.monotonic() < earliest:
        _arm()                              # early: a nested budget moved the timer
        return
    signal.setitimer(signal.ITIMER_REAL, RETRY)    # again soon, however this alarm ends
    if _interruptible(frame):
        raise BudgetExhausted


@contextlib.contextmanager
def time_budget(seconds: float | None):
    """Run the body with at most ``seconds`` of wall time (None: no limit); past it the body is
    stopped with ``BudgetExhausted`` (module docstring).  Budgets nest: the earliest deadline
    holds."""
    if seconds is None:
        yield
        return
    if seconds <= 0:
        raise ValueError("a time budget must be positive")
    use_signal = _in_main_thread()
    outermost = use_signal and not _open
    previous = signal.signal(signal.SIGALRM, _on_alarm) if outermost else None
    # the frame running the body: the caller of this generator's __enter__
    _open.append((time.monotonic() + seconds, sys._getframe(2)))
    try:
        if use_signal:
            _arm()
        yield
    finally:
        _open.pop()
        if use_signal:
            _arm()
        if outermost:
            signal.signal(signal.SIGALRM, previous)


def within_budget(check, seconds: float | None, claim: str):
    """``check()`` run with a budget of ``seconds``; an UNDECIDED verdict when it runs out."""
    try:
        with time_budget(seconds):
            return check()
    except BudgetExhausted:
        return Verdict(Status.UNDECIDED, claim, reason=f"time budget of {seconds} s ran out")


@contextlib.contextmanager
def uninterrupted():
    """Hold the budget's timer signal while the body runs (an external solver that must not be
    interrupted half-way, e.g. z3, which is given its own time limit instead); a budget that ran
    out meanwhile takes effect when the body ends."""
    if not _in_main_thread():
        yield
        return
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGALRM})
