"""Benchmark of dpb.audit: one empirical privacy audit with 10^5 runs per list at a small horizon.

Run (one core; wall-clock, so a busy machine inflates the numbers)::

    .venv/bin/python benchmarks/bench_audit.py            # DP-IMED and DP-KLUCB, 1e5 runs, T = 30
    .venv/bin/python benchmarks/bench_audit.py --all      # also the other private policies

Target (the issue): an audit of one policy with 1e5 runs at small T in under a minute on one core.
It prints the time split into simulation (both lists) and the event search; it is a report, not a
timed test.
"""

from __future__ import annotations

import argparse
import os
import platform
import time

import numpy as np

from dpb.audit import audit, audit_lists_default, make_audit_policy
from dpb.interaction import run_on_list

TARGET = 60.0


def one(name: str, eps: float, runs: int, T: int, t_star: int, pattern: str, seed: int = 0) -> None:
    r, rp = audit_lists_default(T, t_star, pattern)
    pol = make_audit_policy(name, eps)
    t0 = time.perf_counter()
    tr1 = run_on_list(pol, r, runs, seed=seed)
    tr2 = run_on_list(pol, rp, runs, seed=seed, offset=runs)
    t1 = time.perf_counter()
    res = audit(tr1, tr2, t_star, eps=eps)
    t2 = time.perf_counter()
    total = t2 - t0
    flag = "ok" if total <= TARGET else "SLOW"
    print(f"| {name} | {eps:g} | {runs:.0e} | {T} | {t1 - t0:.1f} | {t2 - t1:.1f} | {total:.1f} | {flag} "
          f"| {res.eps_lower:.3f} | {res.eps_hat:.3f} |", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--all", action="store_true", help="benchmark every private policy")
    ap.add_argument("--runs", type=int, default=100_000)
    args = ap.parse_args()
    print(f"python {platform.python_version()}, numpy {np.__version__}, load {os.getloadavg()[0]:.2f}")
    print(f"\nTarget: <= {TARGET:.0f} s for one audit (both lists, event search and estimate)\n")
    print("| policy | eps | runs/list | T | simulate (s) | audit (s) | total (s) | target | eps_lower "
          "| eps_hat |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    one("DP-IMED", 1.0, args.runs, 30, 1, "ones")
    one("DP-KLUCB", 1.0, args.runs, 30, 1, "alternate")
    if args.all:
        one("AdaP-KLUCB", 1.0, args.runs, 30, 1, "ones")
        one("DP-SE", 1.0, args.runs, 30, 1, "ones")
        one("Lazy-DP-TS", 1.0, args.runs // 10, 20, 1, "ones")
        one("DP-IMED [fresh-mean-noise]", 1.0, args.runs, 40, 2, "ones")


if __name__ == "__main__":
    main()
