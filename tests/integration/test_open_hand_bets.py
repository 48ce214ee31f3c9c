"""OpenHand with its bets and ``close_betting`` over real gRPC, NATS and SQL: a baccarat
coup in one call is dealt, settled once and audited like a coup of three calls; a retry
is answered from its record; the bets' seats need their seat tokens (naming the players
the call seats); a refused bet or token writes nothing, not even the hand."""

from __future__ import annotations

import random
import uuid
from typing import Any

import grpc
import pytest

from croupier import trace
from croupier.auth import Role
from croupier.games import base as g
from croupier.pb.croupier.v1 import gateway_pb2, gateway_pb2_grpc, settlement_pb2
from croupier.testing import bets_of
from croupier_services.bots import bets_for
from croupier_services.grpc_util import error_info
from croupier_services.security import client_channel, seat_metadata

from .harness import STACK, VARIANT, Cluster, metric, seat_entries

pytestmark = pytest.mark.integration

PLAYERS = 3
HANDS = 4


def _bets(bets: list[tuple[int, str, int]]) -> list[gateway_pb2.Bet]:
    return [gateway_pb2.Bet(seat=s, spot=sp, amount_minor=a) for s, sp, a in bets]


def coup_request(
    table: str,
    seats: list[gateway_pb2.SeatEntry],
    bets: list[tuple[int, str, int]],
    *,
    close: bool = True,
    request_id: str = "",
) -> gateway_pb2.OpenHandRequest:
    """An opening carrying its bets (and, with ``close``, the close of betting)."""
    return gateway_pb2.OpenHandRequest(
        table_id=table,
        seats=seats,
        bets=_bets(bets),
        close_betting=close,
        request_id=request_id,
    )


def written(c: Cluster) -> tuple[int, int, int]:
    return c.store.count_events(), c.store.count_requests(), len(c.store.list_streams(limit=10**5))


async def test_a_coup_in_one_call_settles_once_and_audits(cluster: Cluster) -> None:
    c = cluster
    c.fix_seeds("one-call")
    table = await c.open_table("one", client_seed="one-call")
    rng = random.Random(7)
    seats = seat_entries(table, PLAYERS)
    hands: list[str] = []
    staked = 0
    settled_before = metric("croupier_hands_settled_total", variant=VARIANT)
    bets_before = metric("croupier_bets_minor_total", variant=VARIANT)

    def coup(n: int, bets: list[tuple[int, str, int]]) -> Any:
        return c.gw.OpenHand(coup_request(table, seats, bets, request_id=f"one-{table}-{n}"))

    for n in range(1, HANDS + 1):
        bets = bets_for(VARIANT, rng, list(range(1, PLAYERS + 1)), n, STACK)
        staked += sum(a for _, _, a in bets)
        call = coup(n, bets)
        h = await call
        assert (h.hand_id, h.hand_no, h.accepted) == (f"{table}_h{n}", n, len(bets))
        assert h.view.phase == "closed"
        # the dealer's and gateway's events (the rules' outcome may follow already)
        events = [e for e in c.store.read_stream(h.hand_id) if e.producer in ("dealer", "gateway")]
        assert h.last_seq == events[-1].seq
        types = [e.type for e in events]
        assert types[:3] == [g.HAND_OPENED, g.BETS_PLACED, g.BETTING_CLOSED]
        assert types[-1] == g.HAND_CLOSED and events[1].producer == "gateway"
        assert len(bets_of(events)) == len(bets) and types.count(g.BETS_PLACED) == 1
        md = dict(await call.trailing_metadata())
        assert md["traceparent"].startswith("00-")
        hands.append(h.hand_id)

    await c.wait_settled(HANDS)
    # a retry of the last call: its stored response, nothing written (the
    # pipeline is idle once every hand is settled)
    before = written(c)
    again = coup(HANDS, bets)
    assert (await again).hand_id == hands[-1]
    md = dict(await again.trailing_metadata())  # the mark and the hand's trace, both
    assert md["croupier-replayed"] == "true"
    assert md["traceparent"] == trace.hand_traceparent(hands[-1])
    assert written(c) == before

    for hid in hands:
        txs = c.store.transactions_for(hid)
        assert [t.kind for t in txs] == ["settle"], hid
        assert sum(p.amount for p in txs[0].postings) == 0
        s = await c.st.GetSettlement(settlement_pb2.GetSettlementRequest(hand_id=hid))
        assert sum(d.amount_minor for d in s.settlement.deltas) == 0
    assert sum(c.store.balances().values()) == 0
    assert metric("croupier_hands_settled_total", variant=VARIANT) - settled_before == HANDS
    assert metric("croupier_bets_minor_total", variant=VARIANT) - bets_before == staked
    await c.gw.CloseTable(gateway_pb2.CloseTableRequest(table_id=table))
    auditor = c.auditor()
    for hid in hands:
        rep = auditor.audit(hid)
        assert rep.verdict.value == "pass", (hid, rep.reason, rep.message)


async def test_bets_with_the_opening_need_the_seated_players_tokens(
    idle_cluster: Cluster,
) -> None:
    c = idle_cluster
    table = f"obt_{uuid.uuid4().hex[:10]}"
    await c.gw.OpenTable(
        gateway_pb2.OpenTableRequest(table_id=table, variant=VARIANT, client_seed="s")
    )
    seats = seat_entries(table, 2)
    req = coup_request(table, seats, [(1, "banker", 10_000), (2, "player", 20_000)])
    async with client_channel(f"127.0.0.1:{c.port}", c.auth.root, Role.GATEWAY) as ch:
        gw = gateway_pb2_grpc.GatewayServiceStub(ch)
        tok = {
            (seat, player): (
                await gw.IssueSeatToken(
                    gateway_pb2.IssueSeatTokenRequest(table_id=table, seat=seat, player_id=player)
                )
            ).token
            for seat, player in ((1, f"{table}_p1"), (2, f"{table}_p2"), (2, "someone_else"))
        }
        before = written(c)
        refusals = [
            ((), "no_seat_token"),  # no token at all
            ((tok[1, f"{table}_p1"],), "wrong_seat"),  # seat 2's bet without seat 2's token
            ((tok[1, f"{table}_p1"], tok[2, "someone_else"]), "wrong_seat"),  # another player
        ]
        for tokens, reason in refusals:
            with pytest.raises(grpc.aio.AioRpcError) as e:
                await gw.OpenHand(req, metadata=seat_metadata(list(tokens)))
            assert e.value.code() == grpc.StatusCode.PERMISSION_DENIED
            assert (e.value.details() or "").startswith(f"{reason}:"), e.value.details()
        assert written(c) == before
        # the opening alone needs no seat token
        own = (tok[1, f"{table}_p1"], tok[2, f"{table}_p2"])
        h = await gw.OpenHand(req, metadata=seat_metadata(list(own)))
        assert (h.hand_id, h.accepted, h.view.phase) == (f"{table}_h1", 2, "closed")
        plain = await gw.OpenHand(gateway_pb2.OpenHandRequest(table_id=table, seats=seats))
        assert plain.hand_id == f"{table}_h2" and plain.accepted == 0
        assert not plain.HasField("view")


@pytest.mark.parametrize(
    ("bets", "close", "code", "reason"),
    [
        ([(1, "nowhere", 10_000)], True, grpc.StatusCode.INVALID_ARGUMENT, "unknown_spot"),
        ([(1, "banker", 0)], True, grpc.StatusCode.INVALID_ARGUMENT, "bad_amount"),
        ([(1, "banker", 10**14)], False, grpc.StatusCode.FAILED_PRECONDITION, "over_limit"),
        ([(1, "banker", 100)] * 501, True, grpc.StatusCode.INVALID_ARGUMENT, "too_many_bets"),
    ],
)
async def test_a_refused_bet_writes_nothing_not_even_the_hand(
    idle_cluster: Cluster,
    bets: list[tuple[int, str, int]],
    close: bool,
    code: grpc.StatusCode,
    reason: str,
) -> None:
    c = idle_cluster
    table = await c.open_table("obr")
    seats = seat_entries(table, 2)
    before = written(c)
    with pytest.raises(grpc.aio.AioRpcError) as e:
        await c.gw.OpenHand(coup_request(table, seats, bets, close=close, request_id=f"r-{table}"))
    info = error_info(e.value)
    assert (e.value.code(), info.reason if info else None) == (code, reason), e.value.details()
    assert written(c) == before
    # the table goes on as if the call had not been made: the same id again is evaluated
    # anew (a refused call stores nothing), and the hand is the table's first
    h = await c.gw.OpenHand(
        gateway_pb2.OpenHandRequest(table_id=table, seats=seats, request_id=f"r2-{table}")
    )
    assert h.hand_id == f"{table}_h1" and h.hand_no == 1


async def test_a_failure_after_the_opening_rebuilds_the_table_from_the_log(
    idle_cluster: Cluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The dealer checks the bets and the close before it opens the hand; should the
    dealing after the close still fail (a fault, not a refusal), the table held in
    memory is rebuilt from what the store holds: nothing was written, and the next
    call opens the same hand as if the failed one had never been made."""
    c = idle_cluster
    table = await c.open_table("obf")
    seats = seat_entries(table, 2)
    req = coup_request(table, seats, [(1, "banker", 10_000)])
    before = written(c)
    real = c.core.dealer.close_betting

    def broken(hand_id: str) -> Any:
        raise RuntimeError("the shoe fell off the table")

    monkeypatch.setattr(c.core.dealer, "close_betting", broken)
    with pytest.raises(grpc.aio.AioRpcError) as e:
        await c.gw.OpenHand(req)
    assert e.value.code() == grpc.StatusCode.INTERNAL
    assert written(c) == before
    t = c.core.dealer.table(table)
    assert t.hand is None and t.hand_count == 0
    monkeypatch.setattr(c.core.dealer, "close_betting", real)
    h = await c.gw.OpenHand(req)
    assert (h.hand_id, h.hand_no, h.view.phase) == (f"{table}_h1", 1, "closed")
