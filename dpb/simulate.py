"""Simulate bandit policies on Bernoulli environments, many runs at once, exactly and reproducibly.

:func:`simulate` runs a policy (a :class:`~dpb.policies.base.Policy`, or a name and parameters)
on an environment for ``runs`` independent runs of horizon ``T`` and returns a :class:`Result`:
the pseudo-regret Reg_t = sum_a Delta_a N_a(t) of every run at checkpoints (a log-spaced and a
linear grid), the final pull counts, the number of phases and the parameters and seed.

How it is exact and fast
------------------------
* Every policy decides in phases and only sees phase *sums* of rewards (see :doc:`/book/algorithms_as_run`),
  so a phase of
  B pulls of arm a is simulated as one Binomial(B, mu_a) draw -- the same law as B Bernoulli
  draws.  A run of a batched private policy costs O(K log T) phases, not T steps, and all runs
  advance in lock-step so that each phase is one numpy operation over runs (the generic engine).
* Within a phase the regret grows linearly (round-robin phases: piecewise linearly), so
  checkpoints falling inside a phase are computed exactly without per-step work.
* DP-KLUCB and DP-IMED (and any :class:`~dpb.policies.dp_batched.BatchedPrivatePolicy` that
  only defines its index) have a lean lock-step fast path with the same draws and arithmetic as
  the generic engine, hence the same numbers: no diagnostics, finished runs dropped, all phases
  recorded at once (:meth:`~dpb.policies.base.Recorder.record_phases`); DP-IMED's runs are
  compiled with numba (``engine="python"`` runs the numpy version, with the same numbers).
* The per-step policies (IMED, KL-UCB, Lazy-DP-TS) have their own exact fast paths
  (``policy.fast_simulate``); see :mod:`dpb.policies.nonprivate`, :mod:`dpb.policies.lazy_dpts`
  and ``benchmarks/README.md``.  ``fast=False`` runs them through the generic engine instead.
* A per-step policy of one's own (:class:`~dpb.policies.PerStepPolicy`) runs all its runs in
  lock step, its index called once per block of rounds for every run (``dpb.policies._perstep``),
  with the generic engine's numbers.
* ``engine`` chooses how a fast path runs: ``"numba"`` (compiled kernels where it has some, the
  default) or ``"python"`` (IMED's and KL-UCB's kernels uncompiled, DP-IMED's numpy lock-step:
  the same numbers, slower).  The environment variable ``DPB_JIT=0`` only changes the default to
  ``"python"``.  ``Result.engine`` records the engine that ran.

How long a call may take
------------------------
Before any work, :func:`simulate` estimates the call's cost with the cost model of :mod:`dpb.cost`
(:func:`estimate_cost`) and refuses (``ValueError`` naming ``T`` and ``runs``) a call estimated
above ``max_seconds`` CPU-seconds (default :data:`~dpb.cost.MAX_SECONDS`, two minutes); ``max_seconds=None``
lifts the limit.

Randomness
----------
Run ``i`` of ``simulate(..., seed=s)`` owns the child ``SeedSequence(s).spawn(n)[i]`` (for any
n > i), and two generators derived from it: one for the environment's rewards and one for the
policy's own randomness (Laplace noise, tie-breaks, Thompson samples); see :mod:`dpb.engine`,
which holds the code that makes the numbers (this module validates, prices and reports).
Nothing a run draws depends on the other runs, so ``simulate(..., runs=20, seed=s)`` equals the
20 single-run calls ``simulate(..., seed=s, run_ids=[i])`` stacked with :meth:`Result.concat`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.random import SeedSequence

from ._params import merge_params
from ._validate import MAX_HORIZON, MAX_RUNS, as_flag, as_int, as_seed_sequence
from .cost import MAX_SECONDS, Cost, estimate_cost, _refuse
from .engine import (FastPath, Recorder, SeedChildren, checkpoint_grid, child_seeds,
                     _resolve_checkpoints, run_generators, _run_seeds)
from .environments import BernoulliBandit, as_bandit
from .policies import Policy
from .policies.base import check_horizon
from .policies._tapes import check_engine
from .policies.registry import as_policy, registered
from .result import Result
from .trace import Trace, simulate_trace

__all__ = [
    "MAX_SECONDS",
    "Cost",
    "estimate_cost",
    "Result",
    "Trace",
    "simulate",
    "simulate_seeds",
    "simulate_trace",
    "checkpoint_grid",
    "child_seeds",
    "run_generators",
    "warm_kernels",
]

PolicySpec = Policy | str | Callable[[], Policy] | tuple


# ----------------------------------------------------------------------------------------------
# the progress bar
# ----------------------------------------------------------------------------------------------
class _ProgressHook:
    """A hook of :func:`dpb.engine.run_phases` advancing a progress bar by the rounds each phase
    simulated."""

    def __init__(self, bar) -> None:
        self.bar = bar

    def before_update(self, rows, t0, counts, sums) -> None:
        pass

    def after_update(self, rows, t0, counts, sums) -> None:
        self.bar.update(int(counts.sum()))


def _simulate_with_progress(pol: Policy, bandit: BernoulliBandit, T: int, seeds: Sequence[SeedSequence],
                            ck: np.ndarray, path: FastPath | None, engine: str) -> tuple[Recorder, str]:
    """Simulate ``seeds`` as :func:`simulate_seeds` does, with a progress bar.

    A fast path runs the seeds in about ten groups (each run owns its generators, so grouping
    changes no number) and counts finished runs; the generic engine counts simulated rounds.
    """
    from tqdm.auto import tqdm

    R = len(seeds)
    desc = f"{pol.name}, T={T}"
    if path is None:
        with tqdm(total=R * T, desc=desc, unit="round", unit_scale=True) as bar:
            return _run_seeds(pol, bandit, T, seeds, ck, None, engine, _ProgressHook(bar))
    rec, ran = Recorder(R, bandit.gaps, ck), "phases"
    size = -(-R // 10)
    with tqdm(total=R, desc=desc, unit="run") as bar:
        for lo in range(0, R, size):
            part = seeds[lo : lo + size]
            done, ran = _run_seeds(pol, bandit, T, part, ck, path, engine)
            rec.take(slice(lo, lo + len(part)), done)
            bar.update(len(part))
    return rec, ran


# ----------------------------------------------------------------------------------------------
# public entry points
# ----------------------------------------------------------------------------------------------
def _door(policy: PolicySpec, params: dict | None, env: Any, T: int, fast: bool, engine: str | None,
          runs: int, max_seconds: float | None) -> tuple[Policy, BernoulliBandit, int, FastPath | None, str]:
    """``(policy object, bandit, T, fast path or None, engine)`` checked, and the call refused when
    its estimated cost is above ``max_seconds`` (``dpb.cost._refuse``)."""
    fast = as_flag("fast", fast)
    pol, bandit = as_policy(policy, params), as_bandit(env)
    T = check_horizon(pol, bandit.K, as_int("T", T, minimum=1, maximum=MAX_HORIZON))
    engine = check_engine(engine)
    path = pol.fast_path() if fast else None
    _refuse(f"simulate({pol.name!r})", T, runs, max_seconds, pol, bandit.K, "fast" if path else "phases",
           compiled=engine == "numba", means=bandit.means)
    return pol, bandit, T, path, engine


def _simulate(pol: Policy, bandit: BernoulliBandit, T: int, seeds: Sequence[SeedSequence],
              checkpoints: tuple | None, path: FastPath | None, engine: str | None = None, *,
              root: SeedSequence | None = None, run_ids: Any = None, progress: bool = False) -> Result:
    """The runs of ``seeds`` as a :class:`Result`, from checked objects (validates nothing): the
    policy object, the bandit, ``T`` checked against the policy, the child seeds, the checkpoints
    of ``dpb.engine._resolve_checkpoints`` (None: the default grids), the fast path (None: the
    generic engine) and the engine (None: the default).
    The runner of :func:`simulate`, :func:`simulate_seeds` and the experiments' chunks
    (``dpb.experiments.compute``), on ``dpb.engine._run_seeds``."""
    t_start = time.perf_counter()
    ck, log_mask, lin_mask = checkpoints or _resolve_checkpoints(T, None)
    engine = engine or check_engine(None)
    if progress:
        rec, ran = _simulate_with_progress(pol, bandit, T, seeds, ck, path, engine)
    else:
        rec, ran = _run_seeds(pol, bandit, T, seeds, ck, path, engine)
    if np.isnan(rec.regret).any() or not np.all(rec.pulls.sum(axis=1) == T):  # pragma: no cover
        raise RuntimeError("internal error: the simulation did not cover the horizon exactly")
    root = root or SeedSequence(seeds[0].entropy, spawn_key=seeds[0].spawn_key[:-1])
    ids = np.array([s.spawn_key[-1] if s.spawn_key else 0 for s in seeds] if run_ids is None else run_ids)
    means = np.asarray(bandit.means, dtype=float).copy()
    return Result(policy=pol.name, params=dict(pol.params), means=means, env_name=bandit.name, T=T,
                  seed=int(root.entropy), spawn_key=tuple(int(k) for k in root.spawn_key),  # type: ignore[arg-type]
                  run_ids=ids.astype(np.int64), checkpoints=ck, log_grid=log_mask, linear_grid=lin_mask,
                  regret=rec.regret, pulls=rec.pulls, n_phases=rec.phases, laplace_draws=rec.laplace,
                  engine=ran, elapsed=time.perf_counter() - t_start)


def simulate_seeds(
    policy: PolicySpec,
    env: Any,
    T: int,
    seeds: Sequence[SeedSequence],
    *,
    params: dict | None = None,
    checkpoints: Any = None,
    fast: bool = True,
    root: SeedSequence | None = None,
    run_ids: Any = None,
    max_seconds: float | None = MAX_SECONDS,
    progress: bool = False,
    engine: str | None = None,
) -> Result:
    """Simulate one run per child ``SeedSequence`` in ``seeds`` (:func:`simulate` for given
    children; ``max_seconds``, ``progress`` and ``engine`` as there)."""
    progress = as_flag("progress", progress)
    if isinstance(seeds, (str, bytes)) or not hasattr(seeds, "__iter__"):
        raise TypeError(f"seeds must be a sequence of SeedSequence, got {type(seeds).__name__}")
    if not isinstance(seeds, SeedChildren):  # (children built lazily)
        seeds = list(seeds)
        if not all(isinstance(s, np.random.SeedSequence) for s in seeds):
            raise TypeError("seeds must be numpy SeedSequence objects (see child_seeds)")
    if not len(seeds):
        raise ValueError("at least one seed (run) is required")
    if len(seeds) > MAX_RUNS:
        raise ValueError(f"runs: at most {MAX_RUNS} runs per call, got {len(seeds)}")
    pol, bandit, T, path, engine = _door(policy, params, env, T, fast, engine, len(seeds), max_seconds)
    return _simulate(pol, bandit, T, seeds, _resolve_checkpoints(T, checkpoints), path, engine, root=root,
                     run_ids=run_ids, progress=progress)


def simulate(
    policy: PolicySpec,
    env: Any,
    T: int,
    runs: int | None = None,
    seed: Any = None,
    *,
    params: dict | None = None,
    run_ids: Any = None,
    checkpoints: Any = None,
    fast: bool = True,
    engine: str | None = None,
    max_seconds: float | None = MAX_SECONDS,
    progress: bool = False,
    **policy_params: Any,
) -> Result:
    """Simulate ``runs`` independent runs of ``policy`` on ``env`` for ``T`` rounds.

    Parameters
    ----------
    policy : Policy, str, (str, dict) or callable
        A policy object, a policy name (with ``params``), a ``(name, params)`` pair, or a factory
        ``params -> Policy``.
    env : BernoulliBandit, str or array_like
        The environment, an instance name (``"mu1"``...) or a vector of means.
    T : int
        Horizon (>= the policy's initialisation, e.g. K n0 for DP-KLUCB/DP-IMED).
    runs : int, optional
        Number of runs (default 1); run i uses child i of ``SeedSequence(seed)``.
    seed : int, SeedSequence, numpy Generator or None
        Root seed; None draws fresh entropy (recorded in the result, so it can be replayed).  A
        ``Generator`` gives one 63-bit integer draw as the root seed (it advances the generator;
        the same generator state gives the same runs, and ``Result.seed`` records the integer).
    params : dict, optional
        Parameters of the policy when it is given by name or factory.
    **policy_params
        The same parameters as keywords: ``simulate("DP-KLUCB", mu, T, eps=0.5, alpha=2)``.
    run_ids : sequence of int, optional
        Simulate exactly these children of the root seed instead of ``range(runs)``.
    checkpoints : None, int or array of int
        Default: 100-point log and linear grids; an int sets the points per grid; an array gives
        the rounds explicitly (T is always added).
    fast : bool
        Use the policy's exact fast path when it has one (default); False forces the generic
        phase engine.
    engine : {"numba", "python"} or None
        How a fast path runs: ``"numba"``, its compiled kernels where it has some (IMED, KL-UCB,
        DP-IMED); ``"python"``, the same code uncompiled (IMED, KL-UCB) or numpy (DP-IMED), with
        the same numbers for the same seed, slower.  None: ``"numba"``, or ``"python"`` when the
        environment variable ``DPB_JIT`` is ``0``.  Recorded in ``Result.engine`` (which is
        ``"phases"`` when the generic engine ran, ``"fast"`` for a fast path of one engine).
    max_seconds : float or None
        Refuse, before any work, a call whose estimated cost (:func:`estimate_cost`, a
        pessimistic model) exceeds this many CPU-seconds; default :data:`~dpb.cost.MAX_SECONDS` (120).
        None lifts the limit: the call then runs as long as it takes (Ctrl-C stops it).
    progress : bool
        Show a progress bar (``tqdm``): finished runs on a fast path (runs are then simulated in
        groups, with the same results), simulated rounds of all runs on the generic engine.

    Returns
    -------
    Result

    Raises
    ------
    ValueError
        For an invalid argument, or a call estimated above ``max_seconds`` (the message names
        ``T``, ``runs``, the estimate and the limit).

    Examples
    --------
    >>> res = simulate("DP-IMED", "mu2", T=10_000, runs=4, seed=1, params={"eps": 0.25})
    >>> res.pulls.sum(axis=1).tolist()
    [10000, 10000, 10000, 10000]
    >>> simulate("DP-KLUCB", [0.9, 0.8], 10_000, seed=1, eps=0.5, alpha=2).params["alpha"]
    2
    """
    progress = as_flag("progress", progress)
    params = merge_params("simulate", policy, params, policy_params)
    root = as_seed_sequence("seed", seed)
    if run_ids is None:
        runs = 1 if runs is None else as_int("runs", runs, minimum=1, maximum=MAX_RUNS)
        run_ids = np.arange(runs)
    else:
        run_ids = np.asarray(run_ids)
        if run_ids.ndim != 1 or run_ids.size == 0 or not np.issubdtype(run_ids.dtype, np.integer):
            raise ValueError("run_ids must be a non-empty 1-d sequence of non-negative integers")
        if run_ids.min() < 0:
            raise ValueError("run_ids must be non-negative")
        values, counts = np.unique(run_ids, return_counts=True)
        if (counts > 1).any():  # run i is run i: a repeated id would be the same run twice
            raise ValueError(f"run_ids must be distinct, got {int(values[counts > 1][0])} more than once")
        if run_ids.size > MAX_RUNS:
            raise ValueError(f"run_ids: at most {MAX_RUNS} runs per call, got {run_ids.size}")
        if runs is not None and as_int("runs", runs, minimum=1) != run_ids.size:
            raise ValueError(f"runs={runs} does not match len(run_ids)={run_ids.size}")
    # the estimate before the seeds of a million runs (seconds) are built
    pol, bandit, T, path, engine = _door(policy, params, env, T, fast, engine, run_ids.size, max_seconds)
    seeds = SeedChildren(root, run_ids)  # the children, built only if the engine needs them
    return _simulate(pol, bandit, T, seeds, _resolve_checkpoints(T, checkpoints), path, engine, root=root,
                     run_ids=run_ids, progress=progress)


def warm_kernels(policy: str | None = None) -> None:
    """Load (or, on a cold cache, compile) the numba kernels of the fast paths, so that the next
    timed call does not pay for them.

    One tiny run (50 rounds on ``mu1``, seed 0) of every registered policy whose class names the
    parameters of one (``kernel_params`` of :class:`~dpb.policies.base.Policy`), or only of the
    registered policy named ``policy``.  A policy without kernels, or a name not registered (yet)
    in this process, warms nothing.  ``dpb compile`` warms them all; a worker of the experiments
    warms a cell's before timing its chunk.  Compiling takes 15-40 CPU-seconds a policy on a cold
    cache; loading the cached machine code, a fraction of a second.

    Parameters
    ----------
    policy : str or None
        A policy's registered name, or None (default) for every registered policy.

    Raises
    ------
    TypeError
        If ``policy`` is neither None nor a string.
    """
    if policy is not None and not isinstance(policy, str):
        raise TypeError(f"policy must be None or a policy name (a string), got {type(policy).__name__}")
    for name, cls in registered().items():
        if cls.kernel_params is not None and (policy is None or name == policy):
            simulate(name, "mu1", 50, runs=1, seed=0, params=cls.kernel_params)
