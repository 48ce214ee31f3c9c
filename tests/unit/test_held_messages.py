"""The relay's memory of the messages written by reference: bounded in bytes, given up
when published or when the transaction fails, and swept only when a row no longer
waits and its hold is old."""

from __future__ import annotations

from croupier.bus.relay import HeldMessages
from croupier.store import OutboxItem, OutboxRef


def _item(msg_id: str, size: int, *, ref: bool = True) -> OutboxItem:
    r = OutboxRef("hand", msg_id, 0, 1, ()) if ref else None
    return OutboxItem("dealer", "croupier.hand.baccarat.t", msg_id, b"x" * size, r)


def test_holds_what_has_a_reference_while_there_is_room() -> None:
    held = HeldMessages(max_bytes=250)
    kept = held.hold([_item("a", 100), _item("b", 100, ref=False), _item("c", 100)])
    assert kept == {"a", "c"} and held.size == 200  # "b" has no reference: kept whole
    assert held.hold([_item("d", 100)]) == frozenset()  # no room: written with its bytes
    assert held.hold([_item("a", 100)]) == frozenset()  # held already
    assert held.get("a") == b"x" * 100 and held.get("d") is None
    held.release(["a", "zz"])
    assert held.get("a") is None and held.size == 100 and len(held) == 1
    assert held.hold([_item("d", 100)]) == {"d"}


def test_sweep_gives_up_old_holds_of_rows_no_longer_waiting() -> None:
    held = HeldMessages(max_age_s=0.0)
    held.hold([_item("a", 10), _item("b", 10)])
    held.sweep({"a"})  # "b" was published by another relay
    assert held.get("a") is not None and held.get("b") is None and held.size == 10
    young = HeldMessages(max_age_s=3600.0)
    young.hold([_item("c", 10)])
    young.sweep(set())  # its row may not be committed yet: kept
    assert young.get("c") is not None
