"""The basic-strategy advisor: for a variant's rules, the action of highest expected
value for a hand against the dealer's up card, computed exactly over an infinite deck
by :class:`~croupier.games.blackjack.probability.Analysis` (total-dependent; with a
five-card limit it also depends on the number of cards held).

多人21点 超时保护 (``001_5f10773fec037198.txt``) plays a player who lets the clock run
out step by step by the strategy guide: by this advisor. It never insures: insurance
returns 12/13 of its stake over an infinite deck (see the configs' ``pays_source``).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from functools import cache

from croupier.games.blackjack.probability import Analysis
from croupier.games.blackjack.rules import VALUES, Action, Rules, Tally, card_value


@cache
def analysis(rules: Rules, dealer_checked: bool = False) -> Analysis:
    """One analysis per rule set (and per peek state), kept for the process."""
    return Analysis(rules, dealer_checked=dealer_checked)


def advise(
    rules: Rules,
    cards: Sequence[str],
    dealer_up: str,
    *,
    from_split: bool = False,
    legal: Collection[Action] = (Action.HIT, Action.STAND, Action.DOUBLE, Action.SPLIT),
    dealer_checked: bool = False,
) -> Action:
    """Basic strategy's action among ``legal`` (hit/stand/double/split) for a hand of at
    least two cards. ``dealer_checked``: the dealer peeked and has no blackjack."""
    t = Tally.of_cards(cards)
    up = card_value(dealer_up)
    a = analysis(rules, dealer_checked and up == 1)
    action, _ = a.choose(
        up,
        t,
        from_split,
        Action.DOUBLE in legal,
        Action.SPLIT in legal and rules.is_pair(cards),
    )
    if action in legal:
        return action
    return Action.STAND if Action.STAND in legal else next(iter(legal))


def insure(rules: Rules, cards: Sequence[str]) -> bool:
    """Basic strategy never buys insurance (its return is below one in every variant)."""
    return False


def chart(rules: Rules, *, dealer_checked: bool = False) -> dict[str, dict[int, Action]]:
    """Basic strategy as a chart: rows ``hard 5`` .. ``hard 20``, ``soft 13`` ..
    ``soft 20`` and ``pair A`` .. ``pair 10`` (two-card hands, before any split), columns
    the dealer's up card 1 (ace) .. 10."""
    a = analysis(rules, dealer_checked)
    rows: dict[str, Tally] = {}
    for total in range(5, 21):
        first = min(total - 2, 10) if total > 11 else 2
        rows[f"hard {total}"] = Tally.of((first, total - first))
    for other in range(2, 10):
        rows[f"soft {11 + other}"] = Tally.of((1, other))
    out: dict[str, dict[int, Action]] = {}
    for name, t in rows.items():
        out[name] = {up: a.choose(up, t, False, True, False)[0] for up in VALUES}
    for v in VALUES:
        t = Tally.of((v, v))
        out[f"pair {'A' if v == 1 else v}"] = {
            up: a.choose(up, t, False, True, True)[0] for up in VALUES
        }
    return out
