"""The pure builders of events (``croupier.events``), which run where the native
accelerator is not built: the class's own events, each slot set once, and a row of any
other length refused."""

from __future__ import annotations

import dataclasses
import pickle

import pytest

from croupier import events
from croupier.events import Event

ROW = ("h1", 3, "card.dealt", "dealer", "dealer-1", bytes(32), b'{"a":1}', bytes([1]) * 32)


def test_the_pure_builders_give_the_classs_own_events() -> None:
    e = events._event_of_fields(*ROW)
    assert type(e) is Event and e == Event(*ROW) and hash(e) == hash(Event(*ROW))
    assert repr(e) == repr(Event(*ROW)) and pickle.loads(pickle.dumps(e)) == e
    with pytest.raises(dataclasses.FrozenInstanceError):
        e.seq = 4  # type: ignore[misc]
    rows = [ROW, (*ROW[:1], 4, *ROW[2:])]
    assert events._events_of_rows(rows) == [Event(*r) for r in rows]
    with pytest.raises(ValueError):
        events._event_of_fields(*ROW[:7])
