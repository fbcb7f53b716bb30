"""dpb.estimates: BCa intervals, converged run counts and seed sensitivity on samples with an
exact mean.

Coverage tolerances.  A coverage measured over ``R`` independent replications is a binomial
proportion with standard deviation ``sqrt(0.95 * 0.05 / R)`` (0.011 for ``R = 400``).  BCa is
second-order accurate: its coverage error is ``O(1/n)``, and for the skewed samples below it is a
few percent at ``n = 200`` (Efron and Tibshirani report the same order for the lognormal).  Each test
therefore accepts ``[0.95 - allowance - 3 sd, 0.95 + 3 sd]`` with the allowance stated next to it,
and a companion check shows that the same acceptance rule rejects an interval of the wrong level.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpb import estimates
from dpb.estimates import (
    BLOCK_EDGES,
    DEFAULT_CAP,
    MeanEstimate,
    bca_columns,
    block_edges,
    converged_runs,
    is_converged,
    mean_interval,
    seed_sensitivity,
)


def _mixture(rng, n, p, scale):
    """Exp(1) times ``scale`` with probability ``p``, else Exp(1): mean ``1 - p + p * scale``.

    With ``p = 0.04, scale = 50`` it mimics DP-IMED's regret: most runs small, a few percent
    fifty times larger, coefficient of variation about 4.7.
    """
    return np.where(rng.random(n) < p, scale, 1.0) * rng.exponential(1.0, n)


def _coverage(draw, mu, n, reps, seed, level=0.95):
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(reps):
        est = mean_interval(draw(rng, n), level=level, n_boot=1000)
        hits += est.lo <= mu <= est.hi
    return hits / reps


def _accept(coverage, reps, allowance):
    sd = math.sqrt(0.95 * 0.05 / reps)
    return 0.95 - allowance - 3 * sd <= coverage <= 0.95 + 3 * sd


def test_bca_coverage_lognormal():
    # lognormal(0, 1): exact mean exp(1/2); skewness 6.2.  Allowance 0.03 for n = 200 (O(1/n) error).
    cov = _coverage(lambda r, n: r.lognormal(0.0, 1.0, n), math.exp(0.5), 200, 400, seed=1)
    assert _accept(cov, 400, 0.03), cov


def test_bca_coverage_heavy_mixture():
    # the DP-IMED-shaped mixture at n = 800 (about 32 rare runs): exact mean 0.96 + 0.04 * 50.
    # Allowance 0.04: the rare component is still seen only a few dozen times.
    mu = 0.96 + 0.04 * 50
    cov = _coverage(lambda r, n: _mixture(r, n, 0.04, 50.0), mu, 800, 300, seed=2)
    assert _accept(cov, 300, 0.04), cov


def test_coverage_check_rejects_a_wrong_level():
    # the acceptance rule is not vacuous: an 80 % interval reported as a 95 % one fails it
    cov = _coverage(lambda r, n: r.lognormal(0.0, 1.0, n), math.exp(0.5), 200, 400, seed=1, level=0.8)
    assert not _accept(cov, 400, 0.03), cov


def test_bca_leans_right_on_right_skewed_data():
    x = _mixture(np.random.default_rng(3), 2000, 0.04, 50.0)
    est = mean_interval(x)
    assert est.lo < est.mean < est.hi
    assert est.hi - est.mean > est.mean - est.lo  # the skewness correction
    assert est.half_width == est.hi - est.mean


def test_interval_is_deterministic_and_seeded():
    x = np.random.default_rng(4).lognormal(size=300)
    assert mean_interval(x) == mean_interval(x)
    assert mean_interval(x, seed=1) != mean_interval(x, seed=2)


def test_constant_sample_gives_a_point_interval():
    est = mean_interval(np.full(20, 10453.0))
    assert est == MeanEstimate(20, 10453.0, 10453.0, 10453.0, 0.95)
    assert est.rel_half_width == 0.0 and is_converged(est)


def test_block_edges():
    assert BLOCK_EDGES[0] == 20 and BLOCK_EDGES[-1] == DEFAULT_CAP == 20480
    assert all(b == 2 * a for a, b in zip(BLOCK_EDGES, BLOCK_EDGES[1:], strict=False))
    assert block_edges(80) == (20, 40, 80)
    with pytest.raises(ValueError, match="cap"):
        block_edges(100)


def test_converged_runs_matches_the_normal_theory_size():
    # coefficient of variation c: the half-width 1.96 c / sqrt(n) reaches 10 % near n = (19.6 c)^2
    rng = np.random.default_rng(5)
    x = rng.gamma(shape=4.0, scale=1.0, size=DEFAULT_CAP)  # c = 0.5 -> n about 96 -> edge 160
    n, est, ok = converged_runs(x)
    assert ok and n in (80, 160, 320)
    assert est.runs == n and est.rel_half_width <= 0.1
    # the previous edge had not converged
    assert mean_interval(x[: n // 2]).rel_half_width > 0.1


def test_converged_runs_heavy_mixture_needs_thousands():
    # c about 4.7: (19.6 * 4.7)^2 is about 8500 runs -> the edge 10240 (5120 or 20480 by chance)
    x = _mixture(np.random.default_rng(6), DEFAULT_CAP, 0.04, 50.0)
    n, est, ok = converged_runs(x)
    assert ok and n in (5120, 10240, 20480)
    assert est.lo <= 0.96 + 0.04 * 50 <= est.hi


def test_min_runs_delays_the_first_look():
    # a sample whose first 20 runs miss the rare event: the rule would stop at 20 and be wrong
    rng = np.random.default_rng(12)
    x = _mixture(rng, 2560, 0.01, 100.0)
    x[:20] = rng.uniform(0.9, 1.1, 20)  # the first block looks tight and has no rare run
    n20, est20, _ = converged_runs(x, cap=2560, rel=0.5)
    n, est, _ = converged_runs(x, cap=2560, rel=0.5, min_runs=320)
    assert n20 == 20 and n >= 320
    mu = 0.99 + 0.01 * 100
    assert not est20.lo <= mu <= est20.hi  # the early interval misses the mean
    assert est.mean > est20.mean


def test_converged_runs_cap_and_short_input():
    x = _mixture(np.random.default_rng(7), 80, 0.04, 50.0)
    n, est, ok = converged_runs(x, cap=80)
    assert n == 80 and not ok and est.runs == 80
    with pytest.raises(ValueError, match="next edge 40"):
        converged_runs(x[:30])


def test_stopped_interval_coverage():
    # the interval at the data-dependent stopping edge still covers: mixture with mean 1.9, target
    # +-25 % (stops at 320 or 640 runs); 200 replications, allowance 0.04 for the stopping rule
    mu = 0.9 + 0.1 * 10
    rng = np.random.default_rng(8)
    hits = 0
    for _ in range(200):
        _, est, ok = converged_runs(_mixture(rng, 2560, 0.1, 10.0), cap=2560, rel=0.25)
        assert ok
        hits += est.lo <= mu <= est.hi
    assert _accept(hits / 200, 200, 0.04), hits / 200


def test_seed_sensitivity():
    rng = np.random.default_rng(9)
    x = rng.lognormal(size=20_010)
    means = seed_sensitivity(x)
    assert means.shape == (1000,)
    assert np.isclose(means.mean(), x[:20_000].mean())
    # independent 20-run means: their spread is sd / sqrt(20) (within 10 % for 1000 groups)
    assert abs(means.std(ddof=1) / (x.std(ddof=1) / math.sqrt(20)) - 1) < 0.1
    with pytest.raises(ValueError, match="fewer than one group"):
        seed_sensitivity(x[:10])


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        ({"x": [1.0]}, ValueError, "at least 2"),
        ({"x": [1.0, np.nan]}, ValueError, "finite"),
        ({"x": "abc"}, TypeError, "x must"),
        ({"x": [1.0, 2.0], "level": 1.0}, ValueError, "level"),
        ({"x": [1.0, 2.0], "level": 0.0}, ValueError, "level"),
        ({"x": [1.0, 2.0], "n_boot": 10}, ValueError, "n_boot"),
    ],
)
def test_bad_input(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        mean_interval(**kwargs)


def test_bad_rel():
    with pytest.raises(ValueError, match="rel"):
        converged_runs(np.ones(40), rel=1.5)


def test_bca_columns_agrees_with_mean_interval_column_by_column():
    rng = np.random.default_rng(10)
    v = np.column_stack([rng.lognormal(size=300), np.full(300, 7.0), _mixture(rng, 300, 0.04, 50.0)])
    mean, lo, hi = bca_columns(v, n_boot=500)
    for j in range(3):
        est = mean_interval(v[:, j], n_boot=500)
        assert math.isclose(est.mean, mean[j]) and math.isclose(est.lo, lo[j]) and math.isclose(est.hi, hi[j])
    assert lo[1] == hi[1] == 7.0
    with pytest.raises(ValueError, match="2-d"):
        bca_columns(np.ones(5))


def test_mean_interval_of_huge_values_and_of_2d_input():
    est = estimates.mean_interval([1e300, -1e300])  # was IndexError
    assert est.mean == 0.0 and est.lo == -1e300 and est.hi == 1e300
    big = estimates.mean_interval([3e300, 1e300, 2e300, 2.5e300])
    small = estimates.mean_interval([3.0, 1.0, 2.0, 2.5])
    assert big.lo / 1e300 == pytest.approx(small.lo) and big.hi / 1e300 == pytest.approx(small.hi)
    with pytest.raises(ValueError, match="x must be a 1-d sample"):
        estimates.mean_interval([[1, 2], [3, 4]])


@pytest.mark.parametrize("columns", [1, 3, 190])
def test_resampled_sums_are_the_weighted_sums_bit_for_bit(columns):
    # the bootstrap's compiled sums (one column: two replicates side by side, every term added)
    # against the plain definition: numpy.bincount's counts, summed in row order by weighted_sums
    from dpb._estimates_kernel import resampled_sums, weighted_sums

    rng = np.random.default_rng(7)
    for n, B in ((2, 5), (21, 101), (640, 64), (333, 19)):  # (groups of 8 replicates and a rest)
        x = rng.standard_normal((n, columns)) * 10.0 ** rng.integers(-3, 6, size=(n, 1))
        x[rng.random((n, columns)) < 0.2] = 0.0  # zeros and negative values among the terms
        idx = rng.integers(0, n, size=(B, n))
        counts = np.stack([np.bincount(row, minlength=n) for row in idx])
        want = np.empty((B, columns))
        weighted_sums(counts, x, want)
        for threads in (1, 2, 3):
            got = np.full((B, columns), np.nan)
            resampled_sums(idx, x, got, threads)
            assert np.array_equal(got.view(np.int64), want.view(np.int64)), (n, B, threads)
