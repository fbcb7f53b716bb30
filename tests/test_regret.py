"""dpb.regret: the constants of the regret upper bound (chapter 6), exact pulls on a horizon grid, the proof's
decomposition, the on-disk cache, and the normalised pulls of an easy instance at a large T."""

import os

import numpy as np
import pytest

import dpb.regret as rg
import dpb.chapters.regret as chapter
from dpb.batching import PolynomialSchedule
from dpb.bounds import lower_bound_constant, per_arm_constants, upper_bound_constant
from dpb.divergences import d_eps
from dpb.environments import instance
from dpb.policies import DPIMED
from dpb.simulate import simulate, simulate_trace


@pytest.fixture(autouse=True)
def _private_cache(tmp_path, monkeypatch):
    """Every test uses its own cache directory."""
    monkeypatch.setenv("DPB_RESULTS", str(tmp_path))


# ----------------------------------------------------------------------------------------------
# constants
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("env, eps, alpha", [("mu2", 0.25, 2), ("mu1", 1.0, 1.1), ("sweep", 0.05, 3.5),
                                             ([0.9, 0.2], 10.0, 1.5)])
def test_constants_agree_with_bounds_and_d_eps(env, eps, alpha):
    mu = instance(env).means if isinstance(env, str) else np.array(env)
    c = rg.asymptotic_constants(mu, eps, alpha)
    sub = mu < mu.max()
    # per arm: 1/d_eps(mu_i, mu*) and alpha/d_eps, 0 on the optimal arm
    expected = np.where(sub, 1.0 / np.where(sub, d_eps(mu, mu.max(), eps), 1.0), 0.0)
    assert np.allclose(c["lower_pulls"], expected, rtol=1e-12)
    assert np.allclose(c["upper_pulls"], alpha * expected, rtol=1e-12)
    assert np.array_equal(c["lower_pulls"], per_arm_constants(mu, eps, bound="lower", weighted=False))
    # totals are the gap-weighted sums, and equal dpb.bounds'
    assert np.isclose(c["lower_regret"], np.sum(c["gaps"] * c["lower_pulls"]), rtol=1e-12)
    assert c["lower_regret"] == lower_bound_constant(mu, eps)
    assert c["upper_regret"] == upper_bound_constant(mu, eps, alpha)
    assert np.isclose(c["upper_regret"], alpha * c["lower_regret"], rtol=1e-12)
    assert np.array_equal(c["suboptimal"], sub)


def test_constants_validate():
    with pytest.raises(ValueError, match="alpha"):
        rg.asymptotic_constants([0.5, 0.4], 0.5, 1.0)
    with pytest.raises(ValueError, match="eps"):
        rg.asymptotic_constants([0.5, 0.4], -1, 2)
    with pytest.raises(ValueError, match="mu"):
        rg.asymptotic_constants([0.5, 1.4], 1, 2)
    with pytest.raises(ValueError, match="scalar"):
        rg.asymptotic_constants([0.5, 0.4], [1, 2], 2)
    with pytest.raises(ValueError, match="1-D"):
        rg.asymptotic_constants([[0.5, 0.4]], 1, 2)


def test_horizon_grid():
    g = rg.horizon_grid(10**8, 49, 100)
    assert g[0] == 100 and g[-1] == 10**8 and np.all(np.diff(g) > 0)
    assert set(10 ** np.arange(2, 9)) <= set(g.tolist())  # the powers of ten are grid points
    assert rg.horizon_grid(5, 10, 1).tolist() == [1, 2, 3, 4, 5]
    with pytest.raises(ValueError):
        rg.horizon_grid(10, 5, 20)


# ----------------------------------------------------------------------------------------------
# the driver: exact pulls, same runs as simulate, the decomposition
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("policy, params", [
    ("DP-IMED", {"eps": 0.25, "alpha": 1.5}),
    ("DP-KLUCB", {"eps": 0.5, "alpha": 2}),
    ("DP-KLUCB", {"eps": 0.25, "schedule": PolynomialSchedule(2, 2)}),
])
def test_runs_are_simulates_runs_and_terms_add_up(policy, params):
    T = 200_000
    d = rg.decompose_runs(policy, "mu2", T, 12, 7, params=params)
    s = simulate(policy, "mu2", T, runs=12, seed=7, params=params, checkpoints=d.grid)
    assert np.array_equal(d.total_pulls()[:, -1], s.pulls)  # the same trajectories
    assert np.array_equal(d.n_phases, s.n_phases)
    assert np.allclose(d.regret(), s.regret, rtol=1e-12, atol=1e-9)  # at every grid horizon
    # every pull is in exactly one term: integer counts add up exactly, regret up to rounding
    assert np.all(d.total_pulls().sum(axis=-1) == d.grid[None, :])
    assert np.allclose(d.regret_terms().sum(axis=-1), d.regret(), rtol=1e-13, atol=1e-9)
    assert np.all(np.diff(d.pulls, axis=1) >= 0)  # each term is non-decreasing in t
    # the initialisation term is n0 pulls of every arm once t >= K n0
    n0 = 2 if "schedule" in params else 1
    assert np.all(d.pulls[:, -1, :, 0] == n0)


def test_pulls_on_the_grid_are_the_runs_stopped_there():
    # N_i(t) read from the long run equals the final pulls of the same seeds run with horizon t:
    # decisions before t do not depend on the horizon, the horizon only cuts the last phase
    T = 300_000
    long = rg.decompose_runs("DP-IMED", "mu1", T, 6, 11, params={"eps": 0.5, "alpha": 1.25})
    for t in (long.grid[3], long.grid[20], 12_345, 99_999):
        if t not in long.grid:
            long2 = rg.decompose_runs("DP-IMED", "mu1", T, 6, 11, params={"eps": 0.5, "alpha": 1.25},
                                      grid=[t])
            pulls_t = long2.total_pulls()[:, long2.at(t)]
        else:
            pulls_t = long.total_pulls()[:, long.at(t)]
        short = simulate("DP-IMED", "mu1", int(t), runs=6, seed=11, params={"eps": 0.5, "alpha": 1.25})
        assert np.array_equal(pulls_t, short.pulls)


@pytest.mark.parametrize("policy", ["DP-IMED", "DP-KLUCB"])
def test_decomposition_labels_follow_the_paper_events(policy):
    # rebuild the labels of run 0 from a teaching trace (statistics after each phase, indexes at
    # each decision) and compare the per-term pulls
    T, delta, params = 50_000, 0.05, {"eps": 0.25, "alpha": 1.5}
    d = rg.decompose_runs(policy, "mu2", T, 1, 3, params=params, delta=delta)
    tr = simulate_trace(policy, "mu2", T, seed=3, params=params, run_id=0)
    mu = instance("mu2").means
    counts = np.zeros((mu.size, 3), dtype=np.int64)
    prev_stat = None
    for ph in tr.phases:
        if np.all(np.isnan(ph["index"])):
            cat = 0
        elif policy == "DP-IMED":
            cat = 1 if prev_stat[0] < mu.max() - delta else 2
        else:
            cat = 1 if np.max(ph["index"]) < mu.max() - delta else 2
        counts[:, cat] += ph["counts"]
        prev_stat = ph["statistic"]
    assert np.array_equal(d.pulls[0, -1], counts)
    assert counts[:, 1].sum() + counts[:, 2].sum() + counts[:, 0].sum() == T


def test_decompose_validates():
    with pytest.raises(ValueError, match="DP-IMED and DP-KLUCB"):
        rg.decompose_runs("DP-SE", "mu2", 1000, 2, 0, params={"eps": 1.0})
    with pytest.raises(ValueError, match="delta"):
        rg.decompose_runs("DP-IMED", "mu2", 1000, 2, 0, params={"eps": 1.0}, delta=0)
    with pytest.raises(ValueError, match="grid"):
        rg.decompose_runs("DP-IMED", "mu2", 1000, 2, 0, params={"eps": 1.0}, grid=[0, 10])
    with pytest.raises(ValueError, match="grid"):
        rg.decompose_runs("DP-IMED", "mu2", 1000, 2, 0, params={"eps": 1.0}, grid=[5.5])
    with pytest.raises(ValueError, match="T must be"):
        rg.decompose_runs("DP-IMED", "mu2", 3, 2, 0, params={"eps": 1.0})
    with pytest.raises(TypeError):
        rg.decompose_runs(DPIMED(1.0), "mu2", 1000, 2, 0, params={"eps": 1.0})
    d = rg.decompose_runs("DP-IMED", "mu2", 1000, 2, 0, params={"eps": 1.0})
    with pytest.raises(ValueError, match="grid point"):
        d.at(999)


def test_summaries():
    d = rg.decompose_runs("DP-KLUCB", "mu2", 100_000, 30, 5, params={"eps": 0.5, "alpha": 2})
    s = rg.pull_summary(d, level=0.9, band=0.5)
    x = d.normalised_pulls()
    assert s["mean"].shape == (d.grid.size, d.K)
    assert np.allclose(s["mean"], x.mean(axis=0))
    assert np.all(s["ci_low"] <= s["mean"]) and np.all(s["mean"] <= s["ci_high"])
    assert np.allclose(s["median"], np.median(x, axis=0))
    assert np.all(s["q_low"] <= s["median"]) and np.all(s["median"] <= s["q_high"])
    q = rg.regret_quantiles(d, [0.0, 0.5, 1.0])
    assert np.allclose(q[1], np.median(d.regret(), axis=0))
    assert np.allclose(q[2], d.regret().max(axis=0))
    qpre = rg.regret_quantiles(d, [1.0], term="pre")
    assert np.allclose(qpre[0], d.regret_terms()[..., 1].max(axis=0))
    with pytest.raises(ValueError, match="term"):
        rg.regret_quantiles(d, [0.5], term="middle")
    with pytest.raises(ValueError, match="level"):
        rg.pull_summary(d, level=1.0)
    with pytest.raises(ValueError, match="qs"):
        rg.regret_quantiles(d, [1.5])


# ----------------------------------------------------------------------------------------------
# cache
# ----------------------------------------------------------------------------------------------
def test_cache_round_trip_and_invalidation(tmp_path, monkeypatch):
    kw = {"eps": 0.5, "alpha": 1.5, "T": 20_000, "runs": 5, "seed": 1, "directory": tmp_path}
    first = rg.cached_runs("DP-IMED", "mu2", **kw)
    files = sorted(tmp_path.glob("*.npz"))
    assert len(files) == 1 and not list(tmp_path.glob("*.tmp"))  # written atomically
    mtime = files[0].stat().st_mtime_ns

    def boom(*args, **kwargs):
        raise AssertionError("recomputed although the cache is warm")

    monkeypatch.setattr(rg, "decompose_runs", boom)
    again = rg.cached_runs("DP-IMED", "mu2", **kw)  # loaded, not recomputed
    assert again.same_as(first) and files[0].stat().st_mtime_ns == mtime
    monkeypatch.undo()
    # a changed parameter is a different file
    for change in ({"eps": 0.25}, {"alpha": 2}, {"runs": 6}, {"seed": 2}, {"T": 20_001}):
        rg.cached_runs("DP-IMED", "mu2", **{**kw, **change})
    rg.cached_runs("DP-KLUCB", "mu2", **kw)
    rg.cached_runs("DP-IMED", "mu1", **kw)
    rg.cached_runs("DP-IMED", "mu2", delta=0.1, **kw)
    assert len(list(tmp_path.glob("*.npz"))) == 9
    # a changed source file makes the file stale: it is not read
    real = rg._provenance
    monkeypatch.setattr(rg, "_provenance", lambda pol: {**real(pol), "source_hash": "edited"})
    monkeypatch.setattr(rg, "decompose_runs", boom)
    with pytest.raises(AssertionError, match="recomputed"):
        rg.cached_runs("DP-IMED", "mu2", **kw)


def test_cache_refresh_and_damaged_file(tmp_path):
    kw = {"eps": 0.5, "alpha": 1.5, "T": 10_000, "runs": 3, "seed": 1, "directory": tmp_path}
    first = rg.cached_runs("DP-KLUCB", "mu2", **kw)
    (path,) = tmp_path.glob("*.npz")
    path.write_bytes(b"not a zip file")
    again = rg.cached_runs("DP-KLUCB", "mu2", **kw)
    assert again.same_as(first)
    fresh = rg.cached_runs("DP-KLUCB", "mu2", refresh=True, **kw)
    assert fresh.same_as(first)


def test_save_load_and_cache_dir(tmp_path, monkeypatch):
    d = rg.decompose_runs("DP-IMED", [0.6, 0.5, 0.2], 5000, 4, 9, params={"eps": 1.0, "alpha": 2})
    back = rg.DecomposedRuns.load(d.save(tmp_path / "new" / "x"))  # (save creates the folder)
    assert back.same_as(d)
    assert back.alpha == 2.0 and back.eps == 1.0
    monkeypatch.setenv("DPB_RESULTS", str(tmp_path / "r"))
    assert rg.cache_dir() == tmp_path / "r" / "regret"
    monkeypatch.delenv("DPB_RESULTS")
    assert rg.cache_dir().name == "regret"
    assert rg.cache_dir(tmp_path) == tmp_path
    assert rg.cache_key("runs", {"a": 1}) != rg.cache_key("runs", {"a": 2})
    with pytest.raises(ValueError):
        rg.cache_key("no way", {})
    pol = rg._as_dp_policy("DP-KLUCB", {"eps": 0.5, "alpha": 2})
    assert len(rg._provenance(pol)["source_hash"]) == 64


def test_book_runs_and_tradeoff(tmp_path, monkeypatch):
    monkeypatch.setitem(rg.DEFAULTS, "T", 10**5)
    monkeypatch.setitem(rg.DEFAULTS, "runs", 8)
    poly = chapter.book_runs("mu2", 0.5, chapter.POLYNOMIAL, "DP-IMED", directory=tmp_path)
    assert poly.alpha is None and poly.params["schedule"]["kind"] == "polynomial"
    c = poly.constants()
    assert np.array_equal(c["upper_pulls"], c["lower_pulls"])  # the alpha -> 1 limit
    geo = chapter.book_runs("mu2", 0.5, 2.0, "DP-IMED", directory=tmp_path)
    assert geo.alpha == 2 and geo.T == 10**5 and geo.runs == 8
    with pytest.raises(ValueError, match="alpha"):
        chapter.book_runs("mu2", 0.5, "cubic", directory=tmp_path)
    with pytest.raises(ValueError, match="alpha"):
        chapter.book_runs("mu2", 0.5, 1.0, directory=tmp_path)
    tr = chapter.alpha_tradeoff("DP-IMED", "mu2", eps=0.5, alphas=(1.5, 2.0), horizons=(10**3, 10**5),
                           directory=tmp_path)
    assert tr["mean"].shape == (2, 2) and tr["phases"].shape == (2,)
    # the alpha = 2 entry is the book run above, read back from the cache
    assert np.isclose(tr["mean"][1, 1], geo.regret()[:, -1].mean())
    # mean regret = init term (one pull of every arm: sum of the gaps) + pre + post
    assert np.allclose(tr["pre_mean"] + tr["post_mean"] + np.sum(geo.gaps), tr["mean"])
    assert np.allclose(tr["upper"], np.outer([1.5, 2.0], tr["lower"]))
    with pytest.raises(ValueError, match="alphas"):
        chapter.alpha_tradeoff("DP-IMED", "mu2", eps=0.5, alphas=(1.0,), horizons=(10**3,),
                               directory=tmp_path)
    with pytest.raises(ValueError, match="horizons"):
        chapter.alpha_tradeoff("DP-IMED", "mu2", eps=0.5, alphas=(2,), horizons=(1e3,), directory=tmp_path)
    assert os.listdir(tmp_path)


# ----------------------------------------------------------------------------------------------
# the theorem, measured on an easy instance
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("policy", ["DP-IMED", "DP-KLUCB"])
def test_normalised_pulls_at_large_T_lie_between_the_floor_and_the_upper_bound(policy):
    """Easy instance (gaps 0.7, eps = 1), alpha = 2, T = 1e7, 200 runs, fixed seed.

    What the theorem guarantees is an *upper* bound on the mean, up to o(1) once divided by log T:
    limsup E[N_i(T)] / log T <= alpha / d_eps.  We check the mean (minus three standard errors) is
    below alpha / d_eps.  Below, the lower bound 1 / d_eps is only a liminf, and at a finite T an
    arm that has converged is pulled again as long as its index allows it: for DP-KLUCB until
    n d_eps >~ log t, for DP-IMED until n d_eps + log n >~ log t.  Since n <= alpha log T / d_eps
    this gives the floor (1 - log(alpha log T / d_eps) / log T) / d_eps, valid for both (the
    DP-KLUCB stopping rule is the stricter one); we check the mean (plus three standard errors)
    is above it.  No constant here is fitted to the simulation.
    """
    T, alpha, eps = 10**7, 2, 1.0
    d = rg.decompose_runs(policy, "sweep", T, 200, 2024, params={"eps": eps, "alpha": alpha})
    c = d.constants()
    x = d.normalised_pulls()[:, -1, :]
    mean, sem = x.mean(axis=0), x.std(axis=0, ddof=1) / np.sqrt(d.runs)
    sub = c["suboptimal"]
    logT = np.log(T)
    upper = c["upper_pulls"][sub]
    floor = (1 - np.log(alpha * logT * c["lower_pulls"][sub]) / logT) * c["lower_pulls"][sub]
    assert np.all(mean[sub] - 3 * sem[sub] <= upper)
    assert np.all(mean[sub] + 3 * sem[sub] >= floor)


# ----------------------------------------------------------------------------------------------
# overshoot, schedules, the stuck index
# ----------------------------------------------------------------------------------------------
def test_mean_overshoot_is_the_mean_of_a_log_uniform_overshoot():
    rng = np.random.default_rng(0)
    for alpha in (1.1, 2.0, 3.5):
        # thresholds log-uniform over many periods of the grid alpha^m; N = first grid point >= L
        L = np.exp(rng.uniform(0, 30 * np.log(alpha), 400_000))
        N = alpha ** np.ceil(np.log(L) / np.log(alpha))
        assert np.isclose((N / L).mean(), rg.mean_overshoot(alpha), rtol=2e-3)
        assert 1 < rg.mean_overshoot(alpha) < alpha
    assert np.isclose(rg.mean_overshoot(2), 1 / np.log(2))
    assert np.allclose(rg.mean_overshoot([1 + 1e-6, 4]), [1.0, 3 / np.log(4)], rtol=1e-6)
    with pytest.raises(ValueError):
        rg.mean_overshoot(1.0)


def test_schedule_profile():
    p = rg.schedule_profile(2, np.array([1, 2, 3, 4, 100]))
    # n0 = 1, alpha = 2: n_m = 2^(m+1) - 1 = 1, 3, 7, 15, ..., 127
    assert p["n_m"].tolist() == [1, 3, 3, 7, 127]
    assert p["noises"].tolist() == [1, 2, 2, 3, 7]
    assert np.allclose(p["ratio"], [3, 7 / 3, 7 / 3, 15 / 7, 255 / 127])
    poly = rg.schedule_profile(PolynomialSchedule(1, 3), np.array([10**3, 10**6]))
    sizes = PolynomialSchedule(1, 3).sizes(200)
    cum = np.cumsum(sizes)
    for n, nm, k, r in zip([10**3, 10**6], poly["n_m"], poly["noises"], poly["ratio"], strict=True):
        m = int(np.searchsorted(cum, n))
        assert nm == cum[m] and k == m + 1 and np.isclose(r, cum[m + 1] / cum[m])
    assert poly["ratio"][1] < poly["ratio"][0] < 2  # the polynomial ratio decreases towards 1
    with pytest.raises(ValueError):
        rg.schedule_profile(2, [0])


def test_imed_optimal_index():
    d = rg.decompose_runs("DP-IMED", "mu2", 20_000, 5, 1, params={"eps": 0.5, "alpha": 2})
    idx = rg.imed_optimal_index(d)
    x = np.clip(d.final_means, 0, 1)
    n0 = d.total_pulls()[:, -1, 0]
    for r in range(5):
        expected = n0[r] * d_eps(min(x[r, 0], x[r].max()), x[r].max(), 0.5) + np.log(n0[r])
        assert np.isclose(idx[r], expected, rtol=1e-12)
    k = rg.decompose_runs("DP-KLUCB", "mu2", 2000, 2, 1, params={"eps": 0.5})
    with pytest.raises(ValueError, match="DP-IMED"):
        rg.imed_optimal_index(k)


def test_cache_truncated_file_is_recomputed(tmp_path):
    kw = {"eps": 0.5, "alpha": 2, "T": 5_000, "runs": 3, "seed": 4, "directory": tmp_path}
    first = rg.cached_runs("DP-IMED", "mu2", **kw)
    (path,) = tmp_path.glob("*.npz")
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])  # a write cut in the middle
    assert rg.cached_runs("DP-IMED", "mu2", **kw).same_as(first)


def test_scaled_pulls_are_the_pulls_on_the_scale_of_the_bounds(tmp_path, monkeypatch):
    """dpb.chapters.regret.scaled_pulls: N_i(t) d_eps(mu_i, mu*) / log t (chapter 6's table)."""
    from dpb.divergences import d_eps

    monkeypatch.setitem(rg.DEFAULTS, "T", 10**5)
    monkeypatch.setitem(rg.DEFAULTS, "runs", 8)
    runs = chapter.book_runs("mu2", 0.5, 2.0, "DP-IMED", directory=tmp_path)
    hs = (int(runs.grid[3]), int(runs.grid[-1]))
    mean = chapter.scaled_pulls(runs, "mean", hs)
    median = chapter.scaled_pulls(runs, "median", hs)
    K = len(runs.means)
    assert mean.shape == median.shape == (2, K - 1)
    best = max(runs.means)
    d = np.array([d_eps(m, best, 0.5) for m in runs.means[1:]])
    for h, t in enumerate(hs):
        pulls = runs.total_pulls()[:, runs.at(t), 1:]
        np.testing.assert_allclose(mean[h], (pulls * d / np.log(t)).mean(axis=0), rtol=1e-12)
        np.testing.assert_allclose(median[h], np.median(pulls * d / np.log(t), axis=0), rtol=1e-12)
    with pytest.raises(ValueError, match="stat"):
        chapter.scaled_pulls(runs, "max", hs)
    with pytest.raises(TypeError, match="runs"):
        chapter.scaled_pulls("mu2", "mean", hs)
    with pytest.raises(ValueError, match="grid"):
        chapter.scaled_pulls(runs, "mean", (hs[0] + 1,))
