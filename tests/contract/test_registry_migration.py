"""Upgrading a store written before the table registry: revision 0002 fills
``dealer_tables`` from the log (a table whose latest shoe is not revealed is open, with
its unfinished hand; any other is closed, so it can be reopened without reusing an id)
and copies each event's table onto it; the dealer then resumes from the filled
registry."""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path

import pytest
import sqlalchemy as sa

from croupier import dealing, events
from croupier.dealing import Dealer
from croupier.signing import FileSigner, Signer
from croupier.store import Store, migrate, schema
from croupier.store.secrets import SeedBox
from croupier_services.dealer import DealerCore

SEATS = [{"seat": s, "player": f"p{s}", "stack": 1_000_000} for s in (1, 2)]
COPIED = ("keys", "streams", "events", "seals", "seal_heads", "dealer_secrets")


@pytest.fixture
def old_engine(
    engine_at_revision: Callable[[str], AbstractContextManager[sa.Engine]],
) -> Iterator[sa.Engine]:
    """A database at revision 0001 (before the registry)."""
    with engine_at_revision("0001") as eng:
        yield eng


def core_on(store: Store, signers: dict[str, Signer]) -> DealerCore:
    clock = itertools.count(1_000)
    seeds = (bytes([n]) * 32 for n in itertools.count(1))
    d = Dealer(
        signers["dealer"],
        signers["gateway"],
        clock_ms=lambda: next(clock),
        seed_source=lambda: next(seeds),
    )
    return DealerCore(d, store, None, seed_box=SeedBox(bytes([3]) * 32))


async def write_history(core: DealerCore) -> None:
    d = core.dealer
    await core.commit("bac", d.open_table("bac", "baccarat"))
    for _ in range(2):
        hid, b = d.open_hand("bac", SEATS)
        await core.commit("bac", b)
        await core.commit("bac", d.place_bets(hid, [{"seat": 1, "spot": "tie", "amount": 1000}]))
        await core.commit("bac", d.close_betting(hid))
    hid, b = d.open_hand("bac", SEATS)  # left open with a bet
    await core.commit("bac", b)
    await core.commit("bac", d.place_bets(hid, [{"seat": 2, "spot": "player", "amount": 3000}]))
    await core.commit("gone", d.open_table("gone", "baccarat"))
    await core.commit("gone", d.close_table("gone"))
    await core.commit("nn", d.open_table("nn", "niuniu.hundred"))
    hid, b = d.open_hand("nn", SEATS)
    await core.commit("nn", b)
    await core.commit("nn", d.place_bets(hid, [{"seat": 1, "spot": "fu", "amount": 100}]))
    await core.commit("nn", d.close_betting(hid))


async def test_0002_fills_the_registry_from_an_old_log(
    old_engine: sa.Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the log as the code of that time wrote it: version-1 seals (no version column)
    monkeypatch.setattr(dealing, "seal", functools.partial(events.seal, version=1))
    signers = {p: FileSigner.generate(p) for p in ("dealer", "gateway")}
    scratch = Store.open(f"sqlite:///{tmp_path / 'scratch.sqlite'}", upgrade=True)
    for s in signers.values():
        scratch.put_key(s.public_entry())
    await write_history(core_on(scratch, signers))
    # the same log as the old schema held it: no registry, no table on the events
    with scratch.engine.connect() as src, old_engine.begin() as dst:
        for name in COPIED:
            t = schema.metadata.tables[name]
            rows = [dict(r) for r in src.execute(sa.select(t).order_by(*t.primary_key)).mappings()]
            if name == "seals":
                assert {r.pop("version") for r in rows} == {1}
            if name == "events":  # the old schema had no table_id; positions renumber
                rows = [
                    {k: v for k, v in r.items() if k not in ("table_id", "global_pos")}
                    for r in rows
                ]
            cols = [sa.column(c) for c in rows[0]]
            dst.execute(sa.table(name, *cols).insert(), rows)
    scratch.close()
    migrate(old_engine)
    store = Store(old_engine)
    rows = {r.table_id: r for r in (store.get_table(t) for t in ("bac", "gone", "nn")) if r}
    assert {t: r.status for t, r in rows.items()} == {
        "bac": "open",
        "gone": "closed",
        "nn": "closed",  # its shoe was revealed with its hand: nothing says it is still open
    }
    bac = rows["bac"]
    assert (bac.shoe_id, bac.shoe_count, bac.hand_count, bac.hand_id) == ("bac_s1", 1, 3, "bac_h3")
    assert (rows["nn"].hand_count, rows["nn"].shoe_count) == (1, 1)
    with old_engine.connect() as c:
        missing = c.execute(
            sa.select(sa.func.count())
            .select_from(
                schema.events.join(
                    schema.streams, schema.streams.c.stream_id == schema.events.c.stream_id
                )
            )
            .where(
                sa.or_(
                    schema.events.c.table_id.is_(None),
                    schema.events.c.table_id != schema.streams.c.table_id,
                )
            )
        ).scalar_one()
    assert missing == 0
    # a dealer on the upgraded store resumes the open table and reopens the others
    core = core_on(store, signers)
    assert await core.recover() == (1, 3)  # bac; bac_h1, bac_h2, nn_h1 await an outcome
    t = core.dealer.table("bac")
    assert t.hand is not None and t.hand.hand_id == "bac_h3" and t.shoe is not None
    await core.commit("bac", core.dealer.close_betting("bac_h3"))
    await core.commit("nn", core.dealer.open_table("nn", "niuniu.hundred"))
    hid, b = core.dealer.open_hand("nn", SEATS)
    await core.commit("nn", b)
    assert hid == "nn_h2" and core.dealer.table("nn").shoe.shoe_id == "nn_s2"  # type: ignore[union-attr]
