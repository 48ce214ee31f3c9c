"""The README's settings table is generated from the one table of definitions
(``croupier settings --markdown``), and ``croupier settings`` shows values masked."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from croupier_services import config
from croupier_services.cli import main

README = Path(__file__).resolve().parents[2] / "README.md"


def test_the_readme_settings_table_is_the_definitions_table() -> None:
    text = README.read_text(encoding="utf-8")
    m = re.search(r"<!-- settings:begin -->\n(.*?)<!-- settings:end -->", text, re.S)
    assert m, "README.md lost its <!-- settings:begin/end --> markers"
    assert m.group(1) == config.markdown_table(), (
        "README.md's settings table differs from services/croupier_services/config.py: "
        "regenerate it with `croupier settings --markdown`"
    )
    for name in config.SETTINGS:
        assert f"| `{name}` |" in m.group(1)


def test_settings_lists_every_variable_with_passwords_masked(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CROUPIER_DATABASE_URL", "postgresql+psycopg://croupier:hunter2@db/x")
    monkeypatch.setenv("CROUPIER_NATS_URL", "nats://a:pw1@n1:4222,nats://b:pw2@n2:4222")
    monkeypatch.setenv("CROUPIER_DB_DEALER_PASSWORD", "s3cret")
    monkeypatch.setenv("CROUPIER_STREAM_REPLICAS", "3")
    assert main(["settings", "--json"]) == 0
    out = capsys.readouterr().out
    for secret in ("hunter2", "pw1", "pw2", "s3cret"):
        assert secret not in out
    rows = {r["name"]: r for r in json.loads(out)}
    assert set(rows) == set(config.SETTINGS)
    assert rows["CROUPIER_DATABASE_URL"]["value"] == "postgresql+psycopg://croupier:***@db/x"
    assert rows["CROUPIER_NATS_URL"]["value"] == "nats://a:***@n1:4222,nats://b:***@n2:4222"
    assert rows["CROUPIER_DB_DEALER_PASSWORD"]["value"] == "***"
    assert rows["CROUPIER_STREAM_REPLICAS"] == {
        **rows["CROUPIER_STREAM_REPLICAS"],
        "value": "3",
        "set": True,
        "default": "1",
        "error": None,
    }
    assert rows["CROUPIER_KEYS_DIR"]["value"] is None and not rows["CROUPIER_KEYS_DIR"]["set"]

    assert main(["settings"]) == 0
    text = capsys.readouterr().out
    assert "hunter2" not in text and "CROUPIER_STALL_AFTER_S = (default)" in text


def test_settings_names_a_bad_value_and_exits_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CROUPIER_METRICS_PORT", "nine")
    assert main(["settings"]) == 2
    cap = capsys.readouterr()
    assert "INVALID: CROUPIER_METRICS_PORT: expected an integer, got 'nine'" in cap.out
    assert cap.err == "croupier: CROUPIER_METRICS_PORT: expected an integer, got 'nine'\n"
