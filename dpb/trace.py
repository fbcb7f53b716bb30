"""Teaching traces: every phase of one run, with the noise, statistics and indexes behind each decision.

:func:`simulate_trace` runs one run through the generic phase engine (:func:`dpb.engine.run_phases`)
with a hook that records every phase; the run is the same trajectory as the same run of
:func:`dpb.simulate.simulate` with ``fast=False``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ._params import merge_params
from ._validate import MAX_HORIZON, MAX_SECONDS, as_int, as_seed_sequence
from .cost import _refuse
from .engine import SeedChildren, _run_seeds
from .environments import as_bandit
from .policies import Policy
from .policies.registry import as_policy

__all__ = ["Trace", "simulate_trace"]


@dataclass
class Trace:
    """Phase-by-phase record of one run (see :func:`simulate_trace`).

    ``phases`` is a list of dicts with keys: ``phase`` (0-based), ``t`` (first round), ``arm``
    (the arm played, or -1 for a round-robin phase), ``pulls`` (pulls made), ``counts`` (K,),
    ``reward_sums`` (K,), ``noise`` (K,: the Laplace value added at this phase, NaN where none),
    ``statistic`` (K,: every arm's private/empirical mean after the phase), ``index`` (K,: the
    index of every arm at the decision, NaN during initialisation) and ``regret`` (after it).
    """

    policy: str
    params: dict
    means: np.ndarray
    T: int
    phases: list

    def __len__(self) -> int:
        return len(self.phases)

    def table(self) -> dict:
        """The trace as a dict of numpy arrays (one row per phase)."""
        if not self.phases:
            return {}
        return {k: np.array([p[k] for p in self.phases]) for k in self.phases[0]}

    def to_frame(self) -> Any:
        """The trace as a pandas DataFrame (requires pandas); K-vectors stay in object columns."""
        import pandas as pd  # optional dependency

        return pd.DataFrame(self.phases)


class _TraceHook:
    def __init__(self, policy: Policy, gaps: np.ndarray) -> None:
        self.policy, self.gaps, self.reg = policy, gaps, 0.0
        self.rows: list[dict] = []

    def before_update(self, rows, t0, counts, sums) -> None:
        self._draws = self.policy.laplace_arm[0].copy()

    def after_update(self, rows, t0, counts, sums) -> None:
        p = self.policy
        drawn = p.laplace_arm[0] - self._draws
        arms = np.flatnonzero(counts[0])
        self.reg += float(sum(int(c) * g for c, g in zip(counts[0], self.gaps, strict=True)))  # (no BLAS)
        self.rows.append(
            {
                "phase": len(self.rows),
                "t": int(t0[0]),
                "arm": int(arms[0]) if arms.size == 1 else -1,
                "pulls": int(counts[0].sum()),
                "counts": counts[0].copy(),
                "reward_sums": sums[0].copy(),
                "noise": np.where(drawn > 0, p.last_noise[0], np.nan),
                "statistic": p.statistic()[0].copy(),
                "index": p.index[0].copy(),
                "regret": self.reg,
            }
        )


def simulate_trace(
    policy: Any, env: Any, T: int, seed: Any = None, *, params: dict | None = None, run_id: int = 0,
    max_seconds: float | None = MAX_SECONDS, **policy_params: Any,
) -> Trace:
    """Run one run of ``policy`` through the generic phase engine and record every phase.

    The run is child ``run_id`` of ``SeedSequence(seed)``, so it is the same trajectory as run
    ``run_id`` of ``simulate(policy, env, T, seed=seed, fast=False)``.  Per-step policies give one
    phase per round: keep T small.  ``max_seconds`` bounds the estimated cost as in
    :func:`dpb.simulate.simulate` (a trace keeps one record per phase).  Policy parameters go in ``params`` or
    as keywords, as in :func:`dpb.simulate.simulate`.
    """
    pol = as_policy(policy, merge_params("simulate_trace", policy, params, policy_params))
    bandit = as_bandit(env)
    T = as_int("T", T, minimum=1, maximum=MAX_HORIZON)
    _refuse(f"simulate_trace({pol.name!r})", T, 1, max_seconds, pol, bandit.K, "phases")
    seeds = SeedChildren(as_seed_sequence("seed", seed), [as_int("run_id", run_id, minimum=0)])
    hook = _TraceHook(pol, bandit.gaps)
    _run_seeds(pol, bandit, T, seeds, np.array([T]), None, "python", hook)  # (no fast path: no engine)
    return Trace(policy=pol.name, params=dict(pol.params), means=bandit.means.copy(), T=T, phases=hook.rows)
