"""Execution of the experiments: a local process pool, or a Dask cluster.

:func:`run` computes the chunk files of a target that are missing or stale and writes them under
``<out>/cells``; :func:`ensure` runs then loads.  Each chunk is simulated by :func:`_compute_chunk`
with the cell's own seed (:meth:`Cell.seed_sequence <dpb.experiments.Cell.seed_sequence>`), so the
numbers do not depend on where or in which order the chunks run.
"""

from __future__ import annotations

import os
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass, field

import numpy as np

from .._validate import as_int
from ..simulate import Result, simulate
from .specs import DEFAULT_SEED, Cell, Experiment, _as_cells, experiment
from . import store
from .store import ExperimentResults, _out, chunk_status, load

__all__ = ["RunReport", "run", "ensure"]


def _compute_chunk(cell: Cell, start: int, stop: int, seed: int, stamp: dict, out: str | None):
    """Simulate runs ``[start, stop)`` of ``cell`` (in a worker); save the file when ``out`` is given.

    Returns the :class:`~dpb.simulate.Result` with its provenance in ``extra``.
    """
    c0 = time.thread_time()
    res = simulate(cell.policy, cell.bandit(), cell.T, seed=cell.seed_sequence(seed),
                   params=cell.params, run_ids=np.arange(start, stop))
    res.extra = {**stamp, "cell": cell.key, "runs": [start, stop], "experiment_seed": seed,
                 "cpu_seconds": time.thread_time() - c0}
    if out is not None:
        res.save(cell.path(out, start, stop))
    return res


@dataclass
class RunReport:
    """What :func:`run` did: chunk files computed and reused, wall-clock and CPU seconds.

    ``cpu_seconds`` sums the CPU time of the computed chunks (measured in the workers);
    ``cpu_by_policy`` splits it by policy.
    """

    total: int = 0
    computed: int = 0
    reused: int = 0
    wall_seconds: float = 0.0
    cpu_seconds: float = 0.0
    cpu_by_policy: dict = field(default_factory=dict)

    def __str__(self) -> str:
        return (f"{self.total} chunk files: {self.computed} computed, {self.reused} reused; "
                f"{self.wall_seconds:.1f} s wall, {self.cpu_seconds:.1f} CPU-s")


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


def run(target, out=None, *, seed: int = DEFAULT_SEED, jobs: int | None = None, scheduler=None,
        progress: bool = True, force: bool = False, desc: str | None = None) -> RunReport:
    """Compute the missing or stale chunk files of ``target`` and write them under ``out/cells``.

    Parameters
    ----------
    target : Experiment, Cell, experiment name, or a list of them
        What to compute (shared cells are computed once).
    out : path, optional
        Cache directory (default :func:`default_results_dir`), created on demand.
    seed : int
        The experiment seed (each cell derives its own from it, see the module doc).
    jobs : int, optional
        Worker processes of the local pool (default: the usable cores); ``1`` computes in this
        process.  Ignored when ``scheduler`` is given.
    scheduler : dask.distributed.Client or str, optional
        Run the chunks on this Dask cluster (a client, or a scheduler address such as
        ``"tcp://host:8786"``) instead of the local pool; the files are written by this process.
    progress : bool
        Show a progress bar (``tqdm.auto``: a widget in notebooks, text in a terminal).
    force : bool
        Recompute every chunk even when its file is up to date.

    Returns
    -------
    RunReport

    Notes
    -----
    Finished chunks are written as soon as they finish (by the worker for the local pool), each
    atomically, so killing a run loses at most the chunks in progress; the next call computes only
    what is missing.  Chunks start longest first.
    """
    out = _out(out)
    seed = as_int("seed", seed, minimum=0)
    jobs = _default_jobs() if jobs is None else as_int("jobs", jobs, minimum=1)
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
    todo.sort(key=lambda t: -t[0].cost(t[2] - t[1]))
    stamps = {p: store.chunk_provenance(p) for p in {c.policy for c, _, _ in todo}}
    label = desc or (target.name if isinstance(target, Experiment) else "cells")

    def finished(res: Result) -> None:
        cpu = float(res.extra.get("cpu_seconds", 0.0))
        report.computed += 1
        report.cpu_seconds += cpu
        report.cpu_by_policy[res.policy] = report.cpu_by_policy.get(res.policy, 0.0) + cpu

    with _progress_bar(len(todo), label, progress) as bar:
        if scheduler is not None:
            _run_dask(todo, out, seed, stamps, scheduler, finished, bar)
        elif jobs == 1 or len(todo) == 1:
            for cell, a, b in todo:
                finished(_compute_chunk(cell, a, b, seed, stamps[cell.policy], str(out)))
                bar.update()
        else:
            _run_pool(todo, out, seed, stamps, min(jobs, len(todo)), finished, bar)
    report.wall_seconds = time.perf_counter() - t0
    return report


def _run_pool(todo, out, seed, stamps, jobs, finished, bar) -> None:
    (out / "cells").mkdir(parents=True, exist_ok=True)
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=_pool_context())
    try:
        pending = {pool.submit(_compute_chunk, c, a, b, seed, stamps[c.policy], str(out)) for c, a, b in todo}
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for fut in done:
                finished(fut.result())
                bar.update()
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True)


def _run_dask(todo, out, seed, stamps, scheduler, finished, bar) -> None:
    from distributed import Client, as_completed

    own = not isinstance(scheduler, Client)
    client = Client(scheduler) if own else scheduler
    try:
        futures = [
            client.submit(_compute_chunk, c, a, b, seed, stamps[c.policy], None,
                          key=f"dpb-{c.digest[:16]}-{seed}-{a}-{b}", pure=False)
            for c, a, b in todo
        ]
        index = {f.key: (c, a, b) for f, (c, a, b) in zip(futures, todo, strict=True)}
        for fut in as_completed(futures):
            res = fut.result()
            cell, a, b = index[fut.key]
            res.save(cell.path(out, a, b))
            finished(res)
            bar.update()
            fut.release()
    finally:
        if own:
            client.close()



def ensure(target, out=None, *, seed: int = DEFAULT_SEED, jobs: int | None = None, scheduler=None,
           progress: bool = True) -> ExperimentResults:
    """:func:`run` then :func:`load`: the results, computing only what is missing or stale."""
    exp = experiment(target) if isinstance(target, str) else target
    run(exp, out, seed=seed, jobs=jobs, scheduler=scheduler, progress=progress)
    return load(exp, out, seed=seed)

