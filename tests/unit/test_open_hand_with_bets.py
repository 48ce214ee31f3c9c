"""``Dealer.open_hand`` with bets and ``close_betting``: one batch holding exactly what
the three calls (open, ``place_bets``, ``close_betting``) write, byte for byte, in every
variant; all or nothing (a refused bet or close leaves the table as if the call had
never been made: no hand, no shoe, no seed drawn, no hand number used)."""

from __future__ import annotations

import hashlib
import itertools
import random
from collections.abc import Iterator
from typing import Any

import pytest

from croupier.dealing import Batch, Dealer
from croupier.errors import ActionRejected, BetRejected, RuleViolation
from croupier.events import SealVerifier, verify_chain
from croupier.games import base as g
from croupier.games.registry import engine as engine_for
from croupier.games.registry import variants
from croupier.signing import FileSigner, KeyRegistry
from croupier_services.bots import bets_for

DEALER = FileSigner.from_seed("dealer", "dealer-k1", bytes([1]) * 32)
GATEWAY = FileSigner.from_seed("gateway", "gateway-k1", bytes([2]) * 32)
REGISTRY = KeyRegistry([DEALER.public_entry(), GATEWAY.public_entry()])
STACK = 10_000_000
HANDS = 3  # a shoe game's later hands come from the same shoe


def dealer() -> tuple[Dealer, list[bytes]]:
    """A dealer with a fixed clock and numbered seeds (two of them deal the same)."""
    numbers: Iterator[int] = itertools.count(1)
    drawn: list[bytes] = []

    def seeds() -> bytes:
        drawn.append(hashlib.sha256(f"seed {next(numbers)}".encode()).digest())
        return drawn[-1]

    return Dealer(DEALER, GATEWAY, clock_ms=lambda: 1_700_000_000_000, seed_source=seeds), drawn


def seats_for(variant: str) -> list[dict[str, Any]]:
    n = min(4, engine_for(variant).max_seats or 4)
    return [{"seat": i, "player": f"p{i}", "stack": STACK} for i in range(1, n + 1)]


def written(b: Batch) -> list[Any]:
    """What a batch writes: events (hashes and payload bytes), seals (signatures),
    stream rows, secrets, closed hands and table rows."""
    return [
        b.events,
        b.seals,
        [(r.stream_id, r.kind, r.variant, r.table_id, r.shoe_id) for r in b.streams],
        b.secrets,
        [t.hand_id for t in b.closed_hands],
        b.tables,
    ]


@pytest.mark.parametrize("variant", variants())
def test_one_call_writes_what_three_calls_write(variant: str) -> None:
    three, _ = dealer()
    one, _ = dealer()
    three.open_table("t1", variant)
    one.open_table("t1", variant)
    rng = random.Random(variant)
    seats = seats_for(variant)
    for _ in range(HANDS):
        hid, b3 = three.open_hand("t1", seats)
        hand = three.hand(hid)
        bets = [
            {"seat": s, "spot": sp, "amount": a}
            for s, sp, a in bets_for(
                variant, rng, [s["seat"] for s in seats], hand.state.shoe_hand_no, STACK
            )
        ]
        if bets:
            b3.extend(three.place_bets(hid, bets))
        b3.extend(three.close_betting(hid))
        hid1, b1 = one.open_hand("t1", seats, bets, close_betting=True)
        assert hid1 == hid
        assert written(b1) == written(b3)
        verify_chain([e for e in b1.events if e.stream == hid])
        if hid in three.hands:  # a hand with player decisions goes on from the same state
            assert one.hand(hid).state == three.hand(hid).state
            break  # its next move is the bots' (tested over gRPC)
        assert hid not in one.hands
    hands = [e for e in [*b1.events] if e.stream == hid]
    SealVerifier(REGISTRY).check_coverage(hands, [s for s in b1.seals if s.entries])


def test_bets_without_closing_leave_betting_open() -> None:
    d, _ = dealer()
    d.open_table("t1", "baccarat")
    bets = [{"seat": 1, "spot": "banker", "amount": 10_000}]
    hid, b = d.open_hand("t1", seats_for("baccarat"), bets)
    assert [e.type for e in b.events if e.stream == hid] == [g.HAND_OPENED, g.BETS_PLACED]
    assert d.hand(hid).state.phase == "betting"
    d.place_bets(hid, [{"seat": 2, "spot": "player", "amount": 20_000}])  # more may follow
    d.close_betting(hid)
    assert hid not in d.hands


@pytest.mark.parametrize(
    ("variant", "bets", "close", "error"),
    [
        ("baccarat", [{"seat": 1, "spot": "nowhere", "amount": 10_000}], True, BetRejected),
        ("baccarat", [{"seat": 9, "spot": "banker", "amount": 10_000}], True, RuleViolation),
        (
            "baccarat",
            [{"seat": 1, "spot": "banker", "amount": 10_000}, {"seat": 1, "spot": "banker"}],
            True,
            BetRejected,
        ),
        ("baccarat", [{"seat": 1, "spot": "banker", "amount": 10**14}], False, RuleViolation),
        ("dice.yaoyao", [{"seat": 1, "spot": "nowhere", "amount": 100}], True, RuleViolation),
    ],
)
def test_a_refused_bet_leaves_the_table_as_it_was(
    variant: str, bets: list[dict[str, Any]], close: bool, error: type[Exception]
) -> None:
    """The refused call draws no seed and uses no hand number: the next hand is what a
    dealer that never saw the call deals, byte for byte."""
    d, drawn = dealer()
    ref, _ = dealer()
    d.open_table("t1", variant)
    ref.open_table("t1", variant)
    seats = seats_for(variant)
    seeds_before = list(drawn)
    with pytest.raises(error):
        d.open_hand("t1", seats, bets, close_betting=close)
    assert drawn == seeds_before
    t = d.table("t1")
    assert t.hand is None and t.hand_count == 0 and not d.hands
    hid, b = d.open_hand("t1", seats)
    hid_ref, b_ref = ref.open_hand("t1", seats)
    assert hid == hid_ref == "t1_h1"
    assert written(b) == written(b_ref)


def test_a_close_refused_refuses_the_opening() -> None:
    """A close the rules refuse (here: a hand still open at the table) writes nothing."""
    d, _ = dealer()
    d.open_table("t1", "baccarat")
    hid, _ = d.open_hand("t1", seats_for("baccarat"))
    with pytest.raises(ActionRejected, match="still open"):
        d.open_hand("t1", seats_for("baccarat"), close_betting=True)
    assert d.table("t1").hand_count == 1 and list(d.hands) == [hid]
