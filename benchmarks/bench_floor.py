"""The floor of the batched private policies, measured: minimal compiled runs beside ``dpb.simulate``.

The floor (:func:`floor_runs` for DP-KLUCB and DP-IMED, Algorithm 1; :func:`floor_dpse` and
:func:`floor_adap` for the baselines DP-SE and AdaP-KLUCB/UCB in the same style) is the least a
simulator of the algorithm can do: numba, one run
per loop iteration, the same batches (``dpb.batching``), one exact Binomial(B, mu_a) draw per phase
and one Laplace draw per phase from one numpy ``Generator`` for the whole cell (no per-run seeds,
no checkpoints: only the final regret), and the same index formulas (the scalar maths of
``dpb.policies._scalar``).  Each has a same-output twin (:func:`floor_runs_curves`,
:func:`floor_dpse_curves`, :func:`floor_adap_curves`): the same runs, which also write what dpb
produces, the regret of every run at the checkpoints of dpb's result for the cell, into a new
(runs, checkpoints) float64 array; a phase is round robin over its arms, so the regret inside it is
linear in the count of pulls (:func:`check_curves` checks a few runs of each cell against a
recomputation one round at a time).  ``dpb.simulate`` runs the same cells with everything it
promises (runs replayable one by one, regret at the default checkpoints: 190 at T = 10^6, 193 at 10^7).
All are timed in this process in CPU seconds (``time.process_time``), the minimum of ``--repeat``
calls after one warm-up call (compilation excluded); the figures are the ratios dpb / final-only
floor and dpb / same-output floor, the latter the fair one for an engine whose product is the
regret curve.  A report, never a timed test::

    .venv/bin/python benchmarks/bench_floor.py                 # 4,096 runs, T = 1e6 and 1e7
    .venv/bin/python benchmarks/bench_floor.py --runs 512 --T 1e6   # a quick look

The script uses only what every version of dpb has (``simulate``, ``batching``, ``_scalar``), so
the same file measures an older checkout (``PYTHONPATH=old/checkout``) for a before/after table.
"""

from __future__ import annotations

import argparse
import math
import os
import time

import numba
import numpy as np
from numba.extending import register_jitable

import dpb
from dpb.batching import make_schedule
from dpb.environments import as_bandit
from dpb.policies import _scalar

try:  # dpb's deterministic log/exp, which the scalar maths calls, compiled (versions after issue 32)
    from dpb import _detmath_kernels  # noqa: F401
except ImportError:
    pass

_kl = register_jitable(_scalar.kl)
_kl_ucb = register_jitable(_scalar.kl_ucb)
_terms = register_jitable(_scalar.d_eps_terms)
_below = register_jitable(_scalar.d_eps_below)


@register_jitable
def _d_eps_ucb(x, c, eps):
    if c >= eps * (1.0 - x):
        return 1.0
    if x <= 0.0:
        edge = 0.0
    elif x >= 1.0:
        edge = 1.0
    else:
        edge = max(1.0 / (1.0 + math.exp(-(math.log(x / (1.0 - x)) + eps))), x)
    if c > _kl(x, edge):
        return min(max(math.expm1(-(c + eps * x)) / math.expm1(-eps), x), 1.0)
    return _kl_ucb(x, c)


@register_jitable
def _batched_arm(rng, imed, S, n, t, eps):
    """The arm of a minimal Algorithm 1 after the first pulls: DP-IMED's smallest index
    n_k d_eps^-(x_k, x*) + log n_k, or DP-KLUCB's largest d_eps-UCB at budget log t (ties at random)."""
    K = S.size
    if imed:
        x_star = 0.0
        for k in range(K):
            x_star = max(x_star, min(max(S[k] / n[k], 0.0), 1.0))
        z, lt = _terms(x_star, eps)
        arm, best = 0, math.inf
        for k in range(K):
            x = min(max(S[k] / n[k], 0.0), 1.0)
            v = n[k] * _below(x, x_star, z, lt, eps) + math.log(n[k])
            if v < best or (v == best and rng.random() < 0.5):
                arm, best = k, v
        return arm
    arm, best = 0, -math.inf
    for k in range(K):
        x = min(max(S[k] / n[k], 0.0), 1.0)
        v = _d_eps_ucb(x, math.log(t) / n[k], eps)
        if v > best or (v == best and rng.random() < 0.5):
            arm, best = k, v
    return arm


@register_jitable
def _dpse_epoch(m, e, eps, beta):
    """(R_e, elimination radius 2 (h_e + c_e)) of DP-SE's epoch e with m active arms."""
    delta = 2.0 ** -e
    log8 = math.log(8.0 * m * e * e / beta)
    log4 = math.log(4.0 * m * e * e / beta)
    R = int(math.ceil(min(max(32.0 * log8 / delta**2, 8.0 * log4 / (eps * delta)), 2.0**62 / m)))
    return R, 2.0 * (math.sqrt(log8 / (2.0 * R)) + log4 / (eps * R))


@register_jitable
def _dpse_phase(rng, act, mu, means, gaps, R, radius, eps):
    """One complete epoch of DP-SE: R pulls of every active arm (one Binomial and one Laplace draw
    each, in arm order), then the elimination; returns the epoch's regret."""
    added, best = 0.0, -math.inf
    for k in range(means.size):
        if act[k]:
            mu[k] = (rng.binomial(R, means[k]) + rng.laplace(0.0, 1.0) / eps) / R
            best = max(best, mu[k])
            added += R * gaps[k]
    for k in range(means.size):
        if act[k] and best - mu[k] > radius:
            act[k] = False
    return added


@register_jitable
def _adap_arm(rng, ucb, mu, last, t, alpha, eps):
    """The arm of an AdaP episode: the largest AdaP-UCB or AdaP-KLUCB index (ties at random)."""
    arm, best = 0, -math.inf
    lt = math.log(t)
    for k in range(mu.size):
        level = alpha * lt / last[k]
        if ucb:
            v = mu[k] + math.sqrt(0.5 * level) + level / eps
        else:
            v = _kl_ucb(min(max(mu[k] + level / eps, 0.0), 1.0), level)
        if v > best or (v == best and rng.random() < 0.5):
            arm, best = k, v
    return arm


@numba.njit(cache=True)
def floor_runs(rng, imed, means, gaps, sizes, T, eps, runs):
    """Final regret of ``runs`` runs of DP-KLUCB (``imed`` False) or DP-IMED, all from ``rng``."""
    K = means.size
    last = sizes.size - 1
    out = np.empty(runs)
    S = np.zeros(K)
    n = np.zeros(K, dtype=np.int64)
    ph = np.zeros(K, dtype=np.int64)
    for r in range(runs):
        S[:] = 0.0
        n[:] = 0
        ph[:] = 0
        t = 1
        step = 0
        reg = 0.0
        while t <= T:
            arm = step if step < K else _batched_arm(rng, imed, S, n, t, eps)
            c = min(sizes[min(ph[arm], last)], T - t + 1)
            S[arm] += rng.binomial(c, means[arm]) + rng.laplace(0.0, 1.0) / eps
            n[arm] += c
            ph[arm] += 1
            reg += c * gaps[arm]
            t += c
            step += 1
        out[r] = reg
    return out


@numba.njit(cache=True)
def floor_dpse(rng, means, gaps, T, eps, beta, runs):
    """Final regret of ``runs`` runs of DP-SE (elimination by the radius 2 (h_e + c_e)), all from
    ``rng``: each epoch every active arm R_e times (cut at the horizon), one Binomial and one
    Laplace draw per active arm, then elimination; a single arm left takes the rest."""
    K = means.size
    out = np.empty(runs)
    act = np.ones(K, dtype=np.bool_)
    mu = np.zeros(K)
    for r in range(runs):
        act[:] = True
        t, e, reg = 1, 0, 0.0
        while t <= T:
            m = act.sum()
            rem = T - t + 1
            if m == 1:
                for k in range(K):
                    if act[k]:
                        reg += rem * gaps[k]
                break
            e += 1
            R, radius = _dpse_epoch(m, e, eps, beta)
            if R * m > rem:  # round-robin to the horizon
                for k in range(K):
                    if act[k]:
                        reg += rem / m * gaps[k]
                break
            reg += _dpse_phase(rng, act, mu, means, gaps, R, radius, eps)
            t += R * m
        out[r] = reg
    return out


@numba.njit(cache=True)
def floor_adap(rng, ucb, means, gaps, T, eps, alpha, runs):
    """Final regret of ``runs`` runs of AdaP-KLUCB (``ucb`` False) or AdaP-UCB, all from ``rng``:
    one pull of each arm, then episodes doubling the chosen arm's count, each with a fresh private
    mean (one Binomial and one Laplace draw)."""
    K = means.size
    out = np.empty(runs)
    mu = np.zeros(K)
    last = np.zeros(K, dtype=np.int64)
    N = np.zeros(K, dtype=np.int64)
    for r in range(runs):
        mu[:] = 0.0
        last[:] = 0
        N[:] = 0
        t, step, reg = 1, 0, 0.0
        while t <= T:
            if step < K:
                arm, want = step, 1
            else:
                arm = _adap_arm(rng, ucb, mu, last, t, alpha, eps)
                want = N[arm]
            c = min(want, T - t + 1)
            mu[arm] = (rng.binomial(c, means[arm]) + rng.laplace(0.0, 1.0) / eps) / c
            last[arm] = c
            N[arm] += c
            reg += c * gaps[arm]
            t += c
            step += 1
        out[r] = reg
    return out


# ----------------------------------------------------------------------------------------------
# the same-output floors: what dpb produces, the regret of every run at every checkpoint
# ----------------------------------------------------------------------------------------------
@register_jitable
def _record(out, r, ck, j, t, total, G, m, reg, naive, reg_n):
    """Write the checkpoints ``ck[j:]`` that fall in a phase of ``total`` pulls from round ``t``,
    round robin over ``m`` arms whose gap prefix sums are ``G[:m + 1]`` (in the order pulled), the
    regret before the phase ``reg``: after the phase's n-th pull it is reg + (n // m) G_m + G_{n mod m}
    (for one arm reg + n G_1).  Returns (next checkpoint index, regret after the phase when
    ``naive``).  ``naive`` (the check of :func:`check_curves`): walk the phase pull by pull, adding
    one gap per round to the run's own running regret ``reg_n`` and writing it at each checkpoint."""
    C = ck.size
    end = t + total - 1
    if naive:
        for i in range(total):
            reg_n += G[i % m + 1] - G[i % m]
            if j < C and ck[j] == t + i:
                out[r, j] = reg_n
                j += 1
        return j, reg_n
    if m == 1:
        while j < C and ck[j] <= end:
            out[r, j] = reg + (ck[j] - t + 1) * G[1]
            j += 1
    else:
        while j < C and ck[j] <= end:
            n = ck[j] - t + 1
            out[r, j] = reg + (n // m) * G[m] + G[n % m]
            j += 1
    return j, reg_n


@numba.njit(cache=True)
def floor_runs_curves(rng, imed, means, gaps, sizes, T, eps, ck, out, naive=False):
    """:func:`floor_runs` with the regret of run r at the checkpoints ``ck`` in row r of ``out``
    (shape (runs, len(ck))): the same draws in the same order."""
    K = means.size
    last = sizes.size - 1
    S = np.zeros(K)
    n = np.zeros(K, dtype=np.int64)
    ph = np.zeros(K, dtype=np.int64)
    G = np.zeros(2)
    for r in range(out.shape[0]):
        S[:] = 0.0
        n[:] = 0
        ph[:] = 0
        t = 1
        step = 0
        reg = 0.0
        j, reg_n = 0, 0.0
        while t <= T:
            arm = step if step < K else _batched_arm(rng, imed, S, n, t, eps)
            c = min(sizes[min(ph[arm], last)], T - t + 1)
            S[arm] += rng.binomial(c, means[arm]) + rng.laplace(0.0, 1.0) / eps
            n[arm] += c
            ph[arm] += 1
            G[1] = gaps[arm]
            j, reg_n = _record(out, r, ck, j, t, c, G, 1, reg, naive, reg_n)
            reg += c * gaps[arm]
            t += c
            step += 1
    return out


@numba.njit(cache=True)
def floor_dpse_curves(rng, means, gaps, T, eps, beta, ck, out, naive=False):
    """:func:`floor_dpse` with the regret of run r at the checkpoints ``ck`` in row r of ``out``: the
    same draws in the same order; an epoch cut at the horizon is pulled round robin (the first
    ``rem mod m`` active arms once more), as dpb does, where :func:`floor_dpse` counts rem / m pulls
    of each."""
    K = means.size
    act = np.ones(K, dtype=np.bool_)
    mu = np.zeros(K)
    G = np.zeros(K + 1)
    for r in range(out.shape[0]):
        act[:] = True
        t, e, reg = 1, 0, 0.0
        j, reg_n = 0, 0.0
        while t <= T:
            m = 0
            for k in range(K):
                if act[k]:
                    G[m + 1] = G[m] + gaps[k]
                    m += 1
            rem = T - t + 1
            if m == 1:
                _record(out, r, ck, j, t, rem, G, 1, reg, naive, reg_n)
                break
            e += 1
            R, radius = _dpse_epoch(m, e, eps, beta)
            if R * m > rem:  # round-robin to the horizon
                _record(out, r, ck, j, t, rem, G, m, reg, naive, reg_n)
                break
            j, reg_n = _record(out, r, ck, j, t, R * m, G, m, reg, naive, reg_n)
            reg += _dpse_phase(rng, act, mu, means, gaps, R, radius, eps)
            t += R * m
    return out


@numba.njit(cache=True)
def floor_adap_curves(rng, ucb, means, gaps, T, eps, alpha, ck, out, naive=False):
    """:func:`floor_adap` with the regret of run r at the checkpoints ``ck`` in row r of ``out``:
    the same draws in the same order."""
    K = means.size
    mu = np.zeros(K)
    last = np.zeros(K, dtype=np.int64)
    N = np.zeros(K, dtype=np.int64)
    G = np.zeros(2)
    for r in range(out.shape[0]):
        mu[:] = 0.0
        last[:] = 0
        N[:] = 0
        t, step, reg = 1, 0, 0.0
        j, reg_n = 0, 0.0
        while t <= T:
            if step < K:
                arm, want = step, 1
            else:
                arm = _adap_arm(rng, ucb, mu, last, t, alpha, eps)
                want = N[arm]
            c = min(want, T - t + 1)
            mu[arm] = (rng.binomial(c, means[arm]) + rng.laplace(0.0, 1.0) / eps) / c
            last[arm] = c
            N[arm] += c
            G[1] = gaps[arm]
            j, reg_n = _record(out, r, ck, j, t, c, G, 1, reg, naive, reg_n)
            reg += c * gaps[arm]
            t += c
            step += 1
    return out


def _floor_curves(policy: str, rng, means, gaps, sizes, T: int, eps: float, ck, runs: int, naive=False):
    """The same-output floor of ``policy``: a new (runs, len(ck)) array of the regret of every run
    at the checkpoints ``ck`` (allocated here, as dpb allocates its own)."""
    out = np.empty((runs, ck.size))
    if policy in ("DP-KLUCB", "DP-IMED"):
        return floor_runs_curves(rng, policy == "DP-IMED", means, gaps, sizes, T, eps, ck, out, naive)
    if policy == "DP-SE":
        return floor_dpse_curves(rng, means, gaps, T, eps, 1.0 / T, ck, out, naive)
    if policy in ("AdaP-KLUCB", "AdaP-UCB"):
        return floor_adap_curves(rng, policy == "AdaP-UCB", means, gaps, T, eps, 3.1, ck, out, naive)
    raise ValueError(f"no floor for policy {policy!r}")


def check_curves(policy: str, means, gaps, sizes, T: int, eps: float, ck, runs: int = 8) -> None:
    """Check the same-output floor of ``policy`` on ``runs`` runs: its curves against the naive
    recomputation (the same runs, the same draws, the regret summed one round at a time and read
    at each checkpoint) to 1e-9 relative, its last column against the final regret of the
    final-only floor (exactly for the single-arm phases of DP-KLUCB, DP-IMED and AdaP; for DP-SE
    to within the largest gap, since its final-only floor counts rem / m pulls of each arm of an
    epoch cut at the horizon), every entry finite and the curves nondecreasing.  Raises AssertionError."""
    fast = _floor_curves(policy, np.random.default_rng(7), means, gaps, sizes, T, eps, ck, runs)
    slow = _floor_curves(policy, np.random.default_rng(7), means, gaps, sizes, T, eps, ck, runs, naive=True)
    final = _floor(policy, np.random.default_rng(7), means, gaps, sizes, T, eps, runs)
    if not (np.isfinite(fast).all() and np.all(np.diff(fast, axis=1) >= 0)):
        raise AssertionError(f"{policy}: the same-output floor's curves are not finite and nondecreasing")
    if not np.allclose(fast, slow, rtol=1e-9, atol=0.0):
        raise AssertionError(f"{policy}: the same-output floor's curves differ from the naive recomputation "
                             f"(largest difference {np.abs(fast - slow).max():g})")
    exact = policy != "DP-SE"
    if not (np.array_equal(fast[:, -1], final) if exact else np.allclose(fast[:, -1], final, rtol=0.0,
                                                                         atol=float(gaps.max()))):
        raise AssertionError(f"{policy}: the same-output floor's final regret differs from the final-only "
                             "floor's")


def _floor(policy: str, rng, means, gaps, sizes, T: int, eps: float, runs: int):
    if policy in ("DP-KLUCB", "DP-IMED"):
        return floor_runs(rng, policy == "DP-IMED", means, gaps, sizes, T, eps, runs)
    if policy == "DP-SE":
        return floor_dpse(rng, means, gaps, T, eps, 1.0 / T, runs)
    if policy in ("AdaP-KLUCB", "AdaP-UCB"):
        return floor_adap(rng, policy == "AdaP-UCB", means, gaps, T, eps, 3.1, runs)
    raise ValueError(f"no floor for policy {policy!r}")


def _min_cpu(f, repeat: int):
    f()  # warm-up (compilation, caches)
    best, value = math.inf, None
    for _ in range(repeat):
        t0 = time.process_time()
        value = f()
        best = min(best, time.process_time() - t0)
    return best, value


def measure(policy: str, env: str, eps: float, T: int, runs: int, repeat: int) -> dict:
    bandit = as_bandit(env)
    means = np.asarray(bandit.means, dtype=float)
    gaps = np.asarray(bandit.gaps, dtype=float)
    sizes = np.ascontiguousarray(make_schedule(None, n0=1, alpha=2).sizes_until(T), dtype=np.int64)
    dpb_s, res = _min_cpu(
        lambda: dpb.simulate(policy, env, T, runs=runs, seed=2025, eps=eps, max_seconds=None), repeat)
    ck = np.ascontiguousarray(res.checkpoints, dtype=np.int64)  # dpb's checkpoints of this cell
    check_curves(policy, means, gaps, sizes, T, eps, ck)
    floor_s, floor_reg = _min_cpu(
        lambda: _floor(policy, np.random.default_rng(2025), means, gaps, sizes, T, eps, runs), repeat)
    same_s, same_reg = _min_cpu(
        lambda: _floor_curves(policy, np.random.default_rng(2025), means, gaps, sizes, T, eps, ck, runs),
        repeat)
    return {"cell": f"{policy} {env} eps {eps} T 1e{round(math.log10(T))}", "dpb": dpb_s, "floor": floor_s,
            "same": same_s, "ratio": dpb_s / floor_s, "ratio_same": dpb_s / same_s, "C": ck.size,
            "dpb_regret": float(res.final_regret.mean()), "floor_regret": float(floor_reg.mean()),
            "same_regret": float(same_reg[:, -1].mean())}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=4096)
    ap.add_argument("--T", type=float, nargs="+", default=[1e6, 1e7])
    ap.add_argument("--eps", type=float, nargs="+", default=[0.1, 0.25, 1.0])
    ap.add_argument("--envs", nargs="+", default=["mu1", "mu2"])
    ap.add_argument("--policies", nargs="+",
                    default=["DP-KLUCB", "DP-IMED", "DP-SE", "AdaP-KLUCB", "AdaP-UCB"])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    print(f"dpb {dpb.__file__}; {args.runs} runs per cell; CPU seconds, minimum of {args.repeat}; "
          f"load {os.getloadavg()[0]:.1f}")
    print("| cell | dpb (s) | floor, final only (s) | floor, same output (s) | dpb / final-only | "
          "dpb / same-output | mean regret dpb | mean regret floor |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for T in args.T:
        for policy in args.policies:
            for env in args.envs:
                for eps in args.eps:
                    m = measure(policy, env, eps, int(T), args.runs, args.repeat)
                    print(f"| {m['cell']} | {m['dpb']:.3f} | {m['floor']:.3f} | {m['same']:.3f} | "
                          f"{m['ratio']:.2f} | {m['ratio_same']:.2f} | {m['dpb_regret']:.1f} | "
                          f"{m['same_regret']:.1f} |", flush=True)
    print(f"load at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
