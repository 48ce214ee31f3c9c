"""``CROUPIER_SINGLE_BET_EVENTS``: a dealer process told to write for readers older than
``bets.placed`` (a rolling upgrade) writes one ``bet.placed`` per bet; by default one
``bets.placed`` per call. Both as ``croupier serve dealer`` wires them (runtime.Node)."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from croupier.auth import Role, init_dev
from croupier.bus.embedded import EmbeddedNats
from croupier.games import base as g
from croupier.pb.croupier.v1 import gateway_pb2, gateway_pb2_grpc
from croupier.testing import bets_of
from croupier_services.config import AuthSettings, Settings
from croupier_services.keys import init_keys
from croupier_services.runtime import Node
from croupier_services.security import client_channel, seat_metadata

BETS = [("banker", 1, 10_000), ("tie", 2, 1_000), ("player", 2, 5_000)]


def test_the_setting_is_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    assert Settings.from_env("dealer").single_bet_events is False
    monkeypatch.setenv("CROUPIER_SINGLE_BET_EVENTS", "1")
    assert Settings.from_env("dealer").single_bet_events is True


@pytest.mark.parametrize("single", [False, True], ids=["bets_placed", "single_bet_events"])
async def test_a_dealer_process_writes_the_form_it_is_told(
    embedded_nats: EmbeddedNats, tmp_path: Path, single: bool
) -> None:
    auth = init_dev(tmp_path / "auth")
    init_keys(tmp_path / "keys")
    node = Node(
        roles=("dealer",),
        database_url=f"sqlite:///{tmp_path / 'dealer.sqlite'}",
        keys_dir=str(tmp_path / "keys"),
        nats_url=embedded_nats.url,
        single_bet_events=single,
        auth=AuthSettings.from_env(str(auth.root)),
    )
    await node.start()
    try:
        assert node.store is not None
        async with client_channel(f"127.0.0.1:{node.bound_port}", auth.root, Role.GATEWAY) as ch:
            gw = gateway_pb2_grpc.GatewayServiceStub(ch)
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
    finally:
        await node.stop()
