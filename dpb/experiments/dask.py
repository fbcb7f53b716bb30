"""The Dask backend of the experiments: chunks computed on a Dask cluster, files written here.

:func:`connect` opens a client of a scheduler within a bound (a listener that never answers does not
hang it), :func:`quiet_dask_logs` silences ``distributed``'s log (the command line's default) and
``_Dask`` is the backend :func:`dpb.experiments.run` uses with ``scheduler=``: it follows the
protocol of every backend, :class:`~dpb.experiments.Backend`.  A scheduler that goes away in the
middle of a run ends it with :class:`SchedulerLostError`.  ``distributed`` is imported only when
one of them is used.
"""

from __future__ import annotations

import asyncio
import re
import threading
import time
import traceback
from collections.abc import Callable
from typing import Any

from .._validate import as_real
from ..policies.registry import policy_class
from .specs import Cell

__all__ = ["SchedulerLostError", "connect", "quiet_dask_logs"]

#: Seconds to wait for a finished Dask chunk's result (its worker may have died since), and for the
#: scheduler's count of worker threads.
_GATHER_SECONDS = 2.0


_SCHEDULER = re.compile(r"^(tcp|tls|ucx|ws|wss)://[^\s/:]+:\d{1,5}$")


def _scheduler_address(scheduler) -> str:
    """Check a Dask scheduler address ``protocol://host:port`` (``ValueError`` naming it otherwise)."""
    if not isinstance(scheduler, str):
        raise TypeError(f"scheduler must be a distributed.Client or an address such as "
                        f"'tcp://127.0.0.1:8786', got {type(scheduler).__name__} {scheduler!r}")
    if not _SCHEDULER.match(scheduler):
        raise ValueError(f"scheduler must be an address such as 'tcp://127.0.0.1:8786', got {scheduler!r}")
    return scheduler


def connect(scheduler: Any, timeout: float = 10.0) -> Any:
    """A :class:`distributed.Client` of the Dask scheduler at the address ``scheduler``.

    Raises
    ------
    ConnectionError
        When no scheduler answers within ``timeout`` seconds.
    """
    scheduler = _scheduler_address(scheduler)
    timeout = as_real("timeout", timeout, low=0, low_open=True, high=3600)
    from distributed import Client

    t0 = time.monotonic()
    _probe(scheduler, timeout)
    left = max(timeout - (time.monotonic() - t0), 0.5)
    try:
        return Client(scheduler, timeout=left, set_as_default=False)
    except (OSError, TimeoutError) as exc:
        raise ConnectionError(f"no Dask scheduler answers at {scheduler} within {timeout:g} s "
                              f"({type(exc).__name__})") from None


def _probe(address: str, timeout: float) -> None:
    """Connect to ``address`` and complete Dask's handshake within ``timeout`` seconds, or raise
    ``ConnectionError``.

    ``distributed`` bounds the TCP connection by its timeout but then waits for the other end's
    handshake without one: a listener that accepts and never speaks kept ``Client(...)`` waiting
    for minutes.  The probe runs in a thread of its own (with its own event loop, so that it works
    inside a notebook's running loop too) and this thread waits for it with a deadline, so a
    Ctrl-C stops the wait at once."""
    from distributed.comm import connect as comm_connect

    outcome: dict = {}

    async def handshake():
        comm = await comm_connect(address, timeout=timeout)
        await comm.close()

    def body():
        try:
            asyncio.run(asyncio.wait_for(handshake(), timeout))
            outcome["ok"] = True
        except BaseException as exc:  # noqa: BLE001 - reported below
            outcome["error"] = exc

    thread = threading.Thread(target=body, daemon=True, name="dpb-dask-probe")
    thread.start()
    thread.join(timeout + 1.0)
    if outcome.get("ok"):
        return
    exc = outcome.get("error")
    why = "no answer" if exc is None or isinstance(exc, (TimeoutError, asyncio.TimeoutError)) else (
        f"{type(exc).__name__}")
    raise ConnectionError(f"no Dask scheduler answers at {address} within {timeout:g} s ({why})")


def quiet_dask_logs() -> None:
    """Silence the log of ``distributed`` in this process (the command line does so unless
    ``--verbose``: a lost scheduler is then one line, not a page of reconnection tracebacks)."""
    import logging

    import distributed  # noqa: F401 - its configuration sets the levels first

    names = [n for n in list(logging.root.manager.loggerDict) if n.startswith("distributed.")]
    for name in {"distributed", *names}:
        logging.getLogger(name).setLevel(logging.CRITICAL + 1)


class SchedulerLostError(ConnectionError):
    """The Dask scheduler went away while a run was using it (finished files are kept)."""


class _Dask:
    """Chunks on a Dask cluster; this process writes the files.  Keeps about two chunks per worker
    thread in flight, so that another run on the same directory can claim the rest."""

    def __init__(self, scheduler: Any, out: Any, compute: Callable[..., Any],
                 failure: Callable[[BaseException, Cell, float | None], str]) -> None:
        """``compute``: the function a worker runs on a task (``dpb.experiments.execution``'s
        chunk computation, sent by reference); ``failure``: the one-line cause of a failed task."""
        from distributed import Client

        self._own = not isinstance(scheduler, Client)
        self.client = connect(scheduler) if self._own else scheduler
        self._address = self.client.scheduler.address
        self._out = out
        self._futures: dict = {}
        self._threads = 0
        self._checked = 0.0
        self._compute, self._failure = compute, failure

    def _nthreads(self) -> int:
        """Worker threads on the cluster, asked of the scheduler at most once a second and within
        :data:`_GATHER_SECONDS` (``Client.nthreads`` alone waits without a bound); an answer that
        does not come in time leaves the last count, asked again a second later."""
        now = time.monotonic()
        if now - self._checked > 1.0:
            try:
                self._threads = sum(self.client.nthreads(callback_timeout=_GATHER_SECONDS).values())
            except (TimeoutError, asyncio.TimeoutError):
                pass
            except OSError as exc:  # distributed's CommClosedError: the scheduler went away
                raise self._lost_error() from exc
            self._checked = time.monotonic()
        return self._threads

    def _lost_error(self) -> SchedulerLostError:
        return SchedulerLostError(f"lost the Dask scheduler at {self._address} in the middle of the run "
                                  f"(the finished files are kept; rerun to compute the rest; "
                                  f"--verbose shows the Dask log)")

    def free(self) -> int:
        return max(0, 2 * self._nthreads() - len(self._futures))

    def busy(self) -> int:
        return len(self._futures)

    def waiting(self) -> str | None:
        if self._nthreads() == 0:
            return f"waiting for Dask workers: none is connected to {self.client.scheduler.address}"
        return None

    def submit(self, tag, task) -> None:
        cell, a, b, seed, stamp, _, seconds = task
        blob = _class_by_value(cell) if cell.process_local else None
        fut = self.client.submit(self._compute, cell, a, b, seed, stamp, None, seconds, blob,
                                 key=f"dpb-{cell.digest[:16]}-{seed}-{a}-{b}", pure=False)
        self._futures[fut] = (tag, task)

    def poll(self, timeout: float) -> list:
        if not self._futures:
            return []
        deadline = time.monotonic() + timeout
        while True:  # the futures' states are kept up to date by the client's own thread
            done = [f for f in self._futures if f.done()]
            if done or time.monotonic() >= deadline:
                break
            time.sleep(0.01)
        events: list = []
        if self._lost(done):
            raise self._lost_error()
        # Every wait below is bounded: when the worker holding a result dies, the client
        # reschedules the chunk, and a future found done above may be pending again by the time it
        # is read (a second one while the first is gathered); result() or exception() would then
        # block until a worker comes back, so that this loop could not say it is waiting for
        # workers (seen in CI: silent for 90 s).  Such a future stays tracked and is collected
        # when the next worker has computed it again.
        for fut in done:
            tag, (cell, a, b, *_) = self._futures[fut]
            status = fut.status
            if status == "finished":
                try:
                    res = fut.result(timeout=_GATHER_SECONDS)
                except (TimeoutError, asyncio.TimeoutError):
                    continue
                del self._futures[fut]
                res.save(cell.path(self._out, a, b))
                events.append((tag, ("ok", res.policy, float(res.extra.get("cpu_seconds", 0.0)))))
            elif status == "error":
                try:
                    exc = fut.exception(timeout=_GATHER_SECONDS)
                    exc = exc.with_traceback(fut.traceback(timeout=_GATHER_SECONDS))
                except (TimeoutError, asyncio.TimeoutError):
                    continue
                task = self._futures.pop(fut)[1]
                tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
                events.append((tag, ("error", self._failure(exc, task[0], task[-1]), tb)))
            else:  # lost or rescheduled since it was found done
                continue
            fut.release()
        return events

    def _lost(self, done) -> bool:
        """Whether the scheduler is gone: the client no longer runs, or it cancelled our futures
        (what ``distributed`` does to every future when the connection drops).  A future whose
        result died with its worker is ``lost`` instead, and computed again: not a lost scheduler."""
        if self.client.status not in ("running", "connecting", "newly-created"):
            return True
        return any(f.status == "cancelled" for f in done)

    def close(self) -> None:
        if self._own:
            self.client.close(timeout=_GATHER_SECONDS)

    def kill(self) -> None:
        try:
            if self._futures and self.client.status == "running":
                self.client.cancel(list(self._futures))
        except Exception:  # noqa: BLE001 - the scheduler may be gone: nothing left to cancel
            pass
        finally:
            self._futures.clear()
            self.close()


def _class_by_value(cell: Cell) -> bytes:
    """The class of a process-local policy (defined in a notebook cell, an interactive session, a
    script's ``__main__`` or a function) pickled *by value* with ``cloudpickle``, so that a Dask
    worker, which cannot import it, rebuilds it (and registers it) from the bytes."""
    import cloudpickle  # a dependency of distributed, so present wherever a Dask client is

    # cloudpickle pickles the classes of __main__ and those defined in functions by value
    return cloudpickle.dumps(policy_class(cell.policy))
