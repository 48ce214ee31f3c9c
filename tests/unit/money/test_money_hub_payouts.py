"""A banker's cover paid per comparison (``per_comparison`` rake, the hub path of
:func:`croupier.money.settle`): what the banker pays, like what it receives, adds up to
the whole units of its exact total, the odd units to the largest fractions (seat order
on ties). A banker who cannot cover so pays out exactly what it has (001 抢庄玩法介绍,
特殊情况: pro rata to the players' wins), and no truncation leaves it units past 防以小博大
("win at most what was carried"): config version 3 of the five variants that settle so."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from croupier.games.registry import variant_config
from croupier.money import BankerCover, Claim, RakeBasis, RakePolicy, settle

PER = RakePolicy(Fraction(1, 20), basis=RakeBasis.PER_COMPARISON)


def test_a_banker_who_carried_nothing_ends_with_nothing() -> None:
    """The case that found it: the banker carried 0, won 1,000 from p5 (p2 carried
    nothing to pay with), owed 2,000 to p3 and 1,000 to p4. It pays its 1,000 out 2:1,
    666 2/3 and 333 1/3: 667 and 333, not 666 and 333 with a unit left to it."""
    carried = {"p1": 0, "p2": 0, "p3": 10**8, "p4": 10**8, "p5": 10**8}
    claims = [
        Claim("p2", "p1", 1000, spot="p2"),
        Claim("p1", "p3", 2000, spot="p3"),
        Claim("p1", "p4", 1000, spot="p4"),
        Claim("p5", "p1", 1000, spot="p5"),
    ]
    r = settle(
        claims,
        participants=list(carried),
        liability=[BankerCover("p1", carried)],
        rake=PER,
    )
    assert dict(r.deltas) == {"p1": 0, "p2": 0, "p3": 634, "p4": 317, "p5": -1000}
    assert dict(r.rake) == {"p1": 0, "p2": 0, "p3": 33, "p4": 16, "p5": 0}
    assert r.total_rake == 49


@pytest.mark.parametrize(
    ("wins", "paid"),
    [
        ((100, 100, 100), (34, 33, 33)),  # equal fractions: seat order
        ((100, 200, 100), (25, 50, 25)),  # whole: nothing to place
        ((300, 100, 200), (50, 17, 33)),  # 50, 16 2/3, 33 1/3: the larger fraction
    ],
)
def test_a_short_banker_pays_out_exactly_what_it_carried(
    wins: tuple[int, int, int], paid: tuple[int, int, int]
) -> None:
    carried = {"b": 100, "x": 10**6, "y": 10**6, "z": 10**6}
    claims = [Claim("b", q, w, spot=q) for q, w in zip("xyz", wins, strict=True)]
    r = settle(
        claims,
        participants=list(carried),
        liability=[BankerCover("b", carried)],
        rake=RakePolicy(Fraction(0), basis=RakeBasis.PER_COMPARISON),
    )
    assert r.deltas["b"] == -100
    assert tuple(r.deltas[q] for q in "xyz") == paid


@settings(max_examples=400, deadline=None)
@given(
    banker=st.integers(0, 5_000),
    players=st.lists(
        st.tuples(st.integers(0, 5_000), st.integers(-3_000, 3_000)), min_size=1, max_size=6
    ),
    rate=st.sampled_from([Fraction(0), Fraction(1, 50), Fraction(1, 20)]),
)
def test_nobody_wins_or_loses_past_what_they_carried(
    banker: int, players: list[tuple[int, int]], rate: Fraction
) -> None:
    """Over random comparisons (a claim from or to the banker each, in any amounts and
    stacks): zero-sum, everyone's result before rake within what they carried both
    ways, and a banker who could not cover (a player paid less than the claim) loses
    exactly what it carried and keeps no unit."""
    names = [f"p{i}" for i in range(len(players))]
    carried = {"b": banker, **{n: c for n, (c, _) in zip(names, players, strict=True)}}
    claims = [
        Claim("b", n, w, spot=n) if w > 0 else Claim(n, "b", -w, spot=n)
        for n, (_, w) in zip(names, players, strict=True)
        if w != 0
    ]
    if not claims:
        return
    r = settle(
        claims,
        participants=list(carried),
        liability=[BankerCover("b", carried)],
        rake=RakePolicy(rate, basis=RakeBasis.PER_COMPARISON),
    )
    assert sum(r.deltas.values()) + r.total_rake == 0
    for who, c in carried.items():
        before_rake = r.deltas[who] + r.rake[who]
        assert -c <= before_rake <= c, (who, before_rake, c)
        assert r.deltas[who] >= -c
    capped = {n: min(w, c) for n, (c, w) in zip(names, players, strict=True) if w > 0}
    if any(r.deltas[n] + r.rake[n] < w for n, w in capped.items()):
        assert r.deltas["b"] + r.rake["b"] == -banker


def test_the_five_variants_that_settle_so_are_config_version_3() -> None:
    for v in ("erbagang", "erbagang.dice2", "sangong.grab", "sangong.classic", "niuniu.classic"):
        cfg = variant_config(v)
        assert cfg.version == 3, v
        assert "version 3" in str(cfg.raw), v
