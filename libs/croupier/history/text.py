"""A hand history a person reads, in the style of a poker site's: the table and the
hand, the seats and their stacks, every bet, card, tile, die and action in the order
the log has them (face-down cards marked until they are turned up), the outcome the
rules give (hand names included), and the settlement step by step - theoretical, caps,
liability, rounding, rake - ending with each seat's delta.

One renderer serves every family: it replays the events through the family's own
engine (:meth:`Engine.outcome`, :func:`croupier.settlement.settle_state`, the same code
the rule service, settlement and the auditor run) and writes what the events and the
settlement record say. Chinese terms are glossed with pinyin and English at their
first use (:mod:`croupier.history.glossary`). Amounts are in minor units
(1 point = 100). Pure: no I/O, no clock.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from fractions import Fraction
from typing import Any

from croupier.errors import RuleViolation
from croupier.games import base as g
from croupier.games.registry import engine as engine_for
from croupier.games.registry import variant_config
from croupier.history.glossary import gloss_first
from croupier.money.record import RECORD_VERSION
from croupier.settlement import HOUSE, HandSettlement, settle_state

FORMAT = "croupier-history/v1"
_MONEY_ARGS = frozenset({"amount", "to", "stake", "bet"})


@dataclass(frozen=True)
class HandLog:
    """What a history is written from: a hand's events as ``(type, payload)`` in log
    order, and what the log knows around them (all optional)."""

    hand_id: str
    events: tuple[tuple[str, Mapping[str, Any]], ...]
    opened_at_ms: int | None = None
    signed: bool = False
    notes: tuple[str, ...] = field(default_factory=tuple)
    record_version: int = RECORD_VERSION
    """The settlement record version the hand was recorded with (a stored hand's:
    :func:`croupier.settlement.recorded_version`); the settlement is rebuilt, as the
    auditor does, at that version."""


@dataclass
class Replayed:
    """The engine's view of a hand: its final state, outcome and settlement (the latter
    two None while the hand is not over)."""

    state: Any
    outcome: dict[str, Any] | None
    settlement: HandSettlement | None


def replay(log: HandLog) -> Replayed:
    """Replay the hand through its family's engine (checking every event) and, when
    it is over, compute its outcome and settlement."""
    if not log.events or log.events[0][0] != g.HAND_OPENED:
        raise RuleViolation("a hand starts with hand.opened", reason="no_open")
    eng = engine_for(str(log.events[0][1]["variant"]))
    state = eng.replay(log.hand_id, list(log.events))
    if not state.closed and eng.is_over(state):
        eng.apply(state, g.HAND_CLOSED, {})
    if not state.closed:
        return Replayed(state, None, None)
    return Replayed(state, eng.outcome(state), settle_state(eng, state, log.record_version))


# -- formatting ----------------------------------------------------------------------
def money(v: Any, *, sign: bool = False) -> str:
    """Minor units with thousands separators; exact fractions as ``n a/b``."""
    q = Fraction(v) if not isinstance(v, Fraction) else v
    whole = int(q)  # toward zero
    rest = abs(q - whole)
    s = f"{whole:+,}" if sign else f"{whole:,}"
    if rest:
        if whole == 0 and q < 0:
            s = "-0"
        s += f" {rest.numerator}/{rest.denominator}"
    return s


def _scalar(v: Any) -> str:
    if isinstance(v, bool) or v is None:
        return {True: "yes", False: "no", None: "-"}[v]
    if isinstance(v, list):
        if all(isinstance(x, str | int) and not isinstance(x, bool) for x in v):
            return "[" + " ".join(str(x) for x in v) + "]"
        return "[" + ", ".join(_scalar(x) for x in v) + "]"
    if isinstance(v, Mapping):
        return "{" + ", ".join(f"{k}: {_scalar(x)}" for k, x in v.items()) + "}"
    return str(v)


class _Table:
    """Names of seats and targets."""

    def __init__(self, opened: Mapping[str, Any]) -> None:
        self.players = {int(s["seat"]): str(s["player"]) for s in opened["seats"]}

    def seat(self, n: Any) -> str:
        try:
            n = int(n)
        except (TypeError, ValueError):
            return str(n)
        p = self.players.get(n)
        return f"Seat {n} ({p})" if p is not None else f"Seat {n}"

    def target(self, to: str) -> str:
        parts = to.split(":")
        if parts[0] == "seat" and len(parts) >= 2:
            extra = f" hand {parts[2]}" if len(parts) > 2 else ""
            return self.seat(parts[1]) + extra
        return to.replace("_", " ").capitalize() if ":" not in to else to


def _args(args: Mapping[str, Any]) -> str:
    out = []
    for k, v in args.items():
        if k == "auto":
            continue
        if k in _MONEY_ARGS and isinstance(v, int) and not isinstance(v, bool):
            out.append(f"{k} {money(v)}")
        else:
            out.append(f"{k} {_scalar(v)}")
    return ", ".join(out)


def _event_lines(
    t: _Table, events: Sequence[tuple[str, Mapping[str, Any]]]
) -> tuple[list[str], dict[str, list[str]]]:
    lines: list[str] = []
    hidden: dict[str, list[str]] = {}  # target -> face-down cards not yet turned up
    for type_, p in events[1:]:
        if type_ in (g.BET_PLACED, g.BETS_PLACED):
            lines += [
                f"{t.seat(b['seat'])}: bets {money(b['amount'])} on {b['spot']}"
                for b in g.placed_bets(type_, p)
            ]
        elif type_ == g.BETTING_CLOSED:
            lines.append("-- betting closed --")
        elif type_ == g.CARD_DEALT:
            groups: dict[tuple[str, bool], list[str]] = {}
            for c in p["cards"]:
                groups.setdefault((str(c["to"]), bool(c["up"])), []).append(str(c["card"]))
                if not c["up"]:
                    hidden.setdefault(str(c["to"]), []).append(str(c["card"]))
            for (to, up), cards in groups.items():
                mark = "" if up else " (face down)"
                lines.append(f"Dealt to {t.target(to)}: [{' '.join(cards)}]{mark}")
        elif type_ == g.CARDS_REVEALED:
            to, cards = str(p["to"]), [str(c) for c in p["cards"]]
            left = hidden.get(to, [])
            for c in cards:
                if c in left:
                    left.remove(c)
            shown = f"[{' '.join(cards)}]" if cards else "nothing"
            lines.append(f"{t.target(to)} shows {shown}")
        elif type_ == g.DICE_ROLLED:
            dice = ", ".join(f"{v} (of {f})" for v, f in zip(p["dice"], p["faces"], strict=True))
            lines.append(f"Dice, roll {p['roll']}: {dice}")
        elif type_ == g.ACTION_TAKEN:
            a = dict(p.get("args") or {})
            auto = " [automatic move: timeout or away]" if a.get("auto") else ""
            rest = _args(a)
            lines.append(f"{t.seat(p['seat'])}: {p['action']}{' ' + rest if rest else ''}{auto}")
        elif type_ == g.HAND_CLOSED:
            carry = p.get("carry") or {}
            inherit = f"; the next hand inherits {_scalar(carry)}" if carry else ""
            used = p.get("positions_used")
            pos = f" ({used} shoe positions used)" if used is not None else ""
            lines.append(f"-- hand closed{pos}{inherit} --")
        elif type_ == g.HAND_OUTCOME:
            lines.append("-- outcome signed by the rule service --")
        elif type_ == g.HAND_SETTLED:
            lines.append(
                f"-- settled: record {str(p.get('record_hash', ''))[:16]}..., "
                f"rake {money(p.get('rake', 0))} --"
            )
        else:
            lines.append(f"{type_}: {_scalar(dict(p))}")
    return lines, {k: v for k, v in hidden.items() if v}


def _forced_lines(
    t: _Table,
    cfg: Any,
    outcome: Mapping[str, Any] | None,
    opened: Mapping[str, Any],
    events: Sequence[tuple[str, Mapping[str, Any]]],
) -> list[str]:
    """Stakes the rules post by themselves (no event carries them): the blinds, where
    the outcome names their seats, and the ante every seat pays (unless the ante is
    a bet of its own)."""
    out: list[str] = []
    raw = cfg.raw
    blinds = raw.get("blinds")
    if isinstance(blinds, Mapping) and outcome is not None:
        for key, name in (("small_blind", "small"), ("big_blind", "big")):
            seat = outcome.get(key)
            if isinstance(seat, int) and not isinstance(seat, bool) and name in blinds:
                out.append(
                    f"{t.seat(seat)}: posts the {name} blind {money(int(blinds[name]))} "
                    "(by the rules)"
                )
    ante = raw.get("ante")
    if isinstance(ante, Mapping) and "value" in ante:
        ante = ante["value"]
    placed = any(b.get("spot") == "ante" for ty, p in events for b in g.placed_bets(ty, p))
    if isinstance(ante, int) and not isinstance(ante, bool) and ante > 0 and not placed:
        out += [
            f"{t.seat(s['seat'])}: posts the ante {money(ante)} (by the rules)"
            for s in opened["seats"]
        ]
    return out


def _outcome_lines(obj: Any, indent: str = "") -> list[str]:
    out: list[str] = []
    if isinstance(obj, Mapping):
        for k, v in obj.items():
            if (
                isinstance(v, Mapping)
                and v
                and any(isinstance(x, Mapping | list) for x in v.values())
            ):
                out.append(f"{indent}{k}:")
                out += _outcome_lines(v, indent + "  ")
            elif isinstance(v, list) and v and all(isinstance(x, Mapping) for x in v):
                out.append(f"{indent}{k}:")
                for x in v:
                    out.append(
                        f"{indent}  - " + ", ".join(f"{a}: {_scalar(b)}" for a, b in x.items())
                    )
            else:
                out.append(f"{indent}{k}: {_scalar(v)}")
    else:
        out.append(f"{indent}{_scalar(obj)}")
    return out


def _is_money_map(v: Any) -> bool:
    return (
        isinstance(v, Mapping)
        and bool(v)
        and all(
            (isinstance(x, int) and not isinstance(x, bool))
            or (isinstance(x, str) and _is_fraction(x))
            for x in v.values()
        )
    )


def _is_fraction(s: str) -> bool:
    try:
        Fraction(s)
    except ValueError:
        return False
    return True


def _money_map(m: Mapping[str, Any], sign: bool = True) -> str:
    return ", ".join(f"{k} {money(v, sign=sign)}" for k, v in m.items())


def _payment(x: Mapping[str, Any]) -> str:
    head = f"{x.get('payer', '?')} -> {x.get('payee', '?')}"
    spot = f" {x['spot']}" if x.get("spot") else ""
    if "base" in x:
        factors = " x ".join(str(f).removesuffix("/1") for f in x.get("factors", []))
        return f"{head}{spot}: {money(x['base'])} x {factors} = {money(x['amount'])}"
    if "paid" in x:
        exact = money(x["exact"])
        paid = money(x["paid"])
        return f"{head}{spot}: {paid}" + ("" if exact == paid else f" (exact {exact})")
    if "amount" in x:
        return f"{head}{spot}: {money(x['amount'])}"
    return _scalar(dict(x))


def _pot(p: Mapping[str, Any]) -> str:
    shares = _money_map(p.get("shares", {}), sign=False) or "-"
    odd = f"; odd units {_scalar(p['odd_units'])}" if p.get("odd_units") else ""
    return (
        f"{p.get('name', 'pot')} {money(p.get('amount', 0))} (level {money(p.get('level', 0))},"
        f" eligible {_scalar(p.get('eligible', []))}) -> {shares}{odd}"
    )


_STEP_TITLES = {
    "theoretical": "theoretical result",
    "pots": "pots",
    "cap": "caps",
    "liability": "limited liability",
    "rounding": "rounding",
    "rake": "rake",
}


def _step_lines(n: int, st: Mapping[str, Any]) -> list[str]:
    name = str(st.get("step", "?"))
    out = [f"{n}. {_STEP_TITLES.get(name, name)} - rule {st.get('rule', '?')}"]
    if st.get("source"):
        out.append(f"   source: {st['source']}")
    for k, v in st.items():
        if k in ("step", "rule", "source"):
            continue
        if k in ("claims", "payments") and isinstance(v, list):
            out.append(f"   {k}:" if v else f"   {k}: none")
            out += [f"     {_payment(x)}" for x in v]
        elif k == "pots" and isinstance(v, list):
            out.append("   pots:")
            out += [f"     {_pot(x)}" for x in v]
        elif _is_money_map(v):
            out.append(f"   {k}: {_money_map(v)}")
        elif isinstance(v, list) and v and all(isinstance(x, Mapping) for x in v):
            out.append(f"   {k}:")
            out += [f"     {_scalar(dict(x))}" for x in v]
        else:
            out.append(f"   {k}: {_scalar(v)}")
    return out


def render(log: HandLog, *, time_zone: Any = UTC) -> str:
    """The hand history of ``log`` as text (ends with a newline)."""
    opened = log.events[0][1] if log.events else {}
    rp = replay(log)
    variant = str(opened["variant"])
    cfg = variant_config(variant)
    t = _Table(opened)
    L: list[str] = []
    title = f"Croupier hand {log.hand_id}: {variant}"
    L.append(title)
    L.append(f"Rules: {cfg.raw.get('source', variant)} (config version {cfg.version})")
    when = ""
    if log.opened_at_ms is not None:
        dt = datetime.fromtimestamp(log.opened_at_ms / 1000, tz=time_zone)
        when = f", opened {dt.isoformat(timespec='seconds')}"
    L.append(
        f"Table {opened['table']}, hand {opened['hand_no']}, shoe {opened['shoe']} "
        f"hand {opened['shoe_hand_no']}{when}"
    )
    L.append(
        "Log: signed events (seals verified by the audit)"
        if log.signed
        else "Log: an unsigned hand script (proves nothing about what was dealt)"
    )
    L.append("Amounts in minor units (1 point = 100).")
    L += list(log.notes)
    if opened.get("carry"):
        L.append(f"Carried from the last hand: {_scalar(opened['carry'])}")
    for s in opened["seats"]:
        L.append(f"Seat {s['seat']}: {s['player']} ({money(s['stack'])} in chips)")
    L.append("")
    L.append("*** HAND ***")
    L += _forced_lines(t, cfg, rp.outcome, opened, log.events)
    ev_lines, never = _event_lines(t, log.events)
    L += ev_lines
    if never:
        L.append("")
        L.append("Face down to the end (never shown at the table):")
        L += [f"  {t.target(k)}: [{' '.join(v)}]" for k, v in never.items()]
    L.append("")
    if rp.outcome is None or rp.settlement is None:
        L.append("*** NOT OVER ***")
        L.append(f"The hand is still in play (phase {rp.state.phase}).")
        return "\n".join(gloss_first(L, skip=("source:", "Rules:"))) + "\n"
    L.append("*** OUTCOME ***")
    L += _outcome_lines(rp.outcome)
    L.append("")
    L.append("*** SETTLEMENT ***")
    rec = rp.settlement.record
    for n, st in enumerate(rec.get("steps", []), 1):
        L += _step_lines(n, st)
    L.append("")
    L.append("*** SUMMARY ***")
    stacks: dict[str, int] = {}
    seats_of: dict[str, list[int]] = {}
    for s in opened["seats"]:
        stacks[str(s["player"])] = int(s["stack"])
        seats_of.setdefault(str(s["player"]), []).append(int(s["seat"]))
    deltas: Mapping[str, int] = rec.get("deltas", {})
    rakes: Mapping[str, int] = rec.get("rake", {})
    for who, d in deltas.items():
        rake = int(rakes.get(who, 0))
        rk = f" after rake {money(rake)}" if rake else ""
        if who == HOUSE:
            L.append(f"House: {money(d, sign=True)}")
            continue
        seats = "/".join(str(x) for x in seats_of.get(who, []))
        before = stacks.get(who)
        st = f" (stack {money(before)} -> {money(before + int(d))})" if before is not None else ""
        L.append(f"Seat {seats} ({who}): {money(d, sign=True)}{rk}{st}")
    L.append(f"Rake: {money(rec.get('total_rake', 0))}")
    L.append("Ledger postings:")
    L += [f"  {a} {money(v, sign=True)}" for a, v in rp.settlement.postings]
    L.append(f"Settlement record version: {rp.settlement.record['record_version']}")
    L.append(f"Settlement record SHA-256: {rp.settlement.record_hash}")
    return "\n".join(gloss_first(L, skip=("source:", "Rules:"))) + "\n"
