"""Fair dealing: known answers, commitment checks, and uniformity by chi-square."""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable
from pathlib import Path

import pytest

from croupier import fair
from croupier.cards import CARDS52, DeckSpec
from croupier.errors import FairnessError, InvalidInput

ROOT = Path(__file__).resolve().parents[2]
KAT = json.loads((ROOT / "seeds/golden/fair/known_answers.json").read_text(encoding="utf-8"))


def test_algorithm_id_is_pinned() -> None:
    assert KAT["algorithm"] == fair.ALGORITHM == "croupier-fy/hmac-sha256/v1"


@pytest.mark.parametrize(
    "v", KAT["vectors"], ids=lambda v: f"{v['deck']['base']}x{v['deck']['copies']}"
)
def test_known_answer_vectors(v: dict) -> None:
    seed = bytes.fromhex(v["server_seed"])
    assert fair.commitment(seed).hex() == v["commitment"]
    order = fair.shuffle(DeckSpec(**v["deck"]), seed, v["client_seed"], v["nonce"])
    assert order[:20] == v["first_20"]
    assert hashlib.sha256(" ".join(order).encode()).hexdigest() == v["order_sha256"]
    assert fair.roll_dice(5, seed, v["client_seed"], v["nonce"]) == v["dice_5"]
    assert fair.roll((9, 6, 40), seed, v["client_seed"], v["nonce"], 3) == v["roll_3_faces_9_6_40"]


def test_shuffle_is_a_permutation_of_the_deck() -> None:
    spec = DeckSpec("cards52", 8)
    order = fair.shuffle(spec, bytes(32), "c", 1)
    assert sorted(order) == sorted(spec.ordered())
    assert len(order) == 416


def test_every_input_changes_the_order() -> None:
    spec = DeckSpec()
    base = fair.shuffle(spec, bytes(32), "a", 0)
    assert fair.shuffle(spec, bytes(31) + b"\x01", "a", 0) != base
    assert fair.shuffle(spec, bytes(32), "b", 0) != base
    assert fair.shuffle(spec, bytes(32), "a", 1) != base


def test_verify_reveal_accepts_the_truth_and_names_a_lie() -> None:
    seed = bytes(range(32))
    spec = DeckSpec("cards52", 1)
    c = fair.Commitment(fair.ALGORITHM, fair.commitment(seed), "cs", 3, spec)
    order = fair.shuffle(spec, seed, "cs", 3)
    fair.verify_reveal(c, seed, [(0, order[0]), (17, order[17])])
    with pytest.raises(FairnessError, match="position 17"):
        fair.verify_reveal(c, seed, [(0, order[0]), (17, order[18])])
    with pytest.raises(FairnessError, match="commitment"):
        fair.verify_reveal(c, bytes(32), [])
    with pytest.raises(FairnessError, match="outside"):
        fair.verify_reveal(c, seed, [(52, "As")])
    with pytest.raises(FairnessError, match="algorithm"):
        fair.verify_reveal(fair.Commitment("other/v0", c.commitment, "cs", 3, spec), seed, [])


def test_positions_dealt_once() -> None:
    fair.check_positions([(0, "As"), (1, "Kd")])
    with pytest.raises(FairnessError, match="twice"):
        fair.check_positions([(0, "As"), (0, "As")])


def test_bad_drbg_inputs() -> None:
    with pytest.raises(InvalidInput):
        fair.Drbg(b"short", "", 0, b"x")
    with pytest.raises(InvalidInput):
        fair.Drbg(bytes(32), "", -1, b"x")
    with pytest.raises(InvalidInput):
        fair.Drbg(bytes(32), "", 0, b"x").uniform(0)


def test_rejection_sampling_rejects_the_biased_tail() -> None:
    # n = 3 * 2**30 + 1 leaves a tail of 2**32 mod n values that must be rejected.
    n = 3 * 2**30 + 1
    rng = fair.Drbg(bytes(32), "", 0, b"t")
    assert all(0 <= rng.uniform(n) < n for _ in range(2000))


def _chi_square(shuffler: Callable[[int], list[str]], trials: int) -> float:
    index = {c: i for i, c in enumerate(CARDS52)}
    counts = [[0] * 52 for _ in range(52)]
    for t in range(trials):
        for pos, card in enumerate(shuffler(t)):
            counts[pos][index[card]] += 1
    expected = trials / 52
    return sum((c - expected) ** 2 / expected for row in counts for c in row)


def _critical(df: int, z: float) -> float:
    """Upper critical value of chi-square(df) by the Wilson-Hilferty approximation."""
    return df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3


TRIALS = 10_400  # 200 expected per (position, card) cell
DF = 51 * 51


def test_card_by_position_uniformity() -> None:
    seed = hashlib.sha256(b"uniformity").digest()
    stat = _chi_square(lambda t: fair.shuffle(DeckSpec(), seed, "chi", t), TRIALS)
    # Fixed seeds make this deterministic; z = 4.75 is a one-sided 1e-6 level.
    assert stat < _critical(DF, 4.75), stat


def test_the_uniformity_test_catches_modulo_bias() -> None:
    """A shuffle that samples with one byte modulo n (the bias the DRBG's rejection
    sampling removes) fails the same test: the test can fail."""
    seed = hashlib.sha256(b"uniformity").digest()

    def biased(t: int) -> list[str]:
        deck = list(CARDS52)
        stream = hashlib.shake_256(seed + t.to_bytes(4, "big")).digest(64)
        for k, i in enumerate(range(51, 0, -1)):
            j = stream[k] % (i + 1)
            deck[i], deck[j] = deck[j], deck[i]
        return deck

    assert _chi_square(biased, TRIALS) > _critical(DF, 4.75)
