"""DP-KLUCB and DP-IMED: :prf:ref:`alg-dp-klucb-imed` (no forgetting).

Both algorithms pull arms in arm-dependent geometric phases of sizes B_0, B_1, ... (Eq.
(def_batch), :mod:`dpb.batching`).  After its m-th phase, arm i has been pulled n_i = n_{m_i}
times and the policy knows the *private running sum*

    S~_i = (sum of all n_i rewards of arm i) + Y_{i,0} + ... + Y_{i,m_i},   Y ~ Lap(1/eps) iid,

i.e. one fresh Laplace draw per phase, accumulated -- rewards are never forgotten.  Releasing the
per-phase noisy sums is eps-DP by parallel composition (each reward is in exactly one phase sum of
sensitivity 1); the running sums are a post-processing of them (Proposition 'Privacy analysis').

With x_i = clip(S~_i / n_i) the clipped private mean and t the current round:

* DP-KLUCB (:prf:ref:`alg-dp-klucb-imed`): pull argmax_i max{mu in [0,1] : d_eps(x_i, mu) <= log(t) / n_i};
* DP-IMED (:prf:ref:`alg-dp-klucb-imed`): pull argmin_i n_i d_eps(x_i, x*) + log n_i, x* = clip(max_j
  S~_j/n_j);

for the next phase B_{m_i + 1} of that arm (truncated at the horizon T).  Initialisation: every
arm is pulled B_0 = n0 times (in arm order), so T >= K n0 is required.  Ties are broken uniformly
at random.  :prf:ref:`thm-upper-bound`: both have regret at most
sum_i alpha Delta_i log T / d_eps(mu_i, mu*) + o(log T).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from abc import abstractmethod

import numpy as np

from ..batching import BatchSchedule, make_schedule
from ..plans import check_index
from . import _lockstep
from ._private_runs import CounterStreams
from .._validate import check_eps
from ._keyed import KeyedRuns
from .base import _InitialRoundRobin, Policy, Recorder

__all__ = ["BatchedPrivatePolicy", "DPKLUCB", "DPIMED"]

#: The methods of the phase logic: a subclass redefining one of them runs on the generic engine.
_PHASE_LOGIC = ("_start", "decide", "update", "_index", "_clipped_means", "_choose_arms", "start", "_noise",
                "min_horizon")


def _keeps(policy: Policy, methods: tuple = _PHASE_LOGIC) -> bool:
    """Whether ``policy`` keeps :class:`BatchedPrivatePolicy`'s own ``methods`` (its phase logic)."""
    return all(getattr(type(policy), m) is getattr(BatchedPrivatePolicy, m) for m in methods)


def _kernel_kind(policy) -> int | None:
    """The kind of ``dpb.policies._private_runs.run_chunk`` that simulates ``policy`` (its own
    phase logic and DP-KLUCB's or DP-IMED's own index), or None (a subclass's own index: the numpy
    lock-step runs it)."""
    from ._private_runs import IMED, KLUCB

    cls = type(policy)
    if not _keeps(policy):
        return None
    if cls.private_index is DPKLUCB.private_index:
        return KLUCB
    if cls.private_index is DPIMED.private_index:
        return IMED
    return None


def _rows_function(name: str):
    """The row-wise index function ``name`` of :mod:`dpb.policies._private_runs`, compiled when the
    compiled kernels are on (``DPB_JIT``), else as Python: the same numbers."""
    from .._jit import engine_name
    from ._keyed import compiled

    return compiled(name, engine_name())


class BatchedPrivatePolicy(CounterStreams, _InitialRoundRobin, KeyedRuns):
    """The paper's private batched policy without forgetting, with the index left open.

    Everything of :prf:ref:`alg-dp-klucb-imed` except the index: arm-dependent geometric phases
    ``B_0, B_1, ...`` (:prf:ref:`def-batch-schedule`, or any :class:`~dpb.batching.BatchSchedule`),
    one fresh ``Lap(1/eps)`` draw per phase added to the arm's private running sum ``S~_i`` (no
    forgetting: eps-DP by parallel composition, :prf:ref:`prop-ch05-privacy`), an initial
    round-robin of ``B_0`` pulls per arm, ties broken at random, phases cut at the horizon.

    A new private index is one method: subclass, set :attr:`~dpb.policies.base.Policy.name` and
    :attr:`~dpb.policies.base.Policy.index_kind`, and define :meth:`private_index`.  The policy is
    private whatever the index does, since the index only post-processes the private sums.  The
    subclass is registered (:mod:`dpb.policies.registry`) and runs through the simulator, the
    privacy audit and the experiments like DP-KLUCB (the Algorithms chapter ends with an example).

    Parameters
    ----------
    eps : float
        Privacy budget, > 0; the policy is eps-global DP for rewards in [0, 1].
    n0 : int
        First batch size (paper's experiments: 1).
    alpha : float
        Geometric ratio > 1 of the batches (experiments: 2).
    schedule : BatchSchedule, optional
        Any other schedule (overrides n0 and alpha), e.g. a polynomial one.
    """
    eps: float  # a private policy's budget (never None)

    private = True
    paper_defaults = {"n0": 1, "alpha": 2}

    def __init__(self, eps: float, n0: int = 1, alpha: float = 2,
                 schedule: BatchSchedule | None = None) -> None:
        self.eps = check_eps(eps)
        self.schedule = make_schedule(schedule, n0=n0, alpha=alpha)

    @property
    def params(self) -> dict:
        return {"eps": self.eps, "schedule": self.schedule.params()}

    def min_horizon(self, K: int) -> int:
        return K * self.schedule.n0

    def max_phases(self, K: int, T: int) -> int:
        """An upper bound of the phases of one run (:mod:`dpb.cost`): K times the batches of the
        schedule up to T, or T for a subclass that plans its own phases (its own ``decide`` or
        ``update``)."""
        from ..batching import phases_to_reach

        if not _keeps(self, ("decide", "update")):
            return T
        # the schedules' tables stop below 2**62; with nondecreasing batches, twice the batches
        # reaching n reach 2n
        n = phases_to_reach(T, self.schedule) if T <= 2**61 else 2 * phases_to_reach(2**61, self.schedule)
        return min(K * int(n), T)

    def _start(self) -> None:
        R, K = self.R, self.K
        self.sizes = self.schedule.sizes_until(self.T)  # B_0..B_M with n_M >= T
        self.S = np.zeros((R, K))  # private running sums S~_i
        self.n = np.zeros((R, K), dtype=np.int64)  # pulls n_{m_i}
        self.m = np.full((R, K), -1, dtype=np.int64)  # index of the last phase made
        self.phases = np.zeros((R, K), dtype=np.int64)
        self._init_state()

    def statistic(self) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.n > 0, self.S / np.maximum(self.n, 1), np.nan)

    def _clipped_means(self, rows: np.ndarray) -> np.ndarray:
        return np.minimum(np.maximum(self.S[rows] / self.n[rows], 0.0), 1.0)

    def decide(self, rows: np.ndarray, t: np.ndarray) -> np.ndarray:
        rows = np.asarray(rows, dtype=np.int64)
        arms = self._choose_arms(rows, t)
        pulls = self.sizes[np.minimum(self.m[rows, arms] + 1, self.sizes.size - 1)]
        return self._one_hot(arms, pulls)

    def update(self, rows: np.ndarray, counts: np.ndarray, sums: np.ndarray) -> None:
        rows = np.asarray(rows, dtype=np.int64)
        arms = np.argmax(counts, axis=1)
        got = counts[np.arange(rows.size), arms]
        s = sums[np.arange(rows.size), arms]
        # one fresh Laplace(1/eps) per phase, added to the running sum: no forgetting
        self.S[rows, arms] += s + self._noise(rows, arms)
        self.noise_in_stat[rows, arms] += 1
        self.n[rows, arms] += got
        self.m[rows, arms] += 1
        self.phases[rows, arms] += 1

    @property
    def fast_simulate(self) -> Callable | None:  # type: ignore[override]  # (Policy's: a class attribute)
        """The exact lock-step fast path :meth:`simulate_phases`, or None when a subclass changes
        the phase logic (``decide``, ``update``, ``_index``...): the generic engine then runs it."""
        return self.simulate_phases if _keeps(self) else None

    def simulate_phases(self, means: np.ndarray, T: int, env_generators: Sequence,
                        policy_generators: Sequence, recorder: Recorder,
                        engine: str | None = None) -> None:
        """Simulate ``len(env_generators)`` runs to horizon ``T`` and report them to ``recorder``.

        The same law -- and the same numbers for the same generators -- as the generic phase
        engine of :mod:`dpb.simulate` (``fast=False``): all runs advance one phase per step in
        lock-step; run ``i`` draws its phase sums from ``env_generators[i]`` (one
        ``Binomial(B, mu_a)`` per phase) and its Laplace noise and tie-breaks from
        ``policy_generators[i]`` in the same order.  What differs is the bookkeeping: the state
        of finished runs is dropped, the diagnostics of the teaching traces are not kept, and
        the phases are recorded once at the end (:meth:`~dpb.policies.base.Recorder.record_phases`).

        Parameters
        ----------
        means : numpy.ndarray
            The arms' means, shape (K,).
        T : int
            The horizon (>= K n0).
        env_generators, policy_generators : sequence of numpy.random.Generator
            One of each per run.
        recorder : dpb.policies.base.Recorder
            Receives every phase (:meth:`~dpb.policies.base.Recorder.record_phases`) and the
            Laplace draws of each run.
        engine : {"numba", "python"} or None
            DP-IMED's runs compiled (``"numba"``) or the numpy lock-step (``"python"``): the same
            numbers; None reads the default (``DPB_JIT``).
        """
        _lockstep.simulate_phases(self, np.asarray(means, dtype=float), T, env_generators, policy_generators,
                                  recorder)

    def compiled_runs(self) -> bool:
        """Whether the fast path runs compiled (DP-KLUCB's and DP-IMED's own index), not the numpy
        lock-step of an index of one's own (the cost model prices them apart)."""
        return _kernel_kind(self) is not None

    def _keyed_kind(self) -> int | None:
        return _kernel_kind(self)

    def _keyed_args(self, T: int) -> tuple[str, tuple, bool]:
        sizes = np.ascontiguousarray(self.schedule.sizes_until(T), dtype=np.int64)
        return "run_chunk", (sizes, T, float(self.eps)), True

    def _index(self, rows: np.ndarray, t: np.ndarray) -> np.ndarray:
        index = self.private_index(self._clipped_means(rows), self.n[rows], t[:, None], self.phases[rows])
        return check_index(self, index, rows.size, self.K)

    @abstractmethod
    def private_index(self, x: np.ndarray, n: np.ndarray, t: np.ndarray, releases: np.ndarray) -> np.ndarray:
        """The index of every arm, from private statistics only (the one method to define).

        Parameters
        ----------
        x : numpy.ndarray
            Shape (rows, K): the clipped private means ``clip(S~_i / n_i)`` in [0, 1].
        n : numpy.ndarray
            Shape (rows, K), int64: the pulls ``n_i >= 1`` behind each private sum.
        t : numpy.ndarray
            Shape (rows, 1), int64: the current round (1-based).
        releases : numpy.ndarray
            Shape (rows, K), int64: the number of phases of each arm, i.e. of ``Lap(1/eps)`` draws
            inside ``S~_i``.

        Returns
        -------
        numpy.ndarray
            Shape (rows, K), float, no NaN: the next phase goes to the arm of largest index
            (``index_kind = "max"``) or smallest (``"min"``).  ``self.eps`` is the budget.
        """


class DPKLUCB(BatchedPrivatePolicy):
    """DP-KLUCB (:prf:ref:`alg-dp-klucb-imed`, the DP-KLUCB index).

    Index of arm i at round t: max{mu in [0, 1] : d_eps(clip(S~_i/n_i), mu) <= log(t)/n_i}; the
    policy pulls the arm of largest index for its next geometric phase.  Parameters (``eps``,
    ``n0``, ``alpha``, ``schedule``) as :class:`~dpb.policies.BatchedPrivatePolicy`.
    """

    name = "DP-KLUCB"
    index_kind = "max"
    style = {"color": "#1f77b4", "ls": "-"}
    reference = "dpb.reference:_dp_klucb"
    kernel_params = {"eps": 1.0}

    def private_index(self, x: np.ndarray, n: np.ndarray, t: np.ndarray, releases: np.ndarray) -> np.ndarray:
        # the scalar index of the compiled runs, row by row: the same numbers in every engine
        out: np.ndarray = np.empty(np.shape(x))
        t = np.broadcast_to(np.asarray(t, dtype=np.int64).reshape(-1), (out.shape[0],))
        x, n = np.ascontiguousarray(x, dtype=float), np.ascontiguousarray(n, dtype=np.int64)
        _rows_function("klucb_rows")(x, n, np.ascontiguousarray(t), float(self.eps), out)
        return out


class DPIMED(BatchedPrivatePolicy):
    """DP-IMED (:prf:ref:`alg-dp-klucb-imed`, the DP-IMED index).

    Index of arm i: n_i d_eps(x_i, x*) + log n_i with x_i = clip(S~_i/n_i) and
    x* = clip(max_j S~_j/n_j); the policy pulls the arm of smallest index for its next phase.
    Parameters (``eps``, ``n0``, ``alpha``, ``schedule``) as
    :class:`~dpb.policies.BatchedPrivatePolicy` (the epsilon-sweep figure uses ``alpha=1.1``).
    """

    name = "DP-IMED"
    index_kind = "min"
    style = {"color": "#d62728", "ls": "-"}
    reference = "dpb.reference:_dp_imed"
    kernel_params = {"eps": 1.0}

    def private_index(self, x: np.ndarray, n: np.ndarray, t: np.ndarray, releases: np.ndarray) -> np.ndarray:
        # the scalar index of the compiled runs, row by row: the same numbers in every engine
        out = np.empty(np.shape(x))
        x, n = np.ascontiguousarray(x, dtype=float), np.ascontiguousarray(n, dtype=np.int64)
        _rows_function("imed_rows")(x, n, float(self.eps), out)
        return out
