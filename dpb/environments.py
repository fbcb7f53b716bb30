"""Bernoulli bandit environments and the paper's named instances.

A K-armed Bernoulli bandit is a vector of means mu = (mu_1, ..., mu_K) in [0, 1]^K.  Its optimal
mean is mu* = max_a mu_a, the gaps are Delta_a = mu* - mu_a, and the pseudo-regret of a policy
after t rounds is Reg_t = sum_a Delta_a N_a(t), with N_a(t) the number of pulls of arm a
(Section 'Experimental Analysis' and Appendix 'Extended Experiments' of the paper).

Named instances (:func:`instance`):

========  ==========================================  ======================================
name      means                                        where in the paper
========  ==========================================  ======================================
``mu1``   [0.75, 0.70, 0.70, 0.70, 0.70]               main experiments (left panel)
``mu2``   [0.75, 0.625, 0.5, 0.375, 0.25]              main experiments (right panel)
``mu3``   [0.75, 0.53125, 0.375, 0.28125, 0.25]        Extended Experiments
``mu4``   [0.75, 0.71875, 0.625, 0.46875, 0.25]        Extended Experiments
``sweep`` [0.8, 0.1, 0.1, 0.1, 0.1]                    regret as a function of epsilon
========  ==========================================  ======================================
"""

from __future__ import annotations

import numpy as np

from ._validate import MAX_SIZE, as_float_array, as_int, as_probability

__all__ = ["BernoulliBandit", "INSTANCES", "instance", "instance_names", "as_bandit"]

#: The paper's environments (Appendix 'Extended Experiments'; the epsilon-sweep figure).
INSTANCES: dict[str, tuple[float, ...]] = {
    "mu1": (0.75, 0.70, 0.70, 0.70, 0.70),
    "mu2": (0.75, 0.625, 0.5, 0.375, 0.25),
    "mu3": (0.75, 0.53125, 0.375, 0.28125, 0.25),
    "mu4": (0.75, 0.71875, 0.625, 0.46875, 0.25),
    "sweep": (0.8, 0.1, 0.1, 0.1, 0.1),
}


class BernoulliBandit:
    """A stochastic bandit whose arm ``a`` pays Bernoulli(mu_a) rewards.

    Parameters
    ----------
    means : array_like of shape (K,)
        Arm means, each in [0, 1], K >= 2.
    name : str, optional
        A label for records and plots (the instance name for the paper's environments).

    Attributes
    ----------
    means : ndarray of shape (K,)
        The arm means (read-only copy).
    K : int
        Number of arms.
    mu_star : float
        The optimal mean max_a mu_a.
    gaps : ndarray of shape (K,)
        Delta_a = mu* - mu_a >= 0.
    optimal_arms : ndarray of int
        Every arm with Delta_a = 0.
    best_arm : int
        The first optimal arm.
    """

    def __init__(self, means: np.typing.ArrayLike, name: str | None = None) -> None:
        mu = as_probability("means", means)
        if mu.ndim != 1 or mu.size < 1:
            raise ValueError(f"means must be a non-empty 1-d array of arm means, got shape {mu.shape}")
        if mu.size < 2:
            raise ValueError(f"means must hold K >= 2 arm means (a bandit chooses between arms), got K = "
                             f"{mu.size}: {mu.tolist()}")
        if name is not None and not isinstance(name, str):
            raise TypeError(f"name must be a string or None, got {type(name).__name__}")
        self._means = mu.copy()
        self._means.setflags(write=False)
        self.name = name
        self._gaps = self._means.max() - self._means
        self._gaps.setflags(write=False)

    @property
    def means(self) -> np.ndarray:
        return self._means

    @property
    def K(self) -> int:  # noqa: N802 - the paper's notation
        return int(self._means.size)

    @property
    def mu_star(self) -> float:
        return float(self._means.max())

    @property
    def gaps(self) -> np.ndarray:
        return self._gaps

    @property
    def optimal_arms(self) -> np.ndarray:
        return np.flatnonzero(self._gaps == 0.0)

    @property
    def best_arm(self) -> int:
        return int(np.argmax(self._means))

    def regret(self, pulls: np.typing.ArrayLike) -> np.ndarray:
        """Pseudo-regret sum_a Delta_a N_a for pull counts ``pulls`` of shape (..., K)."""
        n = as_float_array("pulls", pulls)
        if np.any(np.isnan(n)) or np.any(n < 0) or np.any(np.isinf(n)):
            raise ValueError("pulls must be finite counts >= 0")
        if n.shape[-1:] != (self.K,):
            raise ValueError(f"pulls must have a last axis of length K={self.K}, got shape {n.shape}")
        out = np.zeros(n.shape[:-1])
        for k in range(self.K):  # arm after arm: one order on every CPU (a BLAS product has its own)
            out = out + n[..., k] * self._gaps[k]
        return out

    def pull(self, arm: int, n: int, rng: np.random.Generator) -> int:
        """Sum of ``n`` independent rewards of ``arm``: one Binomial(n, mu_arm) draw.

        This is exactly the law of n Bernoulli(mu_arm) rewards added up, which is all a phase-based
        policy ever observes (see :doc:`/book/algorithms_as_run`).
        """
        arm = as_int("arm", arm, minimum=0, maximum=self.K - 1)
        n = as_int("n", n, minimum=0, maximum=MAX_SIZE)
        if not isinstance(rng, np.random.Generator):
            raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
        return int(rng.binomial(n, self._means[arm]))

    def __repr__(self) -> str:
        label = f", name={self.name!r}" if self.name else ""
        return f"BernoulliBandit({self._means.tolist()}{label})"

    def __eq__(self, other) -> bool:
        return isinstance(other, BernoulliBandit) and np.array_equal(self._means, other._means)

    def __hash__(self) -> int:
        return hash(tuple(self._means.tolist()))


def instance_names() -> list[str]:
    """Names accepted by :func:`instance`."""
    return list(INSTANCES)


def instance(name: str) -> BernoulliBandit:
    """The paper's environment called ``name`` (see the module table).

    Raises
    ------
    ValueError
        For an unknown name; the message lists the valid names.
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a string, got {type(name).__name__}")
    key = name.strip().lower()
    if key not in INSTANCES:
        raise ValueError(f"unknown instance name {name!r}; valid names are {', '.join(INSTANCES)}")
    return BernoulliBandit(INSTANCES[key], name=key)


def as_bandit(env: BernoulliBandit | str | np.typing.ArrayLike) -> BernoulliBandit:
    """Coerce an instance name, a vector of means or a :class:`BernoulliBandit` to a bandit."""
    if isinstance(env, BernoulliBandit):
        return env
    try:
        if isinstance(env, str):
            return instance(env)
        return BernoulliBandit(env)
    except (TypeError, ValueError) as exc:  # name the parameter of this function too
        raise type(exc)(f"env: {exc}") from exc
