"""The processes a test starts, found and stopped: every process of a session (Linux ``/proc``),
a process group stopped with SIGTERM then SIGKILL, and SIGINT back to its default in a child."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import pytest

#: skips a test that reads ``/proc`` elsewhere than on Linux
needs_proc = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")


def kill_session(proc: subprocess.Popen, sid: int | None) -> None:
    """SIGKILL every process of session ``sid`` (none when ``None``), then ``proc`` itself."""
    for pid in session_processes(sid) if sid is not None else []:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    if proc.poll() is None:
        proc.kill()
    proc.wait(timeout=10)


def session_processes(sid: int) -> list:
    """Process ids of the live (not zombie) processes of session ``sid``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2 :].split()
        if int(fields[3]) == sid and fields[0] not in ("Z", "X"):
            found.append(int(entry.name))
    return found


def sigint_default():
    """In the child before exec: SIGINT back to its default action.  A shell starts background jobs
    with SIGINT ignored, and Python then installs no KeyboardInterrupt handler; a command typed in
    a terminal has the default, which is what the tests mimic."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def parent_of(pid: int) -> int:
    """The parent's process id of ``pid``."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat[stat.rfind(")") + 2 :].split()[1])


def stop_group(proc: subprocess.Popen, timeout: float = 15.0) -> None:
    """SIGTERM to the process group of ``proc`` (a session leader), SIGKILL to what is left after
    ``timeout`` seconds, then reap ``proc``."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait(5)


def kill_own_session(proc: subprocess.Popen) -> None:
    """:func:`kill_session` of a process started with ``start_new_session=True`` (its pid is its
    session's id)."""
    kill_session(proc, proc.pid)
