"""幸运五张 (variant id ``videopoker.lucky5``), a Jacks or Better video poker.

Rules source: seed ``001_5f10773fec037198.txt``, section 幸运五张.

* :mod:`croupier.games.videopoker.rules` - paytable lines, the automatic hold.
* :mod:`croupier.games.videopoker.probability` - exact draw values and the exact
  return of the automatic hold.
* :mod:`croupier.games.videopoker.engine` - bet, deal, hold, draw, settlement.

The paytable (the seed prints none: 9/6 Jacks or Better) and the stated RTP live in
``seeds/variants/videopoker.lucky5.json``.
"""
