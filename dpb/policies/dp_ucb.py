"""DP-UCB on the paper's batches: a Hoeffding-style private index, as one method.

Not the DP-UCB of Mishra and Thakurta (2015), which releases every arm's running sum at every step
through the tree-based mechanism of continual observation: this policy is the book's worked example
of a new index on the paper's geometric batches, registered as ``"DP-UCB"`` (the name keys its
cached results and the tests' reference samples, so it is kept; the book says which DP-UCB it is).

This module is the whole of a new policy: defining the class registers it, so that it runs
through :func:`dpb.simulate.simulate`, the privacy audit (:mod:`dpb.audit`), the reference tests
and the experiments (``python -m dpb reproduce fig1 --policy DP-UCB``) with no other edit.

The policy keeps everything of Algorithm 'DP-KLUCB and DP-IMED' (geometric phases, one Laplace
draw per phase added to a running sum that never forgets; eps-DP by Proposition 'Privacy
analysis', since the index only post-processes the private sums) and replaces the d_eps index by
an upper confidence bound built from two tail bounds, each at level 1/t:

* the rewards: Hoeffding's inequality, P[mu^_i - mu_i <= -sqrt(log t / (2 n_i))] <= 1/t;
* the noise: S~_i - S_i is a sum of k_i = (number of phases of arm i) independent Lap(1/eps)
  draws.  A Laplace variable Y of scale b has E[e^{lambda Y}] = 1/(1 - b^2 lambda^2) <=
  e^{2 b^2 lambda^2} for |lambda| <= 1/(sqrt(2) b), and the Chernoff bound then gives
  P[sum >= x] <= exp(-min(x^2 / (8 k b^2), x / (2 sqrt(2) b))), which is 1/t at
  x = b max(sqrt(8 k log t), 2 sqrt(2) log t).

Index of arm i at round t, with x_i = clip(S~_i / n_i):

    U_i(t) = x_i + sqrt(log t / (2 n_i)) + max(sqrt(8 k_i log t), 2 sqrt(2) log t) / (eps n_i),

and the arm of largest index gets its next phase.  The noise term decays like log(t) / (eps n_i),
the order of the privacy cost in the lower bound, but with a worse constant than d_eps: DP-UCB is
the worked example of the book's chapter 4, not a competitor of DP-KLUCB.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from .._detmath_arrays import log_array
from .. import _detmath

from .dp_batched import BatchedPrivatePolicy

__all__ = ["DPUCB"]


def _dp_ucb_index(x, n, t, releases, eps: float):
    """U = x + sqrt(log t / (2 n)) + max(sqrt(8 k log t), 2 sqrt(2) log t) / (eps n), k = releases.

    Vectorised over numpy arrays that broadcast together (see the module docstring for the two
    tail bounds behind the formula).
    """
    log_t = log_array(t)
    noise = np.maximum(np.sqrt(8.0 * releases * log_t), 2.0 * math.sqrt(2.0) * log_t)
    return x + np.sqrt(log_t / (2.0 * n)) + noise / (eps * n)


def _reference(env: Any, rng: np.random.Generator, params: dict) -> None:
    """One literal run of DP-UCB, one reward per round (the test oracle, see :mod:`dpb.reference`).

    Geometric batches from ``n0`` and ``alpha`` in exact rational arithmetic, the index from plain
    ``math``, ties broken by ``rng.choice``.
    """
    eps = float(params["eps"])
    n0, alpha = int(params.get("n0", 1)), Fraction(repr(float(params.get("alpha", 2))))
    K = env.K

    def ends(m: int) -> int:  # n_m = ceil(n0 (alpha^{m+1} - 1) / (alpha - 1))
        v = n0 * (alpha ** (m + 1) - 1) / (alpha - 1)
        return -((-v.numerator) // v.denominator)

    S, n, k = [0.0] * K, [0] * K, [0] * K
    for i in range(K):  # B_0 pulls of every arm, then the first noisy sum
        for _ in range(n0):
            S[i] += env.pull(i)
        S[i] += rng.laplace(0.0, 1.0 / eps)
        n[i], k[i] = n0, 1
    while not env.done():
        lt = _detmath.log(env.t)
        idx = []
        for i in range(K):
            x = min(max(S[i] / n[i], 0.0), 1.0)
            bonus = max(math.sqrt(8 * k[i] * lt), 2 * math.sqrt(2) * lt) / (eps * n[i])
            idx.append(x + math.sqrt(lt / (2 * n[i])) + bonus)
        best = max(idx)
        tied = [i for i in range(K) if idx[i] == best]
        a = tied[0] if len(tied) == 1 else int(rng.choice(tied))
        size = ends(k[a]) - ends(k[a] - 1)  # B_{k_a}, the next phase of arm a
        s, made = 0.0, 0
        while made < size and not env.done():
            s += env.pull(a)
            made += 1
        S[a] += s + rng.laplace(0.0, 1.0 / eps)
        n[a] += made
        k[a] += 1


class DPUCB(BatchedPrivatePolicy):
    """DP-UCB: the paper's private batches with a Hoeffding-plus-Laplace-tail index.

    Index of arm i at round t, with x_i the clipped private mean and k_i the number of Laplace
    draws in arm i's private sum:

        U_i(t) = x_i + sqrt(log t / (2 n_i)) + max(sqrt(8 k_i log t), 2 sqrt(2) log t) / (eps n_i).

    The second term is Hoeffding's bound on the rewards at level 1/t; the third bounds the sum of
    k_i independent Lap(1/eps) draws at level 1/t (Chernoff bound with the Laplace moment
    generating function 1/(1 - lambda^2/eps^2) <= exp(2 lambda^2/eps^2) for
    abs(lambda) <= eps/sqrt(2)).  eps-DP like DP-KLUCB, since the index only post-processes the
    private sums; the whole policy is this one method on
    :class:`~dpb.policies.BatchedPrivatePolicy` (the worked example of the Algorithms chapter),
    whose parameters (``eps``, ``n0``, ``alpha``, ``schedule``) it takes.
    """

    name = "DP-UCB"
    index_kind = "max"
    style = {"color": "#2ca02c", "ls": "-."}
    reference = _reference

    def private_index(self, x: np.ndarray, n: np.ndarray, t: np.ndarray, releases: np.ndarray) -> np.ndarray:
        return _dp_ucb_index(x, n, t, releases, self.eps)
