"""The poker families' engines, registered on import: ``holdem`` (必下德州, 德州2+3) and
``zhajinhua`` (炸金花)."""

from croupier.games.poker.holdem import HoldemEngine, HoldemState
from croupier.games.poker.zhajinhua import ZhajinhuaEngine, ZhajinhuaState, visible_hands

__all__ = ["HoldemEngine", "HoldemState", "ZhajinhuaEngine", "ZhajinhuaState", "visible_hands"]
