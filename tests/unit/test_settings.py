"""Stream and consumer settings from the environment, and their checks."""

from __future__ import annotations

import pytest

from croupier.bus.jetstream import ConsumerSpec, StreamSpec, server_list
from croupier.errors import InvalidInput
from croupier_services.config import Settings


def test_stream_and_consumer_settings_come_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CROUPIER_NATS_URL", "nats://a:4222,nats://b:4222")
    monkeypatch.setenv("CROUPIER_STREAM_REPLICAS", "3")
    monkeypatch.setenv("CROUPIER_STREAM_MAX_AGE_S", "86400")
    monkeypatch.setenv("CROUPIER_STREAM_MAX_BYTES", "1000000")
    monkeypatch.setenv("CROUPIER_STREAM_DISCARD", "old")
    monkeypatch.setenv("CROUPIER_CONSUMER_MAX_DELIVER", "20")
    monkeypatch.setenv("CROUPIER_CONSUMER_BACKOFF_S", "1, 5,30")
    s = Settings.from_env("rules")
    assert server_list(s.nats_url) == ["nats://a:4222", "nats://b:4222"]
    assert s.stream == StreamSpec(3, 86400.0, 1_000_000, "old", 120.0)
    assert s.consumers == ConsumerSpec(10.0, 20, (1.0, 5.0, 30.0), 20_000)
    cfg = s.consumers.config("rules_baccarat", "croupier.hand.baccarat.*")
    assert cfg.max_deliver == 20 and cfg.backoff == [1.0, 5.0, 30.0]
    assert s.stream.config().num_replicas == 3


def test_defaults_are_one_replica_no_limits_discard_new(monkeypatch: pytest.MonkeyPatch) -> None:
    for k in ("REPLICAS", "MAX_AGE_S", "MAX_BYTES", "DISCARD"):
        monkeypatch.delenv(f"CROUPIER_STREAM_{k}", raising=False)
    s = Settings.from_env("dealer")
    assert s.stream == StreamSpec()
    assert (s.stream.replicas, s.stream.max_age_s, s.stream.max_bytes) == (1, 0.0, -1)
    assert s.stream.discard == "new" and s.consumers.max_deliver == -1


@pytest.mark.parametrize(
    ("var", "value", "needle"),
    [
        ("CROUPIER_STREAM_REPLICAS", "three", "CROUPIER_STREAM_REPLICAS: expected an integer"),
        ("CROUPIER_STREAM_REPLICAS", "7", "replicas"),
        ("CROUPIER_STREAM_DISCARD", "oldest", "CROUPIER_STREAM_DISCARD: expected one of new, old"),
        ("CROUPIER_GRPC_PORT", "abc", "CROUPIER_GRPC_PORT: expected an integer, got 'abc'"),
        ("CROUPIER_REFLECTION", "maybe", "CROUPIER_REFLECTION: expected 1 or 0"),
        ("CROUPIER_LOG_LEVEL", "loud", "CROUPIER_LOG_LEVEL: expected one of DEBUG"),
        ("CROUPIER_CONSUMER_BACKOFF_S", "1,x", "CROUPIER_CONSUMER_BACKOFF_S: expected comma-sep"),
        ("CROUPIER_CONSUMER_ACK_WAIT_S", "0", "ack_wait"),
    ],
)
def test_bad_settings_are_refused_with_a_clear_error(
    monkeypatch: pytest.MonkeyPatch, var: str, value: str, needle: str
) -> None:
    monkeypatch.setenv(var, value)
    with pytest.raises(InvalidInput, match=needle):
        Settings.from_env("rules")


def test_a_bounded_max_deliver_must_exceed_the_backoff_steps() -> None:
    with pytest.raises(InvalidInput, match="max_deliver"):
        ConsumerSpec(max_deliver=2, backoff_s=(1.0, 2.0))
    assert server_list("nats://x:1") == ["nats://x:1"]
    with pytest.raises(InvalidInput):
        server_list(" , ")


def test_a_bad_setting_is_one_line_naming_the_variable_exit_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from croupier_services.cli import main

    monkeypatch.setenv("CROUPIER_GRPC_PORT", "abc")
    assert main(["nats", "check"]) == 2
    err = capsys.readouterr().err
    assert err == "croupier: CROUPIER_GRPC_PORT: expected an integer, got 'abc'\n"


def test_every_setting_is_defined_once_with_a_meaning_and_a_default() -> None:
    from croupier_services.config import SETTINGS

    assert len(SETTINGS) >= 40
    for name, s in SETTINGS.items():
        assert name == s.name and name.startswith("CROUPIER_")
        assert s.meaning and s.default_text(), name
        s.get({})  # the default needs no environment


def test_dealer_replica_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    for k in ("DEALER_ID", "DEALER_ADDRESS", "LEASE_TTL_MS"):
        monkeypatch.delenv(f"CROUPIER_{k}", raising=False)
    s = Settings.from_env("dealer")
    assert (s.dealer_id, s.dealer_address, s.lease_ttl_ms) == ("", "", 10_000)
    monkeypatch.setenv("CROUPIER_DEALER_ID", "dealer-b")
    monkeypatch.setenv("CROUPIER_DEALER_ADDRESS", "10.0.0.2:50051")
    monkeypatch.setenv("CROUPIER_LEASE_TTL_MS", "3000")
    s = Settings.from_env("dealer")
    assert (s.dealer_id, s.dealer_address, s.lease_ttl_ms) == ("dealer-b", "10.0.0.2:50051", 3000)


def test_the_commit_linger_is_a_non_negative_number_of_ms(monkeypatch: pytest.MonkeyPatch) -> None:
    from croupier_services.config import SettingError

    monkeypatch.delenv("CROUPIER_DEALER_COMMIT_LINGER_MS", raising=False)
    assert Settings.from_env("dealer").commit_linger_ms == 1.0
    for good, value in (("0", 0.0), ("2.5", 2.5)):
        monkeypatch.setenv("CROUPIER_DEALER_COMMIT_LINGER_MS", good)
        assert Settings.from_env("dealer").commit_linger_ms == value
    for bad in ("-1", "nan", "soon"):
        monkeypatch.setenv("CROUPIER_DEALER_COMMIT_LINGER_MS", bad)
        with pytest.raises(SettingError, match="CROUPIER_DEALER_COMMIT_LINGER_MS"):
            Settings.from_env("dealer")
