"""Secrecy: no gateway response, no table feed and no JetStream message carries a shoe's
server seed before the shoe is revealed, a card the dealer has not dealt yet, or a seat's
face-down cards to anyone else."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
from typing import Any

import pytest
from google.protobuf.message import Message as PbMessage

from croupier import fair
from croupier.events import StreamWriter
from croupier.games import base as g
from croupier.games.registry import engine
from croupier.pb.croupier.v1 import gateway_pb2
from croupier.signing import FileSigner
from croupier_services.dealer import redact_public
from croupier_services.views import HIDDEN, redact

from .harness import (
    VARIANT,
    Cluster,
    all_stream_messages,
    seat_entries,
    unique_table,
    wait_subjects,
)

pytestmark = pytest.mark.integration

BETS = [(1, "banker", 10_000), (2, "tie", 5_000), (3, "player", 20_000)]


def _leaks(seed: bytes, blob: bytes) -> bool:
    """Does ``blob`` contain ``seed`` raw, or as hex in either case?"""
    return seed in blob or seed.hex().encode() in blob.lower()


def _cards(view: gateway_pb2.HandView) -> list[dict[str, Any]]:
    out = []
    for e in view.events:
        if e.type == g.CARD_DEALT:
            out += json.loads(e.payload_json)["cards"]
    return out


class Recorder:
    """Keeps every response the gateway gave, serialised, in order."""

    def __init__(self) -> None:
        self.blobs: list[bytes] = []

    def __call__(self, msg: PbMessage) -> Any:
        self.blobs.append(msg.SerializeToString())
        return msg


async def _play(
    c: Cluster, rec: Recorder, table: str, order: list[str], dealt: list[int]
) -> tuple[str, gateway_pb2.HandView]:
    """One coup, looking at it through every read API at every step. ``dealt`` holds
    the shoe positions dealt so far (updated)."""
    seats = seat_entries(table, 3)
    h = rec(await c.gw.OpenHand(gateway_pb2.OpenHandRequest(table_id=table, seats=seats)))
    bets = [gateway_pb2.Bet(seat=s, spot=sp, amount_minor=a) for s, sp, a in BETS]
    for when in ("opened", "bets placed"):
        if when == "bets placed":
            rec(await c.gw.PlaceBets(gateway_pb2.PlaceBetsRequest(hand_id=h.hand_id, bets=bets)))
        for seat in (None, 1, 2):
            req = gateway_pb2.GetHandViewRequest(hand_id=h.hand_id, seat=seat)
            view = rec(await c.gw.GetHandView(req)).view
            # baccarat deals face up once betting closes: while betting, no card at all
            assert view.phase == "betting", when
            assert _cards(view) == [], (when, seat)
    closed = rec(await c.gw.CloseBetting(gateway_pb2.CloseBettingRequest(hand_id=h.hand_id)))
    cards = _cards(closed.view)
    assert 4 <= len(cards) <= 6
    for card in cards:
        assert card["pos"] not in dealt, "a position dealt twice"
        assert order[card["pos"]] == card["card"]
        dealt.append(card["pos"])
    # positions are dealt in order: nothing beyond what this coup used has been shown
    assert sorted(dealt) == list(range(len(dealt)))
    for seat in (None, 1, 3):
        req = gateway_pb2.GetHandViewRequest(hand_id=h.hand_id, seat=seat)
        view = rec(await c.gw.GetHandView(req)).view
        assert {x["pos"] for x in _cards(view)} <= set(dealt)
    return h.hand_id, closed.view


async def test_no_api_or_stream_carries_an_unrevealed_seed(cluster: Cluster) -> None:
    c = cluster
    rec = Recorder()
    deck = engine(VARIANT).config.deck
    table = unique_table("sec")
    t = rec(await c.gw.OpenTable(gateway_pb2.OpenTableRequest(table_id=table, variant=VARIANT)))
    seed1 = c.store.get_secret(t.shoe_id, c.seed_box)
    assert hashlib.sha256(seed1).digest() == t.commitment
    order1 = fair.shuffle(deck, seed1, table, 1)

    feed: list[gateway_pb2.StreamTableEventsResponse] = []

    async def follow() -> None:
        async for item in c.gw.StreamTableEvents(
            gateway_pb2.StreamTableEventsRequest(table_id=table)
        ):
            feed.append(item)

    follower = asyncio.create_task(follow())
    try:
        dealt: list[int] = []
        hands = []
        for _ in range(2):
            hands.append((await _play(c, rec, table, order1, dealt))[0])
        shown_before_reveal_1 = len(rec.blobs)

        # a new shoe: the old seed is revealed (and may now be shown), the new one not
        s2 = rec(
            await c.gw.OpenShoe(gateway_pb2.OpenShoeRequest(table_id=table, client_seed="second"))
        )
        assert s2.previous_shoe_id == t.shoe_id
        assert s2.previous_server_seed == seed1
        seed2 = c.store.get_secret(s2.shoe_id, c.seed_box)
        assert hashlib.sha256(seed2).digest() == s2.commitment
        order2 = fair.shuffle(deck, seed2, "second", s2.nonce)
        dealt = []
        for _ in range(2):
            hands.append((await _play(c, rec, table, order2, dealt))[0])

        await c.wait_settled(len(hands))
        for hid in hands:  # the stored (settled) view of each hand
            for seat in (None, 2):
                req = gateway_pb2.GetHandViewRequest(hand_id=hid, seat=seat)
                view = rec(await c.gw.GetHandView(req)).view
                assert view.settled and view.outcome_json and view.settlement_json
        n = len(hands)
        await wait_subjects(c.bus, {"hand": n, "outcome": n, "settled": n})
        bus_msgs = await all_stream_messages(c.bus)
        assert len(bus_msgs) == 3 * n

        # before CloseTable: seed2 nowhere; seed1 nowhere before its shoe was revealed
        for i, blob in enumerate(rec.blobs):
            assert not _leaks(seed2, blob), f"response {i} carries the open shoe's seed"
            if i < shown_before_reveal_1:
                assert not _leaks(seed1, blob), f"response {i} carries seed 1 before reveal"
        for m in bus_msgs:
            assert not _leaks(seed2, m.data), m.subject
            assert not _leaks(seed1, m.data), m.subject  # shoe events are not on the bus
        revealed_at = None
        for item in feed:
            blob = item.SerializeToString()
            assert not _leaks(seed2, blob), item.event.type
            if item.event.type == g.SHOE_REVEALED:
                revealed_at = item.cursor
            if _leaks(seed1, blob):
                assert item.event.type == g.SHOE_REVEALED and item.event.stream == t.shoe_id
        assert revealed_at is not None
        # the detector does see a seed where one is legitimately shown (raw and hex)
        assert any(_leaks(seed1, b) for b in rec.blobs[shown_before_reveal_1:])
        assert any(_leaks(seed1, i.event.payload_json.encode()) for i in feed)

        # CloseTable reveals seed2: in its response, on the feed and in the shoe stream
        closed = rec(await c.gw.CloseTable(gateway_pb2.CloseTableRequest(table_id=table)))
        assert closed.shoe_id == s2.shoe_id and closed.server_seed == seed2
        for _ in range(100):
            if any(i.event.type == g.SHOE_REVEALED and i.event.stream == s2.shoe_id for i in feed):
                break
            await asyncio.sleep(0.01)
        (rev,) = [
            i for i in feed if i.event.stream == s2.shoe_id and i.event.type == g.SHOE_REVEALED
        ]
        assert json.loads(rev.event.payload_json)["server_seed"] == seed2.hex()
        stored = [e for e in c.store.read_stream(s2.shoe_id) if e.type == g.SHOE_REVEALED]
        assert [e.payload["server_seed"] for e in stored] == [seed2.hex()]
    finally:
        follower.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await follower


def test_face_down_cards_are_seen_by_their_seat_only() -> None:
    """Baccarat deals everything face up, so the hidden-card path is checked on a log of
    the shape a face-down game produces: seat 1 and seat 2 each get a hole card."""
    dealer = FileSigner.generate("dealer")
    w = StreamWriter("hidden_h1")
    w.append(dealer, g.HAND_OPENED, {"variant": "x", "table": "hidden"})
    w.append(
        dealer,
        g.CARD_DEALT,
        {
            "cards": [
                {"to": "seat:1", "card": "Kd", "pos": 0, "up": False},
                {"to": "seat:2", "card": "7c", "pos": 1, "up": False},
                {"to": "board", "card": "2h", "pos": 2, "up": True},
            ]
        },
    )
    events = w.take()

    def shown(seat: int | None, evs: list[Any]) -> list[str]:
        (dealt,) = [e for e in redact(evs, seat) if e.type == g.CARD_DEALT]
        return [c["card"] for c in json.loads(dealt.payload_json)["cards"]]

    assert shown(None, events) == [HIDDEN, HIDDEN, "2h"]
    assert shown(1, events) == ["Kd", HIDDEN, "2h"]
    assert shown(2, events) == [HIDDEN, "7c", "2h"]
    for seat in (None, 1):
        blob = "".join(e.payload_json for e in redact(events, seat))
        assert "7c" not in blob
    # the live table feed withholds a face-down deal entirely
    assert [e.type for e in redact_public(events)] == [g.HAND_OPENED]
    # once the rules turn seat 2's cards up, everyone sees them
    w.append(dealer, g.CARDS_REVEALED, {"to": "seat:2"})
    events += w.take()
    assert shown(None, events) == [HIDDEN, "7c", "2h"]
    assert shown(3, events) == [HIDDEN, "7c", "2h"]
