"""Differential privacy primitives: the Laplace mechanism.

A mechanism M is eps-DP when, for all neighbouring inputs D ~ D' (differing in one record) and all
events E, M_D(E) <= e^eps M_{D'}(E) (the paper's definition 'eps-DP', after Dwork et al., 2006).
The Laplace mechanism releases f(D) + Lap(s/eps) where s is the sensitivity of f: the largest
abs(f(D) - f(D')) over neighbours.  For a sum of rewards in [0, 1], s = 1, so every algorithm of the
book adds Lap(1/eps) noise to each phase sum (the paper's Theorem 'The Laplace Mechanism').
"""

from __future__ import annotations

import numpy as np

from ._validate import as_float_array, as_positive, broadcast

__all__ = ["laplace_mechanism", "laplace_pdf", "laplace_log_density_ratio"]


def laplace_mechanism(value, eps, sensitivity=1.0, rng=None):
    """Release ``value + Lap(sensitivity / eps)``.

    Parameters
    ----------
    value : float or array_like
        The true statistic f(D), e.g. a phase sum of rewards.
    eps : float
        Privacy budget, in (0, +inf).
    sensitivity : float, default 1
        The L1 sensitivity s of f, in (0, +inf); 1 for a sum of rewards in [0, 1].
    rng : numpy.random.Generator, optional
        Source of randomness (pass one for reproducible runs).

    Returns
    -------
    float or ndarray
        The noisy release, same shape as ``value``.

    Notes
    -----
    eps-DP by the paper's Theorem 'The Laplace Mechanism' (Dwork & Roth, 2014, Thm 3.6): the
    density ratio of the outputs on neighbours is at most exp(eps abs(f(D) - f(D')) / s) <= e^eps.
    """
    v = as_float_array("value", value)
    e = as_positive("eps", eps, allow_inf=False)
    s = as_positive("sensitivity", sensitivity, allow_inf=False)
    if not np.all(np.isfinite(v)):
        raise ValueError("value must be finite")
    rng = np.random.default_rng() if rng is None else rng
    out = v + rng.laplace(0.0, s / e, size=np.shape(v) if np.ndim(v) else None)
    return float(out) if np.ndim(out) == 0 else out


def laplace_pdf(x, loc, eps, sensitivity=1.0):
    """Density of the Laplace mechanism's output: (eps / 2s) exp(-eps abs(x - loc) / s).

    Parameters
    ----------
    x : array_like
        Points at which to evaluate the density.
    loc : array_like
        The true statistic f(D) (the centre).
    eps, sensitivity : float
        As in :func:`laplace_mechanism`.
    """
    x = as_float_array("x", x)
    loc = as_float_array("loc", loc)
    e = as_positive("eps", eps, allow_inf=False)
    s = as_positive("sensitivity", sensitivity, allow_inf=False)
    x, loc = broadcast(x=x, loc=loc)
    out = e / (2 * s) * np.exp(-e * np.abs(x - loc) / s)
    return float(out) if out.ndim == 0 else out


def laplace_log_density_ratio(x, loc, loc_prime, eps, sensitivity=1.0):
    """log of p(x | loc) / p(x | loc') for the Laplace mechanism.

    Equals (eps / s)(abs(x - loc') - abs(x - loc)), which by the triangle inequality lies in
    [-eps abs(loc - loc') / s, eps abs(loc - loc') / s]: within [-eps, eps] for neighbours, whose
    statistics differ by at most the sensitivity s.
    """
    x = as_float_array("x", x)
    loc = as_float_array("loc", loc)
    loc_prime = as_float_array("loc_prime", loc_prime)
    e = as_positive("eps", eps, allow_inf=False)
    s = as_positive("sensitivity", sensitivity, allow_inf=False)
    x, loc, loc_prime = broadcast(x=x, loc=loc, loc_prime=loc_prime)
    out = e / s * (np.abs(x - loc_prime) - np.abs(x - loc))
    return float(out) if out.ndim == 0 else out
