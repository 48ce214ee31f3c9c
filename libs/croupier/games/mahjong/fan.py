"""Fan (番) patterns: which of them a winning hand shows, and its fan under a variant's
table.

The detectors are code; each variant's config (``fan.patterns`` in
``seeds/variants/mahjong.*.json``) says which patterns exist in its table, what each is
worth, what it excludes (不计) and, for 000's 龙七对, how many 根 it takes away. A hand's
fan is the sum of its patterns' fan minus the excluded ones; a pattern with ``per`` set
(根) counts once per occurrence. Readings of the hand (standard, seven pairs, thirteen
orphans) are scored apart and the best one is kept. Caps (封顶) are not applied here:
they are the money kernel's :func:`croupier.money.fan_cap`.

Pattern keys:

=====================  =============================================================
key                    meaning
=====================  =============================================================
``ping_hu``            平胡 / 素番 / 鸡胡 - a win with no shape pattern (0 fan)
``all_pungs``          对对胡 / 大对子 / 碰碰胡 - four 刻子 (or 杠) and a pair
``full_flush``         清一色 - one suit, no honours
``half_flush``         混一色 - one suit and honours
``seven_pairs``        七对 / 暗七对
``dragon_seven_pairs`` 龙七对 / 豪华七对 - seven pairs holding four of a kind
``yaojiu_sets``        全带幺 - every set and the pair holds a 1 or a 9 (or an honour)
``single_wait``        金钩钓 - four exposed melds, one concealed tile waiting for its pair
``eighteen_arhats``    十八罗汉 - 金钩钓 with four 杠
``mixed_yaojiu``       混幺九 - only 1s, 9s and honours, both present
``pure_terminals``     清幺九 - only 1s and 9s
``all_honours``        字一色
``small_three_dragons`` 小三元, ``big_three_dragons`` 大三元
``small_four_winds``   小四喜, ``big_four_winds`` 大四喜
``thirteen_orphans``   十三幺
``root``               根 - each four of a kind in the hand, 杠 included (``per``)
``self_draw``          自摸, ``gang_flower`` 杠上开花, ``gang_shot`` 杠上炮,
``rob_gang``           抢杠胡, ``last_tile`` 海底捞月, ``tian_hu`` 天胡, ``di_hu`` 地胡
=====================  =============================================================
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from croupier.errors import ConfigError
from croupier.games.mahjong.tiles import DRAGONS, HONOURS, ORPHANS, TERMINALS, WINDS, suit_of
from croupier.games.mahjong.win import NO_LIMITS, Forms, Limits, Shape

SHAPE_KEYS = (
    "ping_hu",
    "all_pungs",
    "full_flush",
    "half_flush",
    "seven_pairs",
    "dragon_seven_pairs",
    "yaojiu_sets",
    "single_wait",
    "eighteen_arhats",
    "mixed_yaojiu",
    "pure_terminals",
    "all_honours",
    "small_three_dragons",
    "big_three_dragons",
    "small_four_winds",
    "big_four_winds",
    "thirteen_orphans",
)
CONTEXT_KEYS = (
    "root",
    "self_draw",
    "gang_flower",
    "gang_shot",
    "rob_gang",
    "last_tile",
    "tian_hu",
    "di_hu",
)
KEYS = frozenset(SHAPE_KEYS + CONTEXT_KEYS)

_ORPHANS = frozenset(ORPHANS)
_HONOURS = frozenset(HONOURS)
_TERMINALS = frozenset(TERMINALS)


@dataclass(frozen=True, slots=True)
class Pattern:
    key: str
    name: str
    fan: int
    excludes: frozenset[str] = frozenset()
    per: bool = False
    less_roots: int = 0


@dataclass(frozen=True, slots=True)
class Combo:
    """A named combination that replaces its parts with its own fan (004's 清七对 3,
    where 清一色 + 暗七对 would add up to 4)."""

    name: str
    of: frozenset[str]
    fan: int


@dataclass(frozen=True, slots=True)
class FanTable:
    patterns: Mapping[str, Pattern]
    forms: Forms
    combos: tuple[Combo, ...] = ()

    @classmethod
    def from_config(cls, raw: Mapping[str, Any], forms: Forms) -> FanTable:
        out: dict[str, Pattern] = {}
        combos: list[Combo] = []
        try:
            for c in raw.get("combos", ()):
                of = frozenset(c["of"])
                if not of <= KEYS:
                    raise ConfigError(f"fan table: combo of unknown {sorted(of - KEYS)}")
                combos.append(Combo(str(c["name"]), of, int(c["fan"])))
            for key, p in raw.items():
                if key in ("source", "combos"):
                    continue
                if key not in KEYS:
                    raise ConfigError(f"fan table: unknown pattern {key!r}")
                ex = frozenset(p.get("excludes", ()))
                if not ex <= KEYS:
                    raise ConfigError(f"fan table: {key} excludes unknown {sorted(ex - KEYS)}")
                out[key] = Pattern(
                    key,
                    str(p["name"]),
                    int(p["fan"]),
                    ex,
                    bool(p.get("per", False)),
                    int(p.get("less_roots", 0)),
                )
        except (KeyError, TypeError, ValueError, AttributeError) as e:
            raise ConfigError(f"fan table: {e!r}") from e
        return cls(out, forms, tuple(combos))


@dataclass(frozen=True, slots=True)
class WinContext:
    """How the hand was won (the patterns that are not about the tiles)."""

    self_draw: bool = False
    gang_flower: bool = False
    gang_shot: bool = False
    rob_gang: bool = False
    last_tile: bool = False
    tian_hu: bool = False
    di_hu: bool = False
    gangs: int = 0  # the winner's 杠 (for 十八罗汉)


@dataclass(frozen=True, slots=True)
class Score:
    fan: int
    shape_fan: int  # the fan of the tiles alone (广东: 鸡胡 is 0)
    patterns: tuple[tuple[str, int], ...] = field(default_factory=tuple)  # (key, count)
    names: tuple[str, ...] = ()  # as the table names them, combinations merged


def _tiles_used(shape: Shape) -> set[int]:
    used = {t for t in range(len(shape.concealed)) if shape.concealed[t]}
    return used | set(shape.melds)


def _roots(shape: Shape) -> int:
    return sum(1 for n in shape.real_totals() if n == 4)


def _tile_patterns(shape: Shape, found: dict[str, int]) -> None:
    used = _tiles_used(shape)
    suits = {suit_of(t) for t in used} - {"z"}
    honours = bool(used & _HONOURS)
    if len(suits) == 1 and not honours:
        found["full_flush"] = 1
    if len(suits) == 1 and honours:
        found["half_flush"] = 1


_READINGS = ((False, False), (True, False), (False, True), (True, True))  # (刻子 only, 幺九)
_READING_LIMITS = tuple(Limits(pungs_only=p, yaojiu_sets=y) for p, y in _READINGS)
_TILE_SETS: tuple[tuple[frozenset[int] | None, str], ...] = (
    (None, ""),
    (_ORPHANS, "mixed_yaojiu"),
    (_TERMINALS, "pure_terminals"),
    (_HONOURS, "all_honours"),
)
_HONOUR_SETS: tuple[tuple[tuple[int, ...], int | None, str], ...] = (
    (DRAGONS, None, "big_three_dragons"),
    *((tuple(x for x in DRAGONS if x != d), d, "small_three_dragons") for d in DRAGONS),
    (WINDS, None, "big_four_winds"),
    *((tuple(x for x in WINDS if x != w), w, "small_four_winds") for w in WINDS),
)
_ALLOWED = {key: Limits(allowed=allowed) for allowed, key in _TILE_SETS if allowed}


def _short(totals: Sequence[int], pungs: Sequence[int], pair: int | None) -> int:
    """How many copies the hand lacks of a 刻子 (or 杠) of each of ``pungs`` and the
    pair ``pair``, its exposed melds counted: a hand holding fewer wilds has no standard
    decomposition holding them (:meth:`Shape.standard_with` is false), so the question
    need not be asked."""
    short = sum(max(0, 3 - totals[t]) for t in pungs)
    return short if pair is None else short + max(0, 2 - totals[pair])


def _honour_sets(shape: Shape, totals: Sequence[int], limits: Limits) -> list[str]:
    """The honour sets (大三元 / 小三元, 大四喜 / 小四喜) a standard decomposition
    within ``limits`` holds, in :data:`_HONOUR_SETS`' order: only those the hand's
    tiles, and its wilds, could hold are asked of it."""
    return [
        honour
        for sets, pair, honour in _HONOUR_SETS
        if _short(totals, sets, pair) <= shape.wilds and shape.standard_with(sets, pair, limits)
    ]


def _standard_readings(shape: Shape, ctx: WinContext) -> list[dict[str, int]]:
    """Pattern sets of the standard reading: 对对胡 and 全带幺 are checked on one
    decomposition together, so their sum is never counted from two different ones.
    Without wilds the tile-set patterns (混幺九, 清幺九, 字一色) and the honour sets
    (三元, 四喜) hold in every decomposition or none (honours and 幺九-only hands have
    no 顺子); with wilds they depend on what the wilds stand for, so each is checked
    together with the reading's limits (:func:`_wild_readings`)."""
    common: dict[str, int] = {}
    _tile_patterns(shape, common)
    if shape.n_concealed == 2:
        common["single_wait"] = 1
        if ctx.gangs == 4:
            common["eighteen_arhats"] = 1
    if shape.wilds:
        return _wild_readings(shape, common)
    out: list[dict[str, int]] = []
    for (pungs, yj), limits in zip(_READINGS, _READING_LIMITS, strict=True):
        if not shape.standard(limits):
            continue
        found: dict[str, int] = {}
        if pungs:
            found["all_pungs"] = 1
        if yj:
            found["yaojiu_sets"] = 1
        out.append(found)
    if not out:
        return []
    # a tile set's patterns need every tile held within it, the honour sets their
    # tiles held: the others are not asked (the same answers, less searching)
    used = _tiles_used(shape)
    if used <= _ORPHANS:
        if shape.standard(_ALLOWED["mixed_yaojiu"]) and used & _HONOURS and used & _TERMINALS:
            common["mixed_yaojiu"] = 1
        if used <= _TERMINALS and shape.standard(_ALLOWED["pure_terminals"]):
            common["pure_terminals"] = 1
        if used <= _HONOURS and shape.standard(_ALLOWED["all_honours"]):
            common["all_honours"] = 1
    if used & _HONOURS:
        held = _honour_sets(shape, shape.real_totals(), NO_LIMITS)
        for big, small in (
            ("big_three_dragons", "small_three_dragons"),
            ("big_four_winds", "small_four_winds"),
        ):
            if big in held:
                common[big] = 1
            elif small in held:
                common[small] = 1
    return [{**common, **f} for f in out]


def _wild_readings(shape: Shape, common: Mapping[str, int]) -> list[dict[str, int]]:
    """The standard readings of a hand with wilds: one per set of limits (刻子 only,
    幺九 sets, a tile set, an honour set) that a single decomposition meets, so no two
    patterns are counted from different stand-ins for the same wild (000
    广东麻将推倒胡, 鬼牌: a ghost stands for one tile)."""
    used = _tiles_used(shape)
    totals = shape.real_totals()
    out: list[dict[str, int]] = []
    for pungs, yj in _READINGS:
        for allowed, key in _TILE_SETS:
            if allowed is not None and not used <= allowed:
                continue  # a real tile outside the set: no decomposition within it
            limits = Limits(pungs_only=pungs, allowed=allowed, yaojiu_sets=yj)
            if not shape.standard(limits):
                continue
            if key == "mixed_yaojiu" and not (used & _HONOURS and used & _TERMINALS):
                continue
            found = dict(common)
            if pungs:
                found["all_pungs"] = 1
            if yj:
                found["yaojiu_sets"] = 1
            if key:
                found[key] = 1
            out.append(found)
            out.extend({**found, honour: 1} for honour in _honour_sets(shape, totals, limits))
    return out


def _seven_pairs_reading(shape: Shape) -> dict[str, int] | None:
    if not shape.seven_pairs():
        return None
    found = {"seven_pairs": 1}
    if shape.seven_pairs_quads() > 0:
        found["dragon_seven_pairs"] = 1
    _tile_patterns(shape, found)
    used = _tiles_used(shape)
    if used <= _ORPHANS:
        if used & _HONOURS and used & _TERMINALS:
            found["mixed_yaojiu"] = 1
        if used <= _HONOURS:
            found["all_honours"] = 1
        # 全带幺 of a seven-pairs hand: every pair a 幺九 (000 counts it as 七对)
        found["yaojiu_sets"] = 1
    return found


def readings(shape: Shape, ctx: WinContext, forms: Forms) -> list[dict[str, int]]:
    """Every reading of a winning hand as its patterns (empty: not a win). A hand that
    does not win in some form the variant plays (:meth:`Shape.is_win`) has no reading
    (every standard reading is a decomposition within limits, so there is none without
    a decomposition free of them); one that does may still have none within a
    variant's limits."""
    if not shape.is_win(forms):
        return []
    return _all_readings(shape, ctx, forms)


def _all_readings(shape: Shape, ctx: WinContext, forms: Forms) -> list[dict[str, int]]:
    """:func:`readings` without its early answer: every form read, then joined."""
    out = _standard_readings(shape, ctx)
    if forms.seven_pairs:
        sp = _seven_pairs_reading(shape)
        if sp is not None:
            out.append(sp)
    if forms.thirteen_orphans and shape.thirteen_orphans():
        out.append({"thirteen_orphans": 1})
    extra: dict[str, int] = {}
    roots = _roots(shape)
    if roots:
        extra["root"] = roots
    for key in ("self_draw", "gang_flower", "gang_shot", "rob_gang", "last_tile", "tian_hu"):
        if getattr(ctx, key):
            extra[key] = 1
    if ctx.di_hu:
        extra["di_hu"] = 1
    return [{**r, **extra} for r in out]


def score_reading(found: Mapping[str, int], table: FanTable) -> Score:
    present = {k: n for k, n in found.items() if k in table.patterns}
    excluded: set[str] = set()
    for k in present:
        excluded |= table.patterns[k].excludes
    kept = {k: n for k, n in present.items() if k not in excluded}
    less = sum(table.patterns[k].less_roots for k in kept)
    if "root" in kept:
        kept["root"] = max(0, kept["root"] - less)
        if not kept["root"]:
            del kept["root"]
    shape_keys = [k for k in kept if k in SHAPE_KEYS and table.patterns[k].fan > 0]
    if not shape_keys and "ping_hu" in table.patterns:
        kept = {"ping_hu": 1, **kept}
    fan = 0
    shape_fan = 0
    merged: set[str] = set()
    names: list[str] = []
    for c in table.combos:
        if c.of <= kept.keys() and not c.of & merged:
            merged |= c.of
            names.append(c.name)
            fan += c.fan
            shape_fan += c.fan
    order = [k for k in (*SHAPE_KEYS, *CONTEXT_KEYS) if k in kept]
    for k in order:
        p = table.patterns[k]
        f = p.fan * (kept[k] if p.per else 1)
        if k in SHAPE_KEYS:
            shape_fan += 0 if k in merged else f
        if k in merged:
            continue
        fan += f
        names.append(p.name + (f"x{kept[k]}" if p.per and kept[k] > 1 else ""))
    return Score(fan, shape_fan, tuple((k, kept[k]) for k in order), tuple(names))


def score(shape: Shape, ctx: WinContext, table: FanTable) -> Score | None:
    """The best reading's score, or None when the hand is not a win."""
    best: Score | None = None
    for r in readings(shape, ctx, table.forms):
        s = score_reading(r, table)
        if best is None or (s.fan, s.shape_fan) > (best.fan, best.shape_fan):
            best = s
    return best
