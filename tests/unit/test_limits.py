"""The edge limits (croupier.limits): each bound accepts its last value and refuses the
next, with its reason and field; refusals never quote long or unprintable input; and
every error status carries an ErrorInfo (croupier_services.grpc_util)."""

from __future__ import annotations

import grpc
import pytest
from google.rpc import error_details_pb2, status_pb2

from croupier import limits
from croupier.errors import FieldRejected, InvalidInput, StaleSequence
from croupier_services.grpc_util import MAX_MESSAGE, rich_status, status_for


def rejected(fn: object, *args: object, **kw: object) -> FieldRejected:
    with pytest.raises(FieldRejected) as ei:
        fn(*args, **kw)  # type: ignore[operator]
    assert isinstance(ei.value, InvalidInput)
    return ei.value


@pytest.mark.parametrize(
    ("check", "longest", "good_char"),
    [
        (limits.table_id, 40, "T"),
        (limits.hand_id, 64, "h"),
        (limits.variant, 64, "v"),
        (limits.action, 32, "a"),
        (limits.request_id, 128, "r"),
    ],
)
def test_names_have_a_length_and_a_character_set(
    check: object, longest: int, good_char: str
) -> None:
    assert check(good_char * longest) == good_char * longest  # type: ignore[operator]
    e = rejected(check, good_char * (longest + 1))
    assert (e.reason, e.limit) == ("too_long", longest)
    assert good_char * 20 not in e.message
    assert rejected(check, "").reason == "empty"
    for bad in ("a\x00b", "a\nb", "a b", "a\u202eb"):
        e = rejected(check, bad)
        assert e.reason == "bad_characters"
        assert "\x00" not in e.message and "\n" not in e.message and "\u202e" not in e.message


def test_player_ids_seats_stacks() -> None:
    ok = limits.SeatIn(999, "a.b:c@d-e_F9", 10**15)
    assert limits.seats([ok]) == [ok]
    for row, reason, field in [
        (limits.SeatIn(1000, "ann", 1), "out_of_range", "seats[0].seat"),
        (limits.SeatIn(-1, "ann", 1), "out_of_range", "seats[0].seat"),
        (limits.SeatIn(1, "ann", -1), "bad_stack", "seats[0].stack_minor"),
        (limits.SeatIn(1, "ann", 10**15 + 1), "bad_stack", "seats[0].stack_minor"),
        (limits.SeatIn(1, "x" * 65, 1), "too_long", "seats[0].player_id"),
        (limits.SeatIn(1, "ann/bob", 1), "bad_characters", "seats[0].player_id"),
    ]:
        e = rejected(limits.seats, [row])
        assert (e.reason, e.field) == (reason, field), row
    rows = [limits.SeatIn(i, f"p{i}", 1) for i in range(21)]
    assert len(limits.seats(rows[:20], 20)) == 20
    e = rejected(limits.seats, rows, 20)
    assert (e.reason, e.limit, e.details()) == (
        "too_many_seats",
        20,
        {"field": "seats", "limit": "20"},
    )
    assert limits.seat_count(1000) == 1000
    assert rejected(limits.seat_count, 1001, 5000).limit == 1000  # the edge's own ceiling


def test_bets() -> None:
    b = limits.BetIn(0, "pair_banker", limits.MAX_AMOUNT)
    assert limits.bets([b] * limits.MAX_BETS) == [b] * limits.MAX_BETS
    assert rejected(limits.bets, [b] * (limits.MAX_BETS + 1)).reason == "too_many_bets"
    for bad, reason in [
        (limits.BetIn(0, "banker", 0), "bad_amount"),
        (limits.BetIn(0, "banker", limits.MAX_AMOUNT + 1), "bad_amount"),
        (limits.BetIn(0, "bank er", 1), "bad_characters"),
        (limits.BetIn(2**31 - 1, "banker", 1), "out_of_range"),
    ]:
        assert rejected(limits.bets, [bad]).reason == reason


def test_client_seed_is_printable_text() -> None:
    assert limits.client_seed("") == ""
    assert limits.client_seed("种子 seed #1" + "x" * 118) != ""
    assert rejected(limits.client_seed, "x" * 129).reason == "too_long"
    assert rejected(limits.client_seed, "a\tb").reason == "bad_characters"


def test_args_json() -> None:
    assert limits.args_json("") == {}
    assert limits.args_json('{"cards":["As","Kd"],"amount_minor":200}') == {
        "cards": ["As", "Kd"],
        "amount_minor": 200,
    }
    deepest = '{"a":' + "[" * 5 + "]" * 5 + "}"
    assert limits.args_json(deepest) == {"a": [[[[[]]]]]}
    for text, reason in [
        ('{"a":' + "[" * 6 + "]" * 6 + "}", "json_too_deep"),
        ('{"a":"[[[[[[[["}', None),  # brackets inside strings do not nest
        ('{"a":"' + "x" * 5000 + '"}', "json_too_large"),
        ('{"a":"' + "x" * 257 + '"}', "bad_characters"),
        ('{"a\\u0000":1}', "bad_characters"),
        ('{"a":9007199254740992}', "out_of_range"),
        ('{"a":1.5}', "bad_json"),
        ("[1]", "bad_json"),
        ("{", "bad_json"),
    ]:
        if reason is None:
            assert limits.args_json(text)
        else:
            assert rejected(limits.args_json, text).reason == reason, text
    # a nesting far beyond the parser's recursion limit is refused before parsing
    assert rejected(limits.args_json, "[" * 2000 + "]" * 2000).reason == "json_too_deep"


def test_every_error_carries_error_info_and_a_bounded_message() -> None:
    st = rich_status(grpc.StatusCode.INVALID_ARGUMENT, "too_long", "x" * 10_000, {"field": "seats"})
    assert st.code == grpc.StatusCode.INVALID_ARGUMENT and len(st.details) == MAX_MESSAGE
    ((key, value),) = st.trailing_metadata
    assert key == "grpc-status-details-bin"
    status = status_pb2.Status.FromString(value)
    info = error_details_pb2.ErrorInfo()
    assert status.details[0].Unpack(info)
    assert (info.reason, info.domain, dict(info.metadata)) == (
        "too_long",
        "croupier.v1",
        {"field": "seats"},
    )
    assert status.message == st.details
    assert status_for(StaleSequence("x", expected=1, actual=2)) == grpc.StatusCode.ABORTED
