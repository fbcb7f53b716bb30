"""The floor of the batched private policies, measured: minimal compiled runs beside ``dpb.simulate``.

The floor (:func:`floor_runs` for DP-KLUCB and DP-IMED, Algorithm 1; :func:`floor_dpse` and
:func:`floor_adap` for the baselines DP-SE and AdaP-KLUCB/UCB in the same style) is the least a
simulator of the algorithm can do: numba, one run
per loop iteration, the same batches (``dpb.batching``), one exact Binomial(B, mu_a) draw per phase
and one Laplace draw per phase from one numpy ``Generator`` for the whole cell (no per-run seeds,
no checkpoints: only the final regret), and the same index formulas (the scalar maths of
``dpb.policies._scalar``).  ``dpb.simulate`` runs the same cells with everything it promises (runs
replayable one by one, regret at the 200 default checkpoints).  Both are timed in this process in
CPU seconds (``time.process_time``), the minimum of ``--repeat`` calls after one warm-up call
(compilation excluded); the figure is the ratio dpb / floor.  A report, never a timed test::

    .venv/bin/python benchmarks/bench_floor.py                 # 4,096 runs, T = 1e6 and 1e7
    .venv/bin/python benchmarks/bench_floor.py --runs 512 --T 1e6   # a quick look

The script uses only what every version of dpb has (``simulate``, ``batching``, ``_scalar``), so
the same file measures an older checkout (``PYTHONPATH=old/checkout``) for a before/after table.
"""

from __future__ import annotations

import argparse
import math
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
            if step < K:
                arm = step
            elif imed:
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
            else:
                arm, best = 0, -math.inf
                for k in range(K):
                    x = min(max(S[k] / n[k], 0.0), 1.0)
                    v = _d_eps_ucb(x, math.log(t) / n[k], eps)
                    if v > best or (v == best and rng.random() < 0.5):
                        arm, best = k, v
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
            delta = 2.0 ** -e
            log8 = math.log(8.0 * m * e * e / beta)
            log4 = math.log(4.0 * m * e * e / beta)
            R = int(math.ceil(min(max(32.0 * log8 / delta**2, 8.0 * log4 / (eps * delta)), 2.0**62 / m)))
            if R * m > rem:  # round-robin to the horizon
                for k in range(K):
                    if act[k]:
                        reg += rem / m * gaps[k]
                break
            best = -math.inf
            for k in range(K):
                if act[k]:
                    mu[k] = (rng.binomial(R, means[k]) + rng.laplace(0.0, 1.0) / eps) / R
                    best = max(best, mu[k])
                    reg += R * gaps[k]
            radius = 2.0 * (math.sqrt(log8 / (2.0 * R)) + log4 / (eps * R))
            for k in range(K):
                if act[k] and best - mu[k] > radius:
                    act[k] = False
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
                arm, best = 0, -math.inf
                lt = math.log(t)
                for k in range(K):
                    level = alpha * lt / last[k]
                    if ucb:
                        v = mu[k] + math.sqrt(0.5 * level) + level / eps
                    else:
                        v = _kl_ucb(min(max(mu[k] + level / eps, 0.0), 1.0), level)
                    if v > best or (v == best and rng.random() < 0.5):
                        arm, best = k, v
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
    floor_s, floor_reg = _min_cpu(
        lambda: _floor(policy, np.random.default_rng(2025), means, gaps, sizes, T, eps, runs), repeat)
    dpb_s, res = _min_cpu(
        lambda: dpb.simulate(policy, env, T, runs=runs, seed=2025, eps=eps, max_seconds=None), repeat)
    return {"cell": f"{policy} {env} eps {eps} T 1e{round(math.log10(T))}", "dpb": dpb_s, "floor": floor_s,
            "ratio": dpb_s / floor_s, "dpb_regret": float(res.final_regret.mean()),
            "floor_regret": float(floor_reg.mean())}


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
    print(f"dpb {dpb.__file__}; {args.runs} runs per cell; CPU seconds, minimum of {args.repeat}")
    print("| cell | dpb (s) | floor (s) | dpb / floor | mean regret dpb | mean regret floor |")
    print("| --- | --- | --- | --- | --- | --- |")
    for T in args.T:
        for policy in args.policies:
            for env in args.envs:
                for eps in args.eps:
                    m = measure(policy, env, eps, int(T), args.runs, args.repeat)
                    print(f"| {m['cell']} | {m['dpb']:.3f} | {m['floor']:.3f} | {m['ratio']:.2f} | "
                          f"{m['dpb_regret']:.1f} | {m['floor_regret']:.1f} |", flush=True)


if __name__ == "__main__":
    main()
