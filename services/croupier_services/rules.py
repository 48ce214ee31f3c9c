"""The rule service: for each closed hand of its variants, replay the hand through the
game's engine (checking every event), append the signed ``hand.outcome`` and pass the
hand on to settlement. Several instances share each variant's durable consumer.

In one pass with settlement (``croupier serve rules-settlement``: the rule service
given a :class:`~croupier_services.settlement.SettlementWorker`), the same replay also
settles the hand: the ``hand.outcome`` and the ``hand.settled`` after it, each under its
own producer's seal, the ledger and the settlement record are one transaction, and the
``settled`` message is the only one published (no ``outcome`` message). The trade-off is
in ``docs/performance.md``, "Rules and settlement in one pass"."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from croupier.bus import subjects, wire
from croupier.bus.jetstream import Bus
from croupier.bus.relay import OutboxRelay
from croupier.errors import RuleViolation
from croupier.events import heads_of, make_event, seal
from croupier.games import base as g
from croupier.games.registry import engine as engine_for
from croupier.signing import Signer
from croupier.store import EventStore
from croupier_services.consumer import ConsumerLoop, Work
from croupier_services.keys import TrustedKeys
from croupier_services.outboxes import relay_for
from croupier_services.settlement import SettlementWorker


class RulesService:
    def __init__(
        self,
        store: EventStore,
        bus: Bus,
        signer: Signer,
        variants: Sequence[str],
        *,
        trust: TrustedKeys,
        settle: SettlementWorker | None = None,
    ):
        if signer.producer != "rules":
            raise ValueError("the rule service signs as 'rules'")
        self.store, self.bus, self.signer, self.trust = store, bus, signer, trust
        self.variants = list(variants)
        for v in self.variants:
            engine_for(v)  # fail fast on an unknown variant
        self.relay: OutboxRelay = relay_for(store, lambda: self.bus, "rules")
        self.settler = settle  # settle in the same pass (and publish through its relay)

    def handle(self, m: wire.Message) -> Work:
        first, last = m.events[0], m.events[-1]
        if first.type != g.HAND_OPENED:
            raise RuleViolation("message does not start with hand.opened", reason="no_open")
        if last.type != g.HAND_CLOSED:
            raise RuleViolation("hand is not closed", reason="not_closed")
        payloads = m.parsed_payloads()  # parsed once, by the chain check
        variant, table = str(payloads[0]["variant"]), str(payloads[0]["table"])
        if variant not in self.variants:
            raise RuleViolation(f"variant {variant} is not served here", reason="wrong_variant")
        eng = engine_for(variant)
        state = eng.replay(
            first.stream, [(e.type, p) for e, p in zip(m.events, payloads, strict=True)]
        )
        if self.settler is not None:
            eng.close_check(state)  # what settlement checks before it settles
        outcome = eng.outcome(state)
        ev = make_event(
            first.stream,
            last.seq + 1,
            g.HAND_OUTCOME,
            self.signer.producer,
            self.signer.key_id,
            last.hash,
            outcome,
        )
        if self.settler is not None:
            w = self.settler.settle(eng, state, ev, variant, table, m.seals)
            w.events = [ev, *w.events]
            return w
        return Work(
            events=[ev],
            publish=(
                subjects.subject("outcome", variant, table),
                "outcome",
                [*m.events, ev],
                list(m.seals),
                f"outcome:{first.stream}",
            ),
            extra={"seals": list(m.seals)},
        )

    def commit(self, tx: Any, works: Sequence[Work]) -> None:
        outcomes = [w.events[0] for w in works]
        s = seal(self.signer, heads_of(outcomes), time.time_ns() // 1_000_000)
        if self.settler is not None:  # the outcomes and settlements under both seals
            self.settler.commit(tx, works, prior=[s])
            return
        tx.append(outcomes, [s])
        for w in works:
            assert w.publish is not None
            subj, kind, evs, _, mid = w.publish
            w.publish = (subj, kind, evs, [*w.extra["seals"], s], mid)

    async def loops(self, batch: int = 256, *, subscribe: bool = True) -> list[ConsumerLoop]:
        """One supervised loop per variant (each on its durable consumer, created or
        verified now when ``subscribe``, else when the loop starts)."""
        out = []
        relay = self.relay if self.settler is None else self.settler.relay
        for v in self.variants:
            durable, filt = durables_for([v])[0]
            c = await self.bus.consumer(durable, filt) if subscribe else None
            out.append(
                ConsumerLoop(
                    "rules",
                    self.store,
                    self.bus,
                    c,
                    self.handle,
                    self.commit,
                    batch,
                    durable=durable,
                    filter_subject=filt,
                    relay=relay,
                    trust=self.trust,
                    producer="rules" if self.settler is None else "settlement",
                )
            )
        return out


def durables_for(variants: Sequence[str]) -> list[tuple[str, str]]:
    """The rule service's durable consumers and their filters, one per variant."""
    return [(f"rules_{subjects.token(v)}", subjects.filter_for("hand", v)) for v in variants]
