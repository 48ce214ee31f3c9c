"""Poker evaluators: speed against treys, and the full 7-card category enumeration.

1. Speed: the same random hands evaluated by treys and by ``croupier.games.poker.hands``
   (hold'em best of 7, rank of 5, 炸金花 3-card rank, 德州2+3 best 3 of 5 — the table-driven
   function and the 10-trio reference it replaced), in evals/s,
   and a check that both evaluators order those 7-card hands identically.
2. Enumeration: every one of the C(52,7) = 133,784,560 seven-card hands, counted by
   category and compared with the classic figures (straight flush 41,584 … high card
   23,294,460). The loop keeps running card-key sums (``CARD_KEYS``), so a hand costs one
   add, one mask and one dict lookup unless a flush is possible. Takes a minute or two
   on one core; ``--skip-enum`` leaves it out.

Run: ``.venv/bin/python bench/bench_poker_eval.py [hands] [--skip-enum]``
"""

from __future__ import annotations

import random
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence

from treys import Card, Evaluator

from croupier.games.poker import hands as h
from croupier.games.poker.hands import Category

DECK = [r + s for s in "shdc" for r in "A23456789TJQK"]
SEVEN = {
    Category.STRAIGHT_FLUSH: 41_584,
    Category.QUADS: 224_848,
    Category.FULL_HOUSE: 3_473_184,
    Category.FLUSH: 4_047_644,
    Category.STRAIGHT: 6_180_020,
    Category.TRIPS: 6_461_620,
    Category.TWO_PAIR: 31_433_400,
    Category.PAIR: 58_627_800,
    Category.HIGH_CARD: 23_294_460,
}


def _rate(fn: Callable[[Sequence[str]], object], hands: list[tuple[str, ...]]) -> float:
    best = 0.0
    for _ in range(3):
        t = time.perf_counter()
        for x in hands:
            fn(x)
        best = max(best, len(hands) / (time.perf_counter() - t))
    return best


def speed(n: int) -> None:
    rng = random.Random(2026)
    h7 = [tuple(rng.sample(DECK, 7)) for _ in range(n)]
    ev = Evaluator()
    t7 = [[Card.new(c) for c in x] for x in h7]

    def treys7(x: Sequence[int]) -> int:
        return int(ev.evaluate(list(x[:2]), list(x[2:])))

    best = 0.0
    for _ in range(3):
        t = time.perf_counter()
        for y in t7:
            ev.evaluate(y[:2], y[2:])
        best = max(best, n / (time.perf_counter() - t))
    treys_rate = best
    ours7 = _rate(h.best_of, h7)
    h5 = [x[:5] for x in h7]
    ours5 = _rate(h.rank5, h5)
    best = 0.0
    for _ in range(3):
        t = time.perf_counter()
        for y in t7:
            ev.evaluate(y[:2], y[2:5])
        best = max(best, n / (time.perf_counter() - t))
    treys5_rate = best
    h3 = [x[:3] for x in h7]
    zjh = h.ZHAJINHUA
    ours3 = _rate(lambda x: h.rank3(x, zjh), h3)
    two3 = h.TWO_PLUS_THREE
    fresh = h.ThreeCardRules(name="bench", names=two3.names)
    t = time.perf_counter()
    h.best3_of5(h5[0], fresh)  # builds the per-rules tables
    build35 = time.perf_counter() - t
    ours35 = _rate(lambda x: h.best3_of5(x, two3), h5)
    ref35 = _rate(lambda x: h._best3_of5_reference(x, two3), h5)
    if any(h.best3_of5(x, two3) != h._best3_of5_reference(x, two3) for x in h5):
        raise SystemExit("best3_of5 differs from its reference")

    fwd: dict[int, int] = {}
    for x, y in zip(h7, t7, strict=True):
        a, b = h.best_of(x), treys7(y)
        if fwd.setdefault(a, b) != b:
            raise SystemExit(f"ordering differs on {x}")
    ks = sorted(fwd)
    same = [fwd[k] for k in ks] == sorted(fwd.values(), reverse=True)
    print(f"{n:,} random hands; ordering identical to treys on 7-card hands: {same}")
    print(
        f"  hold'em best of 7   treys {treys_rate:>12,.0f}/s   croupier {ours7:>12,.0f}/s"
        f"   x{ours7 / treys_rate:.1f}"
    )
    print(
        f"  hold'em 5 cards     treys {treys5_rate:>12,.0f}/s   croupier {ours5:>12,.0f}/s"
        f"   x{ours5 / treys5_rate:.1f}"
    )
    print(f"  炸金花 3 cards                                croupier {ours3:>12,.0f}/s")
    print(
        f"  德州2+3 best 3 of 5   before {ref35:>12,.0f}/s   croupier {ours35:>12,.0f}/s"
        f"   x{ours35 / ref35:.1f}   (before = the 10-trio reference; tables built in"
        f" {build35 * 1e3:.0f} ms)"
    )


def enumerate_seven() -> None:
    keys = [h.CARD_KEYS[c] for c in DECK]
    suits = [i // 13 for i in range(52)]
    nonflush = dict(h.nonflush_table())
    mask = h.RANK_MASK
    counts: Counter[int] = Counter()
    update = counts.update
    t = time.perf_counter()
    for a in range(46):
        ka = keys[a]
        for b in range(a + 1, 47):
            kb = ka + keys[b]
            for c in range(b + 1, 48):
                kc = kb + keys[c]
                for d in range(c + 1, 49):
                    kd = kc + keys[d]
                    for e in range(d + 1, 50):
                        ke = kd + keys[e]
                        for f in range(e + 1, 51):
                            kf = ke + keys[f]
                            tail = keys[f + 1 :]
                            sc = Counter(suits[i] for i in (a, b, c, d, e, f))
                            if max(sc.values()) < 4:  # no 7th card can make a flush
                                update([nonflush[(kf + k) & mask] >> 20 for k in tail])
                                continue
                            six = [DECK[i] for i in (a, b, c, d, e, f)]
                            for g in range(f + 1, 52):
                                counts[
                                    h.strength_from_key(kf + keys[g], [*six, DECK[g]]) >> 20
                                ] += 1
        print(f"  first card {a + 1}/46 done, {time.perf_counter() - t:.0f}s", file=sys.stderr)
    dt = time.perf_counter() - t
    got = {Category(k): v for k, v in counts.items()}
    total = sum(got.values())
    print(f"7-card enumeration: {total:,} hands in {dt:.1f}s ({total / dt:,.0f} hands/s)")
    for cat in sorted(SEVEN, reverse=True):
        mark = "ok" if got.get(cat) == SEVEN[cat] else "MISMATCH"
        print(f"  {cat.name:<15} {got.get(cat, 0):>12,}  expected {SEVEN[cat]:>12,}  {mark}")
    if got != SEVEN or total != 133_784_560:
        raise SystemExit("7-card category counts differ from the classic figures")


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    speed(int(args[0]) if args else 200_000)
    if "--skip-enum" not in sys.argv:
        enumerate_seven()


if __name__ == "__main__":
    main()
