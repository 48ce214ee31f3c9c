"""Side pots (主池 / 边池) for showdown games: 000 必下德州规则 items 5-6 and 结算例子,
001 德州2+3 下注规则 4、全押.

Rules, in order:

1. **Uncalled chips.** The part of the largest contribution that nobody else matched
   (largest minus second largest, folded players included) goes back to its owner
   before any pot is made (the seed's 必下德州 example lists D's unmatched 800 as
   "边池三" won by D alone; returning it gives the same figures).
2. **One pot per all-in level.** The distinct contributions of players still in the hand
   are the levels; pot *k* holds, from every player including those who folded, the
   chips between level *k-1* and level *k*. A pot is contested by the players still in
   the hand who reached its level. Folded players' chips stay in the pots they
   reached; chips a folded player put in above every live level go to the last pot.
3. **Best hand per pot.** The caller gives each live player a comparable strength
   (higher wins: ints, tuples, or anything ordered by ``<``); the pot goes to the
   highest among those eligible, ties split it equally.
4. **Odd units.** When a split leaves ``r`` units over, the first ``r`` winners counted
   clockwise from the button (the first seat after the button first) get one unit
   each. Seats are passed in clockwise order; ``button`` names the button's seat.
5. **Rake** on each player's net profit for the hand (won + returned - contributed),
   truncated, optional cap (:mod:`~croupier.money.rake`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, Protocol

from croupier.errors import InvalidInput
from croupier.money.rake import NO_RAKE, RakePolicy, rake_on_profits
from croupier.money.record import PotRecord, PotsStep, RakeStep, SettlementResult

RULE_SIDE_POTS: Final = "side_pots"
SOURCE_SIDE_POTS: Final = "000 必下德州规则 基本规则 5-6 and 结算例子; 001 德州2+3 下注规则 4、全押"
ODD_UNIT_RULE: Final = (
    "split pots: units left over go one each to the winners in clockwise order starting "
    "with the first seat after the button"
)


class Strength(Protocol):
    """A hand strength: anything ordered by ``<`` (higher is better)."""

    def __lt__(self, other: Any, /) -> bool: ...


@dataclass(frozen=True, slots=True)
class PotSeat:
    """One seat at showdown: what ``participant`` put in over the whole hand, whether
    they folded, and (if still in) their hand ``strength``."""

    participant: str
    contributed: int
    strength: Strength | None = None
    folded: bool = False


@dataclass(frozen=True, slots=True)
class Pot:
    """A pot as built from contributions, before it is awarded."""

    amount: int
    level: int
    contributions: tuple[tuple[str, int], ...]
    eligible: tuple[str, ...]


def _validate(seats: Sequence[PotSeat]) -> None:
    seen: set[str] = set()
    any_live = False
    for s in seats:
        if type(s) is not PotSeat:
            raise InvalidInput(f"not a PotSeat: {s!r}")
        pid = s.participant
        if type(pid) is not str or not pid:
            raise InvalidInput(f"participant ids must be non-empty strings, got {pid!r}")
        if pid in seen:
            raise InvalidInput(f"{pid!r} sits twice")
        seen.add(pid)
        c = s.contributed
        if type(c) is not int:
            raise InvalidInput(f"contribution of {pid!r} must be an int of minor units")
        if c < 0:
            raise InvalidInput(f"contribution of {pid!r} must not be negative")
        if not s.folded:
            any_live = True
    if not any_live:
        raise InvalidInput("at least one player must still be in the hand")


_Layer = tuple[int, int, list[tuple[int, int]], list[int]]
"""level, amount, [(seat index, chips)], [eligible seat indices]"""


def _layers(c: list[int], live: list[bool]) -> tuple[list[_Layer], int, int]:
    """Pots by seat index. Returns the layers, the seat whose uncalled chips come back
    (-1 if none) and how many. Rules 1-2 of the module docstring."""
    n = len(c)
    top = max(c) if n else 0
    i_top = -1
    back = 0
    if top:
        i_top = c.index(top)
        second = 0
        for i in range(n):
            if i != i_top and c[i] > second:
                second = c[i]
        if second < top:
            back = top - second
            c[i_top] = second
        else:
            i_top = -1
    levels = sorted({c[i] for i in range(n) if live[i] and c[i] > 0})
    if not levels:
        if not any(c):
            return [], i_top, back
        # Live players put nothing in: all chips make one pot for them.
        parts = [(i, c[i]) for i in range(n) if c[i]]
        return [(max(c), sum(c), parts, [i for i in range(n) if live[i]])], i_top, back
    layers: list[_Layer] = []
    prev = 0
    for level in levels:
        parts = []
        amount = 0
        eligible = []
        for i in range(n):
            ci = c[i]
            if ci > prev:
                x = (ci if ci < level else level) - prev
                amount += x
                parts.append((i, x))
                if ci >= level and live[i]:
                    eligible.append(i)
        layers.append((level, amount, parts, eligible))
        prev = level
    extra = [(i, c[i] - prev) for i in range(n) if c[i] > prev]
    if extra:
        level, amount, parts, eligible = layers[-1]
        merged = dict(parts)
        for i, x in extra:
            merged[i] = merged.get(i, 0) + x
            amount += x
        layers[-1] = (level, amount, sorted(merged.items()), eligible)
    return layers, i_top, back


def build_pots(seats: Sequence[PotSeat]) -> tuple[tuple[Pot, ...], dict[str, int]]:
    """Rules 1-2: the pots, main first, and the uncalled chips returned per player."""
    _validate(seats)
    ids = [s.participant for s in seats]
    layers, i_top, back = _layers([s.contributed for s in seats], [not s.folded for s in seats])
    pots = tuple(
        Pot(amount, level, tuple((ids[i], x) for i, x in parts), tuple(ids[i] for i in eligible))
        for level, amount, parts, eligible in layers
    )
    return pots, ({ids[i_top]: back} if back else {})


def settle_pots(
    seats: Sequence[PotSeat],
    *,
    button: str | None = None,
    rake: RakePolicy = NO_RAKE,
    hand_id: str = "",
) -> SettlementResult:
    """Settle a showdown with side pots (rules 1-5 of the module docstring).

    ``seats`` in clockwise order; ``button`` the participant on the button (``None``:
    the first seat in ``seats`` is the first after the button). Returns deltas after
    rake, the pots with their winners and shares, and the record steps."""
    _validate(seats)
    n = len(seats)
    ids = [s.participant for s in seats]
    if button is None:
        start = 0
    else:
        if button not in ids:
            raise InvalidInput(f"button {button!r} is not at the table")
        start = (ids.index(button) + 1) % n
    contributed = [s.contributed for s in seats]
    live = [not s.folded for s in seats]
    strengths = [s.strength for s in seats]
    layers, i_top, back = _layers(list(contributed), live)
    got = [0] * n
    if back:
        got[i_top] = back
    records: list[PotRecord] = []
    for k, (level, amount, parts, eligible) in enumerate(layers):
        if len(eligible) == 1:
            winners = eligible
        else:
            ranked: list[Strength] = []
            for i in eligible:
                st = strengths[i]
                if st is None:
                    raise InvalidInput(f"{ids[i]!r} is still in the hand but has no strength")
                ranked.append(st)
            best = ranked[0]
            for st in ranked:
                if best < st:
                    best = st
            winners = [i for i, st in zip(eligible, ranked, strict=True) if not st < best]
            if start and len(winners) > 1:
                winners = [i for i in winners if i >= start] + [i for i in winners if i < start]
        q, r = divmod(amount, len(winners))
        shares = []
        for j, i in enumerate(winners):
            share = q + 1 if j < r else q
            got[i] += share
            shares.append((ids[i], share))
        w_ids = tuple([ids[i] for i in winners])
        records.append(
            PotRecord(
                k,
                amount,
                level,
                tuple([(ids[i], x) for i, x in parts]),
                tuple([ids[i] for i in eligible]),
                w_ids,
                tuple(shares),
                w_ids[:r],
            )
        )
    profits = {ids[i]: got[i] - contributed[i] for i in range(n)}
    if rake.by_unit:
        raise InvalidInput("side pots are raked on each winner's net profit (basis net)")
    rakes = rake_on_profits(profits, rake)
    total_rake = sum(rakes.values())
    deltas = {who: profits[who] - rakes[who] for who in ids}
    staked = tuple(zip(ids, contributed, strict=True))
    pots_step = PotsStep(
        RULE_SIDE_POTS,
        SOURCE_SIDE_POTS,
        ODD_UNIT_RULE,
        staked,
        tuple(ids[i] for i in range(n) if not live[i]),
        ((ids[i_top], back),) if back else (),
        tuple(records),
    )
    r_step = RakeStep(
        rake.rule,
        rake.source,
        rake.rate,
        rake.cap,
        tuple(sorted(rake.exempt)),
        tuple(profits.items()),
        tuple(rakes.items()),
    )
    return SettlementResult(
        hand_id=hand_id,
        participants=tuple(ids),
        deltas=deltas,
        rake=rakes,
        total_rake=total_rake,
        steps=(pots_step, r_step),
        pots=tuple(records),
        staked=dict(staked),
        returned=dict(zip(ids, got, strict=True)),
    )
