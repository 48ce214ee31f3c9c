"""Structured logs: ids bound where a hand is handled ride on every log record."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator

import pytest

from croupier import trace
from croupier.testing import DealerRun
from croupier_services import logs
from croupier_services.consumer import Work, _table_of
from croupier_services.settlement import SettlementWorker

TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"


@pytest.fixture
def lines() -> Iterator[io.StringIO]:
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(logs.JsonFormatter())
    handler.addFilter(logs.BoundIds())
    logger = logging.getLogger("croupier")
    old = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        yield out
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old)


def test_a_settlement_log_line_carries_the_hand_and_table_ids(lines: io.StringIO) -> None:
    run = DealerRun(
        "sangong.hundred",
        seats=[{"seat": 1, "player": "p1", "stack": 10**7}],
        bets=[(1, "east", 1000)],
    )
    hand = run.open()
    _, hs = run.finish(hand.hand_id)
    worker = SettlementWorker.__new__(SettlementWorker)  # _count needs no store or bus
    logs.set_ids(trace_id=TRACE)
    try:
        worker._count(Work([], None, extra={"hs": hs, "table": "t9", "closed_at": 0, "new": True}))
    finally:
        logs.set_ids()
    rows = [json.loads(x) for x in lines.getvalue().splitlines()]
    settled = [r for r in rows if r["msg"] == "hand settled"]
    assert len(settled) == 1, rows
    row = settled[0]
    assert row["hand_id"] == hand.hand_id and row["table_id"] == "t9"
    # the hand's own trace, whatever the context had bound
    assert row["trace_id"] == trace.hand_trace_id(hand.hand_id) != TRACE
    assert row["variant"] == "sangong.hundred"
    assert logs.bound() == {}


def test_bind_nests_and_unbinds_and_text_lines_show_the_ids() -> None:
    with logs.bind(hand_id="h1"):
        with logs.bind(table_id="t1", other="ignored"):
            assert logs.bound() == {"hand_id": "h1", "table_id": "t1"}
            rec = logging.makeLogRecord({"msg": "x", "levelname": "INFO", "name": "croupier"})
            assert logs.BoundIds().filter(rec)
            assert logs.TextFormatter().format(rec).endswith(" hand_id=h1 table_id=t1")
        assert logs.bound() == {"hand_id": "h1"}
    assert logs.bound() == {}


def test_trace_ids_from_traceparent_and_tables_from_subjects() -> None:
    assert logs.trace_id_of(f"00-{TRACE}-00f067aa0ba902b7-01") == TRACE
    for bad in (None, "", "00-xyz-00f067aa0ba902b7-01", f"00-{'0' * 32}-00f067aa0ba902b7-01"):
        assert logs.trace_id_of(bad) is None
    assert _table_of("croupier.outcome.niuniu_hundred.t-7") == "t-7"
    assert _table_of("croupier.outcome") is None


def test_a_dealer_call_binds_its_hand_table_and_trace() -> None:
    from croupier.pb.croupier.v1 import gateway_pb2
    from croupier_services.grpc_util import _ids_of

    class Ctx:
        def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
            return (("traceparent", f"00-{TRACE}-00f067aa0ba902b7-01"),)

    # a call naming a hand is in the hand's trace; the caller's is kept as a link
    hand_trace = trace.hand_trace_id("h7")
    ids = _ids_of(gateway_pb2.PlaceBetsRequest(hand_id="h7"), Ctx())
    assert ids == {
        "hand_id": "h7",
        "table_id": None,
        "trace_id": hand_trace,
        "caller_trace_id": TRACE,
    }

    class Same:
        def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
            return (("traceparent", f"00-{hand_trace}-00f067aa0ba902b7-01"),)

    ids = _ids_of(gateway_pb2.PlaceBetsRequest(hand_id="h7"), Same())
    assert ids["trace_id"] == hand_trace and ids["caller_trace_id"] is None
    # a call naming no hand continues the caller's trace
    ids = _ids_of(gateway_pb2.OpenHandRequest(table_id="t3"), Ctx())
    assert ids == {"hand_id": None, "table_id": "t3", "trace_id": TRACE, "caller_trace_id": None}
    ids = _ids_of(gateway_pb2.OpenHandRequest(table_id="t3"), object())
    assert ids == {"hand_id": None, "table_id": "t3", "trace_id": None, "caller_trace_id": None}


def test_the_trace_of_a_hand_is_derived_from_its_id() -> None:
    t = trace.hand_trace_id("baccarat-t1-000001")
    assert len(t) == 32 and t == trace.hand_trace_id("baccarat-t1-000001")
    assert t != trace.hand_trace_id("baccarat-t1-000002")
    tps = [trace.traceparent_for_message(f"{k}:baccarat-t1-000001") for k in ("hand", "outcome")]
    assert all(tp is not None and trace.trace_id_of(tp) == t for tp in tps)
    assert len({tp.split("-")[2] for tp in tps if tp}) == 2  # a span id per hop
    assert trace.traceparent_for_message("no-hand") is None
    assert trace.hand_of_msg_id("hand:t1_h1:again") == "t1_h1"  # a test's re-publish
    assert trace.hand_of_msg_id("hand:") is None and trace.hand_of_msg_id(":x") is None
    from croupier.bus.jetstream import headers_for

    h = headers_for("settled:baccarat-t1-000001")
    assert h["Nats-Msg-Id"] == "settled:baccarat-t1-000001"
    assert trace.trace_id_of(h["traceparent"]) == t
