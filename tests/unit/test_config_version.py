"""A hand is judged only by the rules it was dealt under: its ``hand.opened`` names the
variant's config version, and replaying or auditing it under another version is refused
(reason ``config_version``), never silently recomputed under other rules."""

from __future__ import annotations

import pytest

from croupier.audit import Verdict, audit_hand
from croupier.errors import RuleViolation
from croupier.games import base as g
from croupier.testing import REGISTRY, DealerRun, rechain, seat_rows


def test_a_hand_from_another_config_version_is_refused_by_replay_and_audit() -> None:
    run = DealerRun("baccarat", "version", seat_rows((1, 2), 10**6), [(1, "banker", 1000)])
    hand = run.open()
    assert hand.state.closed
    log = run.stream(hand.hand_id)
    opened = log.events[0].payload
    assert opened["config_version"] == run.engine.config.version
    rep, _ = run.audit(hand.hand_id)
    assert rep.verdict is Verdict.PENDING_REVEAL and not rep.failed  # the shoe is still in play
    # the same hand claiming it was dealt under version 0 of the rules
    specs = [(e.type, e.producer, e.payload) for e in log.events]
    specs[0] = (g.HAND_OPENED, "dealer", {**opened, "config_version": 0})
    old = rechain(hand.hand_id, specs)
    with pytest.raises(RuleViolation) as err:
        run.engine.replay(hand.hand_id, [(e.type, e.payload) for e in old.events])
    assert err.value.reason == "config_version" and "version 0" in err.value.message
    rep = audit_hand(hand.hand_id, old, run.stream(run.shoe_of(hand.hand_id)), REGISTRY, None)
    assert (rep.verdict, rep.reason) == (Verdict.FAIL, "config_version")
