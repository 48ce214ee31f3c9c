"""Win detection (胡牌) and listening (听牌) with any number of wild tiles.

A hand is a :class:`Shape`: the real concealed tiles as 34 counts, the number of wild
tiles (广东's 鬼牌; 0 elsewhere) and the exposed melds (碰/杠: no 吃 in any variant,
so every meld is three or four of one tile). The winning forms:

* standard: four sets (刻子 or 顺子, the exposed melds included) and a pair;
* seven pairs (七对): fourteen concealed tiles as seven pairs, four of a kind counting
  as two pairs (the 龙七对/豪华七对 forms);
* thirteen orphans (十三幺): one of each terminal and honour and one more of them.

A wild tile stands for any tile, but never for a fifth copy of a tile (000_d16ad353ba467b8a.txt,
广东麻将推倒胡, 鬼牌: 鬼牌不能当作第五张牌): a tile's real copies (concealed and exposed)
and the wilds standing for it are at most four.

The standard search takes the lowest remaining real tile and tries every set or pair
that can contain it (filling gaps with wilds), memoised on the remaining counts; the
wilds left at the end form sets of their own. Real tiles are always used before wilds,
which loses nothing (a wild can stand for any real tile it would replace). Optional
:class:`Limits` restrict the sets (only 刻子, only certain tiles, every set holding a
幺九), which is how the fan patterns test their shapes. The tests cross-check all of
it against a brute-force search that substitutes every possible tile for every wild.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from croupier.accel import native as _native
from croupier.games.mahjong.tiles import N_TILES, ORPHANS, is_terminal_or_honour

Counts = tuple[int, ...]
ZERO_CAPS: Counts = (0,) * N_TILES


@dataclass(frozen=True, slots=True)
class Limits:
    """Restrictions on the sets of a standard decomposition."""

    pungs_only: bool = False  # no 顺子
    allowed: frozenset[int] | None = None  # only these tiles (real or wild)
    yaojiu_sets: bool = False  # every set and the pair holds a 1, a 9 or an honour


NO_LIMITS = Limits()


@dataclass(frozen=True, slots=True)
class Forms:
    """Which winning forms a variant allows besides the standard one."""

    seven_pairs: bool = True
    thirteen_orphans: bool = False


def _allowed(t: int, f: Limits) -> bool:
    return f.allowed is None or t in f.allowed


def _sub(c: Counts, t: int, n: int) -> Counts:
    return c if n == 0 else (*c[:t], c[t] - n, *c[t + 1 :])


def _wild_only(w: int, pair_done: bool, caps: Counts, f: Limits) -> bool:
    """Can ``w`` wilds alone make the remaining sets (and the pair, if not done)?"""
    if pair_done:
        if w % 3:
            return False
        sets, pair = w // 3, 0
    else:
        if w < 2 or (w - 2) % 3:
            return False
        sets, pair = (w - 2) // 3, 1
    room = [
        caps[t] if _allowed(t, f) and (not f.yaojiu_sets or is_terminal_or_honour(t)) else 0
        for t in range(N_TILES)
    ]
    for need in [2] * pair + [3] * sets:
        best = max(range(N_TILES), key=lambda t: room[t])
        if room[best] < need:
            return False
        room[best] -= need
    return True


@lru_cache(maxsize=4096)
def _caps(concealed: Counts, melds: tuple[int, ...], meld_sizes: tuple[int, ...]) -> Counts:
    """:meth:`Shape.caps`, remembered: a hand with wilds is judged against a dozen sets
    of limits (each reading of its fan), every one asking for the same caps."""
    tot = list(concealed)
    for t, n in zip(melds, meld_sizes, strict=True):
        tot[t] += n
    return tuple(max(0, 4 - n) for n in tot)


# 32,768 hand states (~13 MiB): within a hand its answers recur, across hands rarely; at
# 262,144 the cache held ~100 MiB and answered no more of the bench's replays
@lru_cache(maxsize=1 << 15)
def _std(c: Counts, w: int, pair_done: bool, caps: Counts, f: Limits) -> bool:
    i = next((k for k in range(N_TILES) if c[k]), -1)
    if i < 0:
        return _wild_only(w, pair_done, caps, f)
    if not _allowed(i, f):
        return False
    n = c[i]
    yj_ok = not f.yaojiu_sets or is_terminal_or_honour(i)
    # 刻子 (pung) of i
    real = min(n, 3)
    need = 3 - real
    if (
        yj_ok
        and need <= w
        and need <= caps[i]
        and _std(_sub(c, i, real), w - need, pair_done, _sub(caps, i, need), f)
    ):
        return True
    # the pair (将) of i
    if not pair_done:
        real = min(n, 2)
        need = 2 - real
        if (
            yj_ok
            and need <= w
            and need <= caps[i]
            and _std(_sub(c, i, real), w - need, True, _sub(caps, i, need), f)
        ):
            return True
    # 顺子 holding i (i is the lowest real tile left, so lower places are wilds)
    if not f.pungs_only and i < 27:
        base = i - i % 9
        for start in (i - 2, i - 1, i):
            if start < base or start % 9 > 6:
                continue
            if f.yaojiu_sets and start % 9 not in (0, 6):
                continue
            run = (start, start + 1, start + 2)
            if not all(_allowed(t, f) for t in run):
                continue
            cc, cp, ww, ok = c, caps, w, True
            for t in run:
                if t == i or (t > i and cc[t] > 0):
                    cc = _sub(cc, t, 1)
                elif ww > 0 and cp[t] > 0:
                    ww -= 1
                    cp = _sub(cp, t, 1)
                else:
                    ok = False
                    break
            if ok and _std(cc, ww, pair_done, cp, f):
                return True
    return False


def _std_plain(c: Counts) -> bool:
    """:func:`_std` for a hand without wilds or limits (the common question: does this
    discard, or this draw, win?), suit by suit: a suit's tiles make sets of their own
    (the three suits' 顺子 never cross a suit, honours make only 刻子), one suit or
    honour holds the pair, and a suit's tile count says which (2 left over after its
    sets). Each suit's answer is remembered by its nine counts (:func:`_suit_sets`),
    which recur across hands, where a whole hand's 34 counts rarely do. The same answer
    as the general search (pinned against it over every hand the tests draw)."""
    pair = False
    for base in (0, 9, 18):
        part = c[base : base + 9]
        left = sum(part) % 3
        if left == 1:
            return False
        if left == 2:
            if pair:
                return False
            pair = True
        if (left or any(part)) and not _suit_sets(part, left == 2):
            return False
    for t in range(27, N_TILES):
        n = c[t]
        if n == 2:
            if pair:
                return False
            pair = True
        elif n and n != 3:  # an honour stands in a 刻子 or the pair, nothing else
            return False
    return pair


@lru_cache(maxsize=1 << 14)
def _suit_sets(part: Counts, with_pair: bool) -> bool:
    """Whether one suit's nine counts are sets (刻子 and 顺子), and one pair when
    ``with_pair``: the lowest tile left goes in a 刻子, the pair or a 顺子 it starts."""
    i = next((k for k, n in enumerate(part) if n), -1)
    if i < 0:
        return not with_pair
    n = part[i]
    if n >= 3 and _suit_sets(_sub(part, i, 3), with_pair):
        return True
    if with_pair and n >= 2 and _suit_sets(_sub(part, i, 2), False):
        return True
    if i <= 6 and part[i + 1] and part[i + 2]:
        run = (*part[:i], n - 1, part[i + 1] - 1, part[i + 2] - 1, *part[i + 3 :])
        return _suit_sets(run, with_pair)
    return False


Part = tuple[tuple[tuple[int, bool], ...], int]
"""A standard decomposition of concealed tiles: its sets, each ``(tile, True)`` for the
刻子 of ``tile`` or ``(tile, False)`` for the 顺子 from ``tile``, and its pair's tile."""


@lru_cache(maxsize=1 << 12)
def _plain_parts(c: Counts) -> tuple[Part, ...]:
    """Every standard decomposition of wild-free counts (sets and one pair), as
    :func:`_std` searches them (the lowest tile left in a 刻子, the pair or the 顺子 it
    starts). A winning hand has a few; a limited question (:class:`Limits`, the fan
    patterns' ``standard_with``) is then asked of each (:func:`_within`) instead of a
    search of its own. Remembered by the counts: the fan readings of one hand ask a
    dozen such questions."""
    out: list[Part] = []

    def walk(c: list[int], sets: list[tuple[int, bool]], pair: int) -> None:
        i = next((k for k in range(N_TILES) if c[k]), -1)
        if i < 0:
            if pair >= 0:
                out.append((tuple(sets), pair))
            return
        n = c[i]
        if n >= 3:
            c[i] -= 3
            sets.append((i, True))
            walk(c, sets, pair)
            sets.pop()
            c[i] += 3
        if pair < 0 and n >= 2:
            c[i] -= 2
            walk(c, sets, i)
            c[i] += 2
        if i < 27 and i % 9 <= 6 and c[i + 1] and c[i + 2]:
            c[i] -= 1
            c[i + 1] -= 1
            c[i + 2] -= 1
            sets.append((i, False))
            walk(c, sets, pair)
            sets.pop()
            c[i] += 1
            c[i + 1] += 1
            c[i + 2] += 1

    walk(list(c), [], -1)
    return tuple(out)


def _within(part: Part, f: Limits) -> bool:
    """Whether a decomposition's sets and pair are all within ``f``, as :func:`_std`
    reads the limits: every tile allowed, no 顺子 where only 刻子 are, every set and
    the pair holding a 幺九 (a 顺子 from a 1 or a 7)."""
    sets, pair = part
    yj = f.yaojiu_sets
    if not _allowed(pair, f) or (yj and not is_terminal_or_honour(pair)):
        return False
    for t, pung in sets:
        if pung:
            if not _allowed(t, f) or (yj and not is_terminal_or_honour(t)):
                return False
        elif (
            f.pungs_only
            or (yj and t % 9 not in (0, 6))
            or not (_allowed(t, f) and _allowed(t + 1, f) and _allowed(t + 2, f))
        ):
            return False
    return True


def _wilds_needed(c: Counts) -> int:
    """The fewest wilds that could make ``c`` a standard hand were a wild free to stand
    for any tile (no cap on copies, no limits): a lower bound of what :func:`_std`
    needs, so a hand holding fewer wilds is no standard win under any caps or limits.
    Each suit, and the honours, on their own (:func:`_group_wilds`), one of them or two
    wilds holding the pair."""
    groups = ((c[0:9], True), (c[9:18], True), (c[18:27], True), (c[27:N_TILES], False))
    alone = [_group_wilds(part, False, runs) for part, runs in groups]
    total = sum(alone)
    best = total + 2  # the pair of two wilds
    for k, (part, runs) in enumerate(groups):
        best = min(best, total - alone[k] + _group_wilds(part, True, runs))
    return best


@lru_cache(maxsize=1 << 15)
def _group_wilds(part: Counts, with_pair: bool, runs: bool) -> int:
    """The fewest wilds that make one suit's counts (or the honours', ``runs`` false)
    sets, and a pair when ``with_pair``: the lowest tile left in a 刻子, the pair or a
    顺子 holding it, gaps filled with wilds, as :func:`_std` searches."""
    i = next((k for k, n in enumerate(part) if n), -1)
    if i < 0:
        return 2 if with_pair else 0
    n = part[i]
    real = min(n, 3)
    best = 3 - real + _group_wilds(_sub(part, i, real), with_pair, runs)
    if with_pair:
        real = min(n, 2)
        best = min(best, 2 - real + _group_wilds(_sub(part, i, real), False, runs))
    if runs:
        for start in (i - 2, i - 1, i):
            if start < 0 or start > len(part) - 3:
                continue
            cc, wild = part, 0
            for t in (start, start + 1, start + 2):
                if t == i or (t > i and cc[t] > 0):
                    cc = _sub(cc, t, 1)
                else:
                    wild += 1
            best = min(best, wild + _group_wilds(cc, with_pair, runs))
    return best


_ORPHAN_SET = frozenset(ORPHANS)
_NOT_ORPHANS = tuple(t for t in range(N_TILES) if t not in _ORPHAN_SET)


def isolated(concealed: Sequence[int], tile: int, forms: Forms) -> bool:
    """Whether ``tile`` added to wild-free ``concealed`` counts stands in no set and no
    pair, so the tiles win in no form: no copy held and no tile of its suit next to it
    (every 顺子 holding it holds a neighbour), unless thirteen orphans is played and it
    and every tile held are 幺九 (that form wants the tile alone). Where it is true no
    form wins; where false, the tiles are judged."""
    if concealed[tile] or (
        forms.thirteen_orphans
        and tile in _ORPHAN_SET
        and not any(concealed[t] for t in _NOT_ORPHANS)
    ):
        return False
    if tile >= 27:  # an honour stands only in a 刻子 or the pair
        return True
    low = tile - tile % 9
    return not any(concealed[max(low, tile - 1) : min(low + 9, tile + 2)])


def could_win_with_one_more(concealed: Counts, wilds: int, melded: bool, forms: Forms) -> bool:
    """Whether one more tile, whichever it is, could make the hand of ``concealed`` real
    tiles and ``wilds`` wilds (and melds, when ``melded``) a win in a form of ``forms``:
    false only where none can. The tile stands, at best, for any tile, so it is counted
    as one more free wild: a standard win needs no more of them than
    :func:`_wilds_needed` counts, seven pairs no more than the tiles held an odd number
    of times, thirteen orphans no real tile outside them (and no meld, for either).
    True is no win: the tiles are then judged."""
    room = wilds + 1
    if _wilds_needed(concealed) <= room:
        return True
    if melded:
        return False
    if forms.seven_pairs and _odd_counts(concealed) <= room:
        return True
    return forms.thirteen_orphans and not any(concealed[t] for t in _NOT_ORPHANS)


def _odd_counts(counts: Counts) -> int:
    """How many tiles are held an odd number of times: counted by value while every
    count is a tile's (0 to 4), which the tuple's own ``count`` does in C."""
    odd = counts.count(1) + counts.count(3)
    if odd + counts.count(0) + counts.count(2) + counts.count(4) == len(counts):
        return odd
    return sum(n % 2 for n in counts)


def _thirteen(c: Counts) -> bool:
    """Fourteen tiles as thirteen orphans: only 幺九, none three times, one pair."""
    if any(c[t] for t in _NOT_ORPHANS):
        return False
    return max(c) <= 2 and sum(1 for t in ORPHANS if c[t] == 2) <= 1


def plain_win(concealed: Counts, n_melds: int, forms: Forms) -> bool:
    """:meth:`Shape.is_win` of tiles without wilds, read from their counts and the
    number of exposed melds (a meld stands as a set whatever its tile) with no
    :class:`Shape` built: the question asked of every other player's hand at each
    discard, most often no. The native path answers where it is built
    (``libs/croupier/_accel_mahjong.c``: the same answer,
    ``tests/property/test_accel_mahjong.py``)."""
    if _native is not None:
        won = _native.mahjong_win(concealed, n_melds, forms.seven_pairs, forms.thirteen_orphans)
        if won is not None:
            return bool(won)
    n = sum(concealed)
    if n % 3 == 2 and n + 3 * n_melds == 14 and _std_plain(concealed):
        return True
    if n_melds or n != 14:
        return False
    return (forms.seven_pairs and not _odd_counts(concealed)) or (
        forms.thirteen_orphans and _thirteen(concealed)
    )


@dataclass(frozen=True, slots=True)
class Shape:
    """A hand to judge: concealed real tiles (34 counts), wilds, exposed meld tiles
    (each meld one entry, the tile it is three or four of) and their sizes."""

    concealed: Counts
    wilds: int = 0
    melds: tuple[int, ...] = ()
    meld_sizes: tuple[int, ...] = ()
    n_concealed: int = field(init=False, repr=False, compare=False)
    """Concealed tiles, wilds included: every form's first test."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "n_concealed", sum(self.concealed) + self.wilds)

    @classmethod
    def of(
        cls,
        concealed: Iterable[int],
        *,
        wilds: int = 0,
        melds: Sequence[tuple[int, int]] = (),
    ) -> Shape:
        """From concealed tile indices and ``(tile, size)`` melds."""
        c = [0] * N_TILES
        for t in concealed:
            c[t] += 1
        return cls(tuple(c), wilds, tuple(t for t, _ in melds), tuple(n for _, n in melds))

    def add(self, tile: int | None) -> Shape:
        """The shape with one more tile (``None``: one more wild)."""
        if tile is None:
            return Shape(self.concealed, self.wilds + 1, self.melds, self.meld_sizes)
        return Shape(_sub(self.concealed, tile, -1), self.wilds, self.melds, self.meld_sizes)

    def real_totals(self) -> list[int]:
        """Real copies of each tile in the hand, exposed ones included."""
        tot = list(self.concealed)
        for t, n in zip(self.melds, self.meld_sizes, strict=True):
            tot[t] += n
        return tot

    def caps(self) -> Counts:
        """How many wilds may stand for each tile (no fifth copy)."""
        if not self.wilds:
            return ZERO_CAPS
        return _caps(self.concealed, self.melds, self.meld_sizes)

    def complete(self) -> bool:
        """Has the tile count of a finished hand (3k + 2 concealed)."""
        n = self.n_concealed
        return n % 3 == 2 and n + 3 * len(self.melds) == 14

    # -- forms --------------------------------------------------------------------------
    def standard(self, limits: Limits = NO_LIMITS) -> bool:
        if not self.complete():
            return False
        if limits.allowed is not None and any(t not in limits.allowed for t in self.melds):
            return False
        if limits.yaojiu_sets and not all(is_terminal_or_honour(t) for t in self.melds):
            return False
        if not self.wilds:
            if limits == NO_LIMITS:
                return _std_plain(self.concealed)
            # every decomposition, remembered by the counts (none: no win at all)
            return any(_within(part, limits) for part in _plain_parts(self.concealed))
        if _wilds_needed(self.concealed) > self.wilds:
            return False
        return _std(self.concealed, self.wilds, False, self.caps(), limits)

    def standard_with(
        self, pungs: Sequence[int], pair: int | None, limits: Limits = NO_LIMITS
    ) -> bool:
        """A standard win holding a 刻子 (or 杠) of each of ``pungs`` and, if given, the
        pair ``pair`` - exposed melds count for the pungs - with all its sets within
        ``limits``."""
        if not self.standard(limits):
            return False
        for t in (*pungs, *([] if pair is None else [pair])):
            if not _allowed(t, limits) or (limits.yaojiu_sets and not is_terminal_or_honour(t)):
                return False
        if not self.wilds:  # a decomposition within the limits holding them
            held = [(t, True) for t in pungs if t not in self.melds]
            return any(
                (pair is None or part[1] == pair)
                and all(x in part[0] for x in held)
                and _within(part, limits)
                for part in _plain_parts(self.concealed)
            )
        c = list(self.concealed)
        caps = list(self.caps())
        w = self.wilds
        for t in pungs:
            if t in self.melds:
                continue
            real = min(c[t], 3)
            need = 3 - real
            if need > w or need > caps[t]:
                return False
            c[t] -= real
            caps[t] -= need
            w -= need
        pair_done = pair is not None
        if pair is not None:
            real = min(c[pair], 2)
            need = 2 - real
            if need > w or need > caps[pair]:
                return False
            c[pair] -= real
            caps[pair] -= need
            w -= need
        return _std(tuple(c), w, pair_done, tuple(caps), limits)

    def seven_pairs(self) -> bool:
        if self.melds or self.n_concealed != 14:
            return False
        return _odd_counts(self.concealed) <= self.wilds

    def seven_pairs_quads(self) -> int:
        """The most four-of-a-kinds a seven-pairs reading can hold (-1: not seven pairs)."""
        if not self.seven_pairs():
            return -1
        c = self.concealed
        singles = _odd_counts(c)
        spare = (self.wilds - singles) // 2
        quads = sum(1 for n in c if n >= 3)
        pairs = sum(1 for n in c if n in (1, 2))
        return quads + min(spare, pairs + (spare - min(spare, pairs)) // 2)

    def thirteen_orphans(self) -> bool:
        if self.melds or self.n_concealed != 14:
            return False
        return _thirteen(self.concealed)

    def is_win(self, forms: Forms = Forms()) -> bool:
        """Whether the tiles win in a form of ``forms`` (the standard one always);
        without wilds, :func:`plain_win`. With them too the native path answers where it
        is built (``libs/croupier/_accel_mahjong.c``: the same answer)."""
        if not self.wilds:
            return plain_win(self.concealed, len(self.melds), forms)
        if _native is not None:
            won = _native.mahjong_win(
                self.concealed,
                len(self.melds),
                forms.seven_pairs,
                forms.thirteen_orphans,
                self.wilds,
                self.caps(),
            )
            if won is not None:
                return bool(won)
        return (
            self.standard()
            or (forms.seven_pairs and self.seven_pairs())
            or (forms.thirteen_orphans and self.thirteen_orphans())
        )

    def waits(self, universe: Sequence[int], forms: Forms = Forms()) -> list[int]:
        """听牌: the tiles of ``universe`` that complete this 3k+1 hand (a tile already
        held four times, exposed copies included, cannot come and is left out)."""
        tot = self.real_totals()
        if _native is not None and not self.wilds:
            found = _native.mahjong_waits(
                self.concealed, len(self.melds), forms.seven_pairs, forms.thirteen_orphans
            )
            if found is not None:
                wins = set(found)
                return [t for t in universe if tot[t] < 4 and t in wins]
        plain = not self.wilds  # then a tile no set or pair can hold wins nothing
        return [
            t
            for t in universe
            if tot[t] < 4
            and not (plain and isolated(self.concealed, t, forms))
            and self.add(t).is_win(forms)
        ]
