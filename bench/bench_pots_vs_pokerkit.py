"""Side-pot settlement: croupier's money kernel against pokerkit, side by side.

Generates random no-limit hold'em hands that reach showdown with side pots (2-9 players,
uneven stacks, some folds, all-ins), plays each through pokerkit's state machine, and
settles the same hands (same contributions, folds and hand strengths) with
``croupier.money.settle_pots``. Both sides apply a 5% rake on each winner's net profit
(the seeds' rule; pokerkit's built-in rake is a share of each pot, so pokerkit runs
rake-free and the 5% is taken from its payoffs inside its timed loop).

Checks that payouts agree. The kernel gives split-pot odd units one each clockwise from
the button, pot by pot; pokerkit merges consecutive pots whose remaining contenders are
the same (after killing hands that cannot win) and gives all odd units of a pot to its
lowest-seated winner. Hands where that is the only difference are counted separately
and checked to be exactly that, by re-splitting the kernel's pots pokerkit's way.

Run: ``.venv/bin/python bench/bench_pots_vs_pokerkit.py [hands] [seed]``
"""

from __future__ import annotations

import gc
import random
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from math import inf
from typing import TypeVar

from pokerkit import Automation, Mode, NoLimitTexasHoldem, StandardHighHand

from croupier.money import (
    FIVE_PERCENT,
    PotSeat,
    RakePolicy,
    SettlementResult,
    settle_pots,
)

RANKS = "23456789TJQKA"
SUITS = "shdc"
DECK = [r + s for r in RANKS for s in SUITS]
BLINDS = (50, 100)
REPEATS = 3
RATE = FIVE_PERCENT
AUTOMATIONS = (
    Automation.ANTE_POSTING,
    Automation.BET_COLLECTION,
    Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.CARD_BURNING,
    Automation.RUNOUT_COUNT_SELECTION,
    Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
    Automation.HAND_KILLING,
    Automation.CHIPS_PUSHING,
    Automation.CHIPS_PULLING,
)


@dataclass(frozen=True)
class Hand:
    stacks: tuple[int, ...]
    holes: tuple[str, ...]
    board: tuple[str, str, str]  # flop, turn, river
    plans: tuple[str, ...]  # per player: "fold", "shove" or "call"


def random_hand(rng: random.Random) -> Hand:
    n = rng.randint(2, 9)
    cards = rng.sample(DECK, 2 * n + 5)
    stacks = tuple(rng.randrange(200, 6000) for _ in range(n))
    holes = tuple(cards[2 * i] + cards[2 * i + 1] for i in range(n))
    b = cards[2 * n :]
    plans = tuple(rng.choices(("fold", "shove", "call"), (1, 3, 3))[0] for _ in range(n))
    if all(p == "fold" for p in plans):
        plans = ("shove", *plans[1:])
    return Hand(stacks, holes, (b[0] + b[1] + b[2], b[3], b[4]), plans)


def play_pokerkit(hand: Hand, automations: tuple[Automation, ...] = AUTOMATIONS):  # type: ignore[no-untyped-def]
    n = len(hand.stacks)
    state = NoLimitTexasHoldem.create_state(
        automations, True, 0, BLINDS, BLINDS[1], hand.stacks, n, mode=Mode.CASH_GAME
    )
    for h in hand.holes:
        state.deal_hole(h)
    folded: set[int] = set()
    board = list(hand.board)
    while state.status:
        if state.actor_index is not None:
            i = state.actor_index
            plan = hand.plans[i]
            if plan == "fold" and state.can_fold():
                state.fold()
                folded.add(i)
            elif plan == "shove" and state.can_complete_bet_or_raise_to():
                state.complete_bet_or_raise_to(state.max_completion_betting_or_raising_to_amount)
            else:
                state.check_or_call()
        elif board and state.can_deal_board():
            state.deal_board(board.pop(0))
        else:
            break
    return state, folded


def pokerkit_settle(hand: Hand) -> list[int]:
    state, _ = play_pokerkit(hand)
    out = []
    for p in state.payoffs:
        out.append(p - p * RATE.numerator // RATE.denominator if p > 0 else p)
    return out


def record(hand: Hand) -> tuple[PotSeat, ...]:
    """Contributions, folds and strengths of a hand, read from a pokerkit run that stops
    before chips are pushed (outside every timed loop)."""
    no_push = tuple(
        a for a in AUTOMATIONS if a not in (Automation.CHIPS_PUSHING, Automation.CHIPS_PULLING)
    )
    state, folded = play_pokerkit(hand, no_push)
    contributed = [start - now for start, now in zip(hand.stacks, state.stacks, strict=True)]
    board = "".join(hand.board)
    hands = {
        i: StandardHighHand.from_game(hand.holes[i], board)
        for i in range(len(hand.stacks))
        if i not in folded
    }
    ranking = sorted(set(hands.values()))
    strength = {i: ranking.index(h) for i, h in hands.items()}
    return tuple(
        PotSeat(f"p{i}", contributed[i], strength.get(i), i in folded)
        for i in range(len(hand.stacks))
    )


T = TypeVar("T")


def best_of(repeats: int, run: Callable[[], T]) -> tuple[float, T]:
    """Fastest of ``repeats`` timed runs, garbage collector off while timing (as
    ``timeit`` does), and the last run's output."""
    best = inf
    out: T | None = None
    for _ in range(repeats):
        gc.collect()
        gc.disable()
        try:
            t0 = time.perf_counter()
            out = run()
            best = min(best, time.perf_counter() - t0)
        finally:
            gc.enable()
    assert out is not None
    return best, out


def main() -> None:
    # pokerkit warns when a card is dealt out of its own shuffled deck order; the hands
    # here are dealt from a deck shuffled by this script.
    warnings.filterwarnings("ignore", category=UserWarning, module="pokerkit")
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 20240601
    rng = random.Random(seed)
    hands = [random_hand(rng) for _ in range(count)]
    seats = [record(h) for h in hands]
    multi_pot = sum(1 for s in seats if len({x.contributed for x in s if not x.folded}) > 1)
    policy = RakePolicy(RATE)
    buttons = [s[-1].participant for s in seats]

    def run_pokerkit() -> list[list[int]]:
        return [pokerkit_settle(h) for h in hands]

    def run_kernel() -> list[SettlementResult]:
        return [settle_pots(s, button=b, rake=policy) for s, b in zip(seats, buttons, strict=True)]

    t_pk, theirs = best_of(REPEATS, run_pokerkit)
    t_ck, ours = best_of(REPEATS, run_kernel)

    exact = odd_only = 0
    for s, mine, pk in zip(seats, ours, theirs, strict=True):
        got = [mine.deltas[x.participant] for x in s]
        if got == pk:
            exact += 1
            continue
        # Allowed difference: how a split pot's odd units are given. Re-split the
        # kernel's pots with pokerkit's rule; it must then agree to the unit.
        split = any(len(p.winners) > 1 for p in mine.pots)
        pk_style = _pokerkit_odd_rule(mine, s)
        if split and pk_style == pk and sum(got) + mine.total_rake == 0:
            odd_only += 1
            continue
        raise SystemExit(f"payout mismatch: {s}\n kernel {got}\n pokerkit {pk}")

    pk_rate = count / t_pk
    ck_rate = count / t_ck
    print(f"hands: {count} (seed {seed}), with side pots: {multi_pot}")
    print(
        f"agree exactly: {exact}; differ only by the odd-unit rule: {odd_only}; "
        f"mismatches: {count - exact - odd_only}"
    )
    print(f"timing: best of {REPEATS} runs each, garbage collector off while timed")
    print(f"pokerkit {pk_rate:>12,.0f} hands/s  ({t_pk * 1e6 / count:8.1f} us/hand)")
    print(f"kernel   {ck_rate:>12,.0f} hands/s  ({t_ck * 1e6 / count:8.1f} us/hand)")
    print(f"ratio    {ck_rate / pk_rate:>12,.1f} x")


def _pokerkit_odd_rule(result, seats) -> list[int]:  # type: ignore[no-untyped-def]
    """The kernel's pots re-split the way pokerkit splits them, then the 5% rake on net
    profit. pokerkit kills every hand that cannot win anything before pushing chips, so
    consecutive pots whose remaining contenders coincide are merged into one, and a
    pot's odd units all go to its lowest-seated winner. Same money, other odd units."""
    alive = {w for pot in result.pots for w in pot.winners}
    merged: list[list] = []  # [contenders, amount, winners]
    for pot in result.pots:
        contenders = tuple(e for e in pot.eligible if e in alive)
        if merged and merged[-1][0] == contenders:
            merged[-1][1] += pot.amount
        else:
            merged.append([contenders, pot.amount, pot.winners])
    index = {x.participant: i for i, x in enumerate(seats)}
    won = {x.participant: 0 for x in seats}
    for _, amount, winners in merged:
        ws = sorted(winners, key=index.__getitem__)
        q, r = divmod(amount, len(ws))
        for j, w in enumerate(ws):
            won[w] += q + (r if j == 0 else 0)
    returned = {w: v for w, v in result.steps[0].returned}
    out = []
    for x in seats:
        p = won[x.participant] + returned.get(x.participant, 0) - x.contributed
        out.append(p - p * RATE.numerator // RATE.denominator if p > 0 else p)
    return out


if __name__ == "__main__":
    assert Fraction(RATE) == Fraction(1, 20)
    main()
