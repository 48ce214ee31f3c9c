"""The exact prior of 楚汉德州 / 保险楚汉德州 round 1: P(Chu), P(Han), P(tie) and the
distribution of the winning hand type, before any card is shown.

Every one of the C(52,5) = 2,598,960 boards is grouped by suit relabelling
(:func:`croupier.games.chuhan.probability.canonical_board`); each class is counted once
with :func:`~croupier.games.chuhan.probability.board_counts` (all 1,081 x 990 ordered
Chu/Han hole deals around it) and weighted by its size. The denominator is
2,598,960 x 1,070,190. Prints the exact fractions as JSON: the ``prior`` block of
``seeds/variants/chuhan.json`` and ``chuhan.insured.json``.

Run: ``.venv/bin/python bench/bench_chuhan_prior.py`` (a few minutes on one core).
"""

from __future__ import annotations

import json
import sys
import time
from collections import Counter
from itertools import combinations

from croupier.cards import CARDS52
from croupier.games.chuhan.probability import (
    EMPTY_COUNTS,
    board_counts,
    canonical_board,
    prior_from_counts,
)


def main() -> None:
    t0 = time.perf_counter()
    classes: Counter[tuple[str, ...]] = Counter()
    for board in combinations(CARDS52, 5):
        classes[canonical_board(board)] += 1
    print(f"{len(classes)} board classes in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    total = EMPTY_COUNTS
    for i, (board, weight) in enumerate(sorted(classes.items())):
        total = total + board_counts(board).scaled(weight)
        if i % 10000 == 0:
            print(f"{i} {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    p = prior_from_counts(total)
    out = {
        "boards": total.boards,
        "deals": total.deals,
        "chu_wins_by_category": list(total.chu_wins),
        "ties_by_category": list(total.ties),
        "chu": str(p.chu),
        "han": str(p.han),
        "tie": str(p.tie),
        "winner_category": {c.name.lower(): str(v) for c, v in p.winner_category.items()},
        "seconds": round(time.perf_counter() - t0),
    }
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
