"""Revision 0016 replaces the indexes on ``streams.variant`` and ``streams.opened_at_ms``
by ``(variant, stream_id)`` and ``(opened_at_ms, stream_id)``: a variant's page and a
time window's page are then one range each. The streams stay as they were, the
listings answer as before, and the downgrade puts the single-column indexes back."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager

import sqlalchemy as sa
from alembic import command

from croupier.store import Store, StreamInfo, migrate, schema
from croupier.store.db import alembic_config, write_connection


def _indexes(engine: sa.Engine) -> dict[str, tuple[str, ...]]:
    insp = sa.inspect(engine)
    return {str(i["name"]): tuple(i["column_names"]) for i in insp.get_indexes("streams")}


def _streams(engine: sa.Engine) -> list[tuple[object, ...]]:
    s = schema.streams
    with engine.connect() as c:
        return [tuple(r) for r in c.execute(sa.select(s).order_by(s.c.stream_id))]


def test_the_paged_indexes_replace_the_single_column_ones(
    engine_at_revision: Callable[[str], AbstractContextManager[sa.Engine]],
) -> None:
    with engine_at_revision("0015") as eng:
        store = Store(eng)
        store.register_streams(
            [
                StreamInfo(
                    f"t{i % 3}_h{i}",
                    "hand",
                    "baccarat" if i % 2 else "dice",
                    f"t{i % 3}",
                    None,
                    1_000 + i,
                )
                for i in range(12)
            ]
        )
        before = _streams(eng)
        assert _indexes(eng)["ix_streams_variant"] == ("variant",)
        assert _indexes(eng)["ix_streams_opened_at_ms"] == ("opened_at_ms",)

        migrate(eng, "0016")
        ix = _indexes(eng)
        assert ix["ix_streams_variant_stream_id"] == ("variant", "stream_id")
        assert ix["ix_streams_opened_at_ms_stream_id"] == ("opened_at_ms", "stream_id")
        assert "ix_streams_variant" not in ix and "ix_streams_opened_at_ms" not in ix
        assert _streams(eng) == before
        assert [s.stream_id for s in store.list_streams(variant="dice", limit=3)] == [
            "t0_h0",
            "t0_h6",
            "t1_h10",
        ]
        assert list(store.hands_opened(1_003, 1_006)) == ["t0_h3", "t1_h4", "t2_h5"]

        with write_connection(eng) as conn:
            command.downgrade(alembic_config(conn), "0015")
        ix = _indexes(eng)
        assert ix["ix_streams_variant"] == ("variant",)
        assert ix["ix_streams_opened_at_ms"] == ("opened_at_ms",)
        assert "ix_streams_variant_stream_id" not in ix
        assert _streams(eng) == before
