"""The IMED and KL-UCB fast paths (reward tapes, certified leader segments) against exact laws.

:mod:`dpb.policies._tapes` draws a leader's rewards over a segment as one Binomial sum and
refines the segment by hypergeometric splits only where the decision could change.  These tests
check (1) that the refinement produces exactly an i.i.d. Bernoulli sequence, whatever the order
of splits and single pulls (chi-square over all 2^8 patterns of 8 rewards; a wrong splitting
rule is rejected by the same test), (2) the exact law of the optimal arm's pull count of a
two-armed IMED and KL-UCB at T = 24, computed by dynamic programming over the states
(N_0, S_0, N_1, S_1) with the reference's rule and index functions (chi-square against
10,000-20,000 fast runs), (3) that this test rejects deliberately wrong certifications (IMED: a
segment's threshold checked at its first step instead of its last; KL-UCB: a segment certified
by its end point's mean instead of its worst path), and (4) IMED against the literal per-step
reference on horizons where segments of thousands of pulls are certified and split (two-sample
KS on the final and mid-horizon regret and the optimal arm's pulls; the tests of
``tests/test_reference_agreement.py`` cover the paper's instances, ties and near-ties for both
policies).  Seeds are fixed; each test has a false-alarm rate below ALPHA = 1e-3 (discrete
statistics make KS conservative).  The statistical tests run the compiled engine; the Python
engine runs the same kernels uncompiled and is checked equal to it run for run, bitwise.
"""

import functools
import math

import numpy as np
import pytest
from oracle_cache import reference_sample
from scipy.stats import chi2, ks_2samp

import dpb.policies._tapes as tapes
from dpb.policies import _tape_kernel as tk
from dpb.policies.nonprivate import IMED, KLUCB, simulate_imed_fast, simulate_klucb_fast
from dpb.reference import _kl_scalar, _kl_ucb_scalar
from dpb.simulate import Result, simulate

ALPHA = 1e-3
REF_RUNS, FAST_RUNS = 200, 400


def _refined_paths(p, reps, seed, wrong=False):
    """``reps`` sequences of 8 rewards of one arm read through a tape of the kernels (arm 0's
    stack of segments in ``tl, ts, tn``), with random split points."""
    gen = np.random.default_rng(seed)
    plan = np.random.default_rng(seed + 1)
    means = np.array([p])
    out = np.empty((reps, 8), dtype=np.int64)
    tl, ts, tn = np.zeros((1, 16), np.int64), np.zeros((1, 16), np.int64), np.zeros(1, np.int64)
    for r in range(reps):
        tn[0] = 0
        tk._ensure_top(tl, ts, tn, 0, 1, 8, means, gen)  # one Binomial(8, p) segment
        k = 0
        while k < 8:
            i = tn[0] - 1
            L, s = (int(tl[0, i]), int(ts[0, i])) if tn[0] else (1, 0)
            if L > 1 and plan.random() < 0.6:  # split at a random point, keep refining
                L1 = int(plan.integers(1, L))
                if wrong:  # a plausible bug: the first part gets its proportional share
                    s1 = int(round(s * L1 / L))
                    tl[0, i], ts[0, i], tl[0, i + 1], ts[0, i + 1] = L - L1, s - s1, L1, s1
                    tn[0] = i + 2
                else:
                    tk._split_top(tl, ts, tn, 0, L1, gen)
                continue
            n = 1 if L == 1 or plan.random() < 0.5 else L  # one pull, or a whole segment at once
            for _ in range(n):
                out[r, k] = tk._pull(tl, ts, tn, 0, 1 + k, 8, means, gen)  # (peels one entry)
                k += 1
    return out


def _pattern_chi2_pvalue(paths, p):
    codes = paths @ (1 << np.arange(8))
    counts = np.bincount(codes, minlength=256)
    ones = np.array([bin(c).count("1") for c in range(256)])
    expected = paths.shape[0] * p**ones * (1 - p) ** (8 - ones)
    stat = ((counts - expected) ** 2 / expected).sum()
    return chi2.sf(stat, df=255)


def test_tape_refinement_is_iid_bernoulli():
    # every one of the 256 patterns has expected count >= 25600 * 0.5^8 = 100 at p = 0.5, and
    # >= 30000 * 0.3^8 * ... on the lighter patterns at p = 0.7 (the smallest is 30000 * 0.3^8
    # = 2.0: pooled below by the chi-square approximation being conservative at df = 255)
    assert _pattern_chi2_pvalue(_refined_paths(0.5, 25600, 11), 0.5) > ALPHA
    paths = _refined_paths(0.7, 30000, 12)
    assert _pattern_chi2_pvalue(paths, 0.7) > ALPHA
    # and the per-position marginals are Bernoulli(0.7) (5 standard errors)
    se = np.sqrt(0.7 * 0.3 / paths.shape[0])
    assert np.all(np.abs(paths.mean(axis=0) - 0.7) < 5 * se)


def test_wrong_refinement_is_rejected():
    # the same test rejects a split that gives the first part its proportional share of the sum
    assert _pattern_chi2_pvalue(_refined_paths(0.5, 25600, 11, wrong=True), 0.5) < ALPHA


def test_tape_split_keeps_the_sum_and_the_rest():
    tl, ts, tn = np.zeros((1, 4), np.int64), np.zeros((1, 4), np.int64), np.zeros(1, np.int64)
    gen, means = np.random.default_rng(3), np.array([0.4])
    tk._ensure_top(tl, ts, tn, 0, 1, 10**6, means, gen)
    L, s = int(tl[0, 0]), int(ts[0, 0])
    assert tn[0] == 1 and L == 10**6 and 0 < s < L
    tk._split_top(tl, ts, tn, 0, 1000, gen)
    s1 = int(ts[0, 1])
    assert tn[0] == 2 and list(tl[0, :2]) == [L - 1000, 1000] and ts[0, 0] == s - s1
    x = tk._pull(tl, ts, tn, 0, 1, 10**6, means, gen)
    assert x in (0, 1) and tl[0, 1] == 999 and ts[0, 1] == s1 - x


CASES = {
    # long horizons: segments of thousands of pulls are certified and split
    "mu2-long": ((0.75, 0.625, 0.5, 0.375, 0.25), 10_000),
    "two-arms": ((0.9, 0.8), 10_000),
    "near-tied": ((0.75, 0.74, 0.5), 5_000),
}


def _ref(key):
    # kept in tests/data/reference/ while the code it comes from is unchanged (oracle_cache)
    env, T = CASES[key]
    return reference_sample(f"imed-{key}", policy="IMED", env=env, T=T, runs=REF_RUNS, seed=1000)


def _ks(ref, res):
    a = ks_2samp(np.round(ref.regret[:, -1], 9), np.round(res.regret[:, -1], 9)).pvalue
    b = ks_2samp(ref.pulls[:, 0], res.pulls[:, 0]).pvalue
    mid = np.searchsorted(res.checkpoints, res.T // 2)  # the stored reference's first column
    assert res.checkpoints[mid] == ref.checkpoints[0]
    c = ks_2samp(np.round(ref.regret[:, 0], 9), np.round(res.regret[:, mid], 9)).pvalue
    return a, b, c


@pytest.mark.slow
@pytest.mark.parametrize("key", list(CASES))
def test_imed_fast_matches_reference(key):
    env, T = CASES[key]
    res = simulate("IMED", env, T, runs=FAST_RUNS, seed=2000)
    assert np.all(res.pulls.sum(axis=1) == T)
    assert min(_ks(_ref(key), res)) > ALPHA, key


ENGINE_CELLS = [  # (policy, means, T, params): ties, near-ties, one arm far ahead, c > 0
    ("IMED", (0.3, 0.25, 0.25, 0.25, 0.25), 4000, {}),
    ("IMED", (0.5, 0.5, 0.3), 20_000, {}),
    ("IMED", (0.9, 0.8), 20_000, {}),
    ("KL-UCB", (0.3, 0.25, 0.25, 0.25, 0.25), 4000, {}),
    ("KL-UCB", (0.2, 0.2, 0.2, 0.1), 20_000, {}),
    ("KL-UCB", (0.75, 0.625, 0.5, 0.375, 0.25), 20_000, {"c": 3.0}),
]


def _same_runs(a, b):
    return all(np.array_equal(getattr(a, k), getattr(b, k)) for k in Result._ARRAYS)


@pytest.mark.parametrize("name, env, T, params", ENGINE_CELLS)
def test_the_python_engine_is_the_compiled_kernels_run_for_run(name, env, T, params):
    # one source: the Python engine runs the kernels uncompiled, with the same draws in the same
    # order, so one seed gives the same runs bitwise; Result.engine says which engine ran
    jit = simulate(name, env, T, runs=3, seed=77, params=params, engine="numba")
    py = simulate(name, env, T, runs=3, seed=77, params=params, engine="python")
    assert (jit.engine, py.engine) == ("numba", "python") and np.all(py.pulls.sum(axis=1) == T)
    assert _same_runs(py, jit)
    assert not _same_runs(py, simulate(name, env, T, runs=3, seed=78, params=params, engine="python"))


def test_the_engine_argument(monkeypatch):
    assert simulate("IMED", "mu1", 500, seed=0).engine == "numba"  # the default
    monkeypatch.setenv("DPB_JIT", "0")  # the environment sets the default only
    assert simulate("IMED", "mu1", 500, seed=0).engine == "python"
    assert simulate("IMED", "mu1", 500, seed=0, engine="numba").engine == "numba"
    assert simulate("IMED", "mu1", 500, seed=0, fast=False).engine == "phases"
    with pytest.raises(ValueError, match="engine must be 'numba' or 'python', got 'cython'"):
        simulate("IMED", "mu1", 500, seed=0, engine="cython")
    a = simulate("IMED", "mu1", 500, seed=0, run_ids=[0], engine="numba")
    b = simulate("IMED", "mu1", 500, seed=0, run_ids=[1], engine="python")
    with pytest.raises(ValueError, match="engine"):
        Result.concat([a, b])  # runs of two engines are not one result


@pytest.mark.parametrize("name", ["IMED", "KL-UCB"])
def test_kernel_resumes_exactly(name, monkeypatch):
    # a kernel call stops after _KERNEL_BUDGET decisions (so that Ctrl-C is handled between
    # calls) and the run resumes from its state: the numbers do not depend on the budget
    env, T = (0.3, 0.25, 0.25, 0.25, 0.25), 20_000
    whole = simulate(name, env, T, runs=3, seed=5)
    monkeypatch.setattr(tapes, "_KERNEL_BUDGET", 7)
    assert simulate(name, env, T, runs=3, seed=5).same_as(whole)
    # arrays that start tiny are enlarged when the kernel asks for room (and a leader block that
    # runs out of room stops early: other numbers, the same law); again independent of the budget
    monkeypatch.setattr(tapes, "_KERNEL_SIZES", (1, 1))
    small = simulate(name, env, T, runs=3, seed=5)
    assert np.all(small.pulls.sum(axis=1) == T)
    monkeypatch.setattr(tapes, "_KERNEL_BUDGET", 1 << 15)
    assert simulate(name, env, T, runs=3, seed=5).same_as(small)


def test_imed_runs_are_independent_of_grouping():
    env, T = (0.3, 0.25, 0.25, 0.25, 0.25), 3000
    together = simulate("IMED", env, T, runs=4, seed=77)
    alone = Result.concat([simulate("IMED", env, T, seed=77, run_ids=[i]) for i in range(4)])
    assert together.same_as(alone)


def _imed_index(n, s, top, t, c):
    return n * _kl_scalar(s / n, top) + math.log(n)


def _klucb_index(n, s, top, t, c):
    budget = max(math.log(t) + (c * math.log(math.log(t)) if c else 0.0), 0.0)
    return -_kl_ucb_scalar(s / n, budget / n)  # (minimised, like IMED's)


def _exact_pulls_law(name, means, T, c=0.0):
    """Exact law of N_0(T) for a two-armed IMED or KL-UCB (the reference's rule and index
    functions, ties at random), by dynamic programming over (N_0, S_0, N_1, S_1)."""
    index = _imed_index if name == "IMED" else _klucb_index
    p = means
    dist = {}
    for x0 in (0, 1):
        for x1 in (0, 1):
            pr = (p[0] if x0 else 1 - p[0]) * (p[1] if x1 else 1 - p[1])
            dist[(1, x0, 1, x1)] = pr
    for t in range(3, T + 1):
        new = {}
        for (n0, s0, n1, s1), pr in dist.items():
            top = max(s0 / n0, s1 / n1)
            i0, i1 = index(n0, s0, top, t, c), index(n1, s1, top, t, c)
            choices = [0] if i0 < i1 else [1] if i1 < i0 else [0, 1]
            for a in choices:
                for x, px in ((1, p[a]), (0, 1 - p[a])):
                    key = (n0 + 1, s0 + x, n1, s1) if a == 0 else (n0, s0, n1 + 1, s1 + x)
                    new[key] = new.get(key, 0.0) + pr / len(choices) * px
        dist = new
    law = np.zeros(T + 1)
    for (n0, _, _, _), pr in dist.items():
        law[n0] += pr
    return law


def _wrong(name, wrong, c=0.0):
    """IMED or KL-UCB whose fast path runs a deliberately wrong certification of the kernels
    (the private argument ``_wrong`` of the fast paths, for these power checks only)."""
    fast = simulate_imed_fast if name == "IMED" else functools.partial(simulate_klucb_fast, c=c)

    class Wrong(IMED if name == "IMED" else KLUCB):
        def fast_simulate(self, means, T, env_generators, policy_generators, recorder, engine=None):
            fast(means, T, env_generators, policy_generators, recorder, engine=engine, _wrong=wrong)

    return Wrong() if name == "IMED" else Wrong(c=c)


def _law_pvalue(name, means, T, runs, seed, c=0.0, wrong=tk.CORRECT):
    """Chi-square p-value of the fast path's N_0(T) against the exact law (cells with expected
    count < 5 pooled into one)."""
    law = _exact_pulls_law(name, means, T, c)
    assert abs(law.sum() - 1.0) < 1e-12
    res = simulate(_wrong(name, wrong, c), means, T, runs=runs, seed=seed)
    assert res.engine == "numba" and res.policy == name
    counts = np.bincount(res.pulls[:, 0], minlength=T + 1)
    exp = runs * law
    keep = exp >= 5
    stat = ((counts[keep] - exp[keep]) ** 2 / exp[keep]).sum()
    df = keep.sum() - 1
    if (~keep).any():
        stat += (counts[~keep].sum() - exp[~keep].sum()) ** 2 / exp[~keep].sum()
        df += 1
    return chi2.sf(stat, df)


@pytest.mark.parametrize(
    "name, means, c, runs",
    [
        ("IMED", (0.6, 0.4), 0.0, 20000),
        ("IMED", (0.3, 0.25), 0.0, 10000),
        ("KL-UCB", (0.6, 0.4), 0.0, 20000),
        ("KL-UCB", (0.8, 0.3), 1.0, 10000),
    ],
)
def test_fast_path_matches_the_exact_law(name, means, c, runs):
    assert _law_pvalue(name, means, 24, runs, seed=5, c=c) > ALPHA


@pytest.mark.parametrize("name, wrong", [("IMED", tk.FIRST_STEP), ("KL-UCB", tk.END_MEAN)])
def test_wrong_certification_is_rejected(name, wrong):
    # two deliberately wrong certifications, each rejected by the exact-law test that the correct
    # code passes above: IMED checking a segment's threshold at its first step instead of its
    # last (p ~ 1e-160 in development), KL-UCB certifying a segment by its end point's mean
    # instead of its worst path (p ~ 1e-47); the kernels take the variant as a private argument
    assert _law_pvalue(name, (0.6, 0.4), 24, 20000, seed=5, wrong=wrong) < ALPHA


def test_scalar_kl_ucb_matches_the_bisection():
    # the scalar Newton inversion of the fast paths against the reference's 60 halvings
    from dpb.policies._scalar import kl_ucb as _kl_ucb
    from dpb.reference import _kl_ucb_scalar

    rng = np.random.default_rng(0)
    xs = np.concatenate([[0.0, 1.0, 1e-12, 1 - 1e-12], rng.random(400)])
    cs = np.concatenate([[0.0, 1e-12, 50.0, 0.3], rng.exponential(0.05, 200), rng.exponential(2.0, 200)])
    for x, c in zip(xs, cs, strict=True):
        assert abs(_kl_ucb(float(x), float(c)) - _kl_ucb_scalar(float(x), float(c))) < 1e-10, (x, c)


# ----------------------------------------------------------------------------------------------
# the compiled kernel's own sampler and tape
# ----------------------------------------------------------------------------------------------
def _hyper_pvalue(draw, good, bad, n, reps, seed, bins=40):
    """Chi-square p-value of ``reps`` draws of ``draw(gen, good, bad, n)`` against scipy's
    hypergeometric law, over about ``bins`` cells of equal expected count (edges at its
    quantiles; a small support gives fewer cells, each of expected count >= 5 here)."""
    from scipy.stats import hypergeom

    gen = np.random.default_rng(seed)
    x = np.array([draw(gen, good, bad, n) for _ in range(reps)])
    assert x.min() >= max(0, n - bad) and x.max() <= min(n, good)
    rv = hypergeom(good + bad, good, n)
    edges = np.unique(rv.ppf(np.linspace(0, 1, bins + 1)[1:-1]))  # cells (-inf, e1], (e1, e2], ...
    cdf = np.concatenate([[0.0], rv.cdf(edges), [1.0]])
    exp = reps * np.diff(cdf)
    counts = np.bincount(np.searchsorted(edges, x, side="left"), minlength=len(exp))
    keep = exp > 0
    assert exp[keep].min() >= 5
    return chi2.sf(((counts[keep] - exp[keep]) ** 2 / exp[keep]).sum(), keep.sum() - 1)


HYPER_CASES = [  # (good, bad, n): small, skewed, the boundaries, and segments of 10^6 to 2^28
    (3, 5, 4),
    (1, 30, 10),
    (40, 60, 99),
    (997, 3, 500),
    (400_000, 600_000, 250_000),
    (7, 10**6 - 7, 500_000),
    (2**27, 2**27, 2**26),
    (2**28 - 5000, 5000, 2**27),
]


@pytest.mark.parametrize("good, bad, n", HYPER_CASES)
def test_kernel_hypergeometric_law(good, bad, n):
    from dpb.policies._tape_kernel import hypergeometric

    assert _hyper_pvalue(hypergeometric, good, bad, n, 20000, seed=good % 1000 + n % 1000) > ALPHA


def test_kernel_hypergeometric_edges():
    from fractions import Fraction

    from dpb.policies._tape_kernel import hypergeometric, log_hypergeom_pmf

    gen = np.random.default_rng(0)
    assert hypergeometric(gen, 0, 10, 4) == 0 and hypergeometric(gen, 10, 0, 4) == 4
    assert hypergeometric(gen, 5, 5, 10) == 5 and hypergeometric(gen, 5, 5, 0) == 0
    for good, bad, n in HYPER_CASES:
        # the sampler needs P(mode) to relative rounding accuracy (any error rescales the whole
        # law it inverts): the pmf from the mode by the ratio recurrences must sum to 1.  (A
        # mode value from log-factorials, math.lgamma, is off by 2e-7 to 4e-7 at 2^28 entries.)
        mode = (n + 1) * (good + 1) // (good + bad + 2)
        pm = math.exp(log_hypergeom_pmf(mode, good, bad, n))
        sd = math.sqrt(n * good * bad * (good + bad - n) / (good + bad) ** 2 / max(good + bad - 1, 1))
        w = int(40 * sd) + 40
        up = np.arange(mode, min(n, good, mode + w), dtype=float)
        down = np.arange(mode, max(0, n - bad, mode - w), -1, dtype=float)
        r_up = (good - up) * (n - up) / ((up + 1) * (bad - n + up + 1))
        r_down = down * (bad - n + down) / ((good - down + 1) * (n - down + 1))
        rest = 1.0 + np.cumprod(r_up).sum() + np.cumprod(r_down).sum()
        assert abs(pm * rest - 1.0) < 1e-11, (good, bad, n, pm * rest)
        if good + bad >= 2**27:  # the check has the power to see the log-factorial version
            lf = [math.lgamma(v + 1.0) for v in (good, mode, good - mode, bad, n - mode,
                                                 bad - n + mode, good + bad, n, good + bad - n)]
            naive = math.exp(lf[0] - lf[1] - lf[2] + lf[3] - lf[4] - lf[5] - lf[6] + lf[7] + lf[8])
            assert abs(naive * rest - 1.0) > 1e-8
        if good + bad <= 10**6:  # and is the exact value, rounded (exact integers)
            exact = Fraction(math.comb(good, mode) * math.comb(bad, n - mode), math.comb(good + bad, n))
            assert abs(pm / float(exact) - 1.0) < 1e-13, (good, bad, n)


def test_wrong_hypergeometric_is_rejected():
    # a plausible bug, the pmf at the mode from a binomial instead of the hypergeometric (sampling
    # with replacement): too wide for large n / (good + bad), and the chi-square sees it
    from dpb.policies._tape_kernel import hypergeometric

    def with_replacement(gen, good, bad, n):
        return int(gen.binomial(n, good / (good + bad)))

    assert _hyper_pvalue(hypergeometric, 400_000, 600_000, 250_000, 20000, seed=3) > ALPHA
    assert _hyper_pvalue(with_replacement, 400_000, 600_000, 250_000, 20000, seed=3) < ALPHA


def test_numba_is_imported_by_a_simulation_not_by_importing_dpb():
    """``import dpb`` and its simulators never import numba (0.5 s): a simulation does, since its
    indexes are computed by dpb._detmath's compiled loops (the same bits on every CPU)."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "import dpb\n"
        "from dpb.simulate import simulate\n"
        "import dpb.policies.nonprivate, dpb.policies.dp_batched, dpb.divergences\n"
        "a = 'numba' in sys.modules\n"
        "simulate('KL-UCB', 'mu1', 100, runs=1, seed=0, engine='python')\n"
        "print(a, 'numba' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "True"]
