"""Tests of dpb.batching against the paper's geometric batch schedule computed in exact arithmetic."""

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpb import batching
from dpb import concentration as conc
from dpb.chapters import algorithms as chapter
from dpb.batching import (
    DoublingSchedule,
    GeometricSchedule,
    PolynomialSchedule,
    batch_sizes,
    cumulative_sizes,
    make_schedule,
)


def exact_sizes(n0: int, alpha: Fraction, count: int) -> list[int]:
    """B_m = ceil(n0 (a^{m+1}-1)/(a-1)) - ceil(n0 (a^m-1)/(a-1)), brute force with Fractions."""

    def ceil(x: Fraction) -> int:
        return -((-x.numerator) // x.denominator)

    cum = [ceil(n0 * (alpha ** (m + 1) - 1) / (alpha - 1)) for m in range(count)]
    return [c - p for c, p in zip(cum, [0] + cum[:-1], strict=True)]


def test_paper_experiment_schedule_is_doubling():
    # n0 = 1, alpha = 2 (the paper's experiments): B_m = 2^m
    assert batch_sizes(1, 2, 20).tolist() == [2**m for m in range(20)]


@settings(max_examples=60, deadline=None)
@given(n0=st.integers(1, 50), alpha=st.integers(2, 12), count=st.integers(1, 15))
def test_integer_alpha_gives_exact_powers(n0, alpha, count):
    # the paper: "When alpha is an integer, B_m = n0 alpha^m"
    assert batch_sizes(n0, alpha, count).tolist() == [n0 * alpha**m for m in range(count)]


@settings(max_examples=80, deadline=None)
@given(
    n0=st.integers(1, 40),
    alpha=st.sampled_from(["1.1", "1.5", "1.25", "1.05", "1.01", "2.5", "3.75", "1.001", "1.3333"]),
    count=st.integers(1, 60),
)
def test_non_integer_alpha_matches_exact_formula(n0, alpha, count):
    # float alpha is read as the decimal it prints as; compare with the exact rational formula
    count = min(count, int(50 / np.log2(float(alpha))))  # keep n_m well below the int64 range
    got = batch_sizes(n0, float(alpha), count).tolist()
    assert got == exact_sizes(n0, Fraction(alpha), count)


def test_float_ceil_trap_at_exact_integers():
    # alpha = 1.5, n0 = 2: n_m = ceil(4 (1.5^{m+1} - 1)) is an exact integer for m = 0, 1 (2, 5), where
    # a naive float ceil is one ulp away from being off by one
    sched = GeometricSchedule(2, 1.5)
    assert sched.cumulative(2).tolist() == [2, 5]
    assert sched.sizes(40).tolist() == exact_sizes(2, Fraction(3, 2), 40)


def test_cumulative_and_sizes_are_consistent():
    sched = GeometricSchedule(3, 1.1)
    sizes = sched.sizes(100)
    cum = sched.cumulative(100)
    assert sizes[0] == 3
    assert np.all(sizes >= 1)
    assert np.array_equal(np.cumsum(sizes), cum)
    assert np.array_equal(cumulative_sizes(3, 1.1, 100), cum)


@settings(max_examples=40, deadline=None)
@given(n0=st.integers(1, 20), alpha=st.sampled_from([1.1, 2, 3, 1.5]), total=st.integers(1, 10**7))
def test_sizes_until_covers_exactly(n0, alpha, total):
    sizes = GeometricSchedule(n0, alpha).sizes_until(total)
    cum = np.cumsum(sizes)
    assert cum[-1] >= total
    assert cum.size == 1 or cum[-2] < total


def test_doubling():
    assert DoublingSchedule(3).sizes(8).tolist() == [3 * 2**m for m in range(8)]
    assert np.array_equal(DoublingSchedule(3).sizes(30), GeometricSchedule(3, 2).sizes(30))


@settings(max_examples=40, deadline=None)
@given(n0=st.integers(1, 30), num=st.integers(1, 9), den=st.integers(1, 4), count=st.integers(1, 40))
def test_polynomial_is_smallest_integer_above(n0, num, den, count):
    # B_m = ceil(n0 (m+1)^{a/b}): check B^b >= n0^b (m+1)^a > (B-1)^b with exact integers
    p = Fraction(num, den)
    sizes = PolynomialSchedule(n0, p).sizes(count)
    for m, b in enumerate(sizes.tolist()):
        rhs = n0**p.denominator * (m + 1) ** p.numerator
        assert b**p.denominator >= rhs > (b - 1) ** p.denominator


def test_polynomial_batch_count_is_sublinear():
    # n_m ~ m^{p+1}/(p+1): the number of batches to reach 10^6 pulls is ~ (3e6)^{1/3} ~ 144
    sizes = PolynomialSchedule(1, 2).sizes_until(10**6)
    assert 100 < sizes.size < 200
    assert sizes.tolist()[:4] == [1, 4, 9, 16]


@pytest.mark.parametrize(
    "kwargs, exc, word",
    [
        ({"n0": 0, "alpha": 2}, ValueError, "n0"),
        ({"n0": 1.5, "alpha": 2}, ValueError, "n0"),
        ({"n0": True, "alpha": 2}, TypeError, "n0"),
        ({"n0": 1, "alpha": 1}, ValueError, "alpha"),
        ({"n0": 1, "alpha": 0.5}, ValueError, "alpha"),
        ({"n0": 1, "alpha": float("nan")}, ValueError, "alpha"),
        ({"n0": 1, "alpha": float("inf")}, ValueError, "alpha"),
        ({"n0": 1, "alpha": "two"}, TypeError, "alpha"),
    ],
)
def test_geometric_validation(kwargs, exc, word):
    with pytest.raises(exc, match=word):
        GeometricSchedule(**kwargs)


def test_polynomial_validation():
    with pytest.raises(ValueError, match="power"):
        PolynomialSchedule(1, 0)
    with pytest.raises(ValueError, match="n0"):
        PolynomialSchedule(0, 2)


def test_sizes_until_with_huge_ratio_and_overflow():
    # alpha = 1000: the cache grows past 2**62 pulls within a block; only the needed entries count
    assert GeometricSchedule(1, 1000).sizes_until(10**12).tolist() == [1000**m for m in range(5)]
    with pytest.raises(ValueError, match="count = 10 .*2\\*\\*62"):
        GeometricSchedule(1, 1000).sizes(10)


def test_make_schedule():
    assert make_schedule(None, n0=2, alpha=3).sizes(3).tolist() == [2, 6, 18]
    sched = PolynomialSchedule(1, 2)
    assert make_schedule(sched) is sched
    with pytest.raises(ValueError, match="schedule"):
        make_schedule("fibonacci")
    with pytest.raises(TypeError, match="schedule"):
        make_schedule(3.0)


def test_params_and_repr():
    assert GeometricSchedule(1, 2).params() == {"kind": "geometric", "n0": 1, "alpha": 2}
    assert GeometricSchedule(1, 1.1).params()["alpha"] == 1.1
    assert "PolynomialSchedule" in repr(PolynomialSchedule(2, 1.5))


# ----------------------------------------------------------------------------------------------
# composition of the private mean, noise standard deviation
# ----------------------------------------------------------------------------------------------
def test_composition_doubling_closed_form():
    # doubling from 1: phase ends n_m = 2^{m+1} - 1, batches B_m = 2^m
    n = np.array([1, 2, 3, 6, 7, 8, 14, 15, 1023])
    M = np.floor(np.log2(n + 1)).astype(int) - 1  # last phase with 2^{M+1} - 1 <= n
    r, k = chapter.private_mean_composition(n, 1, 2, "accumulate")
    np.testing.assert_array_equal(r, 2 ** (M + 1) - 1)
    np.testing.assert_array_equal(k, M + 1)
    r, k = chapter.private_mean_composition(n, 1, 2, "forget")
    np.testing.assert_array_equal(r, 2**M)
    np.testing.assert_array_equal(k, np.ones_like(M))
    assert chapter.private_mean_composition(7) == (7, 3)  # scalars stay scalars
    assert isinstance(chapter.private_mean_composition(7)[0], int)


def test_composition_polynomial_schedule():
    # B_m = m + 1: n_M = (M+1)(M+2)/2
    sched = PolynomialSchedule(n0=1, power=1)
    assert chapter.private_mean_composition(10, design="accumulate", schedule=sched) == (10, 4)
    assert chapter.private_mean_composition(14, design="accumulate", schedule=sched) == (10, 4)
    assert chapter.private_mean_composition(15, design="forget", schedule=sched) == (5, 1)


def test_noise_std_formulas():
    eps = 0.5
    for M in range(6):
        n = 2 ** (M + 1) - 1
        acc = chapter.noise_std_of_private_mean(n, 1, 2, eps, "accumulate")
        fgt = chapter.noise_std_of_private_mean(n, 1, 2, eps, "forget")
        assert acc == pytest.approx(math.sqrt(2 * (M + 1)) / (eps * n), rel=1e-14)
        assert fgt == pytest.approx(math.sqrt(2) / (eps * 2**M), rel=1e-14)
    # array input, n0 = 3, alpha = 3: B_m = 3^{m+1}, n_m = 3 (3^{m+1} - 1) / 2
    n = np.array([3, 12, 39])
    np.testing.assert_allclose(chapter.noise_std_of_private_mean(n, 3, 3, 1.0, "accumulate"),
                               np.sqrt(2 * np.arange(1, 4)) / n, rtol=1e-14)
    np.testing.assert_allclose(chapter.noise_std_of_private_mean(n, 3, 3, 1.0, "forget"),
                               math.sqrt(2) / (3 * 3.0 ** np.arange(3)), rtol=1e-14)


def test_accumulated_noise_is_larger_but_grows_like_sqrt_log():
    n = 2 ** np.arange(4, 20) - 1
    acc = chapter.noise_std_of_private_mean(n, eps=1.0, design="accumulate")
    fgt = chapter.noise_std_of_private_mean(n, eps=1.0, design="forget")
    ratio = acc / fgt  # = sqrt(M+1) B_M / n_M ~ sqrt(M+1) / 2
    assert np.all(np.diff(ratio) > 0)
    np.testing.assert_allclose(ratio, np.sqrt(np.log2(n + 1)) * (n + 1) / 2 / n, rtol=1e-12)


@pytest.mark.parametrize(
    "kwargs,err,match",
    [
        ({"n": 0}, ValueError, "n must be >= 1"),
        ({"n": 2.5}, ValueError, "integers"),
        ({"n": [3, np.nan]}, ValueError, "integers"),
        ({"n": 3, "design": "keep"}, ValueError, "design"),
        ({"n": 3, "eps": 0.0}, ValueError, "eps"),
        ({"n": 3, "alpha": 1.0}, ValueError, "alpha"),
        ({"n": 3, "schedule": 3.0}, TypeError, "schedule"),
        ({"n": 3, "schedule": "fibonacci"}, ValueError, "schedule"),
        ({"n": "3"}, TypeError, "n"),
    ],
)
def test_noise_std_validation(kwargs, err, match):
    with pytest.raises(err, match=match):
        chapter.noise_std_of_private_mean(**kwargs)


def test_schedule_by_name():  # any argument of dpb.batching.make_schedule names the schedule
    assert chapter.noise_std_of_private_mean(24, schedule="doubling") == \
        chapter.noise_std_of_private_mean(24, schedule=DoublingSchedule())


def test_first_phase_must_be_complete():
    with pytest.raises(ValueError, match="n must be >= 4"):
        chapter.private_mean_composition(3, n0=4)


def test_monte_carlo_matches_exact_std():
    n = np.array([1, 7, 63, 1023])
    for design in chapter.DESIGNS:
        mc = chapter.noise_monte_carlo(n, eps=0.25, design=design, runs=40_000, seed=3)
        exact = chapter.noise_std_of_private_mean(n, eps=0.25, design=design)
        # the std estimate of a Laplace sum from 40000 runs is within ~2% (sd of the estimate ~0.9%)
        np.testing.assert_allclose(mc["std"], exact, rtol=0.04)
        assert np.all(mc["abs_q50"] < mc["abs_q95"])
        assert mc["samples"].shape == (40_000, n.size)
    a = chapter.noise_monte_carlo(n, runs=100, seed=1)
    b = chapter.noise_monte_carlo(n, runs=100, seed=1)
    np.testing.assert_array_equal(a["samples"], b["samples"])
    with pytest.raises(ValueError, match="runs"):
        chapter.noise_monte_carlo(n, runs=1)


def test_forgetting_comparison_against_concentration():
    d = chapter.forgetting_comparison(n0=1, alpha=2, eps=0.25, mu=0.5, x=0.6, n_max=5000, runs=500, seed=0)
    np.testing.assert_array_equal(d["n"], 2 ** np.arange(1, 13) - 1)
    for design in chapter.DESIGNS:
        r, k = d[design]["rewards"], d[design]["noises"]
        i = -1
        assert d[design]["log_tail"][i] == pytest.approx(
            float(conc.private_sum_logsf(r[i] * 0.6, int(r[i]), int(k[i]), 0.5, 0.25)), rel=1e-12)
        np.testing.assert_allclose(d[design]["sampling_std"], np.sqrt(0.25 / r))
    # accumulating: the tail at the last phase end is far smaller (all n rewards vs the last half)
    assert d["accumulate"]["log_tail"][-1] < d["forget"]["log_tail"][-1] - 5 * math.log(10)
    with pytest.raises(ValueError, match="x must lie in"):
        chapter.forgetting_comparison(mu=0.5, x=0.4)
    with pytest.raises(ValueError, match="n_max"):
        chapter.forgetting_comparison(n0=5, n_max=3)


# ----------------------------------------------------------------------------------------------
# schedules
# ----------------------------------------------------------------------------------------------
def test_phases_to_reach_closed_forms():
    n = np.arange(1, 5000)
    # doubling from 1: ceil(log2(n + 1))
    np.testing.assert_array_equal(batching.phases_to_reach(n, DoublingSchedule(1)), np.ceil(np.log2(n + 1)))
    # integer ratio alpha, n0: the smallest M + 1 with n0 (alpha^{M+1} - 1)/(alpha - 1) >= n
    for n0, alpha in [(1, 3), (4, 2), (2, 5)]:
        got = batching.phases_to_reach(n, GeometricSchedule(n0, alpha))
        want = [next(j for j in range(1, 60) if n0 * (alpha**j - 1) // (alpha - 1) >= v) for v in n]
        np.testing.assert_array_equal(got, want)
    # polynomial p = 1: triangular numbers j (j + 1) / 2 >= n
    got = batching.phases_to_reach(n, PolynomialSchedule(1, 1))
    np.testing.assert_array_equal(got, np.ceil((np.sqrt(8 * n + 1) - 1) / 2))
    assert batching.phases_to_reach(1, DoublingSchedule(1)) == 1
    with pytest.raises(TypeError, match="schedule"):
        batching.phases_to_reach(10, "doubling")


def test_schedule_comparison_sublinear():
    d = chapter.schedule_comparison(n0=1, alpha=1.1, power=2, n_max=10**6, points=30)
    assert d["n"][0] == 1 and d["n"][-1] == 10**6
    for name in ("geometric", "doubling", "polynomial"):
        ph = d[name]["phases"]
        assert np.all(np.diff(ph) >= 0) and ph[-1] / 10**6 < 1e-3
        assert d[name]["sizes"][0] == 1 and d[name]["sizes"].sum() >= 10**6
    assert d["doubling"]["phases"][-1] == 20  # ceil(log2(1e6 + 1))
    # geometric 1.1: about log(n (alpha - 1) + 1) / log(alpha) phases
    assert abs(d["geometric"]["phases"][-1] - math.log(1e5 + 1) / math.log(1.1)) < 2


def test_schedule_comparison_names_n_max_past_its_range():
    from dpb.chapters.algorithms import schedule_comparison

    with pytest.raises(ValueError, match=r"n_max must be <= 9007199254740992"):
        schedule_comparison(n0=18, alpha=3.1, n_max=2**62)
    assert schedule_comparison(n0=18, alpha=3.1, n_max=2**53)["n"][-1] == 2**53
    with pytest.raises(ValueError, match="n_max"):  # past the exact float grid
        schedule_comparison(n0=18, alpha=3.1, n_max=2**61)


def test_a_policys_params_rebuild_the_same_policy():
    # Result.params holds the schedule as its params() dict; passing them back must give the same
    # runs (the benchmark and readers rerun a result this way)
    from dpb.batching import DoublingSchedule, PolynomialSchedule, make_schedule
    from dpb.simulate import simulate

    for sched in (None, DoublingSchedule(2), PolynomialSchedule(n0=1, power=2)):
        params = {"eps": 0.5} if sched is None else {"eps": 0.5, "schedule": sched}
        first = simulate("DP-IMED", "mu2", 10**4, runs=3, seed=1, params=params)
        again = simulate("DP-IMED", "mu2", 10**4, runs=3, seed=1, params=first.params)
        assert again.same_as(first) and again.params == first.params
    with pytest.raises(ValueError, match="kind"):
        make_schedule({"kind": "cubic"})
    with pytest.raises(TypeError, match="geometric"):
        make_schedule({"kind": "geometric", "ratio": 2})


def test_formula_sizes_is_the_definition_in_exact_arithmetic():
    """dpb.chapters.algorithms.formula_sizes (chapter 4 checks batch_sizes against it)."""
    assert chapter.formula_sizes(2, 1.5, 5) == [2, 3, 5, 7, 10]
    assert chapter.formula_sizes(1, 1.1, 5) == [1, 2, 1, 1, 2]  # 1.1 read as 11/10
    for n0, alpha in [(1, 2), (3, 2), (1, 3), (4, 5)]:
        assert chapter.formula_sizes(n0, alpha, 20) == [n0 * alpha**m for m in range(20)]
    a = Fraction(13, 10)  # the cumulative counts by hand: n_m = ceil(n0 (a^(m+1) - 1) / (a - 1))
    n = [math.ceil(5 * (a ** (m + 1) - 1) / (a - 1)) for m in range(40)]
    assert list(np.cumsum(chapter.formula_sizes(5, 1.3, 40))) == n
    for n0, alpha in [(1, 2), (3, 2), (2, 1.5), (1, 1.1), (5, 1.3), (1, 3)]:
        assert batching.batch_sizes(n0, alpha, 30).tolist() == chapter.formula_sizes(n0, alpha, 30)
    with pytest.raises(ValueError, match="alpha"):
        chapter.formula_sizes(1, 1.0, 5)
    with pytest.raises(TypeError, match="alpha"):
        chapter.formula_sizes(1, "2", 5)
    with pytest.raises(ValueError, match="count"):
        chapter.formula_sizes(1, 2, 0)
    with pytest.raises(ValueError, match="n0"):
        chapter.formula_sizes(0, 2, 3)
