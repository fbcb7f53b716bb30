"""Benchmark of dpb.simulate: CPU seconds per cell, ratios to the reference, growth in T, seeds.

Run (one core is enough)::

    .venv/bin/python benchmarks/bench_simulate.py            # all tables (about 5-10 minutes)
    .venv/bin/python benchmarks/bench_simulate.py --quick    # smaller horizons, a smoke run

Everything is measured in one process, in CPU seconds of this process (``time.process_time``):
the development machine is shared, and wall-clock time would mostly measure the other users.
It prints three tables, side by side with the targets of the issue; it is a report, not a timed
test.

1. **Cells**: per policy, the 20-run cell at ``T`` (default 10^6) on mu1 and mu2, and its ratio to
   the literal per-step reference (:mod:`dpb.reference`).  The reference's cost per round does not
   depend on T (one Python step per round, by construction), so it is timed on 2 runs at
   ``T_ref = 10^4`` and scaled linearly to ``T`` and 20 runs.
2. **Growth**: per policy, the 20-run cell on mu2 at T = 10^4 ... 10^7 (10^8 for the batched
   policies with ``--full``), and the fitted exponent b of cost ~ T^b over T >= 10^5.
3. **Seeds**: for the per-step policies on mu1, 20 cells of 20 runs with root seeds 0..19: the
   median and the worst cell (the issue's bound: worst <= 3 x median).
4. **Engines**: IMED and KL-UCB's fast paths have two engines, the compiled numba kernel (the
   default) and the Python one (``DPB_JIT=0``); the same 20-run cells through both, side by side,
   and the ratio (the issue admits a compiled helper only at >= 3x over the best numpy version).
   The first compiled call of a process loads the kernels from numba's disk cache (or compiles
   them, about 10-20 s, when the cache is cold); it is printed, and excluded from the cells.

Tables 1-3 use the default engine of each policy.
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
RUNS = 20
POLICIES = [
    # name, params, target CPU seconds per 20-run cell at T = 1e6 (None: no target)
    ("DP-KLUCB", {"eps": EPS}, 0.2),
    ("DP-IMED", {"eps": EPS}, 0.2),
    ("DP-SE", {"eps": EPS}, 0.2),
    ("AdaP-KLUCB", {"eps": EPS}, 0.2),
    ("AdaP-UCB", {"eps": EPS}, None),
    ("IMED", {}, 1.0),
    ("KL-UCB", {}, 1.0),
    ("Lazy-DP-TS", {"eps": EPS}, 1.0),
]
PER_STEP = ("IMED", "KL-UCB", "Lazy-DP-TS")
ENGINES = ("IMED", "KL-UCB")  # fast paths whose kernels run compiled or as Python


def cpu_cell(name, params, env, T, runs=RUNS, seed=0, engine=None):
    """CPU seconds of one cell (and its result); ``engine`` as in :func:`dpb.simulate.simulate`."""
    t0 = time.process_time()
    res = simulate(name, env, T, runs=runs, seed=seed, params=params, engine=engine)
    return time.process_time() - t0, res


def engines(T: int, envs: list[str]) -> None:
    print(f"\n## 4. Engines of the IMED and KL-UCB fast paths: CPU s per {RUNS}-run cell, T = {T:.0e}\n")
    head = " | ".join(f"{e}: python | {e}: numba | {e}: ratio" for e in envs)
    print(f"| policy | {head} |")
    print("|" + "---|" * (1 + 3 * len(envs)))
    for name, params, _ in POLICIES:
        if name not in ENGINES:
            continue
        row = [name]
        for env in envs:
            cpu_cell(name, params, env, min(T, 10_000), runs=2, engine="python")  # warm-up
            py = cpu_cell(name, params, env, T, engine="python")[0]
            nb = cpu_cell(name, params, env, T, engine="numba")[0]
            row += [f"{py:.3f}", f"{nb:.3f}", f"{py / nb:.1f}x"]
        print("| " + " | ".join(row) + " |", flush=True)


def cells(T: int, T_ref: int, envs: list[str]) -> None:
    print(f"\n## 1. CPU seconds per cell (K = 5, T = {T:.0e}, {RUNS} runs, eps = {EPS})\n")
    print(f"Reference: 2 runs at T = {T_ref:.0e}, scaled linearly to T and {RUNS} runs.\n")
    head = "| policy | target (s) | " + " | ".join(
        f"{e}: s/cell | {e}: mean regret | {e}: ratio to reference" for e in envs
    )
    print(head + " |")
    print("|" + "---|" * (2 + 3 * len(envs)))
    for name, params, target in POLICIES:
        row = [name, "-" if target is None else f"<= {target:g}"]
        for env in envs:
            cpu_cell(name, params, env, min(T, 10_000), runs=2)  # warm-up (imports, caches)
            dt, res = cpu_cell(name, params, env, T)
            t0 = time.process_time()
            reference_simulate(name, env, T_ref, runs=2, seed=0, params=res.params)
            ref = (time.process_time() - t0) / 2 * (T / T_ref) * RUNS
            row += [f"{dt:.3f}", f"{res.final_regret.mean():.1f}", f"{ref / dt:.0f}x"]
        print("| " + " | ".join(row) + " |", flush=True)


def growth(horizons: list[int], env: str, full: bool) -> None:
    print(f"\n## 2. Growth in T: CPU seconds per {RUNS}-run cell on {env} (eps = {EPS})\n")
    cols = " | ".join(f"T = {T:.0e}" for T in horizons)
    print(f"| policy | {cols} | fitted b (cost ~ T^b, T >= 1e5) |")
    print("|" + "---|" * (len(horizons) + 2))
    for name, params, _ in POLICIES:
        times = []
        for T in horizons:
            if T > 10**7 and (name in PER_STEP or not full):
                times.append(np.nan)
                continue
            times.append(cpu_cell(name, params, env, T)[0])
        t = np.array(times)
        h = np.array(horizons, dtype=float)
        use = (h >= 1e5) & np.isfinite(t)
        slope = np.polyfit(np.log(h[use]), np.log(t[use]), 1)[0] if use.sum() >= 2 else np.nan
        cols = ["-" if not np.isfinite(x) else f"{x:.3f}" for x in t]
        print(f"| {name} | " + " | ".join(cols) + f" | {slope:.2f} |", flush=True)


def seeds(T: int, env: str, n_seeds: int) -> None:
    print(f"\n## 3. Seeds: {n_seeds} cells of {RUNS} runs (root seeds 0..{n_seeds - 1}), {env}, T = {T:.0e}")
    print()
    print("| policy | median s/cell | worst s/cell | worst / median | worst seed |")
    print("|---|---|---|---|---|")
    for name, params, _ in POLICIES:
        if name not in PER_STEP:
            continue
        t = np.array([cpu_cell(name, params, env, T, seed=s)[0] for s in range(n_seeds)])
        med = float(np.median(t))
        print(
            f"| {name} | {med:.3f} | {t.max():.3f} | {t.max() / med:.2f} | {int(t.argmax())} |",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="T = 1e5 cells, growth to 1e6, 5 seeds")
    parser.add_argument("--full", action="store_true", help="growth of the batched policies up to 1e8")
    parser.add_argument("--envs", nargs="+", default=["mu1", "mu2"], help="environments of the cells")
    parser.add_argument("--seeds-T", type=float, default=1e5, help="horizon of the seeds table")
    parser.add_argument("--only", choices=["cells", "growth", "seeds", "engines"],
                        help="print one table only")
    parser.add_argument("--growth-env", default="mu2", help="environment of the growth table")
    parser.add_argument("--policies", nargs="+", choices=[p[0] for p in POLICIES],
                        help="only these policies (e.g. --policies Lazy-DP-TS)")
    args = parser.parse_args()
    if args.policies:
        POLICIES[:] = [p for p in POLICIES if p[0] in args.policies]
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"# bench_simulate  ({platform.python_version()}, numpy {np.__version__}, "
        f"{os.cpu_count()} cpus, load average {load:.1f} at start; CPU seconds of this process)"
    )
    for name, params, _ in POLICIES:  # the first compiled call of the process: load or compile
        if name in ENGINES:
            dt = cpu_cell(name, params, "mu1", 1000, runs=1, engine="numba")[0]
            print(f"{name}: first call of the compiled kernel {dt:.2f} s (numba's cache load, or compile)")
    if args.only in (None, "cells"):
        cells(10**5 if args.quick else 10**6, 10**4 if not args.quick else 2000, args.envs)
    if args.only in (None, "growth"):
        top = 6 if args.quick else (8 if args.full else 7)
        growth([10**k for k in range(4, top + 1)], args.growth_env, args.full)
    if args.only in (None, "seeds"):
        seeds(int(args.seeds_T), "mu1", 5 if args.quick else 20)
    if args.only in (None, "engines"):
        engines(10**5 if args.quick else 10**6, args.envs)


if __name__ == "__main__":
    main()
