"""Hand export files (JSON lines) and unsigned hand scripts.

Export, ``croupier-hand/v1``, one JSON object a line:

- ``{"kind": "header", "format": "croupier-hand/v1", "hand_id", "shoe_id"}``
- ``{"kind": "keyring", ...}`` the root-signed keyring (:mod:`croupier.keyring`): the only
  keys an auditor who pins the root trusts
- ``{"kind": "key", ...}`` every public key that signed a seal of the hand or its shoe (a
  convenience copy: without a pinned root they prove nothing, see :meth:`HandExport.trust`)
- ``{"kind": "event", "log": "hand"|"shoe", ...event}``
- ``{"kind": "seal", "log": "hand"|"shoe", ...seal}``
- ``{"kind": "settlement", "record": {...}, "postings": [[account, amount], ...]}``
- ``{"kind": "checkpoint", "note": "..."}`` the signed transparency-log checkpoint the
  proofs lead to (C2SP signed note), and per seal
  ``{"kind": "proof", "seal_id", "leaf_index", "tree_size", "hashes": [hex, ...]}``, its
  RFC 6962 inclusion proof (:func:`verify_log`)

A hand script (``croupier-script/v1``) is the same events without envelopes, seeds or
signatures, for what-if and dispute analysis: ``{"format": "croupier-script/v1",
"variant": ..., "events": [{"type": ..., "payload": {...}}, ...]}`` with cards given
explicitly. It is replayed through the same engine and settlement code; it proves
nothing about what was dealt.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from croupier import canonical
from croupier.audit import StoredSettlement, StreamLog
from croupier.errors import InvalidInput, UnknownKey
from croupier.events import Event, Seal
from croupier.keyring import Keyring, TrustRoot
from croupier.signing import KeyRegistry, PublicKeyEntry
from croupier.tlog import seal_leaf_hash
from croupier.tlog.merkle import ProofError, verify_inclusion
from croupier.tlog.note import Checkpoint, NoteVerifier, open_checkpoint

FORMAT = "croupier-hand/v1"
SCRIPT_FORMAT = "croupier-script/v1"


@dataclass(frozen=True)
class LogProofs:
    """A signed checkpoint and each seal's inclusion proof in it: seal id → (leaf
    index, audit path)."""

    checkpoint_note: str
    proofs: Mapping[str, tuple[int, tuple[bytes, ...]]]


@dataclass(frozen=True)
class HandExport:
    hand_id: str
    hand: StreamLog
    shoe: StreamLog
    keys: tuple[PublicKeyEntry, ...]
    settlement: StoredSettlement | None
    keyring: Keyring | None = None
    log: LogProofs | None = None

    def registry(self) -> KeyRegistry:
        """The export's own ``key`` lines: unverified, anyone can write them."""
        return KeyRegistry(self.keys)

    def trust(self, root: TrustRoot) -> KeyRegistry:
        """The keys an auditor pinning ``root`` trusts: the export's keyring, checked to
        be signed by ``root``. Every ``key`` line must be in it, unchanged. Raises
        :class:`UnknownKey` (reason ``untrusted_keyring`` / ``untrusted_key``)."""
        if self.keyring is None:
            raise UnknownKey("the export carries no signed keyring", reason="untrusted_keyring")
        self.keyring.verify(root)
        reg = self.keyring.registry()
        for k in self.keys:
            try:
                signed = reg.get(k.key_id)
            except UnknownKey:
                raise UnknownKey(
                    f"key {k.key_id} ({k.producer}) is not in the signed keyring "
                    f"v{self.keyring.version}",
                    reason="untrusted_key",
                ) from None
            if (signed.producer, signed.public_key) != (k.producer, k.public_key):
                raise UnknownKey(
                    f"key line {k.key_id} differs from the signed keyring",
                    reason="untrusted_key",
                )
        return reg


def verify_log(x: HandExport, log_key: NoteVerifier, held: Checkpoint | None = None) -> Checkpoint:
    """Check that every seal of the export is in the transparency log: its checkpoint
    is signed by ``log_key`` and each seal's leaf verifies against the root. With
    ``held``, the auditor's own checkpoint, the export must prove inclusion in exactly
    that tree (export with ``--size``). Returns the checkpoint; raises
    :class:`~croupier.errors.IntegrityError` (``ProofError``, ``SignatureError``)."""
    if x.log is None:
        raise ProofError("the export carries no transparency-log proofs")
    cp = open_checkpoint(x.log.checkpoint_note, log_key)
    if held is not None and (held.size, held.root, held.origin) != (cp.size, cp.root, cp.origin):
        raise ProofError(
            f"the export proves inclusion in the checkpoint of size {cp.size}, not in the "
            f"held one of size {held.size} (export it again with --size {held.size})"
        )
    for s in (*x.hand.seals, *x.shoe.seals):
        got = x.log.proofs.get(s.seal_id)
        if got is None:
            raise ProofError(f"seal {s.seal_id} by {s.key_id} has no proof in the log")
        index, path = got
        try:
            verify_inclusion(index, cp.size, seal_leaf_hash(s), path, cp.root)
        except ProofError as e:
            raise ProofError(f"seal {s.seal_id} by {s.key_id}: {e.message}") from e
    return cp


def dump(x: HandExport) -> str:
    lines: list[dict[str, Any]] = [
        {
            "kind": "header",
            "format": FORMAT,
            "hand_id": x.hand_id,
            "shoe_id": x.shoe.events[0].stream if x.shoe.events else None,
        }
    ]
    if x.keyring is not None:
        lines.append({"kind": "keyring", **x.keyring.to_json_dict()})
    lines += [{"kind": "key", **k.to_json_dict()} for k in x.keys]
    for log_name, log in (("shoe", x.shoe), ("hand", x.hand)):
        lines += [{"kind": "event", "log": log_name, **e.to_json_dict()} for e in log.events]
        lines += [{"kind": "seal", "log": log_name, **s.to_json_dict()} for s in log.seals]
    if x.settlement is not None:
        lines.append(
            {
                "kind": "settlement",
                "record": canonical.loads(x.settlement.record_bytes),
                "postings": [list(p) for p in x.settlement.postings],
            }
        )
    if x.log is not None:
        size = Checkpoint.parse(x.log.checkpoint_note.partition("\n\n")[0] + "\n").size
        lines.append({"kind": "checkpoint", "note": x.log.checkpoint_note})
        lines += [
            {
                "kind": "proof",
                "seal_id": sid,
                "leaf_index": i,
                "tree_size": size,
                "hashes": [h.hex() for h in path],
            }
            for sid, (i, path) in sorted(x.log.proofs.items())
        ]
    return "".join(json.dumps(d, ensure_ascii=False, sort_keys=True) + "\n" for d in lines)


def load(text: str) -> HandExport:
    hand_id = ""
    keys: list[PublicKeyEntry] = []
    logs: dict[str, tuple[list[Event], list[Seal]]] = {"hand": ([], []), "shoe": ([], [])}
    settlement: StoredSettlement | None = None
    note: str | None = None
    proofs: dict[str, tuple[int, tuple[bytes, ...]]] = {}
    keyring: Keyring | None = None
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            d = json.loads(line)
            kind = d.pop("kind")
            if kind == "header":
                if d.get("format") != FORMAT:
                    raise InvalidInput(f"unknown export format {d.get('format')!r}")
                hand_id = str(d["hand_id"])
            elif kind == "key":
                keys.append(PublicKeyEntry.from_json_dict(d))
            elif kind == "keyring":
                if keyring is not None:
                    raise InvalidInput("more than one keyring line")
                keyring = Keyring.from_json_dict(d)
            elif kind == "event":
                logs[d.pop("log")][0].append(Event.from_json_dict(d))
            elif kind == "seal":
                logs[d.pop("log")][1].append(Seal.from_json_dict(d))
            elif kind == "settlement":
                settlement = StoredSettlement(
                    canonical.dumps(d["record"]),
                    tuple((str(a), int(v)) for a, v in d["postings"]),
                )
            elif kind == "checkpoint":
                note = str(d["note"])
            elif kind == "proof":
                proofs[str(d["seal_id"])] = (
                    int(d["leaf_index"]),
                    tuple(bytes.fromhex(h) for h in d["hashes"]),
                )
            else:
                raise InvalidInput(f"unknown line kind {kind!r}")
        except (ValueError, KeyError, TypeError) as e:
            raise InvalidInput(f"line {n}: {e}") from e
    if not hand_id:
        raise InvalidInput("export has no header line")
    return HandExport(
        hand_id,
        StreamLog(tuple(logs["hand"][0]), tuple(logs["hand"][1])),
        StreamLog(tuple(logs["shoe"][0]), tuple(logs["shoe"][1])),
        tuple(keys),
        settlement,
        log=LogProofs(note, proofs) if note is not None else None,
        keyring=keyring,
    )


@dataclass(frozen=True)
class HandScript:
    variant: str
    hand_id: str
    events: tuple[tuple[str, Mapping[str, Any]], ...]


def script_opened(
    variant: str, seats: Sequence[tuple[int, str, int]], carry: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The ``hand.opened`` payload of a hand script: ``(seat, player, stack)`` rows at
    table ``t1``, hand 1, under the variant's current config version."""
    from croupier.games.registry import variant_config

    return {
        "variant": variant,
        "config_version": variant_config(variant).version,
        "table": "t1",
        "shoe": "script",
        "hand_no": 1,
        "shoe_hand_no": 1,
        "seats": [{"seat": s, "player": p, "stack": n} for s, p, n in seats],
        "carry": dict(carry or {}),
    }


def is_script(text: str) -> bool:
    """Whether ``text`` is an unsigned hand script (one JSON object of
    :data:`SCRIPT_FORMAT`) rather than a signed export (JSON lines)."""
    try:
        d = json.loads(text)
    except ValueError:
        return False
    return isinstance(d, dict) and d.get("format") == SCRIPT_FORMAT


def is_export(text: str) -> bool:
    """Whether ``text`` starts like a signed export (its header line)."""
    first = text.lstrip().split("\n", 1)[0]
    try:
        d = json.loads(first)
    except ValueError:
        return False
    return isinstance(d, dict) and d.get("kind") == "header" and d.get("format") == FORMAT


def load_script(text: str) -> HandScript:
    try:
        d = json.loads(text)
    except ValueError as e:
        raise InvalidInput(f"hand script is not JSON: {e}") from e
    if not isinstance(d, dict) or d.get("format") != SCRIPT_FORMAT:
        raise InvalidInput(f"hand script must be a JSON object with format {SCRIPT_FORMAT!r}")
    try:
        evs = tuple((str(e["type"]), dict(e["payload"])) for e in d["events"])
        return HandScript(str(d["variant"]), str(d.get("hand_id", "script")), evs)
    except (KeyError, TypeError, ValueError) as e:
        raise InvalidInput(f"hand script: {e}") from e


def replay_script(text: str) -> dict[str, Any]:
    """Run an unsigned hand script through its variant's engine and settlement, as the
    rule service and settlement would: the outcome, the settlement record and the
    ledger postings (``croupier hand replay --unsigned``). An unfinished hand, an illegal
    event or a malformed script raises :class:`InvalidInput` (a ``RuleViolation``)."""
    from croupier.games import base as g
    from croupier.games.registry import engine as engine_for
    from croupier.settlement import settle_state

    sc = load_script(text)
    eng = engine_for(sc.variant)
    state = eng.replay(sc.hand_id, list(sc.events))
    if not state.closed:
        eng.close_check(state)
        eng.apply(state, g.HAND_CLOSED, {})
    hs = settle_state(eng, state)
    return {
        "format": SCRIPT_FORMAT,
        "hand_id": sc.hand_id,
        "variant": sc.variant,
        "signed": False,
        "outcome": eng.outcome(state),
        "settlement": hs.record,
        "postings": [list(p) for p in hs.postings],
    }


def keys_for(registry: KeyRegistry, seals: Iterable[Seal]) -> tuple[PublicKeyEntry, ...]:
    """The registry's entries for the keys that made ``seals`` (a key it does not hold is
    left out: the audit names it)."""
    ids = sorted({s.key_id for s in seals})
    known = {e.key_id: e for e in registry}
    return tuple(known[k] for k in ids if k in known)


def signed_by(x: HandExport) -> dict[str, dict[str, Any]]:
    """Which key ids signed what: for each key, its producer, the seals it made and the
    events (by type, per stream) that name it."""
    out: dict[str, dict[str, Any]] = {}
    for log_name, log in (("shoe", x.shoe), ("hand", x.hand)):
        for s in log.seals:
            k = out.setdefault(s.key_id, {"producer": s.producer, "seals": 0, "events": {}})
            k["seals"] += 1
        for e in log.events:
            k = out.setdefault(e.key_id, {"producer": e.producer, "seals": 0, "events": {}})
            per = k["events"].setdefault(log_name, {})
            per[e.type] = per.get(e.type, 0) + 1
    return out
