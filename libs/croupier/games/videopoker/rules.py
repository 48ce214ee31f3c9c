"""幸运五张 (``videopoker.lucky5``, ``001_5f10773fec037198.txt``, 幸运五张): hands, the
paytable, and the automatic hold.

The seed: one 52-card deck without jokers, reshuffled after every hand; 5 cards are
dealt, the cards of a winning hand are held automatically (获胜手牌的牌面将被系统自动
保留), the player may change the holds, the other cards are replaced once, and the hand
is paid by the paytable (赔付表): a loss costs the stake, a win is the paytable value
times the stake. The seed does not print the paytable; the variant config holds the
standard 9/6 Jacks or Better table (see ``seeds/variants/videopoker.lucky5.json``).

Hands are classified with the shared hold'em evaluator
(:func:`croupier.games.poker.hands.rank5`); a pair pays only when it is Jacks or better.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import Enum
from fractions import Fraction
from typing import Any

from croupier.errors import ConfigError
from croupier.games.poker.hands import Category, category, is_royal, rank5

__all__ = ["PayHand", "Paytable", "auto_hold", "classify", "paytable_from_config"]

JACK = 9  # rank value of J in the strength layout (2 = 0 .. A = 12)


class PayHand(Enum):
    """The paytable's lines, best first, and ``nothing``."""

    ROYAL_FLUSH = "royal_flush"
    STRAIGHT_FLUSH = "straight_flush"
    FOUR_OF_A_KIND = "four_of_a_kind"
    FULL_HOUSE = "full_house"
    FLUSH = "flush"
    STRAIGHT = "straight"
    THREE_OF_A_KIND = "three_of_a_kind"
    TWO_PAIR = "two_pair"
    JACKS_OR_BETTER = "jacks_or_better"
    NOTHING = "nothing"


_BY_CATEGORY = {
    Category.STRAIGHT_FLUSH: PayHand.STRAIGHT_FLUSH,
    Category.QUADS: PayHand.FOUR_OF_A_KIND,
    Category.FULL_HOUSE: PayHand.FULL_HOUSE,
    Category.FLUSH: PayHand.FLUSH,
    Category.STRAIGHT: PayHand.STRAIGHT,
    Category.TRIPS: PayHand.THREE_OF_A_KIND,
    Category.TWO_PAIR: PayHand.TWO_PAIR,
}


def _rank_field(strength: int, i: int) -> int:
    """The ``i``-th rank field of a strength (layout of :mod:`croupier.games.poker.hands`)."""
    return (strength >> (16 - 4 * i)) & 15


def classify_strength(strength: int) -> PayHand:
    if is_royal(strength):
        return PayHand.ROYAL_FLUSH
    cat = category(strength)
    if cat in _BY_CATEGORY:
        return _BY_CATEGORY[cat]
    if cat is Category.PAIR and _rank_field(strength, 0) >= JACK:
        return PayHand.JACKS_OR_BETTER
    return PayHand.NOTHING


def classify(cards: Sequence[str]) -> PayHand:
    """The paytable line of 5 cards."""
    return classify_strength(rank5(cards))


_RANK_VALUE = {r: i for i, r in enumerate("23456789TJQKA")}


def auto_hold(cards: Sequence[str]) -> tuple[str, ...]:
    """The cards of the winning hand, in dealt order (获胜手牌的牌面将被系统自动保留):
    all five for a straight or better (a full house, a flush, a straight, a straight
    or royal flush), the four of a four of a kind, the three of a three of a kind, the
    four of two pair, the two of a pair of Jacks or better; nothing otherwise (a pair
    of tens or lower does not win)."""
    s = rank5(cards)
    hand = classify_strength(s)
    if hand in (PayHand.NOTHING,):
        return ()
    if hand in (PayHand.FOUR_OF_A_KIND, PayHand.THREE_OF_A_KIND, PayHand.JACKS_OR_BETTER):
        keep = {_rank_field(s, 0)}
    elif hand is PayHand.TWO_PAIR:
        keep = {_rank_field(s, 0), _rank_field(s, 1)}
    else:
        return tuple(cards)
    return tuple(c for c in cards if _RANK_VALUE[c[0]] in keep)


class Paytable(dict[PayHand, Fraction]):
    """What a unit stake returns for each line, stake included ("for 1"): the hand's
    profit multiple is ``paytable[line] - 1``; ``nothing`` returns 0."""

    def result(self, hand: PayHand) -> Fraction:
        return self[hand] - 1


def paytable_from_config(raw: Mapping[str, Any]) -> Paytable:
    block = raw.get("paytable")
    if not isinstance(block, Mapping):
        raise ConfigError("videopoker config: 'paytable' must be an object")
    table = Paytable()
    for line in PayHand:
        if line is PayHand.NOTHING:
            table[line] = Fraction(0)
            continue
        v = block.get(line.value)
        if isinstance(v, bool) or not isinstance(v, int | str):
            raise ConfigError(f"videopoker config: paytable.{line.value} is missing")
        try:
            table[line] = Fraction(v)
        except (ValueError, ZeroDivisionError):
            raise ConfigError(f"paytable.{line.value}: not a number: {v!r}") from None
        if table[line] < 0:
            raise ConfigError(f"paytable.{line.value} must not be negative")
    return table
