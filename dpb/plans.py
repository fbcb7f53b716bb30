"""The plans a policy makes, checked where they are made.

A policy decides in phases: for each run it returns a *plan*, the pulls of every arm in its next
phase (the generic engine of :mod:`dpb.simulate`), an arm and a number of pulls (the batched fast
path of :class:`~dpb.policies.BatchedPrivatePolicy`), or single pulls of an arm (a per-step
reference of :mod:`dpb.reference`).  A plan is valid when

* every arm is an integer ``a`` with ``0 <= a < K``;
* every number of pulls is an integer ``0 <= B <= 2**62`` (``dpb._validate.MAX_HORIZON``,
  the largest count the engines hold), and a phase makes at least one pull (a phase of zero
  pulls would never advance the clock, a negative one would turn it back).

The engines cut a phase that runs past the horizon ``T`` at ``T``, so the pulls made always stay
within the horizon (the package's own policies plan such phases: DP-SE's last epoch or a
geometric batch of ratio 10 can be several times ``T``).  A bad plan raises :class:`PlanError`, a
``ValueError`` whose one line names the policy, the value and the rule broken: a user's policy
with a wrong plan fails at once instead of looping forever on phases of zero or negative length.
"""

from __future__ import annotations

from typing import Any

import numbers

import numpy as np

from ._validate import MAX_HORIZON

__all__ = ["PlanError", "check_plan", "check_arms", "check_pulls", "check_index"]


class PlanError(ValueError):
    """A policy returned a plan that breaks a rule of :mod:`dpb.plans` (the message names the
    policy, the value and the rule)."""


def _who(policy) -> str:
    name = getattr(policy, "name", None)
    if not isinstance(name, str):
        name = type(policy).__name__ if not isinstance(policy, str) else policy
    return f"policy {name!r}"


def _short(value) -> str:
    text = repr(value.item() if isinstance(value, np.generic) else value)
    return text if len(text) <= 60 else text[:57] + "..."


def _first_bad(values: np.ndarray, bad: np.ndarray):
    return values[np.unravel_index(int(np.argmax(bad)), bad.shape)] if values.ndim else values


def _integers(policy, what: str, raw, low: int, high: int, rule: str) -> np.ndarray:
    """``raw`` as an int64 array when every entry is an integer in ``[low, high]``; else
    :class:`PlanError` naming ``policy``, ``what``, the first bad value and ``rule``."""
    values = np.asarray(raw)
    if values.dtype == object or values.dtype.kind not in "iuf":
        raise PlanError(f"{_who(policy)} planned {what} {_short(raw)} of type {values.dtype}: {rule}")
    if values.dtype.kind == "f":
        bad = ~np.isfinite(values)
        bad[~bad] = values[~bad] != np.floor(values[~bad])
        if bad.any():
            raise PlanError(f"{_who(policy)} planned {what} {_short(_first_bad(values, bad))}: {rule}")
    bad = (values < low) | (values > high)
    if bad.any():
        raise PlanError(f"{_who(policy)} planned {what} {_short(_first_bad(values, bad))}: {rule}")
    return values.astype(np.int64, copy=False)


def check_plan(policy: Any, plan: Any, n: int, K: int, T: int) -> np.ndarray:
    """The plan of the generic engine, checked: ``n`` rows (one per run deciding), ``K`` columns
    (the pulls of each arm), integers in ``[0, 2**62]``, at least one pull per row (``T``, the
    horizon, is not a bound: the engine cuts the phase there).  Returns it as
    int64; raises :class:`PlanError` otherwise."""
    shape = np.shape(plan)
    if shape != (n, K):
        raise PlanError(f"{_who(policy)} planned an array of shape {shape}: a plan has one row per "
                        f"deciding run and one column per arm, shape ({n}, {K})")
    counts = _integers(policy, "pulls", plan, 0, MAX_HORIZON,
                       "pulls must be integers from 0 to 2**62 (a phase is cut at the horizon)")
    empty = counts.sum(axis=1) == 0
    if empty.any():
        row = np.asarray(plan)[int(np.argmax(empty))]
        raise PlanError(f"{_who(policy)} planned the pulls {_short(row.tolist())} for a phase: a phase "
                        f"must make at least one pull")
    return counts


def check_arms(policy: Any, arms: Any, K: int) -> np.ndarray:
    """Arms of a plan, checked: integers ``0 <= a < K`` (int64 array)."""
    return _integers(policy, "arm", arms, 0, K - 1, f"an arm must be an integer from 0 to K-1={K - 1}")


def check_pulls(policy: Any, pulls: Any, T: int | None = None) -> np.ndarray:
    """Pulls of one-arm phases, checked: integers ``1 <= B <= T`` (int64 array); ``T=None``:
    at most 2**62 (a phase planned past the horizon, which the engine cuts)."""
    high = MAX_HORIZON if T is None else T
    limit = "2**62 (a phase is cut at the horizon)" if T is None else f"the horizon T={T}"
    return _integers(policy, "pulls", pulls, 1, high,
                     f"the pulls of a phase must be an integer from 1 to {limit}")


def check_index(policy: Any, index: Any, n: int, K: int) -> np.ndarray:
    """The index a policy computes for its ``n`` deciding runs and ``K`` arms: shape ``(n, K)``,
    finite real numbers (a NaN or an infinite index is refused alike: either makes the arm's choice
    meaningless, an infinite one silently).  Returns it as float64."""
    values = np.asarray(index)
    if values.shape != (n, K) or values.dtype == object or values.dtype.kind not in "iuf" or (
            values.dtype.kind == "f" and not np.isfinite(values).all()):
        what = (f"an index of shape {values.shape}" if values.shape != (n, K)
                else f"an index of type {values.dtype}" if values.dtype.kind not in "iuf"
                else "a NaN index" if np.isnan(values).any() else
                f"an infinite index ({_short(_first_bad(values, ~np.isfinite(values)))})")
        raise PlanError(f"{_who(policy)} computed {what}: the index must be finite real numbers (no NaN, "
                        f"no inf), one per arm of each deciding run, shape ({n}, {K})")
    return values.astype(float, copy=False)


def _is_integer(value) -> bool:
    """Whether ``value`` is an integer (a Python or numpy integer, not a bool)."""
    return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))
