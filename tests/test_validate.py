"""The shared validators of ``dpb._validate`` (one module for every argument check)."""

import importlib
from fractions import Fraction

import numpy as np
import pytest

import dpb
import dpb.experiments as E
from dpb import _validate as V
from dpb.batching import GeometricSchedule
from dpb.coupling import simulate_coupled_environment
from dpb.policies import DPIMED, KLUCB, base

S = importlib.import_module("dpb.simulate")  # the module (``dpb.simulate`` is its function)


def test_check_real_and_check_eps_are_the_policies_checks():
    assert base.check_real is V.check_real and base.check_eps is V.check_eps  # re-exported, not copied
    assert V.check_real("c", 0.0, low=0.0, strict=False) == 0.0
    for bad, exc in ((-1e-9, ValueError), (np.inf, ValueError), (np.nan, ValueError), ("1", TypeError),
                     (True, TypeError), (None, TypeError), ([1.0, 2.0], TypeError)):
        with pytest.raises(exc, match="c must"):
            V.check_real("c", bad, low=0.0, strict=False)
    with pytest.raises(ValueError, match=r"beta must be a finite real number in \(0, 1\]"):
        V.check_real("beta", 0.0, low=0.0, high=1.0)
    assert V.check_eps(np.float32(0.5)) == 0.5 and V.check_eps(1e-300) == 1e-300
    with pytest.raises(ValueError, match="eps must be >= 1e-150"):
        V.check_eps(1e-200, floor=1e-150)
    with pytest.raises(ValueError, match=r"eps must be a finite real number in \(0, inf\)"):
        V.check_eps(np.inf)
    with pytest.raises(ValueError, match="c must be a finite real number in"):  # a policy's parameter
        KLUCB(c=-1.0)
    with pytest.raises(ValueError, match="eps must be a finite real number in"):
        DPIMED(eps=-1.0)


def test_seeds_and_generators_one_rule_everywhere():
    a, b = V.as_rng("rng", 7), np.random.default_rng(np.random.SeedSequence(7))
    assert a.random() == b.random()
    g = np.random.default_rng(1)
    assert V.as_rng("rng", g) is g
    ss = np.random.SeedSequence(3)
    assert V.as_seed_sequence("seed", ss) is ss and V.as_seed_sequence("seed", np.int64(3)).entropy == 3
    for bad, exc in ((-1, ValueError), (1.5, TypeError), ("x", TypeError), (True, TypeError)):
        with pytest.raises(exc, match="rng must"):
            V.as_rng("rng", bad)
        with pytest.raises(exc, match="seed must"):
            simulate_coupled_environment([0.7, 0.3], [0.7, 0.5], horizon=10, n_runs=1, seed=bad)


def test_exact_values_of_schedule_parameters():
    assert V.as_exact("alpha", 1.1) == Fraction(11, 10) and V.as_exact("alpha", np.int64(2)) == 2
    assert V.as_exact("alpha", Fraction(3, 2)) == Fraction(3, 2)
    for bad, exc in (("2", TypeError), (None, TypeError), (True, TypeError), (float("inf"), ValueError)):
        with pytest.raises(exc, match="alpha must"):
            V.as_exact("alpha", bad)
        with pytest.raises(exc, match="alpha must"):
            GeometricSchedule(alpha=bad)


def test_the_other_step_by_step_simulators_refuse_minutes_before_any_work(monkeypatch):
    """run_on_list, run_game, audit_lists and the per-step coupled simulation step through every
    round in Python: hours are refused at once, with the reason and how to lift the limit."""
    import dpb.interaction as I
    from dpb.audit import audit_lists, audit_lists_default

    def never(*args, **kwargs):  # pragma: no cover - reached only by a broken check
        raise AssertionError("the simulation started")

    monkeypatch.setattr(I, "_drive", never)
    lifted = "max_seconds=None"
    with pytest.raises(ValueError, match=rf"run_on_list for T=10000000 and runs=10 .*=120; .*{lifted}"):
        I.run_on_list("DP-IMED", np.ones(10**7), 10, params={"eps": 1.0})
    with pytest.raises(ValueError, match=rf"run_game for T=10000000 .*{lifted}"):
        I.run_game("DP-IMED", I.LeaderAdversary(), 1, "L", 10, 10**7, params={"eps": 1.0})
    with pytest.raises(ValueError,
                       match=rf"audit_lists \(both lists\) for T=1000000 and runs=100 .*{lifted}"):
        audit_lists("DP-IMED", *audit_lists_default(10**6, 1), runs=50, params={"eps": 1.0})
    with pytest.raises(ValueError,
                       match=rf"per-step coupled simulation for horizon=60000000 .*binomial.*{lifted}"):
        simulate_coupled_environment([0.7, 0.3], [0.7, 0.5], horizon=6 * 10**7, n_runs=1, seed=1)
    # the binomial method has no step loop; a small call passes, and the limit is the caller's
    assert simulate_coupled_environment([0.7, 0.3], [0.7, 0.5], horizon=6 * 10**7, n_runs=1, seed=1,
                                        method="binomial").d_ham.shape == (1,)
    with pytest.raises(ValueError, match="max_seconds=1e-09"):
        simulate_coupled_environment([0.7, 0.3], [0.7, 0.5], horizon=10, n_runs=1, seed=1, max_seconds=1e-9)
    monkeypatch.undo()
    tr = I.run_on_list("DP-IMED", np.ones(50), 2, params={"eps": 1.0}, max_seconds=None)
    assert tr.actions.shape == (2, 50)


@pytest.mark.parametrize(
    "call",
    [
        lambda: dpb.BernoulliBandit([0.5, np.float64(1.2)]),
        lambda: dpb.simulate("DP-KLUCB", "mu1", 1000, eps=0.5, alpha=np.float64(0.5)),
        lambda: dpb.simulate("DP-IMED", "mu1", np.float64(100.5), eps=1.0),
        lambda: dpb.divergences.d_eps(np.float64(1.2), 0.5, eps=1.0),
        lambda: dpb.simulate("DP-IMED", "mu1", 1000, eps=np.float64(-1.5)),
    ],
)
def test_messages_print_plain_numbers(call):
    with pytest.raises(ValueError) as exc:
        call()
    assert "np." not in str(exc.value) and "float64" not in str(exc.value), exc.value


FLAGS = [
    (lambda v: S.simulate("DP-IMED", "mu1", 1000, params={"eps": 0.5}, fast=v), "fast"),
    (lambda v: S.simulate("DP-IMED", "mu1", 1000, params={"eps": 0.5}, progress=v), "progress"),
    (lambda v: S.estimate_cost("DP-IMED", "mu1", 1000, params={"eps": 0.5}, fast=v), "fast"),
    (lambda v: E.run([], "/tmp", progress=v), "progress"),
    (lambda v: E.run([], "/tmp", force=v), "force"),
    (lambda v: __import__("dpb.bounds").bounds.upper_bound_constant([0.7, 0.3], 0.5, 2, strict=v), "strict"),
    (lambda v: __import__("dpb.concentration").concentration.chernoff_bound(0.7, 10, 0.5, log=v), "log"),
]


@pytest.mark.parametrize("value", ["no", 2, float("nan"), None])
@pytest.mark.parametrize("call, name", FLAGS, ids=[f"{i}-{f[1]}" for i, f in enumerate(FLAGS)])
def test_boolean_flags_are_not_read_by_truthiness(call, name, value):
    with pytest.raises(TypeError, match=rf"{name} must be True or False"):
        call(value)
