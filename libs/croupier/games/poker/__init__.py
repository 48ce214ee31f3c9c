"""Poker games: hold'em and 3-card evaluators, and the betting-round games.

* :mod:`croupier.games.poker.hands` — fast exact evaluators shared by every poker game.
"""
