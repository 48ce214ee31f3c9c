"""Fair dealing a player can check alone: cards leave the shoe strictly in order (a
dealer that skips positions fails the audit, within a hand and across a shoe's hands),
and a player of a single-player game gives their own client seed after seeing the
commitment; README's worked example verifies with ``croupier fair verify`` and with the
20 lines of Python it shows."""

from __future__ import annotations

import hashlib
import itertools
import re
import subprocess
import sys
from pathlib import Path

import pytest

from croupier import fair
from croupier.audit import HandFacts, ShoeFacts, Verdict, reconcile
from croupier.dealing import Dealer
from croupier.errors import ActionRejected, InvalidInput
from croupier.games import base as g
from croupier.testing import DEALER, GATEWAY, T0, DealerRun, seat_rows
from croupier_services.cli import main

ROOT = Path(__file__).resolve().parents[2]
BACCARAT_SEATS = seat_rows([1, 2], 10**7)
BACCARAT_BETS = [(1, "banker", 1000), (2, "player", 1000)]


def _baccarat(label: str) -> DealerRun:
    return DealerRun("baccarat", label, BACCARAT_SEATS, BACCARAT_BETS)


def test_a_dealer_that_skips_a_position_fails_the_audit() -> None:
    run = _baccarat("skip")
    hid, b = run.dealer.open_hand(run.table, BACCARAT_SEATS)
    run.keep(b)
    run.keep(run.dealer.place_bets(hid, [{"seat": 1, "spot": "banker", "amount": 1000}]))
    hand = run.dealer.hand(hid)
    hand.shoe.pos += 1  # skip position 0: every card dealt is still the seed's own card there
    run.keep(run.dealer.close_betting(hid))
    rep, _ = run.audit(hid)
    assert rep.verdict is Verdict.FAIL and rep.reason == "shoe_order", rep.to_json_dict()
    assert "position 1 dealt where position 0 was next" in rep.message
    # an honest hand of the same shoe still passes its own audit
    run2 = _baccarat("skip")
    h2 = run2.open()
    assert run2.audit(h2.hand_id)[0].verdict is Verdict.PENDING_REVEAL


def test_skipping_positions_between_two_hands_of_a_shoe_is_named_by_the_whole_log() -> None:
    run = _baccarat("between")
    h1 = run.open()
    run.dealer.tables[run.table].shoe.pos += 3  # type: ignore[union-attr]  # skip 3 cards
    h2 = run.open()
    h3 = run.open()
    for h in (h1, h2, h3):  # each hand is fine on its own
        assert run.audit(h.hand_id)[0].verdict is Verdict.PENDING_REVEAL
    facts = [HandFacts.of(run.finish(h.hand_id)[0].events) for h in (h1, h2, h3)]
    shoe = ShoeFacts.of(run.stream(run.shoe_of(h1.hand_id)).events)
    assert shoe is not None and all(f is not None for f in facts)
    found = [
        f
        for f in reconcile([f for f in facts if f], {shoe.shoe_id: shoe})
        if f.reason != "ledger_missing"
    ]  # no ledger given here: only the shoe is reconciled
    assert [(f.reason, f.hand_id) for f in found] == [("shoe_order", h2.hand_id)]
    assert "next position was" in found[0].message


def _video_poker(seed: bytes) -> tuple[Dealer, str]:
    clock = itertools.count(T0)
    d = Dealer(DEALER, GATEWAY, clock_ms=lambda: next(clock), seed_source=lambda: seed)
    d.open_table("vp1", "videopoker.lucky5")
    return d, "vp1"


def test_a_players_own_client_seed_draws_the_order_and_the_audit_passes() -> None:
    run = DealerRun("videopoker.lucky5", "own-seed", seat_rows([1], 10**6))
    hid, b = run.dealer.open_hand(run.table, seat_rows([1], 10**6))
    run.keep(b)
    opened = next(e for e in b.events if e.type == g.SHOE_OPENED).payload
    seed = run.dealer.hand(hid).shoe.server_seed
    # the player sees the commitment, then chooses their seed
    run.keep(run.dealer.place_bets(hid, [{"seat": 1, "spot": "main", "amount": 100}], "my-seed-42"))
    run.keep(run.dealer.close_betting(hid))
    run.keep(run.dealer.act(hid, 1, "draw", {}))
    rep, _ = run.audit(hid)
    assert rep.verdict is Verdict.PASS, rep.to_json_dict()
    dealt = [
        c["card"]
        for e in run.stream(hid).events
        if e.type == g.CARD_DEALT
        for c in e.payload["cards"]
    ]
    order = fair.shuffle(fair.Commitment.from_shoe_opened(opened).deck, seed, "my-seed-42", 1)
    assert dealt == order[: len(dealt)]
    assert (
        dealt
        != fair.shuffle(
            fair.Commitment.from_shoe_opened(opened).deck, seed, opened["client_seed"], 1
        )[: len(dealt)]
    )
    # the seed is on the shoe's log, signed by the gateway; a second one is refused
    shoe = run.stream(run.shoe_of(hid))
    given = [e for e in shoe.events if e.type == g.SHOE_CLIENT_SEED]
    assert [(e.producer, e.payload["client_seed"]) for e in given] == [("gateway", "my-seed-42")]


def test_a_client_seed_is_refused_too_late_twice_badly_or_in_a_shoe_game() -> None:
    d, table = _video_poker(bytes(32))
    hid, _ = d.open_hand(table, seat_rows([1], 10**6))
    with pytest.raises(InvalidInput):
        d.give_client_seed(hid, "has space")
    with pytest.raises(InvalidInput):
        d.give_client_seed(hid, "x" * 65)
    d.give_client_seed(hid, "first")
    with pytest.raises(ActionRejected):
        d.give_client_seed(hid, "second")
    d2, t2 = _video_poker(bytes(32))
    h2, _ = d2.open_hand(t2, seat_rows([1], 10**6))
    d2.place_bets(h2, [{"seat": 1, "spot": "main", "amount": 100}])
    d2.close_betting(h2)  # five cards are out
    with pytest.raises(ActionRejected):
        d2.give_client_seed(h2, "late")
    run = _baccarat("shoe-game")
    h3, _ = run.dealer.open_hand(run.table, BACCARAT_SEATS)
    with pytest.raises(InvalidInput):
        run.dealer.give_client_seed(h3, "mine")


def test_a_second_client_seed_on_the_log_fails_the_audit() -> None:
    run = DealerRun("videopoker.lucky5", "two-seeds", seat_rows([1], 10**6))
    hid, b = run.dealer.open_hand(run.table, seat_rows([1], 10**6))
    run.keep(b)
    run.keep(run.dealer.give_client_seed(hid, "one"))
    run.dealer.hand(hid).shoe.seed_given = False  # a dealer that lets the seed change
    run.keep(run.dealer.give_client_seed(hid, "two"))
    run.keep(run.dealer.place_bets(hid, [{"seat": 1, "spot": "main", "amount": 100}]))
    run.keep(run.dealer.close_betting(hid))
    run.keep(run.dealer.act(hid, 1, "draw", {}))
    rep, _ = run.audit(hid)
    assert rep.verdict is Verdict.FAIL and rep.reason == "unfair_deal", rep.to_json_dict()
    assert "one client seed" in rep.message


# --------------------------------------------------------------------------- README

README = (ROOT / "README.md").read_text(encoding="utf-8")


def _readme_block(marker: str) -> str:
    m = re.search(re.escape(marker) + r".*?```(?:python|sh)\n(.*?)```", README, re.S)
    assert m, marker
    return m.group(1)


def test_the_readme_worked_example_is_a_real_hand() -> None:
    seed = hashlib.sha256(b"croupier fair-deal example").digest()
    d, table = _video_poker(seed)
    hid, b = d.open_hand(table, [{"seat": 1, "player": "alice", "stack": 100_000}])
    opened = next(e for e in b.events if e.type == g.SHOE_OPENED).payload
    d.place_bets(hid, [{"seat": 1, "spot": "main", "amount": 1000}], client_seed="alice-7f3a")
    events = [*d.close_betting(hid).events, *d.act(hid, 1, "draw", {}).events]
    cards = [c for e in events if e.type == g.CARD_DEALT for c in e.payload["cards"]]
    revealed = next(e for e in events if e.type == g.SHOE_REVEALED).payload
    text = ",".join(f"{c['pos']}:{c['card']}" for c in cards)
    cmd = _readme_block("<!-- fair-verify-command -->")
    assert revealed["server_seed"] in cmd and opened["commitment"] in cmd
    assert f"--cards {text}" in " ".join(cmd.replace("\\\n", " ").split())
    assert "--client-seed alice-7f3a --nonce 1" in cmd


def test_the_readme_command_and_python_verify_it(capsys: pytest.CaptureFixture[str]) -> None:
    cmd = _readme_block("<!-- fair-verify-command -->").replace("\\\n", " ").split()
    assert cmd[0] == "croupier"
    assert main(cmd[1:]) == 0
    assert "all 10 dealt cards match" in capsys.readouterr().out
    code = _readme_block("<!-- fair-verify-python -->")
    assert len(code.strip().splitlines()) <= 22
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    assert out.split() == ["3d", "Ts", "6s", "8d", "7c", "Js", "2s", "5d", "2h", "8s"]


def test_a_restarted_dealer_keeps_dealing_from_the_players_seed() -> None:
    from croupier.dealing import restore_table

    seed = hashlib.sha256(b"restart").digest()
    d, table = _video_poker(seed)
    hid, b1 = d.open_hand(table, seat_rows([1], 10**6))
    b2 = d.place_bets(hid, [{"seat": 1, "spot": "main", "amount": 100}], client_seed="kept")
    b3 = d.close_betting(hid)  # five cards dealt, the hand waits on the draw
    batches = [b1, b2, b3]
    shoe_id = d.hand(hid).shoe.shoe_id
    shoe_events = [e for b in batches for e in b.events if e.stream == shoe_id]
    hand_events = [e for b in batches for e in b.events if e.stream == hid]
    row = d.table(table).row()  # the registry's row of the table
    d2, _ = _video_poker(seed)
    del d2.tables[table]
    t = restore_table(d2, row, shoe_events, seed, [(hand_events, [])])
    assert t.shoe is not None and t.shoe.commitment.client_seed == "kept"
    assert t.shoe.order == fair.shuffle(t.shoe.commitment.deck, seed, "kept", 1)
    assert t.shoe.pos == 5 and t.shoe.seed_given
    with pytest.raises(ActionRejected):
        d2.give_client_seed(hid, "again")
