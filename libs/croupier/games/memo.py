"""Evaluated hands remembered per rule set.

A family whose hands are evaluated by a pure function of the cards (or tiles) and the
variant's hand rules keeps, on the rules object, a dict of the hands it evaluated: one
hand is read by its checks, its outcome, its settlement and the next hand's carry, in
the rule service and again in the audit. :func:`recall` looks a key up and evaluates
it on a miss; the dict is emptied when it holds :data:`KEPT` entries, so memory stays
bounded however many hands a process sees. What is remembered must be immutable (the
families' hands are frozen dataclasses of tuples), since every caller gets the same one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

K = TypeVar("K")
V = TypeVar("V")

KEPT = 4096
"""Entries a memory holds before it starts again."""


def recall(memo: dict[K, V], key: K, make: Callable[[K], V]) -> V:
    """``memo[key]``, or ``make(key)`` remembered under ``key``."""
    value = memo.get(key)
    if value is None:
        if len(memo) >= KEPT:
            memo.clear()
        value = memo[key] = make(key)
    return value
