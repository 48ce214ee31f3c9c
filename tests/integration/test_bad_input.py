"""Bad input, through the gateway's gRPC API and on the bus: every refusal has a precise
status (or a counted consumer reject) and a message with its reason, and nothing is
written — no event, no ledger transaction, no message published."""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable
from typing import Any

import grpc
import pytest
from nacl.signing import SigningKey

from croupier.bus import wire
from croupier.events import Event, Seal, heads_of, seal
from croupier.games import base as g
from croupier.pb.croupier.v1 import gateway_pb2
from croupier.signing import FileSigner, Signer
from croupier_services.consumer import ConsumerLoop
from croupier_services.grpc_util import MAX_MESSAGE, error_info

from .harness import (
    VARIANT,
    Cluster,
    FakeMsg,
    all_stream_messages,
    event_of,
    flip_digit,
    metric,
    reforge,
    seat_entries,
    subject_counts,
    unique_table,
)

pytestmark = pytest.mark.integration

FP = grpc.StatusCode.FAILED_PRECONDITION
INVALID = grpc.StatusCode.INVALID_ARGUMENT
NOT_FOUND = grpc.StatusCode.NOT_FOUND
SAFE_BETS = [(1, "banker", 1_000), (2, "tie", 1_000)]  # never a zero-sum coup


def _bets(*bets: tuple[int, str, int]) -> list[gateway_pb2.Bet]:
    return [gateway_pb2.Bet(seat=s, spot=sp, amount_minor=a) for s, sp, a in bets]


def _written(c: Cluster) -> tuple[int, int, int]:
    return c.store.count_events(), len(c.store.list_transactions()), c.store.count_settlements()


async def refused(
    c: Cluster,
    call: Awaitable[Any],
    code: grpc.StatusCode,
    *needles: str,
    reason: str | None = None,
    field: str | None = None,
) -> str:
    """Await a gRPC call that must fail with ``code`` and a message holding every
    needle (and, when given, an ``ErrorInfo`` with ``reason`` and ``field``), having
    written nothing. Every refusal carries an ``ErrorInfo`` whose reason opens the
    message."""
    before = _written(c)
    with pytest.raises(grpc.aio.AioRpcError) as ei:
        await call
    err = ei.value
    assert err.code() == code, (err.code(), err.details())
    details = err.details() or ""
    for n in needles:
        assert n in details, (n, details)
    info = error_info(err)
    assert info is not None and info.domain == "croupier.v1", details
    assert details.startswith(f"{info.reason}: ") or code == NOT_FOUND, (info.reason, details)
    if reason is not None:
        assert info.reason == reason, (info.reason, details)
    if field is not None:
        assert info.metadata["field"] == field, (dict(info.metadata), details)
    assert len(details) <= MAX_MESSAGE
    assert _written(c) == before, details
    return details


async def test_bets_refused(idle_cluster: Cluster) -> None:
    c = idle_cluster
    gw = c.gw
    table = await c.open_table("badbet")
    seats = seat_entries(table, 11)
    seats.append(gateway_pb2.SeatEntry(seat=12, player_id=f"{table}_poor", stack_minor=5_000))
    h = await gw.OpenHand(gateway_pb2.OpenHandRequest(table_id=table, seats=seats))
    hid = h.hand_id

    def bet(*bets: tuple[int, str, int]) -> Awaitable[Any]:
        return gw.PlaceBets(gateway_pb2.PlaceBetsRequest(hand_id=hid, bets=_bets(*bets)))

    await refused(c, bet((1, "banker", 5_000_100)), FP, "over_limit", "banker maximum is 5000000")
    await refused(c, bet((1, "tie", 625_100)), FP, "over_limit", "tie maximum is 625000")
    await refused(c, bet((1, "banker", 500)), FP, "under_minimum", "banker minimum is 1000")
    await refused(c, bet((42, "banker", 1_000)), FP, "unknown_seat", "seat 42")
    await refused(c, bet((1, "banker", 0)), INVALID, "bad_amount", "positive integer", "0")
    await refused(c, bet((1, "banker", -1_000)), INVALID, "bad_amount", "positive integer", "-1000")
    await refused(c, bet((1, "banker", 1_050)), INVALID, "bad_amount", "multiple of 100")
    await refused(c, bet((1, "dragon", 1_000)), INVALID, "unknown_spot", "'dragon'")
    await refused(c, bet((12, "banker", 10_000)), FP, "insufficient_stack", "seat 12")
    await refused(c, bet(), FP, "empty", "no bets")
    # all or nothing: ten bets at the banker maximum fill the table limit exactly; one
    # more bet is refused, and so are the ten valid ones before it
    full = [(s, "banker", 5_000_000) for s in range(1, 11)]
    await refused(c, bet(*full, (11, "player", 1_000)), FP, "table_limit", "50000000")
    # a seat's stake on a spot is cumulative across calls
    await bet((1, "banker", 4_000_000))
    await refused(c, bet((1, "banker", 1_000_100)), FP, "over_limit")
    await bet((1, "banker", 1_000_000), (2, "tie", 1_000))

    # actions: malformed arguments, and an action baccarat does not have
    def act(hand_id: str, args_json: str) -> Awaitable[Any]:
        return gw.Act(
            gateway_pb2.ActRequest(hand_id=hand_id, seat=1, action="hit", args_json=args_json)
        )

    await refused(c, act(hid, "{not json"), INVALID, "args_json is not valid JSON")
    await refused(c, act(hid, "[1, 2]"), INVALID, "args_json must be a JSON object")
    await refused(c, act(hid, '{"x": 1.5}'), INVALID, "args_json")  # no floats anywhere
    await refused(c, act(hid, "{}"), FP, "unknown_event", "baccarat has no action.taken")
    await refused(c, act("nohand_h1", "{}"), NOT_FOUND, "not_found", "nohand_h1")

    # betting closes with the coup dealt; from then on the hand takes nothing
    await gw.CloseBetting(gateway_pb2.CloseBettingRequest(hand_id=hid))
    await refused(c, bet((3, "player", 1_000)), NOT_FOUND, "not_found", hid, "not open")
    await refused(
        c,
        gw.CloseBetting(gateway_pb2.CloseBettingRequest(hand_id=hid)),
        NOT_FOUND,
        "not_found",
        hid,
    )
    await refused(c, act(hid, "{}"), NOT_FOUND, "not_found", hid)
    await refused(
        c,
        gw.GetHandView(gateway_pb2.GetHandViewRequest(hand_id="nohand_h9")),
        NOT_FOUND,
        "nohand_h9",
    )

    # only the accepted bets reach the ledger
    c.run_consumers()
    await c.wait_settled(1)
    record = c.store.get_settlement(hid).record_json
    assert len(c.store.list_transactions()) == 1
    assert record["staked"] == {f"{table}_p1": 5_000_000, f"{table}_p2": 1_000}


async def test_big_and_small_close_after_the_30th_coup(idle_cluster: Cluster) -> None:
    c = idle_cluster
    table = await c.open_table("bigsmall")
    for n in range(1, 31):
        extra = [(3, "big", 1_000)] if n == 30 else []  # still open on coup 30
        await c.play_hand(table, bets=[*SAFE_BETS, *extra])
    h = await c.gw.OpenHand(
        gateway_pb2.OpenHandRequest(table_id=table, seats=seat_entries(table, 3))
    )
    assert h.hand_no == 31
    for spot in ("big", "small"):
        await refused(
            c,
            c.gw.PlaceBets(
                gateway_pb2.PlaceBetsRequest(hand_id=h.hand_id, bets=_bets((3, spot, 1_000)))
            ),
            FP,
            "spot_closed",
            f"{spot} is closed after hand 30",
            "this is hand 31",
        )
    await c.gw.PlaceBets(gateway_pb2.PlaceBetsRequest(hand_id=h.hand_id, bets=_bets(*SAFE_BETS)))
    await c.gw.CloseBetting(gateway_pb2.CloseBettingRequest(hand_id=h.hand_id))
    c.run_consumers()
    await c.wait_settled(31)
    assert len(c.store.list_transactions()) == 31


async def test_tables_and_hands_refused(idle_cluster: Cluster) -> None:
    c = idle_cluster
    gw = c.gw

    def open_table(table_id: str, variant: str = VARIANT) -> Awaitable[Any]:
        return gw.OpenTable(gateway_pb2.OpenTableRequest(table_id=table_id, variant=variant))

    for bad, why in [
        ("", "empty"),
        ("bad id", "bad_characters"),
        ("x" * 41, "too_long"),
        ("tablé", "bad_characters"),
        ("a-b", "bad_characters"),
        ("t;DROP", "bad_characters"),
    ]:
        await refused(c, open_table(bad), INVALID, "table id must be", reason=why, field="table_id")
    table = unique_table("tab")
    await refused(c, open_table(table, "roulette"), INVALID, "unknown_variant", "roulette")
    await refused(c, open_table(table, ""), INVALID, "variant", reason="empty", field="variant")
    # a refused OpenTable leaves nothing behind: the id is still free
    await open_table(table)
    await refused(c, open_table(table), grpc.StatusCode.ALREADY_EXISTS, "already open")
    assert c.store.count_events() == 1  # the one shoe.opened

    def open_hand(seats: list[gateway_pb2.SeatEntry], table_id: str = table) -> Awaitable[Any]:
        return gw.OpenHand(gateway_pb2.OpenHandRequest(table_id=table_id, seats=seats))

    def seat(n: int, player: str, stack: int = 100_000) -> gateway_pb2.SeatEntry:
        return gateway_pb2.SeatEntry(seat=n, player_id=player, stack_minor=stack)

    await refused(c, open_hand([seat(1, "ann"), seat(1, "bob")]), FP, "duplicate_seat", "seat 1")
    await refused(c, open_hand([seat(1, "ann"), seat(2, "ann")]), FP, "duplicate_player", "ann")
    await refused(c, open_hand([seat(1, "")]), INVALID, "player id", reason="empty")
    await refused(
        c,
        open_hand([seat(1, "ann", -1)]),
        INVALID,
        "stack_minor must be in 0..",
        reason="bad_stack",
        field="seats[0].stack_minor",
    )
    await refused(c, open_hand([seat(1, "ann")], "notable"), NOT_FOUND, "notable")
    await refused(
        c,
        gw.CloseTable(gateway_pb2.CloseTableRequest(table_id="notable")),
        NOT_FOUND,
        "notable",
    )
    with pytest.raises(grpc.aio.AioRpcError) as ei:
        async for _ in gw.StreamTableEvents(
            gateway_pb2.StreamTableEventsRequest(table_id="notable")
        ):
            pass
    assert ei.value.code() == NOT_FOUND

    # refused hands leave no trace: the next hand is hand 1 of the shoe, with id _h1
    h = await open_hand([seat(1, "ann"), seat(2, "bob")])
    assert (h.hand_id, h.hand_no) == (f"{table}_h1", 1)
    opened = c.store.read_stream(h.hand_id)[0].payload
    assert (opened["hand_no"], opened["shoe_hand_no"]) == (1, 1)

    await refused(c, open_hand([seat(1, "cy")]), FP, "still open")
    # a timeout where nobody is waiting to act, and a client posing as the dealer's clock
    expire = gateway_pb2.ExpireTurnRequest
    await refused(c, gw.ExpireTurn(expire(hand_id=h.hand_id)), FP, "no_turn", "nobody")
    await refused(c, gw.ExpireTurn(expire(hand_id="nohand")), NOT_FOUND, "nohand")
    act = gateway_pb2.ActRequest(hand_id=h.hand_id, seat=1, action="x", args_json='{"auto":1}')
    await refused(c, gw.Act(act), INVALID, "reserved for ExpireTurn", reason="reserved_argument")
    await refused(c, gw.CloseTable(gateway_pb2.CloseTableRequest(table_id=table)), FP, "still open")
    await refused(c, gw.OpenShoe(gateway_pb2.OpenShoeRequest(table_id=table)), FP, "still open")


def _seat(n: int, player: str, stack: int = 100_000) -> gateway_pb2.SeatEntry:
    return gateway_pb2.SeatEntry(seat=n, player_id=player, stack_minor=stack)


POISON = {
    # name: (seats of an OpenHand | None for the bets case, reason, ErrorInfo field)
    "nul_in_player_id": ([_seat(1, "ann\x00")], "bad_characters", "seats[0].player_id"),
    "player_id_of_1_mb": ([_seat(1, "p" * 1_000_000)], "too_long", "seats[0].player_id"),
    "player_id_of_200_chars": ([_seat(1, "q" * 200)], "too_long", "seats[0].player_id"),
    "seat_minus_1": ([_seat(-1, "ann")], "out_of_range", "seats[0].seat"),
    "seat_2_31_minus_1": ([_seat(2**31 - 1, "ann")], "out_of_range", "seats[0].seat"),
    "100_seats_at_baccarat": (
        [_seat(i, f"p{i}") for i in range(100)],
        "too_many_seats",
        "seats",
    ),
    "3000_bets_in_one_call": (None, "too_many_bets", "bets"),
}


@pytest.mark.parametrize("case", list(POISON))
async def test_issue_poison_case_refused(idle_cluster: Cluster, case: str) -> None:
    """Each poison input of the issue, alone over real gRPC: INVALID_ARGUMENT with its
    reason and field, no echo of the input, nothing written; the table then deals a
    normal hand that settles (the refusal left no trace that blocks the next call)."""
    c = idle_cluster
    table = await c.open_table("poison1")
    seats, why, fld = POISON[case]
    if seats is not None:
        call = c.gw.OpenHand(gateway_pb2.OpenHandRequest(table_id=table, seats=seats))
    else:
        h = await c.gw.OpenHand(
            gateway_pb2.OpenHandRequest(table_id=table, seats=seat_entries(table, 3))
        )
        bet = gateway_pb2.Bet(seat=1, spot="banker", amount_minor=1_000)
        call = c.gw.PlaceBets(gateway_pb2.PlaceBetsRequest(hand_id=h.hand_id, bets=[bet] * 3_000))
    msg = await refused(c, call, INVALID, reason=why, field=fld)
    assert "\x00" not in msg and "p" * 65 not in msg and "q" * 65 not in msg, msg
    if seats is not None:
        await c.play_hand(table, bets=SAFE_BETS)
    else:
        await c.gw.PlaceBets(
            gateway_pb2.PlaceBetsRequest(hand_id=h.hand_id, bets=_bets(*SAFE_BETS))
        )
        await c.gw.CloseBetting(gateway_pb2.CloseBettingRequest(hand_id=h.hand_id))
    c.run_consumers()
    await c.wait_settled(1)
    assert sum(c.store.balances().values()) == 0


async def test_poison_inputs_refused_at_the_edge(idle_cluster: Cluster) -> None:
    """The inputs that once broke the cluster (issue: NUL in a player id, a 1 MB player
    id, a 200-character one, seats -1 and 2^31-1, 100 seats at baccarat, 3,000 bets in
    one call) and their cousins are each refused with INVALID_ARGUMENT, an ErrorInfo
    naming the limit and the field, a bounded message that does not echo them — and
    nothing is written. A hand at the limits then plays, settles and audits."""
    c = idle_cluster
    gw = c.gw
    table = await c.open_table("poison")

    def seat(n: int, player: str, stack: int = 100_000) -> gateway_pb2.SeatEntry:
        return gateway_pb2.SeatEntry(seat=n, player_id=player, stack_minor=stack)

    def open_hand(*seats: gateway_pb2.SeatEntry, **kw: Any) -> Awaitable[Any]:
        return gw.OpenHand(gateway_pb2.OpenHandRequest(table_id=table, seats=seats, **kw))

    huge = "p" * 1_000_000
    for player, why in [
        ("ann\x00", "bad_characters"),
        ("ann\nbob", "bad_characters"),
        ("ann bob", "bad_characters"),
        (huge, "too_long"),
        ("q" * 200, "too_long"),
        ("r" * 65, "too_long"),
    ]:
        msg = await refused(
            c, open_hand(seat(1, player)), INVALID, reason=why, field="seats[0].player_id"
        )
        assert "\x00" not in msg and "\n" not in msg and "ppppp" not in msg and "qqqqq" not in msg
    for n in (-1, 2**31 - 1, 1_000, -(2**31)):
        await refused(
            c,
            open_hand(seat(n, "ann")),
            INVALID,
            "0..999",
            reason="out_of_range",
            field="seats[0].seat",
        )
    await refused(
        c,
        open_hand(seat(1, "ann", 10**15 + 1)),
        INVALID,
        reason="bad_stack",
        field="seats[0].stack_minor",
    )
    hundred = [seat(i, f"{table}_p{i}") for i in range(100)]
    info_msg = await refused(
        c, open_hand(*hundred), INVALID, "at most 20", reason="too_many_seats", field="seats"
    )
    assert "100 seats" in info_msg
    over_all = [seat(i, f"x{i}") for i in range(1_001)]
    await refused(c, open_hand(*over_all), INVALID, reason="too_many_seats")
    # OpenHand takes no client seed (the player's own goes with PlaceBets, after the
    # commitment): any value, printable or not, is refused without being repeated
    for seed in ("abc", "s\x00", "s" * 129):
        msg = await refused(
            c,
            open_hand(seat(1, "ann"), client_seed=seed),
            INVALID,
            "PlaceBets",
            reason="client_seed_too_early",
            field="client_seed",
        )
        assert "\x00" not in msg and "sss" not in msg
    await refused(
        c,
        gw.OpenTable(gateway_pb2.OpenTableRequest(table_id="t\x00x", variant=VARIANT)),
        INVALID,
        reason="bad_characters",
        field="table_id",
    )
    await refused(
        c,
        gw.OpenTable(
            gateway_pb2.OpenTableRequest(table_id=unique_table("p"), variant="b" * 100_000)
        ),
        INVALID,
        reason="too_long",
        field="variant",
    )

    # a hand at the limits: 20 seats (baccarat's most), 64-character player ids of every
    # allowed character, the largest stack
    names = [f"{i:02d}.a:b@c-d_" + "e" * 53 for i in range(20)]
    assert all(len(n) == 64 for n in names)
    h = await open_hand(*[seat(i, n, 10**15) for i, n in enumerate(names)])
    hid = h.hand_id

    def bets(rows: list[gateway_pb2.Bet]) -> Awaitable[Any]:
        return gw.PlaceBets(gateway_pb2.PlaceBetsRequest(hand_id=hid, bets=rows))

    many = [gateway_pb2.Bet(seat=1, spot="banker", amount_minor=1_000)] * 3_000
    await refused(c, bets(many), INVALID, "3000 bets", reason="too_many_bets", field="bets")
    for b, why, fld in [
        (gateway_pb2.Bet(seat=-1, spot="banker", amount_minor=1_000), "out_of_range", "seat"),
        (
            gateway_pb2.Bet(seat=2**31 - 1, spot="banker", amount_minor=1_000),
            "out_of_range",
            "seat",
        ),
        (gateway_pb2.Bet(seat=1, spot="bank\x00er", amount_minor=1_000), "bad_characters", "spot"),
        (gateway_pb2.Bet(seat=1, spot="s" * 10_000, amount_minor=1_000), "too_long", "spot"),
        (gateway_pb2.Bet(seat=1, spot="banker", amount_minor=2**62), "bad_amount", "amount_minor"),
    ]:
        await refused(c, bets([b]), INVALID, reason=why, field=f"bets[0].{fld}")
    await refused(
        c,
        gw.PlaceBets(gateway_pb2.PlaceBetsRequest(hand_id="h\x00" * 1000, bets=many[:1])),
        INVALID,
        reason="too_long",
        field="hand_id",
    )

    def act(action: str = "hit", args_json: str = "{}", seat_no: int = 1) -> Awaitable[Any]:
        return gw.Act(
            gateway_pb2.ActRequest(hand_id=hid, seat=seat_no, action=action, args_json=args_json)
        )

    await refused(c, act("hi\x00t"), INVALID, reason="bad_characters", field="action")
    await refused(c, act("h" * 33), INVALID, reason="too_long", field="action")
    await refused(c, act(seat_no=-1), INVALID, reason="out_of_range", field="seat")
    big = '{"x":"' + "y" * 1_000_000 + '"}'
    await refused(c, act(args_json=big), INVALID, "4096", reason="json_too_large")
    deep = "[" * 1_000 + "]" * 1_000
    await refused(c, act(args_json='{"a":' + deep + "}"), INVALID, reason="json_too_deep")
    await refused(c, act(args_json='{"a":"b\\u0000"}'), INVALID, reason="bad_characters")
    await refused(c, act(args_json='{"a":' + "9" * 30 + "}"), INVALID, reason="out_of_range")
    await refused(
        c,
        gw.GetHandView(gateway_pb2.GetHandViewRequest(hand_id=hid, seat=-5)),
        INVALID,
        reason="out_of_range",
    )
    with pytest.raises(grpc.aio.AioRpcError) as ei:
        async for _ in gw.StreamTableEvents(
            gateway_pb2.StreamTableEventsRequest(table_id="x" * 10_000)
        ):
            pass
    assert ei.value.code() == INVALID
    assert (info := error_info(ei.value)) is not None and info.reason == "too_long"

    await bets([gateway_pb2.Bet(seat=s, spot="banker", amount_minor=1_000) for s in range(3)])
    await gw.CloseBetting(gateway_pb2.CloseBettingRequest(hand_id=hid))
    c.run_consumers()
    await c.wait_settled(1)
    assert sum(c.store.balances().values()) == 0
    await gw.CloseTable(gateway_pb2.CloseTableRequest(table_id=table))
    rep = c.auditor().audit(hid)
    assert rep.verdict.value == "pass", (rep.reason, rep.message)


# --------------------------------------------------------------------------- the bus


def _reseal(
    events: tuple[Event, ...], seals: tuple[Seal, ...], producer: str, signer: Signer
) -> list[Seal]:
    """``seals`` with ``producer``'s seals replaced by one from ``signer``."""
    mine = [e for e in events if e.producer == producer]
    keep = [s for s in seals if s.producer != producer]
    return [*keep, seal(signer, heads_of(mine), 1)]


def _hand_cases(m: wire.Message, signers: dict[str, Signer]) -> list[tuple[str, bytes, str, bool]]:
    """(name, message bytes, expected reject reason, is it an integrity failure)."""
    ev, se = m.events, m.seals
    bet = event_of(ev, g.BETS_PLACED)
    gw_key = signers["gateway"]
    impostor = FileSigner("gateway", gw_key.key_id, SigningKey.generate())  # right id, wrong key
    stranger = FileSigner.generate("gateway")  # a key nobody registered
    gw_seals = [s for s in se if s.producer == "gateway"]

    def enc(events: Any, seals: Any) -> bytes:
        return wire.encode("hand", list(events), list(seals))

    tampered = tuple(
        dataclasses.replace(e, payload_bytes=flip_digit(e.payload_bytes, "amount"))
        if e.seq == bet.seq
        else e
        for e in ev
    )
    gap = tuple(e for e in ev if e.seq != bet.seq)
    first, *rest = bet.payload["bets"]
    over_limit = {"bets": [{**first, "amount": 5_000_100}, *rest]}
    forged_ev, forged_se = reforge(ev, se, signers, {bet.seq: over_limit})
    dealer_bet_ev, dealer_bet_se = reforge(ev, se, signers, {}, {bet.seq: "dealer"})
    cut_ev = [e for e in ev if e.type != g.HAND_CLOSED]
    cut_se = [
        seal(signers[p], heads_of([e for e in cut_ev if e.producer == p]), 1)
        for p in ("dealer", "gateway")
    ]
    no_gw_seal = [s for s in se if s not in gw_seals]
    by_dealer = _reseal(ev, se, "gateway", signers["dealer"])
    return [
        ("byte changed, hash kept", enc(tampered, se), "broken_chain", True),
        ("event missing from the chain", enc(gap, se), "broken_chain", True),
        ("no seals at all", enc(ev, []), "bad_signature", True),
        ("gateway seal missing", enc(ev, no_gw_seal), "bad_signature", True),
        ("gateway events sealed by the dealer", enc(ev, by_dealer), "bad_signature", True),
        (
            "seal by an unregistered key",
            enc(ev, _reseal(ev, se, "gateway", stranger)),
            "unknown_key",
            True,
        ),
        (
            "wrong key under the right id",
            enc(ev, _reseal(ev, se, "gateway", impostor)),
            "bad_signature",
            True,
        ),
        ("malformed JSON", b'{"kind": "hand", "events": [', "invalid_input", False),
        ("JSON of the wrong shape", b'{"kind": "hand"}', "invalid_input", False),
        ("no events", enc([], []), "empty", True),
        ("properly signed but over the limit", enc(forged_ev, forged_se), "over_limit", False),
        ("bet written by the dealer", enc(dealer_bet_ev, dealer_bet_se), "wrong_producer", True),
        ("properly signed but never closed", enc(cut_ev, cut_se), "not_closed", False),
    ]


async def _expect_rejected(
    c: Cluster, loop: ConsumerLoop, name: str, data: bytes, reason: str, integrity: bool
) -> None:
    service = loop.service
    rejects = metric("croupier_consumer_rejects_total", service=service, reason=reason)
    sig = metric("croupier_signature_failures_total", service=service)
    written, on_bus = _written(c), await subject_counts(c.bus)
    msg = FakeMsg(data)
    await loop.process([msg])
    assert (msg.acks, msg.terms) == (0, 1), name
    assert metric("croupier_consumer_rejects_total", service=service, reason=reason) == (
        rejects + 1
    ), name
    assert metric("croupier_signature_failures_total", service=service) == sig + (
        1 if integrity else 0
    ), name
    assert _written(c) == written, name
    assert await subject_counts(c.bus) == on_bus, name


async def test_consumers_reject_bad_messages(idle_cluster: Cluster) -> None:
    c = idle_cluster
    table = await c.open_table("badmsg")
    hid = await c.play_hand(table, bets=SAFE_BETS)
    await c.flush()
    (hand_msg,) = await all_stream_messages(c.bus)
    m = wire.decode(hand_msg.data)
    for name, data, reason, integrity in _hand_cases(m, c.signers):
        await _expect_rejected(c, c.rules_loop, name, data, reason, integrity)

    # the genuine message still goes through
    genuine = FakeMsg(hand_msg.data, hand_msg.subject)
    await c.rules_loop.process([genuine])
    assert (genuine.acks, genuine.terms) == (1, 0)
    await c.flush()
    outcome_msg = next(
        x for x in await all_stream_messages(c.bus) if x.subject.startswith("croupier.outcome.")
    )
    om = wire.decode(outcome_msg.data)

    # settlement refuses an outcome the rules did not compute, even when it is signed
    outcome = event_of(om.events, g.HAND_OUTCOME)
    winner = "banker" if outcome.payload["winner"] == "player" else "player"
    lie_ev, lie_se = reforge(
        om.events, om.seals, c.signers, {outcome.seq: {**outcome.payload, "winner": winner}}
    )
    unsealed = [s for s in om.seals if s.producer != "rules"]
    cases: list[tuple[str, bytes, str, bool]] = [
        (
            "signed outcome that lies",
            wire.encode("outcome", lie_ev, lie_se),
            "outcome_mismatch",
            False,
        ),
        ("a hand without its outcome", hand_msg.data, "no_outcome", False),
        (
            "outcome seal missing",
            wire.encode("outcome", om.events, unsealed),
            "bad_signature",
            True,
        ),
        ("malformed JSON", b"\xff\xfe", "invalid_input", False),
    ]
    for name, data, reason, integrity in cases:
        await _expect_rejected(c, c.settlement_loop, name, data, reason, integrity)
    assert c.store.count_settlements() == 0

    ok = FakeMsg(outcome_msg.data, outcome_msg.subject)
    await c.settlement_loop.process([ok])
    assert (ok.acks, ok.terms) == (1, 0)
    assert [t.hand_id for t in c.store.list_transactions()] == [hid]
