"""``is_card`` is ``parse_card(value) == value`` by one look-up: every two- and
three-character string over the cards' letters (either case, padded), jokers, and
values that are no string at all."""

from __future__ import annotations

import itertools

from croupier.cards import CARDS54, is_card, parse_card
from croupier.errors import NotationError


def _parses_to_itself(value: object) -> bool:
    try:
        return parse_card(str(value)) == value
    except NotationError:
        return False


def test_is_card_is_a_canonical_parse() -> None:
    letters = "A23456789TJQKtjqkashdcSHDCBRJbrj?x "
    texts = sorted({"".join(p) for n in (1, 2, 3) for p in itertools.product(letters, repeat=n)})
    for text in [*texts, "BJ", "RJ", " BJ", "bj", "10s", ""]:
        assert is_card(text) is _parses_to_itself(text), text
    for other in (None, 5, 1.5, b"As", ["As"], {"card": "As"}, ("As",)):
        assert is_card(other) is False
        assert _parses_to_itself(other) is False
    assert sum(map(is_card, texts)) == 54  # each card once, the jokers among them
    assert all(is_card(c) for c in CARDS54)
