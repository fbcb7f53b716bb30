"""Tests of dpb.batching against the paper's geometric batch schedule computed in exact arithmetic."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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
