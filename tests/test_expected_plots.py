"""Figures of expected regret (interval bands, seed sensitivity, the sweep in expectation), on
tiny experiments computed here."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from dpb import experiments as E  # noqa: E402
from dpb.experiments import scale as S  # noqa: E402
from dpb.plotting import experiments as pe  # noqa: E402


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    out = tmp_path_factory.mktemp("expected")
    fig1 = E.figure1(T=2000, algorithms=("DP-SE", "DP-KLUCB", "DP-IMED"))
    sweep = E.eps_sweep(T=2000, n_eps=3)
    exps = {"fig1": fig1, "sweep": sweep}
    paper = {k: E.ensure(e, out, jobs=1, progress=False) for k, e in exps.items()}
    conv = {k: S.ensure_converged(e, out, jobs=1, progress=False, cap=640) for k, e in exps.items()}
    return paper, conv


def test_ci_band_contains_the_mean_curve(tiny):
    _, conv = tiny
    fig = pe.plot_regret(conv["fig1"].setting(0), band="ci", yscale="log")
    ax = fig.axes[0]
    assert len(ax.collections) >= 2  # DP-SE is constant across runs: its band may be flat
    assert ax.get_yscale() == "log" and ax.get_ylim()[0] == 1.0
    plt.close(fig)
    fig = pe.plot_figure1(conv["fig1"], band="ci", yscale="log")
    assert all(a.get_yscale() == "log" for a in fig.axes)
    plt.close(fig)


def test_seed_sensitivity_panel(tiny):
    _, conv = tiny
    res = conv["fig1"].setting(0)
    sens = S.sensitivity(res, ("DP-KLUCB",))
    est = {"DP-KLUCB": conv["fig1"].estimate(0, "DP-KLUCB").estimate}
    if sens["DP-KLUCB"].size < 2:
        pytest.skip("too few groups at this size")
    fig = pe.plot_seed_sensitivity(sens, est, {"DP-KLUCB": 1.0})
    assert fig.axes[0].get_xscale() == "log" and fig.axes[0].has_data()
    plt.close(fig)
    with pytest.raises(ValueError, match="at least 2"):
        pe.plot_seed_sensitivity({"DP-KLUCB": np.ones(1)}, est)


def test_expected_sweep_and_overview(tiny):
    paper, conv = tiny
    rows = S.expected_sweep_table(paper["sweep"], conv["sweep"])
    assert len(rows) == 3 and all(r["lo"] <= r["ratio"] <= r["hi"] for r in rows)
    fig = pe.plot_expected_sweep(rows, alpha=1.1)
    assert fig.axes[0].has_data()
    plt.close(fig)
    fig = pe.plot_expected_vs_paper(S.expected_regret_table(paper["fig1"], conv["fig1"]))
    assert fig.axes[0].get_yscale() == "log"
    plt.close(fig)
    with pytest.raises(ValueError, match="rows"):
        pe.plot_expected_sweep([], alpha=1.1)
    with pytest.raises(ValueError, match="alpha"):
        pe.plot_expected_sweep(rows, alpha=-1)
