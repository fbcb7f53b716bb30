"""Asymptotic regret constants of Bernoulli bandits, with and without epsilon-global DP.

Every quantity here is the constant ``C`` in a statement of the form
``Reg_T ~ C log T`` (a ``liminf`` lower bound or a ``limsup``-type upper bound).  For a bandit with
arm means ``mu = (mu_1, ..., mu_K)``, best mean ``mu* = max_a mu_a`` and gaps
``Delta_a = mu* - mu_a``, the sums below run over the *sub-optimal* arms ``{a : Delta_a > 0}``
only (optimal arms, including ties for the best mean, contribute 0):

=========================================  ==================================================
:func:`lower_bound_constant`               ``sum_a Delta_a / d_eps(mu_a, mu*)``
                                           (:prf:ref:`thm-lower-bound`)
:func:`azize_basu_2022_constant`           ``sum_a Delta_a / min{kl(mu_a, mu*), 6 eps Delta_a}``
                                           (:eq:`eq-lb-2022`, Theorem 3 of Azize & Basu 2022)
:func:`lai_robbins_constant`               ``sum_a Delta_a / kl(mu_a, mu*)`` (no privacy)
:func:`upper_bound_constant`               ``alpha * sum_a Delta_a / d_eps(mu_a, mu*)``
                                           (:prf:ref:`thm-upper-bound`, DP-IMED and DP-KLUCB)
:func:`per_arm_constants`                  the summands (or their un-weighted ``1/denominator``)
:func:`regime_thresholds`                  ``eps*(mu_a, mu*)``: ``d_eps = kl`` iff ``eps >= eps*``
=========================================  ==================================================

Shapes.  ``mu`` is a 1-D array of ``K >= 2`` means in ``[0, 1]``; a stack of instances of shape
``(..., K)`` (arms on the last axis) is also accepted.  ``eps`` lies in ``(0, +inf]`` and may be a
scalar or an array; the result has the broadcast shape of ``eps`` and ``mu.shape[:-1]`` -- for a
1-D ``mu`` simply ``eps``'s shape.  ``eps = inf`` means no privacy: ``d_inf = kl``.

Edge cases (all finite or ``+inf``, never NaN):

* ``mu* = 1``: ``kl(mu_a, 1) = inf`` for ``mu_a < 1``, so the Lai-Robbins term of such an arm is 0
  (the arm is told apart from a deterministic reward-1 arm by one observation of a 0), while
  ``d_eps(mu_a, 1) = eps (1 - mu_a) = eps Delta_a`` is finite for finite ``eps``: under privacy the
  arm costs ``1 / (eps Delta_a)`` pulls and ``1 / eps`` regret per ``log T``.
* ``mu_a = 0``: ``kl(0, mu*) = -log(1 - mu*)`` is finite when ``mu* < 1``; the regime threshold is
  ``+inf`` (privacy is never free for that arm).
* all arms equal: every constant is 0.
* tiny ``eps`` whose product with a gap underflows: the denominator is 0 and the term is ``+inf``.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._validate import (as_choice, as_flag, as_float_array, as_positive, as_probability, broadcast,
                        check_elements, plain)
from .divergences import d_eps, kl, regime_threshold

__all__ = [
    "lower_bound_constant",
    "azize_basu_2022_constant",
    "lai_robbins_constant",
    "upper_bound_constant",
    "per_arm_constants",
    "regime_thresholds",
    "suboptimal_arms",
    "gaps",
]

_BOUNDS = ("lower", "azize_basu_2022", "lai_robbins", "upper")


# --------------------------------------------------------------------------------------------
# validation helpers
# --------------------------------------------------------------------------------------------
def _as_means(mu) -> np.ndarray:
    """Validate arm means: entries in [0, 1], arms on the last axis, at least 2 arms."""
    arr = as_probability("mu", mu)
    # a constant holds a few dozen temporaries of the size of mu: 64 x its size stays within the
    # element limit of one call (about 4 million arm means)
    check_elements("mu (64 working arrays of its size)", 64 * arr.size)
    if arr.ndim == 0 or arr.shape[-1] < 2:
        raise ValueError(
            f"mu must have at least 2 arms (a 1-D array of K >= 2 means in [0, 1]), got shape {arr.shape}"
        )
    return arr


def _as_alpha(alpha) -> np.ndarray:
    """Validate the batch growth factor of :prf:ref:`thm-upper-bound`: entries in (1, +inf)."""
    arr = as_float_array("alpha", alpha)
    bad = ~np.isfinite(arr) | (arr <= 1)
    if np.any(bad):
        offending = arr[bad].ravel()[0] if arr.ndim else float(arr)
        raise ValueError(f"alpha must lie in (1, +inf), got {plain(offending)!r}")
    return arr


def _arms_and_eps(mu, eps):
    """Return ``mu`` and ``eps[..., None]`` broadcast to a common ``(..., K)`` shape, plus mu* and gaps."""
    mu = _as_means(mu)
    eps = as_positive("eps", eps, allow_inf=True)
    check_elements("mu and eps (64 working arrays of their broadcast size)",
                   64 * int(np.prod(np.broadcast_shapes(mu.shape, eps[..., np.newaxis].shape))))
    mu_b, eps_b = broadcast(mu=mu, eps=eps[..., np.newaxis])
    mu_star = np.max(mu_b, axis=-1, keepdims=True)
    return mu_b, eps_b, np.broadcast_to(mu_star, mu_b.shape), mu_star - mu_b


def _finish(arr: ArrayLike) -> float | np.ndarray:
    """A Python float for a 0-d result (as :mod:`dpb.divergences` does), else an ndarray."""
    arr = np.asarray(arr, dtype=float)
    return float(arr) if arr.ndim == 0 else arr


def _ratio(gap: np.ndarray, denom: ArrayLike) -> np.ndarray:
    """``gap / denom`` on sub-optimal arms (``gap > 0``), 0 on optimal arms.

    ``denom`` may be ``+inf`` (term 0) or 0 through underflow (term ``+inf``); neither produces NaN.
    """
    sub = gap > 0
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        out = np.where(sub, gap / np.where(sub, denom, 1.0), 0.0)
    return out


# --------------------------------------------------------------------------------------------
# public API
# --------------------------------------------------------------------------------------------
def gaps(mu: ArrayLike) -> np.ndarray:
    """Sub-optimality gaps ``Delta_a = mu* - mu_a`` (``mu* = max_a mu_a``), same shape as ``mu``.

    Parameters
    ----------
    mu : array_like, shape (..., K)
        Arm means in [0, 1], ``K >= 2``.
    """
    mu = _as_means(mu)
    return np.max(mu, axis=-1, keepdims=True) - mu


def suboptimal_arms(mu: ArrayLike) -> np.ndarray:
    """Boolean mask of the sub-optimal arms ``{a : Delta_a > 0}`` -- the arms the bounds sum over.

    Ties for the best mean are all optimal (mask ``False``).
    """
    return gaps(mu) > 0


def per_arm_constants(
    mu: ArrayLike, eps: ArrayLike = np.inf, *, bound: str = "lower", alpha: ArrayLike | None = None,
    weighted: bool = True
) -> np.ndarray:
    """Per-arm terms of the regret constants.

    With ``weighted=True`` (default) the term of arm ``a`` is its contribution to the regret constant,

    * ``bound="lower"``: ``Delta_a / d_eps(mu_a, mu*)`` (:prf:ref:`thm-lower-bound`);
    * ``bound="upper"``: ``alpha Delta_a / d_eps(mu_a, mu*)`` (:prf:ref:`thm-upper-bound`);
    * ``bound="azize_basu_2022"``: ``Delta_a / min{kl(mu_a, mu*), 6 eps Delta_a}`` (:eq:`eq-lb-2022`);
    * ``bound="lai_robbins"``: ``Delta_a / kl(mu_a, mu*)`` (``eps`` ignored).

    With ``weighted=False`` the gap ``Delta_a`` is dropped: the term is ``1 / d_eps(mu_a, mu*)``
    (resp. ``alpha / d_eps``, ...), the constant in front of ``log T`` for the expected number of
    pulls ``E[N_a(T)]`` of a sub-optimal arm (the proof of :prf:ref:`thm-lower-bound` bounds
    ``liminf E[N_2(T)] / log T`` before multiplying by the gap).

    Optimal arms (``Delta_a = 0``, ties included) get 0 in both modes: they are outside the
    theorems (their pull count grows linearly in ``T``); use :func:`suboptimal_arms` to mask them.

    Parameters
    ----------
    mu : array_like, shape (..., K)
        Arm means in [0, 1], ``K >= 2``.
    eps : float or array_like, optional
        Privacy budget(s) in ``(0, +inf]``; default ``+inf`` (no privacy).
    bound : {"lower", "upper", "azize_basu_2022", "lai_robbins"}
        Which constant.
    alpha : float or array_like, optional
        Batch growth factor ``alpha > 1``; required for (and only allowed with) ``bound="upper"``.
    weighted : bool
        Multiply by ``Delta_a`` (regret terms) or not (pull-count terms).

    Returns
    -------
    numpy.ndarray, shape ``broadcast(eps.shape, mu.shape[:-1]) + (K,)``
        Non-negative terms, ``+inf`` only if a denominator underflows to 0.
    """
    weighted = as_flag("weighted", weighted)
    as_choice("bound", bound, _BOUNDS)
    if (alpha is None) != (bound != "upper"):
        raise ValueError('alpha (> 1) must be given exactly when bound="upper"')

    mu_b, eps_b, star_b, gap = _arms_and_eps(mu, eps)
    sub = gap > 0
    # Optimal arms get a harmless stand-in pair (divergence 0) so that no special case reaches
    # the divergences; their term is set to 0 by _ratio anyway.
    x = np.where(sub, mu_b, 0.25)
    y = np.where(sub, star_b, 0.25)
    if bound in ("lower", "upper"):
        denom = d_eps(x, y, eps_b)
    else:
        denom = kl(x, y)
        if bound == "azize_basu_2022":
            with np.errstate(invalid="ignore"):  # inf * 0 on optimal arms, masked below
                denom = np.minimum(denom, np.where(sub, 6.0 * eps_b * gap, np.inf))
    numer = gap if weighted else sub.astype(float)
    terms = _ratio(numer, denom)
    if bound == "upper":
        a = _as_alpha(alpha)
        terms, a = broadcast(terms=terms, alpha=a[..., np.newaxis])
        terms = terms * a
    return terms


def lower_bound_constant(mu: ArrayLike, eps: ArrayLike) -> float | np.ndarray:
    """The new lower-bound constant ``sum_{a: Delta_a > 0} Delta_a / d_eps(mu_a, mu*)``.

    :prf:ref:`thm-lower-bound`: every eps-global DP
    consistent policy has ``liminf_T Reg_T / log T >= lower_bound_constant(mu, eps)``.  Here
    ``d_eps(x, y) = inf_{z between x and y} eps |z - x| + kl(z, y)`` (:prf:ref:`def-d-eps`); it equals
    ``kl(mu_a, mu*)`` in the low-privacy regime ``eps >= eps*(mu_a, mu*)`` (see
    :func:`regime_thresholds`) and ``d_eps ~ eps Delta_a`` as ``eps -> 0``, so
    ``eps * lower_bound_constant -> #{sub-optimal arms}``.

    Parameters
    ----------
    mu : array_like, shape (K,) or (..., K)
        Arm means in [0, 1], ``K >= 2``.
    eps : float or array_like
        Privacy budget(s) in ``(0, +inf]`` (``inf``: Lai-Robbins).

    Returns
    -------
    float or numpy.ndarray
        Shape ``broadcast(eps.shape, mu.shape[:-1])``; a Python float when that shape is ``()``
        (scalar ``eps`` and 1-D ``mu``), like :mod:`dpb.divergences`.
    """
    return _finish(np.sum(per_arm_constants(mu, eps, bound="lower"), axis=-1))


def azize_basu_2022_constant(mu: ArrayLike, eps: ArrayLike) -> float | np.ndarray:
    """Earlier lower-bound constant ``sum_{a: Delta_a > 0} Delta_a / min{kl(mu_a, mu*), 6 eps Delta_a}``.

    :eq:`eq-lb-2022` (Theorem 3 of Azize & Basu 2022 adapted to Bernoulli bandits).  Since
    ``d_eps(mu_a, mu*) <= min{kl(mu_a, mu*), eps Delta_a}`` (take ``z = mu_a`` or ``z = mu*`` in
    :prf:ref:`def-d-eps`), this is never larger than :func:`lower_bound_constant`.  Same parameters and
    shapes as :func:`lower_bound_constant`.
    """
    return _finish(np.sum(per_arm_constants(mu, eps, bound="azize_basu_2022"), axis=-1))


def lai_robbins_constant(mu: ArrayLike) -> float | np.ndarray:
    """The non-private Lai-Robbins constant ``sum_{a: Delta_a > 0} Delta_a / kl(mu_a, mu*)``.

    The ``eps = inf`` case of :prf:ref:`thm-lower-bound`.  Arms with ``kl(mu_a, mu*) = inf`` (``mu* = 1``)
    contribute 0.  Same ``mu`` and result shape as :func:`lower_bound_constant` (no ``eps``).
    """
    return _finish(np.sum(per_arm_constants(mu, np.inf, bound="lai_robbins"), axis=-1))


def upper_bound_constant(mu: ArrayLike, eps: ArrayLike, alpha: ArrayLike, *,
                         strict: bool = False) -> float | np.ndarray:
    """Upper-bound constant of DP-IMED / DP-KLUCB: ``alpha sum_{a: Delta_a > 0} Delta_a / d_eps(mu_a, mu*)``.

    :prf:ref:`thm-upper-bound`: with the geometric batches
    of :prf:ref:`def-batch-schedule` of growth factor ``alpha > 1``,
    ``Reg_T <= alpha sum_a Delta_a log T / d_eps(mu_a, mu*) + o(log T)``; it is ``alpha`` times
    :func:`lower_bound_constant`.

    The theorem assumes ``mu* < 1``.  By default (``strict=False``) the formula is still returned
    when ``mu* = 1`` -- it is finite there (``d_eps(mu_a, 1) = eps (1 - mu_a)``) and keeps the
    identity ``upper = alpha * lower`` on every input, so sweeps over grids of means that touch 1
    do not break -- but for such instances the value is *not* a proven bound.  Pass
    ``strict=True`` to raise ``ValueError`` instead when some instance has ``mu* = 1``.

    Parameters
    ----------
    mu : array_like, shape (K,) or (..., K)
        Arm means in [0, 1], ``K >= 2``.
    eps : float or array_like
        Privacy budget(s) in ``(0, +inf]``.
    alpha : float or array_like
        Batch growth factor in ``(1, +inf)``; broadcast with ``eps``.
    strict : bool
        Raise when the theorem's assumption ``mu* < 1`` fails.

    Returns
    -------
    float or numpy.ndarray
        Shape ``broadcast(eps.shape, alpha.shape, mu.shape[:-1])`` (a float when that is ``()``).
    """
    strict = as_flag("strict", strict)
    if strict and np.any(np.max(_as_means(mu), axis=-1) >= 1):
        raise ValueError("mu: the regret upper bound of DP-KLUCB and DP-IMED assumes mu* = max(mu) < 1, "
                         "got an instance with mu* = 1")
    return _finish(np.sum(per_arm_constants(mu, eps, bound="upper", alpha=alpha), axis=-1))


def regime_thresholds(mu: ArrayLike) -> np.ndarray:
    """Privacy-regime threshold ``eps*(mu_a, mu*) = log(mu*/mu_a) + log((1 - mu_a)/(1 - mu*))`` per arm.

    Implication (b) of :prf:ref:`thm-lower-bound`: ``d_eps(mu_a, mu*) = kl(mu_a, mu*)`` exactly
    when ``eps >= eps*`` (low-privacy regime: privacy is free for arm ``a``), and
    ``d_eps < kl`` when ``eps < eps*`` (high-privacy regime, where the minimiser of :prf:ref:`def-d-eps` is
    the interior point ``z* = mu* / (mu* + (1 - mu*) e^eps)``).  Hence the lower bound equals the
    Lai-Robbins constant iff ``eps >= max_a eps*_a``.

    Conventions (no NaN): ``+inf`` when ``mu_a = 0`` or ``mu* = 1`` (the regime is always high
    privacy); optimal arms (``Delta_a = 0``, ties included) get 0, since
    ``d_eps(mu*, mu*) = kl(mu*, mu*) = 0`` for every ``eps``.

    Parameters
    ----------
    mu : array_like, shape (K,) or (..., K)
        Arm means in [0, 1], ``K >= 2``.

    Returns
    -------
    numpy.ndarray
        Same shape as ``mu``, entries in ``[0, +inf]``.
    """
    mu = _as_means(mu)
    star = np.broadcast_to(np.max(mu, axis=-1, keepdims=True), mu.shape)
    sub = mu < star
    # Optimal arms are replaced by an interior stand-in pair so no 0/0 reaches the formula.
    x = np.where(sub, mu, 0.25)
    y = np.where(sub, star, 0.5)
    return np.asarray(np.where(sub, regime_threshold(x, y), 0.0), dtype=float)  # never 0-d: K >= 2
