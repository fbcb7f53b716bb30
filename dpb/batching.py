"""Batch schedules: how many pulls each phase of a batched private bandit algorithm makes.

The paper's algorithms (Algorithm 'DP-KLUCB and DP-IMED') pull an arm in arm-dependent phases
m = 0, 1, 2, ... of sizes B_m.  Writing n_m = B_0 + ... + B_m for the cumulative number of pulls
after phase m (with n_{-1} = 0), the paper's geometric schedule, :prf:ref:`def-batch-schedule`, is

    n_m = ceil( n0 (alpha^{m+1} - 1) / (alpha - 1) ),      B_m = n_m - n_{m-1},

so B_0 = n0 and B_m = n0 alpha^m exactly when alpha is an integer.  Any schedule whose number of
batches up to T is sublinear in T keeps the regret analysis intact (the paper's comment after
:prf:ref:`thm-upper-bound`); a polynomial schedule B_m = ceil(n0 (m+1)^p) is provided for
that reason: it removes the factor alpha of the upper bound asymptotically.

Exactness
---------
``ceil`` of a floating-point value is fragile: for alpha = 2 the float expression
``n0*(2**(m+1)-1)/(2-1)`` is an integer and any rounding error of one ulp upwards would add one
pull.  Every schedule here computes its cumulative counts n_m in floating point *with a bound
on the rounding error*, and recomputes the few values whose distance to an integer is below that
bound in exact rational arithmetic (``fractions.Fraction``).  A float ``alpha`` is read as the
decimal it prints as (``1.1`` means exactly 11/10, via ``Fraction(repr(alpha))``); an integer
or a ``Fraction`` is used as given.

Limits
------
Every schedule stops at 2**62 pulls and tabulates at most 10**7 batches; asking for more (a
``count`` or a ``total`` past those) raises a ``ValueError`` naming the argument.  The geometric
ratio must be at least 1.001 and the polynomial power must lie in [0.001, 62]: closer to the
degenerate values the batches stay nearly constant (about as many phases as pulls) and their
exact ceilings cost minutes, so such parameters are refused with that reason.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from decimal import ROUND_CEILING, Decimal, localcontext
from fractions import Fraction

import numpy as np

from ._validate import as_counts, as_exact, as_int, plain

__all__ = [
    "BatchSchedule",
    "GeometricSchedule",
    "DoublingSchedule",
    "PolynomialSchedule",
    "batch_sizes",
    "cumulative_sizes",
    "make_schedule",
    "phases_to_reach",
]

#: Largest number of batches a schedule tabulates (80 MB of int64); asking for more (a huge
#: ``count``, or a ``total`` that needs more batches) is refused with a ``ValueError``.
MAX_BATCHES = 10**7

#: Every schedule stops at 2**62 pulls (int64 arithmetic with room to spare).
MAX_PULLS = 2**62

#: Smallest ratio of the geometric schedule: closer to 1 the batches stay near n0 for about
#: 1/(alpha - 1) phases and their exact ceilings cost minutes (refused, with this reason).
MIN_ALPHA = Fraction(1001, 1000)

#: Range of the polynomial power: below, batches of nearly constant size (as many phases as pulls);
#: above, B_1 = n0 2^power is past 2**62 pulls.
POWER_RANGE = (Fraction(1, 1000), Fraction(62))

# Relative error bound (in units of the value) under which a float ceil is trusted, before the
# schedule-specific terms: see ``_ceil_robust``.
_REL_TOL = 1e-13
_ULP = np.finfo(float).eps


def _exact_ceil(x: Fraction) -> int:
    return -((-x.numerator) // x.denominator)


class BatchSchedule(ABC):
    """A sequence of batch sizes B_0, B_1, ... (positive integers) with B_0 = n0.

    Subclasses define the cumulative counts n_m; this base class derives the sizes, caches a
    table long enough for a horizon, and offers vectorised look-ups used by the policies.
    """

    def __init__(self) -> None:
        self._cum = np.zeros(0, dtype=np.int64)  # cached n_0, n_1, ... (strictly increasing)

    # -- to implement -------------------------------------------------------------------------
    @abstractmethod
    def _cumulative_block(self, m: np.ndarray) -> np.ndarray:
        """Exact n_m for the integer array ``m`` (int64)."""

    @abstractmethod
    def params(self) -> dict:
        """The parameters defining the schedule (for records and reprs)."""

    # -- public API -------------------------------------------------------------------------
    @property
    def n0(self) -> int:
        """The first batch size B_0."""
        return int(self.params()["n0"])

    def cumulative(self, count: int) -> np.ndarray:
        """The first ``count`` cumulative counts n_0, ..., n_{count-1} (int64 array).

        ``count`` is at most ``MAX_BATCHES``, and n_{count-1} must stay below 2**62 pulls.
        """
        count = as_int("count", count, minimum=0, maximum=MAX_BATCHES)
        try:
            self._grow_to_count(count)
        except OverflowError as exc:
            raise ValueError(f"count = {count} batches of {self!r} exceed 2**62 pulls "
                             f"(only {self._cum.size} fit); ask for fewer") from exc
        return self._cum[:count].copy()

    def sizes(self, count: int) -> np.ndarray:
        """The first ``count`` batch sizes B_0, ..., B_{count-1}: B_m = n_m - n_{m-1}, n_{-1} = 0."""
        cum = self.cumulative(count)
        return np.diff(cum, prepend=0)

    def sizes_until(self, total: int) -> np.ndarray:
        """Batch sizes B_0, ..., B_M with M the first index such that n_M >= ``total``.

        An arm that has made phases 0..M has been pulled n_M >= total times, so a policy run
        with horizon T never needs a batch beyond this table when ``total = T``.
        """
        total = as_int("total", total, minimum=1, maximum=MAX_PULLS)
        while self._cum.size == 0 or self._cum[-1] < total:
            if self._cum.size >= MAX_BATCHES:
                raise ValueError(f"total = {total} pulls need more than {MAX_BATCHES} batches of "
                                 f"{self!r}; use a smaller total or faster growing batches")
            try:
                self._grow_to_count(min(MAX_BATCHES, max(16, 2 * self._cum.size)), stop_at=total)
            except OverflowError as exc:
                raise ValueError(f"total = {total} is past what {self!r} reaches below 2**62 "
                                 "pulls; use a smaller total") from exc
        last = int(np.searchsorted(self._cum, total, side="left"))
        return np.diff(self._cum[: last + 1], prepend=0)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.params().items())
        return f"{type(self).__name__}({args})"

    def __eq__(self, other) -> bool:
        return type(self) is type(other) and self.params() == other.params()

    def __hash__(self) -> int:
        return hash((type(self).__name__, tuple(sorted(self.params().items()))))

    # -- internals --------------------------------------------------------------------------
    def _grow_to_count(self, count: int, stop_at: int | None = None) -> None:
        if count <= self._cum.size:
            return
        try:
            block = self._cumulative_block(np.arange(self._cum.size, count, dtype=np.int64))
        except OverflowError:
            # the block runs past 2**62 pulls: keep its longest prefix that fits (bisection on
            # its length, log2(count) blocks), then fail unless that prefix reaches ``stop_at``
            start, good, bad, keep = self._cum.size, self._cum.size, count, None
            while bad - good > 1:
                mid = (good + bad) // 2
                try:
                    keep = self._cumulative_block(np.arange(start, mid, dtype=np.int64))
                    good = mid
                except OverflowError:
                    bad = mid
            if keep is not None and keep.size == good - start:
                self._cum = np.concatenate([self._cum, keep])
            if stop_at is not None and self._cum.size and self._cum[-1] >= stop_at:
                return
            raise OverflowError("batch schedule exceeds 2**62 pulls; use a smaller horizon") from None
        self._cum = np.concatenate([self._cum, block])
        if np.any(np.diff(self._cum) <= 0) or self._cum[0] < 1:  # pragma: no cover - defensive
            raise OverflowError("batch schedule overflowed int64; use a smaller horizon")


def _exact_block(values) -> np.ndarray:
    """Exact integers as int64, stopping at the first one past 2**62 pulls (``OverflowError``)."""
    out = []
    for v in values:
        if v >= MAX_PULLS:
            raise OverflowError("batch schedule exceeds 2**62 pulls; use a smaller horizon")
        out.append(v)
    return np.array(out, dtype=np.int64)


def _ceil_robust(values: np.ndarray, exact, rel_err) -> np.ndarray:
    """ceil of float ``values`` with their exact counterparts recomputed where the float is unsafe.

    ``exact(i)`` returns the exact (Fraction) value of entry i and ``rel_err`` (array or scalar)
    a bound on the relative error of the float values.  A float ceil is trusted when the value is
    farther than ``(rel_err + 1e-13) * max(value, 1)`` from every integer; the others (a handful:
    the exact integers such as n_0 = n0, and rare near-integers) are recomputed exactly.
    """
    values = np.asarray(values, dtype=float)
    nearest = np.rint(values)
    tol = (np.asarray(rel_err, dtype=float) + _REL_TOL) * np.maximum(np.abs(values), 1.0)
    unsafe = np.abs(values - nearest) <= tol
    unsafe |= ~np.isfinite(values) | (values >= 2.0**62)
    out = np.empty(values.shape, dtype=np.int64)
    safe = ~unsafe
    out[safe] = np.ceil(values[safe]).astype(np.int64)
    for i in np.flatnonzero(unsafe):
        v = _exact_ceil(exact(int(i)))
        if v >= 2**62:
            raise OverflowError("batch schedule exceeds 2**62 pulls; use a smaller horizon")
        out[i] = v
    return out


class GeometricSchedule(BatchSchedule):
    """The paper's geometric schedule, :prf:ref:`def-batch-schedule`.

    n_m = ceil(n0 (alpha^{m+1} - 1)/(alpha - 1)) and B_m = n_m - n_{m-1}; B_m = n0 alpha^m when
    alpha is an integer.

    Parameters
    ----------
    n0 : int
        First batch size, an integer >= 1 (the paper's experiments: 1).
    alpha : float, int or Fraction
        Ratio, > 1 (experiments: 2; the epsilon-sweep figure: 1.1).  A float is read as the
        decimal it prints as (1.1 is exactly 11/10).
    """

    def __init__(self, n0: int = 1, alpha: float | Fraction = 2) -> None:
        super().__init__()
        self._n0 = as_int("n0", n0, minimum=1, maximum=MAX_PULLS)
        exact = as_exact("alpha", alpha)
        if not exact >= MIN_ALPHA:
            raise ValueError(f"alpha must be >= 1.001, got {plain(alpha)!r} (alpha <= 1 is no geometric "
                             "growth; closer to 1 the schedule needs ~1/(alpha - 1) nearly equal batches and "
                             "minutes of exact arithmetic)")
        self._alpha_exact = exact
        self._alpha = float(exact)
        if not self._alpha > 1.0:  # a rational barely above 1 that rounds to 1.0
            raise ValueError(f"alpha must be > 1 and representable as a float above 1, got {plain(alpha)!r}")

    @property
    def alpha(self) -> float:
        return self._alpha

    def params(self) -> dict:
        alpha = int(self._alpha_exact) if self._alpha_exact.denominator == 1 else self._alpha
        return {"kind": "geometric", "n0": self._n0, "alpha": alpha}

    def _cumulative_block(self, m: np.ndarray) -> np.ndarray:
        a, n0 = self._alpha_exact, self._n0
        if a.denominator == 1:  # integer ratio: exact integer arithmetic, B_m = n0 a^m
            ai = int(a)  # at most 62 big powers before the first entry past 2**62
            return _exact_block(n0 * (ai ** (int(k) + 1) - 1) // (ai - 1) for k in m)
        with np.errstate(over="ignore"):
            approx = n0 * np.expm1((m + 1.0) * math.log(self._alpha)) / (self._alpha - 1.0)
        # error budget: float(alpha) vs alpha (1 ulp, amplified (m+1) times by the power and by
        # alpha/(alpha-1) in the denominator), log/expm1/division roundings (a few ulp each)
        rel_err = (
            16 * _ULP * ((m + 2.0) * max(1.0, math.log(self._alpha)) + self._alpha / (self._alpha - 1.0))
        )

        def exact(i: int) -> Fraction:
            k = int(m[i])
            # 80 significant digits settle the ceiling unless the value is within 1e-30 of an
            # integer (then the exact rational decides): fast even for tens of thousands of entries
            with localcontext() as ctx:
                ctx.prec = 80
                ad = Decimal(a.numerator) / Decimal(a.denominator)
                v = Decimal(n0) * (ad ** (k + 1) - 1) / (ad - 1)
                if abs(v - v.to_integral_value()) > Decimal("1e-30"):
                    return Fraction(int(v.to_integral_value(rounding=ROUND_CEILING)))
            return n0 * (a ** (k + 1) - 1) / (a - 1)

        return _ceil_robust(approx, exact, rel_err)


class DoublingSchedule(GeometricSchedule):
    """Doubling batches, B_m = n0 2^m (the geometric schedule with alpha = 2)."""

    def __init__(self, n0: int = 1) -> None:
        super().__init__(n0=n0, alpha=2)

    def params(self) -> dict:
        return {"kind": "doubling", "n0": self._n0}


class PolynomialSchedule(BatchSchedule):
    """Polynomially growing batches, B_m = ceil(n0 (m+1)^p).

    The number of batches needed to reach n pulls grows like n^{1/(p+1)}, sublinearly, which is
    all the regret analysis needs (remark after :prf:ref:`thm-upper-bound`); unlike the
    geometric schedule it does not lose a factor alpha asymptotically.

    Parameters
    ----------
    n0 : int
        First batch size B_0 = n0, an integer >= 1.
    power : float
        Exponent p > 0 (p = 0 would give a linear number of batches).
    """

    def __init__(self, n0: int = 1, power: float | Fraction = 2) -> None:
        super().__init__()
        self._n0 = as_int("n0", n0, minimum=1, maximum=MAX_PULLS)
        exact = as_exact("power", power)
        if not POWER_RANGE[0] <= exact <= POWER_RANGE[1]:
            raise ValueError(f"power must lie in [0.001, 62], got {plain(power)!r} (smaller powers give "
                             "batches of nearly constant size, about as many phases as pulls; B_1 = n0 "
                             "2^power is past 2**62 pulls above 62)")
        self._p_exact = exact
        self._p = float(exact)

    def params(self) -> dict:
        p = int(self._p_exact) if self._p_exact.denominator == 1 else self._p
        return {"kind": "polynomial", "n0": self._n0, "power": p}

    def _sizes_block(self, m: np.ndarray) -> np.ndarray:
        n0, p = self._n0, self._p_exact
        if p.denominator == 1:
            pi = int(p)
            with np.errstate(over="ignore"):
                approx = n0 * np.power(m + 1.0, pi)
            if m.size and approx.max() < 2.0**61:  # exact in int64, no overflow possible
                return n0 * np.power(m + 1, pi)
            return _exact_block(n0 * (int(k) + 1) ** pi for k in m)
        with np.errstate(over="ignore"):
            approx = n0 * np.power(m + 1.0, self._p)

        def exact_ceil_arg(i: int) -> Fraction:
            if p.denominator > 64:
                # n0 (m+1)^(a/b) with b > 64 is an integer only at m = 0 (m + 1 would have to be a
                # b-th power, > 2**62): 60 significant digits decide the ceiling.
                if int(m[i]) == 0:
                    return Fraction(n0)
                with localcontext() as ctx:
                    ctx.prec = 60
                    v = Decimal(n0) * (Decimal(p.numerator) / Decimal(p.denominator)
                                       * Decimal(int(m[i]) + 1).ln()).exp()
                    return Fraction(int(v.to_integral_value(rounding=ROUND_CEILING)))
            # ceil(n0 (m+1)^{a/b}) is the smallest integer B with B^b >= n0^b (m+1)^a: exact integers
            a, b = p.numerator, p.denominator
            target = n0**b * (int(m[i]) + 1) ** a
            B = max(int(round(float(approx[i]))), 1)
            while B**b < target:
                B += 1
            while B > 1 and (B - 1) ** b >= target:
                B -= 1
            return Fraction(B)

        return _ceil_robust(approx, exact_ceil_arg, 16 * _ULP * (1.0 + abs(self._p) * np.log(m + 2.0)))

    def _cumulative_block(self, m: np.ndarray) -> np.ndarray:
        start = int(m[0]) if m.size else 0
        prev = int(self._cum[-1]) if (self._cum.size and start == self._cum.size) else 0
        if start != self._cum.size:  # pragma: no cover - only called to extend the cache
            raise RuntimeError("polynomial schedule must be extended contiguously")
        sizes = self._sizes_block(m)
        if prev + float(np.sum(sizes, dtype=float)) >= MAX_PULLS:
            raise OverflowError("batch schedule exceeds 2**62 pulls; use a smaller horizon")
        return prev + np.cumsum(sizes)


def make_schedule(schedule: BatchSchedule | str | dict | None = None, *, n0: int = 1,
                  alpha: float | Fraction = 2) -> BatchSchedule:
    """Return ``schedule`` if it is a :class:`BatchSchedule`, else the geometric one (n0, alpha).

    ``schedule`` may also be a name (``"geometric"``, ``"doubling"``) or the dict that a schedule's
    ``params()`` returns (``{"kind": "polynomial", "n0": 1, "power": 2}``), so that a policy's
    ``params`` (and a :class:`~dpb.simulate.Result`'s) rebuild the same policy.
    """
    geometric = GeometricSchedule(n0=n0, alpha=alpha)  # checks n0 and alpha whatever the schedule
    if schedule is None:
        return geometric
    if isinstance(schedule, BatchSchedule):
        return schedule
    if isinstance(schedule, dict):
        classes = {"geometric": GeometricSchedule, "doubling": DoublingSchedule,
                   "polynomial": PolynomialSchedule}
        spec = dict(schedule)
        kind = spec.pop("kind", None)
        if not isinstance(kind, str) or kind not in classes:
            raise ValueError(f"schedule['kind'] must be one of {sorted(classes)}, got {kind!r}")
        try:
            return classes[kind](**spec)
        except TypeError as exc:
            raise TypeError(f"schedule: bad parameters for a {kind} schedule {spec!r}: {exc}") from exc
    if isinstance(schedule, str):
        kinds = {"geometric": lambda: GeometricSchedule(n0, alpha), "doubling": lambda: DoublingSchedule(n0)}
        if schedule not in kinds:
            raise ValueError(f"schedule must be a BatchSchedule or one of {sorted(kinds)}, got {schedule!r}")
        return kinds[schedule]()
    raise TypeError(f"schedule must be a BatchSchedule, a name, a params() dict or None, got "
                    f"{type(schedule).__name__}")


def batch_sizes(n0: int, alpha: float | Fraction, count: int) -> np.ndarray:
    """The first ``count`` batch sizes of the paper's geometric schedule, :prf:ref:`def-batch-schedule`.

    B_m = ceil(n0 (alpha^{m+1}-1)/(alpha-1)) - ceil(n0 (alpha^m-1)/(alpha-1)), m = 0..count-1.

    Examples
    --------
    >>> batch_sizes(1, 2, 5).tolist()
    [1, 2, 4, 8, 16]
    """
    return GeometricSchedule(n0=n0, alpha=alpha).sizes(count)


def cumulative_sizes(n0: int, alpha: float | Fraction, count: int) -> np.ndarray:
    """The first ``count`` cumulative counts n_m = ceil(n0 (alpha^{m+1}-1)/(alpha-1))."""
    return GeometricSchedule(n0=n0, alpha=alpha).cumulative(count)


def phases_to_reach(n: np.typing.ArrayLike, schedule: BatchSchedule) -> int | np.ndarray:
    r"""Number of phases (= Laplace draws) an arm completes before it has been pulled ``n`` times.

    :math:`\min\{M + 1 : n_M \ge n\}` for the cumulative counts :math:`n_M` of ``schedule``.  For
    the geometric schedule with an integer ratio, :math:`n_M = n_0(\alpha^{M+1}-1)/(\alpha-1)`, this
    is :math:`\lceil \log_\alpha(1 + n(\alpha-1)/n_0) \rceil`: logarithmic in ``n``, which is the
    :math:`m = o(n)` that Proposition 'Concentration Bound of Private Mean' asks for.

    Parameters
    ----------
    n : int or array_like of int
        Numbers of pulls, >= 1.
    schedule : BatchSchedule

    Returns
    -------
    int or ndarray of int
    """
    if not isinstance(schedule, BatchSchedule):
        raise TypeError(f"schedule must be a BatchSchedule, got {type(schedule).__name__}")
    scalar = np.ndim(n) == 0
    counts = as_counts("n", n, 1)
    cum = np.cumsum(schedule.sizes_until(int(counts.max())))
    out = np.searchsorted(cum, counts, side="left").astype(np.int64) + 1
    return out.reshape(()).item() if scalar else out
