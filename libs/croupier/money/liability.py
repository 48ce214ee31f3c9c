"""Limited liability (有限责任制 and its relatives): one named function per flavour in the
seeds, each pure and exact (``Fraction`` in, ``Fraction`` out, except where the seed's
own rule truncates), plus the spec dataclasses :func:`croupier.money.settle.settle` uses
to apply them to a hand.

=====  ============================  =====================================================
 #      function                      seeds
=====  ============================  =====================================================
 1      :func:`cap_by_carried`        001 抢庄玩法介绍 / 三公 / 经典牛牛: 防以小博大机制
 2      :func:`banker_pro_rata`       001 same sections: 特殊情况 (庄家不够输/不够赔)
 3      :func:`doudizhu_three_step`   000 斗地主 1.4.2, 加倍斗地主 1.3.2: 有限责任制
 4      :func:`proportional_to_carried`  000 广东麻将 实际输赢, 血战麻将 有限责任制, 十三水
                                      实际输赢, 通比牛牛 有限责任制
 5      :func:`cha_da_jiao`           000 血战麻将: 查大叫 (by fan share)
 6      :func:`hua_zhu_split`         000 血战麻将: 查花猪 (equal split, remainder kept)
 7      :func:`classic_niuniu_bet_limits`, :func:`hundred_spot_multiplier_limit`
                                      001 经典牛牛 (max selectable multiples, [1,3,6,10]);
                                      000 百人牛牛 派彩, 百人三公 结算 (per-spot limit)
=====  ============================  =====================================================

Conventions: a "result" or "net" is signed, + for a win and - for a loss; "carried" is
what a participant brought into the hand (携带 / 带入), a non-negative ``int`` of minor
units; an "owed" amount is non-negative. Every function raises
:class:`~croupier.errors.InvalidInput` for bad arguments.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from types import MappingProxyType
from typing import Final, TypeAlias

from croupier.errors import InvalidInput
from croupier.money.units import MINOR_PER_POINT, Number, exact, floor_to_unit, non_negative

RULE_FANG_YI_XIAO_BO_DA: Final = "fang_yi_xiao_bo_da"
SOURCE_FANG_YI_XIAO_BO_DA: Final = (
    "001 抢庄玩法介绍, 三公, 经典牛牛（Niuniu）: 防以小博大机制 "
    "(win and lose at most what was carried)"
)
RULE_BANKER_PRO_RATA: Final = "banker_pro_rata"
SOURCE_BANKER_PRO_RATA: Final = (
    "001 抢庄玩法介绍, 三公, 经典牛牛（Niuniu）: 特殊情况 "
    "(banker short: pro rata to the players' theoretical wins)"
)
RULE_BANKER_COVER: Final = "fang_yi_xiao_bo_da+banker_pro_rata"
RULE_DOUDIZHU: Final = "doudizhu_three_step"
SOURCE_DOUDIZHU: Final = "000 斗地主 1.4.2 有限责任制"
SOURCE_DOUDIZHU_DOUBLING: Final = "000 加倍斗地主 1.3.2 有限责任制"
RULE_PROPORTIONAL: Final = "proportional_to_carried"
SOURCE_PROPORTIONAL: Final = (
    "000 广东麻将推倒胡 实际输赢; 血战麻将 有限责任制; 十三水规则 6、实际输赢; 通比牛牛 有限责任制"
)
RULE_CHA_DA_JIAO: Final = "cha_da_jiao_by_fan"
SOURCE_CHA_DA_JIAO: Final = "000 血战麻将 规则玩法 查大叫 and 流局 1. 查大叫 (按番数比例赔付)"
RULE_HUA_ZHU: Final = "hua_zhu_equal_split"
SOURCE_HUA_ZHU: Final = "000 血战麻将 规则玩法 查花猪 and 流局 2. 查花猪 (按需赔付人数平均分配)"
RULE_CLASSIC_NIUNIU_LIMITS: Final = "classic_niuniu_bet_limits"
SOURCE_CLASSIC_NIUNIU_LIMITS: Final = (
    "001 经典牛牛（Niuniu）, after 抽水: 庄家/闲家最大可赔倍数, 公共最大可选倍数, "
    "闲家可选倍数列表 [1,3,6,10]"
)
RULE_HUNDRED_SPOT_LIMIT: Final = "hundred_spot_multiplier_limit"
SOURCE_HUNDRED_SPOT_LIMIT: Final = (
    "000 百人牛牛游戏规则 派彩; 百人三公游戏规则 游戏流程 4) 结算 "
    "(a short balance limits the multiplier each spot can win or lose)"
)

CLASSIC_NIUNIU_OPTIONS: Final[tuple[int, ...]] = (1, 3, 6, 10)
"""001 经典牛牛: 闲家可选倍数列表."""


def _carried(carried: Mapping[str, int], who: str) -> int:
    if who not in carried:
        raise InvalidInput(f"no carried amount for {who!r}")
    return non_negative(carried[who], f"carried[{who!r}]")


def _clamp(value: Fraction, limit: int) -> Fraction:
    if value > limit:
        return Fraction(limit)
    if value < -limit:
        return Fraction(-limit)
    return value


def _exact_map(values: Mapping[str, Number], name: str) -> dict[str, Fraction]:
    return {k: exact(v, f"{name}[{k!r}]") for k, v in values.items()}


def _zero_sum(values: Mapping[str, Fraction], name: str) -> None:
    total = sum(values.values(), Fraction(0))
    if total != 0:
        raise InvalidInput(f"{name} must add up to 0, they add up to {total}")


# -- 1 ---------------------------------------------------------------------------------
def cap_by_carried(
    results: Mapping[str, Number], carried: Mapping[str, int]
) -> dict[str, Fraction]:
    """Flavour 1, 防以小博大 (001 抢庄玩法介绍 / 三公 / 经典牛牛): a player wins at most and
    loses at most what they carried into the hand. Each result is clamped to
    ``[-carried, +carried]`` (the seed's example: carried 80, theoretical win 200, wins
    80; 经典牛牛: carried 50, theoretical 100, wins 50).

    Applied to each player's result against the banker; on its own it does not keep a
    hand zero-sum - the banker's side is :func:`banker_pro_rata`.
    """
    return {p: _clamp(r, _carried(carried, p)) for p, r in _exact_map(results, "results").items()}


# -- 2 ---------------------------------------------------------------------------------
def banker_pro_rata(
    banker: str, results: Mapping[str, Number], banker_carried: int
) -> dict[str, Fraction]:
    """Flavour 2, the banker cannot cover (001 抢庄玩法介绍 / 三公 / 经典牛牛, 特殊情况):
    winners are paid pro rata to their wins.

    ``results``: each player's result against ``banker`` (+ = the player wins), already
    capped by :func:`cap_by_carried`. The banker collects from losing players and adds
    what they carried: if the winners' total ``W`` exceeds that pool (losers' total
    ``L`` + ``banker_carried``), each winner gets ``win * pool / W`` and the banker
    loses exactly ``banker_carried`` (001: banker carried 100, wins 200/200/400 ->
    25/25/50; 200/200/100/300 -> 25/25/12.5/37.5; 经典牛牛 100/100/300 -> 20/20/60).

    防以小博大 binds the banker too (the seed states it for whoever plays): if
    the banker would win more than ``banker_carried``, losers pay pro rata to their
    losses so the banker wins exactly ``banker_carried``.

    Pro rata weights are the players' results after flavour 1 (the seed says "理论盈利";
    in all its examples no player cap binds, so the two readings agree there, and using
    the capped result keeps both limits). Returns every player's final result and the
    banker's net under ``banker``.
    """
    rs = _exact_map(results, "results")
    if banker in rs:
        raise InvalidInput(f"the banker {banker!r} cannot have a result against itself")
    cover = non_negative(banker_carried, "banker_carried")
    wins = sum((r for r in rs.values() if r > 0), Fraction(0))
    losses = -sum((r for r in rs.values() if r < 0), Fraction(0))
    out = dict(rs)
    if wins - losses > cover:
        pool = losses + cover
        for p, r in rs.items():
            if r > 0:
                out[p] = r * pool / wins
        out[banker] = Fraction(-cover)
    elif losses - wins > cover:
        pool = wins + cover
        for p, r in rs.items():
            if r < 0:
                out[p] = r * pool / losses
        out[banker] = Fraction(cover)
    else:
        out[banker] = losses - wins
    return out


# -- 3 ---------------------------------------------------------------------------------
def doudizhu_three_step(
    landlord: str, scores: Mapping[str, Number], carried: Mapping[str, int]
) -> dict[str, Fraction]:
    """Flavour 3, the Dou Dizhu farmer/landlord rule (000 斗地主 1.4.2 = 加倍斗地主 1.3.2).

    ``scores``: each player's normal score (应得分), landlord and farmers, adding up to 0.

    01) each player's 可得分 = the score with its size limited to what they carried;
    02) if the farmers' 可得分 total is, in size, at most the landlord's 可得分, farmers
        get their 可得分 and the landlord the opposite of their sum;
    03) otherwise each farmer gets ``farmer 可得分 / farmers' total * landlord 可得分`` and
        the landlord the opposite of the farmers' sum.

    Readings (the seed is loose): step 02 compares with the landlord's 可得分, not the
    landlord's raw score - compared with the raw score step 03 could never trigger and a
    landlord could lose more than carried; step 03's formula is taken by size (as written
    its sign would be wrong for a farmer win); the boundary case of equal totals gives
    the same figures under 02 and 03. The 95% in the score formulas (1.4.4) is the
    5% rake (1.4.3), taken after this step, in the order README.md (Money) states.
    """
    sc = _exact_map(scores, "scores")
    if landlord not in sc:
        raise InvalidInput(f"the landlord {landlord!r} has no score")
    farmers = [p for p in sc if p != landlord]
    if not farmers:
        raise InvalidInput("Dou Dizhu needs at least one farmer")
    _zero_sum(sc, "Dou Dizhu scores")
    if any(sc[f] > 0 for f in farmers) and any(sc[f] < 0 for f in farmers):
        raise InvalidInput("farmers win or lose together")
    avail = {p: _clamp(s, _carried(carried, p)) for p, s in sc.items()}
    farmers_total = sum((avail[f] for f in farmers), Fraction(0))
    landlord_avail = abs(avail[landlord])
    out: dict[str, Fraction] = {}
    if abs(farmers_total) <= landlord_avail:
        for f in farmers:
            out[f] = avail[f]
    else:
        for f in farmers:
            out[f] = avail[f] * landlord_avail / abs(farmers_total)
    out[landlord] = -sum((out[f] for f in farmers), Fraction(0))
    return {p: out[p] for p in sc}


# -- 4 ---------------------------------------------------------------------------------
def proportional_to_carried(
    nets: Mapping[str, Number], carried: Mapping[str, int]
) -> dict[str, Fraction]:
    """Flavour 4, proportional payment capped by carried points, every player (000 广东麻将
    实际输赢, 血战麻将 有限责任制, 十三水 实际输赢, 通比牛牛 有限责任制; a banker game
    such as 牛牛游戏规则 settles each player against the banker: :class:`BankerCover`).

    The seeds: nobody's actual win or loss exceeds what they carried, and when that binds
    the actual results are computed "按比例" from the carried points. Algorithm (the
    many-player form of the Dou Dizhu three steps, the one rule the seeds spell out):

    1. each net is limited in size to what that participant carried;
    2. the winners' limited total ``W`` and the losers' limited total ``L`` are compared;
    3. the larger side is scaled down pro rata to the smaller one: if ``W > L`` every
       winner gets ``win * L / W``; if ``L > W`` every loser pays ``loss * W / L``.

    The result adds up to 0, keeps every sign, and no one wins or loses more than
    carried. ``nets`` must add up to 0.
    """
    ns = _exact_map(nets, "nets")
    _zero_sum(ns, "nets")
    lim = {p: _clamp(v, _carried(carried, p)) for p, v in ns.items()}
    wins = sum((v for v in lim.values() if v > 0), Fraction(0))
    losses = -sum((v for v in lim.values() if v < 0), Fraction(0))
    if wins > losses:
        return {p: (v * losses / wins if v > 0 else v) for p, v in lim.items()}
    if losses > wins:
        return {p: (v * wins / losses if v < 0 else v) for p, v in lim.items()}
    return lim


# -- 5 ---------------------------------------------------------------------------------
def cha_da_jiao(
    balance: Number, owed: Mapping[str, Number], fan: Mapping[str, int]
) -> dict[str, Fraction]:
    """Flavour 5, 查大叫 (000 血战麻将): a player who is not listening pays each listening
    player; if their ``balance`` cannot cover all of ``owed``, each listening player gets
    ``balance / total fan * their fan`` (the seed's formula).

    Readings: a listener never gets more than owed - a share above it is cut to the owed
    amount and the excess is shared again by fan among the others (repeated until no
    share exceeds its claim); when the listeners still to be paid all have 0 fan (平胡)
    the rest is shared equally. If ``balance`` covers everything, everyone is paid in
    full and the payer keeps the rest. Exact; rounding (truncation from each listener)
    happens at the end of the settlement.
    """
    bal = exact(balance, "balance")
    if bal < 0:
        raise InvalidInput(f"balance must not be negative, got {bal}")
    ow = _exact_map(owed, "owed")
    for p, v in ow.items():
        if v < 0:
            raise InvalidInput(f"owed[{p!r}] must not be negative")
        if p not in fan:
            raise InvalidInput(f"no fan for listening player {p!r}")
        if isinstance(fan[p], bool) or not isinstance(fan[p], int) or fan[p] < 0:
            raise InvalidInput(f"fan[{p!r}] must be a non-negative int")
    if bal >= sum(ow.values(), Fraction(0)):
        return dict(ow)
    out = {p: Fraction(0) for p in ow}
    open_ = [p for p in ow if ow[p] > 0]
    remaining = bal
    while open_:
        weights = {p: Fraction(fan[p]) for p in open_}
        total = sum(weights.values(), Fraction(0))
        if total == 0:
            weights = {p: Fraction(1) for p in open_}
            total = Fraction(len(open_))
        shares = {p: remaining * weights[p] / total for p in open_}
        full = [p for p in open_ if shares[p] >= ow[p]]
        if not full:
            for p in open_:
                out[p] = shares[p]
            break
        for p in full:
            out[p] = ow[p]
            remaining -= ow[p]
        open_ = [p for p in open_ if p not in full]
    return out


# -- 6 ---------------------------------------------------------------------------------
def hua_zhu_split(
    balance: int, owed: Mapping[str, int], *, unit: int = MINOR_PER_POINT
) -> dict[str, int]:
    """Flavour 6, 查花猪 (000 血战麻将): a 花猪 who cannot pay everything owed splits their
    ``balance`` equally among the players owed, each share truncated to whole points
    (the seed drops the fraction of a point); the remainder stays
    with the payer (the seed: 100 points, three players -> 33 each, 1 kept).

    ``unit`` is the truncation step in minor units; the seed counts in whole points,
    so the default is :data:`~croupier.money.units.MINOR_PER_POINT`. Reading: nobody
    gets more than owed - a player owed less than an equal share is paid in full and the
    rest is split equally among the others. Returns whole minor units.
    """
    bal = non_negative(balance, "balance")
    ow = {p: non_negative(v, f"owed[{p!r}]") for p, v in owed.items()}
    if bal >= sum(ow.values()):
        return dict(ow)
    out = {p: 0 for p in ow}
    open_ = [p for p in ow if ow[p] > 0]
    remaining = Fraction(bal)
    while open_:
        share = remaining / len(open_)
        full = [p for p in open_ if ow[p] <= share]
        if not full:
            each = floor_to_unit(share, unit)
            for p in open_:
                out[p] = each
            break
        for p in full:
            out[p] = ow[p]
            remaining -= ow[p]
        open_ = [p for p in open_ if p not in full]
    return out


# -- 7 ---------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class ClassicNiuniuBetLimits:
    """001 经典牛牛's pre-bet limits, every intermediate figure of the seed's formulas."""

    banker_max: int
    """庄家最大可赔倍数 = floor(庄家金钱 / 底分 / 最大牛倍数)."""
    player_cover_max: int
    """闲家最大可赔倍数 = floor(闲家金钱 / 底分 / 最大牛倍数)."""
    common_max: int
    """所有闲家公共最大可选倍数 = floor(庄家最大可赔倍数 / (玩家人数 - 1))."""
    player_max: int
    """闲家最大可选倍数 = min(闲家最大可赔倍数, 公共最大可选倍数)."""
    options: tuple[int, ...]
    """The entries of 闲家可选倍数列表 the player may choose (possibly none)."""


def classic_niuniu_bet_limits(
    *,
    banker_balance: int,
    player_balance: int,
    base: int,
    max_hand_multiple: int,
    players: int,
    options: Sequence[int] = CLASSIC_NIUNIU_OPTIONS,
) -> ClassicNiuniuBetLimits:
    """Flavour 7a, 001 经典牛牛: which bet multiples a player may select before the deal.

    ``players`` is 玩家人数, the banker included (so ``players - 1`` players share the
    banker's cover); ``max_hand_multiple`` is the largest hand multiple of the variant
    (4 in 001's table). The common maximum is truncated like the two maxima before it -
    the options are whole numbers, so truncating it or not selects the same options. An
    empty ``options`` result means the player cannot cover even the smallest multiple;
    the table decides whether such a player may sit in.
    """
    bb = non_negative(banker_balance, "banker_balance")
    pb = non_negative(player_balance, "player_balance")
    b = non_negative(base, "base")
    m = non_negative(max_hand_multiple, "max_hand_multiple")
    if b == 0 or m == 0:
        raise InvalidInput("base and max_hand_multiple must be positive")
    if isinstance(players, bool) or not isinstance(players, int) or players < 2:
        raise InvalidInput("players (banker included) must be an int >= 2")
    opts = tuple(non_negative(o, "option") for o in options)
    banker_max = bb // (b * m)
    player_cover_max = pb // (b * m)
    common_max = banker_max // (players - 1)
    player_max = min(player_cover_max, common_max)
    return ClassicNiuniuBetLimits(
        banker_max=banker_max,
        player_cover_max=player_cover_max,
        common_max=common_max,
        player_max=player_max,
        options=tuple(o for o in opts if 0 < o <= player_max),
    )


def hundred_spot_multiplier_limit(
    *, balance: int, stakes: Mapping[str, int], max_multiplier: int
) -> int:
    """Flavour 7b, 百人牛牛 / 百人三公: when a player's balance is short, the multiplier
    that each of their spots can win or lose is limited.

    Reading (the seed gives no formula): the limit is the largest multiplier ``m`` (at
    most ``max_multiplier``, the variant's top hand multiple) such that losing every
    spot at ``m`` is covered, ``m * total stake <= balance``; ``balance`` is the balance
    at the close of betting with the stakes still in it. The same limit applies to wins
    and losses on every spot: apply it with
    :func:`limit_multiplier`. Stakes above the balance are refused (a bet over the
    balance is rejected when placed); with no stakes the limit is ``max_multiplier``.
    """
    bal = non_negative(balance, "balance")
    top = non_negative(max_multiplier, "max_multiplier")
    total = sum(non_negative(v, f"stakes[{k!r}]") for k, v in stakes.items())
    if total == 0:
        return top
    if total > bal:
        raise InvalidInput(f"stakes {total} exceed the balance {bal}")
    return min(top, bal // total)


def limit_multiplier(multiplier: Number, limit: int) -> Fraction:
    """A spot's win or loss multiplier under :func:`hundred_spot_multiplier_limit`."""
    if type(multiplier) is int and type(limit) is int:  # a hand's multiple: no parse
        return Fraction(min(multiplier, limit))
    return Fraction(min(exact(multiplier, "multiplier"), Fraction(limit)))


# -- specs for the settlement pipeline ---------------------------------------------------
def _frozen(values: Mapping[str, int], name: str) -> Mapping[str, int]:
    return MappingProxyType({k: non_negative(v, f"{name}[{k!r}]") for k, v in values.items()})


@dataclass(frozen=True, slots=True)
class BankerCover:
    """Flavours 1 + 2 for a banker game: every claim is between ``banker`` and a player;
    each player's net is capped by :func:`cap_by_carried`, then the banker's side by
    :func:`banker_pro_rata`. ``carried`` holds every player's and the banker's."""

    banker: str
    carried: Mapping[str, int]
    source: str = f"{SOURCE_FANG_YI_XIAO_BO_DA}; {SOURCE_BANKER_PRO_RATA}"
    rule: str = RULE_BANKER_COVER

    def __post_init__(self) -> None:
        object.__setattr__(self, "carried", _frozen(self.carried, "carried"))


@dataclass(frozen=True, slots=True)
class DouDizhuThreeStep:
    """Flavour 3 over a Dou Dizhu hand's claims (all between ``landlord`` and a farmer)."""

    landlord: str
    carried: Mapping[str, int]
    source: str = SOURCE_DOUDIZHU
    rule: str = RULE_DOUDIZHU

    def __post_init__(self) -> None:
        object.__setattr__(self, "carried", _frozen(self.carried, "carried"))


@dataclass(frozen=True, slots=True)
class ProportionalToCarried:
    """Flavour 4 over the whole hand's nets."""

    carried: Mapping[str, int]
    source: str = SOURCE_PROPORTIONAL
    rule: str = RULE_PROPORTIONAL

    def __post_init__(self) -> None:
        object.__setattr__(self, "carried", _frozen(self.carried, "carried"))


@dataclass(frozen=True, slots=True)
class ChaDaJiao:
    """Flavour 5 on what ``payer`` owes (claims on ``spots``, or all of the payer's
    claims if empty), out of ``balance``, shared by ``fan``."""

    payer: str
    balance: int
    fan: Mapping[str, int]
    spots: frozenset[str] = field(default_factory=frozenset)
    source: str = SOURCE_CHA_DA_JIAO
    rule: str = RULE_CHA_DA_JIAO

    def __post_init__(self) -> None:
        object.__setattr__(self, "balance", non_negative(self.balance, "balance"))
        object.__setattr__(self, "fan", _frozen(self.fan, "fan"))
        object.__setattr__(self, "spots", frozenset(self.spots))


@dataclass(frozen=True, slots=True)
class HuaZhuSplit:
    """Flavour 6 on what ``payer`` owes (claims on ``spots``, or all of the payer's
    claims if empty), out of ``balance``, truncated to ``unit``."""

    payer: str
    balance: int
    unit: int = MINOR_PER_POINT
    spots: frozenset[str] = field(default_factory=frozenset)
    source: str = SOURCE_HUA_ZHU
    rule: str = RULE_HUA_ZHU

    def __post_init__(self) -> None:
        object.__setattr__(self, "balance", non_negative(self.balance, "balance"))
        if isinstance(self.unit, bool) or not isinstance(self.unit, int) or self.unit < 1:
            raise InvalidInput("unit must be an int >= 1")
        object.__setattr__(self, "spots", frozenset(self.spots))


PayerRule: TypeAlias = ChaDaJiao | HuaZhuSplit
"""Rules that act on one payer's payments and leave the rest of the hand alone."""
HandRule: TypeAlias = BankerCover | DouDizhuThreeStep | ProportionalToCarried
"""Rules that act on the whole hand's nets; at most one, after any payer rules."""
LiabilityRule: TypeAlias = PayerRule | HandRule
