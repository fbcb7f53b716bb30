"""Figures of the Experiments chapter: the paper's regret curves, its eps-sweep and a live explorer.

Every function takes results (:class:`dpb.simulate.Result`, or the
:class:`dpb.experiments.ExperimentResults` of a whole experiment) and returns a matplotlib
``Figure``; :func:`plot_live` simulates first, for the widget.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np

from .._validate import as_int, as_positive
from ..bounds import lower_bound_constant, upper_bound_constant
from ..environments import BernoulliBandit, instance, instance_names
from ..experiments import (
    ALGORITHMS,
    ExperimentResults,
    final_regret_table,
    paper_params,
    ratio_summary,
    sweep_table,
)
from ..simulate import Result, simulate
from .style import new_figure

__all__ = [
    "ALGORITHM_STYLE",
    "plot_regret",
    "plot_figure1",
    "plot_appendix",
    "plot_ratio_grid",
    "plot_eps_sweep",
    "plot_final_distribution",
    "plot_live",
    "parse_means",
]

#: Colour and line style of each algorithm, the same in every figure.
ALGORITHM_STYLE = {
    "DP-SE": {"color": "#7f7f7f", "ls": "-"},
    "AdaP-KLUCB": {"color": "#ff7f0e", "ls": "-"},
    "AdaP-UCB": {"color": "#e377c2", "ls": "-"},
    "Lazy-DP-TS": {"color": "#9467bd", "ls": "-"},
    "DP-KLUCB": {"color": "#1f77b4", "ls": "-"},
    "DP-IMED": {"color": "#d62728", "ls": "-"},
    "IMED": {"color": "#000000", "ls": "--"},
    "KL-UCB": {"color": "#8c564b", "ls": "--"},
}
_BANDS = ("std", "quantile", None)


def _check_band(band):
    if band not in _BANDS:
        raise ValueError(f"band must be one of {_BANDS}, got {band!r}")
    return band


def plot_regret(results: Mapping[str, Result], ax=None, *, title: str | None = None,
                band: str | None = "quantile", xscale: str = "linear", yscale: str = "linear",
                legend: bool = True):
    """Mean pseudo-regret ``Reg_t = sum_a Delta_a N_a(t)`` against ``t`` for each algorithm, with a band.

    Parameters
    ----------
    results : mapping str -> Result
        Algorithm name -> its runs (all on the same environment and horizon).
    ax : matplotlib Axes, optional
        Where to draw (default: a new figure).
    title : str, optional
    band : {"quantile", "std", None}
        Shade the 10%-90% quantiles of the runs (default: robust to the rare runs with a very
        large regret), mean +- one standard deviation over runs (clipped at 0), or nothing.
    xscale, yscale : str
        Axis scales (``"linear"`` as in the paper, or ``"log"``).
    legend : bool
        Draw a legend in the axes.

    Returns
    -------
    matplotlib.figure.Figure
    """
    _check_band(band)
    if not results:
        raise ValueError("results must contain at least one algorithm")
    if ax is None:
        fig, ax = new_figure(1, width=6.0, height=3.6)
    else:
        fig = ax.figure
    for name, res in results.items():
        if not isinstance(res, Result):
            raise TypeError(f"results[{name!r}] must be a dpb.simulate.Result, got {type(res).__name__}")
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
    ax.set_xscale(xscale)
    ax.set_yscale(yscale)
    ax.set(xlabel="round $t$", ylabel="regret $\\mathrm{Reg}_t$")
    if xscale == "linear":
        ax.ticklabel_format(axis="x", style="sci", scilimits=(0, 0))
    if yscale == "linear":
        ax.set_ylim(bottom=0)
    if title:
        ax.set_title(title, fontsize="medium")
    if legend:
        ax.legend(frameon=False, fontsize="small", loc="center left", bbox_to_anchor=(1.01, 0.5))
    return fig


def _panel_title(env: str, eps: float, res: Result) -> str:
    mu = ", ".join(f"{m:g}" for m in res.means)
    return f"{env} = [{mu}], $\\varepsilon = {eps:g}$"


def plot_figure1(res: ExperimentResults, band: str | None = "quantile"):
    """The paper's Figure 1: regret against ``t`` at eps = 0.25 on mu1 (left) and mu2 (right).

    Parameters
    ----------
    res : ExperimentResults
        ``dpb.experiments.load("fig1")`` (or any experiment; one panel per setting).
    band : {"quantile", "std", None}
        See :func:`plot_regret`.
    """
    n = len(res.settings)
    fig, axes = new_figure(n, width=4.1, height=3.5, squeeze=False)
    for ax, s in zip(axes[0], res.settings, strict=True):
        data = res.setting(s)
        plot_regret(data, ax, title=_panel_title(s.env, s.eps, next(iter(data.values()))), band=band,
                    legend=False)
    _figure_legend(fig, axes[0][0])
    return fig


def _figure_legend(fig, ax) -> None:
    handles, labels = ax.get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=min(6, len(labels)), frameon=False,
               fontsize="small")


def plot_appendix(res: ExperimentResults, env: str = "mu1", band: str | None = "quantile"):
    """One appendix figure: regret against ``t`` on instance ``env`` for each budget (2 x 2 panels).

    Parameters
    ----------
    res : ExperimentResults
        ``dpb.experiments.load("appendix")``.
    env : str
        Instance name, ``"mu1"`` to ``"mu4"``.
    band : {"quantile", "std", None}
        See :func:`plot_regret`.
    """
    settings = [s for s in res.settings if s.env == env]
    if not settings:
        envs = sorted({s.env for s in res.settings})
        raise ValueError(f"env must be one of {envs}, got {env!r}")
    ncols = 2 if len(settings) > 1 else 1
    nrows = math.ceil(len(settings) / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.1 * ncols, 3.1 * nrows + 0.5), constrained_layout=True,
                             squeeze=False)
    for ax, s in zip(axes.flat, settings, strict=False):
        plot_regret(res.setting(s), ax, title=f"{env}, $\\varepsilon = {s.eps:g}$", band=band, legend=False)
    for ax in list(axes.flat)[len(settings):]:
        ax.set_visible(False)
    _figure_legend(fig, axes.flat[0])
    return fig


def plot_ratio_grid(res: ExperimentResults):
    """How much lower the paper's algorithms go: best private baseline / best of DP-KLUCB, DP-IMED.

    A heat map over (instance, eps) of the ratio of mean regrets at T (above 1: DP-KLUCB or
    DP-IMED wins), annotated with the ratio and the name of the best baseline
    (:func:`dpb.experiments.ratio_summary`).
    """
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


def plot_eps_sweep(res: ExperimentResults):
    """The appendix's regret-against-eps figure, with the lower bound on the same axes.

    Left: the mean regret at T of each budget with the 10%-90% quantiles of the runs, the
    asymptotic lower bound ``lower_bound_constant(mu, eps) log T`` (:prf:ref:`thm-lower-bound`)
    and the upper bound's leading term ``alpha lower_bound_constant log T`` (:prf:ref:`thm-upper-bound`),
    log scale.  Right: the mean and the median regret divided by the lower bound.
    """
    rows = sweep_table(res)
    if not rows:
        raise ValueError("the sweep has no setting")
    eps = np.array([r["eps"] for r in rows])
    mean = np.array([r["mean"] for r in rows])
    q10 = np.array([r["q10"] for r in rows])
    q90 = np.array([r["q90"] for r in rows])
    lb = np.array([r["lower_bound"] for r in rows])
    cell = res.settings[0].cells[0]
    alpha = float(cell.params.get("alpha", 1.0))
    T = cell.T
    fine = np.linspace(min(eps.min(), 0.005), max(1.0, eps.max()), 400)
    lb_fine = np.asarray(lower_bound_constant(np.array(cell.means), fine)) * math.log(T)
    ub = np.asarray(upper_bound_constant(np.array(cell.means), fine, alpha)) * math.log(T)
    fig, (ax1, ax2) = new_figure(2, width=4.2, height=3.8)
    color = ALGORITHM_STYLE.get(cell.policy, {"color": "C3"})["color"]
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
    ax2.plot(eps, np.array([r["median_ratio"] for r in rows]), "-", lw=1.2, color="#555555",
             label="median / lower bound")
    top = max(2.5, float(np.max(mean / lb)) * 1.1)
    ax2.set(xlabel="$\\varepsilon$", ylabel="regret at $T$ / lower bound", ylim=(0, top))
    ax2.set_title("ratio to the lower bound", fontsize="medium")
    ax2.legend(frameon=False, fontsize="small")
    return fig


def _tex_T(T: int) -> str:
    k = round(math.log10(T))
    return f"10^{{{k}}}" if 10**k == T else str(T)


def plot_final_distribution(results: Mapping[str, Result], ax=None, *, title: str | None = None):
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
    if not results:
        raise ValueError("results must contain at least one algorithm")
    if ax is None:
        fig, ax = new_figure(1, width=6.0, height=3.6)
    else:
        fig = ax.figure
    rng = np.random.default_rng(0)  # horizontal jitter only
    for k, (name, res) in enumerate(results.items()):
        if not isinstance(res, Result):
            raise TypeError(f"results[{name!r}] must be a dpb.simulate.Result, got {type(res).__name__}")
        reg = np.maximum(res.final_regret, 1.0)
        color = ALGORITHM_STYLE.get(name, {"color": f"C{k}"})["color"]
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
              band: str | None = "quantile", progress=None):
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
    if isinstance(algorithms, str):
        algorithms = (algorithms,)
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
