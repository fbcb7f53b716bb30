"""Figures, data helpers and explorers of the Algorithms chapter.

The helpers are checked against closed forms that do not go through them (the doubling schedule's
n_m = 2^{m+1} - 1, the triangular numbers of the polynomial schedule with p = 1, the variance
2/eps^2 of a Laplace draw), against a simulation, and against dpb.concentration directly.
"""


import ipywidgets as W
import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pytest

from dpb.plotting import algorithms as pa
from dpb.chapters import algorithms as chapter
from dpb.plotting.style import COLORS
from dpb.simulate import simulate_trace
from dpb.widgets import algorithms as wa


# ----------------------------------------------------------------------------------------------
# traces
# ----------------------------------------------------------------------------------------------
def test_trace_for_is_simulate_trace_and_cached():
    tr = chapter.trace_for("DP-KLUCB", "mu2", 0.5, 7, 1000)
    ref = simulate_trace("DP-KLUCB", "mu2", 1000, seed=7, params={"eps": 0.5})
    assert len(tr) == len(ref)
    np.testing.assert_array_equal(tr.table()["arm"], ref.table()["arm"])
    assert chapter.trace_for("DP-KLUCB", "mu2", 0.5, 7, 1000) is tr
    assert chapter.trace_for("IMED", "mu1", 0.1, 0, 500).params == {}  # eps ignored, no error
    with pytest.raises(ValueError, match="policy must be one of"):
        chapter.trace_for("UCB", "mu2")
    with pytest.raises(ValueError, match="env must be one of"):
        chapter.trace_for("DP-IMED", "mu9")
    with pytest.raises(ValueError, match="T must be <="):
        chapter.trace_for("DP-IMED", "mu2", T=10**6)


def test_trace_rows_content():
    tr = chapter.trace_for("DP-IMED", "mu2", 0.25, 0, 2000)
    rows = chapter.trace_rows(tr, phase=10, window=4)
    assert len(rows) == 5 and rows[0].split()[0] == "phase"
    assert [int(r.split()[0]) for r in rows[1:]] == [7, 8, 9, 10]
    p = tr.phases[10]
    fields = rows[-1].split()
    assert int(fields[2]) == p["arm"] + 1 and int(fields[3]) == p["pulls"]
    assert float(fields[5]) == pytest.approx(p["noise"][p["arm"]], abs=5e-4)
    assert len(chapter.trace_rows(tr, phase=10**6)) == 9  # clipped to the last phase, default window 8
    assert chapter.trace_rows(tr, phase=0, window=3)[1].split()[-1] == "-"  # initialisation: no index
    se = chapter.trace_for("DP-SE", "mu2", 0.25, 0, 10_000)
    assert "all" in chapter.trace_rows(se)[1] and "5 draws" in chapter.trace_rows(se)[1]
    with pytest.raises(ValueError, match="trace"):
        chapter.trace_rows("not a trace")


# ----------------------------------------------------------------------------------------------
# figures
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "plot,kwargs",
    [
        (pa.plot_forgetting, {"n_max": 3000, "runs": 300}),
        (pa.plot_schedules, {}),
        (pa.plot_schedules, {"n0": 5, "alpha": 3.0, "power": 0.5, "n_max": 10**4}),
        (pa.plot_trace_phase, {}),
        (pa.plot_trace_phase, {"policy": "DP-KLUCB", "phase": 2}),  # initialisation phase
        (pa.plot_trace_phase, {"policy": "DP-SE", "T": 10_000, "phase": 1}),
        (pa.plot_trace_phase, {"policy": "Lazy-DP-TS", "T": 500, "phase": 10**6}),  # phase clipped
    ],
)
def test_plot_returns_a_figure_with_data(plot, kwargs):
    fig = plot(**kwargs)
    assert isinstance(fig, matplotlib.figure.Figure)
    assert all(ax.has_data() for ax in fig.axes)
    plt.close(fig)


def test_forgetting_figure_draws_the_exact_std():
    fig = pa.plot_forgetting(n_max=1000, runs=200, eps=0.5)
    line = next(ln for ln in fig.axes[0].get_lines() if ln.get_label().startswith("accumulate (paper)"))
    n, y = line.get_data()
    np.testing.assert_allclose(y, chapter.noise_std_of_private_mean(n, eps=0.5, design="accumulate"))
    plt.close(fig)


def test_trace_figure_highlights_the_played_arm():
    fig = pa.plot_trace_phase("DP-IMED", "mu2", 0.25, 0, phase=25, T=2000)
    bars = fig.axes[0].patches
    p = chapter.trace_for("DP-IMED", "mu2", 0.25, 0, 2000).phases[25]
    red = matplotlib.colors.to_rgba(COLORS["d_eps"])
    assert [i for i, b in enumerate(bars) if b.get_facecolor() == red] == [p["arm"]]
    np.testing.assert_allclose([b.get_height() for b in bars], p["index"])
    plt.close(fig)


# ----------------------------------------------------------------------------------------------
# widgets
# ----------------------------------------------------------------------------------------------
def _controls(box):
    return box.children[1].children


@pytest.mark.parametrize("make", [wa.forgetting_explorer, wa.schedule_explorer])
def test_explorer_builds_and_redraws(make, figure_of):
    box = make()
    assert isinstance(box, W.VBox)
    sliders = [w for w in _controls(box) if isinstance(w, (W.FloatSlider, W.IntSlider))]
    assert sliders
    before, redraws = figure_of(box), box.redraws
    assert before is not None  # the explorer shows its figure at once
    sliders[1].value = sliders[1].max  # moving a control must redraw a different figure
    assert box.redraws == redraws + 1 and figure_of(box) not in (None, before)
    plt.close("all")


def test_trace_explorer_steps_and_reruns(figure_of):
    box = wa.trace_explorer()
    ctrl = {w.description: w for w in _controls(box)}
    phase = ctrl["phase"]
    buttons = box.children[2].children
    prev_btn, next_btn = buttons
    start = phase.value
    before = figure_of(box)
    next_btn.click()
    assert phase.value == start + 1 and figure_of(box) not in (None, before)
    prev_btn.click()
    prev_btn.click()
    assert phase.value == start - 1
    # a new policy: the slider covers that run's phases
    ctrl["policy"].value = "DP-SE"
    assert phase.max == len(chapter.trace_for("DP-SE", "mu2", 0.25, 0, 2000)) - 1
    assert phase.value <= phase.max
    ctrl["horizon T"].value = 500
    ctrl["policy"].value = "IMED"
    assert phase.max == 499  # one phase per round
    phase.value = phase.max
    next_btn.click()
    assert phase.value == phase.max  # the next button stops at the last phase
    plt.close("all")


def test_explorers_reject_values_off_their_grids():
    with pytest.raises(ValueError, match="T must be one of"):
        wa.trace_explorer(T=1234)
    with pytest.raises(ValueError, match="eps must be one of"):
        wa.trace_explorer(eps=0.3)
    with pytest.raises(ValueError, match="eps must be one of"):
        wa.forgetting_explorer(eps=0.3)


def test_trace_explorer_eps_change_reruns(figure_of):
    box = wa.trace_explorer(policy="DP-KLUCB", eps=0.25, T=1000)
    ctrl = {w.description: w for w in _controls(box)}
    before = figure_of(box)
    ctrl["ε"].value = 1.0
    assert figure_of(box) not in (None, before)
    assert ctrl["phase"].max == len(chapter.trace_for("DP-KLUCB", "mu2", 1.0, 0, 1000)) - 1
    plt.close("all")
