"""Execution of the experiments: in this process, a local process pool, or a Dask cluster.

:func:`run` computes the chunk files of a target that are missing or stale and writes them under
``<out>/cells``; :func:`ensure` runs then loads.  Each chunk is simulated by ``_compute_chunk``
with the cell's own seed (:meth:`Cell.seed_sequence <dpb.experiments.Cell.seed_sequence>`), so the
numbers do not depend on where or in which order the chunks run.

Where the chunks are computed is a *backend*, one of three that share the protocol
:class:`Backend`: ``_InProcess`` (here), ``dpb.experiments.workers.Pool`` (the local pool) and
``dpb.experiments.dask._Dask`` (a Dask cluster).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import threading
import time
import traceback
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from .. import cache
from .._interrupts import watching
from .._validate import as_int, as_real, as_text, as_flag
from ..policies.registry import describe_failure, policy_class
from ..cost import MAX_SECONDS, _check_cost, estimate_cost
from .compute import _simulate_chunk
from . import store
from .dask import SchedulerLostError, connect  # noqa: F401 - defined here once: still importable
from .dask import _Dask, _scheduler_address
from .specs import DEFAULT_SEED, MAX_SEED, Cell, Experiment, _policy_file
from .store import ExperimentResults, _out_dir, claim, load

__all__ = ["RunReport", "ChunkError", "Backend", "run", "ensure", "chunk_time_limit", "MAX_JOBS",
           "CHUNK_FLOOR_SECONDS", "CHUNK_FACTOR"]

#: Seconds between two looks at the workers (and at chunks claimed by another run).
POLL_SECONDS = 0.25
#: Most worker processes of the local pool.
MAX_JOBS = 256
#: The default time limit of a chunk (``chunk_seconds="auto"``): this many times the chunk's
#: estimated CPU-seconds (:func:`~dpb.simulate.estimate_cost`, itself pessimistic), and never less
#: than ``CHUNK_FLOOR_SECONDS`` wall-clock seconds (room for a machine under load and for the
#: one-time compilation of a kernel in a fresh process: up to about 150 s measured under load).
CHUNK_FACTOR = 10.0
CHUNK_FLOOR_SECONDS = 300.0
#: Seconds the main process gives a worker past its chunk's limit before killing it (the worker
#: stops its own chunk at the limit; this catches a chunk stuck in compiled code).
_KILL_GRACE = 10.0


class ChunkTimeout(BaseException):
    """Raised inside a chunk that exceeds its time limit (a BaseException, so that a policy's own
    ``except Exception`` does not swallow it)."""


@contextlib.contextmanager
def _time_limit(seconds: float | None):
    """Raise :class:`ChunkTimeout` in this thread after ``seconds`` wall-clock seconds of the block.

    In the main thread a real-time timer (``SIGALRM``: it interrupts a ``time.sleep`` too);
    elsewhere (Dask worker threads) an asynchronous exception, delivered between two bytecodes."""
    if seconds is None:
        yield
        return
    if threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer"):
        def on_alarm(signum, frame):
            raise ChunkTimeout()

        previous = signal.signal(signal.SIGALRM, on_alarm)
        signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            yield
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
        return
    tid, lock, state = threading.get_ident(), threading.Lock(), {"on": True, "fired": False}
    set_async = ctypes.pythonapi.PyThreadState_SetAsyncExc

    def fire():
        with lock:
            if state["on"]:
                state["fired"] = True
                set_async(ctypes.c_ulong(tid), ctypes.py_object(ChunkTimeout))

    timer = threading.Timer(seconds, fire)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        with lock:
            state["on"] = False
        timer.cancel()
        if state["fired"]:  # delivered already, or still pending: clear it
            set_async(ctypes.c_ulong(tid), None)


def chunk_time_limit(cell: Cell, start: int, stop: int,
                     chunk_seconds: float | str | None = "auto") -> float | None:
    """The wall-clock seconds a chunk may take before it is stopped: ``chunk_seconds`` itself when a
    number, None (no limit) for None, and for ``"auto"`` ``CHUNK_FACTOR`` times its estimated
    cost (:func:`~dpb.simulate.estimate_cost`), at least ``CHUNK_FLOOR_SECONDS``."""
    cell, start, stop = store._checked_chunk(cell, start, stop)
    limit = _checked_limit(chunk_seconds)
    if limit != "auto":
        return limit  # type: ignore[return-value]
    cost = estimate_cost(_policy_of(cell), cell.bandit(), cell.T, stop - start, params=cell.params)
    return max(CHUNK_FLOOR_SECONDS, CHUNK_FACTOR * cost.seconds)


def _checked_limit(chunk_seconds):
    """``chunk_seconds`` checked: None, ``"auto"`` or a number of seconds in (0, 1e12]."""
    if chunk_seconds is None or (isinstance(chunk_seconds, str) and chunk_seconds == "auto"):
        return chunk_seconds
    if isinstance(chunk_seconds, str):
        raise ValueError(f"chunk_seconds must be a number of seconds > 0, 'auto' or None, got "
                         f"{chunk_seconds!r}")
    return as_real("chunk_seconds", chunk_seconds, low=0, low_open=True, high=1e12)


def _timeout_cause(seconds: float) -> str:
    return (f"stopped after {seconds:.3g} s, over its time limit (chunk_seconds, --chunk-seconds on the "
            f"command line; 'none' lifts it)")


def _failure(exc: BaseException, cell: Cell, seconds: float | None) -> str:
    """The one-line cause of a chunk's failure, naming the user's file and line where it happened."""
    if isinstance(exc, ChunkTimeout) and seconds is not None:
        return _timeout_cause(seconds)
    path = cell.source.rsplit(":", 1)[0] if cell.source else None
    return describe_failure(exc, path)


def chunk_reply(task: tuple, interrupts=None) -> tuple:
    """Compute one chunk (``task``: the arguments of :func:`_compute_chunk`) and answer
    ``("ok", policy, cpu_seconds)``, or ``("error", one-line cause, traceback)`` for any failure of
    the policy's code (a ``sys.exit`` too): the work of a worker of the local pool.  A
    ``KeyboardInterrupt`` for which ``interrupts(exc)`` is true (a real Ctrl-C) is raised."""
    try:
        res = _compute_chunk(*task)
    except BaseException as exc:  # noqa: BLE001 - reported to the main process, which stops
        if isinstance(exc, KeyboardInterrupt) and interrupts is not None and interrupts(exc):
            raise
        return "error", _failure(exc, task[0], task[-1]), traceback.format_exc()
    return "ok", res.policy, float(res.extra.get("cpu_seconds", 0.0))


def _policy_of(cell: Cell):
    """What computes ``cell``: the class registered under its name in this process when it is the
    one defined in ``cell.source`` (not loaded a second time), else the source or the name."""
    if not cell.source:
        return cell.policy
    try:
        cls = policy_class(cell.policy)
    except ValueError:  # not loaded in this process yet (a worker)
        return cell.source
    return cls if _policy_file(cls) == cell.source else cell.source


#: the policies whose compiled kernels this process has loaded (:func:`_warm_kernels`)
_WARM: set[str] = set()


def _warm_kernels(policy: str) -> None:
    """Load (or compile) the numba kernels of ``policy`` once per process, before a chunk's CPU
    clock starts: a chunk's ``cpu_seconds`` is what its runs cost -- the cost tables and the chunk
    budgets read it --, not the one-off compilation (15-40 CPU-s on a cold cache) or the loading of
    the machine code from numba's disk cache that the first chunk of every worker would pay.  The
    tiny runs are those of ``dpb compile`` (the classes' ``kernel_params``); other policies have no
    kernels."""
    from .._jit import jit_enabled
    from ..simulate import warm_kernels

    if policy in _WARM or not jit_enabled():
        return
    _WARM.add(policy)
    warm_kernels(policy)


def _compute_chunk(cell: Cell, start: int, stop: int, seed: int, stamp: dict, out: str | None,
                   seconds: float | None = None, policy_bytes: bytes | None = None):
    """Simulate runs ``[start, stop)`` of ``cell`` (in a worker); save the file when ``out`` is given.
    Stopped with :class:`ChunkTimeout` after ``seconds`` (None: no limit).  ``policy_bytes``: the
    policy's class pickled by value (:func:`_class_by_value`), for a class that exists in the
    submitting process only (unpickling it registers it here).

    Returns the :class:`~dpb.simulate.Result` with its provenance in ``extra``.
    """
    _warm_kernels(cell.policy)
    c0 = time.thread_time()
    policy = _policy_of(cell) if policy_bytes is None else __import__("pickle").loads(policy_bytes)
    with _time_limit(seconds):
        res = _simulate_chunk(policy, cell.bandit(), cell.T, cell.params, cell.digest, seed, start, stop)
    if (res.policy, res.T, tuple(float(m) for m in res.means)) != (cell.policy, cell.T, cell.means):
        raise RuntimeError(f"internal error: cell {cell.name} computed {res.policy} on {list(res.means)}, "
                           f"T={res.T}, not what its key says")  # never stored under a wrong key
    res.extra = {**stamp, "cell": cell.key, "runs": [start, stop], "experiment_seed": seed,
                 "cpu_seconds": time.thread_time() - c0}
    if out is not None:
        res.save(cell.path(out, start, stop))
    return res


def _check_chunk_costs(chunks, max_seconds, advice: str | None = None) -> None:
    """Refuse ``chunks`` (``(cell, start, stop)`` triples) when one is estimated above
    ``max_seconds`` CPU-seconds (``ValueError`` naming the cell, T, runs, the limit and
    ``advice``: how to lift it)."""
    if max_seconds is None or not chunks:
        return
    costs = [(estimate_cost(_policy_of(c), c.bandit(), c.T, b - a, params=c.params), c, a, b)
             for c, a, b in chunks]
    cost, cell, a, b = max(costs, key=lambda t: t[0].seconds)  # the first of the largest
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


#: The open :func:`_kept_workers` blocks, innermost last: each a dict holding its pool once started.
_kept: list[dict] = []


@contextlib.contextmanager
def _kept_workers() -> Any:
    """Within the block, every :func:`run` that uses the local pool shares one pool, started at the
    first such run and closed when the block ends.  The converged scale runs its rounds inside one
    block: a round's workers are the previous round's, with the kernels they already loaded, instead
    of new processes that import ``numba`` and load the kernels again (about a CPU-second a worker
    and a round).  A run that fails or is interrupted kills the pool (its workers may be in the
    middle of a chunk); the next run of the block starts a new one."""
    slot: dict = {}
    _kept.append(slot)
    try:
        yield
    finally:
        _kept.remove(slot)
        pool = slot.pop("pool", None)
        if pool is not None:
            pool.close()


def _local_pool(jobs: int, chunks: int) -> tuple:
    """(pool, owned): a started local pool for ``chunks`` chunks: the pool of the innermost
    :func:`_kept_workers` block (``jobs`` workers; started anew when it has none or a worker of it is
    gone; not owned), else a new pool of ``min(jobs, chunks)`` workers that the caller owns and
    closes."""
    from .workers import Pool

    def new(n: int) -> Pool:
        pool = Pool(n, _pool_context(), chunk_reply, grace=_KILL_GRACE, late=_timeout_cause)
        pool.start()
        return pool

    if not _kept:
        return new(min(jobs, chunks)), True
    slot = _kept[-1]
    pool = slot.get("pool")
    if pool is None or pool.size != jobs or not pool.alive():
        if pool is not None:
            pool.kill()
        pool = slot["pool"] = new(jobs)
    return pool, False


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
@runtime_checkable
class Backend(Protocol):
    """What :func:`run` asks of the place where chunks are computed: this process (``jobs=1``), the
    local pool (``dpb.experiments.workers.Pool``) or a Dask cluster (``scheduler=``).

    A *task* is the tuple of arguments of one chunk's computation, ``(cell, start, stop, seed,
    stamp, out, seconds)``: runs ``[start, stop)`` of ``cell`` with the experiment ``seed``, the
    provenance ``stamp`` its file records, the results directory ``out`` and the chunk's time limit
    ``seconds`` (None: none).  A *reply* is ``("ok", policy, cpu_seconds)`` once the chunk's file is
    written, or ``("error", "Type: message", traceback)`` when the chunk failed (the policy's code
    raised, or it ran past its limit).  :func:`run` submits while :meth:`free` is positive, polls
    while :meth:`busy` is, then calls :meth:`close`; on any exception (Ctrl-C included) it calls
    :meth:`kill` instead.
    """

    def free(self) -> int:
        """How many more tasks :meth:`submit` accepts now (0: poll first).  May raise when the
        backend itself broke (a worker of the pool killed from outside: ``RuntimeError``; the Dask
        scheduler gone: :class:`~dpb.experiments.SchedulerLostError`)."""

    def busy(self) -> int:
        """How many submitted tasks :meth:`poll` has not answered yet."""

    def waiting(self) -> str | None:
        """One line saying why no task can start although tasks wait (no Dask worker connected),
        else None; :func:`run` prints it once, when it changes."""

    def submit(self, tag: Any, task: tuple) -> None:
        """Start computing ``task``; its reply comes back from :meth:`poll` with ``tag``."""

    def poll(self, timeout: float) -> list:
        """The ``(tag, reply)`` pairs of the tasks finished within about ``timeout`` seconds, each
        once (an empty list if none finished); raises like :meth:`free` when the backend broke."""

    def close(self) -> None:
        """Release the backend once every task is answered (workers stop, a client it opened
        closes)."""

    def kill(self) -> None:
        """Stop at once, the tasks in progress included (their files are not written: a file is
        written whole or not at all); safe to call after a failure of the backend itself."""


class _InProcess:
    """Computes one chunk at a time in this process (``jobs=1``).  ``watch``
    (:func:`dpb._interrupts.watching`) tells a Ctrl-C, which stops the run, from a
    ``KeyboardInterrupt`` raised by a policy, which is the chunk's failure."""

    def __init__(self, watch=None) -> None:
        self._task: tuple | None = None
        self._watch = watch

    def free(self) -> int:
        return 0 if self._task else 1

    def busy(self) -> int:
        return 1 if self._task else 0

    def submit(self, tag, task) -> None:
        self._task = (tag, task)

    def poll(self, timeout: float) -> list:
        if self._task is None:
            return []
        tag, task = self._task
        self._task = None
        return [(tag, chunk_reply(task, lambda exc: self._watch is None or self._watch.real(exc)))]

    def waiting(self) -> str | None:
        return None

    def close(self) -> None:
        pass

    kill = close


# ----------------------------------------------------------------------------------------------
# the driver
# ----------------------------------------------------------------------------------------------
def run(target: Any, out: str | os.PathLike[str] | None = None, *, seed: int = DEFAULT_SEED,
        jobs: int | None = None, scheduler: Any = None,
        progress: bool = True, force: bool = False, desc: str | None = None,
        max_seconds: float | None = MAX_SECONDS, chunk_seconds: float | str | None = "auto") -> RunReport:
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
        :data:`~dpb.cost.MAX_SECONDS`); None lifts the limit.
    chunk_seconds : float, "auto" or None
        Stop a chunk that runs longer than this many wall-clock seconds (a policy that loops
        forever) and end the run with a :class:`ChunkError` naming the cell; ``"auto"`` (default):
        :func:`chunk_time_limit`, ten times the chunk's estimated cost and at least five minutes;
        None: no limit.

    Returns
    -------
    RunReport

    Raises
    ------
    ValueError
        For a chunk estimated above ``max_seconds`` (naming the cell, its T and runs).
    ChunkError
        When a chunk fails (an exception, or a ``sys.exit``/``KeyboardInterrupt`` raised by a
        policy's code, named with its file and line) or exceeds ``chunk_seconds``: the other
        chunks in progress are stopped at once, the finished files are kept.
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
    return _run(target, out, seed=seed, jobs=jobs, scheduler=scheduler, progress=progress, force=force,
                desc=desc, max_seconds=max_seconds, chunk_seconds=chunk_seconds, on_cell=None)


def _run(target: Any, out: str | os.PathLike[str] | None, *, seed: int, jobs: int | None, scheduler: Any,
         progress: bool, force: bool, desc: str | None, max_seconds: float | None,
         chunk_seconds: float | str | None, on_cell: Any) -> RunReport:
    """:func:`run`; when ``on_cell`` is given, ``on_cell(cell)`` is called in this process as soon as
    the last chunk of ``cell`` that this run computes is written, while the other chunks go on (the
    converged scale checks a cell there, instead of after the whole round)."""
    progress = as_flag("progress", progress)
    force = as_flag("force", force)
    out = _out_dir(out)
    seed = as_int("seed", seed, minimum=0, maximum=MAX_SEED)
    jobs = _default_jobs() if jobs is None else as_int("jobs", jobs, minimum=1, maximum=MAX_JOBS)
    desc = as_text("desc", desc)
    chunk_seconds = _checked_limit(chunk_seconds)
    if scheduler is not None and not hasattr(scheduler, "submit"):
        scheduler = _scheduler_address(scheduler)
    t0 = time.perf_counter()
    chunks = store._chunks_of(target)
    # the code's provenance hashed once a policy, not once a chunk (as chunk_status would)
    stamps = {p: store.chunk_provenance(p) for p in {c.policy for c, _, _ in chunks}}
    todo = [(c, a, b) for c, a, b in chunks if force or _chunk_state(c, a, b, out, seed, stamps) != "done"]
    report = RunReport(total=len(chunks), reused=len(chunks) - len(todo))
    if not todo:
        report.wall_seconds = time.perf_counter() - t0
        return report
    _check_chunk_costs(todo, max_seconds)
    cache.remove_orphan_temporaries(out / "cells")
    for cell, a, b in todo:  # a directory (or other non-file) where a result file belongs: set aside
        path = cell.path(out, a, b)
        if path.exists() and not path.is_file():
            os.replace(path, path.with_name(f"{path.name}.damaged-{os.getpid()}-{time.time_ns()}"))
    todo.sort(key=lambda t: -t[0].cost(t[2] - t[1]))
    limits = {(c, a, b): chunk_time_limit(c, a, b, chunk_seconds) for c, a, b in todo}
    label = desc or (target.name if isinstance(target, Experiment) else "cells")
    claims: dict = {}
    backend: Backend
    with watching() as watch:
        owned = True
        if scheduler is not None:
            backend = _Dask(scheduler, out, _compute_chunk, _failure)
        elif jobs == 1 or len(todo) == 1 or any(c.process_local for c, _, _ in todo):
            backend = _InProcess(watch)  # a class defined in this process only cannot reach a worker
        else:
            backend, owned = _local_pool(jobs, len(todo))
        try:
            with _progress_bar(len(todo), label, progress) as bar:
                _drive(todo, backend, out, seed, stamps, limits, force, report, bar, claims, on_cell)
        except BaseException:
            backend.kill()  # (a kept pool too: the next run of its block starts a new one)
            raise
        else:
            if owned:
                backend.close()
        finally:
            for c in claims.values():
                c.release()
    report.wall_seconds = time.perf_counter() - t0
    return report


def _chunk_state(cell: Cell, a: int, b: int, out, seed: int, stamps: dict) -> str:
    """:func:`~dpb.experiments.chunk_status` of a chunk of :func:`run`, with its policy's provenance
    taken from ``stamps`` (computed once per run)."""
    return cache.file_state(cell.path(out, a, b), store._stamp(cell, a, b, seed, stamps[cell.policy]))


def _drive(todo, backend, out, seed, stamps, limits, force, report, bar, claims, on_cell=None) -> None:
    """Hand the chunks of ``todo`` to ``backend`` as it has room, claiming each first; collect the
    answers; stop at the first failure; call ``on_cell`` (see :func:`_run`) for each cell whose
    chunks are all written."""
    pending = list(todo)
    said = None
    left: dict = {}
    for cell, _, _ in todo:
        left[cell] = left.get(cell, 0) + 1

    def written(cell) -> None:
        left[cell] -= 1
        if not left[cell] and on_cell is not None:
            on_cell(cell)

    while pending or backend.busy():
        i = 0
        while i < len(pending) and backend.free() > 0:
            cell, a, b = pending[i]
            mine = claim(cell, a, b, out)
            if mine is None:  # another run computes it
                i += 1
                continue
            if not force and _chunk_state(cell, a, b, out, seed, stamps) == "done":  # done meanwhile
                mine.release()
                pending.pop(i)
                report.reused += 1
                report.shared += 1
                bar.update()
                written(cell)
                continue
            tag = (cell, a, b)
            claims[tag] = mine
            backend.submit(tag, (cell, a, b, seed, stamps[cell.policy], str(out), limits[tag]))
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
                raise ChunkError(tag[0], tag[1], tag[2], reply[1], reply[2])
            _, policy, cpu = reply
            report.computed += 1
            report.cpu_seconds += cpu
            report.cpu_by_policy[policy] = report.cpu_by_policy.get(policy, 0.0) + cpu
            bar.update()
            written(tag[0])


def ensure(target: Any, out: str | os.PathLike[str] | None = None, *, seed: int = DEFAULT_SEED,
           jobs: int | None = None, scheduler: Any = None,
           progress: bool = True) -> ExperimentResults:
    """:func:`run` then :func:`load`: the results, computing only what is missing or stale."""
    from .files import as_experiment

    progress = as_flag("progress", progress)
    exp = as_experiment(target)
    run(exp, out, seed=seed, jobs=jobs, scheduler=scheduler, progress=progress)
    return load(exp, out, seed=seed)

