"""Records that cross to the dealer's writer process pickle as their fields in order
(:mod:`croupier.picklable`): each comes back equal, field for field, through its own
``__init__``; a write keeps what the writer needs and nothing of the caller's."""

from __future__ import annotations

import asyncio
import dataclasses
import pickle
from dataclasses import dataclass, field
from typing import Any

import pytest

from croupier.events import Seal, SealEntry, SealPart, StreamWriter, seal
from croupier.picklable import ByFields
from croupier.signing import FileSigner
from croupier.store.events import StreamInfo
from croupier.store.outbox import OutboxItem, OutboxRef
from croupier.store.requests import RequestRecord
from croupier.store.tables import TableRecord
from croupier_services.dealer import PendingWrite
from croupier_services.grants import GrantCheck


def fields_of(obj: Any) -> list[Any]:
    return [getattr(obj, f.name) for f in dataclasses.fields(obj)]


def records() -> list[Any]:
    signer = FileSigner.generate("dealer", "dealer-test")
    w = StreamWriter("t1_h1")
    w.append(signer, "hand.opened", {"table": "t1", "n": 1})
    events = w.take()
    whole = seal(signer, [events[-1]], 1000)
    part = dataclasses.replace(whole, version=2, part=SealPart(3, ((1, (b"\1" * 32,)),)))
    ref = OutboxRef("hand", "t1_h1", 0, 0, (whole.seal_id,))
    return [
        events[0],
        SealEntry("t1_h1", 0, events[0].hash),
        whole,
        part,
        TableRecord("t1", "baccarat", "seed", "open", "t1_s1", 1, 1, "t1_h1", {"n": 2}, 5),
        StreamInfo("t1_h1", "hand", "baccarat", "t1", "t1_s1", 5),
        OutboxItem("dealer", "croupier.hand.baccarat.t1", "hand:t1_h1", b"{}", ref),
        OutboxItem("dealer", "croupier.hand.baccarat.t1", "hand:t1_h2", b"{}"),
        RequestRecord("r1", "OpenHand", b"\2" * 32, b"\x0a\x01x", 7),
        GrantCheck("t1", "gateway-dev", 3),
    ]


@pytest.mark.parametrize("record", records(), ids=lambda r: type(r).__name__)
def test_a_record_pickles_as_its_fields_and_comes_back_whole(record: Any) -> None:
    assert isinstance(record, ByFields)
    cls, args = record.__reduce_ex__(pickle.HIGHEST_PROTOCOL)[:2]
    assert cls is type(record) and args == tuple(fields_of(record))  # no generic state
    back = pickle.loads(pickle.dumps(record, protocol=pickle.HIGHEST_PROTOCOL))
    assert type(back) is type(record) and back == record
    assert fields_of(back) == fields_of(record)


def test_a_record_is_rebuilt_through_its_checks() -> None:
    """The reading side runs ``__post_init__`` again: a record that no longer passes its
    checks does not come back."""
    t = TableRecord("t1", "baccarat", "seed", "open", None, 0, 0, None)
    data = pickle.dumps(t).replace(b"open", b"shut")
    with pytest.raises(Exception, match="table status"):
        pickle.loads(data)


def test_a_record_with_keyword_only_fields_is_refused() -> None:
    @dataclass(frozen=True, slots=True)
    class KwOnly(ByFields):
        a: int
        b: int = field(kw_only=True, default=0)

    with pytest.raises(TypeError, match="keyword-only"):
        pickle.dumps(KwOnly(1, b=2))


def test_fields_computed_after_init_are_computed_again() -> None:
    @dataclass(frozen=True, slots=True)
    class Derived(ByFields):
        a: int
        twice: int = field(init=False)

        def __post_init__(self) -> None:
            object.__setattr__(self, "twice", 2 * self.a)

    globals()["Derived"] = Derived  # picklable by name
    Derived.__qualname__ = "Derived"
    back = pickle.loads(pickle.dumps(Derived(21)))
    assert (back.a, back.twice) == (21, 42)


def test_a_write_crosses_without_the_callers_future_signers_or_hands() -> None:
    recs = records()
    loop = asyncio.new_event_loop()
    try:
        w = PendingWrite(
            "t1",
            [("t1", 4)],
            [recs[4]],
            [("t1_s1", b"\3" * 32)],
            5,
            [recs[0]],
            [recs[2]],
            [recs[5]],
            recs[8],
            recs[9],
            unsealed=[(FileSigner.generate("dealer", "d"), [recs[0]])],
            closed=[object()],  # type: ignore[list-item]
            outbox=[recs[6]],
            done=loop.create_future(),
        )
        back = pickle.loads(pickle.dumps(w, protocol=pickle.HIGHEST_PROTOCOL))
    finally:
        loop.close()
    assert (back.done, back.unsealed, back.closed) == (None, [], [])
    kept = [f.name for f in dataclasses.fields(w) if f.name not in ("done", "unsealed", "closed")]
    assert [getattr(back, n) for n in kept] == [getattr(w, n) for n in kept]
    assert isinstance(back.seals[0], Seal)
