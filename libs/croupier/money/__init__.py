"""The money kernel: pure, exact settlement of one hand.

Integers in minor units (1 point = :data:`MINOR_PER_POINT` = 100 minor units), exact
``Fraction`` s inside, one truncation at the end (from the receiver; the payer keeps the
fraction), zero-sum always: ``sum(deltas) + total_rake == 0``.

Entry points:

* :func:`settle_pots` - showdown with side pots (hold'em-style);
* :func:`settle` - claim-based hands: theoretical -> caps -> limited liability ->
  rounding -> rake, with the record of every step;
* :func:`settle_against_house` - wagers against the house (baccarat and banked spots).

Building blocks: caps in :mod:`.caps`, the seven limited-liability flavours in
:mod:`.liability`, the rake in :mod:`.rake`, the seeds' scoring formulas in
:mod:`.formulas`, the record in :mod:`.record`.

Seed citations give the file by its number and the section by its title: 000 =
``000_d16ad353ba467b8a.txt``, 001 = ``001_5f10773fec037198.txt``, 004 =
``004_5b64d410fb5765b6.txt`` (in ``../shared/seeds/``). The seeds' worked examples are
golden vectors in ``seeds/golden/money/``.
"""

from croupier.money.caps import (
    CapRule,
    MultipleCap,
    PairAmountCap,
    ParticipantMultipleCap,
    cap_fan,
    cap_multiple,
    doudizhu_cap,
    doudizhu_doubling_caps,
    fan_cap,
    xuezhan_daodi_pair_cap,
)
from croupier.money.claims import Claim
from croupier.money.formulas import (
    banker_game_claim,
    doudizhu_claims,
    mahjong_discard_claim,
    mahjong_self_draw_claims,
    tongbi_niuniu_claims,
)
from croupier.money.liability import (
    CLASSIC_NIUNIU_OPTIONS,
    BankerCover,
    ChaDaJiao,
    ClassicNiuniuBetLimits,
    DouDizhuThreeStep,
    HuaZhuSplit,
    LiabilityRule,
    ProportionalToCarried,
    banker_pro_rata,
    cap_by_carried,
    cha_da_jiao,
    classic_niuniu_bet_limits,
    doudizhu_three_step,
    hua_zhu_split,
    hundred_spot_multiplier_limit,
    limit_multiplier,
    proportional_to_carried,
)
from croupier.money.pots import Pot, PotSeat, Strength, build_pots, settle_pots
from croupier.money.rake import (
    FIVE_PERCENT,
    NO_RAKE,
    TWO_PERCENT,
    RakeBasis,
    RakePolicy,
    rake_on_profits,
)
from croupier.money.record import (
    CapStep,
    LiabilityStep,
    PotRecord,
    PotsStep,
    RakeStep,
    RakeUnitStep,
    RoundingStep,
    SettlementResult,
    SpotLine,
    Step,
    StepKind,
    TheoreticalStep,
)
from croupier.money.settle import (
    HOUSE,
    Wager,
    settle,
    settle_against_house,
    settle_spots_against_house,
)
from croupier.money.units import (
    MINOR_PER_POINT,
    exact,
    floor_to_unit,
    fraction_text,
    minor_to_points,
    points_to_minor,
    truncate_toward_zero,
)

__all__ = [
    "CLASSIC_NIUNIU_OPTIONS",
    "FIVE_PERCENT",
    "HOUSE",
    "MINOR_PER_POINT",
    "NO_RAKE",
    "TWO_PERCENT",
    "BankerCover",
    "CapRule",
    "CapStep",
    "ChaDaJiao",
    "Claim",
    "ClassicNiuniuBetLimits",
    "DouDizhuThreeStep",
    "HuaZhuSplit",
    "LiabilityRule",
    "LiabilityStep",
    "MultipleCap",
    "PairAmountCap",
    "ParticipantMultipleCap",
    "Pot",
    "PotRecord",
    "PotSeat",
    "PotsStep",
    "ProportionalToCarried",
    "RakeBasis",
    "RakePolicy",
    "RakeStep",
    "RakeUnitStep",
    "RoundingStep",
    "SettlementResult",
    "SpotLine",
    "Step",
    "StepKind",
    "Strength",
    "TheoreticalStep",
    "Wager",
    "banker_game_claim",
    "banker_pro_rata",
    "build_pots",
    "cap_by_carried",
    "cap_fan",
    "cap_multiple",
    "cha_da_jiao",
    "classic_niuniu_bet_limits",
    "doudizhu_cap",
    "doudizhu_claims",
    "doudizhu_doubling_caps",
    "doudizhu_three_step",
    "exact",
    "fan_cap",
    "floor_to_unit",
    "fraction_text",
    "hua_zhu_split",
    "hundred_spot_multiplier_limit",
    "limit_multiplier",
    "mahjong_discard_claim",
    "mahjong_self_draw_claims",
    "minor_to_points",
    "points_to_minor",
    "proportional_to_carried",
    "rake_on_profits",
    "settle",
    "settle_against_house",
    "settle_pots",
    "settle_spots_against_house",
    "tongbi_niuniu_claims",
    "truncate_toward_zero",
    "xuezhan_daodi_pair_cap",
]
