"""The common interface of every bandit policy: decisions in phases, vectorised over runs.

Every algorithm of the project decides in *phases* (see :doc:`/book/algorithms_as_run`): at a
decision point it picks an arm and a number of pulls, and afterwards it only sees the *sum* of
the rewards of that phase (plus its own Laplace noise if it is private).  A per-step algorithm is
the special case of phases of length one.

A :class:`Policy` object holds the state of ``R`` independent runs at once (arrays of shape
``(R, K)``), so that the simulator can advance many runs in lock-step with numpy; ``R = 1`` is the
ordinary single-run policy.  Each run owns its own :class:`numpy.random.Generator` (a child of one
``SeedSequence``), and a run's draws never depend on the other runs, so results do not depend on
how runs are grouped.

The protocol, driven by :mod:`dpb.simulate`::

    policy.start(K, T, generators)          # one Generator per run
    while some run has t <= T:
        plan = policy.decide(rows, t[rows])  # (n, K) pulls per arm for the next phase
        ... the environment draws the reward sums of the (truncated) phase ...
        policy.update(rows, counts, sums)    # (n, K) pulls made and reward sums

A plan with several non-zero entries (DP-SE's epochs) is executed round-robin over those arms in
increasing arm order; all other policies plan one arm at a time.  The horizon cuts the last phase.

Ties are broken uniformly at random with the run's own generator (:doc:`/book/algorithms_as_run`,
conventions):
at small epsilon many private indexes saturate at 1 and the paper's environments list the best arm
first, so ``np.argmax`` would quietly favour it.
"""

from __future__ import annotations

import inspect
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import ClassVar, Protocol, runtime_checkable

import numpy as np

from .._validate import as_int, check_elements, check_eps, check_real
from .._detmath_arrays import log_array
from ..engine import FastPath, run_streams

__all__ = [
    "Policy",
    "PerStepPolicy",
    "Recorder",
    "RunRandom",
    "check_horizon",
    "pick_max",
    "pick_min",
    "check_eps",
    "check_real",
]


def _standard_laplace(gen: np.random.Generator, size: int) -> np.ndarray:
    """``size`` standard Laplace(0, 1) variates from ``gen``: numpy's algorithm (one uniform U
    each, a new one when U is 0; -log(2 - 2U) when U >= 1/2, else log(2U)) with the logarithm of
    ``dpb._detmath``, so that the draws are the same bits on every CPU (numpy's own
    ``Generator.laplace`` calls the C library's ``log``, whose last bit depends on the processor)."""
    u = gen.random(size)
    zero = u == 0.0
    while zero.any():  # (probability 2**-53 a draw) the next uniforms of the stream, in order
        u = np.concatenate([u[~zero], gen.random(int(zero.sum()))])
        zero = u == 0.0
    return np.where(u >= 0.5, -log_array(2.0 - u - u), log_array(u + u))


class RunRandom:
    """Buffered random draws for ``R`` runs, one generator per run, vectorised over runs.

    Numpy's per-call overhead dominates when each of many runs needs one number at a time, so
    each run pre-draws blocks of standard Laplace and uniform variates from *its own* generator
    and hands them out in order.  Run ``r`` always receives the same sequence (its generator's
    stream, block after block) whatever the other runs do, which keeps results independent of how
    runs are grouped.

    Parameters
    ----------
    generators : sequence of numpy.random.Generator or PolicyStream
        One generator per run (or the run's counter streams,
        :class:`dpb.policies._private_runs.PolicyStream`, whose blocks are its next draws in order).
    block : int
        Number of variates pre-drawn per refill.
    """

    def __init__(self, generators: Sequence[np.random.Generator], block: int = 64) -> None:
        self.generators = list(generators)
        for g in self.generators:
            if not (isinstance(g, np.random.Generator) or getattr(g, "counter_stream", False)):
                raise TypeError(f"generators must be numpy Generators (or the counter streams of "
                                f"dpb._streams), got {type(g).__name__}")
        self.R = len(self.generators)
        self.block = as_int("block", block, minimum=1)
        check_elements("block (2 x runs x block variates)", 2 * self.R * self.block)
        self._buf = {"laplace": np.empty((self.R, self.block)), "uniform": np.empty((self.R, self.block))}
        self._ptr = {k: np.full(self.R, self.block, dtype=np.int64) for k in self._buf}
        self.count = {k: np.zeros(self.R, dtype=np.int64) for k in self._buf}  # draws handed out

    def _draw(self, kind: str, rows: np.ndarray) -> np.ndarray:
        rows = np.asarray(rows, dtype=np.int64)
        buf, ptr = self._buf[kind], self._ptr[kind]
        empty = rows[ptr[rows] >= self.block]
        for r in empty:
            g = self.generators[r]
            if kind != "laplace":
                buf[r] = g.random(self.block)
            elif isinstance(g, np.random.Generator):
                buf[r] = _standard_laplace(g, self.block)
            else:  # a counter stream: its own Laplace sampler (dpb._streams)
                buf[r] = g.laplace(0.0, 1.0, self.block)
            ptr[r] = 0
        out = buf[rows, ptr[rows]]
        ptr[rows] += 1
        self.count[kind][rows] += 1
        return out

    def laplace(self, rows: np.ndarray) -> np.ndarray:
        """One standard Laplace(0, 1) variate for each run in ``rows`` (distinct run indices)."""
        return self._draw("laplace", rows)

    def uniform(self, rows: np.ndarray) -> np.ndarray:
        """One Uniform[0, 1) variate for each run in ``rows`` (distinct run indices)."""
        return self._draw("uniform", rows)


def pick_max(values: np.ndarray, rows: np.ndarray, rand: RunRandom) -> np.ndarray:
    """Row-wise argmax with ties broken uniformly at random (one uniform per tied row)."""
    values = np.asarray(values, dtype=float)
    if np.isnan(values).any():
        raise FloatingPointError("a policy index is NaN")
    tied = values == values.max(axis=1, keepdims=True)
    n_tied = tied.sum(axis=1)
    choice = np.argmax(tied, axis=1)  # the only candidate when there is no tie
    multi = np.flatnonzero(n_tied > 1)
    if multi.size:
        u = rand.uniform(rows[multi])
        k = np.minimum((u * n_tied[multi]).astype(np.int64), n_tied[multi] - 1)
        rank = np.cumsum(tied[multi], axis=1) - 1
        choice[multi] = np.argmax(tied[multi] & (rank == k[:, None]), axis=1)
    return choice


def pick_min(values: np.ndarray, rows: np.ndarray, rand: RunRandom) -> np.ndarray:
    """Row-wise argmin with ties broken uniformly at random (one uniform per tied row)."""
    return pick_max(-np.asarray(values, dtype=float), rows, rand)


def check_horizon(policy: Policy, K: int, T: int) -> int:
    """``T``, refused (``ValueError``) when shorter than the initialisation of ``policy`` on ``K``
    arms (:meth:`~dpb.policies.base.Policy.min_horizon`)."""
    if T < policy.min_horizon(K):
        raise ValueError(f"T must be >= {policy.min_horizon(K)} for {policy.name} on K={K} arms "
                         f"(its initialisation pulls every arm), got T={T}")
    return T


@runtime_checkable
class Recorder(Protocol):
    """What a policy's exact fast path writes into: the protocol of ``fast_simulate``.

    A policy may define ``fast_simulate(means, T, env_generators, policy_generators, recorder)``
    (see :meth:`Policy.fast_simulate`): it then simulates all runs itself, exactly (same law as the
    phase protocol), and reports every pull to ``recorder``, an object with this interface that
    :func:`dpb.simulate.simulate` provides.  The recorder turns the reports into pull counts,
    phase counts and the regret at the checkpoints.  Runs are rows ``0 .. R-1``, rounds are
    1-based, and each run's reports must cover its rounds ``1 .. T`` in order, without gaps.

    Attributes
    ----------
    laplace : numpy.ndarray
        Shape (R,), int64: the fast path adds the number of Laplace draws (private releases) of
        each run here.
    """

    laplace: np.ndarray

    def record(self, rows: np.ndarray, t0: np.ndarray, counts: np.ndarray,
               decisions: np.ndarray | int | None = None) -> None:
        """One phase of each run in ``rows``: it starts at round ``t0[i]`` and pulls arm ``a``
        ``counts[i, a]`` times (several arms: round-robin in increasing arm order).  ``decisions``
        (default 1) is the number of decisions it counts for."""

    def record_steps(self, run: int, t0: int, arms: np.ndarray) -> None:
        """A window of single pulls of run ``run``: arm ``arms[j]`` at round ``t0 + j``."""

    def record_phases(self, rows: np.ndarray, arms: np.ndarray, counts: np.ndarray) -> None:
        """Single-arm phases of many runs at once: phase ``i`` pulls arm ``arms[i]`` ``counts[i]``
        times in run ``rows[i]``.  The phases of a run are given in time order (other runs' phases
        may come in between) and its first one starts at the round after its last recorded one."""


#: Called with every new :class:`Policy` subclass that declares a ``name`` (unless defined with
#: ``register=False``): :mod:`dpb.policies.registry` subscribes its ``register`` when it is
#: imported, which ``import dpb.policies`` does first (so this module needs no registry import).
_SUBCLASS_HOOKS: list[Callable[[type], object]] = []


class Policy(ABC):
    """A bandit policy deciding in phases, holding the state of ``R`` runs.

    Subclasses define ``_start``, :meth:`decide` and :meth:`update`.  After each decision
    ``self.index[rows]`` holds the index of every arm that the decision used (NaN where the
    decision did not use one, e.g. the initial round-robin), for the teaching traces.

    **Registration.**  A subclass that sets :attr:`name` in its own class body is registered when
    it is defined (:mod:`dpb.policies.registry`): from then on :func:`~dpb.policies.make_policy`,
    :func:`dpb.simulate.simulate`, the privacy audit, the experiments and the figures know it by
    that name, with the metadata below.  Helper bases that leave :attr:`name` unset are not
    registered, and ``class X(Base, register=False)`` opts out explicitly.  Defining a class
    again under the same name (a re-executed notebook cell, a reloaded file) replaces it; another
    class taking a registered name is a ``ValueError``.

    Attributes
    ----------
    name : str
        The paper's name of the algorithm (e.g. ``"DP-KLUCB"``), the key of the registry.
    private : bool
        Whether the policy is epsilon-global DP (then ``self.eps`` is its budget and the privacy
        audit checks it).
    index_kind : str
        ``"max"`` or ``"min"``: whether the decision maximises or minimises ``index``.
    paper_defaults : dict
        The parameters of the paper's experiments other than ``eps`` (see :meth:`paper_params`).
    style : dict or None
        Plotting style in every figure, ``{"color": ..., "ls": ...}``; None lets the registry pick
        a colour not used by another policy.
    reference : callable, str or None
        The literal per-step implementation used as test oracle by :mod:`dpb.reference`:
        ``reference(env, rng, params)`` plays one run on ``env`` (a
        :class:`dpb.reference.ReferenceBandit`) with ``rng`` for all its randomness.  A string
        ``"module:function"`` names it without importing it (the package's own policies).
    fast_simulate : callable or None
        An optional exact fast path ``fast_simulate(self, means, T, env_generators,
        policy_generators, recorder)`` that simulates ``len(env_generators)`` runs on its own and
        reports every pull to ``recorder`` (a :class:`~dpb.policies.base.Recorder`);
        :func:`dpb.simulate.simulate` uses it instead of the generic phase engine unless
        ``fast=False`` (through :meth:`fast_path`; with ``engine=`` when it takes one).  Run ``i``
        must draw its rewards from ``env_generators[i]`` and everything else from
        ``policy_generators[i]``.
    noise_in_stat : numpy.ndarray
        Diagnostic, shape (R, K): the number of Laplace draws contained in each arm's current
        private statistic (accumulating policies: one per phase so far; forgetting policies: 1).
    laplace_draws : numpy.ndarray
        Diagnostic, shape (R,): total Laplace draws of each run (one per private release).
    laplace_arm : numpy.ndarray
        Diagnostic, shape (R, K): total Laplace draws made for each arm.
    last_noise : numpy.ndarray
        Diagnostic, shape (R, K): the Laplace value (already scaled by 1/eps) added at each arm's
        last release.
    cost_fast, cost_fast_python, cost_reference, cost_chunk_runs
        The prices of the cost model (:mod:`dpb.cost`), which change no number: CPU-seconds per
        round of the fast path, ``(per round, per round and run)``, compiled and uncompiled (None:
        the model's defaults); per round of one run of the literal reference; and the runs per
        result file of the experiments (None: a file per block of runs).
    kernel_params : dict or None
        The parameters of the tiny run (50 rounds on ``mu1``) that loads, or compiles, the numba
        kernels of the policy's fast path (``dpb compile``, a worker before its first chunk);
        None: no kernels.
    converged_min_runs : int or None
        The first look of the converged scale of the experiments
        (:func:`dpb.experiments.min_runs`), for a policy whose cost allows fewer runs than the
        batched policies' rule; None: that rule.
    """

    name: ClassVar[str] = "policy"
    private: ClassVar[bool] = False
    index_kind: ClassVar[str] = "max"
    paper_defaults: ClassVar[dict] = {}
    style: ClassVar[dict | None] = None
    reference: ClassVar[Callable | str | None] = None
    fast_simulate: ClassVar[Callable | None] = None
    cost_fast: ClassVar[tuple | None] = None
    cost_fast_python: ClassVar[tuple | None] = None
    cost_reference: ClassVar[float] = 3e-5
    cost_chunk_runs: ClassVar[int | None] = None
    kernel_params: ClassVar[dict | None] = None
    converged_min_runs: ClassVar[int | None] = None

    eps: float | None = None

    def __init_subclass__(cls, register: bool = True, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        if register and "name" in cls.__dict__:
            for hook in _SUBCLASS_HOOKS:
                hook(cls)

    @classmethod
    def paper_params(cls, eps: float | None = None) -> dict:
        """The parameters the paper's experiments use at budget ``eps``: ``{"eps": eps}`` for a
        private policy (``eps`` is then required), plus :attr:`paper_defaults`.

        Raises
        ------
        ValueError
            For a private policy without a finite ``eps > 0``.
        """
        if not cls.private:
            return dict(cls.paper_defaults)
        if eps is None:
            raise ValueError(f"{cls.name} is private: eps must be given")
        return {"eps": check_eps(eps), **cls.paper_defaults}

    def fast_path(self) -> FastPath | None:
        """The policy's exact fast path (:class:`~dpb.engine.FastPath`), or None: the generic phase
        engine runs it.  By default ``fast_simulate``, given the runs' generators
        (:func:`dpb.engine.run_streams`) and ``engine=`` when it takes one; the package's compiled
        runs override this."""
        own = self.fast_simulate
        if own is None:
            return None
        try:
            takes = "engine" in inspect.signature(own).parameters
        except (TypeError, ValueError):  # (a callable without a signature)
            takes = False

        def path(means: np.ndarray, T: int, seeds: Sequence, recorder: Recorder, *, engine: str) -> str:
            own(means, T, *run_streams(self, seeds), recorder, **({"engine": engine} if takes else {}))
            return engine if takes else "fast"

        return path

    # ------------------------------------------------------------------------------------------
    @property
    @abstractmethod
    def params(self) -> dict:
        """The parameters of the policy (JSON-friendly), recorded in every ``Result``."""

    def min_horizon(self, K: int) -> int:
        """Smallest horizon the policy accepts with ``K`` arms (its initialisation must fit)."""
        return K

    def start(self, K: int, T: int, generators: Sequence[np.random.Generator]) -> None:
        """Allocate the state of ``len(generators)`` runs for a ``K``-armed problem of horizon T."""
        self.K = as_int("K", K, minimum=1)
        self.T = check_horizon(self, self.K, as_int("T", T, minimum=1))
        self.rand = RunRandom(generators)
        self.R = self.rand.R
        self.index = np.full((self.R, self.K), np.nan)
        self.noise_in_stat = np.zeros((self.R, self.K), dtype=np.int64)
        self.laplace_draws = np.zeros(self.R, dtype=np.int64)
        self.last_noise = np.zeros((self.R, self.K))
        self.laplace_arm = np.zeros((self.R, self.K), dtype=np.int64)
        self._start()

    @abstractmethod
    def _start(self) -> None:
        """Allocate the algorithm's own state (``self.R``, ``self.K``, ``self.T`` are set)."""

    @abstractmethod
    def decide(self, rows: np.ndarray, t: np.ndarray) -> np.ndarray:
        """Plan the next phase of the runs ``rows`` whose next round is ``t`` (1-based).

        Returns an int64 array of shape ``(len(rows), K)``: the pulls of each arm in the phase.
        """

    @abstractmethod
    def update(self, rows: np.ndarray, counts: np.ndarray, sums: np.ndarray) -> None:
        """Feed back the pulls actually made (``counts``, after truncation) and reward sums."""

    # ------------------------------------------------------------------------------------------
    def statistic(self) -> np.ndarray:
        """The (private) mean estimate of every arm that the policy currently uses, shape (R, K)."""
        return np.full((self.R, self.K), np.nan)

    def _noise(self, rows: np.ndarray, arms: np.ndarray) -> np.ndarray:
        """One Laplace(1/eps) draw per (run, arm) pair, with the bookkeeping of the diagnostics."""
        y = self.rand.laplace(rows) / self.eps
        self.laplace_draws[rows] += 1
        self.laplace_arm[rows, arms] += 1
        self.last_noise[rows, arms] = y
        return y

    def _one_hot(self, arms: np.ndarray, pulls: np.ndarray) -> np.ndarray:
        plan = np.zeros((arms.size, self.K), dtype=np.int64)
        plan[np.arange(arms.size), arms] = pulls
        return plan

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.params.items())
        return f"{type(self).__name__}({args})"


class _InitialRoundRobin:
    """Mixin: the first K phases pull arms 0, 1, ..., K-1, one each (the policy's ``decide`` says
    how many pulls).

    ``self._next_init[r]`` is the next initial arm of run r (K once the initialisation is over).
    """

    # what the mixin reads of the Policy it is mixed into (annotations only)
    R: int
    K: int
    index: np.ndarray
    index_kind: ClassVar[str]
    rand: RunRandom
    _index: Callable[[np.ndarray, np.ndarray], np.ndarray]

    def _init_state(self) -> None:
        self._next_init = np.zeros(self.R, dtype=np.int64)

    def _in_init(self, rows: np.ndarray) -> np.ndarray:
        return self._next_init[rows] < self.K

    def _choose_arms(self, rows: np.ndarray, t: np.ndarray) -> np.ndarray:
        """The arm of the next phase of each run: the next initial arm while initialising, then
        the arg-max (``index_kind="max"``) or arg-min (``"min"``) of ``self._index``, random ties.

        Records the index of every arm in ``self.index`` (NaN during initialisation).
        """
        arms = np.empty(rows.size, dtype=np.int64)
        init = self._in_init(rows)
        if init.any():
            arms[init] = self._next_init[rows[init]]
            self._next_init[rows[init]] += 1
            self.index[rows[init]] = np.nan
        main = ~init
        if main.any():
            r = rows[main]
            idx = self._index(r, t[main])
            self.index[r] = idx
            pick = pick_max if self.index_kind == "max" else pick_min
            arms[main] = pick(idx, r, self.rand)
        return arms


class PerStepPolicy(_InitialRoundRobin, Policy):
    """A policy that pulls every arm once, then decides at every step from the empirical means
    (IMED, KL-UCB): the per-step twin of :class:`~dpb.policies.BatchedPrivatePolicy`.

    A new per-step index is one method: subclass, set :attr:`~dpb.policies.base.Policy.name` and
    :attr:`~dpb.policies.base.Policy.index_kind`, and define
    :meth:`~dpb.policies.base.PerStepPolicy.empirical_index` (not ``index``: that attribute holds
    the indexes of the last decision, see :class:`~dpb.policies.base.Policy`).  Ties are broken
    uniformly at random.

    :func:`dpb.simulate.simulate` runs it on a lock-step fast path (:meth:`fast_simulate`): all
    runs advance together and one call of ``empirical_index`` evaluates the next rounds of every
    run (rows of states a run reaches if it keeps pulling its current arm; the rows after a
    change of arm are discarded), with the same draws and the same numbers as the generic phase
    engine (``fast=False``: phases of one pull, one call of the index per round).  So the index
    must be a function of each row alone; a rule that is not (or has side effects) sets
    :attr:`lookahead` to False: then every call holds exactly one row per run, the runs' states
    at the current round.  A policy may still define its own ``fast_simulate`` (IMED, KL-UCB).
    """

    private = False
    #: Whether the lock-step fast path may evaluate rows of states ahead (see the class docstring).
    lookahead: ClassVar[bool] = True

    def fast_simulate(self, means: np.ndarray, T: int, env_generators: Sequence[np.random.Generator],
                      policy_generators: Sequence[np.random.Generator], recorder: Recorder) -> None:
        """The lock-step fast path (``dpb.policies._perstep``): exact, the generic engine's
        numbers; used by :func:`dpb.simulate.simulate` unless ``fast=False``."""
        from ._perstep import simulate_per_step

        simulate_per_step(self, means, T, env_generators, policy_generators, recorder)

    def _start(self) -> None:
        self.N = np.zeros((self.R, self.K), dtype=np.int64)
        self.S = np.zeros((self.R, self.K))
        self._init_state()

    def statistic(self) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.N > 0, self.S / np.maximum(self.N, 1), np.nan)

    def decide(self, rows: np.ndarray, t: np.ndarray) -> np.ndarray:
        rows = np.asarray(rows, dtype=np.int64)
        arms = self._choose_arms(rows, t)
        return self._one_hot(arms, np.ones(rows.size, dtype=np.int64))

    def update(self, rows: np.ndarray, counts: np.ndarray, sums: np.ndarray) -> None:
        rows = np.asarray(rows, dtype=np.int64)
        self.N[rows] += counts
        self.S[rows] += sums

    def _index(self, rows: np.ndarray, t: np.ndarray) -> np.ndarray:
        n = self.N[rows]
        return self.empirical_index(self.S[rows] / n, n, t[:, None])

    @abstractmethod
    def empirical_index(self, mu: np.ndarray, n: np.ndarray, t: np.ndarray) -> np.ndarray:
        """The index of every arm, from the empirical means (the one method to define).

        Parameters
        ----------
        mu : numpy.ndarray
            Shape (rows, K): the empirical means ``S_a / N_a`` in [0, 1].
        n : numpy.ndarray
            Shape (rows, K), int64: the pulls ``N_a >= 1``.
        t : numpy.ndarray
            Shape (rows, 1), int64: the current round (1-based).

        Returns
        -------
        numpy.ndarray
            Shape (rows, K), float, no NaN: the next pull goes to the arm of largest index
            (``index_kind = "max"``) or smallest (``"min"``).
        """
