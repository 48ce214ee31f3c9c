"""URLs fit to print (logs, errors, the settings table): credentials masked."""

from __future__ import annotations

import re

_PASSWORD = re.compile(r"(//[^:/@,]+:)[^@/,]*@")


def mask_url(url: str) -> str:
    """``url`` with any password replaced by ``***`` (each of a comma-separated list)."""
    return _PASSWORD.sub(r"\1***@", url)
