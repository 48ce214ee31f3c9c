"""Sangong (三公): one engine for ``sangong.hundred``, ``sangong.grab`` and
``sangong.classic``.

Rules sources: ``000_d16ad353ba467b8a.txt``, 百人三公游戏规则 (``sangong.hundred``);
``001_5f10773fec037198.txt``, 抢庄玩法介绍 (``sangong.grab``) and 三公
(``sangong.classic``).

* :mod:`croupier.games.sangong.hands` - card points, hand categories, multipliers and
  the tie rules, every difference between the variants a :class:`~.hands.HandRules`
  value read from the variant's config;
* :mod:`croupier.games.sangong.probability` - the exact category distribution over the
  22,100 three-card hands and the exact banker-versus-spot expectation;
* :mod:`croupier.games.sangong.engine` - the hand as events, for the house-banked
  hundred-player table and the grab-the-bank tables.

The variants' numbers live in ``seeds/variants/sangong.*.json`` with their ``source``
notes.
"""
