"""Summaries of experiment results: final-regret statistics, ratios, sweeps, plain-text tables."""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .._validate import as_flag, as_instance, as_int, as_names, as_positive, as_text
from ..tables import format_table as _format
from ..bounds import lower_bound_constant
from ..simulate import Result
from .specs import BASELINES, OURS
from .specs import Setting
from .store import ExperimentResults, final_regret_stats
from .store import _checked_result as _result
from .store import _policy_names

__all__ = [
    "final_regret_table",
    "ratio_summary",
    "reading_results",
    "mean_regret_summary",
    "sweep_table",
    "outlier_runs",
    "dominance",
    "format_table",
    "verdict_facts",
    "verdict_table",
    "cost_table",
    "unranked_settings",
    "RANK_REL",
    "RANK_MIN_RUNS",
]

#: The relative half-width (of the mean regret at T, 95 % BCa interval) below which an interval is
#: narrow enough: the converged scale's target (:func:`dpb.estimates.is_converged`).
RANK_REL = 0.1
#: Fewer runs than this give no interval to rank by (the bootstrap of a handful of runs is too narrow).
RANK_MIN_RUNS = 10


def _results(name: str, res) -> ExperimentResults:
    return as_instance(name, res, ExperimentResults, "dpb.experiments.ExperimentResults")


def _result_map(name: str, results) -> Mapping:
    as_instance(name, results, Mapping, "mapping from algorithm name to dpb.simulate.Result")
    for key, r in results.items():
        _result(f"{name}[{key!r}]", r)
    return results


def final_regret_table(results: Mapping[str, Result], ours: Sequence[str] = OURS) -> list:
    """One row per algorithm: :func:`final_regret_stats` plus ``ratio``, its mean regret divided by
    the smaller mean regret of the paper's algorithms (DP-KLUCB, DP-IMED) present in ``results``
    (NaN when none is present; ``ours`` must name registered policies)."""
    results = _result_map("results", results)
    ours = _policy_names("ours", ours)
    rows = []
    best = [final_regret_stats(results[a])["mean"] for a in ours if a in results]
    ref = min(best) if best else math.nan
    for name, res in results.items():
        stats = final_regret_stats(res)
        ratio = stats["mean"] / ref if ref > 0 else math.nan
        rows.append({"algorithm": name, **stats, "ratio": ratio})
    return rows


def ratio_summary(res: ExperimentResults, baselines: Sequence[str] = BASELINES,
                  ours: Sequence[str] = OURS) -> list:
    """Per setting: the best of ours, the best private baseline, and their ratio of mean regrets.

    Each row has ``env, eps, best_ours, ours_mean, best_baseline, baseline_mean, ratio`` (best
    baseline / best of ours: above 1 when ours wins) and ``max_ratio`` (worst baseline / best of
    ours).
    """
    res = _results("res", res)
    baselines, ours = _policy_names("baselines", baselines), _policy_names("ours", ours)
    present = {c.policy for s in res.settings for c in s.cells}
    for name, names in (("ours", ours), ("baselines", baselines)):
        if not present.intersection(names):
            raise ValueError(f"{name} names none of the algorithms of {res.experiment.name} "
                             f"({', '.join(sorted(present))}), got {list(names)}")
    return _ratio_rows(res, baselines, ours)


def _ratio_rows(res: ExperimentResults, baselines: tuple, ours: tuple) -> list:
    """The rows of :func:`ratio_summary`, for the settings holding one of each side."""
    rows = []
    for s in res.settings:
        by = {a: final_regret_stats(r)["mean"] for a, r in res.setting(s).items()}
        o = {a: by[a] for a in ours if a in by}
        b = {a: by[a] for a in baselines if a in by}
        if not o or not b:
            continue
        bo, bb = min(o, key=o.__getitem__), min(b, key=b.__getitem__)
        rows.append({"env": s.env, "eps": s.eps, "best_ours": bo, "ours_mean": o[bo],
                     "best_baseline": bb, "baseline_mean": b[bb], "ratio": b[bb] / o[bo],
                     "max_ratio": max(b.values()) / o[bo]})
    return rows


def mean_regret_summary(res: ExperimentResults, baselines: Sequence[str] = BASELINES,
                        ours: Sequence[str] = OURS) -> list:
    """One row per setting: ``env``, ``eps``, the mean regret at T of every algorithm (one column
    each) and ``ratio``, the best private baseline's mean over the best of ours (see
    :func:`ratio_summary`; NaN when one side is absent).  ``baselines`` and ``ours`` must name
    registered policies."""
    res = _results("res", res)
    baselines, ours = _policy_names("baselines", baselines), _policy_names("ours", ours)
    ratios = {(r["env"], r["eps"]): r["ratio"] for r in _ratio_rows(res, baselines, ours)}
    rows = []
    for s in res.settings:
        means = {a: final_regret_stats(r)["mean"] for a, r in res.setting(s).items()}
        rows.append({"env": s.env, "eps": s.eps, **means, "ratio": ratios.get((s.env, s.eps), math.nan)})
    return rows


def sweep_table(res: ExperimentResults) -> list:
    """Per budget of a sweep: :func:`final_regret_stats` of the regret at T, the lower bound
    ``lower_bound_constant(mu, eps) * log T`` (:prf:ref:`thm-lower-bound`), ``ratio`` (mean over
    the bound) and ``median_ratio`` (median over the bound)."""
    res = _results("res", res)
    rows = []
    for s in res.settings:
        (r,) = res.setting(s).values()
        st = final_regret_stats(r)
        lb = float(lower_bound_constant(r.means, s.eps)) * math.log(r.T)
        rows.append({"eps": s.eps, **st, "lower_bound": lb, "ratio": st["mean"] / lb,
                     "median_ratio": st["median"] / lb})
    return rows


def outlier_runs(result: Result, factor: float = 10.0) -> int:
    """Number of runs whose regret at T exceeds ``factor`` times the median over runs."""
    factor = float(as_positive("factor", factor, allow_inf=False))
    reg = np.asarray(_result("result", result).final_regret, dtype=float)
    return int(np.count_nonzero(reg > factor * np.median(reg)))


def dominance(res: ExperimentResults, stat: str = "mean", baselines: Sequence[str] = BASELINES,
              ours: Sequence[str] = OURS) -> list:
    """Per setting, whether each of ``ours`` has a lower ``stat`` (``"mean"`` or ``"median"`` regret
    at T) than every private baseline: rows ``{"env", "eps", "DP-KLUCB": bool, "DP-IMED": bool}``."""
    res = _results("res", res)
    baselines, ours = _policy_names("baselines", baselines), _policy_names("ours", ours)
    if stat not in ("mean", "median"):
        raise ValueError(f"stat must be 'mean' or 'median', got {stat!r}")
    rows = []
    for s in res.settings:
        data = res.setting(s)
        v = {a: final_regret_stats(r)[stat] for a, r in data.items()}
        base = [v[b] for b in baselines if b in v]
        if not base:
            continue
        row = {"env": s.env, "eps": s.eps}
        row.update({a: bool(v[a] < min(base)) for a in ours if a in v})
        rows.append(row)
    return rows


def format_table(rows: Sequence[Mapping], columns: Sequence[str] | None = None, digits: int = 1,
                 title: str | None = None, headers: Mapping[str, str] | None = None,
                 as_table: bool = False) -> Any:
    """The experiments' summaries as aligned text (numbers rounded to ``digits``).

    A thin front end of :func:`dpb.tables.format_table` with the conventions of these summaries:
    ``columns`` selects and orders the keys (default: all keys of the first row), integers print
    whole, ``eps`` columns in the shortest form (``0.25``), columns whose name contains ``ratio``
    with two decimals, other numbers with ``digits`` decimals; ``headers`` maps a key to a shorter
    column title.  The text is ``str`` of the :class:`dpb.tables.Table` (numbers right-aligned,
    text left-aligned, a rule under the headers); an empty ``rows`` gives the title or ``""``.
    With ``as_table=True`` the :class:`dpb.tables.Table` itself is returned (the same text; a
    notebook displays it as an HTML table).
    """
    as_table, title = as_flag("as_table", as_table), as_text("title", title)
    if isinstance(rows, (str, bytes)) or not isinstance(rows, Sequence):
        raise TypeError(f"rows must be a sequence of mappings, got {type(rows).__name__}")
    for r in rows:
        as_instance("rows", r, Mapping, "sequence of mappings (one per table row)")
    digits = as_int("digits", digits, minimum=0, maximum=20)
    if headers is not None:
        as_instance("headers", headers, Mapping, "mapping from key to title")
    if not rows:
        return title or ""
    columns = as_names("columns", columns) if columns is not None else tuple(rows[0].keys())
    missing = [k for k in columns if any(k not in r for r in rows)]
    if missing:
        raise ValueError(f"columns {missing!r} are missing from some rows")
    headers = dict(headers or {})

    def fmt(v, key):
        if isinstance(v, str):
            return v
        if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
            return str(int(v))
        if key == "eps":
            return f"{float(v):g}"
        return f"{float(v):.2f}" if "ratio" in key else f"{float(v):.{digits}f}"

    formats = {k: functools.partial(fmt, key=k) for k in columns}
    table = _format(rows, columns, formats, headers=headers, title=title)
    return table if as_table else str(table)


def reading_results(res: ExperimentResults, setting: Any) -> dict:
    """``"DP-SE (reading)"`` -> Result for one setting of :func:`dpb.experiments.dpse_readings`."""
    res = _results("res", res)
    s = setting if isinstance(setting, Setting) else res.settings[
        as_int("setting", setting, minimum=0, maximum=len(res.settings) - 1)]
    return {f"{c.policy} ({c.params.get('elimination', 'radius')})": res.results[c] for c in s.cells}


# ----------------------------------------------------------------------------------------------
# the verdict on the paper's claims, generated from the results (chapter 7's one verdict table)
# ----------------------------------------------------------------------------------------------
def _ranges(values: Sequence[float]) -> list:
    """Sorted budgets grouped into maximal runs of consecutive grid points (step 0.01)."""
    vals = sorted(round(float(v), 2) for v in values)
    groups: list = []
    for v in vals:
        if groups and round(v - groups[-1][-1], 2) <= 0.01:
            groups[-1].append(v)
        else:
            groups.append([v])
    return [(g[0], g[-1]) for g in groups]


def _fmt_ranges(ranges: Sequence[tuple]) -> str:
    return ", ".join(f"{a:g}" if a == b else f"{a:g}-{b:g}" for a, b in ranges) or "none"


def verdict_facts(paper: Sequence[ExperimentResults], converged: Sequence[Any],
                  sweep: ExperimentResults, sweep_converged: Any, *,
                  band: float = 0.1) -> dict:
    """Every number the verdict on the paper's claims rests on, computed from the results.

    ``paper`` are the comparison experiments at the paper's scale (Figure 1 and the appendix),
    ``converged`` the same experiments at the converged scale (:func:`dpb.experiments.ensure_converged`),
    ``sweep`` and ``sweep_converged`` the eps-sweep at both scales; ``band`` is the relative
    distance to the lower bound called "within" (0.1: within 10 %).

    The keys (all plain numbers, strings or lists, so that a chapter can glue them):

    - ``settings``: number of (environment, budget) settings compared;
    - ``c1_mean_wins``, ``c1_median_wins`` (20 runs) and ``c1_expected_wins`` (converged, the
      intervals separated): per algorithm of ``OURS``, the settings where it is below every private
      baseline;
    - ``c2_ratio_min``/``max`` (20 runs) and ``c2_expected_min``/``max``: best baseline over the
      best of ours, and ``c2_expected_argmax`` (env, eps) of the largest;
    - ``order``: per setting ``(env, eps, verdict)`` with verdict ``"<"`` (DP-IMED's interval
      entirely below DP-KLUCB's), ``">"`` or ``"overlap"``; ``order_counts``;
      ``order_below_eps``/``order_above_eps``: the budgets at which DP-IMED is below/above in every
      environment; ``fig1_paper``/``fig1_expected``: per Figure 1 panel, DP-IMED's and DP-KLUCB's
      20-run means and expected regrets;
    - ``c3_*``: the sweep: 20-run mean over the bound for eps >= 0.2 (min, max), expected over the
      bound at the smallest and largest budget, the budgets whose interval lies entirely above
      ``alpha`` times the bound (``c3_above_alpha``, grouped into ranges), entirely below the bound
      (``c3_below_one``), and ``c3_within_from``, the smallest budget from which every larger budget's
      expected ratio lies within ``1 +- band``.
    """
    from .scale import expected_dominance, expected_sweep_table, ordering_table  # (scale imports this module)

    paper = [_results("paper", r) for r in paper]
    converged = list(converged)
    band = float(as_positive("band", band, allow_inf=False))
    if len(paper) != len(converged) or not paper:
        raise ValueError("paper and converged must list the same experiments (at least one)")
    f: dict = {}
    mean_rows = [r for p in paper for r in dominance(p, "mean")]
    median_rows = [r for p in paper for r in dominance(p, "median")]
    f["settings"] = len(mean_rows)
    f["c1_mean_wins"] = {a: sum(bool(r.get(a)) for r in mean_rows) for a in OURS}
    f["c1_median_wins"] = {a: sum(bool(r.get(a)) for r in median_rows) for a in OURS}
    dom = [r for c in converged for r in expected_dominance(c)]
    f["c1_expected_wins"] = {a: sum(r.get(a) == "yes" for r in dom) for a in OURS}
    f["c1_expected_losses"] = {a: sum(r.get(a) == "no" for r in dom) for a in OURS}
    ratios = [r["ratio"] for p in paper for r in ratio_summary(p)]
    f["c2_ratio_min"], f["c2_ratio_max"] = float(min(ratios)), float(max(ratios))
    f["c2_worst_max"] = float(max(r["max_ratio"] for p in paper for r in ratio_summary(p)))
    k = int(np.argmax([r["ratio"] for r in dom]))
    f["c2_expected_min"] = float(min(r["ratio"] for r in dom))
    f["c2_expected_max"] = float(dom[k]["ratio"])
    f["c2_expected_argmax"] = (dom[k]["env"], float(dom[k]["eps"]))
    order = [r for c in converged for r in ordering_table(c)]
    f["order"] = [(r["env"], float(r["eps"]), r["verdict"]) for r in order]
    f["order_counts"] = {v: sum(r["verdict"] == v for r in order) for v in ("<", ">", "overlap")}
    by_eps: dict = {}
    for r in order:
        by_eps.setdefault(float(r["eps"]), []).append(r["verdict"])
    f["order_below_eps"] = sorted(e for e, v in by_eps.items() if all(x == "<" for x in v))
    f["order_above_eps"] = sorted(e for e, v in by_eps.items() if all(x == ">" for x in v))
    point: dict = {}
    for r in order:
        point.setdefault(float(r["eps"]), []).append(r["ratio"] < 1)
    f["order_point_below_eps"] = sorted(e for e, v in point.items() if all(v))
    f["order_point_below"] = {e: int(sum(v)) for e, v in sorted(point.items())}
    f["order_by_eps"] = {e: {v: vs.count(v) for v in ("<", ">", "overlap")}
                         for e, vs in sorted(by_eps.items())}
    fig = converged[0]
    f["fig1_paper"], f["fig1_expected"] = {}, {}
    for s in fig.settings:
        p = paper[0].setting(paper[0].find(s.env, s.eps))
        f["fig1_paper"][s.env] = {a: final_regret_stats(p[a])["mean"] for a in OURS}
        est = {c.policy: fig.estimates[c].estimate for c in s.cells}
        f["fig1_expected"][s.env] = {a: est[a].mean for a in OURS}
    f["fig1_eps"] = float(fig.settings[0].eps)
    # (C3): the sweep
    sw = sweep_table(_results("sweep", sweep))
    eps = np.array([r["eps"] for r in sw])
    ratio = np.array([r["ratio"] for r in sw])
    f["c3_paper_high_min"] = float(ratio[eps >= 0.2].min())
    f["c3_paper_high_max"] = float(ratio[eps >= 0.2].max())
    f["c3_paper_max"] = float(ratio.max())
    rows = expected_sweep_table(sweep, sweep_converged)
    alpha = float(sweep.settings[0].cells[0].params["alpha"])
    e = np.array([r["eps"] for r in rows])
    mid, lo, hi = (np.array([r[k] for r in rows]) for k in ("ratio", "lo", "hi"))
    f["c3_alpha"] = alpha
    f["c3_budgets"] = int(e.size)
    f["c3_eps_min"], f["c3_eps_max"] = float(e.min()), float(e.max())
    f["c3_expected_at_min"] = float(mid[np.argmin(e)])
    f["c3_expected_at_max"] = float(mid[np.argmax(e)])
    f["c3_expected_max"] = float(mid.max())
    for key, budgets in (("c3_above_alpha", e[lo > alpha]), ("c3_below_one", e[hi < 1])):
        f[key], f[f"{key}_ranges"] = int(budgets.size), _ranges(budgets)  # type: ignore[arg-type]
        f[f"{key}_text"] = _fmt_ranges(f[f"{key}_ranges"])
    inside = np.abs(mid - 1) <= band
    order_e = np.argsort(e)
    start = None
    for i in order_e[::-1]:
        if not inside[i]:
            break
        start = float(e[i])
    f["c3_within_band"] = band
    f["c3_within_from"] = start
    return f


def verdict_table(facts: Mapping) -> list:
    """The one verdict table on the paper's claims, as rows ``{"claim", "twenty runs",
    "expected regret", "verdict"}``, written from :func:`verdict_facts` (so the table and any text
    glued from the same facts cannot disagree)."""
    as_instance("facts", facts, Mapping, "the dict of dpb.experiments.verdict_facts")
    f = facts
    n = f["settings"]
    kl, im = "DP-KLUCB", "DP-IMED"
    rows = []
    w, m, x = f["c1_mean_wins"], f["c1_median_wins"], f["c1_expected_wins"]
    both = all(x[a] == n for a in OURS)
    holds = [a for a in OURS if x[a] == n]
    c1 = ("holds, for each algorithm" if both else
          (f"holds for {holds[0]} only" if holds else "does not hold in every setting"))
    rows.append({"claim": "(C1) lowest regret in every setting",
                 "twenty runs": f"below every baseline by mean: {kl} {w[kl]}/{n}, {im} {w[im]}/{n}; "
                                f"by median: {kl} {m[kl]}/{n}, {im} {m[im]}/{n}",
                 "expected regret": f"below every baseline, intervals separated: {kl} {x[kl]}/{n}, "
                                    f"{im} {x[im]}/{n}",
                 "verdict": c1})
    lo, hi = f["c2_expected_min"], f["c2_expected_max"]
    c2 = "holds" if hi >= 9.5 else f"holds in order of magnitude: at most {hi:.1f} times"
    rows.append({"claim": "(C2) up to 10 times less regret",
                 "twenty runs": f"best baseline / best of ours: {f['c2_ratio_min']:.1f} to "
                                f"{f['c2_ratio_max']:.1f}",
                 "expected regret": f"{lo:.1f} to {hi:.1f} (largest: {f['c2_expected_argmax'][0]}, "
                                    f"eps = {f['c2_expected_argmax'][1]:g})",
                 "verdict": c2})
    start = f["c3_within_from"]
    band = f"{100 * f['c3_within_band']:.0f}%"
    within = (f"within {band} of the bound for every eps >= {start:g}" if start is not None
              else f"never within {band} of the bound at the largest budgets")
    rows.append({"claim": "(C3) DP-IMED follows the lower bound in the sweep",
                 "twenty runs": f"mean / bound between {f['c3_paper_high_min']:.2f} and "
                                f"{f['c3_paper_high_max']:.2f} for eps >= 0.2, at most "
                                f"{f['c3_paper_max']:.2f}",
                 "expected regret": f"expected / bound {f['c3_expected_at_min']:.2f} at eps = "
                                    f"{f['c3_eps_min']:g}; {within}; interval above alpha = "
                                    f"{f['c3_alpha']:g} times the bound at {f['c3_above_alpha']} budgets "
                                    f"(eps {f['c3_above_alpha_text']})",
                 "verdict": (f"holds in shape; in expectation for eps >= {start:g}, and up to "
                             f"{f['c3_expected_max']:.1f} times the bound at small eps"
                             if start is not None else "holds in shape only")})
    fp, fe = f["fig1_paper"], f["fig1_expected"]
    verd = {env: v for env, e, v in f["order"] if e == f["fig1_eps"] and env in fe}
    envs = list(fe)
    paper_txt = "; ".join(f"{env}: {'below' if fp[env][im] < fp[env][kl] else 'above'} "
                          f"({fp[env][im]:.0f} vs {fp[env][kl]:.0f})" for env in envs)
    word = {"<": "below", ">": "above", "overlap": "intervals overlap"}
    exp_txt = "; ".join(f"{env}: {word[verd[env]]} ({fe[env][im]:.0f} vs {fe[env][kl]:.0f})" for env in envs)
    c = f["order_counts"]
    below_eps = ", ".join(f"{e:g}" for e in f["order_below_eps"]) or "none"
    point_eps = ", ".join(f"{e:g}" for e in f.get("order_point_below_eps", ())) or "none"
    all_settings = (f"over all {n} settings: below in {c['<']}, above in {c['>']}, overlap in "
                    f"{c['overlap']}; below in every environment at eps = {below_eps} "
                    f"(by the point estimates: eps = {point_eps})")
    fig_v = {verd[env] for env in envs}
    v4 = ("reproduces in expectation on Figure 1" if fig_v == {"<"} else
          "does not reproduce in expectation on Figure 1" if fig_v == {">"} else "mixed on Figure 1")
    rows.append({"claim": f"Figure 1 (eps = {f['fig1_eps']:g}): DP-IMED below DP-KLUCB "
                          "(drawn in the authors' talk figure, not said in the paper's text)",
                 "twenty runs": paper_txt,
                 "expected regret": f"{exp_txt}; {all_settings}",
                 "verdict": v4})
    return rows


def cost_table(*results: ExperimentResults) -> list:
    """What the cells of ``results`` cost, as recorded in their files: one row per (algorithm, T)
    with ``cells``, ``runs``, ``cpu_seconds`` (the CPU-seconds the chunk files record, added up) and
    ``per_20_runs`` (CPU-seconds per twenty runs, the cost of a paper-scale cell).  A cell shared by
    several experiments is counted once."""
    if not results:
        raise ValueError("results: give at least one dpb.experiments.ExperimentResults")
    seen: dict = {}
    for i, res in enumerate(results):
        res = _results(f"results[{i}]", res)
        for cell, r in res.results.items():
            seen.setdefault((cell.policy, cell.name), r)
    rows: dict = {}
    for (policy, _), r in seen.items():
        row = rows.setdefault((policy, int(r.T)), {"algorithm": policy, "T": int(r.T), "cells": 0, "runs": 0,
                                                   "cpu_seconds": 0.0})
        row["cells"] += 1
        row["runs"] += int(r.runs)
        row["cpu_seconds"] += float(r.extra.get("cpu_seconds", 0.0))
        row["per_20_runs"] = 20.0 * row["cpu_seconds"] / row["runs"]
    return sorted(rows.values(), key=lambda r: (r["T"], -r["per_20_runs"]))


def unranked_settings(res: ExperimentResults, rel: float = RANK_REL) -> list:
    """The settings whose intervals are too wide to rank their policies.

    For every setting of two policies or more, the mean regret at T of each policy with its 95 %
    BCa interval (:func:`dpb.estimates.mean_interval`); sorted by mean, two neighbours are not
    ranked when their intervals overlap and one of them is wider than ``+- rel`` times its mean,
    or either has fewer than ``RANK_MIN_RUNS`` runs (more runs would tell them apart, or show a
    tie).  Returns one row per such setting:
    ``env, eps, policies`` (the pair), ``means``, ``lo``, ``hi``, ``widest`` (the largest relative
    half-width in the setting, e.g. 0.54 for +-54 %) and ``few_runs`` (fewer than
    ``RANK_MIN_RUNS`` runs: the interval itself is not to be trusted).
    """
    from ..estimates import mean_interval

    res = _results("res", res)
    limit = float(as_positive("rel", rel))
    rows = []
    for s in res.settings:
        data = res.setting(s)
        if len(data) < 2:
            continue
        regrets = {name: np.asarray(_result("res", r).final_regret, dtype=float) for name, r in data.items()}
        runs = min(reg.size for reg in regrets.values())
        if runs < 2:  # a single run: no interval at all
            a, b = list(regrets)[:2]
            means = (float(regrets[a].mean()), float(regrets[b].mean()))
            rows.append({"env": s.env, "eps": s.eps, "policies": (a, b), "means": means, "lo": means,
                         "hi": means, "widest": 0.0, "few_runs": True})
            continue
        est = {name: mean_interval(reg) for name, reg in regrets.items()}
        order = sorted(est, key=lambda n: est[n].mean)
        widest = max(e.rel_half_width for e in est.values())
        for a, b in zip(order, order[1:], strict=False):
            ea, eb = est[a], est[b]
            few = min(ea.runs, eb.runs) < RANK_MIN_RUNS  # a bootstrap of a handful of runs is no interval
            if ea.hi >= eb.lo and (few or max(ea.rel_half_width, eb.rel_half_width) > limit):
                rows.append({"env": s.env, "eps": s.eps, "policies": (a, b), "means": (ea.mean, eb.mean),
                             "lo": (ea.lo, eb.lo), "hi": (ea.hi, eb.hi), "widest": widest,
                             "few_runs": runs < RANK_MIN_RUNS})
                break
    return rows
