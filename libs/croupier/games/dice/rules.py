"""开心摇摇乐 (``dice.yaoyao``): the three-dice hands, the bet spots and what each pays.

Source: ``000_d16ad353ba467b8a.txt``, 开心摇摇乐 (一、玩法说明 and 二、注点赔率).

Red (红) and blue (蓝) each roll three six-sided dice; the higher total wins, equal
totals are a tie (平). Side bets look at one side's three dice alone: a pair (对子,
exactly two dice alike), a straight (顺子, three consecutive values in any order:
1-2-3 ... 4-5-6) or a triple (豹子, three alike). The seed's side bets are named 庄/闲;
red plays 庄 and blue plays 闲 (the order both lists give them).

Payout reading. The seed quotes every spot as "1赔X". Taken as a profit multiple (X:1,
baccarat's reading) red/blue would return 144.90% and a pair 137.50% of the stake, an
RTP above 1, which is no reading; a straight would return exactly 100%. Taken as the
total returned per 1 staked (stake included) every spot has a house edge: red/blue
99.5424%, tie 74.2798%, pair 95.8333%, straight 88.8889%, triple 83.3333%. One
paytable uses one convention, so every "1赔X" here is a total return and the profit
multiple is ``X - 1`` (:mod:`.probability` computes both readings; the tests pin them).
A pair that counted a triple too would return 102.22% under the total reading, so a
pair is exactly two alike.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from fractions import Fraction

from croupier.errors import ConfigError, InvalidInput


class Side(Enum):
    RED = "red"
    BLUE = "blue"


class Winner(Enum):
    RED = "red"
    BLUE = "blue"
    TIE = "tie"


class Pattern(Enum):
    """What one side's three dice show, for the side bets."""

    TRIPLE = "triple"  # 豹子
    STRAIGHT = "straight"  # 顺子
    PAIR = "pair"  # 对子 (exactly two alike)
    NONE = "none"


class Spot(Enum):
    """Every bet spot of 二、注点赔率; values are the config keys."""

    RED = "red"
    BLUE = "blue"
    TIE = "tie"
    RED_PAIR = "red_pair"
    RED_STRAIGHT = "red_straight"
    RED_TRIPLE = "red_triple"
    BLUE_PAIR = "blue_pair"
    BLUE_STRAIGHT = "blue_straight"
    BLUE_TRIPLE = "blue_triple"


SIDE_SPOTS: Mapping[Spot, tuple[Side, Pattern]] = {
    Spot.RED_PAIR: (Side.RED, Pattern.PAIR),
    Spot.RED_STRAIGHT: (Side.RED, Pattern.STRAIGHT),
    Spot.RED_TRIPLE: (Side.RED, Pattern.TRIPLE),
    Spot.BLUE_PAIR: (Side.BLUE, Pattern.PAIR),
    Spot.BLUE_STRAIGHT: (Side.BLUE, Pattern.STRAIGHT),
    Spot.BLUE_TRIPLE: (Side.BLUE, Pattern.TRIPLE),
}


def pattern(dice: Sequence[int]) -> Pattern:
    """The side-bet pattern of three dice."""
    if len(dice) != 3 or any(not isinstance(d, int) or not 1 <= d <= 6 for d in dice):
        raise InvalidInput(f"three dice 1-6 expected, got {list(dice)!r}")
    a, b, c = sorted(dice)
    if a == c:
        return Pattern.TRIPLE
    if a == b or b == c:
        return Pattern.PAIR
    if b == a + 1 and c == b + 1:
        return Pattern.STRAIGHT
    return Pattern.NONE


@dataclass(frozen=True, slots=True)
class Round:
    """One round: red's and blue's three dice and everything the spots look at."""

    red: tuple[int, int, int]
    blue: tuple[int, int, int]

    @classmethod
    def of(cls, dice: Sequence[int]) -> Round:
        """Six dice as rolled: red's three, then blue's three."""
        if len(dice) != 6:
            raise InvalidInput(f"six dice expected (red's three, blue's three), got {len(dice)}")
        d = tuple(dice)
        pattern(d[:3])
        pattern(d[3:])
        return cls((d[0], d[1], d[2]), (d[3], d[4], d[5]))

    @property
    def red_total(self) -> int:
        return sum(self.red)

    @property
    def blue_total(self) -> int:
        return sum(self.blue)

    @property
    def winner(self) -> Winner:
        r, b = self.red_total, self.blue_total
        return Winner.RED if r > b else Winner.BLUE if b > r else Winner.TIE

    @property
    def winning_total(self) -> int | None:
        return None if self.winner is Winner.TIE else max(self.red_total, self.blue_total)

    def pattern(self, side: Side) -> Pattern:
        return pattern(self.red if side is Side.RED else self.blue)


@dataclass(frozen=True, slots=True)
class Paytable:
    """Total returned per 1 staked ("1赔X" read as X back, stake included) on each spot.

    ``main`` is red's or blue's win, ``main_low`` their win when the winning total is
    below ``low_below`` points (不足8点). Defaults are the seed's 二、注点赔率.
    """

    main: Fraction = Fraction(2)
    main_low: Fraction = Fraction(3, 2)
    low_below: int = 8
    tie: Fraction = Fraction(8)
    pair: Fraction = Fraction(23, 10)
    straight: Fraction = Fraction(8)
    triple: Fraction = Fraction(30)

    def __post_init__(self) -> None:
        for name in ("main", "main_low", "tie", "pair", "straight", "triple"):
            v = getattr(self, name)
            if not isinstance(v, Fraction) or v <= 1:
                raise ConfigError(f"paytable {name} must return more than the stake, got {v!r}")
        if not 3 < self.low_below <= 18:
            raise ConfigError(f"paytable low_below must be 4..18, got {self.low_below}")

    def returns(self, pattern_: Pattern) -> Fraction:
        """What a winning side bet on ``pattern_`` returns per 1 staked."""
        if pattern_ is Pattern.NONE:
            raise InvalidInput("no side bet is on 'none'")
        return {Pattern.PAIR: self.pair, Pattern.STRAIGHT: self.straight}.get(pattern_, self.triple)


SEED_PAYTABLE = Paytable()
"""000_d16ad353ba467b8a.txt, 开心摇摇乐, 二、注点赔率, read as total returns."""


def _fraction(value: object, where: str) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise ConfigError(f"{where}: expected a fraction string such as '23/10', got {value!r}")
    try:
        return Fraction(value)
    except (ValueError, ZeroDivisionError):
        raise ConfigError(f"{where}: not a fraction: {value!r}") from None


def paytable_from_config(raw: Mapping[str, object]) -> Paytable:
    """Read ``spots.<spot>.returns`` (and red's ``returns_low`` / ``low_below``) from a
    ``dice.*`` config. Red and blue, and the two sides' side bets, must pay alike."""
    spots = raw.get("spots")
    if not isinstance(spots, Mapping):
        raise ConfigError("dice config: 'spots' must be an object")
    if raw.get("payout_reading") != "total_return":
        raise ConfigError("dice config: payout_reading must be 'total_return'")

    def entry(spot: Spot) -> Mapping[str, object]:
        e = spots.get(spot.value)
        if not isinstance(e, Mapping) or "returns" not in e:
            raise ConfigError(f"dice config: spots.{spot.value}.returns is missing")
        return e

    def ret(spot: Spot, key: str = "returns") -> Fraction:
        e = entry(spot)
        if key not in e:
            raise ConfigError(f"dice config: spots.{spot.value}.{key} is missing")
        return _fraction(e[key], f"spots.{spot.value}.{key}")

    side_spots = list(SIDE_SPOTS)
    for a, b in ((Spot.RED, Spot.BLUE), *zip(side_spots[:3], side_spots[3:], strict=True)):
        keys = ("returns", "returns_low", "low_below") if a is Spot.RED else ("returns",)
        for k in keys:
            if entry(a).get(k) != entry(b).get(k):
                raise ConfigError(f"dice config: {a.value} and {b.value} must pay alike ({k})")
    low = entry(Spot.RED).get("low_below")
    if not isinstance(low, int) or isinstance(low, bool):
        raise ConfigError("dice config: spots.red.low_below must be an integer")
    return Paytable(
        main=ret(Spot.RED),
        main_low=ret(Spot.RED, "returns_low"),
        low_below=low,
        tie=ret(Spot.TIE),
        pair=ret(Spot.RED_PAIR),
        straight=ret(Spot.RED_STRAIGHT),
        triple=ret(Spot.RED_TRIPLE),
    )


_LOSS = Fraction(-1)
_PUSH = Fraction(0)


def spot_result(spot: Spot, rnd: Round, paytable: Paytable = SEED_PAYTABLE) -> Fraction:
    """Profit multiple of 1 staked on ``spot`` (the :class:`croupier.money.Wager` result):
    the total returned minus the stake on a win, 0 on a push, -1 on a loss.

    * red / blue: the higher total wins ``main`` (2), or ``main_low`` (1.5) when the
      winning total is below ``low_below`` (8); a tie returns the stake (一、3).
    * tie: equal totals win ``tie`` (8).
    * *side*_pair / _straight / _triple: that side's dice show the pattern (2.3 / 8 / 30).
    """
    w = rnd.winner
    if spot in (Spot.RED, Spot.BLUE):
        if w is Winner.TIE:
            return _PUSH
        if w.value != spot.value:
            return _LOSS
        total = rnd.winning_total
        assert total is not None
        back = paytable.main_low if total < paytable.low_below else paytable.main
        return back - 1
    if spot is Spot.TIE:
        return paytable.tie - 1 if w is Winner.TIE else _LOSS
    side, want = SIDE_SPOTS[spot]
    got = rnd.pattern(side)
    return paytable.returns(want) - 1 if got is want else _LOSS
