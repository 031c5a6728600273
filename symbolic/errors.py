"""The one base of the checker's own exceptions.

Every exception the project defines derives from ``CheckerError`` (and, where it names a kind of
bad value, from ``ValueError`` too), so that a caller can tell the checker's refusals from a bug:
``except CheckerError`` catches what the checker raises on purpose, nothing else.
"""
from __future__ import annotations


class CheckerError(Exception):
    """An error the checker raises on purpose: bad input, a construct outside a procedure's
    fragment, a budget that ran out."""
