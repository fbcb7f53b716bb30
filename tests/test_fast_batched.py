"""The fast paths of DP-KLUCB and DP-IMED against the generic phase engine: same numbers.

The compiled runs (``dpb.policies._private_runs.run_chunk``, one call per chunk), the same code
run as Python (``DPB_JIT=0``), the numpy lock-step of a subclass with its own index
(``BatchedPrivatePolicy.simulate_phases``) and the generic engine of :mod:`dpb.simulate`
(``fast=False``) draw every run's phase sums, Laplace noise and tie-breaks from the run's
counter-based streams (:mod:`dpb._streams`), with the same scalar index, so they must agree
exactly, array by array: regret at every checkpoint, pulls, phases and Laplace draws --
including exact ties between arms (random tie-breaks), phases cut at the horizon, n0 > 1 and
other schedules.  The generic engine is the one the per-step reference checks in distribution
(``tests/test_reference_agreement.py``).
"""

import numpy as np
import pytest

from dpb.batching import PolynomialSchedule
from dpb.policies import DPIMED
from dpb.engine import Recorder
from dpb.simulate import simulate

FIELDS = ("regret", "pulls", "n_phases", "laplace_draws")

CASES = [
    ("DP-IMED", "sweep", 10**5, {"eps": 0.5, "n0": 1, "alpha": 1.1}),
    ("DP-IMED", "sweep", 10**7, {"eps": 0.03, "n0": 1, "alpha": 1.1}),
    ("DP-KLUCB", "mu1", 10**5, {"eps": 0.25}),
    ("DP-IMED", "mu2", 3000, {"eps": 0.01}),
    # exactly tied arms: equal indexes, random tie-breaks from the policy's generator
    ("DP-IMED", (0.5, 0.5, 0.5), 2000, {"eps": 0.1, "n0": 3, "alpha": 1.5}),
    ("DP-KLUCB", (0.0, 0.0, 1.0), 777, {"eps": 1.0}),
    # the initialisation is the whole horizon (T = K n0), and a phase cut at the horizon
    ("DP-IMED", (0.9, 0.9), 10, {"eps": 1.0, "n0": 5}),
    ("DP-KLUCB", "mu4", 1001, {"eps": 2.0, "n0": 4, "alpha": 3}),
]


def _same(a, b):
    return all(np.array_equal(getattr(a, f), getattr(b, f)) for f in FIELDS)


@pytest.fixture(params=["1", "0"], ids=["compiled", "numpy"])
def jit(request, monkeypatch):
    """Both engines of the fast path: the compiled runs (default) and the same code as Python."""
    monkeypatch.setenv("DPB_JIT", request.param)
    return request.param


@pytest.mark.parametrize("name, env, T, params", CASES)
def test_fast_path_equals_the_generic_engine(name, env, T, params, jit):
    for seed in range(3):
        fast = simulate(name, env, T, runs=7, seed=seed, params=params)
        generic = simulate(name, env, T, runs=7, seed=seed, params=params, fast=False)
        assert fast.engine == ("numba" if jit == "1" else "python") and generic.engine == "phases"
        assert _same(fast, generic), (name, env, T, params, seed)


def test_runs_split_any_way_give_the_same_numbers(jit):
    kw = dict(seed=11, params={"eps": 0.2, "n0": 1, "alpha": 1.1})
    whole = simulate("DP-IMED", "mu3", 20_000, runs=6, **kw)
    parts = [simulate("DP-IMED", "mu3", 20_000, run_ids=ids, **kw) for ids in ([0, 1, 2, 3], [4], [5])]
    for f in FIELDS:
        assert np.array_equal(getattr(whole, f), np.concatenate([getattr(p, f) for p in parts]))


def test_other_schedules_take_the_fast_path(jit):
    pol = DPIMED(0.5, schedule=PolynomialSchedule(n0=2, power=1.5))
    a = simulate(pol, "mu2", 5000, runs=5, seed=3)
    other = DPIMED(0.5, schedule=PolynomialSchedule(n0=2, power=1.5))
    b = simulate(other, "mu2", 5000, runs=5, seed=3, fast=False)
    assert a.engine in ("numba", "python") and _same(a, b)


def test_a_subclass_with_its_own_phase_logic_runs_on_the_generic_engine():
    class Halved(DPIMED, register=False):  # changes what a phase pulls: the fast path must not run
        def decide(self, rows, t):
            plan = super().decide(rows, t)
            return np.maximum(plan // 2, (plan > 0).astype(np.int64))

    class OwnIndex(DPIMED, register=False):  # only a new index: the fast path applies
        def private_index(self, x, n, t, releases):
            return -x

    assert Halved(0.5).fast_simulate is None
    assert simulate(Halved(0.5), "mu2", 3000, runs=2, seed=0).engine == "phases"
    fast = simulate(OwnIndex(0.5), "mu2", 3000, runs=4, seed=0)
    generic = simulate(OwnIndex(0.5), "mu2", 3000, runs=4, seed=0, fast=False)
    assert fast.engine == "numba" and _same(fast, generic)


def test_record_phases_equals_record_phase_by_phase():
    rng = np.random.default_rng(4)
    gaps = np.array([0.0, 0.1, 0.35, 0.7])
    ck = np.unique(np.concatenate([rng.integers(1, 400, 60), [400]]))
    a, b = Recorder(3, gaps, ck), Recorder(3, gaps, ck)
    t = np.ones(3, dtype=np.int64)
    rows, arms, counts = [], [], []
    while (t <= 400).any():
        live = np.flatnonzero(t <= 400)
        arm = rng.integers(0, 4, live.size)
        c = np.minimum(rng.integers(1, 40, live.size), 401 - t[live])
        plan = np.zeros((live.size, 4), dtype=np.int64)
        plan[np.arange(live.size), arm] = c
        b.record(live, t[live], plan)
        rows.append(live), arms.append(arm), counts.append(c)
        t[live] += c
    a.record_phases(np.concatenate(rows), np.concatenate(arms), np.concatenate(counts))
    for f in ("regret", "pulls", "phases", "reg", "next"):
        assert np.array_equal(getattr(a, f), getattr(b, f)), f
    assert not np.isnan(a.regret).any()


def test_cost_model_prices_the_fast_path_by_phases():
    from dpb.simulate import estimate_cost

    fast = estimate_cost("DP-IMED", "sweep", 10**7, runs=20, params={"eps": 0.01, "n0": 1, "alpha": 1.1})
    generic = estimate_cost("DP-IMED", "sweep", 10**7, runs=20, params={"eps": 0.01, "n0": 1, "alpha": 1.1},
                            fast=False)
    assert fast.engine == "fast" and fast.phases == generic.phases < 1000
    assert fast.seconds <= generic.seconds < 1


def test_the_compiled_runs_are_dp_klucb_and_dp_imed_own_indexes():
    from dpb.policies import DPKLUCB
    from dpb.policies._private_runs import IMED, KLUCB
    from dpb.policies.dp_batched import _kernel_kind

    class OwnIndex(DPIMED, register=False):
        def private_index(self, x, n, t, releases):
            return -x

    assert _kernel_kind(DPIMED(0.5)) == IMED and _kernel_kind(DPKLUCB(0.5)) == KLUCB
    assert _kernel_kind(OwnIndex(0.5)) is None


def test_a_run_is_the_same_from_its_seed_children_or_from_the_root():
    """simulate() hands the root and the ids to the kernel; a list of child SeedSequences (any
    order, any subset, through simulate_seeds) gives the same runs."""
    from dpb.engine import child_seeds
    from dpb.simulate import simulate_seeds

    whole = simulate("DP-KLUCB", "mu2", 20_000, runs=6, seed=123, eps=0.3)
    part = simulate_seeds("DP-KLUCB", "mu2", 20_000, child_seeds(123, [5, 2]), params={"eps": 0.3})
    for f in FIELDS:
        assert np.array_equal(getattr(whole, f)[[5, 2]], getattr(part, f)), f
    other = simulate("DP-KLUCB", "mu2", 20_000, runs=6, seed=124, eps=0.3)
    assert not np.array_equal(whole.regret, other.regret)


def test_compiled_and_python_runs_agree_on_the_sweep_budgets(monkeypatch):
    """The eps-sweep's setting (alpha = 1.1) over a spread of budgets, 4 runs each."""
    from dpb.experiments import sweep_eps_values

    for eps in sweep_eps_values(100)[::12]:
        kw = dict(runs=4, seed=5, params={"eps": eps, "n0": 1, "alpha": 1.1})
        a = simulate("DP-IMED", "sweep", 10**6, engine="numba", **kw)
        assert _same(a, simulate("DP-IMED", "sweep", 10**6, engine="python", **kw)), eps
