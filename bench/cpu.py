"""CPU time of a process by pid, from /proc (Linux): user + system seconds."""

from __future__ import annotations

import os


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    ticks = int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15)
    return ticks / os.sysconf("SC_CLK_TCK")


def rss_kib(pid: int) -> tuple[int, int]:
    """(resident set size, its peak) of a process in KiB, from /proc (Linux)."""
    got = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(("VmRSS:", "VmHWM:")):
                got[line.split(":")[0]] = int(line.split()[1])
    return got.get("VmRSS", 0), got.get("VmHWM", 0)
