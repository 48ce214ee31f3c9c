"""The rake basis of every variant (net or per_comparison, a config value with its
source) and the kernel's refusals where a basis cannot apply."""

from __future__ import annotations

from fractions import Fraction

import pytest

from croupier.errors import InvalidInput
from croupier.games.registry import variant_config, variants
from croupier.money import (
    FIVE_PERCENT,
    Claim,
    PotSeat,
    ProportionalToCarried,
    RakeBasis,
    RakePolicy,
    settle,
    settle_pots,
)

PER_COMPARISON = {"erbagang", "erbagang.dice2", "sangong.grab", "sangong.classic", "niuniu.classic"}
"""000 二八杠 and 001's first section (独立赔付), 001 抢庄玩法介绍, 三公 and 经典牛牛
(庄家胜利所赢游戏币=A*M*Y-抽水): the sections that write money per comparison."""


def test_every_variant_names_its_rake_basis_with_a_source() -> None:
    ids = variants()
    assert len(ids) == 30
    for v in ids:
        raw = variant_config(v).raw
        policy = RakePolicy.from_config(raw)
        assert raw["rake"]["basis_source"].strip(), v
        want = RakeBasis.PER_COMPARISON if v in PER_COMPARISON else RakeBasis.NET
        assert policy.basis is want, v
        assert policy.own_spots == (frozenset({"insurance"}) if v == "blackjack.multi" else set())
        if policy.rate == 0:
            assert policy.basis is RakeBasis.NET, v


def test_a_net_basis_keeps_its_source_and_a_per_unit_one_adds_the_basis_source() -> None:
    raw = variant_config("niuniu.banker").raw
    assert RakePolicy.from_config(raw).source == raw["rake"]["source"]
    raw = variant_config("niuniu.classic").raw
    src = RakePolicy.from_config(raw).source
    assert src.startswith(raw["rake"]["source"]) and raw["rake"]["basis_source"] in src


def test_bad_rake_configs_are_refused() -> None:
    with pytest.raises(InvalidInput):
        RakePolicy.from_config({"rake": {"rate": "1/20", "basis": "gross", "source": "x"}})
    with pytest.raises(InvalidInput):
        RakePolicy.from_config({"rake": {"rate": "1/20", "source": "x"}})
    with pytest.raises(InvalidInput):
        RakePolicy(FIVE_PERCENT, basis="gross")  # type: ignore[arg-type]


def test_per_comparison_needs_comparisons() -> None:
    per = RakePolicy(FIVE_PERCENT, basis=RakeBasis.PER_COMPARISON)
    claims = [Claim("a", "b", 100), Claim("c", "b", 100)]
    with pytest.raises(InvalidInput, match="hub rule"):
        settle(
            claims,
            participants=["a", "b", "c"],
            liability=[ProportionalToCarried({"a": 50, "b": 50, "c": 50})],
            rake=per,
        )
    with pytest.raises(InvalidInput, match="net profit"):
        settle_pots([PotSeat("a", 100, 1), PotSeat("b", 100, 0)], rake=per)


def test_per_comparison_without_liability_rakes_each_pair() -> None:
    """Claims alone: every pair is a comparison. b wins 100 from a and loses 60 to c."""
    per = RakePolicy(Fraction(1, 20), basis=RakeBasis.PER_COMPARISON)
    r = settle([Claim("a", "b", 100), Claim("b", "c", 60)], participants=["a", "b", "c"], rake=per)
    assert dict(r.rake) == {"a": 0, "b": 5, "c": 3}
    assert dict(r.deltas) == {"a": -100, "b": 35, "c": 57}
    net = settle(
        [Claim("a", "b", 100), Claim("b", "c", 60)],
        participants=["a", "b", "c"],
        rake=RakePolicy(Fraction(1, 20)),
    )
    assert dict(net.rake) == {"a": 0, "b": 2, "c": 3}
