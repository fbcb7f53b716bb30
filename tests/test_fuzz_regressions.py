"""Regression tests: every hostile call of issue 12 gives a clean error or a correct result.

The calls that used to hang or to allocate gigabytes run in the fuzz harness' worker process
(memory cap 3 GiB, a generous time cap that only guards against a hang: no speed is asserted
here), the others in this process.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fuzz_harness  # noqa: E402
from fuzz_harness import Build  # noqa: E402

from dpb import audit, batching, concentration, interaction, privacy, regret, simulate  # noqa: E402
from dpb.policies import DPIMED, DPKLUCB  # noqa: E402

HANG_GUARD = 120.0  # seconds; each call below answers in well under a second when it is fixed


def _policy(name="DP-IMED", eps=1.0):
    return Build.of("dpb.policies:make_policy", name, eps=eps)


EXPLODING = [
    # (target, args, kwargs, parameter the error must name)
    ("dpb.batching:batch_sizes", (1, 2, 10**6), {}, "count"),
    ("dpb.simulate:simulate", ("DP-IMED", "mu2", 10**6),
     {"params": {"eps": 0.5, "alpha": 1.00001}, "seed": 1}, "alpha"),
    ("dpb.batching:PolynomialSchedule", (), {"power": 1e-300}, "power"),
    ("dpb.privacy:worst_case_privacy_loss",
     (Build.of("dpb.privacy:exponential_weights_policy", 0.5), 2, 2**31, "view"), {}, "T"),
    ("dpb.audit:audit_lists", (_policy(), (1.0, 0.0, 1.0), (0.0, 0.0, 1.0), 2**31), {}, "runs"),
    ("dpb.concentration:private_sum_sf", (1.0, 10, 2**31, 0.5, 1.0), {}, "m"),
    ("dpb.simulate:simulate", ("DP-SE", "mu2", 10), {"runs": 2**31, "params": {"eps": 0.5}}, "runs"),
    ("dpb.interaction:run_generators_fast", (0, 2**62), {}, "runs"),
    ("dpb.privacy:adaptive_view",
     (Build.of("dpb.privacy:exponential_weights_policy", 0.5),
      Build.of("fuzz_specs:constant_adversary", 1.0, 0.0), 1, "L", 2, 2**62), {}, "T"),
    ("dpb.audit:audit_lists_default", (2**31, 1), {}, "T"),
]


@pytest.fixture(scope="module")
def worker():
    with fuzz_harness.Worker() as w:
        yield w


@pytest.mark.parametrize("target,args,kwargs,param", EXPLODING, ids=[e[0].split(":")[1] for e in EXPLODING])
def test_exploding_calls_are_refused_naming_the_parameter(worker, target, args, kwargs, param):
    reply = worker.call(target, args, kwargs, timeout=HANG_GUARD)
    assert reply[0] == "exc", reply
    _, name, message, clean = reply[:4]
    assert clean and name in ("ValueError", "TypeError"), reply
    assert param in message, message


def test_polynomial_powers_near_zero_are_refused_and_small_ones_computed():
    with pytest.raises(ValueError, match="power must lie in"):
        batching.PolynomialSchedule(power=1e-300)
    sizes = batching.PolynomialSchedule(power=0.001).sizes_until(10**6)
    assert sizes.sum() >= 10**6 and sizes.sum() - sizes[-1] < 10**6
    # B_m = ceil((m + 1)^0.001) = 2 for m >= 1 (and B_0 = 1): the exact ceiling, not the float 1.0
    assert sizes[0] == 1 and set(sizes[1:].tolist()) == {2}


def test_geometric_ratio_within_1e_3_of_one_is_refused_with_the_reason():
    with pytest.raises(ValueError, match=r"alpha must be >= 1\.001.*1/\(alpha - 1\)"):
        batching.GeometricSchedule(1, 1.00001)
    assert batching.GeometricSchedule(1, 1.001).sizes_until(10**6).sum() >= 10**6


def test_laplace_sum_tail_beyond_overflow_is_exact_zero_not_nan():
    # eps z = 1e400 overflows; P[Z >= z] underflows to 0 (log -inf), P[Z >= -z] to 1 (log 0)
    assert concentration.laplace_sum_logsf(1e200, 3, 1e200) == -math.inf
    assert concentration.laplace_sum_logsf(-1e200, 3, 1e200) == 0.0
    assert concentration.laplace_sum_sf(1e200, 3, 1e200) == 0.0


def test_laplace_sum_with_huge_m_is_refused_and_large_m_is_right():
    with pytest.raises(ValueError, match=r"m \* size\(z\)"):
        concentration.laplace_sum_logsf(1.0, 2**63 - 1, 0.5)
    # m = 1e5: Z_m is normal to O(1/m); P[Z >= 1] = 1/2 - phi(0)/sigma + O(sigma^-3), sigma = sqrt(2m)/eps
    m, eps = 10**5, 0.5
    sigma = math.sqrt(2 * m) / eps
    approx = math.log(0.5 - 1 / (math.sqrt(2 * math.pi) * sigma))
    assert concentration.laplace_sum_logsf(1.0, m, eps) == pytest.approx(approx, abs=1e-6)


@pytest.mark.parametrize("call,param", [
    (lambda: privacy.laplace_pdf(np.nan, 0, 1), "x"),
    (lambda: privacy.laplace_log_density_ratio(np.inf, 0, 1, 1), "x"),
    (lambda: privacy.continual_release([1, 0, 1, 1], [0, 2], 5e-324), "eps"),
    (lambda: privacy.laplace_mechanism(1.0, 5e-324), "eps"),
    (lambda: privacy.view_mechanism(privacy.exponential_weights_policy(1.0), [np.nan], 2), "rewards"),
    (lambda: privacy.phase_releases([1.0, np.nan]), "running"),
])
def test_nan_and_inf_where_not_meaningful_are_refused(call, param):
    with pytest.raises(ValueError, match=param):
        call()


def test_a_wrong_rng_is_a_type_error_naming_it():
    with pytest.raises(TypeError, match="rng"):
        privacy.laplace_mechanism(1.0, 1.0, rng="x")


def _transcripts():
    r = (1.0, 0.0, 1.0, 1.0)
    rp = (0.0, 0.0, 1.0, 1.0)
    tr1 = interaction.run_on_list("DP-IMED", r, 40, seed=0, params={"eps": 1.0})
    tr2 = interaction.run_on_list("DP-IMED", rp, 40, seed=1, params={"eps": 1.0})
    return tr1, tr2


@pytest.mark.parametrize("eps,exc", [("x", TypeError), (-1, ValueError), (float("nan"), ValueError),
                                     (True, TypeError)])
def test_audit_refuses_a_bad_claimed_eps(eps, exc):
    tr1, tr2 = _transcripts()
    with pytest.raises(exc, match="eps"):
        audit.audit(tr1, tr2, 1, eps=eps)
    with pytest.raises(exc, match="eps"):
        audit.audit_lists(DPIMED(1.0), (1.0, 0.0, 1.0), (0.0, 0.0, 1.0), 10, eps=eps)


@pytest.mark.parametrize("make", [lambda a: DPIMED(0.5, alpha=a), lambda a: DPKLUCB(0.5, alpha=a),
                                  lambda a: batching.batch_sizes(1, a, 3)])
def test_alpha_as_a_string_is_refused(make):
    with pytest.raises(TypeError, match="alpha"):
        make("2")


@pytest.mark.parametrize("call,param", [
    (lambda: simulate.simulate("DP-IMED", "mu2", 2**62 + 1, params={"eps": 0.5}), "T"),
    (lambda: simulate.checkpoint_grid(2**62 + 1), "T"),
    (lambda: regret.horizon_grid(1000, n=2**63), "n"),
    (lambda: batching.GeometricSchedule(1, 2).sizes_until(2**62), "total"),
    (lambda: batching.GeometricSchedule(1, 2).sizes(100), "count"),
    (lambda: batching.batch_sizes(10**30, 2, 3), "n0"),
    (lambda: simulate.child_seeds(0, [-1]), "run_ids"),
    (lambda: interaction.run_on_list("DP-IMED", (1.0, 0.0), 2**31, params={"eps": 1.0}), "runs"),
])
def test_sizes_past_the_limits_are_a_named_value_error(call, param):
    # no raw OverflowError / MemoryError / IndexError: a ValueError naming the parameter
    with pytest.raises(ValueError, match=param) as info:
        call()
    assert type(info.value) is ValueError


def test_bools_are_not_numbers():
    with pytest.raises(TypeError, match="x"):
        concentration.chernoff_bound(True, 10, 0.5)
    with pytest.raises(TypeError, match="p"):
        from dpb.coupling import maximal_coupling

        maximal_coupling(True, 0.5)
