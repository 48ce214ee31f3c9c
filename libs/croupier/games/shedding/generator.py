"""The legal-move generator: every move a hand can make against the table's move, and
the automatic choice among them (托管: 000 斗地主 1.1.5, 加倍斗地主 1.1.7; 004 三人斗地主
9、玩家逃跑 and 百变双扣 5、玩家逃跑: auto-played to the end).

Moves are generated as rank multisets and then given concrete cards from the hand
(lowest suit first; a wild card only where the naturals run short), so two moves that
differ only in suits appear once. Chains of bombs (双扣) are listed with links of one
width; the detector also accepts links of several widths. Every generated
move reads as its declared shape (:func:`croupier.games.shedding.moves.readings`) and
beats the table's move; the tests check both for random hands and random games.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from itertools import combinations_with_replacement

from croupier.games.shedding.moves import (
    ACE,
    BIG_JOKER,
    BOMBS,
    CLASSIC,
    SMALL_JOKER,
    TWO,
    Kind,
    MoveRules,
    Play,
    Shape,
    beats,
    sort_cards,
    value_of,
)


def _multisets(
    avail: Counter[int], k: int, unit: int, exclude: set[int]
) -> Iterator[tuple[int, ...]]:
    """Multisets of ``k`` ranks (not in ``exclude``), each taken ``unit`` cards at a time,
    that ``avail`` can supply."""
    ranks = sorted(v for v, n in avail.items() if v not in exclude and n >= unit)
    for combo in combinations_with_replacement(ranks, k):
        need = Counter(combo)
        if all(avail[v] >= unit * m for v, m in need.items()):
            yield combo


Take = tuple[Shape, Counter[int], int]
"""A shape, the natural ranks it takes (as counts) and how many wild cards."""


def _fill(c: Counter[int], ranks: Sequence[int], each: int) -> tuple[Counter[int], int]:
    """Naturals first, wild cards for the rest: ``each`` cards of every rank."""
    take = Counter({v: min(c[v], each) for v in ranks})
    return +take, each * len(ranks) - sum(take.values())


def _kicker_shapes(c: Counter[int], rules: MoveRules) -> Iterator[Take]:
    """三带一/三带二, 四带二, 飞机带翅膀 (斗地主; no wild card)."""
    for v in sorted(c):
        n = c[v]
        if n >= 3:
            for (w,) in _multisets(c, 1, 1, {v}):
                yield Shape(Kind.TRIO_SINGLE, v), Counter({v: 3, w: 1}), 0
            for (w,) in _multisets(c, 1, 2, {v}):
                yield Shape(Kind.TRIO_PAIR, v), Counter({v: 3, w: 2}), 0
        if n == 4:
            for combo in _multisets(c, 2, 1, {v}):
                yield Shape(Kind.FOUR_TWO_SINGLES, v), Counter({v: 4}) + Counter(combo), 0
            for combo in _multisets(c, 2, 2, {v}):
                take = Counter({v: 4})
                for w in combo:
                    take[w] += 2
                yield Shape(Kind.FOUR_TWO_PAIRS, v), take, 0
    for start in range(3, ACE + 1):
        end = start
        while end <= ACE and c[end] >= 3:
            length = end - start + 1
            if length >= rules.min_trio_straight:
                body = Counter(dict.fromkeys(range(start, end + 1), 3))
                exclude = set(range(start, end + 1))
                for combo in _multisets(c, length, 1, exclude):
                    yield Shape(Kind.AIRPLANE_SINGLES, start, length), body + Counter(combo), 0
                for combo in _multisets(c, length, 2, exclude):
                    take = Counter(body)
                    for w in combo:
                        take[w] += 2
                    yield Shape(Kind.AIRPLANE_PAIRS, start, length), take, 0
            end += 1


def _shapes(c: Counter[int], wilds: int, rules: MoveRules) -> Iterator[Take]:
    """Every shape ``c`` (natural ranks) and ``wilds`` wild cards can supply. Wild cards
    fill in only what the naturals lack; a chain of bombs is listed with links of one
    width (the validator also takes links of several widths)."""
    kinds = rules.kinds
    wild = rules.wild
    jokers = Counter({v: c[v] for v in (SMALL_JOKER, BIG_JOKER) if c[v]})
    if wild is not None and wilds:
        jokers[value_of(wild)] += wilds
    # jokers by themselves: singles, pairs of one joker, the rocket, 三王/天王
    for v, n in sorted(jokers.items()):
        yield Shape(Kind.SINGLE, v), Counter({v: 1}), 0
        if n >= 2:
            yield Shape(Kind.PAIR, v), Counter({v: 2}), 0
    if Kind.ROCKET in kinds and c[SMALL_JOKER] and c[BIG_JOKER]:
        yield Shape(Kind.ROCKET, BIG_JOKER), Counter({SMALL_JOKER: 1, BIG_JOKER: 1}), 0
    n_jokers = sum(jokers.values())
    if Kind.JOKERS in kinds:
        for width in (3, 4):
            if n_jokers >= width:
                take: Counter[int] = Counter()
                for v in (SMALL_JOKER, BIG_JOKER):
                    take[v] = min(jokers[v], width - sum(take.values()))
                yield Shape(Kind.JOKERS, BIG_JOKER, 1, width), +take, 0
    # one rank: pair, trio, bombs (wilds fill in)
    for v in sorted(x for x in c if x <= TWO):
        have = c[v] + wilds
        for k, kind in ((1, Kind.SINGLE), (2, Kind.PAIR), (3, Kind.TRIO)):
            if have >= k and kind in kinds:
                take, used = _fill(c, [v], k)
                yield Shape(kind, v), take, used
        top = have if rules.max_bomb is None else min(have, rules.max_bomb)
        if Kind.BOMB in kinds:
            for k in range(4, top + 1):
                take, used = _fill(c, [v], k)
                yield Shape(Kind.BOMB, v, 1, k), take, used
    # chains
    for unit, kind in ((1, Kind.STRAIGHT), (2, Kind.PAIR_STRAIGHT), (3, Kind.TRIO_STRAIGHT)):
        if kind not in kinds:
            continue
        for start in range(3, ACE + 1):
            for end in range(start + rules.min_links(unit) - 1, ACE + 1):
                ranks = range(start, end + 1)
                take, used = _fill(c, ranks, unit)
                if used > wilds:
                    break
                yield Shape(kind, start, len(ranks)), take, used
    if Kind.BOMB_CHAIN in kinds:
        for start in range(3, ACE + 1):
            for end in range(start + rules.min_bomb_chain - 1, ACE + 1):
                ranks = range(start, end + 1)
                width = 4
                while True:
                    take, used = _fill(c, ranks, width)
                    if used > wilds:
                        break
                    yield (
                        Shape(Kind.BOMB_CHAIN, start, len(ranks), width, width * len(ranks)),
                        (take),
                        used,
                    )
                    width += 1
                if width == 4:
                    break
    if not wilds:
        for t in _kicker_shapes(c, rules):
            if t[0].kind in kinds:
                yield t


def _cards_for(
    hand: Sequence[str], take: Counter[int], wilds: int, wild: str | None
) -> tuple[str, ...]:
    left = Counter(take)
    out = []
    for card in sort_cards(hand):
        if card == wild and not take[value_of(card)]:
            continue
        v = value_of(card)
        if left[v]:
            out.append(card)
            left[v] -= 1
    if wild is not None:
        out += [wild] * wilds
    return tuple(sort_cards(out))


def legal_moves(hand: Sequence[str], table: Shape | None, rules: MoveRules = CLASSIC) -> list[Play]:
    """Every play ``hand`` can make on ``table`` (None: leading, any move), one per
    shape and rank multiset, in a fixed order. Passing is not listed (it is open whenever
    ``table`` is not None)."""
    wild = rules.wild
    wilds = sum(1 for x in hand if x == wild) if wild is not None else 0
    c = Counter(value_of(x) for x in hand if x != wild or wild is None)
    seen: set[tuple[Shape, tuple[tuple[int, int], ...], int]] = set()
    out = []
    for shape, take, used in _shapes(c, wilds, rules):
        if table is not None and not beats(shape, table, rules):
            continue
        ident = (shape, tuple(sorted(take.items())), used)
        if ident in seen:
            continue
        seen.add(ident)
        out.append(Play(shape, _cards_for(hand, take, used, wild)))
    return out


def _lead_rank(p: Play) -> tuple[int, int, int]:
    bomb = 1 if p.shape.kind in BOMBS else 0
    return (bomb, p.shape.key, -len(p.cards))


def choose(
    hand: Sequence[str],
    table: Shape | None,
    *,
    partner_on_table: bool = False,
    opponent_cards_left: int = 20,
    rules: MoveRules = CLASSIC,
) -> Play | None:
    """The automatic move (托管): go out if one move can; leading, shed the lowest rank in
    the longest combination it forms (bombs last); following, pass on the partner's
    play, else the lowest move that beats the table without a bomb, a bomb or the rocket
    only when the opponent who played is down to 4 cards or fewer; None is a pass."""
    moves = legal_moves(hand, table, rules)
    for p in moves:
        if len(p.cards) == len(hand):
            return p
    if table is None:
        return min(moves, key=_lead_rank)
    if partner_on_table or not moves:
        return None
    plain = [p for p in moves if p.shape.kind not in BOMBS]
    if plain:
        return min(plain, key=lambda p: p.shape.key)
    if opponent_cards_left <= 4:
        return min(moves, key=_lead_rank)
    return None
