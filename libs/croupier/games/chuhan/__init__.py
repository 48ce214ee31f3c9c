"""楚汉德州 (``chuhan``) and 保险楚汉德州 (``chuhan.insured``), one family.

Rules source: seed ``000_d16ad353ba467b8a.txt``, sections 楚汉德州 and 保险楚汉德州规则.

* :mod:`croupier.games.chuhan.probability` - exact win/lose/tie probabilities given
  the cards shown (every runout), and the prior before any card is shown.
* :mod:`croupier.games.chuhan.rules` - spots, the odds formulas at a margin, limits.
* :mod:`croupier.games.chuhan.engine` - the hand: bets, deal, reveal right, rounds,
  settlement.

The variants' numbers (rounds, margin, prior, round-1 odds and hand-type paytable,
limits) live in ``seeds/variants/chuhan.json`` and ``chuhan.insured.json``.
"""
