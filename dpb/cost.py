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
* A batched private policy decides once per phase: at most K times the number of batches of its
  schedule up to T per run (:func:`dpb.batching.phases_to_reach`), logarithmic in T, or its own
  ``max_phases(K, T)`` (DP-SE, AdaP-KLUCB, AdaP-UCB: K (log2 T + 2)), priced per phase with the
  generic engine's constants (:data:`PHASE_COST`) or those of the batched fast path
  (:data:`FAST_PHASE_COST`).
* A policy of your own is assumed to decide in every round, unless it keeps the phase logic
  (``decide`` and ``update``) of a policy of the package or defines ``max_phases(K, T)``.
* The literal per-step reference (:mod:`dpb.reference`) costs the policy's ``cost_reference``
  per round of one run; the transcripts of :mod:`dpb.interaction` :data:`TRANSCRIPT_COST`.

The prices change no number, so the results' provenance leaves them out: this module is not
hashed, nor are the ``cost_*`` class attributes of a policy (:func:`dpb.cache.code_digest`).
Adjust them when a fast path changes (``benchmarks/``).  The one-time compilation of a kernel
(seconds, once per machine) is not included.
"""

from __future__ import annotations

from typing import NamedTuple

from ._params import merge_params
from ._validate import MAX_HORIZON, MAX_RUNS, as_flag, as_int, check_seconds
from ._validate import MAX_SECONDS as _MAX_SECONDS
from .environments import as_bandit
from .policies._tapes import ENGINES, check_engine
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

_ADVICE = "use a smaller T or fewer runs, or pass max_seconds=None (or a larger limit) to run it anyway"


class Cost(NamedTuple):
    """Estimate of a call's work (:func:`estimate_cost`)."""

    seconds: float
    """Estimated CPU-seconds (pessimistic)."""
    phases: int
    """Upper bound of the phases (decisions) of one run."""
    engine: str
    """``"fast"``, ``"phases"``, ``"reference"`` or ``"transcript"``."""


def max_phases(pol, K: int, T: int) -> int:
    """An upper bound of the phases of one run of ``pol`` (see the module's docstring)."""
    from .batching import BatchSchedule, phases_to_reach

    own = getattr(pol, "max_phases", None)
    schedule = getattr(pol, "schedule", None)
    # the package's own phase logic (a subclass may change the index, not how phases are cut)
    builtin = all(getattr(type(pol), m).__module__.startswith("dpb.policies.") for m in ("decide", "update"))
    if callable(own):
        return min(as_int(f"{type(pol).__name__}.max_phases(K, T)", own(K, T), minimum=1), T)
    if builtin and isinstance(schedule, BatchSchedule):
        # the schedules' tables stop below 2**62; with nondecreasing batches, twice the batches
        # reaching n reach 2n
        n = phases_to_reach(T, schedule) if T <= 2**61 else 2 * phases_to_reach(2**61, schedule)
        return min(K * int(n), T)
    return T


def call_cost(pol, K: int, T: int, runs: int, engine: str, compiled: bool | None = None) -> Cost:
    """The :class:`Cost` of ``runs`` runs of the policy ``pol`` on ``engine`` ("fast", "phases" or
    "reference"), a fast path compiled or not (None: the default engine)."""
    if engine == "reference":
        return Cost(float(T) * runs * pol.cost_reference, T, engine)
    phases = max_phases(pol, K, T)
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


def transcript_cost(T: int, runs: int) -> Cost:
    """The :class:`Cost` of ``runs`` transcripts of ``T`` steps (:mod:`dpb.interaction`)."""
    return Cost(float(T) * (TRANSCRIPT_COST[0] + runs * TRANSCRIPT_COST[1]), T, "transcript")


def uses_fast_path(pol, fast: bool) -> bool:
    """Whether :func:`dpb.simulate.simulate` runs ``pol`` on its own fast path."""
    return bool(fast) and getattr(pol, "fast_simulate", None) is not None


def check_cost(cost: Cost, max_seconds, what: str, T: int, runs: int, advice: str = _ADVICE) -> None:
    """Refuse ``cost`` above ``max_seconds`` (None: no limit) with a ``ValueError`` naming ``T``,
    ``runs``, the estimate, the limit and how to lift it (``advice``)."""
    check_seconds(f"{what} for T={T} and runs={runs}", cost.seconds, max_seconds,
                  f"({cost.phases} decisions per run, {cost.engine} engine)", advice)


def estimate_cost(policy, env, T: int, runs: int = 1, *, params: dict | None = None,
                  fast: bool = True, engine: str | None = None, **policy_params) -> Cost:
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
    return call_cost(pol, bandit.K, T, runs, kind, check_engine(engine) == "numba")
