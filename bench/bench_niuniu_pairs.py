"""Cross-check of :func:`croupier.games.niuniu.probability.pair_odds` (inclusion-exclusion
over shared cards) by the direct double loop over every pair of rank multisets, with
the number of disjoint suit assignments of each pair and the a / (a + b) share of a tie
on the highest rank. Slow (a few minutes in pure Python): run by hand,

    .venv/bin/python bench/bench_niuniu_pairs.py [VARIANT]

and it prints both results, the time each took, and whether they agree exactly.
"""

from __future__ import annotations

import math
import sys
import time
from fractions import Fraction

from croupier.games.niuniu.engine import NiuniuEngine
from croupier.games.niuniu.probability import (
    PAIRS,
    multiset_categories,
    pair_class,
    pair_odds,
)
from croupier.games.registry import engine


def direct(eng: NiuniuEngine) -> dict[str, Fraction]:
    rules = eng.hands
    cats = multiset_categories(rules)
    rows = []
    for counts, cat in cats.items():
        k = pair_class(counts, cat, rules)
        nz = tuple((r, c) for r, c in enumerate(counts) if c)
        rows.append((counts, nz, cat, k, math.prod(math.comb(4, c) for c in counts)))
    comb = [[math.comb(n, k) for k in range(6)] for n in range(5)]
    wins: dict[str, Fraction] = {c.value: Fraction(0) for c in rules.order}
    pairs = 0
    for cs, _, cat_s, ks, ways_s in rows:
        acc = 0  # 840 x pairs the spot wins, this cS
        total = 0
        for _, nzb, _, kb, _ in rows:
            n = 1
            for r, c in nzb:
                n *= comb[4 - cs[r]][c]
                if not n:
                    break
            if not n:
                continue
            total += n
            if ks[:2] > kb[:2]:
                acc += 840 * n
            elif ks[:2] == kb[:2]:
                a, b = ks[2], kb[2]
                acc += n * (840 * a // (a + b) if a + b else 420)
        pairs += ways_s * total
        wins[cat_s.value] += Fraction(ways_s * acc, 840)
    assert pairs == PAIRS, pairs
    return wins


def main() -> None:
    variant = sys.argv[1] if len(sys.argv) > 1 else "niuniu.hundred"
    eng = engine(variant)
    assert isinstance(eng, NiuniuEngine)
    t0 = time.perf_counter()
    fast = {c.value: v for c, v in pair_odds(eng.hands).spot_wins.items()}
    t1 = time.perf_counter()
    slow = direct(eng)
    t2 = time.perf_counter()
    print(f"inclusion-exclusion {t1 - t0:.2f}s, direct double loop {t2 - t1:.2f}s")
    for k in fast:
        print(f"  {k:<12}{fast[k]!s:>16}{slow[k]!s:>16}  {'ok' if fast[k] == slow[k] else 'DIFF'}")
    print("agree" if fast == slow else "DISAGREE")


if __name__ == "__main__":
    main()
