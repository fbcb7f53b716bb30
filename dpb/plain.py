"""DP-KLUCB and DP-IMED in plain Python: one run, one reward at a time, no numpy.

This is the readable version of :prf:ref:`alg-dp-klucb-imed` that chapter 4 shows next to the
package's vectorised policies (:class:`dpb.policies.DPKLUCB`, :class:`dpb.policies.DPIMED`), with
the same rules as the appendix :doc:`/book/algorithms_as_run`: an initial batch of ``n0`` pulls of
every arm, geometric batches :math:`n_m = \\lceil n_0 (\\alpha^{m+1} - 1)/(\\alpha - 1)\\rceil`, one
:math:`\\mathrm{Lap}(1/\\epsilon)` draw per batch added to a running sum that is never forgotten,
the index of the chosen algorithm on the clipped private means, and ties broken uniformly at
random.  It is slow (a Python loop over rewards) and meant to be read; the tests check that it
agrees with the package in distribution and that its divergence and index agree with
:mod:`dpb.divergences` to rounding.  Its kl, d_eps and index are its own copies on purpose (the
page shows them whole, and the tests compare them with the package's).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from ._validate import as_int, as_probability, as_real

__all__ = ["kl", "d_eps", "d_eps_ucb", "dp_klucb", "dp_imed"]


def _checked(**values) -> None:
    """Refuse bad arguments (``ValueError``/``TypeError`` naming them) before the plain code runs."""
    for name, v in values.items():
        if name in ("p", "q", "x", "y"):
            as_real(name, v, low=0.0, high=1.0)
        elif name == "eps":  # exp(eps) must be a float: eps <= 700 (no budget of interest is larger)
            as_real(name, v, low=0.0, high=700.0, low_open=True)
        elif name == "budget":
            as_real(name, v, low=0.0, high=math.inf, high_open=True)
        elif name == "means":
            if isinstance(v, (str, bytes)) or not hasattr(v, "__len__") or len(v) < 1:
                raise TypeError(f"means must be a non-empty sequence of arm means, got {v!r}")
            as_probability("means", list(v))
        elif name == "T":
            as_int(name, v, minimum=1, maximum=10**7)  # a Python loop over rewards: minutes at 1e7
        elif name == "n0":
            as_int(name, v, minimum=1, maximum=10**7)
        elif name == "alpha":
            as_real(name, v, low=1.001, high=1e6)
        elif name == "seed":
            as_int(name, v, minimum=0)


def kl(p: float, q: float) -> float:
    """Bernoulli relative entropy kl(p, q), with 0 log 0 = 0 (``inf`` when q excludes p)."""
    _checked(p=p, q=q)
    total = 0.0
    for a, b in ((p, q), (1 - p, 1 - q)):
        if a > 0:
            total += math.inf if b <= 0 else a * math.log(a / b)
    return total


def d_eps(x: float, y: float, eps: float) -> float:
    """d_eps(x, y) = min over z of eps * abs(z - x) + kl(z, y), for any x, y in [0, 1], at the
    closed-form stopover z* (Proposition of chapter 2): the stopover lies between x and y, where
    the slope of kl(., y) reaches -eps (x below y) or +eps (x above y)."""
    _checked(x=x, y=y, eps=eps)
    if x <= y:
        z = max(x, y / (y + (1 - y) * math.exp(eps)))
        return eps * (z - x) + kl(z, y)
    z = min(x, y * math.exp(eps) / (1 - y + y * math.exp(eps)))
    return eps * (x - z) + kl(z, y)


def d_eps_ucb(x: float, budget: float, eps: float) -> float:
    """The DP-KLUCB index max{mu in [x, 1] : d_eps(x, mu) <= budget}, by bisection."""
    _checked(x=x, budget=budget, eps=eps)
    if d_eps(x, 1.0, eps) <= budget:
        return 1.0
    lo, hi = x, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if d_eps(x, mid, eps) <= budget else (lo, mid)
    return lo


def _batch_end(m: int, n0: int, alpha: float) -> int:
    """n_m, the number of pulls of an arm after its batch m (geometric schedule)."""
    return math.ceil(n0 * (alpha ** (m + 1) - 1) / (alpha - 1) - 1e-9)


def _pull(rng: random.Random, mu: float, pulls: int, eps: float) -> float:
    """The sum of ``pulls`` Bernoulli(mu) rewards plus one Laplace(1/eps) draw."""
    rewards = sum(rng.random() < mu for _ in range(pulls))
    return rewards + rng.expovariate(eps) - rng.expovariate(eps)


def _dp_run(algorithm: str, means: Sequence[float], eps: float, T: int, n0: int, alpha: float,
            seed: int) -> list[int]:
    """One run of ``algorithm`` (DP-KLUCB or DP-IMED) on Bernoulli arms ``means`` for ``T`` rounds;
    returns the pull counts.  The two algorithms differ only in the index."""
    _checked(means=means, eps=eps, T=T, n0=n0, alpha=alpha, seed=seed)
    rng, K = random.Random(seed), len(means)
    S = [_pull(rng, mu, n0, eps) for mu in means]  # running sums: rewards + noises
    n, m, t = [n0] * K, [0] * K, K * n0 + 1  # pulls, batch index, next round
    while t <= T:
        x = [min(max(S[i] / n[i], 0.0), 1.0) for i in range(K)]  # clipped private means
        if algorithm == "DP-KLUCB":  # the largest max{mu : d_eps(x_i, mu) <= log(t) / n_i}
            index = [d_eps_ucb(x[i], math.log(t) / n[i], eps) for i in range(K)]
            i = rng.choice([a for a in range(K) if index[a] == max(index)])  # random ties
        else:  # DP-IMED: the smallest n_i d_eps(x_i, x*) + log n_i
            best = max(x)
            index = [n[i] * d_eps(x[i], best, eps) + math.log(n[i]) for i in range(K)]
            i = rng.choice([a for a in range(K) if index[a] == min(index)])  # random ties
        B = min(_batch_end(m[i] + 1, n0, alpha) - n[i], T - t + 1)  # next batch, cut at T
        S[i] += _pull(rng, means[i], B, eps)  # accumulate: nothing is forgotten
        n[i], m[i], t = n[i] + B, m[i] + 1, t + B
    return n


def dp_klucb(means: Sequence[float], eps: float, T: int, n0: int = 1, alpha: float = 2.0,
             seed: int = 0) -> list[int]:
    """One run of DP-KLUCB on Bernoulli arms ``means`` for ``T`` rounds; returns the pull counts."""
    return _dp_run("DP-KLUCB", means, eps, T, n0, alpha, seed)


def dp_imed(means: Sequence[float], eps: float, T: int, n0: int = 1, alpha: float = 2.0,
            seed: int = 0) -> list[int]:
    """One run of DP-IMED on Bernoulli arms ``means`` for ``T`` rounds; returns the pull counts."""
    return _dp_run("DP-IMED", means, eps, T, n0, alpha, seed)
