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

from ._validate import as_exact, as_float_array, as_int, as_probability, check_elements, check_eps, plain

__all__ = [
    "BatchSchedule",
    "GeometricSchedule",
    "DoublingSchedule",
    "PolynomialSchedule",
    "batch_sizes",
    "cumulative_sizes",
    "make_schedule",
    "DESIGNS",
    "private_mean_composition",
    "noise_std_of_private_mean",
    "noise_monte_carlo",
    "forgetting_comparison",
    "phases_to_reach",
    "schedule_comparison",
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

    def __init__(self, n0: int = 1, alpha=2) -> None:
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
            ai = int(a)
            vals = []
            for k in m:  # stop at the first entry past 2**62 (at most 62 big powers)
                v = n0 * (ai ** (int(k) + 1) - 1) // (ai - 1)
                if v >= MAX_PULLS:
                    raise OverflowError("batch schedule exceeds 2**62 pulls; use a smaller horizon")
                vals.append(v)
            return np.array(vals, dtype=np.int64)
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

    def __init__(self, n0: int = 1, power=2) -> None:
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
            vals = []
            for k in m:
                v = n0 * (int(k) + 1) ** pi
                if v >= MAX_PULLS:
                    raise OverflowError("batch schedule exceeds 2**62 pulls; use a smaller horizon")
                vals.append(v)
            return np.array(vals, dtype=np.int64)
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


def make_schedule(schedule=None, *, n0: int = 1, alpha=2) -> BatchSchedule:
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


def batch_sizes(n0: int, alpha, count: int) -> np.ndarray:
    """The first ``count`` batch sizes of the paper's geometric schedule, :prf:ref:`def-batch-schedule`.

    B_m = ceil(n0 (alpha^{m+1}-1)/(alpha-1)) - ceil(n0 (alpha^m-1)/(alpha-1)), m = 0..count-1.

    Examples
    --------
    >>> batch_sizes(1, 2, 5).tolist()
    [1, 2, 4, 8, 16]
    """
    return GeometricSchedule(n0=n0, alpha=alpha).sizes(count)


def cumulative_sizes(n0: int, alpha, count: int) -> np.ndarray:
    """The first ``count`` cumulative counts n_m = ceil(n0 (alpha^{m+1}-1)/(alpha-1))."""
    return GeometricSchedule(n0=n0, alpha=alpha).cumulative(count)


#: The two ways of turning phase sums into a private mean.
DESIGNS = ("accumulate", "forget")


# ----------------------------------------------------------------------------------------------
# batches and forgetting
# ----------------------------------------------------------------------------------------------
def _schedule(schedule, n0, alpha) -> BatchSchedule:
    if schedule is None:
        return GeometricSchedule(n0=n0, alpha=alpha)
    if not isinstance(schedule, BatchSchedule):
        raise TypeError(f"schedule must be a BatchSchedule or None, got {type(schedule).__name__}")
    return schedule


def _as_counts(name: str, n, minimum: int) -> np.ndarray:
    arr = as_float_array(name, n)
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty")
    flat = arr.ravel()
    bad = ~np.isfinite(flat) | (flat != np.round(flat))
    if np.any(bad):
        raise ValueError(f"{name} must hold integers, got {flat[bad][0]!r}")
    if np.any(arr < minimum):
        raise ValueError(f"{name} must be >= {minimum}, got {arr[arr < minimum].ravel()[0]:g}")
    if np.any(arr >= MAX_PULLS):  # no schedule goes past 2**62 pulls (and int64 holds the counts)
        raise ValueError(f"{name} must be below 2**62 pulls, got {arr[arr >= MAX_PULLS].ravel()[0]:g}")
    return arr.astype(np.int64)


def _check_design(design: str) -> str:
    if design not in DESIGNS:
        raise ValueError(f"design must be one of {DESIGNS}, got {design!r}")
    return design


def _out(arr: np.ndarray, scalar: bool):
    return arr.reshape(()).item() if scalar else arr


def private_mean_composition(n, n0: int = 1, alpha=2, design: str = "accumulate", schedule=None):
    r"""Rewards and Laplace noises behind an arm's private mean after ``n`` pulls.

    The arm plays phases m = 0, 1, ... of sizes :math:`B_m` (:prf:ref:`def-batch-schedule` for the
    default geometric schedule), with cumulative counts :math:`n_m = B_0 + \dots + B_m`.  After
    ``n`` pulls its last *completed* phase is :math:`M = \max\{m : n_m \le n\}`, and the private
    mean it holds is

    * ``"accumulate"`` (DP-KLUCB, DP-IMED: no forgetting):
      :math:`(X_1 + \dots + X_{n_M} + Y_0 + \dots + Y_M) / n_M`, i.e. :math:`n_M` rewards and
      :math:`M + 1` Laplace noises;
    * ``"forget"`` (DP-SE, AdaP-KLUCB, Lazy-DP-TS): the last batch only,
      :math:`(X_{n_{M-1}+1} + \dots + X_{n_M} + Y_M) / B_M`, i.e. :math:`B_M` rewards and one noise.

    Parameters
    ----------
    n : int or array_like of int
        Number of pulls, ``n >= B_0`` (the first phase must be complete).
    n0 : int
        First batch size of the geometric schedule (ignored when ``schedule`` is given).
    alpha : float
        Ratio > 1 of the geometric schedule (ignored when ``schedule`` is given).
    design : {"accumulate", "forget"}
        How the phase sums are combined.
    schedule : BatchSchedule, optional
        Any other schedule (e.g. :class:`dpb.batching.PolynomialSchedule`).

    Returns
    -------
    (rewards, noises) : tuple of int or of int arrays (the shape of ``n``)
    """
    design = _check_design(design)
    sched = _schedule(schedule, n0, alpha)
    scalar = np.ndim(n) == 0
    counts = _as_counts("n", n, sched.n0)
    sizes = sched.sizes_until(int(counts.max()))
    cum = np.cumsum(sizes)
    M = np.searchsorted(cum, counts, side="right") - 1
    if design == "accumulate":
        rewards, noises = cum[M], M + 1
    else:
        rewards, noises = sizes[M], np.ones_like(M)
    return _out(np.asarray(rewards, dtype=np.int64), scalar), _out(np.asarray(noises, dtype=np.int64), scalar)


def noise_std_of_private_mean(n, n0: int = 1, alpha=2, eps: float = 1.0, design: str = "accumulate",
                              schedule=None):
    r"""Standard deviation of the noise part of an arm's private mean after ``n`` pulls.

    A :math:`\mathrm{Lap}(1/\epsilon)` variable has variance :math:`2/\epsilon^2`.  With the rewards
    and noises of :func:`private_mean_composition` (last completed phase :math:`M`):

    * ``"accumulate"``: :math:`\sqrt{2(M+1)} / (\epsilon\, n_M)`, the :math:`M+1` accumulated
      noises of Algorithm 'DP-KLUCB and DP-IMED' divided by all :math:`n_M` pulls;
    * ``"forget"``: :math:`\sqrt{2} / (\epsilon\, B_M)`, one noise divided by the last batch.

    With doubling batches :math:`B_M \approx n_M / 2`, so the accumulated noise is the *larger*
    one, by a factor about :math:`\sqrt{M+1}/2`; both are :math:`O(\sqrt{\log n}/n)`, far below
    the sampling spread :math:`\sqrt{\mu(1-\mu)/n}` (see :func:`forgetting_comparison`).

    Parameters
    ----------
    n : int or array_like of int
        Number of pulls, ``n >= B_0``.
    n0, alpha : int, float
        The geometric schedule, :prf:ref:`def-batch-schedule` (ignored when ``schedule`` is given).
    eps : float
        Privacy budget, > 0.
    design : {"accumulate", "forget"}
    schedule : BatchSchedule, optional

    Returns
    -------
    float or ndarray
    """
    eps = check_eps(eps)
    rewards, noises = private_mean_composition(n, n0, alpha, design, schedule)
    std = np.sqrt(2.0 * np.asarray(noises, dtype=float)) / (eps * np.asarray(rewards, dtype=float))
    return float(std) if np.ndim(std) == 0 else std


def noise_monte_carlo(n, n0: int = 1, alpha=2, eps: float = 1.0, design: str = "accumulate",
                      runs: int = 4000, seed: int = 0, schedule=None) -> dict:
    r"""Simulated noise part of the private mean after ``n`` pulls, with one Laplace draw per phase.

    Each run draws :math:`Y_0, Y_1, \dots \sim \mathrm{Lap}(1/\epsilon)`, one per phase, and forms
    the noise part of the private mean of :func:`private_mean_composition`:
    :math:`(Y_0 + \dots + Y_M)/n_M` (accumulate) or :math:`Y_M / B_M` (forget).  The same draws
    serve every ``n`` (one trajectory per run), as in an actual arm.

    Parameters
    ----------
    n : array_like of int
        Numbers of pulls, each ``>= B_0``.
    n0, alpha, eps, design, schedule
        As in :func:`noise_std_of_private_mean`.
    runs : int
        Number of simulated arms, >= 2.
    seed : int
        Seed of ``numpy.random.default_rng``.

    Returns
    -------
    dict
        ``"n"``; ``"std"`` (empirical standard deviation at each ``n``); ``"abs_q50"``,
        ``"abs_q95"`` (median and 95% quantile of the absolute noise part); ``"samples"``
        (runs x len(n)).
    """
    design = _check_design(design)
    eps = check_eps(eps, floor=1e-150)
    runs = as_int("runs", runs, minimum=2)
    seed = as_int("seed", seed, minimum=0)
    sched = _schedule(schedule, n0, alpha)
    counts = np.atleast_1d(_as_counts("n", n, sched.n0))
    sizes = sched.sizes_until(int(counts.max()))
    cum = np.cumsum(sizes)
    M = np.searchsorted(cum, counts, side="right") - 1
    check_elements("runs (runs x phases Laplace draws)", runs * (sizes.size + counts.size))
    draws = np.random.default_rng(seed).laplace(0.0, 1.0 / eps, size=(runs, sizes.size))
    if design == "accumulate":
        samples = np.cumsum(draws, axis=1)[:, M] / cum[M]
    else:
        samples = draws[:, M] / sizes[M]
    a = np.abs(samples)
    return {
        "n": counts,
        "std": samples.std(axis=0, ddof=1),
        "abs_q50": np.quantile(a, 0.5, axis=0),
        "abs_q95": np.quantile(a, 0.95, axis=0),
        "samples": samples,
    }


def forgetting_comparison(n0: int = 1, alpha=2, eps: float = 0.25, mu: float = 0.5, x: float = 0.6,
                          n_max: int = 20_000, runs: int = 4000, seed: int = 0) -> dict:
    r"""Accumulating against forgetting, at every phase end of one arm up to ``n_max`` pulls.

    For each design (:data:`DESIGNS`) and each phase end :math:`n = n_M \le n_{\max}` of the
    geometric schedule (n0, alpha), returns the rewards and noises behind the private mean
    (:func:`private_mean_composition`), the standard deviation of its noise part (exact,
    :func:`noise_std_of_private_mean`, and simulated, :func:`noise_monte_carlo`), the sampling
    standard deviation :math:`\sqrt{\mu(1-\mu)/\text{rewards}}`, and the exact natural log of
    :math:`P[\text{private mean} \ge x]`, i.e. of :math:`P[\tilde S_{r, k} \ge r x]` for
    :math:`r` rewards and :math:`k` noises (:func:`dpb.concentration.private_sum_logsf`).  By
    Proposition 'Concentration Bound of Private Mean' this tail decays like
    :math:`e^{-r\, d_\epsilon(x, \mu)}`: with :math:`r = n` when accumulating and
    :math:`r = B_M \approx n (\alpha - 1)/\alpha` when forgetting.

    Parameters
    ----------
    n0 : int
        First batch size, >= 1.
    alpha : float
        Geometric ratio, > 1.
    eps : float
        Privacy budget, > 0.
    mu : float
        Mean of the arm, in (0, 1).
    x : float
        Threshold of the tail, in [mu, 1].
    n_max : int
        Largest number of pulls shown, >= n0.
    runs, seed : int
        Monte Carlo runs and seed (:func:`noise_monte_carlo`).

    Returns
    -------
    dict
        ``"n"`` (the phase ends) and, for each design, a dict with keys ``"rewards"``,
        ``"noises"``, ``"noise_std"``, ``"mc_std"``, ``"mc_med"``, ``"mc_hi"`` (median and 95% quantile
        of the simulated absolute noise part), ``"sampling_std"``,
        ``"log_tail"``.
    """
    from .concentration import private_sum_logsf  # scipy-heavy: only when needed

    n0 = as_int("n0", n0, minimum=1)
    runs = as_int("runs", runs, minimum=2)
    check_elements("runs (runs x phases Laplace draws, at least 2 phases)", 2 * runs)
    eps = check_eps(eps, floor=1e-150)
    mu = float(as_probability("mu", mu, open_left=True, open_right=True))
    x = float(as_probability("x", x))
    if x < mu:
        raise ValueError(f"x must lie in [mu, 1] = [{mu:g}, 1] (upper tail), got {plain(x)!r}")
    n_max = as_int("n_max", n_max, minimum=n0)
    sched = GeometricSchedule(n0=n0, alpha=alpha)
    cum = np.cumsum(sched.sizes_until(n_max))
    ends = cum[cum <= n_max]
    out: dict = {"n": ends}
    for design in DESIGNS:
        rewards, noises = private_mean_composition(ends, design=design, schedule=sched)
        mc = noise_monte_carlo(ends, eps=eps, design=design, runs=runs, seed=seed, schedule=sched)
        log_tail = np.array([float(private_sum_logsf(r * x, int(r), int(k), mu, eps))
                             for r, k in zip(rewards, noises, strict=True)])
        out[design] = {
            "rewards": rewards,
            "noises": noises,
            "noise_std": noise_std_of_private_mean(ends, eps=eps, design=design, schedule=sched),
            "mc_std": mc["std"],
            "mc_med": mc["abs_q50"],
            "mc_hi": mc["abs_q95"],
            "sampling_std": np.sqrt(mu * (1.0 - mu) / rewards),
            "log_tail": log_tail,
        }
    return out


def phases_to_reach(n, schedule: BatchSchedule):
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
    counts = _as_counts("n", n, 1)
    cum = np.cumsum(schedule.sizes_until(int(counts.max())))
    return _out(np.searchsorted(cum, counts, side="left").astype(np.int64) + 1, scalar)


def schedule_comparison(n0: int = 1, alpha=2.0, power=2, n_max: int = 10**6, points: int = 60) -> dict:
    r"""Phases (Laplace draws per arm) against pulls for three schedules, and their first batches.

    The schedules are the paper's geometric one (``n0``, ``alpha``; :prf:ref:`def-batch-schedule`), doubling
    (``n0``, ratio 2) and polynomial (:math:`B_m = \lceil n_0 (m+1)^p \rceil`, ``power`` p).

    Parameters
    ----------
    n0 : int
        First batch size of all three, from 1 to 2**53.
    alpha : float
        Ratio of the geometric schedule, > 1.
    power : float
        Exponent of the polynomial schedule, > 0.
    n_max : int
        Largest number of pulls, from n0 to 2**53 (the float grid of n is exact up to there).
    points : int
        Number of log-spaced values of n, >= 2.

    Returns
    -------
    dict
        ``"n"`` (log-spaced integers from n0 to n_max) and, for each of ``"geometric"``,
        ``"doubling"``, ``"polynomial"``, a dict with ``"schedule"``, ``"phases"`` (at each n) and
        ``"sizes"`` (the batches B_0, ..., B_M up to n_max).
    """
    # the grid of n is float (geomspace): exact up to 2**53 (2**62 - 1 rounds to 2**62, past the limit)
    n0 = as_int("n0", n0, minimum=1, maximum=2**53)
    n_max = as_int("n_max", n_max, minimum=n0, maximum=2**53)
    points = as_int("points", points, minimum=2, maximum=10**5)
    ns = np.unique(np.rint(np.geomspace(n0, n_max, points)).astype(np.int64))
    scheds = {
        "geometric": GeometricSchedule(n0=n0, alpha=alpha),
        "doubling": DoublingSchedule(n0=n0),
        "polynomial": PolynomialSchedule(n0=n0, power=power),
    }
    out: dict = {"n": ns}
    for name, s in scheds.items():
        out[name] = {"schedule": s, "phases": phases_to_reach(ns, s), "sizes": s.sizes_until(n_max)}
    return out
