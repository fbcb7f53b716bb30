"""The Laplace mechanism of dpb.privacy: density, log-ratio bound, sampling."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, stats

from dpb.privacy import laplace_log_density_ratio, laplace_mechanism, laplace_pdf

finite = st.floats(-50, 50, allow_nan=False)
budgets = st.floats(1e-3, 20, allow_nan=False)


def test_pdf_matches_scipy_and_integrates_to_one():
    x = np.linspace(-10, 10, 101)
    for eps, s in [(0.5, 1.0), (2.0, 3.0)]:
        np.testing.assert_allclose(laplace_pdf(x, 1.5, eps, s), stats.laplace.pdf(x, 1.5, s / eps),
                                   rtol=1e-12)
        total, _ = integrate.quad(lambda v, e=eps, sen=s: laplace_pdf(v, 1.5, e, sen), -np.inf, np.inf)
        assert total == pytest.approx(1.0, abs=1e-9)


@settings(max_examples=200, deadline=None)
@given(x=finite, s=finite, ds=st.floats(-1, 1), eps=budgets)
def test_log_ratio_of_neighbours_within_eps(x, s, ds, eps):
    """Neighbouring sums (|S - S'| <= 1 = sensitivity): the log density ratio lies in [-eps, eps]."""
    r = laplace_log_density_ratio(x, s, s + ds, eps)
    assert abs(r) <= eps * abs(ds) + 1e-9
    # log p(x | s) = log(eps / 2) - eps |x - s|, written out (scipy's logpdf loses digits far out)
    direct = (np.log(eps / 2) - eps * abs(x - s)) - (np.log(eps / 2) - eps * abs(x - s - ds))
    assert r == pytest.approx(direct, rel=1e-9, abs=1e-9)


def test_log_ratio_reaches_eps_outside_the_gap():
    # for outputs beyond both centres the triangle inequality is tight
    assert laplace_log_density_ratio(10.0, 4.0, 3.0, 0.7) == pytest.approx(0.7)
    assert laplace_log_density_ratio(-10.0, 4.0, 3.0, 0.7) == pytest.approx(-0.7)


def test_mechanism_samples_the_laplace_law():
    rng = np.random.default_rng(20261121)
    draws = laplace_mechanism(np.full(20000, 2.0), eps=0.5, rng=rng)
    # KS test at a fixed seed; a correct sampler fails it with probability 1e-3
    assert stats.kstest(draws, stats.laplace(2.0, 2.0).cdf).pvalue > 1e-3
    again = laplace_mechanism(np.full(20000, 2.0), eps=0.5, rng=np.random.default_rng(20261121))
    np.testing.assert_array_equal(draws, again)
    assert isinstance(laplace_mechanism(1.0, 1.0, rng=rng), float)


@pytest.mark.parametrize("kwargs, name", [
    ({"value": 1.0, "eps": 0.0}, "eps"),
    ({"value": 1.0, "eps": -1.0}, "eps"),
    ({"value": 1.0, "eps": float("nan")}, "eps"),
    ({"value": 1.0, "eps": 1.0, "sensitivity": 0.0}, "sensitivity"),
    ({"value": float("inf"), "eps": 1.0}, "value"),
])
def test_bad_input_is_named(kwargs, name):
    with pytest.raises(ValueError, match=name):
        laplace_mechanism(**kwargs)


def test_non_numeric_input_is_a_type_error():
    with pytest.raises(TypeError, match="value"):
        laplace_mechanism("three", 1.0)


# ----------------------------------------------------------------------------------------------
# events, histograms, vectors and phase sums (the Background chapter's checks)
# ----------------------------------------------------------------------------------------------
from dpb.privacy import (  # noqa: E402
    MAX_ENUMERATION,
    adaptive_view,
    exponential_weights_policy,
    histogram_log_ratio,
    laplace_cdf,
    laplace_interval_probability,
    laplace_vector_log_density_ratio,
    partial_sums,
    pure_privacy_loss,
    table_mechanism,
    view_mechanism,
    worst_case_privacy_loss,
)


def test_cdf_matches_scipy_and_limits():
    x = np.linspace(-20, 20, 401)
    for eps, s in [(0.3, 1.0), (2.0, 0.5)]:
        np.testing.assert_allclose(laplace_cdf(x, 1.0, eps, s), stats.laplace.cdf(x, 1.0, s / eps),
                                   rtol=1e-12, atol=1e-15)
    assert laplace_cdf(-np.inf, 0.0, 1.0) == 0.0
    assert laplace_cdf(np.inf, 0.0, 1.0) == 1.0
    assert laplace_cdf(0.0, 0.0, 1.0) == 0.5


def test_interval_probability_matches_cdf_difference_and_keeps_tails():
    rng = np.random.default_rng(1)
    lo = rng.uniform(-10, 10, 500)
    hi = lo + rng.exponential(2.0, 500)
    p = laplace_interval_probability(lo, hi, 0.5, 0.8)
    ref = stats.laplace.cdf(hi, 0.5, 1 / 0.8) - stats.laplace.cdf(lo, 0.5, 1 / 0.8)
    np.testing.assert_allclose(p, ref, rtol=1e-9, atol=1e-14)
    assert laplace_interval_probability(-np.inf, np.inf, 3.0, 1.0) == 1.0
    # far in the tail the probability stays relatively exact (no 1 - 1 cancellation)
    far = laplace_interval_probability(100.0, 101.0, 0.0, 1.0)
    assert far == pytest.approx(0.5 * (np.exp(-100.0) - np.exp(-101.0)), rel=1e-12)
    with pytest.raises(ValueError, match="lo"):
        laplace_interval_probability(2.0, 1.0, 0.0, 1.0)


@settings(max_examples=200, deadline=None)
@given(lo=finite, width=st.floats(0, 30), s=st.floats(-20, 20), ds=st.floats(-1, 1), eps=st.floats(0.01, 5))
def test_every_interval_event_respects_eps_dp(lo, width, s, ds, eps):
    """eps-DP is a statement about events: P(E | S) <= e^eps P(E | S') for neighbouring sums."""
    p = laplace_interval_probability(lo, lo + width, s, eps)
    q = laplace_interval_probability(lo, lo + width, s + ds, eps)
    assert p <= np.exp(eps) * q * (1 + 1e-9) + 1e-300
    assert q <= np.exp(eps) * p * (1 + 1e-9) + 1e-300


def test_histogram_log_ratio_of_neighbours_stays_near_the_band():
    rng = np.random.default_rng(7)
    eps = 0.5
    a = laplace_mechanism(np.full(200_000, 3.0), eps, rng=rng)
    b = laplace_mechanism(np.full(200_000, 4.0), eps, rng=rng)
    centres, ratio = histogram_log_ratio(a, b, bins=60, min_count=2000)
    assert centres.size >= 10
    # a count >= 2000 has relative sd <= 2.3%: the log ratio is within eps + 0.1 with room to spare
    assert np.max(np.abs(ratio)) <= eps + 0.1
    # and it follows the exact ratio (averaged over the bin) closely
    exact = laplace_log_density_ratio(centres, 3.0, 4.0, eps)
    assert np.max(np.abs(ratio - exact)) < 0.15


def test_histogram_log_ratio_bad_input():
    with pytest.raises(ValueError, match="min_count"):
        histogram_log_ratio([1.0, 2.0], [1.0, 2.0], 3, min_count=0)
    with pytest.raises(ValueError, match="non-empty"):
        histogram_log_ratio([], [1.0], 3)
    with pytest.raises(ValueError, match="finite"):
        histogram_log_ratio([np.nan], [1.0], 3)


def test_partial_sums_and_one_changed_reward():
    r = np.array([1, 0, 1, 1, 0, 1, 1], dtype=float)
    np.testing.assert_array_equal(partial_sums(r, [0, 1, 3]), [1.0, 1.0, 3.0])
    for pos in range(r.size):
        r2 = r.copy()
        r2[pos] = 1 - r2[pos]
        diff = partial_sums(r, [0, 1, 3]) - partial_sums(r2, [0, 1, 3])
        assert np.sum(np.abs(diff)) == 1.0  # exactly one phase moves, by one
    for bad in ([1, 3], [0, 3, 2], [0, 7], [0.0, 1.0]):
        with pytest.raises(ValueError, match="starts"):
            partial_sums(r, bad)
    with pytest.raises(ValueError, match="rewards"):
        partial_sums([], [0])


def test_vector_log_ratio_is_the_sum_of_scalar_ones_and_is_l1_bounded():
    rng = np.random.default_rng(3)
    f = rng.uniform(0, 5, (100, 4))
    f2 = f + rng.uniform(-1, 1, (100, 4))
    o = rng.uniform(-5, 10, (100, 4))
    r = laplace_vector_log_density_ratio(o, f, f2, 0.7)
    np.testing.assert_allclose(r, laplace_log_density_ratio(o, f, f2, 0.7).sum(axis=-1), rtol=1e-12)
    assert np.all(np.abs(r) <= 0.7 * np.abs(f - f2).sum(axis=-1) + 1e-12)
    with pytest.raises(ValueError, match="last"):
        laplace_vector_log_density_ratio(1.0, 1.0, 1.0, 1.0)


# ----------------------------------------------------------------------------------------------
# policies as batch mechanisms
# ----------------------------------------------------------------------------------------------
def test_exponential_weights_policy():
    pol = exponential_weights_policy(1.0)
    np.testing.assert_allclose(pol((), (), 3), [1 / 3] * 3)
    p = pol((0, 1, 0), (1.0, 1.0, 1.0), 2)  # S = (2, 1)
    np.testing.assert_allclose(p, [np.e / (np.e + 1), 1 / (np.e + 1)])
    np.testing.assert_allclose(exponential_weights_policy(0.0)((0,), (1.0,), 2), [0.5, 0.5])
    with pytest.raises(ValueError, match="eta"):
        exponential_weights_policy(-1.0)


def test_view_mechanism_by_hand_and_normalised():
    pol = exponential_weights_policy(1.0)
    v = view_mechanism(pol, [1.0, 0.0], 2)
    # a_1 uniform; after (a_1, r_1 = 1) arm a_1 has S = 1
    w = np.e / (np.e + 1)
    np.testing.assert_allclose(v, [[0.5 * w, 0.5 * (1 - w)], [0.5 * (1 - w), 0.5 * w]])
    assert view_mechanism(pol, [1.0, 0.0, 1.0, 1.0], 2).sum() == pytest.approx(1.0)


def test_table_with_equal_columns_is_the_view_mechanism():
    pol = exponential_weights_policy(0.8)
    r = np.array([1.0, 0.0, 1.0])
    np.testing.assert_allclose(table_mechanism(pol, np.column_stack([r, r])), view_mechanism(pol, r, 2))


def test_reduction_from_tables_to_adversaries():
    """The paper's reduction: the adversary reading column a_t of x (left) and x' (right)."""
    pol = exponential_weights_policy(0.9)
    x = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    for t_star in (1, 2, 3):
        x2 = x.copy()
        x2[t_star - 1] = 1 - x2[t_star - 1]

        def adversary(acts, t_star=t_star, x2=x2):
            t = len(acts) - 1
            return x[t, acts[-1]], x2[t, acts[-1]]

        np.testing.assert_allclose(adaptive_view(pol, adversary, t_star, "L", 2, 3), table_mechanism(pol, x))
        np.testing.assert_allclose(adaptive_view(pol, adversary, t_star, "R", 2, 3), table_mechanism(pol, x2))
    with pytest.raises(ValueError, match="b must"):
        adaptive_view(pol, lambda a: (0.0, 1.0), 1, "X", 2, 3)
    with pytest.raises(ValueError, match="t_star"):
        adaptive_view(pol, lambda a: (0.0, 1.0), 4, "L", 2, 3)


def test_pure_privacy_loss():
    assert pure_privacy_loss([0.5, 0.5], [0.5, 0.5]) == 0.0
    assert pure_privacy_loss([0.25, 0.75], [0.5, 0.5]) == pytest.approx(np.log(2))
    assert pure_privacy_loss([1.0, 0.0], [0.5, 0.5]) == np.inf
    assert pure_privacy_loss([1.0, 0.0], [1.0, 0.0]) == 0.0
    with pytest.raises(ValueError, match="shape"):
        pure_privacy_loss([1.0], [0.5, 0.5])


@pytest.mark.parametrize("eta, K, T", [(0.5, 2, 3), (1.0, 2, 2), (0.3, 3, 2)])
def test_three_models_agree_for_pure_dp(eta, K, T):
    """Proposition 'Link between ... View DP, and Table DP' (b) on exhaustive small examples."""
    pol = exponential_weights_policy(eta)
    losses = [worst_case_privacy_loss(pol, K, T, m) for m in ("view", "table", "adaptive")]
    assert losses[0] > 0
    assert losses[0] == pytest.approx(losses[1], rel=1e-12)
    assert losses[0] == pytest.approx(losses[2], rel=1e-12)
    assert losses[0] <= eta * (T - 1) + 1e-12  # the composition bound of the policy's docstring


def test_worst_case_loss_of_a_deterministic_policy_is_infinite():
    def greedy(actions, rewards, K):  # play arm 0 unless arm 0's last reward was 0
        p = np.zeros(K)
        bad = any(a == 0 and r == 0 for a, r in zip(actions, rewards, strict=True))
        p[1 if bad else 0] = 1.0
        return p

    assert worst_case_privacy_loss(greedy, 2, 2, "view") == np.inf
    assert worst_case_privacy_loss(greedy, 2, 2, "adaptive") == np.inf
    assert worst_case_privacy_loss(exponential_weights_policy(1.0), 2, 1, "adaptive") == 0.0


def test_worst_case_loss_bad_input():
    pol = exponential_weights_policy(1.0)
    with pytest.raises(ValueError, match="model"):
        worst_case_privacy_loss(pol, 2, 2, "list")
    with pytest.raises(ValueError, match="alphabet"):
        worst_case_privacy_loss(pol, 2, 2, "view", alphabet=(1.0, 1.0))
    with pytest.raises(ValueError, match="enumerate"):
        worst_case_privacy_loss(pol, 2, 6, "adaptive")
    with pytest.raises(ValueError, match="probabilities"):
        view_mechanism(lambda a, r, K: np.array([0.2, 0.2]), [1.0, 0.0], 2)
    with pytest.raises(TypeError, match="callable"):
        view_mechanism("not a policy", [1.0], 2)
    assert MAX_ENUMERATION >= 10_000
