"""Figures and the explorer of the Experiments chapter, on tiny experiments computed here."""

from __future__ import annotations

import ipywidgets as W
import matplotlib.pyplot as plt
import numpy as np
import pytest

from dpb import experiments as E
from dpb.plotting import experiments as pe
from dpb.widgets import experiments as we


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    out = tmp_path_factory.mktemp("plots")
    exps = {
        "fig1": E.figure1(T=3000, runs=3),
        "appendix": E.appendix(T=3000, runs=3, instances=("mu1", "mu3"), eps_values=(0.1, 1.0)),
        "eps-sweep": E.eps_sweep(T=3000, runs=3, n_eps=4),
    }
    E.run(list(exps.values()), out, jobs=1, progress=False)
    return {k: E.load(e, out) for k, e in exps.items()}


def has_data(fig):
    return all(ax.has_data() for ax in fig.axes if ax.get_visible() and ax.get_label() != "<colorbar>"
               and ax.axison)


@pytest.mark.parametrize("band", ["std", "quantile", None])
def test_plot_regret_draws_mean_curves_from_zero(results, band):
    data = results["fig1"].setting(0)
    fig = pe.plot_regret(data, band=band, title="x")
    ax = fig.axes[0]
    lines = ax.get_lines()
    assert [ln.get_label() for ln in lines] == list(data)
    for ln, r in zip(lines, data.values(), strict=True):
        assert ln.get_xdata()[0] == 0 and ln.get_ydata()[0] == 0
        np.testing.assert_allclose(ln.get_ydata()[1:], r.regret.mean(axis=0))
    assert len(ax.collections) == (0 if band is None else len(data))
    plt.close(fig)


def test_plot_regret_rejects_bad_input(results):
    with pytest.raises(ValueError, match="band"):
        pe.plot_regret(results["fig1"].setting(0), band="iqr")
    with pytest.raises(ValueError, match="at least one"):
        pe.plot_regret({})
    with pytest.raises(TypeError, match="Result"):
        pe.plot_regret({"DP-SE": np.zeros(3)})


def test_figure1_and_appendix_figures(results):
    fig = pe.plot_figure1(results["fig1"])
    assert len(fig.axes) == 2 and has_data(fig)
    assert "mu1" in fig.axes[0].get_title() and "mu2" in fig.axes[1].get_title()
    assert len(fig.legends) == 1 and len(fig.legends[0].get_texts()) == len(E.ALGORITHMS)
    plt.close(fig)
    fig = pe.plot_appendix(results["appendix"], "mu3")
    assert len([a for a in fig.axes if a.get_visible()]) == 2 and has_data(fig)
    assert "0.1" in fig.axes[0].get_title()
    plt.close(fig)
    with pytest.raises(ValueError, match="env"):
        pe.plot_appendix(results["appendix"], "mu2")


def test_ratio_grid_shows_every_setting(results):
    fig = pe.plot_ratio_grid(results["appendix"])
    ax = fig.axes[0]
    assert ax.images and ax.images[0].get_array().shape == (2, 2)
    texts = [t.get_text() for t in ax.texts]
    rows = E.ratio_summary(results["appendix"])
    assert len(texts) == 4 and all(f"{r['ratio']:.1f}x" in " ".join(texts) for r in rows)
    plt.close(fig)


def test_eps_sweep_figure_has_lower_bound_and_ratio(results):
    fig = pe.plot_eps_sweep(results["eps-sweep"])
    ax1, ax2 = fig.axes[:2]
    assert ax1.get_yscale() == "log" and has_data(fig)
    labels = [ln.get_label() for ln in ax1.get_lines()]
    assert any("lower bound" in lab for lab in labels)
    rows = E.sweep_table(results["eps-sweep"])
    ratio_line = [ln for ln in ax2.get_lines() if len(ln.get_xdata()) == len(rows)][0]
    np.testing.assert_allclose(ratio_line.get_ydata(), [r["ratio"] for r in rows])
    plt.close(fig)


def test_parse_means():
    np.testing.assert_allclose(pe.parse_means("0.9, 0.5 0.1"), [0.9, 0.5, 0.1])
    for bad in ("0.9", "0.9, x", "0.9, 1.5"):
        with pytest.raises(ValueError):
            pe.parse_means(bad)


def test_plot_live_simulates_and_tabulates():
    fig = pe.plot_live(env="custom", means="0.9, 0.6", eps=0.5, T=2000, runs=3,
                       algorithms=("DP-IMED", "DP-SE"))
    ax, tab = fig.axes[:2]
    assert [ln.get_label() for ln in ax.get_lines()] == ["DP-IMED", "DP-SE"]
    cells = tab.tables[0].get_celld()
    assert cells[(1, 0)].get_text().get_text() == "DP-IMED" and cells[(1, 6)].get_text().get_text() == "1.00"
    plt.close(fig)
    with pytest.raises(ValueError, match="env"):
        pe.plot_live(env="mu9", T=1000, runs=2)
    with pytest.raises(ValueError, match="algorithms"):
        pe.plot_live(T=1000, runs=2, algorithms=())


def test_live_figure_reports_bad_input_in_the_figure():
    fig = we.live_figure(env="custom", means="0.9", eps=0.5, T=1000, runs=2, algorithms=("DP-SE",))
    assert "Cannot simulate" in fig.axes[0].texts[0].get_text()
    plt.close(fig)


def test_explorer_builds_and_redraws_every_control(monkeypatch):
    calls = []

    def fake(**values):
        calls.append(values)
        fig, _ = pe.new_figure(1)
        return fig

    monkeypatch.setattr(we, "live_figure", fake)
    box = we.experiment_explorer()
    assert isinstance(box, W.VBox) and len(calls) == 1
    controls = box.children[1].children
    names = ["env", "means", "eps", "T", "runs", "algorithms"]
    assert len(controls) == len(names)
    new = {"env": "custom", "means": "0.5, 0.4", "eps": 1.0, "T": 10_000, "runs": 3,
           "algorithms": ("DP-IMED",)}
    run = box.children[2].children[0]  # T = 10^6 takes seconds: the explorer redraws on "Run"
    assert isinstance(run, W.Button) and run.description == "Run"
    for key, control in zip(names, controls, strict=True):
        control.value = new[key]
        assert len(calls) == 1  # moving a control computes nothing
    run.click()
    assert len(calls) == 2 and {k: calls[-1][k] for k in names} == new
    plt.close("all")
    with pytest.raises(ValueError, match="T"):
        we.experiment_explorer(T=12345)


def test_explorer_default_redraw_is_real():
    box = we.experiment_explorer(T=1_000, runs=2, algorithms=("DP-IMED", "IMED"))
    assert isinstance(box, W.VBox)
    before = box.output.outputs
    box.children[1].children[0].value = "mu1"
    box.children[2].children[0].click()  # a real redraw through plot_live
    assert box.redraws == 2 and box.output.outputs != before
    assert box.output.outputs[-1]["output_type"] == "display_data"
    plt.close("all")


def test_ci_band_is_kept_on_disk_and_read_back(tmp_path, monkeypatch):
    """band="ci" bootstraps every checkpoint (seconds a panel at chapter 7's scale): the band is
    saved under the regret array's checksum and the next drawing of the same data reads it."""
    from dpb.estimates import bca_columns

    monkeypatch.setenv("DPB_RESULTS", str(tmp_path))
    regret = np.random.default_rng(3).exponential(50.0, size=(40, 6)).cumsum(axis=1)
    lo, hi = pe._ci_band(regret)
    _, want_lo, want_hi = bca_columns(regret, n_boot=pe.BAND_BOOT)
    assert np.array_equal(lo, want_lo) and np.array_equal(hi, want_hi)
    assert len(list((tmp_path / "bands").glob("*.npz"))) == 1

    def no_bootstrap(*args, **kwargs):
        raise AssertionError("the band was bootstrapped again instead of read from disk")

    monkeypatch.setattr(pe, "bca_columns", no_bootstrap)
    lo2, hi2 = pe._ci_band(regret.copy())
    assert np.array_equal(lo2, lo) and np.array_equal(hi2, hi)
    with pytest.raises(AssertionError, match="bootstrapped again"):  # other data: computed anew
        pe._ci_band(regret + 1.0)
