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
from scipy import stats

from dpb import concentration as conc
from dpb.divergences import d_eps, kl, z_star
from dpb.plotting import concentration as pc
from dpb.widgets import concentration as wc


# ----------------------------------------------------------------------------------------------
# data helpers
# ----------------------------------------------------------------------------------------------
def test_m_of_n_rules():
    assert [pc.m_of_n(n, "log n") for n in (1, 3, 100, 10_000)] == [0, 2, 5, 10]
    assert pc.m_of_n(7, "1") == 1
    assert [pc.m_of_n(n, "sqrt n") for n in (1, 10, 100)] == [1, 4, 10]
    assert [pc.m_of_n(n, "n/20") for n in (10, 20, 1000)] == [0, 1, 50]
    with pytest.raises(ValueError, match="rule"):
        pc.m_of_n(10, "n")
    with pytest.raises(ValueError, match="n"):
        pc.m_of_n(0)


def test_tail_comparison_m1_against_scipy_and_bounds_dominate():
    n, m, mu, eps = 40, 1, 0.3, 0.7
    x = np.linspace(mu, 1.0, 9)
    r = pc.tail_comparison(x, n, m, mu, eps, runs=0)
    k = np.arange(n + 1)
    ref = (stats.binom.pmf(k, n, mu)[None, :] * stats.laplace.sf(n * x[:, None] - k, scale=1 / eps)).sum(1)
    np.testing.assert_allclose(np.exp(r["exact"]), ref, rtol=1e-10)
    assert r["mc"] is None and r["mc_lower"] is None
    assert np.all(r["private"] >= r["exact"] - 1e-9)
    assert np.all(r["separate"] >= r["exact"] - 1e-9)
    np.testing.assert_allclose(r["chernoff"], -n * np.asarray(kl(x, mu)), rtol=1e-12, atol=1e-14)


def test_tail_comparison_monte_carlo_interval_contains_exact():
    x = np.array([0.5, 0.6, 0.7])
    r = pc.tail_comparison(x, 60, 3, 0.5, 1.0, runs=50_000, seed=3, confidence=0.999)
    assert np.all(r["mc_lower"] <= r["exact"]) and np.all(r["exact"] <= r["mc_upper"])
    # same seed, same draws
    r2 = pc.tail_comparison(x, 60, 3, 0.5, 1.0, runs=50_000, seed=3, confidence=0.999)
    np.testing.assert_array_equal(r["mc"], r2["mc"])


def test_tail_comparison_rejects_lower_side_thresholds():
    with pytest.raises(ValueError, match="x must lie in"):
        pc.tail_comparison(0.2, 10, 1, 0.5, 1.0, runs=0)
    with pytest.raises(ValueError, match="runs"):
        pc.tail_comparison(0.7, 10, 1, 0.5, 1.0, runs=-1)
    with pytest.raises(ValueError, match="eps"):
        pc.tail_comparison(0.7, 10, 1, 0.5, 0.0)


def test_tail_contributions_sum_to_the_tail_and_peak_near_z_star():
    n, m, mu, eps, x = 2000, 8, 0.5, 0.25, 0.7
    parts = pc.tail_contributions(x, n, m, mu, eps)
    total = np.logaddexp.reduce(parts["log_term"])
    assert total == pytest.approx(parts["log_total"], rel=1e-10)
    assert parts["z_star"] == pytest.approx(z_star(x, mu, eps))
    peak = parts["k_over_n"][np.argmax(parts["log_term"])]
    assert abs(peak - parts["z_star"]) < 0.015
    # m = 0: the terms are the binomial pmf at k >= nx and nothing below
    p0 = pc.tail_contributions(0.6, 50, 0, 0.5, 1.0)
    assert np.all(np.isneginf(p0["log_term"][:30])) and np.all(np.isfinite(p0["log_term"][30:]))
    np.testing.assert_allclose(np.exp(p0["log_term"][30:]), stats.binom.pmf(np.arange(30, 51), 50, 0.5),
                               rtol=1e-10)


def test_exponent_curves_tend_to_d_eps_and_bounds_are_below():
    x, mu, eps = 0.9, 0.5, 0.25
    ex = pc.exponent_curves(x, mu, eps, "log n", ns=[100, 1000, 10_000])
    assert ex["d_eps"] == pytest.approx(d_eps(x, mu, eps)) and ex["kl"] == pytest.approx(kl(x, mu))
    np.testing.assert_array_equal(ex["m"], [5, 7, 10])
    gap = np.abs(ex["exact"] - ex["d_eps"])
    assert gap[0] > gap[1] > gap[2] and gap[2] < 0.005
    # a valid bound has a smaller exponent than the exact tail; trivial bounds give exactly 0
    assert np.all(ex["private"] <= ex["exact"] + 1e-12) and np.all(ex["separate"] <= ex["exact"] + 1e-12)
    assert ex["private"][0] == 0.0 and not np.signbit(ex["private"][0])
    with pytest.raises(ValueError, match="m_rule"):
        pc.exponent_curves(x, mu, eps, "n")


def test_exponent_curves_linear_m_stays_below_d_eps():
    ex = pc.exponent_curves(0.9, 0.5, 0.25, "n/20", ns=[1000, 4000])
    assert np.all(ex["exact"] < 0.6 * ex["d_eps"])


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
def test_explorer_builds_and_redraws(make, capsys):
    box = make()
    assert isinstance(box, W.VBox)
    sliders = [w for w in box.children[1].children if isinstance(w, (W.FloatSlider, W.FloatLogSlider))]
    assert sliders
    capsys.readouterr()
    sliders[0].value = sliders[0].max  # moving a control must redraw without raising
    # outside a kernel the Output widget does not capture, so the redrawn figure's repr is printed
    assert "Figure(" in capsys.readouterr().out
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
    # the redrawn exact curve uses ceil(sqrt(n)) noises, checked point by point against the
    # exact tail computed directly (the default "log n" curve differs at every n >= 3 here)
    n = int(ns[-1])
    assert ys[-1] == pytest.approx(conc.tail_exponent(0.9, n, math.ceil(math.sqrt(n)), 0.5, 0.25), rel=1e-9)
    assert ys[-1] != pytest.approx(conc.tail_exponent(0.9, n, math.ceil(math.log(n)), 0.5, 0.25), rel=1e-6)
    plt.close("all")


def test_tail_explorer_redraws_on_n(capsys):
    box = wc.tail_explorer()
    n_slider = next(w for w in box.children[1].children if isinstance(w, W.SelectionSlider))
    capsys.readouterr()
    n_slider.value = 100
    assert "Figure(" in capsys.readouterr().out
    plt.close("all")


def test_tail_explorer_rejects_unknown_n():
    with pytest.raises(ValueError, match="n must be one of"):
        wc.tail_explorer(n=123)
