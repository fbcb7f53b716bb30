"""The counter-based streams and exact samplers of :mod:`dpb._streams`: their laws against scipy,
and the compiled samplers bit for bit equal to the Python ones.

Every law test uses fixed keys (so it passes or fails the same way on every run) and a
significance level of 1e-4 per test: a correct sampler fails one of the ten chi-square cases with
probability about 1e-3 over the choice of keys.  The power checks run the same test on the same
draws against a slightly wrong law (the parameter off by 1 %, or by ten standard errors of the
draws' mean), which they must reject: the tests can fail.
"""

import numpy as np
import pytest
from scipy import stats

from dpb import _streams as S
from dpb.engine import root_words

ALPHA = 1e-4
DRAWS = 200_000

# (n, p): inversion (n min(p, 1-p) < 10) and BTRS (>= 10), small and huge n, extreme p, p > 1/2
CASES = [
    (5, 0.3), (30, 0.2), (20, 0.5), (100, 0.5), (1000, 0.013),
    (10**9, 0.5), (10**9, 3e-9), (10**9, 1e-8), (10**9, 1 - 1e-7), (10**6, 0.999999), (10**9, 1e-12),
    (2**40, 0.25),
]


def _key(i: int) -> int:
    return S.stream_key(S.run_key(*root_words(np.random.SeedSequence(2024)), i), S.ENV)


@pytest.fixture(scope="module")
def kernel():
    from dpb.policies import _private_kernel

    return _private_kernel


def _chi_square_p(x: np.ndarray, n: int, p: float, cells: int = 60) -> float:
    """p-value of the chi-square test of the draws ``x`` against Binomial(n, p), on up to ``cells``
    cells of about equal probability (cut at the law's quantiles)."""
    law = stats.binom(n, p)
    edges = np.unique(law.ppf(np.linspace(0, 1, cells + 1)[1:-1]))
    probs = np.diff(np.concatenate(([0.0], law.cdf(edges), [1.0])))
    keep = probs > 0
    counts = np.bincount(np.searchsorted(edges, x, side="left"), minlength=edges.size + 1)
    assert counts[~keep].sum() == 0  # no draw where the law has no mass
    probs, counts = probs[keep], counts[keep]
    if probs.size < 2:  # a point mass
        return 1.0
    chi2 = ((counts - x.size * probs) ** 2 / (x.size * probs)).sum()
    return float(stats.chi2.sf(chi2, probs.size - 1))


def _law_ok(x: np.ndarray, n: int, p: float) -> bool:
    """The draws ``x`` pass the chi-square test against Binomial(n, p) and their mean and variance
    lie within 5 standard errors of the law's."""
    law = stats.binom(n, p)
    mean, var = law.mean(), law.var()
    if _chi_square_p(x, n, p) <= ALPHA or abs(x.mean() - mean) > 5 * np.sqrt(var / x.size) + 1e-9:
        return False
    if var > 0:
        se_var = var * np.sqrt((law.stats(moments="k") + 2.0) / x.size)  # (kurtosis - 1 = excess + 2)
        return bool(abs(x.var() - var) <= 5 * se_var)
    return True


@pytest.mark.parametrize("n, p", CASES)
def test_binomial_has_the_binomial_law(kernel, n, p):
    x = kernel.binomials(_key(CASES.index((n, p))), n, p, DRAWS)
    assert x.min() >= 0 and x.max() <= n
    assert _law_ok(x, n, p), (n, p)


@pytest.mark.parametrize("n, p", [(30, 0.2), (10**9, 0.5), (10**9, 3e-9), (100, 0.5), (10**9, 1 - 1e-7)])
def test_the_law_test_rejects_a_slightly_wrong_law(kernel, n, p):
    """Power: the same draws are rejected against p changed by 1 % (at n = 10^9, p = 1/2: changed
    by 10 standard errors of the mean of the draws, 3.5e-7)."""
    x = kernel.binomials(_key(CASES.index((n, p))), n, p, DRAWS)
    wrong = p + 10 * np.sqrt(p * (1 - p) / n / DRAWS) if (n, p) == (10**9, 0.5) else p * 1.01
    if wrong >= 1.0:
        wrong = 1.0 - (1.0 - p) * 1.01
    assert not _law_ok(x, n, wrong)


def test_edge_parameters():
    for n, p, want in ((0, 0.3, 0), (7, 0.0, 0), (7, 1.0, 7), (10**9, 1.0, 10**9)):
        assert S.binomial(_key(0), 0, n, p) == (want, 0)


@pytest.mark.parametrize("n, p", [(5, 0.3), (100, 0.5), (10**9, 0.5), (10**9, 3e-9), (10**6, 0.999999)])
def test_compiled_and_python_samplers_are_bitwise_equal(kernel, n, p):
    key = _key(7)
    x = kernel.binomials(key, n, p, 300)
    c, py = 0, []
    for _ in range(300):
        v, c = S.binomial(key, c, n, p)
        py.append(v)
    assert x.tolist() == py


def test_words_use_all_64_bits_alike_in_python_and_compiled(kernel):
    import numba

    word = numba.njit(lambda k, c: S.word(k, c))
    rng = np.random.default_rng(0)
    for k in rng.integers(0, 2**63, 20, dtype=np.uint64).tolist() + [2**64 - 1, 2**63, 0]:
        for c in (0, 1, 2**31, 2**62):
            assert int(word(np.uint64(k), c)) == S.word(k, c)


def test_uniform_and_laplace_laws():
    key = _key(3)
    u = np.array([S.uniform(key, c)[0] for c in range(50_000)])
    assert 0.0 < u.min() and u.max() < 1.0
    assert stats.kstest(u, "uniform").pvalue > ALPHA
    y = np.array([S.laplace(key, c)[0] for c in range(50_000)])
    assert stats.kstest(y, "laplace").pvalue > ALPHA
    assert stats.kstest(y * 1.06, "laplace").pvalue < ALPHA  # power: a 6 % wrong scale is seen


def test_streams_of_different_runs_and_roots_differ():
    w = root_words(np.random.SeedSequence(5))
    keys = {S.stream_key(S.run_key(*w, i), s) for i in range(1000) for s in (S.ENV, S.LAPLACE, S.TIES)}
    keys |= {S.stream_key(S.run_key(*root_words(np.random.SeedSequence(6)), i), S.ENV) for i in range(1000)}
    assert len(keys) == 4000
