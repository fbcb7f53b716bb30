"""Figures of the Experiments chapter: the paper's regret curves, its eps-sweep and a live explorer.

Every function takes results (:class:`dpb.simulate.Result`, or the
:class:`dpb.experiments.ExperimentResults` of a whole experiment) and returns a matplotlib
``Figure``; :func:`plot_live` simulates first, for the widget.
"""

from __future__ import annotations

from matplotlib.figure import Figure

from typing import Any

import math
from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np

from .._validate import (as_choice, as_float_array, as_instance, as_int, as_names, as_positive, as_real,
                         as_text, as_flag)
from ..bounds import lower_bound_constant, upper_bound_constant
from ..environments import BernoulliBandit, instance, instance_names
from .._io import array_checksum, save_npz_atomic
from ..cache import cache_key, default_results_dir, _read_checked, source_hash
from .. import estimates
from ..estimates import BOOT_SEED, MeanEstimate, bca_columns
from ..policies.registry import policy_style, registered
from ..experiments import (
    ALGORITHMS,
    ExperimentResults,
    final_regret_table,
    paper_params,
    ratio_summary,
    reading_results,
    sweep_table,
)
from ..simulate import Result, simulate
from .style import color as palette_color, new_figure, series_color

__all__ = [
    "ALGORITHM_STYLE",
    "plot_regret",
    "plot_figure1",
    "plot_appendix",
    "plot_ratio_grid",
    "plot_eps_sweep",
    "plot_final_distribution",
    "plot_seed_sensitivity",
    "plot_dpse_readings",
    "plot_expected_sweep",
    "plot_expected_vs_paper",
    "plot_live",
    "parse_means",
]

class _RegistryStyles(Mapping):
    """Colour and line style of every registered policy, read from the registry at each access."""

    def __getitem__(self, name):
        try:
            return policy_style(name)
        except (ValueError, TypeError) as exc:
            raise KeyError(name) from exc

    def __iter__(self):
        return iter(registered())

    def __len__(self) -> int:
        return len(registered())

    def __repr__(self) -> str:
        return repr(dict(self))


#: Colour and line style of each algorithm, the same in every figure: the policy's declared
#: ``style`` (:func:`dpb.policies.registry.policy_style`), also for policies registered later.
ALGORITHM_STYLE = _RegistryStyles()
_BANDS = ("std", "quantile", "ci", None)
#: Bootstrap resamples of the interval bands (a drawing: fewer than the tables' 2000).
BAND_BOOT = 500


def _check_scale(name: str, scale):
    return as_choice(name, scale, ("linear", "log"))


def _res(res) -> ExperimentResults:
    return as_instance("res", res, ExperimentResults, "dpb.experiments.ExperimentResults")


def _rows(rows, keys) -> list:
    """Check the table rows a figure reads: a non-empty sequence of mappings with ``keys``."""
    if isinstance(rows, (str, bytes)) or not isinstance(rows, Sequence):
        raise TypeError(f"rows must be a sequence of mappings, got {type(rows).__name__}")
    if not rows:
        raise ValueError("rows must not be empty")
    for r in rows:
        if not isinstance(r, Mapping) or any(k not in r for k in keys):
            raise ValueError(f"rows must be mappings with the keys {', '.join(keys)}, got {r!r}")
    return list(rows)


def _check_results(results) -> None:
    """``results`` must map algorithm names to :class:`~dpb.simulate.Result` (at least one)."""
    as_instance("results", results, Mapping, "mapping from algorithm name to dpb.simulate.Result")
    if not results:
        raise ValueError("results must contain at least one algorithm")
    for name, res in results.items():
        if not isinstance(res, Result):
            raise TypeError(f"results[{name!r}] must be a dpb.simulate.Result, got {type(res).__name__}")


def _check_band(band):
    if band not in _BANDS:
        raise ValueError(f"band must be one of {_BANDS}, got {band!r}")
    return band


def plot_regret(results: Mapping[str, Result], ax: Any = None, *, title: str | None = None,
                band: str | None = "quantile", xscale: str = "linear", yscale: str = "linear",
                legend: bool = True) -> Figure:
    """Mean pseudo-regret ``Reg_t = sum_a Delta_a N_a(t)`` against ``t`` for each algorithm, with a band.

    Parameters
    ----------
    results : mapping str -> Result
        Algorithm name -> its runs (all on the same environment and horizon).
    ax : matplotlib Axes, optional
        Where to draw (default: a new figure).
    title : str, optional
    band : {"quantile", "std", "ci", None}
        Shade the 10%-90% quantiles of the runs (default: robust to the rare runs with a very
        large regret), mean +- one standard deviation over runs (clipped at 0), the 95 % BCa
        confidence interval of the mean at every checkpoint (:func:`dpb.estimates.bca_columns`,
        ``BAND_BOOT`` resamples), or nothing.
    xscale, yscale : str
        Axis scales (``"linear"`` as in the paper, or ``"log"``).
    legend : bool
        Draw a legend in the axes.

    Returns
    -------
    matplotlib.figure.Figure
    """
    legend = as_flag("legend", legend)
    _check_band(band)
    _check_scale("xscale", xscale)
    _check_scale("yscale", yscale)
    as_text("title", title)
    _check_results(results)
    fig, ax = new_figure(1, width=6.0, height=3.6) if ax is None else (ax.figure, ax)
    for name, res in results.items():
        style = ALGORITHM_STYLE.get(name, {"color": None, "ls": "-"})
        t = np.concatenate(([0], res.checkpoints))
        reg = np.concatenate((np.zeros((res.runs, 1)), res.regret), axis=1)
        mean = reg.mean(axis=0)
        (line,) = ax.plot(t, mean, color=style["color"], ls=style["ls"], lw=1.6, label=name)
        if band == "std" and res.runs > 1:
            sd = reg.std(axis=0, ddof=1)
            ax.fill_between(t, np.clip(mean - sd, 0, None), mean + sd, color=line.get_color(), alpha=0.15,
                            lw=0)
        elif band == "quantile" and res.runs > 1:
            lo, hi = np.quantile(reg, [0.1, 0.9], axis=0)
            ax.fill_between(t, lo, hi, color=line.get_color(), alpha=0.15, lw=0)
        elif band == "ci" and res.runs > 1:
            lo, hi = _ci_band(res.regret)
            ax.fill_between(res.checkpoints, lo, hi, color=line.get_color(), alpha=0.25, lw=0)
    ax.set_xscale(xscale)
    ax.set_yscale(yscale)
    ax.set(xlabel="round $t$", ylabel="regret $\\mathrm{Reg}_t$")
    if xscale == "linear":
        ax.ticklabel_format(axis="x", style="sci", scilimits=(0, 0))
    if yscale == "linear":
        ax.set_ylim(bottom=0)
    elif yscale == "log":
        ax.set_ylim(bottom=1.0)
    if title:
        ax.set_title(title, fontsize="medium")
    if legend:
        ax.legend(frameon=False, fontsize="small", loc="center left", bbox_to_anchor=(1.01, 0.5))
    return fig


def _ci_band(regret) -> tuple[np.ndarray, np.ndarray]:
    """The ``band="ci"`` of :func:`plot_regret`: the 95 % BCa interval of the mean regret at every
    checkpoint (:func:`dpb.estimates.bca_columns` with ``BAND_BOOT`` resamples), kept on disk.

    The bootstrap of thousands of runs at every checkpoint costs seconds a panel (about 7 CPU-s for
    one of chapter 7's appendix figures), so the band is saved beside the results
    (``<results>/bands/``, :func:`dpb.cache.default_results_dir`), under the SHA-256 of the regret
    array, with the code of :mod:`dpb.estimates` it came from: the next drawing of the same data (a
    chapter run again, its Live page, a redraw) reads it.  A band that cannot be saved (a read-only
    folder) is still drawn."""
    regret = np.asarray(regret, dtype=float)
    expected = {"values": array_checksum(regret), "n_boot": BAND_BOOT, "seed": BOOT_SEED,
                "code": source_hash(estimates)}
    path = default_results_dir() / "bands" / f"{cache_key('bca', expected)}.npz"
    state, _, arrays = _read_checked(path, expected)
    if state == "done":
        return arrays["lo"], arrays["hi"]
    _, lo, hi = bca_columns(regret, n_boot=BAND_BOOT)
    try:
        save_npz_atomic(path, {"extra": expected}, {"lo": lo, "hi": hi})
    except OSError:
        pass
    return lo, hi


#: Most arms whose means a panel's title lists; more are summarised (K, the largest and smallest).
TITLE_ARMS = 5


def _panel_title(env: str, eps: float, res: Result) -> str:
    means = np.asarray(res.means, dtype=float)
    if means.size > TITLE_ARMS:  # twenty or fifty arms do not fit on a panel's title
        return (f"{env}: K = {means.size}, $\\mu$ from {means.max():g} to {means.min():g}, "
                f"$\\varepsilon = {eps:g}$")
    mu = ", ".join(f"{m:g}" for m in means)
    return f"{env} = [{mu}], $\\varepsilon = {eps:g}$"


#: Most panels on one row of :func:`plot_figure1` (more settings wrap onto further rows).
ROW_PANELS = 4


def plot_figure1(res: ExperimentResults, band: str | None = "quantile", yscale: str = "linear") -> Figure:
    """The paper's Figure 1: regret against ``t`` at eps = 0.25 on mu1 (left) and mu2 (right).

    Any experiment draws one panel per setting, in rows of ``ROW_PANELS``; a panel's title
    lists the arms' means up to ``TITLE_ARMS`` arms, else their number and range.

    Parameters
    ----------
    res : ExperimentResults
        ``dpb.experiments.load("fig1")`` (or any experiment; one panel per setting).
    band : {"quantile", "std", "ci", None}
        See :func:`plot_regret`.
    yscale : {"linear", "log"}
        ``"log"`` separates the lowest curves, which a linear axis squashes against zero.
    """
    res = _res(res)
    _check_band(band)
    _check_scale("yscale", yscale)
    n = len(res.settings)
    if n <= ROW_PANELS:
        fig, axes = new_figure(n, width=4.1, height=3.5, squeeze=False)
    else:  # many settings (e.g. one per number of arms): rows of ROW_PANELS panels
        ncols, nrows = ROW_PANELS, math.ceil(n / ROW_PANELS)
        fig, axes = plt.subplots(nrows, ncols, figsize=(4.1 * ncols, 3.1 * nrows + 0.6), squeeze=False,
                                 constrained_layout=True)
    for ax, s in zip(axes.flat, res.settings, strict=False):
        data = res.setting(s)
        plot_regret(data, ax, title=_panel_title(s.env, s.eps, next(iter(data.values()))), band=band,
                    legend=False, yscale=yscale)
        ax.title.set_fontsize("medium" if n <= ROW_PANELS else "small")
    for ax in list(axes.flat)[n:]:
        ax.set_visible(False)
    _figure_legend(fig, axes.flat[0])
    return fig


def _figure_legend(fig, ax) -> None:
    handles, labels = ax.get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=min(6, len(labels)), frameon=False,
               fontsize="small")


def plot_appendix(res: ExperimentResults, env: str = "mu1", band: str | None = "quantile",
                  yscale: str = "linear") -> Figure:
    """One appendix figure: regret against ``t`` on instance ``env`` for each budget (2 x 2 panels).

    Parameters
    ----------
    res : ExperimentResults
        ``dpb.experiments.load("appendix")``.
    env : str
        Instance name, ``"mu1"`` to ``"mu4"``.
    band : {"quantile", "std", "ci", None}
        See :func:`plot_regret`.
    yscale : {"linear", "log"}
        See :func:`plot_figure1`.
    """
    res = _res(res)
    _check_band(band)
    _check_scale("yscale", yscale)
    settings = [s for s in res.settings if s.env == env]
    if not settings:
        envs = sorted({s.env for s in res.settings})
        raise ValueError(f"env must be one of {envs}, got {env!r}")
    ncols = 2 if len(settings) > 1 else 1
    nrows = math.ceil(len(settings) / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.1 * ncols, 3.1 * nrows + 0.5), constrained_layout=True,
                             squeeze=False)
    for ax, s in zip(axes.flat, settings, strict=False):
        plot_regret(res.setting(s), ax, title=f"{env}, $\\varepsilon = {s.eps:g}$", band=band, legend=False,
                    yscale=yscale)
    for ax in list(axes.flat)[len(settings):]:
        ax.set_visible(False)
    _figure_legend(fig, axes.flat[0])
    return fig


def plot_ratio_grid(res: ExperimentResults) -> Figure:
    """How much lower the paper's algorithms go: best private baseline / best of DP-KLUCB, DP-IMED.

    A heat map over (instance, eps) of the ratio of mean regrets at T (above 1: DP-KLUCB or
    DP-IMED wins), annotated with the ratio and the name of the best baseline
    (:func:`dpb.experiments.ratio_summary`).
    """
    res = _res(res)
    rows = ratio_summary(res)
    if not rows:
        raise ValueError("no setting has both a paper algorithm and a baseline")
    envs = list(dict.fromkeys(r["env"] for r in rows))
    epss = sorted({r["eps"] for r in rows})
    grid = np.full((len(envs), len(epss)), np.nan)
    names = {}
    for r in rows:
        i, j = envs.index(r["env"]), epss.index(r["eps"])
        grid[i, j] = r["ratio"]
        names[i, j] = r["best_baseline"]
    fig, ax = new_figure(1, width=1.5 + 1.45 * len(epss), height=1.2 + 0.75 * len(envs))
    top = max(1.5, float(np.nanmax(np.log10(grid))) + 0.3)
    im = ax.imshow(np.log10(grid), cmap="YlGnBu", vmin=min(0.0, float(np.nanmin(np.log10(grid)))), vmax=top,
                   aspect="auto")
    for (i, j), name in names.items():
        ax.text(j, i, f"{grid[i, j]:.1f}x\n{name}", ha="center", va="center", fontsize="small", color="black")
    ax.set_xticks(range(len(epss)), [f"{e:g}" for e in epss])
    ax.set_yticks(range(len(envs)), envs)
    ax.set(xlabel="$\\varepsilon$", title="best baseline / best of DP-KLUCB, DP-IMED (mean regret at $T$)")
    ax.title.set_fontsize("small")
    cb = fig.colorbar(im, ax=ax, shrink=0.9)
    cb.set_label("$\\log_{10}$ ratio", fontsize="small")
    return fig


def plot_eps_sweep(res: ExperimentResults) -> Figure:
    """The appendix's regret-against-eps figure, with the lower bound on the same axes.

    Left: the mean regret at T of each budget with the 10%-90% quantiles of the runs, the
    asymptotic lower bound ``lower_bound_constant(mu, eps) log T`` (:prf:ref:`thm-lower-bound`)
    and the upper bound's leading term ``alpha lower_bound_constant log T`` (:prf:ref:`thm-upper-bound`),
    log scale.  Right: the mean and the median regret divided by the lower bound.
    """
    res = _res(res)
    rows = sweep_table(res)
    if not rows:
        raise ValueError("the sweep has no setting")
    eps, mean, q10, q90, lb = (np.array([r[k] for r in rows]) for k in ("eps", "mean", "q10", "q90",
                                                                          "lower_bound"))
    cell = res.settings[0].cells[0]
    alpha = float(cell.params.get("alpha", 1.0))
    T = cell.T
    fine = np.linspace(min(eps.min(), 0.005), max(1.0, eps.max()), 400)
    lb_fine = np.asarray(lower_bound_constant(np.array(cell.means), fine)) * math.log(T)
    ub = np.asarray(upper_bound_constant(np.array(cell.means), fine, alpha)) * math.log(T)
    fig, (ax1, ax2) = new_figure(2, width=4.2, height=3.8)
    color = ALGORITHM_STYLE.get(cell.policy, {"color": series_color(0)})["color"]
    ax1.fill_between(eps, q10, q90, color=color, alpha=0.2, lw=0, label="10%-90% of the runs")
    ax1.plot(eps, mean, "o", ms=2.5, color=color, label=f"{cell.policy}, mean of {cell.runs} runs")
    ax1.plot(fine, lb_fine, color="k", lw=1.5, label="lower bound $C_\\varepsilon(\\mu)\\log T$")
    ax1.plot(fine, ub, color="k", lw=1, ls=":",
             label=f"$\\alpha C_\\varepsilon(\\mu)\\log T$, $\\alpha={alpha:g}$")
    ax1.set(xlabel="$\\varepsilon$", ylabel=f"regret at $T = {_tex_T(T)}$", yscale="log")
    ax1.set_title(f"{cell.policy} on [{', '.join(f'{m:g}' for m in cell.means)}]", fontsize="medium")
    ax1.legend(frameon=False, fontsize="small")
    ax2.axhline(1.0, color="k", lw=1)
    ax2.axhline(alpha, color="k", lw=1, ls=":", label=f"$\\alpha = {alpha:g}$")
    ax2.plot(eps, mean / lb, "o-", ms=2.5, lw=1, color=color, label="mean / lower bound")
    ax2.plot(eps, np.array([r["median_ratio"] for r in rows]), "-", lw=1.2, color=palette_color("reference"),
             label="median / lower bound")
    top = max(2.5, float(np.max(mean / lb)) * 1.1)
    ax2.set(xlabel="$\\varepsilon$", ylabel="regret at $T$ / lower bound", ylim=(0, top))
    ax2.set_title("ratio to the lower bound", fontsize="medium")
    ax2.legend(frameon=False, fontsize="small")
    return fig


def _tex_T(T: int) -> str:
    k = round(math.log10(T))
    return f"10^{{{k}}}" if 10**k == T else str(T)


def plot_final_distribution(results: Mapping[str, Result], ax: Any = None, *,
                            title: str | None = None) -> Figure:
    """The regret at T of every run, per algorithm (log scale), with the mean and the median.

    Shows what a mean over 20 runs hides: a heavy right tail (a few runs with a very large regret)
    moves the mean far above the median.

    Parameters
    ----------
    results : mapping str -> Result
        Algorithm name -> its runs.
    ax : matplotlib Axes, optional
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    as_text("title", title)
    _check_results(results)
    fig, ax = new_figure(1, width=6.0, height=3.6) if ax is None else (ax.figure, ax)
    rng = np.random.default_rng(0)  # horizontal jitter only
    for k, (name, res) in enumerate(results.items()):
        reg = np.maximum(res.final_regret, 1.0)
        color = ALGORITHM_STYLE.get(name, {"color": series_color(k)})["color"]
        ax.plot(k + rng.uniform(-0.18, 0.18, reg.size), reg, "o", ms=3.5, alpha=0.6, color=color)
        ax.plot([k - 0.3, k + 0.3], [np.median(reg)] * 2, color="k", lw=1.5,
                label="median" if k == 0 else None)
        ax.plot(k, reg.mean(), "D", ms=7, mfc="none", mec="k", label="mean" if k == 0 else None)
    ax.set_xticks(range(len(results)), list(results), rotation=20)
    ax.set(yscale="log", ylabel="regret at $T$ (each dot a run)")
    if title:
        ax.set_title(title, fontsize="medium")
    ax.legend(frameon=False, fontsize="small", loc="upper right")
    return fig


def _plain_log_ticks(axis) -> None:
    """Label a log axis at 1, 2 and 5 times the powers of ten only, as plain numbers (``200``,
    ``5000``), and leave the minor ticks unlabelled: over less than a decade matplotlib labels the
    minor ticks too, in ``2\\times10^2`` form, and neighbouring labels overprint."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}" if v >= 1 else f"{v:g}"))
    axis.set_minor_formatter(NullFormatter())


def plot_seed_sensitivity(means: Mapping[str, np.ndarray], expected: Mapping[str, MeanEstimate],
                          reported: Mapping[str, float] | None = None, *, title: str | None = None) -> Figure:
    """Where a twenty-run experiment lands: the distribution of the mean of twenty runs over many
    independent groups of runs (one panel per algorithm, log axis), against the expected regret
    (its 95 % interval shaded) and, optionally, the mean one particular seed reported.

    Parameters
    ----------
    means : mapping str -> array
        Algorithm -> means of disjoint groups of twenty runs (:func:`dpb.estimates.seed_sensitivity`).
    expected : mapping str -> MeanEstimate
        Algorithm -> its expected regret with interval.
    reported : mapping str -> float, optional
        Algorithm -> the twenty-run mean of the book's seed.
    title : str, optional
    """
    as_text("title", title)
    as_instance("means", means, Mapping, "mapping from algorithm name to group means")
    as_instance("expected", expected, Mapping, "mapping from algorithm name to MeanEstimate")
    if reported is not None:
        as_instance("reported", reported, Mapping, "mapping from algorithm name to a number")
    if not means:
        raise ValueError("means must contain at least one algorithm")
    for name, m in means.items():
        if not np.all(np.isfinite(as_float_array(f"means[{name!r}]", m))):
            raise ValueError(f"means[{name!r}] must be finite")
        as_instance(f"expected[{name!r}]", expected.get(name), MeanEstimate, "dpb.estimates.MeanEstimate")
        if reported is not None and name in reported:
            as_real(f"reported[{name!r}]", reported[name], low=0.0, high=math.inf, high_open=True)
    fig, axes = new_figure(len(means), width=4.2, height=4.0, squeeze=False)
    for ax, (name, m) in zip(axes[0], means.items(), strict=True):
        m = np.asarray(m, dtype=float)
        if m.size < 2:
            raise ValueError(f"means[{name!r}] must hold at least 2 group means, got {m.size}")
        color = ALGORITHM_STYLE.get(name, {"color": series_color(0)})["color"]
        lo = max(float(m.min()), 1.0)
        bins = np.geomspace(lo / 1.05, float(m.max()) * 1.05, 40)
        ax.hist(m, bins=bins, color=color, alpha=0.6, label=f"{m.size} twenty-run means")
        est = expected[name]
        ax.axvspan(est.lo, est.hi, color="k", alpha=0.15, lw=0)
        ax.axvline(est.mean, color="k", lw=1.5, label=f"expected regret ({est.runs} runs)")
        ax.axvline(float(np.median(m)), color="k", lw=1, ls=":", label="median of the twenty-run means")
        if reported is not None and name in reported:
            ax.axvline(reported[name], color=color, lw=1.5, ls="--", label="the book's seed")
        ax.set(xscale="log", xlabel="mean regret at $T$ of twenty runs", ylabel="groups")
        _plain_log_ticks(ax.xaxis)
        ax.set_title(name, fontsize="medium")
        # below the panel: inside it, the legend's text sat on the bars and the vertical lines
        ax.legend(frameon=False, fontsize="x-small", loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2)
    if title:
        fig.suptitle(title, fontsize="medium")
    return fig


def plot_expected_sweep(rows: Sequence[Mapping], alpha: float, *, policy: str = "DP-IMED") -> Figure:
    """The eps-sweep in expectation: expected regret at ``T`` over the lower bound
    ``C_eps(mu) log T`` for every budget, with its 95 % interval, the twenty-run ratio of the
    paper's scale, and the levels 1 (the lower bound) and ``alpha`` (the upper bound's leading
    term).

    Parameters
    ----------
    rows : sequence of mappings
        :func:`dpb.experiments.expected_sweep_table` (keys ``eps``, ``ratio``, ``lo``, ``hi``,
        ``paper_ratio``).
    alpha : float
        The batch growth of the policy (the upper bound's factor).
    policy : str
        Its name, for the colour and the legend.
    """
    rows = _rows(rows, ("eps", "ratio", "lo", "hi", "paper_ratio"))
    policy_style(policy)  # a registered policy (ValueError naming it otherwise)
    alpha = float(as_positive("alpha", alpha, allow_inf=False))
    eps, ratio, lo, hi, paper = (np.array([r[k] for r in rows]) for k in ("eps", "ratio", "lo", "hi",
                                                                           "paper_ratio"))
    color = ALGORITHM_STYLE.get(policy, {"color": series_color(0)})["color"]
    fig, ax = new_figure(1, width=7.0, height=3.6)
    ax.axhline(1.0, color="k", lw=1, label="lower bound")
    ax.axhline(alpha, color="k", lw=1, ls=":", label=f"$\\alpha$ x lower bound, $\\alpha = {alpha:g}$")
    ax.errorbar(eps, ratio, yerr=[ratio - lo, hi - ratio], fmt="o", ms=2.5, lw=0.8, color=color,
                label=f"{policy}: expected regret / bound (95 % interval)")
    ax.plot(eps, paper, "x", ms=3, color=palette_color("reference"),
            label="twenty runs (paper scale) / bound")
    ax.set(xlabel="$\\varepsilon$", ylabel="regret at $T$ / $C_\\varepsilon(\\mu)\\log T$",
           ylim=(0, max(2.0, float(np.max(hi)) * 1.05)))
    ax.legend(frameon=False, fontsize="small", loc="upper right")
    return fig


def plot_expected_vs_paper(rows: Sequence[Mapping], algorithms: Sequence[str] = ALGORITHMS) -> Figure:
    """How far the twenty-run mean of each cell is from its expected regret: ``paper / expected``
    per setting (x) and algorithm (colour), log axis; 1 means the paper's scale was right.

    Parameters
    ----------
    rows : sequence of mappings
        :func:`dpb.experiments.expected_regret_table`.
    algorithms : sequence of str
        Which algorithms to draw.
    """
    rows = _rows(rows, ("env", "eps", "algorithm", "shift"))
    algorithms = as_names("algorithms", algorithms, registered())
    if not algorithms:
        raise ValueError("algorithms must name at least one policy")
    settings = list(dict.fromkeys((r["env"], r["eps"]) for r in rows))
    fig, ax = new_figure(1, width=8.0, height=3.4)
    k = len(algorithms)
    for j, name in enumerate(algorithms):
        pts = [(settings.index((r["env"], r["eps"])), r["shift"]) for r in rows if r["algorithm"] == name]
        if not pts:
            continue
        x, y = np.array(pts).T
        ax.plot(x + (j - (k - 1) / 2) * 0.1, y, "o", ms=4,
                color=ALGORITHM_STYLE.get(name, {"color": series_color(j)})["color"], label=name)
    ax.axhline(1.0, color="k", lw=1)
    ax.set_xticks(range(len(settings)), [f"{e} {p:g}" for e, p in settings], rotation=60, fontsize="x-small")
    ax.set(yscale="log", ylabel="20-run mean / expected regret")
    ax.legend(frameon=False, fontsize="x-small", ncol=min(6, k), loc="upper center")
    return fig


def plot_dpse_readings(res: ExperimentResults, yscale: str = "linear") -> Figure:
    """DP-SE under each reading of its elimination rule, one panel per setting of
    :func:`dpb.experiments.dpse_readings` (mean regret against ``t``, 10%-90% band)."""
    res = _res(res)
    _check_scale("yscale", yscale)
    n = len(res.settings)
    if n == 0:
        raise ValueError("res has no setting")
    fig, axes = new_figure(n, width=4.1, height=3.4, squeeze=False)
    for ax, s in zip(axes[0], res.settings, strict=True):
        data = reading_results(res, s)
        plot_regret(data, ax, title=_panel_title(s.env, s.eps, next(iter(data.values()))), legend=False,
                    yscale=yscale)
    _figure_legend(fig, axes[0][0])
    return fig


def parse_means(text: str) -> np.ndarray:
    """Arm means from text such as ``"0.9, 0.8, 0.5"`` (commas or spaces), each in [0, 1], K >= 2.

    Raises
    ------
    ValueError
        If the text is not a list of at least two numbers in [0, 1].
    """
    if not isinstance(text, str):
        raise TypeError(f"means must be a string, got {type(text).__name__}")
    try:
        values = [float(v) for v in text.replace(",", " ").split()]
    except ValueError as exc:
        raise ValueError(f"means must be numbers separated by commas, got {text!r}") from exc
    if len(values) < 2:
        raise ValueError(f"means must list at least two arms, got {text!r}")
    return BernoulliBandit(values).means.copy()


def plot_live(env: str = "mu2", means: str = "0.9, 0.8, 0.8", eps: float = 0.25, T: int = 100_000,
              runs: int = 10, algorithms: Sequence[str] = ALGORITHMS, seed: int = 0,
              band: str | None = "quantile", progress: Any = None) -> Figure:
    """Simulate now and draw the regret curves and the final-regret table (the chapter's explorer).

    Parameters
    ----------
    env : str
        An instance name (``"mu1"`` to ``"mu4"``, or ``"sweep"``), or ``"custom"`` to use ``means``.
    means : str
        Arm means for ``env="custom"``, e.g. ``"0.9, 0.8, 0.8"`` (see :func:`parse_means`).
    eps : float
        Privacy budget of the private algorithms.
    T, runs : int
        Horizon and number of runs (keep ``T * runs`` around 1e6 for a redraw of a few seconds).
    algorithms : sequence of str
        Names among ``dpb.experiments.ALGORITHMS``, run with the paper's parameters
        (:func:`dpb.experiments.paper_params`).
    seed : int
        Root seed; algorithm ``k`` uses ``seed + k`` so that curves do not share noise.
    band : {"quantile", "std", None}
        See :func:`plot_regret`.
    progress : callable, optional
        ``progress(done, total)`` is called after each algorithm's simulation (the explorer's
        progress bar).
    """
    eps = float(as_positive("eps", eps, allow_inf=False))
    T = as_int("T", T, minimum=100)
    runs = as_int("runs", runs, minimum=1)
    seed = as_int("seed", seed, minimum=0)
    if not isinstance(means, str):
        raise TypeError(f"means must be a string of arm means, got {type(means).__name__}")
    if isinstance(algorithms, str):
        algorithms = (algorithms,)
    algorithms = as_names("algorithms", algorithms, registered())
    if not algorithms:
        raise ValueError("algorithms must name at least one policy")
    if env == "custom":
        bandit = BernoulliBandit(parse_means(means))
    elif env in instance_names():
        bandit = instance(env)
    else:
        raise ValueError(f"env must be 'custom' or one of {instance_names()}, got {env!r}")
    results = {}
    for k, name in enumerate(algorithms):
        results[name] = simulate(name, bandit, T, runs=runs, seed=seed + k, params=paper_params(name, eps))
        if progress is not None:
            progress(k + 1, len(algorithms))
    fig, (ax, tab) = plt.subplots(2, 1, figsize=(7.0, 6.4), constrained_layout=True,
                                  gridspec_kw={"height_ratios": [1.6, 1.0]})
    mu = ", ".join(f"{m:g}" for m in bandit.means)
    plot_regret(results, ax, title=f"[{mu}], $\\varepsilon = {eps:g}$, {runs} runs", band=band)
    rows = final_regret_table(results)
    tab.axis("off")
    body = [[r["algorithm"], f"{r['mean']:.0f}", f"{r['std']:.0f}", f"{r['median']:.0f}", f"{r['q10']:.0f}",
             f"{r['q90']:.0f}", f"{r['ratio']:.2f}" if np.isfinite(r["ratio"]) else "-"] for r in rows]
    table = tab.table(cellText=body, colLabels=["algorithm", "mean", "std", "median", "10%", "90%", "ratio"],
                      loc="center", cellLoc="right")
    table.auto_set_font_size(False)
    table.set_fontsize(9)
    table.auto_set_column_width(list(range(7)))
    table.scale(1.0, 1.3)
    tab.set_title(f"regret at $T = {_tex_T(T)}$ over {runs} runs; "
                  "ratio = mean / best mean of DP-KLUCB, DP-IMED", fontsize="small")
    return fig
