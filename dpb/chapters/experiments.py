"""The numbers of chapter 7 (*Experiments*): the verdict on the paper's claims, table and Summary.

Built on :func:`dpb.experiments.verdict_facts` and :func:`dpb.experiments.verdict_table`;
:func:`verdict` adds what the chapter's table and Summary say besides (each algorithm's own
factor below the baselines, the regime the budget sweep covers) and returns the facts and the rows
together, so that the table and the text glued from the same facts cannot disagree.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validate import as_instance
from ..bounds import regime_thresholds
from ..experiments import BASELINES, OURS, verdict_facts, verdict_table
from ..experiments import ConvergedResults, ExperimentResults

__all__ = ["ratios_by_algorithm", "verdict"]


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

    ``facts`` is :func:`dpb.experiments.verdict_facts` of the same arguments plus ``c2_alone``
    (:func:`ratios_by_algorithm` of ``converged``) and ``c3_regime_eps``, the smallest budget from
    which privacy is free for some suboptimal arm of the sweep's instance (the threshold
    :func:`dpb.bounds.regime_thresholds`; below it every arm is in the high-privacy regime).
    ``rows`` is :func:`dpb.experiments.verdict_table` of those facts, with each algorithm's own
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
