"""Helpers for tests that run whole hands through the dealer core the way the cluster does.

A hand's life in the cluster spans four producers: the dealer
(:class:`croupier.dealing.Dealer`) writes the hand and shoe streams, the gateway signs
the players' actions, the rule service appends ``hand.outcome`` and the settlement
service ``hand.settled``; the audit (:func:`croupier.audit.audit_hand`) replays all of
it. This module holds one fixed set of those producers' keys and a :class:`DealerRun`
that drives a dealer with a counting clock and numbered seeds, keeps every batch it
writes and finishes and audits a hand from them, so that a family's tests say only what
is particular to its games. For tests that drive an engine without a dealer,
:func:`dealt_from` and :func:`rolled_from` write the dealer's answer to a
:class:`~croupier.games.base.DealRequest`, and :func:`settles_of` counts the hands an
engine settles.

Everything here is deterministic (fixed keys, a clock counting from :data:`T0`, seeds
hashed from a label and a number), so a test's hands are the same on every run. The
module imports no test framework: its helpers return what they build and leave the
assertions to the caller.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from croupier import fair
from croupier.audit import AuditReport, StoredSettlement, StreamLog, audit_hand
from croupier.dealing import Batch, Dealer, Hand
from croupier.events import GENESIS, Event, Seal, heads_of, make_event, seal
from croupier.games import base as g
from croupier.games.registry import engine as engine_for
from croupier.money import RoundingStep, SettlementResult
from croupier.money.record import RECORD_VERSION
from croupier.settlement import HandSettlement, settle_state
from croupier.signing import FileSigner, KeyRegistry, Signer

__all__ = [
    "DEALER",
    "GATEWAY",
    "REGISTRY",
    "RULES",
    "SETTLEMENT",
    "SIGNERS",
    "T0",
    "DealerRun",
    "append_signed",
    "bet_rows",
    "bets_of",
    "dealt_from",
    "finish",
    "numbered_seeds",
    "rechain",
    "rolled_from",
    "seat_rows",
    "stream_of",
]

DEALER = FileSigner.from_seed("dealer", "dealer-k1", bytes([1]) * 32)
GATEWAY = FileSigner.from_seed("gateway", "gateway-k1", bytes([2]) * 32)
RULES = FileSigner.from_seed("rules", "rules-k1", bytes([3]) * 32)
SETTLEMENT = FileSigner.from_seed("settlement", "settlement-k1", bytes([4]) * 32)
SIGNERS: Mapping[str, FileSigner] = {s.producer: s for s in (DEALER, GATEWAY, RULES, SETTLEMENT)}
"""The four producers by name (``dealer``, ``gateway``, ``rules``, ``settlement``)."""
REGISTRY = KeyRegistry(s.public_entry() for s in SIGNERS.values())
"""The public keys the audit checks every seal against."""
T0 = 1_700_000_000_000
"""The first tick of a run's clock (ms); the rule and settlement services sign at
``T0 + 10**6`` and ``T0 + 10**6 + 1``."""

SeatRow = dict[str, Any]
"""One seat of ``Dealer.open_hand``: ``{"seat": n, "player": ..., "stack": ...}``."""


def seat_rows(seats: Iterable[int], stack: int) -> list[SeatRow]:
    """Seats numbered ``seats``, player ``p<n>`` at seat n, each with ``stack``."""
    return [{"seat": n, "player": f"p{n}", "stack": stack} for n in seats]


def bet_rows(bets: Iterable[tuple[int, str, int]]) -> list[dict[str, Any]]:
    """``Dealer.place_bets`` rows from ``(seat, spot, amount)`` triples."""
    return [{"seat": s, "spot": spot, "amount": a} for s, spot, a in bets]


def bets_of(events: Iterable[Event]) -> list[Mapping[str, Any]]:
    """Every bet a log places, in order: each ``bets.placed`` event's bets and each
    (older) ``bet.placed`` event's one."""
    return [b for e in events for b in g.placed_bets(e.type, e.payload)]


def numbered_seeds(label: str, start: int = 1) -> Iterator[bytes]:
    """Server seeds ``sha256("<label> seed <n>")`` for n = start, start + 1, ..."""
    return (hashlib.sha256(f"{label} seed {n}".encode()).digest() for n in itertools.count(start))


def dealt_from(order: Sequence[str], pos: int, req: g.DealRequest) -> dict[str, Any]:
    """The ``card.dealt`` payload answering ``req`` from a dealing ``order`` whose first
    ``pos`` cards are gone (request row i gets position ``pos + i``), as the dealer
    writes it; the next deal starts at ``pos + len(req.cards)``."""
    return {
        "cards": [
            {"to": d.to, "card": order[pos + i], "pos": pos + i, "up": d.up}
            for i, d in enumerate(req.cards)
        ]
    }


def settles_of(engine: g.Engine[Any]) -> list[g.HandState]:
    """The states ``engine`` settles from now on, in order: its ``settle`` wrapped on
    this instance (take an engine of its own, not the registry's shared one), so a test
    can count how often a hand's money is worked out."""
    seen: list[g.HandState] = []
    settle = engine.settle

    def counted(state: Any) -> Any:
        seen.append(state)
        return settle(state)

    engine.settle = counted  # type: ignore[method-assign]
    return seen


def rolled_from(
    req: g.DealRequest, seed: bytes, roll_no: int, client_seed: str = "prop", nonce: int = 1
) -> dict[str, Any]:
    """The ``dice.rolled`` payload answering ``req`` as the hand's ``roll_no``-th roll of
    the fair RNG (:func:`croupier.fair.roll`) under ``seed``, ``client_seed``, ``nonce``."""
    faces = list(req.die_faces())
    return {
        "dice": fair.roll(faces, seed, client_seed, nonce, roll_no),
        "faces": faces,
        "roll": roll_no,
    }


def stream_of(batches: Iterable[Batch], stream: str) -> StreamLog:
    """One stream's events and the seals covering them, gathered from dealer batches."""
    kept = list(batches)
    events = tuple(e for b in kept for e in b.events if e.stream == stream)
    seals = tuple(s for b in kept for s in b.seals if any(x.stream == stream for x in s.entries))
    return StreamLog(events, seals)


def append_signed(log: StreamLog, type_: str, signer: Signer, payload: Any, at: int) -> StreamLog:
    """``log`` with one more event by ``signer``, chained to its last and sealed at ``at``."""
    last = log.events[-1]
    ev = make_event(
        last.stream, last.seq + 1, type_, signer.producer, signer.key_id, last.hash, payload
    )
    return StreamLog((*log.events, ev), (*log.seals, seal(signer, [ev], at)))


def finish(
    engine: g.Engine[Any], hand_id: str, dealt: StreamLog, record_version: int = RECORD_VERSION
) -> tuple[StreamLog, HandSettlement]:
    """The rule service's ``hand.outcome`` and the settlement service's ``hand.settled``
    appended to a dealt hand's log, with the settlement they record (written as record
    version ``record_version``)."""
    state = engine.replay(hand_id, [(x.type, x.payload) for x in dealt.events])
    with_outcome = append_signed(dealt, g.HAND_OUTCOME, RULES, engine.outcome(state), T0 + 10**6)
    hs = settle_state(engine, state, record_version)
    settled = append_signed(
        with_outcome, g.HAND_SETTLED, SETTLEMENT, hs.settled_payload(), T0 + 10**6 + 1
    )
    return settled, hs


def rechain(stream: str, specs: Sequence[tuple[str, str, Any]]) -> StreamLog:
    """A freshly chained and sealed stream from ``(type, producer, payload)`` specs: how
    a forger holding every key would rewrite a log (event i sealed at ``T0 + i``)."""
    events: list[Event] = []
    seals: list[Seal] = []
    prev = GENESIS
    for i, (type_, producer, payload) in enumerate(specs):
        s = SIGNERS[producer]
        ev = make_event(stream, i, type_, s.producer, s.key_id, prev, payload)
        prev = ev.hash
        events.append(ev)
        seals.append(seal(s, heads_of([ev]), T0 + i))
    return StreamLog(tuple(events), tuple(seals))


@dataclass
class DealerRun:
    """One table of ``variant`` on a dealer with a counting clock (from :data:`T0`) and
    the seeds :func:`numbered_seeds` ``(seed_label, seed_base)``, keeping every batch
    the dealer writes so that any stream can be read back (:meth:`stream`), finished by
    the rule and settlement services (:meth:`finish`) and audited (:meth:`audit`).

    ``seats`` and ``bets`` are what :meth:`open` seats and bets when it is given none.
    Pass each batch a test asks the dealer for directly through :meth:`keep`.
    """

    variant: str
    seed_label: str = "test"
    seats: Sequence[Mapping[str, Any]] = ()
    bets: Sequence[tuple[int, str, int]] = ()
    seed_base: int = 1
    table: str = "t1"
    batches: list[Batch] = field(default_factory=list)
    dealer: Dealer = field(init=False)

    def __post_init__(self) -> None:
        clock = itertools.count(T0)
        seeds = numbered_seeds(self.seed_label, self.seed_base)
        self.dealer = Dealer(
            DEALER, GATEWAY, clock_ms=lambda: next(clock), seed_source=lambda: next(seeds)
        )
        self.keep(self.dealer.open_table(self.table, self.variant))

    @property
    def engine(self) -> g.Engine[Any]:
        """The variant's engine."""
        return engine_for(self.variant)

    def keep(self, batch: Batch) -> Batch:
        """Keep a batch the dealer wrote; returns it."""
        self.batches.append(batch)
        return batch

    def open(
        self,
        seats: Sequence[Mapping[str, Any]] | None = None,
        bets: Iterable[tuple[int, str, int]] | None = None,
        *,
        close: bool = True,
    ) -> Hand:
        """Open a hand (``seats``, else the run's), place ``bets`` ``(seat, spot,
        amount)`` (else the run's) if any, and unless ``close`` is false close the
        betting. The hand is returned even when closing the betting finished it."""
        hid, b = self.dealer.open_hand(self.table, [dict(r) for r in (seats or self.seats)])
        self.keep(b)
        rows = bet_rows(self.bets if bets is None else bets)
        if rows:
            self.keep(self.dealer.place_bets(hid, rows))
        hand = self.dealer.hand(hid)
        if close:
            self.keep(self.dealer.close_betting(hid))
        return hand

    def stream(self, stream: str) -> StreamLog:
        """Everything kept so far of one stream (a hand's, a shoe's or the table's)."""
        return stream_of(self.batches, stream)

    def shoe_of(self, hand_id: str) -> str:
        """The shoe stream a hand was dealt from (named in its ``hand.opened``)."""
        opened = self.stream(hand_id).events[0]
        return str(opened.payload["shoe"])

    def finish(
        self, hand_id: str, log: StreamLog | None = None, record_version: int = RECORD_VERSION
    ) -> tuple[StreamLog, HandSettlement]:
        """:func:`finish` on the hand's kept log (or on ``log``, e.g. a forged one)."""
        return finish(self.engine, hand_id, log or self.stream(hand_id), record_version)

    def audit(
        self, hand_id: str, log: StreamLog | None = None, record_version: int = RECORD_VERSION
    ) -> tuple[AuditReport, HandSettlement]:
        """Finish the hand's log (or ``log``) and audit it against its shoe and the stored
        settlement, as the audit service does; returns the report and the settlement.
        ``record_version``: the settlement record version the hand is recorded with."""
        full, hs = self.finish(hand_id, log, record_version)
        shoe = self.stream(self.shoe_of(hand_id))
        stored = StoredSettlement(hs.record_bytes, hs.postings)
        return audit_hand(hand_id, full, shoe, REGISTRY, stored), hs


def banker_rake_by_comparison(
    result: SettlementResult, banker: str, carried: int, rate: Fraction
) -> int:
    """What a per-comparison rake takes from ``banker``, recomputed from the rounded
    payments: ``rate`` of each payment the banker received (one per comparison won),
    truncated one by one, at most what the banker still holds of what it ``carried``."""
    rounding = next(x for x in result.steps if isinstance(x, RoundingStep))
    won = sum(
        rate.numerator * line.paid // rate.denominator
        for line in rounding.payments
        if line.payee == banker
    )
    return min(won, max(0, carried + result.deltas[banker] + result.rake[banker]))


def store_counts(url: str) -> dict[str, int]:
    """What a store holds after a drill or a bench run: hands closed and settled,
    anything done twice (outcomes, settlements, ledger transactions), hands with exactly
    one settlement transaction, the ledger's sum, unbalanced transactions, dead letters
    and the outbox's depth."""
    from croupier.store import Store

    store = Store.from_url(url)
    try:
        with store.engine.connect() as c:

            def one(sql: str) -> int:
                return int(c.exec_driver_sql(sql).scalar_one() or 0)

            return {
                "closed": one(
                    "SELECT count(DISTINCT stream_id) FROM events WHERE type = 'hand.closed'"
                ),
                "closed_events": one("SELECT count(*) FROM events WHERE type = 'hand.closed'"),
                "settled": one("SELECT count(*) FROM settlements"),
                "double_outcomes": one(
                    "SELECT count(*) FROM (SELECT stream_id FROM events WHERE type = "
                    "'hand.outcome' GROUP BY stream_id HAVING count(*) > 1) x"
                ),
                "double_settled": one(
                    "SELECT count(*) FROM (SELECT stream_id FROM events WHERE type = "
                    "'hand.settled' GROUP BY stream_id HAVING count(*) > 1) x"
                ),
                "double_ledger": one(
                    "SELECT count(*) FROM (SELECT hand_id FROM ledger_transactions "
                    "WHERE kind = 'settle' GROUP BY hand_id HAVING count(*) > 1) x"
                ),
                "single_ledger": one(
                    "SELECT count(*) FROM (SELECT hand_id FROM ledger_transactions "
                    "WHERE kind = 'settle' GROUP BY hand_id HAVING count(*) = 1) x"
                ),
                "ledger_sum": one("SELECT coalesce(sum(amount), 0) FROM ledger_postings"),
                "unbalanced_tx": one(
                    "SELECT count(*) FROM (SELECT tx_id FROM ledger_postings GROUP BY "
                    "tx_id HAVING sum(amount) <> 0) x"
                ),
                "dead_letters": one("SELECT count(*) FROM dead_letters"),
                "outbox": one("SELECT count(*) FROM outbox"),
            }
    finally:
        store.close()


class ScratchDatabase:
    """A database of its own on the PostgreSQL server ``admin_url`` names: created now,
    dropped (with its sessions) by :meth:`close`. For drills and benchmarks that must not
    touch the server's other databases."""

    def __init__(self, admin_url: str, prefix: str) -> None:
        import uuid

        import sqlalchemy as sa

        from croupier.store import normalise_url

        self.admin = sa.create_engine(normalise_url(admin_url), isolation_level="AUTOCOMMIT")
        self.name = f"{prefix}_{uuid.uuid4().hex[:10]}"
        with self.admin.connect() as c:
            c.exec_driver_sql(f'CREATE DATABASE "{self.name}"')
        self.url = str(
            sa.make_url(normalise_url(admin_url)).set(database=self.name).render_as_string(False)
        )

    def close(self) -> None:
        with self.admin.connect() as c:
            c.exec_driver_sql(f'DROP DATABASE "{self.name}" WITH (FORCE)')
        self.admin.dispose()
