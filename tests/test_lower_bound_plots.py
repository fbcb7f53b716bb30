"""Figures and explorers of the lower-bound chapter (dpb.plotting.lower_bound, dpb.widgets.lower_bound)."""

import ipywidgets as W
import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pytest

from dpb.bounds import azize_basu_2022_constant, lower_bound_constant
from dpb.divergences import d_eps, z_star
from dpb.plotting import lower_bound as pl
from dpb.widgets import lower_bound as wl


def _has_data(fig):
    return all(ax.has_data() for ax in fig.axes)


# ----------------------------------------------------------------------------------------------
# figures
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "plot, kwargs",
    [
        (pl.plot_d_eps, {}),
        (pl.plot_d_eps, {"mu_a": 0.8, "mu_star": 0.4, "eps": 3.0}),  # x > y, low privacy
        (pl.plot_d_eps, {"mu_a": 0.2, "mu_star": 1.0, "eps": 0.3}),  # kl infinite, threshold infinite
        (pl.plot_lower_bound_constants, {}),
        (pl.plot_lower_bound_constants, {"env": [0.9, 0.8, 0.6, 0.3]}),
        (pl.plot_lower_bound_constants, {"env": "mu1", "eps_min": 1e-3, "eps_max": 0.1}),
        (pl.plot_double_change, {}),
        (pl.plot_double_change, {"mu2_prime": 0.95}),  # clipped into [mu2, mu1]
        (pl.plot_coupled_hamming, {"horizon": 200, "n_runs": 60}),
        (pl.plot_coupled_hamming, {"horizon": 200, "n_runs": 60, "policy": "follow the leader"}),
        (pl.plot_coupled_hamming, {"horizon": 200, "n_runs": 60, "policy": "uniform"}),
    ],
)
def test_plot_returns_a_figure_with_data(plot, kwargs):
    fig = plot(**kwargs)
    assert isinstance(fig, matplotlib.figure.Figure)
    assert len(fig.axes) == 2 and _has_data(fig)
    plt.close(fig)


def test_d_eps_figure_marks_the_minimiser_and_the_regime():
    fig = pl.plot_d_eps(mu_a=0.3, mu_star=0.7, eps=0.5)
    ax = fig.axes[0]
    zs, dv = z_star(0.3, 0.7, 0.5), d_eps(0.3, 0.7, 0.5)
    points = [line for line in ax.get_lines() if len(line.get_xdata()) == 1]
    assert np.isclose(points[0].get_xdata()[0], zs) and np.isclose(points[0].get_ydata()[0], dv)
    assert "high privacy" in ax.get_title()
    plt.close(fig)
    fig = pl.plot_d_eps(mu_a=0.3, mu_star=0.7, eps=2.0)  # eps* = 2 logit(0.7) = 1.69
    assert "low privacy" in fig.axes[0].get_title()
    plt.close(fig)


def test_constants_figure_draws_the_library_constants():
    fig = pl.plot_lower_bound_constants("mu2", eps_min=0.01, eps_max=10.0, n_eps=50)
    grid = np.logspace(-2, 1, 50)
    lines = [line for line in fig.axes[0].get_lines() if len(line.get_xdata()) == 50]
    mu2 = [0.75, 0.625, 0.5, 0.375, 0.25]
    np.testing.assert_allclose(lines[0].get_ydata(), lower_bound_constant(mu2, grid))
    np.testing.assert_allclose(lines[1].get_ydata(), azize_basu_2022_constant(mu2, grid))
    ratio = [line for line in fig.axes[1].get_lines() if len(line.get_xdata()) == 50][0].get_ydata()
    assert np.all(ratio >= 1 - 1e-12) and np.isclose(ratio[-1], 1.0) and ratio[0] > 6
    plt.close(fig)


def test_double_change_figure_marks_the_optimum():
    fig = pl.plot_double_change(mu2=0.3, mu1=0.7, eps=0.5, mu2_prime=0.45)
    star = [line for line in fig.axes[0].get_lines() if line.get_marker() == "*"][0]
    assert np.isclose(star.get_xdata()[0], z_star(0.3, 0.7, 0.5))
    assert np.isclose(star.get_ydata()[0], d_eps(0.3, 0.7, 0.5))
    # the total drawn on the grid is never below its minimum d_eps
    total = fig.axes[0].get_lines()[2].get_ydata()
    assert total.min() >= d_eps(0.3, 0.7, 0.5) - 1e-12
    plt.close(fig)


@pytest.mark.parametrize(
    "plot, kwargs",
    [
        (pl.plot_d_eps, {"mu_a": 0.5, "mu_star": 0.5}),
        (pl.plot_d_eps, {"eps": float("inf")}),
        (pl.plot_d_eps, {"mu_a": 1.2}),
        (pl.plot_lower_bound_constants, {"env": "mu9"}),
        (pl.plot_lower_bound_constants, {"env": [0.5, 0.5]}),
        (pl.plot_lower_bound_constants, {"eps_min": 1.0, "eps_max": 0.5}),
        (pl.plot_double_change, {"mu2": 0.7, "mu1": 0.3}),
        (pl.plot_double_change, {"mu1": 1.0}),
        (pl.plot_coupled_hamming, {"mu2_prime": 0.3}),
        (pl.plot_coupled_hamming, {"policy": "oracle"}),
    ],
)
def test_plots_refuse_invalid_inputs(plot, kwargs):
    with pytest.raises(ValueError):
        plot(**kwargs)
    plt.close("all")


# ----------------------------------------------------------------------------------------------
# explorers
# ----------------------------------------------------------------------------------------------
def test_parse_means():
    assert wl.parse_means("0.9, 0.5, 0.5") == [0.9, 0.5, 0.5]
    assert wl.parse_means("[0.9 0.5; 0.25]") == [0.9, 0.5, 0.25]
    for bad, match in [("0.9, x", "cannot read"), ("0.9, 1.5", r"\[0, 1\]"), ("0.9", "at least two"),
                       ("0.4, 0.4", "equal"), ("", "at least two")]:
        with pytest.raises(ValueError, match=match):
            wl.parse_means(bad)
    with pytest.raises(TypeError):
        wl.parse_means([0.9, 0.5])


def test_message_on_error_turns_errors_into_a_figure():
    fig = wl.message_on_error(pl.plot_double_change)(mu2=0.8, mu1=0.3)
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert any("sub-optimal" in t for t in texts)
    plt.close(fig)


def test_environment_constants_menu():
    fig = wl.plot_environment_constants("custom", "0.9, 0.8, 0.6, 0.3")
    assert "custom" in fig.axes[0].get_title()
    plt.close(fig)
    fig = wl.plot_environment_constants("mu3", "not used")
    assert "mu3" in fig.axes[0].get_title()
    plt.close(fig)


def _controls(box):
    return list(box.children[1].children)


@pytest.mark.parametrize(
    "make",
    [wl.d_eps_explorer, wl.lower_bound_explorer, wl.double_change_explorer, wl.coupled_simulation_explorer],
)
def test_explorer_builds_and_redraws(make, figure_of):
    box = make()
    assert isinstance(box, W.VBox)
    assert box.last_error is None and box.redraws == 1  # drawn at its defaults
    controls = _controls(box)
    before = figure_of(box)
    assert before is not None  # the figure at the defaults is shown
    first = controls[0]
    if isinstance(first, W.Dropdown):
        first.value = first.options[-1]
    else:
        first.value = first.max if first.value != first.max else first.min
    # moving a control showed a new figure, drawn with the new value (the same image would mean
    # the control's value never reached the plot) ...
    assert box.redraws == 2 and figure_of(box) not in (None, before)
    assert box.last_error is None, box.last_error  # ... without an error (not a message)
    plt.close("all")


def test_lower_bound_explorer_custom_means_and_bad_text():
    box = wl.lower_bound_explorer()
    menu, text = _controls(box)
    menu.value = "custom"
    text.value = "0.8, 0.7, 0.2"
    assert box.last_error is None, box.last_error  # typed means: the figure
    text.value = "0.8, oops"  # shows a message, does not raise
    assert isinstance(box.last_error, ValueError) and "'oops'" in str(box.last_error)
    out = box.children[2]
    assert isinstance(out, W.Output) and out.outputs  # (the message, as a figure)
    text.value = "0.9, 0.1"
    assert box.last_error is None, box.last_error  # and back to a figure
    plt.close("all")
