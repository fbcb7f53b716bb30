"""DP-SE (Sajed & Sheffet, ICML 2019): private successive elimination, with forgetting.

Epoch e = 1, 2, ... of the active set S (initially all arms), with Delta_e = 2^{-e}:

    R_e = ceil( max( 32 ln(8|S|e^2/beta) / Delta_e^2 ,  8 ln(4|S|e^2/beta) / (eps Delta_e) ) )

every arm of S is pulled R_e times, round-robin, from fresh samples (earlier epochs are
forgotten); each arm's epoch sum receives one Lap(1/eps) draw, mu~_a = (sum + Lap(1/eps)) / R_e;
with h_e = sqrt(ln(8|S|e^2/beta)/(2R_e)) and c_e = ln(4|S|e^2/beta)/(eps R_e), every arm with
max_b mu~_b - mu~_a > 2 (h_e + c_e) is eliminated.  Once one arm is left it is pulled until T.

Privacy: each reward enters exactly one noisy epoch sum of sensitivity 1 (parallel composition).

**ASSUMPTION** (:doc:`/book/algorithms_as_run`): the rounding of R_e and the elimination threshold
above are our reading of the article's pseudo-code; we know of no code by its authors to check it
against.  ``beta`` defaults to 1/T as in the paper's experiments, so the policy is not anytime.

Readings of the elimination rule
--------------------------------
Published DP-SE curves are markedly higher than what the rule above produces, so the rule is a
parameter, ``elimination``, with three readings (:data:`ELIMINATION_RULES`):

``"radius"`` (default, the faithful reading)
    eliminate ``a`` when ``max_b mu~_b - mu~_a > 2 (h_e + c_e)``: the confidence radii of the two
    noisy means, computed from the actual ``R_e``;
``"half-gap"``
    eliminate when the difference exceeds ``Delta_e / 2``: the value that ``2 (h_e + c_e)`` is
    guaranteed not to exceed, since ``R_e`` makes ``h_e <= Delta_e / 8`` and ``c_e <= Delta_e / 8``;
    this reading uses the design bound instead of the radius itself;
``"gap"``
    eliminate when the difference exceeds ``Delta_e``: the rule of the non-private phased
    elimination algorithm (Lattimore and Szepesvari, *Bandit Algorithms*, exercise 6.8) with
    DP-SE's epoch lengths.

Since ``2 (h_e + c_e) <= Delta_e / 2 < Delta_e``, the three readings eliminate ever later; all three
keep DP-SE's epochs, noise and forgetting, so all three are eps-DP.
"""

from __future__ import annotations

import numpy as np

from .._detmath_arrays import log_array

from .._validate import check_eps, check_real
from ._private_runs import CounterStreams
from ._keyed import KeyedRuns

__all__ = ["DPSE", "ELIMINATION_RULES"]

#: The readings of DP-SE's elimination rule (see the module doc); the first is the default.
ELIMINATION_RULES = ("radius", "half-gap", "gap")


class DPSE(CounterStreams, KeyedRuns):
    """DP-SE: successive elimination with per-epoch Laplace noise (forgetting).

    Parameters
    ----------
    eps : float
        Privacy budget, > 0.
    beta : float, optional
        Confidence parameter in (0, 1); default 1/T (the paper's experiments).
    elimination : {"radius", "half-gap", "gap"}
        The reading of the elimination rule (module doc); ``"radius"``, the faithful one, by
        default.
    """
    eps: float  # a private policy's budget (never None)

    name = "DP-SE"
    private = True
    index_kind = "max"
    style = {"color": "#7f7f7f", "ls": "-"}
    reference = "dpb.reference:_dpse"
    kernel_params = {"eps": 1.0}

    def __init__(self, eps: float, beta: float | None = None, elimination: str = "radius") -> None:
        self.eps = check_eps(eps)
        if elimination not in ELIMINATION_RULES:
            raise ValueError(f"elimination must be one of {ELIMINATION_RULES}, got {elimination!r}")
        self.elimination = elimination
        self.beta = None if beta is None else check_real("beta", beta, low=0.0, high=1.0)
        if self.beta is not None and self.beta >= 1.0:
            raise ValueError(f"beta must lie in (0, 1), got {self.beta!r}")

    def max_phases(self, K: int, T: int) -> int:
        """Upper bound of the phases of one run: epoch e pulls each surviving arm once as a phase
        and epochs double in length, so at most K (log2 T + 2) phases (used by
        :func:`dpb.simulate.estimate_cost`)."""
        return K * (int(T).bit_length() + 2)

    @property
    def params(self) -> dict:
        return {"eps": self.eps, "beta": self.beta, "elimination": self.elimination}

    def min_horizon(self, K: int) -> int:
        return 1

    def _start(self) -> None:
        R, K = self.R, self.K
        self._beta = self.beta if self.beta is not None else 1.0 / self.T
        self.active = np.ones((R, K), dtype=bool)
        self.epoch = np.zeros(R, dtype=np.int64)
        self.epoch_len = np.zeros(R, dtype=np.int64)  # R_e of the current epoch (0 after elimination)
        self.mu_tilde = np.full((R, K), np.nan)

    def statistic(self) -> np.ndarray:
        return self.mu_tilde.copy()

    def _own_logic(self) -> bool:
        cls = type(self)
        return all(getattr(cls, m) is getattr(DPSE, m)
                   for m in ("start", "_start", "decide", "update", "_epoch_terms", "_noise"))

    def _keyed_kind(self) -> int | None:
        return ELIMINATION_RULES.index(self.elimination) if self._own_logic() else None

    def _keyed_args(self, T: int) -> tuple[str, tuple, bool]:
        return "dpse_chunk", (T, float(self.eps), float(self._beta)), False  # (beta: set by start)

    def _epoch_terms(self, n_active: np.ndarray, e: np.ndarray):
        """R_e, h_e and c_e for active-set sizes ``n_active`` and epochs ``e`` (arrays)."""
        delta = np.ldexp(1.0, -e)
        log8 = log_array(8.0 * n_active * e**2 / self._beta)
        log4 = log_array(4.0 * n_active * e**2 / self._beta)
        # an epoch of more than 2**62 pulls in all outlasts every horizon: cap it before int64 casts
        r_e = np.ceil(np.minimum(np.maximum(32.0 * log8 / delta**2, 8.0 * log4 / (self.eps * delta)),
                                 2.0**62 / n_active)).astype(np.int64)
        h_e = np.sqrt(log8 / (2.0 * r_e))
        c_e = log4 / (self.eps * r_e)
        return r_e, h_e, c_e

    def decide(self, rows: np.ndarray, t: np.ndarray) -> np.ndarray:
        rows = np.asarray(rows, dtype=np.int64)
        act = self.active[rows]
        n_act = act.sum(axis=1)
        plan = np.zeros((rows.size, self.K), dtype=np.int64)
        left = n_act == 1
        if left.any():  # a single arm remains: pull it until the horizon
            rem = self.T - t[left] + 1
            plan[left] = act[left] * rem[:, None]
            self.epoch_len[rows[left]] = 0
        epo = ~left
        if epo.any():
            r = rows[epo]
            self.epoch[r] += 1
            r_e, _, _ = self._epoch_terms(n_act[epo], self.epoch[r])
            self.epoch_len[r] = r_e
            plan[epo] = act[epo] * r_e[:, None]
        self.index[rows] = np.where(act, self.mu_tilde[rows], np.nan)
        return plan

    def update(self, rows: np.ndarray, counts: np.ndarray, sums: np.ndarray) -> None:
        rows = np.asarray(rows, dtype=np.int64)
        r_e = self.epoch_len[rows]
        act = self.active[rows]
        # only a complete epoch leads to eliminations (a truncated one ends the run anyway)
        full = (r_e > 0) & np.all((counts == r_e[:, None]) | ~act, axis=1)
        if not full.any():
            return
        r, a = rows[full], act[full]
        rr, aa = np.nonzero(a)  # one Laplace draw per (run, active arm): forgetting
        noisy = np.full((r.size, self.K), np.nan)
        sums_f, r_e_f = sums[full], r_e[full]
        for k in range(self.K):  # arm by arm, so each run draws its noise in arm order
            i = rr[aa == k]
            if i.size:
                noisy[i, k] = (sums_f[i, k] + self._noise(r[i], np.full(i.size, k))) / r_e_f[i]
        self.noise_in_stat[r] = np.where(a, 1, 0)
        self.mu_tilde[r] = noisy
        _, h_e, c_e = self._epoch_terms(a.sum(axis=1), self.epoch[r])
        if self.elimination == "radius":
            threshold = 2.0 * (h_e + c_e)
        else:  # Delta_e / 2 or Delta_e
            threshold = np.ldexp(1.0, -self.epoch[r]) * (0.5 if self.elimination == "half-gap" else 1.0)
        best = np.nanmax(noisy, axis=1)
        keep = a & ~(best[:, None] - noisy > threshold[:, None])
        self.active[r] = keep
