"""Pure baccarat rules: points, drawing tables, the deal of one coup, bet-spot results.

Source: seed ``000_d16ad353ba467b8a.txt``, section 百家乐玩法规则介绍 — part 一 (玩法:
shoe, deal order, at most one extra card per side, closest to 9 wins, equal totals
tie), part 二 (补牌规则: the player table, the banker table and its note), part 三
(赔付: the paytable, the tie refund, no service fee).

Cards use the project notation: rank ``A23456789TJQK`` followed by suit ``s h d c``
(``"As"``, ``"Td"``). Baccarat points: ``A`` = 1, ``2``-``9`` face value, ``T J Q K`` = 0;
a hand's total is the sum of its points modulo 10.

Deal order
----------
The seed says the player (闲家) is dealt first and each side gets two cards
("庄闲各先派两张牌，闲家先发"). This module alternates, as at a real table:

    1st card → player, 2nd → banker, 3rd → player, 4th → banker,
    then, if any, the player's third card, then the banker's third card.

If either side's two-card total is 8 or 9 (天生赢家, a *natural*) nobody draws. Otherwise
the player's table is consulted first (the seed's note 先判断闲家是否需要补牌), then the
banker's table, which depends on the point value of the player's third card, or on
its absence (the seed's note: when the player stands on 6 or 7 the banker draws on 5
or less).

Reading of "1赔X"
-----------------
The seed writes each payout as "1赔X". This module reads it as **X profit per 1 staked**
(odds X:1; the winning stake comes back as well, so the total return is 1 + X).
:func:`spot_result` returns that profit multiple: ``X`` on a win, ``0`` on a push (a
banker or player bet when the coup ties — the seed returns those stakes), ``-1`` on a
loss.

Why this reading and not "X is the total return per 1 staked": the exact RTPs of every
spot for 8 decks under both readings, computed by
:func:`croupier.games.baccarat.probability.payout_reading_rtps`:

============  =================  =======================
spot           RTP, X is profit   RTP, X is total return
============  =================  =======================
banker         0.985419           0.526822
player         0.987649           0.541403
tie            0.856404           0.761248
banker_pair    0.896386           0.821687
player_pair    0.896386           0.821687
big            0.931697           0.310566
small          0.947171           0.568303
super6         0.700228           0.646365
============  =================  =======================

The "total return" reading is not a valid one: for big (1赔0.5) and for a banker win
with 6 (赔0.5) a *winning* bet would hand back less than its stake, i.e. a win would
lose money, and for banker and player (1赔1) a win would return exactly the stake,
which is what the seed separately calls a refund (退回) on a tie; its RTPs (0.31-0.82)
are far below any real table game. A reading with an RTP above 1 would be ruled out as
well (the house would lose on average); under the profit reading every spot has an RTP
below 1 and the well-known 8-deck house edges come out (player 1.2351 %, tie 8:1
14.3596 %, pairs 11:1 10.3614 %). The unit tests recompute this table.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from enum import Enum
from fractions import Fraction
from typing import Protocol

from croupier.accel import maker
from croupier.cards import RANKS, SUITS
from croupier.errors import ConfigError, InvalidInput, NotationError, RuleViolation

__all__ = [
    "CARD_POINTS",
    "RANKS",
    "SEED_PAYTABLE",
    "SUITS",
    "Coup",
    "CoupFacts",
    "Paytable",
    "Side",
    "Spot",
    "Winner",
    "banker_draws",
    "card_point",
    "card_points",
    "card_rank",
    "deal_coup",
    "evaluate",
    "is_natural",
    "next_by_points",
    "next_recipient",
    "paytable_from_config",
    "player_draws",
    "point",
    "spot_result",
    "total",
]

_POINTS: Mapping[str, int] = {
    "A": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9,
    "T": 0, "J": 0, "Q": 0, "K": 0,
}  # fmt: skip

# Banker two-card totals 3-6 when the player drew a third card: the point values of
# that third card on which the banker does NOT draw (补牌规则, 庄家 rows 3, 4, 5 and 6).
_BANKER_STANDS_ON_PLAYER_THIRD: Mapping[int, frozenset[int]] = {
    3: frozenset({8}),
    4: frozenset({0, 1, 8, 9}),
    5: frozenset({0, 1, 2, 3, 8, 9}),
    6: frozenset({0, 1, 2, 3, 4, 5, 8, 9}),
}


class Side(Enum):
    """The two hands of a coup."""

    PLAYER = "player"
    BANKER = "banker"


class Winner(Enum):
    """Who won the coup; ``TIE`` when the totals are equal (和局)."""

    PLAYER = "player"
    BANKER = "banker"
    TIE = "tie"


class Spot(Enum):
    """Every bet spot of the seed's paytable (赔付); values are the config keys."""

    BANKER = "banker"
    PLAYER = "player"
    TIE = "tie"
    BANKER_PAIR = "banker_pair"
    PLAYER_PAIR = "player_pair"
    BIG = "big"
    SMALL = "small"
    SUPER6 = "super6"

    # A spot keys the stakes of every bet: hashed by identity (each member is one
    # object), in C, rather than by Enum's hash of the name, a Python call. Nothing is
    # ordered by a hash: the name's hash differs from one process to the next too.
    __hash__ = object.__hash__


CARD_POINTS: Mapping[str, int] = {
    rank + suit: value for rank, value in _POINTS.items() for suit in SUITS
}
"""Every card of the deal, in the project notation, and its point value."""


def card_rank(card: str) -> str:
    """The rank character of a card such as ``"Td"``; :class:`NotationError` if malformed."""
    card_point(card)
    return card[0]


def point(rank: str) -> int:
    """Baccarat point of a rank: ``A`` = 1, ``2``-``9`` face value, ``T J Q K`` = 0."""
    try:
        return _POINTS[rank]
    except (KeyError, TypeError):
        raise NotationError(f"not a rank: {rank!r} (expected one of {RANKS})") from None


def card_point(card: str) -> int:
    """Baccarat point of a card such as ``"9h"``; :class:`NotationError` if malformed."""
    try:
        return CARD_POINTS[card]
    except (KeyError, TypeError):
        raise NotationError(
            f"not a card: {card!r} (expected rank {RANKS} + suit {SUITS})"
        ) from None


def card_points(cards: Iterable[str]) -> list[int]:
    """:func:`card_point` of each card, in order (the same :class:`NotationError` for
    the first malformed one)."""
    if type(cards) is list or type(cards) is tuple:  # can be read twice
        try:
            return [CARD_POINTS[c] for c in cards]
        except (KeyError, TypeError):
            pass  # the error of the first malformed card, worded by card_point
    return [card_point(c) for c in cards]


def total(cards: Iterable[str]) -> int:
    """Total of a hand: the sum of its card points modulo 10."""
    return sum(card_points(cards)) % 10


def _check_total(value: int, what: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 9:
        raise InvalidInput(f"{what} must be an integer 0-9, got {value!r}")


def is_natural(two_card_total: int) -> bool:
    """A two-card total of 8 or 9 is a natural (天生赢家): nobody draws."""
    _check_total(two_card_total, "two-card total")
    return _is_natural(two_card_total)


def _is_natural(two_card_total: int) -> bool:
    return two_card_total >= 8


def player_draws(player_total: int) -> bool:
    """The player's table (补牌规则, 闲家): draw on 0-5, stand on 6-7, natural on 8-9.

    Only meaningful when neither side has a natural; a banker natural also stops the
    player, which :func:`next_recipient` checks first.
    """
    _check_total(player_total, "player total")
    return _player_draws(player_total)


def _player_draws(player_total: int) -> bool:
    return player_total <= 5


def banker_draws(banker_total: int, player_third: int | None) -> bool:
    """The banker's table (补牌规则, 庄家).

    ``player_third`` is the point value (0-9) of the player's third card, or ``None``
    when the player stood. Rows: 0-2 always draw; 3 stands only on an 8; 4 stands on
    0, 1, 8, 9; 5 stands on 0-3, 8, 9; 6 draws only on 6 or 7; 7 stands; 8-9 are
    naturals. When the player stood (on 6 or 7) the banker draws on 0-5 and stands on
    6-7 (the note under the banker table).
    """
    _check_total(banker_total, "banker total")
    if player_third is not None:
        _check_total(player_third, "player third-card point")
    return _banker_draws(banker_total, player_third)


def _banker_draws(banker_total: int, player_third: int | None) -> bool:
    if banker_total >= 7:
        return False
    if player_third is None:
        return banker_total <= 5
    stands_on = _BANKER_STANDS_ON_PLAYER_THIRD.get(banker_total)
    return stands_on is None or player_third not in stands_on


def next_recipient(player_cards: Sequence[str], banker_cards: Sequence[str]) -> Side | None:
    """Which side receives the next card of the coup, or ``None`` when it is complete.

    Validates that the cards so far follow the deal order described in the module
    docstring; raises :class:`RuleViolation` (reason ``illegal_deal``) if a side holds
    a card it should not have received, :class:`NotationError` for a malformed card.
    """
    return next_by_points(card_points(player_cards), card_points(banker_cards))


def next_by_points(player: Sequence[int], banker: Sequence[int]) -> Side | None:
    """:func:`next_recipient` on the cards' point values (:func:`card_points`): a
    caller that deals card by card keeps the points and appends each new card's."""
    n_player, n_banker = len(player), len(banker)
    if n_player < 2 or n_banker < 2:
        if n_player == n_banker:
            return Side.PLAYER
        if n_player == n_banker + 1:
            return Side.BANKER
        raise RuleViolation(
            f"initial deal out of order: player {n_player} card(s), banker {n_banker}",
            reason="illegal_deal",
        )
    player_two = (player[0] + player[1]) % 10
    banker_two = (banker[0] + banker[1]) % 10
    natural = _is_natural(player_two) or _is_natural(banker_two)
    player_takes = not natural and _player_draws(player_two)
    if n_player > 2 + player_takes:
        raise RuleViolation(
            f"player may not hold {n_player} cards here (two-card totals "
            f"player {player_two}, banker {banker_two})",
            reason="illegal_deal",
        )
    if player_takes and n_player == 2:
        if n_banker > 2:
            raise RuleViolation("banker drew before the player's third card", reason="illegal_deal")
        return Side.PLAYER
    third = player[2] if player_takes else None
    banker_takes = not natural and _banker_draws(banker_two, third)
    if n_banker > 2 + banker_takes:
        raise RuleViolation(
            f"banker may not hold {n_banker} cards here (banker two-card total "
            f"{banker_two}, player third card {third})",
            reason="illegal_deal",
        )
    if banker_takes and n_banker == 2:
        return Side.BANKER
    return None


@dataclass(frozen=True, slots=True)
class Coup:
    """One complete, legal coup and everything the paytable needs to know about it."""

    player_cards: tuple[str, ...]
    banker_cards: tuple[str, ...]
    player_total: int
    banker_total: int
    winner: Winner
    natural: bool
    """Either side's first two cards total 8 or 9 (天生赢家)."""
    player_pair: bool
    """The player's first two cards have the same rank (闲对)."""
    banker_pair: bool
    """The banker's first two cards have the same rank (庄对)."""
    card_count: int
    """Cards dealt in the coup, 4-6 (小 is 4, 大 is 5 or 6)."""

    @property
    def banker_wins_with_6(self) -> bool:
        """The banker wins with a total of 6 (banker pays 1/2, Super6 wins)."""
        return self.winner is Winner.BANKER and self.banker_total == 6


_new_coup = maker(Coup)


def _winner(player_total: int, banker_total: int) -> Winner:
    if player_total > banker_total:
        return Winner.PLAYER
    if banker_total > player_total:
        return Winner.BANKER
    return Winner.TIE


def evaluate(player_cards: Sequence[str], banker_cards: Sequence[str]) -> Coup:
    """The :class:`Coup` for a complete deal; :class:`RuleViolation` if illegal or unfinished."""
    player_points = card_points(player_cards)
    banker_points = card_points(banker_cards)
    if next_by_points(player_points, banker_points) is not None:
        raise RuleViolation(
            f"coup not complete: player {len(player_cards)} card(s), banker {len(banker_cards)}",
            reason="incomplete_coup",
        )
    return _coup(tuple(player_cards), tuple(banker_cards), player_points, banker_points)


def _coup(
    player_cards: tuple[str, ...],
    banker_cards: tuple[str, ...],
    player_points: Sequence[int],
    banker_points: Sequence[int],
) -> Coup:
    player_total = sum(player_points) % 10
    banker_total = sum(banker_points) % 10
    return _new_coup(  # Coup's fields in order
        player_cards,
        banker_cards,
        player_total,
        banker_total,
        _winner(player_total, banker_total),
        _is_natural((player_points[0] + player_points[1]) % 10)
        or _is_natural((banker_points[0] + banker_points[1]) % 10),
        player_cards[0][0] == player_cards[1][0],
        banker_cards[0][0] == banker_cards[1][0],
        len(player_cards) + len(banker_cards),
    )


def deal_coup(next_card: Callable[[], str]) -> Coup:
    """Deal one coup, taking cards from ``next_card`` in the order of the module docstring.

    ``next_card`` is called exactly ``Coup.card_count`` times (4 to 6); a malformed card
    raises :class:`NotationError`.
    """
    player: list[str] = []
    banker: list[str] = []
    player_points: list[int] = []
    banker_points: list[int] = []
    while (side := next_by_points(player_points, banker_points)) is not None:
        card = next_card()
        value = card_point(card)
        if side is Side.PLAYER:
            player.append(card)
            player_points.append(value)
        else:
            banker.append(card)
            banker_points.append(value)
    return _coup(tuple(player), tuple(banker), player_points, banker_points)


class CoupFacts(Protocol):
    """What a bet spot's result depends on; :class:`Coup` and outcome classes provide it."""

    @property
    def winner(self) -> Winner: ...

    @property
    def banker_total(self) -> int: ...

    @property
    def card_count(self) -> int: ...

    @property
    def player_pair(self) -> bool: ...

    @property
    def banker_pair(self) -> bool: ...


@dataclass(frozen=True, slots=True)
class Paytable:
    """Profit multiples per 1 staked (X in "1赔X", read as X:1) for each winning spot.

    Defaults are the seed's part 三 (赔付). ``banker_with_6`` is the banker bet's
    multiple when the banker wins with a total of 6 (【庄】6点赢配0.5).
    """

    banker: Fraction = Fraction(1)
    banker_with_6: Fraction = Fraction(1, 2)
    player: Fraction = Fraction(1)
    tie: Fraction = Fraction(8)
    banker_pair: Fraction = Fraction(11)
    player_pair: Fraction = Fraction(11)
    big: Fraction = Fraction(1, 2)
    small: Fraction = Fraction(3, 2)
    super6: Fraction = Fraction(12)

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if not isinstance(value, Fraction) or value <= 0:
                raise ConfigError(f"paytable {f.name} must be a positive Fraction, got {value!r}")


SEED_PAYTABLE = Paytable()
"""The seed's paytable (000_d16ad353ba467b8a.txt, 百家乐玩法规则介绍, 三、赔付)."""


def _fraction(value: object, where: str) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise ConfigError(f"{where}: expected a fraction string such as '1/2', got {value!r}")
    try:
        return Fraction(value)
    except (ValueError, ZeroDivisionError):
        raise ConfigError(f"{where}: not a fraction: {value!r}") from None


def paytable_from_config(config: Mapping[str, object]) -> Paytable:
    """Read the paytable from a variant config (``seeds/variants/baccarat.json`` shape).

    Each spot of :class:`Spot` needs ``spots.<name>.win``; the banker spot also needs
    ``win_with_6``. Raises :class:`ConfigError` when something is missing or malformed.
    """
    spots = config.get("spots")
    if not isinstance(spots, Mapping):
        raise ConfigError("baccarat config: 'spots' must be an object")
    values: dict[str, Fraction] = {}
    for spot in Spot:
        entry = spots.get(spot.value)
        if not isinstance(entry, Mapping) or "win" not in entry:
            raise ConfigError(f"baccarat config: spots.{spot.value}.win is missing")
        values[spot.value] = _fraction(entry["win"], f"spots.{spot.value}.win")
        if spot is Spot.BANKER:
            if "win_with_6" not in entry:
                raise ConfigError("baccarat config: spots.banker.win_with_6 is missing")
            values["banker_with_6"] = _fraction(entry["win_with_6"], "spots.banker.win_with_6")
    return Paytable(**values)


_LOSS = Fraction(-1)
_PUSH = Fraction(0)


def spot_result(spot: Spot, coup: CoupFacts, paytable: Paytable = SEED_PAYTABLE) -> Fraction:
    """Profit multiple of a bet of 1 on ``spot``: win → X, push → 0, loss → -1.

    * banker: wins when the banker total is higher; X = ``banker`` (1), or
      ``banker_with_6`` (1/2) when the banker wins with 6; push on a tie.
    * player: wins when the player total is higher, X = 1; push on a tie.
    * tie: wins on equal totals, X = 8.
    * banker_pair / player_pair: the side's first two cards have the same rank, X = 11
      (independent of who wins).
    * big: 5 or 6 cards dealt, X = 1/2; small: exactly 4 cards dealt, X = 3/2.
    * super6: the banker wins with a total of 6 (two or three cards), X = 12.
    """
    winner = coup.winner
    if spot is Spot.BANKER:
        if winner is Winner.TIE:
            return _PUSH
        if winner is Winner.BANKER:
            return paytable.banker_with_6 if coup.banker_total == 6 else paytable.banker
        return _LOSS
    if spot is Spot.PLAYER:
        if winner is Winner.TIE:
            return _PUSH
        return paytable.player if winner is Winner.PLAYER else _LOSS
    if spot is Spot.TIE:
        return paytable.tie if winner is Winner.TIE else _LOSS
    if spot is Spot.BANKER_PAIR:
        return paytable.banker_pair if coup.banker_pair else _LOSS
    if spot is Spot.PLAYER_PAIR:
        return paytable.player_pair if coup.player_pair else _LOSS
    if spot is Spot.BIG:
        return paytable.big if coup.card_count >= 5 else _LOSS
    if spot is Spot.SMALL:
        return paytable.small if coup.card_count == 4 else _LOSS
    if spot is Spot.SUPER6:
        if winner is Winner.BANKER and coup.banker_total == 6:
            return paytable.super6
        return _LOSS
    raise InvalidInput(f"unknown baccarat spot: {spot!r}")
