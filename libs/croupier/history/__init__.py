"""Hand histories a person reads (:mod:`.text`), with Chinese terms glossed
(:mod:`.glossary`), and hold'em hands in the Poker Hand History format (:mod:`.phh`)."""

from croupier.history.text import FORMAT, HandLog, Replayed, render, replay

__all__ = ["FORMAT", "HandLog", "Replayed", "render", "replay"]
