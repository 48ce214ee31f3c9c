"""Niuniu through the dealer core (croupier.dealing.Dealer): whole hands of every variant
dealt from committed shuffles, with the dice the banker choice asks for, decided by the
players or by the timeout moves (Dealer.expire), closed with the carry the next hand
inherits, settled (croupier.settlement.settle_state) and audited
(croupier.audit.audit_hand) as the cluster does it; a refused action writes nothing;
the players' cards stay face down until the reveal."""

from __future__ import annotations

import copy
import itertools
import json
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from croupier.audit import Verdict
from croupier.dealing import Hand
from croupier.errors import ActionRejected, BetRejected, RuleViolation
from croupier.events import verify_chain
from croupier.games import base as g
from croupier.games.niuniu.engine import NiuniuEngine, NiuniuState
from croupier.games.registry import engine
from croupier.testing import DealerRun, bet_rows, seat_rows
from croupier_services.bots import bets_for, next_move
from croupier_services.views import redact

VARIANTS = ["niuniu.hundred", "niuniu.banker", "niuniu.tongbi", "niuniu.classic", "niuniu.yuele"]


def eng(variant: str) -> NiuniuEngine:
    e = engine(variant)
    assert isinstance(e, NiuniuEngine)
    return e


def state(hand: Hand) -> NiuniuState:
    st = hand.state
    assert isinstance(st, NiuniuState)
    return st


def table_seats(n: int = 4, stack: int = 10**7) -> list[dict[str, Any]]:
    return seat_rows(range(1, n + 1), stack)


@dataclass
class Run(DealerRun):
    """A niuniu table of four seats; ``play`` closes the betting and decides."""

    seed_label: str = "nn"
    seats: Sequence[Mapping[str, Any]] = tuple(table_seats())

    def play(self, hand: Hand, rng: random.Random, expire_rate: float = 0.3) -> None:
        """Close betting, then decide every turn: the timeout move or a random legal
        decision (own arrangement shown)."""
        e = eng(self.variant)
        if e.table.hundred is not None:
            self.keep(
                self.dealer.place_bets(
                    hand.hand_id,
                    [
                        {"seat": 1, "spot": "fu", "amount": 1000},
                        {"seat": 2, "spot": "xi", "amount": 2500},
                        {"seat": 2, "spot": "lu", "amount": 100},
                    ],
                )
            )
        self.keep(self.dealer.close_betting(hand.hand_id))
        while not hand.state.closed:
            turn = e.to_act(state(hand))
            assert turn is not None, hand.state.phase
            if rng.random() < expire_rate:
                self.keep(self.dealer.expire(hand.hand_id))
                continue
            st = state(hand)
            action = turn.actions[0]
            args: dict[str, Any]
            if action == "grab":
                args = {"grab": rng.random() < 0.5}
            elif action == "bank":
                args = {"accept": rng.random() < 0.6}
            elif action == "bet":
                args = {"multiple": rng.choice(st.play[turn.seat].options)}
            else:
                h = e.hand_of(st.play[turn.seat].cards)
                args = {"three": list(h.three), "category": h.category.value}
            self.keep(self.dealer.act(hand.hand_id, turn.seat, action, args))


@pytest.mark.parametrize("variant", VARIANTS)
def test_hands_through_the_dealer_settle_and_audit(variant: str) -> None:
    run = Run(variant)
    rng = random.Random(variant)
    hands = []
    for _ in range(6):
        hand = run.open(close=False)
        run.play(hand, rng)
        hands.append(hand)
    run.keep(run.dealer.close_table("t1"))
    carries = []
    for hand in hands:
        log = run.stream(hand.hand_id)
        verify_chain(log.events)
        types = [x.type for x in log.events]
        assert types[0] == g.HAND_OPENED and types[-1] == g.HAND_CLOSED
        carries.append((log.events[0].payload["carry"], log.events[-1].payload["carry"]))
        rep, hs = run.audit(hand.hand_id)
        assert sum(n for _, n in hs.postings) == 0
        assert rep.verdict is Verdict.PASS, rep.to_json_dict()
        assert rep.checks[-1] == "fairness"
    # each hand inherits the carry of the one before it
    assert carries[0][0] == {}
    for (_, closed), (opened_next, _) in itertools.pairwise(carries):
        assert opened_next == closed


@pytest.mark.parametrize("variant", VARIANTS[1:])
def test_cards_stay_face_down_until_every_player_has_arranged(variant: str) -> None:
    run = Run(variant)
    hand = run.open(close=False)
    run.play(hand, random.Random(3), expire_rate=1.0)
    log = run.stream(hand.hand_id).events
    dealt = [x for x in log if x.type == g.CARD_DEALT]
    if not dealt:  # 004: nobody took the bank
        assert eng(variant).outcome(state(hand))["void"]
        return
    assert all(not c["up"] for c in dealt[0].payload["cards"])
    first_reveal = next(i for i, x in enumerate(log) if x.type == g.CARDS_REVEALED)
    arranged = [i for i, x in enumerate(log) if x.payload.get("action") == "arrange"]
    assert arranged and max(arranged) < first_reveal
    assert all(log[i].payload["args"].get("auto") == "timeout" for i in arranged)


def banker_game_at_bet(variant: str) -> tuple[Run, Hand]:
    """A hand waiting for a bet multiple, from the first seed giving one."""
    e = eng(variant)
    for base in range(1, 30):
        run = Run(variant, seed_base=base)
        hand = run.open(close=False)
        run.keep(run.dealer.close_betting(hand.hand_id))
        while hand.state.phase == "banker":
            run.keep(run.dealer.expire(hand.hand_id))
        if hand.state.phase == "bet":
            assert e.to_act(state(hand)) is not None
            return run, hand
    raise AssertionError("no seed gave a bet")


@pytest.mark.parametrize("variant", ["niuniu.banker", "niuniu.classic", "niuniu.tongbi"])
def test_a_refused_action_writes_nothing(variant: str) -> None:
    run, hand = banker_game_at_bet(variant)
    banker = state(hand).banker
    before_events, before_state = len(hand.events), copy.deepcopy(hand.state)
    seat = next(s for s in (1, 2, 3, 4) if s != banker)
    cases: list[tuple[int, str, dict[str, Any], str]] = [
        (seat, "bet", {"multiple": 99}, "bad_multiple"),
        (seat, "arrange", {}, "wrong_phase"),
        (seat, "fold", {}, "unknown_action"),
        (seat, "bet", {"multiple": 1, "extra": 1}, "malformed"),
    ]
    if banker is not None:
        cases.append((banker, "bet", {"multiple": 1}, "banker_cannot_bet"))
    for s, action, args, reason in cases:
        with pytest.raises(ActionRejected) as err:
            run.dealer.act(hand.hand_id, s, action, args)
        assert err.value.reason == reason
        assert len(hand.events) == before_events and not hand.writer.pending
        assert hand.state == before_state


def test_hundred_refused_bets_write_nothing_and_the_queue_carries() -> None:
    run = Run("niuniu.hundred")
    rich = table_seats(3, 10**7)
    hand = run.open(rich, close=False)
    run.keep(run.dealer.act(hand.hand_id, 2, "apply_banker", {}))
    n = len(hand.events)
    with pytest.raises(BetRejected) as err:
        run.dealer.place_bets(
            hand.hand_id,
            [
                {"seat": 1, "spot": "fu", "amount": 1000},
                {"seat": 1, "spot": "fu", "amount": 10**7},
            ],
        )
    assert err.value.reason == "over_limit"
    assert len(hand.events) == n  # all or nothing
    with pytest.raises(ActionRejected) as aerr:
        run.dealer.act(hand.hand_id, 2, "apply_banker", {})
    assert aerr.value.reason == "already_queued"
    run.keep(run.dealer.place_bets(hand.hand_id, [{"seat": 1, "spot": "shou", "amount": 100}]))
    run.keep(run.dealer.close_betting(hand.hand_id))
    assert hand.state.closed
    assert hand.events[-1].payload["carry"] == {"banker": None, "banked": 0, "queue": ["p2"]}
    nxt = run.open(rich, close=False)
    assert state(nxt).banker == 2  # p2 banks the next hand
    with pytest.raises(BetRejected) as err:
        run.dealer.place_bets(nxt.hand_id, [{"seat": 2, "spot": "fu", "amount": 100}])
    assert err.value.reason == "banker_cannot_bet"
    with pytest.raises(RuleViolation):
        run.dealer.expire(nxt.hand_id)  # nobody decides in 百人牛牛


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_demo_bots_play_whole_hands_from_what_a_player_sees(variant: str) -> None:
    """As the demo drives a table: the bots' stakes, then one decision per view (the
    public view after the close of betting, the acting seat's view after each act),
    until the hand closes; every hand audits PASS."""
    run = Run(variant)
    rng = random.Random(5)
    for _ in range(4):
        hand = run.open(close=False)
        bets = bets_for(variant, rng, [1, 2, 3, 4], 1, 10**7)
        if bets:
            run.keep(run.dealer.place_bets(hand.hand_id, bet_rows(bets)))
        run.keep(run.dealer.close_betting(hand.hand_id))
        seat: int | None = None
        while not hand.state.closed:
            view = [(x.type, json.loads(x.payload_json)) for x in redact(hand.events, seat)]
            move = next_move(variant, view, rng)
            assert move is not None, hand.state.phase
            run.keep(run.dealer.act(hand.hand_id, move.seat, move.action, move.args))
            seat = move.seat
        rep, _ = run.audit(hand.hand_id)
        assert rep.verdict is Verdict.PASS, rep.to_json_dict()
