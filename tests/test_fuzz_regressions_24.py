"""Regression tests of issue 24's library corners (item 5 of its "Why"), one test per group: each
gives a clean error naming the parameter, or the correct value.  The calls that used to allocate
16 to 224 GiB run in the fuzz harness' worker process (memory cap 3 GiB)."""

from __future__ import annotations

import importlib
import math
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fuzz_harness  # noqa: E402
from fuzz_harness import Build  # noqa: E402

import dpb.experiments as E  # noqa: E402
from dpb import divergences, estimates, plain, privacy, reference  # noqa: E402

S = importlib.import_module("dpb.simulate")  # the module (``dpb.simulate`` is its function)

HANG_GUARD = 120.0

ALLOCATIONS = [
    ("dpb.chapters.algorithms:noise_monte_carlo", (100,), {"runs": 2**31}, "runs"),
    ("dpb.chapters.algorithms:forgetting_comparison", (), {"runs": 2**31}, "runs"),
    ("dpb.chapters.concentration:tail_contributions", (0.7, 2**31, 3, 0.5, 0.5), {}, "n"),
    ("dpb.reference:ReferenceBandit", ([0.7, 0.3], 2**31, Build.of("numpy.random:default_rng", 0)), {}, "T"),
    ("dpb.bounds:lower_bound_constant", (Build.of("numpy:full", 10**8, 0.5), 0.5), {}, "mu"),
    ("dpb.bounds:lai_robbins_constant", (Build.of("numpy:full", 10**8, 0.5),), {}, "mu"),
    ("dpb.concentration:monte_carlo_tail", (5.0, 2**63, 1, 0.5, 0.5, 10, 1), {}, "n"),
]


@pytest.fixture(scope="module")
def worker():
    with fuzz_harness.Worker() as w:
        yield w


@pytest.mark.parametrize("target,args,kwargs,param", ALLOCATIONS,
                         ids=[a[0].split(":")[1] for a in ALLOCATIONS])
def test_huge_allocations_are_refused_naming_the_parameter(worker, target, args, kwargs, param):
    reply = worker.call(target, args, kwargs, timeout=HANG_GUARD)
    assert reply[0] == "exc", reply
    _, name, message, clean = reply[:4]
    assert clean and name in ("ValueError", "TypeError"), reply
    assert param in message, message


def test_random_streams_refuse_huge_buffers():
    from dpb.policies import base

    with pytest.raises(ValueError, match=r"block .*asks for"):
        base.RunRandom([np.random.default_rng(0)], block=2**31)


def test_the_reference_refuses_bad_input():
    rng = np.random.default_rng(0)
    with pytest.raises(TypeError, match="rng must be a numpy Generator"):
        reference.reference_run("DP-IMED", {"eps": 0.5}, [0.7, 0.3], 300, None)  # was AttributeError
    for means in ([np.nan, 0.5], [0.5, 1.5]):  # NaN regret, accepted
        with pytest.raises(ValueError, match=r"means must lie in \[0, 1\]"):
            reference.reference_run("DP-IMED", {"eps": 0.5}, means, 300, rng)


def test_mean_interval_of_huge_values_and_of_2d_input():
    est = estimates.mean_interval([1e300, -1e300])  # was IndexError
    assert est.mean == 0.0 and est.lo == -1e300 and est.hi == 1e300
    big = estimates.mean_interval([3e300, 1e300, 2e300, 2.5e300])
    small = estimates.mean_interval([3.0, 1.0, 2.0, 2.5])
    assert big.lo / 1e300 == pytest.approx(small.lo) and big.hi / 1e300 == pytest.approx(small.hi)
    with pytest.raises(ValueError, match="x must be a 1-d sample"):
        estimates.mean_interval([[1, 2], [3, 4]])


@pytest.fixture(scope="module")
def fig_results(tmp_path_factory):
    out = tmp_path_factory.mktemp("tables")
    exp = E.figure1(T=300, runs=2, algorithms=("DP-IMED", "DP-SE", "IMED"))
    E.run(exp, out, jobs=1, progress=False)
    return E.load(exp, out)


def test_summary_tables_refuse_unknown_names(fig_results):
    res = fig_results
    with pytest.raises(ValueError, match=r"ours has unknown entries \['DP-IMD'\]"):
        E.final_regret_table(res.setting(0), ours=("DP-IMD",))
    with pytest.raises(ValueError, match=r"baselines has unknown entries"):
        E.mean_regret_summary(res, baselines=("No-Such",))
    with pytest.raises(ValueError, match=r"baselines names none of the algorithms of fig1"):
        E.ratio_summary(res, baselines=("Lazy-DP-TS",))  # registered, absent: was an empty table
    rows = E.ratio_summary(res, baselines=("DP-SE",), ours=("DP-IMED",))
    assert len(rows) == 2 and all(math.isfinite(r["ratio"]) for r in rows)


def test_pure_privacy_loss_refuses_probabilities_above_one():
    with pytest.raises(ValueError, match=r"p must be probabilities in \[0, 1\]"):
        privacy.pure_privacy_loss([0.5, 1.5], [0.5, 0.5])
    assert privacy.pure_privacy_loss([0.5, 0.5], [0.25, 0.75]) == pytest.approx(math.log(2))


def test_repeated_runs_and_concat_of_non_results():
    with pytest.raises(ValueError, match="run_ids must be distinct, got 0 more than once"):
        S.simulate("DP-IMED", "mu1", 1000, params={"eps": 0.5}, run_ids=[0, 0])
    with pytest.raises(TypeError, match="results must be a sequence of Result, got an item of type int"):
        S.Result.concat([3])  # was AttributeError
    r = S.simulate("DP-IMED", "mu1", 1000, params={"eps": 0.5}, runs=2, seed=1)
    with pytest.raises(ValueError, match="distinct runs"):
        S.Result.concat([r, r])


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


def test_plain_d_eps_computes_what_it_is_given():
    """dpb.plain.d_eps(0.5, 0.1, 0.25) returned kl(0.5, 0.1) = 0.5108 (its formula assumed x <= y)."""
    assert plain.d_eps(0.5, 0.1, 0.25) == pytest.approx(0.0969933321, abs=1e-9)
    for x in np.linspace(0, 1, 11):
        for y in np.linspace(0, 1, 11):
            for eps in (0.01, 0.25, 2.0):
                want = float(divergences.d_eps(x, y, eps))
                assert plain.d_eps(float(x), float(y), eps) == pytest.approx(want, rel=1e-12, abs=1e-15)
