"""Figures, data helpers and explorers of the Concentration chapter.

The data helpers are checked against references that do not go through them: scipy's binomial and
Laplace laws (m = 0, 1), the convolution identity, the known limits d_eps and kl, and the validity
of every bound.
"""

import math

import ipywidgets as W
import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pytest

from dpb import concentration as conc
from dpb.plotting import concentration as pc
from dpb.widgets import concentration as wc


# ----------------------------------------------------------------------------------------------
# figures
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "plot,kwargs",
    [
        (pc.plot_exponents_vs_eps, {}),
        (pc.plot_tail_bounds, {}),
        (pc.plot_tail_bounds, {"n": 50, "m": 0, "eps": 2.0, "mu": 0.3, "x": 0.1}),  # x < mu is moved to mu
        (pc.plot_tail_exponent, {}),
        (pc.plot_tail_exponent, {"x": 0.2, "mu": 0.5, "m_rule": "1"}),
    ],
)
def test_plot_returns_a_figure_with_data(plot, kwargs):
    fig = plot(**kwargs)
    assert isinstance(fig, matplotlib.figure.Figure)
    assert all(ax.has_data() for ax in fig.axes)
    plt.close(fig)


def test_tail_figure_draws_exact_curve_and_monte_carlo():
    fig = pc.plot_tail_bounds(n=100, m=2, eps=1.0, mu=0.5, x=0.6, runs=5000, seed=1)
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "exact" in labels and any("Monte Carlo" in lab for lab in labels)
    exact_line = next(line for line in ax.get_lines() if line.get_label() == "exact")
    t, y = exact_line.get_data()
    expected = conc.private_sum_logsf(100 * np.asarray(t), 100, 2, 0.5, 1.0) / math.log(10)
    np.testing.assert_allclose(y, expected, rtol=1e-12)
    plt.close(fig)


# ----------------------------------------------------------------------------------------------
# widgets
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("make", [wc.tail_explorer, wc.exponent_explorer])
def test_explorer_builds_and_redraws(make, figure_of):
    box = make()
    assert isinstance(box, W.VBox)
    sliders = [w for w in box.children[1].children if isinstance(w, (W.FloatSlider, W.FloatLogSlider))]
    assert sliders
    before = figure_of(box)
    sliders[0].value = sliders[0].max  # moving a control must redraw a different figure
    assert figure_of(box) not in (None, before)
    plt.close("all")


def test_exponent_explorer_switches_rule(monkeypatch):
    figures = []

    def recording_plot(**kwargs):
        figures.append(pc.plot_tail_exponent(**kwargs))
        return figures[-1]

    monkeypatch.setattr(wc, "plot_tail_exponent", recording_plot)
    box = wc.exponent_explorer()
    dropdown = next(w for w in box.children[1].children if isinstance(w, W.Dropdown))
    dropdown.value = "sqrt n"
    assert figures, "the explorer never drew"
    ax = figures[-1].axes[0]
    exact = next(line for line in ax.get_lines() if line.get_label() == "exact tail")
    ns, ys = exact.get_data()
    # the redrawn exact curve uses ceil(sqrt(n)) noises, checked at its largest n against the
    # exact tail computed directly (the default "log n" curve differs at every n >= 3 here)
    n = int(ns[-1])
    assert ys[-1] == pytest.approx(conc.tail_exponent(0.9, n, math.ceil(math.sqrt(n)), 0.5, 0.25), rel=1e-9)
    assert ys[-1] != pytest.approx(conc.tail_exponent(0.9, n, math.ceil(math.log(n)), 0.5, 0.25), rel=1e-6)
    plt.close("all")


def test_tail_explorer_redraws_on_n(figure_of):
    box = wc.tail_explorer()
    n_slider = next(w for w in box.children[1].children if isinstance(w, W.SelectionSlider))
    before = figure_of(box)
    n_slider.value = 100
    assert figure_of(box) not in (None, before)
    plt.close("all")


def test_tail_explorer_rejects_unknown_n():
    with pytest.raises(ValueError, match="n must be one of"):
        wc.tail_explorer(n=123)
