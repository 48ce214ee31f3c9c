"""The double-entry ledger.

Money moves only as balanced transactions: a :class:`LedgerTx` is a list of
:class:`Posting` lines (account, signed amount in minor units) that sum to exactly zero.
A positive amount credits the account (raises its balance), a negative one debits it.
Accounts are plain strings by convention:

=====================  ==========================================================
``player:<id>``        a player's money
``house:<variant>``    the house's (banker's) result on a variant
``rake:<variant>``     rake revenue on a variant (what :func:`rake_summary` sums)
``escrow``             stakes held between bet and settlement
=====================  ==========================================================

Every transaction belongs to a hand and carries an idempotency key. Posting again under
a stored key with the same content (same :func:`content_hash`) returns the stored
transaction id and writes nothing; with different content it raises
:class:`~croupier.errors.IdempotencyConflict`. A hand has at most one ``settle`` and at
most one ``void`` transaction (the database enforces it too). A void is a reversing
transaction: the settle transaction's postings negated, key ``void:<hand_id>``. The
tables are append-only, so balances are always derived from postings.

An empty or unbalanced transaction, or a non-integer amount, raises
:class:`~croupier.errors.MoneyError` before the database is touched.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from croupier import canonical
from croupier.errors import IdempotencyConflict, InvalidInput, MoneyError, NotFound
from croupier.store import schema
from croupier.store.db import (
    IDS,
    AnyRow,
    Database,
    execute_rows,
    insert_of_rows,
    insert_rows,
    is_sqlite,
    per_dialect,
    retryable,
    select_params,
    select_rows,
)

TxKind = Literal["settle", "void"]
ESCROW = "escrow"
RAKE_PREFIX = "rake:"
MAX_AMOUNT = 2**63 - 1
CONTENT_TAG = b"croupier:ledger:v1\n"
CHUNK = 400

_TX = schema.ledger_transactions
_P = schema.ledger_postings
_TX_BY_KEY_IN = sa.select(
    _TX.c.tx_id, _TX.c.idempotency_key, _TX.c.content_hash, _TX.c.hand_id, _TX.c.kind
).where(_TX.c.idempotency_key.in_(IDS))
_TX_BY_HAND_IN = sa.select(_TX.c.idempotency_key, _TX.c.hand_id, _TX.c.kind).where(
    _TX.c.hand_id.in_(IDS)
)
_T = schema.ledger_totals


def player_account(player_id: str) -> str:
    return f"player:{player_id}"


def house_account(variant: str) -> str:
    return f"house:{variant}"


def rake_account(variant: str) -> str:
    return f"{RAKE_PREFIX}{variant}"


@dataclass(frozen=True, slots=True)
class Posting:
    """One line of a transaction: ``amount`` minor units credited to ``account``
    (negative: debited)."""

    account: str
    amount: int


@dataclass(frozen=True)
class LedgerTx:
    """A transaction to post: the money of one hand."""

    idempotency_key: str
    hand_id: str
    postings: tuple[Posting, ...]
    memo: Mapping[str, Any] = field(default_factory=dict, hash=False)

    def content_hash(self, kind: TxKind = "settle") -> bytes:
        return content_hash(kind, self.hand_id, self.postings, self.memo)


@dataclass(frozen=True)
class LedgerRecord:
    """A stored transaction with its postings."""

    tx_id: int
    idempotency_key: str
    kind: TxKind
    hand_id: str
    content_hash: bytes
    reverses_tx_id: int | None
    created_at_ms: int
    memo: Mapping[str, Any]
    postings: tuple[Posting, ...]


class RakeTotal(NamedTuple):
    """Net rake collected on one variant (its ``rake:<variant>`` account), and the number
    of hands that posted to it (settle transactions net of voids). A tuple, so
    ``for variant, total, hands in rake_summary(...)`` works."""

    variant: str
    total: int
    hands: int

    @property
    def account(self) -> str:
        return rake_account(self.variant)


def content_hash(
    kind: str,
    hand_id: str,
    postings: Iterable[Posting],
    memo: Mapping[str, Any],
    *,
    check: bool = True,
) -> bytes:
    """SHA-256 over the canonical JSON of what a transaction says (not when).
    ``check=False``: the memo was already written canonically and the postings checked
    (:func:`check_postings`), so the text is not walked again (the bytes are the same)."""
    body = canonical.dumps(
        {
            "hand_id": hand_id,
            "kind": kind,
            "memo": dict(memo),
            "postings": [[p.account, p.amount] for p in postings],
        },
        check=check,
    )
    return hashlib.sha256(CONTENT_TAG + body).digest()


@dataclass(frozen=True, slots=True)
class _Pending:
    kind: TxKind
    key: str
    hand_id: str
    postings: tuple[Posting, ...]
    memo_text: str
    hash: bytes
    reverses_tx_id: int | None


def check_postings(postings: Sequence[Posting]) -> None:
    """Raise :class:`MoneyError` unless ``postings`` is a non-empty list of integer
    amounts summing to zero."""
    if not postings:
        raise MoneyError("a ledger transaction needs at least one posting")
    total = 0
    for p in postings:
        if not isinstance(p, Posting):
            raise MoneyError(f"expected a Posting, got {type(p).__name__}")
        if not isinstance(p.amount, int) or isinstance(p.amount, bool):
            raise MoneyError(f"{p.account}: amount {p.amount!r} is not an integer")
        if not -MAX_AMOUNT <= p.amount <= MAX_AMOUNT:
            raise MoneyError(f"{p.account}: amount {p.amount} is out of range")
        if not isinstance(p.account, str) or not p.account or len(p.account) > schema.ID_LEN:
            raise InvalidInput(f"bad account name {p.account!r}")
        total += p.amount
    if total != 0:
        raise MoneyError(f"postings sum to {total}, not 0")


def _pending(kind: TxKind, tx: LedgerTx, reverses_tx_id: int | None = None) -> _Pending:
    if not isinstance(tx, LedgerTx):
        raise InvalidInput(f"expected a LedgerTx, got {type(tx).__name__}")
    postings = tuple(tx.postings)
    check_postings(postings)
    if not isinstance(tx.idempotency_key, str) or not 0 < len(tx.idempotency_key) <= 200:
        raise InvalidInput("idempotency_key must be a string of 1..200 characters")
    if not isinstance(tx.hand_id, str) or not 0 < len(tx.hand_id) <= schema.ID_LEN:
        raise InvalidInput(f"hand_id must be a string of 1..{schema.ID_LEN} characters")
    memo = dict(tx.memo)
    return _Pending(
        kind=kind,
        key=tx.idempotency_key,
        hand_id=tx.hand_id,
        postings=postings,
        memo_text=canonical.dumps(memo).decode(),  # checked here, once
        hash=content_hash(kind, tx.hand_id, postings, memo, check=False),
        reverses_tx_id=reverses_tx_id,
    )


def _chunks(items: Sequence[str]) -> Iterable[Sequence[str]]:
    for i in range(0, len(items), CHUNK):
        yield items[i : i + CHUNK]


def _insert(conn: Connection, items: Sequence[_Pending], at_ms: int) -> list[int]:
    """Insert what is new among ``items`` (idempotently) and return every item's id."""
    if not isinstance(at_ms, int) or isinstance(at_ms, bool) or at_ms < 0:
        raise InvalidInput("at_ms must be a non-negative integer")
    unique: dict[str, _Pending] = {}
    slots: dict[tuple[str, str], str] = {}
    for p in items:
        other = unique.setdefault(p.key, p)
        if other.hash != p.hash:
            raise IdempotencyConflict(f"idempotency key {p.key!r} used twice with other content")
        slot = slots.setdefault((p.hand_id, p.kind), p.key)
        if slot != p.key:
            raise IdempotencyConflict(
                f"hand {p.hand_id}: two {p.kind} transactions ({slot!r}, {p.key!r})"
            )
    keys = list(unique)
    hands = list(dict.fromkeys(p.hand_id for p in unique.values()))
    for attempt in (0, 1):
        ids: dict[str, int] = {}
        taken: dict[tuple[str, str], str] = {}
        for key_chunk in _chunks(keys):
            for tx_id, key, content_hash, _hand, _kind in select_rows(
                conn, _TX_BY_KEY_IN, list(key_chunk)
            ):
                if bytes(content_hash) != unique[key].hash:
                    raise IdempotencyConflict(
                        f"idempotency key {key!r} is already used by transaction "
                        f"{tx_id} with other content"
                    )
                ids[key] = int(tx_id)
        for hand_chunk in _chunks(hands):
            for key, hand_id, kind in select_rows(conn, _TX_BY_HAND_IN, list(hand_chunk)):
                taken[(hand_id, kind)] = key
        new = [p for k, p in unique.items() if k not in ids]
        for p in new:
            other_key = taken.get((p.hand_id, p.kind))
            if other_key is not None:
                raise IdempotencyConflict(
                    f"hand {p.hand_id} already has a {p.kind} transaction (key {other_key!r})"
                )
        if not new:
            return [ids[p.key] for p in items]
        rows = [
            {
                "idempotency_key": p.key,
                "kind": p.kind,
                "hand_id": p.hand_id,
                "content_hash": p.hash,
                "reverses_tx_id": p.reverses_tx_id,
                "created_at_ms": at_ms,
                "memo": p.memo_text,
            }
            for p in new
        ]
        try:
            with retryable(conn):
                new_ids = _insert_transactions(conn, rows)
                insert_rows(
                    conn,
                    _P,
                    [
                        {"tx_id": tx_id, "line": line, "account": q.account, "amount": q.amount}
                        for tx_id, p in zip(new_ids, new, strict=True)
                        for line, q in enumerate(p.postings)
                    ],
                )
                _add_totals(conn, new)
        except sa.exc.IntegrityError as exc:
            if attempt or is_sqlite(conn):  # no other writer on SQLite: db.retryable
                raise IdempotencyConflict(f"ledger write refused: {exc.orig}") from exc
            continue
        ids.update(zip((p.key for p in new), new_ids, strict=True))
        return [ids[p.key] for p in items]
    raise AssertionError("unreachable")


def _totals_add(dialect: Any) -> Any:
    """The running totals' upsert (:func:`insert_of_rows`: on PostgreSQL one statement
    for every account of a commit)."""
    stmt = insert_of_rows(dialect, _T, ("account", "total", "settled", "voided"))
    return stmt.on_conflict_do_update(
        index_elements=[_T.c.account],
        set_={
            "total": _T.c.total + stmt.excluded.total,
            "settled": _T.c.settled + stmt.excluded.settled,
            "voided": _T.c.voided + stmt.excluded.voided,
        },
    )


# every settlement commit runs these: built once (the upsert once per dialect)
_TX_INSERT = _TX.insert().returning(_TX.c.tx_id, sort_by_parameter_order=True)
_TX_NEXT_ID = sa.select(sa.func.coalesce(sa.func.max(_TX.c.tx_id), 0) + 1)


def _insert_transactions(conn: Connection, rows: list[dict[str, Any]]) -> list[int]:
    """Insert the transaction ``rows`` and return their ids, in order.

    PostgreSQL returns them from one ``INSERT … RETURNING`` (its sequence). SQLite cannot
    return a batch's ids in order from one statement, so SQLAlchemy ran one ``INSERT …
    RETURNING`` per transaction: here the ids are the ones SQLite would give (an
    ``INTEGER PRIMARY KEY`` without ``AUTOINCREMENT`` takes the largest id plus one),
    read once and written with the rows in one ``executemany``. The write transaction
    holds SQLite's write lock from its ``BEGIN IMMEDIATE``, so no other writer can take
    them in between; were one to, the primary key refuses the batch and ``_insert``
    reads again."""
    if not is_sqlite(conn):
        return [int(x) for x in conn.execute(_TX_INSERT, rows).scalars()]
    first = int(select_params(conn, _TX_NEXT_ID, {})[0][0])
    ids = list(range(first, first + len(rows)))
    insert_rows(conn, _TX, [{"tx_id": i, **r} for i, r in zip(ids, rows, strict=True)])
    return ids


def _add_totals(conn: Connection, new: Sequence[_Pending]) -> None:
    """Add the postings of ``new`` to the running ``ledger_totals`` (a row an account,
    the accounts in order; on PostgreSQL in one statement), in the caller's
    transaction."""
    add: dict[str, list[int]] = {}
    for p in new:
        for acc in dict.fromkeys(q.account for q in p.postings):
            a = add.setdefault(acc, [0, 0, 0])
            a[1 if p.kind == "settle" else 2] += 1
        for q in p.postings:
            add[q.account][0] += q.amount
    if not add:
        return
    execute_rows(
        conn,
        per_dialect(conn, _totals_add),
        [
            {"account": acc, "total": t, "settled": n, "voided": v}
            for acc, (t, n, v) in sorted(add.items())
        ],
    )


# --------------------------------------------------------------------------- writes


def post_many(conn: Connection, txs: Sequence[LedgerTx], at_ms: int) -> list[int]:
    """Post settle transactions (idempotently); their ids, in order."""
    return _insert(conn, [_pending("settle", tx) for tx in txs], at_ms)


def post(conn: Connection, tx: LedgerTx, at_ms: int) -> int:
    return post_many(conn, [tx], at_ms)[0]


def void(conn: Connection, hand_id: str, reason: str, at_ms: int) -> int:
    """Reverse the hand's settle transaction; return the void transaction's id. Voiding
    an already voided hand returns the existing void (whatever its reason)."""
    existing = _find(conn, hand_id, "void")
    if existing is not None:
        return existing
    settle = transaction_for(conn, hand_id, "settle")
    tx = LedgerTx(
        idempotency_key=f"void:{hand_id}",
        hand_id=hand_id,
        postings=tuple(Posting(p.account, -p.amount) for p in settle.postings),
        memo={"reason": reason, "reverses_tx_id": settle.tx_id},
    )
    try:
        return _insert(conn, [_pending("void", tx, settle.tx_id)], at_ms)[0]
    except IdempotencyConflict:
        existing = _find(conn, hand_id, "void")
        if existing is None:
            raise
        return existing


# --------------------------------------------------------------------------- reads


def _find(conn: Connection, hand_id: str, kind: TxKind) -> int | None:
    q = sa.select(_TX.c.tx_id).where(_TX.c.hand_id == hand_id, _TX.c.kind == kind)
    value = conn.execute(q).scalar_one_or_none()
    return None if value is None else int(value)


def _records(conn: Connection, rows: Sequence[AnyRow]) -> list[LedgerRecord]:
    lines: dict[int, list[Posting]] = {int(r.tx_id): [] for r in rows}
    ids = list(lines)
    for i in range(0, len(ids), CHUNK):
        q = (
            sa.select(_P.c.tx_id, _P.c.account, _P.c.amount)
            .where(_P.c.tx_id.in_(ids[i : i + CHUNK]))
            .order_by(_P.c.tx_id, _P.c.line)
        )
        for p in conn.execute(q):
            lines[int(p.tx_id)].append(Posting(p.account, int(p.amount)))
    return [
        LedgerRecord(
            tx_id=int(r.tx_id),
            idempotency_key=r.idempotency_key,
            kind=r.kind,
            hand_id=r.hand_id,
            content_hash=bytes(r.content_hash),
            reverses_tx_id=None if r.reverses_tx_id is None else int(r.reverses_tx_id),
            created_at_ms=int(r.created_at_ms),
            memo=canonical.loads(r.memo),
            postings=tuple(lines[int(r.tx_id)]),
        )
        for r in rows
    ]


def get_transaction(conn: Connection, tx_id: int) -> LedgerRecord:
    r = conn.execute(sa.select(_TX).where(_TX.c.tx_id == tx_id)).first()
    if r is None:
        raise NotFound(f"no ledger transaction {tx_id}")
    return _records(conn, [r])[0]


def transaction_for(conn: Connection, hand_id: str, kind: TxKind = "settle") -> LedgerRecord:
    """The hand's settle (or void) transaction."""
    r = conn.execute(sa.select(_TX).where(_TX.c.hand_id == hand_id, _TX.c.kind == kind)).first()
    if r is None:
        raise NotFound(f"no {kind} transaction for hand {hand_id}")
    return _records(conn, [r])[0]


def transactions_for(conn: Connection, hand_id: str) -> list[LedgerRecord]:
    """All of the hand's transactions, oldest first (settle, then void if any)."""
    rows = conn.execute(sa.select(_TX).where(_TX.c.hand_id == hand_id).order_by(_TX.c.tx_id)).all()
    return _records(conn, rows)


def list_transactions(
    conn: Connection, *, after_tx_id: int = 0, limit: int = 1000
) -> list[LedgerRecord]:
    """Transactions in id order, for paging through the whole ledger."""
    rows = conn.execute(
        sa.select(_TX).where(_TX.c.tx_id > after_tx_id).order_by(_TX.c.tx_id).limit(max(0, limit))
    ).all()
    return _records(conn, rows)


def postings(conn: Connection, tx_id: int) -> tuple[Posting, ...]:
    return get_transaction(conn, tx_id).postings


def _starts(conn: Connection, prefix: str) -> sa.ColumnElement[bool]:
    """``ledger_totals.account`` starts with ``prefix``, as a primary-key range read: on
    SQLite (binary collation) the range bounds the scan (its LIKE with ESCAPE uses no
    index); PostgreSQL plans the LIKE on the index itself."""
    like = _T.c.account.startswith(prefix, autoescape=True)
    if conn.dialect.name != "sqlite" or not prefix:
        return like
    upper = prefix[:-1] + chr(ord(prefix[-1]) + 1)
    return sa.and_(_T.c.account >= prefix, _T.c.account < upper, like)


def balance(conn: Connection, account: str) -> int:
    """The account's balance, from its running total (one primary-key read)."""
    q = sa.select(_T.c.total).where(_T.c.account == account)
    return int(conn.execute(q).scalar_one_or_none() or 0)


def balances(conn: Connection, prefix: str | None = None) -> dict[str, int]:
    """Every account's balance, from the running totals (optionally only accounts
    whose name starts with ``prefix``)."""
    q = sa.select(_T.c.account, _T.c.total)
    if prefix:
        q = q.where(_starts(conn, prefix))
    return {r.account: int(r.total) for r in conn.execute(q.order_by(_T.c.account))}


def summed_balances(conn: Connection) -> dict[str, int]:
    """Every account's balance summed over all its postings (what the running totals
    must equal; the whole-log audit compares them)."""
    q = sa.select(_P.c.account, sa.func.sum(_P.c.amount).label("total")).group_by(_P.c.account)
    return {r.account: int(r.total) for r in conn.execute(q.order_by(_P.c.account))}


def rake_summary(
    conn: Connection,
    variant: str | None = None,
    since_ms: int | None = None,
    until_ms: int | None = None,
) -> list[RakeTotal]:
    """Net rake per variant (voids included) over ledger transactions created in
    ``since_ms <= t < until_ms``, ordered by variant."""
    if since_ms is None and until_ms is None:
        tq = sa.select(_T.c.account, _T.c.total, _T.c.settled, _T.c.voided).order_by(_T.c.account)
        if variant is not None:
            tq = tq.where(_T.c.account == rake_account(variant))
        else:
            tq = tq.where(_starts(conn, RAKE_PREFIX))
        return [
            RakeTotal(r.account[len(RAKE_PREFIX) :], int(r.total), int(r.settled) - int(r.voided))
            for r in conn.execute(tq)
        ]
    settled = sa.case((_TX.c.kind == "settle", _TX.c.tx_id))
    voided = sa.case((_TX.c.kind == "void", _TX.c.tx_id))
    q = (
        sa.select(
            _P.c.account,
            sa.func.sum(_P.c.amount).label("total"),
            sa.func.count(sa.distinct(settled)).label("settled"),
            sa.func.count(sa.distinct(voided)).label("voided"),
        )
        .select_from(_P.join(_TX, _TX.c.tx_id == _P.c.tx_id))
        .group_by(_P.c.account)
        .order_by(_P.c.account)
    )
    if variant is not None:
        q = q.where(_P.c.account == rake_account(variant))
    else:
        q = q.where(_P.c.account.startswith(RAKE_PREFIX, autoescape=True))
    if since_ms is not None:
        q = q.where(_TX.c.created_at_ms >= since_ms)
    if until_ms is not None:
        q = q.where(_TX.c.created_at_ms < until_ms)
    return [
        RakeTotal(r.account[len(RAKE_PREFIX) :], int(r.total), int(r.settled) - int(r.voided))
        for r in conn.execute(q)
    ]


# --------------------------------------------------------------------------- facade


class Ledger(Database):
    """Ledger reads, and single-operation writes (each its own transaction)."""

    def post(self, tx: LedgerTx, at_ms: int) -> int:
        with self._write() as conn:
            return post(conn, tx, at_ms)

    def post_many(self, txs: Sequence[LedgerTx], at_ms: int) -> list[int]:
        with self._write() as conn:
            return post_many(conn, txs, at_ms)

    def void(self, hand_id: str, reason: str, at_ms: int) -> int:
        with self._write() as conn:
            return void(conn, hand_id, reason, at_ms)

    def get_transaction(self, tx_id: int) -> LedgerRecord:
        with self._read() as conn:
            return get_transaction(conn, tx_id)

    def transaction_for(self, hand_id: str, kind: TxKind = "settle") -> LedgerRecord:
        with self._read() as conn:
            return transaction_for(conn, hand_id, kind)

    def transactions_for(self, hand_id: str) -> list[LedgerRecord]:
        with self._read() as conn:
            return transactions_for(conn, hand_id)

    def list_transactions(self, *, after_tx_id: int = 0, limit: int = 1000) -> list[LedgerRecord]:
        with self._read() as conn:
            return list_transactions(conn, after_tx_id=after_tx_id, limit=limit)

    def postings(self, tx_id: int) -> tuple[Posting, ...]:
        with self._read() as conn:
            return postings(conn, tx_id)

    def balance(self, account: str) -> int:
        with self._read() as conn:
            return balance(conn, account)

    def summed_balances(self) -> dict[str, int]:
        with self._read() as conn:
            return summed_balances(conn)

    def balances(self, prefix: str | None = None) -> dict[str, int]:
        with self._read() as conn:
            return balances(conn, prefix)

    def rake_summary(
        self,
        variant: str | None = None,
        since_ms: int | None = None,
        until_ms: int | None = None,
    ) -> list[RakeTotal]:
        with self._read() as conn:
            return rake_summary(conn, variant, since_ms, until_ms)
