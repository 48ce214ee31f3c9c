"""The demo's players never stop a run: every variant, 20 different seeds, one hand each,
played by the demo's own table loop (:func:`croupier_services.demo.play_table`) against
the dealer core in process (the gateway's calls, its redaction of views, its refusals),
then finished by the rule and settlement code and audited as the services do.

Every move a bot proposes is checked by the engine before it is sent
(:func:`croupier_services.bots.refusal`); one the rules refuse is logged and replaced by
the automatic move. The gRPC path of the same loop runs in tests/e2e/test_demo.py."""

from __future__ import annotations

import asyncio
import json
import random
from collections import defaultdict
from fractions import Fraction
from typing import Any

from croupier.errors import CroupierError
from croupier.games import base as g
from croupier.games.chuhan.engine import ChuhanEngine
from croupier.games.chuhan.rules import Spot
from croupier.games.registry import engine as engine_for
from croupier.games.registry import variants
from croupier.testing import DealerRun
from croupier_services.bots import Move, next_move, refusal, replay_view
from croupier_services.demo import Progress, Refusals, Refused, View, play_table
from croupier_services.views import redact

SEEDS = range(20)


class LocalTables:
    """The demo's gateway calls made on a :class:`DealerRun` in process: the dealer core
    the gateway service drives, the same redaction (:func:`redact` with the rules'
    :meth:`visible_to`), every refusal raised as :class:`Refused`."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.runs: dict[str, DealerRun] = {}
        self.hands: dict[str, DealerRun] = {}
        self.views: dict[tuple[str, int | None], tuple[Any, list[tuple[str, Any]]]] = {}

    def _call(self, run: DealerRun, fn: Any, *args: Any) -> Any:
        try:
            out = fn(*args)
        except CroupierError as e:
            raise Refused(f"{e.reason}: {e.message}") from e
        if isinstance(out, tuple):
            run.keep(out[1])
            return out
        run.keep(out)
        return out

    def _view(self, hand_id: str, seat: int | None) -> View:
        """The gateway's view (:func:`redact` with what the rules show ``seat``), built
        once per event: an event's redaction only changes when what is shown does, so
        the rows of a view are kept until then."""
        run = self.hands[hand_id]
        h = run.dealer.hands.get(hand_id)
        events = run.stream(hand_id).events if h is None else h.events
        shown = set(run.engine.visible_to(h.state, seat)) if h is not None else set()
        shown |= {str(e.payload.get("to")) for e in events if e.type == g.CARDS_REVEALED}
        key = (frozenset(shown), any(e.type == g.HAND_CLOSED for e in events))
        kept_key, rows = self.views.get((hand_id, seat), (None, []))
        if kept_key != key or len(rows) > len(events):
            rows = []
        pb = redact(events[len(rows) :], seat, shown)
        rows = rows + [(e.type, json.loads(e.payload_json)) for e in pb]
        self.views[(hand_id, seat)] = (key, rows)
        return View(h.state.phase if h is not None else "closed", list(rows))

    async def open_table(self, table: str, variant: str) -> None:
        self.runs[table] = DealerRun(variant, f"demo-seed-{self.seed}", table=table)

    async def open_hand(self, table: str, seats: list[tuple[int, str, int]]) -> tuple[str, int]:
        run = self.runs[table]
        rows = [{"seat": s, "player": p, "stack": k} for s, p, k in seats]
        hand_id, _ = self._call(run, run.dealer.open_hand, table, rows)
        self.hands[hand_id] = run
        return hand_id, int(run.dealer.hand(hand_id).state.shoe_hand_no)

    async def place_bets(self, hand_id: str, bets: list[tuple[int, str, int]]) -> None:
        run = self.hands[hand_id]
        rows = [{"seat": s, "spot": sp, "amount": a} for s, sp, a in bets]
        self._call(run, run.dealer.place_bets, hand_id, rows)

    async def close_betting(self, hand_id: str) -> View:
        run = self.hands[hand_id]
        self._call(run, run.dealer.close_betting, hand_id)
        return self._view(hand_id, None)

    async def view(self, hand_id: str, seat: int) -> View:
        return self._view(hand_id, seat)

    async def act(self, hand_id: str, seat: int, action: str, args: dict[str, Any]) -> View:
        run = self.hands[hand_id]
        self._call(run, run.dealer.act, hand_id, seat, action, args)
        return self._view(hand_id, seat)

    async def expire(self, hand_id: str) -> View:
        run = self.hands[hand_id]
        self._call(run, run.dealer.expire, hand_id)
        return self._view(hand_id, None)

    async def close_table(self, table: str) -> None:
        run = self.runs[table]
        self._call(run, run.dealer.close_table, table)


async def _play_all(seed: int, refused: Refusals) -> tuple[LocalTables, list[str]]:
    tables = LocalTables(seed)
    rng = random.Random(seed)
    progress = Progress(len(variants()), f"seed {seed}")
    staked: dict[str, int] = defaultdict(int)
    hands: list[str] = []
    for variant in variants():
        table = f"{variant.replace('.', '_')}_s{seed}"
        hands += await play_table(
            tables, variant, table, 4, 1, random.Random(rng.random()), progress, staked, refused
        )
    return tables, hands


def test_every_variant_with_twenty_seeds_plays_settles_and_audits() -> None:
    refused = Refusals()
    audited = 0
    for seed in SEEDS:
        tables, hands = asyncio.run(_play_all(seed, refused))
        assert len(hands) == len(variants()), (seed, refused.first)
        for hand_id in hands:
            run = tables.hands[hand_id]
            report, hs = run.audit(hand_id)
            assert report.ok, (hand_id, report.reason, report.message)
            assert sum(n for _, n in hs.postings) == 0
            audited += 1
    assert refused.tables_stopped == 0, refused.first
    assert audited == len(SEEDS) * len(variants())


def test_a_move_over_a_limit_is_refused_before_it_is_sent() -> None:
    """保险楚汉德州: in round 2 a tie at 104.50 may take at most what returns 100,000
    points; a larger stake (the move that once stopped the demo) is refused by the
    engine's own check, with its reason, next_move replaces such a move by the automatic
    move, and the 楚汉 bot itself never proposes one."""
    eng = engine_for("chuhan.insured")
    assert isinstance(eng, ChuhanEngine)
    run = DealerRun("chuhan.insured", "limit2", seats=[{"seat": 1, "player": "p1", "stack": 10**9}])
    hand = run.open(bets=[(1, "chu", 1000)])
    events: list[tuple[str, dict[str, Any]]] = [(e.type, e.payload) for e in hand.events]
    st = replay_view(eng, events)
    assert st is not None and st.round == 2 and st.odds[Spot.TIE] == Fraction(209, 2)
    over = 95_800  # x 104.5 = 10,011,100 > max_return 10,000,000
    move = Move(1, "bet", {"stakes": {"tie": over}}, "tie.r2", over)
    why = refusal(eng, events, move)
    assert why is not None and why.startswith("over_limit"), why
    assert refusal(eng, events, Move(1, "bet", {"stakes": {"tie": 95_600}})) is None
    assert refusal(eng, events, Move(1, "pass")) is None
    for n in range(200):
        m = next_move("chuhan.insured", events, random.Random(n))
        assert m is not None and not m.refused and refusal(eng, events, m) is None, m
