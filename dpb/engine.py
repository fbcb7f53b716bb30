"""The code that makes the numbers: seeds, checkpoints, the recorder and the one driver of policies.

Everything a simulation draws or computes goes through this module (and the policy's own code):
:mod:`dpb.simulate` (the entry point), :mod:`dpb.regret`, :mod:`dpb.reference` and
:mod:`dpb.interaction` call it.  The results' provenance (:mod:`dpb.cache`) hashes this module,
what it imports and the policy's module -- not the front ends around them (validation, the cost
model, the progress bar, :class:`~dpb.result.Result` and its files), which change no number.

* **Seeds.** Run ``i`` of root seed ``s`` owns the child ``SeedSequence(s).spawn(n)[i]`` (for any
  n > i), built directly from its spawn key (:func:`child_seeds`), and two generators derived from
  it (:func:`run_generators`): one for the environment's rewards, one for the policy.  The
  batched private policies (``policy.streams == "counter"``) draw instead from counter-based
  streams keyed by the root's words and ``i`` (``dpb._streams``; :func:`run_streams`), which
  compiled code derives without building any Python object per run (:class:`SeedChildren`).
  Nothing a run draws depends on the other runs, so any split of the runs gives the same numbers.
* **The recorder.** :class:`Recorder` keeps pull counts, phase counts and the exact regret at
  checkpoints; a phase's regret grows linearly (round-robin phases: piecewise linearly), so a
  checkpoint inside a phase costs no per-step work.
* **The driver.** :func:`drive` runs the policy protocol (``start``, ``decide``, ``update``) for all
  runs in lock-step, checking every plan and cutting the last phase at the horizon; what a phase
  observes is the caller's: Binomial reward sums here (:func:`run_phases`, the generic engine), a
  list or an adversary's rewards step by step in :mod:`dpb.interaction`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from ._validate import MAX_HORIZON, as_int, as_seed_sequence
from .plans import check_plan

if TYPE_CHECKING:
    from .environments import BernoulliBandit

#: The arithmetic the engines' numbers depend on, recorded with every cached result: a result
#: computed under another (another tag, another numpy) is recomputed, never mixed with these.
#: "detmath-1": logarithms, exponentials and Laplace noise by ``dpb._detmath`` (the same bits on
#: every CPU), numpy's Generator for the uniform, binomial, hypergeometric and Beta draws of the
#: per-step policies; the batched private policies' draws come from the counter streams and
#: samplers of ``dpb._streams`` (integer hashing and the same deterministic arithmetic).
ARITHMETIC = "detmath-1"

__all__ = ["ARITHMETIC", "child_seeds", "SeedChildren", "run_generators", "run_streams", "uses_streams",
           "checkpoint_grid", "Recorder", "drive", "run_phases", "FastPath"]


# ----------------------------------------------------------------------------------------------
# seeds and grids
# ----------------------------------------------------------------------------------------------
def child_seeds(seed: Any, run_ids: Any) -> list[np.random.SeedSequence]:
    """The children ``SeedSequence(seed).spawn(n)[i]`` for ``i`` in ``run_ids``, without spawning.

    A fresh ``SeedSequence(seed).spawn(n)`` returns children with spawn keys ``(0,), ..., (n-1,)``;
    building child ``i`` directly lets any subset of runs be simulated anywhere.
    """
    root = as_seed_sequence("seed", seed)
    if isinstance(run_ids, (str, bytes)) or not hasattr(run_ids, "__iter__"):
        raise TypeError(f"run_ids must be a sequence of non-negative integers, got {type(run_ids).__name__}")
    return [_child(root, as_int("run_ids", i, minimum=0)) for i in run_ids]


class SeedChildren(Sequence):
    """The children ``SeedSequence(root).spawn(n)[i]`` for ``i`` in ``run_ids``, built only when
    an item is asked for (50 us each): a counter-stream fast path needs only the root's words and
    the ids (:meth:`keys`)."""

    def __init__(self, root: np.random.SeedSequence, run_ids: Any) -> None:
        self.root = root
        self.run_ids = np.asarray(run_ids, dtype=np.int64)

    def __len__(self) -> int:
        return self.run_ids.size

    def __getitem__(self, i):
        if isinstance(i, slice):
            return SeedChildren(self.root, self.run_ids[i])
        return _child(self.root, int(self.run_ids[i]))

    def keys(self) -> tuple[np.ndarray, np.ndarray]:
        """(root words, shape (R, 2), run ids as uint64), as ``_seed_keys``."""
        words = np.empty((len(self), 2), dtype=np.uint64)
        words[:] = root_words(self.root)
        return words, self.run_ids.astype(np.uint64)


def root_words(root: np.random.SeedSequence) -> tuple[int, int]:
    """The two 64-bit words of a root ``SeedSequence`` that key its runs' counter streams
    (``dpb._streams``): numpy's integer hashing of its entropy and spawn key, the same on every
    machine."""
    w = root.generate_state(2, np.uint64)
    return int(w[0]), int(w[1])


_ROOTS: dict = {}


def _seed_keys(seeds) -> tuple[np.ndarray, np.ndarray]:
    """(root words per run, shape (R, 2), run ids as uint64) of the runs of ``seeds``: a
    :class:`SeedChildren`, or child ``SeedSequence`` objects -- child ``(entropy, spawn_key + (i,))``
    is run ``i`` of the root ``(entropy, spawn_key)``; one without spawn key is run 0 of itself."""
    if isinstance(seeds, SeedChildren):
        return seeds.keys()
    words = np.empty((len(seeds), 2), dtype=np.uint64)
    ids = np.empty(len(seeds), dtype=np.uint64)
    for j, s in enumerate(seeds):
        key = s.spawn_key
        root = (s.entropy, key[:-1], s.pool_size)
        w = _ROOTS.get(root)
        if w is None:
            if len(_ROOTS) > 1024:
                _ROOTS.clear()
            w = _ROOTS[root] = root_words(np.random.SeedSequence(s.entropy, spawn_key=key[:-1],
                                                                 pool_size=s.pool_size))
        words[j] = w
        ids[j] = key[-1] if key else 0
    return words, ids


def uses_streams(pol: Any) -> bool:
    """Whether ``pol`` draws from counter-based streams (``dpb._streams``) instead of numpy
    Generators (its ``make_streams(words, ids)`` makes them)."""
    return getattr(pol, "streams", None) == "counter"


def run_streams(pol: Any, seeds: Sequence[np.random.SeedSequence]) -> tuple[list, list]:
    """The (environment, policy) random sources of every run of ``seeds`` for ``pol``: counter
    streams (:func:`uses_streams`) or the numpy Generators of :func:`run_generators`."""
    if uses_streams(pol):
        return pol.make_streams(*_seed_keys(seeds))
    pairs = [run_generators(s) for s in seeds]
    if not pairs:
        return [], []
    env, pol_gens = zip(*pairs, strict=True)
    return list(env), list(pol_gens)


def _child(ss: np.random.SeedSequence, i: int) -> np.random.SeedSequence:
    return np.random.SeedSequence(ss.entropy, spawn_key=(*ss.spawn_key, int(i)), pool_size=ss.pool_size)


def run_generators(child: np.random.SeedSequence) -> tuple[np.random.Generator, np.random.Generator]:
    """The (environment, policy) generators of the run owning ``child``: its children 0 and 1."""
    if not isinstance(child, np.random.SeedSequence):
        raise TypeError(f"child must be a numpy.random.SeedSequence, got {type(child).__name__}")
    return np.random.default_rng(_child(child, 0)), np.random.default_rng(_child(child, 1))


def _policy_generators(seed, run_ids) -> list[np.random.Generator]:
    """One generator per run, on the child seed itself (:func:`child_seeds`): the policies of
    :mod:`dpb.interaction`, whose rewards come from a list or an adversary, not a generator."""
    return [np.random.default_rng(c) for c in child_seeds(seed, run_ids)]


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


def _resolve_checkpoints(T: int, checkpoints) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(rounds, log mask, linear mask)`` of the ``checkpoints`` argument of
    :func:`dpb.simulate.simulate`: None (the default grids), an int (points per grid) or rounds."""
    if checkpoints is None:
        all_, log, lin = checkpoint_grid(T)
    elif isinstance(checkpoints, (int, np.integer)) and not isinstance(checkpoints, bool):
        all_, log, lin = checkpoint_grid(T, int(checkpoints), int(checkpoints))
    else:
        all_ = log = lin = _rounds_until("checkpoints", checkpoints, T, "None, an int (points per grid) or ")
    return all_, np.isin(all_, log), np.isin(all_, lin)


def _rounds_until(name: str, values, T: int, also: str = "") -> np.ndarray:
    """``values``, a non-empty 1-d array of integer rounds in [1, T], sorted and unique with T added;
    a ``ValueError`` naming ``name`` otherwise (``also``: what else the argument may be)."""
    arr = np.asarray(values)
    if arr.ndim != 1 or arr.size == 0 or not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"{name} must be {also}a non-empty 1-d array of integer rounds")
    if arr.min() < 1 or arr.max() > T:
        raise ValueError(f"{name} must lie in [1, T={T}], got range [{arr.min()}, {arr.max()}]")
    return np.union1d(arr, [T]).astype(np.int64)


# ----------------------------------------------------------------------------------------------
# recording regret at checkpoints
# ----------------------------------------------------------------------------------------------
class Recorder:
    """Pull counts, phase counts and exact regret at checkpoints for ``R`` runs: the
    :class:`~dpb.policies.base.Recorder` that a policy's ``fast_simulate`` writes into.

    A phase starting at round ``t0`` with ``counts`` (pulls per arm, executed round-robin in arm
    order) covers rounds t0 .. t0 + sum(counts) - 1.  After its k-th pull the regret is
    reg0 + floor(k/m) * G_m + G_{k mod m}, with m the number of arms in the phase and G_j the sum
    of the gaps of its first j arms; for a single arm this is reg0 + k Delta_a.
    """

    #: The per-run state, rows of which :meth:`take` copies from another recorder.
    STATE = ("regret", "pulls", "reg", "next", "phases", "laplace")

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

    def take(self, rows: slice, other: Recorder) -> None:
        """Copy the state of every run of ``other`` into ``rows`` of this recorder."""
        for name in self.STATE:
            getattr(self, name)[rows] = getattr(other, name)

    def record(self, rows: Any, t0: Any, counts: Any, decisions: Any = None) -> None:
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
                gap = np.repeat(self._added(counts[single]) / total[single], width)
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
        self.reg[rows] += self._added(counts)
        self.pulls[rows] += counts
        self.phases[rows] += 1 if decisions is None else decisions

    def _added(self, counts: np.ndarray) -> np.ndarray:
        """The regret ``counts @ gaps`` of each row of phases, summed arm after arm (a fixed order,
        unlike a BLAS product: the compiled runs sum the same way)."""
        out = np.zeros(counts.shape[0])
        for k in range(self.K):
            out += counts[:, k] * self.gaps[k]
        return out

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
# the driver of the policy protocol, and the generic phase engine
# ----------------------------------------------------------------------------------------------
def truncate(plan: np.ndarray, remaining: np.ndarray) -> np.ndarray:
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


def drive(policy: Any, K: int, T: int, policy_gens: Sequence[Any], play: Callable[..., np.ndarray],
          hook: Any = None) -> None:
    """Run ``policy`` for ``len(policy_gens)`` runs of horizon ``T`` on ``K`` arms, phase by phase in
    lock-step: the one driver of the policy protocol.

    Each phase: ``policy.decide`` plans it (checked by :func:`dpb.plans.check_plan`), the plan is cut
    at the horizon (``truncate``), ``play(rows, t0, counts)`` returns the reward sums it
    observes (one row per run, one column per arm), ``policy.update`` takes them.  ``hook``, if
    given, sees every phase just before and after the update (``before_update`` and
    ``after_update(rows, t0, counts, sums)``).
    """
    policy.start(K, T, policy_gens)
    t = np.ones(len(policy_gens), dtype=np.int64)
    active = np.arange(len(policy_gens))
    while active.size:
        tt = t[active]
        counts = truncate(check_plan(policy, policy.decide(active, tt), active.size, K, T), T - tt + 1)
        sums = play(active, tt, counts)
        if hook is not None:
            hook.before_update(active, tt, counts, sums)
        policy.update(active, counts, sums)
        if hook is not None:
            hook.after_update(active, tt, counts, sums)
        t[active] += counts.sum(axis=1)
        active = active[t[active] <= T]


def run_phases(policy: Any, means: np.ndarray, T: int, env_gens: Sequence[Any], pol_gens: Sequence[Any],
               rec: Recorder, hook: Any = None) -> None:
    """The generic, exact engine: :func:`drive` with one Binomial(B, mu_a) draw per arm and phase
    (the law of the sum of B Bernoulli rewards), every phase recorded in ``rec``."""
    def play(active, tt, counts):
        sums = np.zeros(counts.shape)
        n_arms = np.count_nonzero(counts, axis=1)
        arm = np.argmax(counts, axis=1)
        for i, r in enumerate(active.tolist()):
            if n_arms[i] == 1:  # the common case: one Binomial(B, mu_a) draw
                a = arm[i]
                sums[i, a] = env_gens[r].binomial(counts[i, a], means[a])
            else:
                played = np.flatnonzero(counts[i])
                sums[i, played] = env_gens[r].binomial(counts[i, played], means[played])
        rec.record(active, tt, counts)
        return sums

    drive(policy, means.size, T, pol_gens, play, hook)
    rec.laplace[:] = policy.laplace_draws


class FastPath(Protocol):
    """A policy's exact fast path, as ``Policy.fast_path`` returns it: the one shape that
    :func:`dpb.simulate.simulate` calls (``_run_seeds``).

    ``path(means, T, seeds, recorder, engine=engine)`` simulates one run per child
    ``SeedSequence`` of ``seeds`` to horizon ``T`` on arms of means ``means``, exactly (the law of
    the phase protocol), reports every pull to ``recorder`` (a :class:`Recorder`), and returns the
    engine that ran, recorded in ``Result.engine``: ``engine`` itself (``"numba"`` or ``"python"``)
    for a path with a compiled and a Python version, else ``"fast"``.
    """

    def __call__(self, means: np.ndarray, T: int, seeds: Sequence[np.random.SeedSequence],
                 recorder: Recorder, *, engine: str) -> str: ...


def _run_seeds(pol: Any, bandit: BernoulliBandit, T: int, seeds: Sequence, checkpoints: np.ndarray,
              path: FastPath | None, engine: str, hook: Any = None) -> tuple[Recorder, str]:
    """The one runner, on checked objects: one run of the policy object ``pol`` on ``bandit`` per
    child seed of ``seeds`` to the horizon ``T`` (already checked against the policy), recorded at
    the rounds ``checkpoints``; on the fast path ``path`` (``Policy.fast_path``, given
    ``engine``), or on the generic engine when it is None (with ``hook``, as in :func:`drive`).
    Returns the recorder and the engine that ran (``Result.engine``: ``"phases"`` for the generic
    one).  Nothing is validated here: :func:`dpb.simulate.simulate` and the other callers did it."""
    means = np.asarray(bandit.means, dtype=float)
    rec = Recorder(len(seeds), bandit.gaps, checkpoints)
    if path is not None:
        return rec, path(means, T, seeds, rec, engine=engine)
    env_gens, pol_gens = run_streams(pol, seeds)
    run_phases(pol, means, T, env_gens, pol_gens, rec, hook)
    return rec, "phases"
