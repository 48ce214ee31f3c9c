"""A tile's index read by one look-up of the 34 names (``tiles._INDEX``) is the index
its parse gives, for every name and for what is no tile (the same refusal)."""

from __future__ import annotations

import pytest

from croupier.errors import NotationError
from croupier.games.mahjong import tiles


def _read(name: str) -> int | str:
    try:
        return tiles.tile_index(name)
    except NotationError as e:
        return f"refused: {e}"


def test_the_names_look_up_what_the_parse_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    names = [f"{n}{s}" for n in "0123456789" for s in "mpszMPSZx "]
    names += [" 5p", "5p ", "", "m", "10m", "5", "pp", "🀄"]
    looked = [_read(n) for n in names]
    with monkeypatch.context() as m:
        m.setattr(tiles, "_INDEX", {})
        parsed = [_read(n) for n in names]
    assert looked == parsed
    assert sorted(tiles._INDEX.values()) == list(range(tiles.N_TILES))
    assert sum(isinstance(x, int) for x in looked) == 34 + 34 + 2  # case and spaces too
