"""No figure of the book prints text over text (dpb.plotting._checks).

- :func:`check_text_overlap` raises on two overlapping labels, on a legend entry under a title, on
  overprinted tick labels, and accepts a plain figure;
- every public ``plot_*`` function, called at its defaults (the functions that take results get
  small ones computed here, the regret chapter's runs are shrunk as in ``test_regret_plots.py``),
  draws a figure whose texts do not overlap.  :data:`CALLS` must name every public plotting
  function, so a new one is covered or this test fails.
"""

from __future__ import annotations

import importlib
import pkgutil

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import dpb.plotting  # noqa: E402
import dpb.regret as rg  # noqa: E402
from dpb import experiments as E  # noqa: E402
from dpb.estimates import MeanEstimate  # noqa: E402
from dpb.experiments import scale as S  # noqa: E402
from dpb.plotting._checks import FigureTextOverlapError, check_text_overlap  # noqa: E402


def _modules():
    for info in pkgutil.iter_modules(dpb.plotting.__path__):
        if not info.name.startswith("_") and info.name != "style":
            yield importlib.import_module(f"dpb.plotting.{info.name}")


def _plot_functions():
    return {f"{m.__name__.rsplit('.', 1)[1]}.{name}": getattr(m, name)
            for m in _modules() for name in getattr(m, "__all__", ()) if name.startswith("plot_")}


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


def test_overlapping_labels_raise():
    fig, ax = plt.subplots(figsize=(3, 2))
    ax.text(0.5, 0.5, "first label", transform=ax.transAxes)
    ax.text(0.52, 0.5, "second label", transform=ax.transAxes)
    with pytest.raises(FigureTextOverlapError, match="'first label'.*'second label'"):
        check_text_overlap(fig)


def test_legend_under_a_title_and_crowded_ticks_raise():
    fig, ax = plt.subplots(figsize=(3, 2))
    ax.plot([0, 1], label="a long legend entry")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, 1.12))
    ax.set_title("a title of the panel")
    with pytest.raises(FigureTextOverlapError, match="legend"):
        check_text_overlap(fig)
    fig, ax = plt.subplots(figsize=(1.5, 2))
    ax.set_xticks(np.arange(10), [f"label {i}" for i in range(10)])
    with pytest.raises(FigureTextOverlapError, match="x-axis"):
        check_text_overlap(fig)


def test_separate_texts_pass_and_bad_input_is_refused():
    fig, ax = plt.subplots(figsize=(4, 3), constrained_layout=True)
    ax.plot([1, 2, 3], label="curve")
    ax.set(xlabel="x", ylabel="y", title="a title")
    ax.legend()
    ax.annotate("a note", (1.5, 2.5))
    assert check_text_overlap(fig) is fig
    with pytest.raises(TypeError, match="fig"):
        check_text_overlap(ax)
    with pytest.raises(ValueError, match="tolerance"):
        check_text_overlap(fig, tolerance=-1)


def test_plot_functions_return_their_figure_unchecked():
    # the check runs here, in the tests, not around a reader's call: a figure of one's own whose
    # labels happen to overlap is returned (the reader sees it), not refused
    functions = _plot_functions()
    assert len(functions) >= 20, sorted(functions)
    wrapped = [name for name, fn in functions.items() if hasattr(fn, "__wrapped__")]
    assert not wrapped, f"plotting functions wrapped at import: {wrapped}"
    fig = functions["lower_bound.plot_d_eps"]()
    fig.text(0.5, 0.5, "a label of my own")
    fig.text(0.51, 0.5, "another label of mine")
    with pytest.raises(FigureTextOverlapError, match="a label of my own"):
        check_text_overlap(fig)


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """Small results for the functions of the Experiments chapter, and synthetic group means
    spread over a decade like the book's (the seed-sensitivity figure)."""
    out = tmp_path_factory.mktemp("figure-text")
    exps = {"fig1": E.figure1(T=2000, runs=3),
            "appendix": E.appendix(T=2000, runs=3, instances=("mu1", "mu3"), eps_values=(0.1, 1.0)),
            "sweep": E.eps_sweep(T=2000, runs=3, n_eps=4),
            "readings": E.dpse_readings(T=2000, runs=3)}
    paper = {k: E.ensure(e, out, jobs=1, progress=False) for k, e in exps.items()}
    conv = {k: S.ensure_converged(e, out, jobs=1, progress=False, cap=160)
            for k, e in exps.items() if k in ("fig1", "sweep")}
    rng = np.random.default_rng(0)
    groups = {"DP-IMED": np.exp(rng.uniform(np.log(300), np.log(3000), 256)),
              "DP-KLUCB": np.exp(rng.normal(np.log(600), 0.3, 256))}
    expected = {a: MeanEstimate(runs=5120, mean=float(m.mean()), lo=float(m.mean()) * 0.95,
                                hi=float(m.mean()) * 1.05, level=0.95) for a, m in groups.items()}
    return {"paper": paper, "conv": conv, "groups": groups, "expected": expected}


def _calls(d):
    paper, conv = d["paper"], d["conv"]
    return {
        "experiments.plot_regret": lambda: pe().plot_regret(paper["fig1"].setting(0)),
        "experiments.plot_figure1": lambda: pe().plot_figure1(paper["fig1"]),
        "experiments.plot_appendix": lambda: pe().plot_appendix(paper["appendix"]),
        "experiments.plot_ratio_grid": lambda: pe().plot_ratio_grid(paper["appendix"]),
        "experiments.plot_eps_sweep": lambda: pe().plot_eps_sweep(paper["sweep"]),
        "experiments.plot_final_distribution": lambda: pe().plot_final_distribution(
            paper["fig1"].setting(0)),
        "experiments.plot_seed_sensitivity": lambda: pe().plot_seed_sensitivity(
            d["groups"], d["expected"], {a: float(np.median(m)) * 1.5 for a, m in d["groups"].items()},
            title="mu1, eps = 0.25: the mean of 20 runs, over 256 independent groups"),
        "experiments.plot_dpse_readings": lambda: pe().plot_dpse_readings(paper["readings"]),
        "experiments.plot_expected_sweep": lambda: pe().plot_expected_sweep(
            S.expected_sweep_table(paper["sweep"], conv["sweep"]), alpha=1.1),
        "experiments.plot_expected_vs_paper": lambda: pe().plot_expected_vs_paper(
            S.expected_regret_table(paper["fig1"], conv["fig1"])),
        "experiments.plot_live": lambda: pe().plot_live(T=2000, runs=3),
    }


def pe():
    return importlib.import_module("dpb.plotting.experiments")


#: public plotting functions that take no data: called with no argument at all
AT_DEFAULTS = ("algorithms.plot_forgetting", "algorithms.plot_schedules", "algorithms.plot_trace_phase",
               "background.plot_kl", "background.plot_laplace_mechanism",
               "concentration.plot_exponents_vs_eps", "concentration.plot_tail_bounds",
               "concentration.plot_tail_exponent",
               "lower_bound.plot_d_eps", "lower_bound.plot_lower_bound_constants",
               "lower_bound.plot_double_change", "lower_bound.plot_coupled_hamming",
               "privacy.plot_continual_release", "privacy.plot_game", "privacy.plot_audit",
               "privacy.plot_noise_cost",
               "regret.plot_convergence", "regret.plot_decomposition", "regret.plot_alpha_tradeoff",
               "regret.plot_regret_distribution")
WITH_DATA = ("experiments.plot_regret", "experiments.plot_figure1", "experiments.plot_appendix",
             "experiments.plot_ratio_grid", "experiments.plot_eps_sweep",
             "experiments.plot_final_distribution", "experiments.plot_seed_sensitivity",
             "experiments.plot_dpse_readings", "experiments.plot_expected_sweep",
             "experiments.plot_expected_vs_paper", "experiments.plot_live")


def test_every_plot_function_is_covered():
    missing = sorted(set(_plot_functions()) - set(AT_DEFAULTS) - set(WITH_DATA))
    assert not missing, f"add these plotting functions to AT_DEFAULTS or WITH_DATA: {missing}"


@pytest.mark.parametrize("name", AT_DEFAULTS)
def test_figure_at_defaults_has_no_overlapping_text(name, tmp_path, monkeypatch):
    monkeypatch.setenv("DPB_RESULTS", str(tmp_path))  # the regret chapter's runs, shrunk
    monkeypatch.setitem(rg.DEFAULTS, "T", 10**5)
    monkeypatch.setitem(rg.DEFAULTS, "runs", 12)
    monkeypatch.setitem(rg.DEFAULTS, "n_grid", 13)
    fn = _plot_functions()[name]
    # the distribution is read at the book's horizon T = 1e8 by default; the shrunk runs stop at 1e5
    kwargs = {"T": 10**5} if name == "regret.plot_regret_distribution" else {}
    fig = fn(**kwargs)
    check_text_overlap(fig)


@pytest.mark.parametrize("name", WITH_DATA)
def test_figure_with_data_has_no_overlapping_text(name, data):
    fig = _calls(data)[name]()
    fn = _plot_functions()[name]
    assert isinstance(fig, plt.Figure) and fn is getattr(pe(), name.split(".")[1])
    check_text_overlap(fig)
