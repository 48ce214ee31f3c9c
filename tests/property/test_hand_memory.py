"""Hands remembered per rule set (:mod:`croupier.games.memo`) are the hands evaluated
afresh: 牛牛 (five cards), 三公 (three cards) and the 筒子 pair games (two tiles), under
every variant's rules, each hand evaluated once however often it is asked for, and the
memory bounded."""

from __future__ import annotations

import itertools
import random

import pytest

from croupier.cards import CARDS52
from croupier.games import memo
from croupier.games.niuniu import hands as niuniu
from croupier.games.registry import engine, variants
from croupier.games.sangong import hands as sangong
from croupier.games.tongzi import tiles as tongzi


def _rules(family: str, attr: str) -> list[object]:
    return [getattr(engine(v), attr) for v in variants() if v.startswith(family)]


def test_niuniu_hands_remembered_are_the_hands_evaluated() -> None:
    pick = random.Random(5)
    deck = list(CARDS52)
    for rules in _rules("niuniu", "hands"):
        assert isinstance(rules, niuniu.HandRules)
        rules.evaluated.clear()
        hands = [tuple(pick.sample(deck, 5)) for _ in range(3000)]
        for cards in hands + hands[:500]:
            got = niuniu.evaluate(list(cards), rules)
            assert got == niuniu._evaluate(cards, rules)
            assert niuniu.evaluate(cards, rules) is got


def test_sangong_hands_remembered_are_the_hands_evaluated() -> None:
    for rules in _rules("sangong", "hands"):
        assert isinstance(rules, sangong.HandRules)
        rules.evaluated.clear()
        for cards in itertools.permutations(("Kh", "Ks", "3d", "3c", "Qs"), 3):
            assert sangong.evaluate(list(cards), rules) == sangong._evaluate(cards, rules)
        for cards in itertools.combinations(CARDS52, 3):
            got = sangong.evaluate_unchecked(cards, rules)
            assert got == sangong._evaluate(cards, rules)


def test_tongzi_pairs_remembered_are_the_pairs_evaluated() -> None:
    for rules in _rules("erbagang", "tiles") + _rules("tuitongzi", "tiles"):
        assert isinstance(rules, tongzi.TileRules)
        rules.evaluated.clear()
        for pair in itertools.product(tongzi.TILES, repeat=2):
            got = rules.evaluate(list(pair))
            assert got == rules._evaluate(pair)
            assert rules.evaluate(pair) is got
        assert len(rules.evaluated) == len(tongzi.TILES) ** 2


def test_each_hand_is_evaluated_once_under_each_rule_set(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    made: list[tuple[str, ...]] = []
    fresh = niuniu._evaluate

    def counted(cards: tuple[str, ...], rules: niuniu.HandRules) -> niuniu.Hand:
        made.append(cards)
        return fresh(cards, rules)

    monkeypatch.setattr(niuniu, "_evaluate", counted)
    classic, hundred = (engine(v).hands for v in ("niuniu.classic", "niuniu.hundred"))
    for rules in (classic, hundred):
        rules.evaluated.clear()
    cards = ("Kh", "Qs", "Jd", "Th", "9c")
    for _ in range(4):
        niuniu.evaluate(cards, classic)
        niuniu.evaluate(list(cards), hundred)
    assert len(made) == 2  # once per rule set, not once per call


def test_the_memory_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(memo, "KEPT", 50)
    rules = engine("niuniu.classic").hands
    rules.evaluated.clear()
    deck = list(CARDS52)
    pick = random.Random(9)
    for _ in range(400):
        cards = pick.sample(deck, 5)
        assert niuniu.evaluate(cards, rules) == niuniu._evaluate(tuple(cards), rules)
        assert len(rules.evaluated) <= 50
