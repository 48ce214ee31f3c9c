"""The seeds' scoring formulas, turned into :class:`~croupier.money.claims.Claim` s.

Only arithmetic lives here: who won, which hand, which multiples - that comes from the
game's rule module. Every factor is kept apart in the claim so the record shows it, and
every percentage in the seeds' formulas (the "*95%") is left out: it is the rake, taken
later by the pipeline.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction

from croupier.errors import InvalidInput
from croupier.money.claims import Claim
from croupier.money.units import Number, exact, non_negative

SOURCE_DOUDIZHU = (
    "000 斗地主 1.1.1 底分 and 1.4.4 得分计算 (游戏输赢 = 底分*叫分*倍数, landlord x2)"
)
SOURCE_DOUDIZHU_DOUBLING = (
    "000 加倍斗地主 1.1.1 底分 and 1.3.4 得分计算 "
    "(底分*叫分*抢地主翻倍数*加倍翻倍数*倍数; landlord = 农民之和)"
)
SOURCE_TONGBI = "000 通比牛牛 四、游戏输赢 (A*B*C*D; 95% is the 抽水)"
SOURCE_BANKER_GAME = "001 抢庄玩法介绍 / 三公 / 经典牛牛（Niuniu）: 结算公式 (A*M*Y, A*N*Y)"
SOURCE_MAHJONG = (
    "000 血战麻将 得分计算 (自摸 = 底分*2^N*未胡牌人数, 炮胡 = 底分*2^N); "
    "000 广东麻将推倒胡 基本番型 得分计算; 004 血战到底麻将 积分计算"
)


def _positive_int(value: object, name: str) -> int:
    v = non_negative(value, name)
    if v == 0:
        raise InvalidInput(f"{name} must be positive")
    return v


def doudizhu_claims(
    *,
    landlord: str,
    farmers: Sequence[str],
    base: int,
    bid: int,
    multiple: Number,
    landlord_wins: bool,
    grab: Number = 1,
    doubling: Mapping[str, int] | None = None,
) -> list[Claim]:
    """One claim per farmer, between the farmer and the landlord.

    000 斗地主 1.4.4: a farmer's amount is 底分 x 叫分 x 倍数 and the landlord's twice
    that, i.e. the sum over both farmers. 000 加倍斗地主 1.3.4 adds 抢地主翻倍数
    (``grab``: the factor itself, doubled per grab - 1, 2, 4, ...) and each farmer's own
    加倍翻倍数 (``doubling``, 1 or 2), and
    the landlord's amount is the farmers' sum. ``multiple`` is the game multiple
    (倍数: x2 per bomb or rocket, x2 for 春天). Factors in the claims: classic
    ``(bid, multiple)``; with ``grab`` or ``doubling`` given
    ``(bid, grab, doubling, multiple)``."""
    if landlord in farmers or len(set(farmers)) != len(farmers) or not farmers:
        raise InvalidInput("farmers must be distinct and not the landlord")
    b = non_negative(base, "base")
    if bid not in (1, 2, 3) or isinstance(bid, bool):
        raise InvalidInput(f"bid (叫分) is 1, 2 or 3, got {bid!r}")
    m = exact(multiple, "multiple")
    g = exact(grab, "grab")
    if m <= 0 or g <= 0:
        raise InvalidInput("multiples must be positive")
    classic = doubling is None and g == 1
    claims = []
    for f in farmers:
        factors: tuple[Fraction, ...]
        if classic:
            factors = (exact(bid), m)
        else:
            d = (doubling or {}).get(f, 1)
            if d not in (1, 2):
                raise InvalidInput(f"加倍翻倍数 is 1 or 2, got {d!r} for {f!r}")
            factors = (exact(bid), g, exact(d), m)
        payer, payee = (f, landlord) if landlord_wins else (landlord, f)
        claims.append(Claim(payer, payee, b, factors, "doudizhu"))
    return claims


def tongbi_niuniu_claims(
    *, winner: str, base: int, hand_multiple: int, bet_multiples: Mapping[str, int]
) -> list[Claim]:
    """000 通比牛牛 四、游戏输赢: every other player pays the winner A x B x C x D = room
    base x the winner's hand multiple x the winner's bet multiple x their own bet
    multiple (example 1: 100 x 6 x 5 x 3 = 9000). ``bet_multiples`` holds every
    player's, the winner's included."""
    if winner not in bet_multiples:
        raise InvalidInput(f"no bet multiple for the winner {winner!r}")
    b = non_negative(base, "base")
    hm = _positive_int(hand_multiple, "hand_multiple")
    wm = _positive_int(bet_multiples[winner], "winner's bet multiple")
    return [
        Claim(
            p,
            winner,
            b,
            (exact(hm), exact(wm), exact(_positive_int(bm, f"bet of {p!r}"))),
            "tongbi",
        )
        for p, bm in bet_multiples.items()
        if p != winner
    ]


def banker_game_claim(
    *,
    banker: str,
    player: str,
    base: int,
    banker_wins: bool,
    banker_multiple: Number,
    player_multiple: Number,
    bet_multiple: Number,
    spot: str = "",
) -> Claim:
    """001 结算公式 (抢庄 三公, 三公, 经典牛牛): the banker wins A x M x Y (room base x the
    banker's hand multiple x the player's bet multiple) or loses A x N x Y (N the
    player's hand multiple)."""
    m = exact(banker_multiple if banker_wins else player_multiple, "hand multiple")
    y = exact(bet_multiple, "bet multiple")
    if banker_wins:
        return Claim(player, banker, base, (m, y), spot or player)
    return Claim(banker, player, base, (m, y), spot or player)


def mahjong_self_draw_claims(
    *, winner: str, payers: Sequence[str], base: int, fan: int, spot: str = "hu"
) -> list[Claim]:
    """自摸: each player still in the hand pays base x 2^fan (000 血战麻将 得分计算: 自摸
    得分 = 房间底分 x 2^N x 未胡牌人数, e.g. 100 x 2^3 x 3 = 2400; 004 血战到底 例1: 10 x 8
    = 80 from each of three, 240). A fan cap is a :func:`~croupier.money.caps.fan_cap`."""
    if winner in payers or len(set(payers)) != len(payers):
        raise InvalidInput("payers must be distinct and not the winner")
    f = non_negative(fan, "fan")
    return [Claim(p, winner, base, (exact(2**f),), spot) for p in payers]


def mahjong_discard_claim(
    *, winner: str, discarder: str, base: int, fan: int, spot: str = "hu"
) -> Claim:
    """炮胡: the discarder alone pays base x 2^fan (000 血战麻将 炮胡得分; 004 血战到底 例3:
    0 fan, room 10 -> 10)."""
    f = non_negative(fan, "fan")
    return Claim(discarder, winner, base, (exact(2**f),), spot)
