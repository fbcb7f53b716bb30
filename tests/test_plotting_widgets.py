"""Every plotting function draws a figure and every explorer builds, at its defaults."""

import ipywidgets as W
import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pytest

from dpb.plotting import background as pb
from dpb.widgets import background as wb


@pytest.mark.parametrize("plot", [pb.plot_laplace_mechanism, pb.plot_kl])
def test_plot_returns_a_figure_with_data(plot):
    fig = plot()
    assert isinstance(fig, matplotlib.figure.Figure)
    assert all(ax.has_data() for ax in fig.axes if ax.get_label() != "<colorbar>")
    plt.close(fig)


@pytest.mark.parametrize("make", [wb.laplace_explorer, wb.kl_explorer])
def test_explorer_builds_and_redraws(make):
    box = make()
    assert isinstance(box, W.VBox)
    assert box.last_error is None, box.last_error  # drawn at its defaults
    sliders = [w for w in box.children[1].children if isinstance(w, W.widgets.widget_float._Float)]
    assert sliders
    sliders[0].value = sliders[0].max if sliders[0].value != sliders[0].max else sliders[0].min
    assert box.redraws == 2  # moving a control redrew ...
    assert box.last_error is None, box.last_error  # ... without an error
    plt.close("all")


def test_laplace_figure_says_when_inputs_are_not_neighbours():
    fig = pb.plot_laplace_mechanism(eps=1.0, s=1.0, s_prime=4.0)
    assert "not neighbours" in fig.axes[1].get_title()
    plt.close(fig)


def test_laplace_figure_draws_the_group_bound_for_distant_sums():
    fig = pb.plot_laplace_mechanism(eps=0.5, s=1.0, s_prime=4.0)
    levels = sorted(round(float(line.get_ydata()[0]), 9) for line in fig.axes[1].get_lines()
                    if line.get_linestyle() == "--")
    assert levels == [-1.5, 1.5]  # +-k eps with k = 3 records
    plt.close(fig)
    fig = pb.plot_laplace_mechanism()
    assert not [line for line in fig.axes[1].get_lines() if line.get_linestyle() == "--"]
    plt.close(fig)


@pytest.mark.parametrize("p", [0.0, 0.1, 0.5, 1.0])
def test_kl_figure_shows_kl_ucb_below_hoeffding(p):
    fig = pb.plot_kl(p=p, c=0.2, eps=0.5)
    left, right = fig.axes[:2]
    assert any("TV" in (line.get_label() or "") for line in left.get_lines())
    kl_line, hoeffding = right.get_lines()[:2]
    assert np.all(kl_line.get_ydata() <= hoeffding.get_ydata() + 1e-12)  # Pinsker's inequality
    plt.close(fig)


@pytest.mark.parametrize("kwargs, name", [({"p": 1.5}, "p"), ({"c": 0.0}, "c"), ({"eps": -1.0}, "eps")])
def test_kl_figure_rejects_bad_parameters(kwargs, name):
    with pytest.raises(ValueError, match=name):
        pb.plot_kl(**kwargs)


def test_laplace_figure_rejects_bad_eps():
    with pytest.raises(ValueError, match="eps"):
        pb.plot_laplace_mechanism(eps=0.0)


@pytest.mark.parametrize("make, plot_name, keywords", [
    (wb.laplace_explorer, "plot_laplace_mechanism", ["eps", "s", "s_prime"]),
    (wb.kl_explorer, "plot_kl", ["p", "c", "eps"]),
])
def test_explorers_redraw_every_control(monkeypatch, make, plot_name, keywords):
    """Each control, when moved, redraws the plotting function with its new value."""
    calls = []
    original = getattr(wb, plot_name)

    def counting(**values):
        calls.append(values)
        return original(**values)

    monkeypatch.setattr(wb, plot_name, counting)
    box = make()
    assert len(calls) == 1  # drawn once at build time
    sliders = box.children[1].children
    assert len(sliders) == len(keywords)
    for key, slider in zip(keywords, sliders, strict=True):
        new = slider.min if slider.value != slider.min else slider.max
        slider.value = new
        assert calls[-1][key] == pytest.approx(slider.value)
        assert box.last_error is None, (key, box.last_error)  # the redraw drew its figure
    assert len(calls) == 1 + len(keywords)
    plt.close("all")
