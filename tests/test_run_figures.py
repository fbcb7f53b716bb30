"""A figure never fails a computation (issue 33, item 2): ``dpb run`` finishes, prints its table
and saves its files whatever the experiment (2 to 50 arms, any policies, no baselines, one
policy); a figure is drawn in a layout that fits or skipped with one line naming why; the text
check catches clipped titles."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from dpb import experiments as E  # noqa: E402
from dpb.__main__ import main  # noqa: E402
from dpb.experiments import files as F  # noqa: E402
from dpb.plotting import experiments as pe  # noqa: E402
from dpb.plotting._checks import FigureTextOverlapError, check_text_overlap  # noqa: E402


def _means(k: int) -> list:
    return [round(float(m), 3) for m in np.linspace(0.9, 0.5, k)]


def _toml(path, name, instances, policies, eps=(0.25,)):
    inst = ", ".join(f'{{name = "{n}", means = {m}}}' for n, m in instances.items())
    path.write_text(f'name = "{name}"\nhorizon = 200\nruns = 2\ninstances = [{inst}]\n'
                    f"eps = {list(eps)}\npolicies = {policies}\n")
    return path


CASES = {
    "K=2": ({"two": _means(2)}, ["DP-KLUCB", "DP-IMED", "DP-SE"], (0.1, 1.0)),
    "K=20": ({"twenty": _means(20)}, ["DP-KLUCB", "DP-IMED", "IMED"], (0.1, 1.0)),
    "K=50": ({"fifty": _means(50)}, ["DP-KLUCB", "DP-IMED", "IMED"], (0.25,)),
    "K-sweep without baselines": ({f"K{k}": _means(k) for k in (2, 5, 10, 20, 50)},
                                  ["DP-KLUCB", "DP-IMED", "IMED"], (0.25,)),
    "grid without baselines": ({"a": _means(3), "b": _means(15)}, ["DP-KLUCB", "IMED"], (0.1, 0.5, 1.0)),
    "one policy": ({"a": _means(4), "b": _means(20)}, ["IMED"], (0.25,)),
}


@pytest.mark.parametrize("case", list(CASES))
def test_run_draws_a_figure_that_fits(case, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("DPB_JIT", "0")
    instances, policies, eps = CASES[case]
    spec = _toml(tmp_path / "exp.toml", "figs", instances, policies, eps)
    rc = main(["run", str(spec), "--out", str(tmp_path / "out"), "--no-progress", "--jobs", "1"])
    captured = capsys.readouterr()
    assert rc == 0, captured.err
    assert captured.out.startswith("== figs") and "table: " in captured.out
    tables = list((tmp_path / "out" / "tables").glob("figs-*.txt"))
    assert len(tables) == 1
    pngs = sorted((tmp_path / "out" / "figures").glob("figs-*.png"))
    assert pngs and "grid of panels" not in captured.err, captured.err
    skipped = [ln for ln in captured.err.splitlines() if "skipped" in ln]
    baselines = set(policies) & set(E.BASELINES)
    # only the ratio map of an appendix-like grid without baselines, in one line naming why
    grid = F.figure_kind(F.read_experiment(spec)) == "instances"
    assert all("_ratios skipped: the ratio map needs" in ln for ln in skipped), skipped
    assert len(skipped) == (1 if grid and not baselines else 0), skipped
    # every figure the run saved passes the check of a file saved as laid out
    exp = F.read_experiment(spec)
    res = E.load(exp, tmp_path / "out")
    kind = F.figure_kind(exp)
    figs = [pe.plot_figure1(res)] if kind == "panels" else [pe.plot_appendix(res, e) for e in instances]
    for fig in figs:
        check_text_overlap(fig, clipped="all")
        assert len(fig.legends[0].get_texts()) == len(policies)
        drawn = [ax for ax in fig.axes if ax.get_visible()]
        assert len(drawn) == len(exp.settings) if kind == "panels" else len(drawn) == len(eps)
    plt.close("all")


def test_a_figure_that_cannot_be_drawn_is_skipped_in_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("DPB_JIT", "0")

    def broken(*args, **kwargs):
        raise FigureTextOverlapError("the figure prints text over text: 'a' and 'b' overlap by 9 x 9 px")

    monkeypatch.setattr(pe, "plot_figure1", broken)
    spec = _toml(tmp_path / "exp.toml", "broken", {"two": _means(2)}, ["IMED"], (0.25,))
    rc = main(["run", str(spec), "--out", str(tmp_path / "out"), "--no-progress", "--jobs", "1"])
    captured = capsys.readouterr()
    assert rc == 0
    assert captured.out.startswith("== broken") and list((tmp_path / "out" / "tables").glob("broken-*.txt"))
    lines = [ln for ln in captured.err.splitlines() if "skipped" in ln]
    assert len(lines) == 1 and "broken-" in lines[0] and "overlap by 9 x 9 px" in lines[0], captured.err
    assert not list((tmp_path / "out" / "figures").glob("*.png"))


def test_the_check_catches_a_clipped_title():
    fig, ax = plt.subplots(figsize=(3, 2), constrained_layout=True)
    ax.set_title("a title much too long to fit the width of so small a figure, cut at both ends")
    with pytest.raises(FigureTextOverlapError, match="runs off the figure"):
        check_text_overlap(fig)
    ax.set_title("a short title")
    check_text_overlap(fig)
    with pytest.raises(ValueError, match="clipped"):
        check_text_overlap(fig, clipped="some")
    plt.close(fig)


def test_panel_titles_summarise_many_arms():
    res = type("R", (), {"means": np.array(_means(50))})()
    title = pe._panel_title("fifty", 0.25, res)
    assert "K = 50" in title and "0.9" in title and "0.5" in title and len(title) < 70
    assert pe._panel_title("mu1", 0.25, type("R", (), {"means": np.array([0.9, 0.8])})()).startswith(
        "mu1 = [0.9, 0.8]")
