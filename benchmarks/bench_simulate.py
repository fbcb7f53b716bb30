"""Benchmark of dpb.simulate: wall-clock per cell, and the fast path against the reference.

Run (one core is enough; the numbers are wall-clock, so a busy machine inflates them)::

    .venv/bin/python benchmarks/bench_simulate.py            # the full table (about 1-2 minutes)
    .venv/bin/python benchmarks/bench_simulate.py --quick    # T = 1e5, for a smoke run

Prints two tables side by side with the targets of the issue; it is a report, not a timed test.
"""

from __future__ import annotations

import argparse
import os
import platform
import time

import numpy as np

from dpb.reference import reference_simulate
from dpb.simulate import simulate

EPS = 0.25
POLICIES = [
    # name, params, target seconds per cell (T = 1e6, 20 runs), or None
    ("DP-KLUCB", {"eps": EPS}, 0.2),
    ("DP-IMED", {"eps": EPS}, 0.2),
    ("DP-SE", {"eps": EPS}, 0.2),
    ("AdaP-KLUCB", {"eps": EPS}, 0.2),
    ("AdaP-UCB", {"eps": EPS}, None),
    ("IMED", {}, 10.0),
    ("KL-UCB", {}, None),
    ("Lazy-DP-TS", {"eps": EPS}, 20.0),
]
BATCHED = ["DP-KLUCB", "DP-IMED", "DP-SE", "AdaP-KLUCB"]


def cells(T: int, runs: int, envs: list[str]) -> None:
    print(f"\n## Fast path: seconds per cell (K = 5, T = {T:.0e}, {runs} runs, eps = {EPS})\n")
    head = "| policy | target (s) | " + " | ".join(
        f"{e}: s/cell | {e}: phases/run | {e}: mean regret" for e in envs
    )
    print(head + " |")
    print("|" + "---|" * (2 + 3 * len(envs)))
    for name, params, target in POLICIES:
        row = [name, "-" if target is None else f"<= {target:g}"]
        for env in envs:
            simulate(name, env, min(T, 10_000), runs=2, seed=0, params=params)  # warm-up (imports, caches)
            t0 = time.perf_counter()
            res = simulate(name, env, T, runs=runs, seed=0, params=params)
            dt = time.perf_counter() - t0
            row += [f"{dt:.3f}", f"{np.median(res.n_phases):.0f}", f"{res.final_regret.mean():.1f}"]
        print("| " + " | ".join(row) + " |", flush=True)


def ratios(horizons: list[int], ref_runs: dict) -> None:
    print(f"\n## Fast path vs the literal per-step reference (env mu1, eps = {EPS}; times per run)\n")
    print(
        "| policy | T | fast ms/run (20 runs) | fast ms/run (200 runs) | reference ms/run "
        "| ratio (20) | ratio (200) |"
    )
    print("|---|---|---|---|---|---|---|")
    for name in BATCHED:
        params = {"eps": EPS}
        for T in horizons:
            per_run = {}
            for runs in (20, 200):
                t0 = time.perf_counter()
                res = simulate(name, "mu1", T, runs=runs, seed=0, params=params)
                per_run[runs] = (time.perf_counter() - t0) / runs
            t0 = time.perf_counter()
            reference_simulate(name, "mu1", T, runs=ref_runs[T], seed=0, params=res.params)
            ref = (time.perf_counter() - t0) / ref_runs[T]
            print(
                f"| {name} | {T:.0e} | {per_run[20] * 1e3:.2f} | {per_run[200] * 1e3:.2f} "
                f"| {ref * 1e3:.0f} | {ref / per_run[20]:.0f}x | {ref / per_run[200]:.0f}x |",
                flush=True,
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="T = 1e5 instead of 1e6 for the cells")
    parser.add_argument("--envs", nargs="+", default=["mu1", "mu2"], help="environments of the cells")
    args = parser.parse_args()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"# bench_simulate  ({platform.python_version()}, numpy {np.__version__}, "
        f"{os.cpu_count()} cpus, load average {load:.1f} at start)"
    )
    cells(10**5 if args.quick else 10**6, 20, args.envs)
    ratios([10**5] if args.quick else [10**5, 10**6], ref_runs={10**5: 2, 10**6: 1})


if __name__ == "__main__":
    main()
