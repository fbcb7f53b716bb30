"""Execution of the experiments: a local process pool, or a Dask cluster.

:func:`run` computes the chunk files of a target that are missing or stale and writes them under
``<out>/cells``; :func:`ensure` runs then loads.  Each chunk is simulated by :func:`_compute_chunk`
with the cell's own seed (:meth:`Cell.seed_sequence <dpb.experiments.Cell.seed_sequence>`), so the
numbers do not depend on where or in which order the chunks run.
"""

from __future__ import annotations

import asyncio
import os
import re
import sys
import time
import traceback
from dataclasses import dataclass, field

import numpy as np

from .. import cache
from .._validate import as_int, as_real, as_text
from ..simulate import MAX_SECONDS, _check_cost, estimate_cost, simulate
from . import store
from .specs import DEFAULT_SEED, MAX_SEED, Cell, Experiment, _as_cells
from .store import ExperimentResults, _out, chunk_status, claim, load

__all__ = ["RunReport", "ChunkError", "run", "ensure", "connect", "MAX_JOBS"]

#: Seconds between two looks at the workers (and at chunks claimed by another run).
POLL_SECONDS = 0.25
#: Seconds to wait for a finished Dask chunk's result (its worker may have died since).
_GATHER_SECONDS = 2.0
#: Most worker processes of the local pool.
MAX_JOBS = 256


def _compute_chunk(cell: Cell, start: int, stop: int, seed: int, stamp: dict, out: str | None):
    """Simulate runs ``[start, stop)`` of ``cell`` (in a worker); save the file when ``out`` is given.

    Returns the :class:`~dpb.simulate.Result` with its provenance in ``extra``.
    """
    c0 = time.thread_time()
    res = simulate(cell.source or cell.policy, cell.bandit(), cell.T, seed=cell.seed_sequence(seed),
                   params=cell.params, run_ids=np.arange(start, stop), max_seconds=None)  # run() checked it
    res.extra = {**stamp, "cell": cell.key, "runs": [start, stop], "experiment_seed": seed,
                 "cpu_seconds": time.thread_time() - c0}
    if out is not None:
        res.save(cell.path(out, start, stop))
    return res


def check_chunk_costs(chunks, max_seconds, advice: str | None = None) -> None:
    """Refuse ``chunks`` (``(cell, start, stop)`` triples) when one is estimated above
    ``max_seconds`` CPU-seconds (``ValueError`` naming the cell, T, runs, the limit and
    ``advice``: how to lift it)."""
    if max_seconds is None or not chunks:
        return
    worst = None
    for cell, a, b in chunks:
        cost = estimate_cost(cell.source or cell.policy, cell.bandit(), cell.T, b - a, params=cell.params)
        if worst is None or cost.seconds > worst[0].seconds:
            worst = (cost, cell, a, b)
    cost, cell, a, b = worst
    try:
        _check_cost(cost, max_seconds, f"cell {cell.name} (runs {a}-{b})", cell.T, b - a,
                    *(() if advice is None else (advice,)))
    except ValueError as exc:
        raise ValueError(f"{exc} (the largest chunk of {len(chunks)})") from None


@dataclass
class RunReport:
    """What :func:`run` did: chunk files computed and reused, wall-clock and CPU seconds.

    ``cpu_seconds`` sums the CPU time of the computed chunks (measured in the workers);
    ``cpu_by_policy`` splits it by policy; ``shared`` counts the reused files that another run on
    the same directory computed while this one was running.
    """

    total: int = 0
    computed: int = 0
    reused: int = 0
    wall_seconds: float = 0.0
    cpu_seconds: float = 0.0
    cpu_by_policy: dict = field(default_factory=dict)
    shared: int = 0

    def __str__(self) -> str:
        return (f"{self.total} chunk files: {self.computed} computed, {self.reused} reused; "
                f"{self.wall_seconds:.1f} s wall, {self.cpu_seconds:.1f} CPU-s")


class ChunkError(RuntimeError):
    """A chunk of a cell failed; :func:`run` stopped the other chunks (finished files are kept).

    Attributes
    ----------
    cell : Cell
    start, stop : int
        The chunk's runs ``[start, stop)``.
    cause : str
        ``"ExceptionType: message"`` of the failure.
    details : str
        The traceback where it happened (in the worker process), or ``""``.
    """

    def __init__(self, cell: Cell, start: int, stop: int, cause: str, details: str = "") -> None:
        self.cell, self.start, self.stop, self.cause, self.details = cell, start, stop, cause, details
        eps = "" if cell.eps is None else f", eps={cell.eps:g}"
        super().__init__(f"cell {cell.name} ({cell.policy} on {cell.env}{eps}, T={cell.T}) runs "
                         f"{start}-{stop} failed: {cause}")

    def __reduce__(self):
        return (type(self), (self.cell, self.start, self.stop, self.cause, self.details))


def _default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def _pool_context():
    import multiprocessing as mp

    if "forkserver" in mp.get_all_start_methods():
        ctx = mp.get_context("forkserver")
        ctx.set_forkserver_preload(["dpb.experiments.execution"])
        return ctx
    return mp.get_context("spawn")  # pragma: no cover - not POSIX


def _progress_bar(total: int, desc: str, enabled: bool):
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, unit="file", disable=not enabled, leave=True)


def _notify(bar, message: str) -> None:
    """A line on stderr that does not break the progress bar."""
    from tqdm.auto import tqdm

    if bar.disable:
        print(message, file=sys.stderr, flush=True)
    else:
        tqdm.write(message, file=sys.stderr)


# ----------------------------------------------------------------------------------------------
# backends: where chunks are computed
# ----------------------------------------------------------------------------------------------
class _InProcess:
    """Computes one chunk at a time in this process (``jobs=1``)."""

    def __init__(self) -> None:
        self._task = None

    def free(self) -> int:
        return 0 if self._task else 1

    def busy(self) -> int:
        return 1 if self._task else 0

    def submit(self, tag, task) -> None:
        self._task = (tag, task)

    def poll(self, timeout: float) -> list:
        tag, task = self._task
        self._task = None
        try:
            res = _compute_chunk(*task)
        except Exception as exc:  # noqa: BLE001 - reported as the chunk's failure
            return [(tag, ("error", f"{type(exc).__name__}: {exc}", traceback.format_exc()))]
        return [(tag, ("ok", res.policy, float(res.extra.get("cpu_seconds", 0.0))))]

    def waiting(self) -> str | None:
        return None

    def close(self) -> None:
        pass

    kill = close


class _Dask:
    """Chunks on a Dask cluster; this process writes the files.  Keeps about two chunks per worker
    thread in flight, so that another run on the same directory can claim the rest."""

    def __init__(self, scheduler, out) -> None:
        from distributed import Client

        self._own = not isinstance(scheduler, Client)
        self.client = connect(scheduler) if self._own else scheduler
        self._out = out
        self._futures: dict = {}
        self._threads = 0
        self._checked = 0.0

    def _nthreads(self) -> int:
        now = time.monotonic()
        if now - self._checked > 1.0:
            self._threads = sum(self.client.nthreads().values())
            self._checked = now
        return self._threads

    def free(self) -> int:
        return max(0, 2 * self._nthreads() - len(self._futures))

    def busy(self) -> int:
        return len(self._futures)

    def waiting(self) -> str | None:
        if self._nthreads() == 0:
            return f"waiting for Dask workers: none is connected to {self.client.scheduler.address}"
        return None

    def submit(self, tag, task) -> None:
        cell, a, b, seed, stamp, _ = task
        fut = self.client.submit(_compute_chunk, cell, a, b, seed, stamp, None,
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
        events = []
        for fut in done:
            tag, (cell, a, b, *_) = self._futures[fut]
            if fut.status == "finished":
                try:
                    # a bounded wait: when the worker holding the result has died, the client
                    # reschedules the chunk and result() would block until a worker comes back,
                    # so that this loop could not say it is waiting for workers
                    res = fut.result(timeout=_GATHER_SECONDS)
                except (TimeoutError, asyncio.TimeoutError):
                    continue  # still tracked: computed again by the next worker, collected then
                del self._futures[fut]
                res.save(cell.path(self._out, a, b))
                events.append((tag, ("ok", res.policy, float(res.extra.get("cpu_seconds", 0.0)))))
            else:
                del self._futures[fut]
                exc = fut.exception()
                tb = "".join(traceback.format_exception(type(exc), exc, fut.traceback()))
                events.append((tag, ("error", f"{type(exc).__name__}: {exc}", tb)))
            fut.release()
        return events

    def close(self) -> None:
        if self._own:
            self.client.close()

    def kill(self) -> None:
        try:
            if self._futures:
                self.client.cancel(list(self._futures))
        finally:
            self._futures.clear()
            self.close()


_SCHEDULER = re.compile(r"^(tcp|tls|ucx|ws|wss)://[^\s/:]+:\d{1,5}$")


def _scheduler_address(scheduler) -> str:
    """Check a Dask scheduler address ``protocol://host:port`` (``ValueError`` naming it otherwise)."""
    if not isinstance(scheduler, str):
        raise TypeError(f"scheduler must be a distributed.Client or an address such as "
                        f"'tcp://127.0.0.1:8786', got {type(scheduler).__name__} {scheduler!r}")
    if not _SCHEDULER.match(scheduler):
        raise ValueError(f"scheduler must be an address such as 'tcp://127.0.0.1:8786', got {scheduler!r}")
    return scheduler


def connect(scheduler, timeout: float = 10.0):
    """A :class:`distributed.Client` of the Dask scheduler at the address ``scheduler``.

    Raises
    ------
    ConnectionError
        When no scheduler answers within ``timeout`` seconds.
    """
    scheduler = _scheduler_address(scheduler)
    timeout = as_real("timeout", timeout, low=0, low_open=True, high=3600)
    from distributed import Client

    try:
        return Client(scheduler, timeout=timeout, set_as_default=False)
    except (OSError, TimeoutError) as exc:
        raise ConnectionError(f"no Dask scheduler answers at {scheduler} within {timeout:g} s "
                              f"({type(exc).__name__})") from None


# ----------------------------------------------------------------------------------------------
# the driver
# ----------------------------------------------------------------------------------------------
def run(target, out=None, *, seed: int = DEFAULT_SEED, jobs: int | None = None, scheduler=None,
        progress: bool = True, force: bool = False, desc: str | None = None,
        max_seconds: float | None = MAX_SECONDS) -> RunReport:
    """Compute the missing or stale chunk files of ``target`` and write them under ``out/cells``.

    Parameters
    ----------
    target : Experiment, Cell, experiment name, path to an experiment file, or a list of them
        What to compute (shared cells are computed once); an experiment file (TOML) is read by
        :func:`~dpb.experiments.read_experiment`.
    out : path, optional
        Cache directory (default :func:`default_results_dir`), created on demand.
    seed : int
        The experiment seed (each cell derives its own from it, see the module doc).
    jobs : int, optional
        Worker processes of the local pool (default: the usable cores; at most 256); ``1``
        computes in this process.  Ignored when ``scheduler`` is given.
    scheduler : distributed.Client or str, optional
        Run the chunks on this Dask cluster (a client, or a scheduler address such as
        ``"tcp://host:8786"``) instead of the local pool; the files are written by this process.
        While the cluster has no worker, a line on stderr says that the run waits for workers.
    progress : bool
        Show a progress bar (``tqdm.auto``: a widget in notebooks, text in a terminal).
    force : bool
        Recompute every chunk even when its file is up to date.
    max_seconds : float or None
        Refuse, before any work, a run with a chunk (one :func:`~dpb.simulate.simulate` call)
        estimated above this many CPU-seconds (:func:`~dpb.simulate.estimate_cost`; default
        :data:`~dpb.simulate.MAX_SECONDS`); None lifts the limit.

    Returns
    -------
    RunReport

    Raises
    ------
    ValueError
        For a chunk estimated above ``max_seconds`` (naming the cell, its T and runs).
    ChunkError
        When a chunk fails: the other chunks in progress are stopped at once, the finished files
        are kept.
    KeyboardInterrupt
        On Ctrl-C: the workers are stopped at once (within a fraction of a second), the finished
        files are kept; calling :func:`run` again computes only what is missing.

    Notes
    -----
    Finished chunks are written as soon as they finish (by the worker for the local pool), each
    atomically, so killing a run loses at most the chunks in progress; the next call computes only
    what is missing.  Chunks start longest first.  The workers of the local pool exit when this
    process exits, however it ends (see ``dpb.experiments.workers``).  Before computing a chunk a
    run claims it (:func:`claim`): two runs on the same directory share the chunks instead of both
    computing all of them, and a run waits for the chunks that the other one is computing.  When a
    policy's class exists in this process only (defined in a notebook cell or a function, see
    :attr:`~dpb.experiments.Cell.process_local`), the local chunks are computed in this process.
    """
    out = _out(out)
    seed = as_int("seed", seed, minimum=0, maximum=MAX_SEED)
    jobs = _default_jobs() if jobs is None else as_int("jobs", jobs, minimum=1, maximum=MAX_JOBS)
    desc = as_text("desc", desc)
    if scheduler is not None and not hasattr(scheduler, "submit"):
        scheduler = _scheduler_address(scheduler)
    t0 = time.perf_counter()
    cells = _as_cells(target)
    todo = []
    report = RunReport()
    for cell in cells:
        for a, b in cell.chunks():
            report.total += 1
            if not force and chunk_status(cell, a, b, out, seed=seed) == "done":
                report.reused += 1
            else:
                todo.append((cell, a, b))
    if not todo:
        report.wall_seconds = time.perf_counter() - t0
        return report
    check_chunk_costs(todo, max_seconds)
    cache.remove_orphan_temporaries(out / "cells")
    todo.sort(key=lambda t: -t[0].cost(t[2] - t[1]))
    stamps = {p: store.chunk_provenance(p) for p in {c.policy for c, _, _ in todo}}
    label = desc or (target.name if isinstance(target, Experiment) else "cells")
    if scheduler is not None:
        backend = _Dask(scheduler, out)
    elif jobs == 1 or len(todo) == 1 or any(c.process_local for c, _, _ in todo):
        backend = _InProcess()  # a class defined in this process only cannot reach a worker
    else:
        from .workers import Pool

        backend = Pool(min(jobs, len(todo)), _pool_context())
        backend.start()
    claims: dict = {}
    try:
        with _progress_bar(len(todo), label, progress) as bar:
            _drive(todo, backend, out, seed, stamps, force, report, bar, claims)
    except BaseException:
        backend.kill()
        raise
    else:
        backend.close()
    finally:
        for c in claims.values():
            c.release()
    report.wall_seconds = time.perf_counter() - t0
    return report


def _drive(todo, backend, out, seed, stamps, force, report, bar, claims) -> None:
    """Hand the chunks of ``todo`` to ``backend`` as it has room, claiming each first; collect the
    answers; stop at the first failure."""
    pending = list(todo)
    said = None
    while pending or backend.busy():
        i = 0
        while i < len(pending) and backend.free() > 0:
            cell, a, b = pending[i]
            mine = claim(cell, a, b, out)
            if mine is None:  # another run computes it
                i += 1
                continue
            if not force and chunk_status(cell, a, b, out, seed=seed) == "done":  # done meanwhile
                mine.release()
                pending.pop(i)
                report.reused += 1
                report.shared += 1
                bar.update()
                continue
            tag = (cell, a, b)
            claims[tag] = mine
            backend.submit(tag, (cell, a, b, seed, stamps[cell.policy], str(out)))
            pending.pop(i)
        message = backend.waiting()
        if message is None and pending and not backend.busy():
            message = (f"waiting for another run on {out}, which is computing the last {len(pending)} "
                       f"chunk file(s)")
        if message != said and message is not None:
            _notify(bar, message)
        elif said is not None and message is None and "Dask" in said:
            _notify(bar, "Dask workers are back")
        said = message
        if not backend.busy():
            time.sleep(POLL_SECONDS)
            continue
        for tag, reply in backend.poll(POLL_SECONDS):
            claims.pop(tag).release()
            if reply[0] != "ok":
                raise ChunkError(*tag, reply[1], reply[2])
            _, policy, cpu = reply
            report.computed += 1
            report.cpu_seconds += cpu
            report.cpu_by_policy[policy] = report.cpu_by_policy.get(policy, 0.0) + cpu
            bar.update()


def ensure(target, out=None, *, seed: int = DEFAULT_SEED, jobs: int | None = None, scheduler=None,
           progress: bool = True) -> ExperimentResults:
    """:func:`run` then :func:`load`: the results, computing only what is missing or stale."""
    from .files import as_experiment

    exp = as_experiment(target)
    run(exp, out, seed=seed, jobs=jobs, scheduler=scheduler, progress=progress)
    return load(exp, out, seed=seed)

