"""Input validation shared by every ``dpb`` module.

Bad input must fail loudly with a message naming the parameter and the allowed range, never
produce a NaN, a hang or a silent clip.  Every public function of ``dpb`` routes its arguments
through these helpers.
"""

from __future__ import annotations

import numbers

import numpy as np

__all__ = [
    "as_float_array",
    "as_probability",
    "as_positive",
    "as_int",
    "broadcast",
]


def as_float_array(name: str, value) -> np.ndarray:
    """Convert ``value`` to a float ndarray, raising ``TypeError`` for non-numeric input."""
    if isinstance(value, (str, bytes)) or value is None:
        raise TypeError(f"{name} must be a number or an array of numbers, got {type(value).__name__}")
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a number or an array of numbers, got {value!r}") from exc
    return arr


def as_probability(name: str, value, *, open_left: bool = False, open_right: bool = False) -> np.ndarray:
    """Return ``value`` as a float array whose entries lie in [0, 1] (or the open variants).

    Raises
    ------
    ValueError
        If any entry is NaN or outside the interval, naming ``name`` and the interval.
    """
    arr = as_float_array(name, value)
    lo = "(0" if open_left else "[0"
    hi = "1)" if open_right else "1]"
    bad = np.isnan(arr) | (arr <= 0 if open_left else arr < 0) | (arr >= 1 if open_right else arr > 1)
    if np.any(bad):
        offending = arr[bad].ravel()[0] if arr.ndim else float(arr)
        raise ValueError(f"{name} must lie in {lo}, {hi}, got {offending!r}")
    return arr


def as_positive(name: str, value, *, allow_inf: bool = True, allow_zero: bool = False) -> np.ndarray:
    """Return ``value`` as a float array of positive entries (``> 0``; ``+inf`` allowed by default).

    Raises
    ------
    ValueError
        If any entry is NaN, not positive (or negative when ``allow_zero``), or infinite when
        ``allow_inf`` is false.
    """
    arr = as_float_array(name, value)
    bad = np.isnan(arr) | ((arr < 0) if allow_zero else (arr <= 0))
    if not allow_inf:
        bad |= np.isinf(arr)
    if np.any(bad):
        offending = arr[bad].ravel()[0] if arr.ndim else float(arr)
        rng = "[0, " if allow_zero else "(0, "
        rng += "+inf]" if allow_inf else "+inf)"
        raise ValueError(f"{name} must lie in {rng}, got {offending!r}")
    return arr


def as_int(name: str, value, *, minimum: int | None = None, maximum: int | None = None) -> int:
    """Return ``value`` as a Python int, checking type and bounds.

    Accepts Python and numpy integers (and floats with an integral value such as ``1e6``); rejects
    ``bool`` and non-integral numbers with ``TypeError``/``ValueError`` naming ``name``.
    """
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be an integer, got a bool")
    if isinstance(value, numbers.Integral):
        out = int(value)
    elif isinstance(value, numbers.Real):
        if not np.isfinite(value) or float(value) != int(value):
            raise ValueError(f"{name} must be an integer, got {value!r}")
        out = int(value)
    else:
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}")
    if minimum is not None and out < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {out}")
    if maximum is not None and out > maximum:
        raise ValueError(f"{name} must be <= {maximum}, got {out}")
    return out


def broadcast(**arrays: np.ndarray) -> list[np.ndarray]:
    """Broadcast named arrays together; a shape mismatch raises ``ValueError`` naming them."""
    try:
        return list(np.broadcast_arrays(*arrays.values()))
    except ValueError as exc:
        shapes = ", ".join(f"{k}{np.shape(v)}" for k, v in arrays.items())
        raise ValueError(f"shape mismatch: cannot broadcast {shapes}") from exc
