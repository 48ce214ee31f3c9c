"""A restarted dealer resumes from the log: the shoe continues at the next card and an
unfinished hand continues where it stopped; closed hands that never got an outcome are
republished."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from croupier import fair
from croupier.dealing import Dealer
from croupier.events import verify_chain
from croupier.games import base as g
from croupier.signing import Signer
from croupier.store import EventStore, Outbox
from croupier.store.secrets import SeedBox
from croupier.testing import bets_of
from croupier_services.dealer import DealerCore
from croupier_services.keys import TrustedKeys, init_keys
from croupier_services.runtime import load_signers, open_store

pytestmark = pytest.mark.integration

SEATS = [
    {"seat": 1, "player": "ann", "stack": 1_000_000},
    {"seat": 2, "player": "bo", "stack": 1_000_000},
]


class RecordingBus:
    def __init__(self) -> None:
        self.items: list[tuple[str, bytes, str]] = []

    async def publish_many(self, items: list[tuple[str, bytes, str]]) -> int:
        self.items += items
        return len(items)

    async def publish_each(
        self, items: list[tuple[str, bytes, str]], timeout_s: float = 5.0
    ) -> list[bool]:
        self.items += items
        return [True] * len(items)


async def relay_all(core: DealerCore) -> None:
    """What the dealer's outbox relay publishes, now (and the rows it published
    deleted, as its next commit or its run loop would)."""
    while await core.relay.drain_once():
        pass
    core.relay.delete_due(now=True)


SEED_BOX = SeedBox(b"\x07" * 32)  # the dealer's seed key, the same across its restarts


def dealer_signers(store: EventStore, keys: Path) -> dict[str, Signer]:
    """The dealer service's keys (dealer and gateway) from a keys directory made once by
    ``keys init``, as the service loads them."""
    if not (keys / "keyring.json").exists():
        init_keys(keys)
    return load_signers(store, str(keys), ("dealer",), TrustedKeys.from_dir(keys))


def core_for(store: EventStore, keys: Path, seeds: list[bytes], bus: object = None) -> DealerCore:
    signers = dealer_signers(store, keys)
    clock = itertools.count(1_000)
    dealer = Dealer(
        signers["dealer"],
        signers["gateway"],
        clock_ms=lambda: next(clock),
        seed_source=lambda: seeds.pop(0),
    )
    return DealerCore(dealer, store, bus, seed_box=SEED_BOX)  # type: ignore[arg-type]


async def test_restart_resumes_shoe_and_open_hand(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'r.sqlite'}"
    store = open_store(url)
    seed = bytes(range(32))
    core = core_for(store, tmp_path / "keys", [seed])
    await core.commit("t1", core.dealer.open_table("t1", "baccarat", "cs"))
    for _ in range(3):
        hid, b = core.dealer.open_hand("t1", SEATS)
        await core.commit("t1", b)
        await core.commit(
            "t1", core.dealer.place_bets(hid, [{"seat": 1, "spot": "banker", "amount": 1000}])
        )
        await core.commit("t1", core.dealer.close_betting(hid))
    used = core.dealer.table("t1").shoe.pos  # type: ignore[union-attr]
    hid, b = core.dealer.open_hand("t1", SEATS)
    await core.commit("t1", b)
    await core.commit(
        "t1", core.dealer.place_bets(hid, [{"seat": 2, "spot": "player", "amount": 2000}])
    )
    store.close()

    # a new process: same store and keys, no memory of the tables
    store2 = open_store(url)
    bus = RecordingBus()
    core2 = core_for(store2, tmp_path / "keys", [], bus)
    tables, republished = await core2.recover()
    assert tables == 1 and republished == 3  # the first core had no bus: never published
    t = core2.dealer.table("t1")
    assert t.shoe is not None and t.shoe.pos == used and t.hand_count == 4
    assert t.hand is not None and t.hand.hand_id == hid
    b = core2.dealer.close_betting(hid)
    await core2.commit("t1", b)
    events = store2.read_stream(hid)
    verify_chain(events)
    assert events[-1].type == g.HAND_CLOSED
    order = fair.shuffle(t.shoe.commitment.deck, seed, "cs", 1)
    dealt = [
        (c["pos"], c["card"]) for e in events if e.type == g.CARD_DEALT for c in e.payload["cards"]
    ]
    assert dealt[0][0] == used
    assert all(order[p] == c for p, c in dealt)
    # the resumed hand was published on close (through the outbox, after the three
    # hands the first dealer committed there)
    await relay_all(core2)
    assert [m for _, _, m in bus.items][-1] == f"hand:{hid}"
    assert len(bus.items) == 4


async def test_closed_hands_without_outcome_are_republished(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'r.sqlite'}"
    store = open_store(url)
    core = core_for(store, tmp_path / "keys", [bytes(32)])
    await core.commit("t2", core.dealer.open_table("t2", "baccarat"))
    hid, b = core.dealer.open_hand("t2", SEATS)
    await core.commit("t2", b)
    await core.commit("t2", core.dealer.close_betting(hid))  # no bus: never published
    bus = RecordingBus()
    core2 = core_for(open_store(url), tmp_path / "keys", [], bus)
    assert await core2.recover() == (1, 1)
    await relay_all(core2)
    assert bus.items[0][2] == f"hand:{hid}" and bus.items[0][0] == "croupier.hand.baccarat.t2"


async def test_a_start_republishes_in_the_background_a_slice_at_a_time(tmp_path: Path) -> None:
    """A service's start restores the tables only (``republish=False``: its start does
    not read every hand of the window); :meth:`DealerCore.republish_pages` then finds
    the hands closed without an outcome slice by slice of opening time, each once."""
    url = f"sqlite:///{tmp_path / 'r.sqlite'}"
    store = open_store(url)
    core = core_for(store, tmp_path / "keys", [bytes(32)])
    await core.commit("t4", core.dealer.open_table("t4", "baccarat"))
    hands = []
    for _ in range(3):
        hid, b = core.dealer.open_hand("t4", SEATS)
        await core.commit("t4", b)
        await core.commit("t4", core.dealer.close_betting(hid))  # no bus: never published
        hands.append(hid)
    opened = [store.stream_info(h).opened_at_ms for h in hands]
    assert len(set(opened)) == 3  # three slices of 1 ms apart at least
    outbox = Outbox(store.engine)  # published, then lost by the stream
    assert outbox.delete(outbox.pending("dealer", 100)) > 0
    bus = RecordingBus()
    core2 = core_for(open_store(url), tmp_path / "keys", [], bus)
    core2.dealer.clock_ms = lambda: max(opened) + 5  # a restart later on
    assert await core2.recover(republish=False) == (1, 0)
    await relay_all(core2)
    assert bus.items == []
    assert await core2.republish_pages(window_ms=10_000, step_ms=1) == 3
    await relay_all(core2)
    assert [m for _, _, m in bus.items] == [f"hand:{h}" for h in hands]


async def test_a_wrong_kept_seed_refuses_to_resume(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'r.sqlite'}"
    store = open_store(url)
    core = core_for(store, tmp_path / "keys", [bytes(32)])
    b = core.dealer.open_table("t3", "baccarat")
    b.secrets = [(sid, bytes([7]) * 32) for sid, _ in b.secrets]  # simulate a corrupted secret
    core.persist(b)
    core2 = core_for(open_store(url), tmp_path / "keys", [])
    with pytest.raises(Exception, match="does not match its commitment"):
        await core2.recover()


def test_signers_are_stable_across_restarts(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'k.sqlite'}")
    a = dealer_signers(store, tmp_path / "keys")
    b = dealer_signers(store, tmp_path / "keys")
    assert set(a) == {"dealer", "gateway"}  # the dealer holds no rules or settlement key
    assert {k: s.key_id for k, s in a.items()} == {k: s.key_id for k, s in b.items()}
    assert isinstance(a["dealer"], Signer)


async def test_a_failed_commit_rebuilds_the_table_from_the_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'f.sqlite'}")
    core = core_for(store, tmp_path / "keys", [bytes(range(32))])
    await core.commit("t4", core.dealer.open_table("t4", "baccarat"))
    hid, b = core.dealer.open_hand("t4", SEATS)
    await core.commit("t4", b)
    before = store.count_events()

    real = store.transaction

    def broken() -> object:
        raise OSError("disk full")

    monkeypatch.setattr(store, "transaction", broken)
    bets = core.dealer.place_bets(hid, [{"seat": 1, "spot": "banker", "amount": 1000}])
    with pytest.raises(OSError):
        await core.commit("t4", bets)
    monkeypatch.setattr(store, "transaction", real)
    assert store.count_events() == before
    # the dealer forgot the unstored bet: the hand continues from what the log holds
    h = core.dealer.hand(hid)
    assert [e.type for e in h.events] == [g.HAND_OPENED]
    await core.commit(
        "t4", core.dealer.place_bets(hid, [{"seat": 2, "spot": "tie", "amount": 1000}])
    )
    await core.commit("t4", core.dealer.close_betting(hid))
    events = store.read_stream(hid)
    verify_chain(events)
    assert bets_of(events) == [{"amount": 1000, "seat": 2, "spot": "tie"}]


def clocked_core(store: EventStore, keys: Path, now: list[int]) -> DealerCore:
    signers = dealer_signers(store, keys)
    seeds = (bytes([n]) * 32 for n in itertools.count(1))
    dealer = Dealer(
        signers["dealer"],
        signers["gateway"],
        clock_ms=lambda: now[0],
        seed_source=lambda: next(seeds),
    )
    return DealerCore(dealer, store, None, seed_box=SEED_BOX)


async def test_the_turn_clock_plays_overdue_turns_and_a_restart_keeps_the_carry(
    tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path / 'c.sqlite'}"
    store = open_store(url)
    now = [1_000_000]
    core = clocked_core(store, tmp_path / "keys", now)
    limit = 15_000  # blackjack.multi's timeouts.turn_ms
    await core.commit("t1", core.dealer.open_table("t1", "blackjack.multi"))
    hid, b = core.dealer.open_hand("t1", SEATS)
    await core.commit("t1", b)
    await core.commit(
        "t1",
        core.dealer.place_bets(
            hid,
            [
                {"seat": 1, "spot": "main", "amount": 1200},
                {"seat": 2, "spot": "main", "amount": 900},
            ],
        ),
    )
    await core.commit("t1", core.dealer.close_betting(hid))
    # not yet overdue: nothing happens
    now[0] += limit - 1
    assert await core.expire_overdue(now[0]) == 0
    played = 0
    while hid in core.dealer.hands:
        now[0] += limit
        n = await core.expire_overdue(now[0])
        assert n == 1
        played += n
    events = store.read_stream(hid)
    autos = [e for e in events if e.type == g.ACTION_TAKEN]
    assert len(autos) == played and all(e.payload["args"] == {"auto": "timeout"} for e in autos)
    assert events[-1].type == g.HAND_CLOSED
    carry = events[-1].payload["carry"]
    assert carry == {"last_bets": {"ann": 1200, "bo": 900}}
    # the next hand's betting times out: 续押 for both, from the carry
    hid2, b = core.dealer.open_hand("t1", SEATS)
    await core.commit("t1", b)
    assert store.read_stream(hid2)[0].payload["carry"] == carry
    now[0] += limit
    assert await core.expire_overdue(now[0]) == 1
    store.close()
    # a restarted dealer still knows the carry and the hand in progress
    store2 = open_store(url)
    core2 = clocked_core(store2, tmp_path / "keys", now)
    await core2.recover()
    t = core2.dealer.table("t1")
    assert t.carry == carry and t.hand is not None and t.hand.hand_id == hid2
    assert {s: p.bet for s, p in t.hand.state.play.items()} == {1: 1200}  # type: ignore[attr-defined]
    store2.close()
