"""``croupier.store.db.row_values``: the values the driver gets for each row, in the
statement's column order, whatever order the mapping holds them in."""

from __future__ import annotations

from types import MappingProxyType

import pytest

from croupier.store.db import row_values


def test_each_row_gives_its_values_in_the_columns_order() -> None:
    rows = [{"b": 2, "a": 1, "c": None}, MappingProxyType({"a": "x", "c": b"z", "b": 0})]
    assert row_values(rows, ("a", "b", "c")) == [(1, 2, None), ("x", 0, b"z")]
    assert row_values(rows, ("c", "a")) == [(None, 1), (b"z", "x")]


def test_one_column_is_still_a_tuple_a_row() -> None:
    assert row_values([{"a": (1, 2)}, {"a": 3}], ("a",)) == [((1, 2),), (3,)]


def test_no_rows_and_a_missing_column() -> None:
    assert row_values([], ("a", "b")) == []
    with pytest.raises(KeyError):
        row_values([{"a": 1}], ("a", "b"))
