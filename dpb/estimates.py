"""Expected regret from many runs: confidence intervals, converged run counts, seed sensitivity.

The regret at ``T`` of a private bandit algorithm is a heavily right-skewed random variable: for
DP-IMED most runs end with a few hundred, a few percent of runs abandon the best arm early and end
with tens of thousands.  The *expected* regret is the mean of that distribution; a mean over twenty
runs estimates it badly, and which twenty runs were drawn decides much.  This module turns many
runs into an estimate of the expected regret with an honest interval.

Interval: the bias-corrected and accelerated (BCa) bootstrap
-------------------------------------------------------------
:func:`mean_interval` returns the BCa bootstrap interval of the mean (Efron 1987; Efron and
Tibshirani, *An Introduction to the Bootstrap*, ch. 14).  With ``theta`` the sample mean,
``theta*_1..theta*_B`` the means of ``B`` resamples drawn with replacement,

.. math::

   z_0 = \\Phi^{-1}\\bigl(\\#\\{\\theta^*_b < \\theta\\}/B\\bigr),\\qquad
   a = \\frac{\\sum_i d_i^3}{6\\,(\\sum_i d_i^2)^{3/2}},\\quad d_i = x_i - \\bar x,

and the interval is the ``[alpha_1, alpha_2]`` quantiles of the ``theta*`` with
:math:`\\alpha_j = \\Phi\\bigl(z_0 + (z_0 + z_j)/(1 - a(z_0 + z_j))\\bigr)`, ``z_1, z_2`` the normal
quantiles of the nominal level.  (For the mean, the jackknife acceleration of Efron and Tibshirani
eq. 14.15 reduces to the formula for ``a`` above, because the leave-one-out means are
``(n xbar - x_i)/(n-1)``.)

Why BCa.  The regret is bounded (by ``T`` times the largest gap), so every moment is finite and the
mean is asymptotically normal; what goes wrong at a few thousand runs is *skewness*: the normal or
Student interval is symmetric while the sampling distribution of the mean still leans right, so it
undercovers on the right and the expected regret is underestimated.  BCa is second-order accurate
(coverage error ``O(1/n)`` instead of ``O(1/sqrt(n))``) and corrects exactly this skewness through
``a`` and ``z_0``, without the variance estimate in the denominator that makes the studentized
bootstrap erratic when a handful of rare runs dominate the standard deviation.  Bounds built from
the range only (Hoeffding, empirical Bernstein) are valid at every ``n`` but are several times
wider here, because the range ``T Delta_max`` is hundreds of times the typical regret.  The tests
measure the coverage on distributions with an exact mean (a lognormal and a two-point mixture shaped
like DP-IMED's regret).

Converged run counts
--------------------
Runs come in *seed-deterministic blocks*: run ``i`` of a cell is always the same run (its seed is
the ``i``-th child of the cell's root seed), and the block edges are :data:`BLOCK_EDGES`, ``20,
40, 80, ...`` (the paper's twenty runs, then doubling).  :func:`converged_runs` returns the first
edge ``n`` at which the 95 % interval of the mean of runs ``0..n-1`` lies within ``+- 10 %`` of that
mean (``max(mean - lo, hi - mean) <= 0.1 mean``), or the cap (the last edge) when no edge does.
A minimum run count can be imposed: an interval computed from runs that never met the rare bad
event is narrow and wrong, so the rule must not look before the rare events have had a chance to
appear (``1 - 0.99^n >= 0.95`` needs ``n >= 299``: an event of probability 1 % is seen at least once
with probability 95 % in 320 runs).
Because it only reads the runs in their fixed order, the run count is a deterministic function
of the seed: recomputing it from cached runs always gives the same answer.  (Stopping at a
data-dependent ``n`` makes the final interval slightly optimistic; with doubling blocks the
number of looks is at most ``len(BLOCK_EDGES)``, and the tests measure the coverage of the
stopped interval too.)

Seed sensitivity
----------------
Runs are independent and identically distributed, so disjoint groups of twenty consecutive runs
are twenty-run experiments with different seeds.  :func:`seed_sensitivity` returns their means:
the distribution of "the mean a twenty-run experiment would have reported".
"""

from __future__ import annotations

from typing import Any

import math

from dataclasses import dataclass

import numpy as np
from scipy.special import ndtr, ndtri

from ._validate import as_finite, as_instance, as_int, as_real, check_elements

__all__ = [
    "BLOCK_EDGES",
    "N_BOOT",
    "BOOT_SEED",
    "PAPER_RUNS",
    "DEFAULT_CAP",
    "MeanEstimate",
    "mean_interval",
    "bca_columns",
    "block_edges",
    "is_converged",
    "converged_runs",
    "seed_sensitivity",
]

#: The paper's number of runs: the first block.
PAPER_RUNS = 20
#: Largest number of runs of a converged cell (the cap stated in the book's tables).
DEFAULT_CAP = 20 * 2**10
#: Cumulative run counts at which convergence is checked: 20, 40, 80, ..., :data:`DEFAULT_CAP`.
BLOCK_EDGES = tuple(PAPER_RUNS * 2**k for k in range(11))
#: Resamples of the bootstrap, and the seed of its resampling (fixed: an interval is a function
#: of the data only).
N_BOOT, BOOT_SEED = 2000, 20250


@dataclass(frozen=True)
class MeanEstimate:
    """The mean of a sample with its confidence interval.

    Attributes
    ----------
    runs : int
        Sample size.
    mean : float
        Sample mean.
    lo, hi : float
        Confidence interval of the expected value.
    level : float
        Its nominal coverage.
    """

    runs: int
    mean: float
    lo: float
    hi: float
    level: float

    @property
    def half_width(self) -> float:
        """``max(mean - lo, hi - mean)``: the larger side of the (asymmetric) interval."""
        return max(self.mean - self.lo, self.hi - self.mean)

    @property
    def rel_half_width(self) -> float:
        """:attr:`half_width` over ``abs(mean)`` (0 for a constant sample, inf for a zero mean)."""
        if self.half_width == 0.0:
            return 0.0
        return self.half_width / abs(self.mean) if self.mean != 0 else float("inf")

    def as_dict(self) -> dict:
        return {"runs": self.runs, "mean": self.mean, "lo": self.lo, "hi": self.hi,
                "rel_half_width": self.rel_half_width}


def _sample(x) -> np.ndarray:
    arr = as_finite("x", x)
    if arr.ndim != 1:
        raise ValueError(f"x must be a 1-d sample (one value per run), got {arr.ndim} dimensions")
    if arr.size < 2:
        raise ValueError(f"x must hold at least 2 values, got {arr.size}")
    return arr


def _check_level(level, name: str = "level") -> float:
    return as_real(name, level, low=0.0, high=1.0, low_open=True, high_open=True)


def _boot_means(x: np.ndarray, n_boot: int, seed: int) -> np.ndarray:
    """Means of ``n_boot`` resamples (with replacement) of the rows of ``x`` (shape ``(n, C)``):
    shape ``(n_boot, C)``.  The resample counts of each replicate multiply all ``C`` columns at
    once, so a whole regret curve costs one pass per block of replicates.  The sums run in one fixed
    order (:mod:`dpb._estimates_kernel`, not a BLAS product, whose order depends on the processor),
    so an interval's ends are the same bits on every machine; the replicates of a block are shared
    out among numba's threads, each replicate summed whole by one thread (the same bits with any
    number of threads)."""
    import numba

    from ._estimates_kernel import resampled_sums

    rng = np.random.default_rng(seed)
    x = np.ascontiguousarray(x, dtype=float)
    n = x.shape[0]
    out = np.empty((n_boot, x.shape[1]))
    step = max(1, 4_000_000 // n)
    threads = numba.get_num_threads()
    for a in range(0, n_boot, step):
        b = min(a + step, n_boot)
        idx = rng.integers(0, n, size=(b - a, n))
        sums = np.empty((b - a, x.shape[1]))
        resampled_sums(idx, x, sums, threads)
        out[a:b] = sums / n
    return out


def _quantile_columns(sorted_theta: np.ndarray, probs: np.ndarray) -> np.ndarray:
    """Per-column quantiles (linear interpolation, as :func:`numpy.quantile`) at per-column
    probabilities ``probs`` of a column-sorted ``(B, C)`` array."""
    B = sorted_theta.shape[0]
    h = np.clip(probs, 0.0, 1.0) * (B - 1)
    k = np.minimum(np.floor(h).astype(np.int64), B - 2)
    cols = np.arange(sorted_theta.shape[1])
    lo, hi = sorted_theta[k, cols], sorted_theta[k + 1, cols]
    return lo + (h - k) * (hi - lo)


def bca_columns(values: Any, level: float = 0.95, n_boot: int = N_BOOT, seed: int = BOOT_SEED) -> tuple:
    """Column-wise mean and BCa interval of ``values`` (shape ``(n, C)``: ``n`` runs, ``C``
    checkpoints of a regret curve), with the formulas of the module doc applied to each column
    and one set of resamples shared by all columns.

    Returns
    -------
    mean, lo, hi : ndarray (C,)
        Constant columns get ``lo = hi = mean``.
    """
    v = as_finite("values", values)
    if v.ndim != 2:
        raise ValueError(f"values must be a 2-d array (runs x columns), got {v.ndim} dimensions")
    if v.shape[0] < 2 or v.shape[1] < 1:
        raise ValueError(f"values must hold at least 2 runs and 1 column, got shape {v.shape}")
    level = _check_level(level)
    n_boot = as_int("n_boot", n_boot, minimum=100)
    check_elements("n_boot", n_boot * max(v.shape))  # the resampled means (and indices), before drawing
    seed = as_int("seed", seed, minimum=0)
    big = float(np.max(np.abs(v)))
    if big > 1e100:  # the cubes of the deviations would overflow: compute on v / 2**k (exact), scale back
        factor = math.ldexp(1.0, math.frexp(big)[1])
        mean, lo, hi = bca_columns(v / factor, level, n_boot, seed)
        return mean * factor, lo * factor, hi * factor
    mean = v.mean(axis=0)
    d = v - mean
    s2 = np.sum(d * d, axis=0)
    const = s2 <= (1e-12 * np.maximum(1.0, np.abs(mean))) ** 2 * v.shape[0]
    lo, hi = mean.copy(), mean.copy()
    if np.all(const):
        return mean, lo, hi
    var = ~const
    vv, mm, dd, ss = v[:, var], mean[var], d[:, var], s2[var]
    theta = _boot_means(vv, n_boot, seed)
    frac = (np.count_nonzero(theta < mm, axis=0) + 0.5 * np.count_nonzero(theta == mm, axis=0)) / n_boot
    frac = np.clip(frac, 0.5 / n_boot, 1.0 - 0.5 / n_boot)
    z0 = ndtri(frac)
    acc = np.sum(dd**3, axis=0) / (6.0 * ss**1.5)
    theta.sort(axis=0)
    z_tail = ndtri((1.0 - level) / 2.0)  # finite up to level = 1 - 1e-16, where ndtri((1 + level) / 2) is inf
    sides = ((z_tail, lo, np.minimum), (-z_tail, hi, np.maximum))
    for z, out, side in sides:
        alpha = ndtr(z0 + (z0 + z) / (1.0 - acc * (z0 + z)))
        out[var] = side(_quantile_columns(theta, alpha), mm)
    return mean, lo, hi


def mean_interval(x: Any, level: float = 0.95, n_boot: int = N_BOOT, seed: int = BOOT_SEED) -> MeanEstimate:
    """The mean of ``x`` with its BCa bootstrap confidence interval (see the module doc).

    Parameters
    ----------
    x : array_like
        The sample (e.g. the regret at ``T`` of every run), at least two finite values.
    level : float
        Nominal coverage in (0, 1).
    n_boot : int
        Bootstrap resamples (at least 100).
    seed : int
        Seed of the resampling; the interval is a deterministic function of ``x`` and ``seed``.

    Returns
    -------
    MeanEstimate
        A constant sample gives the degenerate interval ``[mean, mean]``.
    """
    x = _sample(x)
    level = _check_level(level)
    mean, lo, hi = bca_columns(x[:, None], level, n_boot, seed)
    return MeanEstimate(x.size, float(mean[0]), float(lo[0]), float(hi[0]), level)


def block_edges(cap: int = DEFAULT_CAP) -> tuple:
    """The edges of :data:`BLOCK_EDGES` up to ``cap`` (which must be one of them)."""
    cap = as_int("cap", cap, minimum=PAPER_RUNS)
    if cap not in BLOCK_EDGES:
        raise ValueError(f"cap must be one of {BLOCK_EDGES}, got {cap}")
    return tuple(e for e in BLOCK_EDGES if e <= cap)


def is_converged(est: MeanEstimate, rel: float = 0.1) -> bool:
    """Whether the interval of ``est`` lies within ``+- rel`` times its mean."""
    as_instance("est", est, MeanEstimate, "dpb.estimates.MeanEstimate")
    return est.rel_half_width <= _check_level(rel, "rel")


def converged_runs(x: Any, cap: int = DEFAULT_CAP, rel: float = 0.1, level: float = 0.95,
                   min_runs: int = PAPER_RUNS) -> tuple[int, MeanEstimate, bool]:
    """The converged run count of a sample given in run order (see the module doc).

    Parameters
    ----------
    x : array_like
        The regret at ``T`` of runs ``0, 1, 2, ...`` of one cell, at least ``cap`` of them, or
        fewer when the rule stops earlier (a shorter sample that has not converged raises).
    cap : int
        The largest run count (an edge of :data:`BLOCK_EDGES`).
    rel : float
        Target relative half-width of the interval, in (0, 1).
    level : float
        Nominal coverage of the interval.
    min_runs : int
        No decision before this many runs (the rule starts at the first edge at or above it).

    Returns
    -------
    n : int
        The first block edge (at least ``min_runs``) at which the interval of runs ``0..n-1`` is
        within ``+- rel`` of their mean, or ``cap``.
    estimate : MeanEstimate
        The mean and interval of runs ``0..n-1``.
    converged : bool
        False when the cap was reached without convergence.

    Raises
    ------
    ValueError
        When ``x`` ends before the rule decides (call it again with more runs).
    """
    x = _sample(x)
    rel = _check_level(rel, "rel")
    min_runs = as_int("min_runs", min_runs, minimum=2)
    edges = block_edges(cap)
    edges = tuple(e for e in edges if e >= min_runs) or edges[-1:]
    for n in edges:
        if n > x.size:
            raise ValueError(f"x has {x.size} runs; the rule needs the runs up to the next edge {n}")
        est = mean_interval(x[:n], level)
        if est.rel_half_width <= rel:
            return n, est, True
    return edges[-1], est, False


def seed_sensitivity(x: Any, group: int = PAPER_RUNS) -> np.ndarray:
    """Means of the disjoint groups of ``group`` consecutive runs of ``x`` (a partial last group
    is dropped): the means that independent ``group``-run experiments would have reported."""
    x = _sample(x)
    group = as_int("group", group, minimum=1)
    k = x.size // group
    if k < 1:
        raise ValueError(f"x has {x.size} runs, fewer than one group of {group}")
    return x[: k * group].reshape(k, group).mean(axis=1)
