"""Exact RTP of the 多财多福 reels, by enumerating every stop combination.

Model: each reel stops uniformly on one of its stops (the dealer's fair die), the reels
independently, so each of the ``L1 x L2 x ... `` stop combinations has weight 1.
:func:`spin_odds` walks all of them (27,000 for the shipped 30-stop reels) through
:meth:`.reels.Machine.spin` and counts what each spin pays: the exact distribution of a
spin's pay (in line bets), the hit frequency, and the RTP
``E[pays] / lines`` (the stake is the line bet times the lines).

Independence cross-check (:func:`rtp_by_independence`): row ``r`` of reel ``i`` shows
``strip[(s_i + r) % L_i]``; with ``s_i`` uniform that symbol is distributed as the
strip's symbol counts over ``L_i`` whatever ``r`` is, and different reels are
independent. So every pay line, whatever rows it picks, has the same distribution, a
product over reels, and by linearity ``E[pays] = lines x E[one line's pay]``. The RTP
is therefore ``E[one line's pay]``, a sum over the paytable entries of products of
per-reel symbol frequencies: a run of exactly ``n < reels`` symbols ``x`` needs ``x``
on reels 1..n and not ``x`` on reel n+1. Both computations are exact Fractions; the
tests require them equal to each other and to the config's stated ``target_rtp``.
(The lines of one spin are not independent of each other, so the hit frequency and the
spin pay distribution need the enumeration.)

The double-up does not change the RTP of the spin stakes: see :mod:`.double_up`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from itertools import product

from croupier.games.slots.double_up import guess_rtp
from croupier.games.slots.reels import Machine


@dataclass(frozen=True)
class SpinOdds:
    combinations: int
    lines: int
    pays: Mapping[int, int]  # spin pay (line bets) -> how many stop combinations
    line_wins: Mapping[tuple[str, int], int]  # (symbol, run) -> winning lines over all spins

    @property
    def total_pay(self) -> int:
        return sum(p * n for p, n in self.pays.items())

    @property
    def rtp(self) -> Fraction:
        return Fraction(self.total_pay, self.combinations * self.lines)

    @property
    def hit_frequency(self) -> Fraction:
        return Fraction(self.combinations - self.pays.get(0, 0), self.combinations)

    @property
    def max_pay(self) -> int:
        return max(self.pays)


@cache
def spin_odds(machine: Machine) -> SpinOdds:
    pays: Counter[int] = Counter()
    wins: Counter[tuple[str, int]] = Counter()
    # Per reel and stop, the visible column; the pay of a line depends on one symbol per
    # reel, so cache line pays by symbol tuple.
    columns = [
        [tuple(strip[(s + r) % len(strip)] for r in range(machine.rows)) for s in range(len(strip))]
        for strip in machine.strips
    ]
    line_cache: dict[tuple[str, ...], tuple[int, int]] = {}
    for cols in product(*columns):
        total = 0
        for line in machine.lines:
            symbols = tuple(col[r] for col, r in zip(cols, line, strict=True))
            hit = line_cache.get(symbols)
            if hit is None:
                hit = line_cache[symbols] = machine.line_pay(symbols)
            run, pay = hit
            if pay:
                total += pay
                wins[(symbols[0], run)] += 1
        pays[total] += 1
    return SpinOdds(
        combinations=machine.combinations,
        lines=len(machine.lines),
        pays=dict(sorted(pays.items())),
        line_wins=dict(sorted(wins.items())),
    )


def rtp_by_independence(machine: Machine) -> Fraction:
    """``E[one line's pay]`` in line bets from per-reel symbol frequencies (module doc)."""
    freq = [
        {sym: Fraction(n, len(strip)) for sym, n in Counter(strip).items()}
        for strip in machine.strips
    ]
    reels = len(machine.strips)
    total = Fraction(0)
    for sym, pays in machine.paytable.items():
        for run, pay in pays.items():
            p = Fraction(1)
            for i in range(run):
                p *= freq[i].get(sym, Fraction(0))
            if run < reels:
                p *= 1 - freq[run].get(sym, Fraction(0))
            total += pay * p
    return total


def format_odds_table(machine: Machine, places: int = 6) -> str:
    o = spin_odds(machine)
    lines = [
        f"多财多福: {len(machine.strips)} reels x {machine.rows} rows, "
        f"{o.lines} lines, {o.combinations:,} stop combinations enumerated",
        f"  {'spin RTP':<26}{float(o.rtp):.{places}f}  ({o.rtp})",
        f"  {'hit frequency':<26}{float(o.hit_frequency):.{places}f}",
        f"  {'largest spin pay':<26}{o.max_pay} line bets",
        f"  {'double-up guess RTP':<26}{float(guess_rtp()):.{places}f}",
        "winning lines over all spins (symbol, run, pay, probability per line):",
    ]
    for (sym, run), n in o.line_wins.items():
        p = Fraction(n, o.combinations * o.lines)
        lines.append(f"  {sym:<10}{run:>3}{machine.paytable[sym][run]:>6}{float(p):>14.{places}f}")
    return "\n".join(lines)
