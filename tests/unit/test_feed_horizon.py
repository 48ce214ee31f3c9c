"""The table feed's horizon: positions are handed out only once every lower position is
visible; a hole (a PostgreSQL position whose transaction has not committed, or never
will) holds the horizon until it fills or is older than the gap wait."""

from __future__ import annotations

from croupier.store import Horizon


def test_contiguous_positions_advance_at_once() -> None:
    h = Horizon(10, gap_wait_ms=1000)
    assert h.advance([11, 12, 13], now_ms=0) == 13
    assert h.advance([], now_ms=5) == 13


def test_a_hole_that_fills_is_never_skipped() -> None:
    h = Horizon(0, gap_wait_ms=1000)
    assert h.advance([1, 3, 4], now_ms=0) == 1  # 2 is allocated but not visible yet
    assert h.advance([3, 4], now_ms=999) == 1
    assert h.advance([2, 3, 4, 5], now_ms=1000) == 5  # it committed: nothing was lost
    assert h.holes == {}


def test_a_hole_older_than_the_wait_is_passed() -> None:
    h = Horizon(0, gap_wait_ms=1000)
    assert h.advance([1, 4], now_ms=0) == 1
    assert h.advance([4, 6], now_ms=500) == 1  # 5 is first seen now: its wait starts now
    assert h.advance([4, 6], now_ms=1000) == 4  # 2 and 3 were rolled back
    assert h.advance([6], now_ms=1499) == 4
    assert h.advance([6], now_ms=1500) == 6
    assert h.holes == {}
