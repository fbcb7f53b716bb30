"""Tests of dpb.simulate: exact horizon and checkpoints, reproducibility, persistence, errors."""

import functools
import importlib

import numpy as np
import pytest

import dpb
from dpb import experiments as E
from dpb.environments import BernoulliBandit, instance
from dpb.policies import DPIMED, make_policy, registered
from dpb.simulate import (
    Result,
    checkpoint_grid,
    child_seeds,
    estimate_cost,
    run_generators,
    simulate,
    simulate_trace,
)

ALL = [
    ("DP-KLUCB", {"eps": 0.25}),
    ("DP-IMED", {"eps": 0.25}),
    ("DP-IMED", {"eps": 0.5, "alpha": 1.1}),
    ("DP-SE", {"eps": 1.0, "beta": 0.1}),
    ("AdaP-KLUCB", {"eps": 0.25}),
    ("AdaP-UCB", {"eps": 0.25}),
    ("Lazy-DP-TS", {"eps": 0.5}),
    ("IMED", {}),
    ("KL-UCB", {}),
]
# every other registered policy, at its paper parameters
ALL += [(name, cls.paper_params(0.25)) for name, cls in registered(builtin=True).items()
        if name not in {n for n, _ in ALL}]


def _timeline_regret(trace, gaps, checkpoints):
    """Regret at checkpoints rebuilt pull by pull from a trace (round-robin inside a phase)."""
    regret = []
    for row in trace.phases:
        arms = np.flatnonzero(row["counts"])
        left = row["counts"].copy()
        while left.sum():
            for a in arms:
                if left[a]:
                    regret.append(gaps[a])
                    left[a] -= 1
    curve = np.cumsum(regret)
    return curve[np.asarray(checkpoints) - 1]


@pytest.mark.parametrize("name, params", ALL)
def test_result_invariants(name, params):
    T = 3000
    env = instance("mu2")
    res = simulate(name, env, T, runs=3, seed=4, params=params)
    assert res.regret.shape == (3, res.checkpoints.size)
    assert np.all(res.pulls.sum(axis=1) == T)  # the horizon cuts the last phase exactly
    assert res.checkpoints[-1] == T and res.checkpoints[0] == 1
    assert np.allclose(res.final_regret, res.pulls @ env.gaps)
    assert np.all(np.diff(res.regret, axis=1) >= -1e-9)  # pseudo-regret never decreases
    # regret grows by at most max gap per round between checkpoints
    steps = np.diff(res.checkpoints)
    assert np.all(np.diff(res.regret, axis=1) <= steps * env.gaps.max() + 1e-9)
    assert res.policy == name and res.T == T and res.env_name == "mu2"


@pytest.mark.parametrize("name, params", [p for p in ALL if p[0] != "KL-UCB"] + [("KL-UCB", {"c": 1.0})])
def test_runs_together_equal_runs_one_by_one(name, params):
    T = 800 if name in ("IMED", "KL-UCB") else 4000
    together = simulate(name, "mu1", T, runs=5, seed=123, params=params)
    alone = Result.concat([simulate(name, "mu1", T, seed=123, run_ids=[i], params=params) for i in range(5)])
    assert together.same_as(alone)
    again = simulate(name, "mu1", T, runs=5, seed=123, params=params)
    assert together.same_as(again)
    shuffled = simulate(name, "mu1", T, seed=123, run_ids=[3, 0, 4], params=params)
    assert np.array_equal(shuffled.regret, together.regret[[3, 0, 4]])
    if name != "DP-SE":  # (DP-SE's pulls are deterministic until its first elimination)
        other = simulate(name, "mu1", T, runs=5, seed=124, params=params)
        assert not np.array_equal(other.regret, together.regret)


def test_checkpoints_are_exact_inside_phases():
    # generic engine: the trace of run 2 is the same trajectory; rebuild its regret pull by pull
    env = instance("mu2")
    T = 5000
    for name, params in [("DP-IMED", {"eps": 0.5}), ("DP-SE", {"eps": 1.0, "beta": 0.1})]:
        res = simulate(name, env, T, runs=3, seed=8, params=params, fast=False)
        trace = simulate_trace(name, env, T, seed=8, params=params, run_id=2)
        assert np.allclose(res.regret[2], _timeline_regret(trace, env.gaps, res.checkpoints))
        assert res.n_phases[2] == len(trace)


@pytest.mark.parametrize("name", ["IMED", "KL-UCB", "Lazy-DP-TS"])
def test_fast_path_checkpoints_match_pulls(name):
    # per-step fast paths: the regret at T is the pull counts weighted by gaps, and every
    # checkpoint is a value the curve takes (monotone, bounded by t * max gap)
    env = instance("mu4")
    params = {"eps": 1.0} if name == "Lazy-DP-TS" else {}
    res = simulate(name, env, 20_000, runs=2, seed=1, params=params, checkpoints=np.arange(1, 20_001))
    assert np.allclose(res.regret[:, -1], res.pulls @ env.gaps)
    inc = np.diff(res.regret, axis=1)  # one pull per round: each increment is one of the gaps
    assert np.all(np.isclose(inc[..., None], env.gaps).any(axis=-1))
    assert res.n_phases.tolist() == [20_000, 20_000]


def test_child_seeds_are_the_spawned_children():
    spawned = np.random.SeedSequence(42).spawn(6)
    built = child_seeds(42, range(6))
    for a, b in zip(spawned, built, strict=True):
        assert np.array_equal(a.generate_state(4), b.generate_state(4))
    env_a, pol_a = run_generators(spawned[3])
    env_b, pol_b = run_generators(built[3])
    assert env_a.random() == env_b.random() and pol_a.random() == pol_b.random()
    assert env_b.random() != pol_b.random()


def test_seed_none_is_recorded_and_replayable():
    res = simulate("DP-IMED", "mu2", 2000, runs=2, params={"eps": 1.0})
    again = simulate("DP-IMED", "mu2", 2000, runs=2, seed=res.seed, params={"eps": 1.0})
    assert np.array_equal(res.regret, again.regret)


def test_policy_specs():
    a = simulate("DP-IMED", "mu2", 2000, runs=2, seed=1, params={"eps": 1.0})
    b = simulate(DPIMED(eps=1.0), "mu2", 2000, runs=2, seed=1)
    c = simulate(("DP-IMED", {"eps": 1.0}), [0.75, 0.625, 0.5, 0.375, 0.25], 2000, runs=2, seed=1)
    d = simulate(lambda eps: DPIMED(eps=eps), "mu2", 2000, runs=2, seed=1, params={"eps": 1.0})
    for other in (b, c, d):
        assert np.array_equal(a.regret, other.regret)
    assert a.params == {"eps": 1.0, "schedule": {"kind": "geometric", "n0": 1, "alpha": 2}}


def test_checkpoint_grid():
    all_, log, lin = checkpoint_grid(10**6, 50, 20)
    assert all_[0] == 1 and all_[-1] == 10**6
    assert np.all(np.diff(all_) > 0)
    assert np.array_equal(np.union1d(log, lin), all_)
    assert lin.tolist() == [50_000 * k for k in range(1, 21)]
    spacing = np.diff(np.log(log[log > 1000]))  # log-spaced: log(10^6) / 49 apart (up to rounding)
    assert np.allclose(spacing, np.log(10**6) / 49, atol=2e-3)
    res = simulate("DP-KLUCB", "mu1", 10_000, seed=0, params={"eps": 1.0}, checkpoints=10)
    ck, reg = res.on_grid("linear")
    assert ck.tolist() == [1000 * k for k in range(1, 11)] and reg.shape == (1, 10)
    with pytest.raises(ValueError, match="grid"):
        res.on_grid("quadratic")


def test_save_load_roundtrip(tmp_path):
    res = simulate("DP-SE", "mu3", 5000, runs=3, seed=5, params={"eps": 1.0})
    path = res.save(tmp_path / "cell")
    assert path.suffix == ".npz" and path.exists()
    back = Result.load(path)
    assert back.same_as(res)
    assert back.elapsed == res.elapsed


def test_concat_rejects_mismatch():
    a = simulate("DP-IMED", "mu2", 2000, seed=1, params={"eps": 1.0})
    b = simulate("DP-IMED", "mu2", 2000, seed=2, params={"eps": 1.0})
    with pytest.raises(ValueError, match="concatenate"):
        Result.concat([a, b])
    with pytest.raises(ValueError, match="at least one"):
        Result.concat([])


def test_summary_helpers():
    res = simulate("DP-IMED", "mu2", 2000, runs=4, seed=1, params={"eps": 1.0})
    assert np.allclose(res.mean_regret, res.regret.mean(axis=0))
    assert np.allclose(res.std_regret, res.regret.std(axis=0, ddof=1))
    assert res.runs == 4 and res.K == 5
    assert np.array_equal(res.laplace_draws, res.n_phases)  # one Laplace draw per phase


@pytest.mark.parametrize(
    "call, exc, word",
    [
        (lambda: simulate("DP-KLUCB", "mu1", 4, params={"eps": 1.0}), ValueError, "T must be >= 5"),
        (
            lambda: simulate("DP-KLUCB", "mu1", 14, params={"eps": 1.0, "n0": 3}),
            ValueError,
            "T must be >= 15",
        ),
        (lambda: simulate("DP-KLUCB", "mu1", 0, params={"eps": 1.0}), ValueError, "T"),
        (lambda: simulate("DP-KLUCB", "mu1", 100, params={"eps": 0.0}), ValueError, "eps"),
        (lambda: simulate("DP-KLUCB", "mu1", 100, params={"eps": -1.0}), ValueError, "eps"),
        (lambda: simulate("IMED", [0.5, 1.5], 100), ValueError, "means"),
        (lambda: simulate("IMED", "mu7", 100), ValueError, "mu1"),
        (lambda: simulate("UCB", "mu1", 100), ValueError, "DP-IMED"),
        (lambda: simulate("IMED", "mu1", 100, runs=0), ValueError, "runs"),
        (lambda: simulate("IMED", "mu1", 100, runs=2, run_ids=[0, 1, 2]), ValueError, "run_ids"),
        (lambda: simulate("IMED", "mu1", 100, run_ids=[-1]), ValueError, "run_ids"),
        (lambda: simulate("IMED", "mu1", 100, seed=-3), ValueError, "seed"),
        (lambda: simulate("IMED", "mu1", 100, seed="abc"), TypeError, "seed"),
        (lambda: simulate(DPIMED(eps=1), "mu1", 100, params={"eps": 2}), TypeError, "params"),
        (lambda: simulate(42, "mu1", 100), TypeError, "policy"),
        (lambda: simulate("IMED", "mu1", 100, checkpoints=np.array([0, 5])), ValueError, "checkpoints"),
        (lambda: simulate("IMED", "mu1", 100, checkpoints=[0.5]), ValueError, "checkpoints"),
    ],
)
def test_bad_input(call, exc, word):
    with pytest.raises(exc, match=word):
        call()


def test_trace_table_and_init():
    env = BernoulliBandit([0.6, 0.4, 0.3])
    trace = simulate_trace("DP-KLUCB", env, 200, seed=1, params={"eps": 0.5})
    table = trace.table()
    assert table["counts"].shape == (len(trace), 3)
    assert table["t"][0] == 1 and np.all(np.diff(table["t"]) == table["pulls"][:-1])
    assert np.isnan(table["index"][:3]).all() and not np.isnan(table["index"][3:]).any()
    assert table["regret"][-1] == pytest.approx(float(table["counts"].sum(axis=0) @ env.gaps))
    res = simulate("DP-KLUCB", env, 200, seed=1, params={"eps": 0.5}, fast=False, run_ids=[0])
    assert np.array_equal(res.pulls[0], table["counts"].sum(axis=0))


def test_generic_engine_accepts_any_policy_object():
    # the per-step classes also run through the generic phase engine (fast=False)
    res = simulate(make_policy("IMED"), "mu2", 500, runs=2, seed=3, fast=False)
    assert res.engine == "phases" and np.all(res.pulls.sum(axis=1) == 500)
    assert res.n_phases.tolist() == [500, 500]


def test_record_runs_equals_record_steps():
    # stretches of one arm (the sparse windows of the Lazy-DP-TS fast path) give exactly the
    # regret, pulls and phases of the same pulls recorded one by one
    from dpb.engine import Recorder

    rng = np.random.default_rng(5)
    gaps = np.array([0.0, 0.125, 0.25, 0.5])
    ck = np.unique(rng.integers(1, 3000, size=60))
    a, b = Recorder(1, gaps, ck), Recorder(1, gaps, ck)
    t = 1
    while t <= 2900:
        arms = rng.integers(0, 4, size=rng.integers(1, 6))
        lengths = rng.integers(1, 40, size=arms.size)
        a.record_runs(0, t, arms, lengths)
        b.record_steps(0, t, np.repeat(arms, lengths))
        t += int(lengths.sum())
    done = ck < t
    assert np.allclose(a.regret[0, done], b.regret[0, done], rtol=0, atol=1e-9)
    assert np.array_equal(a.pulls, b.pulls) and np.array_equal(a.phases, b.phases)
    assert np.isnan(a.regret[0, ~done]).all() and a.next[0] == b.next[0]


# ----------------------------------------------------------------------------------------------
# the work bound: estimated before any work, refused with the reason, liftable
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name, params", ALL)
@pytest.mark.parametrize("env", ["mu1", "mu4"])
def test_phase_bound_of_the_cost_model_holds(name, params, env):
    """The cost model's phases per run bound every run's phases (generic engine, fast=False)."""
    from dpb.simulate import estimate_cost

    for T in (200, 3000):
        res = simulate(name, env, T, runs=3, seed=5, params=params, fast=False)
        bound = estimate_cost(name, env, T, params=params, fast=False).phases
        assert res.n_phases.max() <= bound <= T, (T, res.n_phases.max(), bound)


def test_cost_model_prices_the_engine_that_will_run(monkeypatch):
    """IMED's and KL-UCB's compiled kernels are priced at their own cost; uncompiled
    (``engine="python"``, or the default under DPB_JIT=0: about 100x slower) at theirs."""
    from dpb.simulate import estimate_cost

    for name in ("IMED", "KL-UCB"):
        compiled = estimate_cost(name, "mu1", 10**6, runs=20).seconds
        assert estimate_cost(name, "mu1", 10**6, runs=20, engine="numba").seconds == compiled
        python = estimate_cost(name, "mu1", 10**6, runs=20, engine="python").seconds
        assert python >= 50 * compiled, (name, compiled, python)
        monkeypatch.setenv("DPB_JIT", "0")
        assert estimate_cost(name, "mu1", 10**6, runs=20).seconds == python
        monkeypatch.delenv("DPB_JIT")
    # Lazy-DP-TS has one engine: the setting does not change its price
    lazy = functools.partial(estimate_cost, "Lazy-DP-TS", "mu1", 10**6, runs=20, params={"eps": 0.25})
    assert lazy(engine="python").seconds == lazy().seconds
    with pytest.raises(ValueError, match="engine must be None, 'numba', 'python' or 'reference'"):
        estimate_cost("IMED", "mu1", 100, engine="fast")


def test_doubling_and_schedule_bounds_are_logarithmic():
    from dpb.simulate import estimate_cost

    for name, params in ALL:
        if name in ("IMED", "KL-UCB", "Lazy-DP-TS"):
            assert estimate_cost(name, "mu1", 10**6, params=params).phases == 10**6
        else:  # K log T, far below T: a batched policy at 2**62 rounds costs a fraction of a second
            assert estimate_cost(name, "mu1", 10**6, params=params, fast=False).phases < 5 * 200
            assert estimate_cost(name, "mu1", 2**62, params=params, fast=False).seconds < 5


@pytest.mark.parametrize("name, T, runs", [("IMED", 10**12, 1), ("KL-UCB", 10**9, 1),
                                           ("Lazy-DP-TS", 10**9, 20), ("IMED", 10**6, 10**6)])
def test_hours_are_refused_before_any_work(name, T, runs, monkeypatch):
    """Refused with T, runs, the estimate and the limit named, and before any simulation."""
    S = importlib.import_module("dpb.simulate")  # the module: ``dpb.simulate`` is its function

    def never(*args, **kwargs):  # pragma: no cover - reached only by a broken check
        raise AssertionError("the simulation started")

    monkeypatch.setattr(S, "_run_seeds", never)
    monkeypatch.setattr(S, "_simulate_with_progress", never)
    params = {"eps": 0.5} if name == "Lazy-DP-TS" else None
    with pytest.raises(ValueError, match=r"T=\d+ and runs=\d+ is estimated at .* CPU-seconds .*"
                                         r"max_seconds=120; .*max_seconds=None"):
        simulate(name, "mu1", T, runs=runs, params=params)
    with pytest.raises(ValueError, match="max_seconds"):
        simulate(name, "mu1", T, runs=runs, params=params, fast=False)


def test_paper_scales_pass_the_default_limit():
    """The paper's cells and the largest chunks of the converged scale are within the limit."""
    from dpb.experiments import experiment
    from dpb.simulate import MAX_SECONDS, estimate_cost

    for exp in (experiment("fig1"), experiment("appendix"), experiment("eps-sweep")):
        for cell in exp.cells:
            for runs in (20, 320, 10240):  # 10240: the last block of the converged scale's cap
                chunk = min(runs, 5) if cell.policy == "Lazy-DP-TS" else runs
                if cell.policy == "IMED":
                    chunk = min(runs, 320)  # its largest converged chunk (cells of 640 runs)
                cost = estimate_cost(cell.policy, cell.bandit(), cell.T, chunk, params=cell.params)
                assert cost.seconds <= MAX_SECONDS, (cell.key, chunk, cost)


def test_limit_is_adjustable_and_liftable():
    from dpb.simulate import estimate_cost

    cost = estimate_cost("DP-IMED", "mu2", 2000, runs=2, params={"eps": 0.5}).seconds
    with pytest.raises(ValueError, match="max_seconds"):
        simulate("DP-IMED", "mu2", 2000, runs=2, seed=1, params={"eps": 0.5}, max_seconds=cost / 2)
    a = simulate("DP-IMED", "mu2", 2000, runs=2, seed=1, params={"eps": 0.5}, max_seconds=None)
    b = simulate("DP-IMED", "mu2", 2000, runs=2, seed=1, params={"eps": 0.5}, max_seconds=cost * 2)
    assert a.same_as(b)
    with pytest.raises(ValueError, match="max_seconds"):
        simulate_trace("IMED", "mu2", 10**8, seed=1)
    for bad, exc in ((0, ValueError), (-1.0, ValueError), (float("nan"), ValueError), ("x", TypeError),
                     (True, TypeError)):
        with pytest.raises(exc, match="max_seconds"):
            simulate("DP-IMED", "mu2", 2000, params={"eps": 0.5}, max_seconds=bad)


def test_own_policy_may_declare_its_phases():
    """A policy of one's own is assumed per-step unless it declares ``max_phases(K, T)``."""
    from dpb.simulate import estimate_cost

    class Declared(DPIMED):
        name = "test-declared-dpimed"

        def max_phases(self, K, T):
            return 7

    class NewIndex(DPIMED):  # the package's phases, another index: the schedule's bound
        name = "test-newindex-dpimed"

        def private_index(self, x, n, t, releases):
            return super().private_index(x, n, t, releases)

    class NewPhases(DPIMED):  # its own decide: assumed per-step
        name = "test-newphases-dpimed"

        def decide(self, rows, t):
            return super().decide(rows, t)

    assert estimate_cost(Declared(eps=0.5), "mu2", 10**6).phases == 7
    assert estimate_cost(NewIndex(eps=0.5), "mu2", 10**6).phases == estimate_cost(
        "DP-IMED", "mu2", 10**6, params={"eps": 0.5}).phases < 1000
    assert estimate_cost(NewPhases(eps=0.5), "mu2", 10**6).phases == 10**6


@pytest.mark.parametrize("name, params, fast", [("IMED", {}, True), ("Lazy-DP-TS", {"eps": 0.5}, True),
                                                ("DP-IMED", {"eps": 0.5}, False), ("KL-UCB", {}, False)])
def test_progress_bar_changes_no_number(name, params, fast, capsys):
    plain = simulate(name, "mu2", 3000, runs=13, seed=4, params=params, fast=fast)
    shown = simulate(name, "mu2", 3000, runs=13, seed=4, params=params, fast=fast, progress=True)
    assert plain.same_as(shown)
    err = capsys.readouterr().err
    assert name in err and ("13/13" in err or "39.0k/39.0k" in err), err[-300:]


def test_a_wrong_dpb_jit_value_is_a_clear_error(monkeypatch):
    """DPB_JIT is 0 or 1: "false" or "off" must not silently leave the compiled kernels on."""
    from dpb._jit import jit_enabled

    for value, on in (("0", False), ("1", True), ("", True), (" 0 ", False)):
        monkeypatch.setenv("DPB_JIT", value)
        assert jit_enabled() is on, value
    for bad in ("false", "off", "2", "yes"):
        monkeypatch.setenv("DPB_JIT", bad)
        with pytest.raises(ValueError, match="DPB_JIT must be 0 .* or 1 .*got"):
            simulate("IMED", "mu1", 100, runs=1)


def test_policy_parameters_as_keywords_are_the_params_dict():
    a = dpb.simulate("DP-KLUCB", "mu2", 20_000, runs=3, seed=7, eps=0.5, alpha=3, n0=2)
    b = dpb.simulate("DP-KLUCB", "mu2", 20_000, runs=3, seed=7, params={"eps": 0.5, "alpha": 3, "n0": 2})
    assert a.same_as(b)
    assert (
        estimate_cost("DP-IMED", "mu1", 10**6, eps=0.5).seconds
        == estimate_cost("DP-IMED", "mu1", 10**6, params={"eps": 0.5}).seconds
    )
    trace = simulate_trace("DP-IMED", "mu2", 500, seed=1, eps=1.0)
    assert trace.params["eps"] == 1.0


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda: dpb.simulate("DP-KLUCB", "mu1", 100, eps=0.5, max_second=3),
            "'max_second': it is neither an option of simulate nor a parameter of DP-KLUCB "
            "(its parameters: eps, n0",
        ),
        (lambda: dpb.simulate("DP-KLUCB", "mu1", 100, eps=0.5, params={"eps": 1.0}), "eps given twice"),
        (lambda: dpb.simulate(dpb.policies.DPIMED(0.5), "mu1", 100, alpha=3), "whose parameters are fixed"),
        (lambda: dpb.simulate("IMED", "mu1", 100, eps=0.5), "its parameters: none"),
    ],
)
def test_a_keyword_that_is_no_parameter_is_named(call, message):
    with pytest.raises(TypeError) as exc:
        call()
    assert message in str(exc.value)


def test_seed_accepts_a_generator_reproducibly():
    a = dpb.simulate("DP-IMED", "mu2", 5000, runs=2, seed=np.random.default_rng(11), eps=1.0)
    b = dpb.simulate("DP-IMED", "mu2", 5000, runs=2, seed=np.random.default_rng(11), eps=1.0)
    assert a.same_as(b)
    assert a.seed == int(np.random.default_rng(11).integers(0, 2**63, dtype=np.int64))  # one draw
    assert dpb.simulate("DP-IMED", "mu2", 5000, runs=2, seed=a.seed, eps=1.0).same_as(a)  # replayable
    gen = np.random.default_rng(11)
    first = dpb.simulate("DP-IMED", "mu2", 5000, seed=gen, eps=1.0)
    assert dpb.simulate("DP-IMED", "mu2", 5000, seed=gen, eps=1.0).seed != first.seed  # it advanced
    ss = np.random.SeedSequence(5)
    assert dpb.simulate("IMED", "mu1", 500, seed=ss).same_as(dpb.simulate("IMED", "mu1", 500, seed=5))
    with pytest.raises(TypeError, match="numpy Generator"):
        dpb.simulate("IMED", "mu1", 500, seed="5")


def test_repeated_runs_and_concat_of_non_results():
    with pytest.raises(ValueError, match="run_ids must be distinct, got 0 more than once"):
        simulate("DP-IMED", "mu1", 1000, params={"eps": 0.5}, run_ids=[0, 0])
    with pytest.raises(TypeError, match="results must be a sequence of Result, got an item of type int"):
        Result.concat([3])  # was AttributeError
    r = simulate("DP-IMED", "mu1", 1000, params={"eps": 0.5}, runs=2, seed=1)
    with pytest.raises(ValueError, match="distinct runs"):
        Result.concat([r, r])


def test_a_missing_parameter_names_the_policy_and_the_fix():
    for call in (lambda: dpb.simulate("DP-IMED", [0.9, 0.8], 100, runs=1),
                 lambda: E.Cell.make("DP-KLUCB", [0.9, 0.8], 100, 1, {})):
        with pytest.raises(TypeError) as info:
            call()
        text = str(info.value)
        assert "needs the parameter eps" in text and "eps=" in text and "BatchedPrivatePolicy" not in text
        assert text.startswith(("DP-IMED", "DP-KLUCB"))
