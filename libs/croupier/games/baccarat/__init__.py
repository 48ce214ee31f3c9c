"""Baccarat (variant id ``baccarat``).

Rules source: seed ``000_d16ad353ba467b8a.txt``, section 百家乐玩法规则介绍.

* :mod:`croupier.games.baccarat.rules` — card points, the player and banker
  third-card tables, the deal order of one coup, every bet spot and its result.
* :mod:`croupier.games.baccarat.probability` — exact outcome probabilities and the
  theoretical RTP of every spot for a shoe, by enumeration without replacement.

The variant's numbers (decks, cut card, paytable, limits, rake) live in
``seeds/variants/baccarat.json``.
"""
