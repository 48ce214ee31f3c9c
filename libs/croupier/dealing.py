"""The dealer's core: tables, shoes and hands as signed event batches.

This module decides *what* the dealer appends; the dealer service decides *where*
(SQL store first, then JetStream). It holds the server seeds in memory and never puts
one in an event before the shoe is revealed. Randomness (the server seed) and the clock
are injected, so tests and replays are deterministic.

Each public operation returns a :class:`Batch`: the events it appended (all by one
producer), the seal that signs their chain heads, stream rows to register, and the
secret to keep (a new shoe's seed). Persist a batch atomically, then publish.

With ``seal_on_commit`` the operations leave their events unsealed and the caller seals
what it commits together with :meth:`Dealer.seal` — one seal per producer for however
many operations and hands the commit holds (each hand keeps the seals that cover it, for
its message). A seal names each stream's last event of that producer in the commit; the
chain behind it is covered by it, so the checks are those of one seal per operation.

Shoes: a variant with ``shoe.per_hand`` (the default) commits to a fresh seed for every
hand and reveals it when the hand closes; a shoe game (baccarat) deals many hands from
one committed shoe, stops at the cut card and reveals the seed when the shoe ends.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from croupier import fair
from croupier.accel import maker
from croupier.errors import (
    ActionRejected,
    AlreadyExists,
    BetRejected,
    FairnessError,
    InvalidInput,
    NotFound,
    RuleViolation,
)
from croupier.events import Event, Seal, StreamWriter, heads_of, seal
from croupier.games import base as g
from croupier.games.registry import engine as engine_for
from croupier.signing import Signer

_ID = re.compile(r"^[A-Za-z0-9_]{1,40}$")
_CLIENT_SEED = re.compile(r"^[\x21-\x7e]{1,64}$")


@dataclass(frozen=True, slots=True)
class StreamRow:
    stream_id: str
    kind: str  # "hand" | "shoe"
    variant: str
    table_id: str
    shoe_id: str | None
    opened_at_ms: int


@dataclass(frozen=True, slots=True)
class TableRow:
    """What a restarted dealer needs to resume a table (or to reopen it once closed)
    without reading its history; persisted with the batch that changes it."""

    table_id: str
    variant: str
    client_seed: str
    open: bool
    shoe_id: str | None  # the current shoe (revealed already for per-hand variants)
    shoe_count: int
    hand_count: int
    hand_id: str | None  # the unfinished hand
    carry: dict[str, Any]


_new_table_row = maker(TableRow)


@dataclass(slots=True)
class Batch:
    events: list[Event] = field(default_factory=list)
    seals: list[Seal] = field(default_factory=list)
    streams: list[StreamRow] = field(default_factory=list)
    secrets: list[tuple[str, bytes]] = field(default_factory=list)
    closed_hands: list[Hand] = field(default_factory=list)
    tables: list[TableRow] = field(default_factory=list)  # the tables' state after it
    # events left for :meth:`Dealer.seal` (``seal_on_commit``), with their signer, and
    # the seals it made, not yet given to the hands they cover (:meth:`Dealer.committed`)
    unsealed: list[tuple[Signer, list[Event]]] = field(default_factory=list)
    fresh_seals: list[Seal] = field(default_factory=list)

    def seals_of(self, hand: Hand) -> list[Seal]:
        """Every seal covering ``hand``: those it holds and those made for this batch."""
        fresh = [s for s in self.fresh_seals if any(e.stream == hand.hand_id for e in s.entries)]
        return [*hand.seals, *fresh]

    def extend(self, other: Batch) -> None:
        self.events += other.events
        self.seals += other.seals
        self.unsealed += other.unsealed
        self.fresh_seals += other.fresh_seals
        self.streams += other.streams
        self.secrets += other.secrets
        self.closed_hands += other.closed_hands
        self.tables += other.tables

    def empty(self) -> bool:
        return not (self.events or self.tables)


@dataclass
class Shoe:
    shoe_id: str
    shoe_no: int
    server_seed: bytes
    commitment: fair.Commitment
    order: list[str]
    writer: StreamWriter
    pos: int = 0
    cut: int = 0  # position of the cut card (no new hand once pos >= cut)
    hands: int = 0
    revealed: bool = False
    rolls: int = 0  # dice rolled from this shoe's seed so far
    seed_given: bool = False  # the player gave their own client seed (shoe.client_seed)

    def roll(self, faces: Sequence[int]) -> tuple[int, list[int]]:
        n = self.rolls
        c = self.commitment
        values = fair.roll(faces, self.server_seed, c.client_seed, c.nonce, n)
        self.rolls += 1
        return n, values

    def draw(self) -> tuple[int, str]:
        if self.pos >= len(self.order):
            raise RuleViolation(f"shoe {self.shoe_id} is exhausted", reason="shoe_exhausted")
        p = self.pos
        self.pos += 1
        return p, self.order[p]


@dataclass
class Hand:
    hand_id: str
    table_id: str
    shoe: Shoe
    state: g.HandState
    writer: StreamWriter
    events: list[Event] = field(default_factory=list)
    seals: list[Seal] = field(default_factory=list)


@dataclass
class Table:
    table_id: str
    variant: str
    client_seed: str
    per_hand_shoe: bool
    shoe: Shoe | None = None
    shoe_count: int = 0
    hand_count: int = 0
    hand: Hand | None = None
    carry: dict[str, Any] = field(default_factory=dict)  # the last closed hand's carry

    def row(self, open_: bool = True) -> TableRow:
        return _new_table_row(  # TableRow's fields in order
            self.table_id,
            self.variant,
            self.client_seed,
            open_,
            self.shoe.shoe_id if self.shoe else None,
            self.shoe_count,
            self.hand_count,
            self.hand.hand_id if self.hand else None,
            copy.deepcopy(self.carry),
        )


def _bet_items(bets: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The bets of a ``bets.placed`` payload from ``bets`` (seat, spot, amount)."""
    try:
        return [{"seat": x["seat"], "spot": x["spot"], "amount": x["amount"]} for x in bets]
    except (KeyError, TypeError) as e:
        raise BetRejected(f"malformed bet: {e}", reason="malformed") from e


def hand_id_for(table_id: str, hand_no: int) -> str:
    """A table's hands are numbered: ``<table>_h<n>``."""
    return f"{table_id}_h{hand_no}"


class Dealer:
    """All tables of one dealer process."""

    def __init__(
        self,
        dealer: Signer,
        gateway: Signer,
        *,
        clock_ms: Callable[[], int],
        seed_source: Callable[[], bytes] = fair.new_server_seed,
        seal_on_commit: bool = False,
        single_bet_events: bool = False,
    ) -> None:
        if dealer.producer != "dealer" or gateway.producer != "gateway":
            raise InvalidInput("Dealer needs a dealer and a gateway signer")
        self.seal_on_commit = seal_on_commit
        # one bet.placed per bet instead of one bets.placed per call: for readers older
        # than bets.placed, while a cluster is upgraded (CROUPIER_SINGLE_BET_EVENTS)
        self.single_bet_events = single_bet_events
        self.dealer = dealer
        self.gateway = gateway
        self.clock_ms = clock_ms
        self.seed_source = seed_source
        self.tables: dict[str, Table] = {}
        self.hands: dict[str, Hand] = {}
        self.past_table: Callable[[str], TableRow | None] = lambda _table_id: None
        """Where the dealer finds a table it does not hold (the store's registry): a
        table open elsewhere cannot be opened again, a closed one is reopened with its
        shoe and hand numbering continued."""

    # -- helpers ---------------------------------------------------------------------
    def table(self, table_id: str) -> Table:
        t = self.tables.get(table_id)
        if t is None:
            raise NotFound(f"table {table_id!r} is not open")
        return t

    def hand(self, hand_id: str) -> Hand:
        h = self.hands.get(hand_id)
        if h is None:
            raise NotFound(f"hand {hand_id!r} is not open at this dealer")
        return h

    def _sealed(self, signer: Signer, events: list[Event]) -> Batch:
        b = Batch(events=events)
        if events and self.seal_on_commit:
            b.unsealed.append((signer, events))
        elif events:
            b.seals.append(seal(signer, heads_of(events), self.clock_ms()))
        return b

    def seal(self, b: Batch) -> None:
        """Seal the events ``b`` holds unsealed (``seal_on_commit``): one seal per
        producer over each stream's last event of that producer, added to the batch's
        seals and to its ``fresh_seals``. The hands they cover get them once the batch
        is stored (:meth:`committed`); a closed hand's message takes them from
        :meth:`Batch.seals_of`."""
        if not b.unsealed:
            return
        by_signer: dict[str, tuple[Signer, list[Event]]] = {}
        for signer, events in b.unsealed:
            by_signer.setdefault(signer.producer, (signer, []))[1].extend(events)
        b.unsealed = []
        now = self.clock_ms()
        for signer, events in by_signer.values():
            s = seal(signer, heads_of(events), now)
            b.seals.append(s)
            b.fresh_seals.append(s)

    def committed(self, b: Batch) -> None:
        """``b`` is stored: the hands still open keep the seals made for it."""
        for s in b.fresh_seals:
            for stream in dict.fromkeys(e.stream for e in s.entries):
                h = self.hands.get(stream)
                if h is not None:
                    h.seals.append(s)
        b.fresh_seals = []

    # -- tables and shoes ------------------------------------------------------------
    def open_table(self, table_id: str, variant: str, client_seed: str = "") -> Batch:
        if not _ID.match(table_id):
            raise InvalidInput("table id must be 1-40 characters of A-Z a-z 0-9 _")
        if table_id in self.tables:
            raise AlreadyExists(f"table {table_id!r} is already open")
        eng = engine_for(variant)
        past = self.past_table(table_id)
        if past is not None and past.open:
            raise AlreadyExists(f"table {table_id!r} is already open")
        per_hand = bool(eng.config.raw.get("shoe", {}).get("per_hand", True))
        t = Table(table_id, variant, client_seed or table_id, per_hand)
        if past is not None:  # reopened: its ids go on where they stopped
            t.shoe_count, t.hand_count = past.shoe_count, past.hand_count
        self.tables[table_id] = t
        b = Batch() if per_hand else self._new_shoe(t)
        b.tables.append(t.row())
        return b

    def _new_shoe(self, t: Table) -> Batch:
        cfg = engine_for(t.variant).config
        t.shoe_count += 1
        shoe_id = f"{t.table_id}_s{t.shoe_count}"
        seed_ = self.seed_source()
        c = fair.Commitment(
            fair.ALGORITHM, fair.commitment(seed_), t.client_seed, t.shoe_count, cfg.deck
        )
        order = fair.shuffle(cfg.deck, seed_, c.client_seed, c.nonce)
        cut = len(order)
        shoe_cfg = cfg.raw.get("shoe", {})
        if "cut_card_from_end" in shoe_cfg:
            cut = len(order) - int(shoe_cfg["cut_card_from_end"])
        w = StreamWriter(shoe_id)
        w.append(
            self.dealer,
            g.SHOE_OPENED,
            {
                "table": t.table_id,
                "variant": t.variant,
                "shoe_no": t.shoe_count,
                "algorithm": c.algorithm,
                "commitment": c.commitment.hex(),
                "client_seed": c.client_seed,
                "nonce": c.nonce,
                "deck": cfg.deck.to_json_dict(),
                "cut": cut,
            },
        )
        t.shoe = Shoe(shoe_id, t.shoe_count, seed_, c, order, w, cut=cut)
        b = self._sealed(self.dealer, w.take())
        b.streams.append(StreamRow(shoe_id, "shoe", t.variant, t.table_id, None, self.clock_ms()))
        b.secrets.append((shoe_id, seed_))
        return b

    def _reveal(self, shoe: Shoe) -> Batch:
        shoe.writer.append(
            self.dealer,
            g.SHOE_REVEALED,
            {
                "server_seed": shoe.server_seed.hex(),
                "positions_used": shoe.pos,
                "hands": shoe.hands,
            },
        )
        shoe.revealed = True
        return self._sealed(self.dealer, shoe.writer.take())

    def open_shoe(self, table_id: str, client_seed: str | None = None) -> Batch:
        t = self.table(table_id)
        if t.hand is not None:
            raise ActionRejected(f"hand {t.hand.hand_id} is still open at {table_id}")
        if t.per_hand_shoe:
            raise InvalidInput(f"{t.variant} commits a new seed every hand; it has no shoe")
        b = Batch()
        if t.shoe is not None and not t.shoe.revealed:
            b.extend(self._reveal(t.shoe))
        if client_seed is not None:
            t.client_seed = client_seed
        b.extend(self._new_shoe(t))
        b.tables.append(t.row())
        return b

    def close_table(self, table_id: str) -> Batch:
        t = self.table(table_id)
        if t.hand is not None:
            raise ActionRejected(f"hand {t.hand.hand_id} is still open at {table_id}")
        b = Batch()
        if t.shoe is not None and not t.shoe.revealed:
            b.extend(self._reveal(t.shoe))
        del self.tables[table_id]
        b.tables.append(t.row(open_=False))
        return b

    # -- hands -----------------------------------------------------------------------
    def open_hand(
        self,
        table_id: str,
        seats: Sequence[Mapping[str, Any]],
        bets: Sequence[Mapping[str, Any]] = (),
        *,
        close_betting: bool = False,
    ) -> tuple[str, Batch]:
        """Open the next hand at ``table_id`` with ``seats``; with ``bets``, place them
        too, and with ``close_betting`` close its betting and deal what the rules ask
        (a hand without player decisions is then over): the batch holds what the calls
        :meth:`place_bets` and :meth:`close_betting` would add after the opening, the
        same events in the same order. All or nothing: the bets and the close are
        checked on a trial state of the hand before anything changes, so a refused bet
        leaves the table as it was (no hand, no shoe, no hand number used)."""
        t = self.table(table_id)
        if t.hand is not None:
            raise ActionRejected(f"hand {t.hand.hand_id} is still open at {table_id}")
        eng = engine_for(t.variant)
        try:
            seat_rows = [
                {"seat": s["seat"], "player": s["player"], "stack": s["stack"]} for s in seats
            ]
        except (KeyError, TypeError) as e:
            raise RuleViolation(f"malformed seat: {e}", reason="malformed") from e
        new_shoe = t.per_hand_shoe or (
            t.shoe is None or t.shoe.revealed or t.shoe.pos >= t.shoe.cut
        )
        hand_no = t.hand_count + 1
        hand_id = hand_id_for(table_id, hand_no)
        payload: dict[str, Any] = {
            "variant": t.variant,
            "config_version": eng.config.version,
            "table": table_id,
            "hand_no": hand_no,
            "shoe_hand_no": 1 if new_shoe else (t.shoe.hands + 1 if t.shoe else 1),
            "seats": seat_rows,
            "carry": copy.deepcopy(t.carry),
        }
        trial = eng.open(hand_id, {**payload, "shoe": "", "commitment": ""})  # no effects
        items = _bet_items(bets)
        for it in items:  # checked as place_bets would, each against those before it
            eng.step(trial, g.BET_PLACED, it)
        if close_betting:
            eng.verify(trial, g.BETTING_CLOSED, {})
        b = Batch()
        if new_shoe:
            if t.shoe is not None and not t.shoe.revealed:
                b.extend(self._reveal(t.shoe))
            b.extend(self._new_shoe(t))
        shoe = t.shoe
        assert shoe is not None
        t.hand_count = hand_no
        shoe.hands += 1
        payload["shoe"] = shoe.shoe_id
        payload["commitment"] = shoe.commitment.commitment.hex()
        state = eng.open(hand_id, payload)
        w = StreamWriter(hand_id)
        w.append(self.dealer, g.HAND_OPENED, payload)
        hand = Hand(hand_id, table_id, shoe, state, w)
        hb = self._flush(hand, self.dealer)
        hb.streams.append(
            StreamRow(hand_id, "hand", t.variant, table_id, shoe.shoe_id, self.clock_ms())
        )
        b.extend(hb)
        t.hand = hand
        self.hands[hand_id] = hand
        b.tables.append(t.row())
        if items:
            b.extend(self.place_bets(hand_id, items))
        if close_betting:
            b.extend(self.close_betting(hand_id))  # a hand over: its table's row again
        return hand_id, b

    def _flush(self, hand: Hand, signer: Signer) -> Batch:
        events = hand.writer.take()
        b = self._sealed(signer, events)
        hand.events += events
        hand.seals += b.seals
        return b

    def _append(self, hand: Hand, signer: Signer, type_: str, payload: Mapping[str, Any]) -> None:
        eng = engine_for(hand.state.variant)
        eng.verify(hand.state, type_, payload)
        hand.writer.append(signer, type_, payload)
        eng.apply(hand.state, type_, payload)

    def give_client_seed(self, hand_id: str, client_seed: str) -> Batch:
        """The player's own client seed for a hand that committed to a fresh seed (a
        single-player game), given after they saw the commitment and before anything
        is dealt or rolled: the shoe's order and rolls are drawn from (server seed, this
        seed, nonce) from now on. Written as a gateway-signed ``shoe.client_seed`` on the
        shoe's stream, so the auditor and the player re-derive the same order."""
        hand = self.hand(hand_id)
        t = self.tables[hand.table_id]
        shoe = hand.shoe
        if not t.per_hand_shoe or shoe.hands != 1:
            raise InvalidInput(
                f"{t.variant} deals many hands from one shoe; a player's own client seed "
                "is for games that commit a fresh seed every hand"
            )
        if not _CLIENT_SEED.match(client_seed):
            raise InvalidInput("a client seed is 1-64 printable ASCII characters")
        if shoe.pos or shoe.rolls or shoe.seed_given:
            raise ActionRejected(
                f"hand {hand_id}: the client seed comes before anything is dealt or rolled, once",
                reason="too_late",
            )
        c = replace(shoe.commitment, client_seed=client_seed)
        shoe.commitment = c
        shoe.order = fair.shuffle(c.deck, shoe.server_seed, c.client_seed, c.nonce)
        shoe.seed_given = True
        shoe.writer.append(
            self.gateway,
            g.SHOE_CLIENT_SEED,
            {"client_seed": client_seed, "hand": hand_id},
        )
        return self._sealed(self.gateway, shoe.writer.take())

    def place_bets(
        self, hand_id: str, bets: Iterable[Mapping[str, Any]], client_seed: str = ""
    ) -> Batch:
        """Place bets (all or nothing) as one ``bets.placed`` event, each checked
        against those before it; with ``client_seed``, the player's own seed first
        (:meth:`give_client_seed`), in the same batch."""
        hand = self.hand(hand_id)
        eng = engine_for(hand.state.variant)
        items = _bet_items(bets)
        if not items:
            raise BetRejected("no bets given", reason="empty")
        # All-or-nothing without copying the state: apply the bets to the live state
        # (each checked against the bets before it); if one is refused, or the client
        # seed is, rebuild the state from the hand's events, which hold none of them.
        try:
            for it in items:
                eng.step(hand.state, g.BET_PLACED, it)
            b = self.give_client_seed(hand_id, client_seed) if client_seed else Batch()
        except BaseException:
            hand.state = eng.replay(hand.hand_id, [(e.type, e.payload) for e in hand.events])
            raise
        if self.single_bet_events:
            for it in items:
                hand.writer.append(self.gateway, g.BET_PLACED, it)
        else:
            hand.writer.append(self.gateway, g.BETS_PLACED, {"bets": items})
        b.extend(self._flush(hand, self.gateway))
        return b

    def act(self, hand_id: str, seat: int, action: str, args: Mapping[str, Any]) -> Batch:
        hand = self.hand(hand_id)
        self._append(
            hand, self.gateway, g.ACTION_TAKEN, {"seat": seat, "action": action, "args": dict(args)}
        )
        b = self._flush(hand, self.gateway)
        b.extend(self._advance(hand))
        return b

    def _away_turn(self, hand: Hand) -> tuple[int, str, dict[str, Any]] | None:
        """The automatic move of the seat the rules wait on, if that seat is away."""
        if hand.state.closed or not hand.state.away:
            return None
        auto = engine_for(hand.state.variant).auto_action(hand.state)
        return auto if auto is not None and auto[0] in hand.state.away else None

    def expire(self, hand_id: str) -> Batch:
        """The player whose turn it is timed out (or left): play the rules' automatic
        move for them (:meth:`Engine.auto_action`), marked ``args["auto"] = "timeout"``."""
        hand = self.hand(hand_id)
        auto = engine_for(hand.state.variant).auto_action(hand.state)
        if auto is None:
            raise ActionRejected(f"nobody is waiting to act in hand {hand_id}", reason="no_turn")
        seat, action, args = auto
        return self.act(hand_id, seat, action, {**args, "auto": "timeout"})

    def close_betting(self, hand_id: str) -> Batch:
        hand = self.hand(hand_id)
        self._append(hand, self.dealer, g.BETTING_CLOSED, {})
        return self._advance(hand)

    def _advance(self, hand: Hand) -> Batch:
        """Deal what the rules ask for; play the turns of seats that are away; close the
        hand when it is over."""
        eng = engine_for(hand.state.variant)
        b = Batch()
        while True:
            req = eng.next_deal(hand.state)
            if req is None:
                auto = self._away_turn(hand)
                if auto is None:
                    break
                if hand.writer.pending:  # the dealer's events are sealed by the dealer
                    b.extend(self._flush(hand, self.dealer))
                seat, action, args = auto
                self._append(
                    hand,
                    self.gateway,
                    g.ACTION_TAKEN,
                    {"seat": seat, "action": action, "args": {**args, "auto": "timeout"}},
                )
                b.extend(self._flush(hand, self.gateway))
                continue
            if req.dice:
                roll_no, values = hand.shoe.roll(req.die_faces())
                self._append(
                    hand,
                    self.dealer,
                    g.DICE_ROLLED,
                    {"dice": values, "faces": list(req.die_faces()), "roll": roll_no},
                )
            for target in req.reveal:
                hidden = [
                    c["card"]
                    for e in [*hand.events, *hand.writer.pending]
                    if e.type == g.CARD_DEALT
                    for c in e.payload["cards"]
                    if c["to"] == target and not c["up"]
                ]
                self._append(hand, self.dealer, g.CARDS_REVEALED, {"to": target, "cards": hidden})
            if not req.cards:
                continue
            cards = []
            for d in req.cards:
                pos, card = hand.shoe.draw()
                cards.append({"to": d.to, "card": card, "pos": pos, "up": d.up})
            self._append(hand, self.dealer, g.CARD_DEALT, {"cards": cards})
        if eng.is_over(hand.state):
            carry = eng.carry(hand.state)
            self._append(
                hand,
                self.dealer,
                g.HAND_CLOSED,
                {"positions_used": hand.shoe.pos, "carry": carry},
            )
            b.extend(self._flush(hand, self.dealer))
            b.closed_hands.append(hand)
            t = self.tables[hand.table_id]
            t.carry = copy.deepcopy(carry)
            t.hand = None
            del self.hands[hand.hand_id]
            if t.per_hand_shoe:
                b.extend(self._reveal(hand.shoe))
            b.tables.append(t.row())
        elif hand.writer.pending:
            b.extend(self._flush(hand, self.dealer))
        return b


def restore_table(
    dealer: Dealer,
    row: TableRow,
    shoe_events: Sequence[Event],
    server_seed: bytes | None,
    hands: Sequence[tuple[Sequence[Event], Sequence[Seal]]],
) -> Table:
    """Rebuild an open table of a restarted dealer from its registry ``row`` and a
    bounded part of its log: the current shoe's events (none if it has no shoe yet),
    that shoe's kept seed (``None`` when the shoe is revealed already: its seed is in
    the reveal), and the table's latest hands (its last one or two; what the row's
    unfinished hand and the last closed hand hold). The shoe continues after the last
    card dealt and the last die rolled by those hands (a closed hand's
    ``positions_used`` says where it left the shoe); the unfinished hand is replayed
    through its engine and continues where it stopped."""
    if not row.open:
        raise InvalidInput(f"table {row.table_id} is closed")
    eng = engine_for(row.variant)
    per_hand = bool(eng.config.raw.get("shoe", {}).get("per_hand", True))
    t = Table(row.table_id, row.variant, row.client_seed, per_hand)
    t.shoe_count, t.hand_count, t.carry = row.shoe_count, row.hand_count, dict(row.carry)
    if shoe_events:
        t.shoe = _restore_shoe(shoe_events, server_seed, hands)
    elif row.shoe_id is not None:
        raise InvalidInput(f"table {row.table_id}: the log of shoe {row.shoe_id} is missing")
    if row.hand_id is not None:
        found = [(ev, se) for ev, se in hands if ev and ev[0].stream == row.hand_id]
        if not found or t.shoe is None:
            raise InvalidInput(f"table {row.table_id}: hand {row.hand_id} is not in the log")
        events, seals = found[0]
        if any(e.type == g.HAND_CLOSED for e in events):
            raise InvalidInput(f"hand {row.hand_id} is closed in the log, open in the registry")
        state = eng.replay(row.hand_id, [(e.type, e.payload) for e in events])
        hand = Hand(
            row.hand_id,
            t.table_id,
            t.shoe,
            state,
            StreamWriter.resume(events),
            list(events),
            list(seals),
        )
        t.hand = hand
        dealer.hands[hand.hand_id] = hand
    dealer.tables[t.table_id] = t
    return t


def _restore_shoe(
    shoe_events: Sequence[Event],
    server_seed: bytes | None,
    hands: Sequence[tuple[Sequence[Event], Sequence[Seal]]],
) -> Shoe:
    if shoe_events[0].type != g.SHOE_OPENED:
        raise InvalidInput("a shoe log starts with shoe.opened")
    sp = shoe_events[0].payload
    c = fair.Commitment.from_shoe_opened(sp)
    revealed = next((e for e in shoe_events if e.type == g.SHOE_REVEALED), None)
    if revealed is not None:
        server_seed = bytes.fromhex(str(revealed.payload["server_seed"]))
    given = [e for e in shoe_events if e.type == g.SHOE_CLIENT_SEED]
    if given:
        c = replace(c, client_seed=str(given[-1].payload["client_seed"]))
    if server_seed is None or fair.commitment(server_seed) != c.commitment:
        raise FairnessError(f"kept seed of {shoe_events[0].stream} does not match its commitment")
    shoe = Shoe(
        shoe_events[0].stream,
        int(sp["shoe_no"]),
        server_seed,
        c,
        [] if revealed else fair.shuffle(c.deck, server_seed, c.client_seed, c.nonce),
        StreamWriter.resume(shoe_events),
        cut=int(sp["cut"]),
        revealed=revealed is not None,
        seed_given=bool(given),
    )
    for events, _ in hands:
        if not events or events[0].payload.get("shoe") != shoe.shoe_id:
            continue
        shoe.hands = max(shoe.hands, int(events[0].payload.get("shoe_hand_no", 1)))
        for e in events:
            if e.type == g.CARD_DEALT:
                for card in e.payload["cards"]:
                    shoe.pos = max(shoe.pos, int(card["pos"]) + 1)
            elif e.type == g.DICE_ROLLED:
                shoe.rolls = max(shoe.rolls, int(e.payload["roll"]) + 1)
            elif e.type == g.HAND_CLOSED:
                shoe.pos = max(shoe.pos, int(e.payload.get("positions_used", 0)))
    if revealed is not None:
        shoe.pos = int(revealed.payload.get("positions_used", shoe.pos))
        shoe.hands = int(revealed.payload.get("hands", shoe.hands))
    return shoe
