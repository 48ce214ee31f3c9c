"""The store contract: one suite, run against every configured backend.

Each test receives a freshly migrated database (see ``conftest.py``): SQLite always,
PostgreSQL as well when ``CROUPIER_TEST_DATABASE_URL`` is set. Events and seals are real
ones, built with :class:`croupier.events.StreamWriter` and signed by a generated dealer
key.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from croupier import canonical
from croupier.errors import (
    ChainError,
    DuplicateEvent,
    IdempotencyConflict,
    InvalidInput,
    MoneyError,
    NotFound,
)
from croupier.events import (
    GENESIS,
    Event,
    Seal,
    SealVerifier,
    StreamWriter,
    first_error,
    heads_of,
    make_event,
    seal,
    verify_chain,
)
from croupier.signing import FOREVER, Signer
from croupier.store import (
    AppendResult,
    LedgerTx,
    Posting,
    RakeTotal,
    SealRows,
    Settlement,
    Store,
    StreamInfo,
    current_revision,
    head_revisions,
    schema,
)
from croupier.store.secrets import SeedBox

REPO = Path(__file__).resolve().parents[2]


# --------------------------------------------------------------------------- helpers


BOX = SeedBox(b"\x05" * 32)  # the dealer's seed key


def info(
    stream_id: str,
    *,
    table: str = "t1",
    variant: str = "baccarat",
    at: int = 1_000,
    kind: str = "hand",
    shoe: str | None = None,
) -> StreamInfo:
    return StreamInfo(stream_id, kind, variant, table, shoe, at)


def events_for(
    signer: Signer, stream_id: str, n: int, *, start: Event | None = None
) -> list[Event]:
    w = StreamWriter(stream_id) if start is None else StreamWriter.resume([start])
    for i in range(n):
        w.append(
            signer,
            "card" if i % 2 else "bet",
            {"i": w.next_seq, "card": "As", "seat": i % 8, "名字": "玩家", "amount": 10**15 + i},
        )
    return w.take()


def settle_tx(
    hand_id: str, *, lose: int = 100, rake: int = 5, variant: str = "baccarat"
) -> LedgerTx:
    return LedgerTx(
        idempotency_key=f"settle:{hand_id}",
        hand_id=hand_id,
        postings=(
            Posting("player:alice", -lose),
            Posting("player:bob", lose - rake),
            Posting(f"rake:{variant}", rake),
        ),
        memo={"variant": variant},
    )


def full_hand(store: Store, signer: Signer, hand_id: str = "h1", n: int = 6) -> list[Event]:
    evs = events_for(signer, hand_id, n)
    with store.transaction() as uow:
        uow.append(evs, [seal(signer, heads_of(evs), 2_000)], [info(hand_id)])
        uow.settle(settle_tx(hand_id), "baccarat", "t1", {"hand": hand_id, "steps": []}, 3_000)
    return evs


def raw(store: Store, sql: str) -> None:
    with store.engine.begin() as conn:
        conn.exec_driver_sql(sql)


def table_count(store: Store, table: str) -> int:
    with store.engine.connect() as conn:
        return int(conn.exec_driver_sql(f"SELECT count(*) FROM {table}").scalar_one())


# --------------------------------------------------------------------------- migrations


def test_migrations_have_exactly_one_head(store: Store) -> None:
    (head,) = head_revisions()
    assert current_revision(store.engine) == head


def test_migrated_schema_matches_metadata(store: Store) -> None:
    with store.engine.connect() as conn:
        ctx = MigrationContext.configure(conn, opts={"compare_type": True})
        assert compare_metadata(ctx, schema.metadata) == []

        # The comparison is not vacuous: a model change is reported.
        drifted = sa.MetaData()
        for t in schema.metadata.sorted_tables:
            t.to_metadata(drifted)
        sa.Table("extra", drifted, sa.Column("x", sa.Integer, primary_key=True))
        drifted.tables["events"].append_column(sa.Column("extra_col", sa.Integer))
        diffs = compare_metadata(ctx, drifted)
        kinds = {d[0] for d in diffs if isinstance(d, tuple)}
        assert {"add_table", "add_column"} <= kinds


def test_alembic_cli_upgrade_and_check(backend: str, tmp_path: Path, store: Store) -> None:
    if backend == "sqlite":
        url = f"sqlite:///{tmp_path / 'cli.sqlite'}"
    else:
        schema_name = f"croupier_cli_{uuid.uuid4().hex[:12]}"
        raw(store, f'CREATE SCHEMA "{schema_name}"')
        base = os.environ["CROUPIER_TEST_DATABASE_URL"]
        url = base + ("&" if "?" in base else "?") + f"options=-csearch_path%3D{schema_name}"
    env = {**os.environ, "CROUPIER_DATABASE_URL": url}
    alembic = [sys.executable, "-m", "alembic"]
    try:
        for args in (["upgrade", "head"], ["check"], ["heads"]):
            done = subprocess.run(
                [*alembic, *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=60
            )
            assert done.returncode == 0, done.stderr
        assert f"{head_revisions()[0]} (head)" in done.stdout
    finally:
        if backend != "sqlite":
            raw(store, f'DROP SCHEMA "{schema_name}" CASCADE')


# --------------------------------------------------------------------------- the log


def test_round_trip_is_byte_exact(store: Store, dealer: Signer) -> None:
    evs = events_for(dealer, "h1", 8)
    evs.append(
        make_event(
            "h1",
            8,
            "reveal",
            "dealer",
            dealer.key_id,
            evs[-1].hash,
            {"seed": "00" * 32, "nested": {"z": [1, {"b": None, "a": True}], "a": ""}},
        )
    )
    result = store.append(evs, [seal(dealer, heads_of(evs), 5_000)], [info("h1")])
    assert result == AppendResult(events=9, seals=1, streams=1)

    got = store.read_stream("h1")
    assert got == evs
    for a, b in zip(got, evs, strict=True):
        assert a.payload_bytes == b.payload_bytes
        assert a.hash == b.hash and a.prev_hash == b.prev_hash
        assert type(a.payload_bytes) is bytes and type(a.hash) is bytes
        assert canonical.is_canonical(a.payload_bytes)
    verify_chain(got)
    assert got[0].prev_hash == GENESIS
    assert store.head("h1") == (8, evs[-1].hash)
    assert store.head("nope") is None
    # the consumers' one query per batch: which hands the log holds events of
    store.register_streams([info("h_empty")])  # registered, no event yet: not held
    ids = ["nope", "h1", "h_empty", *(f"x{i}" for i in range(900)), "h1"]  # > one chunk
    assert store.known_streams(ids) == {"h1"}
    assert store.known_streams([]) == set()
    assert store.count_events() == 9
    assert store.count_events("h1") == 9
    assert store.read_stream("nope") == []


def test_stream_info_and_registration(store: Store, dealer: Signer) -> None:
    shoe = info("s1", kind="shoe", table="t9")
    hand = info("h1", table="t9", shoe="s1", at=1_234)
    store.register_streams([shoe, hand])
    assert store.stream_info("h1") == hand
    assert store.stream_info("s1") == shoe
    with pytest.raises(NotFound):
        store.stream_info("h2")
    # Same info again: no-op; other info: conflict.
    assert store.register_streams([hand]) == AppendResult()
    with pytest.raises(IdempotencyConflict):
        store.register_streams([info("h1", table="t9", shoe="s1", at=9_999)])
    with pytest.raises(InvalidInput):
        StreamInfo("h3", "round", "baccarat", "t1", None, 0)


def test_event_of_unregistered_stream_is_refused(store: Store, dealer: Signer) -> None:
    with pytest.raises(NotFound):
        store.append(events_for(dealer, "ghost", 2))
    assert store.count_events() == 0


def test_reappend_is_idempotent(store: Store, dealer: Signer) -> None:
    evs = events_for(dealer, "h1", 5)
    s = seal(dealer, heads_of(evs), 2_000)
    store.append(evs, [s], [info("h1")])
    assert store.append(evs, [s], [info("h1")]) == AppendResult()
    assert store.append(evs[1:3]) == AppendResult()
    # Old and new events together: only the new ones are written.
    more = events_for(dealer, "h1", 3, start=evs[-1])
    assert store.append([*evs, *more]) == AppendResult(events=3)
    # Out of order within a batch is fine too.
    more2 = events_for(dealer, "h1", 2, start=more[-1])
    assert store.append(list(reversed(more2))) == AppendResult(events=2)
    assert store.read_stream("h1") == [*evs, *more, *more2]
    assert len(store.seals_for("h1")) == 1


def test_different_event_at_existing_seq_writes_nothing(store: Store, dealer: Signer) -> None:
    evs = events_for(dealer, "h1", 4)
    store.append(evs, [], [info("h1")])
    forged = make_event("h1", 2, evs[2].type, "dealer", dealer.key_id, evs[1].hash, {"card": "Kd"})
    other = events_for(dealer, "h2", 3)
    with pytest.raises(DuplicateEvent), store.transaction() as uow:
        uow.append(other, [seal(dealer, heads_of(other), 1)], [info("h2")])
        uow.post(settle_tx("h2"), 5)
        uow.append([forged])
    # Nothing of that transaction was written.
    assert store.read_stream("h1") == evs
    assert store.read_stream("h2") == []
    assert store.seals_for("h2") == []
    assert store.list_streams() == [info("h1")]
    assert store.balances() == {}
    # In a single batch the duplicate is caught before anything is written, too.
    with pytest.raises(DuplicateEvent):
        store.append([*other, forged], [], [info("h2")])
    assert store.count_events() == 4
    with pytest.raises(DuplicateEvent):
        store.append([evs[0], make_event("h1", 0, "bet", "dealer", "k", GENESIS, {"x": 1})])


def test_unique_stream_seq_is_enforced_by_the_database_and_a_copied_hash_by_the_chain(
    store: Store, dealer: Signer
) -> None:
    evs = events_for(dealer, "h1", 2)
    store.append(evs, [], [info("h1")])
    dup = make_event("h1", 1, "bet", "dealer", dealer.key_id, evs[0].hash, {"other": 1})
    row = {
        "stream_id": dup.stream,
        "seq": dup.seq,
        "type": dup.type,
        "producer": dup.producer,
        "key_id": dup.key_id,
        "prev_hash": dup.prev_hash,
        "hash": dup.hash,
        "payload": dup.payload_bytes,
    }
    with pytest.raises(sa.exc.IntegrityError), store.engine.begin() as conn:
        conn.execute(schema.events.insert(), row)
    assert store.read_stream("h1") == evs
    # A copied hash is no database constraint (migration 0010: the hash covers stream and
    # seq, which are unique): a row written around the store with another event's hash
    # is the chain check's to name, since that hash is not its content's.
    same_hash = {**row, "seq": 2, "prev_hash": evs[1].hash, "hash": evs[0].hash}
    with store.engine.begin() as conn:
        conn.execute(schema.events.insert(), same_hash)
    with pytest.raises(ChainError, match="h1#2"):
        verify_chain(store.read_stream("h1"))


def test_chain_must_extend_the_stored_head(store: Store, dealer: Signer) -> None:
    evs = events_for(dealer, "h1", 3)
    store.append(evs, [], [info("h1")])
    gap = make_event("h1", 4, "bet", "dealer", dealer.key_id, evs[-1].hash, {"x": 1})
    with pytest.raises(ChainError) as err:
        store.append([gap])
    assert err.value.stream == "h1" and err.value.seq == 4
    wrong_prev = make_event("h1", 3, "bet", "dealer", dealer.key_id, evs[0].hash, {"x": 1})
    with pytest.raises(ChainError):
        store.append([wrong_prev])
    with pytest.raises(ChainError):  # a new stream starts at seq 0 from the genesis hash
        store.append(events_for(dealer, "h2", 3)[1:], [], [info("h2")])
    assert store.count_events() == 3


def test_seals_round_trip_and_seals_for(store: Store, dealer: Signer, rules: Signer) -> None:
    store.put_key(dealer.public_entry())
    store.put_key(rules.public_entry())
    a, b = events_for(dealer, "h1", 4), events_for(dealer, "h2", 2)
    s1 = seal(dealer, heads_of([*a, *b]), 1_000)
    store.append([*a, *b], [s1], [info("h1"), info("h2")])
    outcome = make_event("h1", 4, "outcome", "rules", rules.key_id, a[-1].hash, {"w": "banker"})
    s2 = seal(rules, [outcome], 2_000)
    store.append([outcome], [s2])

    assert store.seals_for("h1") == [s1, s2]
    assert store.seals_for("h2") == [s1]
    assert store.seals_for("h3") == []
    assert store.get_seal(s1.seal_id) == s1
    with pytest.raises(NotFound):
        store.get_seal("0" * 32)
    bulk = store.seals_for_streams(["h1", "h2", "h3"])
    assert bulk == {"h1": [s1, s2], "h2": [s1], "h3": []}
    assert store.read_streams(["h2", "h1"]) == {"h2": b, "h1": [*a, outcome]}

    registry = store.key_registry()
    for stream in ("h1", "h2"):
        evs = store.read_stream(stream)
        assert first_error(evs, store.seals_for(stream), registry) is None
        SealVerifier(registry).check_coverage(evs, store.seals_for(stream))
    # Same seal again: no-op. Same seal_id, other content: refused.
    assert store.append([], [s1]) == AppendResult()
    forged = Seal(s1.producer, s1.key_id, s1.sealed_at_ms + 1, s1.entries, s1.signature)
    assert forged.seal_id == s1.seal_id
    with pytest.raises(DuplicateEvent):
        store.append([], [forged])
    assert store.seals_for("h1") == [s1, s2]


@pytest.mark.parametrize(
    ("table", "update"),
    [
        ("events", "UPDATE events SET type = 'tampered'"),
        ("seals", "UPDATE seals SET key_id = 'other'"),
        ("seal_heads", "UPDATE seal_heads SET seq = seq + 100"),
        ("ledger_transactions", "UPDATE ledger_transactions SET memo = '{}'"),
        ("ledger_postings", "UPDATE ledger_postings SET amount = 0"),
        ("settlements", "UPDATE settlements SET settled_at_ms = 0"),
    ],
)
def test_update_and_delete_are_refused_by_the_database(
    store: Store, dealer: Signer, backend: str, table: str, update: str
) -> None:
    evs = full_hand(store, dealer)
    before = table_count(store, table)
    assert before > 0
    for sql in (update, f"DELETE FROM {table}"):
        with pytest.raises(sa.exc.DBAPIError) as err:
            raw(store, sql)
        assert "append-only" in str(err.value)
    if backend == "postgresql":
        with pytest.raises(sa.exc.DBAPIError):
            raw(store, f"TRUNCATE {table} CASCADE")
    assert table_count(store, table) == before
    assert store.read_stream("h1") == evs
    assert store.balances() == {"player:alice": -100, "player:bob": 95, "rake:baccarat": 5}


def test_tail_follows_append_order(store: Store, dealer: Signer) -> None:
    a = events_for(dealer, "h1", 5)
    b = events_for(dealer, "h2", 4)
    a2 = events_for(dealer, "h1", 3, start=a[-1])
    store.append(a, [], [info("h1")])
    store.append(b, [], [info("h2")])
    store.append(a2)
    seen: list[Event] = []
    positions: list[int] = []
    after = 0
    while page := store.tail(after, limit=3):
        positions += [p.global_pos for p in page]
        seen += [p.event for p in page]
        after = page[-1].global_pos
    assert seen == [*a, *b, *a2]
    assert positions == sorted(positions) and len(set(positions)) == len(positions)
    assert store.tail(after) == []


def test_log_positions_are_the_opening_events_places_in_append_order(
    store: Store, dealer: Signer
) -> None:
    """Where each stream begins in the log (its seq 0's global position), for the
    auditor's log order: streams opened later come later whatever their ids, a stream's
    later events do not move it, and a stream without events is absent."""
    z = events_for(dealer, "z_h1", 2)
    a = events_for(dealer, "a_h9", 3)
    z2 = events_for(dealer, "z_h1", 2, start=z[-1])
    store.append(z, [], [info("z_h1")])
    store.append(a, [], [info("a_h9")])
    store.append(z2)
    store.register_streams([info("h_empty")])
    at = {e.event.stream: e.global_pos for e in store.tail(0) if e.event.seq == 0}
    ids = ["a_h9", "nope", "h_empty", *(f"x{i}" for i in range(900)), "z_h1", "a_h9"]
    got = store.log_positions(ids)
    assert got == at and got["z_h1"] < got["a_h9"]
    assert store.log_positions([]) == {}


def test_hands_opened_pages_a_window_in_the_order_the_hands_opened(store: Store) -> None:
    """A time window's hands in the order they opened (ties by id), across pages that
    split a tie, shoes left out, each bound as ``since <= t < until`` or open."""
    infos = [info(f"h{i:02d}", at=1_000 + (i * 7 % 12) * 10) for i in range(30)]
    infos.append(info("s1", kind="shoe", at=1_050))
    random.Random(3).shuffle(infos)
    store.register_streams(infos)
    hands = sorted((s.opened_at_ms, s.stream_id) for s in infos if s.kind == "hand")
    assert list(store.hands_opened()) == [sid for _, sid in hands]
    for page in (1, 4, 7, 1000):  # ties of three hands at each time, split by a page
        assert list(store.hands_opened(1_020, 1_090, page=page)) == [
            sid for at, sid in hands if 1_020 <= at < 1_090
        ]
    assert list(store.hands_opened(since_ms=1_100)) == [sid for at, sid in hands if at >= 1_100]
    assert list(store.hands_opened(until_ms=1_010, page=2)) == [
        sid for at, sid in hands if at < 1_010
    ]
    assert list(store.hands_opened(5_000)) == []


def test_list_streams_filters_and_paging(store: Store) -> None:
    infos = [
        info(
            f"h{i:03d}",
            table=f"t{i % 3}",
            variant="baccarat" if i % 2 else "niuniu.hundred",
            at=1_000 + i * 10,
            shoe="s1" if i < 5 else None,
        )
        for i in range(25)
    ]
    infos.append(info("s1", kind="shoe", table="t0", at=999))
    random.Random(7).shuffle(infos)
    store.register_streams(infos)

    pages: list[list[StreamInfo]] = []
    after = None
    while page := store.list_streams(kind="hand", after_stream_id=after, limit=10):
        pages.append(page)
        after = page[-1].stream_id
    assert [len(p) for p in pages] == [10, 10, 5]
    assert [s.stream_id for p in pages for s in p] == [f"h{i:03d}" for i in range(25)]

    assert [s.stream_id for s in store.list_streams(kind="shoe")] == ["s1"]
    t1 = store.list_streams(table_id="t1")
    assert {s.stream_id for s in t1} == {f"h{i:03d}" for i in range(25) if i % 3 == 1}
    bac = store.list_streams(variant="baccarat", table_id="t1")
    assert all(s.variant == "baccarat" and s.table_id == "t1" for s in bac) and bac
    ranged = store.list_streams(since_ms=1_050, until_ms=1_100)
    assert [s.stream_id for s in ranged] == ["h005", "h006", "h007", "h008", "h009"]
    assert len(store.list_streams(shoe_id="s1")) == 5
    assert store.list_streams(limit=0) == []


# --------------------------------------------------------------------------- ledger


def test_balanced_transaction_is_posted(store: Store) -> None:
    tx = settle_tx("h1", lose=250, rake=12)
    tx_id = store.post(tx, 7_000)
    rec = store.transaction_for("h1")
    assert rec.tx_id == tx_id and rec.kind == "settle" and rec.hand_id == "h1"
    assert rec.postings == tx.postings and rec.memo == {"variant": "baccarat"}
    assert rec.created_at_ms == 7_000 and rec.reverses_tx_id is None
    assert rec.content_hash == tx.content_hash()
    assert store.postings(tx_id) == tx.postings
    assert store.get_transaction(tx_id) == rec
    assert store.balance("player:alice") == -250
    assert store.balance("player:bob") == 238
    assert store.balance("rake:baccarat") == 12
    assert store.balance("player:nobody") == 0
    assert sum(store.balances().values()) == 0
    assert store.balances(prefix="player:") == {"player:alice": -250, "player:bob": 238}
    with pytest.raises(NotFound):
        store.transaction_for("h2")
    with pytest.raises(NotFound):
        store.postings(tx_id + 100)


@pytest.mark.parametrize(
    "postings",
    [
        (),
        (Posting("player:a", -10), Posting("player:b", 9)),
        (Posting("player:a", 10),),
        (Posting("player:a", -10), Posting("player:b", 10.0)),  # type: ignore[arg-type]
        (Posting("player:a", -(2**63)), Posting("player:b", 2**63)),
    ],
)
def test_unbalanced_or_empty_transaction_is_refused(
    store: Store, postings: tuple[Posting, ...]
) -> None:
    with pytest.raises(MoneyError):
        store.post(LedgerTx("k", "h1", postings), 1)
    assert table_count(store, "ledger_transactions") == 0
    assert store.balances() == {}


def test_idempotency_key_noop_and_conflict(store: Store) -> None:
    tx = settle_tx("h1")
    first = store.post(tx, 1_000)
    assert store.post(tx, 2_000) == first  # redelivery, later clock: no-op
    assert store.transaction_for("h1").created_at_ms == 1_000
    assert store.balance("player:alice") == -100
    changed = LedgerTx(tx.idempotency_key, "h1", tx.postings, {"variant": "other"})
    with pytest.raises(IdempotencyConflict):
        store.post(changed, 3_000)
    with pytest.raises(IdempotencyConflict):
        store.post(settle_tx("h1", lose=99), 3_000)
    # One settle transaction per hand, whatever the key.
    other_key = LedgerTx("another-key", "h1", tx.postings, tx.memo)
    with pytest.raises(IdempotencyConflict):
        store.post(other_key, 3_000)
    assert table_count(store, "ledger_transactions") == 1
    assert store.balance("player:alice") == -100


def test_post_many_in_one_unit_of_work(store: Store) -> None:
    txs = [settle_tx(f"h{i}", lose=10 * (i + 1), rake=i) for i in range(20)]
    ids = store.post_many([*txs, txs[3]], 5)
    assert len(set(ids)) == 20 and ids[3] == ids[20]
    assert store.post_many(list(reversed(txs)), 6) == list(reversed(ids[:20]))
    assert store.balance("rake:baccarat") == sum(range(20))
    with pytest.raises(IdempotencyConflict):
        store.post_many([settle_tx("h99"), settle_tx("h99", lose=1, rake=0)], 7)
    assert table_count(store, "ledger_transactions") == 20
    page = store.list_transactions(after_tx_id=ids[9], limit=5)
    assert [r.tx_id for r in page] == sorted(set(ids))[10:15]


def test_post_many_gives_each_transaction_its_own_id_in_order(store: Store) -> None:
    """The ids returned are the stored rows' ids, in the order given, after every id
    already taken (SQLite: read once and written with the rows; PostgreSQL: returned by
    the insert), and a batch mixing new and stored transactions gets both right."""
    first = store.post_many([settle_tx(f"a{i}") for i in range(5)], 1)
    txs = [settle_tx(f"b{i}", lose=10 + i) for i in range(7)]
    ids = store.post_many([txs[0], settle_tx("a2"), *txs[1:]], 2)
    assert ids[1] == first[2]
    new = [ids[0], *ids[2:]]
    assert len(set(new)) == 7 and min(new) > max(first)
    for tx, tx_id in zip(txs, new, strict=True):
        rec = store.transaction_for(tx.hand_id)
        assert rec.tx_id == tx_id and rec.idempotency_key == tx.idempotency_key
        assert rec.postings == tx.postings


def test_a_transaction_id_taken_in_between_refuses_the_batch_and_writes_nothing(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Were another writer to take the ids a batch was about to use (SQLite's next id
    read stale), the primary key refuses the batch: nothing of it is written."""
    from croupier.store import ledger

    store.post_many([settle_tx("c0"), settle_tx("c1")], 1)
    before = table_count(store, "ledger_postings")
    monkeypatch.setattr(ledger, "_TX_NEXT_ID", sa.select(sa.literal(1)))  # id 1 is taken
    if store.dialect == "sqlite":
        with pytest.raises(IdempotencyConflict, match="refused"):
            store.post_many([settle_tx("c2"), settle_tx("c3")], 2)
        assert table_count(store, "ledger_transactions") == 2
        assert table_count(store, "ledger_postings") == before
    else:  # the sequence gives the ids: the statement is not used
        assert len(set(store.post_many([settle_tx("c2"), settle_tx("c3")], 2))) == 2


def test_void_writes_a_reversing_transaction(store: Store) -> None:
    store.post(settle_tx("h1", lose=300, rake=15), 1_000)
    store.post(settle_tx("h2", lose=50, rake=2), 1_000)
    void_id = store.void("h1", "dealer misdeal", 2_000)
    rec = store.get_transaction(void_id)
    settle = store.transaction_for("h1")
    assert rec.kind == "void" and rec.reverses_tx_id == settle.tx_id
    assert rec.idempotency_key == "void:h1"
    assert rec.postings == tuple(Posting(p.account, -p.amount) for p in settle.postings)
    assert rec.memo == {"reason": "dealer misdeal", "reverses_tx_id": settle.tx_id}
    assert store.transaction_for("h1", "void") == rec
    assert [r.kind for r in store.transactions_for("h1")] == ["settle", "void"]
    # Voiding twice is idempotent, whatever the reason.
    assert store.void("h1", "dealer misdeal", 3_000) == void_id
    assert store.void("h1", "again", 3_000) == void_id
    # Balances come from postings: h1 nets to zero, h2 stands.
    assert store.balances() == {"player:alice": -50, "player:bob": 48, "rake:baccarat": 2}
    assert sum(store.balances().values()) == 0
    with pytest.raises(NotFound):
        store.void("h404", "no such hand", 1)
    # The original stays in the ledger: append-only.
    assert store.transaction_for("h1") == settle


def test_balances_are_derived_from_postings(store: Store) -> None:
    rng = random.Random(2024)
    expected: dict[str, int] = {}
    txs = []
    for h in range(60):
        players = rng.sample(["alice", "bob", "carol", "dave", "erin"], k=rng.randint(1, 4))
        lines = [Posting(f"player:{p}", rng.randint(-10_000, 10_000)) for p in players]
        rake = rng.randint(0, 50)
        lines.append(Posting("rake:baccarat", rake))
        lines.append(Posting("house:baccarat", -sum(p.amount for p in lines)))
        txs.append(LedgerTx(f"settle:h{h}", f"h{h}", tuple(lines)))
    with store.transaction() as uow:
        uow.post_many(txs, 10)
        for h in range(0, 60, 7):
            uow.void(f"h{h}", "test", 11)
    for i, tx in enumerate(txs):
        if i % 7 == 0:
            continue
        for p in tx.postings:
            expected[p.account] = expected.get(p.account, 0) + p.amount
    got = store.balances()
    assert {k: v for k, v in got.items() if v} == {k: v for k, v in expected.items() if v}
    assert sum(got.values()) == 0
    for account, value in expected.items():
        assert store.balance(account) == value


@settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    st.lists(
        st.lists(
            st.tuples(st.sampled_from(["a", "b", "c", "d"]), st.integers(-(10**12), 10**12)),
            min_size=1,
            max_size=6,
        ),
        min_size=1,
        max_size=5,
    )
)
def test_property_idempotent_zero_sum(store: Store, hands: list[list[tuple[str, int]]]) -> None:
    before = store.balances()
    delta: dict[str, int] = {}
    txs = []
    for lines in hands:
        hand_id = uuid.uuid4().hex
        postings = [Posting(f"player:{a}", x) for a, x in lines]
        postings.append(Posting("house:x", -sum(x for _, x in lines)))
        txs.append(LedgerTx(f"settle:{hand_id}", hand_id, tuple(postings)))
        for p in postings:
            delta[p.account] = delta.get(p.account, 0) + p.amount
    ids = store.post_many(txs, 1)
    assert store.post_many(txs, 2) == ids  # replay: no second effect
    for tx in txs:
        assert store.post(tx, 3) in ids
    after = store.balances()
    assert sum(after.values()) == 0
    for account in set(after) | set(delta):
        assert after.get(account, 0) - before.get(account, 0) == delta.get(account, 0)


# --------------------------------------------------------------------------- settlements


def test_settlement_is_unique_per_hand(store: Store, dealer: Signer) -> None:
    full_hand(store, dealer, "h1")
    s = store.get_settlement("h1")
    assert s.record == b'{"hand":"h1","steps":[]}'
    assert s.record_json == {"hand": "h1", "steps": []}
    assert s.tx_id == store.transaction_for("h1").tx_id
    assert (s.variant, s.table_id, s.settled_at_ms) == ("baccarat", "t1", 3_000)
    # Same record again (later clock): no-op, first time kept.
    again = store.put_settlement("h1", "baccarat", "t1", s.tx_id, {"steps": [], "hand": "h1"}, 9)
    assert again.record_hash == s.record_hash
    assert store.get_settlement("h1") == s
    with pytest.raises(IdempotencyConflict):
        store.put_settlement("h1", "baccarat", "t1", s.tx_id, {"hand": "h1", "steps": [1]}, 9)
    with pytest.raises(NotFound):
        store.get_settlement("h2")
    # A caller-supplied record hash (raw or hex) must match the record.
    store.put_settlement("h1", "baccarat", "t1", s.tx_id, s.record, 9, s.record_hash.hex())
    with pytest.raises(InvalidInput):
        store.put_settlement("h1", "baccarat", "t1", s.tx_id, s.record, 9, b"\0" * 32)
    # A settlement must point at its own hand's settle transaction.
    other_tx = store.post(settle_tx("h2"), 1)
    with pytest.raises(InvalidInput):
        store.put_settlement("h3", "baccarat", "t1", other_tx, {"x": 1}, 1)
    with pytest.raises(InvalidInput):
        store.put_settlement("h2", "baccarat", "t1", other_tx, b'{"b":1, "a":2}', 1)
    assert store.count_settlements() == 1


def test_settle_is_atomic(store: Store) -> None:
    with pytest.raises(InvalidInput):
        store.settle(settle_tx("h1"), "baccarat", "t1", {"rtp": 0.97}, 1)  # floats refused
    assert store.balances() == {}
    with pytest.raises(NotFound):
        store.transaction_for("h1")
    s = store.settle(settle_tx("h1"), "baccarat", "t1", {"rtp": "0.97"}, 1)
    assert store.get_settlement("h1") == s


def test_unit_of_work_rolls_back_on_exception(store: Store, dealer: Signer) -> None:
    evs = events_for(dealer, "h1", 3)

    class Boom(Exception):
        pass

    with pytest.raises(Boom), store.transaction() as uow:
        uow.append(evs, [], [info("h1")])
        uow.settle(settle_tx("h1"), "baccarat", "t1", {"a": 1}, 1)
        uow.put_secret("s1", b"\x01" * 32, 1, BOX)
        uow.put_key(dealer.public_entry())
        assert uow.head("h1") == (2, evs[-1].hash)
        raise Boom
    assert store.count_events() == 0
    assert store.balances() == {}
    assert store.count_settlements() == 0
    assert len(store.key_registry()) == 0
    with pytest.raises(NotFound):
        store.get_secret("s1", BOX)


def test_list_settlements_paging(store: Store) -> None:
    with store.transaction() as uow:
        for i in range(23):
            variant = "baccarat" if i % 3 else "sangong.classic"
            uow.settle(
                settle_tx(f"h{i:02d}", variant=variant),
                variant,
                f"t{i % 2}",
                {"i": i},
                100 + i,
            )
    got: list[Settlement] = []
    after = None
    while page := store.list_settlements(after_hand_id=after, limit=7):
        got += page
        after = page[-1].hand_id
    assert [s.hand_id for s in got] == [f"h{i:02d}" for i in range(23)]
    sc = store.list_settlements(variant="sangong.classic")
    assert [s.hand_id for s in sc] == [f"h{i:02d}" for i in range(0, 23, 3)]
    t1 = store.list_settlements(table_id="t1", variant="baccarat")
    assert all(s.table_id == "t1" and s.variant == "baccarat" for s in t1) and t1
    assert len(store.list_settlements(since_ms=110, until_ms=115)) == 5
    assert store.count_settlements("baccarat") == 15
    assert store.count_settlements(table_ids=["t1"]) == 11  # odd i: 1, 3, ..., 21
    assert store.count_settlements(table_ids=["t0", "t1"]) == 23
    assert store.count_settlements("baccarat", table_ids=["t1"]) == len(t1)
    assert store.count_settlements(table_ids=[]) == 0
    assert store.count_settlements(table_ids=["nowhere"]) == 0


def test_rake_summary(store: Store) -> None:
    store.post(settle_tx("h1", rake=5, variant="baccarat"), 1_000)
    store.post(settle_tx("h2", rake=7, variant="baccarat"), 2_000)
    store.post(settle_tx("h3", rake=11, variant="sangong.classic"), 2_500)
    store.post(settle_tx("h4", rake=3, variant="baccarat"), 3_000)
    assert store.rake_summary() == [
        RakeTotal("baccarat", 15, 3),
        RakeTotal("sangong.classic", 11, 1),
    ]
    assert store.rake_summary("baccarat") == [RakeTotal("baccarat", 15, 3)]
    assert store.rake_summary(since_ms=2_000, until_ms=3_000) == [
        RakeTotal("baccarat", 7, 1),
        RakeTotal("sangong.classic", 11, 1),
    ]
    assert store.rake_summary("niuniu.classic") == []
    store.void("h2", "misdeal", 4_000)
    assert store.rake_summary("baccarat") == [RakeTotal("baccarat", 8, 2)]
    assert store.rake_summary("baccarat", until_ms=4_000) == [RakeTotal("baccarat", 15, 3)]
    [line] = store.rake_summary("baccarat")
    variant, total, hands = line
    assert (variant, total, hands, line.account) == ("baccarat", 8, 2, "rake:baccarat")
    # The balance of the rake account is the same figure, derived from postings.
    assert store.balance("rake:baccarat") == 8


# --------------------------------------------------------------------------- keys, secrets


def test_key_registry_round_trip(store: Store, dealer: Signer, rules: Signer) -> None:
    d = dealer.public_entry(valid_from_ms=10)
    r = rules.public_entry()
    assert store.put_key(d) is True
    assert store.put_key(r) is True
    assert store.put_key(d) is False
    reg = store.key_registry()
    assert sorted(reg, key=lambda e: e.key_id) == sorted([d, r], key=lambda e: e.key_id)
    assert reg.get(d.key_id) == d and d.valid_to_ms == FOREVER
    with pytest.raises(IdempotencyConflict):
        store.put_key(dealer.public_entry(valid_from_ms=11))
    # Revocation shortens the window; it never lengthens it.
    revoked = store.revoke_key(d.key_id, 5_000)
    assert revoked.valid_to_ms == 5_000
    assert store.revoke_key(d.key_id, 9_000).valid_to_ms == 5_000
    assert store.key_registry().get(d.key_id).valid_to_ms == 5_000
    with pytest.raises(NotFound):
        store.get_key("nope")
    # The database itself refuses other changes.
    with pytest.raises(sa.exc.DBAPIError):
        raw(store, f"UPDATE keys SET valid_to_ms = 6000 WHERE key_id = '{d.key_id}'")
    with pytest.raises(sa.exc.DBAPIError):
        raw(store, "UPDATE keys SET producer = 'gateway'")
    with pytest.raises(sa.exc.DBAPIError):
        raw(store, "DELETE FROM keys")
    assert len(store.list_keys()) == 2


def test_dealer_secrets(store: Store) -> None:
    seed = bytes(range(32))
    assert store.put_secret("shoe-1", seed, 1_000, BOX) is True
    assert store.put_secret("shoe-1", seed, 2_000, BOX) is False
    assert store.get_secret("shoe-1", BOX) == seed
    with pytest.raises(IdempotencyConflict):
        store.put_secret("shoe-1", b"\x00" * 32, 3_000, BOX)
    with pytest.raises(NotFound):
        store.get_secret("shoe-2", BOX)


# --------------------------------------------------------------------------- concurrency


def test_an_append_that_read_too_early_reads_again_and_writes_each_row_once(
    store: Store, dealer: Signer, monkeypatch: pytest.MonkeyPatch, backend: str
) -> None:
    """What a concurrent writer does on PostgreSQL (its rows land between an append's read
    and its inserts), staged: the first read misses a stream already stored, so the
    batch's stream rows go in, a new one first, then the stored one, refused. On
    PostgreSQL a savepoint rolls the batch back, the append reads again and stores each
    row once, and the rest of the transaction stands. On SQLite no other writer can get
    there first (the transaction holds the write lock), so the append runs in no
    savepoint: a refused row is a conflict, and nothing of the transaction is written."""
    from croupier.store import events as event_log

    h1 = events_for(dealer, "h1", 5)
    store.append(h1[:3], [], [info("h1")])
    real = event_log._load_states
    reads: list[list[str]] = []

    def early(conn: sa.Connection, ids: list[str]) -> dict[str, object]:
        got: dict[str, object] = dict(real(conn, ids))
        reads.append(list(ids))
        if len(reads) == 1:
            got.pop("h1", None)  # not yet there, as far as this read knows
        return got

    monkeypatch.setattr(event_log, "_load_states", early)
    h3 = events_for(dealer, "h3", 2)
    if backend == "sqlite":
        with pytest.raises(DuplicateEvent), store.transaction() as uow:
            uow.post(settle_tx("h2"), 5)
            uow.append([*h3, *h1], [], [info("h3"), info("h1")])
        assert len(reads) == 1  # not read again
        assert store.read_stream("h1") == h1[:3] and store.read_stream("h3") == []
        assert store.list_streams() == [info("h1")]  # the new stream's row rolled back too
        assert store.balances() == {}
        return
    with store.transaction() as uow:
        uow.post(settle_tx("h2"), 5)
        got = uow.append(
            [*h3, *h1], [seal(dealer, heads_of([*h3, *h1]), 7)], [info("h3"), info("h1")]
        )
    assert len(reads) == 2  # read again once
    assert got == AppendResult(events=4, seals=1, streams=1)
    assert store.read_stream("h1") == h1 and store.read_stream("h3") == h3
    assert store.list_streams() == [info("h1"), info("h3")]
    assert len(store.seals_for("h3")) == 1
    assert store.balances() != {}  # the rest of the transaction stands


def test_concurrent_identical_appends_are_idempotent(store: Store, dealer: Signer) -> None:
    """A second writer blocked behind the first sees its commit and writes nothing."""
    evs = events_for(dealer, "h1", 5)
    s = seal(dealer, heads_of(evs), 1)
    results: list[AppendResult] = []
    errors: list[BaseException] = []

    def second() -> None:
        try:
            results.append(store.append(evs, [s], [info("h1")]))
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    with store.transaction() as uow:
        uow.append(evs, [s], [info("h1")])
        uow.post(settle_tx("h1"), 1)
        t = threading.Thread(target=second)
        t.start()
        time.sleep(0.3)  # let the second writer reach the database and wait
    t.join(timeout=30)
    assert not errors, errors
    assert results == [AppendResult()]
    assert store.read_stream("h1") == evs


def test_concurrent_identical_posts_are_idempotent(store: Store) -> None:
    tx = settle_tx("h1")
    got: list[int] = []

    def second() -> None:
        got.append(store.post(tx, 2))

    with store.transaction() as uow:
        first = uow.post(tx, 1)
        t = threading.Thread(target=second)
        t.start()
        time.sleep(0.3)
    t.join(timeout=30)
    assert got == [first]
    assert store.balance("player:alice") == -100


def test_batch_settlement_is_idempotent_by_hand(store: Store) -> None:
    """One ledger insert and one settlements insert for a batch: a hand twice in the
    batch, or again in a later batch, is written once; one lookup finds what is stored."""

    def batch(hands: list[str], at: int) -> tuple[dict[str, Settlement], list[int]]:
        with store.transaction() as uow:
            stored = uow.get_settlements(hands)
            ids = uow.post_many([settle_tx(h) for h in hands], at)
            uow.put_settlements(
                [
                    Settlement.build(h, "baccarat", "t1", i, {"hand": h}, at)
                    for h, i in zip(hands, ids, strict=True)
                ]
            )
        return stored, ids

    stored, ids = batch(["h1", "h2", "h1"], 10)
    assert stored == {} and ids[0] == ids[2] != ids[1]
    assert store.count_settlements() == 2 and len(store.list_transactions()) == 2
    stored, ids2 = batch(["h2", "h3", "h1"], 20)
    assert set(stored) == {"h1", "h2"} and stored["h1"].settled_at_ms == 10
    assert ids2[0] == ids[1] and ids2[2] == ids[0]
    assert store.count_settlements() == 3 and len(store.list_transactions()) == 3
    assert store.get_settlement("h2").settled_at_ms == 10  # the first time stays
    assert store.balances()["rake:baccarat"] == 15
    with store.transaction() as uow:
        assert uow.get_settlements([]) == {}
        assert set(uow.get_settlements(["h3", "h9", "h3"])) == {"h3"}


def test_seal_rows_decode_a_row_once_and_a_changed_row_anew(store: Store, dealer: Signer) -> None:
    """A range audit reads each commit's seal for every batch of its hands: with
    ``SealRows`` a row read again with the same bytes is the seal decoded before (the
    same object); a row that changed in any column is decoded anew."""
    store.put_key(dealer.public_entry())
    a, b = events_for(dealer, "h1", 2), events_for(dealer, "h2", 2)
    s1 = seal(dealer, heads_of([*a, *b]), 1_000)
    store.append([*a, *b], [s1], [info("h1"), info("h2")])
    rows = SealRows()
    first = store.seals_for_streams(["h1", "h2"], rows)
    again = store.seals_for_streams(["h2"], rows)
    assert first == {"h1": [s1], "h2": [s1]} == {**store.seals_for_streams(["h1", "h2"])}
    assert again["h2"][0] is first["h1"][0]
    # the same id with other content (a store tampered under the auditor): decoded anew
    with store.engine.connect() as conn:
        row = conn.execute(sa.text("SELECT * FROM seals")).one()
    for column, value in (("signature", bytes(64)), ("sealed_at_ms", 1_001), ("entries", b"[]")):
        changed = tuple({**row._mapping, column: value}.values())  # a row, read by position
        got = rows.decode(changed)
        assert got is not first["h1"][0]
        assert (got.signature, got.sealed_at_ms, len(got.entries)) == (
            bytes(64) if column == "signature" else s1.signature,
            1_001 if column == "sealed_at_ms" else s1.sealed_at_ms,
            0 if column == "entries" else len(s1.entries),
        )
    assert rows.decode(row) is not first["h1"][0]  # the last changed row was kept instead
    assert rows.decode(row) is rows.decode(row)
    small = SealRows(cap=2)
    for i in range(5):
        small.decode(tuple({**row._mapping, "seal_id": f"s{i}"}.values()))
    assert len(small._by_id) <= 2
