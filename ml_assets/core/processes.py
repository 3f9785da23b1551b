"""Is a recorded process still the one that is running? The dead-run sweep
(resources/dead_runs.py) asks this of every process a run recorded in its event log, and the
attempt ledger of every training attempt marked running."""

from __future__ import annotations

import os
from pathlib import Path

# /proc's start times are in clock ticks since boot and the boot time in whole seconds: a
# process that wrote an event at t started before t, give or take this much
START_TIME_SLACK_SECONDS = 1.0


def process_start_time(pid: int, proc: Path = Path("/proc")) -> float | None:
    """Unix time the process `pid` started; None when there is no such process or it is a
    zombie (killed, not yet reaped: it holds nothing). Linux only (reads /proc)."""
    try:
        stat = (proc / str(pid) / "stat").read_text()
        boot = next(
            float(line.split()[1])
            for line in (proc / "stat").read_text().splitlines()
            if line.startswith("btime ")
        )
    except (FileNotFoundError, ProcessLookupError, StopIteration):
        return None
    # the command name (field 2) is in parentheses and may contain spaces: split after it
    fields = stat[stat.rindex(")") + 2 :].split()
    state, start_ticks = fields[0], int(fields[19])  # fields 3 and 22 of proc(5)
    if state in ("Z", "X"):
        return None
    return boot + start_ticks / os.sysconf("SC_CLK_TCK")


def is_running(pid: int, seen_at: float, proc: Path = Path("/proc")) -> bool:
    """True when `pid` is alive and is the process that was seen at `seen_at` (unix time): a
    process that started later only reuses the number of one that died."""
    if not (proc / "stat").exists():  # no /proc (macOS): existence only, no reuse check
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True
    started = process_start_time(pid, proc)
    return started is not None and started <= seen_at + START_TIME_SLACK_SECONDS
