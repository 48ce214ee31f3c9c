"""Subject names. One JetStream stream ``CROUPIER`` holds ``croupier.>``:

- ``croupier.hand.<variant>.<table>``    a closed hand from the dealer (all its events)
- ``croupier.shoe.<variant>.<table>``    shoe opened / revealed
- ``croupier.outcome.<variant>.<table>`` a hand with the rule service's outcome appended
- ``croupier.settled.<variant>.<table>`` a hand with its ``hand.settled`` event

Variant ids contain dots; in subjects they are written with ``_`` (``niuniu_hundred``).
"""

from __future__ import annotations

STREAM = "CROUPIER"
PREFIX = "croupier"


def token(variant: str) -> str:
    return variant.replace(".", "_")


def subject(kind: str, variant: str, table: str) -> str:
    return f"{PREFIX}.{kind}.{token(variant)}.{table}"


def filter_for(kind: str, variant: str | None = None) -> str:
    return f"{PREFIX}.{kind}.{token(variant)}.*" if variant else f"{PREFIX}.{kind}.>"
