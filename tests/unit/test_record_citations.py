"""Settlement records cite only documents an auditor has: a seed file and section, or a
file in this repository (README.md's Money section for the rounding rule); never a
document outside it. Checked over the settlement of every hand script in seeds/scripts
(one or more per variant)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from croupier.export import replay_script

ROOT = Path(__file__).resolve().parents[2]


def _sources(o: Any) -> list[str]:
    if isinstance(o, dict):
        return [
            *([o["source"]] if isinstance(o.get("source"), str) else []),
            *(x for v in o.values() for x in _sources(v)),
        ]
    if isinstance(o, list):
        return [x for v in o for x in _sources(v)]
    return []


def test_every_settlement_source_cites_a_seed_section_or_a_file_in_the_repository() -> None:
    seen: set[str] = set()
    for p in sorted((ROOT / "seeds" / "scripts").glob("*.json")):
        if p.name == "baccarat_example.json" or "format" not in p.read_text(encoding="utf-8"):
            continue
        seen.update(_sources(replay_script(p.read_text(encoding="utf-8"))["settlement"]))
    assert len(seen) > 40
    for src in sorted(seen):
        assert "DESIGN" not in src, src
        for doc in re.findall(r"[\w./-]+\.(?:md|txt|py|json)\b", src):
            if re.match(r"00[014]_[0-9a-f]{16}\.txt$", doc):
                continue  # a seed document, cited with its section
            assert (ROOT / doc).exists(), (doc, src)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    money = readme[readme.index("### Money") :][:800]
    assert "truncated from the receiver" in money  # what the rounding source points at
    assert any("README.md, Money" in s for s in seen)
