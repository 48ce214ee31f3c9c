"""An outbox row's reference is parsed once per text: a relay reads a waiting row on each
pass until it is deleted, and gets the one frozen reference the text names; a malformed
text is refused each time."""

from __future__ import annotations

import pytest

from croupier.errors import InvalidInput
from croupier.store.outbox import OutboxRef


def test_a_text_read_again_gives_the_same_reference() -> None:
    ref = OutboxRef("hand", "t1_h9", 0, 7, ("s1", "s2"))
    text = ref.to_text()
    first = OutboxRef.from_text(text)
    assert first == ref and first.to_text() == text
    assert OutboxRef.from_text(str(text)) is first
    other = OutboxRef("hand", "t1_h9", 0, 8, ("s1", "s2"))
    assert OutboxRef.from_text(other.to_text()) == other != first


@pytest.mark.parametrize("text", ['{"kind":"hand"}', "not json", '{"kind":"hand","stream":"s",'])
def test_a_malformed_text_is_refused_every_time(text: str) -> None:
    for _ in range(2):
        with pytest.raises(InvalidInput):
            OutboxRef.from_text(text)


def test_a_subclass_parses_its_own() -> None:
    class Mine(OutboxRef):
        __slots__ = ()

    text = OutboxRef("hand", "t1_h1", 0, 1, ()).to_text()
    got = Mine.from_text(text)
    assert type(got) is Mine and got == Mine("hand", "t1_h1", 0, 1, ())
