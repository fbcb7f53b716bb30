"""The numbers of chapter 7 (*Experiments*): the verdict on the paper's claims, table and Summary.

:func:`verdict_facts` computes every number the verdict rests on from the results,
:func:`verdict_table` writes the one verdict table from those facts, and :func:`verdict` adds what
the chapter's table and Summary say besides (each algorithm's own factor below the baselines, the
regime the budget sweep covers) and returns the facts and the rows together, so that the table and
the text glued from the same facts cannot disagree.  :func:`cost_table` is what the chapter's cells
cost.  Built on the summaries of :mod:`dpb.experiments` (``dominance``, ``ratio_summary``,
``sweep_table``, the converged scale's ``expected_dominance`` and ``ordering_table``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .._validate import as_instance, as_positive
from ..bounds import regime_thresholds
from ..experiments import BASELINES, OURS, ConvergedResults, ExperimentResults
from ..experiments import dominance, final_regret_stats, ratio_summary, sweep_table

__all__ = ["verdict_facts", "verdict_table", "cost_table", "ratios_by_algorithm", "verdict"]


def _results(name: str, res) -> ExperimentResults:
    return as_instance(name, res, ExperimentResults, "dpb.experiments.ExperimentResults")


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
    from ..experiments.scale import expected_dominance, expected_sweep_table, ordering_table

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
    as_instance("facts", facts, Mapping, "the dict of dpb.chapters.experiments.verdict_facts")
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




def ratios_by_algorithm(converged: Any) -> dict:
    """Each of the paper's two algorithms alone against the private baselines, in expectation.

    ``converged`` is a list of experiments at the converged scale
    (:func:`dpb.experiments.ensure_converged`).  For every setting (environment, budget) the ratio
    is the smallest expected regret of the private baselines (DP-SE, AdaP-KLUCB, Lazy-DP-TS) over
    the algorithm's own expected regret.  Returns, per algorithm of ``OURS``,
    ``{"min", "max", "min_env", "min_eps", "min_baseline"}``: the range of that ratio over the
    settings, where it is smallest and which baseline is closest there.
    """
    converged = list(as_instance("converged", converged, (list, tuple), "a list of ConvergedResults"))
    if not converged:
        raise ValueError("converged: give at least one experiment at the converged scale")
    rows: dict = {a: [] for a in OURS}
    for i, res in enumerate(converged):
        as_instance(f"converged[{i}]", res, ConvergedResults, "dpb.experiments.ensure_converged(...)")
        for s in res.settings:
            est = {c.policy: res.estimates[c].estimate.mean for c in s.cells}
            base = {b: est[b] for b in BASELINES if b in est}
            if not base:
                continue
            closest = min(base, key=lambda b: base[b])
            for a in OURS:
                if a in est:
                    rows[a].append((base[closest] / est[a], s.env, float(s.eps), closest))
    out = {}
    for a, r in rows.items():
        if not r:
            continue
        lo, hi = min(r), max(r)
        out[a] = {"min": float(lo[0]), "max": float(hi[0]), "min_env": lo[1], "min_eps": lo[2],
                  "min_baseline": lo[3]}
    return out


def _no_none(text: str) -> str:
    """The wording of an empty list of budgets (``verdict_table`` writes ``eps = none``)."""
    for old, new in (("at eps = none", "at no budget"), ("estimates: eps = none", "estimates: at no budget"),
                     ("(eps none)", "(at no budget)")):
        text = text.replace(old, new)
    return text


def verdict(paper: Any, converged: Any, sweep: Any, sweep_converged: Any) -> tuple:
    """Chapter 7's verdict: ``(facts, rows)``.

    ``facts`` is :func:`verdict_facts` of the same arguments plus ``c2_alone``
    (:func:`ratios_by_algorithm` of ``converged``) and ``c3_regime_eps``, the smallest budget from
    which privacy is free for some suboptimal arm of the sweep's instance (the threshold
    :func:`dpb.bounds.regime_thresholds`; below it every arm is in the high-privacy regime).
    ``rows`` is :func:`verdict_table` of those facts, with each algorithm's own
    range in the (C2) row, the whole of (C3) as the paper states it (the regime change is smooth)
    with what the sweep can test of it, and an empty list of budgets said in words.
    """
    facts = dict(verdict_facts(paper, converged, sweep, sweep_converged))
    facts["c2_alone"] = ratios_by_algorithm(converged)
    as_instance("sweep", sweep, ExperimentResults, "dpb.experiments.ensure('eps-sweep')")
    cell = next(iter(sweep.results))
    thresholds = regime_thresholds(np.asarray(cell.means, dtype=float))
    facts["c3_regime_eps"] = float(thresholds[thresholds > 0].min())
    eps_max = facts["c3_eps_max"]
    rows = [dict(r) for r in verdict_table(facts)]
    alone = "; ".join(f"{a} alone {v['min']:.1f} to {v['max']:.1f}" for a, v in facts["c2_alone"].items())
    rows[1]["expected regret"] += f"; {alone}"
    rows[2]["claim"] = ("(C3) DP-IMED follows the lower bound in the sweep, and the change between the "
                        "high- and the low-privacy regime is smooth")
    tested = ("the regime change is not tested: every budget of the sweep (eps <= "
              f"{eps_max:g}) is below eps* = {facts['c3_regime_eps']:.1f}, in the high-privacy regime"
              if eps_max < facts["c3_regime_eps"] else
              f"the sweep crosses eps* = {facts['c3_regime_eps']:.1f}")
    rows[2]["verdict"] += f"; {tested}"
    for r in rows:
        for k in r:
            r[k] = _no_none(r[k])
    return facts, rows
