"""The state of a mahjong hand: players' tiles and melds, the wall, whose turn it is,
the open claim window, the wins and every payment made so far."""

from __future__ import annotations

from dataclasses import dataclass, field

from croupier.games import base as g
from croupier.games.mahjong.tiles import N_TILES

PENG = "peng"
MING_GANG = "ming_gang"  # 直杠 / 明杠 / 点杠 / 刮风 (000): a 杠 on a discard
BU_GANG = "bu_gang"  # 补杠 / 弯杠 (004 calls it 刮风): the fourth tile onto a 碰
AN_GANG = "an_gang"  # 暗杠 / 下雨: four concealed tiles
GANGS = (MING_GANG, BU_GANG, AN_GANG)

# spots of the payments (the settlement record's spots)
SPOT_HU = "hu"
SPOT_GANG = "gang"
SPOT_TRANSFER = "call_transfer"  # 呼叫转移
SPOT_CHA = "cha_da_jiao"  # 查大叫 / 查叫
SPOT_HUA_ZHU = "hua_zhu"  # 查花猪
SPOT_REFUND = "gang_refund"  # 004: 杠 income refunded at an unready exhaustion

# steps of the hand
DEALER_ROLL = "dealer_roll"
DEAL = "deal"
SWAP = "swap"
SWAP_ROLL = "swap_roll"
QUE = "que"
DRAW = "draw"
TURN = "turn"
CLAIM = "claim"
ROB = "rob"
OVER = "over"


@dataclass
class Meld:
    kind: str
    tile: int
    source: int | None = None  # the seat whose discard made it

    @property
    def size(self) -> int:
        return 3 if self.kind == PENG else 4


@dataclass
class Player:
    seat: int
    hand: list[int] = field(default_factory=lambda: [0] * N_TILES)
    hidden: int = 0  # face-down tiles a viewer cannot see (``??``)
    melds: list[Meld] = field(default_factory=list)
    discards: list[int] = field(default_factory=list)
    swap: list[int] | None = None
    que: str | None = None
    won: bool = False
    draws: int = 0
    passed_win: bool = False  # 过手: passed a win, waits for their own draw

    @property
    def n_concealed(self) -> int:
        return sum(self.hand) + self.hidden


@dataclass
class Win:
    seat: int
    by: str  # "self_draw" | "discard" | "rob"
    source: int | None  # the discarder or the robbed player
    tile: int
    fan: int
    names: list[str]
    group: int  # wins on one discard share a group


@dataclass
class Pay:
    """A payment the rules create: ``units`` x base x 2^``fan`` from payer to payee."""

    payer: int
    payee: int
    units: int
    fan: int
    spot: str
    note: str = ""


@dataclass
class GangRecord:
    seat: int
    kind: str
    tile: int
    pays: list[int] = field(default_factory=list)  # indices into MahjongState.pays
    transferred: bool = False


@dataclass
class Window:
    """An open claim window: on a discard (``claim``) or on a 补杠's tile (``rob``)."""

    kind: str
    seat: int
    tile: int
    eligible: list[int]
    answers: dict[int, str] = field(default_factory=dict)
    gang_shot: int | None = None  # the discarder's 杠 just before (杠上炮, 呼叫转移)
    dealer_first: bool = False  # the dealer's first discard, nobody has claimed yet


@dataclass
class MahjongState(g.HandState):
    order: list[int] = field(default_factory=list)
    players: dict[int, Player] = field(default_factory=dict)
    dealer: int | None = None
    step: str = DEAL
    current: int | None = None
    wall: int = 0
    dealt: int = 0
    indicator: int | None = None
    ghost: int | None = None
    self_win_ok: bool = False  # the current player may declare a self-drawn win
    after_gang: int | None = None  # index of the current player's 杠 awaiting the discard
    window: Window | None = None
    wins: list[Win] = field(default_factory=list)
    pays: list[Pay] = field(default_factory=list)
    gangs: list[GangRecord] = field(default_factory=list)
    swap_direction: str | None = None
    quiet: bool = True  # nobody has claimed or declared a meld yet (天胡/地胡)
    groups: int = 0
    exhausted: bool = False
    actions: int = 0
    forfeited: set[int] = field(default_factory=set)  # winners who left early (004)
