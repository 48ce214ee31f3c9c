"""托管 to the end, for every variant: a seat that goes ``away`` (the player left) is played
by the rules' automatic move (``Engine.auto_action``) at every turn, by the dealer, in
the log as ordinary actions marked ``auto``. With every seat away the dealer plays a
whole hand alone: it must close, settle zero-sum and audit PASS."""

from __future__ import annotations

import hashlib
import itertools

import pytest

from croupier.audit import StoredSettlement, StreamLog, Verdict, audit_hand
from croupier.dealing import Batch, Dealer
from croupier.errors import ActionRejected
from croupier.events import make_event, seal
from croupier.games import base as g
from croupier.games.registry import engine, variants
from croupier.settlement import settle_state
from croupier.signing import FileSigner, KeyRegistry

SIGNERS = {
    p: FileSigner.from_seed(p, f"{p}-k1", bytes([n]) * 32)
    for n, p in enumerate(("dealer", "gateway", "rules", "settlement"), 1)
}
REGISTRY = KeyRegistry(s.public_entry() for s in SIGNERS.values())


def seats_for(variant: str) -> list[dict[str, object]]:
    n = min(4, engine(variant).max_seats or 4)
    return [{"seat": s, "player": f"p{s}", "stack": 10**8} for s in range(1, n + 1)]


def signed(log: StreamLog, type_: str, producer: str, payload: object, at: int) -> StreamLog:
    last, s = log.events[-1], SIGNERS[producer]
    ev = make_event(last.stream, last.seq + 1, type_, s.producer, s.key_id, last.hash, payload)
    return StreamLog((*log.events, ev), (*log.seals, seal(s, [ev], at)))


@pytest.mark.parametrize("variant", variants())
def test_a_hand_with_every_seat_away_is_played_to_the_end_and_audits(variant: str) -> None:
    clock = itertools.count(1_700_000_000_000)
    seeds = (hashlib.sha256(f"away {n}".encode()).digest() for n in itertools.count())
    d = Dealer(
        SIGNERS["dealer"],
        SIGNERS["gateway"],
        clock_ms=lambda: next(clock),
        seed_source=lambda: next(seeds),
    )
    batches: list[Batch] = [d.open_table("t1", variant)]
    hid, b = d.open_hand("t1", seats_for(variant))
    batches.append(b)
    for s in seats_for(variant):
        batches.append(d.act(hid, int(s["seat"]), g.AWAY, {}))  # type: ignore[call-overload]
    if hid in d.hands:
        with pytest.raises(ActionRejected) as err:
            d.act(hid, 1, g.AWAY, {})
        assert err.value.reason == "already_away"
        batches.append(d.close_betting(hid))
    assert hid not in d.hands, f"{variant}: the hand waits on nobody's automatic move"
    events = tuple(e for x in batches for e in x.events if e.stream == hid)
    seals = tuple(s for x in batches for s in x.seals if any(e.stream == hid for e in s.entries))
    assert events[-1].type == g.HAND_CLOSED
    autos = [e for e in events if e.type == g.ACTION_TAKEN and e.payload["action"] != g.AWAY]
    assert all(e.payload["args"].get("auto") == "timeout" for e in autos)
    eng = engine(variant)
    state = eng.replay(hid, [(e.type, e.payload) for e in events])
    log = signed(StreamLog(events, seals), g.HAND_OUTCOME, "rules", eng.outcome(state), 1)
    hs = settle_state(eng, state)
    assert sum(n for _, n in hs.postings) == 0
    log = signed(log, g.HAND_SETTLED, "settlement", hs.settled_payload(), 2)
    batches.append(d.close_table("t1"))
    shoe_id = str(events[0].payload["shoe"])
    shoe = StreamLog(
        tuple(e for x in batches for e in x.events if e.stream == shoe_id),
        tuple(s for x in batches for s in x.seals if any(e.stream == shoe_id for e in s.entries)),
    )
    rep = audit_hand(hid, log, shoe, REGISTRY, StoredSettlement(hs.record_bytes, hs.postings))
    assert rep.verdict is Verdict.PASS, rep.to_json_dict()
