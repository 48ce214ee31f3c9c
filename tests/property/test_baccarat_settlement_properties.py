"""Properties of baccarat settlement over random legal hands: random bets within the
limits and random complete coups dealt from a shoe shuffled by ``croupier.fair`` with a
chosen seed. Zero-sum, nobody loses more than they staked, the money is exactly
stake x paytable multiple, a replay is byte-identical, and the order of the bets does
not matter."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from croupier import canonical, fair
from croupier.games import base as g
from croupier.games.baccarat.engine import BaccaratEngine
from croupier.games.baccarat.rules import Spot, deal_coup
from croupier.games.registry import engine, variant_config
from croupier.settlement import settle_events
from croupier.testing import dealt_from

ENG: BaccaratEngine = engine("baccarat")  # type: ignore[assignment]
DECK = variant_config("baccarat").deck
HAND_ID = "prop_h1"

Events = list[tuple[str, Mapping[str, Any]]]


@dataclass(frozen=True)
class RandomHand:
    opened: dict[str, Any]
    bets: tuple[dict[str, Any], ...]
    deal: tuple[tuple[str, Mapping[str, Any]], ...]  # betting.closed, card.dealt..., closed
    shoe: tuple[str, ...]  # the shoe from the coup's first card on

    def events(self, bets: Sequence[Mapping[str, Any]] | None = None) -> Events:
        bs = self.bets if bets is None else bets
        return [
            (g.HAND_OPENED, self.opened),
            *((g.BET_PLACED, b) for b in bs),
            *self.deal,
        ]


@st.composite
def random_hands(draw: st.DrawFn) -> RandomHand:
    seed = draw(st.binary(min_size=32, max_size=32))
    nonce = draw(st.integers(1, 10_000))
    order = fair.shuffle(DECK, seed, "prop", nonce)
    start = draw(st.integers(0, len(order) - 6))
    n_seats = draw(st.integers(1, 6))
    stacks = draw(
        st.lists(
            st.sampled_from([10**9, 10**9, 10**9, 2_000_000, 200_000, 5_000, 0]),
            min_size=n_seats,
            max_size=n_seats,
        )
    )
    opened = {
        "variant": "baccarat",
        "config_version": 1,
        "table": "prop",
        "shoe": "prop_s1",
        "hand_no": 1,
        "shoe_hand_no": draw(st.integers(1, 60)),
        "seats": [{"seat": i + 1, "player": f"p{i + 1}", "stack": s} for i, s in enumerate(stacks)],
    }
    wanted = draw(
        st.lists(
            st.tuples(
                st.integers(1, n_seats),
                st.sampled_from([s.value for s in Spot]),
                # each stake at least every spot's minimum, so any order of the same
                # accepted bets is accepted too
                st.one_of(st.integers(10, 600), st.integers(600, 50_000)).map(lambda k: k * 100),
            ),
            min_size=1,
            max_size=24,
        )
    )
    state = ENG.open(HAND_ID, opened)
    bets = []
    for seat, spot, amount in wanted:
        b = {"seat": seat, "spot": spot, "amount": amount}
        if ENG.can(state, g.BET_PLACED, b):
            ENG.apply(state, g.BET_PLACED, b)
            bets.append(b)
    deal: Events = [(g.BETTING_CLOSED, {})]
    ENG.step(state, g.BETTING_CLOSED, {})
    pos = start
    while (req := ENG.next_deal(state)) is not None:
        payload = dealt_from(order, pos, req)
        pos += len(req.cards)
        ENG.step(state, g.CARD_DEALT, payload)
        deal.append((g.CARD_DEALT, payload))
    deal.append((g.HAND_CLOSED, {"positions_used": pos}))
    return RandomHand(opened, tuple(bets), tuple(deal), tuple(order[start:]))


def frac(text: str) -> Fraction:
    return Fraction(text)


PROPS = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


@PROPS
@given(random_hands())
def test_zero_sum_and_no_loss_beyond_the_stake(h: RandomHand) -> None:
    state = ENG.replay(HAND_ID, h.events())
    assert state.closed
    res = ENG.settle(state)
    assert sum(res.deltas.values()) + res.total_rake == 0
    assert res.total_rake == 0  # 三、赔付: 本游戏不收取服务费
    staked: dict[str, int] = {}
    for b in h.bets:
        p = f"p{b['seat']}"
        staked[p] = staked.get(p, 0) + b["amount"]
    assert dict(res.staked) == staked
    stacks = {s["player"]: s["stack"] for s in h.opened["seats"]}
    for p, stake in staked.items():
        assert stake <= stacks[p]
        assert res.deltas[p] >= -stake
        assert res.returned[p] == stake + res.deltas[p] >= 0
    assert state.total_staked <= ENG.table_limit
    hs = settle_events(ENG, HAND_ID, h.events())
    assert sum(n for _, n in hs.postings) == 0
    assert hs.staked == sum(staked.values())


@PROPS
@given(random_hands())
def test_money_is_stake_times_the_paytable_multiple(h: RandomHand) -> None:
    state = ENG.replay(HAND_ID, h.events())
    # the coup is the one the pure rules deal from the same shoe
    it = iter(h.shoe)
    coup = deal_coup(lambda: next(it))
    out = ENG.outcome(state)
    assert (tuple(out["player"]), tuple(out["banker"])) == (coup.player_cards, coup.banker_cards)
    assert out["winner"] == coup.winner.value
    want: dict[str, Fraction] = {}
    for b in h.bets:
        p = f"p{b['seat']}"
        want[p] = want.get(p, Fraction(0)) + b["amount"] * frac(out["spots"][b["spot"]])
    # a stake_step of 100 makes every 1/2 and 3/2 payout whole: nothing is rounded
    assert all(v.denominator == 1 for v in want.values())
    res = ENG.settle(state)
    assert {p: res.deltas[p] for p in want} == want
    assert res.deltas["house"] == -sum(want.values())


@PROPS
@given(random_hands())
def test_replaying_the_same_events_is_byte_identical(h: RandomHand) -> None:
    events = h.events()
    first = settle_events(ENG, HAND_ID, events)
    again = settle_events(ENG, HAND_ID, events)
    fresh = BaccaratEngine(variant_config("baccarat"))  # no state shared with ENG
    third = settle_events(fresh, HAND_ID, [(t, dict(p)) for t, p in events])
    assert first.record_bytes == again.record_bytes == third.record_bytes
    assert first.record_hash == again.record_hash == third.record_hash
    assert first.postings == again.postings == third.postings
    assert canonical.dumps(first.settled_payload()) == canonical.dumps(third.settled_payload())
    assert canonical.dumps(ENG.outcome(ENG.replay(HAND_ID, events))) == canonical.dumps(
        fresh.outcome(fresh.replay(HAND_ID, events))
    )


@PROPS
@given(random_hands(), st.randoms(use_true_random=False))
def test_the_order_of_the_bets_changes_nothing(h: RandomHand, rnd: Any) -> None:
    shuffled = list(h.bets)
    rnd.shuffle(shuffled)
    a = ENG.settle(ENG.replay(HAND_ID, h.events()))
    b = ENG.settle(ENG.replay(HAND_ID, h.events(shuffled)))
    assert dict(a.deltas) == dict(b.deltas)
    assert dict(a.staked) == dict(b.staked)
    assert dict(a.returned) == dict(b.returned)
    assert a.total_rake == b.total_rake
    assert (
        settle_events(ENG, HAND_ID, h.events()).postings
        == settle_events(ENG, HAND_ID, h.events(shuffled)).postings
    )
