"""Benchmark of the batched private policies' engines, side by side in one run (CPU-seconds).

For DP-IMED and DP-KLUCB cells of the paper (20 runs): the default fast path (compiled
runs), the Python version of the same runs (``DPB_JIT=0``) and the
generic phase engine (``fast=False``); all three give the same numbers (tests/test_fast_batched.py).
Then the compiled kernel's one-off costs: compiling it (a fresh numba cache directory, in a new
process) and loading it from that cache (a second process).  A report, not a timed test::

    .venv/bin/python benchmarks/bench_batched.py
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time

import numpy as np

from dpb.simulate import simulate

CELLS = [  # (policy, env, T, params)
    ("DP-IMED", "sweep", 10**7, {"eps": 0.01, "n0": 1, "alpha": 1.1}),
    ("DP-IMED", "sweep", 10**7, {"eps": 0.1, "n0": 1, "alpha": 1.1}),
    ("DP-IMED", "sweep", 10**7, {"eps": 1.0, "n0": 1, "alpha": 1.1}),
    ("DP-IMED", "mu1", 10**6, {"eps": 0.25, "n0": 1, "alpha": 2}),
    ("DP-KLUCB", "mu1", 10**6, {"eps": 0.25, "n0": 1, "alpha": 2}),
]
ENGINES = {"default": ("1", True), "numpy": ("0", True), "generic": ("0", False)}


def _cpu(cell, jit: str, fast: bool, repeat: int) -> tuple[float, object]:
    os.environ["DPB_JIT"] = jit
    best, res = np.inf, None
    for _ in range(repeat):
        t0 = time.process_time()
        res = simulate(cell[0], cell[1], cell[2], runs=20, seed=2025, params=cell[3], fast=fast)
        best = min(best, time.process_time() - t0)
    return best, res


def _one_off(cache_dir: str) -> float:
    code = ("import time; t = time.process_time(); from dpb.simulate import simulate; "
            "simulate('DP-IMED', 'mu1', 100, seed=0, params={'eps': 0.5}); "
            "print(time.process_time() - t)")
    env = {**os.environ, "NUMBA_CACHE_DIR": cache_dir, "DPB_JIT": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return float(out.stdout.strip())


def main() -> None:
    _cpu(CELLS[0], "1", True, 1)  # load the kernel once
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; CPU-s per 20-run cell, "
          "best of 5\n")
    print("| policy | setting | T | phases/run | default | numpy lock-step | generic engine "
          "| numpy / default | same numbers |")
    print("|---|---|---|---|---|---|---|---|---|")
    for cell in CELLS:
        times, results = {}, {}
        for name, (jit, fast) in ENGINES.items():
            times[name], results[name] = _cpu(cell, jit, fast, 5)
        same = all(np.array_equal(results[n].regret, results["default"].regret)
                   and np.array_equal(results[n].pulls, results["default"].pulls) for n in results)
        eps = cell[3]["eps"]
        print(f"| {cell[0]} | {cell[1]}, eps={eps:g}, alpha={cell[3]['alpha']:g} | {cell[2]:.0e} "
              f"| {results['default'].n_phases.mean():.0f} | {times['default']:.4f} | {times['numpy']:.4f} "
              f"| {times['generic']:.4f} | {times['numpy'] / times['default']:.1f}x | {same} |")
    os.environ["DPB_JIT"] = "1"
    with tempfile.TemporaryDirectory(prefix="dpb-numba-") as cache_dir:
        first = _one_off(cache_dir)
        second = _one_off(cache_dir)
    print(f"\nfirst process with an empty numba cache (import dpb.simulate, compile, one tiny run): "
          f"{first:.2f} CPU-s; next process (load from the cache): {second:.2f} CPU-s")


if __name__ == "__main__":
    main()
