"""The claims pipeline's exact arithmetic against plain ``Fraction`` arithmetic.

A claim works out its multiple and amount once; nets are counted in ``int`` while every
amount is whole; ``exact``, ``whole`` and ``limit_multiplier`` take ``int`` and
``Fraction`` by their exact type before the general checks; a 牛 is searched once per
points pattern. Each is checked here against the arithmetic as first written (a
``Fraction`` product, ``Fraction`` sums), on the values and on their types, and for
the refusals (``bool``, ``float``, a participant not in the hand).
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from croupier.errors import InvalidInput
from croupier.games.niuniu import hands as niuniu_hands
from croupier.money import claims as claims_mod
from croupier.money.claims import Claim, nets_of, ordered
from croupier.money.liability import limit_multiplier
from croupier.money.units import as_fraction, exact, product, whole

PEOPLE = ("a", "b", "c", "d", "house")

fractions = st.builds(Fraction, st.integers(0, 500), st.integers(1, 60))
factor = st.one_of(
    st.integers(0, 300),
    fractions,
    st.builds(lambda n, d: f"{n}/{d}", st.integers(0, 99), st.integers(1, 40)),
    st.builds(lambda n: f"{n}%", st.integers(0, 300)),
    st.builds(lambda w, f: f"{w}.{f}", st.integers(0, 50), st.integers(0, 99)),
)


def reference_product(factors: list[object]) -> Fraction:
    out = Fraction(1)
    for f in factors:
        out *= exact(f)
    return out


@given(st.integers(0, 10**9), st.lists(factor, max_size=5))
def test_a_claims_multiple_and_amount_are_the_fraction_product(
    base: int, factors: list[object]
) -> None:
    c = Claim("a", "b", base, tuple(factors), "spot")  # type: ignore[arg-type]
    want = reference_product(factors)
    assert type(c.multiple) is Fraction and c.multiple == want
    assert type(c.amount) is Fraction and c.amount == base * want
    line = c.line()
    assert line.amount == base * want and type(line.amount) is Fraction
    assert line.factors == tuple(exact(f) for f in factors)
    assert all(type(f) is Fraction for f in line.factors)
    assert (line.payer, line.payee, line.spot, line.base) == ("a", "b", "spot", base)


@given(st.lists(st.one_of(st.integers(-50, 50), fractions), max_size=6))
def test_product_of_ints_and_fractions(values: list[int | Fraction]) -> None:
    got = product(values)
    assert type(got) is Fraction
    want = Fraction(1)
    for v in values:
        want *= v
    assert got == want


def test_a_claims_product_is_worked_out_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []

    def counted(factors: object) -> Fraction:
        calls.append(factors)
        return product(factors)  # type: ignore[arg-type]

    monkeypatch.setattr(claims_mod, "product", counted)
    c = Claim("a", "b", 300, (Fraction(3, 2), 4), "x")
    for _ in range(3):
        assert c.amount == 1800 and c.multiple == 6
        c.line()
    nets_of([(c.payer, c.payee, c.amount)], ["a", "b"])
    assert len(calls) == 1


def test_claims_refuse_what_they_refused() -> None:
    for bad in (True, 1.5, -1, Fraction(-1, 2), "-1/2", None):
        with pytest.raises(InvalidInput):
            Claim("a", "b", 100, (bad,))  # type: ignore[arg-type]
    for base in (True, 1.0, -5, Fraction(1, 2)):
        with pytest.raises(InvalidInput):
            Claim("a", "b", base)  # type: ignore[arg-type]
    with pytest.raises(InvalidInput):
        Claim("a", "a", 1)


def test_claims_compare_and_hash_by_what_they_say() -> None:
    a = Claim("a", "b", 100, (2, Fraction(1, 2)), "s")
    b = Claim("a", "b", 100, (Fraction(2), Fraction(1, 2)), "s")
    assert a == b and hash(a) == hash(b)
    assert a != Claim("a", "b", 100, (1,), "s")  # the same amount, other factors


flows = st.lists(
    st.tuples(
        st.sampled_from(PEOPLE),
        st.sampled_from(PEOPLE),
        st.one_of(st.integers(0, 10**7), fractions, st.builds(Fraction, st.integers(0, 99))),
    ),
    max_size=12,
)


def reference_nets(
    fs: list[tuple[str, str, int | Fraction]], order: tuple[str, ...]
) -> dict[str, Fraction]:
    """Each participant's receipts less its payments, in ``Fraction``; the first flow
    naming someone not in ``order`` refused."""
    for payer, payee, _ in fs:
        for who in (payer, payee):
            if who not in order:
                raise InvalidInput(f"{who!r} is not a participant")
    return {
        p: sum((Fraction(a) for _, q, a in fs if q == p), Fraction(0))
        - sum((Fraction(a) for q, _, a in fs if q == p), Fraction(0))
        for p in order
    }


@given(flows, st.permutations(PEOPLE), st.integers(2, 5), st.booleans())
def test_nets_against_fraction_sums(
    fs: list[tuple[str, str, int | Fraction]], people: list[str], n: int, lazily: bool
) -> None:
    order = tuple(people[:n])
    try:
        want = reference_nets(fs, order)
    except InvalidInput as e:
        with pytest.raises(InvalidInput) as got:
            nets_of(iter(fs) if lazily else fs, order)
        assert got.value.message == e.message
        return
    got_nets = nets_of(iter(fs) if lazily else fs, order)
    assert list(got_nets) == list(order)
    assert got_nets == want
    assert all(type(v) is Fraction for v in got_nets.values())
    pairs = ordered(got_nets, order)
    assert pairs == tuple((p, want[p]) for p in order)
    assert all(type(v) is Fraction for _, v in pairs)


def test_exact_and_whole_keep_their_refusals() -> None:
    for bad in (True, False, 1.0, float("nan"), None, [1]):
        with pytest.raises(InvalidInput):
            exact(bad)
        with pytest.raises(InvalidInput):
            whole(bad)
    with pytest.raises(InvalidInput):
        whole(Fraction(1, 2))
    assert whole(Fraction(6, 2)) == 3 and type(whole(Fraction(6, 2))) is int
    assert type(exact(7)) is Fraction and exact(7) == 7
    f = Fraction(3, 4)
    assert exact(f) is f and as_fraction(f) is f
    assert type(as_fraction(5)) is Fraction and as_fraction(5) == 5


@given(st.one_of(st.integers(0, 40), fractions, st.booleans()), st.integers(0, 40))
def test_limit_multiplier_as_the_general_path(multiplier: object, limit: int) -> None:
    if isinstance(multiplier, bool):
        with pytest.raises(InvalidInput):
            limit_multiplier(multiplier, limit)  # type: ignore[arg-type]
        return
    got = limit_multiplier(multiplier, limit)  # type: ignore[arg-type]
    assert type(got) is Fraction
    assert got == min(exact(multiplier), Fraction(limit))


def test_niu_triple_remembered_is_the_search_for_every_points_pattern() -> None:
    niuniu_hands._niu_triple.cache_clear()

    def search(points: tuple[int, ...]) -> tuple[int, int, int] | None:
        for idx in itertools.combinations(range(len(points)), 3):
            if sum(points[i] for i in idx) % 10 == 0:
                return idx[0], idx[1], idx[2]
        return None

    for points in itertools.product(range(1, 11), repeat=5):
        assert niuniu_hands.niu_triple(list(points)) == search(points)
    assert niuniu_hands.niu_triple([10, 10, 10]) == (0, 1, 2)
    assert niuniu_hands.niu_triple([1, 2]) is None
    niuniu_hands._niu_triple.cache_clear()
    assert niuniu_hands.niu_triple((3, 7, 10, 4, 6)) == niuniu_hands.niu_triple([3, 7, 10, 4, 6])
    assert niuniu_hands._niu_triple.cache_info().hits == 1
