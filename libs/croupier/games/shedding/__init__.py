"""Shedding games: 斗地主 (``doudizhu.classic``, ``doudizhu.doubling``, ``doudizhu.three``;
family ``doudizhu``, :mod:`.engine`) and 百变双扣 (``shuangkou``; family ``shuangkou``,
:mod:`.shuangkou`), on one move engine (:mod:`.moves`, :mod:`.generator`)."""
