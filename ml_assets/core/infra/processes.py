"""Is a recorded process still the one that is running? The dead-run sweep
(resources/dead_runs.py) asks this of every process a run recorded in its event log, and the
attempt ledger of every training attempt marked running.

A process is recorded as (pid, a unix time it was seen at). The pid alone is not enough: after
a process dies the system hands its number to a later one, so the running process must also
have started no later than it was seen. A zombie (killed, not yet reaped) holds nothing and
counts as gone.
"""

from __future__ import annotations

import psutil

# code versions leave this module out: whether a process still runs decides when a run or an
# attempt is declared dead, never what an asset produces
AFFECTS_OUTPUTS = False

# Start times are coarse (Linux: clock ticks since a boot time kept in whole seconds) and move
# when the wall clock is stepped after boot (NTP, a resumed VM): a process that wrote an event
# at t started before t, give or take this much. A pid reused within it is not worth a live
# run wrongly failed.
START_TIME_SLACK_SECONDS = 60.0
_GONE = (psutil.STATUS_ZOMBIE, psutil.STATUS_DEAD)


def process_start_time(pid: int) -> float | None:
    """Unix time the process ``pid`` started; None when there is no such process or it is a
    zombie. Raises ``psutil.AccessDenied`` where the system does not tell (another user's
    process on some platforms)."""
    if pid <= 0:  # no process: os.kill would signal a process group
        return None
    try:
        process = psutil.Process(pid)
        with process.oneshot():
            if process.status() in _GONE:
                return None
            return process.create_time()
    except psutil.NoSuchProcess:  # psutil.ZombieProcess included
        return None


def is_running(pid: int, seen_at: float) -> bool:
    """True when ``pid`` is alive and is the process that was seen at ``seen_at`` (unix time):
    a process that started later only reuses the number of one that died. A process the
    system will not describe exists, and counts as running: a run is never declared dead on a
    guess."""
    try:
        started = process_start_time(pid)
    except psutil.AccessDenied:
        return True
    return started is not None and started <= seen_at + START_TIME_SLACK_SECONDS
