"""Figures and explorers of the upper-bound chapter (dpb.plotting.regret, dpb.widgets.regret).

The book's runs (T = 1e8, 400 runs) are replaced by small ones (T = 1e5, 12 runs) in a temporary
cache directory, so the figures draw the same code paths in a fraction of a second.
"""

import ipywidgets as W
import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pytest

import dpb.regret as rg
import dpb.chapters.regret as chapter
from dpb.plotting import regret as pr
from dpb.widgets import regret as wr

SMALL_H = (10**3, 10**5)


@pytest.fixture(autouse=True)
def _small_runs(tmp_path, monkeypatch):
    monkeypatch.setenv("DPB_RESULTS", str(tmp_path))
    monkeypatch.setitem(rg.DEFAULTS, "T", 10**5)
    monkeypatch.setitem(rg.DEFAULTS, "runs", 12)
    monkeypatch.setitem(rg.DEFAULTS, "n_grid", 13)
    yield
    plt.close("all")


def _has_data(fig):
    return all(ax.has_data() for ax in fig.axes)


@pytest.mark.parametrize(
    "plot, kwargs",
    [
        (pr.plot_convergence, {}),
        (pr.plot_convergence, {"policy": "DP-IMED", "alpha": 1.1, "arm": 4}),
        (pr.plot_convergence, {"alpha": chapter.POLYNOMIAL, "instance": "sweep", "eps": 1.0}),
        (pr.plot_decomposition, {"alphas": (1.5, 3)}),
        (pr.plot_decomposition, {"policy": "DP-KLUCB", "alpha": 1.5, "alphas": (1.5,)}),
        (pr.plot_alpha_tradeoff, {"alphas": (1.5, 2), "horizons": SMALL_H}),
        (pr.plot_regret_distribution, {"T": 10**5}),
        (pr.plot_regret_distribution, {"T": 10**3, "alpha": chapter.POLYNOMIAL, "policy": "DP-KLUCB"}),
    ],
)
def test_plot_returns_a_figure_with_data(plot, kwargs):
    fig = plot(**kwargs)
    assert isinstance(fig, matplotlib.figure.Figure)
    assert len(fig.axes) == 2 and _has_data(fig)


def test_convergence_figure_draws_both_asymptotes_and_the_runs():
    fig = pr.plot_convergence(instance="mu2", eps=0.25, alpha=1.5, policy="DP-KLUCB", arm=2)
    res = chapter.book_runs("mu2", 0.25, 1.5, "DP-KLUCB")
    c = res.constants()
    levels = {round(float(line.get_ydata()[0]), 9) for line in fig.axes[0].get_lines()
              if len(set(np.ravel(line.get_ydata()))) == 1}
    assert round(c["upper_pulls"][2], 9) in levels and round(c["lower_pulls"][2], 9) in levels
    mean_line = [line for line in fig.axes[0].get_lines() if line.get_label().startswith("mean")][0]
    assert np.allclose(mean_line.get_ydata(), res.normalised_pulls()[:, :, 2].mean(axis=0))
    # right panel: one curve per sub-optimal arm, plus the two reference lines at 1 and alpha
    right = [line.get_label() for line in fig.axes[1].get_lines()]
    assert sum(lab.startswith("arm") for lab in right) == 4


def test_distribution_figure_counts_every_run():
    fig = pr.plot_regret_distribution(T=10**5)
    heights = sum(p.get_height() for p in fig.axes[0].patches)
    assert heights == 12


def test_plots_refuse_bad_inputs():
    with pytest.raises(ValueError, match="optimal"):
        pr.plot_convergence(arm=0)
    with pytest.raises(ValueError, match="grid point"):
        pr.plot_regret_distribution(T=12_345)
    with pytest.raises(ValueError, match="alpha"):
        pr.plot_convergence(alpha="cubic")
    assert pr.alpha_label(2) == "α = 2" and "polynomial" in pr.alpha_label(chapter.POLYNOMIAL)


def _controls(box):
    return list(box.children[1].children)


@pytest.mark.parametrize("make, kwargs", [(wr.convergence_explorer, {}), (wr.alpha_tradeoff_explorer, {}),
                                          (wr.distribution_explorer, {"T": 10**5})])
def test_explorer_builds_and_redraws(make, kwargs, monkeypatch, figure_of):
    if make is wr.alpha_tradeoff_explorer:
        # the explorer draws the default ratios; keep two of them for speed
        monkeypatch.setattr(wr, "plot_alpha_tradeoff",
                            lambda **kw: pr.plot_alpha_tradeoff(alphas=(1.5, 2), horizons=SMALL_H, **kw))
    box = make(**kwargs)
    assert isinstance(box, W.VBox)
    assert box.last_error is None, box.last_error  # drawn at its defaults
    controls = {c.description or type(c).__name__: c for c in _controls(box)}
    shown = [figure_of(box)]
    assert shown[0] is not None  # the figure at the defaults is shown
    controls["ε"].value = 0.5
    shown.append(figure_of(box))
    # moving a control showed a new figure, drawn with the new value (the same image would mean
    # the control's value never reached the plot) ...
    assert box.redraws == 2 and shown[1] not in (None, shown[0])
    assert box.last_error is None, box.last_error  # ... without an error (not a message)
    toggle = controls["ToggleButtons"]
    toggle.value = "DP-IMED" if toggle.value != "DP-IMED" else "DP-KLUCB"
    shown.append(figure_of(box))
    assert box.redraws == 3 and shown[2] not in (None, *shown[:2])
    assert box.last_error is None, box.last_error


def test_convergence_explorer_optimal_arm_shows_a_message():
    box = wr.convergence_explorer()
    assert box.last_error is None, box.last_error
    arm = [c for c in _controls(box) if c.description == "arm"][0]
    arm.value = 0  # the optimal arm: a message, not a traceback
    assert isinstance(box.last_error, ValueError) and "arm 0 is optimal" in str(box.last_error)
    arm.value = 7  # no such arm: a message too
    assert isinstance(box.last_error, ValueError) and "arm" in str(box.last_error)
    assert "optimal" not in str(box.last_error)
    arm.value = 2  # a sub-optimal arm: the figure again
    assert box.last_error is None, box.last_error
    assert isinstance(box.children[2], W.Output)
