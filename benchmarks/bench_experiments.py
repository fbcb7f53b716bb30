"""Benchmark of ``python -m dpb reproduce all``: every experiment of the paper, from scratch.

Runs the command line twice in a fresh results directory -- cold (everything computed) and warm
(everything reused: tables and figures only) -- and reports wall-clock seconds, the CPU-seconds of
the simulations (measured in the workers and recorded in every result file), their split by policy
and by experiment, and the machine's load average around the run (the machine may be shared: the
CPU-seconds are the load-independent number).  A report, not a timed test::

    .venv/bin/python benchmarks/bench_experiments.py            # the paper's scale (a few minutes)
    .venv/bin/python benchmarks/bench_experiments.py --quick    # --horizon 1e5 --runs 5 --n-eps 20
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from dpb import experiments as E

ROOT = Path(__file__).resolve().parents[1]


def cli(args: list[str]) -> tuple[float, float, str]:
    """Run ``python -m dpb`` with ``args``; returns (wall seconds, CPU-s of reaped children, stdout)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "dpb", *args], capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "MPLBACKEND": "Agg"}, check=False)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode:
        sys.exit(f"python -m dpb {' '.join(args)} failed:\n{proc.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="T = 1e5, 5 runs, 20 budgets")
    parser.add_argument("--jobs", type=int, default=None, help="worker processes (default: usable cores)")
    parser.add_argument("--top", type=int, default=15, help="list the TOP most expensive cells")
    parser.add_argument("--out", type=Path, default=None,
                        help="results directory (default: a fresh temporary directory)")
    args = parser.parse_args()
    scale = ["--horizon", "100000", "--runs", "5", "--n-eps", "20"] if args.quick else []
    jobs = [] if args.jobs is None else ["--jobs", str(args.jobs)]
    tmp = tempfile.TemporaryDirectory(prefix="dpb-bench-") if args.out is None else None
    out = Path(tmp.name) if tmp else args.out
    print(f"# python -m dpb reproduce all {' '.join(scale)}  (out: {out})")
    print(f"python {platform.python_version()}, {os.cpu_count()} cores "
          f"({len(os.sched_getaffinity(0))} usable), load average before: "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    common = ["reproduce", "all", "--out", str(out), "--no-progress", *scale, *jobs]
    cold_wall, cold_cpu, text = cli(common)
    load_after = os.getloadavg()
    warm_wall, warm_cpu, _ = cli(common)
    exps = [E.experiment(n, **({"T": 100_000, "runs": 5, "n_eps": 20} if args.quick else {}))
            for n in E.EXPERIMENT_NAMES]
    by_policy: dict[str, float] = {}
    by_exp = {}
    seen = set()
    for exp in exps:
        res = E.load(exp, out)
        by_exp[exp.name] = res.cpu_seconds()
        for cell, r in res.results.items():
            if cell not in seen:
                seen.add(cell)
                by_policy[cell.policy] = by_policy.get(cell.policy, 0.0) + float(r.extra["cpu_seconds"])
    total = sum(by_policy.values())
    print(f"load average after the cold run: {' '.join(f'{x:.2f}' for x in load_after)}\n")
    print("| run | wall (s) | simulation CPU-s (sum over result files) | CPU-s of the command's process |")
    print("|---|---|---|---|")
    print(f"| cold (everything computed) | {cold_wall:.1f} | {total:.1f} | {cold_cpu:.1f} |")
    print(f"| warm (everything cached: tables + figures) | {warm_wall:.1f} | 0 | {warm_cpu:.1f} |")
    print("\n| policy | CPU-s | share |\n|---|---|---|")
    for name, sec in sorted(by_policy.items(), key=lambda kv: -kv[1]):
        print(f"| {name} | {sec:.1f} | {100 * sec / total:.0f}% |")
    print("\n| policy | setting | T | runs | CPU-s |\n|---|---|---|---|---|")
    heavy = sorted(((float(r.extra["cpu_seconds"]), cell) for exp in exps
                    for cell, r in E.load(exp, out).results.items()), key=lambda x: -x[0])
    shown = set()
    for sec, cell in heavy:
        if cell in shown or len(shown) >= args.top:
            continue
        shown.add(cell)
        eps = "" if cell.eps is None else f", eps={cell.eps:g}"
        print(f"| {cell.policy} | {cell.env}{eps} | {cell.T:.0e} | {cell.runs} | {sec:.2f} |")
    print("\n| experiment | cells | CPU-s (shared IMED cells counted in both) |\n|---|---|---|")
    for exp in exps:
        print(f"| {exp.name} | {len(exp)} | {by_exp[exp.name]:.1f} |")
    print(f"\nideal wall time on {len(os.sched_getaffinity(0))} idle cores: about "
          f"{total / len(os.sched_getaffinity(0)):.0f} s of simulation + process start-up")
    print("\n--- summary printed by the command (cold run) ---")
    print(text)
    if tmp:
        tmp.cleanup()


if __name__ == "__main__":
    main()
