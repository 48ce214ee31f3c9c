"""One hand is one W3C trace, dealer -> rules -> settlement, over real NATS: every
message published for the hand carries a ``traceparent`` with the hand's trace id and a
span id of its own, and settlement's "hand settled" line names it, though the gateway
called with a traceparent of its own."""

from __future__ import annotations

import logging

import pytest

from croupier import trace
from croupier.pb.croupier.v1 import gateway_pb2
from croupier_services import logs

from .harness import Cluster, all_stream_messages, seat_entries

pytestmark = pytest.mark.integration

CALLER = "4bf92f3577b34da6a3ce929d0e0e4736"
CALLER_TP = (("traceparent", f"00-{CALLER}-00f067aa0ba902b7-01"),)


class Capture(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.addFilter(logs.BoundIds())
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


async def test_a_hand_is_one_trace_from_dealer_to_settlement(cluster: Cluster) -> None:
    c = cluster
    cap = Capture()
    root = logging.getLogger("croupier")
    root.addHandler(cap)
    old = root.level
    root.setLevel(logging.INFO)
    try:
        table = await c.open_table("trace")
        call = c.gw.OpenHand(
            gateway_pb2.OpenHandRequest(table_id=table, seats=seat_entries(table, 2)),
            metadata=CALLER_TP,
        )
        h = await call
        hid = h.hand_id
        # the dealer starts the hand's trace and tells the caller its traceparent
        opened_tp = dict(await call.trailing_metadata()).get("traceparent")
        await c.gw.PlaceBets(
            gateway_pb2.PlaceBetsRequest(
                hand_id=hid, bets=[gateway_pb2.Bet(seat=1, spot="banker", amount_minor=10_000)]
            ),
            metadata=CALLER_TP,
        )
        await c.gw.CloseBetting(gateway_pb2.CloseBettingRequest(hand_id=hid), metadata=CALLER_TP)
        await c.wait_settled(1)
        await c.flush()
    finally:
        root.removeHandler(cap)
        root.setLevel(old)

    want = trace.hand_trace_id(hid)
    assert want != CALLER
    assert opened_tp == trace.hand_traceparent(hid)
    assert trace.trace_id_of(str(opened_tp)) == want

    # every message of the hand on the stream: same trace id, a span id per hop
    msgs = [m for m in await all_stream_messages(c.bus) if m.headers and hid in str(m.headers)]
    kinds = {m.subject.split(".")[1]: m for m in msgs}
    assert set(kinds) == {"hand", "outcome", "settled"}, [m.subject for m in msgs]
    spans = set()
    for kind, m in kinds.items():
        tp = (m.headers or {}).get("traceparent")
        assert tp is not None, f"{kind} message without traceparent"
        assert trace.trace_id_of(tp) == want, (kind, tp)
        spans.add(tp.split("-")[2])
    assert len(spans) == 3 and str(opened_tp).split("-")[2] not in spans

    # settlement's "hand settled" line carries it
    settled = [r for r in cap.records if r.getMessage() == "hand settled"]
    assert settled and all(getattr(r, "trace_id", None) == want for r in settled)
    assert all(getattr(r, "hand_id", None) == hid for r in settled)
