"""The services' event loop: uvloop by default, asyncio's when asked or not installed."""

from __future__ import annotations

import asyncio
import sys

import pytest

from croupier_services.config import SettingError
from croupier_services.runtime import run_service


async def loop_module() -> str:
    return type(asyncio.get_running_loop()).__module__


def test_a_service_runs_on_uvloop_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CROUPIER_EVENT_LOOP", raising=False)
    assert run_service(loop_module()).startswith("uvloop")


def test_asyncio_s_loop_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CROUPIER_EVENT_LOOP", "asyncio")
    assert run_service(loop_module()).startswith("asyncio")


def test_asyncio_s_loop_when_uvloop_is_not_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CROUPIER_EVENT_LOOP", raising=False)
    monkeypatch.setitem(sys.modules, "uvloop", None)  # import uvloop raises ImportError
    assert run_service(loop_module()).startswith("asyncio")


def test_an_unknown_loop_is_refused_before_anything_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CROUPIER_EVENT_LOOP", "trio")
    coro = loop_module()
    with pytest.raises(SettingError, match="CROUPIER_EVENT_LOOP"):
        run_service(coro)
    coro.close()
