"""A client channel that sends an identity token on every call as plain metadata.

gRPC's call credentials (``grpc.access_token_call_credentials``) run a Python metadata
plugin for every call outside the call itself: measured here at ~500 µs of the client's
CPU a call (a health check over mutual TLS: ~1,600 µs with them, ~1,050 without). The
token is a constant, so :class:`BearerChannel` adds ``authorization: Bearer …`` to each
call's metadata instead, in front of what the caller passes (seat tokens), at the cost
of one tuple concatenation. It wraps only a secure channel (the caller's promise, as
with call credentials, which gRPC sends over TLS only): the token never travels in
plain text.
"""

from __future__ import annotations

from typing import Any

import grpc


def bearer(token: str) -> tuple[tuple[str, str], ...]:
    """The metadata that carries an identity token."""
    if not token or any(c in token for c in "\r\n "):
        raise ValueError("an identity token is one non-empty word")
    return (("authorization", f"Bearer {token}"),)


class _WithToken:
    """A multi-callable whose calls carry the token first."""

    __slots__ = ("_call", "_md")

    def __init__(self, call: Any, md: tuple[tuple[str, str], ...]) -> None:
        self._call, self._md = call, md

    def __call__(self, request: Any, *, metadata: Any = None, **kw: Any) -> Any:
        md = self._md if metadata is None else self._md + tuple(metadata)
        return self._call(request, metadata=md, **kw)


class _StreamWithToken(_WithToken):
    """The same for a call that streams its requests (whose arguments may come in order:
    requests, timeout, metadata, ...)."""

    __slots__ = ()

    def __call__(  # type: ignore[override]
        self, request_iterator: Any = None, timeout: Any = None, metadata: Any = None, **kw: Any
    ) -> Any:
        md = self._md if metadata is None else self._md + tuple(metadata)
        return self._call(request_iterator, timeout=timeout, metadata=md, **kw)


class BearerChannel(grpc.aio.Channel):  # type: ignore[misc]
    """``inner`` (a secure channel) with the token on every call: ``token`` is the token
    itself or its metadata (:func:`bearer`)."""

    def __init__(self, inner: grpc.aio.Channel, token: str | tuple[tuple[str, str], ...]) -> None:
        self._inner = inner
        self._md = bearer(token) if isinstance(token, str) else token

    async def __aenter__(self) -> BearerChannel:
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._inner.__aexit__(*exc)

    async def close(self, grace: float | None = None) -> None:
        await self._inner.close(grace)

    def get_state(self, try_to_connect: bool = False) -> Any:
        return self._inner.get_state(try_to_connect)

    async def wait_for_state_change(self, last_observed_state: Any) -> None:
        await self._inner.wait_for_state_change(last_observed_state)

    async def channel_ready(self) -> None:
        await self._inner.channel_ready()

    def unary_unary(self, method: str, *a: Any, **kw: Any) -> Any:
        return _WithToken(self._inner.unary_unary(method, *a, **kw), self._md)

    def unary_stream(self, method: str, *a: Any, **kw: Any) -> Any:
        return _WithToken(self._inner.unary_stream(method, *a, **kw), self._md)

    def stream_unary(self, method: str, *a: Any, **kw: Any) -> Any:
        return _StreamWithToken(self._inner.stream_unary(method, *a, **kw), self._md)

    def stream_stream(self, method: str, *a: Any, **kw: Any) -> Any:
        return _StreamWithToken(self._inner.stream_stream(method, *a, **kw), self._md)
