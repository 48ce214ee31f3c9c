"""What the money reports read: settled hands in a time window, straight from the ledger
(``ledger_transactions`` and their ``ledger_postings``), the settlement record stored
with each transaction, and the hand's stakes as the log recorded them (``hand.opened``
seats and the bets of ``bets.placed`` and ``bet.placed`` events). Hands whose settlement
was voided are left out.
The arithmetic is :mod:`croupier.report`'s."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from croupier.games import base as g
from croupier.store import schema
from croupier.store.db import Database

_TX = schema.ledger_transactions
_P = schema.ledger_postings
_ST = schema.settlements
_E = schema.events
_S = schema.streams
CHUNK = 400


@dataclass
class HandMoney:
    """One settled hand as the ledger and the log have it."""

    hand_id: str
    variant: str
    table_id: str
    settled_at_ms: int  # the ledger transaction's time
    record: dict[str, Any]
    postings: list[tuple[str, int]] = field(default_factory=list)
    players: dict[int, str] = field(default_factory=dict)  # seat -> player
    bets: list[tuple[int, str, int]] = field(default_factory=list)  # (seat, spot, amount)


def settled_hands(
    conn: Connection,
    since_ms: int,
    until_ms: int,
    *,
    variant: str | None = None,
    table_id: str | None = None,
) -> list[HandMoney]:
    """Every hand whose settle transaction was created in ``since_ms <= t < until_ms``
    and was not voided, ordered by transaction id."""
    void = sa.alias(_TX, "v")
    q = (
        sa.select(
            _TX.c.tx_id,
            _TX.c.hand_id,
            _TX.c.created_at_ms,
            _ST.c.variant,
            _ST.c.table_id,
            _ST.c.record,
        )
        .select_from(_TX.join(_ST, _ST.c.tx_id == _TX.c.tx_id))
        .where(_TX.c.kind == "settle")
        .where(_TX.c.created_at_ms >= since_ms, _TX.c.created_at_ms < until_ms)
        .where(~sa.exists().where(void.c.reverses_tx_id == _TX.c.tx_id))
        .order_by(_TX.c.tx_id)
    )
    if variant is not None:
        q = q.where(_ST.c.variant == variant)
    if table_id is not None:
        q = q.where(_ST.c.table_id == table_id)
    hands: dict[int, HandMoney] = {}
    for r in conn.execute(q):
        hands[int(r.tx_id)] = HandMoney(
            str(r.hand_id),
            str(r.variant),
            str(r.table_id),
            int(r.created_at_ms),
            json.loads(bytes(r.record)),
        )
    ids = list(hands)
    for i in range(0, len(ids), CHUNK):
        part = ids[i : i + CHUNK]
        for p in conn.execute(
            sa.select(_P.c.tx_id, _P.c.account, _P.c.amount)
            .where(_P.c.tx_id.in_(part))
            .order_by(_P.c.tx_id, _P.c.line)
        ):
            hands[int(p.tx_id)].postings.append((str(p.account), int(p.amount)))
    by_hand = {h.hand_id: h for h in hands.values()}
    names = list(by_hand)
    for i in range(0, len(names), CHUNK):
        hand_part = names[i : i + CHUNK]
        for e in conn.execute(
            sa.select(_E.c.stream_id, _E.c.type, _E.c.payload)
            .where(
                _E.c.stream_id.in_(hand_part),
                _E.c.type.in_((g.HAND_OPENED, g.BET_PLACED, g.BETS_PLACED)),
            )
            .order_by(_E.c.stream_id, _E.c.seq)
        ):
            h = by_hand[str(e.stream_id)]
            p = json.loads(bytes(e.payload))
            if e.type == g.HAND_OPENED:
                h.players = {int(s["seat"]): str(s["player"]) for s in p["seats"]}
            else:
                h.bets += [
                    (int(b["seat"]), str(b["spot"]), int(b["amount"]))
                    for b in g.placed_bets(str(e.type), p)
                ]
    return list(hands.values())


@dataclass(frozen=True)
class TableInfo:
    table_id: str
    variant: str
    hands: int
    first_opened_ms: int
    last_opened_ms: int


def list_tables(conn: Connection, *, variant: str | None = None) -> list[TableInfo]:
    """Tables that have hands, with their variant, hand count and first/last hand
    opening time, ordered by table id."""
    q = (
        sa.select(
            _S.c.table_id,
            _S.c.variant,
            sa.func.count().label("n"),
            sa.func.min(_S.c.opened_at_ms).label("first"),
            sa.func.max(_S.c.opened_at_ms).label("last"),
        )
        .where(_S.c.kind == "hand")
        .group_by(_S.c.table_id, _S.c.variant)
        .order_by(_S.c.table_id, _S.c.variant)
    )
    if variant is not None:
        q = q.where(_S.c.variant == variant)
    return [
        TableInfo(str(r.table_id), str(r.variant), int(r.n), int(r.first), int(r.last))
        for r in conn.execute(q)
    ]


class ReportReads(Database):
    """Report reads of the store facade."""

    def settled_hands(
        self,
        since_ms: int,
        until_ms: int,
        *,
        variant: str | None = None,
        table_id: str | None = None,
    ) -> list[HandMoney]:
        with self._read() as conn:
            return settled_hands(conn, since_ms, until_ms, variant=variant, table_id=table_id)

    def list_tables(self, *, variant: str | None = None) -> list[TableInfo]:
        with self._read() as conn:
            return list_tables(conn, variant=variant)


__all__: Sequence[str] = ["HandMoney", "ReportReads", "TableInfo", "list_tables", "settled_hands"]
