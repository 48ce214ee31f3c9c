"""Mahjong (麻将): 血战麻将 (``mahjong.xuezhan``), 血战到底麻将 (``mahjong.xuezhan_daodi``)
and 广东麻将推倒胡 (``mahjong.guangdong``), one engine parameterised by each variant's
config.

Modules: :mod:`.tiles` (notation, indices, the ghost's successor order), :mod:`.win`
(winning forms and listening with wild tiles), :mod:`.fan` (patterns and fan tables),
:mod:`.rules` (a variant's config), :mod:`.state` (a hand's state) and :mod:`.engine`
(the hand as events, 托管, payments and settlement through the money kernel).
"""
