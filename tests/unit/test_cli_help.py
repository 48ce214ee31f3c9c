"""Every option and subcommand of ``croupier`` says what it is for, and no code outside
``croupier_services.config`` reads a ``CROUPIER_*`` variable from the environment."""

from __future__ import annotations

import argparse
import ast
from collections.abc import Iterator
from pathlib import Path

from croupier_services.cli import parser

ROOT = Path(__file__).resolve().parents[2]


def _walk(p: argparse.ArgumentParser, path: str) -> Iterator[tuple[str, str | None]]:
    """(where, help) of every argument and subcommand below ``p``."""
    for action in p._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {c.dest: c.help for c in action._choices_actions}
            for name, sub in action.choices.items():
                yield f"{path} {name}", helps.get(name)
                yield from _walk(sub, f"{path} {name}")
        elif not isinstance(action, argparse._HelpAction):
            where = "/".join(action.option_strings) or action.dest
            yield f"{path} {where}", action.help


def test_every_option_and_subcommand_has_help() -> None:
    seen = list(_walk(parser(), "croupier"))
    assert len(seen) > 80
    missing = [w for w, h in seen if not h or h == argparse.SUPPRESS or not h.strip()]
    assert missing == [], f"no help text: {missing}"


def test_the_walk_finds_a_missing_help() -> None:
    p = argparse.ArgumentParser()
    sub = p.add_subparsers()
    x = sub.add_parser("x")
    x.add_argument("--bare")
    assert [w for w, h in _walk(p, "p") if not h] == ["p x", "p x --bare"]


# -- settings are read in one place ---------------------------------------------------
CONFIG = ROOT / "services" / "croupier_services" / "config.py"
# the pure library cannot import the services' config; these reads are defined there too
LIBRARY_READS = {
    ("libs/croupier/games/registry.py", "CROUPIER_SEEDS_DIR"),
    ("libs/croupier/accel.py", "CROUPIER_NATIVE"),
    ("libs/croupier/store/migrations/env.py", "CROUPIER_DATABASE_URL"),
    ("libs/croupier/store/check.py", "CROUPIER_TEST_DATABASE_URL"),
}


def _environ_reads(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """(line, name) of each ``os.environ.get("CROUPIER_…")``, ``os.environ["CROUPIER_…"]``,
    ``os.getenv("CROUPIER_…")`` and ``"CROUPIER_…" in os.environ``."""

    def is_environ(n: ast.AST) -> bool:
        return (isinstance(n, ast.Attribute) and n.attr == "environ") or (
            isinstance(n, ast.Name) and n.id == "environ"
        )

    def croupier(n: ast.AST | None) -> str | None:
        if isinstance(n, ast.Constant) and isinstance(n.value, str):
            return n.value if n.value.startswith("CROUPIER_") else None
        if isinstance(n, ast.JoinedStr) and n.values:
            first = n.values[0]
            if isinstance(first, ast.Constant) and str(first.value).startswith("CROUPIER_"):
                return str(first.value) + "…"
        return None

    for n in ast.walk(tree):
        name = None
        if isinstance(n, ast.Call) and n.args:
            f = n.func
            if isinstance(f, ast.Attribute) and (
                (f.attr in ("get", "pop", "setdefault") and is_environ(f.value))
                or (f.attr == "getenv")
            ):
                name = croupier(n.args[0])
        elif isinstance(n, ast.Subscript) and is_environ(n.value):
            name = croupier(n.slice)
        elif isinstance(n, ast.Compare) and any(is_environ(c) for c in n.comparators):
            name = croupier(n.left)
        if name:
            yield n.lineno, name


def test_no_croupier_setting_is_read_outside_config() -> None:
    found = []
    files = [*(ROOT / "services").rglob("*.py"), *(ROOT / "libs").rglob("*.py")]
    files += [p for p in (ROOT / "scripts").iterdir() if p.is_file()]
    for path in files:
        rel = path.relative_to(ROOT).as_posix()
        if path == CONFIG or "/pb/" in rel:
            continue
        text = path.read_text(encoding="utf-8")
        if not text.startswith(("#!/usr/bin/env python", '"""', "from", "import", "#")):
            continue
        try:
            tree = ast.parse(text)
        except SyntaxError:  # a shell script in scripts/
            continue
        found += [
            f"{rel}:{line}: {name}"
            for line, name in _environ_reads(tree)
            if (rel, name) not in LIBRARY_READS
        ]
    assert found == [], f"read these through croupier_services.config: {found}"


def test_the_scan_finds_each_form_of_read() -> None:
    src = (
        "import os\nfrom os import environ\n"
        "a = os.environ.get('CROUPIER_X')\nb = os.environ['CROUPIER_Y']\n"
        "c = os.getenv('CROUPIER_Z')\nd = 'CROUPIER_W' in os.environ\n"
        "e = environ.get(f'CROUPIER_DB_{x}_PASSWORD')\nf = os.environ.get('HOME')\n"
    )
    names = [n for _, n in _environ_reads(ast.parse(src))]
    assert names == ["CROUPIER_X", "CROUPIER_Y", "CROUPIER_Z", "CROUPIER_W", "CROUPIER_DB_…"]


def test_the_library_reads_are_defined_in_config() -> None:
    from croupier_services.config import SETTINGS

    for _, name in LIBRARY_READS:
        assert name in SETTINGS
