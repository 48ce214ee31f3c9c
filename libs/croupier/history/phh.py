"""Hold'em hands in the Poker Hand History format (PHH, the TOML format PokerKit reads:
https://phh.readthedocs.io).

Which hands PHH can express:

* ``holdem.must_bet`` (必下德州, 000 必下德州规则): yes. Its one betting round has every
  seat choose its whole stake for the hand, independently, after all seven cards are
  out; nobody calls or folds, and what nobody matches comes back (基本规则 3-6). In PHH
  terms each seat's whole stake (its blind included) is an *uneven ante* with
  ``ante_trimming_status = true`` - PokerKit then returns the unmatched top stake and
  builds the side pots from the smallest stake up, exactly the seed's pots - followed
  by a check-down of the no-limit hold'em streets among the seats with chips behind,
  and the showdown. Players are listed clockwise from the seat after the button (the
  order in which odd units of a split pot are handed out, as in
  :func:`croupier.money.settle_pots`).
* ``holdem.two_plus_three`` (德州2+3): no. Its board is three cards dealt two then one,
  and hands are the best three cards of five, ranked as in 炸金花 (001 德州2+3); PHH has no
  variant for either.

Odd units of a split pot: Croupier splits each pot on its own and hands a pot's odd
units out clockwise from the seat after the button; PokerKit first discards the losing
hands and merges the pots left with the same winners, so where a split leaves odd units
PokerKit may give them to another winner (the totals are the same).

PHH carries no rake. ``finishing_stacks`` are Croupier's stacks after the settlement
(rake taken), and the user-defined field ``_rake`` lists each player's rake, so a
replay without rake ends at ``finishing_stacks + _rake``. Pure.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from croupier.errors import InvalidInput
from croupier.games.registry import variant_config
from croupier.history.text import HandLog, replay

#: Variants this module exports.
EXPRESSIBLE = ("holdem.must_bet",)


def _toml(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, list):
        return "[" + ", ".join(_toml(x) for x in v) + "]"
    raise TypeError(f"no TOML for {v!r}")


def can_express(variant: str) -> bool:
    return variant in EXPRESSIBLE


def to_phh(log: HandLog) -> str:
    """The hand as PHH text. Raises :class:`InvalidInput` for a variant PHH cannot
    express, or a hand that is not over."""
    if not log.events:
        raise InvalidInput("no events")
    opened = log.events[0][1]
    variant = str(opened["variant"])
    if not can_express(variant):
        raise InvalidInput(
            f"PHH cannot express {variant}: only {', '.join(EXPRESSIBLE)} "
            "(德州2+3 deals a three-card board and ranks the best three of five cards)"
        )
    rp = replay(log)
    if rp.outcome is None or rp.settlement is None:
        raise InvalidInput(f"hand {log.hand_id} is not over")
    out = rp.outcome
    cfg = variant_config(variant)
    stacks = {int(s["seat"]): int(s["stack"]) for s in opened["seats"]}
    by_seat = {int(s["seat"]): s for s in out["seats"]}
    seats_cw = sorted(stacks)
    button = int(out["button"])
    after = [s for s in seats_cw if s > button] + [s for s in seats_cw if s <= button]
    n = len(after)
    names = [str(by_seat[s]["player"]) for s in after]
    puts = [int(by_seat[s]["put"]) for s in after]
    starting = [stacks[s] for s in after]
    rec = rp.settlement.record
    deltas = [int(rec["deltas"][p]) for p in names]
    rakes = [int(rec["rake"].get(p, 0)) for p in names]
    actions = [f"d dh p{i + 1} {''.join(by_seat[s]['hole'])}" for i, s in enumerate(after)]
    # after antes (trimmed to the second-largest stake) who still has chips to act with
    top2 = sorted(puts, reverse=True)[1] if n > 1 else 0
    behind = [i for i in range(n) if starting[i] - min(puts[i], top2) > 0]
    checks = [f"p{i + 1} cc" for i in behind] if len(behind) > 1 else []
    board = [str(c) for c in out["board"]]
    for street in (board[:3], board[3:4], board[4:5]):
        actions += checks
        actions.append(f"d db {''.join(street)}")
    actions += checks
    actions += [f"p{i + 1} sm {''.join(by_seat[s]['hole'])}" for i, s in enumerate(after)]
    fields: list[tuple[str, Any]] = [
        ("variant", "NT"),
        ("ante_trimming_status", True),
        ("antes", puts),
        ("blinds_or_straddles", [0] * n),
        ("min_bet", int(cfg.value("blinds", "big"))),
        ("starting_stacks", starting),
        ("actions", actions),
        ("table", str(opened["table"])),
        ("hand", int(opened["hand_no"])),
        ("seats", after),
        ("seat_count", len(seats_cw)),
        ("players", names),
        ("finishing_stacks", [a + d for a, d in zip(starting, deltas, strict=True)]),
        ("currency", "minor units (1 point = 100)"),
        ("_croupier_hand_id", log.hand_id),
        ("_croupier_variant", variant),
        ("_rake", rakes),
    ]
    head = (
        f"# Croupier hand {log.hand_id} ({variant}): each seat's whole stake is an uneven "
        "ante (trimmed); _rake is not in a replay\n"
    )
    return head + "".join(f"{k} = {_toml(v)}\n" for k, v in fields)


def export_many(logs: Sequence[HandLog]) -> list[str]:
    """The PHH text of each expressible hand of ``logs``."""
    return [to_phh(lg) for lg in logs if lg.events and can_express(str(lg.events[0][1]["variant"]))]
