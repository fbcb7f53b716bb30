"""The readings of DP-SE's elimination rule (dpb.policies.dpse): the default is the faithful
reading unchanged, each reading eliminates with its own threshold, agrees with the literal
reference in distribution, and the readings are ordered as their thresholds are."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import ks_2samp

from dpb.environments import instance
from dpb.policies.dpse import DPSE, ELIMINATION_RULES
from dpb.reference import reference_simulate
from dpb.simulate import simulate, simulate_trace

ENV = instance("mu2")


def test_default_is_the_radius_reading_bit_for_bit():
    a = simulate("DP-SE", ENV, 200_000, runs=6, seed=3, params={"eps": 0.5})
    b = simulate("DP-SE", ENV, 200_000, runs=6, seed=3, params={"eps": 0.5, "elimination": "radius"})
    assert np.array_equal(a.regret, b.regret) and np.array_equal(a.pulls, b.pulls)
    assert DPSE(eps=1.0).params["elimination"] == "radius"


@pytest.mark.parametrize("rule", ELIMINATION_RULES)
def test_first_epoch_threshold(rule):
    eps, beta, K, T = 1.0, 0.1, ENV.K, 60_000
    trace = simulate_trace("DP-SE", ENV, T, seed=1, params={"eps": eps, "beta": beta, "elimination": rule})
    first = trace.phases[0]
    r1 = math.ceil(max(32 * math.log(8 * K / beta) / 0.25, 8 * math.log(4 * K / beta) / (eps * 0.5)))
    h1 = math.sqrt(math.log(8 * K / beta) / (2 * r1))
    c1 = math.log(4 * K / beta) / (eps * r1)
    threshold = {"radius": 2 * (h1 + c1), "half-gap": 0.25, "gap": 0.5}[rule]
    stat = first["statistic"]
    survivors = stat.max() - stat <= threshold
    assert np.array_equal(trace.phases[1]["counts"] > 0, survivors)
    # the design bound behind "half-gap": 2 (h_e + c_e) <= Delta_e / 2
    assert 2 * (h1 + c1) <= 0.25


@pytest.mark.parametrize("rule", ["half-gap", "gap"])
def test_reading_matches_reference(rule):
    # as in tests/test_reference_agreement.py: two-sample KS, false alarm <= 1e-3 per test
    params = {"eps": 1.0, "beta": 0.1, "elimination": rule}
    ref = reference_simulate("DP-SE", "mu2", 6000, runs=200, seed=1000, params=params)
    fast = simulate("DP-SE", "mu2", 6000, runs=400, seed=2000, params=params)
    assert ks_2samp(np.round(ref.final_regret, 9), np.round(fast.final_regret, 9)).pvalue > 1e-3
    assert ks_2samp(ref.pulls[:, 0], fast.pulls[:, 0]).pvalue > 1e-3


def test_readings_are_ordered_by_their_thresholds():
    # a later elimination costs more: mu2 (gaps 0.125..0.5) at eps = 0.25, T = 1e6
    means = {}
    for rule in ELIMINATION_RULES:
        res = simulate("DP-SE", "mu2", 10**6, runs=10, seed=5, params={"eps": 0.25, "elimination": rule})
        means[rule] = res.final_regret.mean()
    assert means["radius"] < means["half-gap"] < means["gap"]
    # on mu1 (gaps 0.05) only the radius reading eliminates within T: the others play uniformly,
    # 4 arms x 0.05 x T / 5 = 40 000
    for rule in ("half-gap", "gap"):
        res = simulate("DP-SE", "mu1", 10**6, runs=4, seed=5, params={"eps": 0.25, "elimination": rule})
        assert np.allclose(res.final_regret, 40_000)


def test_bad_rule():
    with pytest.raises(ValueError, match="elimination must be one of"):
        DPSE(eps=1.0, elimination="delta")


def test_readings_experiment_shares_figure1s_cell(tmp_path):
    from dpb import experiments as E

    readings = E.dpse_readings()
    assert readings.settings[0].cells[0] == E.figure1().settings[0].cells[0]
    small = E.dpse_readings(T=20_000, runs=2, instances=("mu2",))
    res = E.ensure(small, tmp_path, jobs=1, progress=False)
    labelled = E.reading_results(res, 0)
    assert list(labelled) == [f"DP-SE ({r})" for r in ELIMINATION_RULES]
