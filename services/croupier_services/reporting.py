"""What auditors read, loaded from the store: a hand's history
(:mod:`croupier.history`) and the day report (:mod:`croupier.report`). The CLI, the
audit gRPC service and the web viewer all call these.

Setting: ``CROUPIER_REPORT_TZ``, the IANA time zone of report days and of the times in
histories (default ``UTC``).
"""

from __future__ import annotations

import json
from datetime import UTC, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from croupier import report
from croupier.errors import InvalidInput
from croupier.export import SCRIPT_FORMAT, HandExport, load, load_script
from croupier.history import HandLog, render
from croupier.settlement import recorded_version
from croupier.store import EventStore
from croupier_services import config
from croupier_services.audit import load_hand
from croupier_services.bots import theoretical_rtp


def parse_tz(name: str | None) -> tzinfo:
    """A time zone by IANA name; empty or ``UTC`` is UTC."""
    if not name or name.upper() == "UTC":
        return UTC
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as e:
        raise InvalidInput(f"unknown time zone {name!r}") from e


def report_time_zone() -> tzinfo:
    return parse_tz(config.REPORT_TZ.get())


def day_report(
    store: EventStore,
    day: str,
    tz: tzinfo,
    *,
    variant: str | None = None,
    table_id: str | None = None,
) -> report.DayReport:
    since, until = report.day_window(day, tz)
    hands = store.settled_hands(since, until, variant=variant, table_id=table_id)
    house = sorted({h.variant for h in hands if "house" in h.record.get("participants", ())})
    return report.build(day, tz, hands, {v: theoretical_rtp(v) for v in house})


def export_log(x: HandExport, opened_at_ms: int | None = None) -> HandLog:
    """A loaded hand (stored or exported) as a :class:`HandLog`, its settlement shown at
    the record version the hand was recorded with (as the auditor rebuilds it)."""
    return HandLog(
        x.hand_id,
        tuple((e.type, e.payload) for e in x.hand.events),
        opened_at_ms=opened_at_ms,
        signed=True,
        record_version=recorded_version(
            None if x.settlement is None else x.settlement.record_bytes
        ),
    )


def stored_log(store: EventStore, hand_id: str) -> HandLog:
    """A stored hand's events as a :class:`HandLog` (seals are checked by the audit)."""
    return export_log(load_hand(store, hand_id), store.stream_info(hand_id).opened_at_ms)


def file_log(text: str) -> HandLog:
    """A hand from a file: an export (JSON lines) or an unsigned hand script."""
    try:
        first = json.loads(text)
    except ValueError:
        first = None
    if isinstance(first, dict) and first.get("format") == SCRIPT_FORMAT:
        sc = load_script(text)
        return HandLog(sc.hand_id, sc.events)
    return export_log(load(text))


def history(store: EventStore, hand_id: str, tz: tzinfo | None = None) -> str:
    return render(stored_log(store, hand_id), time_zone=tz or report_time_zone())
