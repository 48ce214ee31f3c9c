"""The protobuf API: generated modules, the event envelope mapping, service shapes,
field conventions, `buf lint`, and that the committed generated code is current."""

from __future__ import annotations

import importlib
import importlib.util
import os
import pkgutil
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
if importlib.util.find_spec("croupier") is None:  # running from a checkout, not installed
    sys.path.insert(0, str(ROOT / "libs"))

from google.protobuf.descriptor import Descriptor, FieldDescriptor  # noqa: E402

from croupier import events  # noqa: E402
from croupier.pb.croupier import v1 as pb_v1  # noqa: E402
from croupier.pb.croupier.v1 import (  # noqa: E402
    audit_pb2,
    envelope_pb2,
    gateway_pb2,
    settlement_pb2,
)
from croupier.signing import FileSigner, KeyRegistry  # noqa: E402

PB_PACKAGE = "croupier.pb.croupier.v1"
PROTO_FILES = ("audit", "envelope", "gateway", "settlement")
EXPECTED_MODULES = sorted(f"{name}_pb2{suffix}" for name in PROTO_FILES for suffix in ("", "_grpc"))

# service -> rpc -> (request, response, server-streaming)
EXPECTED_RPCS: dict[str, dict[str, tuple[str, str, bool]]] = {
    "GatewayService": {
        "OpenTable": ("OpenTableRequest", "OpenTableResponse", False),
        "OpenShoe": ("OpenShoeRequest", "OpenShoeResponse", False),
        "OpenHand": ("OpenHandRequest", "OpenHandResponse", False),
        "PlaceBets": ("PlaceBetsRequest", "PlaceBetsResponse", False),
        "Act": ("ActRequest", "ActResponse", False),
        "ExpireTurn": ("ExpireTurnRequest", "ExpireTurnResponse", False),
        "CloseBetting": ("CloseBettingRequest", "CloseBettingResponse", False),
        "GetHandView": ("GetHandViewRequest", "GetHandViewResponse", False),
        "StreamTableEvents": ("StreamTableEventsRequest", "StreamTableEventsResponse", True),
        "CloseTable": ("CloseTableRequest", "CloseTableResponse", False),
        "IssueSeatToken": ("IssueSeatTokenRequest", "IssueSeatTokenResponse", False),
    },
    "AuditService": {
        "VerifyHand": ("VerifyHandRequest", "VerifyHandResponse", False),
        "VerifyRange": ("VerifyRangeRequest", "VerifyRangeResponse", True),
        "ExportHand": ("ExportHandRequest", "ExportHandResponse", False),
        "GetHandHistory": ("GetHandHistoryRequest", "GetHandHistoryResponse", False),
        "GetDayReport": ("GetDayReportRequest", "GetDayReportResponse", False),
        "ListTables": ("ListTablesRequest", "ListTablesResponse", False),
        "ListHands": ("ListHandsRequest", "ListHandsResponse", False),
        "GetCheckpoint": ("GetCheckpointRequest", "GetCheckpointResponse", False),
        "GetConsistencyProof": (
            "GetConsistencyProofRequest",
            "GetConsistencyProofResponse",
            False,
        ),
        "GetInclusionProof": ("GetInclusionProofRequest", "GetInclusionProofResponse", False),
    },
    "SettlementService": {
        "GetSettlement": ("GetSettlementRequest", "GetSettlementResponse", False),
        "ListSettlements": ("ListSettlementsRequest", "ListSettlementsResponse", False),
        "GetRakeSummary": ("GetRakeSummaryRequest", "GetRakeSummaryResponse", False),
        "GetBalance": ("GetBalanceRequest", "GetBalanceResponse", False),
    },
}
SERVICE_FILE = {
    "GatewayService": "gateway",
    "AuditService": "audit",
    "SettlementService": "settlement",
}
BYTES_FIELDS = {
    "hash",
    "prev_hash",
    "signature",
    "commitment",
    "server_seed",
    "previous_server_seed",
}


def _module(name: str) -> ModuleType:
    return importlib.import_module(f"{PB_PACKAGE}.{name}")


def _all_messages() -> list[Descriptor]:
    out: list[Descriptor] = []
    stack = [
        d
        for name in PROTO_FILES
        for d in _module(f"{name}_pb2").DESCRIPTOR.message_types_by_name.values()
    ]
    while stack:
        d = stack.pop()
        out.append(d)
        stack.extend(d.nested_types)
    return out


# --- generated modules --------------------------------------------------------------


def test_generated_modules_are_exactly_the_expected_ones() -> None:
    found = sorted(m.name for m in pkgutil.iter_modules(pb_v1.__path__))
    assert found == EXPECTED_MODULES


@pytest.mark.parametrize("name", EXPECTED_MODULES)
def test_every_generated_module_imports(name: str) -> None:
    mod = _module(name)
    if not name.endswith("_grpc"):
        assert mod.DESCRIPTOR.package == "croupier.v1"
        assert mod.DESCRIPTOR.name == f"croupier/v1/{name.removesuffix('_pb2')}.proto"


def test_generated_classes_live_in_the_package() -> None:
    assert envelope_pb2.Event.__module__ == f"{PB_PACKAGE}.envelope_pb2"
    assert gateway_pb2.HandView.__module__ == f"{PB_PACKAGE}.gateway_pb2"


# --- envelope -----------------------------------------------------------------------


def _to_pb_event(e: events.Event) -> envelope_pb2.Event:
    return envelope_pb2.Event(
        stream=e.stream,
        seq=e.seq,
        type=e.type,
        producer=e.producer,
        key_id=e.key_id,
        prev_hash=e.prev_hash,
        payload_json=e.payload_bytes.decode("utf-8"),
        hash=e.hash,
    )


def _from_pb_event(m: envelope_pb2.Event) -> events.Event:
    return events.Event(
        stream=m.stream,
        seq=m.seq,
        type=m.type,
        producer=m.producer,
        key_id=m.key_id,
        prev_hash=m.prev_hash,
        payload_bytes=m.payload_json.encode("utf-8"),
        hash=m.hash,
    )


def _to_pb_seal(s: events.Seal) -> envelope_pb2.Seal:
    return envelope_pb2.Seal(
        producer=s.producer,
        key_id=s.key_id,
        sealed_at_ms=s.sealed_at_ms,
        entries=[
            envelope_pb2.SealEntry(stream=x.stream, seq=x.seq, hash=x.hash) for x in s.entries
        ],
        signature=s.signature,
        version=s.version,
    )


def _from_pb_seal(m: envelope_pb2.Seal) -> events.Seal:
    return events.Seal(
        producer=m.producer,
        key_id=m.key_id,
        sealed_at_ms=m.sealed_at_ms,
        entries=tuple(events.SealEntry(x.stream, x.seq, x.hash) for x in m.entries),
        signature=m.signature,
        version=m.version or 1,
    )


def test_event_batch_round_trips_and_still_verifies() -> None:
    dealer = FileSigner.from_seed("dealer", "dealer-test", bytes(range(32)))
    registry = KeyRegistry([dealer.public_entry()])
    hand = events.StreamWriter("hand-1")
    hand.append(dealer, "hand.opened", {"table": "t1", "variant": "baccarat", "note": "百家乐"})
    hand.append(dealer, "card.dealt", {"card": "As", "to": "player"})
    hand.append(dealer, "card.dealt", {"card": "Td", "to": "banker", "amount_minor": 2**62})
    shoe = events.StreamWriter("shoe-1")
    shoe.append(dealer, "shoe.opened", {"commitment": "00" * 32})
    evs = hand.take() + shoe.take()
    seal = events.seal(dealer, events.heads_of(evs), sealed_at_ms=1_700_000_000_123)

    batch = envelope_pb2.EventBatch(
        events=[_to_pb_event(e) for e in evs], seals=[_to_pb_seal(seal)]
    )
    wire = batch.SerializeToString(deterministic=True)
    back = envelope_pb2.EventBatch.FromString(wire)

    assert back == batch
    assert back.SerializeToString(deterministic=True) == wire
    got_events = [_from_pb_event(m) for m in back.events]
    got_seals = [_from_pb_seal(m) for m in back.seals]
    assert got_events == evs
    assert got_seals == [seal]
    # The canonical payload bytes survive the string field exactly, so hashes hold.
    assert all(e.recompute_hash() == e.hash for e in got_events)
    for stream in ("hand-1", "shoe-1"):
        chain = [e for e in got_events if e.stream == stream]
        assert events.first_error(chain, got_seals, registry) is None


def test_tampered_payload_is_detected_after_round_trip() -> None:
    dealer = FileSigner.from_seed("dealer", "dealer-test", bytes(range(32)))
    w = events.StreamWriter("hand-2")
    ev = w.append(dealer, "bet.placed", {"amount_minor": 100, "seat": 1, "spot": "banker"})
    msg = _to_pb_event(ev)
    msg.payload_json = msg.payload_json.replace("100", "900")
    bad = _from_pb_event(envelope_pb2.Event.FromString(msg.SerializeToString()))
    assert bad.recompute_hash() != bad.hash


# --- services -----------------------------------------------------------------------


@pytest.mark.parametrize("service", sorted(EXPECTED_RPCS))
def test_service_has_exactly_the_expected_rpcs(service: str) -> None:
    file = SERVICE_FILE[service]
    desc = _module(f"{file}_pb2").DESCRIPTOR.services_by_name[service]
    assert desc.full_name == f"croupier.v1.{service}"
    assert set(desc.methods_by_name) == set(EXPECTED_RPCS[service])
    for rpc, (req, resp, server_streaming) in EXPECTED_RPCS[service].items():
        m = desc.methods_by_name[rpc]
        assert m.input_type.full_name == f"croupier.v1.{req}", rpc
        assert m.output_type.full_name == f"croupier.v1.{resp}", rpc
        assert m.server_streaming is server_streaming, rpc
        assert m.client_streaming is False, rpc

    grpc_mod = _module(f"{file}_pb2_grpc")
    stub = getattr(grpc_mod, f"{service}Stub")
    servicer = getattr(grpc_mod, f"{service}Servicer")
    assert callable(getattr(grpc_mod, f"add_{service}Servicer_to_server"))
    for rpc in EXPECTED_RPCS[service]:
        assert callable(getattr(servicer, rpc))
    assert callable(stub)


def test_request_and_response_types_are_unique_per_rpc() -> None:
    used = [t for rpcs in EXPECTED_RPCS.values() for r in rpcs.values() for t in r[:2]]
    assert len(used) == len(set(used))


# --- field conventions ----------------------------------------------------------------


def test_money_time_and_hash_fields_use_the_agreed_types() -> None:
    checked = 0
    for msg in _all_messages():
        for f in msg.fields:
            where = f"{msg.full_name}.{f.name}"
            if f.name.endswith("_minor") or f.name.endswith("_ms"):
                assert f.type == FieldDescriptor.TYPE_INT64, where
                checked += 1
            if f.name in BYTES_FIELDS:
                assert f.type == FieldDescriptor.TYPE_BYTES, where
                checked += 1
            if f.name.endswith("_json"):
                assert f.type == FieldDescriptor.TYPE_STRING, where
    assert checked > 20


def test_presence_of_optional_fields() -> None:
    public = gateway_pb2.GetHandViewRequest(hand_id="h")
    seat0 = gateway_pb2.GetHandViewRequest(hand_id="h", seat=0)
    assert not public.HasField("seat")
    assert seat0.HasField("seat") and seat0.seat == 0
    assert gateway_pb2.GetHandViewRequest.FromString(seat0.SerializeToString()).HasField("seat")

    report = audit_pb2.AuditReport(hand_id="h", first_bad_stream="h", first_bad_seq=0)
    assert report.HasField("first_bad_seq")
    assert not audit_pb2.AuditReport(hand_id="h").HasField("first_bad_seq")

    req = gateway_pb2.StreamTableEventsRequest(table_id="t", after_seq=41)
    assert req.WhichOneof("start") == "after_seq"
    req.from_now = True
    assert req.WhichOneof("start") == "from_now"
    assert gateway_pb2.StreamTableEventsRequest(table_id="t").WhichOneof("start") is None


def test_audit_verdict_values() -> None:
    names = dict(audit_pb2.AuditVerdict.items())
    assert names == {
        "AUDIT_VERDICT_UNSPECIFIED": 0,
        "AUDIT_VERDICT_PASS": 1,
        "AUDIT_VERDICT_FAIL": 2,
        "AUDIT_VERDICT_PENDING_REVEAL": 3,
        "AUDIT_VERDICT_PENDING_OPEN": 4,
    }


def test_settlement_message_shape() -> None:
    s = settlement_pb2.Settlement(
        hand_id="h",
        variant="baccarat",
        table_id="t",
        record_json="{}",
        deltas=[
            settlement_pb2.Delta(account="p1", amount_minor=-100),
            settlement_pb2.Delta(account="house", amount_minor=95),
        ],
        rake_minor=5,
        tx_id="tx",
        settled_at_ms=1,
    )
    back = settlement_pb2.Settlement.FromString(s.SerializeToString())
    assert sum(d.amount_minor for d in back.deltas) + back.rake_minor == 0


# --- buf and generated code -------------------------------------------------------------


def _buf() -> str | None:
    beside = Path(sys.executable).parent / "buf"
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    return shutil.which("buf")


def test_buf_lint_and_format() -> None:
    buf = _buf()
    if buf is None:
        pytest.skip("the buf binary is not installed (pip install buf-bin)")
    lint = subprocess.run(
        [buf, "lint"], cwd=ROOT / "proto", capture_output=True, text=True, check=False
    )
    assert lint.returncode == 0, lint.stdout + lint.stderr
    fmt = subprocess.run(
        [buf, "format", "--diff", "--exit-code"],
        cwd=ROOT / "proto",
        capture_output=True,
        text=True,
        check=False,
    )
    assert fmt.returncode == 0, fmt.stdout + fmt.stderr


def _tree(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


def test_committed_generated_code_is_current(tmp_path: Path) -> None:
    if shutil.which("bash") is None:
        pytest.skip("bash is not available to run scripts/gen-proto")
    out = tmp_path / "pb"
    env = {**os.environ, "PYTHON": sys.executable}
    run = subprocess.run(
        ["bash", str(ROOT / "scripts" / "gen-proto"), str(out)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    fresh = _tree(out)
    committed = _tree(ROOT / "libs" / "croupier" / "pb")
    assert sorted(fresh) == sorted(committed)
    stale = [name for name in fresh if fresh[name] != committed[name]]
    assert not stale, f"stale generated files (run scripts/gen-proto): {stale}"
