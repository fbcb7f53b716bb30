"""Worker processes of the local pool that never outlive the process that started them.

The pool is a handful of processes started by the ``forkserver`` method (``dpb`` preloaded once),
each talking to the main process over its own pipe: the main process sends one chunk at a time and
the worker answers with a short report (the file is written by the worker).  Pipes rather than
queues: a worker killed at any moment cannot leave a lock held or a queue half written, so the main
process can always stop the pool at once (:meth:`Pool.kill`).

A worker dies with its main process, however that one ends (``kill -9`` included):

* Linux ``prctl(PR_SET_PDEATHSIG, SIGKILL)``: the kernel kills the worker when its parent (the fork
  server, which itself exits when the main process is gone) exits;
* a watchdog thread compares the main process's start time in ``/proc`` (or, elsewhere, whether the
  process id still exists) every :data:`WATCH_INTERVAL` seconds and exits the worker when it is gone.

Workers ignore SIGINT: Ctrl-C in a terminal reaches the whole process group, and the main process
alone decides what to do (stop the pool, keep the finished files).
"""

from __future__ import annotations

from collections.abc import Iterator

from typing import Any

import contextlib
import os
import signal
import sys
import threading
import time
from multiprocessing.connection import wait as wait_any

from ..cache import _pid_alive
from .._validate import as_int, as_text

__all__ = ["WATCH_INTERVAL", "Pool", "process_alive", "process_start_time", "main_script_hidden"]

#: Seconds between two checks of the watchdog thread of a worker.
WATCH_INTERVAL = 0.5


def process_start_time(pid: int) -> str | None:
    """The start time of process ``pid`` (field 22 of ``/proc/<pid>/stat``, clock ticks since boot),
    ``""`` when ``/proc`` is not available, None when the process does not exist or is a zombie."""
    pid = as_int("pid", pid, minimum=0)
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read().decode(errors="replace")
    except FileNotFoundError:
        return None if os.path.isdir("/proc/self") else ""
    except OSError:  # pragma: no cover - unreadable
        return None
    fields = stat[stat.rfind(")") + 2 :].split()  # after the command name, which may hold spaces
    if fields[0] in ("Z", "X"):  # exited, not yet reaped by its parent
        return None
    return fields[19]


def process_alive(pid: int, start_time: str | None = None) -> bool:
    """Whether process ``pid`` runs and, when ``start_time`` is given, is the same process (a reused
    process id has another start time)."""
    as_text("start_time", start_time)
    now = process_start_time(pid)
    if now is None:
        return False
    if now == "":  # no /proc: only whether the id exists
        return _pid_alive(pid)
    return start_time is None or start_time == "" or now == start_time


def _die_with_parent() -> None:
    """Ask the kernel to SIGKILL this process when its parent exits (Linux only; else nothing)."""
    if not sys.platform.startswith("linux"):  # pragma: no cover
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG = 1
    except (OSError, AttributeError):  # pragma: no cover - no prctl
        pass


def _watch(pid: int, start_time: str) -> None:
    while process_alive(pid, start_time):
        time.sleep(WATCH_INTERVAL)
    os._exit(3)


def _worker(conn, main_pid: int, main_start: str, work) -> None:
    """Body of a worker: answer ``work(task)`` to every task the main process sends until it says
    stop or is gone."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with_parent()
    if not process_alive(main_pid, main_start):  # gone before PDEATHSIG was armed
        os._exit(3)
    threading.Thread(target=_watch, args=(main_pid, main_start), daemon=True, name="dpb-watchdog").start()
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        try:
            conn.send(work(task))
        except (BrokenPipeError, OSError):
            return


@contextlib.contextmanager
def main_script_hidden() -> Iterator[None]:
    """While in the block, a process started by ``spawn`` or ``forkserver`` does not import the main
    script.

    multiprocessing imports the parent's main module in every such child (as ``__mp_main__``), so
    that functions defined there can be unpickled; for a plain script without an
    ``if __name__ == "__main__":`` guard that runs the script's top level again in each worker,
    which starts its own experiment.  The workers of the pool need nothing from the main script
    (their entry point is this module; a policy class defined in the script is computed in the
    main process, see :attr:`dpb.experiments.Cell.process_local`), so its path is hidden from
    multiprocessing while the workers start.  A main module run with ``python -m`` is imported by
    name, guarded as ``__mp_main__``, and left as it is; notebooks and interactive sessions have no
    main file.
    """
    main = sys.modules.get("__main__")
    hide = (main is not None and getattr(getattr(main, "__spec__", None), "name", None) is None
            and "__file__" in vars(main))
    if not hide:
        yield
        return
    assert main is not None
    path = main.__file__
    del main.__file__
    try:
        yield
    finally:
        main.__file__ = path


class Pool:
    """``jobs`` worker processes, one pipe each, each answering ``work(task)`` to every task (a
    module-level function, sent to the workers by reference: for the experiments,
    ``dpb.experiments.execution.chunk_reply``); :meth:`submit` a task to an idle worker,
    :meth:`poll` for answers, :meth:`close` (let them finish) or :meth:`kill` (at once).

    ``poll`` returns ``(tag, reply)`` pairs: ``reply`` is what ``work`` returned (for the
    experiments ``("ok", policy, cpu_seconds)`` or ``("error", "Type: message", traceback)``),
    ``("error", late(limit), "")`` for a task killed past its time limit (the task's last element,
    when a number, plus ``grace`` seconds), or ``("died", "worker process ... exited with ...", "")``
    when a worker vanished mid-task.
    """

    def __init__(self, jobs: int, context: Any, work: Any, grace: float | None = None,
                 late: Any = None) -> None:
        jobs = as_int("jobs", jobs, minimum=1, maximum=256)
        if not callable(work):
            raise TypeError(f"work must be a function (task -> reply), got {type(work).__name__}")
        self._late = late or (lambda limit: f"stopped after {limit:.3g} s, over its time limit")
        # a task whose last element is a time limit in seconds is killed ``grace`` seconds after it
        # (the worker stops the chunk itself at the limit; this catches one stuck in compiled code)
        self._grace = None if grace is None else float(grace)
        self._deadlines: dict = {}
        if not hasattr(context, "Process") or not hasattr(context, "Pipe"):
            raise TypeError(f"context must be a multiprocessing context, got {type(context).__name__}")
        self._workers: list = []  # [process, our connection, tag or None, the worker's connection]
        me = os.getpid()
        start = process_start_time(me) or ""
        for _ in range(jobs):
            ours, theirs = context.Pipe(duplex=True)
            proc = context.Process(target=_worker, args=(theirs, me, start, work), daemon=True,
                                   name="dpb-worker")
            self._workers.append([proc, ours, None, theirs])
        self._started = False

    def start(self) -> None:
        """Start the worker processes (without importing the main script in them, see
        :func:`main_script_hidden`)."""
        with main_script_hidden():
            for proc, _, _, theirs in self._workers:
                proc.start()
                theirs.close()
        self._started = True

    @property
    def size(self) -> int:
        """Number of worker processes."""
        return len(self._workers)

    def alive(self) -> bool:
        """Whether the pool was started and every worker process still runs."""
        return self._started and all(w[0].is_alive() for w in self._workers)

    def free(self) -> int:
        """Number of idle workers; raises ``RuntimeError`` when an idle worker has died (killed from
        outside, e.g. by the out-of-memory killer): the pool would shrink silently."""
        for w in self._workers:
            self._check_idle(w)
        return sum(1 for w in self._workers if w[2] is None)

    def _check_idle(self, w) -> None:
        if w[2] is None and self._started and not w[0].is_alive():
            raise RuntimeError(f"worker process {w[0].pid} of the local pool exited with code "
                               f"{w[0].exitcode} while idle")

    def busy(self) -> int:
        """Number of workers computing a task."""
        return sum(1 for w in self._workers if w[2] is not None)

    def waiting(self) -> None:
        """Nothing to wait for: the workers are here (the Dask backend may have none)."""
        return None

    def submit(self, tag: Any, task: tuple) -> None:
        for w in self._workers:
            if w[2] is None:
                self._check_idle(w)  # (it may have died since free() counted it)
                w[1].send(task)
                w[2] = tag
                limit = task[-1] if task and isinstance(task[-1], (int, float)) else None
                if self._grace is not None and limit is not None:
                    self._deadlines[id(w)] = (time.monotonic() + limit + self._grace, limit)
                return
        raise RuntimeError("no idle worker")  # pragma: no cover - the caller checks free()

    def poll(self, timeout: float) -> list:
        """Answers that arrived within ``timeout`` seconds (an empty list if none)."""
        busy = [w for w in self._workers if w[2] is not None]
        if not busy:
            return []
        now = time.monotonic()
        events = []
        for w in busy:
            due = self._deadlines.get(id(w))
            if due is not None and now >= due[0]:  # past its limit: kill it
                w[0].kill()
                w[0].join(timeout=5)
                events.append((w[2], ("error", self._late(due[1]), "")))
                w[2] = None
                del self._deadlines[id(w)]
        if events:
            return events
        dues = [self._deadlines[id(w)][0] for w in busy if id(w) in self._deadlines]
        if dues:
            timeout = max(0.0, min(timeout, min(dues) - now))
        waitables = {x: w for w in busy for x in (w[1], w[0].sentinel)}
        ready = wait_any(list(waitables), timeout)
        for w in {id(waitables[r]): waitables[r] for r in ready}.values():
            proc, conn, tag = w[0], w[1], w[2]
            try:
                reply = conn.recv() if conn.poll() else None
            except (EOFError, OSError):
                reply = None
            if reply is None:
                proc.join(timeout=1)
                reply = ("died", f"worker process {proc.pid} exited with code {proc.exitcode} while "
                                 f"computing it", "")
            w[2] = None
            self._deadlines.pop(id(w), None)
            events.append((tag, reply))
        return events

    def close(self) -> None:
        """Tell idle workers to stop and wait for them (call when no task is pending)."""
        for _, conn, _, _ in self._workers:
            try:
                conn.send(None)
            except (BrokenPipeError, OSError):
                pass
        self._join()

    def _join(self) -> None:
        """Wait for every worker to exit (killing one that does not within 5 s) and close the pipes."""
        for proc, conn, _, _ in self._workers:
            if self._started:
                proc.join(timeout=5)
                if proc.is_alive():  # pragma: no cover - should not happen
                    proc.kill()
                    proc.join(timeout=5)
            conn.close()

    def kill(self) -> None:
        """Stop every worker at once (SIGKILL): a chunk in progress is lost, its file not written
        (files are written atomically, a half-written temporary file is removed by the next run)."""
        for proc, _, _, _ in self._workers:
            if self._started and proc.is_alive():
                proc.kill()
        self._join()

