"""Hand histories: face-down cards marked until turned up, and listed when never shown;
Chinese terms glossed once; times in the chosen zone; an unfinished hand said to be in
play; money formatting of exact fractions."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from zoneinfo import ZoneInfo

from croupier.export import load_script
from croupier.history import HandLog, render
from croupier.history.glossary import TERMS, gloss_first
from croupier.history.text import money

SCRIPTS = Path(__file__).resolve().parents[2] / "seeds" / "scripts"


def log_of(name: str) -> HandLog:
    sc = load_script((SCRIPTS / f"{name}.json").read_text(encoding="utf-8"))
    return HandLog(sc.hand_id, sc.events)


def test_a_hole_card_is_marked_until_the_dealer_turns_it_up() -> None:
    text = render(log_of("blackjack.multi"))
    dealt = text.index("Dealt to Dealer: [6c] (face down)")
    shown = text.index("Dealer shows [6c]")
    assert dealt < shown
    assert "Face down to the end" not in text


def test_cards_never_shown_are_listed_at_the_end() -> None:
    text = render(log_of("zhajinhua"))
    tail = text.split("Face down to the end (never shown at the table):", 1)[1]
    assert "Seat 3 (carol): [9s 7h 2c]" in tail.split("***", 1)[0]


def test_terms_are_glossed_once_and_citations_left_alone() -> None:
    text = render(log_of("niuniu.hundred"))
    assert text.count("牛牛 (niúniú,") == 1
    assert text.count("小牛牛 (xiǎo niúniú,") == 1
    assert all(
        "(" not in ln.split("source:", 1)[1][:3] for ln in text.splitlines() if "source:" in ln
    )
    lines = gloss_first(["a 牛牛", "source: 牛牛", "b 牛牛"], skip=("source:",))
    assert lines == [f"a 牛牛 ({TERMS['牛牛'][0]}, {TERMS['牛牛'][1]})", "source: 牛牛", "b 牛牛"]


def test_time_of_opening_in_the_chosen_zone() -> None:
    lg = log_of("baccarat_example")
    at = HandLog(lg.hand_id, lg.events, opened_at_ms=1_796_083_200_000)  # 2026-12-01 00:00 UTC
    assert "opened 2026-12-01T08:00:00+08:00" in render(at, time_zone=ZoneInfo("Asia/Shanghai"))


def test_a_hand_in_play() -> None:
    lg = log_of("holdem.must_bet")
    cut = next(i for i, (t, _) in enumerate(lg.events) if t == "action.taken")
    text = render(HandLog(lg.hand_id, lg.events[: cut + 1]))
    assert "*** NOT OVER ***" in text and "*** SETTLEMENT ***" not in text


def test_money() -> None:
    assert money(1234567) == "1,234,567"
    assert money(-950, sign=True) == "-950"
    assert money(0, sign=True) == "+0"
    assert money("20000/7") == "2,857 1/7"
    assert money(Fraction(-1, 3)) == "-0 1/3"


def test_bets_in_one_event_read_as_the_same_bets_one_by_one() -> None:
    """A hand whose bets are one ``bets.placed`` (as the dealer writes a call's bets)
    has the same history as the same hand with one ``bet.placed`` per bet (older logs):
    each bet on its own line, in order, and the same settlement."""
    single = log_of("baccarat")
    bets = [p for t, p in single.events if t == "bet.placed"]
    assert len(bets) >= 2
    first = next(i for i, (t, _) in enumerate(single.events) if t == "bet.placed")
    rest = [e for e in single.events[first:] if e[0] != "bet.placed"]
    one = HandLog(single.hand_id, (*single.events[:first], ("bets.placed", {"bets": bets}), *rest))
    text = render(single)
    assert render(one) == text
    assert text.count(" bets ") >= len(bets)
