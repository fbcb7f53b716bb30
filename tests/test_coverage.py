"""Does the converged scale's interval cover rare tails?  (issue 23, item 4)

Two checks of the rule of :mod:`dpb.experiments.scale` (first look at
:func:`~dpb.experiments.min_runs` runs, then doubling until :func:`~dpb.experiments.tail_interval`
-- the 95 % BCa interval widened for the count of rare bad runs -- is within +-10 % of the mean, or
the cap), each applied exactly as :func:`~dpb.experiments.run_converged` applies it, and each also
applied to the previous rule (first look at 320 runs, plain BCa interval).

1. **Real cells against a large reference.**  20 cells with rare heavy tails (DP-KLUCB and DP-IMED
   on mu1, mu2 and mu3 at eps = 0.1 and 0.25, T = 10^6, and eight cells of the 100-budget sweep at
   T = 10^7, eps = 0.05 to 0.25; chosen before any measurement, by the first version of this test).
   The rule runs on runs ``0, 1, ...`` of one seed; its interval is compared with the mean of ``R``
   runs of another seed, ``R = 81 920`` (four times the cap) at T = 10^6 and ``R = 40 960`` in the
   sweep, at least four times the rule's run count whatever it decides (asserted).  A reference of
   ``4 n`` runs would be as blind to tails rarer than ``1/(4 n)`` as the estimate is to tails rarer
   than ``1/n``; a fixed large one meets a one-in-a-thousand tail 40 to 80 times.  The references
   are computed once and cached in ``tests/data/coverage/`` (committed, so CI reads them; keyed by
   cell, seed, ``R`` and the provenance of the simulating code, so a change of the simulator
   recomputes them there, and the new files should be committed with the change);
   regenerating all 20 costs 211 CPU-seconds (12 s a cell at T = 10^6, 8 to 10 s in the sweep,
   measured on the 2-core development machine under load); with them cached this check costs
   about 40 CPU-seconds.

   A cell *misses* when the reference lies outside the 95 % interval of the difference of the two
   means, the estimate's interval widened on each side by ``sqrt(1 + n / R)`` (the reference's own
   error; without it even an exact interval contains a ``4 n``-run reference only 92 % of the
   time).  For a calibrated rule cells miss independently with probability 0.05; the test fails at
   5 or more misses of 20, a false-alarm rate ``P(Bin(20, 0.05) >= 5) = 0.26 %``.  Its power is
   that of 20 cells: a rule covering 80 % passes with probability 0.63, one covering 60 % with 0.05.

   Measured: the rule misses **3 of 20** (DP-KLUCB on mu3 at eps = 0.1, DP-IMED on mu1 at
   eps = 0.25, the sweep at eps = 0.08), all three underestimates, by 1.3 %, 8.8 % and 6.6 % of the
   reference; the plain interval covers 17 of 20.  That is 85 %, **below the 95 % the issue asks**:
   the test shows no gross failure (3 or more misses happen with probability 7.5 % for a calibrated
   rule), not 95 % coverage.  The old rule also misses 3 of 20 on these cells (two DP-KLUCB cells
   that stop at 320 runs, and the same DP-IMED cell), so at 20 cells this check does not tell the
   two rules apart; the second check does.

2. **A mixture with an exact mean.**  A body of mean 900 and standard deviation 250 (a gamma law)
   and, in one run in a thousand, a bad run uniform on [2e4, 1e5] (6 % of the mean): the shape of
   DP-KLUCB's regret on mu1 at eps = 0.1, with the issue's one-in-a-thousand tail.  The rule is
   applied to 100 independent samples; the test fails at 11 or more intervals missing the exact
   mean: false-alarm rate ``P(Bin(100, 0.05) >= 11) = 1.1 %``; a rule covering 85 % passes with
   probability 0.10.  Measured: the rule misses 2 of 100 (1 under, 1 over); the old rule misses
   72 of 100 (70 under: its first look at 320 runs meets no bad run with probability 0.73, and then
   stops), so :func:`test_old_rule_misses_the_tail_with_known_mean` asserts that it fails.  Cost:
   about 30 CPU-seconds for the rule, 12 for the old rule.
"""

from __future__ import annotations

import json
import math
import os
import time
import uuid
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import binom

from dpb import experiments as E
from dpb.estimates import DEFAULT_CAP, mean_interval
from dpb.experiments import scale as S
from dpb.experiments.store import chunk_provenance
from dpb.simulate import simulate

pytestmark = pytest.mark.slow

#: Seeds of the estimate's runs and of the independent reference runs.
SEED, REF_SEED = 2025, 7
#: Reference run counts: four times the cap at T <= 10^6; 40 960 in the sweep at T = 10^7 (where
#: the rule's run count stays at or below 10 240, asserted).
REF_RUNS = {10**6: 4 * DEFAULT_CAP, 10**7: 40_960}
#: where the references are kept (see the module docstring)
REF_DIR = Path(__file__).resolve().parent / "data" / "coverage"
#: Runs simulated per call when building a reference (bounds the memory of one call).
REF_CHUNK = 10_240
#: Fail at this many misses among the 20 cells: P(Bin(20, 0.05) >= 5) = 0.0026.
MAX_MISSES = 4
#: Format of the cached reference files.
REF_FORMAT = 1


def _cells():
    cells = []
    for eps in (0.1, 0.25):
        for env in ("mu1", "mu2", "mu3"):
            for pol in ("DP-KLUCB", "DP-IMED"):
                cells.append((pol, env, 10**6, E.paper_params(pol, eps)))
    sweep = {s.eps: s.cells[0] for s in E.eps_sweep().settings}
    for eps in (0.05, 0.08, 0.1, 0.12, 0.15, 0.18, 0.2, 0.25):
        c = sweep[eps]
        cells.append((c.policy, c.env, c.T, dict(c.params)))
    return cells


CELLS = _cells()


def _runs(pol, env, T, params, seed, a, b):
    return simulate(pol, env, T, seed=seed, params=params, run_ids=range(a, b), checkpoints=[T],
                    max_seconds=None).final_regret


def _ref_path(pol, env, T, params):
    name = f"{pol}_{env}_T{T:.0e}_eps{params['eps']:g}_seed{REF_SEED}_R{REF_RUNS[T]}"
    return REF_DIR / f"{name.lower().replace('+', '')}.json"


def _ref_key(pol, env, T, params):
    return {"format": REF_FORMAT, "policy": pol, "env": env, "T": T, "params": params, "seed": REF_SEED,
            "runs": REF_RUNS[T], "stamp": chunk_provenance(pol)}


def reference(pol, env, T, params):
    """Mean and standard deviation of runs ``0..R-1`` of seed :data:`REF_SEED`, read from the cache
    when its key (cell, seed, ``R``, code provenance) matches, else computed and cached."""
    path, key = _ref_path(pol, env, T, params), _ref_key(pol, env, T, params)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data["key"] == key:
            return data["mean"], data["sd"]
    except (OSError, ValueError, KeyError):
        pass
    t0 = time.process_time()
    R = REF_RUNS[T]
    x = np.concatenate([_runs(pol, env, T, params, REF_SEED, a, min(a + REF_CHUNK, R))
                        for a in range(0, R, REF_CHUNK)])
    data = {"key": key, "mean": float(x.mean()), "sd": float(x.std(ddof=1)),
            "cpu_seconds": time.process_time() - t0}
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        tmp.write_text(json.dumps(data), encoding="utf-8")
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
    return data["mean"], data["sd"]


def rule_estimate(pol, env, T, params, first, interval, seed=SEED, cap=DEFAULT_CAP):
    """The scale's rule on runs ``0, 1, ...`` of ``seed``: first look at ``first`` runs, then
    doubling until ``interval`` is within +-10 % of the mean or ``cap`` (as run_converged)."""
    x = np.empty(0)
    n = first
    while True:
        x = np.concatenate([x, _runs(pol, env, T, params, seed, x.size, n)])
        est = interval(x, S.LEVEL)
        if est.rel_half_width <= S.REL_TARGET or n >= cap:
            return est
        n *= 2


def coverage(first_runs, interval):
    """Per cell: (policy, env, T, eps, estimate, reference mean, R, covered by the interval of the
    difference, covered by the plain interval)."""
    out = []
    for pol, env, T, params in CELLS:
        est = rule_estimate(pol, env, T, params, first_runs(pol, T), interval)
        ref, _ = reference(pol, env, T, params)
        R = REF_RUNS[T]
        widen = math.sqrt(1 + est.runs / R)
        wide = est.mean - widen * (est.mean - est.lo) <= ref <= est.mean + widen * (est.hi - est.mean)
        plain = est.lo <= ref <= est.hi
        out.append((pol, env, T, params["eps"], est, ref, R, wide, plain))
    return out


def _report(rows, label):
    print(f"\n{label}")
    for pol, env, T, eps, est, ref, R, wide, plain in rows:
        print(f"  {pol:8s} {env:5s} T={T:.0e} eps={eps:<5g} n={est.runs:6d} "
              f"{est.mean:9.1f} [{est.lo:9.1f}, {est.hi:9.1f}]  ref ({R} runs) {ref:9.1f}  "
              f"{'ok' if wide else 'MISS'}{'' if plain else ' (plain miss)'}")
    misses = sum(not r[7] for r in rows)
    plain = sum(r[8] for r in rows)
    print(f"  misses {misses}/{len(rows)}; plain interval covers {plain}/{len(rows)}")
    return misses


def test_error_rates_are_as_stated():
    assert len(CELLS) >= 20
    assert 0.002 < binom.sf(MAX_MISSES, len(CELLS), 0.05) < 0.003  # false alarm, calibrated rule
    assert 0.6 < binom.cdf(MAX_MISSES, len(CELLS), 0.2) < 0.65     # passes a rule covering 80 %
    assert 0.04 < binom.cdf(MAX_MISSES, len(CELLS), 0.4) < 0.06    # passes a rule covering 60 %


def test_converged_scale_covers_rare_tails():
    rows = coverage(lambda pol, T: S.min_runs(pol, T), S.tail_interval)
    misses = _report(rows, "converged scale (first look at min_runs)")
    assert all(est.runs >= S.min_runs(pol, T) for pol, _, T, _, est, *_ in rows)
    assert all(4 * est.runs <= R for *_, est, _, R, _, _ in rows), "reference not 4x the estimate"
    assert misses <= MAX_MISSES, f"{misses} of {len(rows)} cells not covered"


# ----------------------------------------------------------------------------------------------
# the interval procedure itself, on a distribution whose mean is known exactly
# ----------------------------------------------------------------------------------------------
#: A regret-shaped mixture: a body of mean 900 and standard deviation 250 (a gamma law, as DP-KLUCB
#: on mu1 at eps = 0.1 ends in most runs) and, with probability one in a thousand, a bad run
#: uniform on [2e4, 1e5] (6 % of the mean).  Its mean is exact.
MIX_P, MIX_LO, MIX_HI, MIX_BODY, MIX_SD = 1e-3, 2e4, 1e5, 900.0, 250.0
MIX_MEAN = (1 - MIX_P) * MIX_BODY + MIX_P * (MIX_LO + MIX_HI) / 2
#: Replications of the rule on the mixture; the test fails at MIX_MAX_MISSES + 1 = 11 or more
#: intervals missing the mean: P(Bin(100, 0.05) >= 11) = 1.1 % for a rule covering 95 %.
MIX_REPS, MIX_MAX_MISSES = 100, 10


def _mixture(rng, n):
    shape = (MIX_BODY / MIX_SD) ** 2
    x = rng.gamma(shape, MIX_BODY / shape, n)
    bad = rng.random(n) < MIX_P
    x[bad] = rng.uniform(MIX_LO, MIX_HI, int(bad.sum()))
    return x


def mixture_misses(first, interval):
    """(underestimates, overestimates) among :data:`MIX_REPS` applications of the rule (first look
    at ``first`` runs, doubling, +-10 % or the cap) to independent samples of the mixture."""
    under = over = 0
    for r in range(MIX_REPS):
        rng = np.random.default_rng([11, r])
        x, n = _mixture(rng, first), first
        while True:
            est = interval(x, S.LEVEL)
            if est.rel_half_width <= S.REL_TARGET or n >= DEFAULT_CAP:
                break
            x, n = np.concatenate([x, _mixture(rng, n)]), 2 * n
        under += est.hi < MIX_MEAN
        over += est.lo > MIX_MEAN
    return under, over


def test_mixture_error_rates_are_as_stated():
    assert 0.01 < binom.sf(MIX_MAX_MISSES, MIX_REPS, 0.05) < 0.012  # false alarm
    assert 0.09 < binom.cdf(MIX_MAX_MISSES, MIX_REPS, 0.15) < 0.11   # passes a rule covering 85 %


def test_rule_covers_a_one_in_a_thousand_tail_with_known_mean():
    under, over = mixture_misses(S.TAIL_RUNS, S.tail_interval)
    print(f"\nmixture, first look at {S.TAIL_RUNS}: {under} under, {over} over of {MIX_REPS}")
    assert under + over <= MIX_MAX_MISSES


def test_old_rule_misses_the_tail_with_known_mean():
    under, over = mixture_misses(S.MIN_RUNS, mean_interval)
    print(f"\nmixture, first look at {S.MIN_RUNS}: {under} under, {over} over of {MIX_REPS}")
    assert under + over > MIX_MAX_MISSES
