"""AdaP-KLUCB and AdaP-UCB (Azize & Basu, NeurIPS 2022): doubling episodes, with forgetting.

Each arm is pulled once; afterwards the policy runs arm-dependent *episodes*: when arm A is chosen
its total count doubles (it is played N_A more times, truncated at T) and its private mean is
replaced by the mean of *that episode only* plus one Laplace draw,

    mu~_A = (episode sum + Lap(1/eps)) / n_last_A,     n_last_A = the episode's length,

so older episodes are forgotten and each reward enters one noisy sum (parallel composition).  With
t_l the current round (pulls so far + 1):

* AdaP-KLUCB: mu_a = clip(mu~_a + alpha log(t_l) / (eps n_last_a)) (privacy bonus first), then
  I_a = max{q in [0, 1] : kl(mu_a, q) <= alpha log(t_l) / n_last_a};
* AdaP-UCB: I_a = mu~_a + sqrt(alpha log(t_l) / (2 n_last_a)) + alpha log(t_l) / (eps n_last_a);

and the arm of largest index starts the next episode.  Analysis requires alpha > 3 (paper's
experiments: alpha = 3.1).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .._detmath_arrays import log_array
from .._validate import check_eps, check_real
from ._private_runs import CounterStreams
from ._keyed import KeyedRuns
from .base import _InitialRoundRobin

__all__ = ["AdaPKLUCB", "AdaPUCB"]


class _AdaP(CounterStreams, _InitialRoundRobin, KeyedRuns):
    eps: float  # a private policy's budget (never None)
    private = True
    index_kind = "max"
    paper_defaults = {"alpha": 3.1}
    _KIND: int | None = None  # the kind of dpb.policies._private_runs.adap_chunk
    # the index of an episode, (private means, alpha log(t_l) / n_last) -> index (each subclass's)
    _episode_index: Callable[[np.ndarray, np.ndarray], np.ndarray]
    kernel_params = {"eps": 1.0}

    def __init__(self, eps: float, alpha: float = 3.1) -> None:
        self.eps = check_eps(eps)
        self.alpha = check_real("alpha", alpha, low=0.0)

    @property
    def params(self) -> dict:
        return {"eps": self.eps, "alpha": self.alpha}

    def max_phases(self, K: int, T: int) -> int:
        """Upper bound of the phases of one run: an arm's episodes double its count, so each arm
        has at most log2 T + 2 of them (used by :func:`dpb.simulate.estimate_cost`)."""
        return K * (int(T).bit_length() + 2)

    def _start(self) -> None:
        R, K = self.R, self.K
        self.mu_tilde = np.zeros((R, K))
        self.n_last = np.zeros((R, K), dtype=np.int64)
        self.N = np.zeros((R, K), dtype=np.int64)  # total pulls of each arm
        self._init_state()

    def statistic(self) -> np.ndarray:
        return np.where(self.n_last > 0, self.mu_tilde, np.nan)

    def _own_logic(self) -> bool:
        cls = type(self)
        base = AdaPKLUCB if self._KIND == 0 else AdaPUCB
        methods = ("start", "_start", "decide", "update", "_index", "_episode_index", "_noise",
                   "_choose_arms")
        return self._KIND is not None and isinstance(self, base) and all(
            getattr(cls, m) is getattr(base, m) for m in methods)

    def _keyed_kind(self) -> int | None:
        return self._KIND if self._own_logic() else None

    def _keyed_args(self, T: int) -> tuple[str, tuple, bool]:
        return "adap_chunk", (T, float(self.eps), float(self.alpha)), True

    def decide(self, rows: np.ndarray, t: np.ndarray) -> np.ndarray:
        rows = np.asarray(rows, dtype=np.int64)
        init = self._in_init(rows)  # before _choose_arms advances the initial round-robin
        arms = self._choose_arms(rows, t)
        # after initialisation an episode doubles the arm's count: N_A more pulls
        pulls = np.where(init, 1, self.N[rows, arms])
        return self._one_hot(arms, pulls)

    def update(self, rows: np.ndarray, counts: np.ndarray, sums: np.ndarray) -> None:
        rows = np.asarray(rows, dtype=np.int64)
        arms = np.argmax(counts, axis=1)
        i = np.arange(rows.size)
        got = counts[i, arms]
        # forgetting: the new private mean uses this episode only, with one fresh Laplace draw
        self.mu_tilde[rows, arms] = (sums[i, arms] + self._noise(rows, arms)) / got
        self.noise_in_stat[rows, arms] = 1
        self.n_last[rows, arms] = got
        self.N[rows, arms] += got

    def _index(self, rows: np.ndarray, t: np.ndarray) -> np.ndarray:
        level = self.alpha * log_array(t)[:, None] / self.n_last[rows]  # alpha log(t_l) / n_last
        return self._episode_index(self.mu_tilde[rows], level)


class AdaPKLUCB(_AdaP):
    """AdaP-KLUCB: KL-UCB index of the private mean plus a privacy bonus, doubling episodes.

    Parameters
    ----------
    eps : float
        Privacy budget, > 0.
    alpha : float
        Exploration constant, > 0 (analysis: > 3; experiments: 3.1).
    """

    name = "AdaP-KLUCB"
    style = {"color": "#ff7f0e", "ls": "-"}
    reference = "dpb.reference:_adap_klucb"
    _KIND = 0

    def _episode_index(self, mu_tilde: np.ndarray, level: np.ndarray) -> np.ndarray:
        # the scalar index of the compiled runs, entry by entry: the same numbers in every engine
        from .._jit import engine_name
        from ._keyed import compiled

        out = np.empty(np.shape(mu_tilde))
        compiled("adap_rows", engine_name())(0, np.ascontiguousarray(mu_tilde, dtype=float),
                                             np.ascontiguousarray(level, dtype=float), float(self.eps), out)
        return out


class AdaPUCB(_AdaP):
    """AdaP-UCB: I_a = mu~_a + sqrt(alpha log t / (2 n_last)) + alpha log t / (eps n_last).

    Parameters (``eps``, ``alpha``) as :class:`~dpb.policies.AdaPKLUCB`.
    """

    name = "AdaP-UCB"
    style = {"color": "#e377c2", "ls": "-"}
    reference = "dpb.reference:_adap_ucb"
    _KIND = 1

    def _episode_index(self, mu_tilde: np.ndarray, level: np.ndarray) -> np.ndarray:
        return mu_tilde + np.sqrt(0.5 * level) + level / self.eps
