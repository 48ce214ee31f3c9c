"""Simulated players for the demo and the benchmarks: what each family's bots bet, what
they do when the rules wait for a decision, and the theoretical RTP per spot the demo
compares against."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache
from typing import Any

from croupier.games import base as g
from croupier.games.blackjack.engine import BlackjackEngine
from croupier.games.blackjack.rules import Action
from croupier.games.registry import engine as engine_for

BLACKJACK_INSURE_RATE = 0.25
"""How often a blackjack bot buys the insurance basic strategy declines, so the demo
also plays insurance, the peek and their settlement."""


@dataclass(frozen=True)
class Move:
    """One decision a bot sends with ``Act``: ``stake`` is what it adds on ``spot``."""

    seat: int
    action: str
    args: dict[str, Any] = field(default_factory=dict)
    spot: str = ""
    stake: int = 0


def bets_for(
    variant: str, rng: random.Random, seats: list[int], shoe_hand_no: int, stack: int
) -> list[tuple[int, str, int]]:
    eng = engine_for(variant)
    if eng.family == "baccarat":
        return _baccarat_bets(variant, rng, seats, shoe_hand_no)
    if eng.family == "blackjack":
        return _blackjack_bets(variant, rng, seats)
    return []


def next_move(
    variant: str, events: Sequence[tuple[str, Mapping[str, Any]]], rng: random.Random
) -> Move | None:
    """The decision a bot makes on a hand's events as a player sees them (face-down
    cards redacted), or None when nobody has to decide (every family without player
    decisions, or the dealer is dealing, or the hand is over)."""
    eng = engine_for(variant)
    if isinstance(eng, BlackjackEngine):
        return _blackjack_move(eng, events, rng)
    return None


def _blackjack_bets(
    variant: str, rng: random.Random, seats: list[int]
) -> list[tuple[int, str, int]]:
    eng = engine_for(variant)
    assert isinstance(eng, BlackjackEngine)
    t = eng.table
    lo, hi = t.min_bet // t.step, min(t.max_bet, 100_000) // t.step
    return [(seat, "main", rng.randint(lo, max(lo, hi)) * t.step) for seat in seats]


def _blackjack_move(
    eng: BlackjackEngine, events: Sequence[tuple[str, Mapping[str, Any]]], rng: random.Random
) -> Move | None:
    """Basic strategy (the 超时保护 advisor), plus insurance now and then."""
    if not events or events[0][0] != g.HAND_OPENED:
        return None
    st = eng.open("view", events[0][1])
    for type_, payload in events[1:]:
        if type_ in (g.HAND_CLOSED, g.HAND_OUTCOME, g.HAND_SETTLED):
            return None
        eng.apply(st, type_, payload)  # as seen: not verified (the hole card is "??")
    turn = eng.to_act(st)
    if turn is None:
        return None
    action = eng.advise(st, turn)
    offered = action is Action.DECLINE and Action.INSURE in turn.actions
    if offered and rng.random() < BLACKJACK_INSURE_RATE:
        action = Action.INSURE
    play = st.play[turn.seat]
    spot, stake = "", 0
    if action is Action.INSURE:
        spot, stake = "insurance", int(play.bet * eng.rules.insurance_cost)
    elif action is Action.DOUBLE:
        spot, stake = ("double" if turn.hand == 0 else "double.split"), play.bet
    elif action is Action.SPLIT:
        spot, stake = "main.split", play.bet
    return Move(turn.seat, action.value, {}, spot, stake)


def _baccarat_bets(
    variant: str, rng: random.Random, seats: list[int], hand_no: int
) -> list[tuple[int, str, int]]:
    eng = engine_for(variant)
    limits = eng.config.raw["spots"]
    step = int(eng.config.raw.get("stake_step", 1))
    out = []
    for seat in seats:
        main = rng.choice(("banker", "player", "banker", "player", "tie"))
        spots = [main]
        for side in ("banker_pair", "player_pair", "big", "small", "super6"):
            if side in ("big", "small") and hand_no > int(
                eng.config.raw["no_big_small_after_hand"]
            ):
                continue
            if rng.random() < 0.15:
                spots.append(side)
        for spot in spots:
            lim = limits[spot]
            lo, hi = int(lim["min"]) // step, min(int(lim["max"]), 100_000) // step
            amount = rng.randint(lo, max(lo, hi)) * step
            out.append((seat, spot, amount))
    return out


@cache
def theoretical_rtp(variant: str) -> dict[str, Fraction]:
    return engine_for(variant).theoretical_rtp()
