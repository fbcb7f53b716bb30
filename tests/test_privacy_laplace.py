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
        np.testing.assert_allclose(laplace_pdf(x, 1.5, eps, s), stats.laplace.pdf(x, 1.5, s / eps), rtol=1e-12)
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
