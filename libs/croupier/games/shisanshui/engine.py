"""The 十三水 engine (``shisanshui``, ``000_d16ad353ba467b8a.txt``, 十三水规则).

The hand, as events:

1. ``hand.opened`` with 2-4 seats; there are no bets (the room's base score,
   ``base_score`` in the config, is what one water is worth), so betting closes at once.
2. ``betting.closed``; the dealer deals 13 cards face down to each seat (``seat:<n>``),
   one at a time in seat order, in one ``card.dealt``.
3. Each seat arranges its cards (理牌), in any order:

   * ``arrange`` ``{front, middle, back[, special]}`` - rows of 3, 5 and 5 cards, given
     as cards (``"As"``) or as positions 0-12 in the order the seat's cards were dealt
     (positions keep the cards private in the log until the showdown). A fouled
     arrangement (倒水: not front <= middle <= back) is refused. ``special: true``
     declares the largest special hand the cards (and, for 三同花顺 / 三顺子 / 三同花,
     these rows) make; the rows then need not be in order;
   * ``auto_arrange`` ``{}`` - 自动比牌: the system picks the largest special hand, else
     the strongest legal arrangement (:func:`.hands.auto_arrange`). This is also the
     action taken for a seat whose time runs out (``auto_action``).

4. When every seat has arranged, the dealer turns each seat's cards up
   (``cards.revealed``, seat order) and the hand is over.

Money: each pair's water (:mod:`.scoring`) times ``base_score`` as claims; then, as
十三水规则 6、实际输赢 says, nobody wins or loses more than they carried and the
results are scaled in proportion (:func:`croupier.money.proportional_to_carried`); then
5% of each winner's profit (抽水).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from croupier.cards import CARDS52
from croupier.errors import ActionRejected, BetRejected, ConfigError, InvalidInput, RuleViolation
from croupier.games import base as g
from croupier.games.common import DEALT_FACE, NOT_FRESH_52, check_dealt, unseen_card
from croupier.games.poker.hands import describe as describe5
from croupier.games.registry import register_family
from croupier.games.shisanshui.hands import (
    Arrangement,
    Special,
    auto_arrange,
    check_arrangement,
    check_rows,
    front_strength,
    special_of,
)
from croupier.games.shisanshui.scoring import ROWS, Scoring, WaterRules, score
from croupier.money import (
    Claim,
    ProportionalToCarried,
    RakePolicy,
    SettlementResult,
    settle,
)

_VALID = frozenset(CARDS52)
SOURCE_WATER = (
    "000 十三水规则 5、计水规则 (rows, 冲三, 中墩葫芦, 铁支, 同花顺, 打枪, 全垒打, 特殊牌型)"
)


def target(seat: int) -> str:
    return f"seat:{seat}"


@dataclass
class ShisanshuiState(g.HandState):
    hands: dict[int, list[str]] = field(default_factory=dict)  # seat -> cards as dealt
    arranged: dict[int, Arrangement | None] = field(default_factory=dict)  # None: unseen
    revealed: set[int] = field(default_factory=set)


def describe_front(strength: int) -> str:
    """Like the 5-card description, with the front's own ranks."""
    ranks = "23456789TJQKA"
    cat = strength >> 20
    vals = [(strength >> (16 - 4 * i)) & 15 for i in range(3)]
    name, n = {0: ("high card", 3), 1: ("one pair", 2), 3: ("three of a kind", 1)}[cat]
    return f"{name}: {' '.join(ranks[v] for v in vals[:n])}"


@register_family
class ShisanshuiEngine(g.Engine[ShisanshuiState]):
    family = "shisanshui"

    def __init__(self, config: g.VariantConfig) -> None:
        super().__init__(config)
        raw = config.raw
        g.require_deck(config, "cards52", 1)
        self.water = WaterRules.from_config(raw)
        try:
            self.base_score = int(config.value("base_score"))
            self.min_seats = int(raw["seats"]["min"])
            self.rake = RakePolicy(
                Fraction(str(config.value("rake", "rate"))),
                source=str(config.value("rake", "source")),
            )
            self.liability_source = str(config.value("limited_liability", "source"))
        except (KeyError, TypeError, ValueError) as e:
            raise ConfigError(f"shisanshui config: {e!r}") from e
        if self.base_score <= 0:
            raise ConfigError("shisanshui: base_score must be positive")

    # -- lifecycle -------------------------------------------------------------------
    def open(self, hand_id: str, payload: Mapping[str, Any]) -> ShisanshuiState:
        o = g.parse_opened(payload, min_seats=self.min_seats, max_seats=self.max_seats)
        return ShisanshuiState.from_opened(
            self.variant,
            hand_id,
            o,
        )

    # -- arranging ---------------------------------------------------------------------
    def to_act(self, st: ShisanshuiState) -> tuple[int, ...]:
        """Seats still to arrange (empty unless cards are dealt and not all arranged)."""
        if st.phase != "arrange" or st.closed:
            return ()
        return tuple(s for s in sorted(st.seats) if s not in st.arranged)

    def _rows(self, hand: Sequence[str], v: object, name: str, n: int) -> tuple[str, ...]:
        if not isinstance(v, list) or len(v) != n:
            raise ActionRejected(f"{name} must list {n} cards or positions", reason="bad_rows")
        out = []
        for x in v:
            if isinstance(x, int) and not isinstance(x, bool):
                if not 0 <= x < len(hand):
                    raise ActionRejected(f"no card at position {x}", reason="not_in_hand")
                out.append(hand[x])
            elif isinstance(x, str):
                if x not in hand:
                    raise ActionRejected(f"{x!r} is not in the hand", reason="not_in_hand")
                out.append(x)
            else:
                raise ActionRejected(
                    f"{name}: {x!r} is neither a card nor a position", reason="bad_rows"
                )
        return tuple(out)

    def verify_action(self, st: ShisanshuiState, p: Mapping[str, Any]) -> Arrangement | None:
        """Check an ``action.taken`` and return the arrangement it makes (None when the
        seat's cards are not visible: a player's redacted view)."""
        try:
            seat_no, name, args = int(p["seat"]), str(p["action"]), p.get("args", {})
        except (KeyError, TypeError, ValueError) as e:
            raise ActionRejected(f"malformed action: {e}", reason="malformed") from e
        st.seat(seat_no)
        if name not in ("arrange", "auto_arrange"):
            raise ActionRejected(
                f"unknown action {name!r}; one of arrange, auto_arrange", reason="unknown_action"
            )
        if st.phase != "arrange":
            raise ActionRejected("cards are arranged after the deal", reason="not_now")
        if seat_no in st.arranged:
            raise ActionRejected(f"seat {seat_no} has already arranged", reason="already_arranged")
        if not isinstance(args, Mapping):
            raise ActionRejected("args must be an object", reason="malformed")
        hand = st.hands[seat_no]
        hidden = any(c not in _VALID for c in hand)
        if name == "auto_arrange":
            if set(args) - {"auto"}:
                raise ActionRejected("auto_arrange takes no args", reason="malformed")
            return None if hidden else auto_arrange(hand)
        extra = set(args) - {"front", "middle", "back", "special", "auto"}
        if extra:
            raise ActionRejected(f"unexpected args {sorted(extra)}", reason="malformed")
        declared = args.get("special", False)
        if not isinstance(declared, bool):
            raise ActionRejected("special must be true or false", reason="malformed")
        if hidden:
            return None
        rows = [self._rows(hand, args.get(k), k, n) for k, n in zip(ROWS, (3, 5, 5), strict=True)]
        a = Arrangement(rows[0], rows[1], rows[2])
        try:
            check_rows(hand, a)
            if declared:
                return Arrangement(rows[0], rows[1], rows[2], self._declared(hand, rows))
            check_arrangement(hand, a)
        except InvalidInput as e:
            raise ActionRejected(e.message, reason=e.reason) from e
        return a

    def _declared(self, hand: Sequence[str], rows: Sequence[tuple[str, ...]]) -> Special:
        """The largest special the cards make (with these rows, for the row-based ones)."""
        for sp in Special:
            try:
                check_arrangement(hand, Arrangement(rows[0], rows[1], rows[2], sp))
            except InvalidInput:
                continue
            return sp
        found = special_of(hand)
        raise InvalidInput(
            "these cards (and rows) make no special hand"
            + (f"; they make {found[0].value} when arranged for it" if found else ""),
            reason="no_special",
        )

    def auto_action(self, st: ShisanshuiState) -> tuple[int, str, dict[str, Any]] | None:
        waiting = self.to_act(st)
        return (waiting[0], "auto_arrange", {}) if waiting else None

    # -- deals -------------------------------------------------------------------------
    def next_deal(self, st: ShisanshuiState) -> g.DealRequest | None:
        if st.phase == "dealing":
            seats = sorted(st.seats)
            return g.DealRequest(
                cards=tuple(g.Deal(target(s), False) for _ in range(13) for s in seats)
            )
        if st.phase == "show":
            pending = tuple(target(s) for s in sorted(st.seats) if s not in st.revealed)
            return g.DealRequest(reveal=pending) if pending else None
        return None

    def verify_cards(self, st: ShisanshuiState, p: Mapping[str, Any]) -> None:
        check_dealt(
            self.next_deal(st), p, unseen_card(_VALID, set(), NOT_FRESH_52), wording=DEALT_FACE
        )

    def verify_reveal(self, st: ShisanshuiState, p: Mapping[str, Any]) -> None:
        to = p.get("to")
        req = self.next_deal(st)
        if req is None or to not in req.reveal:
            raise RuleViolation(f"{to!r} is not to be turned up now", reason="illegal_reveal")
        seat_no = int(str(to).split(":")[1])
        hand = st.hands[seat_no]
        if p.get("cards") != hand:
            raise RuleViolation(
                f"cards.revealed must show {to}'s cards as dealt", reason="bad_reveal"
            )

    def verify_bet(self, st: ShisanshuiState, p: Mapping[str, Any]) -> None:
        raise BetRejected(
            "十三水 takes no bets: the room's base score is the stake", reason="no_bets"
        )

    def apply_betting_closed(self, st: ShisanshuiState, p: Mapping[str, Any]) -> None:
        st.phase = "dealing"

    def apply_cards(self, st: ShisanshuiState, p: Mapping[str, Any]) -> None:
        for c in p["cards"]:
            seat_no = int(str(c["to"]).split(":")[1])
            st.hands.setdefault(seat_no, []).append(str(c["card"]))
            st.positions.append(int(c["pos"]))
        st.phase = "arrange"

    def apply_action(self, st: ShisanshuiState, p: Mapping[str, Any]) -> None:
        st.arranged[int(p["seat"])] = self.verify_action(st, p)
        if not self.to_act(st):
            st.phase = "show"

    def apply_reveal(self, st: ShisanshuiState, p: Mapping[str, Any]) -> None:
        seat_no = int(str(p["to"]).split(":")[1])
        st.hands[seat_no] = [str(c) for c in p["cards"]]
        st.revealed.add(seat_no)
        if len(st.revealed) == len(st.seats):
            st.phase = "done"

    def is_over(self, st: ShisanshuiState) -> bool:
        return st.phase == "done"

    # -- results -----------------------------------------------------------------------
    def final(self, st: ShisanshuiState) -> dict[int, Arrangement]:
        out = {}
        for s, a in st.arranged.items():
            if a is None:
                raise RuleViolation(f"seat {s}'s arrangement is not known", reason="incomplete")
            out[s] = a
        return out

    def scoring(self, st: ShisanshuiState) -> Scoring:
        return score(self.final(st), self.water)

    def outcome(self, st: ShisanshuiState) -> dict[str, Any]:
        hands = self.final(st)
        sc = score(hands, self.water)
        return {
            "base_score": self.base_score,
            "seats": [
                {
                    "seat": s,
                    "player": st.seats[s].player,
                    **_arrangement_json(hands[s]),
                    "water": sc.water[s],
                }
                for s in sorted(hands)
            ],
            "pairs": [
                {
                    "a": p.a,
                    "b": p.b,
                    "rows": list(p.rows),
                    "special": p.special,
                    "gun": p.gun,
                    "home_run": p.home_run,
                    "water": p.total,
                }
                for p in sc.pairs
            ],
            "home_run": sc.home_run,
        }

    def claims(self, st: ShisanshuiState) -> list[Claim]:
        sc = self.scoring(st)
        out = []
        for p in sc.pairs:
            if p.total == 0:
                continue
            a, b = st.seats[p.a].player, st.seats[p.b].player
            payer, payee = (b, a) if p.total > 0 else (a, b)
            spot = "special" if p.special else "water"
            out.append(Claim(payer, payee, self.base_score, p.factors, spot))
        return out

    def settle(self, st: ShisanshuiState) -> SettlementResult:
        order = [st.seats[s].player for s in sorted(st.seats)]
        carried = {st.seats[s].player: st.seats[s].stack for s in st.seats}
        return settle(
            self.claims(st),
            participants=order,
            liability=[ProportionalToCarried(carried, source=self.liability_source)],
            rake=self.rake,
            hand_id=st.hand_id,
            source=SOURCE_WATER,
        )

    # -- bare hands --------------------------------------------------------------------
    def describe(self, action: str, hands: Sequence[Sequence[str]]) -> dict[str, Any]:
        """``eval HAND``: 13 cards - their special hand, if any, and the automatic
        arrangement. ``eval FRONT MIDDLE BACK``: one arrangement's rows and whether it is
        fouled. ``compare A B [C D]``: 13-card hands, each auto-arranged, scored against
        each other (water per player, 打枪, 全垒打)."""
        if action == "eval":
            if len(hands) == 1:
                hand = list(hands[0])
                found = special_of(hand)
                return {
                    "cards": hand,
                    "special": found[0].value if found else None,
                    "auto": _arrangement_json(auto_arrange(hand)),
                }
            if len(hands) == 3:
                f, m, b = (tuple(h) for h in hands)
                a = Arrangement(f, m, b)
                out = _arrangement_json(a)
                fs, ms, bs = a.strengths
                out["fouled"] = not fs <= ms <= bs
                return out
            raise InvalidInput("eval takes 13 cards, or FRONT MIDDLE BACK rows")
        if action != "compare":
            raise InvalidInput(f"unknown rules action {action!r}")
        if not 2 <= len(hands) <= 4:
            raise InvalidInput("compare takes 2 to 4 hands of 13 cards")
        arranged = {i + 1: auto_arrange(list(h)) for i, h in enumerate(hands)}
        if len({c for a in arranged.values() for c in a.cards}) != 13 * len(hands):
            raise InvalidInput("the hands share cards")
        sc = score(arranged, self.water)
        return {
            "hands": [
                {"player": s, **_arrangement_json(a), "water": sc.water[s]}
                for s, a in arranged.items()
            ],
            "home_run": sc.home_run,
            "guns": [[p.gun, p.b if p.gun == p.a else p.a] for p in sc.pairs if p.gun],
        }


def _arrangement_json(a: Arrangement) -> dict[str, Any]:
    f, m, b = a.strengths
    return {
        "front": list(a.front),
        "middle": list(a.middle),
        "back": list(a.back),
        "front_hand": describe_front(f),
        "middle_hand": describe5(m),
        "back_hand": describe5(b),
        "special": a.special.value if a.special else None,
    }


__all__ = ["ShisanshuiEngine", "ShisanshuiState", "front_strength"]
