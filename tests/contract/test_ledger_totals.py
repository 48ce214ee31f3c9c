"""Running ledger totals (``ledger_totals``): kept in the posting transaction by the
one function that inserts postings, read by balances and the rake summary, equal to the
sums over postings; migration 0008 backfills them from an existing ledger."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event

from croupier.store import LedgerTx, Posting, RakeTotal, Store, create_engine, migrate
from croupier_services.audit import totals_mismatches


def _tx(hand: str, lose: int, rake: int, variant: str = "baccarat") -> LedgerTx:
    return LedgerTx(
        idempotency_key=f"settle:{hand}",
        hand_id=hand,
        postings=(
            Posting("player:alice", -lose),
            Posting("player:bob", lose - rake),
            Posting(f"rake:{variant}", rake),
        ),
        memo={"variant": variant},
    )


def _totals(store: Store) -> dict[str, tuple[int, int, int]]:
    with store.engine.connect() as conn:
        rows = conn.exec_driver_sql("SELECT account, total, settled, voided FROM ledger_totals")
        return {r[0]: (int(r[1]), int(r[2]), int(r[3])) for r in rows}


def test_totals_follow_posts_batches_voids_and_replays(store: Store) -> None:
    store.post(_tx("h1", 100, 5), 1_000)
    store.post_many([_tx("h2", 200, 7), _tx("h3", 50, 2, "sangong.classic")], 2_000)
    store.post(_tx("h1", 100, 5), 3_000)  # an idempotent replay adds nothing
    store.post_many([_tx("h2", 200, 7)], 3_000)
    store.void("h2", "misdeal", 4_000)
    store.void("h2", "again", 5_000)  # the existing void: nothing added
    assert _totals(store) == {
        "player:alice": (-150, 3, 1),
        "player:bob": (143, 3, 1),
        "rake:baccarat": (5, 2, 1),
        "rake:sangong.classic": (2, 1, 0),
    }
    assert store.balance("player:alice") == -150
    assert store.balance("player:nobody") == 0
    assert store.balances() == store.summed_balances()
    assert store.balances("rake:") == {"rake:baccarat": 5, "rake:sangong.classic": 2}
    assert store.rake_summary() == [
        RakeTotal("baccarat", 5, 1),
        RakeTotal("sangong.classic", 2, 1),
    ]
    assert store.rake_summary("baccarat") == [RakeTotal("baccarat", 5, 1)]
    assert totals_mismatches(store.balances(), store.summed_balances()) == []


def test_a_refused_batch_leaves_the_totals_untouched(store: Store) -> None:
    store.post(_tx("h1", 100, 5), 1_000)
    before = _totals(store)
    bad = LedgerTx("other-key", "h1", (Posting("player:alice", -1), Posting("rake:baccarat", 1)))
    try:
        store.post_many([_tx("h9", 10, 1), bad], 2_000)
    except Exception:
        pass
    else:
        raise AssertionError("a second settle of h1 was accepted")
    assert _totals(store) == before


def test_an_edited_total_is_named_by_the_audit_check(store: Store) -> None:
    store.post(_tx("h1", 100, 5), 1_000)
    with store.engine.begin() as conn:
        conn.exec_driver_sql(
            "UPDATE ledger_totals SET total = total + 1 WHERE account = 'rake:baccarat'"
        )
    [f] = totals_mismatches(store.balances(), store.summed_balances())
    assert f.reason == "totals_mismatch" and f.account == "rake:baccarat"
    assert "6" in f.message and "5" in f.message


def test_migration_0008_backfills_from_existing_postings(tmp_path: Path) -> None:
    eng = create_engine(f"sqlite:///{tmp_path / 'old.sqlite'}")
    migrate(eng, "0006")
    with eng.begin() as conn:
        for tx_id, kind, rev, lines in (
            (1, "settle", None, [("player:a", -100), ("player:b", 95), ("rake:baccarat", 5)]),
            (2, "settle", None, [("player:a", -40), ("player:b", 38), ("rake:baccarat", 2)]),
            (3, "void", 2, [("player:a", 40), ("player:b", -38), ("rake:baccarat", -2)]),
        ):
            conn.execute(
                sa.text(
                    "INSERT INTO ledger_transactions (tx_id, idempotency_key, kind, hand_id, "
                    "content_hash, reverses_tx_id, created_at_ms, memo) "
                    "VALUES (:i, :k, :kind, :h, :c, :r, 1, '{}')"
                ),
                {
                    "i": tx_id,
                    "k": f"k{tx_id}",
                    "kind": kind,
                    "h": "h2" if rev else f"h{tx_id}",
                    "c": bytes(32),
                    "r": rev,
                },
            )
            for line, (acc, amt) in enumerate(lines):
                conn.execute(
                    sa.text("INSERT INTO ledger_postings VALUES (:t, :l, :a, :m)"),
                    {"t": tx_id, "l": line, "a": acc, "m": amt},
                )
    migrate(eng)
    store = Store(eng)
    assert _totals(store) == {
        "player:a": (-100, 2, 1),
        "player:b": (95, 2, 1),
        "rake:baccarat": (5, 2, 1),
    }
    assert store.rake_summary() == [RakeTotal("baccarat", 5, 1)]
    assert store.balances() == store.summed_balances()


def _statements(engine: sa.Engine, table: str) -> tuple[list[bool], Callable[[], None]]:
    """Whether each statement SQLAlchemy sends that writes ``table`` is an
    ``executemany``, as they run (SQLite's driver path runs past these events)."""
    seen: list[bool] = []

    def note(conn: Any, cursor: Any, statement: str, params: Any, ctx: Any, many: bool) -> None:
        if statement.lstrip().upper().startswith("INSERT INTO") and f" {table} " in statement:
            seen.append(many)

    event.listen(engine, "before_cursor_execute", note)
    return seen, lambda: event.remove(engine, "before_cursor_execute", note)


def test_a_commit_adds_every_account_at_once_and_right(store: Store) -> None:
    """400 players at 50 tables and the house in one commit: each account's total, count
    of settled and of voided hands is what the postings say (counted here, apart),
    amounts past 32 bits included; on PostgreSQL the totals of the whole
    commit are one statement (:func:`croupier.store.db.insert_of_rows`), not one a row."""
    rng = random.Random(18)
    big = 2**50  # past 32 bits: the arrays' element type is bigint
    txs = []
    for h in range(50):
        amounts = [rng.choice((rng.randrange(-10_000, 10_000), big, -big)) for _ in range(8)]
        lines = [Posting(f"player:t{h}p{p}", a) for p, a in enumerate(amounts)]
        txs.append(
            LedgerTx(f"settle:t{h}_h1", f"t{h}_h1", (*lines, Posting("house", -sum(amounts))))
        )
    again = [LedgerTx(f"settle:t{h}_h2", f"t{h}_h2", txs[h].postings) for h in range(0, 50, 7)]
    seen, stop = _statements(store.engine, "ledger_totals")
    try:
        store.post_many(txs, 1_000)
        store.post_many(again, 2_000)
        store.void("t7_h2", "misdeal", 3_000)
    finally:
        stop()
    want: dict[str, list[int]] = {}
    for tx in [*txs, *again]:
        for p in tx.postings:
            w = want.setdefault(p.account, [0, 0, 0])
            w[0] += p.amount
            w[1] += 1
    for p in again[1].postings:  # t7_h2, voided: its postings reversed, counted as voided
        want[p.account][0] -= p.amount
        want[p.account][2] += 1
    assert _totals(store) == {a: tuple(w) for a, w in want.items()}
    assert len(want) == 401
    assert store.balances() == store.summed_balances()
    if store.engine.dialect.name == "postgresql":
        assert seen == [False, False, False]  # a statement a commit, none an executemany
