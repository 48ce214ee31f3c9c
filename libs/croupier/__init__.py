"""Croupier: the pure library of the event-sourced settlement and audit cluster.

Everything under ``croupier`` except ``croupier.store`` and ``croupier.bus`` is free of
I/O: no network, no SQL, no clock and no randomness except the seeded DRBG in
``croupier.fair``. Rule modules are deterministic state machines over events, so the
dealer, the rule services and the auditor run the same code on the same events.
"""

__version__ = "0.1.0"
