"""recorded_version reads a stored record's version with orjson, and with the standard
parser whatever orjson declines: the answer is the one the standard parser alone gives."""

from __future__ import annotations

import json

import pytest

from croupier.money.record import RECORD_VERSION, RECORD_VERSIONS
from croupier.settlement import recorded_version


def _reference(record: bytes) -> int:
    try:
        version = json.loads(record).get("record_version")
    except (ValueError, AttributeError):
        return RECORD_VERSION
    if isinstance(version, int) and not isinstance(version, bool) and version in RECORD_VERSIONS:
        return version
    return RECORD_VERSION


_OLDEST = min(RECORD_VERSIONS)


@pytest.mark.parametrize(
    "record",
    [
        b'{"record_version":%d}' % _OLDEST,
        b'{"record_version":%d,"x":NaN}' % _OLDEST,
        b'{"record_version":%d,"x":"\\ud800"}' % _OLDEST,
        b'{"record_version":%d,"x":"\xed\xa0\x80"}' % _OLDEST,
        b'{"record_version":99,"record_version":%d}' % _OLDEST,
        b'{"record_version":%d.0}' % _OLDEST,
        b'{"record_version":true}',
        b'{"record_version":18446744073709551617}',
        b"[1]",
        b"not json",
        b"\xff",
    ],
)
def test_recorded_version_reads_as_the_standard_parser(record: bytes) -> None:
    assert recorded_version(record) == _reference(record)


def test_an_older_version_is_read_through_a_value_orjson_declines() -> None:
    assert recorded_version(b'{"record_version":%d,"x":NaN}' % _OLDEST) == _OLDEST
