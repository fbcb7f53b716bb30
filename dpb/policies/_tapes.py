"""The exact fast paths of IMED and KL-UCB (:mod:`dpb.policies.nonprivate` holds their rules):
:func:`simulate_imed_fast` and :func:`simulate_klucb_fast`.  They rest on one observation: most of
the time these policies keep pulling the same *leader* arm, and while they do only the leader's
statistics move.

**IMED: reward tapes and certified segments** (:func:`simulate_imed_fast`, one run at a time).
The k-th pull of arm a pays the k-th entry of an i.i.d. Bernoulli(mu_a) sequence, whatever the
round, so each arm's future rewards can be drawn ahead as a *tape* of segments (L, s): L entries
summing to s, one Binomial(L, mu_a) draw for the T - t + 1 entries that can still be read.  Given
s, the entries are a uniformly random arrangement of s ones, so the first L_1 of them sum to a
Hypergeometric(s, L - s, L_1) variate and both parts are again uniform given their sums: a
segment is split exactly, at any point, and the unread part stays on the tape.

While A is the unique empirical best, its index is log N_A and arm j's index
N_j kl(mu_j, m) + log N_j increases with A's mean m > mu_j, so A is the rule's unique choice at
(N_A = n, mean m) iff m > theta(n) = max_j max(mu_j, kl_ucb(mu_j, (log n - log N_j) / N_j)), which
increases with n.  Along a segment (L, s) read from state (N_A, S_A), the lowest mean any
arrangement can reach is S_A / (N_A + min(L - s, L - 1)) (zeros first), so the segment is accepted
at once when that value exceeds theta(N_A + L - 1): every step in it is then a leader pull,
whatever the arrangement.  theta_j is concave in log n, so its tangent at an anchor n_0 bounds it
above for n >= n_0 (one inversion per arm and anchor).  A segment that fails is split (at a
fraction of the length that is safe whatever the rewards, from the linearised margin) and the
first part is examined; when even the next step is not certain, the exact rule decides it (ties
uniformly at random, as in the reference) and the chosen arm's reward is the first entry of its
tape.  The cost follows the segments examined and the decisions, not T (on the paper's
instances it grew like T^0.3 in the benchmark).  A margin of 1e-9 (plus 1e-13 N_j) on the
indexes covers rounding.

**KL-UCB** (:func:`simulate_klucb_fast`) uses the same tapes.  The index
U_a = kl_ucb(mu_a, f(t) / N_a), f(t) = log t + c log log t, is concave and increasing in the
budget f, so its tangent at an anchor bounds it above for later rounds while the arm is not
pulled (a zero reward keeps the bound valid: the index can only drop).  In a leader block of the
most pulled arm A the other indexes are below U0 + k (t - t0) (the tangents, and
f(t) - f(t0) <= (t - t0)(1 + c / log t0) / t0), and A's index is at least
kl_ucb(w, f(t0) / n_end) along a segment whose lowest possible mean is w and last count n_end: the
segment is accepted when that exceeds the others' bound (a kl comparison).  An exact step
computes the indexes in decreasing order of their upper bounds until the best value found
exceeds every remaining bound (an arm below it cannot tie), usually one or two inversions
instead of K.

**One source, two engines.**  The method is written once, as the kernels of
:mod:`dpb.policies._tape_kernel`, which are the specification.  ``engine="numba"`` (the default)
runs them compiled; ``engine="python"`` runs the same functions uncompiled
(:func:`~dpb.policies._tape_kernel.uncompiled`), about a hundred times slower, for reading and
debugging.  The two draw the same numbers from the same generators in the same order, so one seed
gives the same run under both, on every machine.  The kernel is called for a bounded number of
decisions at a time, so Ctrl-C stops a run within a fraction of a second.

See ``benchmarks/README.md`` for the speed.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from .._jit import announce_compile, engine_name
from .base import Recorder

__all__ = ["ENGINES", "check_engine", "simulate_imed_fast", "simulate_klucb_fast"]

#: The engines of the fast paths: the kernels compiled by numba, or the same code as Python.
ENGINES = ("numba", "python")
_KERNEL_BUDGET = 1 << 15  # decisions per call of a kernel (Ctrl-C is seen between calls)
_KERNEL_SIZES = (64, 1024)  # initial places per arm's tape and for the stretches (doubled on demand)


def simulate_imed_fast(means: ArrayLike, T: int, env_generators: Sequence[np.random.Generator],
                       policy_generators: Sequence[np.random.Generator], recorder: Recorder,
                       engine: str | None = None, *, _wrong: int = 0) -> None:
    """Exact fast IMED simulation of ``len(env_generators)`` runs into ``recorder``
    (``engine`` as in :func:`simulate_klucb_fast`)."""
    _simulate("IMED", means, T, 0.0, env_generators, policy_generators, recorder, engine, _wrong)


def simulate_klucb_fast(means: ArrayLike, T: int, env_generators: Sequence[np.random.Generator],
                        policy_generators: Sequence[np.random.Generator], recorder: Recorder, c: float = 0.0,
                        engine: str | None = None, *, _wrong: int = 0) -> None:
    """Exact fast KL-UCB simulation of ``len(env_generators)`` runs into ``recorder``.

    ``engine``: ``"numba"`` (the kernels compiled) or ``"python"`` (the same kernels uncompiled:
    the same numbers, slower); None is the default of the environment variable ``DPB_JIT``
    (``"0"``: python, otherwise numba).  ``_wrong`` (tests only) selects a deliberately wrong
    certification of the kernels (``FIRST_STEP``, ``END_MEAN`` of
    ``dpb.policies._tape_kernel``) whose rejection the exact-law tests show.
    """
    _simulate("KL-UCB", means, T, float(c), env_generators, policy_generators, recorder, engine, _wrong)


def check_engine(engine: str | None) -> str:
    """``engine`` checked (one of :data:`ENGINES`), or the default (``DPB_JIT``) for None."""
    if engine is None:
        return engine_name()
    if engine not in ENGINES:
        raise ValueError(f"engine must be 'numba' or 'python', got {engine!r}")
    return engine


@functools.cache
def _kernels(engine: str):
    from . import _tape_kernel  # (imports numba: only when a fast run is asked for)

    if engine == "numba":
        announce_compile(_tape_kernel.__file__)  # once, when numba's disk cache is cold
    return _tape_kernel if engine == "numba" else _tape_kernel.uncompiled(_tape_kernel)


def _simulate(name, means, T, c, env_generators, policy_generators, recorder, engine, wrong) -> None:
    env_generators, policy_generators = list(env_generators), list(policy_generators)
    if len(env_generators) != len(policy_generators):
        raise ValueError("env_generators and policy_generators must have the same length")
    means = np.asarray(means, dtype=float)
    T = int(T)
    if T < means.size:
        raise ValueError(f"T must be >= K={means.size} (every arm is pulled once first), got T={T}")
    kernels = _kernels(check_engine(engine))
    for r, (ge, gp) in enumerate(zip(env_generators, policy_generators, strict=True)):
        arms, lengths = _run(kernels, name, means, T, c, ge, gp, int(wrong))
        recorder.record_runs(r, 1, arms, lengths)


def _run(kernels, name: str, means, T: int, c: float, env_gen, pol_gen, wrong: int):
    """One exact run of IMED or KL-UCB by ``kernels``: its stretches (arms, lengths).  The kernel
    is called for at most ``_KERNEL_BUDGET`` decisions at a time, so that an interrupt is handled
    between calls."""
    K = means.size
    steps = kernels.klucb_steps if name == "KL-UCB" else kernels.imed_steps
    places, out = _KERNEL_SIZES[0], max(_KERNEL_SIZES[1], K + 2)

    def zeros(*shape, dtype=np.int64):
        return np.zeros(shape, dtype=dtype)

    run = kernels.TapeRun(means, T, c, zeros(K), zeros(K), zeros(2), zeros(K, places), zeros(K, places),
                          zeros(K), zeros(K, 4, dtype=float), np.full(K, -1, dtype=np.int64), zeros(out),
                          zeros(out))
    status = 1
    while status:
        status = steps(run, env_gen, pol_gen, _KERNEL_BUDGET, wrong)
        if status == 2:  # the kernel asks for room: double the tapes, or the stretches
            if run.tn.max() + kernels.ROOM > run.tl.shape[1]:
                run = run._replace(tl=np.concatenate([run.tl, np.zeros_like(run.tl)], axis=1),
                                   ts=np.concatenate([run.ts, np.zeros_like(run.ts)], axis=1))
            else:
                run = run._replace(oarm=np.concatenate([run.oarm, np.zeros_like(run.oarm)]),
                                   olen=np.concatenate([run.olen, np.zeros_like(run.olen)]))
    n = int(run.st[1])
    return run.oarm[:n].copy(), run.olen[:n].copy()
