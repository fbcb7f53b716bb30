"""Every plotting function draws a figure and every explorer builds, at its defaults."""

import ipywidgets as W
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from dpb.plotting import background as pb  # noqa: E402
from dpb.widgets import background as wb  # noqa: E402


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
    sliders = [w for w in box.children[1].children if isinstance(w, W.widgets.widget_float._Float)]
    assert sliders
    sliders[0].value = sliders[0].max  # moving a control must not raise
    plt.close("all")


def test_laplace_figure_says_when_inputs_are_not_neighbours():
    fig = pb.plot_laplace_mechanism(eps=1.0, s=1.0, s_prime=4.0)
    assert "not neighbours" in fig.axes[1].get_title()
    plt.close(fig)
