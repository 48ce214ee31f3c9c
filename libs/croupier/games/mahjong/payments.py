"""What a mahjong hand pays beyond the wins and 杠 recorded during play: the checks at
an empty wall (查花猪, 查大叫 / 查叫, 004's refund of 杠 income), and the settlement of
every payment through the money kernel (:func:`croupier.money.settle`)."""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING

from croupier.games.mahjong.fan import WinContext, score
from croupier.games.mahjong.state import (
    SPOT_CHA,
    SPOT_HU,
    SPOT_HUA_ZHU,
    SPOT_REFUND,
    MahjongState,
    Pay,
)
from croupier.games.mahjong.tiles import suit_of
from croupier.games.mahjong.win import Shape
from croupier.games.memo import recall
from croupier.money import (
    ChaDaJiao,
    Claim,
    HuaZhuSplit,
    LiabilityRule,
    PairAmountCap,
    ProportionalToCarried,
    RakePolicy,
    SettlementResult,
    fan_cap,
    settle,
    xuezhan_daodi_pair_cap,
)
from croupier.money.caps import CapRule
from croupier.money.formulas import SOURCE_MAHJONG

if TYPE_CHECKING:
    from croupier.games.mahjong.engine import MahjongEngine


def ready_fan(e: MahjongEngine, st: MahjongState, seat: int) -> int | None:
    """For a player not won: the best fan their hand can win with (有叫/听牌: the
    largest over the winning tiles, as a win on a discard), None if not listening.
    Remembered per engine by all it reads (the hand's shape, its suits, its 定缺 suit
    and the ghost: :func:`~croupier.games.memo.recall`)."""
    pl = st.players[seat]
    key = (e.shape(st, pl), frozenset(e.suits_held(pl)), pl.que, st.ghost)
    return recall(e.ready_fans, key, lambda k: _ready_fan(e, *k))


def _ready_fan(
    e: MahjongEngine, shape: Shape, held: frozenset[str], que: str | None, ghost: int | None
) -> int | None:
    best: int | None = None
    # the hand, its tile totals and its suits are the same for every tile tried: read
    # once (a tile adds its own suit, an honour none: ``e.suits_held(pl, t)``)
    totals = shape.real_totals()
    ctx = WinContext()
    # without wilds only the tiles that win at all are scored (the hand's waits, found
    # natively where built); with them each tile is judged by its score
    tiles = e.universe if shape.wilds else shape.waits(e.universe, e.rules.fan.forms)
    for t in tiles:
        if t == ghost or totals[t] >= 4:
            continue
        suit = suit_of(t)
        suits = held if suit == "z" or suit in held else held | {suit}
        if len(suits) > e.rules.max_suits:
            continue
        if que is not None and que in suits:
            continue
        sc = score(shape.add(t), ctx, e.rules.fan)
        if sc is not None and (best is None or sc.fan > best):
            best = sc.fan
    return best


def is_hua_zhu(e: MahjongEngine, st: MahjongState, seat: int) -> bool:
    """花猪: 000 still holds its 定缺 suit; 004 holds three suits."""
    pl = st.players[seat]
    if e.rules.hua_zhu == "que_suit":
        return pl.que is not None and pl.que in e.suits_held(pl)
    if e.rules.hua_zhu == "three_suits":
        return len(e.suits_held(pl)) >= 3
    return False


def exhaustion(
    e: MahjongEngine, st: MahjongState
) -> tuple[list[Pay], dict[int, int | None], list[int]]:
    """查花猪 and 查大叫 when the wall ran out with two or more players not won:
    the payments, each player's 叫 (best fan or None) and the 花猪."""
    r = e.rules
    left = e.in_play(st)
    if not st.exhausted or len(left) < 2 or (r.hua_zhu == "none" and not r.cha_da_jiao):
        return [], {}, []
    hua = [s for s in left if e.is_hua_zhu(st, s)]
    ready = {s: (None if s in hua else e.ready_fan(st, s)) for s in left}
    pays: list[Pay] = []
    for s in hua:
        for q in left:
            if q in hua:
                continue
            if r.hua_zhu_units:
                pays.append(Pay(s, q, r.hua_zhu_units, 0, SPOT_HUA_ZHU, "查花猪"))
            else:
                pays.append(Pay(s, q, 1, r.hua_zhu_fan, SPOT_HUA_ZHU, "查花猪"))
    if r.cha_da_jiao:
        payers = [s for s in left if ready[s] is None and (s not in hua or r.hua_zhu_plus_cha)]
        for s in payers:
            for q in left:
                fan = ready[q]
                if fan is not None:
                    pays.append(Pay(s, q, 1, fan, SPOT_CHA, "查大叫"))
    if r.refund_gang_unready:
        for rec in st.gangs:
            if rec.seat in left and ready[rec.seat] is None and not rec.transferred:
                for i in rec.pays:
                    p = st.pays[i]
                    pays.append(Pay(p.payee, p.payer, p.units, 0, SPOT_REFUND, "退杠钱"))
    return pays, ready, hua


def claims(e: MahjongEngine, st: MahjongState) -> list[Claim]:
    """Every payment of the hand, in the order it arose, as a kernel claim; the fan won
    by a winner who left early is not paid (004: 不给予所赢番数), their 杠 income is."""
    ex_pays, _, _ = e.exhaustion(st)
    player = {s: st.seats[s].player for s in st.order}
    return [
        Claim(
            player[p.payer],
            player[p.payee],
            e.rules.base * p.units,
            (Fraction(2**p.fan),),
            p.spot,
        )
        for p in (*st.pays, *ex_pays)
        if not (p.spot == SPOT_HU and p.payee in st.forfeited)
    ]


def settlement(e: MahjongEngine, st: MahjongState) -> SettlementResult:
    """The hand's money through the kernel: every payment as a claim (base x units x
    2^fan), the variant's caps (fan cap on wins, 查叫 and 花猪; 004's per-payer cap),
    000's 查大叫 by fan share and 花猪 equal split on a short balance (the stack carried
    plus the hand's result before the wall ran out), then proportional limited
    liability, rounding and the rake."""
    r = e.rules
    player = {s: st.seats[s].player for s in st.order}
    carried = {player[s]: st.seats[s].stack for s in st.order}
    caps: list[CapRule] = []
    if r.max_fan is not None:
        caps.append(fan_cap(r.max_fan, r.cap_source, (SPOT_HU, SPOT_CHA, SPOT_HUA_ZHU)))
    if r.pair_cap_units is not None:
        caps.append(
            xuezhan_daodi_pair_cap(r.base)
            if r.pair_cap_units == 24
            else PairAmountCap(r.pair_cap_units * r.base, "per_payer_cap", r.cap_source)
        )
    liability: list[LiabilityRule] = []
    ex_pays, ready, hua = e.exhaustion(st)
    if r.cha_by_fan_share and ex_pays:
        before: dict[int, int] = {s: st.seats[s].stack for s in st.order}
        for p in st.pays:
            amount = r.base * p.units * 2**p.fan
            before[p.payer] -= amount
            before[p.payee] += amount
        for s in st.order:
            bal = max(0, before[s])
            if s in hua:
                liability.append(
                    HuaZhuSplit(player[s], bal, spots=frozenset({SPOT_HUA_ZHU, SPOT_CHA}))
                )
            elif s in ready and ready[s] is None:
                fans = {player[q]: f for q, f in ready.items() if f is not None}
                if fans:
                    liability.append(ChaDaJiao(player[s], bal, fans, spots=frozenset({SPOT_CHA})))
    liability.append(
        ProportionalToCarried(carried, source=str(e.config.raw["liability"]["source"]))
    )
    return settle(
        e.claims(st),
        participants=[player[s] for s in st.order],
        caps=caps,
        liability=liability,
        rake=RakePolicy(r.rake, source=r.rake_source),
        hand_id=st.hand_id,
        source=SOURCE_MAHJONG,
    )
