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
* ``engine`` chooses how a fast path runs: ``"numba"`` (compiled kernels where it has some, the
  default) or ``"python"`` (IMED's and KL-UCB's kernels uncompiled, DP-IMED's numpy lock-step:
  the same numbers, slower).  The environment variable ``DPB_JIT=0`` only changes the default to
  ``"python"``.  ``Result.engine`` records the engine that ran.

How long a call may take
------------------------
Before any work, :func:`simulate` estimates the call's cost with :func:`estimate_cost` and refuses
(``ValueError`` naming ``T`` and ``runs``) a call estimated above ``max_seconds`` CPU-seconds
(default :data:`MAX_SECONDS`, two minutes); ``max_seconds=None`` lifts the limit.  The estimate
is a deliberately pessimistic cost model, a small table of measured CPU-seconds per decision:

* a per-step policy (IMED, KL-UCB, Lazy-DP-TS) decides in every round, so a call costs about
  ``T x (c_step + runs x c_run)``, with its fast path's constants measured at T = 10^6, where the
  fast paths are slowest per round (their cost per round falls as T grows);
* a batched private policy decides once per phase: at most K times the number of batches of its
  schedule up to T per run (:func:`dpb.batching.phases_to_reach`), logarithmic in T, or
  K (log2 T + 2) for the doubling baselines (DP-SE, AdaP-KLUCB, AdaP-UCB: their ``max_phases``),
  priced per phase with the generic engine's constants, or with those of the batched fast path;
* a policy of your own is assumed to decide in every round, unless it keeps the phase logic
  (``decide`` and ``update``) of a policy of the package or defines a method
  ``max_phases(K, T)`` returning an upper bound of its phases per run.

Randomness
----------
Run ``i`` of ``simulate(..., seed=s)`` owns the child ``SeedSequence(s).spawn(n)[i]`` (for any
n > i), and two generators derived from it: one for the environment's rewards and one for the
policy's own randomness (Laplace noise, tie-breaks, Thompson samples).  Nothing a run draws depends
on the other runs, so ``simulate(..., runs=20, seed=s)`` equals the 20 single-run calls
``simulate(..., seed=s, run_ids=[i])`` stacked with :meth:`Result.concat`.
"""

from __future__ import annotations

import functools
import inspect
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import numpy as np

from ._io import save_npz_atomic
from ._params import merge_params
from ._validate import MAX_HORIZON, MAX_RUNS, as_flag, as_int, as_seed_sequence, check_seconds
from ._validate import MAX_SECONDS as _MAX_SECONDS
from .environments import as_bandit
from .plans import check_plan
from .policies import Policy
from .policies._tapes import ENGINES, check_engine
from .policies.registry import as_policy

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
]


# ----------------------------------------------------------------------------------------------
# seeds and grids
# ----------------------------------------------------------------------------------------------
def child_seeds(seed, run_ids) -> list[np.random.SeedSequence]:
    """The children ``SeedSequence(seed).spawn(n)[i]`` for ``i`` in ``run_ids``, without spawning.

    A fresh ``SeedSequence(seed).spawn(n)`` returns children with spawn keys ``(0,), ..., (n-1,)``;
    building child ``i`` directly lets any subset of runs be simulated anywhere.
    """
    root = as_seed_sequence("seed", seed)
    if isinstance(run_ids, (str, bytes)) or not hasattr(run_ids, "__iter__"):
        raise TypeError(f"run_ids must be a sequence of non-negative integers, got {type(run_ids).__name__}")
    run_ids = [as_int("run_ids", i, minimum=0) for i in run_ids]
    return [
        np.random.SeedSequence(
            root.entropy, spawn_key=tuple(root.spawn_key) + (int(i),), pool_size=root.pool_size
        )
        for i in run_ids
    ]


def run_generators(child: np.random.SeedSequence) -> tuple[np.random.Generator, np.random.Generator]:
    """The (environment, policy) generators of the run owning ``child``."""
    if not isinstance(child, np.random.SeedSequence):
        raise TypeError(f"child must be a numpy.random.SeedSequence, got {type(child).__name__}")
    env = np.random.SeedSequence(
        child.entropy, spawn_key=tuple(child.spawn_key) + (0,), pool_size=child.pool_size
    )
    pol = np.random.SeedSequence(
        child.entropy, spawn_key=tuple(child.spawn_key) + (1,), pool_size=child.pool_size
    )
    return np.random.default_rng(env), np.random.default_rng(pol)


def checkpoint_grid(
    T: int, n_log: int = 100, n_linear: int = 100
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Checkpoints for regret curves: (all, log-spaced, linear), sorted unique rounds in [1, T].

    The log grid rounds ``n_log`` log-spaced points of [1, T]; the linear grid is T/n_linear,
    2T/n_linear, ..., T (rounded).  Both contain T; ``all`` is their union.
    """
    T = as_int("T", T, minimum=1, maximum=MAX_HORIZON)
    n_log = as_int("n_log", n_log, minimum=1, maximum=10**6)
    n_linear = as_int("n_linear", n_linear, minimum=1, maximum=10**6)
    log = np.unique(np.rint(np.logspace(0.0, np.log10(T), n_log)).astype(np.int64).clip(1, T))
    lin = np.unique(np.rint(np.linspace(T / n_linear, T, n_linear)).astype(np.int64).clip(1, T))
    log = np.union1d(log, [T])
    lin = np.union1d(lin, [T])
    return np.union1d(log, lin), log, lin


# ----------------------------------------------------------------------------------------------
# result
# ----------------------------------------------------------------------------------------------
@dataclass(eq=False)
class Result:
    """Outcome of :func:`simulate`: regret curves and pull counts of ``runs`` runs.

    Attributes
    ----------
    policy : str
        The policy's name (e.g. ``"DP-IMED"``).
    params : dict
        The policy's parameters.
    means : ndarray (K,)
        The environment's arm means; ``env_name`` its instance name (or None).
    T : int
        Horizon.
    seed : int
        Entropy of the root ``SeedSequence``; ``spawn_key`` its spawn key (usually ``()``).
    run_ids : ndarray (runs,)
        Which children of the root seed the runs are.
    checkpoints : ndarray (C,)
        Rounds at which the regret is reported (union of the log and linear grids); the masks
        ``log_grid``/``linear_grid`` select each grid.
    regret : ndarray (runs, C)
        Pseudo-regret sum_a Delta_a N_a(t) at each checkpoint.
    pulls : ndarray (runs, K)
        Final pull counts N_a(T) (each row sums to T).
    n_phases : ndarray (runs,)
        Number of phases (decisions) of each run; T for the per-step policies.
    laplace_draws : ndarray (runs,)
        Number of Laplace draws (private releases) of each run.
    engine : str
        ``"phases"`` (the generic engine), or the policy's own exact fast path run by the
        ``"numba"`` or the ``"python"`` engine (see :func:`simulate`), or ``"fast"`` for a fast
        path with one engine only (it takes no ``engine``: Lazy-DP-TS, a reader's policy).
    elapsed : float
        Wall-clock seconds (not compared by :meth:`same_as`).
    """

    policy: str
    params: dict
    means: np.ndarray
    env_name: str | None
    T: int
    seed: int
    spawn_key: tuple
    run_ids: np.ndarray
    checkpoints: np.ndarray
    log_grid: np.ndarray
    linear_grid: np.ndarray
    regret: np.ndarray
    pulls: np.ndarray
    n_phases: np.ndarray
    laplace_draws: np.ndarray
    engine: str
    elapsed: float = float("nan")
    extra: dict = field(default_factory=dict)

    _ARRAYS = (
        "means",
        "run_ids",
        "checkpoints",
        "log_grid",
        "linear_grid",
        "regret",
        "pulls",
        "n_phases",
        "laplace_draws",
    )

    @property
    def runs(self) -> int:
        return int(self.regret.shape[0])

    @property
    def K(self) -> int:  # noqa: N802 - the paper's notation
        return int(self.means.size)

    # The summaries of the arrays are properties, like the arrays themselves: ``res.final_regret``
    # (one value a run), ``res.mean_regret`` and ``res.std_regret`` (one value a checkpoint).
    @property
    def final_regret(self) -> np.ndarray:
        """Regret at T of every run (the last checkpoint is always T)."""
        return self.regret[:, -1]

    @property
    def mean_regret(self) -> np.ndarray:
        """Mean regret over runs at each checkpoint (``mean_regret[-1]``: the mean regret at T)."""
        return self.regret.mean(axis=0)

    @property
    def std_regret(self) -> np.ndarray:
        """Standard deviation over runs (ddof=1 when there are several runs) at each checkpoint."""
        return self.regret.std(axis=0, ddof=1 if self.runs > 1 else 0)

    def to_rows(self, grid: str = "all", **labels) -> dict:
        """The regret curves in long format, as columns of equal length: one row per run and
        checkpoint, with the columns of :data:`dpb.frames.COLUMNS` (``labels`` fill
        ``experiment``, ``instance`` and ``setting``; see :func:`dpb.frames.result_rows`)."""
        from .frames import result_rows

        return result_rows(self, grid=grid, **labels)

    def to_frame(self, grid: str = "all", **labels):
        """The regret curves as a long pandas DataFrame (one row per run and checkpoint: columns
        experiment, instance, K, means, eps, policy, params, seed, run, t, regret); needs the
        ``pandas`` extra (``pip install 'dpb[pandas]'``).  ``grid``: ``"all"`` checkpoints, or the
        ``"log"`` or ``"linear"`` grid only."""
        from .frames import to_frame

        return to_frame(self.to_rows(grid=grid, **labels))

    def on_grid(self, grid: str = "log") -> tuple[np.ndarray, np.ndarray]:
        """``(checkpoints, regret)`` restricted to the ``"log"`` or ``"linear"`` grid."""
        if grid not in ("log", "linear"):
            raise ValueError(f"grid must be 'log' or 'linear', got {grid!r}")
        mask = self.log_grid if grid == "log" else self.linear_grid
        return self.checkpoints[mask], self.regret[:, mask]

    def same_as(self, other: Result) -> bool:
        """True when every array and parameter is identical (the timing is ignored)."""
        meta = ("policy", "params", "env_name", "T", "seed", "spawn_key", "engine")
        return all(getattr(self, k) == getattr(other, k) for k in meta) and all(
            np.array_equal(getattr(self, k), getattr(other, k)) for k in self._ARRAYS
        )

    @classmethod
    def concat(cls, results: Sequence[Result]) -> Result:
        """Stack the runs of compatible results (same policy, environment, T, seed, grid)."""
        if isinstance(results, (str, bytes, Result)) or not hasattr(results, "__iter__"):
            raise TypeError(f"results must be a sequence of Result, got {type(results).__name__}")
        results = list(results)
        if not results:
            raise ValueError("results must contain at least one Result")
        for r in results:
            if not isinstance(r, Result):
                raise TypeError(f"results must be a sequence of Result, got an item of type "
                                f"{type(r).__name__}")
        first = results[0]
        for r in results[1:]:
            same = (
                r.policy == first.policy
                and r.params == first.params
                and r.T == first.T
                and r.seed == first.seed
                and r.spawn_key == first.spawn_key
                and r.engine == first.engine
                and np.array_equal(r.means, first.means)
                and np.array_equal(r.checkpoints, first.checkpoints)
            )
            if not same:
                raise ValueError(
                    "results to concatenate must share policy, params, means, T, seed, engine and checkpoints"
                )
        stack = {k: np.concatenate([getattr(r, k) for r in results]) for k in ("run_ids", "regret", "pulls")}
        if np.unique(stack["run_ids"]).size != stack["run_ids"].size:
            raise ValueError("results to concatenate must hold distinct runs (a run id appears twice)")
        stack.update(
            {k: np.concatenate([getattr(r, k) for r in results]) for k in ("n_phases", "laplace_draws")}
        )
        return cls(
            policy=first.policy,
            params=first.params,
            means=first.means,
            env_name=first.env_name,
            T=first.T,
            seed=first.seed,
            spawn_key=first.spawn_key,
            checkpoints=first.checkpoints,
            log_grid=first.log_grid,
            linear_grid=first.linear_grid,
            engine=first.engine,
            elapsed=float(sum(r.elapsed for r in results)),
            extra=dict(first.extra),
            **stack,
        )

    # -- persistence ---------------------------------------------------------------------------
    def save(self, path) -> Path:
        """Write the result to ``path`` (``.npz``) atomically; returns the path written."""
        path = Path(path)
        if path.suffix != ".npz":
            path = path.with_suffix(".npz")
        meta = {
            "policy": self.policy,
            "params": self.params,
            "env_name": self.env_name,
            "T": self.T,
            "seed": str(self.seed),
            "spawn_key": list(self.spawn_key),
            "engine": self.engine,
            "elapsed": self.elapsed,
            "extra": self.extra,
        }
        return save_npz_atomic(path, meta, {k: getattr(self, k) for k in self._ARRAYS})

    @classmethod
    def load(cls, path) -> Result:
        """Read a result written by :meth:`save`."""
        with np.load(Path(path), allow_pickle=False) as data:
            return cls._from_stored(json.loads(str(data["meta"])), data)

    @classmethod
    def _from_stored(cls, meta: dict, arrays) -> Result:
        """The result whose file held ``meta`` and ``arrays`` (see :meth:`save`; ``arrays``: any
        mapping holding at least the result's arrays, e.g. the open archive)."""
        arrays = {k: arrays[k] for k in cls._ARRAYS}
        return cls(
            policy=meta["policy"],
            params=meta["params"],
            env_name=meta["env_name"],
            T=int(meta["T"]),
            seed=int(meta["seed"]),
            spawn_key=tuple(meta["spawn_key"]),
            engine=meta["engine"],
            elapsed=float(meta["elapsed"]),
            extra=meta.get("extra", {}),
            **arrays,
        )


# ----------------------------------------------------------------------------------------------
# recording regret at checkpoints
# ----------------------------------------------------------------------------------------------
class _Recorder:
    """Pull counts, phase counts and exact regret at checkpoints for ``R`` runs: the
    :class:`~dpb.policies.base.Recorder` that a policy's ``fast_simulate`` writes into.

    A phase starting at round ``t0`` with ``counts`` (pulls per arm, executed round-robin in arm
    order) covers rounds t0 .. t0 + sum(counts) - 1.  After its k-th pull the regret is
    reg0 + floor(k/m) * G_m + G_{k mod m}, with m the number of arms in the phase and G_j the sum
    of the gaps of its first j arms; for a single arm this is reg0 + k Delta_a.
    """

    def __init__(self, R: int, gaps: np.ndarray, checkpoints: np.ndarray) -> None:
        self.gaps = np.asarray(gaps, dtype=float)
        self.K = self.gaps.size
        self.ck = np.asarray(checkpoints, dtype=np.int64)
        self.regret = np.full((R, self.ck.size), np.nan)
        self.pulls = np.zeros((R, self.K), dtype=np.int64)
        self.reg = np.zeros(R)
        self.next = np.zeros(R, dtype=np.int64)
        self.phases = np.zeros(R, dtype=np.int64)
        self.laplace = np.zeros(R, dtype=np.int64)

    def record(self, rows, t0, counts, decisions=None) -> None:
        rows = np.asarray(rows, dtype=np.int64)
        counts = np.asarray(counts, dtype=np.int64)
        t0 = np.asarray(t0, dtype=np.int64)
        total = counts.sum(axis=1)
        hi = np.searchsorted(self.ck, t0 + total - 1, side="right")
        lo = self.next[rows]
        hit = np.flatnonzero(hi > lo)
        if hit.size:
            n_arms = np.count_nonzero(counts[hit], axis=1)
            single = hit[n_arms == 1]
            if single.size:  # one arm: regret grows by Delta_a per pull, all hits at once
                width = hi[single] - lo[single]
                pos = np.repeat(lo[single] - np.cumsum(width) + width, width) + np.arange(int(width.sum()))
                r_rep = np.repeat(rows[single], width)
                gap = np.repeat(counts[single] @ self.gaps / total[single], width)
                ks = self.ck[pos] - np.repeat(t0[single], width) + 1
                self.regret[r_rep, pos] = self.reg[r_rep] + ks * gap
            for i in hit[n_arms > 1]:  # round-robin phases (DP-SE epochs)
                r = rows[i]
                ks = self.ck[lo[i] : hi[i]] - t0[i] + 1
                arms = np.flatnonzero(counts[i])
                g = np.concatenate(([0.0], np.cumsum(self.gaps[arms])))
                m = arms.size
                self.regret[r, lo[i] : hi[i]] = self.reg[r] + (ks // m) * g[m] + g[ks % m]
        self.next[rows] = hi
        self.reg[rows] += counts @ self.gaps
        self.pulls[rows] += counts
        self.phases[rows] += 1 if decisions is None else decisions

    def record_runs(self, run: int, t0: int, arms: np.ndarray, lengths: np.ndarray) -> None:
        """Consecutive stretches of run ``run`` from round ``t0``: ``lengths[i]`` pulls of ``arms[i]``.

        The regret grows by Delta_a per pull inside a stretch, so a checkpoint at pull k (counted
        from t0) falling in stretch i gets the regret at the end of stretch i - 1 plus
        (k - pulls before stretch i) Delta_{arms[i]}; the cost is one pass over the stretches.
        """
        arms = np.asarray(arms, dtype=np.int64)
        lengths = np.asarray(lengths, dtype=np.int64)
        ends = np.cumsum(lengths)
        reg_end = self.reg[run] + np.cumsum(lengths * self.gaps[arms])
        hi = int(np.searchsorted(self.ck, t0 + ends[-1] - 1, side="right"))
        lo = int(self.next[run])
        if hi > lo:
            k = self.ck[lo:hi] - t0 + 1
            seg = np.searchsorted(ends, k, side="left")
            before = np.where(seg > 0, ends[seg - 1], 0)
            reg_before = np.where(seg > 0, reg_end[seg - 1], self.reg[run])
            self.regret[run, lo:hi] = reg_before + (k - before) * self.gaps[arms[seg]]
        self.next[run] = hi
        self.reg[run] = reg_end[-1]
        self.pulls[run] += np.bincount(arms, weights=lengths, minlength=self.K).astype(np.int64)
        self.phases[run] += int(ends[-1])

    def record_phases(self, rows: np.ndarray, arms: np.ndarray, counts: np.ndarray) -> None:
        """Single-arm phases of many runs: phase i pulls ``arms[i]`` ``counts[i]`` times in run
        ``rows[i]``, each run's phases in time order from its next round (one decision each).

        The same arithmetic as :meth:`record` called phase by phase (the regret after k pulls of
        arm a in a phase is reg0 + k (c Delta_a) / c, reg0 accumulated phase by phase), so both
        give the same numbers; the work is one pass per run instead of one call per phase.
        """
        rows = np.asarray(rows, dtype=np.int64)
        order = np.argsort(rows, kind="stable")
        rows, arms = rows[order], np.asarray(arms, dtype=np.int64)[order]
        counts = np.asarray(counts, dtype=np.int64)[order]
        runs, first, length = np.unique(rows, return_index=True, return_counts=True)
        added = counts * self.gaps[arms]  # = counts[i] @ gaps of the one-hot phase
        # each run's regret before each of its phases: a sequential sum, as phase by phase
        width = int(length.max())
        pad = np.zeros((runs.size, width + 1))
        pad[:, 0] = self.reg[runs]
        col = np.arange(rows.size) - np.repeat(first, length)
        pad[np.repeat(np.arange(runs.size), length), col + 1] = added
        reg = np.cumsum(pad, axis=1)
        start = self.pulls[runs].sum(axis=1) + 1
        for u, r in enumerate(runs.tolist()):
            sl = slice(first[u], first[u] + length[u])
            c = counts[sl]
            ends = np.cumsum(c) + (start[u] - 1)  # last round of each phase
            hi = int(np.searchsorted(self.ck, ends[-1], side="right"))
            lo = int(self.next[r])
            if hi > lo:
                q = self.ck[lo:hi]
                j = np.searchsorted(ends, q, side="left")
                t0 = ends[j] - c[j] + 1
                self.regret[r, lo:hi] = reg[u, j] + (q - t0 + 1) * (added[sl][j] / c[j])
            self.next[r] = hi
            self.reg[r] = reg[u, length[u]]
            np.add.at(self.pulls[r], arms[sl], c)
        self.phases[runs] += length

    def record_steps(self, run: int, t0: int, arms: np.ndarray) -> None:
        """A window of single pulls ``arms`` (one per round) of run ``run`` starting at ``t0``."""
        cg = np.cumsum(self.gaps[arms])
        hi = int(np.searchsorted(self.ck, t0 + arms.size - 1, side="right"))
        lo = int(self.next[run])
        if hi > lo:
            self.regret[run, lo:hi] = self.reg[run] + cg[self.ck[lo:hi] - t0]
        self.next[run] = hi
        self.reg[run] += cg[-1]
        self.pulls[run] += np.bincount(arms, minlength=self.K)
        self.phases[run] += arms.size


# ----------------------------------------------------------------------------------------------
# the generic phase engine
# ----------------------------------------------------------------------------------------------
def _truncate(plan: np.ndarray, remaining: np.ndarray) -> np.ndarray:
    """Cut each planned phase at the horizon: round-robin over its arms until ``remaining`` pulls."""
    total = plan.sum(axis=1)
    over = np.flatnonzero(total > remaining)
    if over.size == 0:
        return plan
    counts = plan.copy()
    for i in over:
        mask = plan[i] > 0
        q, r = divmod(int(remaining[i]), int(mask.sum()))
        pos = np.cumsum(mask) - 1
        counts[i] = np.where(mask, q + (pos < r), 0)
    return counts


def _draw_sums(gen: np.random.Generator, counts: np.ndarray, means: np.ndarray) -> np.ndarray:
    """Reward sums of one phase: one Binomial(count, mu_a) draw per arm played."""
    out = np.zeros(counts.size)
    arms = np.flatnonzero(counts)
    if arms.size == 1:
        a = arms[0]
        out[a] = gen.binomial(counts[a], means[a])
    else:
        out[arms] = gen.binomial(counts[arms], means[arms])
    return out


def _run_phases(policy: Policy, means, T, env_gens, pol_gens, rec: _Recorder, hook=None) -> None:
    """Advance all runs phase by phase in lock-step (the generic, exact engine)."""
    R = len(env_gens)
    policy.start(means.size, T, pol_gens)
    t = np.ones(R, dtype=np.int64)
    active = np.arange(R)
    while active.size:
        tt = t[active]
        plan = check_plan(policy, policy.decide(active, tt), active.size, means.size, T)
        counts = _truncate(plan, T - tt + 1)
        sums = np.zeros(counts.shape)
        n_arms = np.count_nonzero(counts, axis=1)
        arm = np.argmax(counts, axis=1)
        for i, r in enumerate(active.tolist()):
            if n_arms[i] == 1:  # the common case: one Binomial(B, mu_a) draw
                a = arm[i]
                sums[i, a] = env_gens[r].binomial(counts[i, a], means[a])
            else:
                sums[i] = _draw_sums(env_gens[r], counts[i], means)
        rec.record(active, tt, counts)
        if hook is not None:
            hook.before_update(active, tt, counts, sums)
        policy.update(active, counts, sums)
        if hook is not None:
            hook.after_update(active, tt, counts, sums)
        t[active] += counts.sum(axis=1)
        active = active[t[active] <= T]
    rec.laplace[:] = policy.laplace_draws


# ----------------------------------------------------------------------------------------------
# public entry points
# ----------------------------------------------------------------------------------------------
PolicySpec = Policy | str | Callable[[], Policy] | tuple


# ----------------------------------------------------------------------------------------------
# the cost of a call, estimated before any work
# ----------------------------------------------------------------------------------------------
#: Default limit of one call's estimated cost, in CPU-seconds (``max_seconds`` of :func:`simulate`;
#: the same default bounds :mod:`dpb.reference`, :mod:`dpb.interaction` and :mod:`dpb.coupling`).
MAX_SECONDS = _MAX_SECONDS

#: CPU-seconds per decision of the fast paths, as ``(per round, per round and run)``: a call of
#: ``runs`` runs to horizon T is estimated at ``T * (c_step + runs * c_run)``.  Measured on the
#: paper's cells at T = 10^6 (20 runs: IMED's and KL-UCB's compiled kernels 0.006 s and 0.010 s a
#: run, Lazy-DP-TS 0.11 s on mu1, the slowest instance) and rounded up generously; beyond 10^6
#: rounds the fast paths cost less per round, so the linear extrapolation overestimates.  The
#: one-time compilation of a kernel (seconds, once per machine) is not included.  Adjust when a
#: fast path changes (``benchmarks/``).
_FAST_COST = {"IMED": (6e-8, 1.2e-8), "KL-UCB": (2.5e-7, 2.5e-8), "Lazy-DP-TS": (5e-7, 3e-7)}
#: ... of IMED's and KL-UCB's kernels uncompiled (``engine="python"``: about 100 times slower).
_FAST_COST_PYTHON = {"IMED": (1e-5, 5e-6), "KL-UCB": (3e-5, 1e-5)}
#: ... for a fast path of a policy not in the table.
_FAST_COST_OTHER = (5e-6, 1e-6)
#: ... for a fast path advancing all runs phase by phase (DP-KLUCB, DP-IMED), per lock-step phase
#: and per phase of one run (the phases per run bounded as for the generic engine).
_FAST_PHASE_COST = (2e-4, 5e-6)
#: CPU-seconds of the generic engine per lock-step phase and per phase of one run: a batched
#: policy (phase sums, few phases), and a policy deciding every round (one index per round).
_PHASE_COST = (5e-4, 1e-5)
_STEP_COST = (5e-4, 3e-5)
#: CPU-seconds per round of one run of the literal reference (:mod:`dpb.reference`), by policy.
_REFERENCE_COST = {"KL-UCB": 2e-4}
_REFERENCE_COST_OTHER = 3e-5
#: Policies deciding in every round (T phases per run).
_PER_STEP = ("IMED", "KL-UCB", "Lazy-DP-TS")


class Cost(NamedTuple):
    """Estimate of a call's work (:func:`estimate_cost`)."""

    seconds: float
    """Estimated CPU-seconds (pessimistic)."""
    phases: int
    """Upper bound of the phases (decisions) of one run."""
    engine: str
    """``"fast"``, ``"phases"`` or ``"reference"``."""


def _max_phases(pol: Policy, K: int, T: int) -> int:
    """An upper bound of the phases of one run of ``pol`` (see the module's cost model)."""
    from .batching import BatchSchedule, phases_to_reach

    own = getattr(pol, "max_phases", None)
    schedule = getattr(pol, "schedule", None)
    # the package's own phase logic (a subclass may change the index, not how phases are cut)
    builtin = all(getattr(type(pol), m).__module__.startswith("dpb.policies.") for m in ("decide", "update"))
    if callable(own):
        bound = as_int(f"{type(pol).__name__}.max_phases(K, T)", own(K, T), minimum=1)
    elif not builtin:
        bound = T
    elif isinstance(schedule, BatchSchedule) and pol.name not in _PER_STEP:
        # the schedules' tables stop below 2**62; with nondecreasing batches, twice the batches
        # reaching n reach 2n
        bound = K * int(phases_to_reach(T, schedule) if T <= 2**61 else 2 * phases_to_reach(2**61, schedule))
    else:
        bound = T
    return min(bound, T)


def _call_cost(pol: Policy, K: int, T: int, runs: int, engine: str, compiled: bool | None = None) -> Cost:
    """The :class:`Cost` of ``runs`` runs on ``engine`` ("fast", "phases" or "reference"), a fast
    path compiled or not (None: the default engine)."""
    if engine == "reference":
        per_round = _REFERENCE_COST.get(pol.name, _REFERENCE_COST_OTHER)
        return Cost(float(T) * runs * per_round, T, engine)
    phases = _max_phases(pol, K, T)
    if engine == "fast" and (pol.name in _FAST_COST or phases == T):
        compiled = check_engine(None) == "numba" if compiled is None else compiled
        table = _FAST_COST if compiled else {**_FAST_COST, **_FAST_COST_PYTHON}
        step, run = table.get(pol.name, _FAST_COST_OTHER)
        return Cost(float(T) * (step + runs * run), T, engine)
    if engine == "fast":  # a fast path advancing phase by phase (the batched private policies)
        step, run = _FAST_PHASE_COST
        return Cost(float(phases) * (step + runs * run), phases, engine)
    step, run = _STEP_COST if phases == T else _PHASE_COST
    return Cost(float(phases) * (step + runs * run), phases, engine)


def estimate_cost(policy: PolicySpec, env, T: int, runs: int = 1, *, params: dict | None = None,
                  fast: bool = True, engine: str | None = None, **policy_params) -> Cost:
    """Estimate the CPU-seconds of ``simulate(policy, env, T, runs)`` without running it.

    The cost model (module docstring, *How long a call may take*) multiplies an upper bound of
    the decisions of a run -- T for a per-step policy, K times the batches of the schedule up to
    T for a batched one -- by CPU-seconds per decision measured on this project's machine and
    rounded up.  It is meant to refuse hours, not to predict seconds: it overestimates large
    horizons several times over.

    Parameters
    ----------
    policy, env, T, params, fast
        As in :func:`simulate`.
    runs : int
        Number of runs, 1 to 10^6.
    engine : {None, "numba", "python", "reference"}
        None: the engine :func:`simulate` would use by default; ``"numba"``, ``"python"``: as
        :func:`simulate` with that ``engine``; ``"reference"``: the literal per-step simulator
        :func:`dpb.reference.reference_simulate`.

    Returns
    -------
    Cost
        ``(seconds, phases, engine)``.

    Examples
    --------
    >>> estimate_cost("IMED", "mu1", 10**12).seconds > 1e5   # hours: simulate refuses it
    True
    >>> estimate_cost("DP-IMED", "mu1", 10**12, params={"eps": 0.25}).seconds < 1
    True
    """
    fast = as_flag("fast", fast)
    pol = as_policy(policy, merge_params("estimate_cost", policy, params, policy_params))
    bandit = as_bandit(env)
    T = as_int("T", T, minimum=1, maximum=MAX_HORIZON)
    runs = as_int("runs", runs, minimum=1, maximum=MAX_RUNS)
    if engine == "reference":
        return _call_cost(pol, bandit.K, T, runs, engine)
    if engine not in (None, *ENGINES):
        raise ValueError(f"engine must be None, 'numba', 'python' or 'reference', got {engine!r}")
    kind = "fast" if fast and getattr(pol, "fast_simulate", None) is not None else "phases"
    return _call_cost(pol, bandit.K, T, runs, kind, check_engine(engine) == "numba")


_ADVICE = "use a smaller T or fewer runs, or pass max_seconds=None (or a larger limit) to run it anyway"


def _check_cost(cost: Cost, max_seconds, what: str, T: int, runs: int, advice: str = _ADVICE) -> None:
    """Refuse ``cost`` above ``max_seconds`` (None: no limit) with a ``ValueError`` naming ``T``,
    ``runs``, the estimate, the limit and how to lift it (``advice``)."""
    check_seconds(f"{what} for T={T} and runs={runs}", cost.seconds, max_seconds,
                  f"({cost.phases} decisions per run, {cost.engine} engine)", advice)




def _resolve_checkpoints(T: int, checkpoints) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    if checkpoints is None:
        all_, log, lin = checkpoint_grid(T)
    elif isinstance(checkpoints, (int, np.integer)) and not isinstance(checkpoints, bool):
        all_, log, lin = checkpoint_grid(T, int(checkpoints), int(checkpoints))
    else:
        arr = np.asarray(checkpoints)
        if arr.ndim != 1 or arr.size == 0 or not np.issubdtype(arr.dtype, np.integer):
            raise ValueError("checkpoints must be None, an int (points per grid) or a 1-d array of rounds")
        if arr.min() < 1 or arr.max() > T:
            raise ValueError(f"checkpoints must lie in [1, T={T}], got range [{arr.min()}, {arr.max()}]")
        all_ = np.union1d(arr, [T]).astype(np.int64)
        log = lin = all_
    return all_, np.isin(all_, log), np.isin(all_, lin)


class _ProgressHook:
    """A hook of :func:`_run_phases` advancing a progress bar by the rounds each phase simulated."""

    def __init__(self, bar) -> None:
        self.bar = bar

    def before_update(self, rows, t0, counts, sums) -> None:
        pass

    def after_update(self, rows, t0, counts, sums) -> None:
        self.bar.update(int(counts.sum()))


def _takes_engine(pol: Policy) -> bool:
    """Whether ``pol.fast_simulate`` takes an ``engine`` (the package's fast paths with a
    compiled and a Python version do)."""
    try:
        return "engine" in inspect.signature(pol.fast_simulate).parameters
    except (TypeError, ValueError):  # (a callable without a signature)
        return False


def _fast_path(pol: Policy, engine: str):
    """``pol.fast_simulate``, given ``engine`` when it takes one."""
    return functools.partial(pol.fast_simulate, engine=engine) if _takes_engine(pol) else pol.fast_simulate


def _simulate_with_progress(pol: Policy, means, T: int, seeds, gaps, ck, use_fast: bool,
                            engine: str) -> _Recorder:
    """Simulate ``seeds`` as :func:`simulate_seeds` does, with a progress bar.

    A fast path runs the seeds in about ten groups (each run owns its generators, so grouping
    changes no number) and counts finished runs; the generic engine counts simulated rounds.
    """
    from tqdm.auto import tqdm

    R = len(seeds)
    rec = _Recorder(R, gaps, ck)
    desc = f"{pol.name}, T={T}"
    if not use_fast:
        env_gens, pol_gens = zip(*(run_generators(s) for s in seeds), strict=True)
        with tqdm(total=R * T, desc=desc, unit="round", unit_scale=True) as bar:
            _run_phases(pol, means, T, list(env_gens), list(pol_gens), rec, hook=_ProgressHook(bar))
        return rec
    size = -(-R // 10)
    with tqdm(total=R, desc=desc, unit="run") as bar:
        for lo in range(0, R, size):
            part = seeds[lo : lo + size]
            sub = _Recorder(len(part), gaps, ck)
            env_gens, pol_gens = zip(*(run_generators(s) for s in part), strict=True)
            _fast_path(pol, engine)(means, T, list(env_gens), list(pol_gens), sub)
            rows = slice(lo, lo + len(part))
            for name in ("regret", "pulls", "reg", "next", "phases", "laplace"):
                getattr(rec, name)[rows] = getattr(sub, name)
            bar.update(len(part))
    return rec


def simulate_seeds(
    policy: PolicySpec,
    env,
    T: int,
    seeds: Sequence[np.random.SeedSequence],
    *,
    params: dict | None = None,
    checkpoints=None,
    fast: bool = True,
    root=None,
    run_ids=None,
    max_seconds: float | None = MAX_SECONDS,
    progress: bool = False,
    engine: str | None = None,
) -> Result:
    """Simulate one run per child ``SeedSequence`` in ``seeds`` (the core of :func:`simulate`;
    ``max_seconds``, ``progress`` and ``engine`` as there)."""
    fast = as_flag("fast", fast)
    progress = as_flag("progress", progress)
    t_start = time.perf_counter()
    pol = as_policy(policy, params)
    bandit = as_bandit(env)
    T = as_int("T", T, minimum=1, maximum=MAX_HORIZON)
    if T < pol.min_horizon(bandit.K):
        raise ValueError(
            f"T must be >= {pol.min_horizon(bandit.K)} for {pol.name} on K={bandit.K} arms "
            f"(its initialisation pulls every arm), got T={T}"
        )
    if isinstance(seeds, (str, bytes)) or not hasattr(seeds, "__iter__"):
        raise TypeError(f"seeds must be a sequence of SeedSequence, got {type(seeds).__name__}")
    seeds = list(seeds)
    if not seeds:
        raise ValueError("at least one seed (run) is required")
    if len(seeds) > MAX_RUNS:
        raise ValueError(f"runs: at most {MAX_RUNS} runs per call, got {len(seeds)}")
    if not all(isinstance(s, np.random.SeedSequence) for s in seeds):
        raise TypeError("seeds must be numpy SeedSequence objects (see child_seeds)")
    engine = check_engine(engine)
    use_fast = bool(fast) and getattr(pol, "fast_simulate", None) is not None
    cost = _call_cost(pol, bandit.K, T, len(seeds), "fast" if use_fast else "phases", engine == "numba")
    _check_cost(cost, max_seconds, f"simulate({pol.name!r})", T, len(seeds))
    ck, log_mask, lin_mask = _resolve_checkpoints(T, checkpoints)
    means = np.asarray(bandit.means, dtype=float)
    if progress:
        rec = _simulate_with_progress(pol, means, T, seeds, bandit.gaps, ck, use_fast, engine)
    else:
        rec = _Recorder(len(seeds), bandit.gaps, ck)
        env_gens, pol_gens = zip(*(run_generators(s) for s in seeds), strict=True)
        if use_fast:
            _fast_path(pol, engine)(means, T, list(env_gens), list(pol_gens), rec)
        else:
            _run_phases(pol, means, T, list(env_gens), list(pol_gens), rec)
    if np.isnan(rec.regret).any() or not np.all(rec.pulls.sum(axis=1) == T):  # pragma: no cover
        raise RuntimeError("internal error: the simulation did not cover the horizon exactly")
    if root is None:
        root_ss = seeds[0]
        entropy, key = root_ss.entropy, tuple(root_ss.spawn_key[:-1])
    else:
        entropy, key = root.entropy, tuple(root.spawn_key)
    ids = np.array([s.spawn_key[-1] if s.spawn_key else 0 for s in seeds] if run_ids is None else run_ids)
    return Result(
        policy=pol.name,
        params=dict(pol.params),
        means=means.copy(),
        env_name=bandit.name,
        T=T,
        seed=int(entropy),
        spawn_key=tuple(int(k) for k in key),
        run_ids=ids.astype(np.int64),
        checkpoints=ck,
        log_grid=log_mask,
        linear_grid=lin_mask,
        regret=rec.regret,
        pulls=rec.pulls,
        n_phases=rec.phases,
        laplace_draws=rec.laplace,
        engine=("phases" if not use_fast else engine if _takes_engine(pol) else "fast"),
        elapsed=time.perf_counter() - t_start,
    )


def simulate(
    policy: PolicySpec,
    env,
    T: int,
    runs: int | None = None,
    seed=None,
    *,
    params: dict | None = None,
    run_ids=None,
    checkpoints=None,
    fast: bool = True,
    engine: str | None = None,
    max_seconds: float | None = MAX_SECONDS,
    progress: bool = False,
    **policy_params,
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
        pessimistic model) exceeds this many CPU-seconds; default :data:`MAX_SECONDS` (120).
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
    fast = as_flag("fast", fast)
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
    pol = as_policy(policy, params)
    bandit = as_bandit(env)
    T = as_int("T", T, minimum=1, maximum=MAX_HORIZON)
    engine = check_engine(engine)
    use_fast = bool(fast) and getattr(pol, "fast_simulate", None) is not None
    cost = _call_cost(pol, bandit.K, T, run_ids.size, "fast" if use_fast else "phases", engine == "numba")
    _check_cost(cost, max_seconds, f"simulate({pol.name!r})", T, run_ids.size)
    seeds = child_seeds(root, run_ids)
    return simulate_seeds(
        pol, bandit, T, seeds, checkpoints=checkpoints, fast=fast, root=root, run_ids=run_ids,
        max_seconds=None, progress=progress, engine=engine,
    )


# ----------------------------------------------------------------------------------------------
# traces for teaching
# ----------------------------------------------------------------------------------------------
@dataclass
class Trace:
    """Phase-by-phase record of one run (see :func:`simulate_trace`).

    ``phases`` is a list of dicts with keys: ``phase`` (0-based), ``t`` (first round), ``arm``
    (the arm played, or -1 for a round-robin phase), ``pulls`` (pulls made), ``counts`` (K,),
    ``reward_sums`` (K,), ``noise`` (K,: the Laplace value added at this phase, NaN where none),
    ``statistic`` (K,: every arm's private/empirical mean after the phase), ``index`` (K,: the
    index of every arm at the decision, NaN during initialisation) and ``regret`` (after it).
    """

    policy: str
    params: dict
    means: np.ndarray
    T: int
    phases: list

    def __len__(self) -> int:
        return len(self.phases)

    def table(self) -> dict:
        """The trace as a dict of numpy arrays (one row per phase)."""
        if not self.phases:
            return {}
        return {k: np.array([p[k] for p in self.phases]) for k in self.phases[0]}

    def to_frame(self):
        """The trace as a pandas DataFrame (requires pandas); K-vectors stay in object columns."""
        import pandas as pd  # optional dependency

        return pd.DataFrame(self.phases)


class _TraceHook:
    def __init__(self, policy: Policy, gaps: np.ndarray) -> None:
        self.policy, self.gaps, self.rows, self.reg = policy, gaps, [], 0.0

    def before_update(self, rows, t0, counts, sums) -> None:
        self._draws = self.policy.laplace_arm[0].copy()

    def after_update(self, rows, t0, counts, sums) -> None:
        p = self.policy
        drawn = p.laplace_arm[0] - self._draws
        arms = np.flatnonzero(counts[0])
        self.reg += float(counts[0] @ self.gaps)
        self.rows.append(
            {
                "phase": len(self.rows),
                "t": int(t0[0]),
                "arm": int(arms[0]) if arms.size == 1 else -1,
                "pulls": int(counts[0].sum()),
                "counts": counts[0].copy(),
                "reward_sums": sums[0].copy(),
                "noise": np.where(drawn > 0, p.last_noise[0], np.nan),
                "statistic": p.statistic()[0].copy(),
                "index": p.index[0].copy(),
                "regret": self.reg,
            }
        )


def simulate_trace(
    policy: PolicySpec, env, T: int, seed=None, *, params: dict | None = None, run_id: int = 0,
    max_seconds: float | None = MAX_SECONDS, **policy_params,
) -> Trace:
    """Run one run of ``policy`` through the generic phase engine and record every phase.

    The run is child ``run_id`` of ``SeedSequence(seed)``, so it is the same trajectory as run
    ``run_id`` of ``simulate(policy, env, T, seed=seed, fast=False)``.  Per-step policies give one
    phase per round: keep T small.  ``max_seconds`` bounds the estimated cost as in
    :func:`simulate` (a trace keeps one record per phase).  Policy parameters go in ``params`` or
    as keywords, as in :func:`simulate`.
    """
    pol = as_policy(policy, merge_params("simulate_trace", policy, params, policy_params))
    bandit = as_bandit(env)
    T = as_int("T", T, minimum=1, maximum=MAX_HORIZON)
    _check_cost(_call_cost(pol, bandit.K, T, 1, "phases"), max_seconds, f"simulate_trace({pol.name!r})", T, 1)
    (child,) = child_seeds(seed, [as_int("run_id", run_id, minimum=0)])
    genv, gpol = run_generators(child)
    rec = _Recorder(1, bandit.gaps, np.array([T]))
    hook = _TraceHook(pol, bandit.gaps)
    _run_phases(pol, np.asarray(bandit.means, dtype=float), T, [genv], [gpol], rec, hook=hook)
    return Trace(policy=pol.name, params=dict(pol.params), means=bandit.means.copy(), T=T, phases=hook.rows)


# ``dpb.simulate(...)`` calls :func:`simulate` (the module stays importable as a module)
from ._callable import make_callable  # noqa: E402

make_callable(__name__, "simulate")
