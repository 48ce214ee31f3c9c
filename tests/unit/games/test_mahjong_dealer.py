"""Mahjong through the dealer core (croupier.dealing.Dealer): whole hands dealt from
committed shuffles (the dealer picked and 换三张's direction chosen by dice from the
fair RNG), played by the 托管 policy, closed with the next dealer in ``carry``, settled
(croupier.settlement.settle_state) and audited (croupier.audit.audit_hand) with a
PASS; refused actions write nothing."""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from croupier.audit import Verdict
from croupier.dealing import Hand
from croupier.errors import ActionRejected
from croupier.games import base as g
from croupier.games.mahjong.engine import MahjongEngine
from croupier.games.mahjong.state import TURN
from croupier.games.mahjong.tiles import tile_index, tile_name
from croupier.games.registry import engine
from croupier.testing import DealerRun, seat_rows

SEATS = seat_rows((1, 2, 3, 4), 200_000)
VARIANTS = ["mahjong.xuezhan", "mahjong.xuezhan_daodi", "mahjong.guangdong"]


def eng(variant: str) -> MahjongEngine:
    e = engine(variant)
    assert isinstance(e, MahjongEngine)
    return e


@dataclass
class Run(DealerRun):
    """A mahjong table of four seats, played by the 托管 policy."""

    seed_label: str = "mj"
    seats: Sequence[Mapping[str, Any]] = tuple(SEATS)

    def play_out(self, hand: Hand, *, timeouts: bool = False) -> None:
        """Every decision by the 托管 policy: the players' (``advise``) or, with
        ``timeouts``, the dealer's own on each expired turn (``Dealer.expire``)."""
        e = eng(self.variant)
        while not hand.state.closed:
            if timeouts:
                self.keep(self.dealer.expire(hand.hand_id))
                continue
            seat = e.to_act(hand.state)[0]
            seat, action, args = e.advise(hand.state, seat)
            self.keep(self.dealer.act(hand.hand_id, seat, action, args))


@pytest.mark.parametrize("variant", VARIANTS)
def test_whole_hands_through_the_dealer_settle_and_audit_pass(variant: str) -> None:
    e = eng(variant)
    run = Run(variant)
    hands = []
    for k in range(2):
        hand = run.open()
        run.play_out(hand, timeouts=k == 1)
        hands.append(hand)
    run.keep(run.dealer.close_table("t1"))
    for k, hand in enumerate(hands):
        log = run.stream(hand.hand_id)
        types = [x.type for x in log.events]
        assert types[:2] == [g.HAND_OPENED, g.BETTING_CLOSED]
        assert types[-1] == g.HAND_CLOSED
        # the first hand draws its dealer by a die; the second inherits it through carry
        assert (types[2] == g.DICE_ROLLED) == (k == 0)
        dice = [x.payload for x in log.events if x.type == g.DICE_ROLLED]
        if e.rules.swap_three:
            assert dice[-1]["faces"] == [3]
        draws = [c for x in log.events if x.type == g.CARD_DEALT for c in x.payload["cards"]]
        assert all(not c["up"] for c in draws if c["to"].startswith("seat:"))
        assert sum(c["to"] == "indicator" and c["up"] for c in draws) == (
            1 if e.rules.indicator else 0
        )
        acts = [x.payload for x in log.events if x.type == g.ACTION_TAKEN]
        assert acts and all((a["args"].get("auto") == "timeout") == (k == 1) for a in acts)
        rep, hs = run.audit(hand.hand_id)
        assert sum(n for _, n in hs.postings) == 0
        assert rep.verdict is Verdict.PASS, rep.to_json_dict()
    first, second = hands
    carry = first.events[-1].payload["carry"]
    assert carry["dealer"] == e.next_dealer(first.state)
    assert second.state.dealer == carry["dealer"]


def waiting_turn(variant: str) -> tuple[Run, Hand]:
    run = Run(variant)
    hand = run.open()
    e = eng(variant)
    while hand.state.step != TURN:
        seat = e.to_act(hand.state)[0]
        run.keep(run.dealer.act(hand.hand_id, *e.advise(hand.state, seat)))
    return run, hand


@pytest.mark.parametrize("variant", VARIANTS)
def test_refused_actions_write_nothing(variant: str) -> None:
    e = eng(variant)
    run, hand = waiting_turn(variant)
    st = hand.state
    seat = st.current
    assert seat is not None
    pl = st.players[seat]
    other = next(s for s in st.order if s != seat)
    missing = next(t for t in e.universe if pl.hand[t] == 0)
    before_events, before_state = len(hand.events), copy.deepcopy(st)
    cases: list[tuple[int, str, dict[str, Any], str]] = [
        (other, "discard", {"tile": tile_name(missing)}, "out_of_turn"),
        (seat, "discard", {"tile": tile_name(missing)}, "not_in_hand"),
        (seat, "discard", {"tile": "9x"}, "malformed"),
        (seat, "peng", {}, "bad_action"),
        (seat, "fly", {}, "unknown_action"),
        (seat, "gang", {"tile": tile_name(missing)}, "no_gang"),
    ]
    if e.can_win(st, seat) is None:
        cases.append((seat, "hu", {}, "not_a_win"))
    if st.ghost is not None and pl.hand[st.ghost]:
        cases.append((seat, "discard", {"tile": tile_name(st.ghost)}, "ghost_discard"))
    for s, action, args, reason in cases:
        with pytest.raises(ActionRejected) as err:
            run.dealer.act(hand.hand_id, s, action, args)
        assert err.value.reason == reason, (action, args, err.value.message)
        assert len(hand.events) == before_events and not hand.writer.pending
        assert hand.state == before_state
    assert tile_index(tile_name(missing)) == missing


def test_the_demo_bot_plays_a_hand_from_a_players_view() -> None:
    import random

    from croupier_services.bots import next_move

    variant = "mahjong.guangdong"
    run = Run(variant, seed_base=5)
    hand = run.open()
    rng = random.Random(1)
    view_seat: int | None = None
    while not hand.state.closed:
        events = [(x.type, x.payload) for x in hand.events]
        if view_seat is not None:  # the other hands as the acting seat sees them
            events = [
                (
                    t,
                    {
                        **p,
                        "cards": [
                            c if c["up"] or c["to"] == f"seat:{view_seat}" else {**c, "card": "??"}
                            for c in p["cards"]
                        ],
                    },
                )
                if t == g.CARD_DEALT
                else (t, p)
                for t, p in events
            ]
        move = next_move(variant, events, rng)
        assert move is not None and move.timeout
        b = run.keep(run.dealer.expire(hand.hand_id))
        view_seat = next(e.payload["seat"] for e in b.events if e.type == g.ACTION_TAKEN)
    closed = [(x.type, x.payload) for x in hand.events]
    assert next_move(variant, closed, rng) is None
    run.keep(run.dealer.close_table("t1"))
    rep, _ = run.audit(hand.hand_id)
    assert rep.verdict is Verdict.PASS, rep.to_json_dict()


def test_the_three_tiles_passed_are_hidden_from_the_others_until_the_hand_ends() -> None:
    import json

    from croupier_services.dealer import redact_public
    from croupier_services.views import HIDDEN, redact

    e = eng("mahjong.xuezhan")
    run = Run("mahjong.xuezhan")
    hand = run.open()
    b = run.keep(run.dealer.expire(hand.hand_id))  # the first seat's 换三张, played by 托管
    (swap,) = [x for x in b.events if x.type == g.ACTION_TAKEN]
    assert swap.payload["action"] == "swap"
    seat = swap.payload["seat"]

    def args_seen(viewer: int | None) -> Any:
        (pb,) = [x for x in redact(hand.events, viewer, (), e.private_args) if x.seq == swap.seq]
        return json.loads(pb.payload_json)["args"]["tiles"]

    assert args_seen(seat) == swap.payload["args"]["tiles"]
    other = next(s for s in (1, 2, 3, 4) if s != seat)
    assert args_seen(other) == args_seen(None) == HIDDEN
    assert swap not in redact_public(b.events, e.private_args)
    run.play_out(hand)
    assert hand.state.closed
    assert args_seen(other) == swap.payload["args"]["tiles"]  # shown once the hand is over


def test_a_winner_who_leaves_early_forfeits_the_fan_but_keeps_the_gang_income() -> None:
    """004 血战到底: 如果胡了的玩家提前离开，则不给予所赢番数，但是杠分还是他本人所有. The
    winner's ``away`` drops the hu payments to them; 杠 income stays; the audit passes.
    In 000 血战麻将 (no such rule) the same leave changes nothing."""
    from croupier.games.mahjong.state import SPOT_HU

    def hand_with_a_win(variant: str) -> tuple[Run, Hand, int]:
        for base in range(1, 40):
            run = Run(variant, seed_base=base)
            hand = run.open()
            while not hand.state.closed and not hand.state.wins:
                run.keep(run.dealer.expire(hand.hand_id))
            if not hand.state.closed:
                return run, hand, hand.state.wins[0].seat
        raise AssertionError("no hand with an early win")

    for variant, forfeits in (("mahjong.xuezhan_daodi", True), ("mahjong.xuezhan", False)):
        e = eng(variant)
        run, hand, winner = hand_with_a_win(variant)
        run.keep(run.dealer.act(hand.hand_id, winner, g.AWAY, {}))
        while not hand.state.closed:
            run.keep(run.dealer.expire(hand.hand_id))
        st = hand.state
        who = st.seats[winner].player
        paid_hu = [c for c in e.claims(st) if c.payee == who and c.spot == SPOT_HU]
        assert (winner in st.forfeited) is forfeits
        assert e.outcome(st)["forfeited"] == ([winner] if forfeits else [])
        assert (not paid_hu) is forfeits
        assert any(p.payee == winner and p.spot == SPOT_HU for p in st.pays)  # still recorded
        kept = [c for c in e.claims(st) if c.payee == who]
        unforfeited = copy.deepcopy(st)
        unforfeited.forfeited.clear()
        full = [c for c in e.claims(unforfeited) if c.payee == who]
        assert kept == [c for c in full if not (forfeits and c.spot == SPOT_HU)]  # 杠分 stays
        rep, hs = run.audit(hand.hand_id)
        assert rep.verdict is Verdict.PASS, rep.to_json_dict()
        assert sum(n for _, n in hs.postings) == 0
