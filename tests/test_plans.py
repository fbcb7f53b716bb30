"""Plans are checked where they are made (issue 24, item 1): a policy whose plan breaks a rule
fails at once with one line naming the policy, the value and the rule, in every engine."""

from __future__ import annotations

import re

import numpy as np
import pytest

from dpb.plans import PlanError, check_arms, check_index, check_plan, check_pulls
from dpb.policies import BatchedPrivatePolicy
from dpb.reference import ReferenceBandit, reference_run
from dpb.simulate import simulate


def _bad_decide(value):
    """A BatchedPrivatePolicy subclass whose decide() replaces the planned pulls by ``value``."""

    class Bad(BatchedPrivatePolicy):
        name = f"Bad-Plan-{value!r}"
        index_kind = "max"

        def private_index(self, x, n, t, releases):
            return x

        def decide(self, rows, t):
            plan = super().decide(rows, t).astype(float)
            plan[plan > 0] = value
            return plan

    return Bad


@pytest.mark.parametrize("value", [-5, 0, np.nan, 1.5, np.inf, 2.0**63])
def test_generic_engine_refuses_bad_pulls(value):
    cls = _bad_decide(value)
    rule = r"(pulls .*: pulls must be integers|the pulls \[0.0, 0.0\] for a phase: a phase must make)"
    with pytest.raises(PlanError, match=rf"policy '{re.escape(cls.name)}' planned {rule}"):
        simulate(cls, [0.7, 0.3], 1000, runs=2, seed=1, params={"eps": 0.5})


def test_generic_engine_refuses_a_plan_of_the_wrong_shape():
    class Short(BatchedPrivatePolicy):
        name = "Short-Plan"

        def private_index(self, x, n, t, releases):
            return x

        def decide(self, rows, t):
            return super().decide(rows, t)[:, :1]

    with pytest.raises(PlanError, match=r"'Short-Plan' planned an array of shape \(2, 1\).*shape \(2, 2\)"):
        simulate(Short, [0.7, 0.3], 1000, runs=2, seed=1, params={"eps": 0.5})


@pytest.mark.parametrize("fast", [True, False])
@pytest.mark.parametrize("index", ["nan", "inf", "-inf", "shape", "text"])
def test_batched_engines_refuse_a_bad_index(fast, index):
    class BadIndex(BatchedPrivatePolicy):
        name = f"Bad-Index-{index}"

        def private_index(self, x, n, t, releases):
            if index in ("nan", "inf", "-inf"):  # an infinite index is refused like a NaN (issue 33)
                return np.where(n > 3, float(index), x)
            if index == "shape":
                return x[:, :1]
            return np.full(x.shape, "a")

    with pytest.raises(PlanError, match=rf"policy 'Bad-Index-{index}' computed .*index"):
        simulate(BadIndex, [0.7, 0.3], 1000, runs=2, seed=1, params={"eps": 0.5}, fast=fast)


def test_the_batched_fast_path_checks_the_schedule_pulls():
    """The fast path takes its pulls from the schedule: a schedule of zero-length batches is refused
    there instead of looping forever."""

    class ZeroBatches(BatchedPrivatePolicy):
        name = "Zero-Batches"

        def private_index(self, x, n, t, releases):
            return x

    pol = ZeroBatches(eps=0.5)
    assert pol.fast_simulate is not None
    pol.schedule.sizes_until = lambda T: np.array([1, 0, 0], dtype=np.int64)  # noqa: ARG005
    with pytest.raises(PlanError, match=r"'Zero-Batches' planned pulls 0: the pulls of a phase"):
        simulate(pol, [0.7, 0.3], 100, runs=1, seed=1)


def test_the_package_policies_plan_valid_phases():
    """The rules hold for the package's own policies (phases past the horizon are cut there)."""
    for name, params in [("DP-IMED", {"eps": 0.1, "alpha": 10}), ("DP-SE", {"eps": 0.01}),
                         ("AdaP-KLUCB", {"eps": 0.5}), ("IMED", {})]:
        res = simulate(name, [0.7, 0.3, 0.5], 777, runs=2, seed=3, params=params, fast=False)
        assert (res.pulls.sum(axis=1) == 777).all()


def test_checkers_name_value_and_rule():
    with pytest.raises(PlanError, match=r"policy 'P' planned arm 3: an arm must be an integer from 0 to K-1"):
        check_arms(type("P", (), {"name": "P"})(), np.array([0, 3]), 3)
    with pytest.raises(PlanError, match=r"planned pulls 0: .*from 1 to the horizon T=10"):
        check_pulls("P", np.array([1, 0]), 10)
    with pytest.raises(PlanError, match=r"planned pulls True|of type bool"):
        check_plan("P", np.array([[True, False]]), 1, 2, 10)
    with pytest.raises(PlanError, match=r"at least one pull"):
        check_plan("P", np.zeros((1, 2)), 1, 2, 10)
    with pytest.raises(PlanError, match=r"NaN index"):
        check_index("P", np.array([[np.nan, 1.0]]), 1, 2)
    with pytest.raises(PlanError, match=r"infinite index \(-inf\).*no inf"):
        check_index("P", np.array([[1.0, -np.inf]]), 1, 2)
    assert check_plan("P", np.array([[0.0, 3.0]]), 1, 2, 10).dtype == np.int64


def _reference_policy(body):
    class WithReference(BatchedPrivatePolicy):
        name = f"Ref-{body.__name__}"

        def private_index(self, x, n, t, releases):
            return x

        reference = staticmethod(body)

    return WithReference


def test_the_reference_checks_pulls_and_the_horizon():
    def arm_out_of_range(env, rng, params):
        env.pull(env.K)

    def negative_phase(env, rng, params):
        env.pull_many(0, -5)

    def stops_early(env, rng, params):
        env.pull(0)

    def nan_arm(env, rng, params):
        env.pull(np.nan)

    rng = np.random.default_rng(0)
    for body, rule in [(arm_out_of_range, r"pulled arm 2: an arm must be an integer from 0 to K-1=1"),
                       (negative_phase, r"planned -5 pulls of arm 0: the pulls of a phase must be"),
                       (stops_early, r"returned after 1 of T=50 rounds"),
                       (nan_arm, r"pulled arm nan: an arm must be")]:
        cls = _reference_policy(body)
        with pytest.raises(PlanError, match=rf"policy '{cls.name}'.*{rule}"):
            reference_run(cls, {"eps": 0.5}, [0.7, 0.3], 50, rng)


def test_reference_bandit_validates_its_arguments():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="asks for 2147483648 array elements"):
        ReferenceBandit([0.7, 0.3], 2**31, rng)
    with pytest.raises(TypeError, match="rng must be a numpy Generator"):
        ReferenceBandit([0.7, 0.3], 10, None)
    with pytest.raises(TypeError, match="rng must be a numpy Generator"):
        reference_run("DP-IMED", {"eps": 0.5}, [0.7, 0.3], 300, None)
    for means in ([np.nan, 0.5], [0.5, 1.5]):
        with pytest.raises(ValueError, match=r"means must lie in \[0, 1\]"):
            reference_run("DP-IMED", {"eps": 0.5}, means, 300, rng)
