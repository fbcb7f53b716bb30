"""Tests of dpb.environments: the paper's instances, gaps, regret and reward sums."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dpb
from dpb.environments import INSTANCES, BernoulliBandit, as_bandit, instance, instance_names
from dpb.experiments import files as F

# The means as printed in the paper (main text and Appendix 'Extended Experiments'; the
# epsilon-sweep paragraph), retyped here independently of the module's table.
PAPER = {
    "mu1": [0.75, 0.70, 0.70, 0.70, 0.70],
    "mu2": [0.75, 0.625, 0.5, 0.375, 0.25],
    "mu3": [0.75, 0.53125, 0.375, 0.28125, 0.25],
    "mu4": [0.75, 0.71875, 0.625, 0.46875, 0.25],
    "sweep": [0.8, 0.1, 0.1, 0.1, 0.1],
}


@pytest.mark.parametrize("name", sorted(PAPER))
def test_paper_instances(name):
    env = instance(name)
    assert env.means.tolist() == PAPER[name]
    assert env.K == 5
    assert env.best_arm == 0
    assert env.mu_star == PAPER[name][0]
    assert np.allclose(env.gaps, PAPER[name][0] - np.array(PAPER[name]), atol=0, rtol=0)
    assert env.name == name


def test_instance_names_and_case():
    assert sorted(instance_names()) == sorted(PAPER) == sorted(INSTANCES)
    assert instance(" MU2 ").means.tolist() == PAPER["mu2"]


def test_unknown_instance_lists_valid_names():
    with pytest.raises(ValueError) as err:
        instance("mu9")
    for name in PAPER:
        assert name in str(err.value)
    with pytest.raises(TypeError):
        instance(3)


@pytest.mark.parametrize("bad", [[0.5, 1.2], [-0.1, 0.5], [0.5, float("nan")], []])
def test_bad_means(bad):
    with pytest.raises(ValueError, match="means"):
        BernoulliBandit(bad)


def test_means_must_be_1d_and_numeric():
    with pytest.raises(ValueError, match="means"):
        BernoulliBandit([[0.1, 0.2]])
    with pytest.raises(TypeError, match="means"):
        BernoulliBandit("0.1, 0.2")


def test_means_are_read_only():
    env = BernoulliBandit([0.2, 0.4])
    with pytest.raises(ValueError):
        env.means[0] = 0.9


def test_several_optimal_arms():
    env = BernoulliBandit([0.3, 0.6, 0.6])
    assert env.optimal_arms.tolist() == [1, 2]
    assert env.best_arm == 1
    assert env.gaps.tolist() == [0.3, 0.0, 0.0]


@settings(max_examples=50, deadline=None)
@given(
    means=st.lists(st.floats(0, 1), min_size=2, max_size=8),
    data=st.data(),
)
def test_regret_is_sum_of_gaps_times_pulls(means, data):
    env = BernoulliBandit(means)
    pulls = np.array(data.draw(st.lists(st.integers(0, 1000), min_size=len(means), max_size=len(means))))
    expected = sum((max(means) - m) * n for m, n in zip(means, pulls, strict=True))
    assert env.regret(pulls) == pytest.approx(expected, rel=1e-12, abs=1e-9)


def test_regret_shape_check():
    with pytest.raises(ValueError, match="K=2"):
        BernoulliBandit([0.1, 0.2]).regret([1, 2, 3])


def test_pull_is_binomial():
    # 4000 sums of n = 50 rewards of mean 0.3: mean 15, sd of the average sqrt(50*0.21/4000) = 0.051;
    # a 5-sigma band has false-alarm probability < 1e-6
    env = instance("mu2")
    rng = np.random.default_rng(1)
    sums = np.array([env.pull(4, 50, rng) for _ in range(4000)])
    assert abs(sums.mean() - 50 * 0.25) < 5 * np.sqrt(50 * 0.25 * 0.75 / 4000)
    assert sums.min() >= 0 and sums.max() <= 50
    with pytest.raises(ValueError, match="arm"):
        env.pull(5, 1, rng)
    with pytest.raises(ValueError, match="n"):
        env.pull(0, -1, rng)


def test_as_bandit():
    env = BernoulliBandit([0.1, 0.9])
    assert as_bandit(env) is env
    assert as_bandit("mu1") == instance("mu1")
    assert as_bandit([0.1, 0.9]) == env
    assert "0.9" in repr(env)


def test_a_bandit_has_at_least_two_arms():
    with pytest.raises(ValueError, match="K >= 2"):
        dpb.BernoulliBandit([0.5])
    with pytest.raises(ValueError, match="K >= 2"):
        dpb.simulate("IMED", [0.7], 100)
    with pytest.raises(ValueError, match="K >= 2"):
        F.read_spec(
            {"name": "x", "horizon": 100, "runs": 1, "means": [0.5], "eps": [1.0], "policies": ["IMED"]}
        )


@pytest.mark.parametrize("call", [
    lambda: as_bandit(["0.9", "0.8"]),
    lambda: as_bandit(np.array(["0.9", "0.8"])),
    lambda: dpb.simulate("IMED", [0.9, "0.8"], 100, runs=1),
    lambda: dpb.simulate("DP-IMED", [0.9, 0.8], 100, runs=1, eps="0.5"),
])
def test_numbers_given_as_text_are_refused(call):
    with pytest.raises(TypeError, match=r"number"):
        call()
