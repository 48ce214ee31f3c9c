"""保险楚汉德州: how long the exact odds of a round take, per number of board cards shown
(every runout enumerated with the shared evaluator; uncached timings).

Round 2 shows the flop (990 runouts), round 3 the turn (44); round 1 shows nothing and
uses the stored prior (``bench/bench_chuhan_prior.py``); the no-board case below
(C(48,5) = 1,712,304 runouts) is what ``croupier rules eval chuhan.insured CHU HAN``
computes.

Run: ``.venv/bin/python bench/bench_chuhan_runouts.py``.
"""

from __future__ import annotations

import random
import time

from croupier.cards import CARDS52
from croupier.games.chuhan.probability import _runout_odds


def main() -> None:
    rng = random.Random(1)
    _runout_odds.__wrapped__(("As", "Ad"), ("Kh", "Kc"), ("2c", "7d", "9s"))  # warm up
    for shown, reps in ((4, 200), (3, 50), (0, 1)):
        t0 = time.perf_counter()
        n = 0
        for _ in range(reps):
            cards = rng.sample(CARDS52, 4 + shown)
            chu, han, board = cards[:2], cards[2:4], cards[4:]
            r = _runout_odds.__wrapped__(tuple(chu), tuple(han), tuple(board))
            n = r.runouts
        dt = (time.perf_counter() - t0) / reps
        print(f"{shown} board cards shown: {n:>9,} runouts  {dt * 1000:9.2f} ms per position")


if __name__ == "__main__":
    main()
