"""Blackjack rules shared by both variants: card values, hand totals, the dealer's
drawing rule, hand classes and what each wager pays. Pure functions over a
:class:`Rules` value, so the engine, the basic-strategy advisor and the probability
code all run the very same rules.

Sources: ``001_5f10773fec037198.txt``, sections 多人21点 (blackjack.multi) and 幸运21点
(blackjack.lucky); every number is read from ``seeds/variants/blackjack.*.json`` with
its ``source`` note. Card values (both sections, 点数计算 / 游戏规则): 2-10 count their
number, J, Q and K count 10, an ace counts 11 unless that busts the hand, then 1.

A hand is tracked as a :class:`Tally`: the sum with every ace counted 1 (``hard``),
whether it holds an ace, and how many cards it has. That is all any rule needs: the
best total is ``hard + 10`` when the hand holds an ace and that does not pass 21
("soft"), else ``hard``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from typing import Any

from croupier.errors import ConfigError

RANK_VALUES: Mapping[str, int] = {
    "A": 1,
    **{str(n): n for n in range(2, 10)},
    "T": 10,
    "J": 10,
    "Q": 10,
    "K": 10,
}
VALUES: tuple[int, ...] = tuple(range(1, 11))
"""Card values 1 (ace) to 10 (ten, J, Q, K)."""


def card_value(card: str) -> int:
    """Blackjack value of a card in the project's notation (``As`` -> 1, ``Kd`` -> 10)."""
    return RANK_VALUES[card[0]]


@dataclass(frozen=True, slots=True)
class Tally:
    """A hand reduced to what the rules look at."""

    hard: int = 0  # sum, aces counted 1
    ace: bool = False
    n: int = 0  # number of cards

    @classmethod
    def of(cls, values: Iterable[int]) -> Tally:
        t = cls()
        for v in values:
            t = t.add(v)
        return t

    @classmethod
    def of_cards(cls, cards: Iterable[str]) -> Tally:
        return cls.of(card_value(c) for c in cards)

    def add(self, v: int) -> Tally:
        return Tally(self.hard + v, self.ace or v == 1, self.n + 1)

    @property
    def soft(self) -> bool:
        """An ace counts 11 without busting."""
        return self.ace and self.hard + 10 <= 21

    @property
    def total(self) -> int:
        return self.hard + 10 if self.soft else self.hard

    @property
    def bust(self) -> bool:
        return self.hard > 21


class Kind(StrEnum):
    """Hand classes, weakest first (a bust hand loses whatever the dealer has)."""

    BUST = "bust"
    POINTS = "points"
    CHARLIE = "charlie"  # 五小龙
    BLACKJACK = "blackjack"  # 黑杰克


@dataclass(frozen=True, slots=True)
class Final:
    """A finished hand: its class and total (0 for bust and charlie, whose total never
    matters)."""

    kind: Kind
    total: int = 0

    def to_text(self) -> str:
        return str(self.total) if self.kind is Kind.POINTS else self.kind.value


class Peek(StrEnum):
    NEVER = "never"  # the dealer never looks at a face-down card
    IF_INSURED = "if_insured"  # 多人21点 买保险: only when at least one seat insured


class PairMatch(StrEnum):
    VALUE = "value"  # 多人21点 分牌: two cards of the same points (K-Q is a pair)
    RANK = "rank"  # 幸运21点 分牌: 前两张牌相同, K-Q and J-10 are not pairs


class SplitDeal(StrEnum):
    BOTH = "both"  # 多人21点 分牌: each half gets its card at once
    IN_TURN = "in_turn"  # 幸运21点: left gets its card, is played, then right


class AllBust(StrEnum):
    PLAY_OUT = "play_out"  # the dealer's rule applies whatever the players hold
    SECOND_CARD_ONLY = "second_card_only"  # 幸运21点 庄家条件: draw the second card, stop


class Action(StrEnum):
    HIT = "hit"
    STAND = "stand"
    DOUBLE = "double"
    SPLIT = "split"
    INSURE = "insurance"
    DECLINE = "no_insurance"
    REPEAT = "repeat"  # 续押: the player's last bet on their own seat, again
    MIN_BET = "min_bet"  # the table minimum on the own seat (a timed-out 续押 that is short)


PLAY_ACTIONS = (Action.HIT, Action.STAND, Action.DOUBLE, Action.SPLIT)
INSURANCE_ACTIONS = (Action.INSURE, Action.DECLINE)
BETTING_ACTIONS = (Action.REPEAT, Action.MIN_BET)


@dataclass(frozen=True, slots=True)
class Rules:
    """Every rule difference between the variants (hashable, so analyses can be cached
    per rule set)."""

    decks: int
    dealer_hole_card: bool  # multi: the dealer's second card is dealt face down at once
    blackjack_pays: Fraction
    blackjack_after_split: bool  # an ace and a ten made by splitting is a blackjack
    charlie_cards: int | None  # 五小龙: this many cards without busting (None: no rule)
    charlie_pays: Fraction
    dealer_charlie: bool  # the dealer's own five cards make a 五小龙 and stop it drawing
    max_cards: int | None  # a player hand holds at most this many cards
    stand_on_21: bool  # a player hand reaching 21 stands by itself
    double_totals: tuple[int, ...] | None  # hard totals that may double (None: any)
    double_without_ace: bool  # doubling needs a hand without an ace
    double_after_split: bool
    split_match: PairMatch
    max_splits: int  # splits per seat and round
    split_deal: SplitDeal
    insurance_cost: Fraction  # of the seat's bet
    insurance_pays: Fraction  # profit per unit of insurance when the dealer has blackjack
    peek: Peek
    dealer_stands_on: int
    dealer_hits_soft_17: bool
    all_bust: AllBust
    rake: Fraction  # on each player's net profit for the hand

    @classmethod
    def from_config(cls, raw: Mapping[str, Any]) -> Rules:
        try:
            totals = raw["double"]["totals"]
            charlie = raw["charlie"]
            return cls(
                decks=int(raw["deck"]["copies"]),
                dealer_hole_card=bool(raw["deal"]["dealer_hole_card"]),
                blackjack_pays=Fraction(str(raw["blackjack"]["pays"])),
                blackjack_after_split=bool(raw["blackjack"]["after_split"]),
                charlie_cards=None if charlie["cards"] is None else int(charlie["cards"]),
                charlie_pays=Fraction(str(charlie["pays"])),
                dealer_charlie=bool(charlie["dealer"]),
                max_cards=None if raw["hit"]["max_cards"] is None else int(raw["hit"]["max_cards"]),
                stand_on_21=bool(raw["hit"]["stand_on_21"]),
                double_totals=None if totals is None else tuple(int(t) for t in totals),
                double_without_ace=bool(raw["double"]["without_ace"]),
                double_after_split=bool(raw["double"]["after_split"]),
                split_match=PairMatch(raw["split"]["match"]),
                max_splits=int(raw["split"]["max_splits"]),
                split_deal=SplitDeal(raw["split"]["deal"]),
                insurance_cost=Fraction(str(raw["insurance"]["cost"])),
                insurance_pays=Fraction(str(raw["insurance"]["pays"])),
                peek=Peek(raw["insurance"]["peek"]),
                dealer_stands_on=int(raw["dealer"]["stands_on"]),
                dealer_hits_soft_17=bool(raw["dealer"]["hits_soft_17"]),
                all_bust=AllBust(raw["dealer"]["when_all_bust"]),
                rake=Fraction(str(raw["rake"]["rate"])),
            ).checked()
        except (KeyError, TypeError, ValueError) as e:
            raise ConfigError(f"blackjack config: {e!r}") from e

    def checked(self) -> Rules:
        if self.max_splits not in (0, 1):
            raise ConfigError("blackjack: max_splits must be 0 or 1 (no resplitting)")
        if self.charlie_cards is not None and self.max_cards not in (None, self.charlie_cards):
            raise ConfigError("blackjack: max_cards must equal charlie cards when both are set")
        if self.dealer_charlie and self.charlie_cards is None:
            raise ConfigError("blackjack: dealer charlie needs a charlie rule")
        if not 0 <= self.rake < 1 or self.insurance_cost <= 0 or self.insurance_pays <= 0:
            raise ConfigError("blackjack: rake, insurance cost or pay out of range")
        return self

    # -- player hands ------------------------------------------------------------------
    def player_final(self, t: Tally, *, from_split: bool) -> Final:
        if t.bust:
            return Final(Kind.BUST)
        if t.n == 2 and t.total == 21 and (not from_split or self.blackjack_after_split):
            return Final(Kind.BLACKJACK, 21)
        if self.charlie_cards is not None and t.n >= self.charlie_cards:
            return Final(Kind.CHARLIE)
        return Final(Kind.POINTS, t.total)

    def player_done(self, t: Tally, *, from_split: bool) -> bool:
        """True when a hand of at least two cards can take no further decision: bust,
        blackjack, five cards, or 21 where 21 stands by itself."""
        if t.n < 2:
            return False
        kind = self.player_final(t, from_split=from_split).kind
        if kind is not Kind.POINTS:
            return True
        if self.max_cards is not None and t.n >= self.max_cards:
            return True
        return self.stand_on_21 and t.total == 21

    def double_refusal(self, t: Tally, *, from_split: bool) -> tuple[str, str] | None:
        """Why this hand may not double (reason code, message), or None if it may."""
        if t.n != 2:
            return "double_needs_two_cards", f"double only on the first two cards ({t.n} held)"
        if from_split and not self.double_after_split:
            return "no_double_after_split", "no doubling after a split"
        if self.double_without_ace and t.ace:
            return "double_total", "double only on a hand without an ace"
        if self.double_totals is not None and t.hard not in self.double_totals:
            allowed = "/".join(str(x) for x in self.double_totals)
            return "double_total", f"double only on a total of {allowed}, not {t.total}"
        return None

    def is_pair(self, cards: Sequence[str]) -> bool:
        if len(cards) != 2:
            return False
        if self.split_match is PairMatch.RANK:
            return cards[0][0] == cards[1][0]
        return card_value(cards[0]) == card_value(cards[1])

    # -- the dealer --------------------------------------------------------------------
    def dealer_final(self, t: Tally) -> Final:
        if t.bust:
            return Final(Kind.BUST)
        if t.n == 2 and t.total == 21:
            return Final(Kind.BLACKJACK, 21)
        if self.dealer_charlie and self.charlie_cards is not None and t.n >= self.charlie_cards:
            return Final(Kind.CHARLIE)
        return Final(Kind.POINTS, t.total)

    def dealer_draws(self, t: Tally) -> bool:
        """The dealer's drawing rule (庄家要牌 / 庄家条件): below ``dealer_stands_on``
        draw, at or above it stand; a soft 17 stands unless ``dealer_hits_soft_17``."""
        if t.n < 2:
            return True
        if t.bust or self.dealer_final(t).kind in (Kind.BLACKJACK, Kind.CHARLIE):
            return False
        if t.total < self.dealer_stands_on:
            return True
        return t.total == 17 == self.dealer_stands_on and t.soft and self.dealer_hits_soft_17

    # -- money -------------------------------------------------------------------------
    def pay(self, player: Final, dealer: Final) -> Fraction:
        """Profit multiple of each stake on a player hand (main and double alike):
        1 win, 0 push, -1 loss, ``blackjack_pays`` / ``charlie_pays`` for those."""
        if player.kind is Kind.BUST:
            return Fraction(-1)
        if player.kind is Kind.BLACKJACK:
            return Fraction(0) if dealer.kind is Kind.BLACKJACK else self.blackjack_pays
        if dealer.kind is Kind.BLACKJACK:
            return Fraction(-1)
        if player.kind is Kind.CHARLIE:
            return Fraction(0) if dealer.kind is Kind.CHARLIE else self.charlie_pays
        if dealer.kind is Kind.CHARLIE:
            return Fraction(-1)
        if dealer.kind is Kind.BUST or player.total > dealer.total:
            return Fraction(1)
        return Fraction(0) if player.total == dealer.total else Fraction(-1)

    def insurance_result(self, dealer: Final) -> Fraction:
        return self.insurance_pays if dealer.kind is Kind.BLACKJACK else Fraction(-1)
