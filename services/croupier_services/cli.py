"""``croupier``: the command line of the cluster.

::

    croupier demo [--games V,V] [--hands N] [--tables T] [--players P]
    croupier serve dealer|rules|settlement|rules-settlement|audit|all [--variant V ...]
    croupier db upgrade | db check
    croupier nats check | nats provision [--variant V ...]
    croupier keys init [--dir DIR] [--root-key FILE]
    croupier keys rotate --producer P [--dir DIR] [--root-key FILE] [--grace-ms MS]
    croupier keys revoke --key-id K [--at-ms MS] [--dir DIR] [--root-key FILE]
    croupier auth init [--dir DIR] | auth issue-token --subject S --role R [--ttl S]
    croupier auth grant|revoke --table T --gateway G
    croupier db roles [--prefix P] [--schema S] [--login]
    croupier nats config                        # the per-service NATS users (auth.conf)
    croupier settings [--json | --markdown]     # every CROUPIER_* setting and its value
    croupier variants
    croupier rtp VARIANT
    croupier rules eval VARIANT ARGS... | rules compare VARIANT A B
    croupier fair verify --shoe ID | --seed HEX --commitment HEX --client-seed S --nonce N
                                      --deck cards52x8 --cards POS:CARD,...
    croupier audit [--hand ID | --table T | --variant V | --all | --day D] [--json] [--jobs N]
                   [--log-key log.vkey] [--checkpoint CP] [--file EXPORT.jsonl]
                   [--trust-root FILE] [--keyring FILE]
    croupier checkpoint key | publish | latest [--size N] | verify OLD NEW
                   [--remote HOST:PORT --log-key log.vkey]  # from the audit service
    croupier hand export ID [-o FILE]
    croupier hand replay FILE [--unsigned]
    croupier hand history ID|FILE [--tz ZONE] [--phh]
    croupier report --day YYYY-MM-DD [--variant V] [--table T] [--format text|json|csv]
                    [--tz ZONE]

Service commands read ``CROUPIER_*`` environment variables (see ``config.py``).
Exit codes: 0 success, 1 a check failed (audit, fairness), 2 bad input, 3 a database or
NATS that cannot be reached.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

from croupier import accel, fair
from croupier.audit import Verdict, audit_hand, effective_commitment
from croupier.cards import DeckSpec, parse_card
from croupier.errors import (
    BusUnavailable,
    CroupierError,
    IntegrityError,
    InvalidInput,
    NotationError,
    StoreUnavailable,
    UnknownKey,
)
from croupier.export import (
    HandExport,
    dump,
    is_export,
    is_script,
    load,
    replay_script,
    signed_by,
    verify_log,
)
from croupier.games import base as g
from croupier.games.registry import engine as engine_for
from croupier.games.registry import variants
from croupier.signing import KeyRegistry
from croupier.tlog import merkle
from croupier.tlog.note import Checkpoint, NoteVerifier, open_checkpoint
from croupier.urls import mask_url
from croupier_services import config, logs
from croupier_services.config import SettingError, Settings


def _version() -> str:
    from croupier_services.metrics import build_version

    return build_version()


def _json(obj: Any) -> None:
    print(json.dumps(obj, ensure_ascii=False, indent=2, sort_keys=True))


def _jobs(v: str) -> int:
    n = int(v)
    if n < 1:
        raise argparse.ArgumentTypeError("--jobs must be at least 1")
    return n


def _store(settings: Settings) -> Any:
    from croupier_services.runtime import open_store

    return open_store(settings.database_url)


# -- serve ---------------------------------------------------------------------------
def _viewer_port() -> int:
    from croupier_services.viewer import viewer_port

    return viewer_port()


def cmd_serve(a: argparse.Namespace) -> int:
    from croupier_services.runtime import Node, run_service

    role = a.role
    if role == "all":  # the embedded default: development credentials if there are none
        from croupier.auth import AuthDir, init_dev

        auth_dir = AuthDir(config.auth_dir())
        if not auth_dir.complete():
            init_dev(auth_dir.root)
    s = Settings.from_env({"all": "dealer", "rules-settlement": "settlement"}.get(role, role))
    logs.setup(s.log_level, json_lines=s.log_format == "json")
    if role == "all":
        _dev_keys(Path(s.keys_dir))
    roles = {
        "all": ("dealer", "rules", "settlement", "audit", "log"),
        "rules-settlement": ("rules", "settlement"),
    }.get(role, (role,))
    node = Node(
        roles=roles,
        database_url=s.database_url,
        keys_dir=s.keys_dir,
        nats_url=None if a.embedded_nats else s.nats_url,
        grpc_port=s.grpc_port,
        metrics_port=s.metrics_port,
        rule_variants=a.variant or (),
        fuse=role in ("rules-settlement", "all"),  # all: one process holds every key
        auth=s.auth,
        viewer_port=_viewer_port() if "audit" in roles else 0,
        stream=s.stream,
        consumers=s.consumers,
        stall_after_s=s.stall_after_s,
        unverifiable_pause_s=s.unverifiable_pause_s,
        request_id_retention_s=s.request_id_retention_s,
        require_request_id=s.require_request_id,
        single_bet_events=s.single_bet_events,
        dealer_id=s.dealer_id,
        dealer_address=s.dealer_address,
        lease_ttl_ms=s.lease_ttl_ms,
        dealer_writer=s.dealer_writer,
        commit_linger_ms=s.commit_linger_ms,
        process_upkeep=True,
    )

    async def run() -> None:
        await node.start()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, node.stop_event.set)
        print(
            f"croupier {role}: grpc {node.bound_port or '-'}, metrics "
            f"{s.metrics_port or '-'}, nats {node.nats_url}",
            flush=True,
        )
        await node.wait()
        await node.stop()

    run_service(run())
    return 0


# -- demo ----------------------------------------------------------------------------
def cmd_demo(a: argparse.Namespace) -> int:
    from croupier_services.demo import main_demo

    games = a.games.split(",") if a.games else variants()
    return main_demo(
        games, a.hands, a.tables, a.players, a.seed, a.workdir, a.metrics_port, a.keep_running
    )


# -- db / keys -----------------------------------------------------------------------
def cmd_db(a: argparse.Namespace) -> int:
    from croupier.store import migrate

    s = Settings.from_env("db")
    if a.action == "upgrade":
        migrate(s.database_url)
        print("database at head")
    elif a.action == "roles":
        from croupier.store import create_engine
        from croupier.store.roles import SERVICES, create_roles

        passwords = None
        if a.login:
            passwords = {}
            for svc in SERVICES:
                password = config.DB_PASSWORDS[svc]
                if not password.get():
                    raise InvalidInput(f"--login needs {password.name}")
                passwords[svc] = password.get()
        engine = create_engine(s.database_url)
        try:
            for role in create_roles(engine, a.prefix, a.schema, passwords):
                print(f"role {role} granted on schema {a.schema}")
        finally:
            engine.dispose()
    return 0


def cmd_keys(a: argparse.Namespace) -> int:
    from croupier_services import keys as k

    d = Path(a.dir or Settings.from_env("keys").keys_dir)
    root = Path(a.root_key) if a.root_key else None
    if a.action == "init":
        out = k.init_keys(d, root_key=root)
    elif a.action == "rotate":
        if not a.producer:
            raise InvalidInput("keys rotate needs --producer")
        _, out = k.rotate_key(d, a.producer, root_key=root, grace_ms=a.grace_ms)
    else:
        if not a.key_id:
            raise InvalidInput("keys revoke needs --key-id")
        out = k.revoke_key(d, a.key_id, root_key=root, at_ms=a.at_ms)
    for e in out.keyring.entries:
        end = "" if e.revoked_at_ms is None else f" revoked at {e.revoked_at_ms}"
        print(f"{e.producer}: {e.key_id} {e.public_key.hex()}{end}")
    print(f"keyring v{out.keyring.version} signed by {out.root.key_id}: {d / k.KEYRING_FILE}")
    print(f"trust root (pin it): {d / k.TRUST_ROOT_FILE}")
    return 0


def _dev_keys(keys_dir: Path) -> None:
    """The embedded cluster's dev keys: made once, explicitly, by ``keys init``."""
    from croupier_services import keys as k

    if not (keys_dir / k.KEYRING_FILE).exists():
        k.init_keys(keys_dir)
        print(f"dev keys created in {keys_dir} (trust root {keys_dir / k.TRUST_ROOT_FILE})")


# -- auth ------------------------------------------------------------------------------
def cmd_auth(a: argparse.Namespace) -> int:
    from croupier.auth import AuthDir, Role, TokenIssuer, init_dev

    d = AuthDir(Path(a.dir) if a.dir else config.auth_dir())
    if a.action == "init":
        init_dev(d.root)
        for f in sorted(d.root.iterdir()):
            print(f)
        return 0
    if a.action == "issue-token":
        if not a.subject or not a.role:
            raise InvalidInput("issue-token needs --subject and --role")
        key = Path(a.issuer_key) if a.issuer_key else d.issuer_key
        issuer = TokenIssuer.from_pem(key.read_bytes())
        print(issuer.issue(a.subject, Role(a.role), a.ttl))
        return 0
    if not a.table or not a.gateway:
        raise InvalidInput(f"{a.action} needs --table and --gateway")
    st = _store(Settings.from_env("auth"))
    now_ms = time.time_ns() // 1_000_000
    if a.action == "revoke":
        if st.revoke_table(a.table, a.gateway, now_ms, "operator"):
            print(f"table {a.table} revoked from {a.gateway} (refused from its next call)")
        else:
            print(f"table {a.table} was not granted to {a.gateway}")
        return 0
    new = st.grant_table(a.table, a.gateway, now_ms, "operator")
    print(f"table {a.table} {'granted to' if new else 'was already granted to'} {a.gateway}")
    return 0


# -- nats ------------------------------------------------------------------------------
def cmd_nats(a: argparse.Namespace) -> int:
    """``nats check``: how the stream and consumers differ from the settings;
    ``nats provision``: apply the settings (create or update) on purpose."""
    from croupier.bus import subjects
    from croupier.bus.jetstream import Bus
    from croupier.bus.permissions import authorization_block
    from croupier_services.rules import durables_for
    from croupier_services.security import nats_tls
    from croupier_services.settlement import DURABLE

    if a.action == "config":  # the NATS users and their permissions (auth.conf)
        print(authorization_block(a.variant or variants()), end="")
        return 0
    s = Settings.from_env("nats")
    durables = [*durables_for(a.variant or variants()), (DURABLE, subjects.filter_for("outcome"))]

    async def run() -> int:
        bus = await Bus.connect(
            s.nats_url,
            name="croupier-cli",
            stream=s.stream,
            consumers=s.consumers,
            tls=nats_tls(s.auth, s.nats_url),
        )
        try:
            if a.action == "provision":
                changed = await bus.provision(durables)
                _json({"changed": changed})
                return 0
            diffs = await bus.ensure_stream()
            for d, f in durables:
                diffs += [f"{d}: {x}" for x in await bus.ensure_consumer(d, f)]
            _json({"differences": diffs})
            return 1 if diffs else 0
        finally:
            await bus.close()

    return asyncio.run(run())


# -- settings ------------------------------------------------------------------------
def cmd_settings(a: argparse.Namespace) -> int:
    """Every ``CROUPIER_*`` setting: its current value (secrets masked), default and
    meaning; exit 2 when a value set does not parse."""
    if a.markdown:
        sys.stdout.write(config.markdown_table())
        return 0
    rows = config.describe()
    bad = [r for r in rows if r["error"]]
    if a.json:
        _json(rows)
    else:
        for r in rows:
            value = "(default)" if r["value"] is None else repr(r["value"])
            print(f"{r['name']} = {value}  [{r['group']}]")
            print(f"    {r['meaning'].replace('`', '')}; default {r['default'].replace('`', '')}")
            if r["error"]:
                print(f"    INVALID: {r['error']}")
    for r in bad:
        print(f"croupier: {r['error']}", file=sys.stderr)
    return 2 if bad else 0


# -- rules / rtp -----------------------------------------------------------------------
def cmd_variants(a: argparse.Namespace) -> int:
    for v in variants():
        e = engine_for(v)
        print(f"{v}\t{e.family}\tv{e.config.version}")
    return 0


def cmd_rtp(a: argparse.Namespace) -> int:
    print(engine_for(a.variant).rtp_table(a.places))
    return 0


def cmd_rules(a: argparse.Namespace) -> int:
    eng = engine_for(a.variant)
    hands = a.hands if a.action == "eval" else [a.a, a.b]
    _json(eng.describe(a.action, [[_token(c) for c in h.replace(",", " ").split()] for h in hands]))
    return 0


def _token(text: str) -> str:
    """A card in canonical form (``ts`` → ``Ts``); anything else (a tile ``5z``, a die
    ``4``) as given, for the family's ``describe`` to validate."""
    try:
        return parse_card(text)
    except NotationError:
        return text


# -- fairness ------------------------------------------------------------------------
def _deck(text: str) -> DeckSpec:
    base, _, copies = text.partition("x")
    return DeckSpec(base, int(copies or 1))


def cmd_fair(a: argparse.Namespace) -> int:
    if a.shoe:
        st = _store(Settings.from_env("audit"))
        events = st.read_stream(a.shoe)
        if not events:
            raise InvalidInput(f"no shoe {a.shoe!r}")
        sp = events[0].payload
        rev = next((e for e in events if e.type == g.SHOE_REVEALED), None)
        if rev is None:
            print(f"shoe {a.shoe} is not revealed yet")
            return 1
        c = effective_commitment(events, [e.payload for e in events])
        dealt = []
        for info in st.list_streams(kind="hand", table_id=sp["table"], limit=100_000):
            if info.shoe_id != a.shoe:
                continue
            for e in st.read_stream(info.stream_id):
                if e.type == g.CARD_DEALT:
                    dealt += [(int(x["pos"]), str(x["card"])) for x in e.payload["cards"]]
        dealt.sort()
        fair.check_in_order([p for p, _ in dealt], int(rev.payload.get("positions_used", -1)))
        seed = bytes.fromhex(rev.payload["server_seed"])
    else:
        if not (a.seed and a.commitment and a.deck):
            raise InvalidInput("give --shoe, or --seed, --commitment, --deck (and --cards)")
        c = fair.Commitment(
            fair.ALGORITHM, bytes.fromhex(a.commitment), a.client_seed or "", a.nonce, _deck(a.deck)
        )
        seed = bytes.fromhex(a.seed)
        dealt = []
        for item in (a.cards or "").replace(" ", ",").split(","):
            if item:
                pos, _, card = item.partition(":")
                dealt.append((int(pos), parse_card(card)))
    fair.check_positions(dealt)
    fair.verify_reveal(c, seed, dealt)
    print(f"OK: seed matches its commitment and all {len(dealt)} dealt cards match ({c.algorithm})")
    return 0


# -- audit / hands -------------------------------------------------------------------
def _log_key(path: str | None) -> NoteVerifier | None:
    """The log's verifier key an auditor pins: ``--log-key FILE`` or
    ``CROUPIER_LOG_KEY`` (a file holding ``name+id+key``, e.g. the keys dir's log.vkey)."""
    from croupier_services.tlog import pinned_log_key

    return pinned_log_key(path)


def _held(path: str | None, key: NoteVerifier | None) -> Checkpoint | None:
    if not path:
        return None
    if key is None:
        raise InvalidInput("--checkpoint needs the log's key (--log-key or CROUPIER_LOG_KEY)")
    return open_checkpoint(Path(path).read_text(encoding="utf-8"), key)


def _day(text: str) -> tuple[int, int]:
    d = datetime.date.fromisoformat(text)
    start = datetime.datetime(d.year, d.month, d.day, tzinfo=datetime.UTC)
    ms = int(start.timestamp() * 1000)
    return ms, ms + 86_400_000


class _Bar:
    """A progress bar on stderr, drawn only when stderr is a terminal."""

    def __init__(self) -> None:
        self.on = sys.stderr.isatty()
        self.last = 0.0

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if not self.on or (now - self.last < 0.1 and done < total):
            return
        self.last = now
        width = 30
        fill = width * done // max(total, 1)
        sys.stderr.write(f"\r[{'#' * fill}{'.' * (width - fill)}] {done}/{total} hands")
        if done >= total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def _print_log_audit(la: Any, as_json: bool) -> None:
    if as_json:
        _json(la.to_json_dict())
        return
    for r in la.failed:
        print(f"FAIL {r.hand_id}: first bad event {r.stream}#{r.seq}: {r.reason}: {r.message}")
    for f in la.findings:
        where = f" {f.hand_id}" if f.hand_id else ""
        print(f"FAIL{where}: {f.reason}: {f.message}")
    for r in la.pending:
        print(f"PENDING {r.hand_id}: {r.verdict.value}")
    c = la.counts
    parts = ", ".join(f"{c[v.value]} {v.value}" for v in Verdict if c[v.value])
    line = f"audit: {la.total} hands ({parts or 'none'}); {len(la.findings)} failures across hands"
    if la.whole:
        line += f"; log of {la.log_size} seals, {la.checkpoints_checked} checkpoints checked" + (
            f" ({la.unverified_checkpoints} not verified: no --log-key)"
            if la.unverified_checkpoints
            else ""
        )
    print(line)
    failures = len(la.failed) + len(la.findings)
    print(f"audit FAILED: {failures} failures" if failures else "audit passed")


def _export_keys(
    x: HandExport, trust_root: str | None, keyring: str | None = None
) -> tuple[KeyRegistry, dict[str, Any]]:
    """The keys to audit an export with, and what to say about them: the export's signed
    keyring under the pinned root (or the auditor's own ``keyring`` file when it is
    newer: an export cannot roll revocations back), or (no root pinned) its own
    unverified key lines."""
    from dataclasses import replace

    from croupier.keyring import Keyring, TrustRoot

    path = trust_root or config.TRUST_ROOT.get()
    info: dict[str, Any] = {"signed_by": signed_by(x)}
    if not path:
        info.update(
            verified=False,
            reason="no pinned trust root (--trust-root FILE or CROUPIER_TRUST_ROOT): the "
            "keys are the export's own and prove nothing",
        )
        return x.registry(), info
    root = TrustRoot.load(Path(path))
    info.update(trust_root=root.key_id)
    if keyring:
        own = Keyring.load(Path(keyring))
        own.verify(root)
        if x.keyring is None or own.version > x.keyring.version:
            x = replace(x, keyring=own)
    try:
        reg = x.trust(root)
    except UnknownKey as e:
        info.update(verified=False, reason=f"{e.reason}: {e.message}")
        return KeyRegistry(), info
    assert x.keyring is not None
    info.update(verified=True, keyring_version=x.keyring.version)
    return reg, info


def _load_export(path: str) -> HandExport:
    """A signed export from ``path``; an unsigned hand script is refused in one line that
    says how to replay it instead."""
    text = Path(path).read_text(encoding="utf-8")
    if is_script(text):
        raise InvalidInput(
            f"{path} is an unsigned hand script, not a signed export: "
            f"replay it with `croupier hand replay --unsigned {path}`"
        )
    return load(text)


def _trust(a: argparse.Namespace) -> Any:
    from croupier_services.keys import TrustedKeys

    return TrustedKeys.from_dir(Path(Settings.from_env("audit").keys_dir), a.trust_root)


def cmd_audit(a: argparse.Namespace) -> int:
    key = _log_key(a.log_key)
    held = _held(a.checkpoint, key)
    if a.file:
        x = _load_export(a.file)
        registry, keys = _export_keys(x, a.trust_root, a.keyring)
        rep = audit_hand(x.hand_id, x.hand, x.shoe, registry, x.settlement)
        d = {**rep.to_json_dict(), "keys": keys}
        rc = 1 if rep.failed or not keys["verified"] else 0
        if not keys["verified"]:
            print(f"croupier: keys unverified: {keys['reason']}", file=sys.stderr)
        if key is None:
            d["log"] = {"verified": False, "message": "no --log-key: the log was not checked"}
        else:
            try:
                cp = verify_log(x, key, held)
                d["log"] = {"verified": True, "origin": cp.origin, "size": cp.size}
            except IntegrityError as e:
                d["log"] = {"verified": False, "reason": e.reason, "message": e.message}
                rc = 1
        _json(d)
        return rc
    from croupier_services.audit import Auditor, LogAudit, load_hand

    auditor = Auditor(_store(Settings.from_env("audit")), _trust(a), log_key=_log_key(a.log_key))
    kr = auditor.trust.keyring
    if a.hand:
        rep = auditor.audit(a.hand)
        if rep.failed:
            print(
                f"FAIL {rep.hand_id}: first bad event {rep.stream}#{rep.seq}: "
                f"{rep.reason}: {rep.message}"
            )
        x = load_hand(auditor.store, a.hand, auditor.trust, proofs=False)
        keys = {
            "verified": True,
            "trust_root": kr.root_key_id,
            "keyring_version": kr.version,
            "signed_by": signed_by(x),
        }
        _json({**rep.to_json_dict(), "keys": keys})
        return 1 if rep.failed else 0
    since, until = _day(a.day) if a.day else (a.since, a.until)
    if a.all or since is not None or until is not None:
        if a.table or a.variant:
            raise InvalidInput("--all and a time range audit every table and variant")
        la = auditor.audit_log(
            since_ms=since,
            until_ms=until,
            log_key=key,
            held=held,
            progress=_Bar(),
            jobs=a.jobs,
        )
    else:
        la = LogAudit(whole=False)
        ids = auditor.in_log_order(auditor.hand_ids(table_id=a.table, variant=a.variant))
        la.total = len(ids)
        bar = _Bar()
        for n, rep in enumerate(auditor.audit_range(ids, jobs=a.jobs, records=False), 1):
            la.add(rep)
            bar(n, la.total)
    _print_log_audit(la, a.json)
    if not a.json:
        print(f"keys: keyring v{kr.version} signed by the pinned root {kr.root_key_id}")
    return 1 if la.has_failures else 0


# -- checkpoints ---------------------------------------------------------------------
def cmd_checkpoint(a: argparse.Namespace) -> int:
    from croupier_services.tlog import log_signer, publish

    keys_dir = a.dir or Settings.from_env("log").keys_dir
    if a.action == "key":
        print(log_signer(keys_dir, create=True).verifier.encode())
        return 0
    if a.remote:
        return _remote_checkpoint(a)
    st = _store(Settings.from_env("audit"))
    if a.action == "publish":
        cp = publish(st, log_signer(keys_dir)) or st.latest_checkpoint()
        if cp is None:
            raise InvalidInput("the log is empty: nothing to checkpoint")
        _write(cp.note, a.output)
        return 0
    if a.action == "latest":
        cp = st.latest_checkpoint() if a.size is None else st.checkpoint_at(a.size)
        if cp is None:
            raise InvalidInput("no checkpoint has been published yet")
        _write(cp.note, a.output)
        return 0
    # verify OLD NEW
    key = _log_key(a.log_key)
    if key is None:
        raise InvalidInput("checkpoint verify needs the log's key (--log-key or CROUPIER_LOG_KEY)")
    old = open_checkpoint(Path(a.old).read_text(encoding="utf-8"), key)
    new = open_checkpoint(Path(a.new).read_text(encoding="utf-8"), key)
    if old.size > new.size:
        old, new = new, old
    if a.proof:
        proof = [bytes.fromhex(x) for x in Path(a.proof).read_text(encoding="utf-8").split()]
    else:
        proof = st.consistency_proof(old.size, new.size)
    merkle.verify_consistency(old.size, new.size, old.root, new.root, proof)
    print(
        f"OK: checkpoint {new.size} of {new.origin} extends checkpoint {old.size} "
        f"({len(proof)} proof hashes)"
    )
    return 0


def _remote_checkpoint(a: argparse.Namespace) -> int:
    """``checkpoint latest|verify --remote HOST:PORT``: the audit service's
    GetCheckpoint and GetConsistencyProof, called as an auditor (its client certificate
    and identity token from ``--auth-dir``); every note is opened under the pinned log
    key, so a checkpoint the service did not sign is refused here, not trusted."""
    from croupier.auth import Role
    from croupier.pb.croupier.v1 import audit_pb2, audit_pb2_grpc
    from croupier_services.security import client_channel

    if a.action not in ("latest", "verify"):
        raise InvalidInput(f"--remote serves latest and verify, not {a.action}")
    key = _log_key(a.log_key)
    if key is None:
        raise InvalidInput("--remote needs the log's key to pin (--log-key or CROUPIER_LOG_KEY)")
    auth = Path(a.auth_dir or str(config.auth_dir()))

    async def call() -> int:
        async with client_channel(a.remote, auth, Role.AUDITOR) as ch:
            au = audit_pb2_grpc.AuditServiceStub(ch)
            if a.action == "latest":
                got = await au.GetCheckpoint(
                    audit_pb2.GetCheckpointRequest(tree_size=a.size or 0), timeout=30
                )
                cp = open_checkpoint(got.note, key)  # refuses a note the log did not sign
                _write(got.note, a.output)
                print(
                    f"OK: checkpoint {cp.size} of {cp.origin}, signed by the pinned key",
                    file=sys.stderr,
                )
                return 0
            old = open_checkpoint(Path(a.old).read_text(encoding="utf-8"), key)
            new = open_checkpoint(Path(a.new).read_text(encoding="utf-8"), key)
            if old.size > new.size:
                old, new = new, old
            r = await au.GetConsistencyProof(
                audit_pb2.GetConsistencyProofRequest(old_size=old.size, new_size=new.size),
                timeout=30,
            )
            proof = list(r.proof)
            merkle.verify_consistency(old.size, new.size, old.root, new.root, proof)
            print(
                f"OK: checkpoint {new.size} of {new.origin} extends checkpoint {old.size} "
                f"({len(proof)} proof hashes from {a.remote})"
            )
            return 0

    return asyncio.run(call())


def _write(text: str, path: str | None) -> None:
    if path:
        Path(path).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)


def cmd_hand_history(a: argparse.Namespace) -> int:
    from croupier.history import render
    from croupier_services import reporting

    tz = reporting.parse_tz(a.tz) if a.tz else reporting.report_time_zone()
    path = Path(a.id)
    if path.is_file():
        log = reporting.file_log(path.read_text(encoding="utf-8"))
    else:
        log = reporting.stored_log(_store(Settings.from_env("audit")), a.id)
    if a.phh:
        from croupier.history.phh import to_phh

        sys.stdout.write(to_phh(log))
    else:
        sys.stdout.write(render(log, time_zone=tz))
    return 0


def cmd_report(a: argparse.Namespace) -> int:
    from croupier import report
    from croupier_services import reporting

    tz = reporting.parse_tz(a.tz) if a.tz else reporting.report_time_zone()
    rep = reporting.day_report(
        _store(Settings.from_env("audit")), a.day, tz, variant=a.variant, table_id=a.table
    )
    sys.stdout.write(report.render(rep, a.format))
    return 0


def cmd_hand(a: argparse.Namespace) -> int:
    if a.action == "history":
        return cmd_hand_history(a)
    if a.action == "export":
        from croupier_services.audit import load_hand

        text = dump(
            load_hand(_store(Settings.from_env("audit")), a.id, _trust(a), tree_size=a.size)
        )
        if a.output:
            Path(a.output).write_text(text, encoding="utf-8")
        else:
            sys.stdout.write(text)
        return 0
    if a.unsigned:
        text = Path(a.id).read_text(encoding="utf-8")
        if is_export(text):
            raise InvalidInput(
                f"{a.id} is a signed export, not a hand script: "
                f"replay it without --unsigned (`croupier hand replay {a.id}`)"
            )
        _json(replay_script(text))
        return 0
    x = _load_export(a.id)
    registry, keys = _export_keys(x, a.trust_root, a.keyring)
    rep = audit_hand(x.hand_id, x.hand, x.shoe, registry, x.settlement)
    _json(
        {
            "hand_id": x.hand_id,
            "signed": True,
            "keys": keys,
            "verdict": rep.verdict.value,
            "outcome": rep.outcome,
            "settlement": rep.settlement,
            "audit": rep.to_json_dict()["first_bad"],
        }
    )
    return 1 if rep.failed or not keys["verified"] else 0


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="croupier", description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--version",
        action="version",
        version=f"croupier {_version()}; native accelerator {accel.status}",
    )
    sub = p.add_subparsers(dest="cmd", required=True)

    d = sub.add_parser("demo", help="run the embedded cluster with simulated players")
    d.add_argument("--games", help="comma-separated variant ids (default: all registered)")
    d.add_argument("--hands", type=int, default=30, help="hands per game (default 30)")
    d.add_argument("--tables", type=int, default=4, help="tables per game (default 4)")
    d.add_argument("--players", type=int, default=8, help="simulated players (default 8)")
    d.add_argument(
        "--seed", type=int, default=1, help="seed of the simulated players' choices (default 1)"
    )
    d.add_argument("--workdir", help="keep the SQLite file and keys here")
    d.add_argument(
        "--metrics-port", type=int, default=-1, help="Prometheus port (default: a free one; 0: off)"
    )
    d.add_argument(
        "--keep-running",
        action="store_true",
        help="after the summary, keep serving gRPC and /metrics until Ctrl-C",
    )
    d.set_defaults(fn=cmd_demo)

    s = sub.add_parser("serve", help="run one service (or all) against CROUPIER_* settings")
    s.add_argument(
        "role",
        choices=["dealer", "rules", "settlement", "rules-settlement", "audit", "log", "all"],
        help="the service to run (rules-settlement: both in one pass, one replay a hand; "
        "all: every one in this process, rules and settlement in one pass, development keys)",
    )
    s.add_argument("--variant", action="append", help="rules: serve this variant (repeat)")
    s.add_argument("--embedded-nats", action="store_true", help="start a nats-server here")
    s.set_defaults(fn=cmd_serve)

    db = sub.add_parser("db", help="database migrations and per-service roles")
    db.add_argument(
        "action",
        choices=["upgrade", "roles"],
        help="upgrade: migrate to head; roles: one PostgreSQL role per service",
    )
    db.add_argument("--prefix", default="croupier_", help="roles: role name prefix")
    db.add_argument("--schema", default="public", help="roles: the store's schema")
    db.add_argument(
        "--login", action="store_true", help="roles: LOGIN with CROUPIER_DB_<SERVICE>_PASSWORD"
    )
    db.set_defaults(fn=cmd_db)

    n = sub.add_parser(
        "nats", help="JetStream stream and consumers from the settings; the NATS users"
    )
    n.add_argument(
        "action",
        choices=["check", "provision", "config"],
        help="check: differences from the settings; provision: apply them; config: auth.conf",
    )
    n.add_argument("--variant", action="append", help="rules consumers of these variants only")
    n.set_defaults(fn=cmd_nats)

    k = sub.add_parser("keys", help="producer keys and the root-signed keyring")
    k.add_argument(
        "action",
        choices=["init", "rotate", "revoke"],
        help="init: keys, keyring, trust root; rotate or revoke a key (re-signs the keyring)",
    )
    k.add_argument("--dir", help="keys directory (default CROUPIER_KEYS_DIR)")
    k.add_argument("--root-key", help="the offline root key (default DIR/root.key)")
    k.add_argument("--producer", help="rotate: whose key")
    k.add_argument("--grace-ms", type=int, default=300_000, help="rotate: old key's overlap")
    k.add_argument("--key-id", help="revoke: which key")
    k.add_argument("--at-ms", type=int, help="revoke: from when (default now)")
    k.set_defaults(fn=cmd_keys)

    au_ = sub.add_parser("auth", help="credentials: dev material, identity tokens, grants")
    au_.add_argument(
        "action",
        choices=["init", "issue-token", "grant", "revoke"],
        help="init: dev material; issue-token: a signed identity token; grant: a table; "
        "revoke: a table grant (the gateway is refused from its next call)",
    )
    au_.add_argument("--dir", help="auth folder (default CROUPIER_AUTH_DIR or var/auth)")
    au_.add_argument("--subject", help="issue-token: the caller's name")
    au_.add_argument(
        "--role", choices=["gateway", "auditor", "operator"], help="issue-token: the caller's role"
    )
    au_.add_argument("--ttl", type=int, default=86_400, help="issue-token: lifetime, seconds")
    au_.add_argument("--issuer-key", help="issue-token: issuer key (default <dir>/issuer.key)")
    au_.add_argument("--table", help="grant, revoke: the table")
    au_.add_argument("--gateway", help="grant, revoke: the gateway subject")
    au_.set_defaults(fn=cmd_auth)

    st = sub.add_parser(
        "settings",
        help="every CROUPIER_* setting: current value (secrets masked), default, meaning",
    )
    fmt = st.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="one JSON list for machines")
    fmt.add_argument(
        "--markdown", action="store_true", help="the README's settings table (to regenerate it)"
    )
    st.set_defaults(fn=cmd_settings)

    v = sub.add_parser("variants", help="list registered variants")
    v.set_defaults(fn=cmd_variants)

    r = sub.add_parser("rtp", help="exact probabilities and RTP per spot")
    r.add_argument("variant", help="a variant id (see `croupier variants`)")
    r.add_argument(
        "--places", type=int, default=6, help="decimal places of the probabilities (default 6)"
    )
    r.set_defaults(fn=cmd_rtp)

    ru = sub.add_parser("rules", help="evaluate or compare hands")
    rs = ru.add_subparsers(dest="action", required=True)
    ev = rs.add_parser("eval", help="a complete deal: the outcome as the rules see it (JSON)")
    ev.add_argument("variant", help="a variant id (see `croupier variants`)")
    ev.add_argument("hands", nargs="+", help="cards, e.g. 'As Td' (one argument per hand)")
    cp = rs.add_parser("compare", help="two hands: which one wins (JSON)")
    cp.add_argument("variant", help="a variant id (see `croupier variants`)")
    cp.add_argument("a", help="the first hand: cards, tiles or dice, e.g. 'As 6d'")
    cp.add_argument("b", help="the second hand")
    ru.set_defaults(fn=cmd_rules)

    f = sub.add_parser("fair", help="provably fair checks")
    f.add_argument(
        "action", choices=["verify"], help="verify: a revealed seed against its commitment"
    )
    f.add_argument("--shoe", help="verify a revealed shoe from the store")
    f.add_argument("--seed", help="the revealed server seed (hex)")
    f.add_argument("--commitment", help="the commitment published before the deal (hex)")
    f.add_argument("--client-seed", default="", help="the player's client seed (default empty)")
    f.add_argument("--nonce", type=int, default=0, help="the shoe's nonce (default 0)")
    f.add_argument("--deck", help="e.g. cards52x8")
    f.add_argument("--cards", help="POS:CARD,... e.g. 0:As,1:Td")
    f.set_defaults(fn=cmd_fair)

    au = sub.add_parser("audit", help="replay and verify hands, or the whole log")
    au.add_argument("--hand", help="one hand by id, from the store")
    au.add_argument("--table", help="every hand of this table")
    au.add_argument("--variant", help="every hand of this variant")
    au.add_argument(
        "--all", action="store_true", help="the whole log: every hand and the checks across them"
    )
    au.add_argument("--day", help="hands opened on this UTC day (YYYY-MM-DD), checked together")
    au.add_argument("--since", type=int, help="hands opened at or after this time (ms)")
    au.add_argument("--until", type=int, help="hands opened before this time (ms)")
    au.add_argument("--json", action="store_true", help="one JSON document for machines")
    au.add_argument("--file", help="an exported hand (JSON lines)")
    au.add_argument("--log-key", help="the log's verifier key file (log.vkey) to pin")
    au.add_argument("--checkpoint", help="a signed checkpoint the auditor holds")
    au.add_argument("--trust-root", help="pinned root public key (or CROUPIER_TRUST_ROOT)")
    au.add_argument("--keyring", help="--file: a newer signed keyring than the export's")
    au.add_argument(
        "--jobs",
        type=_jobs,
        default=os.cpu_count() or 1,
        help="processes auditing batches of 200 hands in parallel (default: CPU count)",
    )
    au.set_defaults(fn=cmd_audit)

    ck = sub.add_parser("checkpoint", help="the transparency log's signed checkpoints")
    ck.add_argument(
        "action",
        choices=["key", "publish", "latest", "verify"],
        help="key: the log's verifier key; publish or latest: a checkpoint; verify OLD NEW",
    )
    ck.add_argument("old", nargs="?", help="verify: the older checkpoint file")
    ck.add_argument("new", nargs="?", help="verify: the newer checkpoint file")
    ck.add_argument("--dir", help="keys dir holding log.key (default CROUPIER_KEYS_DIR)")
    ck.add_argument("--size", type=int, help="latest: the checkpoint of this tree size")
    ck.add_argument("--log-key", help="verify: the log's verifier key file (log.vkey)")
    ck.add_argument(
        "--proof", help="verify: consistency proof file (hex hashes) instead of the store"
    )
    ck.add_argument("-o", "--output", help="publish, latest: write the checkpoint here")
    ck.add_argument(
        "--remote",
        metavar="HOST:PORT",
        help="latest, verify: ask the audit service (as an auditor) instead of the store",
    )
    ck.add_argument(
        "--auth-dir", help="--remote: the auditor's certificate and token (CROUPIER_AUTH_DIR)"
    )
    ck.set_defaults(fn=cmd_checkpoint)

    h = sub.add_parser("hand", help="export, replay or describe a hand")
    h.add_argument(
        "action",
        choices=["export", "replay", "history"],
        help="export: a hand with its proofs; replay: audit an export; history: for people",
    )
    h.add_argument("id", help="hand id (export, history) or file (replay, history)")
    h.add_argument("-o", "--output", help="export: write the export here (default stdout)")
    h.add_argument("--unsigned", action="store_true", help="replay an unsigned hand script")
    h.add_argument("--trust-root", help="pinned root public key (or CROUPIER_TRUST_ROOT)")
    h.add_argument("--keyring", help="replay: a newer signed keyring than the export's")
    h.add_argument("--tz", help="history: IANA time zone of times (default CROUPIER_REPORT_TZ)")
    h.add_argument("--phh", action="store_true", help="history: as PHH (必下德州 only)")
    h.add_argument(
        "--size", type=int, help="export: prove inclusion in the checkpoint of this tree size"
    )
    h.set_defaults(fn=cmd_hand)

    rp = sub.add_parser("report", help="money per table and variant on a day, from the ledger")
    rp.add_argument("--day", required=True, help="YYYY-MM-DD in the report's time zone")
    rp.add_argument("--variant", help="this variant only")
    rp.add_argument("--table", help="this table only")
    rp.add_argument(
        "--format", choices=["text", "json", "csv"], default="text", help="default text"
    )
    rp.add_argument("--tz", help="IANA time zone of the day (default CROUPIER_REPORT_TZ or UTC)")
    rp.set_defaults(fn=cmd_report)
    return p


def _unreachable(e: BaseException) -> str | None:
    """The one-line reason when ``e`` means a database or NATS could not be reached."""
    import sqlalchemy.exc

    if isinstance(e, sqlalchemy.exc.OperationalError | sqlalchemy.exc.InterfaceError):
        url = config.DATABASE_URL.get()
        first = str(e.orig if e.orig is not None else e).strip().splitlines()
        return f"database unreachable at {mask_url(url)}: {first[0] if first else type(e).__name__}"
    from nats.errors import Error as NatsError

    if isinstance(e, NatsError | ConnectionError | TimeoutError):
        url = config.NATS_URL.get()
        return f"NATS unreachable at {mask_url(url)}: {e or type(e).__name__}"
    return None


def main(argv: list[str] | None = None) -> int:
    """Exit codes: 0 success, 1 a check failed, 2 bad input, 3 a dependency (database,
    NATS) could not be reached. Errors are one line on stderr, never a traceback
    (``CROUPIER_DEBUG=1`` re-raises for one)."""
    args = parser().parse_args(argv)
    try:
        rc: int = args.fn(args)
        sys.stdout.flush()
        return rc
    except BrokenPipeError:
        # the reader went away (`croupier audit | head`): stop quietly, like `cat`
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
    except KeyboardInterrupt:
        return 130
    except SettingError as e:  # names the variable and the form expected
        print(f"croupier: {e.message}", file=sys.stderr)
        return 2
    except CroupierError as e:
        print(f"croupier: {e.reason}: {e.message}", file=sys.stderr)
        if isinstance(e, BusUnavailable | StoreUnavailable):
            return 3
        return 1 if not isinstance(e, InvalidInput) else 2
    except Exception as e:
        if config.DEBUG.raw() not in (None, "", "0"):
            raise
        why = _unreachable(e)
        if why is not None:
            print(f"croupier: {why}", file=sys.stderr)
            return 3
        import grpc

        if isinstance(e, grpc.aio.AioRpcError):  # a service refused or could not be reached
            print(f"croupier: {e.code().name}: {e.details()}", file=sys.stderr)
            return 3 if e.code() in (grpc.StatusCode.UNAVAILABLE,) else 1
        if isinstance(e, ValueError | OSError):
            print(f"croupier: bad input: {e}", file=sys.stderr)
            return 2
        raise


if __name__ == "__main__":
    sys.exit(main())
