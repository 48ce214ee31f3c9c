"""CPU time of a process by pid, from /proc (Linux): user + system seconds."""

from __future__ import annotations

import os


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    ticks = int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15)
    return ticks / os.sysconf("SC_CLK_TCK")


def descendants(pid: int) -> list[int]:
    """The live descendants of ``pid`` (a dealer's writer process, the resource
    tracker of its ``multiprocessing``), from /proc."""
    kids: dict[int, list[int]] = {}
    for d in os.listdir("/proc"):
        if d.isdigit() and (st := _stat(d)) is not None:
            kids.setdefault(int(st[2]), []).append(int(d))
    found, todo = [], list(kids.get(pid, []))
    while todo:
        p = todo.pop()
        found.append(p)
        todo += kids.get(p, [])
    return found


def cpu_seconds_tree(pid: int) -> float:
    """:func:`cpu_seconds` of ``pid`` and of its live descendants (a dealer's writer
    process; a child already reaped counts in its parent's own figures only if waited
    for, so measure while the children live)."""
    total = 0.0
    for p in (pid, *descendants(pid)):
        try:
            total += cpu_seconds(p)
        except OSError:
            continue
    return total


def rss_kib(pid: int) -> tuple[int, int]:
    """(resident set size, its peak) of a process in KiB, from /proc (Linux)."""
    got = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(("VmRSS:", "VmHWM:")):
                got[line.split(":")[0]] = int(line.split()[1])
    return got.get("VmRSS", 0), got.get("VmHWM", 0)


def _stat(pid: str) -> list[str] | None:
    try:
        with open(f"/proc/{pid}/stat") as f:
            text = f.read()
    except OSError:  # gone, or not ours to read
        return None
    name = text[text.index("(") + 1 : text.rindex(")")]
    return [name, *text.rsplit(")", 1)[1].split()]


def _postgres_procs() -> dict[str, list[str]]:
    """Every live ``postgres`` process this user can read, by pid: its /proc stat."""
    procs = {pid: st for pid in os.listdir("/proc") if pid.isdigit() if (st := _stat(pid))}
    return {pid: st for pid, st in procs.items() if st[0] == "postgres"}


def postgres_cpu_seconds() -> float | None:
    """CPU seconds of this machine's PostgreSQL server so far: every live ``postgres``
    process (postmaster, backends, background workers) plus what the postmaster reaped
    from backends that have exited. ``None`` when no postgres process can be read (a
    server on another machine, or one this user may not inspect).

    The server is the machine's, not the run's: anything else using it in the same
    interval is counted too."""
    pg = _postgres_procs()
    if not pg:
        return None
    ticks = 0
    for st in pg.values():
        ticks += int(st[12]) + int(st[13])  # utime, stime
        if st[2] not in pg:  # the postmaster: its parent is not a postgres process
            ticks += int(st[14]) + int(st[15])  # cutime, cstime: its reaped backends
    return ticks / os.sysconf("SC_CLK_TCK")


def _cmdline(pid: str) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def postgres_background_seconds() -> float | None:
    """Of :func:`postgres_cpu_seconds`, what the server's own background processes
    spent so far (checkpointer, background writer, WAL writer, autovacuum, ...): the
    live ``postgres`` processes serving no client (their title names no client address).
    What is left of the total over an interval is the backends'. ``None`` as there."""
    pg = _postgres_procs()
    if not pg:
        return None
    ticks = 0
    for pid, st in pg.items():
        if st[2] not in pg:  # the postmaster
            continue
        title = _cmdline(pid)
        if "(" in title or "[local]" in title:  # a backend: "user db 127.0.0.1(port) ..."
            continue
        ticks += int(st[12]) + int(st[13])
    return ticks / os.sysconf("SC_CLK_TCK")
