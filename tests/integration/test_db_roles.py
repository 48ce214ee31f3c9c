"""Least privilege in SQL and sealed secrets.

On PostgreSQL (``CROUPIER_TEST_DATABASE_URL``), in a schema of its own with roles of its
own: the dealer, rules, settlement and audit services each run their real code over a
real nats-server logged in as their own role, a hand goes dealt → ruled → settled →
audited, and then each role is refused what its service does not need — in particular
reading or changing a server seed with another service's role. On every backend: the
seed is sealed at rest, and UPDATE or DELETE on history is refused."""

from __future__ import annotations

import asyncio
import os
import secrets
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

from croupier.bus.embedded import EmbeddedNats
from croupier.bus.jetstream import Bus
from croupier.dealing import Dealer
from croupier.errors import IntegrityError
from croupier.signing import PRODUCERS
from croupier.store import Store, normalise_url
from croupier.store.roles import SERVICES, create_roles, drop_roles, role_name
from croupier.store.secrets import SeedBox
from croupier_services.audit import Auditor
from croupier_services.dealer import DealerCore
from croupier_services.keys import TrustedKeys, init_keys, key_path, load_signer
from croupier_services.rules import RulesService
from croupier_services.settlement import SettlementWorker

from .harness import PG_ENV, now_ms, reset_stream

pytestmark = pytest.mark.integration

SEATS = [{"seat": 1, "player": "p1", "stack": 1_000_000}, {"seat": 2, "player": "p2", "stack": 1}]
HISTORY = (
    "streams",
    "events",
    "seals",
    "seal_heads",
    "dealer_secrets",
    "table_grants",
    "table_grant_changes",
    "ledger_transactions",
    "ledger_postings",
    "settlements",
)


DENIED = "42501"  # insufficient_privilege
APPEND_ONLY = "23000"  # integrity_constraint_violation, raised by the append-only triggers


def refused(engine: sa.Engine, sql: str, why: str | None = None) -> bool:
    """Did the database refuse ``sql``? On PostgreSQL, for the reason ``why`` (a
    SQLSTATE): no privilege, or the append-only triggers; never a typo."""
    try:
        with engine.begin() as c:
            c.exec_driver_sql(sql)
    except sa.exc.DBAPIError as e:
        state = getattr(e.orig, "sqlstate", None)
        if engine.dialect.name == "postgresql":
            assert state == (why or DENIED), (sql, state, str(e.orig))
        return True
    return False


async def deal(core: DealerCore, table: str, hands: int) -> list[str]:
    await core.commit(table, core.dealer.open_table(table, "baccarat", "cs"))
    out = []
    for _ in range(hands):
        hid, b = core.dealer.open_hand(table, SEATS)
        await core.commit(table, b)
        bet = [{"seat": 1, "spot": "banker", "amount": 1000}]
        await core.commit(table, core.dealer.place_bets(hid, bet))
        await core.commit(table, core.dealer.close_betting(hid))
        out.append(hid)
    return out


def test_seeds_are_sealed_and_history_is_append_only(tmp_path: Path) -> None:
    store = Store.open(f"sqlite:///{tmp_path / 's.sqlite'}", upgrade=True)
    box = SeedBox(secrets.token_bytes(32))
    seed = bytes(range(32))
    store.put_secret("shoe_1", seed, 1, box)
    store.grant_table("t1", "gw", 1)
    with store.engine.begin() as c:
        stored = bytes(c.exec_driver_sql("SELECT server_seed FROM dealer_secrets").scalar_one())
    assert seed not in stored and seed.hex().encode() not in stored.lower()
    assert store.get_secret("shoe_1", box) == seed
    with pytest.raises(IntegrityError):  # another service's key (or none) opens nothing
        store.get_secret("shoe_1", SeedBox(secrets.token_bytes(32)))
    for sql in (
        "UPDATE dealer_secrets SET server_seed = x'00'",
        "DELETE FROM dealer_secrets",
        "UPDATE table_grants SET gateway = 'rival'",
        "DELETE FROM table_grants",
        "INSERT INTO streams VALUES ('h1', 'hand', 'baccarat', 't1', NULL, 1)",
    ):
        ok = not refused(store.engine, sql)
        assert ok == sql.startswith("INSERT"), sql
    assert refused(store.engine, "UPDATE streams SET table_id = 'elsewhere'")
    assert refused(store.engine, "DELETE FROM streams")
    assert store.get_secret("shoe_1", box) == seed
    store.close()


@pytest.fixture
def pg_schema() -> Iterator[tuple[str, str, str]]:
    url = os.environ.get(PG_ENV)
    if not url:
        pytest.skip(f"{PG_ENV} is not set: database roles need PostgreSQL")
    admin = sa.create_engine(normalise_url(url), isolation_level="AUTOCOMMIT")
    schema = f"croupier_roles_{uuid.uuid4().hex[:12]}"
    prefix = f"cr{uuid.uuid4().hex[:8]}_"
    with admin.connect() as c:
        c.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
    try:
        yield url, schema, prefix
    finally:
        drop_roles(admin, prefix)
        with admin.connect() as c:
            c.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
        admin.dispose()


async def test_each_service_role_does_its_job_and_no_more(
    pg_schema: tuple[str, str, str], embedded_nats: EmbeddedNats, tmp_path: Path
) -> None:
    url, schema, prefix = pg_schema
    owner = Store.open(url, upgrade=True, schema=schema)
    init_keys(tmp_path / "keys")  # the operator's keys and root-signed keyring
    trust = TrustedKeys.from_dir(tmp_path / "keys")
    signers = {p: load_signer(key_path(tmp_path / "keys", p)) for p in PRODUCERS}
    for entry in trust.keyring.entries:  # the operator caches the keyring; services read it
        owner.put_key(entry.cache_entry())
    passwords = {svc: secrets.token_hex(12) for svc in SERVICES}
    create_roles(owner.engine, prefix, schema, passwords)

    def url_as(svc: str) -> str:
        u = sa.make_url(normalise_url(url)).set(
            username=role_name(prefix, svc), password=passwords[svc]
        )
        return u.render_as_string(hide_password=False)

    stores = {svc: Store.open(url_as(svc), upgrade=True, schema=schema) for svc in SERVICES}
    engines = {svc: stores[svc].engine for svc in SERVICES}
    bus = await Bus.connect(embedded_nats.url)
    await reset_stream(bus)
    box = SeedBox(secrets.token_bytes(32))
    core = DealerCore(
        Dealer(signers["dealer"], signers["gateway"], clock_ms=now_ms),
        stores["dealer"],
        bus,
        seed_box=box,
    )
    loops = [
        *await RulesService(
            stores["rules"], bus, signers["rules"], ["baccarat"], trust=trust
        ).loops(),
        await SettlementWorker(
            stores["settlement"], bus, signers["settlement"], trust=trust
        ).loop(),
    ]
    stop = asyncio.Event()
    tasks = [asyncio.create_task(lp.run(stop)) for lp in loops]
    try:
        # what each service needs: the whole pipeline, each under its own role
        hands = await deal(core, "roles_t1", 3)
        stores["dealer"].grant_table("roles_t1", "gw", now_ms())
        deadline = time.monotonic() + 30
        while owner.count_settlements() < 3:
            assert time.monotonic() < deadline, "hands not settled under the service roles"
            for t in tasks:
                if t.done():
                    t.result()
            await asyncio.sleep(0.05)
        auditor = Auditor(stores["audit"], trust)
        assert not any(r.failed for r in auditor.audit_many(hands))  # pass, or pending reveal
        shoe = core.dealer.table("roles_t1").shoe
        assert shoe is not None
        assert stores["dealer"].get_secret(shoe.shoe_id, box) == shoe.server_seed
    finally:
        stop.set()
        for t in tasks:
            await asyncio.wait_for(t, 10)
        await bus.close()

    # the checkpoint publisher signs checkpoints under its own role, and writes nothing else
    from croupier_services.tlog import create_log_key, log_signer

    create_log_key(tmp_path / "logkey")
    cp = stores["log"].publish_checkpoint(log_signer(tmp_path / "logkey"), now_ms())
    assert cp is not None and cp.size == owner.tlog_size()
    assert refused(engines["log"], "INSERT INTO events SELECT * FROM events LIMIT 1")
    assert refused(engines["log"], "SELECT server_seed FROM dealer_secrets")
    for svc in ("dealer", "rules", "settlement", "audit"):
        assert refused(
            engines[svc], "INSERT INTO tlog_checkpoints SELECT * FROM tlog_checkpoints"
        ), svc
    # ... and no more. Reading or changing a seed with another service's role:
    for svc in ("rules", "settlement", "audit"):
        assert refused(engines[svc], "SELECT server_seed FROM dealer_secrets"), svc
        assert refused(engines[svc], "UPDATE dealer_secrets SET server_seed = 'x'"), svc
        assert refused(engines[svc], "INSERT INTO dealer_secrets VALUES ('s', 'x', 1)"), svc
    # the dealer itself may not change or remove one (no privilege, and the trigger)
    assert refused(engines["dealer"], "UPDATE dealer_secrets SET server_seed = 'x'")
    assert refused(engines["dealer"], "DELETE FROM dealer_secrets")
    assert refused(owner.engine, "UPDATE dealer_secrets SET created_at_ms = 0", APPEND_ONLY)
    # money is settlement's; the log is written by its producers; audit only reads
    for svc in ("dealer", "rules", "audit"):
        assert refused(engines[svc], "INSERT INTO ledger_postings VALUES (1, 99, 'x', 0)"), svc
        assert refused(engines[svc], "INSERT INTO settlements SELECT * FROM settlements LIMIT 1"), (
            svc
        )
    assert refused(engines["dealer"], "SELECT * FROM ledger_transactions")
    assert refused(engines["rules"], "SELECT * FROM settlements")
    for svc in ("rules", "settlement", "audit"):
        assert refused(
            engines[svc], "INSERT INTO streams VALUES ('h9', 'hand', 'baccarat', 't', NULL, 1)"
        ), svc
        assert refused(engines[svc], "SELECT * FROM table_grants"), svc
    # the dealer honours revocations (reads them) but only an operator makes them
    assert stores["dealer"].table_owners("roles_t1") == {"gw"}
    assert refused(
        engines["dealer"],
        "INSERT INTO table_grant_changes (table_id, gateway, change, changed_by, at_ms) "
        "VALUES ('roles_t1', 'gw', 'revoke', 'dealer', 1)",
    )
    assert owner.revoke_table("roles_t1", "gw", now_ms())
    assert stores["dealer"].table_owners("roles_t1") == frozenset()
    assert refused(engines["audit"], "INSERT INTO events SELECT * FROM events LIMIT 1")
    for svc in SERVICES:  # nobody registers a rogue key, rewrites or deletes history
        assert refused(engines[svc], "INSERT INTO keys VALUES ('rogue', 'dealer', 'x', 0, 9)"), svc
        assert refused(engines[svc], "UPDATE keys SET valid_to_ms = 9"), svc
        for table in HISTORY:
            assert refused(engines[svc], f"DELETE FROM {table}"), (svc, table)
    # even the owner cannot UPDATE or DELETE history (append-only triggers)
    for table in HISTORY:
        assert refused(owner.engine, f"DELETE FROM {table}", APPEND_ONLY), table
    assert refused(owner.engine, "UPDATE streams SET table_id = 'elsewhere'", APPEND_ONLY)
    for s in stores.values():
        s.close()
    owner.close()
