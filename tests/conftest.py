"""Hypothesis profiles: ``dev`` (the default) explores new examples on every run; ``ci``
(``CROUPIER_HYPOTHESIS_PROFILE=ci``, set by ``.ci/run``) draws the same examples every
time, so a CI result is reproducible and a red run is a real regression, not a new
draw. Failures found in ``dev`` are pinned as explicit examples or unit tests."""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("dev")
settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
settings.load_profile(os.environ.get("CROUPIER_HYPOTHESIS_PROFILE", "dev"))
