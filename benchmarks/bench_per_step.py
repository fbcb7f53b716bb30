"""Benchmark of a per-step policy of one's own: CPU-microseconds per decision, before and after.

Two rules a user might write as a :class:`dpb.policies.PerStepPolicy` (one method,
``empirical_index``): a UCB-like index ``mu + sqrt(2 log t / n)`` and a KL-UCB-like index
``dpb.divergences.kl_ucb(mu, log t / n)``.  For each cell (20 runs, T = 10^5 by default) it times
the lock-step fast path (``simulate``'s default) and, with ``--before``, the generic phase engine
(``fast=False``: the only way such a policy ran before, one call of the index per round), checks
that both give the same arrays, and prints the cost guard's estimate (:func:`dpb.simulate.estimate_cost`)
against the measured CPU time.  Per decision = CPU-seconds / (runs x T).  A report, not a timed test::

    .venv/bin/python benchmarks/bench_per_step.py --before          # the table of benchmarks/README.md
    .venv/bin/python benchmarks/bench_per_step.py --T 10000 --env mu2
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from dpb.cost import call_cost
from dpb.divergences import kl_ucb
from dpb.environments import as_bandit
from dpb.policies import PerStepPolicy
from dpb.policies import _perstep
from dpb.simulate import estimate_cost, simulate


class UCBLike(PerStepPolicy, register=False):
    """UCB1's index, written as a user would."""

    name = "UCB-like (user)"

    def __init__(self) -> None:
        pass

    @property
    def params(self) -> dict:
        return {}

    def empirical_index(self, mu, n, t):
        return mu + np.sqrt(2.0 * np.log(t) / n)


class KLUCBLike(PerStepPolicy, register=False):
    """KL-UCB's index from the package's own inversion, written as a user would."""

    name = "KL-UCB-like (user)"

    def __init__(self) -> None:
        pass

    @property
    def params(self) -> dict:
        return {}

    def empirical_index(self, mu, n, t):
        return kl_ucb(mu, np.log(t) / n)


def _cpu(policy, env, T, runs, seed, fast):
    start = time.process_time()
    res = simulate(policy, env, T, runs=runs, seed=seed, fast=fast, max_seconds=None)
    return time.process_time() - start, res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--T", type=int, default=10**5)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--env", default="mu1")
    ap.add_argument("--seed", type=int, default=2025)
    ap.add_argument("--before", action="store_true", help="also time the generic engine (minutes)")
    args = ap.parse_args()
    T, R, env = args.T, args.runs, args.env
    K = as_bandit(env).K
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; {env}, T = {T:.0e}, {R} runs; "
          "CPU-s of this process\n")
    print("| policy | engine | CPU-s | us per decision | guard's estimate (s) | estimate / measured "
          "| index calls | rows per decision | same numbers |")
    print("|---|---|---|---|---|---|---|---|---|")
    for cls in (UCBLike, KLUCBLike):
        est_new = estimate_cost(cls(), env, T, R).seconds
        est_old = call_cost(cls(), K, T, R, "phases").seconds
        dt, res = _cpu(cls(), env, T, R, args.seed, True)
        c = _perstep.LAST_COUNTS
        print(f"| {cls.name} | lock-step (after) | {dt:.2f} | {dt / (R * T) * 1e6:.1f} | {est_new:.1f} | "
              f"{est_new / dt:.2f} | {c['calls']} | {c['rows'] / c['decisions']:.2f} | - |", flush=True)
        if args.before:
            dt0, res0 = _cpu(cls(), env, T, R, args.seed, False)
            same = all(np.array_equal(getattr(res, k), getattr(res0, k))
                       for k in ("regret", "pulls", "n_phases", "laplace_draws"))
            print(f"| {cls.name} | generic engine (before) | {dt0:.2f} | {dt0 / (R * T) * 1e6:.1f} | "
                  f"{est_old:.1f} | {est_old / dt0:.2f} | {T} | 1.00 | {'yes' if same else 'NO'} |",
                  flush=True)


if __name__ == "__main__":
    main()
