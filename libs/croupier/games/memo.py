"""Pure answers remembered where they are asked again.

A family whose hands are evaluated by a pure function of the cards (or tiles) and the
variant's hand rules keeps, on the rules object, a dict of the hands it evaluated: one
hand is read by its checks, its outcome, its settlement and the next hand's carry, in
the rule service and again in the audit (牛牛, 三公, the 筒子 pair games). Mahjong keeps
查大叫's best fan per engine, by all it reads. :func:`recall` looks a key up and works
the answer out on a miss (``None`` is an answer like any other); the dict is emptied
when it holds :data:`KEPT` entries, so memory stays bounded however many hands a
process sees. What is remembered must be immutable (the families' hands are frozen
dataclasses of tuples), since every caller gets the same one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

K = TypeVar("K")
V = TypeVar("V")

KEPT = 4096
"""Entries a memory holds before it starts again."""


_MISSING: Any = object()


def recall(memo: dict[K, V], key: K, make: Callable[[K], V]) -> V:
    """``memo[key]``, or ``make(key)`` remembered under ``key``."""
    value: V = memo.get(key, _MISSING)
    if value is _MISSING:
        if len(memo) >= KEPT:
            memo.clear()
        value = memo[key] = make(key)
    return value
