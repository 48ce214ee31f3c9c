"""Tampering: one changed byte in the store, a forged seal, or a dealt card that is not
the committed shoe's — the audit fails and names the event. Also the export / audit /
replay round trip of the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import sqlalchemy as sa
from nacl.signing import SigningKey

from croupier import canonical
from croupier.audit import StoredSettlement, StreamLog
from croupier.events import Event, Seal, seal
from croupier.export import HandExport, dump, load
from croupier.games import base as g
from croupier.games.registry import engine
from croupier.pb.croupier.v1 import audit_pb2, gateway_pb2
from croupier.settlement import settle_state
from croupier.signing import FileSigner, Signer
from croupier.store import schema
from croupier_services import cli

from .harness import VARIANT, Cluster, event_of, flip_digit, metric, reforge

pytestmark = pytest.mark.integration

BETS = [(1, "banker", 10_000), (2, "player", 20_000), (3, "tie", 5_000)]
RANKS_SUITS = "shdc"


async def _settled_hands(c: Cluster, n: int) -> tuple[str, list[str]]:
    c.fix_seeds("tamper")
    table = await c.open_table("tamper")
    hands = [await c.play_hand(table, bets=BETS) for _ in range(n)]
    await c.wait_settled(n)
    await c.gw.CloseTable(gateway_pb2.CloseTableRequest(table_id=table))
    auditor = c.auditor()
    for hid in hands:
        rep = auditor.audit(hid)
        assert rep.verdict.value == "pass", (hid, rep.reason, rep.message)
    return table, hands


def _overwrite_payload(c: Cluster, e: Event, payload: bytes) -> None:
    """Change a stored event's payload behind the store's back."""
    ev = schema.events
    where = (ev.c.stream_id == e.stream) & (ev.c.seq == e.seq)
    with c.store.engine.begin() as conn:
        if c.store.dialect == "sqlite":
            conn.exec_driver_sql("DROP TRIGGER IF EXISTS events_no_update")
        else:
            # replica mode skips ordinary triggers for this transaction only
            conn.exec_driver_sql("SET LOCAL session_replication_role = replica")
        conn.execute(sa.update(ev).where(where).values(payload=payload))


async def test_one_changed_byte_fails_the_audit_at_that_event(
    cluster: Cluster, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    c = cluster
    _, (h1, h2, h3) = await _settled_hands(c, 3)

    # the store itself refuses the change
    bet = event_of(c.store.read_stream(h1), g.BETS_PLACED)
    with pytest.raises(sa.exc.DBAPIError, match="append-only"), c.store.engine.begin() as conn:
        conn.execute(
            sa.update(schema.events)
            .where((schema.events.c.stream_id == h1) & (schema.events.c.seq == bet.seq))
            .values(payload=flip_digit(bet.payload_bytes, "amount"))
        )
    assert c.store.read_stream(h1)[bet.seq] == bet
    assert c.auditor().audit(h1).verdict.value == "pass"

    # behind its back: a bet amount in hand 1, a card position in hand 2
    card = event_of(c.store.read_stream(h2), g.CARD_DEALT)
    _overwrite_payload(c, bet, flip_digit(bet.payload_bytes, "amount"))
    _overwrite_payload(c, card, flip_digit(card.payload_bytes, "pos"))
    assert c.store.read_stream(h1)[bet.seq].payload_bytes != bet.payload_bytes

    mismatches = metric("croupier_audit_mismatches_total")
    auditor = c.auditor()
    for hid, e in ((h1, bet), (h2, card)):
        rep = auditor.audit(hid)
        assert rep.verdict.value == "fail"
        assert (rep.stream, rep.seq, rep.reason) == (hid, e.seq, "broken_chain"), rep.message
        assert "hash does not match" in rep.message
    assert auditor.audit(h3).verdict.value == "pass"  # the other hands are untouched
    assert metric("croupier_audit_mismatches_total") == mismatches + 2

    # over gRPC
    r = await c.au.VerifyHand(audit_pb2.VerifyHandRequest(hand_id=h2))
    assert r.report.verdict == audit_pb2.AUDIT_VERDICT_FAIL
    assert (r.report.first_bad_stream, r.report.first_bad_seq) == (h2, card.seq)
    assert r.report.reason == "broken_chain"

    # and on the command line: non-zero, naming the event
    c.cli_env(monkeypatch)
    capsys.readouterr()
    assert cli.main(["audit", "--hand", h1]) == 1
    out = capsys.readouterr().out
    assert f"{h1}#{bet.seq}" in out and "broken_chain" in out
    capsys.readouterr()
    assert cli.main(["audit", "--hand", h3]) == 0
    signed = json.loads(capsys.readouterr().out.split("\naudit passed")[0])["keys"]["signed_by"]
    assert {k["producer"] for k in signed.values()} == {"dealer", "gateway", "rules", "settlement"}


# ----------------------------------------------------------------- exported hand files


def _export(x: HandExport, path: Path) -> Path:
    path.write_text(dump(x), encoding="utf-8")
    return path


def _audit_file(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, object]]:
    capsys.readouterr()
    rc = cli.main(["audit", "--file", str(path)])
    return rc, json.loads(capsys.readouterr().out)


def _swap_suit(card: str) -> str:
    rank, suit = card[0], card[1]
    return rank + RANKS_SUITS[(RANKS_SUITS.index(suit) + 1) % 4]


def _cheat(x: HandExport, signers: dict[str, Signer]) -> tuple[HandExport, int]:
    """The hand as a dishonest dealer, rule service and settlement acting together could
    log it: the first card replaced by the same rank in another suit (so every total,
    pair and payout stays the same), every later event re-chained, the outcome and the
    settlement recomputed, every seal re-signed with the real keys. Only the revealed
    seed can tell."""
    events = list(x.hand.events)
    dealt = event_of(events, g.CARD_DEALT)
    cards = dealt.payload["cards"]
    cards[0] = {**cards[0], "card": _swap_suit(cards[0]["card"])}
    changed: dict[int, dict[str, object]] = {dealt.seq: {"cards": cards}}
    eng = engine(VARIANT)
    steps = [
        (e.type, changed.get(e.seq, e.payload))
        for e in events
        if e.type not in (g.HAND_OUTCOME, g.HAND_SETTLED)
    ]
    state = eng.replay(x.hand_id, steps)
    hs = settle_state(eng, state)
    changed[event_of(events, g.HAND_OUTCOME).seq] = eng.outcome(state)
    changed[event_of(events, g.HAND_SETTLED).seq] = hs.settled_payload()
    new_events, new_seals = reforge(events, x.hand.seals, signers, changed)
    cheat = HandExport(
        x.hand_id,
        StreamLog(tuple(new_events), tuple(new_seals)),
        x.shoe,
        x.keys,
        StoredSettlement(hs.record_bytes, hs.postings),
        x.keyring,
    )
    return cheat, dealt.seq


def _forge_seal(x: HandExport, forger: Signer) -> tuple[HandExport, Seal]:
    """The hand's first dealer seal re-signed by ``forger``."""
    i, old = next((i, s) for i, s in enumerate(x.hand.seals) if s.producer == "dealer")
    heads = {e.seq: e for e in x.hand.events}
    forged = seal(forger, [heads[en.seq] for en in old.entries], old.sealed_at_ms)
    seals = list(x.hand.seals)
    seals[i] = forged
    return (
        HandExport(
            x.hand_id,
            StreamLog(x.hand.events, tuple(seals)),
            x.shoe,
            x.keys,
            x.settlement,
            x.keyring,
        ),
        old,
    )


async def test_exported_hands_audit_and_tampered_exports_fail(
    cluster: Cluster,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    c = cluster
    _, (hid,) = await _settled_hands(c, 1)
    c.cli_env(monkeypatch)

    # happy path: export, audit the file, replay it
    path = tmp_path / "hand.jsonl"
    capsys.readouterr()
    assert cli.main(["hand", "export", hid, "-o", str(path)]) == 0
    rc, rep = _audit_file(path, capsys)
    assert rc == 0 and rep["verdict"] == "pass" and rep["first_bad"] is None
    assert "fairness" in rep["checks"]  # type: ignore[operator]
    assert cli.main(["hand", "replay", str(path)]) == 0
    replay = json.loads(capsys.readouterr().out)
    stored = c.store.read_stream(hid)
    assert replay["signed"] is True and replay["verdict"] == "pass"
    assert canonical.dumps(replay["outcome"]) == event_of(stored, g.HAND_OUTCOME).payload_bytes
    assert canonical.dumps(replay["settlement"]) == bytes(c.store.get_settlement(hid).record)
    x = load(path.read_text(encoding="utf-8"))

    # the re-forging used below changes nothing by itself: a faithful copy passes
    ev, se = reforge(x.hand.events, x.hand.seals, c.signers, {})
    assert ev == list(x.hand.events)
    same = HandExport(
        x.hand_id, StreamLog(tuple(ev), tuple(se)), x.shoe, x.keys, x.settlement, x.keyring
    )
    rc, rep = _audit_file(_export(same, tmp_path / "same.jsonl"), capsys)
    assert rc == 0 and rep["verdict"] == "pass"

    # a card the revealed seed did not deal, in an otherwise perfect log
    cheat, seq = _cheat(x, c.signers)
    cheat_path = _export(cheat, tmp_path / "cheat.jsonl")
    rc, rep = _audit_file(cheat_path, capsys)
    assert rc == 1 and rep["verdict"] == "fail"
    bad = rep["first_bad"]
    assert isinstance(bad, dict)
    assert (bad["stream"], bad["seq"], bad["reason"]) == (hid, seq, "unfair_deal"), bad
    assert rep["checks"][-1] == "settlement"  # type: ignore[index]
    assert cli.main(["hand", "replay", str(cheat_path)]) == 1
    assert json.loads(capsys.readouterr().out)["verdict"] == "fail"

    # a forged dealer seal: the right key id with the wrong key, and a key nobody knows
    dealer = c.signers["dealer"]
    impostor = FileSigner("dealer", dealer.key_id, SigningKey.generate())
    for forger, reason in (
        (impostor, "bad_signature"),
        (FileSigner.generate("dealer"), "unknown_key"),
    ):
        forged, old = _forge_seal(x, forger)
        rc, rep = _audit_file(_export(forged, tmp_path / f"{reason}.jsonl"), capsys)
        assert rc == 1 and rep["verdict"] == "fail", reason
        bad = rep["first_bad"]
        assert isinstance(bad, dict)
        assert bad["reason"] == reason, bad
        # the report names the stream and an event the bad seal was to cover
        (entry,) = [en for en in old.entries if en.stream == hid]
        assert bad["stream"] == hid, bad
        assert isinstance(bad["seq"], int) and 0 <= bad["seq"] <= entry.seq, bad
