"""Exact baccarat probabilities and spot RTPs by enumeration without replacement.

Rules source: seed ``000_d16ad353ba467b8a.txt``, section 百家乐玩法规则介绍 (8 decks of
52 cards, 416 in all; deal order, drawing tables and paytable as implemented in
:mod:`croupier.games.baccarat.rules`, whose functions this module calls).

Model
-----
The shoe is shuffled uniformly; the coup takes cards from its top in the order
P1, B1, P2, B2, then the player's and the banker's third cards if the tables say so.
Every ordered sequence of distinct physical cards is equally likely, so the weight of a
coup that uses ``k`` cards is the number of ordered ``k``-card sequences that produce
it. To put 4-, 5- and 6-card coups on one denominator every weight is extended to six
cards (the unused top cards are anything): the denominator is ``N(N-1)...(N-5)`` for a
shoe of ``N`` cards, and all weights are integers until the final division.

Enumeration is by *class*, never by individual card:

1. The first four cards are enumerated by **rank** (13 classes, 13**4 ordered rank
   tuples, with falling-factorial multiplicities). Ranks are needed because a pair (对)
   is two cards of the same rank: ``T``, ``J``, ``Q`` and ``K`` all count 0 but a
   ``T`` and a ``K`` are not a pair. This gives, per tuple of four point values, the
   weight split by (player pair, banker pair).
2. The third cards are enumerated by **point value** (10 classes, ``0`` holding the
   four zero ranks) from the shoe left after the first four, with multiplicities.
   What they do depends on their value only, and the remaining count per value does
   not depend on which zero ranks were used, so the two stages multiply.

The result is the joint distribution of :class:`OutcomeClass` (final totals, card
count, natural, both pair flags), from which every probability and RTP follows; the
RTP uses :func:`~croupier.games.baccarat.rules.spot_result`, the very function that
settles real bets.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from croupier.errors import InvalidInput
from croupier.games.baccarat.rules import (
    RANKS,
    SEED_PAYTABLE,
    Paytable,
    Spot,
    Winner,
    banker_draws,
    is_natural,
    player_draws,
    point,
    spot_result,
)

__all__ = [
    "DEFAULT_DECKS",
    "BaccaratOdds",
    "OutcomeClass",
    "OutcomeDistribution",
    "PayoutReading",
    "baccarat_odds",
    "format_odds_table",
    "fresh_shoe",
    "odds_for_shoe",
    "outcome_distribution",
    "payout_reading_rtps",
]

DEFAULT_DECKS = 8
"""Decks per shoe (000_d16ad353ba467b8a.txt, 百家乐玩法规则介绍, 一、玩法 1)."""

_CARDS_PER_RANK_PER_DECK = 4
_COUP_MAX_CARDS = 6


@dataclass(frozen=True, slots=True, order=True)
class OutcomeClass:
    """Everything about a finished coup that any bet spot depends on."""

    player_total: int
    banker_total: int
    card_count: int
    natural: bool
    player_pair: bool
    banker_pair: bool

    @property
    def winner(self) -> Winner:
        if self.player_total > self.banker_total:
            return Winner.PLAYER
        if self.banker_total > self.player_total:
            return Winner.BANKER
        return Winner.TIE


@dataclass(frozen=True, slots=True)
class OutcomeDistribution:
    """Joint distribution of outcome classes as integer weights over ``denominator``.

    ``denominator`` is the number of ordered six-card sequences from the shoe; the
    weights sum to it exactly.
    """

    weights: Mapping[OutcomeClass, int]
    denominator: int
    shoe_size: int

    def probability(self, outcome: OutcomeClass) -> Fraction:
        return Fraction(self.weights.get(outcome, 0), self.denominator)

    def weight_where(self, *, winner: Winner | None = None, **flags: int | bool) -> int:
        """Total weight of the classes matching ``winner`` and the given field values."""
        total = 0
        for outcome, weight in self.weights.items():
            if winner is not None and outcome.winner is not winner:
                continue
            if all(getattr(outcome, name) == value for name, value in flags.items()):
                total += weight
        return total

    def rtp(self, spot: Spot, paytable: Paytable = SEED_PAYTABLE) -> Fraction:
        """Expected return per 1 staked on ``spot`` (1 + expected profit)."""
        expected = sum(
            (
                weight * spot_result(spot, outcome, paytable)
                for outcome, weight in self.weights.items()
            ),
            start=Fraction(0),
        )
        return 1 + expected / self.denominator


def fresh_shoe(decks: int = DEFAULT_DECKS) -> dict[str, int]:
    """Rank counts of a fresh shoe of ``decks`` 52-card decks without jokers."""
    if isinstance(decks, bool) or not isinstance(decks, int) or decks < 1:
        raise InvalidInput(f"decks must be a positive integer, got {decks!r}")
    return {rank: _CARDS_PER_RANK_PER_DECK * decks for rank in RANKS}


def _falling(n: int, k: int) -> int:
    result = 1
    for i in range(k):
        result *= n - i
    return result


def outcome_distribution(rank_counts: Mapping[str, int]) -> OutcomeDistribution:
    """Exact joint outcome distribution of the next coup dealt from a shoe.

    ``rank_counts`` maps ranks (``A``..``K``) to the number of cards of that rank left
    in the shoe (missing ranks count 0). The shoe must hold at least 6 cards.
    """
    counts = [0] * len(RANKS)
    for rank, n in rank_counts.items():
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise InvalidInput(f"rank count for {rank!r} must be a non-negative integer")
        point(rank)
        counts[RANKS.index(rank)] = n
    size = sum(counts)
    if size < _COUP_MAX_CARDS:
        raise InvalidInput(f"a shoe needs at least {_COUP_MAX_CARDS} cards, has {size}")
    rank_points = [point(r) for r in RANKS]

    # Stage 1: first four cards (P1, B1, P2, B2) by rank -> value tuple -> pair split.
    pair_split: dict[tuple[int, int, int, int], dict[tuple[bool, bool], int]] = defaultdict(
        lambda: defaultdict(int)
    )
    left = counts[:]
    ranks = range(len(RANKS))
    for p1 in ranks:
        w1 = left[p1]
        if not w1:
            continue
        left[p1] -= 1
        for b1 in ranks:
            w2 = w1 * left[b1]
            if not w2:
                continue
            left[b1] -= 1
            for p2 in ranks:
                w3 = w2 * left[p2]
                if not w3:
                    continue
                left[p2] -= 1
                for b2 in ranks:
                    w4 = w3 * left[b2]
                    if not w4:
                        continue
                    key = (rank_points[p1], rank_points[b1], rank_points[p2], rank_points[b2])
                    pair_split[key][(p1 == p2, b1 == b2)] += w4
                left[p2] += 1
            left[b1] += 1
        left[p1] += 1

    # Stage 2: third cards by point value, from what the first four left.
    value_counts = [0] * 10
    for index, n in enumerate(counts):
        value_counts[rank_points[index]] += n
    after_four = size - 4
    stand_both = after_four * (after_four - 1)  # two unused cards to reach six
    weights: dict[OutcomeClass, int] = defaultdict(int)
    for (p1v, b1v, p2v, b2v), split in pair_split.items():
        remaining = value_counts[:]
        for v in (p1v, b1v, p2v, b2v):
            remaining[v] -= 1
        player_two = (p1v + p2v) % 10
        banker_two = (b1v + b2v) % 10
        natural = is_natural(player_two) or is_natural(banker_two)
        finals: dict[tuple[int, int, int], int] = defaultdict(int)
        if natural:
            finals[(player_two, banker_two, 4)] = stand_both
        elif player_draws(player_two):
            for x in range(10):
                wx = remaining[x]
                if not wx:
                    continue
                player_final = (player_two + x) % 10
                if banker_draws(banker_two, x):
                    remaining[x] -= 1
                    for y in range(10):
                        wy = remaining[y]
                        if wy:
                            finals[(player_final, (banker_two + y) % 10, 6)] += wx * wy
                    remaining[x] += 1
                else:
                    finals[(player_final, banker_two, 5)] += wx * (after_four - 1)
        elif banker_draws(banker_two, None):
            for y in range(10):
                wy = remaining[y]
                if wy:
                    finals[(player_two, (banker_two + y) % 10, 5)] += wy * (after_four - 1)
        else:
            finals[(player_two, banker_two, 4)] = stand_both
        for (player_pair, banker_pair), w_first in split.items():
            for (player_final, banker_final, cards), w_rest in finals.items():
                outcome = OutcomeClass(
                    player_final, banker_final, cards, natural, player_pair, banker_pair
                )
                weights[outcome] += w_first * w_rest

    denominator = _falling(size, _COUP_MAX_CARDS)
    return OutcomeDistribution(
        weights=dict(sorted(weights.items())), denominator=denominator, shoe_size=size
    )


@dataclass(frozen=True, slots=True)
class BaccaratOdds:
    """Exact probabilities of the paytable's events and the RTP of every spot."""

    shoe_size: int
    banker_win: Fraction
    player_win: Fraction
    tie: Fraction
    banker_win_with_6: Fraction
    player_pair: Fraction
    banker_pair: Fraction
    big: Fraction
    small: Fraction
    natural: Fraction
    rtp: Mapping[Spot, Fraction]
    paytable: Paytable
    distribution: OutcomeDistribution


def odds_for_shoe(
    rank_counts: Mapping[str, int], paytable: Paytable = SEED_PAYTABLE
) -> BaccaratOdds:
    """:class:`BaccaratOdds` for the next coup from a shoe with these rank counts."""
    dist = outcome_distribution(rank_counts)
    return _odds(dist, paytable)


def _odds(dist: OutcomeDistribution, paytable: Paytable) -> BaccaratOdds:
    def p(weight: int) -> Fraction:
        return Fraction(weight, dist.denominator)

    return BaccaratOdds(
        shoe_size=dist.shoe_size,
        banker_win=p(dist.weight_where(winner=Winner.BANKER)),
        player_win=p(dist.weight_where(winner=Winner.PLAYER)),
        tie=p(dist.weight_where(winner=Winner.TIE)),
        banker_win_with_6=p(dist.weight_where(winner=Winner.BANKER, banker_total=6)),
        player_pair=p(dist.weight_where(player_pair=True)),
        banker_pair=p(dist.weight_where(banker_pair=True)),
        big=p(dist.weight_where(card_count=5) + dist.weight_where(card_count=6)),
        small=p(dist.weight_where(card_count=4)),
        natural=p(dist.weight_where(natural=True)),
        rtp={spot: dist.rtp(spot, paytable) for spot in Spot},
        paytable=paytable,
        distribution=dist,
    )


@lru_cache(maxsize=16)
def _fresh_distribution(decks: int) -> OutcomeDistribution:
    return outcome_distribution(fresh_shoe(decks))


def baccarat_odds(decks: int = DEFAULT_DECKS, paytable: Paytable = SEED_PAYTABLE) -> BaccaratOdds:
    """:class:`BaccaratOdds` for the first coup of a fresh shoe of ``decks`` decks."""
    fresh_shoe(decks)  # validates
    return _odds(_fresh_distribution(decks), paytable)


class PayoutReading:
    """The two candidate readings of the seed's "1赔X" (see the rules module docstring)."""

    PROFIT = "X is profit per 1 staked (X:1)"
    TOTAL_RETURN = "X is the total return per 1 staked (X for 1)"


def payout_reading_rtps(odds: BaccaratOdds) -> dict[str, dict[Spot, Fraction]]:
    """RTP of every spot under both readings of "1赔X".

    Under the profit reading a win yields profit X; under the total-return reading the
    same win yields X - 1. Pushes (0) and losses (-1) are the same in both.
    """
    dist = odds.distribution
    result: dict[str, dict[Spot, Fraction]] = {
        PayoutReading.PROFIT: dict(odds.rtp),
        PayoutReading.TOTAL_RETURN: {},
    }
    for spot in Spot:
        expected = Fraction(0)
        for outcome, weight in dist.weights.items():
            profit = spot_result(spot, outcome, odds.paytable)
            expected += weight * (profit - 1 if profit > 0 else profit)
        result[PayoutReading.TOTAL_RETURN][spot] = 1 + expected / dist.denominator
    return result


def _decimal(value: Fraction, places: int) -> str:
    """``value`` rounded half-even to ``places`` decimals, exactly."""
    scaled = round(value * 10**places)
    sign = "-" if scaled < 0 else ""
    digits = str(abs(scaled)).rjust(places + 1, "0")
    return f"{sign}{digits[:-places]}.{digits[-places:]}" if places else f"{sign}{digits}"


def _pays(spot: Spot, paytable: Paytable) -> str:
    multiples = {
        Spot.BANKER: paytable.banker,
        Spot.PLAYER: paytable.player,
        Spot.TIE: paytable.tie,
        Spot.BANKER_PAIR: paytable.banker_pair,
        Spot.PLAYER_PAIR: paytable.player_pair,
        Spot.BIG: paytable.big,
        Spot.SMALL: paytable.small,
        Spot.SUPER6: paytable.super6,
    }
    text = f"{_ratio(multiples[spot])}:1"
    if spot is Spot.BANKER:
        text += f" ({_ratio(paytable.banker_with_6)}:1 on 6)"
    return text


def _ratio(value: Fraction) -> str:
    """A paytable multiple as a short exact decimal when it has one (``0.5``), else ``a/b``."""
    for places in range(4):
        scaled = value * 10**places
        if scaled.denominator == 1:
            return _decimal(value, places)
    return str(value)


def format_odds_table(odds: BaccaratOdds, places: int = 6) -> str:
    """Plain-text table of the probabilities and per-spot RTPs, ``places`` decimals (≥ 6)."""
    if places < 6:
        raise InvalidInput("the odds table prints at least six decimals")
    decks = odds.shoe_size // 52 if odds.shoe_size % 52 == 0 else None
    shoe = f"{decks} decks, {odds.shoe_size} cards" if decks else f"{odds.shoe_size} cards"
    width = places + 3
    lines = [
        f"baccarat: first coup of a fresh shoe ({shoe}); exact enumeration",
        "",
        f"{'event':<24}{'probability':>{width + 2}}",
    ]
    events = [
        ("banker wins", odds.banker_win),
        ("player wins", odds.player_win),
        ("tie", odds.tie),
        ("banker wins with 6", odds.banker_win_with_6),
        ("player pair", odds.player_pair),
        ("banker pair", odds.banker_pair),
        ("big (5-6 cards)", odds.big),
        ("small (4 cards)", odds.small),
        ("natural", odds.natural),
    ]
    for name, value in events:
        lines.append(f"{name:<24}{_decimal(value, places):>{width + 2}}")
    lines += ["", f"{'spot':<14}{'pays':<18}{'RTP':>{width + 2}}{'house edge':>{width + 4}}"]
    for spot in Spot:
        rtp = odds.rtp[spot]
        lines.append(
            f"{spot.value:<14}{_pays(spot, odds.paytable):<18}"
            f"{_decimal(rtp, places):>{width + 2}}{_decimal(1 - rtp, places):>{width + 4}}"
        )
    return "\n".join(lines)
