"""Figures, data helpers and explorers of the Algorithms chapter.

The helpers are checked against closed forms that do not go through them (the doubling schedule's
n_m = 2^{m+1} - 1, the triangular numbers of the polynomial schedule with p = 1, the variance
2/eps^2 of a Laplace draw), against a simulation, and against dpb.concentration directly.
"""

import math

import ipywidgets as W
import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pytest

from dpb import concentration as conc
from dpb.batching import DoublingSchedule, GeometricSchedule, PolynomialSchedule
from dpb.plotting import algorithms as pa
from dpb.plotting.style import COLORS
from dpb.simulate import simulate_trace
from dpb.widgets import algorithms as wa


# ----------------------------------------------------------------------------------------------
# composition of the private mean, noise standard deviation
# ----------------------------------------------------------------------------------------------
def test_composition_doubling_closed_form():
    # doubling from 1: phase ends n_m = 2^{m+1} - 1, batches B_m = 2^m
    n = np.array([1, 2, 3, 6, 7, 8, 14, 15, 1023])
    M = np.floor(np.log2(n + 1)).astype(int) - 1  # last phase with 2^{M+1} - 1 <= n
    r, k = pa.private_mean_composition(n, 1, 2, "accumulate")
    np.testing.assert_array_equal(r, 2 ** (M + 1) - 1)
    np.testing.assert_array_equal(k, M + 1)
    r, k = pa.private_mean_composition(n, 1, 2, "forget")
    np.testing.assert_array_equal(r, 2**M)
    np.testing.assert_array_equal(k, np.ones_like(M))
    assert pa.private_mean_composition(7) == (7, 3)  # scalars stay scalars
    assert isinstance(pa.private_mean_composition(7)[0], int)


def test_composition_polynomial_schedule():
    # B_m = m + 1: n_M = (M+1)(M+2)/2
    sched = PolynomialSchedule(n0=1, power=1)
    assert pa.private_mean_composition(10, design="accumulate", schedule=sched) == (10, 4)
    assert pa.private_mean_composition(14, design="accumulate", schedule=sched) == (10, 4)
    assert pa.private_mean_composition(15, design="forget", schedule=sched) == (5, 1)


def test_noise_std_formulas():
    eps = 0.5
    for M in range(6):
        n = 2 ** (M + 1) - 1
        acc = pa.noise_std_of_private_mean(n, 1, 2, eps, "accumulate")
        fgt = pa.noise_std_of_private_mean(n, 1, 2, eps, "forget")
        assert acc == pytest.approx(math.sqrt(2 * (M + 1)) / (eps * n), rel=1e-14)
        assert fgt == pytest.approx(math.sqrt(2) / (eps * 2**M), rel=1e-14)
    # array input, n0 = 3, alpha = 3: B_m = 3^{m+1}, n_m = 3 (3^{m+1} - 1) / 2
    n = np.array([3, 12, 39])
    np.testing.assert_allclose(pa.noise_std_of_private_mean(n, 3, 3, 1.0, "accumulate"),
                               np.sqrt(2 * np.arange(1, 4)) / n, rtol=1e-14)
    np.testing.assert_allclose(pa.noise_std_of_private_mean(n, 3, 3, 1.0, "forget"),
                               math.sqrt(2) / (3 * 3.0 ** np.arange(3)), rtol=1e-14)


def test_accumulated_noise_is_larger_but_grows_like_sqrt_log():
    n = 2 ** np.arange(4, 20) - 1
    acc = pa.noise_std_of_private_mean(n, eps=1.0, design="accumulate")
    fgt = pa.noise_std_of_private_mean(n, eps=1.0, design="forget")
    ratio = acc / fgt  # = sqrt(M+1) B_M / n_M ~ sqrt(M+1) / 2
    assert np.all(np.diff(ratio) > 0)
    np.testing.assert_allclose(ratio, np.sqrt(np.log2(n + 1)) * (n + 1) / 2 / n, rtol=1e-12)


@pytest.mark.parametrize(
    "kwargs,err,match",
    [
        ({"n": 0}, ValueError, "n must be >= 1"),
        ({"n": 2.5}, ValueError, "integers"),
        ({"n": [3, np.nan]}, ValueError, "integers"),
        ({"n": 3, "design": "keep"}, ValueError, "design"),
        ({"n": 3, "eps": 0.0}, ValueError, "eps"),
        ({"n": 3, "alpha": 1.0}, ValueError, "alpha"),
        ({"n": 3, "schedule": "doubling"}, TypeError, "schedule"),
        ({"n": "3"}, TypeError, "n"),
    ],
)
def test_noise_std_validation(kwargs, err, match):
    with pytest.raises(err, match=match):
        pa.noise_std_of_private_mean(**kwargs)


def test_first_phase_must_be_complete():
    with pytest.raises(ValueError, match="n must be >= 4"):
        pa.private_mean_composition(3, n0=4)


def test_monte_carlo_matches_exact_std():
    n = np.array([1, 7, 63, 1023])
    for design in pa.DESIGNS:
        mc = pa.noise_monte_carlo(n, eps=0.25, design=design, runs=40_000, seed=3)
        exact = pa.noise_std_of_private_mean(n, eps=0.25, design=design)
        # the std estimate of a Laplace sum from 40000 runs is within ~2% (sd of the estimate ~0.9%)
        np.testing.assert_allclose(mc["std"], exact, rtol=0.04)
        assert np.all(mc["abs_q50"] < mc["abs_q95"])
        assert mc["samples"].shape == (40_000, n.size)
    a = pa.noise_monte_carlo(n, runs=100, seed=1)
    b = pa.noise_monte_carlo(n, runs=100, seed=1)
    np.testing.assert_array_equal(a["samples"], b["samples"])
    with pytest.raises(ValueError, match="runs"):
        pa.noise_monte_carlo(n, runs=1)


def test_forgetting_comparison_against_concentration():
    d = pa.forgetting_comparison(n0=1, alpha=2, eps=0.25, mu=0.5, x=0.6, n_max=5000, runs=500, seed=0)
    np.testing.assert_array_equal(d["n"], 2 ** np.arange(1, 13) - 1)
    for design in pa.DESIGNS:
        r, k = d[design]["rewards"], d[design]["noises"]
        i = -1
        assert d[design]["log_tail"][i] == pytest.approx(
            float(conc.private_sum_logsf(r[i] * 0.6, int(r[i]), int(k[i]), 0.5, 0.25)), rel=1e-12)
        np.testing.assert_allclose(d[design]["sampling_std"], np.sqrt(0.25 / r))
    # accumulating: the tail at the last phase end is far smaller (all n rewards vs the last half)
    assert d["accumulate"]["log_tail"][-1] < d["forget"]["log_tail"][-1] - 5 * math.log(10)
    with pytest.raises(ValueError, match="x must lie in"):
        pa.forgetting_comparison(mu=0.5, x=0.4)
    with pytest.raises(ValueError, match="n_max"):
        pa.forgetting_comparison(n0=5, n_max=3)


# ----------------------------------------------------------------------------------------------
# schedules
# ----------------------------------------------------------------------------------------------
def test_phases_to_reach_closed_forms():
    n = np.arange(1, 5000)
    # doubling from 1: ceil(log2(n + 1))
    np.testing.assert_array_equal(pa.phases_to_reach(n, DoublingSchedule(1)), np.ceil(np.log2(n + 1)))
    # integer ratio alpha, n0: the smallest M + 1 with n0 (alpha^{M+1} - 1)/(alpha - 1) >= n
    for n0, alpha in [(1, 3), (4, 2), (2, 5)]:
        got = pa.phases_to_reach(n, GeometricSchedule(n0, alpha))
        want = [next(j for j in range(1, 60) if n0 * (alpha**j - 1) // (alpha - 1) >= v) for v in n]
        np.testing.assert_array_equal(got, want)
    # polynomial p = 1: triangular numbers j (j + 1) / 2 >= n
    got = pa.phases_to_reach(n, PolynomialSchedule(1, 1))
    np.testing.assert_array_equal(got, np.ceil((np.sqrt(8 * n + 1) - 1) / 2))
    assert pa.phases_to_reach(1, DoublingSchedule(1)) == 1
    with pytest.raises(TypeError, match="schedule"):
        pa.phases_to_reach(10, "doubling")


def test_schedule_comparison_sublinear():
    d = pa.schedule_comparison(n0=1, alpha=1.1, power=2, n_max=10**6, points=30)
    assert d["n"][0] == 1 and d["n"][-1] == 10**6
    for name in ("geometric", "doubling", "polynomial"):
        ph = d[name]["phases"]
        assert np.all(np.diff(ph) >= 0) and ph[-1] / 10**6 < 1e-3
        assert d[name]["sizes"][0] == 1 and d[name]["sizes"].sum() >= 10**6
    assert d["doubling"]["phases"][-1] == 20  # ceil(log2(1e6 + 1))
    # geometric 1.1: about log(n (alpha - 1) + 1) / log(alpha) phases
    assert abs(d["geometric"]["phases"][-1] - math.log(1e5 + 1) / math.log(1.1)) < 2


# ----------------------------------------------------------------------------------------------
# traces
# ----------------------------------------------------------------------------------------------
def test_trace_for_is_simulate_trace_and_cached():
    tr = pa.trace_for("DP-KLUCB", "mu2", 0.5, 7, 1000)
    ref = simulate_trace("DP-KLUCB", "mu2", 1000, seed=7, params={"eps": 0.5})
    assert len(tr) == len(ref)
    np.testing.assert_array_equal(tr.table()["arm"], ref.table()["arm"])
    assert pa.trace_for("DP-KLUCB", "mu2", 0.5, 7, 1000) is tr
    assert pa.trace_for("IMED", "mu1", 0.1, 0, 500).params == {}  # eps ignored, no error
    with pytest.raises(ValueError, match="policy must be one of"):
        pa.trace_for("UCB", "mu2")
    with pytest.raises(ValueError, match="env must be one of"):
        pa.trace_for("DP-IMED", "mu9")
    with pytest.raises(ValueError, match="T must be <="):
        pa.trace_for("DP-IMED", "mu2", T=10**6)


def test_trace_rows_content():
    tr = pa.trace_for("DP-IMED", "mu2", 0.25, 0, 2000)
    rows = pa.trace_rows(tr, phase=10, window=4)
    assert len(rows) == 5 and rows[0].split()[0] == "phase"
    assert [int(r.split()[0]) for r in rows[1:]] == [7, 8, 9, 10]
    p = tr.phases[10]
    fields = rows[-1].split()
    assert int(fields[2]) == p["arm"] + 1 and int(fields[3]) == p["pulls"]
    assert float(fields[5]) == pytest.approx(p["noise"][p["arm"]], abs=5e-4)
    assert len(pa.trace_rows(tr, phase=10**6)) == 9  # clipped to the last phase, default window 8
    assert pa.trace_rows(tr, phase=0, window=3)[1].split()[-1] == "-"  # initialisation: no index
    se = pa.trace_for("DP-SE", "mu2", 0.25, 0, 10_000)
    assert "all" in pa.trace_rows(se)[1] and "5 draws" in pa.trace_rows(se)[1]
    with pytest.raises(ValueError, match="trace"):
        pa.trace_rows("not a trace")


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
    np.testing.assert_allclose(y, pa.noise_std_of_private_mean(n, eps=0.5, design="accumulate"))
    plt.close(fig)


def test_trace_figure_highlights_the_played_arm():
    fig = pa.plot_trace_phase("DP-IMED", "mu2", 0.25, 0, phase=25, T=2000)
    bars = fig.axes[0].patches
    p = pa.trace_for("DP-IMED", "mu2", 0.25, 0, 2000).phases[25]
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
def test_explorer_builds_and_redraws(make, capsys):
    box = make()
    assert isinstance(box, W.VBox)
    sliders = [w for w in _controls(box) if isinstance(w, (W.FloatSlider, W.IntSlider))]
    assert sliders
    capsys.readouterr()
    sliders[1].value = sliders[1].max  # moving a control must redraw without raising
    # outside a kernel the Output widget does not capture, so the redrawn figure's repr is printed
    assert "Figure(" in capsys.readouterr().out
    plt.close("all")


def test_trace_explorer_steps_and_reruns(capsys):
    box = wa.trace_explorer()
    ctrl = {w.description: w for w in _controls(box)}
    phase = ctrl["phase"]
    buttons = box.children[2].children
    prev_btn, next_btn = buttons
    start = phase.value
    capsys.readouterr()
    next_btn.click()
    assert phase.value == start + 1 and "Figure(" in capsys.readouterr().out
    prev_btn.click()
    prev_btn.click()
    assert phase.value == start - 1
    # a new policy: the slider covers that run's phases
    ctrl["policy"].value = "DP-SE"
    assert phase.max == len(pa.trace_for("DP-SE", "mu2", 0.25, 0, 2000)) - 1
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


def test_trace_explorer_eps_change_reruns(capsys):
    box = wa.trace_explorer(policy="DP-KLUCB", eps=0.25, T=1000)
    ctrl = {w.description: w for w in _controls(box)}
    capsys.readouterr()
    ctrl["ε"].value = 1.0
    assert "Figure(" in capsys.readouterr().out
    assert ctrl["phase"].max == len(pa.trace_for("DP-KLUCB", "mu2", 1.0, 0, 1000)) - 1
    plt.close("all")
