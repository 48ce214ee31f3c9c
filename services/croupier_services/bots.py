"""Simulated players for the demo and the benchmarks: what each family's bots bet, and
the theoretical RTP per spot the demo compares against."""

from __future__ import annotations

import random
from fractions import Fraction
from functools import cache

from croupier.games.registry import engine as engine_for


def bets_for(
    variant: str, rng: random.Random, seats: list[int], shoe_hand_no: int, stack: int
) -> list[tuple[int, str, int]]:
    eng = engine_for(variant)
    if eng.family == "baccarat":
        return _baccarat_bets(variant, rng, seats, shoe_hand_no)
    return []


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
