"""dpb.plain, the plain-Python DP-KLUCB and DP-IMED that chapter 4 shows, against the package.

Three levels: its divergence and index agree with dpb.divergences to rounding; its batch ends are
the package's geometric schedule; and whole runs agree in distribution with the package's fast
simulator (two-sample Kolmogorov-Smirnov tests on the final regret and on the pulls of the best
arm, fixed seeds, level 0.001 each: with agreeing simulators a rejection has probability at most
0.2% per test, and the seeds are fixed, so the outcome is reproducible).  A plain version that
uses kl instead of d_eps fails the same comparison (test_a_non_private_index_is_caught).
"""

import math

import numpy as np
import pytest
from scipy.stats import ks_2samp

from dpb import divergences, plain
from dpb.batching import batch_sizes
from dpb.divergences import d_eps, d_eps_ucb
from dpb.simulate import simulate

MU2 = (0.75, 0.625, 0.5, 0.375, 0.25)


def test_d_eps_and_index_match_the_package():
    rng = np.random.default_rng(3)
    for _ in range(300):
        x, y = np.sort(rng.uniform(0, 1, size=2))
        eps = float(10 ** rng.uniform(-2, 1))
        assert plain.d_eps(x, y, eps) == pytest.approx(d_eps(x, y, eps), rel=1e-12, abs=1e-14)
        budget = float(10 ** rng.uniform(-4, 0))
        # bisection to 60 halvings of [x, 1]: error below 1e-15, the package inverts in closed form
        assert plain.d_eps_ucb(x, budget, eps) == pytest.approx(d_eps_ucb(x, budget, eps), abs=1e-9)
    assert plain.d_eps(0.25, 1.0, 2.0) == pytest.approx(1.5)  # the TV route only
    assert plain.kl(0.0, 0.0) == 0.0 and plain.kl(0.5, 1.0) == math.inf


@pytest.mark.parametrize("n0, alpha", [(1, 2), (1, 1.1), (3, 1.5), (2, 3)])
def test_batch_ends_are_the_geometric_schedule(n0, alpha):
    count = 30  # 3^31 pulls: beyond any horizon
    ends = np.cumsum(batch_sizes(n0, alpha, count))
    assert [plain._batch_end(m, n0, alpha) for m in range(count)] == ends.tolist()


def _plain_runs(fn, runs, T, eps):
    pulls = np.array([fn(MU2, eps, T, seed=s) for s in range(runs)])
    regret = pulls @ (max(MU2) - np.array(MU2))
    return pulls, regret


@pytest.mark.parametrize("name, fn", [("DP-IMED", plain.dp_imed), ("DP-KLUCB", plain.dp_klucb)])
@pytest.mark.parametrize("eps", [0.5, 0.1])
def test_runs_agree_with_the_package_in_distribution(name, fn, eps):
    T = 2000
    pulls, regret = _plain_runs(fn, 300, T, eps)
    assert np.all(pulls.sum(axis=1) == T)
    fast = simulate(name, "mu2", T, runs=600, seed=7, params={"eps": eps})
    assert ks_2samp(regret, np.round(fast.final_regret, 9)).pvalue > 1e-3
    assert ks_2samp(pulls[:, 0], fast.pulls[:, 0]).pvalue > 1e-3


def test_a_non_private_index_is_caught(monkeypatch):
    # the same comparison rejects a plain DP-IMED whose index uses kl instead of d_eps (at
    # eps = 0.1 the private mean is noisy and the kl index explores far too little)
    T, eps = 2000, 0.1
    monkeypatch.setattr(plain, "d_eps", lambda x, y, eps: plain.kl(x, y))
    pulls, regret = _plain_runs(plain.dp_imed, 300, T, eps)
    fast = simulate("DP-IMED", "mu2", T, runs=600, seed=7, params={"eps": eps})
    assert min(ks_2samp(regret, np.round(fast.final_regret, 9)).pvalue,
               ks_2samp(pulls[:, 0], fast.pulls[:, 0]).pvalue) < 1e-3


def test_plain_d_eps_computes_what_it_is_given():
    """dpb.plain.d_eps(0.5, 0.1, 0.25) returned kl(0.5, 0.1) = 0.5108 (its formula assumed x <= y)."""
    assert plain.d_eps(0.5, 0.1, 0.25) == pytest.approx(0.0969933321, abs=1e-9)
    for x in np.linspace(0, 1, 11):
        for y in np.linspace(0, 1, 11):
            for eps in (0.01, 0.25, 2.0):
                want = float(divergences.d_eps(x, y, eps))
                assert plain.d_eps(float(x), float(y), eps) == pytest.approx(want, rel=1e-12, abs=1e-15)
