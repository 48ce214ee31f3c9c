"""Structured logs: one JSON object per line (time, level, logger, message, and any
``extra={...}`` fields), for log shippers.

Ids bound with :func:`bind` (``hand_id``, ``table_id``, ``trace_id``, and a caller's
other ``caller_trace_id``) where a hand is
handled - a consumer loop's message, a dealer call - ride on every record logged in
that context (a :class:`contextvars.ContextVar`, so each asyncio task keeps its own)."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from types import MappingProxyType
from typing import Any

from croupier import trace

BOUND_KEYS = ("hand_id", "table_id", "trace_id", "caller_trace_id")
_BOUND: ContextVar[Mapping[str, str]] = ContextVar("croupier_log_ids", default=MappingProxyType({}))


def bound() -> dict[str, str]:
    """The ids bound in the current context."""
    return dict(_BOUND.get())


def set_ids(**ids: str | None) -> None:
    """Bind ``ids`` (empty ones are left out) for the rest of the current context,
    replacing whatever was bound (a consumer loop calls it for each message)."""
    _BOUND.set({k: v for k, v in ids.items() if k in BOUND_KEYS and v})


@contextmanager
def bind(**ids: str | None) -> Iterator[None]:
    """Bind ``ids`` on top of the current ones for the ``with`` block."""
    token = _BOUND.set({**_BOUND.get(), **{k: v for k, v in ids.items() if k in BOUND_KEYS and v}})
    try:
        yield
    finally:
        _BOUND.reset(token)


def trace_id_of(traceparent: str | None) -> str | None:
    """The trace id of a W3C ``traceparent`` header value (None if absent or malformed,
    or the all-zero invalid id)."""
    return trace.trace_id_of(traceparent)


class BoundIds(logging.Filter):
    """Copies the bound ids onto each record (a record's own ``extra`` wins)."""

    def filter(self, record: logging.LogRecord) -> bool:
        for k, v in _BOUND.get().items():
            if not hasattr(record, k):
                setattr(record, k, v)
        return True


class TextFormatter(logging.Formatter):
    """``time level logger message`` then the bound ids as ``key=value``."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        ids = " ".join(f"{k}={getattr(record, k)}" for k in BOUND_KEYS if hasattr(record, k))
        return f"{text} {ids}" if ids else text


_STD = set(vars(logging.makeLogRecord({}))) | {"message", "asctime"}


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname,
            "logger": record.name,
            "msg": record.getMessage(),
        }
        for k, v in vars(record).items():
            if k not in _STD and not k.startswith("_"):
                out[k] = v
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False, default=str)


def setup(level: str = "INFO", json_lines: bool = True) -> None:
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter() if json_lines else TextFormatter())
    handler.addFilter(BoundIds())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
