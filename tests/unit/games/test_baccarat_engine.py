"""The baccarat engine driven through its events: bets and their precise rejection
reasons, the deal, the outcome and the settlement of golden coups.

Rules: 000_d16ad353ba467b8a.txt, 百家乐玩法规则介绍 (一 玩法: deal order and the big/small
closure after the 30th coup; 二 补牌规则; 三 赔付; 四 注点限红; 五 限额). Limits and
the stake step: seeds/variants/baccarat.json.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import pytest

from croupier.errors import (
    ActionRejected,
    BetRejected,
    ConfigError,
    InvalidInput,
    RuleViolation,
    UnknownVariant,
)
from croupier.games import base as g
from croupier.games.baccarat.engine import BaccaratEngine, BaccaratState
from croupier.games.baccarat.rules import Spot
from croupier.games.registry import engine, variant_config, variants
from croupier.settlement import settle_events, settle_state

ENG: BaccaratEngine = engine("baccarat")  # type: ignore[assignment]
RICH = 10**9


def opened(
    *,
    shoe_hand_no: int = 1,
    seats: Sequence[tuple[int, str, int]] = ((1, "p1", RICH), (2, "p2", RICH)),
) -> dict[str, Any]:
    return {
        "variant": "baccarat",
        "config_version": 1,
        "table": "t1",
        "shoe": "t1_s1",
        "commitment": "00" * 32,
        "hand_no": shoe_hand_no,
        "shoe_hand_no": shoe_hand_no,
        "seats": [{"seat": s, "player": p, "stack": k} for s, p, k in seats],
    }


def new_hand(**kw: Any) -> BaccaratState:
    return ENG.open("t1_h1", opened(**kw))


def bet(st: BaccaratState, seat: int, spot: str, amount: Any) -> None:
    ENG.step(st, g.BET_PLACED, {"seat": seat, "spot": spot, "amount": amount})


def card(to: str, c: str, pos: int, up: Any = True) -> dict[str, Any]:
    return {"to": to, "card": c, "pos": pos, "up": up}


def deal_from(st: BaccaratState, shoe: Sequence[str], start: int = 0) -> list[g.DealRequest]:
    """Deal ``shoe`` (in shoe order) as the engine asks for it; all cards must be used."""
    it: Iterator[str] = iter(shoe)
    pos = start
    asked = []
    while (req := ENG.next_deal(st)) is not None:
        asked.append(req)
        cards = []
        for d in req.cards:
            cards.append(card(d.to, next(it), pos, d.up))
            pos += 1
        ENG.step(st, g.CARD_DEALT, {"cards": cards})
    assert next(it, None) is None, "the coup used fewer cards than given"
    return asked


def play(bets: Sequence[tuple[int, str, int]], shoe: Sequence[str], **kw: Any) -> BaccaratState:
    st = new_hand(**kw)
    for b in bets:
        bet(st, *b)
    ENG.step(st, g.BETTING_CLOSED, {})
    deal_from(st, shoe)
    ENG.step(st, g.HAND_CLOSED, {"positions_used": len(shoe)})
    return st


def rejected(st: BaccaratState, type_: str, payload: Mapping[str, Any]) -> RuleViolation:
    """The event is refused (by verify, by can and by step) and the state is untouched."""
    before = repr(st)
    assert not ENG.can(st, type_, payload)
    with pytest.raises(RuleViolation) as err:
        ENG.step(st, type_, payload)
    assert repr(st) == before
    return err.value


def bet_reason(st: BaccaratState, seat: Any, spot: Any, amount: Any) -> str:
    err = rejected(st, g.BET_PLACED, {"seat": seat, "spot": spot, "amount": amount})
    # an unknown seat comes from HandState.seat as a plain RuleViolation; every other
    # bet check raises BetRejected
    assert isinstance(err, BetRejected) or err.reason == "unknown_seat"
    return err.reason


# --- registry and config ---------------------------------------------------------------


def test_registry_knows_baccarat_and_caches_its_engine() -> None:
    assert "baccarat" in variants()
    assert engine("baccarat") is ENG
    assert isinstance(ENG, BaccaratEngine)
    assert ENG.variant == "baccarat" and ENG.family == "baccarat"
    cfg = variant_config("baccarat")
    assert cfg.version == 1 and cfg.deck.size == 416
    assert cfg.value("spots", "tie", "win") == "8"
    assert cfg.value("no_big_small_after_hand") == 30
    with pytest.raises(ConfigError):
        cfg.value("spots", "dragon")


def test_unknown_variant_and_wrong_family() -> None:
    with pytest.raises(UnknownVariant):
        engine("no_such_game")
    other = g.VariantConfig.from_json_dict(
        {**variant_config("baccarat").raw, "variant": "x", "family": "niuniu"}
    )
    with pytest.raises(ConfigError, match="not baccarat"):
        BaccaratEngine(other)
    with pytest.raises(ConfigError):
        g.VariantConfig.from_json_dict({"variant": "x"})


def test_engine_reads_limits_from_config() -> None:
    assert ENG.stake_step == 100
    assert ENG.table_limit == 50_000_000
    assert ENG.big_small_last_hand == 30
    assert (ENG.limits[Spot.BANKER].min, ENG.limits[Spot.BANKER].max) == (1000, 5_000_000)
    assert ENG.limits[Spot.TIE].max == 625_000
    assert ENG.limits[Spot.SUPER6].max == 400_000
    broken = dict(variant_config("baccarat").raw)
    del broken["table_limit"]
    with pytest.raises(ConfigError):
        BaccaratEngine(g.VariantConfig.from_json_dict(broken))


# --- opening ---------------------------------------------------------------------------


def test_open_builds_the_state() -> None:
    st = new_hand(shoe_hand_no=7)
    assert st.hand_id == "t1_h1" and st.table == "t1" and st.variant == "baccarat"
    assert st.shoe_hand_no == 7 and st.phase == "betting" and not st.closed
    assert st.seats[1] == g.Seat(1, "p1", RICH)
    assert ENG.next_deal(st) is None
    assert not ENG.is_over(st)


@pytest.mark.parametrize(
    ("seats", "reason"),
    [
        (((1, "a", 100), (1, "b", 100)), "duplicate_seat"),
        (((1, "a", 100), (2, "a", 100)), "duplicate_player"),
        (((1, "", 100),), "duplicate_player"),
        (((1, "a", -1),), "bad_stack"),
        (((True, "a", 100),), "malformed"),
        (((1, "a", False),), "malformed"),
        (((1.0, "a", 100),), "malformed"),
        (((1, "a", 100.0),), "malformed"),
        (((1, 7, 100),), "malformed"),
        (((1, b"a", 100),), "malformed"),
    ],
)
def test_open_rejects_bad_seats(seats: Any, reason: str) -> None:
    with pytest.raises(RuleViolation) as err:
        new_hand(seats=seats)
    assert err.value.reason == reason


def test_open_takes_int_and_str_subclasses_as_their_values() -> None:
    class Number(int):
        pass

    class Name(str):
        pass

    st = new_hand(seats=((Number(1), Name("a"), Number(100)),))
    assert st.seats[1] == g.Seat(1, "a", 100)


def test_open_rejects_a_malformed_payload_as_a_rule_violation() -> None:
    """BUG: a hand.opened payload without ``table`` (or with a seat lacking ``stack``)
    escapes as a bare KeyError; ``open`` promises to validate its payload."""
    p = opened()
    del p["table"]
    with pytest.raises(RuleViolation):
        ENG.open("t1_h1", p)
    q = opened()
    del q["seats"][0]["stack"]
    with pytest.raises(RuleViolation):
        ENG.open("t1_h1", q)


def test_replay_needs_hand_opened_first() -> None:
    with pytest.raises(RuleViolation) as err:
        ENG.replay("t1_h1", [(g.BETTING_CLOSED, {})])
    assert err.value.reason == "no_open"
    with pytest.raises(RuleViolation):
        ENG.replay("t1_h1", [])


# --- bets ------------------------------------------------------------------------------


def test_a_legal_bet_is_recorded() -> None:
    st = new_hand()
    bet(st, 1, "banker", 1000)
    bet(st, 1, "banker", 100)  # the minimum applies to the seat's total on the spot
    bet(st, 2, "tie", 5000)
    assert st.bets == [(1, Spot.BANKER, 1000), (1, Spot.BANKER, 100), (2, Spot.TIE, 5000)]
    assert st.staked_by_seat == {1: 1100, 2: 5000}
    assert st.staked_by_seat_spot == {(1, Spot.BANKER): 1100, (2, Spot.TIE): 5000}
    assert st.total_staked == 6100


def test_every_spot_accepts_its_minimum() -> None:
    st = new_hand()
    for spot in Spot:
        bet(st, 1, spot.value, ENG.limits[spot].min)
    assert len(st.bets) == len(Spot)


def test_betting_closed() -> None:
    st = new_hand()
    ENG.step(st, g.BETTING_CLOSED, {})
    assert bet_reason(st, 1, "banker", 1000) == "betting_closed"
    err = rejected(st, g.BETTING_CLOSED, {})
    assert isinstance(err, ActionRejected) and err.reason == "betting_closed"


@pytest.mark.parametrize(
    "payload",
    [
        {"spot": "banker", "amount": 1000},
        {"seat": 1, "amount": 1000},
        {"seat": 1, "spot": "banker"},
        {"seat": "one", "spot": "banker", "amount": 1000},
        {"seat": None, "spot": "banker", "amount": 1000},
        {},
    ],
    ids=["no_seat", "no_spot", "no_amount", "seat_not_int", "seat_none", "empty"],
)
def test_malformed_bets(payload: dict[str, Any]) -> None:
    st = new_hand()
    err = rejected(st, g.BET_PLACED, payload)
    assert isinstance(err, BetRejected) and err.reason == "malformed"


def test_unknown_seat_and_unknown_spot() -> None:
    st = new_hand()
    assert bet_reason(st, 9, "banker", 1000) == "unknown_seat"
    assert bet_reason(st, 1, "dragon", 1000) == "unknown_spot"
    assert bet_reason(st, 1, "Banker", 1000) == "unknown_spot"
    assert bet_reason(st, 1, "", 1000) == "unknown_spot"


@pytest.mark.parametrize(
    "amount",
    [0, -1000, -100, 1000.0, 1500.5, "1000", None, True, False, 1050, 1001, 99],
    ids=[
        "zero",
        "negative",
        "negative_step",
        "float",
        "fraction",
        "string",
        "none",
        "true",
        "false",
        "off_step_50",
        "off_step_1",
        "under_step",
    ],
)
def test_bad_amounts(amount: Any) -> None:
    st = new_hand()
    assert bet_reason(st, 1, "banker", amount) == "bad_amount"


@pytest.mark.parametrize("spot", ["big", "small"])
def test_big_and_small_close_after_the_30th_coup_of_the_shoe(spot: str) -> None:
    open_ = new_hand(shoe_hand_no=30)
    bet(open_, 1, spot, 1000)
    assert len(open_.bets) == 1
    closed = new_hand(shoe_hand_no=31)
    assert bet_reason(closed, 1, spot, 1000) == "spot_closed"
    # the other spots stay open
    for other in ("banker", "player", "tie", "banker_pair", "player_pair", "super6"):
        bet(closed, 1, other, 1000)


def test_under_minimum() -> None:
    st = new_hand()
    assert bet_reason(st, 1, "banker", 900) == "under_minimum"
    assert bet_reason(st, 1, "super6", 100) == "under_minimum"


def test_over_limit_is_cumulative_per_seat_and_spot() -> None:
    st = new_hand()
    bet(st, 1, "tie", 600_000)
    bet(st, 1, "tie", 25_000)  # exactly the 625,000 maximum
    assert bet_reason(st, 1, "tie", 100) == "over_limit"
    bet(st, 2, "tie", 625_000)  # another seat has its own limit
    bet(st, 1, "player", 5_000_000)  # and so has another spot
    assert bet_reason(st, 1, "player", 100) == "over_limit"
    assert bet_reason(st, 2, "super6", 400_100) == "over_limit"
    assert bet_reason(st, 2, "banker", 5_000_100) == "over_limit"


def test_insufficient_stack_counts_every_spot_of_the_seat() -> None:
    st = new_hand(seats=((1, "p1", 5000), (2, "p2", 999)))
    bet(st, 1, "banker", 3000)
    bet(st, 1, "tie", 2000)  # stack fully staked
    assert bet_reason(st, 1, "player", 1000) == "insufficient_stack"
    assert bet_reason(st, 2, "banker", 1000) == "insufficient_stack"


def test_table_limit_counts_every_seat() -> None:
    seats = tuple((n, f"p{n}", RICH) for n in range(1, 12))
    st = new_hand(seats=seats)
    for n in range(1, 11):
        bet(st, n, "banker", 5_000_000)
    assert st.total_staked == ENG.table_limit
    assert bet_reason(st, 11, "player", 1000) == "table_limit"


def test_checks_run_in_a_documented_order() -> None:
    """The first failing check names the reason: seat before spot before amount."""
    st = new_hand(shoe_hand_no=31)
    assert bet_reason(st, 9, "dragon", 0) == "unknown_seat"
    assert bet_reason(st, 1, "dragon", 0) == "unknown_spot"
    assert bet_reason(st, 1, "big", 0) == "bad_amount"
    assert bet_reason(st, 1, "big", 1000) == "spot_closed"


# --- the deal --------------------------------------------------------------------------


def test_next_deal_asks_for_p_b_p_b_then_third_cards() -> None:
    st = new_hand()
    ENG.step(st, g.BETTING_CLOSED, {})
    first = ENG.next_deal(st)
    assert first == g.DealRequest(
        cards=(g.Deal("player"), g.Deal("banker"), g.Deal("player"), g.Deal("banker"))
    )
    assert all(d.up for d in first.cards) and first.dice == 0
    # player 2+3 = 5 draws a 9; banker K+3 = 3 stands only on a player third card of 8,
    # so it draws too
    asked = deal_from(st, ["2c", "Ks", "3d", "3h", "9h", "4c"])
    assert [tuple(d.to for d in r.cards) for r in asked] == [
        ("player", "banker", "player", "banker"),
        ("player",),
        ("banker",),
    ]
    assert st.player == ["2c", "3d", "9h"] and st.banker == ["Ks", "3h", "4c"]
    assert st.positions == [0, 1, 2, 3, 4, 5]
    assert ENG.is_over(st) and ENG.next_deal(st) is None


def test_naturals_stop_the_deal_after_four_cards() -> None:
    st = new_hand()
    ENG.step(st, g.BETTING_CLOSED, {})
    asked = deal_from(st, ["9s", "Kd", "9h", "7c"])
    assert len(asked) == 1 and ENG.is_over(st)


def test_cards_may_also_come_one_by_one() -> None:
    st = new_hand()
    ENG.step(st, g.BETTING_CLOSED, {})
    for pos, (to, c) in enumerate([("player", "Ac"), ("banker", "Ah"), ("player", "4d")]):
        ENG.step(st, g.CARD_DEALT, {"cards": [card(to, c, pos)]})
        assert ENG.next_deal(st) is not None
    assert ENG.next_deal(st) == g.DealRequest(cards=(g.Deal("banker"),))


def dealing_state(*dealt: tuple[str, str]) -> BaccaratState:
    st = new_hand()
    ENG.step(st, g.BETTING_CLOSED, {})
    if dealt:
        ENG.step(st, g.CARD_DEALT, {"cards": [card(to, c, i) for i, (to, c) in enumerate(dealt)]})
    return st


def deal_reason(st: BaccaratState, payload: Mapping[str, Any]) -> str:
    return rejected(st, g.CARD_DEALT, payload).reason


def test_cards_before_betting_closes() -> None:
    st = new_hand()
    assert deal_reason(st, {"cards": [card("player", "As", 0)]}) == "not_dealing"


def test_wrong_target_and_out_of_order() -> None:
    st = dealing_state()
    assert deal_reason(st, {"cards": [card("banker", "As", 0)]}) == "illegal_deal"
    assert deal_reason(st, {"cards": [card("seat:1", "As", 0)]}) == "illegal_deal"
    assert deal_reason(st, {"cards": [card("player", "As", 0), card("player", "2s", 1)]}) == (
        "illegal_deal"
    )
    # a whole event is refused if any card in it is wrong
    four = [card(t, c, i) for i, (t, c) in enumerate([("player", "As"), ("banker", "2s")])]
    four += [card("player", "3s", 2), card("player", "4s", 3)]
    assert deal_reason(st, {"cards": four}) == "illegal_deal"
    assert st.player == [] and st.banker == [] and st.positions == []


def test_a_card_after_the_coup_is_complete() -> None:
    st = dealing_state(("player", "9s"), ("banker", "Kd"), ("player", "9h"), ("banker", "7c"))
    assert deal_reason(st, {"cards": [card("player", "2s", 4)]}) == "illegal_deal"
    assert deal_reason(st, {"cards": [card("banker", "2s", 4)]}) == "illegal_deal"


def test_five_cards_where_a_natural_stops_at_four() -> None:
    st = dealing_state()
    cards = [
        card(t, c, i)
        for i, (t, c) in enumerate(
            [
                ("player", "9s"),
                ("banker", "Kd"),
                ("player", "9h"),
                ("banker", "7c"),
                ("player", "2s"),
            ]
        )
    ]
    assert deal_reason(st, {"cards": cards}) == "illegal_deal"


@pytest.mark.parametrize("up", [False, None, "yes", 1])
def test_face_down_cards_are_refused(up: Any) -> None:
    st = dealing_state()
    assert deal_reason(st, {"cards": [card("player", "As", 0, up=up)]}) == "illegal_deal"
    no_up = {"to": "player", "card": "As", "pos": 0}
    assert deal_reason(st, {"cards": [no_up]}) == "illegal_deal"


@pytest.mark.parametrize("joker", ["BJ", "RJ", "bj"])
def test_jokers_are_not_baccarat_cards(joker: str) -> None:
    st = dealing_state()
    assert deal_reason(st, {"cards": [card("player", joker, 0)]}) == "bad_card"


def test_non_canonical_card_text_is_refused() -> None:
    st = dealing_state()
    assert deal_reason(st, {"cards": [card("player", "as", 0)]}) == "bad_card"
    assert deal_reason(st, {"cards": [card("player", " As", 0)]}) == "bad_card"


@pytest.mark.parametrize("bad", ["ZZ", "1s", "Ax", "", None, 14])
def test_unparsable_cards_are_a_rule_violation(bad: Any) -> None:
    """BUG: a card that does not parse raises NotationError (an InvalidInput, not a
    RuleViolation) out of ``_dealt``, so ``Engine.can`` raises instead of answering
    False, and the audit reports it with no sequence number. Expected: reason
    ``bad_card`` like jokers and lower-case text."""
    st = dealing_state()
    assert deal_reason(st, {"cards": [card("player", bad, 0)]}) == "bad_card"


@pytest.mark.parametrize(
    "payload",
    [
        {},
        {"cards": []},
        {"cards": "As"},
        {"cards": {"to": "player", "card": "As", "pos": 0, "up": True}},
        {"cards": [{"to": "player", "card": "As", "up": True}]},
        {"cards": [card("player", "As", -1)]},
        {"cards": [card("player", "As", "0")]},  # type: ignore[arg-type]
        {"cards": [card("player", "As", 0.0)]},  # type: ignore[arg-type]
    ],
    ids=[
        "no_cards",
        "empty",
        "string",
        "object",
        "no_pos",
        "negative_pos",
        "string_pos",
        "float_pos",
    ],
)
def test_malformed_card_events(payload: dict[str, Any]) -> None:
    st = dealing_state()
    assert deal_reason(st, payload) == "malformed"


@pytest.mark.parametrize("entry", ["As", ["player", "As", 0, True], None, 7])
def test_a_card_entry_that_is_not_an_object(entry: Any) -> None:
    """BUG: ``_dealt`` calls ``c.get`` on each entry, so a non-object entry raises
    AttributeError instead of a RuleViolation (reason ``malformed``)."""
    st = dealing_state()
    assert deal_reason(st, {"cards": [entry]}) == "malformed"


def test_unknown_event_types() -> None:
    st = new_hand()
    for type_ in (g.ACTION_TAKEN, g.DICE_ROLLED, g.CARDS_REVEALED, "nonsense"):
        err = rejected(st, type_, {})
        assert isinstance(err, ActionRejected) and err.reason == "unknown_event"


def test_closing_before_the_coup_is_over_and_after() -> None:
    st = new_hand()
    assert rejected(st, g.HAND_CLOSED, {}).reason == "not_over"
    ENG.step(st, g.BETTING_CLOSED, {})
    assert rejected(st, g.HAND_CLOSED, {}).reason == "not_over"
    deal_from(st, ["9s", "Kd", "9h", "7c"])
    ENG.step(st, g.HAND_CLOSED, {"positions_used": 4})
    assert st.closed and st.phase == "closed"
    for type_, payload in [
        (g.HAND_CLOSED, {}),
        (g.BET_PLACED, {"seat": 1, "spot": "banker", "amount": 1000}),
        (g.CARD_DEALT, {"cards": [card("player", "As", 4)]}),
    ]:
        assert rejected(st, type_, payload).reason == "hand_closed"


# --- golden coups: outcome and money -----------------------------------------------------

# Shoe order is P, B, P, B, then the player's third card, then the banker's.
BANKER_SIX = ["2c", "Ks", "3d", "6h", "Th"]  # P 2+3+0 = 5 (draws a 10), B K+6 = 6 stands
BANKER_SIX_THREE = ["Ac", "Ah", "4d", "2s", "9h", "3c"]  # P 1+4+9 = 4, B 1+2+3 = 6
TIE_SEVEN = ["7s", "7h", "Kd", "Qc"]  # P 7, B 7, both stand
PLAYER_NATURAL_PAIR = ["9s", "Kd", "9h", "7c"]  # P 9+9 = 8 natural with a pair, B 7
BANKER_NATURAL_PAIR = ["2c", "4h", "3d", "4s"]  # P 5, B 4+4 = 8 natural with a pair


def deltas(st: BaccaratState) -> dict[str, int]:
    return dict(ENG.settle(st).deltas)


def test_banker_wins_with_6_outcome() -> None:
    st = play([], BANKER_SIX)
    assert ENG.outcome(st) == {
        "player": ["2c", "3d", "Th"],
        "banker": ["Ks", "6h"],
        "player_total": 5,
        "banker_total": 6,
        "winner": "banker",
        "natural": False,
        "player_pair": False,
        "banker_pair": False,
        "cards": 5,
        "spots": {
            "banker": "1/2",
            "player": "-1",
            "tie": "-1",
            "banker_pair": "-1",
            "player_pair": "-1",
            "big": "1/2",
            "small": "-1",
            "super6": "12",
        },
    }


def test_banker_wins_with_6_pays_half_and_super6_pays_12() -> None:
    st = play(
        [
            (1, "banker", 10_000),
            (1, "player", 2000),
            (1, "big", 2000),
            (2, "super6", 1000),
            (2, "tie", 1000),
            (2, "small", 2000),
            (2, "banker_pair", 1000),
        ],
        BANKER_SIX,
    )
    res = ENG.settle(st)
    # p1: +5000 - 2000 + 1000; p2: +12000 - 1000 - 2000 - 1000
    assert dict(res.deltas) == {"p1": 4000, "p2": 8000, "house": -12000}
    assert res.total_rake == 0
    assert sum(res.deltas.values()) + res.total_rake == 0
    assert dict(res.staked) == {"p1": 14_000, "p2": 5000}
    assert dict(res.returned) == {"p1": 18_000, "p2": 13_000}
    hs = settle_state(ENG, st)
    assert hs.postings == (
        ("house:baccarat", -12_000),
        ("player:p1", 4000),
        ("player:p2", 8000),
    )
    assert hs.staked == 19_000 and hs.returned == 31_000 and hs.rake == 0
    assert hs.settled_payload() == {
        "record_hash": hs.record_hash,
        "postings": [["house:baccarat", -12_000], ["player:p1", 4000], ["player:p2", 8000]],
        "rake": 0,
    }
    assert hs.idempotency_key == "settle:t1_h1"


def test_banker_wins_with_three_card_6() -> None:
    st = play(
        [(1, "banker", 1000), (1, "super6", 1000), (2, "big", 1000), (2, "player", 3000)],
        BANKER_SIX_THREE,
    )
    out = ENG.outcome(st)
    assert (out["player_total"], out["banker_total"], out["cards"]) == (4, 6, 6)
    assert out["banker"] == ["Ah", "2s", "3c"]
    assert deltas(st) == {"p1": 500 + 12_000, "p2": 500 - 3000, "house": -10_000}


def test_odd_banker_stake_on_a_6_still_pays_whole_units() -> None:
    st = play([(1, "banker", 1100), (2, "big", 1300)], BANKER_SIX)
    assert deltas(st) == {"p1": 550, "p2": 650, "house": -1200}


def test_tie_pushes_banker_and_player_and_pays_tie_8() -> None:
    st = play(
        [
            (1, "banker", 10_000),
            (1, "player", 5000),
            (1, "tie", 1000),
            (2, "small", 2000),
            (2, "big", 2000),
            (2, "super6", 1000),
        ],
        TIE_SEVEN,
    )
    out = ENG.outcome(st)
    assert out["winner"] == "tie" and out["cards"] == 4
    assert out["spots"]["banker"] == "0" and out["spots"]["player"] == "0"
    res = ENG.settle(st)
    assert dict(res.deltas) == {"p1": 8000, "p2": 3000 - 2000 - 1000, "house": -8000}
    assert dict(res.returned) == {"p1": 16_000 + 8000, "p2": 5000}


def test_a_pure_push_moves_no_money() -> None:
    st = play([(1, "banker", 10_000), (2, "player", 4000)], TIE_SEVEN)
    assert deltas(st) == {"p1": 0, "p2": 0, "house": 0}
    assert settle_state(ENG, st).postings == (
        ("house:baccarat", 0),
        ("player:p1", 0),
        ("player:p2", 0),
    )


def test_player_natural_with_a_pair() -> None:
    st = play(
        [
            (1, "player", 10_000),
            (1, "player_pair", 1000),
            (2, "banker", 10_000),
            (2, "small", 2000),
        ],
        PLAYER_NATURAL_PAIR,
    )
    out = ENG.outcome(st)
    assert out["winner"] == "player" and out["natural"] and out["player_pair"]
    assert not out["banker_pair"]
    assert deltas(st) == {"p1": 10_000 + 11_000, "p2": -10_000 + 3000, "house": -14_000}


def test_banker_natural_8_with_a_pair_pays_even_money() -> None:
    st = play(
        [(1, "banker", 10_000), (1, "banker_pair", 1000), (2, "super6", 1000)],
        BANKER_NATURAL_PAIR,
    )
    out = ENG.outcome(st)
    assert (out["banker_total"], out["winner"], out["banker_pair"]) == (8, "banker", True)
    assert out["spots"]["banker"] == "1"
    assert deltas(st) == {"p1": 10_000 + 11_000, "p2": -1000, "house": -20_000}


def test_no_bets_settles_to_nothing() -> None:
    st = play([], TIE_SEVEN)
    res = ENG.settle(st)
    assert dict(res.deltas) == {"house": 0}
    assert settle_state(ENG, st).postings == (("house:baccarat", 0),)


def test_settle_events_matches_the_stepped_state() -> None:
    bets = [(1, "banker", 10_000), (2, "super6", 1000)]
    st = play(bets, BANKER_SIX)
    events: list[tuple[str, Mapping[str, Any]]] = [(g.HAND_OPENED, opened())]
    events += [(g.BET_PLACED, {"seat": s, "spot": p, "amount": a}) for s, p, a in bets]
    events.append((g.BETTING_CLOSED, {}))
    events.append(
        (
            g.CARD_DEALT,
            {
                "cards": [
                    card(t, c, i)
                    for i, (t, c) in enumerate(
                        zip(["player", "banker", "player", "banker"], BANKER_SIX[:4], strict=True)
                    )
                ]
            },
        )
    )
    events.append((g.CARD_DEALT, {"cards": [card("player", BANKER_SIX[4], 4)]}))
    events.append((g.HAND_OUTCOME, {"ignored": True}))  # replay skips rules' own events
    a = settle_events(ENG, "t1_h1", events)
    b = settle_state(ENG, st)
    assert a.record_bytes == b.record_bytes and a.postings == b.postings
    with pytest.raises(RuleViolation) as err:
        settle_events(ENG, "t1_h1", events[:-2])
    assert err.value.reason == "not_over"


def test_an_unfinished_coup_has_no_outcome() -> None:
    st = dealing_state(("player", "2c"), ("banker", "Ks"), ("player", "3d"), ("banker", "6h"))
    with pytest.raises(RuleViolation) as err:
        ENG.outcome(st)
    assert err.value.reason == "incomplete_coup"


# --- describe (croupier rules eval | compare) -------------------------------------------


def test_describe_eval_gives_the_outcome() -> None:
    out = ENG.describe("eval", [["9s", "9h"], ["Kd", "7c"]])
    assert out["winner"] == "player" and out["natural"] and out["player_pair"]
    assert (out["player_total"], out["banker_total"], out["cards"]) == (8, 7, 4)
    assert out["spots"]["player"] == "1" and out["spots"]["player_pair"] == "11"
    assert out["spots"]["small"] == "3/2" and out["spots"]["banker"] == "-1"
    six = ENG.describe("eval", [["2c", "3d", "Th"], ["Ks", "6h"]])
    assert six["spots"]["super6"] == "12" and six["spots"]["banker"] == "1/2"


def test_describe_eval_refuses_an_illegal_or_incomplete_coup() -> None:
    with pytest.raises(RuleViolation):
        ENG.describe("eval", [["2c", "3d"], ["Ks", "6h"]])  # player must draw
    with pytest.raises(RuleViolation):
        ENG.describe("eval", [["9s", "9h", "2c"], ["Kd", "7c"]])  # natural: no draw
    with pytest.raises(InvalidInput):
        ENG.describe("eval", [["9s", "9h"]])
    with pytest.raises(InvalidInput):
        ENG.describe("eval", [["9s"], ["9h"], ["Kd"]])


def test_describe_compare() -> None:
    assert ENG.describe("compare", [["As", "6d"], ["2c", "2h"]]) == {
        "a": {"cards": ["As", "6d"], "total": 7, "natural": False},
        "b": {"cards": ["2c", "2h"], "total": 4, "natural": False},
        "winner": "a",
    }
    r = ENG.describe("compare", [["Kd", "5c"], ["9h", "9d"]])
    assert r["winner"] == "b" and r["b"]["natural"] and r["b"]["total"] == 8
    t = ENG.describe("compare", [["Ts", "Jh", "7c"], ["3d", "4d"]])
    assert t["winner"] == "tie" and not t["a"]["natural"]


def test_describe_refuses_an_unknown_action() -> None:
    """BUG (minor): any action other than ``eval`` is treated as ``compare``; the base
    class refuses unknown actions with InvalidInput and so should baccarat."""
    with pytest.raises(InvalidInput):
        ENG.describe("nonsense", [["As", "6d"], ["2c", "2h"]])
