"""Figures and explorers of the privacy chapter: they return figures with data, and redraw."""

import ipywidgets as W
import matplotlib.pyplot as plt
import numpy as np
import pytest

from dpb.plotting import privacy as pp
from dpb.privacy import partial_sums
from dpb.widgets import privacy as wp


def _lines(fig):
    return [line for ax in fig.axes for line in ax.get_lines() if len(line.get_xdata())]


def test_release_starts():
    np.testing.assert_array_equal(pp.release_starts(20), [0, 1, 3, 7, 15])
    np.testing.assert_array_equal(pp.release_starts(7, "constant"), [0, 3, 6])
    np.testing.assert_array_equal(pp.release_starts(3, "steps"), [0, 1, 2])
    with pytest.raises(ValueError, match="schedule"):
        pp.release_starts(5, "weekly")


@pytest.mark.parametrize("schedule", ["doubling", "constant", "steps"])
def test_continual_release_figure(schedule):
    fig = pp.plot_continual_release(T=20, t_star=6, eps=0.5, schedule=schedule, seed=1)
    assert isinstance(fig, plt.Figure) and len(fig.axes) == 3
    bars = [b for c in fig.axes[2].containers for b in c.patches]
    heights = np.array([b.get_height() for b in bars])
    # one legend swatch per colour of bar: the release that holds t* has its own (issue 34)
    assert len(fig.axes[2].containers) == 2
    for c in fig.axes[2].containers:
        assert len({p.get_facecolor() for p in c.patches}) <= 1
    # one bar per release, only the phase of t* is non-zero, and it lies within [-eps, eps]
    assert heights.size == pp.release_starts(20, schedule).size
    assert np.count_nonzero(heights) <= 1 and np.all(np.abs(heights) <= 0.5 + 1e-12)
    # the released running sums sit at the phase ends
    released = [ln for ln in fig.axes[1].get_lines() if ln.get_label() == "released on r"][0]
    ends = np.append(pp.release_starts(20, schedule)[1:], 20)
    np.testing.assert_array_equal(released.get_xdata(), ends)
    plt.close(fig)


def test_continual_release_figure_total_matches_terms():
    fig = pp.plot_continual_release()
    total = [ln for ln in fig.axes[2].get_lines() if "total" in ln.get_label()][0].get_ydata()[0]
    assert total == pytest.approx(sum(b.get_height() for c in fig.axes[2].containers for b in c.patches))
    assert partial_sums(np.ones(4), [0, 1]).tolist() == [1.0, 3.0]
    plt.close(fig)


def test_game_figure():
    fig = pp.plot_game(runs=300, T=12, t_star=4)
    assert len(_lines(fig)) >= 3
    pv = fig.axes[1].get_lines()[0].get_ydata()
    assert pv.size == 12 and np.all((pv > 0) & (pv <= 1))
    plt.close(fig)


@pytest.mark.parametrize("policy", ["DP-IMED", "DP-IMED [no-noise]", "Lazy-DP-TS"])
def test_audit_figure(policy):
    fig = pp.plot_audit(policy, eps=1.0, runs=300, T=16)
    assert len(_lines(fig)) >= 2
    res = fig.audit_result
    assert res.n1 == 150 and np.isfinite(res.eps_lower) or res.eps_lower == -np.inf
    if policy.endswith("[no-noise]"):
        assert res.caught
    plt.close(fig)


def test_noise_cost_figure():
    fig = pp.plot_noise_cost(eps=0.5, mu=0.5, alpha=2, n_max=10**5)
    ratio = fig.axes[1].get_lines()[0].get_ydata()
    # noise-dominated start: one noise on the last batch can beat m + 1 noises on everything;
    # for large n the sampling term wins and accumulating is better by sqrt(alpha / (alpha - 1))
    assert ratio.min() < 1 and np.all(ratio[-6:] > 1.3) and ratio[-1] == pytest.approx(np.sqrt(2), rel=0.01)
    plt.close(fig)
    fig = pp.plot_noise_cost(mu=1.0)  # no sampling noise: only the noise terms remain
    assert len(fig.axes[0].get_lines()) == 2
    plt.close(fig)


@pytest.mark.parametrize("make, kind", [(wp.audit_explorer, W.IntSlider),
                                        (wp.continual_release_explorer, W.FloatLogSlider)])
def test_explorers_build_and_redraw(make, kind, figure_of):
    box = make(runs=200) if make is wp.audit_explorer else make()
    assert isinstance(box, W.VBox)
    controls = box.children[1].children
    slider = [w for w in controls if isinstance(w, kind)][-1]
    before = figure_of(box)
    slider.value = slider.min + 1 if slider.value == slider.min else slider.min  # must redraw
    after = figure_of(box)
    assert after not in (None, before)
    dropdown = next(w for w in controls if isinstance(w, W.Dropdown))
    dropdown.value = dropdown.options[-1]
    assert figure_of(box) not in (None, after)
    plt.close("all")
