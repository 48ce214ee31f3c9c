"""The day report's arithmetic (croupier.report) on hands built by hand: the money
figures, the per-spot RTP and its 95% interval against an independent computation, the
day window in a time zone, and the three output formats."""

from __future__ import annotations

import csv
import io
import json
import math
from datetime import UTC, datetime
from fractions import Fraction
from zoneinfo import ZoneInfo

import pytest

from croupier import report
from croupier.errors import InvalidInput
from croupier.store.reports import HandMoney


def ms(*a: int) -> int:
    return int(datetime(*a, tzinfo=UTC).timestamp() * 1000)


def test_day_window_follows_the_time_zone() -> None:
    assert report.day_window("2026-12-01", UTC) == (ms(2026, 12, 1), ms(2026, 12, 2))
    # Shanghai is UTC+8: its 1 December runs from 16:00 UTC on 30 November
    assert report.day_window("2026-12-01", ZoneInfo("Asia/Shanghai")) == (
        ms(2026, 11, 30, 16),
        ms(2026, 12, 1, 16),
    )
    with pytest.raises(InvalidInput, match="YYYY-MM-DD"):
        report.day_window("1/12/2026", UTC)


def house_hand(n: int, stake: int, profit: int, rake: int = 0) -> HandMoney:
    """alice stakes ``stake`` on banker and wins ``profit`` (negative: loses)."""
    returned = max(0, stake + profit)
    return HandMoney(
        hand_id=f"h{n}",
        variant="baccarat",
        table_id="t1",
        settled_at_ms=ms(2026, 12, 1, 1),
        record={
            "participants": ["alice", "house"],
            "staked": {"alice": stake},
            "returned": {"alice": returned},
            "rake": {"alice": rake, "house": 0},
            "spots": [
                {"participant": "alice", "spot": "banker", "amount": profit},
                {"participant": "house", "spot": "banker", "amount": -profit},
            ],
        },
        postings=[("house:baccarat", -(profit - rake)), ("player:alice", profit - rake)]
        + ([("rake:baccarat", rake)] if rake else []),
        players={1: "alice"},
        bets=[(1, "banker", stake)],
    )


def p2p_hand(n: int) -> HandMoney:
    return HandMoney(
        hand_id=f"p{n}",
        variant="holdem.must_bet",
        table_id="t9",
        settled_at_ms=ms(2026, 12, 1, 2),
        record={
            "participants": ["a", "b"],
            "staked": {"a": 400, "b": 200},
            "returned": {"a": 600, "b": 0},
            "rake": {"a": 10, "b": 0},
            "spots": [],
        },
        postings=[("player:a", 190), ("player:b", -200), ("rake:holdem.must_bet", 10)],
    )


def test_money_and_rtp_with_its_interval() -> None:
    samples = [(1000, 1000), (2000, -2000), (500, 475), (1500, -1500), (1000, 1000)]
    hands = [house_hand(i, s, p) for i, (s, p) in enumerate(samples)] + [p2p_hand(1)]
    rep = report.build("2026-12-01", UTC, hands, {"baccarat": {"banker": Fraction(9854, 10000)}})
    t = {(x.variant, x.table_id): x for x in rep.tables}
    bac = t[("baccarat", "t1")]
    assert bac.hands == 5
    assert bac.turnover == 6000
    assert bac.payouts == 2000 + 0 + 975 + 0 + 2000
    assert bac.ggr == -(1000 - 2000 + 475 - 1500 + 1000) and bac.rake == 0
    hol = t[("holdem.must_bet", "t9")]
    assert (hol.turnover, hol.payouts, hol.ggr, hol.rake) == (600, 600, 10, 10)
    assert rep.total.ggr == bac.ggr + 10 and rep.total.hands == 6
    spots = {(s.variant, s.spot): s for s in rep.spots}
    assert not any(v == "holdem.must_bet" for v, _ in spots)  # no house, no RTP
    b = spots[("baccarat", "banker")]
    s_ = [s for s, _ in samples]
    r_ = [s + p for s, p in samples]
    rtp = sum(r_) / sum(s_)
    n = len(s_)
    var = n / (n - 1) * sum((r - rtp * s) ** 2 for s, r in zip(s_, r_, strict=True)) / sum(s_) ** 2
    assert b.rtp == pytest.approx(rtp)
    assert b.ci_low == pytest.approx(rtp - 1.959964 * math.sqrt(var), abs=1e-6)
    assert b.ci_high == pytest.approx(rtp + 1.959964 * math.sqrt(var), abs=1e-6)
    assert b.theory == pytest.approx(0.9854) and b.theory_inside is True
    assert (b.bets, b.staked, b.returned) == (5, 6000, sum(r_))
    rnd = spots[("baccarat", "round")]
    assert rnd.rtp == pytest.approx(rtp) and rnd.theory is None


def test_one_bet_has_no_interval_and_rake_lowers_round_after_rake() -> None:
    rep = report.build("2026-12-01", UTC, [house_hand(1, 1000, 1000, rake=50)], {})
    spots = {s.spot: s for s in rep.spots}
    assert spots["banker"].ci_low is None and spots["banker"].rtp == 2.0
    assert spots["round_after_rake"].rtp == pytest.approx(1.95)
    assert rep.tables[0].ggr == -950 and rep.tables[0].rake == 50


def test_formats() -> None:
    rep = report.build("2026-12-01", UTC, [house_hand(1, 1000, -1000), p2p_hand(2)], {})
    j = json.loads(report.render(rep, "json"))
    assert j["total"]["hands"] == 2 and j["units"].startswith("minor")
    rows = list(csv.reader(io.StringIO(report.render(rep, "csv"))))
    assert rows[0][0] == "section" and sum(r[0] == "money" for r in rows) == 2 + 2 + 1
    text = report.render(rep, "text")
    assert "holdem.must_bet" in text and "Return to player" in text
    with pytest.raises(InvalidInput):
        report.render(rep, "xml")
