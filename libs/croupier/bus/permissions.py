"""NATS users and subject permissions, one per service, and the server configuration
that enforces them.

Each service connects as its own user and may publish only what it produces:

| user | publishes | pulls from (durable consumer) |
|---|---|---|
| ``dealer`` | ``croupier.hand.>``, ``croupier.shoe.>`` | — |
| ``rules`` | ``croupier.outcome.>`` | ``rules_<variant>`` |
| ``settlement`` | ``croupier.settled.>`` | ``settlement`` |
| ``rules_settlement`` | both of the above | both of the above |
| ``audit`` | — | — (reads SQL) |
| ``provision`` | the JetStream API | — |

``rules_settlement`` is for ``croupier serve rules-settlement`` (the two services in one
pass, one process): exactly the union of the rules and settlement users' rights.

Only ``provision`` may use the JetStream management API (create, update or delete a
stream or a consumer): ``croupier nats provision`` creates the ``CROUPIER`` stream and
every durable consumer before the services start, and the services only look them up
(``STREAM.INFO``, their own ``CONSUMER.INFO``), fetch (``CONSUMER.MSG.NEXT``) and
acknowledge (``$JS.ACK``) on their own consumers. Everything not allowed is denied by
nats-server itself. Replies come back on ``_INBOX.>``.

:func:`authorization_block` renders the ``authorization {}`` block (with passwords,
or ``$CROUPIER_NATS_<USER>_PASSWORD`` environment references for deploy/ and k8s/).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from croupier.bus import subjects

SERVICES = ("dealer", "rules", "settlement", "rules_settlement", "audit", "provision")
INBOX = "_INBOX.>"


@dataclass(frozen=True)
class NatsUser:
    name: str
    publish: tuple[str, ...]
    subscribe: tuple[str, ...]


def rules_durable(variant: str) -> str:
    return f"rules_{subjects.token(variant)}"


SETTLEMENT_DURABLE = "settlement"


def _pull(durable: str) -> tuple[str, ...]:
    s = subjects.STREAM
    return (
        f"$JS.API.CONSUMER.INFO.{s}.{durable}",
        f"$JS.API.CONSUMER.MSG.NEXT.{s}.{durable}",
        f"$JS.ACK.{s}.{durable}.>",
    )


def users(variants: Iterable[str]) -> list[NatsUser]:
    p, s = subjects.PREFIX, subjects.STREAM
    info = f"$JS.API.STREAM.INFO.{s}"
    rules_pull = tuple(x for v in sorted(variants) for x in _pull(rules_durable(v)))
    rules = NatsUser("rules", (f"{p}.outcome.>", info, *rules_pull), (INBOX,))
    settlement = NatsUser(
        "settlement", (f"{p}.settled.>", info, *_pull(SETTLEMENT_DURABLE)), (INBOX,)
    )
    both = tuple(dict.fromkeys([*rules.publish, *settlement.publish]))
    return [
        NatsUser("dealer", (f"{p}.hand.>", f"{p}.shoe.>", info), (INBOX,)),
        rules,
        settlement,
        NatsUser("rules_settlement", both, (INBOX,)),
        NatsUser("audit", (info,), (INBOX,)),
        NatsUser("provision", ("$JS.API.>",), (INBOX,)),
    ]


def password_var(user: str) -> str:
    return f"$CROUPIER_NATS_{user.upper()}_PASSWORD"


def _list(items: Iterable[str]) -> str:
    return "[" + ", ".join(f'"{i}"' for i in items) + "]"


def authorization_block(variants: Iterable[str], passwords: Mapping[str, str] | None = None) -> str:
    """The ``authorization {}`` block; ``passwords=None`` writes environment references."""
    lines = ["authorization {", "  users = ["]
    for u in users(variants):
        pw = f'"{passwords[u.name]}"' if passwords is not None else password_var(u.name)
        lines += [
            f'    {{ user: "{u.name}", password: {pw}, permissions: {{',
            f"        publish: {{ allow: {_list(u.publish)} }}",
            f"        subscribe: {{ allow: {_list(u.subscribe)} }}",
            "    } }",
        ]
    lines += ["  ]", "}"]
    return "\n".join(lines) + "\n"


def tls_block(cert: str, key: str, ca: str) -> str:
    return (
        f'tls {{\n  cert_file: "{cert}"\n  key_file: "{key}"\n  ca_file: "{ca}"\n  timeout: 2\n}}\n'
    )
