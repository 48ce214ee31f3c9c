"""Settlement of baccarat-like hands against the house: the direct computation
(:func:`croupier.money.settle_against_house`) against the general claim pipeline it
replaces (``_settle_against_house_generic``, i.e. :func:`croupier.money.settle`).

Generates random 8-player hands: each hand deals one coup (player, banker or tie wins,
banker winning on 6 or not, pairs, big/small, super 6) and each player puts 1-3 stakes
on random spots; every stake's result is that spot's profit multiple for the coup
(1, 1/2, 3/2, 8, 11, 12, 0 for a push, -1 for a loss). Both implementations settle
every hand, their records must be identical, and each is timed on its own and with
``to_json_dict()`` (what an auditor compares), best of ``REPEATS`` runs, the two
interleaved so that a busy machine slows both alike.

Run: ``.venv/bin/python bench/bench_house_settle.py [hands] [seed]``
"""

from __future__ import annotations

import gc
import random
import sys
import time
from collections.abc import Callable, Sequence
from fractions import Fraction

from croupier.money import SettlementResult, Wager, settle_against_house
from croupier.money.settle import _settle_against_house_generic

PLAYERS = 8
REPEATS = 5
WIN, LOSS, PUSH = Fraction(1), Fraction(-1), Fraction(0)
STAKES = (100, 500, 1_000, 2_500, 5_000, 10_000, 25_000, 100_000)

Settle = Callable[[Sequence[Wager]], SettlementResult]
Hand = tuple[str, list[Wager]]


def coup_results(rng: random.Random) -> dict[str, Fraction]:
    """Each spot's profit multiple for one random coup (roughly baccarat's odds)."""
    winner = rng.choices(("banker", "player", "tie"), weights=(46, 45, 9))[0]
    banker_six = winner == "banker" and rng.random() < 0.05
    four_cards = rng.random() < 0.4

    def pays(won: bool, multiple: Fraction) -> Fraction:
        return multiple if won else LOSS

    return {
        "banker": PUSH
        if winner == "tie"
        else pays(winner == "banker", Fraction(1, 2) if banker_six else WIN),
        "player": PUSH if winner == "tie" else pays(winner == "player", WIN),
        "tie": pays(winner == "tie", Fraction(8)),
        "banker_pair": pays(rng.random() < 0.075, Fraction(11)),
        "player_pair": pays(rng.random() < 0.075, Fraction(11)),
        "big": pays(not four_cards, Fraction(1, 2)),
        "small": pays(four_cards, Fraction(3, 2)),
        "super6": pays(banker_six, Fraction(12)),
    }


def random_hand(rng: random.Random, index: int) -> Hand:
    results = coup_results(rng)
    spots = list(results)
    wagers = [
        Wager(f"p{seat}", spot, rng.choice(STAKES) + rng.choice((0, 0, 0, 5, 50)), results[spot])
        for seat in range(1, PLAYERS + 1)
        for spot in rng.sample(spots, rng.choice((1, 1, 1, 2, 2, 3)))
    ]
    return f"h{index}", wagers


def run(hands: Sequence[Hand], fn: Callable[..., SettlementResult], to_json: bool) -> float:
    gc.collect()
    start = time.perf_counter()
    if to_json:
        for hand_id, wagers in hands:
            fn(wagers, hand_id=hand_id).to_json_dict()
    else:
        for hand_id, wagers in hands:
            fn(wagers, hand_id=hand_id)
    return time.perf_counter() - start


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    rng = random.Random(seed)
    hands = [random_hand(rng, i) for i in range(n)]
    wagers = sum(len(w) for _, w in hands)
    print(f"{n} hands, {PLAYERS} players, {wagers / n:.1f} wagers per hand (seed {seed})")

    for hand_id, ws in hands:
        fast = settle_against_house(ws, hand_id=hand_id).to_json_dict()
        if fast != _settle_against_house_generic(ws, hand_id=hand_id).to_json_dict():
            raise SystemExit(f"records differ on hand {hand_id}")
    print("records identical on every hand")

    for to_json in (False, True):
        best = {"before": float("inf"), "after": float("inf")}
        for _ in range(REPEATS):
            best["before"] = min(best["before"], run(hands, _settle_against_house_generic, to_json))
            best["after"] = min(best["after"], run(hands, settle_against_house, to_json))
        label = "settle + to_json_dict" if to_json else "settle"
        print(f"{label}:")
        for name, impl in (("before", "generic pipeline"), ("after", "direct")):
            seconds = best[name]
            print(
                f"  {name:6s} ({impl:16s}) {n / seconds:10,.0f} hands/s "
                f"{seconds / n * 1e6:8.1f} us/hand"
            )
        print(f"  speed-up {best['before'] / best['after']:.2f}x")


if __name__ == "__main__":
    main()
