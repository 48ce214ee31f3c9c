"""Money reports per day, variant and table, computed from the ledger.

Figures, in minor units, over the hands whose settle transaction falls on the day (in
the report's time zone) and was not voided:

* ``hands``    settle transactions;
* ``turnover`` the stakes of the settlement records (``staked``: what each player put at
  risk: bets, doubles, splits, pots);
* ``payouts``  what the records pay back (``returned``: stake plus win, never negative);
* ``ggr``      gross gaming revenue, the operator's side of the postings: minus the sum of
  the ``player:`` postings (= the ``house:`` postings plus the ``rake:`` postings);
* ``rake``     the sum of the ``rake:`` postings.

For games against the house, the empirical return to player per spot: each bet the
log records is one sample with its stake *s* and its return *r* (the stake
plus the profit the settlement record books on that spot for that player). RTP = Σr / Σs,
with a 95% confidence interval from the ratio estimator's variance (delta method):
``var = n/(n-1) · Σ(r − RTP·s)² / (Σs)²``. ``round`` is the same over each player's whole
hand (every spot, doubles, splits and insurance included) per unit of the stakes placed
with bets, and ``round_after_rake`` with the rake taken off; these match the families'
exact ``round`` figures where they define them (blackjack). The theoretical value beside
each is the family's exact RTP (``croupier rtp``) for that key, where it has one. Pure.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import date, datetime, time, timedelta, tzinfo
from fractions import Fraction
from typing import Any

from croupier.errors import InvalidInput

Z95 = 1.959963984540054
HOUSE = "house"


@dataclass
class TableDay:
    variant: str
    table_id: str
    hands: int = 0
    turnover: int = 0
    payouts: int = 0
    ggr: int = 0
    rake: int = 0


@dataclass
class SpotRtp:
    variant: str
    spot: str
    bets: int
    staked: int
    returned: int
    rtp: float | None
    ci_low: float | None
    ci_high: float | None
    theory: float | None

    @property
    def theory_inside(self) -> bool | None:
        """Whether the theoretical value lies inside the confidence interval."""
        if self.theory is None or self.ci_low is None or self.ci_high is None:
            return None
        return self.ci_low <= self.theory <= self.ci_high


@dataclass
class DayReport:
    day: str
    time_zone: str
    since_ms: int
    until_ms: int
    tables: list[TableDay] = field(default_factory=list)
    variants: list[TableDay] = field(default_factory=list)  # table_id "*"
    total: TableDay = field(default_factory=lambda: TableDay("*", "*"))
    spots: list[SpotRtp] = field(default_factory=list)

    def to_json_dict(self) -> dict[str, Any]:
        return {
            "day": self.day,
            "time_zone": self.time_zone,
            "since_ms": self.since_ms,
            "until_ms": self.until_ms,
            "units": "minor (1 point = 100)",
            "tables": [asdict(t) for t in self.tables],
            "variants": [asdict(t) for t in self.variants],
            "total": asdict(self.total),
            "rtp": [{**asdict(s), "theory_inside": s.theory_inside} for s in self.spots],
        }


def day_window(day: str, tz: tzinfo) -> tuple[int, int]:
    """``[since, until)`` in Unix ms of the calendar day ``YYYY-MM-DD`` in ``tz``."""
    try:
        d = date.fromisoformat(day)
    except ValueError as e:
        raise InvalidInput(f"day must be YYYY-MM-DD, got {day!r}") from e
    start = datetime.combine(d, time(0), tzinfo=tz)
    end = datetime.combine(d + timedelta(days=1), time(0), tzinfo=tz)
    return int(start.timestamp() * 1000), int(end.timestamp() * 1000)


@dataclass
class _Acc:
    n: int = 0
    s: int = 0
    r: int = 0
    samples: list[tuple[int, int]] = field(default_factory=list)

    def add(self, s: int, r: int) -> None:
        self.n += 1
        self.s += s
        self.r += r
        self.samples.append((s, r))

    def ratio(self) -> tuple[float | None, float | None, float | None]:
        if self.s <= 0:
            return None, None, None
        rtp = self.r / self.s
        if self.n < 2:
            return rtp, None, None
        ss = sum((r - rtp * s) ** 2 for s, r in self.samples)
        half = Z95 * math.sqrt(self.n / (self.n - 1) * ss) / self.s
        return rtp, rtp - half, rtp + half


def build(
    day: str,
    tz: tzinfo,
    hands: Iterable[Any],
    theory: Mapping[str, Mapping[str, Fraction]],
) -> DayReport:
    """The report of ``hands`` (:class:`croupier.store.reports.HandMoney`) on ``day``;
    ``theory`` maps a variant to its exact RTP per key."""
    since, until = day_window(day, tz)
    rep = DayReport(day, str(tz), since, until)
    tables: dict[tuple[str, str], TableDay] = {}
    accs: dict[tuple[str, str], _Acc] = defaultdict(_Acc)
    for h in hands:
        t = tables.setdefault((h.variant, h.table_id), TableDay(h.variant, h.table_id))
        rec = h.record
        t.hands += 1
        t.turnover += sum(int(v) for v in rec.get("staked", {}).values())
        t.payouts += sum(max(0, int(v)) for v in rec.get("returned", {}).values())
        t.ggr -= sum(a for acc, a in h.postings if acc.startswith("player:"))
        t.rake += sum(a for acc, a in h.postings if acc.startswith("rake:"))
        if HOUSE not in rec.get("participants", ()):
            continue
        profit: dict[tuple[str, str], int] = defaultdict(int)
        for line in rec.get("spots", []):
            profit[(str(line["participant"]), str(line["spot"]))] += int(line["amount"])
        stakes: dict[tuple[str, str], int] = defaultdict(int)
        for seat, spot, amount in h.bets:
            stakes[(h.players.get(seat, str(seat)), spot)] += amount
        placed: dict[str, int] = defaultdict(int)
        for (who, spot), s in stakes.items():
            accs[(h.variant, spot)].add(s, s + profit.get((who, spot), 0))
            placed[who] += s
        for who, s in placed.items():
            won = sum(v for (w, _), v in profit.items() if w == who)
            accs[(h.variant, "round")].add(s, s + won)
            rake = int(rec.get("rake", {}).get(who, 0))
            accs[(h.variant, "round_after_rake")].add(s, s + won - rake)
    rep.tables = [tables[k] for k in sorted(tables)]
    per_variant: dict[str, TableDay] = {}
    for t in rep.tables:
        v = per_variant.setdefault(t.variant, TableDay(t.variant, "*"))
        for acc in (v, rep.total):
            acc.hands += t.hands
            acc.turnover += t.turnover
            acc.payouts += t.payouts
            acc.ggr += t.ggr
            acc.rake += t.rake
    rep.variants = [per_variant[k] for k in sorted(per_variant)]
    order = {"round": 1, "round_after_rake": 2}
    for (variant, spot), a in sorted(
        accs.items(), key=lambda kv: (kv[0][0], order.get(kv[0][1], 0), kv[0][1])
    ):
        rtp, lo, hi = a.ratio()
        th = theory.get(variant, {}).get(spot)
        rep.spots.append(
            SpotRtp(
                variant, spot, a.n, a.s, a.r, rtp, lo, hi, float(th) if th is not None else None
            )
        )
    return rep


# -- output ---------------------------------------------------------------------------
def _pts(v: int) -> str:
    return f"{v / 100:,.2f}"


def _f(v: float | None, places: int = 4) -> str:
    return "-" if v is None else f"{v:.{places}f}"


def to_text(rep: DayReport) -> str:
    L = [
        f"Croupier day report {rep.day} ({rep.time_zone}); amounts in points "
        "(1 point = 100 minor units); from the ledger",
        "",
        f"{'variant':<24}{'table':<30}{'hands':>7}{'turnover':>16}{'payouts':>16}"
        f"{'GGR':>14}{'rake':>12}",
    ]
    for t in [*rep.tables, *rep.variants, rep.total]:
        L.append(
            f"{t.variant:<24}{t.table_id:<30}{t.hands:>7}{_pts(t.turnover):>16}"
            f"{_pts(t.payouts):>16}{_pts(t.ggr):>14}{_pts(t.rake):>12}"
        )
    if rep.spots:
        L += [
            "",
            "Return to player against the house (95% confidence interval; theory: exact)",
            f"{'variant':<24}{'spot':<18}{'bets':>7}{'staked':>16}{'RTP':>9}"
            f"{'95% CI':>19}{'theory':>9}",
        ]
        for s in rep.spots:
            ci = "-" if s.ci_low is None else f"{_f(s.ci_low)}..{_f(s.ci_high)}"
            L.append(
                f"{s.variant:<24}{s.spot:<18}{s.bets:>7}{_pts(s.staked):>16}{_f(s.rtp):>9}"
                f"{ci:>19}{_f(s.theory):>9}"
            )
    return "\n".join(L) + "\n"


def to_csv(rep: DayReport) -> str:
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(
        [
            "section",
            "day",
            "variant",
            "table",
            "hands",
            "turnover",
            "payouts",
            "ggr",
            "rake",
            "spot",
            "bets",
            "staked",
            "returned",
            "rtp",
            "ci_low",
            "ci_high",
            "theory",
        ]
    )
    for t in [*rep.tables, *rep.variants, rep.total]:
        w.writerow(
            [
                "money",
                rep.day,
                t.variant,
                t.table_id,
                t.hands,
                t.turnover,
                t.payouts,
                t.ggr,
                t.rake,
                "",
                "",
                "",
                "",
                "",
                "",
                "",
                "",
            ]
        )
    for s in rep.spots:
        w.writerow(
            [
                "rtp",
                rep.day,
                s.variant,
                "",
                "",
                "",
                "",
                "",
                "",
                s.spot,
                s.bets,
                s.staked,
                s.returned,
                _f(s.rtp, 6),
                _f(s.ci_low, 6),
                _f(s.ci_high, 6),
                _f(s.theory, 6),
            ]
        )
    return out.getvalue()


def render(rep: DayReport, fmt: str) -> str:
    if fmt == "json":
        return json.dumps(rep.to_json_dict(), indent=2, sort_keys=True) + "\n"
    if fmt == "csv":
        return to_csv(rep)
    if fmt == "text":
        return to_text(rep)
    raise InvalidInput(f"format is text, json or csv, not {fmt!r}")


__all__: Sequence[str] = ["DayReport", "SpotRtp", "TableDay", "build", "day_window", "render"]
