"""Line slots: 多财多福 (variant id ``slots.duocai``).

Rules source: seed ``000_d16ad353ba467b8a.txt``, section 多财多福规则.

* :mod:`croupier.games.slots.reels` — strips, lines, paytable, one spin's result.
* :mod:`croupier.games.slots.double_up` — the double-up game (童男/童女, ×1/×2/×3/×5).
* :mod:`croupier.games.slots.probability` — the exact RTP by enumerating every stop
  combination, with an independence cross-check.
* :mod:`croupier.games.slots.engine` — the engine.

The machine (reels, lines, paytable, line bets, double-up) lives in
``seeds/variants/slots.duocai.json``.
"""
