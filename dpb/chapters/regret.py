"""The numbers of chapter 6 (*Regret*): the book's standard runs and the ``alpha`` trade-off.

Built on :mod:`dpb.regret` (the decomposed runs, cached on disk); :mod:`dpb.plotting.regret` draws
these numbers and :mod:`dpb.widgets.regret` lets the reader pick the configuration.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from .._validate import as_choice, as_directory, as_float_array, as_instance, as_int
from ..batching import PolynomialSchedule
from ..bounds import lower_bound_constant
from ..environments import BernoulliBandit, as_bandit
from ..regret import DEFAULTS, TERMS, DecomposedRuns, cached_runs, horizon_grid

__all__ = ["POLYNOMIAL", "alpha_tradeoff", "book_runs", "scaled_pulls"]

#: The menu value that selects the polynomial schedule B_m = (m+1)^3 in :func:`book_runs`.
POLYNOMIAL = "polynomial"


def alpha_tradeoff(
    policy: str,
    env: BernoulliBandit | str | ArrayLike,
    *,
    eps: float,
    alphas: ArrayLike = (1.1, 1.5, 2, 3),
    horizons: ArrayLike = (10**4, 10**6, 10**8),
    runs: int | None = None,
    seed: int | None = None,
    directory: str | os.PathLike[str] | None = None,
) -> dict:
    """Regret at a few horizons as a function of the batch ratio ``alpha`` (cached runs).

    For each ``alpha`` one set of runs of horizon ``max(horizons)`` (:func:`dpb.regret.cached_runs`, the grid
    containing every horizon) gives the regret at every horizon.

    Returns
    -------
    dict
        ``alphas`` (A,), ``horizons`` (H,), ``mean``, ``median``, ``q_low``, ``q_high`` (10% and 90%
        quantiles), ``sem`` (standard error of the mean) of the regret, ``pre_mean`` and
        ``post_mean`` (mean regret of the pre- and post-convergence terms), each (A, H); ``phases``
        (A,), the mean number of phases at ``max(horizons)``; ``upper`` (A, H) the leading term
        ``alpha C log t`` and ``lower`` (H,) ``C log t`` with ``C`` :func:`dpb.bounds.lower_bound_constant`.
    """
    alphas = as_float_array("alphas", alphas)
    if alphas.ndim != 1 or alphas.size == 0 or not np.all((alphas > 1) & np.isfinite(alphas)):
        raise ValueError("alphas must be a non-empty 1-d sequence of ratios > 1")
    horizons = np.asarray(horizons)
    if horizons.ndim != 1 or horizons.size == 0 or not np.issubdtype(horizons.dtype, np.integer):
        raise ValueError("horizons must be a non-empty 1-d sequence of integers")
    if directory is not None:
        as_directory("directory", directory)
    T = int(horizons.max())
    grid = np.union1d(horizon_grid(T, DEFAULTS["n_grid"], min(DEFAULTS["t_min"], T)),  # type: ignore[arg-type]
                      horizons)  # (DEFAULTS holds ints and floats: these two are ints)
    keys = ("mean", "median", "q_low", "q_high", "sem", "pre_mean", "post_mean")
    out = {k: np.empty((alphas.size, horizons.size)) for k in keys}
    phases = np.empty(alphas.size)
    for a_i, a in enumerate(alphas):
        alpha = int(a) if float(a).is_integer() else float(a)
        res = cached_runs(policy, env, eps=eps, alpha=alpha, T=T, runs=runs, seed=seed, grid=grid,
                          directory=directory)
        cols = [res.at(int(h)) for h in horizons]
        reg = res.regret()[:, cols]
        terms = res.regret_terms()[:, cols]
        out["pre_mean"][a_i] = terms[..., TERMS.index("pre")].mean(axis=0)
        out["post_mean"][a_i] = terms[..., TERMS.index("post")].mean(axis=0)
        out["mean"][a_i] = reg.mean(axis=0)
        out["sem"][a_i] = reg.std(axis=0, ddof=1) / np.sqrt(res.runs) if res.runs > 1 else 0.0
        out["median"][a_i] = np.median(reg, axis=0)
        out["q_low"][a_i], out["q_high"][a_i] = np.quantile(reg, [0.1, 0.9], axis=0)
        phases[a_i] = res.n_phases.mean()
    means = as_bandit(env).means
    C = float(lower_bound_constant(means, eps))
    logs = np.log(horizons.astype(float))
    return {
        "alphas": alphas,
        "horizons": horizons,
        "phases": phases,
        "upper": alphas[:, None] * C * logs[None, :],
        "lower": C * logs,
        **out,
    }


def book_runs(instance: BernoulliBandit | str | ArrayLike = "mu2", eps: float = 0.25, alpha: float | str = 2,
              policy: str = "DP-KLUCB", *, directory: str | os.PathLike[str] | None = None,
              runs: int | None = None, T: int | None = None) -> DecomposedRuns:
    """The book's standard runs (:data:`dpb.regret.DEFAULTS`) of one configuration, from the cache.

    Parameters
    ----------
    instance : str or array_like
        Instance name (``"mu2"``...) or means.
    eps : float
        Privacy budget.
    alpha : float or str
        Geometric ratio ``> 1``, or :data:`POLYNOMIAL` for the schedule
        :class:`dpb.batching.PolynomialSchedule` ``(n0=1, power=3)``, ``B_m = (m+1)^3``.
    policy : {"DP-IMED", "DP-KLUCB"}
    directory : path, optional
        Cache directory (default :func:`dpb.regret.cache_dir`).
    runs, T : int, optional
        Number of runs and horizon (None: :data:`dpb.regret.DEFAULTS`, read at call time).
    """
    if isinstance(instance, (bool, bytes, int, float)) or instance is None:
        raise TypeError(f"instance must be an instance name or a sequence of arm means, got {instance!r}")
    if isinstance(alpha, str):
        if alpha != POLYNOMIAL:
            raise ValueError(f"alpha must be a ratio > 1 or {POLYNOMIAL!r}, got {alpha!r}")
        return cached_runs(policy, instance, eps=eps, schedule=PolynomialSchedule(1, 3), T=T, runs=runs,
                           directory=directory)
    a = float(as_float_array("alpha", alpha))
    if not a > 1:
        raise ValueError(f"alpha must be > 1, got {a!r}")
    return cached_runs(policy, instance, eps=eps, alpha=int(a) if a.is_integer() else a, T=T, runs=runs,
                       directory=directory)


def scaled_pulls(runs: DecomposedRuns, stat: str = "mean",
                 horizons: Sequence[int] = (10**4, 10**6, 10**8)) -> np.ndarray:
    r"""The pulls of each sub-optimal arm on the scale of the bounds, at a few horizons.

    :math:`N_i(t)\, d_\varepsilon(\mu_i, \mu^\star) / \log t` for the arms ``2..K`` of ``runs``
    (the book's instances list their best arm first), at each horizon of ``horizons`` (points of
    ``runs.grid``), averaged over the runs (``stat="mean"``) or their median (``"median"``).  The
    lower bound (:prf:ref:`thm-lower-bound`) puts the mean at 1 or above in the limit, the upper
    bound (:prf:ref:`thm-upper-bound`) at ``alpha`` or below.  Returns an array of shape
    ``(len(horizons), K - 1)``.
    """
    as_instance("runs", runs, DecomposedRuns, "dpb.regret.DecomposedRuns (dpb.chapters.regret.book_runs)")
    as_choice("stat", stat, ("mean", "median"))
    means = np.asarray(runs.means, dtype=float)
    if means[0] < means.max():
        raise ValueError(f"runs: the first arm must be a best arm (the sub-optimal arms are 2..K), got means "
                         f"{means.tolist()}")
    as_instance("horizons", horizons, (list, tuple, np.ndarray), "a sequence of horizons on runs.grid")
    hs = [as_int("horizons", t, minimum=1) for t in np.asarray(horizons, dtype=object).ravel()]
    off = [t for t in hs if t not in set(runs.grid.tolist())]
    if off:
        raise ValueError(f"horizons must be points of runs.grid ({runs.grid[0]} to {runs.grid[-1]}), "
                         f"got {off}")
    cols = [runs.at(t) for t in hs]
    x = runs.normalised_pulls()[:, cols, 1:] / runs.constants()["lower_pulls"][1:]
    return x.mean(axis=0) if stat == "mean" else np.median(x, axis=0)
