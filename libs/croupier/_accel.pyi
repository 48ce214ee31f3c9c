# The native accelerator's interface (libs/croupier/_accel.c; croupier.accel).
from fractions import Fraction

HouseRows = tuple[
    bytes, tuple[str, ...], dict[str, int], dict[str, int], int, dict[str, int], dict[str, int]
]
"""(record bytes, participants, deltas, rakes, total rake, staked, returned)"""

def house_rows(
    rows: list[tuple[str, str, int, Fraction]],
    house: str,
    hand_id: str,
    rate_num: int,
    rate_den: int,
    cap: int | None,
    exempt: tuple[str, ...],
    texts: tuple[str, ...],
    version: int,
    /,
) -> HouseRows | None: ...
