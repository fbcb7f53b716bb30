"""Two scales of every experiment cell: the paper's twenty runs, and a converged run count.

At the *paper* scale a cell is run twenty times, as in the paper.  At the *converged* scale the
same cell is run in the seed-deterministic blocks of :data:`dpb.estimates.BLOCK_EDGES` (runs
``0..19``, then ``20..39``, ``40..79``, ...) until the 95 % interval of its mean regret at ``T``
(:func:`tail_interval`: the BCa interval plus the error of the count of rare bad runs) lies within
``+- 10 %`` of the mean, or the cap (20 480 runs; :data:`LONG_CAP` = 10 240 at ``T > 10^6``) is
reached, looking first at :func:`min_runs`
runs.  The minimum is what makes the rule see rare tails: an interval computed from runs that never
met a rare bad event is short and wrong, so a batched cell at ``T <= 10^6`` is not looked at before
:data:`TAIL_RUNS` = 10 240 runs (a tail of one run in a thousand is then met at least once except
with probability ``0.999^10240 < 4e-5``, about ten times on average), a batched cell at a longer
horizon (the 100-budget sweep at ``T = 10^7``) before :data:`LONG_RUNS` = 2 560, and the per-step
baselines before the run counts their cost allows (:data:`PER_STEP_MIN_RUNS`).  The widening
handles the samples that met a rare event fewer times than were due, where the bootstrap, which
can only resample what it has, is too confident.  How well the intervals cover is measured, not
proved, by ``tests/test_coverage.py``: 20 of 20 real cells against a large independent reference
(80 of 80 with three more seeds of the rule's runs: coverage above 96 % at 95 % confidence; the
interval is conservative where a cell has many tail runs), 100 of 100 samples of a mixture with a
one-in-a-thousand tail and an exact mean (the test now draws the first 50 of them).  The previous
interval, the larger of the BCa interval and the count's bound instead of their sum, covered 17 of
20 real cells (73 of 80) and 98 of 100 mixtures; the rule before it, first look at 320 runs with
the plain BCa interval, 28 of 100.
Run ``i`` is the same run at both scales, so the paper's
twenty runs are the first block of the converged cell, and every block is an ordinary cached
chunk file of :mod:`dpb.experiments` (same seeds, provenance and staleness rules).

The decision (how many runs, the estimate at each checked edge) is a deterministic function of
the chunk files; it is memoised in ``<out>/converged/<cell>.json`` together with the provenance
of the chunks it read, so loading a converged experiment does not redo the bootstrap.

:func:`run_converged` computes the blocks round by round (every cell that has not converged gets its next
block; all of a round's blocks share the process pool), :func:`load_converged` reads a converged experiment
back as :class:`ConvergedResults`, :func:`ensure_converged` does both.  All of them are
importable from :mod:`dpb.experiments`; the command line reaches them as
``python -m dpb reproduce all --scale converged``.
"""

from __future__ import annotations

from typing import Any

import json
import math
import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from .._io import write_atomic
from .._validate import as_instance, as_int, as_names, as_real, as_flag
from ..bounds import lower_bound_constant
from ..policies.registry import policy_class, registered
from ..estimates import (
    BLOCK_EDGES,
    DEFAULT_CAP,
    PAPER_RUNS,
    MeanEstimate,
    mean_interval,
    seed_sensitivity,
)
from ..simulate import MAX_SECONDS
from .execution import RunReport, _kept_workers
from .execution import _run as run_cells
from .files import _as_cells
from .specs import BASELINES, DEFAULT_SEED, OURS, Cell, Experiment, experiment
from .store import ExperimentResults, MissingResultsError, _load_cell, _out_dir, chunk_provenance
from .store import _checked_result as _result
from .store import final_regret_stats
from .store import _policy_names

__all__ = [
    "SCALES",
    "MIN_RUNS",
    "TAIL_RUNS",
    "TAIL_HORIZON",
    "LONG_RUNS",
    "LONG_CAP",
    "PER_STEP",
    "PER_STEP_MIN_RUNS",
    "min_runs",
    "TAIL_FACTOR",
    "tail_interval",
    "REL_TARGET",
    "LEVEL",
    "ConvergedEstimate",
    "ConvergedResults",
    "run_converged",
    "load_converged",
    "ensure_converged",
    "converged_status",
    "expected_regret_table",
    "ordering_table",
    "expected_dominance",
    "expected_sweep_table",
    "sensitivity",
    "tail_decomposition",
]

#: The two scales of a cell.
SCALES = ("paper", "converged")
#: Target relative half-width of the 95 % interval, and its level.
REL_TARGET, LEVEL = 0.1, 0.95
#: Version of the memo files (4: :func:`tail_interval` adds the count's error to the BCa
#: interval; the cap of a cell at a horizon beyond ``10^6`` is :data:`LONG_CAP`).
MEMO_FORMAT = 4
#: A run is *rare and bad* (a tail run) when its regret at ``T`` exceeds this many times the
#: median of its cell (as :func:`tail_decomposition` counts them).
TAIL_FACTOR = 10.0
#: Minimum run count of a batched cell at ``T <= 10^6`` (:data:`TAIL_HORIZON`): the first block
#: edge at which a tail of one run in a thousand has been met at least once except with
#: probability ``0.999^n < 1e-4`` (``n >= 9206``); it is then met about ten times, enough for the
#: interval to weigh it.  A batched run costs 0.1 to 0.25 ms at ``T = 10^6`` (3 to 10 ms per twenty
#: runs, as the result files record), so such a cell costs one to three CPU-seconds.
TAIL_RUNS = 10_240
#: Horizon up to which batched cells start at :data:`TAIL_RUNS`.
TAIL_HORIZON = 10**6
#: Minimum run count of a batched cell at a longer horizon.  The 100-budget sweep at ``T = 10^7``
#: at :data:`TAIL_RUNS` would cost about four CPU-minutes and hold over a gigabyte of regret curves;
#: its cells start at 2 560 runs instead (a one-in-a-thousand tail is met with probability 0.92, a
#: two-in-a-thousand one with 0.994) and then double until the +-10 % rule passes, up to
#: :data:`LONG_CAP`.  On eight cells of the sweep ``tests/test_coverage.py`` finds every interval
#: around the mean of 40 960 independent runs (with 2 560 to 10 240 runs; the previous interval
#: missed one, at eps = 0.08).
LONG_RUNS = 2_560
#: Largest run count of a cell at a horizon beyond :data:`TAIL_HORIZON` (when the ``cap`` asked for
#: is larger): a sweep cell whose interval is still wider than +-10 % at 10 240 runs stops there,
#: flagged as not converged, rather than holding 20 480 runs of regret curves at ``T = 10^7``.
LONG_CAP = 10_240
#: The minimum of the previous rule (320: a 1 % event is met with probability 0.95); it reported,
#: e.g., DP-KLUCB on mu1 at eps = 0.1 as 917 [892, 954] where 20 000 runs give about 955.
MIN_RUNS = 320
#: Policies simulated round by round, and their minimum run counts, set by their cost: each gets
#: the block edge whose cost is closest to that of a DP-IMED cell at :data:`TAIL_RUNS` (1.5 to 1.6
#: CPU-s at ``T = 10^6``).  Measured in the result files of two builds: twenty IMED runs cost 0.10
#: to 0.13 CPU-s and twenty Lazy-DP-TS runs 1.1 to 1.2 (35 to 41 and 380 to 400 times a DP-IMED
#: cell of twenty runs), so 320 IMED runs cost 1.6 to 2.0 CPU-s (160 would cost half, 640 twice)
#: and twenty Lazy-DP-TS runs 1.1 to 1.2 (40 would cost 2.3).  Chapter 7 asserts, from the costs
#: its result files record, that both stay within a factor of two of the batched cell.  (A worker's
#: first chunk of a compiled policy also pays the numba compilation, 15-40 CPU-s, unless ``dpb
#: compile`` ran first.)  A one-in-a-thousand tail of these baselines can go unseen; the chapter
#: says so.
#: The counts are the classes' ``converged_min_runs`` (:class:`~dpb.policies.base.Policy`).
PER_STEP_MIN_RUNS = {name: cls.converged_min_runs for name, cls in registered(builtin=True).items()
                     if cls.converged_min_runs is not None}
PER_STEP = tuple(PER_STEP_MIN_RUNS)


def min_runs(policy: str, T: int = TAIL_HORIZON) -> int:
    """The minimum run count of the converged scale for ``policy`` at horizon ``T``:
    the class's ``converged_min_runs`` (``PER_STEP_MIN_RUNS``), else ``TAIL_RUNS`` when
    ``T <= TAIL_HORIZON`` and ``LONG_RUNS`` beyond (constants of ``dpb.experiments.scale``)."""
    own = policy_class(policy).converged_min_runs  # a registered policy (ValueError naming it otherwise)
    T = as_int("T", T, minimum=1)
    if own is not None:
        return own
    return TAIL_RUNS if T <= TAIL_HORIZON else LONG_RUNS


def tail_interval(x: Any, level: float = LEVEL, factor: float = TAIL_FACTOR) -> MeanEstimate:
    """The converged scale's interval of the mean of ``x``: the BCa interval
    (:func:`dpb.estimates.mean_interval`), widened by the error of the *number* of rare bad runs.

    Split the mean as :math:`\\bar x = B + k v / n`: ``k`` of the ``n`` runs exceed ``factor``
    times the median (the tail runs), ``v`` is their mean, ``B`` the other runs' part.  The count
    ``k`` is binomial, nearly Poisson with mean ``n p``; when ``k`` is a handful its relative error
    is large, and the bootstrap, which resamples around the ``k`` tail runs the sample has,
    cannot see that the sample itself met too few (a sample that met two bad runs where five were
    due looks tight).  With ``k_lo, k_up`` the exact (Garwood) Poisson bounds of the count at
    ``level``,

    .. math::

       k_{lo} = \\tfrac12\\chi^2_{2k}\\bigl(\\tfrac{1-\\ell}{2}\\bigr),\\qquad
       k_{up} = \\tfrac12\\chi^2_{2k+2}\\bigl(\\tfrac{1+\\ell}{2}\\bigr),

    the interval is ``lo = bca_lo - (k - k_lo) v / n`` and ``hi = bca_hi + (k_up - k) v / n``:
    the count's error is *added* to the bootstrap's, not compared with it.  (The previous form,
    ``max(bca_hi, mean + (k_up - k) v / n)``, covered 17 of 20 large independent references,
    ``tests/test_coverage.py``: right-skewed regrets have their smallest spread exactly when their
    mean is low, a tail run's size is itself heavy-tailed, and a sample short of tail runs is short
    of both; the sum covers all 20, and 60 of 60 with three other seeds.)  With many tail runs the
    bootstrap already sees most of the count's error and the sum is conservative, up to about twice
    the BCa half-width when the tail carries most of the variance.  A sample with no tail run
    (``k = 0``), or whose median is not positive, gets the BCa interval: a tail never met cannot
    be weighed from the sample (its rate may be up to ``3.7 / n``, its size anything up to ``T``
    times the largest gap), which is why the rule's first look is large (:func:`min_runs`).

    Parameters
    ----------
    x : array_like
        Regret at ``T`` of each run (at least two finite values).
    level : float
        Nominal coverage in (0, 1).
    factor : float
        Tail threshold in multiples of the median, in (1, 1e6].
    """
    from scipy.stats import chi2

    factor = as_real("factor", factor, low=1.0, low_open=True, high=1e6)
    try:
        est = mean_interval(x, level)  # validates x and level
    except ValueError as e:
        if str(e).startswith("n_boot"):  # too many runs for the bootstrap's resamples
            raise ValueError(f"x holds too many values for the bootstrap: {e}") from None
        raise
    x = np.asarray(x, dtype=float)
    scale = float(np.max(np.abs(x)))
    med = float(np.median(x / scale)) if scale > 0 else 0.0  # on x / scale: no overflow near 1e308
    if not med > 0:
        return est
    tail = x / scale > factor * med
    n, k = x.size, int(tail.sum())
    if k == 0:
        return est
    v = float(np.mean(x[tail] / scale))
    a = (1.0 - est.level) / 2.0
    k_lo = 0.5 * float(chi2.ppf(a, 2 * k))
    k_up = 0.5 * float(chi2.isf(a, 2 * k + 2))  # isf: finite up to level = 1 - 1e-16
    lo = est.lo - (k - k_lo) / n * v * scale
    hi = est.hi + (k_up - k) / n * v * scale
    return MeanEstimate(est.runs, est.mean, lo, hi, est.level)


@dataclass(frozen=True)
class ConvergedEstimate:
    """The converged run count of one cell and the estimate of its expected regret at ``T``.

    Attributes
    ----------
    cell : Cell
        The cell at the paper's scale (its ``runs`` is 20).
    runs : int
        The converged run count (a block edge; the cap when not converged).
    estimate : MeanEstimate
        Mean and interval (:func:`tail_interval`) of the regret at ``T`` over those runs.
    converged : bool
        False when the cap was reached first.
    checks : tuple
        ``(n, mean, lo, hi)`` at every checked edge.
    """

    cell: Cell
    runs: int
    estimate: MeanEstimate
    converged: bool
    checks: tuple


@dataclass
class ConvergedResults(ExperimentResults):
    """An experiment at the converged scale: ``results`` maps each (paper-scale) cell to the
    :class:`~dpb.simulate.Result` of its converged runs, :attr:`estimates` to its
    :class:`ConvergedEstimate`."""

    estimates: dict = field(default_factory=dict)

    def estimate(self, setting: Any, algorithm: str) -> ConvergedEstimate:
        """The estimate of ``algorithm`` in ``setting`` (a Setting or its index)."""
        s = self.settings[setting] if isinstance(setting, int) else setting
        for c in s.cells:
            if c.policy == algorithm:
                return self.estimates[c]
        raise KeyError(f"{algorithm!r} is not in setting {s.label}")


def _check(cap, rel, level):
    cap = as_int("cap", cap, minimum=PAPER_RUNS)
    if cap not in BLOCK_EDGES:
        raise ValueError(f"cap must be one of {BLOCK_EDGES}, got {cap}")
    rel = as_real("rel", rel, low=0.0, high=1.0, low_open=True, high_open=True)
    level = as_real("level", level, low=0.0, high=1.0, low_open=True, high_open=True)
    return cap, rel, level


def _cell_cap(cell: Cell, cap: int) -> int:
    """The largest run count of ``cell`` under ``cap``: :data:`LONG_CAP` beyond ``10^6``."""
    return min(cap, LONG_CAP) if cell.T > TAIL_HORIZON else cap


def _base(cell: Cell) -> Cell:
    return replace(cell, runs=PAPER_RUNS)


def _memo_path(cell: Cell, out: Path) -> Path:
    return out / "converged" / f"{cell.name}.json"


def _memo_key(cell: Cell, seed: int, cap: int, rel: float, level: float) -> dict:
    return {"format": MEMO_FORMAT, "cell": cell.key, "seed": seed, "cap": _cell_cap(cell, cap), "rel": rel,
            "level": level,
            "min_runs": min_runs(cell.policy, cell.T), "stamp": chunk_provenance(cell.policy)}


def _read_memo(cell: Cell, out: Path, seed: int, cap: int, rel: float, level: float):
    path = _memo_path(cell, out)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if data.get("key") != _memo_key(cell, seed, cap, rel, level):
        return None
    n, mean, lo, hi = data["checks"][-1]
    est = MeanEstimate(int(n), float(mean), float(lo), float(hi), level)
    return ConvergedEstimate(_base(cell), int(data["runs"]), est, bool(data["converged"]),
                             tuple(tuple(c) for c in data["checks"]))


def _write_memo(ce: ConvergedEstimate, out: Path, seed: int, cap: int, rel: float, level: float) -> None:
    data = {"key": _memo_key(ce.cell, seed, cap, rel, level), "runs": ce.runs, "converged": ce.converged,
            "checks": [list(c) for c in ce.checks]}
    write_atomic(_memo_path(ce.cell, out), lambda tmp: tmp.write_text(json.dumps(data), encoding="utf-8"))


def _targets(target) -> tuple:
    """The distinct paper-scale cells of ``target``."""
    seen: dict[Cell, None] = {}
    for c in _as_cells(target):
        seen.setdefault(_base(c), None)
    return tuple(seen)


def run_converged(target: Any, out: str | os.PathLike[str] | None = None, *, seed: int = DEFAULT_SEED,
                  jobs: int | None = None, scheduler: Any = None, progress: bool = True,
                  cap: int = DEFAULT_CAP, rel: float = REL_TARGET, level: float = LEVEL,
                  max_seconds: float | None = MAX_SECONDS) -> RunReport:
    """Compute the converged scale of ``target`` (an experiment, its name, cells or a list).

    Round ``k`` computes, through :func:`dpb.experiments.run`, the next block of every cell whose
    interval is not yet within ``+- rel`` of its mean (blocks already cached are reused), then
    checks each such cell at its new edge.  A cell stops at the first edge that passes, or at
    ``cap``; its decision is memoised.  The returned report adds up the rounds.  ``max_seconds``
    bounds the estimated cost of each chunk of the first round (the horizon a caller chose, see
    :func:`~dpb.experiments.run`); the later rounds are the rule's own doubling blocks, which the
    caller asked for by asking for this scale.
    """
    return _run_converged(target, out, seed=seed, jobs=jobs, scheduler=scheduler, progress=progress, cap=cap,
                          rel=rel, level=level, max_seconds=max_seconds, decided=None)


def _run_converged(target: Any, out: str | os.PathLike[str] | None = None, *, seed: int = DEFAULT_SEED,
                   jobs: int | None = None, scheduler: Any = None, progress: bool = True,
                   cap: int = DEFAULT_CAP, rel: float = REL_TARGET, level: float = LEVEL,
                   max_seconds: float | None = MAX_SECONDS, decided: dict | None = None) -> RunReport:
    """:func:`run_converged`; when ``decided`` is a dict, the Result of every cell decided here is
    put in it (keyed by the cell at its converged run count) for :func:`_load_converged`."""
    progress = as_flag("progress", progress)
    out = _out_dir(out)
    seed = as_int("seed", seed, minimum=0)
    cap, rel, level = _check(cap, rel, level)
    t0 = time.perf_counter()
    report = RunReport()
    pending: dict[Cell, tuple[int, list]] = {}
    for c in _targets(target):
        if _read_memo(c, out, seed, cap, rel, level) is None:
            pending[c] = (min(max(min_runs(c.policy, c.T), PAPER_RUNS), _cell_cap(c, cap)), [])
    with _kept_workers():  # one pool for all the rounds
        _rounds(pending, out, seed, jobs, scheduler, progress, cap, rel, level, max_seconds, decided, report)
    report.wall_seconds = time.perf_counter() - t0
    return report


def _rounds(pending, out, seed, jobs, scheduler, progress, cap, rel, level, max_seconds, decided,
            report) -> None:
    """The rounds of :func:`_run_converged` until every cell of ``pending`` is decided."""
    checked: dict = {}  # the cells of a round checked as soon as their block was written

    def check(cell: Cell) -> tuple:
        """(runs, interval) of a cell at its block edge; the runs only when the cell is then decided
        and ``decided`` wants them (a round's other runs are not held in memory)."""
        runs = _load_cell(cell, out, seed)
        est = tail_interval(runs.final_regret, level)
        done = est.rel_half_width <= rel or cell.runs >= _cell_cap(cell, cap)
        return (runs if done and decided is not None else None), est

    def on_cell(cell: Cell) -> None:
        checked[cell] = check(cell)

    while pending:
        edge = min(n for n, _ in pending.values())
        batch = [replace(c, runs=n) for c, (n, _) in pending.items()]
        checked.clear()
        r = run_cells(batch, out, seed=seed, jobs=jobs, scheduler=scheduler, progress=progress,
                      force=False, desc=f"converged, blocks to {edge}+ runs", max_seconds=max_seconds,
                      chunk_seconds="auto", on_cell=on_cell)
        max_seconds = None
        report.total += r.total
        report.computed += r.computed
        report.reused += r.reused
        report.cpu_seconds += r.cpu_seconds
        for k, v in r.cpu_by_policy.items():
            report.cpu_by_policy[k] = report.cpu_by_policy.get(k, 0.0) + v
        for c in list(pending):
            n, checks = pending[c]
            at = replace(c, runs=n)
            runs, est = checked.pop(at) if at in checked else check(at)
            checks.append((n, est.mean, est.lo, est.hi))
            if est.rel_half_width <= rel or n >= _cell_cap(c, cap):
                ce = ConvergedEstimate(c, n, est, est.rel_half_width <= rel, tuple(checks))
                _write_memo(ce, out, seed, cap, rel, level)
                del pending[c]
                if decided is not None:
                    decided[replace(c, runs=n)] = runs
            else:
                pending[c] = (2 * n, checks)


def converged_status(target: Any, out: str | os.PathLike[str] | None = None, *, seed: int = DEFAULT_SEED,
                     cap: int = DEFAULT_CAP,
                     rel: float = REL_TARGET, level: float = LEVEL) -> dict:
    """Counts ``{"decided": ..., "undecided": ...}`` of the cells of ``target`` at the converged
    scale (a cell is decided when its memo matches the current code, seed and rule)."""
    out, seed = _out_dir(out), as_int("seed", seed, minimum=0)
    cap, rel, level = _check(cap, rel, level)
    counts = {"decided": 0, "undecided": 0}
    for c in _targets(target):
        ok = _read_memo(c, out, seed, cap, rel, level) is not None
        counts["decided" if ok else "undecided"] += 1
    return counts


def load_converged(target: Any, out: str | os.PathLike[str] | None = None, *, seed: int = DEFAULT_SEED,
                   cap: int = DEFAULT_CAP,
                   rel: float = REL_TARGET, level: float = LEVEL) -> ConvergedResults:
    """Read an experiment at the converged scale (its runs and estimates).

    Raises
    ------
    MissingResultsError
        When a cell's decision or one of its blocks is missing or stale: call
        :func:`run_converged` first.
    """
    return _load_converged(target, out, seed, cap, rel, level, {})


def _load_converged(target, out, seed, cap, rel, level, decided: dict) -> ConvergedResults:
    """:func:`load_converged`, taking from ``decided`` (cell at its converged run count -> its
    Result, as :func:`_run_converged` read it to decide) the runs it holds instead of reading their
    files again."""
    exp = experiment(target) if isinstance(target, str) else target
    if not isinstance(exp, Experiment):
        raise TypeError(f"target must be an Experiment or an experiment name, got {target!r}")
    out, seed = _out_dir(out), as_int("seed", seed, minimum=0)
    cap, rel, level = _check(cap, rel, level)
    results, estimates = {}, {}
    for cell in exp.cells:
        ce = _read_memo(cell, out, seed, cap, rel, level)
        if ce is None:
            raise MissingResultsError(f"{cell.name} has no converged decision in {out}: run it first")
        full = replace(cell, runs=ce.runs)
        held = decided.get(full)
        results[cell] = held if held is not None else _load_cell(full, out, seed)
        estimates[cell] = ce
    return ConvergedResults(exp, results, seed, estimates)


def ensure_converged(target: Any, out: str | os.PathLike[str] | None = None, *, seed: int = DEFAULT_SEED,
                     jobs: int | None = None, scheduler: Any = None, progress: bool = True,
                     cap: int = DEFAULT_CAP, rel: float = REL_TARGET,
                     level: float = LEVEL) -> ConvergedResults:
    """:func:`run_converged` then :func:`load_converged`."""
    progress = as_flag("progress", progress)
    exp = experiment(target) if isinstance(target, str) else target
    decided: dict = {}  # the runs the decisions read, handed to the loading instead of read again
    _run_converged(exp, out, seed=seed, jobs=jobs, scheduler=scheduler, progress=progress, cap=cap, rel=rel,
                   level=level, decided=decided)
    return _load_converged(exp, out, seed, cap, rel, level, decided)


# ----------------------------------------------------------------------------------------------
# tables
# ----------------------------------------------------------------------------------------------
def _paper(res) -> ExperimentResults:
    return as_instance("paper", res, ExperimentResults, "dpb.experiments.ExperimentResults")


def _converged(res) -> ConvergedResults:
    return as_instance("converged", res, ConvergedResults, "dpb.experiments.ConvergedResults")


def expected_regret_table(paper: ExperimentResults, converged: ConvergedResults) -> list:
    """One row per (setting, algorithm): the paper-scale mean (``paper``, 20 runs) and the expected
    regret at ``T`` (``mean``, ``lo``, ``hi``: 95 % interval of :func:`tail_interval`, ``runs``:
    converged run count, ``converged``: False at the cap), and ``shift`` = paper / mean."""
    paper, converged = _paper(paper), _converged(converged)
    rows = []
    for s in converged.settings:
        p = paper.setting(paper.find(s.env, s.eps))
        for c in s.cells:
            ce = converged.estimates[c]
            pm = final_regret_stats(p[c.policy])["mean"]
            e = ce.estimate
            rows.append({"env": s.env, "eps": s.eps, "algorithm": c.policy, "paper": pm, "mean": e.mean,
                         "lo": e.lo, "hi": e.hi, "runs": ce.runs, "converged": ce.converged,
                         "shift": pm / e.mean if e.mean > 0 else math.nan})
    return rows


def ordering_table(converged: ConvergedResults, first: str = "DP-IMED", second: str = "DP-KLUCB") -> list:
    """Per setting, the expected regrets of ``first`` and ``second`` with intervals and the verdict
    ``"<"`` (first's interval entirely below second's), ``">"`` (entirely above) or ``"overlap"``."""
    converged = _converged(converged)
    present = {c.policy for s in converged.settings for c in s.cells}
    for name, value in (("first", first), ("second", second)):
        if not isinstance(value, str) or value not in present:
            raise ValueError(f"{name} must be an algorithm of every setting of converged "
                             f"({', '.join(sorted(present))}), got {value!r}")
    rows = []
    for s in converged.settings:
        a, b = converged.estimate(s, first).estimate, converged.estimate(s, second).estimate
        verdict = "<" if a.hi < b.lo else (">" if a.lo > b.hi else "overlap")
        rows.append({"env": s.env, "eps": s.eps, first: a.mean, f"{first} lo": a.lo, f"{first} hi": a.hi,
                     second: b.mean, f"{second} lo": b.lo, f"{second} hi": b.hi,
                     "ratio": a.mean / b.mean, "verdict": verdict})
    return rows


def expected_dominance(converged: ConvergedResults, baselines: Sequence[str] = BASELINES,
                       ours: Sequence[str] = OURS) -> list:
    """Per setting and for each of ``ours``: ``"yes"`` when its interval lies entirely below the
    interval of every private baseline, ``"no"`` when it lies entirely above some baseline's,
    ``"unclear"`` otherwise; plus ``ratio``, the best baseline's expected regret over the best of
    ours (as :func:`dpb.experiments.ratio_summary`, in expectation)."""
    converged = _converged(converged)
    baselines, ours = _policy_names("baselines", baselines), _policy_names("ours", ours)
    rows = []
    for s in converged.settings:
        est = {c.policy: converged.estimates[c].estimate for c in s.cells}
        base = [est[b] for b in baselines if b in est]
        mine = {a: est[a] for a in ours if a in est}
        if not base or not mine:
            continue
        row = {"env": s.env, "eps": s.eps}
        for a, e in mine.items():
            if all(e.hi < b.lo for b in base):
                row[a] = "yes"
            elif any(e.lo > b.hi for b in base):
                row[a] = "no"
            else:
                row[a] = "unclear"
        row["ratio"] = min(b.mean for b in base) / min(e.mean for e in mine.values())
        rows.append(row)
    return rows


def expected_sweep_table(paper: ExperimentResults, converged: ConvergedResults) -> list:
    """Per budget of the eps-sweep: the lower bound ``C_eps(mu) log T`` (:prf:ref:`thm-lower-bound`),
    the paper-scale ``paper_ratio`` (20-run mean over the bound), the expected regret over
    the bound ``ratio`` with its interval ``lo``, ``hi``, and the converged run count."""
    paper, converged = _paper(paper), _converged(converged)
    rows = []
    for s in converged.settings:
        (c,) = s.cells
        ce = converged.estimates[c]
        r = converged.results[c]
        lb = float(lower_bound_constant(r.means, s.eps)) * math.log(r.T)
        (p,) = paper.setting(paper.find(s.env, s.eps)).values()
        e = ce.estimate
        rows.append({"eps": s.eps, "lower_bound": lb, "paper_ratio": float(p.final_regret.mean()) / lb,
                     "ratio": e.mean / lb, "lo": e.lo / lb, "hi": e.hi / lb, "runs": ce.runs,
                     "converged": ce.converged})
    return rows


def tail_decomposition(result: Any, factor: float = 10.0) -> dict:
    """How much of a cell's mean regret its rare bad runs make: ``runs``, ``tail_runs`` (runs whose
    regret at ``T`` exceeds ``factor`` times the median), ``tail_fraction``, ``mean``,
    ``tail_share`` (their part of the mean) and ``body_mean`` (the mean of the other runs)."""
    factor = as_real("factor", factor, low=1.0, low_open=True, high=np.inf, high_open=True)
    reg = np.asarray(_result("result", result).final_regret, dtype=float)
    tail = reg > factor * float(np.median(reg))
    total = float(reg.sum())
    return {"runs": int(reg.size), "tail_runs": int(tail.sum()), "tail_fraction": float(tail.mean()),
            "mean": float(reg.mean()), "tail_share": float(reg[tail].sum()) / total if total > 0 else 0.0,
            "body_mean": float(reg[~tail].mean())}


def sensitivity(results: Mapping, algorithms: Sequence[str] = ("DP-IMED", "DP-KLUCB"),
                group: int = PAPER_RUNS) -> dict:
    """For each algorithm, the means of disjoint groups of ``group`` consecutive runs of its
    result (:func:`dpb.estimates.seed_sensitivity`): what ``group``-run experiments with other seeds
    would have reported."""
    as_instance("results", results, Mapping, "mapping from algorithm name to dpb.simulate.Result")
    algorithms = as_names("algorithms", algorithms, tuple(results))
    for a in algorithms:
        _result(f"results[{a!r}]", results[a])
    return {a: seed_sensitivity(results[a].final_regret, group) for a in algorithms}

