"""Outbox rows by reference (revision 0013), on every backend: an item whose bytes the
relay holds is written with an empty payload and the reference to the events and seals
it is made of, which read back as they were stored; an item not held keeps its bytes; a
reference to events the store lacks is refused when read; the upgrade keeps the rows
written before it and the downgrade refuses while a row waits by reference."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager

import pytest
import sqlalchemy as sa
from alembic import command

from croupier.bus import wire
from croupier.errors import InvalidInput, NotFound
from croupier.events import Event, StreamWriter, heads_of, seal
from croupier.signing import Signer
from croupier.store import Outbox, OutboxItem, OutboxRef, Store, StreamInfo, migrate
from croupier.store import outbox as ob
from croupier.store.db import alembic_config


def _hand(signer: Signer, hand_id: str, n: int = 4) -> tuple[list[Event], StreamInfo]:
    w = StreamWriter(hand_id)
    for i in range(n):
        w.append(signer, "bet", {"seat": i, "amount": 100 + i})
    return w.take(), StreamInfo(hand_id, "hand", "baccarat", "t1", None, 1_000)


def _item(hand_id: str, events: list[Event], seals: list) -> OutboxItem:  # type: ignore[type-arg]
    return OutboxItem(
        "dealer",
        f"croupier.hand.baccarat.{hand_id}",
        f"hand:{hand_id}",
        wire.encode("hand", events, seals),
        OutboxRef.of("hand", events, seals),
    )


def test_a_held_item_is_written_by_reference_and_read_back(store: Store, dealer: Signer) -> None:
    store.put_key(dealer.public_entry())
    a, ia = _hand(dealer, "h1")
    b, ib = _hand(dealer, "h2")
    s = seal(dealer, heads_of([*a, *b]), 2_000)
    ia_item, ib_item = _item("h1", a, [s]), _item("h2", b, [s])
    with store.transaction() as tx:
        tx.append([*a, *b], [s], [ia, ib])
        ob.enqueue(tx.connection, [ia_item, ib_item], 5, held=frozenset({"hand:h1"}))
    outbox = Outbox(store.engine)
    by_id = {r.msg_id: r for r in outbox.pending("dealer")}
    held, kept = by_id["hand:h1"], by_id["hand:h2"]
    assert held.payload == b"" and held.ref == ia_item.ref
    assert kept.payload == ib_item.payload and kept.ref is None
    assert held.ref is not None and held.ref.to_text().startswith('{"from":0,')
    ((events, seals),) = outbox.referenced([held.ref])
    assert events == a and seals == [s]
    assert wire.encode(held.ref.kind, events, seals) == ia_item.payload  # the same bytes


def test_a_reference_to_what_the_store_lacks_is_refused(store: Store, dealer: Signer) -> None:
    store.put_key(dealer.public_entry())
    a, ia = _hand(dealer, "h1")
    s = seal(dealer, heads_of(a), 2_000)
    store.append(a, [s], [ia])
    outbox = Outbox(store.engine)
    beyond = OutboxRef("hand", "h1", 0, len(a), (s.seal_id,))  # one event too many
    with pytest.raises(NotFound, match="not stored"):
        outbox.referenced([beyond])
    with pytest.raises(NotFound, match="no seal"):
        outbox.referenced([OutboxRef("hand", "h1", 0, len(a) - 1, ("0" * 32,))])
    with pytest.raises(InvalidInput, match="malformed outbox reference"):
        OutboxRef.from_text('{"kind":"hand"}')
    with pytest.raises(InvalidInput, match="not empty"):
        outbox.enqueue([OutboxItem("dealer", "croupier.hand.baccarat.t1", "m", b"")], 1)


def test_upgrade_keeps_old_rows_and_downgrade_guards_rows_by_reference(
    engine_at_revision: Callable[[str], AbstractContextManager[sa.Engine]], dealer: Signer
) -> None:
    with engine_at_revision("0012") as eng:
        with eng.begin() as conn:
            conn.execute(
                sa.text(
                    "INSERT INTO outbox (producer, subject, msg_id, payload, created_at_ms) "
                    "VALUES ('dealer', 'croupier.hand.baccarat.t1', 'old', :p, 1)"
                ),
                {"p": b"{}"},
            )
        migrate(eng, "0013")
        outbox = Outbox(eng)
        (old,) = outbox.pending("dealer")
        assert (old.payload, old.ref) == (b"{}", None)
        store = Store(eng)
        store.put_key(dealer.public_entry())
        a, ia = _hand(dealer, "h1")
        s = seal(dealer, heads_of(a), 2_000)
        with store.transaction() as tx:
            tx.append(a, [s], [ia])
            ob.enqueue(tx.connection, [_item("h1", a, [s])], 5, held=frozenset({"hand:h1"}))
        with eng.connect() as conn, pytest.raises(RuntimeError, match="by reference"):
            command.downgrade(alembic_config(conn), "0012")
        assert len(outbox.pending("dealer")) == 2  # nothing changed
        outbox.delete([r for r in outbox.pending("dealer") if r.ref is not None])
        with eng.connect() as conn:
            command.downgrade(alembic_config(conn), "0012")
            conn.commit()
        with eng.connect() as conn:
            cols = {c["name"] for c in sa.inspect(conn).get_columns("outbox")}
        assert "ref" not in cols
