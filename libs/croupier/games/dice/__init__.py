"""Dice games: 开心摇摇乐 (variant id ``dice.yaoyao``).

Rules source: seed ``000_d16ad353ba467b8a.txt``, section 开心摇摇乐.

* :mod:`croupier.games.dice.rules` — three-dice patterns, the round, the spots and
  what each pays (and why "1赔X" is a total return here).
* :mod:`croupier.games.dice.probability` — exact probabilities and spot RTPs over all
  6**6 rolls.
* :mod:`croupier.games.dice.engine` — the engine.

The variant's numbers (paytable, limits, stake step, rake) live in
``seeds/variants/dice.yaoyao.json``.
"""
