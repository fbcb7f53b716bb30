"""How long a simulation may take: one cost model, fed by the policy classes, checked before any work.

:func:`dpb.simulate.simulate` (and every simulator that steps through rounds: :mod:`dpb.regret`,
:mod:`dpb.reference`, :mod:`dpb.interaction`, the experiments' chunks) estimates a call's cost
with this model and refuses (``ValueError`` naming ``T`` and ``runs``) a call estimated above
``max_seconds`` CPU-seconds (default :data:`MAX_SECONDS`, two minutes); ``max_seconds=None`` lifts
the limit.  The estimate is deliberately pessimistic: an upper bound of the decisions of a run
times CPU-seconds per decision measured on this project's machine and rounded up.

* A per-step policy (IMED, KL-UCB, Lazy-DP-TS) decides in every round, so a call costs about
  ``T x (c_step + runs x c_run)``.  Its fast path's constants are the class attributes
  ``cost_fast`` (compiled) and ``cost_fast_python`` (uncompiled) of the policy, measured at
  T = 10^6 where the fast paths are slowest per round (their cost per round falls as T grows);
  a fast path without prices gets :data:`FAST_COST_OTHER`.
* A per-step policy of your own (a :class:`~dpb.policies.PerStepPolicy` without a fast path of
  its own) runs on the lock-step fast path (``dpb.policies._perstep``), whose cost is mostly
  its index: the model times ``empirical_index`` on a few synthetic states (``index_prices``,
  a dozen calls, cached on the policy object) and multiplies by the calls and rows of the path,
  plus the path's own work (``PER_STEP_ENGINE``).  How many calls and rows depends on how
  often the policy changes arm: a fitted model (``PER_STEP_ROWS``, ``PER_STEP_BLOCK``)
  or, for a call estimated above ``PILOT_ABOVE`` seconds, a pilot: the cell's first rounds on
  a few runs (``PILOT``), extrapolated.  Meant to be within 1.5 times the measured time.
* A batched private policy decides once per phase: at most K times the number of batches of its
  schedule up to T per run (:func:`dpb.batching.phases_to_reach`), logarithmic in T, or its own
  ``max_phases(K, T)`` (DP-SE, AdaP-KLUCB, AdaP-UCB: K (log2 T + 2)), priced per phase with the
  generic engine's constants (:data:`PHASE_COST`) or those of the batched fast path
  (:data:`FAST_PHASE_COST`).
* A policy of your own is assumed to decide in every round, unless it keeps the phase logic
  (``decide`` and ``update``) of a policy of the package or defines ``max_phases(K, T)``.
* The literal per-step reference (:mod:`dpb.reference`) costs the policy's ``cost_reference``
  per round of one run; the transcripts of :mod:`dpb.interaction` :data:`TRANSCRIPT_COST`.

The prices change no number, so the results' provenance leaves them out: the module-level
constants of this module and the ``cost_*`` class attributes of a policy are not hashed
(:func:`dpb.cache.code_digest`); its functions are, since ``uses_fast_path`` chooses the engine.
Adjust them when a fast path changes (``benchmarks/``).  The one-time compilation of a kernel
(seconds, once per machine) is not included.
"""

from __future__ import annotations

import time
from typing import Any
from typing import NamedTuple

import numpy as np

from ._params import merge_params
from ._validate import MAX_HORIZON, MAX_RUNS, as_flag, as_int, check_seconds
from ._validate import MAX_SECONDS as _MAX_SECONDS
from .environments import as_bandit
from .policies._tapes import ENGINES, check_engine
from .policies.base import PerStepPolicy
from .policies.registry import as_policy

__all__ = ["MAX_SECONDS", "Cost", "estimate_cost", "FAST_COST_OTHER", "FAST_PHASE_COST",
           "FAST_PHASE_COST_PYTHON", "FAST_LOCKSTEP_COST", "PHASE_COST", "STEP_COST", "TRANSCRIPT_COST"]

#: Default limit of one call's estimated cost, in CPU-seconds (``max_seconds`` of
#: :func:`dpb.simulate.simulate`; the same default bounds :mod:`dpb.reference`,
#: :mod:`dpb.interaction` and :mod:`dpb.coupling`).
MAX_SECONDS = _MAX_SECONDS
#: CPU-seconds per decision, as ``(per round or lock-step phase, per round or phase of one run)``:
#: a fast path without prices of its own (``cost_fast`` of its class) ...
FAST_COST_OTHER = (5e-6, 1e-6)
#: ... the compiled runs of the batched private policies (DP-KLUCB, DP-IMED, DP-SE, AdaP-*: about
#: 0.4 us per phase and run measured, benchmarks/bench_floor.py), uncompiled (DPB_JIT=0: about 30 us) ...
FAST_PHASE_COST = (1e-4, 1e-6)
FAST_PHASE_COST_PYTHON = (1e-4, 6e-5)
#: ... the numpy lock-step of a batched policy with an index of one's own ...
FAST_LOCKSTEP_COST = (2e-4, 5e-6)
#: ... the generic engine on a batched policy (phase sums, few phases) and on a policy deciding
#: in every round (one index per round) ...
PHASE_COST = (5e-4, 1e-5)
#: ... (the generic engine on a policy deciding in every round) ...
STEP_COST = (5e-4, 3e-5)
#: ... and the transcript engine of :mod:`dpb.interaction` (DP-IMED at T = 10^6: 12 s for 1 run,
#: 52 s for 10; IMED at T = 10^4: 1.1 s for 10 runs).
TRANSCRIPT_COST = (2e-4, 1e-5)

#: The lock-step path of a per-step policy of one's own: its own CPU-seconds per call of the index
#: and per row evaluated (measured with an index that costs nothing) ...
PER_STEP_ENGINE = (1.6e-4, 2.8e-7)
#: ... rows evaluated per decision, ``1 + a (T / 1000) ** -b`` (each row is the index of one state;
#: measured 1.6-2.0 at T = 10^3, 1.2-1.9 at 10^4, 1.04-1.43 at 10^5) ...
PER_STEP_ROWS = (0.8, 0.25)
#: ... and decisions per run and call of the index, ``a (T / 1000) ** b`` (measured: 1.7-4.9 at
#: T = 10^3, 3.3-20 at 10^4, 9.5-27 at 10^5 for a UCB-like and a KL-UCB-like rule on mu1, mu2).
PER_STEP_BLOCK = (2.5, 0.45)
#: The pilot: the first ``T / 4`` and ``T`` rounds of at most ``runs`` runs (seed 0, on a copy of
#: the policy), run when the model estimates more than ``PILOT_ABOVE`` CPU-seconds and the
#: pilot at most a tenth of that (and 5 s).  Its decisions per run and call grow as
#: ``(T / T_pilot) ** growth[0]`` (fitted on the cells of ``benchmarks/bench_per_step.py``) when
#: they grew between the two pilots, else not at all; its rows per decision as
#: ``1 + (r - 1) (T / T_pilot) ** -growth[1]``.
PILOT: dict[str, Any] = {"T": 2000, "runs": 10, "growth": (0.48, 0.25)}
PILOT_ABOVE = 0.5

_ADVICE = "use a smaller T or fewer runs, or pass max_seconds=None (or a larger limit) to run it anyway"


class Cost(NamedTuple):
    """Estimate of a call's work (:func:`estimate_cost`)."""

    seconds: float
    """Estimated CPU-seconds (pessimistic)."""
    phases: int
    """Upper bound of the phases (decisions) of one run."""
    engine: str
    """``"fast"``, ``"phases"``, ``"reference"`` or ``"transcript"``."""


def call_cost(pol, K: int, T: int, runs: int, engine: str, compiled: bool | None = None,
              means=None) -> Cost:
    """The :class:`Cost` of ``runs`` runs of the policy ``pol`` on ``engine`` ("fast", "phases" or
    "reference"), a fast path compiled or not (None: the default engine); ``means``, the arms'
    means if known (a per-step policy of one's own may then be priced by a pilot)."""
    if engine == "reference":
        return Cost(float(T) * runs * pol.cost_reference, T, engine)
    own, name = getattr(pol, "max_phases", None), f"{type(pol).__name__}.max_phases(K, T)"
    phases = min(as_int(name, own(K, T), minimum=1), T) if callable(own) else T  # a bound of a run's phases
    lockstep = isinstance(pol, PerStepPolicy) and type(pol).fast_simulate is PerStepPolicy.fast_simulate
    if engine == "fast" and pol.cost_fast is None and lockstep:  # the lock-step path of a per-step rule
        return Cost(per_step_seconds(pol, K, T, runs, means), T, engine)
    if engine == "fast" and (pol.cost_fast is not None or phases == T):
        compiled = check_engine(None) == "numba" if compiled is None else compiled
        step, run = (pol.cost_fast if compiled else pol.cost_fast_python or pol.cost_fast) or FAST_COST_OTHER
        return Cost(float(T) * (step + runs * run), T, engine)
    if engine == "fast":
        compiled = check_engine(None) == "numba" if compiled is None else compiled
        own = getattr(pol, "compiled_runs", None)
        if callable(own) and not own():
            step, run = FAST_LOCKSTEP_COST
        else:
            step, run = FAST_PHASE_COST if compiled else FAST_PHASE_COST_PYTHON
    else:
        step, run = STEP_COST if phases == T else PHASE_COST
    return Cost(float(phases) * (step + runs * run), phases, engine)


def _cache_of(pol) -> dict:
    """The policy object's cache of prices and pilots (a throw-away dict if it has no ``__dict__``)."""
    own = getattr(pol, "__dict__", None)
    return own.setdefault("_index_prices", {}) if isinstance(own, dict) else {}


def _probe_states(K: int, T: int, rows: int, rng: np.random.Generator) -> tuple:
    """Synthetic states of a per-step run at round T / 2: a leader with most pulls, the other
    arms pulled about 8 log t / gap^2 times, reward sums drawn from means spread in [0.25, 0.75]."""
    means = np.linspace(0.75, 0.25, K) if K > 1 else np.array([0.5])
    t = np.full((rows, 1), max(K + 1, T // 2), dtype=np.int64)
    gaps = np.maximum(means[0] - means, 0.05)
    n = np.maximum(1, np.rint(8.0 * np.log(t) / gaps**2 * rng.uniform(0.5, 1.5, (rows, K)))).astype(np.int64)
    n = np.minimum(n, t // K)
    n[:, 0] = np.maximum(1, t[:, 0] - n[:, 1:].sum(axis=1))
    s = rng.binomial(n, means).astype(float)
    return s / n, n, t


def index_prices(pol, K: int, T: int, runs: int) -> tuple[float, float]:
    """CPU-seconds ``(per call, per row)`` of ``pol.empirical_index`` on ``K`` arms, timed on
    synthetic states (:func:`_probe_states`) at two numbers of rows, best of five each; cached
    on the policy object.  An index that fails on them is priced at a millisecond a call and
    10 microseconds a row (the simulation will then report the failure itself)."""
    small = min(max(int(runs), 1), 64)
    big = small + 512
    key = (K, T, small)
    cache = _cache_of(pol)
    if key in cache:
        return cache[key]
    rng = np.random.default_rng(0)
    timed = []
    try:
        for rows in (small, big):
            mu, n, t = _probe_states(K, T, rows, rng)
            best = np.inf
            for _ in range(5):
                start = time.process_time()
                pol.empirical_index(mu, n, t)
                best = min(best, time.process_time() - start)
            timed.append(best)
    except Exception:  # priced pessimistically; the simulation reports the error itself
        timed = [1e-3 + 1e-5 * small, 1e-3 + 1e-5 * big]
    per_row = max((timed[1] - timed[0]) / (big - small), 0.0)
    per_call = max(timed[0] - small * per_row, 0.0)
    cache[key] = (per_call, per_row)
    return cache[key]


def _seconds(prices, T: int, K: int, runs: int, per_call: float, per_row: float) -> float:
    """CPU-seconds of ``runs`` runs with ``per_call`` decisions per run and call of the index and
    ``per_row`` rows per decision, at the index's ``prices`` and the path's own."""
    decisions = float(runs) * max(T - K, 1)
    calls = decisions / (runs * per_call)
    return calls * (prices[0] + PER_STEP_ENGINE[0]) + decisions * per_row * (prices[1] + PER_STEP_ENGINE[1])


def _model(pol, T: int) -> tuple[float, float]:
    """(decisions per run and call, rows per decision) of the fitted model."""
    from .policies._perstep import LOOKAHEAD_MAX

    if not getattr(pol, "lookahead", True):
        return 1.0, 1.0
    x = max(T / 1000.0, 1.0)
    per_call = min(PER_STEP_BLOCK[0] * x ** PER_STEP_BLOCK[1], LOOKAHEAD_MAX)
    return per_call, 1.0 + PER_STEP_ROWS[0] * x ** -PER_STEP_ROWS[1]


def _pilot(pol, means, T: int, runs: int) -> tuple[float, float] | None:
    """(decisions per run and call, rows per decision) measured on the first rounds of the cell
    (``PILOT``: two pilots, of T_p / 4 and T_p rounds), extrapolated to ``T`` with the growth
    the two show (an exponent clipped to [0, 0.6]); None if a pilot fails."""
    import copy

    from .engine import Recorder, child_seeds, run_generators
    from .policies import _perstep

    means = np.asarray(means, dtype=float)
    T_p, R_p = min(T, PILOT["T"]), min(runs, PILOT["runs"])
    key = ("pilot", tuple(means.tolist()), T_p, R_p)
    cache = _cache_of(pol)
    if key not in cache:
        measured = []
        try:
            for T_q in (max(T_p // 4, means.size + 1), T_p):
                gens = [run_generators(s) for s in child_seeds(0, range(R_p))]
                rec = Recorder(R_p, means.max() - means, np.array([T_q]))
                _perstep.simulate_per_step(copy.copy(pol), means, T_q, [g[0] for g in gens],
                                           [g[1] for g in gens], rec)
                c = dict(_perstep.LAST_COUNTS)
                measured.append((T_q, c["decisions"] / max(c["calls"] * R_p, 1),
                                 c["rows"] / max(c["decisions"], 1)))
        except Exception:  # the simulation itself will report it
            measured = []
        cache[key] = measured if len(measured) == 2 and measured[1][0] > measured[0][0] else None
    if cache[key] is None:
        return None
    (T_1, a_1, _), (T_2, a_2, r_2) = cache[key]
    # a rule that settles: the growth fitted on the benchmark's cells (the pilots' own is too
    # early); one that does not (decisions per call flat between the pilots): no growth
    own = min(max(np.log(a_2 / a_1) / np.log(T_2 / T_1), 0.0), 0.6)
    growth = PILOT["growth"][0] if a_2 > 1.25 * a_1 else own
    per_call = min(a_2 * (T / T_2) ** growth, _perstep.LOOKAHEAD_MAX)
    return per_call, 1.0 + (r_2 - 1.0) * (T / T_2) ** -PILOT["growth"][1]


def per_step_seconds(pol, K: int, T: int, runs: int, means=None) -> float:
    """Estimated CPU-seconds of ``runs`` runs of the per-step ``pol`` on the lock-step fast path
    (the module docstring): the fitted model, or a pilot on ``means`` for a long call."""
    prices = index_prices(pol, K, T, runs)
    seconds = _seconds(prices, T, K, runs, *_model(pol, T))
    if means is None or seconds <= PILOT_ABOVE or not getattr(pol, "lookahead", True):
        return seconds
    T_p, R_p = min(T, PILOT["T"]), min(runs, PILOT["runs"])
    if _seconds(prices, T_p, K, R_p, *_model(pol, T_p)) > min(0.1 * seconds, 5.0):
        return seconds
    measured = _pilot(pol, means, T, runs)
    return seconds if measured is None else _seconds(prices, T, K, runs, *measured)


def uses_fast_path(pol, fast: bool) -> bool:
    """Whether :func:`dpb.simulate.simulate` runs ``pol`` on its own fast path."""
    return bool(fast) and pol.fast_path() is not None


def _check_cost(cost: Cost, max_seconds, what: str, T: int, runs: int, advice: str = _ADVICE) -> None:
    """Refuse ``cost`` above ``max_seconds`` (None: no limit) with a ``ValueError`` naming ``T``,
    ``runs``, the estimate, the limit and how to lift it (``advice``)."""
    check_seconds(f"{what} for T={T} and runs={runs}", cost.seconds, max_seconds,
                  f"({cost.phases} decisions per run, {cost.engine} engine)", advice)


def _refuse(what: str, T: int, runs: int, max_seconds: float | None, pol: Any = None, K: int = 0,
           engine: str = "transcript", *, compiled: bool | None = None, means: Any = None,
           advice: str = _ADVICE) -> None:
    """The one refusal of every simulator (``dpb.simulate``, ``dpb.trace``, ``dpb.reference``,
    ``dpb.regret``, ``dpb.interaction``): a ``ValueError`` (``_check_cost``, naming ``what``)
    when ``runs`` runs of horizon ``T`` on ``engine`` are estimated above ``max_seconds``
    CPU-seconds; nothing is priced when ``max_seconds`` is None.  ``engine``: ``"transcript"`` (the
    transcripts of :mod:`dpb.interaction`, :data:`TRANSCRIPT_COST` a step), or ``"fast"``,
    ``"phases"``, ``"reference"`` for the policy object ``pol`` on ``K`` arms (:func:`call_cost`,
    with ``compiled`` and ``means``)."""
    if max_seconds is None:
        return
    step, run = TRANSCRIPT_COST
    cost = (Cost(float(T) * (step + runs * run), T, engine) if engine == "transcript"
            else call_cost(pol, K, T, runs, engine, compiled, means=means))
    _check_cost(cost, max_seconds, what, T, runs, advice)


def estimate_cost(policy: Any, env: Any, T: int, runs: int = 1, *, params: dict | None = None,
                  fast: bool = True, engine: str | None = None, **policy_params: Any) -> Cost:
    """Estimate the CPU-seconds of ``simulate(policy, env, T, runs)`` without running it.

    The cost model (module docstring) multiplies an upper bound of the decisions of a run -- T for
    a per-step policy, K times the batches of the schedule up to T for a batched one -- by
    CPU-seconds per decision measured on this project's machine and rounded up.  It is meant to
    refuse hours, not to predict seconds: it overestimates large horizons several times over.

    Parameters
    ----------
    policy, env, T, params, fast
        As in :func:`dpb.simulate.simulate`.
    runs : int
        Number of runs, 1 to 10^6.
    engine : {None, "numba", "python", "reference"}
        None: the engine :func:`dpb.simulate.simulate` would use by default; ``"numba"``,
        ``"python"``: as :func:`dpb.simulate.simulate` with that ``engine``; ``"reference"``: the
        literal per-step simulator :func:`dpb.reference.reference_simulate`.

    Returns
    -------
    Cost
        ``(seconds, phases, engine)``.

    Examples
    --------
    >>> estimate_cost("IMED", "mu1", 10**12).seconds > 1e5   # hours: simulate refuses it
    True
    >>> estimate_cost("DP-IMED", "mu1", 10**12, params={"eps": 0.25}).seconds < 1
    True
    """
    fast = as_flag("fast", fast)
    pol = as_policy(policy, merge_params("estimate_cost", policy, params, policy_params))
    bandit = as_bandit(env)
    T = as_int("T", T, minimum=1, maximum=MAX_HORIZON)
    runs = as_int("runs", runs, minimum=1, maximum=MAX_RUNS)
    if engine == "reference":
        return call_cost(pol, bandit.K, T, runs, engine)
    if engine not in (None, *ENGINES):
        raise ValueError(f"engine must be None, 'numba', 'python' or 'reference', got {engine!r}")
    kind = "fast" if uses_fast_path(pol, fast) else "phases"
    return call_cost(pol, bandit.K, T, runs, kind, check_engine(engine) == "numba", means=bandit.means)
