"""多财多福 (``slots.duocai``): reel strips, pay lines, the paytable and one spin's result.

Source: ``000_d16ad353ba467b8a.txt``, 多财多福规则 (1、游戏流程 1-3; the combination
table of 2、连线玩法中奖组合 is an image the text does not carry, so the reels, lines
and paytable are the project's own design, stated in ``seeds/variants/slots.duocai.json``
and proved by :mod:`.probability`).

The machine: ``len(strips)`` reels, each a circular strip of symbols, showing ``rows``
consecutive symbols. A spin stops reel ``i`` at index ``s_i`` (the dealer's die for
that reel shows ``s_i + 1``; a die has as many faces as the strip has stops); row ``r``
of reel ``i`` then shows ``strips[i][(s_i + r) % len(strips[i])]``, row 0 on top. A pay
line picks one row per reel. A line pays for the run of equal symbols starting on the
leftmost reel: ``paytable[symbol][run length]`` line bets (0 when the table has no
entry); only the longest run counts, so three 福 pay the three-福 prize and not the
two-福 one as well. A spin pays the sum over its lines (当前游戏底分 x 组合倍数, with the
line bet as the 底分 of a line).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from croupier.errors import ConfigError, InvalidInput


@dataclass(frozen=True, slots=True, eq=False)
class Machine:
    """Strips, visible rows, pay lines and paytable (pays in line bets). Compared and
    hashed by identity (its exact odds are cached per machine)."""

    strips: tuple[tuple[str, ...], ...]
    rows: int
    lines: tuple[tuple[int, ...], ...]
    paytable: Mapping[str, Mapping[int, int]]  # symbol -> run length -> pay

    def __post_init__(self) -> None:
        reels = len(self.strips)
        if reels < 2 or self.rows < 1:
            raise ConfigError("slots: at least 2 reels and 1 row")
        for i, strip in enumerate(self.strips):
            if len(strip) < max(2, self.rows):
                raise ConfigError(f"slots: reel {i} has {len(strip)} stops, too few")
            unknown = set(strip) - set(self.paytable)
            if unknown:
                raise ConfigError(f"slots: reel {i} has symbols without pays: {sorted(unknown)}")
        if not self.lines:
            raise ConfigError("slots: no pay lines")
        for n, line in enumerate(self.lines):
            if len(line) != reels or any(not 0 <= r < self.rows for r in line):
                raise ConfigError(f"slots: line {n} must give one row 0..{self.rows - 1} per reel")
        if len(set(self.lines)) != len(self.lines):
            raise ConfigError("slots: a pay line is listed twice")
        for sym, pays in self.paytable.items():
            for run, pay in pays.items():
                if not 1 <= run <= reels or not isinstance(pay, int) or pay < 0:
                    raise ConfigError(f"slots: pay {sym} x{run} = {pay!r} is not valid")

    @property
    def faces(self) -> tuple[int, ...]:
        """The die faces of a spin: one die per reel, one face per stop."""
        return tuple(len(s) for s in self.strips)

    @property
    def combinations(self) -> int:
        n = 1
        for f in self.faces:
            n *= f
        return n

    def window(self, stops: Sequence[int]) -> tuple[tuple[str, ...], ...]:
        """The visible symbols, ``window[row][reel]``, for 0-based stop indices."""
        if len(stops) != len(self.strips) or any(
            not isinstance(s, int) or not 0 <= s < len(strip)
            for s, strip in zip(stops, self.strips, strict=False)
        ):
            raise InvalidInput(f"stops {list(stops)!r} do not fit reels of {list(self.faces)}")
        return tuple(
            tuple(strip[(s + r) % len(strip)] for s, strip in zip(stops, self.strips, strict=True))
            for r in range(self.rows)
        )

    def line_pay(self, symbols: Sequence[str]) -> tuple[int, int]:
        """(run length from the left, pay in line bets) of one line's symbols."""
        first = symbols[0]
        run = 1
        while run < len(symbols) and symbols[run] == first:
            run += 1
        return run, self.paytable[first].get(run, 0)

    def spin(self, stops: Sequence[int]) -> Spin:
        w = self.window(stops)
        wins = []
        for n, line in enumerate(self.lines):
            symbols = tuple(w[r][reel] for reel, r in enumerate(line))
            run, pay = self.line_pay(symbols)
            if pay:
                wins.append(LineWin(n, symbols, run, pay))
        return Spin(tuple(stops), w, tuple(wins))


@dataclass(frozen=True, slots=True)
class LineWin:
    line: int
    symbols: tuple[str, ...]
    run: int
    pay: int  # line bets


@dataclass(frozen=True, slots=True)
class Spin:
    stops: tuple[int, ...]
    window: tuple[tuple[str, ...], ...]
    wins: tuple[LineWin, ...]

    @property
    def pays(self) -> int:
        """What the spin pays, in line bets."""
        return sum(w.pay for w in self.wins)


def machine_from_config(raw: Mapping[str, object]) -> Machine:
    """Read ``reels.strips``, ``reels.rows``, ``lines.rows`` and ``paytable.<symbol>.pays``
    (run length as a string key -> pay) from a ``slots.*`` config."""
    try:
        reels = raw["reels"]
        lines = raw["lines"]
        table = raw["paytable"]
        assert isinstance(reels, Mapping) and isinstance(lines, Mapping)
        assert isinstance(table, Mapping)
        strips = tuple(tuple(str(x) for x in s) for s in reels["strips"])
        rows = int(reels["rows"])
        line_rows = tuple(tuple(int(r) for r in line) for line in lines["rows"])
        paytable = {
            str(sym): {int(k): int(v) for k, v in entry["pays"].items()}
            for sym, entry in table.items()
            if sym != "source"
        }
    except (KeyError, TypeError, ValueError, AssertionError, AttributeError) as e:
        raise ConfigError(f"slots config: {e!r}") from e
    return Machine(strips, rows, line_rows, paytable)
