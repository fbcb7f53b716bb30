"""The lock-step fast path of a per-step policy of one's own (:class:`~dpb.policies.PerStepPolicy`).

The generic phase engine (:func:`dpb.engine.run_phases`) runs a per-step policy one round at a
time: per round a plan, a check, a truncation, a Python loop over runs for the rewards and a
recorder call, about 0.25 ms of overhead per round on top of the user's index.  Here all runs of
a cell advance together, with the same draws and the same arithmetic, hence the same numbers:

* **Rewards.**  A Bernoulli reward is numpy's ``binomial(1, p)``: one uniform of the run's
  environment generator compared with a threshold (:class:`BernoulliStream`, which reproduces
  numpy's inversion sampler bit for bit, and consumes no uniform for ``p = 0``, as numpy).  Each
  run pre-draws its uniforms in blocks and uses them in order.
* **Look-ahead.**  Between two decisions only the pulled arm's statistics and ``t`` change, so
  the states a run reaches while it keeps pulling its current arm ``g`` are known in advance
  (from the next uniforms).  One call of ``empirical_index`` evaluates, for every run, the rows
  of its next ``L`` rounds under the guess "``g`` again" (``L`` adapts per run); the rounds up
  to the first row whose decision is not a clear ``g`` (another arm, a tie or a bad index) are
  accepted, and that row's decision is made exactly as the generic engine does (a tie draws one
  uniform of the run's policy generator, :func:`~dpb.policies.base.pick_max`).  Rows after it
  are discarded unread.  So every decision is the rule's decision at the run's true state; the
  index must only be a function of each row alone (``lookahead = False`` in the class turns
  look-ahead off: one row per run and round).
* **Recording.**  Each run's arms go to a log; the regret is accumulated pull by pull in the
  generic engine's order (a cumulative sum from the run's regret so far), once per block of
  rounds of the log.

If a uniform drawn for a block would make numpy's sampler draw a second one for its pull
(``U - q^n > p q^n / q``, probability below ``2**-50`` per draw), the cell is run again on the
generic engine from the saved generator states.
"""

from __future__ import annotations

import math
from typing import cast

import numpy as np

from ..plans import check_index

__all__ = ["BernoulliStream", "simulate_per_step", "LOOKAHEAD_MAX", "LAST_COUNTS"]

#: The most rows (rounds) of look-ahead per run and call of the index.
LOOKAHEAD_MAX = 64
#: What the last call of :func:`simulate_per_step` did: calls of the index, rows evaluated,
#: decisions made (for ``benchmarks/bench_per_step.py`` and the cost model's constants).
LAST_COUNTS = {"calls": 0, "rows": 0, "decisions": 0}
#: Uniforms pre-drawn per run and refill, and rounds of a run's arm log between two recordings:
#: 4096, fewer for many runs (at most about 2**23 buffered uniforms in all), at least 256 (and
#: more than K plus the look-ahead).
_BLOCK = 4096


def _block(R: int, K: int) -> int:
    return int(max(min(_BLOCK, max(256, 2**23 // max(R, 1))), K + LOOKAHEAD_MAX + 2))


class _Redraw(Exception):
    """numpy's sampler would have drawn a second uniform for one pull (see the module docstring)."""


class BernoulliStream:
    """Bernoulli rewards of ``R`` runs exactly as ``generator.binomial(1, means[a])`` draws them.

    numpy's binomial sampler (inversion for ``n p <= 30``) on ``n = 1`` uses ``p' = min(p, 1 - p)``,
    ``q = 1 - p'``, ``q^n = exp(log q)`` and returns ``1`` (or ``0`` when ``p > 1/2``) iff
    ``U > q^n`` for one ``U = next_double``; ``p = 0`` returns 0 without a draw.  The thresholds are
    computed here with the C library's ``exp`` and ``log`` as numpy does (``math``, not numpy's
    vector functions), so a uniform gives numpy's reward bit for bit (tested against
    ``Generator.binomial``).
    """

    def __init__(self, means: np.ndarray, generators) -> None:
        means = np.asarray(means, dtype=float)
        self.generators = list(generators)
        self.R = len(self.generators)
        self.block = _block(self.R, means.size)
        thr, redraw, flip = [], [], []
        for p in means.tolist():
            if p == 0.0:
                thr.append(math.inf)
                redraw.append(math.inf)
                flip.append(False)
                continue
            pp = p if p <= 0.5 else 1.0 - p
            q = 1.0 - pp
            qn = math.exp(1.0 * math.log(q))
            thr.append(qn)
            redraw.append((pp * qn) / q)
            flip.append(p > 0.5)
        self.thr, self.redraw = np.array(thr), np.array(redraw)
        self.flip = np.array(flip)
        self.uses = (means != 0.0).astype(np.int64)  # uniforms per pull of each arm
        self.buf = np.empty((self.R, self.block))
        self.ptr = np.full(self.R, self.block, dtype=np.int64)

    def ensure(self, runs: np.ndarray, need: np.ndarray) -> None:
        """Make at least ``need[i]`` unread uniforms available to run ``runs[i]`` (in stream order)."""
        short = runs[self.block - self.ptr[runs] < need]
        for r in short.tolist():
            left = self.buf[r, self.ptr[r]:].copy()
            self.buf[r, : left.size] = left
            self.buf[r, left.size:] = self.generators[r].random(self.block - left.size)
            self.ptr[r] = 0

    def rewards(self, u: np.ndarray, arms: np.ndarray) -> np.ndarray:
        """The rewards (0.0 or 1.0) that the uniforms ``u`` give to pulls of ``arms``."""
        thr = self.thr[arms]
        hit = u > thr
        if (hit & (u - thr > self.redraw[arms])).any():
            raise _Redraw
        return (hit ^ self.flip[arms]).astype(float)

    def state(self) -> list:
        return [g.bit_generator.state for g in self.generators]


def _record(rec, r: int, t0: int, arms: np.ndarray) -> None:
    """Rounds ``t0 .. t0 + len(arms) - 1`` of run ``r``: the generic engine's recording, pull by
    pull (regret accumulated in the same order: a cumulative sum from the run's regret so far)."""
    cg = np.cumsum(np.concatenate(([rec.reg[r]], rec.gaps[arms])))[1:]
    hi = int(np.searchsorted(rec.ck, t0 + arms.size - 1, side="right"))
    lo = int(rec.next[r])
    if hi > lo:
        rec.regret[r, lo:hi] = cg[rec.ck[lo:hi] - t0]
    rec.next[r] = hi
    rec.reg[r] = cg[-1]
    rec.pulls[r] += np.bincount(arms, minlength=rec.K)
    rec.phases[r] += arms.size


def simulate_per_step(policy, means, T: int, env_generators, policy_generators, recorder) -> None:
    """Simulate ``len(env_generators)`` runs of the per-step ``policy`` in lock step (module
    docstring); the same numbers as :func:`dpb.engine.run_phases`, which runs the cell instead in
    the (astronomically rare) case of a second uniform for one pull."""
    means = np.asarray(means, dtype=float)
    saved = ([g.bit_generator.state for g in env_generators],
             [g.bit_generator.state for g in policy_generators],
             {name: getattr(recorder, name).copy() for name in ("regret", "pulls", "reg", "next", "phases")})
    try:
        _lockstep(policy, means, T, env_generators, policy_generators, recorder)
    except _Redraw:
        from ..engine import run_phases

        for g, s in zip((*env_generators, *policy_generators), (*saved[0], *saved[1]), strict=True):
            g.bit_generator.state = s
        for name, value in saved[2].items():
            getattr(recorder, name)[...] = value
        run_phases(policy, means, T, list(env_generators), list(policy_generators), recorder)


def _lockstep(policy, means, T, env_generators, policy_generators, rec) -> None:
    K = means.size
    policy.start(K, T, policy_generators)
    R = policy.R
    N, S = policy.N, policy.S
    stream = BernoulliStream(means, env_generators)
    all_runs = np.arange(R)
    log = np.empty((R, stream.block + LOOKAHEAD_MAX + 1), dtype=np.int16 if K < 2**15 else np.int64)
    fill = np.zeros(R, dtype=np.int64)
    logged = np.ones(R, dtype=np.int64)  # first round of each run's log
    # rounds 1..K: every arm once, in order (the initial round robin)
    stream.ensure(all_runs, np.full(R, K))
    for a in range(K):
        arm = np.full(R, a)
        S[:, a] += stream.rewards(stream.buf[all_runs, stream.ptr], arm)
        stream.ptr += stream.uses[a]
        N[:, a] += 1
    policy._next_init[:] = K
    log[:, :K] = np.arange(K)
    fill[:] = K
    t = np.full(R, K + 1, dtype=np.int64)
    sign = 1.0 if policy.index_kind == "max" else -1.0
    look = LOOKAHEAD_MAX if getattr(policy, "lookahead", True) else 1
    span = np.full(R, min(4, look), dtype=np.int64)  # rows of look-ahead per run
    guess = np.zeros(R, dtype=np.int64)
    act = all_runs[t <= T]
    calls = rows_seen = 0
    while act.size:
        L = np.minimum(span[act], T - t[act] + 1)
        g = guess[act]
        full = fill[act] + L + 1 > log.shape[1]
        for i in np.flatnonzero(full).tolist():
            r = int(act[i])
            _record(rec, r, int(logged[r]), log[r, : fill[r]])
            logged[r] += fill[r]
            fill[r] = 0
        stream.ensure(act, L + 1)
        M = int(L.sum())
        starts = np.cumsum(L) - L
        run_of = np.repeat(np.arange(act.size), L)
        j = np.arange(M) - starts[run_of]
        g_row = g[run_of]
        rr = act[run_of]
        # the reward of the j-th pull of g from now, and the sum of the pulls before it
        u = stream.buf[rr, stream.ptr[rr] + j * stream.uses[g_row]]
        rew = stream.rewards(u, g_row)
        incl = np.cumsum(rew)
        incl -= np.repeat(incl[starts] - rew[starts], L)
        n_rows = N[rr]
        s_rows = S[rr]
        rows = np.arange(M)
        n_rows[rows, g_row] += j
        s_rows[rows, g_row] += incl - rew
        calls += 1
        rows_seen += M
        index = policy.empirical_index(s_rows / n_rows, n_rows, (t[rr] + j)[:, None])
        values = np.asarray(index)
        if values.shape != (M, K) or values.dtype == object or values.dtype.kind not in "iuf":
            check_index(policy, values, M, K)  # raises, naming the policy and the rule
        v = sign * values.astype(float, copy=False)  # pick_min is pick_max of the negated index
        nan = cast(np.ndarray, np.isnan(v).any(axis=1))  # (numpy's stubs: a bool or an array)
        tied = v == v.max(axis=1, keepdims=True)
        n_tied = tied.sum(axis=1)
        choice = np.argmax(tied, axis=1)
        clear = (n_tied == 1) & (choice == g_row) & ~nan
        acc = np.minimum.reduceat(np.where(clear, M, j), starts)
        acc = np.minimum(acc, L)  # rounds of g accepted; acc < L: row acc decides exactly
        keep = j < acc[run_of]
        log[rr[keep], fill[rr[keep]] + j[keep]] = g_row[keep]
        got = np.zeros(act.size)
        took = acc > 0
        got[took] = incl[(starts + acc - 1)[took]]
        N[act, g] += acc
        S[act, g] += got
        stream.ptr[act] += acc * stream.uses[g]
        fill[act] += acc
        dec = np.flatnonzero(acc < L)
        if dec.size:
            at = starts[dec] + acc[dec]
            if nan[at].any():
                check_index(policy, values[at], dec.size, K)  # raises: a NaN index
            runs = act[dec]
            d = _decide(tied[at], n_tied[at], choice[at], runs, policy.rand)
            stream.ensure(runs, np.ones(dec.size, dtype=np.int64))
            r_d = stream.rewards(stream.buf[runs, stream.ptr[runs]], d)
            stream.ptr[runs] += stream.uses[d]
            N[runs, d] += 1
            S[runs, d] += r_d
            log[runs, fill[runs]] = d
            fill[runs] += 1
            guess[runs[acc[dec] == 0]] = d[acc[dec] == 0]
        t[act] += acc + (acc < L)
        span[act] = np.where(acc == L, np.minimum(2 * L, look), np.clip(2 * acc + 2, 1, look))
        act = act[t[act] <= T]
    LAST_COUNTS.update(calls=calls, rows=rows_seen, decisions=int(R * (T - K)))
    for r in range(R):
        if fill[r]:
            _record(rec, r, int(logged[r]), log[r, : fill[r]])


def _decide(tied: np.ndarray, n_tied: np.ndarray, choice: np.ndarray, runs: np.ndarray, rand) -> np.ndarray:
    """The arms of :func:`~dpb.policies.base.pick_max` from its own intermediate arrays: the only
    best arm, or among tied ones the arm a uniform of the run's tie-break stream picks (the same
    draws and arithmetic)."""
    multi = np.flatnonzero(n_tied > 1)
    if multi.size:
        u = rand.uniform(runs[multi])
        k = np.minimum((u * n_tied[multi]).astype(np.int64), n_tied[multi] - 1)
        rank = np.cumsum(tied[multi], axis=1) - 1
        choice[multi] = np.argmax(tied[multi] & (rank == k[:, None]), axis=1)
    return choice
