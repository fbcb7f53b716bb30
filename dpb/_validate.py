"""Input validation shared by every ``dpb`` module.

Bad input must fail loudly with a message naming the parameter and the allowed range, never
produce a NaN, a hang or a silent clip.  Every public function of ``dpb`` routes its arguments
through these helpers.
"""

from __future__ import annotations

from typing import Any

import math
import numbers
from fractions import Fraction
from numbers import Rational

import numpy as np

__all__ = [
    "MAX_ELEMENTS",
    "MAX_HORIZON",
    "MAX_RUNS",
    "MAX_SIZE",
    "MAX_SECONDS",
    "as_float_array",
    "as_finite",
    "as_probability",
    "as_positive",
    "as_real",
    "as_exact",
    "as_int",
    "as_counts",
    "as_choice",
    "as_rng",
    "as_seed_sequence",
    "check_eps",
    "check_real",
    "check_elements",
    "check_seconds",
    "broadcast",
    "as_instance",
    "as_path",
    "as_directory",
    "as_file",
    "as_names",
    "as_text",
    "as_flag",
    "plain",
]

#: Largest number of array elements a ``dpb`` function allocates for one call (2**28 float64
#: values are 2 GiB); bigger requests are refused with a ``ValueError`` before allocating.
MAX_ELEMENTS = 2**28

#: Largest horizon T (and pull count) anywhere in ``dpb``: batch schedules and pull counters are
#: int64 with room to spare.
MAX_HORIZON = 2**62

#: Largest number of independent runs of one call (each run owns its random generators).
MAX_RUNS = 10**6

#: Largest count (horizon, number of runs, phases, ...) accepted where a count is meant: sizes
#: must stay exactly representable as int64 and as float64 (2**53) for the numpy code paths.
MAX_SIZE = 2**53


#: Default limit of one call's estimated cost, in CPU-seconds: a simulation estimated above it is
#: refused before any work (the ``max_seconds`` keyword of the simulators; None lifts it).
MAX_SECONDS = 120.0


def check_seconds(what: str, seconds: float, max_seconds, detail: str = "",
                  advice: str = "pass max_seconds=None (or a larger limit) to run it anyway") -> None:
    """Refuse a call estimated at ``seconds`` CPU-seconds above ``max_seconds`` (None: no limit)
    with a ``ValueError``: "``what`` is estimated at ... ``detail``, more than max_seconds=...;
    ``advice``"."""
    if max_seconds is None:
        return
    limit = as_real("max_seconds", max_seconds, low=0.0, low_open=True)
    if seconds > limit:
        raise ValueError(f"{what} is estimated at {seconds:.3g} CPU-seconds{' ' + detail if detail else ''}, "
                         f"more than max_seconds={limit:g}; {advice}")


def as_float_array(name: str, value) -> np.ndarray:
    """Convert ``value`` to a float ndarray, raising ``TypeError`` for non-numeric input."""
    if isinstance(value, (str, bytes, bool, np.bool_)) or value is None:
        raise TypeError(f"{name} must be a number or an array of numbers, got {type(value).__name__}")
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError, OverflowError) as exc:
        raise TypeError(f"{name} must be a number or an array of numbers, got {_short(value)}") from exc
    if isinstance(value, np.ndarray) and value.dtype.kind == "b":
        raise TypeError(f"{name} must be a number or an array of numbers, got an array of bools")
    if _holds_text(value):  # numpy would read "0.9" as 0.9: a number typed as text is refused
        raise TypeError(f"{name} must be a number or an array of numbers, not text: got {_short(value)} "
                        f"(write 0.9, not \"0.9\")")
    return arr


def _holds_text(value) -> bool:
    """Whether ``value`` (a sequence or array that numpy converted to floats) holds strings."""
    if isinstance(value, np.ndarray):
        return value.dtype.kind in "USO" and (value.dtype.kind != "O" or any(
            isinstance(v, (str, bytes)) for v in value.ravel()))
    if isinstance(value, (list, tuple)):
        return any(isinstance(v, (str, bytes)) or _holds_text(v) for v in value)
    return False


def plain(value):
    """``value`` with numpy scalars turned into Python numbers, for messages: ``1.2``, not
    ``np.float64(1.2)`` (numpy >= 2 prints its scalars' type)."""
    if isinstance(value, np.generic):
        return value.item()
    return value


def _short(value) -> str:
    s = repr(plain(value))
    return s if len(s) <= 80 else s[:77] + "..."


def _refuse(name: str, arr: np.ndarray, bad: np.ndarray, what: str) -> np.ndarray:
    """``arr``, unless an entry is ``bad``: then ``ValueError`` "``name`` must ``what``, got" the
    first such entry."""
    if np.any(bad):
        offending = arr[bad].ravel()[0] if arr.ndim else float(arr)
        raise ValueError(f"{name} must {what}, got {plain(offending)!r}")
    return arr


def as_finite(name: str, value) -> np.ndarray:
    """Return ``value`` as a float array of finite entries (``ValueError`` naming ``name`` otherwise)."""
    arr = as_float_array(name, value)
    return _refuse(name, arr, ~np.isfinite(arr), "be finite (a real number in (-inf, +inf))")


def as_real(name: str, value, *, low: float = -np.inf, high: float = np.inf, low_open: bool = False,
            high_open: bool = False, finite: bool = False) -> float:
    """Return ``value`` as a Python float in the interval from ``low`` to ``high``.

    ``TypeError`` for non-numbers (strings, bools, None, arrays of more than one value),
    ``ValueError`` naming ``name`` and the interval for NaN or a value outside it.  Infinite
    values are accepted only when the interval's end is infinite and closed, and ``finite`` is
    false.
    """
    if isinstance(value, (str, bytes, bool, np.bool_)) or value is None or not (
            isinstance(value, numbers.Real) or (isinstance(value, np.ndarray) and value.size == 1
                                                and value.dtype.kind in "iuf")):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__} {_short(value)}")
    v = float(np.asarray(value).ravel()[0]) if isinstance(value, np.ndarray) else float(value)
    lo = ("(" if low_open or (finite and low == -np.inf) else "[") + f"{low:g}"
    hi = f"{high:g}" + (")" if high_open or (finite and high == np.inf) else "]")
    below = v <= low if low_open else v < low
    above = v >= high if high_open else v > high
    if np.isnan(v) or below or above or (finite and np.isinf(v)):
        kind = "a finite real number in" if finite else "lie in"
        raise ValueError(f"{name} must {'be ' if finite else ''}{kind} {lo}, {hi}, got {v!r}")
    return v


def check_real(name: str, value: Any, *, low: float, strict: bool = True, high: float = np.inf) -> float:
    """A finite real scalar in (low, high] (or [low, high] when ``strict`` is false): the
    policies' parameters (``as_real`` of ``dpb._validate`` with ``finite=True``)."""
    return as_real(name, value, low=low, low_open=as_flag("strict", strict), high=high, finite=True)


def check_eps(eps: Any, floor: float = 1e-300, name: str = "eps") -> float:
    """A privacy budget: a finite real scalar > 0 and at least ``floor`` (below 1e-300 the noise
    scale 1/eps overflows; a Monte Carlo estimate squaring its draws asks ``floor = 1e-150``)."""
    val = as_real(name, eps, low=0.0, low_open=True, finite=True)
    if val < floor:
        raise ValueError(f"{name} must be >= {floor:g} (the noise scale 1/{name} overflows below), "
                         f"got {val!r}")
    return val


def as_exact(name: str, value) -> Fraction:
    """The exact rational value of a finite real parameter (a float is read as the decimal it
    prints as: ``1.1`` is 11/10), for schedules computed in exact arithmetic."""
    if isinstance(value, (bool, np.bool_, str, bytes)) or value is None:
        raise TypeError(f"{name} must be a real number, got {type(value).__name__} {_short(value)}")
    if isinstance(value, Rational):
        return Fraction(int(value.numerator), int(value.denominator))
    if isinstance(value, np.integer):
        return Fraction(int(value))
    try:
        f = float(value)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a real number, got {_short(value)}") from exc
    if not math.isfinite(f):
        raise ValueError(f"{name} must be finite, got {plain(value)!r}")
    return Fraction(repr(f))


def as_choice(name: str, value, choices):
    """Return ``value`` if it is one of ``choices`` (``ValueError`` listing them otherwise)."""
    try:
        ok = isinstance(value, str) and value in choices
    except TypeError:
        ok = False
    if not ok:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}; got {_short(value)}")
    return value


def as_rng(name: str, rng) -> np.random.Generator:
    """A numpy Generator from ``None`` (fresh entropy), a seed (int >= 0), a SeedSequence or a
    Generator (passed through); a seed ``s`` gives ``default_rng(SeedSequence(s))``."""
    if isinstance(rng, np.random.Generator):
        return rng
    return np.random.default_rng(as_seed_sequence(name, rng))


def as_seed_sequence(name: str, seed) -> np.random.SeedSequence:
    """A ``SeedSequence`` from ``None`` (fresh entropy), an int >= 0, a SeedSequence (passed
    through) or a numpy ``Generator``; ``TypeError`` for other types, ``ValueError`` for a negative
    seed.

    A ``Generator`` is turned into ``SeedSequence(g.integers(2**63))``: one draw, which advances
    it, so the same generator state always gives the same seed, and two calls with one generator
    give two independent seeds (the integer is what a result records as its seed)."""
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if seed is None:
        return np.random.SeedSequence()
    if isinstance(seed, np.random.Generator):
        return np.random.SeedSequence(int(seed.integers(0, 2**63, dtype=np.int64)))
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"{name} must be None, a non-negative int seed, a SeedSequence or a numpy "
                        f"Generator, got {type(seed).__name__} {_short(seed)}")
    if seed < 0:
        raise ValueError(f"{name} must be a non-negative integer seed, got {seed}")
    return np.random.SeedSequence(int(seed))


def check_elements(name: str, n: int, limit: int = MAX_ELEMENTS) -> int:
    """Refuse an allocation of ``n`` elements above ``limit`` (``ValueError`` naming ``name``)."""
    if n > limit:
        raise ValueError(f"{name} asks for {n} array elements, more than the limit {limit} "
                         f"(about {limit * 8 / 2**30:.0f} GiB of float64)")
    return n


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
    return _refuse(name, arr, bad, f"lie in {lo}, {hi}")


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
    rng = ("[0, " if allow_zero else "(0, ") + ("+inf]" if allow_inf else "+inf)")
    return _refuse(name, arr, bad, f"lie in {rng}")


def as_int(name: str, value, *, minimum: int | None = None, maximum: int | None = None) -> int:
    """Return ``value`` as a Python int, checking type and bounds.

    Accepts Python and numpy integers (and floats with an integral value such as ``1e6``); rejects
    ``bool`` and non-integral numbers with ``TypeError``/``ValueError`` naming ``name``.
    """
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be an integer, got a bool")
    if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "iuf":
        value = value[()]
    if isinstance(value, numbers.Integral):
        out = int(value)
    elif isinstance(value, numbers.Real):
        if not np.isfinite(float(value)) or float(value) != int(value):  # type: ignore[call-overload]
            raise ValueError(f"{name} must be an integer, got {plain(value)!r}")
        out = int(value)  # type: ignore[call-overload]
    else:
        raise TypeError(f"{name} must be an integer, got {type(value).__name__} {_short(value)}")
    if minimum is not None and out < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {out}")
    if maximum is not None and out > maximum:
        raise ValueError(f"{name} must be <= {maximum}, got {out}")
    return out


def as_counts(name: str, value, minimum: int) -> np.ndarray:
    """``value`` as an int64 array of pull counts in ``[minimum, 2**62)`` (not empty)."""
    arr = as_float_array(name, value)
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty")
    flat = arr.ravel()
    bad = ~np.isfinite(flat) | (flat != np.round(flat))
    if np.any(bad):
        raise ValueError(f"{name} must hold integers, got {flat[bad][0]!r}")
    if np.any(arr < minimum):
        raise ValueError(f"{name} must be >= {minimum}, got {arr[arr < minimum].ravel()[0]:g}")
    if np.any(arr >= MAX_HORIZON):  # no schedule goes past 2**62 pulls (and int64 holds the counts)
        raise ValueError(f"{name} must be below 2**62 pulls, got {arr[arr >= MAX_HORIZON].ravel()[0]:g}")
    return arr.astype(np.int64)


def broadcast(**arrays: np.ndarray) -> list[np.ndarray]:
    """Broadcast named arrays together; a shape mismatch raises ``ValueError`` naming them."""
    try:
        return list(np.broadcast_arrays(*arrays.values()))
    except ValueError as exc:
        shapes = ", ".join(f"{k}{np.shape(v)}" for k, v in arrays.items())
        raise ValueError(f"shape mismatch: cannot broadcast {shapes}") from exc


def as_instance(name: str, value, cls, what: str | None = None):
    """Return ``value`` if it is an instance of ``cls`` (``TypeError`` naming ``name`` otherwise)."""
    if not isinstance(value, cls):
        kind = what or (cls.__name__ if isinstance(cls, type) else " or ".join(c.__name__ for c in cls))
        raise TypeError(f"{name} must be a {kind}, got {type(value).__name__} {_short(value)}")
    return value


def as_path(name: str, value):
    """Return ``value`` as a ``pathlib.Path`` (``TypeError`` naming ``name`` for anything but a
    ``str`` or ``os.PathLike``)."""
    import os
    from pathlib import Path

    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (str, os.PathLike)):
        raise TypeError(f"{name} must be a path (str or os.PathLike), got {type(value).__name__} "
                        f"{_short(value)}")
    return Path(value)


def as_directory(name: str, value):
    """Return ``value`` as a ``pathlib.Path`` of a directory that exists or can be created.

    ``TypeError`` for anything but a ``str``/``os.PathLike``; ``ValueError`` naming ``name`` when the
    path, or one of its parents, is an existing file (nothing is created here).
    """
    path = as_path(name, value)
    for p in (path, *path.parents):
        if p.exists():
            if not p.is_dir():
                what = "is a file" if p == path else f"lies under the file {str(p)!r}"
                raise ValueError(f"{name} must be a directory, but {str(path)!r} {what}")
            break
    return path


def as_file(name: str, value):
    """Return ``value`` as a ``pathlib.Path`` of an existing regular file (``ValueError`` naming
    ``name`` otherwise, ``TypeError`` for anything but a ``str``/``os.PathLike``)."""
    path = as_path(name, value)
    if not path.is_file():
        why = "is a directory" if path.is_dir() else "does not exist"
        raise ValueError(f"{name} must be an existing file, but {str(path)!r} {why}")
    return path


def as_names(name: str, value, choices=None) -> tuple:
    """Return ``value`` (a sequence of strings, not a string) as a tuple, each entry one of
    ``choices`` when given (``TypeError``/``ValueError`` naming ``name`` otherwise)."""
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
        raise TypeError(f"{name} must be a list or tuple of names, got {type(value).__name__} "
                        f"{_short(value)}")
    if not all(isinstance(v, str) for v in value):
        raise TypeError(f"{name} must hold strings, got {_short(value)}")
    if choices is not None:
        unknown = [v for v in value if v not in choices]
        if unknown:
            raise ValueError(f"{name} has unknown entries {unknown!r}; valid: {', '.join(map(str, choices))}")
    return tuple(value)


def as_text(name: str, value, *, optional: bool = True):
    """Return ``value`` if it is a ``str`` (or ``None`` when ``optional``); ``TypeError`` naming
    ``name`` otherwise."""
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string{' or None' if optional else ''}, got "
                        f"{type(value).__name__} {_short(value)}")
    return value


def as_flag(name: str, value) -> bool:
    """Return ``value`` as a bool when it is one (``True``/``False`` or a numpy bool); anything else
    (``"no"``, ``2``, NaN, None) is a ``TypeError`` naming ``name``, never read by its truthiness."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise TypeError(f"{name} must be True or False, got {type(value).__name__} {_short(value)}")
