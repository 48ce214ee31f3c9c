"""Provably fair dealing: commitment, HMAC-SHA256 DRBG, unbiased sampling, Fisher-Yates.

Algorithm ``croupier-fy/hmac-sha256/v1`` (the id travels in every shoe-opened event):

1. The dealer draws a 32-byte ``server_seed`` from :mod:`secrets` and publishes
   ``commitment = SHA-256(server_seed)`` before anything is dealt.
2. A byte stream is produced by HMAC-SHA256 in counter mode:
   ``block_i = HMAC-SHA256(key=server_seed, msg=b"croupier-fy/v1|" + client_seed + b"|" +
   str(nonce) + b"|" + str(i))`` for i = 0, 1, 2, ...; the stream is block_0 || block_1 ...
3. A uniform integer in ``[0, n)`` takes the next 4 bytes as a big-endian ``x``; if
   ``x >= 2**32 - (2**32 % n)`` it is rejected and the next 4 bytes are tried (no modulo
   bias); otherwise the result is ``x % n``.
4. Fisher-Yates from the end: for ``i`` from ``len-1`` down to 1, ``j = uniform(i+1)``,
   swap positions ``i`` and ``j`` of the deck spec's canonical order
   (:meth:`croupier.cards.DeckSpec.ordered`). Position 0 of the result is dealt first.
5. Dice: ``roll = 1 + uniform(6)`` from a DRBG whose message prefix is ``b"croupier-dice/v1|"``.

When the shoe (or hand) ends the dealer reveals ``server_seed``; anyone can recompute the
commitment and the whole order and check every dealt card's position.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from croupier.cards import DeckSpec
from croupier.errors import FairnessError, InvalidInput

ALGORITHM = "croupier-fy/hmac-sha256/v1"
SEED_BYTES = 32


def new_server_seed() -> bytes:
    return secrets.token_bytes(SEED_BYTES)


def commitment(server_seed: bytes) -> bytes:
    return hashlib.sha256(server_seed).digest()


class Drbg:
    """HMAC-SHA256 counter-mode byte stream with unbiased integer sampling."""

    __slots__ = ("_buf", "_counter", "_key", "_pos", "_prefix")

    def __init__(self, server_seed: bytes, client_seed: str, nonce: int, label: bytes) -> None:
        if len(server_seed) != SEED_BYTES:
            raise InvalidInput(f"server seed must be {SEED_BYTES} bytes")
        if nonce < 0:
            raise InvalidInput("nonce must be >= 0")
        self._key = server_seed
        self._prefix = label + b"|" + client_seed.encode() + b"|" + str(nonce).encode() + b"|"
        self._counter = 0
        self._buf = b""
        self._pos = 0

    def _refill(self) -> None:
        block = hmac.new(
            self._key, self._prefix + str(self._counter).encode(), hashlib.sha256
        ).digest()
        self._counter += 1
        self._buf = self._buf[self._pos :] + block
        self._pos = 0

    def next_u32(self) -> int:
        if self._pos + 4 > len(self._buf):
            self._refill()
        x = int.from_bytes(self._buf[self._pos : self._pos + 4], "big")
        self._pos += 4
        return x

    def uniform(self, n: int) -> int:
        if not 1 <= n <= 2**32:
            raise InvalidInput(f"cannot sample from [0, {n})")
        limit = 2**32 - (2**32 % n)
        while True:
            x = self.next_u32()
            if x < limit:
                return x % n


def shuffle(spec: DeckSpec, server_seed: bytes, client_seed: str, nonce: int) -> list[str]:
    """The full dealing order for ``spec`` under the given seeds."""
    deck = list(spec.ordered())
    rng = Drbg(server_seed, client_seed, nonce, b"croupier-fy/v1")
    for i in range(len(deck) - 1, 0, -1):
        j = rng.uniform(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def roll(
    faces: Sequence[int], server_seed: bytes, client_seed: str, nonce: int, roll_no: int
) -> list[int]:
    """Roll ``len(faces)`` dice, die ``i`` showing ``1..faces[i]``: the ``roll_no``-th roll
    of a shoe (counted from 0), from its own DRBG stream labelled
    ``croupier-dice/v1#<roll_no>``, so each roll is re-derivable alone after the reveal.
    Dice, a 1-9 wheel and a slot's reel stops are all rolls."""
    if roll_no < 0:
        raise InvalidInput("roll number must be >= 0")
    if any(not 2 <= f <= 2**32 for f in faces):
        raise InvalidInput(f"a die has 2..2^32 faces, got {list(faces)}")
    rng = Drbg(server_seed, client_seed, nonce, b"croupier-dice/v1#" + str(roll_no).encode())
    return [1 + rng.uniform(f) for f in faces]


def roll_dice(count: int, server_seed: bytes, client_seed: str, nonce: int) -> list[int]:
    """``count`` six-sided dice: roll 0 of a shoe."""
    return roll((6,) * count, server_seed, client_seed, nonce, 0)


@dataclass(frozen=True, slots=True)
class Commitment:
    """What a shoe-opened event publishes."""

    algorithm: str
    commitment: bytes
    client_seed: str
    nonce: int
    deck: DeckSpec

    @classmethod
    def from_shoe_opened(cls, payload: Mapping[str, Any]) -> Commitment:
        """The commitment a ``shoe.opened`` event's payload publishes."""
        try:
            d = payload["deck"]
            return cls(
                str(payload["algorithm"]),
                bytes.fromhex(str(payload["commitment"])),
                str(payload["client_seed"]),
                int(payload["nonce"]),
                DeckSpec(str(d["base"]), int(d["copies"])),
            )
        except (KeyError, TypeError, ValueError) as e:
            raise InvalidInput(f"malformed shoe.opened: {e}") from e


def verify_reveal(c: Commitment, server_seed: bytes, dealt: Iterable[tuple[int, str]]) -> None:
    """Check a revealed seed against its commitment and every dealt ``(position, card)``.
    Raises :class:`FairnessError` naming the first mismatch."""
    if c.algorithm != ALGORITHM:
        raise FairnessError(f"unknown dealing algorithm {c.algorithm!r}")
    if commitment(server_seed) != c.commitment:
        raise FairnessError("revealed server seed does not hash to the commitment")
    order = shuffle(c.deck, server_seed, c.client_seed, c.nonce)
    for pos, card in dealt:
        if not 0 <= pos < len(order):
            raise FairnessError(f"position {pos} is outside the {len(order)}-card deck")
        if order[pos] != card:
            raise FairnessError(f"position {pos} should be {order[pos]}, {card} was dealt")


def check_in_order(positions: Sequence[int], used: int | None = None) -> None:
    """A shoe's dealt positions are exactly ``0, 1, 2, ...`` (in the order given): no
    position skipped, none dealt twice. With ``used`` (the shoe's ``positions_used``
    at its reveal), the count must match too."""
    for i, pos in enumerate(positions):
        if pos != i:
            raise FairnessError(
                f"position {pos} dealt where position {i} was next: cards leave the shoe "
                "strictly in order"
            )
    if used is not None and used >= 0 and used != len(positions):
        raise FairnessError(
            f"the shoe says {used} positions were used, {len(positions)} were dealt"
        )


def check_positions(dealt: Sequence[tuple[int, str]]) -> None:
    """Each position is dealt at most once."""
    seen: set[int] = set()
    for pos, _ in dealt:
        if pos in seen:
            raise FairnessError(f"position {pos} dealt twice")
        seen.add(pos)
