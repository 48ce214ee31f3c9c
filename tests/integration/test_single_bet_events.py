"""``CROUPIER_SINGLE_BET_EVENTS``: a dealer process told to write for readers older than
``bets.placed`` (a rolling upgrade) writes one ``bet.placed`` per bet; by default one
``bets.placed`` per call. Both as ``croupier serve dealer`` wires them (runtime.Node)."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from croupier.bus.embedded import EmbeddedNats
from croupier.games import base as g
from croupier.pb.croupier.v1 import gateway_pb2
from croupier.testing import bets_of
from croupier_services.config import Settings
from croupier_services.security import seat_metadata

from .harness import dealer_node

BETS = [("banker", 1, 10_000), ("tie", 2, 1_000), ("player", 2, 5_000)]


def test_the_setting_is_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    assert Settings.from_env("dealer").single_bet_events is False
    monkeypatch.setenv("CROUPIER_SINGLE_BET_EVENTS", "1")
    assert Settings.from_env("dealer").single_bet_events is True


@pytest.mark.parametrize("single", [False, True], ids=["bets_placed", "single_bet_events"])
async def test_a_dealer_process_writes_the_form_it_is_told(
    embedded_nats: EmbeddedNats, tmp_path: Path, single: bool
) -> None:
    async with dealer_node(tmp_path, embedded_nats.url, single_bet_events=single) as (node, gw):
        assert node.store is not None
        table = f"sb_{uuid.uuid4().hex[:8]}"
        await gw.OpenTable(gateway_pb2.OpenTableRequest(table_id=table, variant="baccarat"))
        seats = [
            gateway_pb2.SeatEntry(seat=n, player_id=f"{table}p{n}", stack_minor=10**7)
            for n in (1, 2)
        ]
        h = await gw.OpenHand(gateway_pb2.OpenHandRequest(table_id=table, seats=seats))
        tokens = [
            (
                await gw.IssueSeatToken(
                    gateway_pb2.IssueSeatTokenRequest(
                        table_id=table, seat=s.seat, player_id=s.player_id
                    )
                )
            ).token
            for s in seats
        ]
        bets = [gateway_pb2.Bet(seat=s, spot=sp, amount_minor=a) for sp, s, a in BETS]
        await gw.PlaceBets(
            gateway_pb2.PlaceBetsRequest(hand_id=h.hand_id, bets=bets),
            metadata=seat_metadata(tokens),
        )
        await gw.CloseBetting(gateway_pb2.CloseBettingRequest(hand_id=h.hand_id))
        events = node.store.read_stream(h.hand_id)
    types = [e.type for e in events]
    want = [g.BET_PLACED] * len(BETS) if single else [g.BETS_PLACED]
    assert types[1 : 1 + len(want)] == want and types[1 + len(want)] == g.BETTING_CLOSED
    assert all(e.producer == "gateway" for e in events[1 : 1 + len(want)])
    assert [(b["spot"], b["seat"], b["amount"]) for b in bets_of(events)] == BETS
    assert types[-1] == g.HAND_CLOSED
