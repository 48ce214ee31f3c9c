"""The engines of the 筒子 tile games, registered as two families because the games
differ in structure (a banker against each player; a pot game with a raise round):

* ``erbagang`` - :class:`.erbagang.ErbagangEngine`, variants ``erbagang`` (000) and
  ``erbagang.dice2`` (001);
* ``tuitongzi`` - :class:`.tuitongzi.TuitongziEngine`, variant ``tuitongzi`` (000).

Both rank hands with the one evaluator in :mod:`.tiles` and count odds with
:mod:`.probability`.
"""

from __future__ import annotations

from croupier.games.tongzi.erbagang import ErbagangEngine, ErbagangState
from croupier.games.tongzi.tuitongzi import TuitongziEngine, TuitongziState

__all__ = ["ErbagangEngine", "ErbagangState", "TuitongziEngine", "TuitongziState"]
