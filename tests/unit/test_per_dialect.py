"""``per_dialect``: a statement a dialect writes itself, built once per database kind,
builder and arguments, and refused with a ``StoreError`` on a database Croupier does not
support (before anything is built)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.dialects import postgresql, sqlite

from croupier.errors import StoreError
from croupier.store import schema
from croupier.store.db import create_engine, per_dialect

BUILT: list[tuple[Any, tuple[Any, ...]]] = []


def _build(dialect: Any, *args: Any) -> Any:
    BUILT.append((dialect, args))
    return dialect.insert(schema.outbox).on_conflict_do_nothing(index_elements=["msg_id"])


class _Conn:
    """A connection as far as ``per_dialect`` reads one: its dialect's name."""

    def __init__(self, name: str) -> None:
        self.dialect = type("D", (), {"name": name})()


def test_built_once_per_dialect_builder_and_arguments(tmp_path: Path) -> None:
    BUILT.clear()
    eng = create_engine(f"sqlite:///{tmp_path / 'x.sqlite'}")
    with eng.connect() as c:
        first = per_dialect(c, _build)
        assert per_dialect(c, _build) is first
        other = per_dialect(c, _build, ("a", "b"))
        assert other is not first
        assert per_dialect(c, _build, ("a", "b")) is other
    pg = per_dialect(_Conn("postgresql"), _build)  # type: ignore[arg-type]
    assert pg is not first
    assert [(d, a) for d, a in BUILT] == [(sqlite, ()), (sqlite, (("a", "b"),)), (postgresql, ())]
    assert "ON CONFLICT (msg_id) DO NOTHING" in str(pg.compile(dialect=postgresql.dialect()))


def test_unsupported_database_refused_before_building() -> None:
    BUILT.clear()
    with pytest.raises(StoreError, match="unsupported database 'mysql'"):
        per_dialect(_Conn("mysql"), _build)  # type: ignore[arg-type]
    assert BUILT == []
