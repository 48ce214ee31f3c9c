"""十三水 (variant id ``shisanshui``).

Rules source: seed ``000_d16ad353ba467b8a.txt``, section 十三水规则.

* :mod:`croupier.games.shisanshui.hands` - rows, 倒水, the 13 special hands, the
  automatic arrangement.
* :mod:`croupier.games.shisanshui.scoring` - the water table, 打枪, 全垒打, specials.
* :mod:`croupier.games.shisanshui.engine` - the hand and its settlement (water x base
  score, proportional limited liability, 5% rake).

The numbers live in ``seeds/variants/shisanshui.json``.
"""
