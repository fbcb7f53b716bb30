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
