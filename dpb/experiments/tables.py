"""Summaries of experiment results: final-regret statistics, ratios, sweeps, plain-text tables."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from .._validate import as_float_array, as_instance, as_int, as_names, as_positive
from ..tables import format_table as _format
from ..bounds import lower_bound_constant
from ..simulate import Result
from .specs import BASELINES, OURS
from .specs import Setting
from .store import ExperimentResults

__all__ = [
    "final_regret_stats",
    "final_regret_table",
    "ratio_summary",
    "reading_results",
    "mean_regret_summary",
    "sweep_table",
    "outlier_runs",
    "dominance",
    "format_table",
]


def _result(name: str, result) -> Result:
    """``result`` if it is a :class:`~dpb.simulate.Result` or has its ``final_regret`` array (duck
    typing: the summaries read nothing else); ``TypeError`` naming ``name`` otherwise."""
    if isinstance(result, Result):
        return result
    reg = getattr(result, "final_regret", None)
    if reg is None:
        return as_instance(name, result, Result, "dpb.simulate.Result (or has final_regret)")
    arr = as_float_array(f"{name}.final_regret", reg)
    if arr.ndim != 1 or arr.size == 0 or not np.all(np.isfinite(arr)):
        raise ValueError(f"{name}.final_regret must be a non-empty 1-d array of finite numbers")
    return result


def _results(name: str, res) -> ExperimentResults:
    return as_instance(name, res, ExperimentResults, "dpb.experiments.ExperimentResults")


def _result_map(name: str, results) -> Mapping:
    as_instance(name, results, Mapping, "mapping from algorithm name to dpb.simulate.Result")
    for key, r in results.items():
        _result(f"{name}[{key!r}]", r)
    return results


def final_regret_stats(result: Result) -> dict:
    """Mean, standard deviation (ddof = 1), median and 10%/90% quantiles of the regret at T."""
    reg = np.asarray(_result("result", result).final_regret, dtype=float)
    return {
        "runs": int(reg.size),
        "mean": float(reg.mean()),
        "std": float(reg.std(ddof=1)) if reg.size > 1 else 0.0,
        "median": float(np.median(reg)),
        "q10": float(np.quantile(reg, 0.1)),
        "q90": float(np.quantile(reg, 0.9)),
    }


def _policy_names(name: str, value) -> tuple:
    """``value`` as a tuple of registered policy names (``ValueError`` naming ``name`` and listing
    the registered names for an unknown one: a typo would otherwise give NaN columns)."""
    from ..policies.registry import registered

    return as_names(name, value, choices=tuple(registered()))


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
    rows = []
    for s in res.settings:
        by = {a: final_regret_stats(r)["mean"] for a, r in res.setting(s).items()}
        o = {a: by[a] for a in ours if a in by}
        b = {a: by[a] for a in baselines if a in by}
        if not o or not b:
            continue
        bo, bb = min(o, key=o.get), min(b, key=b.get)
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
    present = {c.policy for s in res.settings for c in s.cells}
    both = present.intersection(baselines) and present.intersection(ours)
    ratios = {(r["env"], r["eps"]): r["ratio"] for r in ratio_summary(res, baselines, ours)} if both else {}
    rows = []
    for s in res.settings:
        row = {"env": s.env, "eps": s.eps}
        row.update({a: final_regret_stats(r)["mean"] for a, r in res.setting(s).items()})
        row["ratio"] = ratios.get((s.env, s.eps), math.nan)
        rows.append(row)
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
                 title: str | None = None, headers: Mapping[str, str] | None = None) -> str:
    """The experiments' summaries as aligned text (numbers rounded to ``digits``).

    A thin front end of :func:`dpb.tables.format_table` with the conventions of these summaries:
    ``columns`` selects and orders the keys (default: all keys of the first row), integers print
    whole, ``eps`` columns in the shortest form (``0.25``), columns whose name contains ``ratio``
    with two decimals, other numbers with ``digits`` decimals; ``headers`` maps a key to a shorter
    column title.  The text is ``str`` of the :class:`dpb.tables.Table` (numbers right-aligned,
    text left-aligned, a rule under the headers); an empty ``rows`` gives the title or ``""``.
    """
    if isinstance(rows, (str, bytes)) or not isinstance(rows, Sequence):
        raise TypeError(f"rows must be a sequence of mappings, got {type(rows).__name__}")
    if not all(isinstance(r, Mapping) for r in rows):
        raise TypeError("rows must be a sequence of mappings (one per table row)")
    if title is not None and not isinstance(title, str):
        raise TypeError(f"title must be a string or None, got {type(title).__name__}")
    digits = as_int("digits", digits, minimum=0, maximum=20)
    if headers is not None and not isinstance(headers, Mapping):
        raise TypeError(f"headers must be a mapping from key to title, got {type(headers).__name__}")
    if not rows:
        return title or ""
    columns = as_names("columns", columns) if columns is not None else tuple(rows[0].keys())
    missing = [k for k in columns if any(k not in r for r in rows)]
    if missing:
        raise ValueError(f"columns {missing!r} are missing from some rows")
    headers = dict(headers or {})

    def fmt(key):
        def f(v):
            if isinstance(v, str):
                return v
            if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
                return str(int(v))
            if key == "eps":
                return f"{float(v):g}"
            return f"{float(v):.2f}" if "ratio" in key else f"{float(v):.{int(digits)}f}"
        return f

    return str(_format(rows, columns, {k: fmt(k) for k in columns}, headers=headers, title=title))


def reading_results(res: ExperimentResults, setting) -> dict:
    """``"DP-SE (reading)"`` -> Result for one setting of :func:`dpb.experiments.dpse_readings`."""
    res = _results("res", res)
    if isinstance(setting, Setting):
        s = setting
    else:
        i = as_int("setting", setting, minimum=0, maximum=len(res.settings) - 1)
        s = res.settings[i]
    return {f"{c.policy} ({c.params.get('elimination', 'radius')})": res.results[c] for c in s.cells}
