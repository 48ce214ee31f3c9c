"""十三水 through the dealer core (croupier.dealing.Dealer): whole hands of 2, 3 and 4
players dealt from committed shuffles, arranged by hand (rows as positions or cards),
by 自动比牌 and by timeout, closed, settled (croupier.settlement.settle_state) and
audited (croupier.audit.audit_hand) with the verdict PASS; a fouled arrangement and
other bad input are refused and write nothing; arrangements sent as positions keep the
cards private until the showdown; the demo bot plays whole hands."""

from __future__ import annotations

import copy
import json
import random
from dataclasses import dataclass
from typing import Any

import pytest

from croupier.audit import Verdict
from croupier.dealing import Hand
from croupier.errors import ActionRejected, BetRejected, RuleViolation
from croupier.events import verify_chain
from croupier.games import base as g
from croupier.games.registry import engine
from croupier.games.shisanshui.engine import ShisanshuiEngine, ShisanshuiState
from croupier.games.shisanshui.hands import best_normal
from croupier.settlement import HandSettlement
from croupier.testing import DealerRun
from croupier_services.bots import bets_for, next_move
from croupier_services.views import HIDDEN, redact

VARIANT = "shisanshui"


def eng() -> ShisanshuiEngine:
    e = engine(VARIANT)
    assert isinstance(e, ShisanshuiEngine)
    return e


def ss(hand: Hand) -> ShisanshuiState:
    assert isinstance(hand.state, ShisanshuiState)
    return hand.state


def seats(stacks: list[int]) -> list[dict[str, Any]]:
    return [{"seat": i + 1, "player": f"p{i + 1}", "stack": k} for i, k in enumerate(stacks)]


@dataclass
class Run(DealerRun):
    """A 十三水 table: no bets, so betting closes as soon as a hand opens."""

    variant: str = VARIANT
    seed_label: str = "sss"


def audit(run: Run, hand: Hand) -> HandSettlement:
    log = run.stream(hand.hand_id)
    verify_chain(log.events)
    assert log.events[-1].type == g.HAND_CLOSED
    rep, hs = run.audit(hand.hand_id)
    assert rep.verdict is Verdict.PASS, rep.to_json_dict()
    assert sum(n for _, n in hs.postings) == 0
    return hs


def positions(hand: list[str], rows: tuple[tuple[str, ...], ...]) -> dict[str, list[int]]:
    return {
        k: [hand.index(c) for c in r]
        for k, r in zip(("front", "middle", "back"), rows, strict=True)
    }


def test_hands_through_the_dealer_settle_and_audit() -> None:
    run = Run()
    rng = random.Random(11)
    kinds: set[str] = set()
    for i in range(9):
        n = 2 + i % 3
        stacks = [rng.choice([10**7, 10**7, 3000, 800]) for _ in range(n)]
        hand = run.open(seats(stacks))
        st = ss(hand)
        assert st.phase == "arrange" and all(len(st.hands[s]) == 13 for s in st.seats)
        while not st.closed:
            seat = eng().to_act(st)[0]
            way = rng.choice(["positions", "cards", "auto", "timeout"])
            kinds.add(way)
            if way == "timeout":
                run.keep(run.dealer.expire(hand.hand_id))
            elif way == "auto":
                run.keep(run.dealer.act(hand.hand_id, seat, "auto_arrange", {}))
            else:
                cards = st.hands[seat]
                a = best_normal(cards)
                rows = (a.front, a.middle, a.back)
                args: dict[str, Any] = (
                    positions(cards, rows)
                    if way == "positions"
                    else {"front": list(a.front), "middle": list(a.middle), "back": list(a.back)}
                )
                run.keep(run.dealer.act(hand.hand_id, seat, "arrange", args))
        hs = audit(run, hand)
        for sat in st.seats.values():  # 有限责任制: nobody loses more than they carried
            assert hs.record["deltas"][sat.player] >= -sat.stack
        types = [x.type for x in run.stream(hand.hand_id).events]
        assert types.count(g.CARD_DEALT) == 1 and types.count(g.CARDS_REVEALED) == n
        assert types.count(g.ACTION_TAKEN) == n and g.BET_PLACED not in types
    assert kinds == {"positions", "cards", "auto", "timeout"}


def test_a_fouled_arrangement_and_other_bad_input_write_nothing() -> None:
    run = Run(seed_base=5)
    hand = run.open(seats([10**6, 10**6]))
    st = ss(hand)
    cards = st.hands[1]
    a = best_normal(cards)
    fouled = positions(cards, (a.back[:3], a.middle, (*a.back[3:], *a.front)))
    good = positions(cards, (a.front, a.middle, a.back))
    before, snapshot = len(hand.events), copy.deepcopy(st)
    for seat, action, args, reason in (
        (
            1,
            "arrange",
            {**good, "front": good["back"][:3], "back": [*good["back"][3:], *good["front"]]},
            "fouled",
        ),
        (1, "arrange", fouled, "fouled"),
        (1, "arrange", {**good, "front": [0, 1, 99]}, "not_in_hand"),
        (
            1,
            "arrange",
            {**good, "front": ["As", "Ks", "Qs"] if "As" not in cards else ["2c", "2d", "2h"]},
            "not_in_hand",
        ),
        (1, "arrange", {**good, "front": good["front"][:2]}, "bad_rows"),
        (1, "arrange", {**good, "front": [good["middle"][0], *good["front"][1:]]}, "not_in_hand"),
        (1, "arrange", {**good, "special": "yes"}, "malformed"),
        (1, "fold", {}, "unknown_action"),
        (1, "auto_arrange", {"front": [0, 1, 2]}, "malformed"),
    ):
        with pytest.raises(ActionRejected) as err:
            run.dealer.act(hand.hand_id, seat, action, args)
        assert err.value.reason == reason, (reason, err.value.message)
        assert len(hand.events) == before and not hand.writer.pending and st == snapshot
    with pytest.raises(BetRejected) as bet:
        run.dealer.place_bets(hand.hand_id, [{"seat": 1, "spot": "water", "amount": 100}])
    assert bet.value.reason in ("no_bets", "betting_closed")
    run.keep(run.dealer.act(hand.hand_id, 1, "arrange", good))
    with pytest.raises(ActionRejected) as again:
        run.dealer.act(hand.hand_id, 1, "auto_arrange", {})
    assert again.value.reason == "already_arranged"
    run.keep(run.dealer.expire(hand.hand_id))
    audit(run, hand)


def test_no_bets_and_two_to_four_players() -> None:
    run = Run(seed_base=9)
    with pytest.raises(RuleViolation) as one:
        run.dealer.open_hand("t1", seats([1000]))
    assert one.value.reason == "no_seats"
    with pytest.raises(RuleViolation) as five:
        run.dealer.open_hand("t1", seats([1000] * 5))
    assert five.value.reason == "too_many_seats"
    hid, _ = run.dealer.open_hand("t1", seats([1000, 1000]))
    with pytest.raises(BetRejected) as bet:
        run.dealer.place_bets(hid, [{"seat": 1, "spot": "water", "amount": 100}])
    assert bet.value.reason == "no_bets"


def test_positions_keep_the_cards_private_until_the_showdown() -> None:
    run = Run(seed_base=17)
    hand = run.open(seats([10**6, 10**6, 10**6]))
    st = ss(hand)
    cards = {s: list(st.hands[s]) for s in st.seats}
    a = best_normal(cards[1])
    run.keep(
        run.dealer.act(hand.hand_id, 1, "arrange", positions(cards[1], (a.front, a.middle, a.back)))
    )
    events = list(run.stream(hand.hand_id).events)
    for viewer in (None, 2, 3):
        shown = "".join(pb.payload_json for pb in redact(events, viewer))
        assert HIDDEN in shown and not any(f'"{c}"' in shown for c in cards[1])
    mine = "".join(pb.payload_json for pb in redact(events, 1))
    assert all(f'"{c}"' in mine for c in cards[1])
    run.keep(run.dealer.act(hand.hand_id, 2, "auto_arrange", {}))
    run.keep(run.dealer.act(hand.hand_id, 3, "auto_arrange", {}))
    assert st.closed
    public = "".join(pb.payload_json for pb in redact(list(run.stream(hand.hand_id).events), None))
    assert all(f'"{c}"' in public for s in cards for c in cards[s])
    audit(run, hand)


def test_the_demo_bot_plays_whole_hands() -> None:
    run = Run(seed_base=23)
    rng = random.Random(3)
    for n in (2, 3, 4):
        assert bets_for(VARIANT, rng, list(range(1, n + 1)), 1, 10**7) == []
        hand = run.open(seats([10**7] * n))
        while not ss(hand).closed:
            public = [(pb.type, json.loads(pb.payload_json)) for pb in redact(hand.events, None)]
            move = next_move(VARIANT, public, rng)
            assert move is not None and move.action == "auto_arrange"
            run.keep(run.dealer.act(hand.hand_id, move.seat, move.action, move.args))
        audit(run, hand)
